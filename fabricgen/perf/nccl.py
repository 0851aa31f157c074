"""Read nccl-tests output (``all_reduce_perf`` and friends) into data.

The format, as nccl-tests prints it (``src/common.cu``/``util.cu``)::

    # nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703      (newer versions only)
    # Collective test starting: all_reduce_perf                            (newer versions only)
    # nThread 1 nGpus 1 minBytes 1048576 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
    #
    # Using devices
    #  Rank  0 Group  0 Pid  12345 on      gpu01 device  0 [0x18] NVIDIA H100 80GB HBM3
    ...
    #
    #                                                              out-of-place                       in-place
    #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
    #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
         1048576        262144     float     sum      -1    63.42   16.53   30.99      0    62.10   16.89   31.65      0
    ...
    # Out of bounds values : 0 OK
    # Avg bus bandwidth    : 123.456
    #

Layouts read (from nccl-tests' own printf formats, ``src/common.cu`` and per-test ``print_header`` up to
2.11, ``src/util.cu`` from 2.17.6):

* 2.10–2.11: no ``root`` column (``redop`` only where the test has one; ``broadcast``/``reduce`` print
  ``root`` instead), an ``error`` column holding the largest deviation (``%5.0le``), rank lines without
  ``Group``; still built against NCCL 2.21 on many clusters;
* 2.13–2.17.5: ``size count type redop root``, ``#wrong`` printed with ``%5g`` (a million wrong elements
  reads ``2.14748e+09``), optional ``cputime`` instead of ``time``;
* 2.17.6 on: bandwidths through ``getFloatStr`` (``%6.2f`` falling back to fewer decimals and then
  ``%6.0e``), ``#wrong`` with ``%6g``, ``N/A`` without validation, an optional ``timestamp`` after the
  in-place columns, and (2.19.2 on) per-iteration ``i_min i_max i_p99 i_cv%`` columns after each placement.

Launcher prefixes are stripped before parsing, repeatedly: Slurm ``srun -l`` (``  0: ``), ``mpirun
--tag-output`` (``[1,0]<stdout>:``), ``pdsh``/``clush`` (``host: ``) and leading timestamps (ISO 8601,
``[...]``-bracketed, syslog-style).

One file may hold several runs (a sweep appended to one log, or a rerun after a crash); each starts at its
``# nThread`` line. Lines that are not part of the format (NCCL INFO/WARN, shell noise) are skipped, except
``NCCL_ALGO`` (set by environment, or on the command line) and the NCCL version, which are kept with the
run. A run that stops early — cut off by the end of the file, by the next run's header, or at a row that
does not fit its table — is kept with :attr:`NcclRun.incomplete` saying why and where: its rows are real
measurements, but it cannot prove a pass. Only a file without any run, binary data, or a malformed header or
device line raises :class:`NcclLogError` naming the file and line; nothing else is ever raised for bad input.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from fabricgen.perf.model import Collective

TYPE_BYTES = {
    "int8": 1, "uint8": 1, "char": 1, "f8e4m3": 1, "f8e5m2": 1, "fp8_e4m3": 1, "fp8_e5m2": 1,
    "half": 2, "float16": 2, "bfloat16": 2, "bf16": 2,
    "int32": 4, "uint32": 4, "int": 4, "float": 4, "float32": 4,
    "int64": 8, "uint64": 8, "double": 8, "float64": 8,
}  # fmt: skip
"""Element size by nccl-tests type name."""

PROGRAMS = {
    "all_reduce": Collective.ALL_REDUCE,
    "allreduce": Collective.ALL_REDUCE,
    "all_gather": Collective.ALL_GATHER,
    "allgather": Collective.ALL_GATHER,
    "reduce_scatter": Collective.REDUCE_SCATTER,
    "reducescatter": Collective.REDUCE_SCATTER,
    "alltoall": Collective.ALL_TO_ALL,
    "all_to_all": Collective.ALL_TO_ALL,
}
"""Test program stems (``all_reduce_perf`` → ``all_reduce``) of the collectives the model knows."""

_PREFIXES = (
    re.compile(r"^\[\d+,\d+\]<(?:stdout|stderr)>:"),  # mpirun --tag-output
    re.compile(r"^\s*\d+: "),  # srun -l / --label (task id, right-aligned)
    re.compile(  # ISO 8601 timestamp (ts, logger, journald -o short-iso …)
        r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?:?\s"
    ),
    re.compile(r"^\[[^\]]*\d{1,2}:\d{2}:\d{2}[^\]]*\]:?\s?"),  # [2024-05-01 12:00:00] / [12:00:00.123]
    re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d+)?\s"),  # syslog: "May  1 12:00:00 "
    re.compile(r"^[A-Za-z0-9][\w.-]*: "),  # pdsh / clush -L: "host: "
)
"""Launcher and logger prefixes, stripped from the start of a line (repeatedly: ``ts`` then ``srun -l``)."""
_ALGO = re.compile(r"NCCL_ALGO(?:=| set by environment to )\s*([\w,;:^-]+)")
_NCCL_VERSION = re.compile(r"NCCL version (\d+)\.(\d+)\.(\d+)")
_NCCL_LIBRARY = re.compile(r"nccl-library=(\d+)")
_HEADER = re.compile(r"^#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)(?:\s+minBytes\s+(\d+))?(?:\s+maxBytes\s+(\d+))?")
_RANK = re.compile(
    r"^#\s+Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*?)\s*$"
)
_PROGRAM = re.compile(r"^#\s*Collective test starting:\s*(\S+)")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)")
_STEMS = sorted(PROGRAMS, key=len, reverse=True)


class NcclLogError(ValueError):
    """A log that cannot be read; ``file`` and ``line`` (1-based) say where."""

    def __init__(self, file: str, line: int, message: str) -> None:
        self.file, self.line, self.message = file, line, message
        super().__init__(f"{file}:{line}: {message}")


@dataclass(frozen=True, slots=True)
class RankInfo:
    rank: int
    group: int
    pid: int
    host: str
    device: int
    bus: str
    gpu_name: str
    line: int


@dataclass(frozen=True, slots=True)
class Measure:
    """One placement (out-of-place or in-place) of a row: time in µs, bandwidths in GB/s."""

    time_us: float
    algbw: float
    busbw: float
    wrong: int | None  # None: "N/A" (validation off), or a 2.10–2.11 log (``delta`` instead)
    delta: float | None = None  # 2.10–2.11 ``error`` column: the largest deviation from the expected value


@dataclass(frozen=True, slots=True)
class Row:
    size: int
    count: int
    dtype: str
    redop: str
    root: int
    out_of_place: Measure | None
    in_place: Measure | None
    line: int

    @property
    def busbw(self) -> float:
        """The better of the two placements."""
        return max(m.busbw for m in (self.out_of_place, self.in_place) if m is not None)

    @property
    def wrong(self) -> int:
        return sum(m.wrong or 0 for m in (self.out_of_place, self.in_place) if m is not None)


@dataclass(frozen=True, slots=True)
class NcclRun:
    file: str
    line: int  # the "# nThread" line
    program: str | None  # "all_reduce_perf" when the log says so
    nthread: int
    ngpus: int
    min_bytes: int | None
    max_bytes: int | None
    ranks: tuple[RankInfo, ...]
    rows: tuple[Row, ...]
    out_of_bounds: int | None
    avg_busbw: float | None  # None when the run stops before its footer
    end_line: int
    incomplete: str | None = None  # why and where the run stops early; None for a complete run
    nccl_algo: str | None = None  # NCCL_ALGO as the log shows it (environment or command line)
    nccl_version: tuple[int, int, int] | None = None  # the NCCL library the test ran with, when printed

    @property
    def hosts(self) -> tuple[str, ...]:
        """Hostnames in rank order, each once."""
        return tuple(dict.fromkeys(r.host for r in self.ranks))

    def collective(self) -> Collective | None:
        """The collective, from the program name, the file name, or the table itself; None when unknown
        (broadcast, reduce, sendrecv …), ambiguous (``redop none``: all-gather or all-to-all) or not shown (no row)."""
        for hint in (self.program or "", self.file.rsplit("/", 1)[-1]):
            found = program_collective(hint)
            if found is not None:
                return found
        if not self.rows:
            return None
        row = self.rows[-1]
        if row.root >= 0:
            return None
        width = TYPE_BYTES.get(row.dtype)
        if row.redop == "none" or width is None or row.count == 0:
            return None
        if row.count * width == row.size:
            return Collective.ALL_REDUCE
        if row.count * width * len(self.ranks) == row.size:
            return Collective.REDUCE_SCATTER
        return None


def program_collective(name: str) -> Collective | None:
    """``all_reduce_perf`` or ``logs/alltoall_perf-2n.log`` → the collective, if the name says.

    >>> program_collective("all_reduce_perf"), program_collective("run-alltoall-2n.log"), program_collective("x")
    (<Collective.ALL_REDUCE: 'all_reduce'>, <Collective.ALL_TO_ALL: 'all_to_all'>, None)
    """
    low = name.lower().replace("-", "_")
    for stem in _STEMS:
        if stem in low:
            return PROGRAMS[stem]
    return None


# --------------------------------------------------------------------------- formatting (the inverse)


def _time_str(us: float) -> str:
    """nccl-tests' time column: ``%7.0f`` from 10 ms, ``%7.1f`` from 100 µs, ``%7.2f`` below."""
    if us >= 10000.0:
        return f"{us:7.0f}"
    if us >= 100.0:
        return f"{us:7.1f}"
    return f"{us:7.2f}"


