"""The nccl-tests log parser: real-format samples, errors with file and line, and properties."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricgen.perf import Collective
from fabricgen.perf.nccl import Measure, NcclLogError, Row, format_row, parse_log, read_log, table_header

NCCL = Path(__file__).parent / "data" / "nccl"


def test_healthy_two_node_log() -> None:
    (run,) = read_log(str(NCCL / "healthy-2node.log"))
    assert run.line == 2 and run.nthread == 1 and run.ngpus == 1
    assert run.min_bytes == 1048576 and run.max_bytes == 8589934592
    assert len(run.ranks) == 16 and run.hosts == ("gpu01", "gpu02")
    assert [r.device for r in run.ranks] == list(range(8)) * 2
    eight = run.ranks[8]
    assert eight.host == "gpu02" and eight.bus == "0x18" and eight.gpu_name == "NVIDIA H100 80GB HBM3"
    assert len(run.rows) == 14
    last = run.rows[-1]
    assert (last.size, last.count, last.dtype, last.redop, last.root) == (8589934592, 2147483648, "float", "sum", -1)
    assert last.out_of_place == Measure(44304.0, 193.88, 363.53, 0)
    assert last.in_place == Measure(43857.0, 195.86, 367.24, 0)
    assert last.busbw == 367.24
    assert run.out_of_bounds == 0 and run.avg_busbw == pytest.approx(231.762)
    assert run.collective() is Collective.ALL_REDUCE


def test_sweep_holds_eight_runs_with_program_banner() -> None:
    runs = read_log(str(NCCL / "rail-sweep-slow-rail5.log"))
    assert len(runs) == 8
    assert all(r.program == "all_reduce_perf" for r in runs)
    assert [r.ranks[0].device for r in runs] == list(range(8))
    assert runs[5].rows[-1].busbw < 25


def test_alltoall_is_recognised_from_its_banner() -> None:
    (run,) = read_log(str(NCCL / "alltoall-healthy-2node.log"))
    assert run.collective() is Collective.ALL_TO_ALL
    assert run.rows[0].redop == "none"


def test_truncated_log_is_kept_as_incomplete_with_the_line() -> None:
    (run,) = read_log(str(NCCL / "truncated.log"))
    assert len(run.rows) == 8 and run.avg_busbw is None
    assert run.incomplete is not None and run.incomplete.startswith("line 33: unreadable result row")
    assert run.nccl_algo == "Ring"  # from the mpirun command line


def test_garbage_is_not_a_log() -> None:
    with pytest.raises(NcclLogError, match="not an nccl-tests log"):
        read_log(str(NCCL / "garbage.log"))


def test_missing_file() -> None:
    with pytest.raises(NcclLogError, match="cannot read"):
        read_log(str(NCCL / "no-such.log"))


def test_missing_footer_is_truncation() -> None:
    text = (NCCL / "healthy-2node.log").read_text()
    cut = text[: text.index("# Out of bounds")]
    (run,) = parse_log(cut, "cut.log")
    assert len(run.rows) == 14 and run.incomplete is not None
    assert run.incomplete == (
        "the run of line 2 ends at the end of the file after line 38, without '# Avg bus bandwidth'"
    )


def test_ranks_must_be_complete() -> None:
    lines = (NCCL / "healthy-2node.log").read_text().splitlines()
    del lines[8]  # rank 3
    with pytest.raises(NcclLogError, match="missing"):
        parse_log("\n".join(lines), "x.log")


def test_tagged_output_and_noise_are_skipped() -> None:
    lines = (NCCL / "healthy-2node.log").read_text().splitlines()
    tagged = [f"[1,0]<stdout>:{line}" for line in lines]
    tagged.insert(30, "gpu01:41230:41230 [0] NCCL INFO comm 0x5555 rank 0 nranks 16 - Init COMPLETE")
    (run,) = parse_log("\n".join(tagged), "tagged.log")
    assert len(run.rows) == 14


def test_collective_is_inferred_from_the_table() -> None:
    text = (NCCL / "healthy-2node.log").read_text()
    (run,) = parse_log(text, "run.log")  # no banner, no hint in the name
    assert run.program is None and run.collective() is Collective.ALL_REDUCE
    (ag,) = parse_log(text.replace("     sum", "    none"), "run.log")
    assert ag.collective() is None  # all-gather or all-to-all: cannot tell


def test_header_matches_nccl_tests() -> None:
    assert table_header().splitlines()[1].split() == [
        "#", "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
        "time", "algbw", "busbw", "#wrong",
    ]  # fmt: skip


# --------------------------------------------------------------------------- properties

def _as_printed(us: float) -> float:
    """A time as nccl-tests prints it (2, 1 or 0 decimals by magnitude)."""
    return float(f"{us:.2f}" if us < 100 else f"{us:.1f}" if us < 1e4 else f"{us:.0f}")


_measures = st.builds(
    Measure,
    st.floats(0.01, 9e5, allow_nan=False).map(_as_printed),
    st.floats(0, 9999, allow_nan=False).map(lambda x: round(x, 2)),
    st.floats(0, 9999, allow_nan=False).map(lambda x: round(x, 2)),
    st.one_of(st.none(), st.integers(0, 99999)),
)
_rows = st.builds(
    Row,
    st.integers(0, 2**40),
    st.integers(0, 2**38),
    st.sampled_from(["float", "half", "bfloat16", "int8", "double"]),
    st.sampled_from(["sum", "prod", "max", "min", "avg", "none"]),
    st.sampled_from([-1, 0, 3]),
    _measures,
    _measures,
    st.just(0),
)


def _log(rows: list[Row]) -> str:
    lines = (NCCL / "healthy-2node.log").read_text().splitlines()
    head = lines[: lines.index(table_header().splitlines()[-1]) + 1]
    return "\n".join([*head, *(format_row(r) for r in rows), "# Out of bounds values : 0 OK",
                      "# Avg bus bandwidth    : 12.5 ", "#"]) + "\n"  # fmt: skip


@given(st.lists(_rows, min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_rows_round_trip_through_the_formatter(rows: list[Row]) -> None:
    (run,) = parse_log(_log(rows), "gen.log")
    got = [
        Row(r.size, r.count, r.dtype, r.redop, r.root, r.out_of_place, r.in_place, 0) for r in run.rows
    ]
    assert got == rows


@given(st.integers(0, 10**6), st.sampled_from(sorted(p.name for p in NCCL.glob("*.log"))))
@settings(max_examples=150, deadline=None)
def test_truncation_only_ever_raises_the_parsers_error(cut: int, name: str) -> None:
    text = (NCCL / name).read_text()
    part = text[: cut % (len(text) + 1)]
    try:
        runs = parse_log(part, name)
    except NcclLogError as exc:
        assert exc.line >= 1 and exc.message
        return
    full = parse_log(text, name)
    assert len(runs) <= len(full)
    for got, want in zip(runs, full, strict=False):
        # a cut run keeps every row before the cut (a row cut mid-line ends it), and says so
        assert got.rows == want.rows[: len(got.rows)]
        # the last device line may be cut inside the GPU name (the only free-text field)
        ranks = [(r.rank, r.host, r.device, r.bus) for r in got.ranks]
        assert ranks == [(r.rank, r.host, r.device, r.bus) for r in want.ranks[: len(got.ranks)]]
        assert got.incomplete is not None or (got.rows == want.rows and got.avg_busbw == want.avg_busbw)


@given(st.text(max_size=400))
@settings(max_examples=100, deadline=None)
def test_arbitrary_text_never_crashes(text: str) -> None:
    with contextlib.suppress(NcclLogError):
        parse_log(text, "random.log")


@given(st.lists(st.sampled_from((NCCL / "healthy-2node.log").read_text().splitlines()), max_size=40))
@settings(max_examples=100, deadline=None)
def test_shuffled_lines_never_crash(lines: list[str]) -> None:
    with contextlib.suppress(NcclLogError):
        parse_log("\n".join(lines), "mixed.log")


def test_a_footer_cut_inside_its_number_is_not_read_as_the_average() -> None:
    text = (NCCL / "healthy-2node.log").read_text()
    at = text.index("# Avg bus bandwidth")
    cut = text[: text.index(":", at) + 6]  # '…bandwidth    : 231.', the rest of 231.762 lost
    (run,) = parse_log(cut, "healthy-2node.log")
    assert run.avg_busbw is None and run.incomplete is not None
    assert "without '# Avg bus bandwidth'" in run.incomplete
