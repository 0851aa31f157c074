"""Load + resolve + check cost of rail-optimized fabrics at 1k, 16k and 100k GPUs.

Each size runs `fabricgen validate --format json` in a fresh process (the whole process is measured:
interpreter start, imports, YAML load, intent expansion, resolution, every check, JSON output) and
prints wall seconds, peak RSS and the per-GPU cost, so growth can be read off as linear or not.

    python bench/scale.py            # 1k, 16k, 100k
    python bench/scale.py 1024 4096  # chosen GPU counts (rounded to whole 256-GPU units)
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from intents import intent_yaml  # bench/intents.py


def run(gpus: int, workdir: Path) -> tuple[int, float, float]:
    """Validate a fabric of about ``gpus`` GPUs in a child process; wall seconds and its own peak RSS (MB)."""
    units = max(1, math.ceil(gpus / 256))
    path = workdir / f"bench-{units}.yaml"
    path.write_text(intent_yaml(f"bench-{units * 256}", units))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "fabricgen", "validate", "--format", "json", str(path)], stdout=out, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            err.seek(0)
            sys.exit(f"validate failed for {gpus} GPUs (exit {code}):\n{err.read().decode()[:2000]}")
    return units * 256, elapsed, usage.ru_maxrss / 1024


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [1024, 16384, 100_000]
    print(f"{'GPUs':>8} {'seconds':>8} {'peak RSS':>10} {'µs/GPU':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for gpus in sizes:
            real, secs, rss = run(gpus, Path(tmp))
            print(f"{real:>8,} {secs:>8.2f} {rss:>8.0f} MB {secs / real * 1e6:>8.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
