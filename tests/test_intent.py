"""The rail-optimized intent: properties of the generated fabric, a three-tier case, and stable addressing."""

from __future__ import annotations

import math
from collections import Counter
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fabricgen.checks import Severity, addressing, cabling, capacity, run_checks
from fabricgen.errors import InputError
from fabricgen.inventory.catalog import shipped
from fabricgen.inventory.load import LoadedInventory, SourceMap
from fabricgen.inventory.schema import Inventory, Role
from fabricgen.inventory.units import parse_breakout
from fabricgen.topology.addressing import PoolExhausted, p2p_pair
from fabricgen.topology.capacity import loads
from fabricgen.topology.model import Fabric, LinkKind, PortKind
from fabricgen.topology.resolve import resolve
from tests.conftest import load_fabric

FOUNDATION = (*capacity.CHECKS, *cabling.CHECKS, *addressing.CHECKS)


def build(tree: dict[str, Any]) -> Fabric:
    return resolve(LoadedInventory(Inventory.model_validate(tree), SourceMap(), tree, ()))


def intent(**rail: Any) -> dict[str, Any]:
    ratio = rail.pop("ratio", 1.0)
    return {
        "fabric": {"name": "t", "oversubscription": {"leaf": ratio, "spine": 1.0}},
        "intent": {"rail_optimized": rail},
    }


# ----------------------------------------------------------------------------- properties, random valid intents

CATALOG = shipped()
SERVERS = sorted(CATALOG.servers)
SWITCHES = sorted(CATALOG.switches)


@st.composite
def intents(draw: st.DrawFn) -> dict[str, Any]:
    leaf = draw(st.sampled_from(SWITCHES))
    spine = draw(st.sampled_from(SWITCHES))
    speeds = sorted({parse_breakout(m)[1] for m in CATALOG.switches[leaf].breakouts})
    units = draw(st.integers(min_value=1, max_value=3))
    npu = draw(st.integers(min_value=1, max_value=24))
    rail: dict[str, Any] = {
        "server": draw(st.sampled_from(SERVERS)),
        "nodes_per_unit": npu,
        "units": units,
        "planned_units": units + draw(st.integers(min_value=0, max_value=3)),
        "leaf": {"model": leaf, "uplink_speed": f"{draw(st.sampled_from(speeds))}G"},
        "spine": {"model": spine},
        "ratio": draw(st.sampled_from([1.0, 1.5, 2.0, 3.0])),
    }
    if draw(st.booleans()):
        rail["nodes"] = draw(st.integers(min_value=1, max_value=units * npu))
    return intent(**rail)