def table_header() -> str:
    """The three table header lines as nccl-tests 2.x prints them."""
    pad = " " * 62
    return "\n".join(
        (
            "#" + pad + "out-of-place                       in-place          ",
            "#       size         count      type   redop    root"
            "     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
            "#        (B)    (elements)                        "
            "       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
        )
    )


def format_row(row: Row) -> str:
    """One result row exactly as nccl-tests 2.x prints it: ``%12li  %12li  %8s  %6s  %6i``, then per
    placement ``  %7s  %6.2f  %6.2f  %5g`` (``  N/A`` without validation; blanks when not run)."""
    out = f"{row.size:12d}  {row.count:12d}  {row.dtype:>8s}  {row.redop:>6s}  {row.root:6d}"
    for m in (row.out_of_place, row.in_place):
        if m is None:
            out += " " * 31
            continue
        wrong = "  N/A" if m.wrong is None else f"{m.wrong:5d}"
        out += f"  {_time_str(m.time_us)}  {m.algbw:6.2f}  {m.busbw:6.2f}  {wrong}"
    return out


def format_rank(r: RankInfo) -> str:
    """A device line as nccl-tests prints it."""
    return (
        f"#  Rank {r.rank:2d} Group {r.group:2d} Pid {r.pid:6d} on {r.host:>10s} device {r.device:2d} "
        f"[{r.bus}] {r.gpu_name}"
    )


