"""Side by side with Arista AVD: the same 16 spines × 512 leaves × 32 host ports eBGP fabric (528 EOS switches)
rendered by fabricgen and by pyavd's eos_cli_config_gen, alternating runs.

* fabricgen: ``fabricgen render`` of the intent in a fresh process — load, resolve, QoS, checks, every switch
  config and host file written — wall time, CPU time (user + system, with the child it forks for the checks
  and host files; printed split, as the system time is the file system's) and peak RSS. It writes once into
  the temporary directory (on disk) and, where there is one, once into a memory file system (``/dev/shm``):
  the 4,624 files (36 MB) cost a few tenths of a second of system time on a memory file system and on a
  healthy disk, but on a virtual disk that slows down as files are created and deleted (this machine's:
  a plain script writing the same tree spent 1.5 s, then 2.6, 4.0 and 5.4 s of system time on four runs in
  a row) the disk figure measures the disk;
* pyavd: ``validate_structured_config`` + ``get_device_config`` of every switch, from trimmed per-device
  structured configs (tests/eos_avd.py maps fabricgen's device data to them, built before the clock starts),
  in this process: AVD's fastest use, without its fabric design step or file writing.

Each figure is the median of ``--runs`` runs (default 3), printed with the 1-minute load average and CPU model;
CPU seconds are printed beside wall seconds, as other work on a shared machine stretches the wall times.
Needs pyavd (the ``bench`` extra, or ``oracles``). Run: ``python bench/avd.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from machine import compile_fabricgen, context, filesystem, memory_root  # noqa: E402 (bench/machine.py)

INVENTORY = """\
fabric: {name: avd16x512}
catalog:
  switches:
    bench-spine-512:  # a 512 x 800G spine, so that 16 spines hold 512 leaves in two tiers
      vendor: Arista
      asic: Tomahawk-5
      ports: 512
      native_speed: 800G
      lanes: 8
      breakouts: [1x800G, 2x400G]
      platform: eos
      buffer: {total_bytes: 1385807872, cell_bytes: 254, pipeline_latency_bytes: 19456, mac_phy_delay_bytes: 819}
      eos_tx_queue: uc-tx-queue
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 32
    units: 64
    leaf: {model: arista-7060x6-64pe, uplink_speed: 800G}
    spine: {model: bench-spine-512, count: 16}
"""


def fabricgen_render(inventory: Path, out: Path) -> tuple[float, float, float, float]:
    """Wall seconds, user and system CPU seconds (with the child render forks for its checks and host files)
    and peak RSS (MB, the main process) of one ``fabricgen render`` in a fresh process."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _REPORT_HWM, "render", str(inventory), "-o", str(out)],
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        err.seek(0)
        text = err.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"fabricgen render failed ({os.waitstatus_to_exitcode(status)}): {text[-500:]}")
    return wall, usage.ru_utime, usage.ru_stime, int(text.strip().splitlines()[-1]) / 1024


_REPORT_HWM = """\
import runpy, sys
sys.argv = ["fabricgen", *sys.argv[1:]]
try:
    runpy.run_module("fabricgen", run_name="__main__")
finally:
    print(next(ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM")), file=sys.stderr)
"""
"""Runs fabricgen and prints its own peak RSS (kB) last on stderr: the children's ru_maxrss would count the pages
a child shares with this process (pyavd loaded) before it starts fabricgen."""


def pyavd_render(configs: list[dict[str, object]]) -> tuple[float, float, int]:
    """Wall and CPU seconds (user + system) of pyavd rendering every structured config, and the lines it
    produced."""
    import pyavd

    t0, c0 = time.perf_counter(), _cpu()
    lines = 0
    for cfg in configs:
        result = pyavd.validate_structured_config(cfg)
        lines += str(pyavd.get_device_config(result.validated_data)).count("\n")
    return time.perf_counter() - t0, _cpu() - c0, lines


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    try:
        import pyavd  # noqa: F401
    except ImportError:
        raise SystemExit("pyavd is not installed: pip install -e '.[bench]'") from None
    from eos_avd import structured_config  # tests/eos_avd.py

    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.render import build_device
    from fabricgen.topology.resolve import resolve

    with tempfile.TemporaryDirectory() as tmp:
        inv = Path(tmp) / "avd16x512.yaml"
        inv.write_text(INVENTORY)
        fabric = resolve(load_inventory(inv))
        qos = compute(fabric)
        configs = [structured_config(build_device(fabric, name, qos)) for name in sorted(fabric.switches)]
        roots = {f"{filesystem(tmp)} {tmp}": Path(tmp)}
        memory = memory_root()
        if memory is not None:
            roots[f"tmpfs {memory}"] = Path(memory)
        print(compile_fabricgen())
        print(f"{len(configs)} EOS switches ({fabric.gpus:,} GPUs); {args.runs} alternating runs; fabricgen writes "
              f"into {' and into '.join(roots)}")
        fg: dict[str, list[tuple[float, float, float]]] = {where: [] for where in roots}
        avd: list[tuple[float, float]] = []
        rss = 0.0
        for run in range(args.runs):
            for where, root in roots.items():
                out = Path(tempfile.mkdtemp(prefix="fabricgen-avd-", dir=root))
                try:
                    wall, user, system, peak = fabricgen_render(inv, out / "out")
                finally:
                    shutil.rmtree(out, ignore_errors=True)
                rss = max(rss, peak)
                fg[where].append((wall, user, system))
                print(f"  run {run + 1}: fabricgen render into {where}: {wall:.2f} s, CPU {user + system:.2f} s "
                      f"(user {user:.2f}, system {system:.2f}; peak RSS {peak:,.0f} MB) — {context()}", flush=True)
            wall, cpu, lines = pyavd_render(configs)
            avd.append((wall, cpu))
            print(f"  run {run + 1}: pyavd {wall:.2f} s, CPU {cpu:.2f} s ({lines:,} lines) — {context()}", flush=True)
        avd_wall = statistics.median(w for w, _ in avd)
        avd_cpu = statistics.median(c for _, c in avd)
        print(f"pyavd: median wall {avd_wall:.2f} s, CPU {avd_cpu:.2f} s")
        for where, runs in fg.items():
            wall = statistics.median(w for w, _, _ in runs)
            cpu = statistics.median(u + s for _, u, s in runs)
            user = statistics.median(u for _, u, _ in runs)
            print(f"fabricgen into {where}: median wall {wall:.2f} s, CPU {cpu:.2f} s (user {user:.2f} s): "
                  f"{avd_wall / wall:.1f}x faster than pyavd in wall time, {avd_cpu / cpu:.1f}x in CPU time, "
                  f"{avd_cpu / user:.1f}x in user CPU time; peak RSS {rss:,.0f} MB — {context()}")


if __name__ == "__main__":
    main()
