"""`fabricgen nccl analyze`: healthy samples pass, degraded samples are flagged, bad logs exit 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fabricgen.cli import app
from fabricgen.perf.analyze import analyze
from fabricgen.perf.nccl import read_log
from tests.conftest import INVENTORIES, load_fabric

NCCL = Path(__file__).parent / "data" / "nccl"
OVERSUB = Path(__file__).parent / "data" / "perf" / "oversub"
LAB = INVENTORIES / "lab"


def _runs(*names: str) -> list:  # type: ignore[type-arg]
    return [run for name in names for run in read_log(str(NCCL / name))]


def test_healthy_runs_pass() -> None:
    a = analyze(load_fabric(LAB), _runs("healthy-2node.log", "alltoall-healthy-2node.log"))
    assert not a.flagged and not a.problems
    ar, a2a = a.runs
    assert ar.placement == {"gpu01": tuple(range(8)), "gpu02": tuple(range(8))}
    assert ar.rails == tuple(range(8))
    assert ar.expected == pytest.approx(360.0)  # ring: NVLink 450 × 0.8 below 8 × 46 GB/s of NICs
    assert ar.measured == pytest.approx(367.24)  # best busbw of the rows from 256 MiB up
    assert ar.measured_sizes == (268435456, 8589934592)
    assert a2a.expected == pytest.approx((15 / 16) / (8 * 8 / 16 / (8 * 46.0)))


def test_slow_rail_run_is_short() -> None:
    a = analyze(load_fabric(LAB), _runs("slow-rail-2node.log"))
    (r,) = a.runs
    assert a.flagged and r.flags == ("short",)
    assert r.ratio == pytest.approx(183.02 / 360.0, rel=0.01)
    assert a.suspect_nodes == () and a.suspect_rails == ()  # one run cannot localise
    assert any("cannot be told apart" in n for n in a.notes)


def test_rail_sweep_localises_rail_5() -> None:
    a = analyze(load_fabric(LAB), _runs("rail-sweep-slow-rail5.log"))
    assert [r.rails for r in a.runs] == [(i,) for i in range(8)]
    assert [r.ok for r in a.runs] == [True] * 5 + [False] + [True] * 2
    assert a.runs[5].expected == pytest.approx(46.0)
    assert a.suspect_rails == (5,) and a.suspect_nodes == ()


def test_node_on_an_oversubscribed_leaf_is_fabric_limited() -> None:
    a = analyze(load_fabric(OVERSUB), _runs("oversub-leaf-2node.log", "oversub-same-unit-2node.log"))
    across, inside = a.runs
    assert across.flags == ("fabric-limited",)
    assert across.expected == pytest.approx(8 * 46.0 / 2)
    assert across.nonblocking == pytest.approx(360.0)
    assert "nodes under it: gpu05" in " ".join(across.details)
    assert inside.ok  # both nodes under the 2:1 leaves: the uplinks are not crossed
    assert a.flagged
    accepted = analyze(load_fabric(OVERSUB), _runs("oversub-leaf-2node.log"), accept_fabric_limits=True)
    assert not accepted.flagged


def test_same_run_against_the_non_blocking_lab_is_short() -> None:
    text = (NCCL / "oversub-leaf-2node.log").read_text().replace("gpu05", "gpu03")
    from fabricgen.perf.nccl import parse_log

    a = analyze(load_fabric(LAB), parse_log(text, "moved.log"))
    assert a.runs[0].flags == ("short",)


def test_unknown_host_is_a_problem_with_file_and_line() -> None:
    a = analyze(load_fabric(LAB), _runs("oversub-leaf-2node.log"))  # gpu05 is not in the lab
    assert not a.runs and len(a.problems) == 1
    p = a.problems[0]
    assert p.pos is not None and p.pos.line == 15 and "gpu05" in p.message


def test_cli_healthy_exit_0() -> None:
    res = CliRunner().invoke(app, ["nccl", "analyze", str(LAB), str(NCCL / "healthy-2node.log")])
    assert res.exit_code == 0, res.output
    assert "0 short of the model" in res.output


@pytest.mark.parametrize(
    ("inventory", "log", "word"),
    [
        (LAB, "slow-rail-2node.log", "short"),
        (LAB, "rail-sweep-slow-rail5.log", "suspect rails: 5"),
        (OVERSUB, "oversub-leaf-2node.log", "fabric-limited"),
    ],
)
def test_cli_degraded_exit_1(inventory: Path, log: str, word: str) -> None:
    res = CliRunner().invoke(app, ["nccl", "analyze", str(inventory), str(NCCL / log)])
    assert res.exit_code == 1, res.output
    assert word in res.output


def test_cli_bad_logs_exit_3_one_line_each() -> None:
    res = CliRunner().invoke(
        app,
        ["nccl", "analyze", str(LAB), str(NCCL / "truncated.log"), str(NCCL / "garbage.log"),
         str(NCCL / "healthy-2node.log")],
    )  # fmt: skip
    assert res.exit_code == 3
    assert f"{NCCL / 'garbage.log'}:1:1: not an nccl-tests log" in res.output
    assert "truncated.log:2" in res.output and "inconclusive" in res.output  # kept, not rejected
    assert "Traceback" not in res.output
    assert "healthy-2node.log:2" in res.output  # the readable log is still analysed


def test_cli_json() -> None:
    res = CliRunner().invoke(
        app, ["nccl", "analyze", str(LAB), str(NCCL / "slow-rail-2node.log"), "--format", "json", "--threshold", "0.6"]
    )
    assert res.exit_code == 0, res.output  # 49 % short is within a 60 % threshold
    doc = json.loads(res.output)
    assert doc["ok"] is True and doc["runs"][0]["flags"] == [] and doc["problems"] == []


def test_a_log_killed_at_start_up_is_one_input_problem(tmp_path: Path) -> None:
    """A job killed after its device list and before its first result row leaves nothing to hold against the model:
    one line naming the file and the run's line, exit 3 (not an internal error)."""
    lines = (NCCL / "healthy-2node.log").read_text().splitlines(keepends=True)
    log = tmp_path / "killed.log"
    log.write_text("".join(lines[:21]))  # the header and every '#  Rank' line
    res = CliRunner().invoke(app, ["nccl", "analyze", str(LAB), str(log)])
    assert res.exit_code == 3, res.output
    assert f"{log}:2:1: no result row to compare: the run of line 2 ends at the end of the file" in res.output
    assert "internal error" not in res.output
    doc = json.loads(CliRunner().invoke(app, ["nccl", "analyze", str(LAB), str(log), "--format", "json"]).stdout)
    assert doc["ok"] is False and doc["runs"] == []
    assert [(p["file"], p["line"]) for p in doc["problems"]] == [(str(log), 2)]


def test_a_run_killed_at_start_up_and_rerun_is_settled_by_the_rerun(tmp_path: Path) -> None:
    lines = (NCCL / "healthy-2node.log").read_text().splitlines(keepends=True)
    log = tmp_path / "rerun.log"
    log.write_text("".join(lines[1:21] + lines))  # killed before its first row, then the complete run
    res = CliRunner().invoke(app, ["nccl", "analyze", str(LAB), str(log), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [r["line"] for r in doc["runs"]] == [22] and doc["problems"] == []
    assert any("line 1" in n and "settled by the complete rerun at line 22" in n for n in doc["notes"])
