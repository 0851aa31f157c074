"""The underlay's routing facts and checks: what the fabric announces, the filter every session applies, the
prefix limit, BFD's platform ranges and what a drain leaves behind."""

from __future__ import annotations

import ipaddress
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.checks import Finding, run_checks
from fabricgen.checks.routing import CHECKS
from fabricgen.errors import InputError
from fabricgen.inventory.load import load_inventory
from fabricgen.render import render_device
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from fabricgen.topology.routing import nice_limit, routing_facts
from tests.conftest import INVENTORIES
from tests.test_render_common import fabric_as, qos_of


@given(st.integers(min_value=0, max_value=10**9))
def test_nice_limit_is_the_smallest_round_number_at_or_above(n: int) -> None:
    limit = nice_limit(n)
    assert limit >= max(n, 100)
    mantissa = limit
    while mantissa % 10 == 0 and mantissa >= 10:
        mantissa //= 10
    assert mantissa in (1, 2, 5)
    smaller = [m * 10**k for k in range(2, 11) for m in (1, 2, 5) if m * 10**k < limit]
    assert all(s < max(n, 100) for s in smaller)


def _lab(tmp_path: Path, extra: str, platform: str | None = None) -> Fabric:
    inv = tmp_path / "lab"
    shutil.copytree(INVENTORIES / "lab", inv)
    text = (inv / "fabric.yaml").read_text(encoding="utf-8")
    (inv / "fabric.yaml").write_text(text.replace("  name: lab\n", "  name: lab\n" + extra, 1), encoding="utf-8")
    loaded = load_inventory(inv)
    return resolve(retarget(loaded, platform) if platform else loaded)


def _routing(fabric: Fabric) -> list[Finding]:
    return run_checks(fabric, CHECKS)


def _prefix_list(text: str, name: str) -> list[tuple[ipaddress.IPv4Network, int, int]]:
    """The entries of FRR prefix-list ``name`` in a rendered frr.conf: (network, ge, le)."""
    out = []
    for m in re.finditer(rf"^ip prefix-list {name} seq \d+ permit (\S+)(?: ge (\d+) le (\d+))?$", text, re.M):
        net = ipaddress.IPv4Network(m[1])
        out.append((net, int(m[2] or net.prefixlen), int(m[3] or net.prefixlen)))
    return out


def _permits(entries: list[tuple[ipaddress.IPv4Network, int, int]], prefix: str) -> bool:
    p = ipaddress.IPv4Network(prefix)
    return any(p.subnet_of(net) and ge <= p.prefixlen <= le for net, ge, le in entries)


def test_every_prefix_a_switch_originates_passes_every_peers_filter_and_nothing_else_does() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "frr")
    qos = qos_of(INVENTORIES / "lab", "frr")
    configs = {n: render_device(fabric, n, qos).main for n in sorted(fabric.switches)}
    originated = {n: re.findall(r"^  network (\S+)$", text, re.M) for n, text in configs.items()}
    for name, text in configs.items():
        fabric_list = _prefix_list(text, "FABRIC-PREFIXES")
        local = {str(net) for net, _, _ in _prefix_list(text, "LOCAL-PREFIXES")}
        assert local == set(originated[name]), name  # the export filter lets exactly its own through
        for other, nets in originated.items():
            for net in nets:
                assert _permits(fabric_list, net), f"{name} would refuse {net} from {other}"
        for stray in ("0.0.0.0/0", "192.0.2.0/24", "10.0.0.0/16", "10.64.4.0/30", "10.64.4.0/32"):
            assert not _permits(fabric_list, stray), f"{name} would accept {stray}"
    facts = routing_facts(fabric)
    counts = [len(v) for v in originated.values()]
    assert facts.announced == sum(counts)
    assert facts.received_max == sum(counts) - min(counts)
    assert facts.maximum_prefix >= 2 * facts.received_max
    for text in configs.values():
        assert f"maximum-prefix {facts.maximum_prefix} 80" in text


def test_a_drained_switch_tags_everything_it_sends_and_others_do_not() -> None:
    loaded = retarget(load_inventory(INVENTORIES / "lab"), "frr")
    fabric = resolve(_with_drain(loaded, ["spine1"]))
    from fabricgen.qos import compute

    qos = compute(fabric)
    spine1 = render_device(fabric, "spine1", qos).main
    spine2 = render_device(fabric, "spine2", qos).main
    out = spine1.split("route-map FABRIC-OUT-V4 permit 100\n", 1)[1].split("\nexit\n!\nbfd", 1)[0]
    assert "set community 64512:2 graceful-shutdown additive" in out
    assert out.count("set community graceful-shutdown additive") == 1  # learned prefixes too
    assert "graceful-shutdown additive" not in spine2.split("route-map FABRIC-OUT-V4", 1)[1]


