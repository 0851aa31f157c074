"""EOS: fabricgen's configuration against Arista's own generator (pyavd), on every EOS switch of every
bundled inventory, plus what the oracle cannot say (the catalog's queue keyword, the watchdog armed per port,
and where routes go: prefixes walked leaf → spine → leaf through the rendered route-maps, with a drained spine
and with prefixes the fabric does not allocate).

pyavd is the ``oracles`` extra (``pip install -e '.[oracles]'``, installed by ``.ci/run``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import ipaddress
import re
from pathlib import Path
from typing import Any

import pytest

from fabricgen.inventory.load import load_inventory
from fabricgen.inventory.schema import BfdSettings
from fabricgen.qos import compute
from fabricgen.qos.model import FabricQos
from fabricgen.render import render_data
from fabricgen.render.data import build_device
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric, PortKind
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES, require
from tests.eos_avd import FABRICGEN_ONLY, Route, Session, Speaker, avd_config, bgp_filters, blocks, walk
from tests.test_render_common import fabric_as, qos_of

BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")
SECTIONS = ("qos map dscp ", "priority-flow-control pause watchdog ", "qos profile ", "interface ", "router bgp ",
            "router bfd", "ip prefix-list ", "ip community-list ", "route-map ")


def _have_pyavd() -> None:
    require(importlib.util.find_spec("pyavd") is not None, "pyavd (the `oracles` extra) is not installed")


def assert_matches_avd(fabric: Fabric, qos: FabricQos, bfd: bool = True) -> None:
    """Every EOS switch of ``fabric``: fabricgen's configuration, section by section, is what AVD renders."""
    assert fabric.switches
    for name in sorted(fabric.switches):
        data = build_device(fabric, name, qos)
        ours = blocks(render_data(data).main)
        theirs = blocks(avd_config(data))
        wanted = SECTIONS if bfd else tuple(x for x in SECTIONS if x != "router bfd")
        for section in wanted:  # the comparison is not vacuous: AVD rendered every section we care about
            assert any(h.startswith(section) for h in theirs), f"{name}: AVD rendered no {section!r}"
        for header, lines in theirs.items():
            if header.startswith("hostname") or header.startswith("service routing") or header == "ip routing":
                assert ours.get(header) == lines, f"{name}: {header}"
                continue
            assert header in ours, f"{name}: AVD renders {header!r}, fabricgen does not"
            assert ours[header] == lines, f"{name}: {header}\nfabricgen: {ours[header]}\nAVD:       {lines}"
        extra = set(ours) - set(theirs) - {h for h in ours if h.startswith("hostname ")}
        assert extra <= set(FABRICGEN_ONLY), f"{name}: lines AVD does not model: {sorted(extra - set(FABRICGEN_ONLY))}"


@pytest.mark.parametrize("inventory", BUNDLED)
def test_every_eos_switch_matches_avd(inventory: str) -> None:
    _have_pyavd()
    path: Path = INVENTORIES / inventory
    assert_matches_avd(fabric_as(path, "eos"), qos_of(path, "eos"))


def test_oracle_catches_a_wrong_queue_keyword_and_a_missing_watchdog() -> None:
    """The comparison fails on exactly the defects it exists for."""
    _have_pyavd()
    import dataclasses

    fabric = fabric_as(INVENTORIES / "multi-su", "eos")
    qos = qos_of(INVENTORIES / "multi-su", "eos")
    name = sorted(fabric.switches)[0]
    data = build_device(fabric, name, qos)
    assert data.eos_tx_queue == "uc-tx-queue"  # arista-7060x6-64pe: a Tomahawk family
    theirs = blocks(avd_config(data))
    wrong = dataclasses.replace(data, eos_tx_queue="tx-queue")
    ours_wrong = blocks(render_data(wrong).main)
    profile = next(h for h in theirs if h.startswith("qos profile "))
    assert ours_wrong[profile] != theirs[profile]
    assert any(line.strip().startswith("uc-tx-queue ") for line in theirs[profile])
    text = render_data(data).main.replace("   priority-flow-control pause watchdog\n", "")
    assert blocks(text)[profile] != theirs[profile]