def buildable(tree: dict[str, Any]) -> Fabric:
    try:
        return build(tree)
    except InputError as exc:  # an intent the hardware cannot build is refused with one line, never half-built
        assert len(exc.problems) == 1 and exc.problems[0].field == "intent.rail_optimized"
        assume(False)
        raise


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(intents())
def test_generated_fabric_properties(tree: dict[str, Any]) -> None:
    fabric = buildable(tree)
    rail = tree["intent"]["rail_optimized"]
    server = CATALOG.servers[rail["server"]]
    nodes = rail.get("nodes", rail["units"] * rail["nodes_per_unit"])

    # every NIC of every present node cabled exactly once, to the rail-r leaf of its unit
    assert len(fabric.nodes) == nodes
    nic_ends = Counter(
        (e.device, e.port) for link in fabric.links for e in (link.a, link.b) if e and e.device in fabric.nodes
    )
    assert set(nic_ends.values()) == {1}
    assert len(nic_ends) == nodes * len(server.backend)
    for node in fabric.nodes.values():
        for nic in node.nics:
            assert nic.peer_device == f"leaf-su{node.unit:03d}-r{nic.rail}"

    # no port used twice, every port in a cage the model has, one mode per cage, a mode the model supports
    ends = Counter((e.device, e.port) for link in fabric.links for e in (link.a, link.b) if e)
    assert max(ends.values()) == 1
    for sw in fabric.switches.values():
        model = CATALOG.switches[sw.model]
        modes = {parse_breakout(m) for m in model.breakouts}
        by_cage: dict[int, set[int]] = {}
        for p in sw.ports:
            assert 1 <= p.cage <= model.ports
            assert (p.breakout, p.speed) in modes
            by_cage.setdefault(p.cage, set()).add(p.breakout)
        assert all(len(b) == 1 for b in by_cage.values())

    # leaves built for the full unit even when nodes are missing
    assert len(fabric.by_role(Role.LEAF)) == rail["units"] * len(server.backend)

    # the ratio is bandwidth down ÷ bandwidth up, within the target, with no uplink to spare (beyond the 2 minimum)
    target = tree["fabric"]["oversubscription"]["leaf"]
    host = CATALOG.nics[server.backend_nic].speed
    for name, load in loads(fabric).items():
        sw = fabric.switches[name]
        down = sum(fabric.links[p.link].speed for p in sw.ports if p.kind is not PortKind.UP)
        up = sum(fabric.links[p.link].speed for p in sw.ports if p.kind is PortKind.UP)
        assert (load.down_gbps, load.up_gbps) == (down, up)
        if sw.role is Role.LEAF:
            n_up = sum(1 for _ in sw.uplinks())
            each = fabric.links[next(sw.uplinks()).link].speed
            full_down = rail["nodes_per_unit"] * host
            assert full_down / (n_up * each) <= target + 1e-9
            assert n_up == 2 or full_down / ((n_up - 1) * each) > target
            if down:
                assert load.ratio == pytest.approx(down / up)

    # every leaf's uplinks split evenly over every spine of its pod; the design passes its own checks
    for leaf in fabric.by_role(Role.LEAF):
        per_spine = Counter(p.peer_device for p in leaf.uplinks())
        assert len(set(per_spine.values())) == 1
        assert len(per_spine) >= 2
    errors = [f for f in run_checks(fabric, FOUNDATION) if f.severity is Severity.ERROR]
    assert errors == []

    # each /31 is split between its two ends: the upper end (leaf of a host link, spine of a leaf–spine link)
    # holds the even address, the lower end (NIC, leaf) the odd one, each port facing the other
    ranks = {Role.LEAF: 1, Role.SPINE: 2, Role.CORE: 3}
    nic_of = {(nic.node, nic.ifname): nic for node in fabric.nodes.values() for nic in node.nics}
    for link in fabric.links:
        assert link.b is not None and link.subnet is not None
        net = IPv4Network(link.subnet)
        even, odd = f"{net.network_address}/31", f"{net.network_address + 1}/31"
        assert link.subnet == even and net.prefixlen == 31
        upper = fabric.port(link.b.device, link.b.port)
        assert upper is not None and upper.address == even and upper.link == link.index
        assert (upper.peer_device, upper.peer_port) == (link.a.device, link.a.port)
        if link.kind is LinkKind.HOST:
            nic = nic_of[link.a.device, link.a.port]
            assert (nic.address, nic.link) == (odd, link.index)
            assert (nic.peer_device, nic.peer_port) == (link.b.device, link.b.port)
            assert upper.kind is PortKind.HOST
        else:
            lower = fabric.port(link.a.device, link.a.port)
            assert lower is not None and (lower.address, lower.kind, lower.link) == (odd, PortKind.UP, link.index)
            assert (lower.peer_device, lower.peer_port) == (link.b.device, link.b.port)
            assert upper.kind is PortKind.DOWN
            assert ranks[fabric.switches[link.a.device].role] < ranks[fabric.switches[link.b.device].role]


def test_intent_is_deterministic() -> None:
    tree = intent(server="dgx-h100", nodes_per_unit=8, units=2, leaf={"model": "sn5600"}, spine={"model": "sn5600"})
    a, b = build(tree), build(tree)
    assert a.links == b.links
    assert a.switches == b.switches


