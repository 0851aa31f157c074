"""YAML parse throughput of the inventory loader: libyaml (PyYAML's C parser) against ruamel.yaml.

Each input is written to a temporary file and read with ``load_tree`` (parse, tree, positions; no schema
validation) in this process, the collector tuned as the CLI tunes it; the median of ``--runs`` runs is
printed with MB/s, the 1-minute load average and the CPU model beside every figure.

    python bench/parse.py                    # every input; ruamel.yaml on inputs up to 4 MB only
    python bench/parse.py --ruamel-max-mb 40 # ruamel.yaml on everything (the 34 MB list takes minutes)
    python bench/parse.py --only list        # inputs whose name contains "list"
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("FABRICGEN_MAX_YAML_BYTES", str(1 << 30))  # measure past the default cap

from explicit import (  # bench/explicit.py
    deep_maps_yaml,
    expanded_yaml,
    long_strings_yaml,
    short_items_yaml,
    tiny_items_yaml,
    two_tier_yaml,
)
from machine import cpu_model  # bench/machine.py

from fabricgen.inventory.load import load_tree
from fabricgen.runtime import tune_gc

INPUTS: list[tuple[str, Callable[[], str]]] = [
    ("explicit 16 spines x 512 leaves", two_tier_yaml),
    ("explicit 16k GPUs (64 units)", lambda: expanded_yaml("explicit-16k", 64)),
    ("explicit 100k GPUs (391 units)", lambda: expanded_yaml("explicit-100k", 391)),
    ("list of short items, 34 MB", lambda: short_items_yaml(34)),
    ("list of one-letter items, 8 MB", lambda: tiny_items_yaml(8)),
    ("deep-ish maps (12 levels), 16 MB", lambda: deep_maps_yaml(16)),
    ("long strings (100 kB each), 32 MB", lambda: long_strings_yaml(32)),
]



def measure(path: Path, use_libyaml: bool, runs: int) -> tuple[float, float, float]:
    """Median wall and CPU seconds of ``runs`` loads, and the 1-minute load average before the last one.

    On a shared machine the CPU seconds (this process's own) are what the load would take on an idle one.
    """
    wall, cpu = [], []
    load = 0.0
    for _ in range(runs):
        load = os.getloadavg()[0]
        start, start_cpu = time.perf_counter(), time.process_time()
        load_tree(path, use_libyaml=use_libyaml)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), load


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ruamel-max-mb", type=float, default=4.0)
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    tune_gc()
    cpu = cpu_model()
    print(f"{'input':<36} {'MB':>6} {'parser':<8} {'wall s':>8} {'MB/s':>7} {'CPU s':>7} {'MB/CPU s':>8}  load  cpu")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in INPUTS:
            if args.only not in name:
                continue
            path = Path(tmp) / "inventory.yaml"
            path.write_text(make(), encoding="utf-8")
            mb = path.stat().st_size / 1e6
            for label, c in (("libyaml", True), ("ruamel", False)):
                if not c and mb > args.ruamel_max_mb:
                    print(f"{name:<36} {mb:>6.1f} {label:<8} skipped (above --ruamel-max-mb {args.ruamel_max_mb:g})")
                    continue
                secs, cpu_secs, load = measure(path, c, args.runs)
                print(
                    f"{name:<36} {mb:>6.1f} {label:<8} {secs:>8.2f} {mb / secs:>7.2f} {cpu_secs:>7.2f}"
                    f" {mb / cpu_secs:>8.2f}  {load:4.2f}  {cpu}",
                    flush=True,
                )


if __name__ == "__main__":
    main(sys.argv[1:])
