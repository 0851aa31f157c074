"""DSCP/ToS/priority arithmetic and RoCE path MTU: small pure functions.

>>> tos_byte(26, ecn=True), tos_byte(26, ecn=False), tos_byte(48, ecn=False)
(106, 104, 192)
>>> dscp_of_tos(106)
26
>>> roce_path_mtu(9000), roce_path_mtu(1500), roce_path_mtu(4192), roce_path_mtu(4191)
(4096, 1024, 4096, 2048)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

ECT0 = 0b10
"""ECN field value ECT(0): ECN-capable transport, set in the low two bits of the ToS byte."""

ROCE_HEADERS = 96
"""Bytes of an Ethernet MTU that a RoCEv2 packet spends outside its payload MTU (IP, UDP, BTH, ICRC…)."""

L2_OVERHEAD = 22
"""Ethernet header (14) + one 802.1Q tag (4) + FCS (4): a switch port must carry host MTU + this."""

ROCE_MTUS = (4096, 2048, 1024, 512, 256)


def tos_byte(dscp: int, ecn: bool) -> int:
    """The IP ToS byte (``NCCL_IB_TC``, RDMA-CM ToS): ``DSCP << 2 | ECN bits`` (ECT(0) when ``ecn``)."""
    if not 0 <= dscp <= 63:
        raise ValueError(f"DSCP {dscp} is outside 0–63")
    return dscp << 2 | (ECT0 if ecn else 0)


def dscp_of_tos(tos: int) -> int:
    """The DSCP carried by a ToS byte (its upper six bits)."""
    if not 0 <= tos <= 255:
        raise ValueError(f"ToS {tos} is outside 0–255")
    return tos >> 2


def roce_path_mtu(ethernet_mtu: int) -> int:
    """The largest RoCE MTU (256…4096) that fits in ``ethernet_mtu − 96``; 0 when none fits."""
    room = ethernet_mtu - ROCE_HEADERS
    for mtu in ROCE_MTUS:
        if mtu <= room:
            return mtu
    return 0


def dscp_map(lanes: Iterable[tuple[Iterable[int], int]], default_tc: int) -> dict[int, int]:
    """All 64 DSCPs → tc: each lane's DSCPs to its tc, every other DSCP to ``default_tc``.

    >>> m = dscp_map([((26,), 3), ((48,), 6)], 0)
    >>> len(m), m[26], m[48], m[0], m[63]
    (64, 3, 6, 0, 0)
    """
    out = dict.fromkeys(range(64), default_tc)
    for dscps, tc in lanes:
        for d in dscps:
            out[d] = tc
    return out


def firmware_dscp_map() -> dict[int, int]:
    """The NIC/switch classification NVIDIA applies by default: priority = DSCP >> 3."""
    return {d: d >> 3 for d in range(64)}


def map_differences(a: Mapping[int, int], b: Mapping[int, int]) -> list[tuple[int, int | None, int | None]]:
    """DSCPs on which two maps disagree, as ``(dscp, tc in a, tc in b)``, sorted."""
    return [(d, a.get(d), b.get(d)) for d in range(64) if a.get(d) != b.get(d)]


def pfc_bitmap(priorities: Iterable[int]) -> str:
    """``mlnx_qos --pfc`` argument: eight comma-separated 0/1 flags, priority 0 first.

    >>> pfc_bitmap({3})
    '0,0,0,1,0,0,0,0'
    """
    on = set(priorities)
    return ",".join("1" if p in on else "0" for p in range(8))
