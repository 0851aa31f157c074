"""Junos: every rendered configuration passes the structural checker (documented statements only, every
reference defined, lossless wiring); the routing policy, evaluated, re-advertises leaf routes to the other
leaves; RoCE, CNP and storage packets walked through the rendered CoS get exactly fabricgen's QoS policy."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.inventory.load import load_inventory
from fabricgen.qos import compute
from fabricgen.render import render_data
from fabricgen.render.data import build_device, junos_watchdog
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES
from tests.junos_check import (
    GRAMMAR,
    Route,
    bgp_chain,
    bgp_export_chain,
    check,
    evaluate_export,
    export_route,
    import_route,
    parse,
    policies,
    walk,
)
from tests.test_render_common import fabric_as, qos_of

BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")


def _configs(inventory: str) -> dict[str, str]:
    fabric = fabric_as(INVENTORIES / inventory, "junos")
    qos = qos_of(INVENTORIES / inventory, "junos")
    return {n: render_data(build_device(fabric, n, qos)).main for n in sorted(fabric.switches)}


@pytest.mark.parametrize("inventory", BUNDLED)
def test_every_junos_switch_passes_the_checker(inventory: str) -> None:
    for name, text in _configs(inventory).items():
        assert check(text) == [], name
        patterns = {s.pattern for s in parse(text).statements}
        assert any("pfc-priority" in p for p in patterns) and any("flow-control-queue" in p for p in patterns)


def _cnp7_leaf() -> str:
    """leaf1 of the lab on Junos with CNP on queue 7 (Junos' own class on its Tomahawk silicon; the lab's
    Spectrum-4 switches default to 6), where routing-engine traffic must be moved off 7."""
    loaded = retarget(load_inventory(INVENTORIES / "lab"), "junos")
    inv = loaded.inventory
    loaded = dataclasses.replace(loaded, inventory=inv.model_copy(update={"qos": inv.qos.model_copy(
        update={"cnp_tc": 7})}))
    fabric = resolve(loaded)
    return render_data(build_device(fabric, "leaf1", compute(fabric))).main


def test_checker_rejects_the_defects_it_exists_for() -> None:
    """The previous rendering's defects, put back into today's configuration, fail each for its own reason."""
    text = _cnp7_leaf()
    old = "\n".join(
        ln.replace(" hash-key ", " enhanced-hash-key ") for ln in text.splitlines()
        if "pfc-priority" not in ln and "flow-control-queue" not in ln and "network-control" not in ln
    )
    problems = "\n".join(check(old))
    assert "enhanced-hash-key family inet layer-3" in problems
    assert "FC-roce has no pfc-priority" in problems
    assert "pfc-watchdog without a flow-control-queue" in problems
    assert "routing-engine traffic (queue 7) shares its queue with ['FC-cnp']" in problems
    broken = text.replace("drop-profile DP-", "drop-profile XX-", 1)
    assert any("dp 'XX-" in e for e in check(broken))
    broken = text.replace("set class-of-service forwarding-classes class FC-roce pfc-priority 3\n", "")
    assert "no-loss forwarding class FC-roce has no pfc-priority" in check(broken)
    broken = "\n".join(ln for ln in text.splitlines() if "flow-control-queue" not in ln)
    assert any("no output code-point 011 flow-control-queue 3" in e for e in check(broken))
    broken = "\n".join(ln for ln in text.splitlines() if "egress buffer-partition multicast" not in ln)
    assert any(e.startswith("shared-buffer egress partitions") for e in check(broken))
    broken = text.replace("shared-buffer ingress percent", "shared-buffer percent")
    assert any("no documented statement matches: set class-of-service shared-buffer percent" in e
               for e in check(broken))
    broken = "\n".join(ln for ln in text.splitlines() if "forwarding-class FC-storage scheduler" not in ln)
    assert "scheduler-map AI_RDMA has no scheduler for ['FC-storage']" in check(broken)
    broken = text.replace("neighbor 10.128.6.0 peer-as", "neighbor 10.99.6.0 peer-as")
    assert "bgp neighbor 10.99.6.0 is on no configured interface" in check(broken)
    broken = text.replace("set system host-name leaf1", "set system hostname leaf1")
    assert check(broken) == ["line 1: no documented statement matches: set system hostname leaf1"]
    assert all(src for src in GRAMMAR.values())


def test_spines_readvertise_leaf_routes_to_the_other_leaves() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "junos")
    configs = _configs("lab")
    leaves = [n for n, s in fabric.switches.items() if s.role.value == "leaf"]
    spines = [n for n, s in fabric.switches.items() if s.role.value == "spine"]
    for leaf in leaves:
        loopback = f"{fabric.switches[leaf].loopback}/32"
        # the leaf exports what it originates (a direct route) to its spines
        assert evaluate_export(bgp_export_chain(configs[leaf], "SPINES"), Route(loopback, "direct"))
        for spine in spines:
            # the spine learned it by eBGP and must pass it on to every other leaf
            assert evaluate_export(bgp_export_chain(configs[spine], "LEAVES"), Route(loopback, "bgp")), spine
            # but not a route it neither originates nor learned by BGP
            assert not evaluate_export(bgp_export_chain(configs[spine], "LEAVES"), Route("192.0.2.0/24", "static"))


def test_policy_evaluator_semantics() -> None:
    text = "\n".join([
        "set policy-options policy-statement P term a from route-filter 10.0.0.0/8 orlonger",
        "set policy-options policy-statement P term a from protocol direct",
        "set policy-options policy-statement P term a then accept",
        "set policy-options policy-statement P term b from protocol bgp",
        "set policy-options policy-statement P term b then next term",
        "set policy-options policy-statement P term c then reject",
        "set protocols bgp group G export P",
    ])
    chain = bgp_export_chain(text, "G")
    assert [t.name for t in policies(text)["P"]] == ["a", "b", "c"]
    assert evaluate_export(chain, Route("10.1.0.0/16", "direct"))
    assert not evaluate_export(chain, Route("10.1.0.0/16", "bgp"))  # next term → c rejects
    assert not evaluate_export(chain, Route("11.0.0.0/8", "direct"))
    assert evaluate_export([], Route("11.0.0.0/8", "bgp")) and not evaluate_export([], Route("11.0.0.0/8", "direct"))
    # the spine policy before the fix: only local routes, then reject → leaf routes stop at the spine
    old = "\n".join([
        "set policy-options policy-statement EXPORT-LOCAL term local from route-filter 10.0.1.1/32 exact",
        "set policy-options policy-statement EXPORT-LOCAL term local then accept",
        "set policy-options policy-statement EXPORT-LOCAL term other then reject",
        "set protocols bgp group LEAVES export EXPORT-LOCAL",
    ])
    assert not evaluate_export(bgp_export_chain(old, "LEAVES"), Route("10.0.0.1/32", "bgp"))


def test_policy_evaluator_routing_terms() -> None:
    """prefix-length-range, longest-match route-filters, from community / prefix-list, local-preference and
    community add, each judged on a route it must and one it must not match."""
    text = "\n".join([
        "set policy-options community GS members 65535:0",
        "set policy-options community TAG members 64512:1",
        "set policy-options prefix-list OWN 10.9.0.1/32",
        "set policy-options policy-statement IN term g from route-filter 10.0.0.0/24 prefix-length-range /32-/32",
        "set policy-options policy-statement IN term g from community GS",
        "set policy-options policy-statement IN term g then local-preference 0",
        "set policy-options policy-statement IN term g then accept",
        "set policy-options policy-statement IN term f from route-filter 10.0.0.0/16 orlonger",
        "set policy-options policy-statement IN term f from route-filter 10.0.0.0/24 prefix-length-range /32-/32",
        "set policy-options policy-statement IN term f then accept",
        "set policy-options policy-statement IN term r then reject",
        "set policy-options policy-statement OUT term l from protocol direct",
        "set policy-options policy-statement OUT term l from prefix-list OWN",
        "set policy-options policy-statement OUT term l then community add TAG",
        "set policy-options policy-statement OUT term l then accept",
        "set policy-options policy-statement OUT term r then reject",
        "set protocols bgp group G import IN",
        "set protocols bgp group G export OUT",
    ])
    imp, exp = bgp_chain(text, "G", "import"), bgp_chain(text, "G", "export")
    got = import_route(imp, Route("10.0.0.5/32", "bgp", frozenset({"65535:0", "64512:1"})))
    assert got is not None and got.local_preference == 0
    got = import_route(imp, Route("10.0.0.5/32", "bgp", frozenset({"64512:1"})))
    assert got is not None and got.local_preference == 100
    # longest match: 10.0.0.0/24 is the filter that decides for 10.0.0.0/25, and /25 is outside /32-/32,
    # although the shorter 10.0.0.0/16 orlonger would have matched
    assert import_route(imp, Route("10.0.0.0/25", "bgp")) is None
    assert import_route(imp, Route("10.0.1.0/24", "bgp")) is not None  # only /16 covers it: orlonger
    assert import_route(imp, Route("192.0.2.0/24", "bgp")) is None
    out = export_route(exp, Route("10.9.0.1/32", "direct", frozenset({"1:1"})))
    assert out is not None and out.communities == {"1:1", "64512:1"}  # added, not replaced
    assert export_route(exp, Route("10.9.0.1/32", "static")) is None  # not direct
    assert export_route(exp, Route("10.9.0.2/32", "direct")) is None  # not in the prefix-list


def _drained_fabric(names: list[str]) -> Fabric:
    loaded = retarget(load_inventory(INVENTORIES / "lab"), "junos")
    inv = loaded.inventory
    return resolve(dataclasses.replace(loaded, inventory=inv.model_copy(
        update={"fabric": inv.fabric.model_copy(update={"drain": names})})))


def _paths(fabric: Fabric) -> dict[tuple[str, str, str, str], Route | None]:
    """(origin leaf, spine, receiving leaf, prefix) → the route the receiving leaf installs from that spine
    (None: refused on the way), each hop through the rendered import and export policies."""
    configs = {n: render_data(build_device(fabric, n)).main for n in fabric.switches}
    leaves = sorted(n for n, s in fabric.switches.items() if s.role.value == "leaf")
    spines = sorted(n for n, s in fabric.switches.items() if s.role.value == "spine")
    out: dict[tuple[str, str, str, str], Route | None] = {}
    for leaf in leaves:
        for prefix in build_device(fabric, leaf).bgp.policy.local_prefixes:
            sent = export_route(bgp_chain(configs[leaf], "SPINES", "export"), Route(prefix, "direct"))
            for spine in spines:
                got = None if sent is None else import_route(bgp_chain(configs[spine], "LEAVES", "import"),
                                                             Route(prefix, "bgp", sent.communities))
                passed = None if got is None else export_route(bgp_chain(configs[spine], "LEAVES", "export"), got)
                for other in leaves:
                    if other != leaf:
                        out[(leaf, spine, other, prefix)] = None if passed is None else import_route(
                            bgp_chain(configs[other], "SPINES", "import"), Route(prefix, "bgp", passed.communities))
    return out


def test_every_leaf_route_reaches_every_other_leaf_through_each_spine() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "junos")
    paths = _paths(fabric)
    spines = {k[1] for k in paths}
    assert len(spines) >= 2 and paths
    for (leaf, spine, other, prefix), route in paths.items():
        assert route is not None, (leaf, spine, other, prefix)
        assert route.local_preference == 100
        assert route.communities == {"64512:1"}  # the origin's role community, carried across the spine
    loopbacks = {k[3] for k in paths}
    assert {f"{s.loopback}/32" for s in fabric.switches.values() if s.role.value == "leaf"} <= loopbacks


def test_a_prefix_outside_the_pools_is_rejected_at_the_spine() -> None:
    configs = _configs("lab")
    imp = bgp_chain(configs["spine1"], "LEAVES", "import")
    for prefix in ("192.0.2.0/24", "10.0.0.0/24", "10.64.0.0/30", "0.0.0.0/0"):  # outside, or a pool's wrong length
        assert import_route(imp, Route(prefix, "bgp", frozenset({"64512:1"}))) is None, prefix
    assert import_route(imp, Route("10.0.0.7/32", "bgp")) is not None  # a leaf loopback in the pool passes
    # and the leaf does not announce what it does not own
    assert export_route(bgp_chain(configs["leaf1"], "SPINES", "export"), Route("192.0.2.0/24", "direct")) is None


def test_a_drained_spine_loses_its_best_paths_and_keeps_its_sessions() -> None:
    fabric = _drained_fabric(["spine1"])
    paths = _paths(fabric)
    assert {k[1] for k in paths} >= {"spine1", "spine2"}
    for (_leaf, spine, _other, _prefix), route in paths.items():
        assert route is not None  # still received: the sessions and the routes stay
        if spine == "spine1":
            assert route.local_preference == 0 and "65535:0" in route.communities
        else:
            assert route.local_preference == 100 and "65535:0" not in route.communities
    spine1 = render_data(build_device(fabric, "spine1")).main
    assert check(spine1) == []
    own = export_route(bgp_chain(spine1, "LEAVES", "export"), Route(f"{fabric.switches['spine1'].loopback}/32",
                                                                    "direct"))
    assert own is not None and own.communities == {"64512:2", "65535:0"}
    # only the drained switch marks its routes
    assert "65535:0" not in str(policies(render_data(build_device(fabric, "spine2")).main)["FABRIC-OUT-V4"])


def test_checker_rejects_routing_defects() -> None:
    text = _configs("lab")["leaf1"]
    assert check(text) == []
    broken = text.replace("then community add ROLE-LEAF", "then community add ROLE-LEAFS")
    assert any("community 'ROLE-LEAFS' is used but never defined" in e for e in check(broken))
    assert "community 'ROLE-LEAF' is defined but never used" in check(broken)
    broken = "\n".join(ln for ln in text.splitlines() if " import FABRIC-IN-V4" not in ln)
    assert "policy 'FABRIC-IN-V4' is defined but never used" in check(broken)
    assert "bgp group SPINES has no import policy" in check(broken)
    broken = "\n".join(ln for ln in text.splitlines() if "prefix-limit teardown" not in ln)
    assert "bgp group SPINES has no prefix-limit maximum and teardown" in check(broken)
    broken = text.replace("from prefix-list LOCAL-PREFIXES", "from prefix-list LOCAL")
    assert any("plist 'LOCAL' is used but never defined" in e for e in check(broken))
    broken = text.replace("prefix-length-range /32-/32", "prefix-length-range /16-/32", 1)
    assert any("starts below the prefix length" in e for e in check(broken))
    for bad in ("bfd-liveness-detection minimum-interval 300", "bfd-liveness-detection multiplier 3"):
        value = "255001" if "interval" in bad else "256"
        broken = text.replace(bad, bad.rsplit(" ", 1)[0] + " " + value)
        assert any("no documented statement matches" in e and value in e for e in check(broken)), bad
    broken = text.replace("members 65535:0", "members 65536:0")
    assert any("no documented statement matches" in e for e in check(broken))


def test_bfd_follows_the_inventory() -> None:
    loaded = retarget(load_inventory(INVENTORIES / "lab"), "junos")
    inv = loaded.inventory
    for bfd in (inv.fabric.bfd.model_copy(update={"enabled": False}),
                inv.fabric.bfd.model_copy(update={"interval_ms": 150, "multiplier": 4})):
        fabric = resolve(dataclasses.replace(loaded, inventory=inv.model_copy(
            update={"fabric": inv.fabric.model_copy(update={"bfd": bfd})})))
        text = render_data(build_device(fabric, "leaf1")).main
        assert check(text) == []
        got = {(w[3], w[5], w[6]) for w in parse(text).where(["protocols", "bgp", "group"])
               if w[4] == "bfd-liveness-detection"}
        groups = {g.name for g in build_device(fabric, "leaf1").bgp.groups}
        want = set() if not bfd.enabled else {(g, k, v) for g in groups
                                              for k, v in (("minimum-interval", "150"), ("multiplier", "4"))}
        assert got == want


@pytest.mark.parametrize("dscp", [26, 48, 18, 0])
def test_packets_get_fabricgens_policy(dscp: int) -> None:
    fabric = fabric_as(INVENTORIES / "lab", "junos")
    qos = qos_of(INVENTORIES / "lab", "junos")
    for name in sorted(fabric.switches):
        data = build_device(fabric, name, qos)
        text = render_data(data).main
        ports = fabric.switches[name].ports
        for i, port in enumerate(ports):
            egress = ports[(i + 1) % len(ports)]  # a packet in on this port, out on the next one
            pq = qos.port(name, egress.name)
            assert pq is not None
            assert pq.dscp_to_tc == qos.port(name, port.name).dscp_to_tc  # type: ignore[union-attr]
            tc = pq.dscp_to_tc[dscp]
            lane = pq.lane(tc)
            assert lane is not None
            t = walk(text, port.name, egress.name, dscp)
            assert t.queue == tc
            lossless = tc in pq.pfc_priorities
            assert t.lossless == lossless and t.pauses_on_dscp == lossless
            assert t.pfc_priority == (tc if lossless else None)
            assert t.flow_control_queue == (tc if lossless else None)
            assert t.strict == (lane.scheduling == "strict")
            e = pq.ecn.get(tc) if lane.ecn else None
            assert t.ecn == (e is not None)
            if e is not None:
                assert t.fill_levels is not None and t.mark_probability == e.probability_pct
                (ed,) = [x for x in data.qos.ecn_profiles if x.min_bytes == e.min_bytes] if data.qos else []
                qb = ed.queue_buffer_bytes
                lo, hi = t.fill_levels
                # fill levels are a percent of the queue's buffer: the first percent at or above the threshold
                assert (lo - 1) * qb < e.min_bytes * 100 <= lo * qb
                assert (hi - 1) * qb < e.max_bytes * 100 <= hi * qb and hi < 100
            if lane.scheduling == "ets":
                strict = sum(1 for x in pq.lanes if x.scheduling == "strict")
                assert lane.ets_weight is not None
                assert t.transmit_pct == lane.ets_weight * (100 - 5 * strict) // 100
    if dscp == 26:
        assert t.lossless and t.ecn
    if dscp == 48:
        assert t.strict and not t.lossless


@given(st.integers(10, 60_000))
def test_junos_watchdog_math(detection: int) -> None:
    poll, polls = junos_watchdog(detection)
    assert poll in (10, 100, 1000) and polls >= 1
    assert detection <= poll * polls < detection + 10  # never shorter, at most one 10 ms poll longer
    if detection % 10 == 0:
        assert poll * polls == detection


def test_watchdog_times_are_rendered() -> None:
    qos = qos_of(INVENTORIES / "lab", "junos")
    for name, text in _configs("lab").items():
        wd = next(iter(qos.switches[name].ports.values())).watchdog
        assert wd is not None
        lines = [w for w in parse(text).where(["class-of-service", "congestion-notification-profile"])
                 if w[3] == "pfc-watchdog"]
        profiles = {w[2] for w in lines}
        assert profiles
        for cnp in profiles:
            got = {w[4]: w[5] for w in lines if w[2] == cnp}
            assert int(got["poll-interval"]) * int(got["detection"]) == wd.detection_ms
            assert int(got["recovery"]) == wd.restoration_ms and wd.action == "drop"
            assert set(got) == {"poll-interval", "detection", "recovery"}
