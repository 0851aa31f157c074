"""NX-OS: every rendered configuration passes the structural checker (documented commands per mode, every
class-map/policy-map/peer template defined, pause on exactly the lossless CoS, kbytes units, nothing filters
eBGP re-advertisement); RoCE, CNP and storage packets walked through the rendered policies get exactly
fabricgen's QoS policy; the PFC watchdog carries the policy's detection and restoration times."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.render import render_data
from fabricgen.render.data import build_device, nxos_watchdog
from tests.conftest import INVENTORIES
from tests.nxos_check import check, tree, walk
from tests.test_render_common import fabric_as, qos_of

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
    assert any("BGP filters routes" in e for e in check(
        text.replace("    inherit peer SPINES\n", "    inherit peer SPINES\n    route-map DENY out\n", 1), {3}))
    assert any("is on no configured interface" in e for e in check(
        text.replace("  neighbor 10.128.6.0\n", "  neighbor 10.99.6.0\n"), {3}))
    assert any("peer 'GONE'" in e for e in check(text.replace("inherit peer SPINES", "inherit peer GONE", 1), {3}))


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
