"""NX-OS: every rendered configuration passes the structural checker (documented commands per mode, every
class-map/policy-map/peer template defined, pause on exactly the lossless CoS, kbytes units, the routing
policy's references and BFD's prerequisites and ranges), and names each routing defect planted in a rendered
configuration; RoCE, CNP and storage packets walked through the rendered policies get exactly
fabricgen's QoS policy; the PFC watchdog carries the policy's detection and restoration times."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.inventory.schema import BfdSettings
from fabricgen.qos import compute
from fabricgen.render import render_data
from fabricgen.render.data import build_device, nxos_watchdog
from tests.conftest import INVENTORIES
from tests.nxos_check import check, tree, walk
from tests.test_render_common import fabric_as, qos_of
from tests.test_vendor_eos import fabric_with

BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")


def _configs(inventory: str) -> dict[str, str]:
    fabric = fabric_as(INVENTORIES / inventory, "nxos")
    qos = qos_of(INVENTORIES / inventory, "nxos")
    return {n: render_data(build_device(fabric, n, qos)).main for n in sorted(fabric.switches)}


@pytest.mark.parametrize("inventory", BUNDLED)
def test_every_nxos_switch_passes_the_checker(inventory: str) -> None:
    qos = qos_of(INVENTORIES / inventory, "nxos")
    for name, text in _configs(inventory).items():
        lossless = {p for pq in qos.switches[name].ports.values() for p in pq.pfc_priorities}
        assert lossless
        assert check(text, lossless) == [], name


def test_checker_rejects_the_defects_it_exists_for() -> None:
    text = _configs("lab")["leaf1"]
    assert check(text, {3}) == []
    assert any("no documented command" in e and " bytes " in e for e in check(
        re.sub(r"(\d+) kbytes", r"\g<1>000 bytes", text), {3}))
    assert any("pmap_qos 'NOPE'" in e for e in check(
        text.replace("service-policy type qos input AI_RDMA_CLASSIFY", "service-policy type qos input NOPE", 1), {3}))
    assert any("c-out-8q-q9" in e for e in check(text.replace("c-out-8q-q3", "c-out-8q-q9"), {3}))
    assert "pause pfc-cos [] != the lossless priorities [3]" in check(text.replace("    pause pfc-cos 3\n", ""), {3})
    assert any("rmap 'DENY' is used but never defined" in e for e in check(
        text.replace("      route-map FABRIC-OUT-V4 out\n", "      route-map DENY out\n", 1), {3}))
    assert any("BGP filters routes" in e for e in check(
        text.replace("      send-community\n", "      send-community\n      distribute-list DENY out\n", 1), {3}))
    assert any("is on no configured interface" in e for e in check(
        text.replace("  neighbor 10.128.6.0\n", "  neighbor 10.99.6.0\n"), {3}))
    assert any("peer 'GONE'" in e for e in check(text.replace("inherit peer SPINES", "inherit peer GONE", 1), {3}))


def _drop_prefix_list(text: str, name: str) -> str:
    return "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith(f"ip prefix-list {name} "))


ROUTING_DEFECTS: dict[str, tuple[str, str, str]] = {
    # defect → (text to find, its replacement, what the checker must say)
    "no ip redirects dropped": ("  no ip redirects\n", "", "runs BFD without `no ip redirects`"),
    "BFD interval 2000 ms": ("  bfd interval 300 min_rx 300 ", "  bfd interval 2000 min_rx 300 ",
                             "BFD interval 2000/300 ms outside 50-999 ms"),
    "BFD min_rx 20 ms": ("  bfd interval 300 min_rx 300 ", "  bfd interval 300 min_rx 20 ",
                         "BFD interval 300/20 ms outside 50-999 ms"),
    "BFD multiplier 60": (" multiplier 3\n", " multiplier 60\n", "BFD multiplier 60 outside 1-50"),
    "feature bfd dropped": ("feature bfd\n", "", "'bfd interval 300 min_rx 300 multiplier 3' without `feature bfd`"),
    "community-list dropped": ("ip community-list standard GSHUT seq 5 permit 65535:0\n", "",
                               "clist 'GSHUT' is used but never defined"),
    "unused route-map": ("route-map FABRIC-OUT-V4 deny 30\n",
                         "route-map FABRIC-OUT-V4 deny 30\nroute-map SPARE deny 10\n",
                         "rmap 'SPARE' is defined but never used"),
    "unused prefix-list": ("ip community-list ", "ip prefix-list SPARE seq 5 permit 10.9.0.0/16\nip community-list ",
                           "plist 'SPARE' is defined but never used"),
    "send-community dropped": ("      send-community\n", "",
                               "sets communities on export without send-community"),
    "inbound route-map dropped": ("      route-map FABRIC-IN-V4 in\n", "", "has no route-map in both directions"),
    "maximum-prefix dropped": ("      maximum-prefix 100 80\n", "", "has no maximum-prefix"),
    "warning at 150 %": ("      maximum-prefix 100 80\n", "      maximum-prefix 100 150\n",
                         "maximum-prefix warning at 150 %"),
    "session BFD without timers": ("  no ip redirects\n  bfd interval 300 min_rx 300 multiplier 3\n", "",
                                   "runs BFD on an interface without BFD timers"),
}


@pytest.mark.parametrize("defect", sorted(ROUTING_DEFECTS))
def test_checker_names_each_routing_defect(defect: str) -> None:
    text = _configs("lab")["leaf1"]
    assert check(text, {3}) == []
    old, new, message = ROUTING_DEFECTS[defect]
    assert old in text, defect
    broken = text.replace(old, new, 1)
    assert any(message in e for e in check(broken, {3})), (defect, check(broken, {3}))


def test_checker_names_a_dropped_prefix_list() -> None:
    text = _configs("lab")["leaf1"]
    for name in ("FABRIC-PREFIXES", "LOCAL-PREFIXES"):
        errors = check(_drop_prefix_list(text, name), {3})
        assert errors and all(f"plist {name!r} is used but never defined" in e for e in errors), errors


def test_every_session_carries_the_policy() -> None:
    """What the checker cannot see from one file: the values are the fabric's (BFD timers, the limit, the
    role community) and each neighbor's interface is the one its BFD timers are on."""
    fabric = fabric_as(INVENTORIES / "lab", "nxos")
    for name, text in _configs("lab").items():
        roots = tree(text)
        bfd = fabric.settings.bfd
        timers = f"bfd interval {bfd.interval_ms} min_rx {bfd.interval_ms} multiplier {bfd.multiplier}"
        fabric_ports = {p.name for p in fabric.switches[name].ports if p.kind.value != "host"}
        for r in roots:
            if r.line.startswith("interface Ethernet"):
                port = r.line.split()[-1]
                assert bool(r.child(re.escape(timers))) == (port in fabric_ports), (name, port)
        (bgp,) = [r for r in roots if r.line.startswith("router bgp ")]
        for t in bgp.child(r"template peer \S+"):
            assert t.child("bfd")
            (af,) = t.child("address-family ipv4 unicast")
            assert af.child(r"maximum-prefix \d+ 80") and af.child("send-community")
        role = fabric.switches[name].role.value
        want = {"leaf": "64512:1", "spine": "64512:2"}[role]
        assert f"  set community {want} additive" in text.splitlines()


