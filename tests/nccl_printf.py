"""nccl-tests output, written with nccl-tests' own printf formats, for the parser's tests.

Each layout reproduces the ``PRINT``/``snprintf`` calls of one range of nccl-tests releases, read from the
nccl-tests sources at these tags (the C format strings are quoted beside each use; Python's ``%`` operator
follows C printf for every conversion used here: ``%li`` is written ``%d``, ``%le`` ``%e``):

* ``2.11``: ``src/common.cu`` and the per-test ``print_header``/``print_line_header`` of v2.10.0–v2.11.0;
* ``2.13``: ``src/common.cu`` of v2.13.4–v2.14.1 (``Group`` in the device line, ``[0x%02x]`` bus id;
  v2.13.0–v2.13.3 print the device line of 2.11);
* ``2.16``: ``src/common.cu`` of v2.15.0–v2.17.5 (``[%04x:%02x:%02x]`` PCI address, ``cputime`` option);
* ``2.17.6``: ``src/util.cu`` of v2.17.6–v2.19.5 (``getFloatStr`` by powers of ten, ``%6g`` wrong count,
  timestamps, version banner);
* ``2.19.6``: ``src/util.cu`` of v2.19.6 (``getFloatStr`` by ``snprintf`` length, per-iteration columns).

The writer is independent of :mod:`fabricgen.perf.nccl`: it returns the text and the table it printed, with
every number as the printed text reads (``float(token)``), so a test can compare what the parser read with
what was written. ``python -m tests.nccl_printf`` rewrites the sample logs under tests/data/nccl/layouts.
"""

# ruff: noqa: UP031  (the C format strings are kept verbatim, so "%" formatting is the point)

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

LAYOUTS = ("2.11", "2.13", "2.16", "2.17.6", "2.19.6")
PREFIXES = ("none", "srun", "mpirun", "pdsh", "timestamp", "timestamp+srun")


@dataclass(frozen=True)
class Placement:
    time_us: float
    algbw: float
    busbw: float
    wrong: int | None  # None: validation off (N/A)
    delta: float = 0.0  # 2.11: the largest deviation (printed instead of a count)


@dataclass(frozen=True)
class GenRow:
    size: int
    count: int
    dtype: str
    op: str  # "sum", "none" …
    root: int
    oop: Placement
    ip: Placement


@dataclass(frozen=True)
class GenRun:
    program: str  # "all_reduce_perf", "all_gather_perf", "alltoall_perf", "reduce_scatter_perf"
    hosts: tuple[str, ...]
    gpus_per_host: int
    rows: tuple[GenRow, ...]
    gpu_name: str = "NVIDIA H100 80GB HBM3"
    cputime: bool = False
    timestamps: bool = False
    per_iter: bool = False
    oob: int = 0


@dataclass
class Printed:
    """What was written: the text, and per row the values as printed (None where a field is not printed)."""

    text: str
    rows: list[dict[str, object]] = field(default_factory=list)
    devices: list[tuple[int, str, int]] = field(default_factory=list)  # (rank, host, device)


def _time_str_old(us: float) -> str:
    # common.cu ≤ 2.17.5: sprintf(timeStr, "%7.0f") from 10000 µs, "%7.1f" from 100 µs, else "%7.2f"
    if us >= 10000.0:
        return "%7.0f" % us
    if us >= 100.0:
        return "%7.1f" % us
    return "%7.2f" % us


def float_str_2_17_6(value: float, width: int) -> str:
    """util.cu getFloatStr, v2.17.6–v2.19.5: decimals chosen by the number of integer digits."""
    power = 0
    val = 1
    while value >= val:
        power += 1
        val *= 10
    if power < width - 2:
        return "%*.2f" % (width, value)
    if power < width - 1:
        return "%*.1f" % (width, value)
    if power < width + 1:
        return "%*.0f" % (width, value)
    if width >= 7:
        return "%*.1e" % (width, value)
    return "%*.0e" % (width, value)


