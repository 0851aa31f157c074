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