@pytest.mark.parametrize("drain", [[], ["spine1"]])
@pytest.mark.parametrize("bfd", [True, False])
def test_policy_variants_pass_the_checker(drain: list[str], bfd: bool) -> None:
    fabric = fabric_with("lab", "nxos", drain=drain, bfd=BfdSettings(enabled=bfd))
    qos = compute(fabric)
    for name in fabric.switches:
        text = render_data(build_device(fabric, name, qos)).main
        assert check(text, {3}) == [], name
        assert ("feature bfd" in text.splitlines()) == bfd
        assert bool(re.search(r"^\s*bfd( |$)", text, re.M)) == bfd
        drained = name in drain
        out = text[text.index("route-map FABRIC-OUT-V4 permit 20"):text.index("route-map FABRIC-OUT-V4 deny 30")]
        assert ("set community 65535:0 additive" in out) == drained
        local = text[text.index("route-map FABRIC-OUT-V4 permit 10"):text.index("route-map FABRIC-OUT-V4 permit 20")]
        assert ("65535:0" in local) == drained


@pytest.mark.parametrize("dscp", [26, 48, 18, 0])
def test_packets_get_fabricgens_policy(dscp: int) -> None:
    fabric = fabric_as(INVENTORIES / "lab", "nxos")
    qos = qos_of(INVENTORIES / "lab", "nxos")
    for name, text in _configs("lab").items():
        for port in fabric.switches[name].ports:
            pq = qos.port(name, port.name)
            assert pq is not None
            tc = pq.dscp_to_tc[dscp]
            lane = pq.lane(tc)
            assert lane is not None
            t = walk(text, port.name, dscp)
            assert t.qos_group == tc
            assert t.queue_class == (f"c-out-8q-q{tc}" if tc else "c-out-8q-q-default")
            lossless = tc in pq.pfc_priorities
            assert t.no_drop == lossless and t.ingress_pause == lossless
            assert t.strict == (lane.scheduling == "strict")
            assert t.bandwidth_pct == lane.ets_weight
            e = pq.ecn.get(tc) if lane.ecn else None
            if e is None:
                assert t.ecn_kbytes is None
            else:
                assert t.ecn_kbytes == (-(-e.min_bytes // 1024), -(-e.max_bytes // 1024))
                assert t.mark_probability == e.probability_pct


def test_watchdog_times_are_rendered() -> None:
    qos = qos_of(INVENTORIES / "lab", "nxos")
    for name, text in _configs("lab").items():
        wd = next(iter(qos.switches[name].ports.values())).watchdog
        assert wd is not None
        roots = [n.line for n in tree(text)]
        interval = int(next(x for x in roots if x.startswith("priority-flow-control watch-dog interval ")).split()[-1])
        shut = int(next(x for x in roots if "shutdown-multiplier" in x).split()[-1])
        rest = int(next(x for x in roots if "restore-multiplier" in x).split()[-1])
        assert interval * shut == wd.detection_ms and interval * rest == wd.restoration_ms


@given(st.integers(10, 60_000), st.integers(10, 60_000))
def test_nxos_watchdog_math(detection: int, restoration: int) -> None:
    interval, shut, rest = nxos_watchdog(detection, restoration)
    assert 100 <= interval <= 1000 and 1 <= shut <= 10 and 1 <= rest <= 10
    if detection <= 10_000 and restoration <= 10_000:
        assert interval * shut >= detection and interval * rest >= restoration  # never shorter than asked
    for i in range(100, 1001):  # exact whenever an exact choice exists
        if detection % i == 0 and restoration % i == 0 and detection // i <= 10 and restoration // i <= 10:
            assert (interval * shut, interval * rest) == (detection, restoration)
            break
