"""What every benchmark prints beside its figures: the CPU model and the 1-minute load average."""

from __future__ import annotations

import compileall
import os
import sys
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


def compile_fabricgen() -> str:
    """Compile fabricgen's modules to bytecode (``__pycache__``, ignored by git), as installing a package does,
    and say so for the figure lines.

    A fresh ``fabricgen`` process loads some 60 of its own modules. An installed wheel has them compiled (pip
    compiles at install), and a checkout writes the bytecode on its first run, unless ``PYTHONDONTWRITEBYTECODE``
    is set, as it is on some CI machines: then every process compiles them from source again, about 0.1 s of
    a benchmark that pyavd, compiled in site-packages, does not pay.
    """
    import fabricgen

    root = Path(fabricgen.__file__).resolve().parent
    ok = compileall.compile_dir(str(root), quiet=1)
    state = "compiled" if ok else "not all compiled"
    setting = " (PYTHONDONTWRITEBYTECODE is set)" if sys.flags.dont_write_bytecode else ""
    return f"fabricgen's modules {state} to bytecode before timing{setting}"
