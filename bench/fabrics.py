"""Big-fabric figures: `fabricgen validate` and `fabricgen render` of intents and of their explicit twins.

Fabrics (bench/intents.py's DGX H100 on SN5600 intent unless named):

* ``16x512``: bench/avd.py's 16 spines × 512 leaves × 32 host ports eBGP fabric (528 EOS switches), as the
  intent and written out explicitly (every switch, node and cable listed; bench/explicit.py);
* ``16k``: 63 units (16,128 GPUs), intent and explicit;
* ``100k``: 391 units (100,096 GPUs), intent and explicit — the explicit one is a directory of files, as the
  loader caps a file at 8 MiB (FABRICGEN_MAX_YAML_BYTES).

Each command runs in a fresh process (interpreter start, imports and output included) ``--runs`` times
(default 3), the intent and its explicit twin in turn; the line shows the median wall seconds, the median
CPU seconds (user + system, of the process and any child it forks), the largest peak RSS of one process,
and the 1-minute load average and CPU model when the runs ended. For a fair wall time on a shared machine,
run it under ``nice -n -5`` (as root).

    python bench/fabrics.py                      # everything (about 15 minutes on two cores)
    python bench/fabrics.py --only 16x512 16k    # chosen fabrics
    python bench/fabrics.py --into memory        # render into /dev/shm only (see below)

``render`` writes into the temporary directory (on disk) and, where there is one, into a memory file system
(``/dev/shm``); ``--into disk|memory|both`` (default both). The CPU time is printed split into user and system
time: the system time is mostly the file system's, and a virtual disk that slows down as files are created and
deleted (as this machine's does) can double a render's wall time whatever fabricgen does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from avd import INVENTORY as AVD_INTENT  # noqa: E402 (bench/avd.py)
from explicit import explicit_files  # noqa: E402
from intents import intent_yaml  # noqa: E402
from machine import compile_fabricgen, context, filesystem, memory_root  # noqa: E402

FABRICS = {"16x512": AVD_INTENT, "16k": intent_yaml("bench16k", 63), "100k": intent_yaml("bench100k", 391)}


def run(args: list[str]) -> tuple[int, float, float, float, float]:
    """Exit code, wall seconds, user and system CPU seconds (children included) and peak RSS (MB) of one
    ``fabricgen`` command in a fresh process."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "fabricgen", *args], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            err.seek(0)
            raise SystemExit(f"fabricgen {' '.join(args)}: exit {code}\n{err.read().decode()[-2000:]}")
    return code, wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024


def measure(commands: list[tuple[str, list[str]]], runs: int, out: Path | None = None) -> list[float]:
    """Run the ``(label, args)`` commands in turn, ``runs`` rounds (so that a drift of the machine's speed
    touches them alike); print one figure line each (medians); return each one's median CPU seconds."""
    results: list[list[tuple[float, float, float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for (_, args), got in zip(commands, results, strict=True):
            if out is not None:
                shutil.rmtree(out, ignore_errors=True)  # render to an empty directory every time
            _, wall, user, system, peak = run(args)
            got.append((wall, user, system, peak))
    if out is not None:
        shutil.rmtree(out, ignore_errors=True)
    medians = []
    for (label, _), got in zip(commands, results, strict=True):
        wall = statistics.median(w for w, _, _, _ in got)
        cpu = statistics.median(u + s for _, u, s, _ in got)
        user = statistics.median(u for _, u, _, _ in got)
        system = statistics.median(s for _, _, s, _ in got)
        rss = max(r for _, _, _, r in got)
        print(f"  {label:44s} wall {wall:6.2f} s  CPU {cpu:6.2f} s (user {user:.2f}, system {system:.2f})  "
              f"peak RSS {rss:6,.0f} MB  (runs: {', '.join(f'{w:.2f}' for w, _, _, _ in got)} s) — {context()}",
              flush=True)
        medians.append(cpu)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(FABRICS), default=sorted(FABRICS, key=list(FABRICS).index))
    parser.add_argument("--no-render", action="store_true", help="validate only")
    parser.add_argument("--into", choices=["disk", "memory", "both"], default="both",
                        help="where render writes: the temporary directory, /dev/shm, or both")
    args = parser.parse_args()
    print(compile_fabricgen())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        outs: dict[str, Path] = {}
        if args.into in ("disk", "both"):
            outs[f"{filesystem(tmp)} {tmp}"] = root / "out"
        memory = memory_root() if args.into in ("memory", "both") else None
        with tempfile.TemporaryDirectory(prefix="fabricgen-bench-", dir=memory) as in_memory:
            if memory is not None:
                outs[f"tmpfs {memory}"] = Path(in_memory) / "out"
            _figures(args, root, outs)


def _figures(args: argparse.Namespace, root: Path, outs: dict[str, Path]) -> None:
    """Every figure line of the chosen fabrics (the inventories written under ``root``)."""
    for name in args.only:
        text = FABRICS[name]
        intent = root / f"{name}-intent.yaml"
        intent.write_text(text)
        files = explicit_files(text, root)
        explicit = root / f"{name}-explicit"
        explicit.mkdir()
        for fname, body in files.items():
            (explicit / fname).write_text(body)
        size = sum(len(b) for b in files.values()) / 1e6
        print(f"{name}: explicit twin {size:.1f} MB in {len(files)} file(s); {args.runs} runs each", flush=True)
        cpu_i, cpu_e = measure(
            [(f"{name} intent validate", ["validate", "--format", "json", str(intent)]),
             (f"{name} explicit validate", ["validate", "--format", "json", str(explicit)])],
            args.runs,
        )
        print(f"  {name} explicit / intent validate CPU: {cpu_e / cpu_i:.2f}x", flush=True)
        for where, out in ({} if args.no_render else outs).items():
            kind = where.split()[0]
            measure(
                [(f"{name} intent render into {kind}", ["render", str(intent), "-o", str(out)]),
                 (f"{name} explicit render into {kind}", ["render", str(explicit), "-o", str(out)])],
                args.runs,
                out,
            )


if __name__ == "__main__":
    main()
