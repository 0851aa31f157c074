"""The expansion pair (2 → 4 planned units of 32 DGX H100 on SN5600): exact device, cable and BOM deltas.

Expected numbers, by hand from the intent: each unit has 8 rails → 8 leaves and 32 nodes; a leaf has
32 × 400G down (16 cages as 2x400G) and 32 × 400G / 800G = 16 uplinks of 800G; with 4 planned units the
spines must hold 32 leaves × 16 uplinks = 512 ports of 64 → 8 spines, 2 links from each leaf to each.
Going from 2 to 4 units adds 16 leaves, 64 nodes (512 GPUs), 64 × 8 = 512 host cables and 16 × 16 = 256
leaf–spine cables; each spine gains 16 leaves × 2 = 32 ports and BGP sessions to 16 new peers, on 32 new
cages. Nothing else (no existing leaf, server, address or ASN) changes.
"""

from __future__ import annotations

import pytest

from fabricgen.plan.bom import bill_of_materials, length_class
from fabricgen.plan.build import make_plan
from fabricgen.plan.diff import FabricDiff, diff_fabrics
from fabricgen.plan.inputs import record_path
from fabricgen.plan.model import Plan
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, load_fabric

BEFORE = INVENTORIES / "expansion" / "before"
AFTER = INVENTORIES / "expansion" / "after"
SPINES = {f"spine-{i:02d}" for i in range(1, 9)}
NEW_LEAVES = {f"leaf-su{u:03d}-r{r}" for u in (3, 4) for r in range(8)}


@pytest.fixture(scope="module")
def before() -> Fabric:
    return load_fabric(BEFORE)


@pytest.fixture(scope="module")
def after() -> Fabric:
    return load_fabric(AFTER)


@pytest.fixture(scope="module")
def diff(before: Fabric, after: Fabric) -> FabricDiff:
    return diff_fabrics(before, after)


@pytest.fixture(scope="module")
def plan(before: Fabric, after: Fabric) -> Plan:
    return make_plan(before, after, record_path(BEFORE), record_path(AFTER))


def test_added_devices_and_cables(diff: FabricDiff) -> None:
    added_switches = {d.name for d in diff.added if d.kind == "switch"}
    added_nodes = {d.name for d in diff.added if d.kind == "node"}
    assert added_switches == NEW_LEAVES
    assert added_nodes == {f"gpu-su{u:03d}-n{n:02d}" for u in (3, 4) for n in range(1, 33)}
    assert not diff.removed
    c = diff.counts
    assert (c["links_added"], c["links_removed"], c["links_moved"], c["links_changed"]) == (768, 0, 0, 0)
    kinds = {k: sum(1 for x in diff.links if x.kind == k) for k in ("host", "leaf-spine", "spine-core")}
    assert kinds == {"host": 512, "leaf-spine": 256, "spine-core": 0}


def test_only_spines_change_among_existing_devices(diff: FabricDiff) -> None:
    assert diff.changed_names() == SPINES
    for d in diff.changed:
        assert len(d.ports_added) == 32 and not d.ports_removed and not d.ports_changed
        assert d.sessions_added == 32 and d.sessions_removed == 0
        assert set(d.peers_added) == NEW_LEAVES
        assert d.addresses_changed == 0 and d.asn is None and d.loopback is None
        assert d.reasons[0] == "+32 ports (swp33 … swp64)"
        assert d.reasons[1].startswith("+32 BGP sessions to 16 new peers")
    assert diff.counts["addresses_changed"] == 0 and diff.counts["asns_changed"] == 0
    assert diff.counts["sessions_added"] == 16 * 16 * 2  # both ends of 256 new leaf–spine links


def test_existing_ports_keep_their_addresses(before: Fabric, after: Fabric) -> None:
    for name, sw in before.switches.items():
        for p in sw.ports:
            q = after.port(name, p.name)
            assert q is not None and q.address == p.address and q.peer_device == p.peer_device


def test_bill_of_materials(before: Fabric, after: Fabric, diff: FabricDiff) -> None:
    bom = bill_of_materials(before, after, diff)
    assert bom.switches == {"sn5600": 16}
    assert bom.servers == {"dgx-h100": 64}
    assert bom.nics == {"connectx-7": 512}
    assert bom.cables == [
        {"kind": "host", "type": "DAC", "length_m": 3, "count": 512},
        {"kind": "leaf-spine", "type": "MMF-SR", "length_m": 50, "count": 256},  # 40 m runs, ordered at 50 m
    ]
    # one 800G transceiver per newly lit cage: 16 leaves × 16 uplink cages, 8 spines × 32 new cages
    assert bom.transceivers == [
        {"speed": "800G", "type": "MMF-SR", "where": "leaf cage", "count": 256},
        {"speed": "800G", "type": "MMF-SR", "where": "spine cage", "count": 256},
    ]


def test_plan_capacity_and_checks(plan: Plan) -> None:
    cap = plan.capacity
    assert cap["totals"]["gpus"] == [512, 1024]
    assert cap["totals"]["switches"] == [24, 40]
    leaf = next(t for t in cap["tiers"] if t["tier"] == "leaf")
    spine = next(t for t in cap["tiers"] if t["tier"] == "spine")
    assert (leaf["before"]["devices"], leaf["after"]["devices"]) == (16, 32)
    assert leaf["after"]["ratio"] == 1.0 and leaf["after"]["worst_one_upper_down"] == pytest.approx(8 / 7, abs=1e-3)
    assert (spine["before"]["cages_free"], spine["after"]["cages_free"]) == (256, 0)
    assert cap["crossings"] == []
    assert cap["growth"] == {"units": 4, "planned_units": 4, "units_left": 0, "tiers": 2}
    assert plan.findings["new"] == [] and plan.findings["errors_after"] == 0
    assert plan.has_changes and not plan.has_errors
    assert plan.existing_devices_changed == sorted(SPINES)
    new_nodes = {f"gpu-su{u:03d}-n{n:02d}" for u in (3, 4) for n in range(1, 33)}
    assert set(plan.devices_to_change) == NEW_LEAVES | SPINES | new_nodes


def test_plan_config_diffs_touch_only_spines(plan: Plan) -> None:
    if plan.configs is None:
        pytest.skip("the renderer is not available: " + "; ".join(plan.notes))
    assert set(plan.configs) == SPINES
    for d in plan.configs.values():
        assert d.change == "changed" and d.added > 0
        assert d.text.startswith(f"--- a/{d.device}/")


def test_no_change_is_empty(before: Fabric) -> None:
    d = diff_fabrics(before, before)
    assert d.empty and d.counts["links_added"] == 0


def test_length_class() -> None:
    assert [length_class(x) for x in (0.4, 3, 3.01, 40, 300, 301)] == [0.5, 3, 5, 50, 300, 500]