def test_small_unit_gets_two_spines_not_one() -> None:
    # 4 nodes × 400G = 1.6T down per leaf = 2 × 800G uplinks; one spine would be a single point of failure
    fabric = build(
        intent(server="dgx-h100", nodes_per_unit=4, units=1, leaf={"model": "sn5600"}, spine={"model": "sn5600"})
    )
    assert sorted(s.name for s in fabric.by_role(Role.SPINE)) == ["spine-01", "spine-02"]


def test_su1_shape() -> None:
    from tests.conftest import INVENTORIES, load_fabric

    fabric = load_fabric(INVENTORIES / "su1")
    # 32 × 400G = 12.8T per leaf = 16 × 800G uplinks; 4 planned units × 8 leaves × 16 = 512 spine ports ⇒ 8 spines
    assert fabric.intent is not None
    assert (fabric.intent.spines_per_pod, fabric.intent.three_tier) == (8, False)
    assert len(fabric.by_role(Role.LEAF)) == 8
    assert Counter(link.kind for link in fabric.links) == {LinkKind.HOST: 256, LinkKind.LEAF_SPINE: 128}


def test_three_tier_when_the_spine_radix_is_exhausted() -> None:
    # 4-node units: 2 × 800G uplinks per leaf; two SN5600 spines hold 64 leaves = 8 units; 9 units need a core
    tree = intent(
        server="dgx-h100",
        nodes_per_unit=4,
        units=9,
        leaf={"model": "sn5600"},
        spine={"model": "sn5600"},
        core={"model": "sn5600"},
    )
    fabric = build(tree)
    assert fabric.intent is not None
    i = fabric.intent
    # a spine splits 32 cages down / 32 up; a unit uses 8 down ports per spine ⇒ 4 units per pod ⇒ 3 pods
    assert (i.three_tier, i.spines_per_pod, i.pods, i.cores) == (True, 2, 3, 4)
    assert len(fabric.by_role(Role.SPINE)) == 6 and len(fabric.by_role(Role.CORE)) == 4
    for spine in fabric.by_role(Role.SPINE):
        ups = Counter(p.peer_device for p in spine.uplinks())
        plane = int(spine.name[-2:])
        assert set(ups) == {f"core-{plane:02d}-01", f"core-{plane:02d}-02"} and set(ups.values()) == {16}
    assert [f for f in run_checks(fabric, FOUNDATION) if f.severity is Severity.ERROR] == []
    tree["intent"]["rail_optimized"].pop("core")
    with pytest.raises(InputError) as info:
        build(tree)
    assert str(info.value.problems[0]) == (
        "<inventory>: intent.rail_optimized: 72 leaves × 2 uplinks = 144 spine ports exceed what a two-tier "
        "fabric of sn5600 can hold (2 spines × 64 ports); add a `core:` tier or use a larger spine"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"spine": {"model": "sn5600", "count": 3}},
            "spine.count=3 does not divide the 16 uplinks of each leaf; choose a divisor of 16",
        ),
        # a 400G SN4700 cage holds one 400G NIC: 32 host cages, and 32 × 400G uplinks for 1:1
        (
            {"leaf": {"model": "sn4700"}},
            "a leaf needs 32 host cages + 32 uplink cages = 64, but sn4700 has 32; use fewer nodes_per_unit "
            "or a larger leaf",
        ),
        (
            {"leaf": {"model": "sn5600", "uplink_speed": "1.6T"}},
            "switch model sn5600 cannot run 1.6T ports (modes: 1x800G, 2x400G, 4x200G, 8x100G)",
        ),
        ({"server": "nope"}, "unknown server model 'nope'"),
        # spine.count fixed too small: the message names the fixed count (2 × 64 = 128 ports), not the 16 spines
        # a leaf's uplinks allow; 8 spines would hold 32 × 16 = 512 ports, 16 spines cannot hold 128 × 16 = 2,048
        (
            {"units": 4, "spine": {"model": "sn5600", "count": 2}},
            "32 leaves × 16 uplinks = 512 spine ports exceed what spine.count=2 can hold in a two-tier fabric "
            "(2 spines × 64 ports of sn5600 = 128); add a `core:` tier, set spine.count: 8 or use a larger spine",
        ),
        (
            {"units": 16, "spine": {"model": "sn5600", "count": 2}},
            "128 leaves × 16 uplinks = 2048 spine ports exceed what spine.count=2 can hold in a two-tier fabric "
            "(2 spines × 64 ports of sn5600 = 128); add a `core:` tier or use a larger spine",
        ),
    ],
)
def test_impossible_intents_are_input_errors(change: dict[str, Any], message: str) -> None:
    rail = {
        "server": "dgx-h100",
        "nodes_per_unit": 32,
        "units": 1,
        "leaf": {"model": "sn5600"},
        "spine": {"model": "sn5600"},
        **change,
    }
    try:
        build(intent(**rail))
    except InputError as exc:
        assert [p.message for p in exc.problems] == [message]
    else:
        pytest.fail("expected an input error")