def float_str_2_19_6(value: float, width: int) -> str:
    """util.cu getFloatStr, v2.19.6: the first of %.2f, %.1f, %.0f whose snprintf fits ``width``."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        text = fmt % (width, value)
        if len(text) <= width:
            return text
    return ((width >= 7 and "%*.1e") or "%*.0e") % (width, value)


def _has_op(program: str) -> bool:
    return not program.startswith(("all_gather", "sendrecv"))


def _prefix(kind: str, task: int, host: str) -> str:
    return {
        "none": "",
        "srun": "%2d: " % task,  # srun -l / --label: the task id, right-aligned
        "mpirun": "[1,%d]<stdout>:" % task,  # mpirun --tag-output
        "pdsh": f"{host}: ",  # pdsh / clush
        "timestamp": "2025-03-01T12:00:%02d.123456+00:00 " % (task % 60),  # ts / logger
        "timestamp+srun": "[2025-03-01 12:00:%02d] %2d: " % (task % 60, task),
    }[kind]


def write(run: GenRun, layout: str, prefix: str = "none", *, cut_after_row: int | None = None) -> Printed:
    """The log nccl-tests of ``layout`` prints for ``run``; ``cut_after_row`` stops it there (a crash)."""
    out: list[str] = []
    printed = Printed("")
    new = layout in ("2.17.6", "2.19.6")
    if new:
        # util.cu: PRINT("# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", ...)
        out.append("# nccl-tests version %s nccl-headers=%d nccl-library=%d" % (layout, 22703, 22703))
        out.append("# Collective test starting: %s" % run.program)
    if layout == "2.11":
        out.append(
            "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d validation: %d "
            % (1, 1, run.rows[0].size, run.rows[-1].size, 2, "factor", 5, 20, 1)
        )
    elif layout == "2.19.6":
        out.append(
            "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d "
            "validation: %d graph: %d unalign: %d" % (1, 1, run.rows[0].size, run.rows[-1].size, 2, "factor", 5, 20,
                                                     1, 1, 0, 0)
        )  # fmt: skip
    else:
        out.append(
            "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d "
            "validation: %d graph: %d" % (1, 1, run.rows[0].size, run.rows[-1].size, 2, "factor", 5, 20, 1, 1, 0)
        )
    out.append("#")
    out.append("# Using devices")
    buses = (0x18, 0x2A, 0x3A, 0x5D, 0x84, 0x8B, 0x91, 0xE4)
    for h, host in enumerate(run.hosts):
        for d in range(run.gpus_per_host):
            rank = h * run.gpus_per_host + d
            bus = buses[d % len(buses)]
            if layout == "2.11":
                line = "#   Rank %2d Pid %6d on %10s device %2d [0x%02x] %s" % (rank, 4000 + rank, host, d, bus,
                                                                               run.gpu_name)  # fmt: skip
            elif layout == "2.13":
                line = "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s" % (
                    rank, 0, 4000 + rank, host, d, bus, run.gpu_name)  # fmt: skip
            else:
                line = "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s" % (
                    rank, 0, 4000 + rank, host, d, 0, bus, 0, run.gpu_name)  # fmt: skip
            out.append(line)
            printed.devices.append((rank, host, d))
    out.append("#")
    time_label = "cputime" if run.cputime and layout != "2.11" else "time"
    op = _has_op(run.program)
    if layout == "2.11":
        if op:
            out.append("# %10s  %12s  %8s  %6s            out-of-place                       in-place          "
                       % ("", "", "", ""))  # fmt: skip
            out.append("# %10s  %12s  %8s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
                "size", "count", "type", "redop", "time", "algbw", "busbw", "error", "time", "algbw", "busbw",
                "error"))  # fmt: skip
            out.append("# %10s  %12s  %8s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
                "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
        else:
            out.append("# %10s  %12s  %8s            out-of-place                       in-place          "
                       % ("", "", ""))  # fmt: skip
            out.append("# %10s  %12s  %8s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
                "size", "count", "type", "time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error"))
            out.append("# %10s  %12s  %8s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
                "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
    elif layout in ("2.13", "2.16"):
        out.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
                   % ("", "", "", "", ""))  # fmt: skip
        out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s" % (
            "size", "count", "type", "redop", "root", time_label, "algbw", "busbw", "#wrong", time_label, "algbw",
            "busbw", "#wrong"))  # fmt: skip
        out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
    else:
        ts_lbl = "timestamp" if run.timestamps else ""
        ts_fmt = "%Y-%m-%d %H:%M:%S" if run.timestamps else ""
        pad = 19 if run.timestamps else 0
        if layout == "2.19.6" and run.per_iter:
            out.append("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                     "
                       "           in-place (+ per-iteration)" % ("", "", "", "", ""))  # fmt: skip
            fmt = ("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  "
                   "%7s  %7s  %7s %*s")  # fmt: skip
            out.append(fmt % ("size", "count", "type", "redop", "root", time_label, "algbw", "busbw", "#wrong",
                              "i_min", "i_max", "i_p99", "i_cv%", time_label, "algbw", "busbw", "#wrong", "i_min",
                              "i_max", "i_p99", "i_cv%", pad, ts_lbl))  # fmt: skip
            out.append(fmt % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)",
                              "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", pad,
                              ts_fmt))  # fmt: skip
        else:
            out.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
                       % ("", "", "", "", ""))  # fmt: skip
            if layout == "2.17.6":  # "%20s" label
                fmt = "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %20s"
                out.append(fmt % ("size", "count", "type", "redop", "root", time_label, "algbw", "busbw", "#wrong",
                                  time_label, "algbw", "busbw", "#wrong", ts_lbl))  # fmt: skip
                out.append(fmt % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                                  "(GB/s)", "", ts_fmt))  # fmt: skip
            else:
                fmt = "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s"
                out.append(fmt % ("size", "count", "type", "redop", "root", time_label, "algbw", "busbw", "#wrong",
                                  time_label, "algbw", "busbw", "#wrong", pad, ts_lbl))  # fmt: skip
                out.append(fmt % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
                                  "(GB/s)", "", pad, ts_fmt))  # fmt: skip
    for k, row in enumerate(run.rows):
        if cut_after_row is not None and k >= cut_after_row:
            break
        expect: dict[str, object] = {"size": row.size, "count": row.count, "dtype": row.dtype}
        if layout == "2.11":
            # print_line_header: "%12li  %12li  %8s  %6s" (with redop) or "%12li  %12li  %8s"
            line = "%12d  %12d  %8s" % (row.size, row.count, row.dtype) + ("  %6s" % row.op if op else "")
            expect.update(redop=row.op if op else "none", root=-1)
        else:
            root = "%6i" % row.root  # sprintf(rootName, "%6i", root)
            line = "%12d  %12d  %8s  %6s  %6s" % (row.size, row.count, row.dtype, row.op, root)
            expect.update(redop=row.op, root=row.root)
        for name, p in (("oop", row.oop), ("ip", row.ip)):
            if layout == "2.11":
                t = _time_str_old(p.time_us)
                if p.wrong is None:
                    body = "  %7s  %6.2f  %6.2f  %5s" % (t, p.algbw, p.busbw, "N/A")
                    err: object = None
                else:
                    body = "  %7s  %6.2f  %6.2f  %5.0e" % (t, p.algbw, p.busbw, p.delta)  # "%5.0le"
                    err = float("%5.0e" % p.delta)
                vals = (float(t), float("%6.2f" % p.algbw), float("%6.2f" % p.busbw))
                expect[name] = (*vals, None, err)
            elif layout in ("2.13", "2.16"):
                t = _time_str_old(p.time_us)
                if p.wrong is None:
                    body = "  %7s  %6.2f  %6.2f  %5s" % (t, p.algbw, p.busbw, "N/A")
                    wrong: object = None
                else:
                    body = "  %7s  %6.2f  %6.2f  %5g" % (t, p.algbw, p.busbw, float(p.wrong))
                    wrong = round(float("%5g" % float(p.wrong)))
                expect[name] = (float(t), float("%6.2f" % p.algbw), float("%6.2f" % p.busbw), wrong, None)
            else:
                fs = float_str_2_17_6 if layout == "2.17.6" else float_str_2_19_6
                t, a, b = fs(p.time_us, 7), fs(p.algbw, 6), fs(p.busbw, 6)
                if p.wrong is None:
                    body = "  %7s  %6s  %6s    N/A" % (t, a, b)
                    wrong = None
                else:
                    body = "  %7s  %6s  %6s  %6g" % (t, a, b, float(p.wrong))
                    wrong = round(float("%6g" % float(p.wrong)))
                if layout == "2.19.6" and run.per_iter:
                    # writePerIterReport: PRINT("  %7s  %7s  %7s  %7s", minStr, maxStr, p99Str, cvStr)
                    body += "  %7s  %7s  %7s  %7s" % (fs(p.time_us * 0.9, 7), fs(p.time_us * 1.2, 7),
                                                      fs(p.time_us * 1.1, 7), fs(3.5, 7))  # fmt: skip
                expect[name] = (float(t), float(a), float(b), wrong, None)
            line += body
        if run.timestamps and layout in ("2.17.6", "2.19.6"):
            line += "%21s" % "2025-03-01 12:00:00"  # writeTimestamp(): PRINT("%21s", timebuffer)
        out.append(line)
        printed.rows.append(expect)
    if cut_after_row is None or cut_after_row >= len(run.rows):
        # PRINT("# %-20s : %d %s\n", "Out of bounds values", ...); PRINT("# %-20s : %g %s\n", "Avg bus bandwidth", ...)
        out.append("# %-20s : %d %s" % ("Out of bounds values", run.oob, "FAILED" if run.oob else "OK"))
        avg = sum(r.ip.busbw + r.oop.busbw for r in run.rows) / (2 * len(run.rows))
        out.append("# %-20s : %g %s" % ("Avg bus bandwidth", avg, ""))
        out.append("#")
        if new:
            out.append("# Collective test concluded: %s" % run.program)
    hosts = [run.hosts[0]] * len(out)
    printed.text = "".join(_prefix(prefix, 0, h) + line + "\n" for line, h in zip(out, hosts, strict=True))
    return printed


def algbw_busbw(program: str, size: int, time_us: float, ranks: int) -> tuple[float, float]:
    """nccl-tests' getBw: algbw = bytes / time; busbw = algbw × 2(n−1)/n (all-reduce) or (n−1)/n."""
    algbw = size / 1e9 / (time_us / 1e6)
    factor = 2 * (ranks - 1) / ranks if program.startswith("all_reduce") else (ranks - 1) / ranks
    return algbw, algbw * factor


