"""EOS: fabricgen's configuration against Arista's own generator (pyavd), on every EOS switch of every
bundled inventory, plus what the oracle cannot say (the catalog's queue keyword, the watchdog armed per port).

pyavd is the ``oracles`` extra (``pip install -e '.[oracles]'``, installed by ``.ci/run``).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from fabricgen.qos.model import FabricQos
from fabricgen.render import render_data
from fabricgen.render.data import build_device
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, require
from tests.eos_avd import FABRICGEN_ONLY, avd_config, bgp_filters, blocks, walk
from tests.test_render_common import fabric_as, qos_of

BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")
SECTIONS = ("qos map dscp ", "priority-flow-control pause watchdog ", "qos profile ", "interface ", "router bgp ")


def _have_pyavd() -> None:
    require(importlib.util.find_spec("pyavd") is not None, "pyavd (the `oracles` extra) is not installed")


def assert_matches_avd(fabric: Fabric, qos: FabricQos) -> None:
    """Every EOS switch of ``fabric``: fabricgen's configuration, section by section, is what AVD renders."""
    assert fabric.switches
    for name in sorted(fabric.switches):
        data = build_device(fabric, name, qos)
        ours = blocks(render_data(data).main)
        theirs = blocks(avd_config(data))
        for section in SECTIONS:  # the comparison is not vacuous: AVD rendered every section we care about
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


@pytest.mark.parametrize("inventory", BUNDLED)
def test_nothing_filters_ebgp_readvertisement(inventory: str) -> None:
    fabric = fabric_as(INVENTORIES / inventory, "eos")
    qos = qos_of(INVENTORIES / inventory, "eos")
    for name in sorted(fabric.switches):
        text = render_data(build_device(fabric, name, qos)).main
        assert bgp_filters(text) == [], name
    broken = text.replace("      neighbor SPINES activate\n", "").replace("      neighbor LEAVES activate\n", "")
    assert any("not activated" in p for p in bgp_filters(broken))
    m = re.search(r"^   neighbor (\S+) send-community$", text, re.M)
    assert m is not None
    g = m.group(1)
    broken = text.replace(f"   neighbor {g} send-community\n",
                          f"   neighbor {g} send-community\n   neighbor {g} route-map NONE out\n")
    assert bgp_filters(broken) == [f"neighbor {g} route-map NONE out"]


def _sessions(text: str) -> tuple[int, dict[str, int], set[str]]:
    """(own ASN, neighbor IP → remote AS for activated neighbors, originated networks) of an EOS text."""
    b = blocks(text)
    (header,) = [h for h in b if h.startswith("router bgp ")]
    body = [ln.strip() for ln in b[header]]
    active = {ln.split()[1] for ln in body if ln.endswith(" activate")}
    group = {ln.split()[1]: ln.split()[-1] for ln in body if re.fullmatch(r"neighbor \S+ peer group \S+", ln)}
    remote = {ln.split()[1]: int(ln.split()[-1]) for ln in body if " remote-as " in ln}
    nets = {ln.split()[-1] for ln in body if ln.startswith("network ")}
    return int(header.split()[-1]), {ip: asn for ip, asn in remote.items() if group.get(ip) in active}, nets


def test_leaf_routes_reach_every_other_leaf_through_each_spine() -> None:
    """Propagate each leaf's loopback: leaf → spine (activated session, no filter) → every other leaf
    (activated session, no filter, and that leaf's AS not already in the AS path)."""
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    qos = qos_of(INVENTORIES / "lab", "eos")
    texts = {n: render_data(build_device(fabric, n, qos)).main for n in fabric.switches}
    state = {n: _sessions(t) for n, t in texts.items()}
    ip_owner = {p.address.split("/")[0]: n for n, sw in fabric.switches.items() for p in sw.ports if p.address}
    leaves = sorted(n for n, sw in fabric.switches.items() if sw.role.value == "leaf")
    for src in leaves:
        asn, peers, nets = state[src]
        route = f"{fabric.switches[src].loopback}/32"
        assert route in nets and bgp_filters(texts[src]) == []
        reached: set[str] = set()
        for peer_ip in peers:
            spine = ip_owner[peer_ip]
            s_asn, s_peers, _ = state[spine]
            assert asn in s_peers.values() and bgp_filters(texts[spine]) == []  # the spine accepts it
            path = [s_asn, asn]
            for leaf_ip in s_peers:
                dst = ip_owner[leaf_ip]
                d_asn, d_peers, _ = state[dst]
                if dst != src and s_asn in d_peers.values() and d_asn not in path:
                    reached.add(dst)
        assert reached == set(leaves) - {src}, src