def test_queue_keyword_is_a_catalog_fact() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "eos")  # sn5600 moved to EOS: no EOS family fact, tx-queue
    qos = qos_of(INVENTORIES / "lab", "eos")
    lab = render_data(build_device(fabric, "leaf1", qos)).main
    assert re.search(r"^   tx-queue 3$", lab, re.M) and "uc-tx-queue" not in lab
    fabric = fabric_as(INVENTORIES / "multi-su", "eos")
    qos = qos_of(INVENTORIES / "multi-su", "eos")
    name = sorted(fabric.switches)[0]
    assert fabric.catalog.switches[fabric.switches[name].model].eos_tx_queue == "uc-tx-queue"
    ms = render_data(build_device(fabric, name, qos)).main
    assert re.search(r"^   uc-tx-queue 3$", ms, re.M) and not re.search(r"^   tx-queue", ms, re.M)


def test_every_pfc_port_arms_the_watchdog() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    qos = qos_of(INVENTORIES / "lab", "eos")
    for name in fabric.switches:
        text = render_data(build_device(fabric, name, qos)).main
        b = blocks(text)
        for port in fabric.switches[name].ports:
            pq = qos.port(name, port.name)
            assert pq is not None and pq.watchdog is not None
            (profile,) = [ln.split()[-1] for ln in b[f"interface {port.name}"] if "service-profile" in ln]
            body = b[f"qos profile {profile}"]
            assert "   priority-flow-control on" in body
            assert "   priority-flow-control pause watchdog" in body
        assert f"priority-flow-control pause watchdog default timeout {pq.watchdog.detection_ms / 1000:g}" in b


@pytest.mark.parametrize("dscp", [26, 48, 18, 0])
def test_packets_get_fabricgens_policy(dscp: int) -> None:
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    qos = qos_of(INVENTORIES / "lab", "eos")
    for name in sorted(fabric.switches):
        text = render_data(build_device(fabric, name, qos)).main
        for port in fabric.switches[name].ports:
            pq = qos.port(name, port.name)
            assert pq is not None
            tc = pq.dscp_to_tc[dscp]
            lane = pq.lane(tc)
            assert lane is not None
            t = walk(text, port.name, dscp)
            assert t.traffic_class == tc and t.queue == tc
            assert t.no_drop == (tc in pq.pfc_priorities)
            assert t.watchdog == (pq.watchdog is not None)
            assert t.strict == (lane.scheduling == "strict")
            assert t.bandwidth_pct == lane.ets_weight
            e = pq.ecn.get(tc) if lane.ecn else None
            assert t.ecn_bytes == ((e.min_bytes, e.max_bytes) if e else None)
            assert t.mark_probability == (e.probability_pct if e else None)


def _texts(fabric: Fabric) -> dict[str, str]:
    qos = compute(fabric)
    return {n: render_data(build_device(fabric, n, qos)).main for n in sorted(fabric.switches)}


def fabric_with(inventory: str, platform: str = "eos", **fabric: Any) -> Fabric:
    """A bundled inventory moved to ``platform`` with ``fabric:`` settings replaced (``drain=["spine1"]``,
    ``bfd=...``)."""
    loaded = retarget(load_inventory(INVENTORIES / inventory), platform)
    inv = loaded.inventory
    return resolve(dataclasses.replace(
        loaded, inventory=inv.model_copy(update={"fabric": inv.fabric.model_copy(update=fabric)})))


