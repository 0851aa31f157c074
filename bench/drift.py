"""Drift comparison benchmark: ``fabricgen.deploy.normalize.compare`` (what ``drift`` and ``apply`` run per
device) on the first leaf and spine of the 16k-GPU example intent, for each platform.

Prints, per platform and device, the configuration size and the median of 3 comparisons of the intended
configuration against a running one with its last two lines swapped (SONiC's bundle is one JSON line: the
same text), with the 1-minute load average and the CPU model beside each figure. Run: ``python bench/drift.py``.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from intents import intent_yaml  # bench/intents.py

from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.normalize import compare
from fabricgen.inventory.load import load_inventory
from fabricgen.render.platforms import PLATFORMS
from fabricgen.render.retarget import retarget
from fabricgen.topology.resolve import resolve


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        inv = Path(tmp) / "16k.yaml"
        inv.write_text(intent_yaml("bench16k", 63))
        loaded = load_inventory(inv)
        for platform in sorted(PLATFORMS):
            fabric = resolve(retarget(loaded, platform))
            names = [next(n for n in sorted(fabric.switches) if n.startswith(r)) for r in ("leaf", "spine")]
            configs = intended_configs(fabric, names)
            for name in names:
                intended = configs[name]
                lines = intended.splitlines()
                running = "\n".join([*lines[:-2], lines[-1], lines[-2]]) if len(lines) > 2 else intended
                runs = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    compare(platform, intended, running)
                    runs.append(time.perf_counter() - t0)
                print(f"{platform:6s} {name:14s} {len(intended) / 1e3:8,.0f} kB  compare median of 3: "
                      f"{statistics.median(runs) * 1e3:8,.1f} ms   (load {os.getloadavg()[0]:.2f}, {cpu_model()})")


if __name__ == "__main__":
    main()