def test_catalog_mode_with_terabit_speed_is_read() -> None:
    tree = intent(server="dgx-h100", nodes_per_unit=4, units=1, leaf={"model": "big"}, spine={"model": "big"})
    tree["catalog"] = {
        "switches": {
            "big": {
                "vendor": "x",
                "asic": "y",
                "ports": 32,
                "native_speed": "1.6T",
                "lanes": 8,
                "breakouts": ["1x1.6T", "2x800G", "4x400G"],
                "platform": "sonic",
                "buffer": {"total_bytes": 1, "cell_bytes": 1, "pipeline_latency_bytes": 0},
            }
        }
    }
    fabric = build(tree)
    # 4 × 400G = 1.6T down ⇒ 1 uplink at 1.6T, raised to 2 so the leaf reaches two spines
    leaf = fabric.switches["leaf-su001-r0"]
    assert [(p.name, p.speed, p.breakout) for p in leaf.uplinks()] == [("Ethernet8", 1600, 1), ("Ethernet16", 1600, 1)]


# ----------------------------------------------------------------------------- stability


def su(**over: Any) -> dict[str, Any]:
    rail: dict[str, Any] = {
        "server": "dgx-h100",
        "nodes_per_unit": 32,
        "units": 1,
        "planned_units": 4,
        "leaf": {"model": "sn5600"},
        "spine": {"model": "sn5600"},
    }
    rail.update(over)
    return intent(**rail)


def identity(fabric: Fabric) -> dict[str, tuple[str, int]]:
    return {name: (sw.loopback, sw.asn) for name, sw in fabric.switches.items()}


def port_subnets(fabric: Fabric, kind: LinkKind) -> dict[tuple[str, str, str, str], str | None]:
    return {
        (lk.a.device, lk.a.port, lk.b.device, lk.b.port): lk.subnet for lk in fabric.links if lk.kind is kind and lk.b
    }


def host_addresses(fabric: Fabric) -> dict[tuple[str, str], str | None]:
    return {(n.name, nic.ifname): nic.address for n in fabric.nodes.values() for nic in n.nics}


def assert_stable(old: Fabric, new: Fabric, *, same_cabling: bool = True) -> None:
    old_id, new_id = identity(old), identity(new)
    assert {name: new_id[name] for name in old_id} == old_id  # every old device: same loopback and ASN
    assert host_addresses(new).items() >= host_addresses(old).items()
    assert port_subnets(new, LinkKind.HOST).items() >= port_subnets(old, LinkKind.HOST).items()
    if same_cabling:
        assert port_subnets(new, LinkKind.LEAF_SPINE).items() >= port_subnets(old, LinkKind.LEAF_SPINE).items()


def test_adding_units_changes_nothing_that_exists() -> None:
    old, new = build(su(units=1)), build(su(units=3))
    assert len(new.switches) == len(old.switches) + 16
    assert_stable(old, new)


