"""The largest intent fabricgen accepts under its object cap, and what validating it costs.

Finds the largest number of 256-GPU units (bench/intents.py's intent) whose fabric stays within
``FABRICGEN_MAX_OBJECTS`` (default 600,000), then runs ``fabricgen validate`` on it in a fresh process three
times and prints the median wall time and peak RSS, with the 1-minute load average and the CPU model.

    python bench/budget.py
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from intents import intent_yaml
from machine import cpu_model  # bench/machine.py


def validate(path: Path) -> tuple[int, float, float]:
    """Exit code, wall seconds and peak RSS (MB) of one `fabricgen validate` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "fabricgen", "validate", str(path), "--format", "json"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - t0
    rss = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    return done.returncode, wall, rss


def accepted(units: int, d: Path) -> bool:
    """Whether fabricgen builds the fabric of ``units`` units: the object cap, the models' radix and the address
    pools all hold (load and resolve, in this process)."""
    from fabricgen.errors import InputError
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    f = d / "probe.yaml"
    f.write_text(intent_yaml("budget", units))
    try:
        resolve(load_inventory(f))
    except InputError:
        return False
    return True


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        lo, hi = 1, 4096
        while lo < hi:  # largest accepted
            mid = (lo + hi + 1) // 2
            if accepted(mid, d):
                lo = mid
            else:
                hi = mid - 1
        f = d / "largest.yaml"
        f.write_text(intent_yaml("largest", lo))
        runs = [validate(f) for _ in range(3)]
        codes = {c for c, _, _ in runs}
        print(f"largest accepted intent: {lo} units × 256 GPUs = {lo * 256:,} GPUs (cap "
              f"{os.environ.get('FABRICGEN_MAX_OBJECTS', '600000')} objects); validate exit codes {sorted(codes)}")
        print(f"validate: median {statistics.median(w for _, w, _ in runs):.1f} s, peak RSS "
              f"{max(r for _, _, r in runs):,.0f} MB (3 runs) — load {os.getloadavg()[0]:.2f}, {cpu_model()}")
        over = d / "over.yaml"
        over.write_text(intent_yaml("over", lo + 1))
        code, wall, _ = validate(over)
        print(f"one unit more: exit {code} in {wall:.2f} s")


if __name__ == "__main__":
    main()
