"""Properties of the lossless QoS arithmetic: PFC headroom, ToS bytes, RoCE path MTU."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.inventory.catalog import shipped
from fabricgen.qos.compute import headroom_table
from fabricgen.qos.headroom import PAUSE_QUANTA, BufferFacts, ceil_kib, headroom
from fabricgen.qos.maps import dscp_of_tos, pfc_bitmap, roce_path_mtu, tos_byte

SN5600 = shipped().switches["sn5600"].buffer
FACTS = BufferFacts(SN5600.pipeline_latency_bytes, SN5600.mac_phy_delay_bytes, SN5600.cell_occupancy)
SPEEDS = sorted(PAUSE_QUANTA)
TABLE = headroom_table("sn5600", shipped().switches["sn5600"])
TABLE_SPEEDS = [*SPEEDS, 1600]  # 1.6T: no row of its own, the 800G row is its floor


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


def table_xoff(speed: int, length: float) -> int:
    return headroom(speed, length, 9216, 9216, FACTS, lanes=4, table=TABLE).xoff


def vendor_floor(speed: int, length: float) -> float:
    """Independent reading of the published SN5600 table for a port of ``speed``: each row at or below
    the speed, linear between its points, held at its first point below the shortest published length (the
    smallest published row is a floor), continued above the longest at the formula's per-metre growth
    (2 × speed / signal speed / 8 bytes on the cable, × 3 cell occupancy)."""
    best = 0.0
    for row_speed, row in SN5600_TABLE.items():
        if row_speed > speed:
            continue
        per_m = 2 * row_speed * 1e9 / 1.98e8 / 8 * 3.0
        (m0, x0), (m1, x1), (m2, x2) = sorted(row.items())
        if length <= m0:
            v = x0
        elif length <= m1:
            v = x0 + (x1 - x0) * (length - m0) / (m1 - m0)
        elif length <= m2:
            v = x1 + (x2 - x1) * (length - m1) / (m2 - m1)
        else:
            v = x2 + per_m * (length - m2)
        best = max(best, v)
    return best


def test_catalog_table_is_the_published_one() -> None:
    assert TABLE is not None
    assert {speed: dict(points) for speed, points in TABLE.rows} == SN5600_TABLE


@given(speed=st.sampled_from(TABLE_SPEEDS), length=st.floats(min_value=0.5, max_value=2000, allow_nan=False))
def test_headroom_never_below_the_vendor_table_nor_the_formula(speed: int, length: float) -> None:
    got = table_xoff(speed, length)
    assert got >= vendor_floor(speed, length) - 1e-6
    assert got >= xoff(speed, length)
    assert got % 1024 == 0
    assert got - max(vendor_floor(speed, length), xoff(speed, length)) < 1024  # only the KiB rounding on top


@pytest.mark.parametrize("length", [0.5, 1.0, 3.0, 4.99])
def test_a_cable_shorter_than_the_first_row_gets_at_least_the_first_row(length: float) -> None:
    # NVIDIA publishes nothing below 5 m: its 5 m value (400G: 231,424 B) is the least a shorter cable gets
    assert table_xoff(400, length) >= SN5600_TABLE[400][5]
    assert table_xoff(800, length) >= SN5600_TABLE[800][5]


@given(
    i=st.integers(min_value=0, max_value=len(TABLE_SPEEDS) - 1),
    j=st.integers(min_value=0, max_value=len(TABLE_SPEEDS) - 1),
    a=st.floats(min_value=0.5, max_value=2000, allow_nan=False),
    b=st.floats(min_value=0.5, max_value=2000, allow_nan=False),
)
def test_table_headroom_monotone_in_length_and_speed(i: int, j: int, a: float, b: float) -> None:
    slow, fast = TABLE_SPEEDS[min(i, j)], TABLE_SPEEDS[max(i, j)]
    short, long_ = sorted((a, b))
    assert table_xoff(slow, short) <= table_xoff(slow, long_)
    assert table_xoff(slow, short) <= table_xoff(fast, short)
    h_short = headroom(slow, short, 9216, 9216, FACTS, 8, TABLE)
    h_long = headroom(fast, long_, 9216, 9216, FACTS, 8, TABLE)
    assert h_short.size <= h_long.size


@pytest.mark.parametrize(
    ("speed", "length", "vendor"),
    [(s, m, x) for s, row in SN5600_TABLE.items() for m, x in row.items() if s in (400, 800)],
)
def test_headroom_is_the_published_value_at_every_published_point(speed: int, length: int, vendor: int) -> None:
    # at 400G and 800G the formula is below NVIDIA's table at every published point: the table's value is used
    assert xoff(speed, length) < vendor
    h = headroom(speed, length, 9216, 9216, FACTS, 8, TABLE)
    assert h.xoff == vendor
    assert h.xoff_source == f"table:sn5600 (NVIDIA SN5600 static headroom, {speed}G, at {length} m)"
    assert h.size == vendor + 19_456 + 9216


@pytest.mark.parametrize(("length", "formula"), [(5, 117_760), (40, 131_072), (300, 229_376)])
def test_headroom_keeps_the_formula_where_it_is_above_the_table(length: int, formula: int) -> None:
    # 100G: the formula gives 1–4 KiB more than the table at each published point, and is kept
    assert SN5600_TABLE[100][length] < formula
    h = headroom(100, length, 9216, 9216, FACTS, 4, TABLE)
    assert (h.xoff, h.xoff_source) == (formula, "computed")


def test_table_sources_name_the_segment_and_row() -> None:
    # 400G, 20 m: 231424 + (283648 − 231424) × 15/35 = 253805.7 → 248 KiB
    h = headroom(400, 20, 9216, 9216, FACTS, 4, TABLE)
    assert (h.xoff, h.xoff_source) == (
        253_952,
        "table:sn5600 (NVIDIA SN5600 static headroom, 400G, interpolated 5–40 m)",
    )
    # 800G, 500 m: 1150976 + 200 × 3030.30 = 1757036.4 → 1716 KiB (the formula: 1688 KiB)
    h = headroom(800, 500, 9216, 9216, FACTS, 4, TABLE)
    assert (h.xoff, h.xoff_source) == (
        1_757_184,
        "table:sn5600 (NVIDIA SN5600 static headroom, 800G, extrapolated above 300 m)",
    )
    # 1.6T has no row: the 800G row is its floor (the formula, 238 KiB at 5 m, is below it)
    h = headroom(1600, 5, 9216, 9216, FACTS, 8, TABLE)
    assert xoff(1600, 5) == 243_712
    assert (h.xoff, h.xoff_source) == (
        257_024,
        "table:sn5600 (NVIDIA SN5600 static headroom, 800G row for a 1600G port, at 5 m)",
    )
    # 200G has no row: the 100G row is a floor, but the formula is above it
    h = headroom(200, 40, 9216, 9216, FACTS, 4, TABLE)
    assert (h.xoff, h.xoff_source) == (xoff(200, 40), "computed")
    assert xoff(200, 40) > SN5600_TABLE[100][40]


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