def test_adding_nodes_changes_nothing_that_exists() -> None:
    old, new = build(su(units=2, nodes=40)), build(su(units=2, nodes=64))
    assert (len(old.nodes), len(new.nodes)) == (40, 64)
    assert identity(old) == identity(new)  # the second unit's leaves existed already, with the same addresses
    assert_stable(old, new)


def test_adding_multi_su_units_is_stable() -> None:
    from fabricgen.inventory.load import load_inventory
    from tests.conftest import INVENTORIES

    loaded = load_inventory(INVENTORIES / "multi-su")
    tree = {**loaded.tree}
    old = resolve(loaded)
    bigger = {**tree, "intent": {"rail_optimized": {**tree["intent"]["rail_optimized"], "units": 12}}}
    new = build(bigger)
    assert len(new.by_role(Role.LEAF)) == 96
    assert_stable(old, new)


def test_more_spines_keep_every_device_and_host_address() -> None:
    # su1 chooses 8 spines; fixing 16 moves each leaf's uplinks onto other spine ports (a recabling), so a leaf
    # port's /31 may now face another spine. What must not move: loopbacks, ASNs and every host-facing /31.
    old, new = build(su()), build(su(spine={"model": "sn5600", "count": 16}))
    assert len(new.by_role(Role.SPINE)) == 16
    assert_stable(old, new, same_cabling=False)
    # and each leaf port keeps its /31, whichever spine it now reaches
    by_leaf_port = {(lk.a.device, lk.a.port): lk.subnet for lk in new.links if lk.kind is LinkKind.LEAF_SPINE}
    for (leaf, port, _, _), subnet in port_subnets(old, LinkKind.LEAF_SPINE).items():
        assert by_leaf_port[leaf, port] == subnet


def test_addresses_follow_the_documented_formula() -> None:
    fabric = build(su())
    leaf = fabric.switches["leaf-su001-r3"]  # id 4
    assert (leaf.loopback, leaf.asn) == ("10.0.0.4", 4200100004)
    spine = fabric.switches["spine-02"]  # id 2
    assert (spine.loopback, spine.asn) == ("10.0.128.2", 4200000100)
    # first uplink of leaf id 4 is on cage 17 (after 16 host cages) = lane 128: 10.128.0.0 + 2 × (4 × 512 + 128)
    first_up = next(leaf.uplinks())
    assert fabric.links[first_up.link].subnet == "10.128.17.0/31"
    assert first_up.address == "10.128.17.1/31"
    assert math.isclose(loads(fabric)[leaf.name].ratio, 1.0)


@given(
    st.sampled_from(["10.128.0.0/10", "192.168.0.0/16", "10.1.2.0/24", "172.16.0.0/12"]),
    st.integers(0, 5000),
    st.integers(0, 511),
)
def test_a_links_31_is_the_documented_formula(pool_text: str, ident: int, lane: int) -> None:
    """/31 = pool + 2 × (id × 512 + lane), its even address first; or the pool is exhausted."""
    pool = IPv4Network(pool_text)
    offset = 2 * (ident * 512 + lane)
    if offset + 2 > pool.num_addresses:
        with pytest.raises(PoolExhausted, match=f"device id {ident} needs addresses up to offset {offset + 1}"):
            p2p_pair(int(pool.network_address), pool.num_addresses, pool, ident, lane)
        return
    net = pool.network_address + offset
    assert p2p_pair(int(pool.network_address), pool.num_addresses, pool, ident, lane) == (f"{net}/31", f"{net + 1}/31")


def test_readme_catalog_example_adds_a_model(tmp_path: Path) -> None:
    """The README's `catalog:` example loads, and its new 32-cage model is what the spines are built from."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Adding or overriding hardware models", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "fabric.yaml").write_text(example, encoding="utf-8")
    fabric = load_fabric(tmp_path)
    spines = [s for s in fabric.switches.values() if s.role is Role.SPINE]
    assert spines and {s.model for s in spines} == {"sn5600-32"}
    # 8 leaves × 16 uplinks on 32-cage spines: the smallest divisor of 16 that fits is 4 spines
    assert len(spines) == 4