# --------------------------------------------------------------------------- parsing


def _int(token: str) -> int:
    """An integer as nccl-tests prints it: ``%li``/``%d``, or ``%g`` (``2.14748e+09``) for counts."""
    if re.fullmatch(r"-?\d+", token):
        return int(token)
    if not re.fullmatch(r"-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?", token):
        raise ValueError(token)
    return round(float(token))


def _num(token: str) -> float:
    value = float(token)
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        raise ValueError(token)
    return value


def _measure(tokens: list[str], names: list[str]) -> Measure:
    values = dict(zip(names, tokens, strict=True))
    time_key = "time" if "time" in values else "cputime"
    time_us, algbw, busbw = _num(values[time_key]), _num(values["algbw"]), _num(values["busbw"])
    if "error" in values:  # 2.10–2.11: the largest deviation, %5.0le, or N/A
        raw = values["error"]
        return Measure(time_us, algbw, busbw, None, None if raw == "N/A" else _num(raw))
    wrong = values.get("#wrong", "N/A")
    return Measure(time_us, algbw, busbw, None if wrong == "N/A" else _int(wrong))


_LEADING = ("size", "count", "type", "redop", "root")


class _Table:
    """Column layout from the ``# size count type …`` header line."""

    def __init__(self, header: list[str]) -> None:
        self.names = header
        self.timestamp = "timestamp" in header
        cols = [h for h in header if h != "timestamp"]
        starts = [i for i, name in enumerate(cols) if name in ("time", "cputime")]
        if not starts:
            raise ValueError("the table has no time column")
        lead = cols[: starts[0]]
        if lead[:3] != ["size", "count", "type"] or any(c not in _LEADING for c in lead):
            raise ValueError("the table must start with size count type [redop] [root]")
        self.lead = lead
        self.cols = cols
        self.groups: list[list[str]] = []
        for k, s in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(cols)
            self.groups.append(cols[s:end])
        for g in self.groups:
            if "algbw" not in g or "busbw" not in g:
                raise ValueError("each placement needs algbw and busbw columns")
        if len(self.groups) > 2:
            raise ValueError(f"{len(self.groups)} placements where nccl-tests prints two")

    def row(self, text: str, line: int) -> Row:
        tokens = text.split()
        if (
            self.timestamp
            and len(tokens) >= 2
            and re.fullmatch(r"\d{2}:\d{2}:\d{2}", tokens[-1])
            and re.fullmatch(r"\d{4}-\d{2}-\d{2}", tokens[-2])
        ):
            tokens = tokens[:-2]
        n_lead = len(self.lead)
        full = n_lead + sum(len(g) for g in self.groups)
        in_place_only = n_lead + len(self.groups[-1])  # trace replay prints only the in-place columns
        if len(tokens) not in (full, in_place_only):
            raise ValueError(f"{len(tokens)} columns where the table has {full}")
        if len(tokens) != full and not re.search(r"\S {20,}\S", text):
            # trace replay leaves the out-of-place columns blank (32 spaces); without that gap this is a
            # row cut after its out-of-place columns
            raise ValueError(f"{len(tokens)} columns where the table has {full}")
        lead = dict(zip(self.lead, tokens, strict=False))
        size, count, dtype = _int(lead["size"]), _int(lead["count"]), lead["type"]
        redop = lead.get("redop", "none")
        root = _int(lead["root"]) if "root" in lead else -1
        if size < 0 or count < 0:
            raise ValueError("negative size or count")
        measures: list[Measure | None] = []
        if len(tokens) == full:
            pos = n_lead
            for g in self.groups:
                measures.append(_measure(tokens[pos : pos + len(g)], g))
                pos += len(g)
        else:
            measures.append(_measure(tokens[n_lead:], self.groups[-1]))
        if len(self.groups) == 2 and len(measures) == 2:
            oop, ip = measures
        elif len(self.groups) == 2:
            oop, ip = None, measures[0]
        else:
            oop, ip = measures[0], None
        return Row(size, count, dtype, redop, root, oop, ip, line)


