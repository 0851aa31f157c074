"""Drift and verify over a real 4-spine × 16-leaf lab: seconds per device, sequential and in parallel.

Needs root and the lab's packages (see tests/test_lab_live.py). Builds the lab, converges it with `apply`,
measures, and always tears the lab down. Usage: ``python bench/live.py [--spines 4] [--leaves 16]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path


def inventory(spines: int, leaves: int) -> str:
    lines = [
        "fabric:",
        "  name: bench-live",
        "  oversubscription: {leaf: 1.0, spine: 1.0}",
        "  addressing:",
        "    loopbacks: {leaf: 10.0.0.0/24, spine: 10.0.1.0/24, core: 10.0.2.0/24}",
        "switches:",
    ]
    sw = "  - {{name: {name}, role: {role}, model: sn5600, platform: frr, id: {id}{extra}}}"
    lines += [sw.format(name=f"spine{s}", role="spine", id=s, extra="") for s in range(1, spines + 1)]
    lines += [sw.format(name=f"leaf{n}", role="leaf", id=n, extra=", unit: 1") for n in range(1, leaves + 1)]
    lines.append("links:")
    for n in range(1, leaves + 1):
        for s in range(1, spines + 1):
            lines.append(f"  - {{a: leaf{n}:swp{32 + s}, b: spine{s}:swp{n}, length_m: 30}}")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spines", type=int, default=4)
    ap.add_argument("--leaves", type=int, default=16)
    ap.add_argument("--workers", type=int, default=16)
    args = ap.parse_args()

    from fabricgen.deploy.apply import ApplyOptions, apply
    from fabricgen.deploy.intended import intended_configs
    from fabricgen.deploy.ops import load_live, run_drift, run_verify
    from fabricgen.inventory.load import load_inventory
    from fabricgen.lab import lab
    from fabricgen.lab.machine import missing_prerequisites
    from fabricgen.topology.resolve import resolve

    why = missing_prerequisites()
    if why:
        print("bench/live.py needs: " + "; ".join(why), file=sys.stderr)
        return 3
    with tempfile.TemporaryDirectory() as tmp:
        inv = Path(tmp) / "fabric.yaml"
        inv.write_text(inventory(args.spines, args.leaves))
        os.environ["FABRICGEN_STATE_DIR"] = str(Path(tmp) / "state")
        fabric = resolve(load_inventory(inv))
        leftover = lab.load_state(fabric.name)
        if leftover is not None:
            lab.down_state(leftover)
        t0 = time.perf_counter()
        state = lab.up(fabric)
        try:
            n = len(state.switches)
            print(f"lab {args.spines}x{args.leaves}: {n} switches, {len(state.cables)} cables, "
                  f"up in {time.perf_counter() - t0:.1f} s")
            live = load_live(str(inv))
            t0 = time.perf_counter()
            report = apply(live.fabric, intended_configs(live.fabric), live.targets,
                           ApplyOptions(canary=1, wave_size=n, workers=args.workers, settle=60), Path(tmp) / "state")
            print(f"apply (canary + 1 wave, {args.workers} workers): {time.perf_counter() - t0:.1f} s, "
                  f"{report.by_status().keys()}")
            deadline = time.monotonic() + 60
            while True:  # let every session come up before measuring verify
                v = run_verify(live, workers=args.workers)
                if all(r.value is not None and r.value.ok for r in v.by_device.values()) or time.monotonic() > deadline:
                    break
                time.sleep(2)
            print(f"{'operation':<8} {'mode':<22} {'total s':>8} {'s/device':>9}  result")
            for name, fn in (("drift", run_drift), ("verify", run_verify)):
                for mode, workers in (("sequential", 1), (f"parallel ({args.workers})", args.workers)):
                    t0 = time.perf_counter()
                    res = fn(live, workers=workers)  # type: ignore[operator]
                    dt = time.perf_counter() - t0
                    if name == "drift":
                        bad = sum(1 for r in res.by_device.values() if r.failed or r.value.drifted)
                        result = f"{bad} drifted/failed"
                    else:
                        bad = sum(1 for r in res.by_device.values() if r.failed or not r.value.ok)
                        result = f"{bad} with problems"
                    print(f"{name:<8} {mode:<22} {dt:8.2f} {dt / n:9.3f}  {result}")
        finally:
            lab.down_state(state)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
