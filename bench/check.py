"""Oracle benchmark: what `fabricgen render --check` costs, per platform.

For each bundled inventory moved to SONiC and to NVUE, prints the time to load the oracle (once per
process) and the files validated per second (median of 3 runs), with the 1-minute load average and the
CPU model beside each figure. Run: ``python bench/check.py [INVENTORY ...]`` (default: multi-su), with
``FABRICGEN_SONIC_YANG_DIR`` naming SONiC's YANG models (e.g. ``../shared/sonic-yang``).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from machine import cpu_model  # bench/machine.py

from fabricgen.inventory.load import load_inventory
from fabricgen.qos import compute
from fabricgen.render import render_device
from fabricgen.render.check import nvue_oracle, sonic_oracle, sonic_unavailable
from fabricgen.render.retarget import retarget
from fabricgen.topology.resolve import resolve

ROOT = Path(__file__).resolve().parent.parent



def _env() -> str:
    return f"load {os.getloadavg()[0]:.2f}, {cpu_model()}"


def main() -> None:
    names = sys.argv[1:] or ["multi-su"]
    for name in names:
        for plat in ("sonic", "nvue"):
            fabric = resolve(retarget(load_inventory(ROOT / "inventories" / name), plat))
            qos = compute(fabric)
            texts = [render_device(fabric, n, qos).main for n in sorted(fabric.switches)]
            release = next(iter(fabric.switches.values())).release
            t0 = time.perf_counter()
            oracle = sonic_oracle() if plat == "sonic" else nvue_oracle(release)
            load_s = time.perf_counter() - t0
            if oracle is None:
                why = (sonic_unavailable() or ("", ""))[0] if plat == "sonic" else "nvueschema not installed"
                print(f"{name} {plat}: oracle not run: {why}")
                continue
            print(f"{name} {plat} {release}: oracle loaded in {load_s:.2f} s  [{_env()}]")
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                bad = sum(1 for t in texts if oracle.problems(t))
                runs.append(time.perf_counter() - t0)
            med = statistics.median(runs)
            size = sum(len(t) for t in texts) / 1e6
            print(f"{name} {plat} {release}: {len(texts)} files ({size:.1f} MB), {bad} invalid, "
                  f"median {med:.2f} s = {len(texts) / med:.1f} files/s  [{_env()}]")


if __name__ == "__main__":
    main()
