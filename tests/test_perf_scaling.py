"""Scaling tables for the bundled inventories, and how an expansion changes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fabricgen.cli import app
from fabricgen.perf import Algorithm, Collective, compare, parse_failures, scaling_table
from fabricgen.perf.report import changes_markdown, scaling_markdown
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).parent / "data" / "perf"
NIC = 400 / 8 * 0.92


def test_lab_rows() -> None:
    t = scaling_table(load_fabric(INVENTORIES / "lab"))
    assert [(r.scope, r.gpus) for r in t.rows] == [("1 node", 8), ("2 nodes", 16), ("fabric (4 nodes)", 32)]
    assert t.rows[0].best == pytest.approx(450 * 0.69 * 8 / 9 * 2 * 7 / 8)  # NVLS on one H100 node
    assert [r.algorithm for r in t.rows] == [Algorithm.NVLS, Algorithm.NVLS_TREE, Algorithm.RING]
    assert t.rows[2].best == pytest.approx(360.0)  # ring beyond two nodes: NVLink 360 below 8 × 46 GB/s
    assert t.rows[2].scaling_efficiency == pytest.approx(360.0 / t.rows[0].best)
    assert all(r.fabric_efficiency == pytest.approx(1.0) for r in t.rows)
    assert not any(r.oversubscribed for r in t.rows)


def test_multi_su_rows_and_the_nvlink_step() -> None:
    t = scaling_table(load_fabric(INVENTORIES / "multi-su"))
    scopes = [r.scope for r in t.rows]
    assert scopes == ["1 node", "2 nodes", "1 unit", "2 units", "4 units", "fabric (256 nodes, 8 units)"]
    assert t.rows[-1].gpus == 2048
    one = t.row("1 node")
    assert one is not None and one.busbw[Algorithm.RING] == pytest.approx(900 * 0.8)  # B200 NVLink
    assert one.best == pytest.approx(900 * 0.69 * 0.74 / 0.85 * 8 / 9 * 2 * 7 / 8)  # Blackwell NVLS
    for r in t.rows[1:]:
        assert r.busbw[Algorithm.RING] == pytest.approx(8 * NIC)  # ring: the node's eight 400G rails
        assert r.fabric_efficiency == pytest.approx(1.0)
        assert r.scaling_efficiency < 1.0  # leaving NVLink costs B200s more than half
    assert "spine" in t.rows[3].tiers and "spine" not in t.rows[2].tiers


def test_oversubscribed_tier_shows_in_the_table() -> None:
    t = scaling_table(load_fabric(DATA / "oversub"))
    unit = t.row("1 unit")
    whole = t.rows[-1]
    assert unit is not None and not unit.oversubscribed
    assert whole.oversubscribed and whole.limit == "leaf"
    assert whole.fabric_efficiency == pytest.approx(0.5, rel=0.05)


def test_failures_are_separated_from_oversubscription() -> None:
    fabric = load_fabric(DATA / "oversub")
    t = scaling_table(fabric, failures=parse_failures(fabric, ["spine1"]))
    whole = t.rows[-1]
    assert whole.failure_limited and whole.oversubscribed
    assert whole.best < whole.healthy < whole.nonblocking
    assert "failed: spine1" in t.notes


def test_compare_reports_the_crossing() -> None:
    before = scaling_table(load_fabric(INVENTORIES / "lab"))
    after = scaling_table(load_fabric(DATA / "oversub"))
    changes = compare(before, after)
    assert changes[0].kind == "fabric"
    assert changes[0].gpus == (32, 64)
    crossings = [c for c in changes if c.kind == "crossing"]
    assert len(crossings) == 1
    assert "crosses into an oversubscribed tier" in crossings[0].message
    assert crossings[0].scope.startswith("fabric") and crossings[0].gpus == (32, 64)
    assert "leaf5 uplinks" in crossings[0].message
    # the lab's whole fabric (32 GPUs) is the same size as the new "1 unit" row: matched, not "added"
    assert not any(c.kind in ("added", "removed") for c in changes)
    md = changes_markdown(changes)
    assert md.startswith("- whole fabric: 32 → 64 GPUs") and "**" in md


def test_compare_expansion_pair_matches_rows_by_size() -> None:
    before = scaling_table(load_fabric(INVENTORIES / "expansion" / "before"))
    after = scaling_table(load_fabric(INVENTORIES / "expansion" / "after"))
    changes = compare(before, after)
    assert [c.kind for c in changes] == ["fabric"]
    assert changes[0].gpus == (512, 1024)


def test_compare_identical_tables_reports_only_the_fabric_line() -> None:
    t = scaling_table(load_fabric(INVENTORIES / "lab"))
    changes = compare(t, t)
    assert [c.kind for c in changes] == ["fabric"]


def test_compare_refuses_different_collectives() -> None:
    f = load_fabric(INVENTORIES / "lab")
    with pytest.raises(ValueError):
        compare(scaling_table(f), scaling_table(f, Collective.ALL_GATHER))


def test_markdown_table_has_a_row_per_scope() -> None:
    t = scaling_table(load_fabric(INVENTORIES / "lab"))
    md = scaling_markdown(t)
    assert md.count("\n| ") == len(t.rows) + 1  # header + rows (the separator starts with "|-")


def test_cli_text_and_json() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["scaling", str(INVENTORIES / "multi-su")])
    assert res.exit_code == 0, res.output
    assert "fabric (256 nodes, 8 units)" in res.output and "2,048" in res.output
    res = runner.invoke(app, ["scaling", str(INVENTORIES / "su1"), "--format", "json", "--collective", "all_to_all"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["collective"] == "all_to_all" and doc["rows"][0]["scope"] == "1 node"


def test_cli_unknown_failure_exits_3() -> None:
    res = CliRunner().invoke(app, ["scaling", str(INVENTORIES / "lab"), "--fail", "spine7"])
    assert res.exit_code == 3
    assert "spine7" in res.output


def test_su1_all_to_all_efficiency_is_against_one_node() -> None:
    res = CliRunner().invoke(
        app, ["scaling", str(INVENTORIES / "su1"), "--format", "json", "--collective", "all_to_all"]
    )
    assert res.exit_code == 0, res.output
    rows = {r["scope"]: r for r in json.loads(res.output)["rows"]}
    one, two, whole = rows["1 node"], rows["2 nodes"], rows["fabric (32 nodes)"]
    assert one["best"] == pytest.approx(360.0) and one["scaling_efficiency"] == 1.0
    # 2 nodes: half of each GPU's buffer leaves the node over 8 × 46 GB/s: busbw = 15/16 ÷ (8·8/16 ÷ 368)
    assert two["best"] == pytest.approx((15 / 16) / (8 * 8 / 16 / (8 * NIC)), rel=1e-3)
    assert two["ideal"] == pytest.approx(360.0)  # one node, not an infinitely fast network
    assert two["scaling_efficiency"] == pytest.approx(two["best"] / 360.0, abs=1e-4)
    assert whole["scaling_efficiency"] == pytest.approx((255 / 256) / (8 * 248 / 256 / (8 * NIC)) / 360.0, abs=1e-4)


def test_su1_all_reduce_rows_follow_nccls_default_algorithm() -> None:
    t = scaling_table(load_fabric(INVENTORIES / "su1"))
    assert [(r.scope, r.algorithm.value) for r in t.rows] == [
        ("1 node", "nvls"), ("2 nodes", "nvls_tree"), ("fabric (32 nodes)", "ring"),
    ]  # fmt: skip
    assert t.rows[0].best == pytest.approx(483.0, abs=0.1)  # not 360: NVLS on one H100 node
    assert t.rows[2].scaling_efficiency == pytest.approx(360.0 / 483.0, abs=1e-3)
