"""Cost of `fabricgen paths` on rail-optimized fabrics of 1k, 16k and 100k GPUs.

For each size the fabric is built once (load + resolve, measured by bench/scale.py, not here); then the
whole fabric runs one job, scattered (random rank order over every node: every ring neighbour is on
another leaf, the most flows the fabric can carry), with the four default remedies (ECMP 1 QP, ECMP 4 QPs,
adaptive routing, packet spraying) and the given number of hash seeds. The figure is the wall time of
`paths_report` (flows, routing, loads, the scaling model's predictions), median of 3 runs, printed with the
1-minute load average and the CPU model, since the machine may be shared.

    python bench/paths.py                 # 1k, 16k, 100k GPUs, 4 seeds
    python bench/paths.py --seeds 16 1024 # chosen sizes (rounded to whole 256-GPU units)
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

from intents import intent_yaml  # bench/intents.py
from machine import cpu_model  # bench/machine.py

from fabricgen.inventory.load import load_inventory
from fabricgen.perf.paths import parse_job, paths_report, standard_remedies
from fabricgen.topology.resolve import resolve

RUNS = 3



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[1024, 16384, 100_000])
    ap.add_argument("--seeds", type=int, default=4)
    args = ap.parse_args()
    cpu = cpu_model()
    print(f"{'GPUs':>8} {'flows':>9} {'seconds':>8} {'ms/seed/remedy':>15} {'load avg':>9}  CPU")
    with tempfile.TemporaryDirectory() as tmp:
        for gpus in args.sizes:
            units = max(1, math.ceil(gpus / 256))
            path = Path(tmp) / f"bench-{units}.yaml"
            path.write_text(intent_yaml(f"bench-{units * 256}", units))
            fabric = resolve(load_inventory(path))
            job = parse_job(fabric, f"{fabric.gpus}:scattered")
            remedies = standard_remedies()
            times = []
            report = None
            for _ in range(RUNS):
                start = time.perf_counter()
                report = paths_report(fabric, [job], remedies, seeds=args.seeds)
                times.append(time.perf_counter() - start)
            assert report is not None
            flows = report.jobs[0].results[0].flows
            secs = statistics.median(times)
            runs_per_report = (len(remedies) - 1) * args.seeds + 1  # spraying needs no seeds
            print(
                f"{fabric.gpus:>8,} {flows:>9,} {secs:>8.2f} {secs / runs_per_report * 1000:>15.0f} "
                f"{os.getloadavg()[0]:>9.2f}  {cpu}",
                flush=True,
            )
            eff = ", ".join(f"{r.remedy.name} {r.median_efficiency:.0%}" for r in report.jobs[0].results)
            print(f"{'':>8} median collision efficiency: {eff}", flush=True)


if __name__ == "__main__":
    main()