@pytest.mark.parametrize("inventory", BUNDLED)
def test_nothing_filters_ebgp_readvertisement(inventory: str) -> None:
    """Every session of every device, through its rendered route-maps: each prefix the fabric originates
    elsewhere is accepted and passed on, the device's own are sent, the prefix limit is above what one
    neighbor can send, and no other filter is configured."""
    fabric = fabric_as(INVENTORIES / inventory, "eos")
    texts = _texts(fabric)
    speakers = {n: Speaker.parse(t) for n, t in texts.items()}
    announced = {n: set(s.networks) for n, s in speakers.items()}
    assert all(announced.values())
    everything = set().union(*announced.values())
    for name, sp in speakers.items():
        assert bgp_filters(texts[name]) == [], name
        assert sp.sessions, name
        kinds = {dataclasses.replace(s, peer="", remote_as=0): s for s in sp.sessions.values()}
        for session in kinds.values():  # sessions that differ only in their peer are evaluated once
            assert session.active and session.send_community, (name, session.peer)
            assert session.maximum_routes is not None and session.maximum_routes >= len(everything), name
            for prefix in sorted(everything - announced[name]):
                got = sp.receive(session, Route(prefix, (1,)))
                assert got is not None and got.local_pref == 100, (name, session.peer, prefix)
                assert sp.export(session, got) is not None, (name, session.peer, prefix)
            for prefix in announced[name]:
                assert sp.export(session, Route(prefix)) is not None, (name, prefix)
    text = texts[name]
    broken = text.replace("      neighbor SPINES activate\n", "").replace("      neighbor LEAVES activate\n", "")
    assert any("not activated" in p for p in bgp_filters(broken))
    m = re.search(r"^   neighbor (\S+) send-community$", text, re.M)
    assert m is not None
    g = m.group(1)
    broken = text.replace(f"   neighbor {g} send-community\n",
                          f"   neighbor {g} send-community\n   neighbor {g} distribute-list NONE out\n")
    assert bgp_filters(broken) == [f"neighbor {g} distribute-list NONE out"]


def propagate(speakers: dict[str, Speaker], fabric: Fabric, src: str, prefix: ipaddress.IPv4Network
              ) -> dict[tuple[str, str], Route]:
    """``prefix`` originated by leaf ``src``, sent to each spine and on to every other leaf, each hop
    through the rendered sessions and route-maps: (receiving leaf, spine) → the path it receives."""
    owner: dict[str, str] = {}
    mine: dict[tuple[str, str], str] = {}  # (device, neighbor IP) → the device's own address on that link
    for name, sw in fabric.switches.items():
        for p in sw.ports:
            peer = fabric.port(p.peer_device, p.peer_port)
            if p.address and peer is not None and peer.address:
                owner[p.address.split("/")[0]] = name
                mine[(name, peer.address.split("/")[0])] = p.address.split("/")[0]

    def reverse(device: str, session: Session) -> tuple[str, Session]:
        other = owner[session.peer]
        return other, speakers[other].sessions[mine[(device, session.peer)]]

    received: dict[tuple[str, str], Route] = {}
    leaf = speakers[src]
    for to_spine in leaf.sessions.values():
        spine_name, from_leaf = reverse(src, to_spine)
        spine = speakers[spine_name]
        sent = leaf.export(to_spine, Route(prefix))
        assert sent is not None, (src, prefix)
        at_spine = spine.receive(from_leaf, sent)
        assert at_spine is not None, (src, spine_name, prefix)
        for to_leaf in spine.sessions.values():
            dst, from_spine = reverse(spine_name, to_leaf)
            out = spine.export(to_leaf, at_spine)
            got = None if out is None else speakers[dst].receive(from_spine, out)
            if got is not None:
                received[(dst, spine_name)] = got
    return received


def _leaves_spines(fabric: Fabric) -> tuple[list[str], list[str]]:
    by_role = {r: sorted(n for n, sw in fabric.switches.items() if sw.role.value == r) for r in ("leaf", "spine")}
    assert len(by_role["leaf"]) > 1 and len(by_role["spine"]) > 1
    return by_role["leaf"], by_role["spine"]


def test_leaf_routes_reach_every_other_leaf_through_each_spine() -> None:
    """Each leaf's loopback and host /31s, walked leaf → spine → leaf through the rendered route-maps:
    every other leaf receives each of them from every spine, at the default local preference and with
    the leaf role's community."""
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    texts = _texts(fabric)
    speakers = {n: Speaker.parse(t) for n, t in texts.items()}
    leaves, spines = _leaves_spines(fabric)
    community = f"{fabric.settings.routing.community_asn}:1"
    for src in leaves:
        sw = fabric.switches[src]
        own = {ipaddress.IPv4Network(f"{sw.loopback}/32")}
        own |= {ipaddress.IPv4Network(fabric.links[p.link].subnet) for p in sw.ports
                if p.kind is PortKind.HOST and p.address and fabric.links[p.link].subnet}
        assert len(own) > 1
        assert own == set(speakers[src].networks)
        for prefix in own:
            got = propagate(speakers, fabric, src, prefix)
            assert set(got) == {(dst, s) for dst in leaves if dst != src for s in spines}, (src, prefix)
            for route in got.values():
                assert route.local_pref == 100 and community in route.communities
                assert "65535:0" not in route.communities
                assert route.as_path[-1] == sw.asn


