"""Property tests for the small parsers: speeds, breakout modes, and port names on every platform."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fabricgen.inventory.catalog import PLATFORMS
from fabricgen.inventory.units import format_speed, parse_breakout, parse_speed
from fabricgen.topology.portnames import PortPosition, parse_port, port_name

speeds = st.integers(min_value=1, max_value=100_000)


@given(speeds)
@example(16_100)  # 16.1 × 1000 is 16100.000000000002 in binary floating point
@example(1_600)
def test_format_then_parse_speed_round_trips(gbps: int) -> None:
    assert parse_speed(format_speed(gbps)) == gbps


@given(speeds, st.sampled_from(["G", "g", "Gb", "Gbps", "Gb/s", "GbE"]), st.sampled_from(["", " "]))
def test_speed_spellings_in_gigabits(gbps: int, unit: str, space: str) -> None:
    assert parse_speed(f"{gbps}{space}{unit}") == gbps
    assert parse_speed(gbps) == gbps
    assert parse_speed(float(gbps)) == gbps


@given(st.integers(min_value=1, max_value=100))
def test_terabits_and_megabits(tenths: int) -> None:
    assert parse_speed(f"{tenths / 10}T") == tenths * 100
    assert parse_speed(f"{tenths * 1000}M") == tenths


def test_format_speed_examples() -> None:
    assert [format_speed(g) for g in (400, 800, 1000, 1600, 3200, 450, 1050)] == [
        "400G",
        "800G",
        "1T",
        "1.6T",
        "3.2T",
        "450G",
        "1050G",
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "a speed like 400G is required, not a boolean"),
        ("fast", "'fast' is not a speed; write e.g. 400G, 800G or 1.6T"),
        ("1.5G", "'1.5G' is not a whole number of Gb/s"),
        ("100M", "'100M' is not a whole number of Gb/s"),
        (0, "speed 0G is out of range"),
        ("200T", "speed 200000G is out of range"),
        (400.5, "400.5 is not a speed; write e.g. 400G"),
        ("1" * 50 + "G", f"'{'1' * 50}G' is not a speed; write e.g. 400G, 800G or 1.6T"),
    ],
)
def test_bad_speeds(value: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_speed(value)
    assert str(info.value) == message


@given(st.integers(min_value=1, max_value=16), speeds)
def test_breakout_round_trip(count: int, gbps: int) -> None:
    assert parse_breakout(f"{count}x{format_speed(gbps)}") == (count, gbps)
    assert parse_breakout(f"{count}X{gbps}G") == (count, gbps)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("400G", "'400G' is not a breakout mode; write e.g. 2x400G"),
        ("0x400G", "breakout '0x400G': 1 to 16 lanes groups per cage"),
        ("17x50G", "breakout '17x50G': 1 to 16 lanes groups per cage"),
    ],
)
def test_bad_breakouts(value: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_breakout(value)
    assert str(info.value) == message


# ----------------------------------------------------------------------------- port names


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, int, int, int, int]:
    platform = draw(st.sampled_from(PLATFORMS))
    lanes = draw(st.sampled_from([1, 2, 4, 8, 16]))
    breakout = draw(st.sampled_from([b for b in (1, 2, 4, 8, 16) if lanes % b == 0]))
    cage = draw(st.integers(min_value=1, max_value=128))
    sub = draw(st.integers(min_value=0, max_value=breakout - 1))
    return platform, cage, sub, breakout, lanes


@settings(max_examples=300)
@given(positions())
def test_port_name_round_trips_on_every_platform(pos: tuple[str, int, int, int, int]) -> None:
    platform, cage, sub, breakout, lanes = pos
    name = port_name(platform, cage, sub, breakout, lanes)
    assert parse_port(platform, name, breakout, lanes) == PortPosition(cage, sub, breakout)


@settings(max_examples=100)
@given(st.sampled_from(PLATFORMS), st.sampled_from([(8, 1), (8, 2), (8, 4), (8, 8), (4, 2)]))
def test_port_names_are_unique_per_cage_layout(platform: str, layout: tuple[int, int]) -> None:
    lanes, breakout = layout
    names = {port_name(platform, cage, sub, breakout, lanes) for cage in range(1, 65) for sub in range(breakout)}
    assert len(names) == 64 * breakout


@pytest.mark.parametrize(
    ("platform", "cage", "sub", "breakout", "name"),
    [
        ("sonic", 3, 1, 2, "Ethernet20"),
        ("sonic", 1, 0, 1, "Ethernet0"),
        ("nvue", 3, 1, 2, "swp3s1"),
        ("frr", 3, 0, 1, "swp3"),
        ("eos", 3, 1, 2, "Ethernet3/5"),
        ("eos", 3, 0, 1, "Ethernet3/1"),
        ("nxos", 3, 0, 1, "Ethernet1/3"),
        ("nxos", 3, 1, 2, "Ethernet1/3/2"),
        ("junos", 3, 0, 1, "et-0/0/2"),
        ("junos", 3, 1, 4, "et-0/0/2:1"),
    ],
)
def test_vendor_conventions(platform: str, cage: int, sub: int, breakout: int, name: str) -> None:
    assert port_name(platform, cage, sub, breakout, 8) == name


@pytest.mark.parametrize(
    ("platform", "name", "breakout", "message"),
    [
        ("sonic", "Ethernet3", 2, "Ethernet3 does not start a 2-way breakout of its 8-lane cage"),
        ("sonic", "swp1", 1, "'swp1' is not a valid sonic port name (e.g. Ethernet0)"),
        ("nvue", "swp3", 2, "swp3 names a whole cage, but the link needs a 2-way breakout"),
        ("nvue", "swp3s0", 1, "swp3s0 names a breakout sub-port, but the link runs at the cage's native speed"),
        ("nvue", "swp3s2", 2, "swp3s2: sub-port 2 does not exist in a 2-way breakout"),
        ("nxos", "Ethernet1/3/3", 2, "Ethernet1/3/3: sub-port 3 does not exist in a 2-way breakout"),
        ("eos", "Ethernet3/9", 1, "Ethernet3/9 does not start a 1-way breakout of its 8-lane cage"),
        ("sonic", "Ethernet0", 16, "a 8-lane cage cannot be split 16 ways"),
        ("bogus", "x", 1, "unknown platform 'bogus'"),
    ],
)
def test_bad_port_names(platform: str, name: str, breakout: int, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_port(platform, name, breakout, 8)
    assert str(info.value) == message
