"""Properties of the lossless QoS arithmetic: PFC headroom, ToS bytes, RoCE path MTU."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.inventory.catalog import shipped
from fabricgen.qos.headroom import PAUSE_QUANTA, BufferFacts, ceil_kib, headroom
from fabricgen.qos.maps import dscp_of_tos, pfc_bitmap, roce_path_mtu, tos_byte

SN5600 = shipped().switches["sn5600"].buffer
FACTS = BufferFacts(SN5600.pipeline_latency_bytes, SN5600.mac_phy_delay_bytes, SN5600.cell_occupancy)
SPEEDS = sorted(PAUSE_QUANTA)


def xoff(speed: int, length: float) -> int:
    return headroom(speed, length, 9216, 9216, FACTS, lanes=4).xoff


@given(
    speed=st.sampled_from(SPEEDS),
    a=st.floats(min_value=0.5, max_value=2000, allow_nan=False),
    b=st.floats(min_value=0.5, max_value=2000, allow_nan=False),
)
def test_headroom_monotone_in_cable_length(speed: int, a: float, b: float) -> None:
    short, long_ = sorted((a, b))
    assert xoff(speed, short) <= xoff(speed, long_)
    h_short = headroom(speed, short, 9216, 9216, FACTS, 8)
    h_long = headroom(speed, long_, 9216, 9216, FACTS, 8)
    assert h_short.size <= h_long.size


@given(
    i=st.integers(min_value=0, max_value=len(SPEEDS) - 1),
    j=st.integers(min_value=0, max_value=len(SPEEDS) - 1),
    length=st.floats(min_value=0.5, max_value=2000, allow_nan=False),
)
def test_headroom_monotone_in_speed(i: int, j: int, length: float) -> None:
    slow, fast = SPEEDS[min(i, j)], SPEEDS[max(i, j)]
    assert xoff(slow, length) <= xoff(fast, length)


@given(speed=st.sampled_from(SPEEDS), length=st.floats(min_value=0.5, max_value=2000, allow_nan=False))
def test_headroom_is_whole_kib_and_size_covers_xoff_and_xon(speed: int, length: float) -> None:
    h = headroom(speed, length, 9216, 9216, FACTS, 8)
    assert h.xoff % 1024 == 0 and h.xon % 1024 == 0 and h.size % 1024 == 0
    assert h.size >= h.xoff + h.xon + 9216  # 8-lane port: one more MTU
    assert headroom(speed, length, 9216, 9216, FACTS, 4).size == ceil_kib(h.xoff + h.xon)


# NVIDIA SN5600 static xoff table (roce.md §4), bytes at 5 m / 40 m / 300 m.
SN5600_TABLE = {
    100: {5: 113_664, 40: 126_976, 300: 225_280},
    400: {5: 231_424, 40: 283_648, 300: 677_888},
    800: {5: 257_024, 40: 362_496, 300: 1_150_976},
}


@pytest.mark.parametrize(
    ("speed", "length", "vendor"), [(s, m, x) for s, row in SN5600_TABLE.items() for m, x in row.items()]
)
def test_headroom_within_30_percent_of_nvidia_sn5600_table(speed: int, length: int, vendor: int) -> None:
    ours = xoff(speed, length)
    assert 0.7 * vendor <= ours <= 1.3 * vendor, (speed, length, ours, vendor)


def test_headroom_grows_per_metre_like_the_vendor_table() -> None:
    # roce.md: ≈380 B/m at 100G, ≈1.5 KB/m at 400G, ≈3 KB/m at 800G
    for speed, per_m in ((100, 380), (400, 1500), (800, 3000)):
        slope = (xoff(speed, 300) - xoff(speed, 5)) / 295
        assert 0.7 * per_m <= slope <= 1.3 * per_m, (speed, slope)


def test_headroom_known_value_400g_5m() -> None:
    # 9216 + 2525.25 (cable) + 819 + 905 × 64 = 70480.25; × 3 + 9216 = 220656.75 → 216 KiB
    h = headroom(400, 5, 9216, 9216, FACTS, 4)
    assert (h.xoff, h.xon, h.size) == (221_184, 19_456, 240_640)


@given(dscp=st.integers(min_value=0, max_value=63), ecn=st.booleans())
def test_nccl_ib_tc_round_trips_to_the_dscp(dscp: int, ecn: bool) -> None:
    tc = tos_byte(dscp, ecn)
    assert 0 <= tc <= 255
    assert dscp_of_tos(tc) == dscp
    assert tc & 0b11 == (0b10 if ecn else 0)


def test_tos_examples_from_the_domain() -> None:
    assert tos_byte(26, ecn=True) == 106
    assert tos_byte(26, ecn=False) == 104
    assert tos_byte(48, ecn=False) == 192


@given(mtu=st.integers(min_value=352, max_value=9216))
def test_roce_path_mtu_is_largest_fitting(mtu: int) -> None:
    path = roce_path_mtu(mtu)
    assert path in (256, 512, 1024, 2048, 4096)
    assert path <= mtu - 96
    assert path == 4096 or path * 2 > mtu - 96


def test_roce_path_mtu_examples() -> None:
    assert roce_path_mtu(9000) == 4096
    assert roce_path_mtu(4192) == 4096
    assert roce_path_mtu(4191) == 2048
    assert roce_path_mtu(1500) == 1024


def test_pfc_bitmap() -> None:
    assert pfc_bitmap({3}) == "0,0,0,1,0,0,0,0"
    assert pfc_bitmap({3, 4}) == "0,0,0,1,1,0,0,0"
    assert pfc_bitmap(set()) == "0,0,0,0,0,0,0,0"