@pytest.mark.parametrize("prefix", ["0.0.0.0/0", "192.0.2.0/24", "10.0.0.0/8", "10.0.0.0/25"])
def test_a_prefix_outside_the_fabric_pools_is_dropped_at_both_ends(prefix: str) -> None:
    """A leaf does not send it, and a spine refuses it when a leaf does."""
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    texts = _texts(fabric)
    leaves, spines = _leaves_spines(fabric)
    net = ipaddress.IPv4Network(prefix)
    leaf = Speaker.parse(texts[leaves[0]])
    for session in leaf.sessions.values():
        assert leaf.export(session, Route(net)) is None
    for name in spines:
        spine = Speaker.parse(texts[name])
        for session in spine.sessions.values():
            assert spine.receive(session, Route(net, (fabric.switches[leaves[0]].asn,))) is None
            loopback = ipaddress.IPv4Network(f"{fabric.switches[leaves[0]].loopback}/32")
            assert spine.receive(session, Route(loopback, (fabric.switches[leaves[0]].asn,))) is not None


def test_a_drained_spine_loses_every_best_path_and_keeps_its_sessions() -> None:
    """``fabric: {drain: [spine1]}``: every leaf receives spine1's paths with local-preference 0
    (65535:0 added on export) and spine2's at the default 100; spine1's sessions are all still there."""
    fabric = fabric_with("lab", drain=["spine1"])
    assert fabric.switches["spine1"].drained and not fabric.switches["spine2"].drained
    texts = _texts(fabric)
    normal = _texts(fabric_as(INVENTORIES / "lab", "eos"))
    assert Speaker.parse(texts["spine1"]).sessions == Speaker.parse(normal["spine1"]).sessions
    leaves, spines = _leaves_spines(fabric)
    speakers = {n: Speaker.parse(t) for n, t in texts.items()}
    for src in leaves:
        prefix = ipaddress.IPv4Network(f"{fabric.switches[src].loopback}/32")
        got = propagate(speakers, fabric, src, prefix)
        assert {s for _, s in got} == set(spines)
        for (dst, spine), route in got.items():
            if spine == "spine1":
                assert route.local_pref == 0 and "65535:0" in route.communities, (dst, spine)
            else:
                assert route.local_pref == 100 and "65535:0" not in route.communities, (dst, spine)
    spine1 = fabric.switches["spine1"]
    own = Speaker.parse(texts["spine1"])
    for session in own.sessions.values():
        out = own.export(session, Route(ipaddress.IPv4Network(f"{spine1.loopback}/32")))
        assert out is not None and out.communities == {"64512:2", "65535:0"}


@pytest.mark.parametrize("drain", [[], ["spine1"], ["leaf1"]])
@pytest.mark.parametrize("bfd", [True, False])
def test_policy_variants_match_avd(drain: list[str], bfd: bool) -> None:
    """A drained switch and BFD turned off render what AVD renders from the same facts."""
    _have_pyavd()
    fabric = fabric_with("lab", drain=drain, bfd=BfdSettings(enabled=bfd, interval_ms=250, multiplier=4))
    assert_matches_avd(fabric, compute(fabric), bfd=bfd)
    for name in fabric.switches:
        text = render_data(build_device(fabric, name, compute(fabric))).main
        assert ("router bfd" in blocks(text)) == bfd
        assert bool(re.search(r"^   neighbor \S+ bfd$", text, re.M)) == bfd
        if bfd:
            assert blocks(text)["router bfd"] == ("   interval 250 min-rx 250 multiplier 4 default",)
