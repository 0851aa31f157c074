"""Bounded parallel fan-out with one result per device (Nornir's shape, without its inventory).

``run(task, names, workers)`` calls ``task(name)`` for every device on a thread pool of ``workers``; an
exception becomes that device's failed result and never stops the others. Progress is drawn only when
stderr is a terminal and ``CI`` is unset — the only place progress lives.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from fabricgen.deploy.credentials import redact

T = TypeVar("T")


@dataclass
class Result(Generic[T]):
    device: str
    value: T | None = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass
class Results(Generic[T]):
    by_device: dict[str, Result[T]] = field(default_factory=dict)

    @property
    def failed(self) -> list[str]:
        """Failed hosts, for a rerun that targets exactly them."""
        return sorted(n for n, r in self.by_device.items() if r.failed)


def show_progress() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI")


def progress_console() -> Any:
    """Progress goes to stderr, so that stdout (a report, JSON) stays clean."""
    from rich.console import Console

    return Console(stderr=True)


def run(
    task: Callable[[str], T],
    names: Iterable[str],
    workers: int = 8,
    secrets: list[str] | None = None,
    label: str = "devices",
) -> Results[T]:
    names = list(names)
    results: Results[T] = Results()
    progress: Any = None
    if show_progress() and names:
        from rich.progress import Progress

        progress = Progress(transient=True, console=progress_console())
        progress.start()
        bar = progress.add_task(label, total=len(names))

    def one(name: str) -> Result[T]:
        t0 = time.perf_counter()
        try:
            return Result(name, task(name), None, time.perf_counter() - t0)
        except Exception as exc:
            msg = redact(f"{type(exc).__name__}: {exc}".strip(), secrets or [])
            return Result(name, None, msg, time.perf_counter() - t0)

    try:
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(names) or 1))) as pool:
            futures = {pool.submit(one, n): n for n in names}
            for fut in as_completed(futures):
                r = fut.result()
                results.by_device[r.device] = r
                if progress is not None:
                    progress.advance(bar)
    finally:
        if progress is not None:
            progress.stop()
    results.by_device = {n: results.by_device[n] for n in names}
    return results