def _with_drain(loaded, names):  # type: ignore[no-untyped-def]
    import dataclasses

    inv = loaded.inventory
    return dataclasses.replace(loaded, inventory=inv.model_copy(
        update={"fabric": inv.fabric.model_copy(update={"drain": names})}))


def test_a_limit_below_what_one_neighbor_sends_is_an_error_at_its_line(tmp_path: Path) -> None:
    fabric = _lab(tmp_path, "  routing: {maximum_prefix: 10}\n")
    facts = routing_facts(fabric)
    (f,) = [f for f in _routing(fabric) if f.code.startswith("FG-BGP")]
    assert (f.code, f.severity.value) == ("FG-BGP-001", "error")
    assert f.src is not None and f.src.line == 3 and f.src.file.endswith("fabric.yaml")
    assert f"maximum-prefix 10 is below the {facts.received_max:,} prefixes" in f.message


def test_a_limit_close_to_what_is_sent_warns_and_the_computed_one_never_does(tmp_path: Path) -> None:
    received = routing_facts(fabric_as(INVENTORIES / "lab", "frr")).received_max
    fabric = _lab(tmp_path, f"  routing: {{maximum_prefix: {received + 1}}}\n", "frr")
    (f,) = _routing(fabric)
    assert f.code == "FG-BGP-002" and f.severity.value == "warning"
    assert not [x for x in _routing(fabric_as(INVENTORIES / "lab", "frr")) if x.code.startswith("FG-BGP")]


@pytest.mark.parametrize(("platform", "interval", "multiplier", "bad"), [
    ("eos", 20, 3, "interval_ms"),
    ("nxos", 1000, 3, "interval_ms"),
    ("eos", 300, 2, "multiplier"),
    ("frr", 20, 3, None),
    ("junos", 20, 1, None),
])
def test_bfd_timers_are_held_against_each_platforms_range(
    tmp_path: Path, platform: str, interval: int, multiplier: int, bad: str | None
) -> None:
    fabric = _lab(tmp_path, f"  bfd: {{interval_ms: {interval}, multiplier: {multiplier}}}\n", platform)
    found = [f for f in _routing(fabric) if f.code == "FG-BFD-001"]
    if bad is None:
        assert found == []
        return
    (f,) = found  # one finding for the platform, not one per switch
    assert f.subject == f"fabric.bfd.{bad}" and f"{platform}'s range" in f.message
    assert f"{len(fabric.switches)} switches" in f.message
    assert f.src is not None and f.src.line == 3


def test_bfd_on_sonic_says_what_the_bgp_container_needs(lab: Fabric, tmp_path: Path) -> None:
    (f,) = [f for f in _routing(lab) if f.code == "FG-BFD-002"]
    assert f"for {len(lab.switches)} switches" in f.message and "frr_mgmt_framework_config" in f.message
    off = _lab(tmp_path, "  bfd: {enabled: false}\n")
    assert not [f for f in _routing(off) if f.code.startswith("FG-BFD")]


def test_draining_a_whole_tier_is_one_error_naming_every_stranded_leaf(tmp_path: Path) -> None:
    fabric = _lab(tmp_path, "  drain: [spine1, spine2]\n", "frr")
    errors = [f for f in _routing(fabric) if f.code == "FG-DRAIN-001"]
    (f,) = errors
    assert f.subject == "spine1, spine2" and "4 switches (leaf1, leaf2, leaf3 and 1 more)" in f.message
    assert f.src is not None and f.src.line == 3


def test_one_spine_of_two_drained_halves_leaf_uplinks_and_strands_nothing(tmp_path: Path) -> None:
    fabric = _lab(tmp_path, "  drain: [spine1]\n", "frr")
    codes = {f.code: f for f in _routing(fabric)}
    assert "FG-DRAIN-001" not in codes
    assert "4 switches below lose uplink capacity" in codes["FG-DRAIN-003"].message
    assert "keeps 50% of it" in codes["FG-DRAIN-003"].message