def sweep(program: str, hosts: Sequence[str], gpus: int, busbw_plateau: float, *, top: int = 8 << 30,
          wrong: int = 0, dtype: str = "float") -> GenRun:  # fmt: skip
    """A realistic sweep from 1 MiB to ``top`` whose bus bandwidth climbs to ``busbw_plateau``."""
    n = len(hosts) * gpus
    width = {"float": 4, "half": 2, "bfloat16": 2, "double": 8, "int8": 1}[dtype]
    op = "sum" if _has_op(program) and not program.startswith("alltoall") else "none"
    rows = []
    size = 1 << 20
    while size <= top:
        busbw = busbw_plateau * (1 - math.exp(-size / (64 << 20)))
        factor = 2 * (n - 1) / n if program.startswith("all_reduce") else (n - 1) / n
        algbw = busbw / factor
        time_us = size / 1e9 / algbw * 1e6
        count = size // width if not program.startswith(("all_gather", "reduce_scatter")) else size // width // n
        p = Placement(time_us, algbw, busbw, wrong, 0.0)
        rows.append(GenRow(size, count, dtype, op, -1, p, p))
        size *= 2
    return GenRun(program, tuple(hosts), gpus, tuple(rows))


def _main() -> None:  # pragma: no cover - regenerates the sample logs
    root = Path(__file__).parent / "data" / "nccl" / "layouts"
    root.mkdir(parents=True, exist_ok=True)
    pair = ("gpu01", "gpu02")
    samples = {
        # a healthy H100 pair at NCCL's default (NVLS-tree): ~430 GB/s
        "h100-pair-default-srun.log": (sweep("all_reduce_perf", pair, 8, 432.0), "2.17.6", "srun"),
        # the same pair 25 % slower: a rail or NIC running short
        "h100-pair-degraded-srun.log": (sweep("all_reduce_perf", pair, 8, 324.0), "2.17.6", "srun"),
        # a million-plus wrong elements: "%6g" prints 2.14748e+09
        "h100-pair-wrong-g.log": (sweep("all_reduce_perf", pair, 8, 430.0, wrong=2147483648), "2.19.6", "none"),
        # nccl-tests 2.11 (no root column, an error column), still built against NCCL 2.21
        "h100-pair-2.11-pdsh.log": (sweep("all_reduce_perf", pair, 8, 431.0), "2.11", "pdsh"),
        # a run that stops at 128 MiB, well below the plateau
        "h100-pair-short-range.log": (sweep("all_reduce_perf", pair, 8, 430.0, top=64 << 20), "2.16", "mpirun"),
    }
    samples["h100-pair-2.13-ts-srun.log"] = (sweep("all_reduce_perf", pair, 8, 429.0), "2.13", "timestamp+srun")
    per_iter = sweep("all_reduce_perf", pair, 8, 433.0)
    samples["h100-pair-2.19.6-per-iter-pdsh.log"] = (
        GenRun(per_iter.program, pair, 8, per_iter.rows, timestamps=True, per_iter=True), "2.19.6", "pdsh"
    )
    samples["h100-pair-alltoall-2.17.6-mpirun.log"] = (sweep("alltoall_perf", pair, 8, 86.0), "2.17.6", "mpirun")
    for name, (run, layout, prefix) in samples.items():
        (root / name).write_text(write(run, layout, prefix).text)
    crashed = write(sweep("all_reduce_perf", pair, 8, 430.0), "2.17.6", "timestamp", cut_after_row=6).text
    rerun = write(sweep("all_reduce_perf", pair, 8, 431.0), "2.17.6", "timestamp").text
    (root / "h100-pair-crash-then-rerun.log").write_text(crashed + rerun)


if __name__ == "__main__":  # pragma: no cover
    _main()
