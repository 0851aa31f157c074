"""Run one part of a command in a forked child while the parent does another, on a second core.

``fabricgen render`` of a large fabric writes the switch configurations in the parent and, meanwhile, runs
the checks and writes the host files in a child: both halves only read the (immutable, already built)
fabric, so the child needs nothing from the parent but the fork's copy of it, and sends back its result
pickled through a pipe. Where forking is not possible or not safe (no ``os.fork``, one CPU, other threads
running — as inside a test runner), or the child fails in any way other than an ``OSError``, the work runs
in this process instead, so the result never depends on how it was obtained.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    """Whether a child may be forked to work beside this process: POSIX, a second CPU this process may
    use, and no other thread (a thread holding a lock at the fork would leave it held in the child)."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return cpus > 1


def start(work: Callable[[], T], fork: bool = True) -> Callable[[], T]:
    """Start ``work`` in a forked child when ``fork`` and :func:`can_fork`; the returned function waits for
    it and returns its result, re-raising an ``OSError`` the child met (with its file name). Without a
    child, ``work`` runs when the result is collected, exactly as if it were called then."""
    if not fork or not can_fork():
        return work  # done when collected, in this process
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: do the work, send the outcome, leave without running the parent's exit code
        status = 0
        try:
            os.close(read_fd)
            outcome: tuple[Any, ...]
            try:
                outcome = ("ok", work())
            except OSError as exc:
                outcome = ("oserror", exc.errno, exc.strerror, exc.filename)
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(data)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)

    def collect() -> T:
        with os.fdopen(read_fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status != 0 or not data:
            return work()
        outcome = pickle.loads(data)
        if outcome[0] == "oserror":
            raise OSError(outcome[1], outcome[2], outcome[3])
        result: T = outcome[1]
        return result

    return collect