def test_a_drained_leaf_warns_that_its_hosts_are_not_moved(tmp_path: Path, lab: Fabric) -> None:
    fabric = _lab(tmp_path, "  drain: [leaf1]\n", "frr")
    (f,) = [f for f in _routing(fabric) if f.code == "FG-DRAIN-002"]
    hosts = sum(1 for p in lab.switches["leaf1"].ports if p.kind.value == "host")
    assert f.subject == "leaf1" and f"{hosts} host links" in f.message


def test_a_drain_naming_no_switch_is_an_input_error_at_its_entry(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        _lab(tmp_path, "  drain: [spine9]\n")
    (line,) = [str(p) for p in info.value.problems]
    assert line.startswith(f"{tmp_path / 'lab' / 'fabric.yaml'}:3:")
    assert "fabric.drain[0]: 'spine9' is no switch of this fabric" in line


def test_maintenance_on_the_switch_drains_it() -> None:
    loaded = load_inventory(INVENTORIES / "lab")
    inv = loaded.inventory
    switches = [s.model_copy(update={"maintenance": "drain"}) if s.name == "spine2" else s for s in inv.switches]
    import dataclasses

    fabric = resolve(dataclasses.replace(loaded, inventory=inv.model_copy(update={"switches": switches})))
    assert {n for n, s in fabric.switches.items() if s.drained} == {"spine2"}
    assert routing_facts(fabric).drained == frozenset({"spine2"})


def test_a_drain_and_an_undrain_are_risk_lines_of_the_plan_and_reasons_of_the_switch() -> None:
    from fabricgen.plan.diff import diff_fabrics

    loaded = retarget(load_inventory(INVENTORIES / "lab"), "frr")
    before, after = resolve(loaded), resolve(_with_drain(loaded, ["spine1"]))
    diff = diff_fabrics(before, after, qos=False)
    (risk,) = diff.risks
    assert risk.startswith("drain spine1 (1 switch): peers move their best paths off it")
    assert "the worst of 4 switches below, leaf1, keeps 50% of its uplink capacity" in risk
    (changed,) = diff.changed
    assert changed.name == "spine1" and "drained (graceful-shutdown on everything it sends)" in changed.reasons
    (back,) = diff_fabrics(after, before, qos=False).risks
    assert back.startswith("undrain spine1 (1 switch): traffic returns to it")
    assert diff_fabrics(before, before, qos=False).risks == ()


def test_a_limit_that_steps_up_with_growth_is_one_risk_line(tmp_path: Path) -> None:
    from fabricgen.plan.diff import diff_fabrics

    before = fabric_as(INVENTORIES / "lab", "frr")
    after = _lab(tmp_path, "  routing: {maximum_prefix: 5000}\n", "frr")
    (risk,) = diff_fabrics(before, after, qos=False).risks
    limit = routing_facts(before).maximum_prefix
    assert risk.startswith(f"maximum-prefix {limit:,} → 5,000 on every session")
    assert risk.endswith(f"the configuration of all {len(before.switches)} switches in both changes")


def test_the_computed_limit_is_sized_for_the_planned_units_so_growth_to_plan_keeps_it() -> None:
    from tests.conftest import load_fabric

    before = load_fabric(INVENTORIES / "expansion" / "before")  # 2 of 4 planned units
    after = load_fabric(INVENTORIES / "expansion" / "after")  # 4 of 4
    a, b = routing_facts(before), routing_facts(after)
    assert before.intent is not None and (before.intent.units, before.intent.planned_units) == (2, 4)
    assert a.planned_received == -(-a.received_max * 4 // 2) >= b.received_max  # the plan bounds what grows
    assert a.maximum_prefix == b.maximum_prefix == nice_limit(2 * a.planned_received)
    assert b.received_max * 2 <= b.maximum_prefix


def test_a_drain_entry_with_a_newline_is_refused_at_its_line(tmp_path: Path) -> None:
    """``fabric.drain`` names reach no file by themselves, but they are checked names all the same: a newline
    cannot smuggle a line into anything that prints them."""
    with pytest.raises(InputError) as info:
        _lab(tmp_path, '  drain: ["spine1\\nrouter bgp 1"]\n')
    (line,) = [str(p) for p in info.value.problems]
    assert line.startswith(f"{tmp_path / 'lab' / 'fabric.yaml'}:3:") and "fabric.drain[0]: a name" in line
    assert "\n" not in line
