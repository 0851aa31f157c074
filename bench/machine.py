"""What every benchmark prints beside its figures: the CPU model and the 1-minute load average."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (``unknown CPU`` elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def context() -> str:
    """``load 1.30, AMD EPYC …`` — the conditions a figure was measured under."""
    return f"load {os.getloadavg()[0]:.2f}, {cpu_model()}"


def filesystem(path: str | os.PathLike[str]) -> str:
    """The type of the file system ``path`` is on, from /proc/mounts (``tmpfs``, ``ext4``; ``unknown`` elsewhere)."""
    target = os.path.realpath(path)
    best, kind = "", "unknown"
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return kind
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best, kind = point, fields[2]
    return kind


def memory_root() -> str | None:
    """A directory on a memory file system (``/dev/shm`` when it is a tmpfs), or None."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and filesystem("/dev/shm") == "tmpfs" else None