def strip_prefixes(line: str) -> str:
    """``line`` without launcher and logger prefixes.

    >>> strip_prefixes("  3: #  Rank  3 Group  0 Pid  12 on gpu01 device  3 [0x5d] NVIDIA H100 80GB HBM3")[:9]
    '#  Rank  '
    >>> strip_prefixes("gpu01: [1,0]<stdout>:# Avg bus bandwidth    : 123.4 ")
    '# Avg bus bandwidth    : 123.4 '
    """
    for _ in range(4):
        for prefix in _PREFIXES:
            m = prefix.match(line)
            if m and m.end() > 0:
                line = line[m.end() :]
                break
        else:
            return line
    return line


def _lines(text: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, raw in enumerate(text, start=1):
        yield number, strip_prefixes(raw.rstrip("\r\n"))


@dataclass
class _Open:
    """A run being read."""

    start: int
    program: str | None
    header: tuple[int, int, int | None, int | None]
    algo: str | None
    version: tuple[int, int, int] | None
    ranks: list[RankInfo]
    rows: list[Row]
    table: _Table | None = None
    oob: int | None = None
    state: str = "devices"  # devices → table → (closed)

    def close(self, file: str, end: int, avg: float | None, incomplete: str | None) -> NcclRun:
        h = self.header
        return NcclRun(
            file, self.start, self.program, h[0], h[1], h[2], h[3], tuple(self.ranks), tuple(self.rows), self.oob,
            avg, end, incomplete, self.algo, self.version,
        )


def _version_code(code: int) -> tuple[int, int, int]:
    """NCCL_VERSION_CODE → (major, minor, patch): 22703 → (2, 27, 3); 2.8 and older used 2708 → (2, 7, 8)."""
    if code >= 10000:
        return code // 10000, code // 100 % 100, code % 100
    return code // 1000, code // 100 % 10, code % 100


def parse_log(text: str | Iterable[str], file: str = "<log>") -> list[NcclRun]:
    """Every run in one nccl-tests log, complete or not (see :attr:`NcclRun.incomplete`). Raises
    :class:`NcclLogError` (and nothing else) when the file holds no run or a header or device line is
    malformed: the first problem, with its line."""
    lines: Iterable[str] = text
    if isinstance(text, str):
        split = text.splitlines()
        if split and not text.endswith("\n") and _AVG.match(strip_prefixes(split[-1])):
            # a footer without its newline may be cut inside its number (`231.762` read as `2`): not a footer
            split.pop()
        lines = split
    runs: list[NcclRun] = []
    run: _Open | None = None
    pending_program: str | None = None
    pending_algo: str | None = None
    pending_version: tuple[int, int, int] | None = None
    last = 0

    def fail(line: int, message: str) -> NcclLogError:
        return NcclLogError(file, line, message)

    def cut(r: _Open, end: int, why: str) -> NcclRun:
        if r.state == "devices":
            where = "before its '#  Rank' lines" if not r.ranks else "before its result table"
        else:
            where = f"after line {r.rows[-1].line}" if r.rows else "before any result row"
        return r.close(file, end, None, f"the run of line {r.start} {why} {where}, without '# Avg bus bandwidth'")

    for number, line in _lines(lines):
        last = number
        stripped = line.strip()
        if "\x00" in line:
            raise fail(number, "binary data: not an nccl-tests log")
        if not stripped.startswith("#") or "NCCL_ALGO" in stripped:
            am = _ALGO.search(stripped)
            if am:
                if run is not None:
                    run.algo = am.group(1)
                else:
                    pending_algo = am.group(1)
                continue
            vm = _NCCL_VERSION.search(stripped)
            if vm:
                version = (int(vm.group(1)), int(vm.group(2)), int(vm.group(3)))
                if run is not None:
                    run.version = version
                else:
                    pending_version = version
                continue
        m = _PROGRAM.match(stripped)
        if m:
            pending_program = m.group(1)
            continue
        lm = _NCCL_LIBRARY.search(stripped) if stripped.startswith("# nccl-tests version") else None
        if lm:
            pending_version = _version_code(int(lm.group(1)))
            continue
        if stripped.startswith("#") and re.match(r"^#\s*nThread\b", stripped):
            if run is not None:
                runs.append(cut(run, number - 1, f"is cut off by the next run at line {number}"))
            hm = _HEADER.match(stripped)
            if not hm:
                raise fail(number, "malformed '# nThread … nGpus …' header")
            header = (
                int(hm.group(1)),
                int(hm.group(2)),
                int(hm.group(3)) if hm.group(3) else None,
                int(hm.group(4)) if hm.group(4) else None,
            )
            run = _Open(number, pending_program, header, pending_algo, pending_version, [], [])
            pending_program = pending_algo = None
            continue
        if run is None:
            continue
        if run.state == "devices":
            if re.match(r"^#\s+Rank\s", stripped):
                rm = _RANK.match(stripped)
                if not rm:
                    raise fail(
                        number, "malformed rank line (expected '#  Rank N Group G Pid P on HOST device D [BUS] NAME')"
                    )
                run.ranks.append(
                    RankInfo(
                        int(rm.group(1)), int(rm.group(2) or 0), int(rm.group(3)), rm.group(4), int(rm.group(5)),
                        rm.group(6), rm.group(7), number,
                    )
                )
                continue
            if stripped.startswith("#") and re.search(r"\bsize\b", stripped) and re.search(r"\bbusbw\b", stripped):
                if not run.ranks:
                    raise fail(number, "the result table starts before any '#  Rank' line")
                _check_ranks(run.ranks, fail)
                try:
                    run.table = _Table(stripped.lstrip("#").split())
                except ValueError as exc:
                    raise fail(number, f"unreadable table header: {exc}") from None
                run.state = "table"
            continue
        table = run.table
        assert table is not None
        if stripped.startswith("#"):
            om = _OOB.match(stripped)
            if om:
                run.oob = int(om.group(1))
                continue
            avm = _AVG.match(stripped)
            if avm:
                try:
                    avg: float | None = _num(avm.group(1))
                except ValueError:
                    avg = None
                if not run.rows:
                    runs.append(run.close(file, number, avg, f"the run of line {run.start} has no result rows"))
                elif avg is None:
                    runs.append(run.close(file, number, None, f"line {number}: unreadable average {avm.group(1)!r}"))
                else:
                    runs.append(run.close(file, number, avg, None))
                run = None
            continue
        first = stripped.split(maxsplit=1)[0] if stripped else ""
        if not first.isdigit():
            continue  # NCCL INFO/WARN lines and other noise between rows
        try:
            run.rows.append(table.row(stripped, number))
        except (ValueError, KeyError) as exc:
            runs.append(
                run.close(
                    file, number, None,
                    f"line {number}: unreadable result row ({exc}); the run of line {run.start} is read up to "
                    f"there (a truncated or interleaved log?)",
                )
            )
            run = None
    if run is not None:
        runs.append(cut(run, last, "ends at the end of the file"))
    if not runs:
        raise fail(1, "not an nccl-tests log: no '# nThread … nGpus …' header line")
    return runs


def _check_ranks(ranks: list[RankInfo], fail: Callable[[int, str], NcclLogError]) -> None:
    numbers = sorted(r.rank for r in ranks)
    if numbers != list(range(len(ranks))):
        missing = sorted(set(range(max(numbers) + 1)) - set(numbers))
        dup = sorted(n for n, c in Counter(numbers).items() if c > 1)
        detail = f"missing {missing[:5]}" if missing else f"repeated {dup[:5]}"
        raise fail(ranks[-1].line, f"rank lines are not 0…{len(ranks) - 1} ({detail}; the device list may be cut)")


def read_log(path: str) -> list[NcclRun]:
    """Parse the log at ``path``; unreadable files raise :class:`NcclLogError` too."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return parse_log(fh, path)
    except OSError as exc:
        raise NcclLogError(path, 0, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeError as exc:  # pragma: no cover - errors="replace" makes this unreachable
        raise NcclLogError(path, 0, f"cannot decode: {exc}") from None
