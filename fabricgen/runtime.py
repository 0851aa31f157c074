"""Process-wide settings for the command line and the benchmarks (never called by library code)."""

from __future__ import annotations

import gc


def tune_gc() -> None:
    """Collect cyclic garbage far less often.

    A resolved fabric is ~10⁶ small acyclic objects (ports, links, NICs, QoS values). With the default
    thresholds the cyclic collector rescans them again and again while they are being built, which costs
    about half of the resolve time at 100k GPUs and slows rendering by a third. fabricgen's own objects
    hold no reference cycles, so the collector has little to find; it still runs, just rarely.
    """
    gc.freeze()
    gc.set_threshold(200_000, 50, 1000)
