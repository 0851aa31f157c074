"""Every nccl-tests layout since 2.10 behind every launcher prefix: logs written with nccl-tests' own printf
formats (tests/nccl_printf.py) parse back to the table that was printed; the sample logs get their verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricgen.cli import app
from fabricgen.perf.nccl import NcclRun, parse_log
from tests.conftest import INVENTORIES
from tests.nccl_printf import LAYOUTS, PREFIXES, GenRow, GenRun, Placement, sweep, write

LAYOUT_LOGS = Path(__file__).parent / "data" / "nccl" / "layouts"
LAB = INVENTORIES / "lab"

_placements = st.builds(
    Placement,
    st.floats(0.5, 5e6, allow_nan=False),
    st.floats(0, 2500, allow_nan=False),
    st.floats(0, 5000, allow_nan=False),
    st.one_of(st.none(), st.integers(0, 2**40)),  # up to 1e12 wrong elements: "%g" prints 1.09951e+12
    st.floats(0, 1, allow_nan=False),
)
_programs = st.sampled_from(["all_reduce_perf", "all_gather_perf", "alltoall_perf", "reduce_scatter_perf"])


@st.composite
def _runs(draw: st.DrawFn) -> GenRun:
    program = draw(_programs)
    hosts = tuple(
        draw(st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,10}[0-9]", fullmatch=True), min_size=1, max_size=3,
                      unique=True))
    )  # fmt: skip
    op = "sum" if program in ("all_reduce_perf", "reduce_scatter_perf") else "none"
    rows = draw(
        st.lists(
            st.builds(
                GenRow, st.integers(0, 2**40), st.integers(0, 2**38),
                st.sampled_from(["float", "half", "bfloat16", "int8", "double"]), st.just(op), st.just(-1),
                _placements, _placements,
            ),
            min_size=1, max_size=6,
        )
    )  # fmt: skip
    return GenRun(
        program, hosts, draw(st.integers(1, 8)), tuple(rows), cputime=draw(st.booleans()),
        timestamps=draw(st.booleans()), per_iter=draw(st.booleans()),
    )  # fmt: skip


def _table(run: NcclRun) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for r in run.rows:
        row: dict[str, object] = {"size": r.size, "count": r.count, "dtype": r.dtype, "redop": r.redop, "root": r.root}
        for name, m in (("oop", r.out_of_place), ("ip", r.in_place)):
            assert m is not None
            row[name] = (m.time_us, m.algbw, m.busbw, m.wrong, m.delta)
        out.append(row)
    return out


@given(_runs(), st.sampled_from(LAYOUTS), st.sampled_from(PREFIXES))
@settings(max_examples=250, deadline=None)
def test_every_layout_and_prefix_parses_to_the_printed_table(run: GenRun, layout: str, prefix: str) -> None:
    printed = write(run, layout, prefix)
    (got,) = parse_log(printed.text, "gen.log")
    assert got.incomplete is None
    assert _table(got) == printed.rows
    assert [(r.rank, r.host, r.device) for r in got.ranks] == printed.devices
    assert got.program == (run.program if layout in ("2.17.6", "2.19.6") else None)
    assert got.nccl_version == ((2, 27, 3) if layout in ("2.17.6", "2.19.6") else None)


@given(_runs(), st.sampled_from(LAYOUTS), st.sampled_from(PREFIXES), st.integers(0, 5))
@settings(max_examples=120, deadline=None)
def test_a_crash_then_a_rerun_keeps_both(run: GenRun, layout: str, prefix: str, cut: int) -> None:
    crashed = write(run, layout, prefix, cut_after_row=min(cut, len(run.rows) - 1))
    rerun = write(run, layout, prefix)
    first, second = parse_log(crashed.text + rerun.text, "rerun.log")
    assert first.incomplete is not None and "cut off by the next run" in first.incomplete
    assert _table(first) == crashed.rows
    assert second.incomplete is None and _table(second) == rerun.rows


@pytest.mark.parametrize("layout", LAYOUTS)
def test_wrong_counts_printed_with_g_are_read_as_counts(layout: str) -> None:
    run = sweep("all_reduce_perf", ("gpu01", "gpu02"), 8, 430.0, wrong=2_147_483_648)
    (got,) = parse_log(write(run, layout, "srun").text, "wrong.log")
    if layout == "2.11":  # 2.11 prints the largest deviation, not a count
        assert all(r.in_place is not None and r.in_place.wrong is None for r in got.rows)
    else:
        assert got.rows[-1].in_place is not None and got.rows[-1].in_place.wrong == 2_147_480_000  # "2.14748e+09"


# --------------------------------------------------------------------------- verdicts of the sample logs


def _analyze(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, ["nccl", "analyze", str(LAB), *args])
    return res.exit_code, res.output


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    res = CliRunner().invoke(app, ["nccl", "analyze", str(LAB), *args, "--format", "json"])
    return json.loads(res.output)  # type: ignore[no-any-return]


def test_srun_labelled_healthy_pair_passes_against_nvls_tree() -> None:
    code, out = _analyze(str(LAYOUT_LOGS / "h100-pair-default-srun.log"))
    assert code == 0, out
    (run,) = _json(str(LAYOUT_LOGS / "h100-pair-default-srun.log"))["runs"]
    assert run["algorithm"] == "nvls_tree" and run["ok"] is True
    assert run["expected_busbw"] == pytest.approx(2 * 15 / 16 * 0.83 * 450 * 0.69 * 8 / 9, abs=0.01)


def test_degraded_h100_pair_is_short_against_nvls_tree() -> None:
    code, out = _analyze(str(LAYOUT_LOGS / "h100-pair-degraded-srun.log"))
    assert code == 1
    assert "measured 324.0 GB/s is 25% below the expected 429.5 GB/s" in out
    # held against ring (the old default), the same run passed: 324 is within 15 % of 360
    code, out = _analyze(str(LAYOUT_LOGS / "h100-pair-degraded-srun.log"), "--algorithm", "ring")
    assert code == 0, out


def test_g_formatted_wrong_count_is_data_errors_not_unreadable() -> None:
    code, out = _analyze(str(LAYOUT_LOGS / "h100-pair-wrong-g.log"))
    assert code == 1
    assert "data-errors" in out and "wrong elements in 14 of 14 row(s) (up to 4,294,960,000 in one" in out
    assert "unreadable" not in out


def test_nccl_tests_2_11_layout_behind_pdsh_is_read() -> None:
    code, out = _analyze(str(LAYOUT_LOGS / "h100-pair-2.11-pdsh.log"))
    assert code == 0, out
    (run,) = _json(str(LAYOUT_LOGS / "h100-pair-2.11-pdsh.log"))["runs"]
    assert run["measured_busbw"] == 431.0 and run["flags"] == []


def test_crash_then_rerun_keeps_both_and_the_rerun_decides() -> None:
    code, out = _analyze(str(LAYOUT_LOGS / "h100-pair-crash-then-rerun.log"))
    assert code == 0, out
    first, second = _json(str(LAYOUT_LOGS / "h100-pair-crash-then-rerun.log"))["runs"]
    assert first["line"] == 3 and "cut off by the next run at line 34" in first["incomplete"]
    assert "superseded by the complete rerun at line 34" in first["details"]
    assert second["line"] == 34 and second["ok"] is True


def test_crash_without_rerun_is_inconclusive() -> None:
    text = (LAYOUT_LOGS / "h100-pair-crash-then-rerun.log").read_text().splitlines()
    crashed = "\n".join(text[:33])
    (run,) = parse_log(crashed, "crash.log")
    assert run.incomplete is not None and run.incomplete.startswith("the run of line 3 ends at the end of the file")
    assert len(run.rows) == 6


def test_run_that_never_reaches_the_plateau_is_inconclusive_not_short() -> None:
    code, _ = _analyze(str(LAYOUT_LOGS / "h100-pair-short-range.log"))
    assert code == 1
    (run,) = _json(str(LAYOUT_LOGS / "h100-pair-short-range.log"))["runs"]
    assert run["flags"] == ["inconclusive"]
    assert any("never reached 268,435,456 B" in d for d in run["details"])


def test_nccl_algo_in_the_log_sets_the_prediction(tmp_path: Path) -> None:
    text = (LAYOUT_LOGS / "h100-pair-degraded-srun.log").read_text()
    log = tmp_path / "ring.log"
    log.write_text(" 3: gpu02:4011:4011 [3] NCCL INFO NCCL_ALGO set by environment to Ring\n" + text)
    (run,) = _json(str(log))["runs"]
    assert run["algorithm"] == "ring" and run["nccl_algo"] == "Ring"
    assert run["expected_busbw"] == pytest.approx(360.0) and run["ok"] is True


def test_missing_log_is_named_as_the_log() -> None:
    code, out = _analyze("/nonexistent/run.log")
    assert code == 3
    assert out.startswith("/nonexistent/run.log:1:1: cannot read: No such file or directory")
    assert "<inventory>" not in out


@pytest.mark.parametrize(
    ("name", "code", "flags", "measured"),
    [
        ("h100-pair-default-srun.log", 0, [[]], 432.0),
        ("h100-pair-degraded-srun.log", 1, [["short"]], 324.0),
        ("h100-pair-wrong-g.log", 1, [["data-errors"]], 430.0),
        ("h100-pair-2.11-pdsh.log", 0, [[]], 431.0),
        ("h100-pair-2.13-ts-srun.log", 0, [[]], 429.0),
        ("h100-pair-2.19.6-per-iter-pdsh.log", 0, [[]], 433.0),
        ("h100-pair-alltoall-2.17.6-mpirun.log", 0, [[]], 86.0),
        ("h100-pair-short-range.log", 1, [["inconclusive"]], 271.81),
        ("h100-pair-crash-then-rerun.log", 0, [[], []], 431.0),
    ],
)
def test_every_sample_log_gets_its_verdict(name: str, code: int, flags: list[list[str]], measured: float) -> None:
    got, out = _analyze(str(LAYOUT_LOGS / name))
    assert got == code, out
    doc = _json(str(LAYOUT_LOGS / name))
    assert [r["flags"] for r in doc["runs"]] == flags
    assert doc["runs"][-1]["measured_busbw"] == measured
    assert "Traceback" not in out


def test_samples_cover_every_layout_and_the_test_covers_every_sample() -> None:
    names = {p.name for p in LAYOUT_LOGS.glob("*.log")}
    assert len(names) == 9
    texts = {n: (LAYOUT_LOGS / n).read_text() for n in names}
    assert any("error" in t and "root" not in t for t in texts.values())  # 2.10–2.11
    assert any("#wrong" in t and "nccl-tests version" not in t for t in texts.values())  # 2.13–2.17.5
    assert any("i_cv%" in t for t in texts.values())  # 2.19.2 on
    assert any(t.startswith(" 0: ") for t in texts.values())  # srun -l
    assert any(t.startswith("[1,0]<stdout>:") for t in texts.values())  # mpirun --tag-output
    assert any(t.startswith("gpu01: ") for t in texts.values())  # pdsh / clush


def test_old_nccl_in_the_log_means_tree_on_two_nodes(tmp_path: Path) -> None:
    text = (LAYOUT_LOGS / "h100-pair-2.11-pdsh.log").read_text()
    log = tmp_path / "old.log"
    log.write_text("gpu01: gpu01:4000:4000 [0] NCCL INFO NCCL version 2.16.5+cuda12.0\n" + text)
    (run,) = _json(str(log))["runs"]
    # NVLS-tree needs NCCL 2.18: tree, 0.46 × NVLink ring 360 per direction, × 2(n−1)/n
    assert run["algorithm"] == "tree"
    assert run["expected_busbw"] == pytest.approx(2 * 15 / 16 * 0.46 * 360.0, abs=0.01)
