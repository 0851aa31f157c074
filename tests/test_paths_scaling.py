"""The ECMP column of `fabricgen scaling`: every row's busbw as ECMP hash collisions leave it (fabricgen.perf.paths)."""

from __future__ import annotations

import json

import pytest

from fabricgen.cli import main
from tests.conftest import INVENTORIES


def test_scaling_gets_an_ecmp_column_from_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    from fabricgen.perf import scaling_table
    from fabricgen.perf.paths.core import with_collisions
    from tests.conftest import load_fabric

    fabric = load_fabric(INVENTORIES / "multi-su")
    table = with_collisions(scaling_table(fabric), fabric)
    by_nodes = {r.nodes: r for r in table.rows}
    assert by_nodes[1].ecmp == by_nodes[1].best  # one node: no fabric traffic
    assert all(r.ecmp is not None and r.ecmp <= r.best + 1e-9 for r in table.rows)
    assert by_nodes[256].ecmp is not None and by_nodes[256].ecmp < 0.5 * by_nodes[256].best  # scattered, 1 QP
    lab = load_fabric(INVENTORIES / "lab")  # every node on the same leaves: nothing crosses a spine
    assert all(r.ecmp == pytest.approx(r.best) for r in with_collisions(scaling_table(lab), lab).rows)
    with pytest.raises(SystemExit) as info:
        main(["scaling", str(INVENTORIES / "multi-su"), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert info.value.code == 0
    assert [r["ecmp_scattered_1qp"] for r in doc["rows"]] == [round(r.ecmp or 0, 2) for r in table.rows]
    with pytest.raises(SystemExit):
        main(["scaling", str(INVENTORIES / "multi-su"), "--no-collisions", "--format", "json"])
    assert all(r["ecmp_scattered_1qp"] is None for r in json.loads(capsys.readouterr().out)["rows"])
