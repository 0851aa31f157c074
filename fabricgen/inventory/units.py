"""Parsing of the small units people write in inventories: speeds and breakout modes."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

SPEED_PATTERN = r"^\s*([0-9]{1,9}(?:\.[0-9]{1,9})?)\s*([GgTtMm])(?:b(?:ps|/s)?|bE)?\s*$"
"""A speed as text (``400G``, ``1.6T``, ``800Gbps``); also the inventory JSON Schema's pattern. ASCII digits only:
"４００G" in fullwidth digits is not a speed (Python's ``\\d`` would accept it)."""
_SPEED = re.compile(SPEED_PATTERN, re.ASCII)
_BREAKOUT = re.compile(r"^\s*(\d{1,2})\s*[xX]\s*(.+)$", re.ASCII)


def parse_speed(value: object) -> int:
    """Return a link speed in Gb/s from ``400G``, ``"800Gbps"``, ``1.6T`` or a bare number of Gb/s.

    >>> parse_speed("400G"), parse_speed("1.6T"), parse_speed(100)
    (400, 1600, 100)
    """
    if isinstance(value, bool):
        raise ValueError("a speed like 400G is required, not a boolean")
    if isinstance(value, int):
        gbps = value
    elif isinstance(value, float) and value.is_integer():
        gbps = int(value)
    elif isinstance(value, str):
        gbps = _speed_text(value)
    else:
        raise ValueError(f"{value!r} is not a speed; write e.g. 400G")
    if gbps <= 0 or gbps > 100_000:
        raise ValueError(f"speed {gbps}G is out of range")
    return gbps


@lru_cache(maxsize=256)
def _speed_text(value: str) -> int:
    """The Gb/s of a speed written as text (an explicit inventory writes the same few on every link; a text that is
    not a speed raises each time, as errors are not cached)."""
    m = _SPEED.match(value)
    if not m:
        raise ValueError(f"{value!r} is not a speed; write e.g. 400G, 800G or 1.6T")
    # Decimal, not float: 16.1 × 1000 must be exactly 16100 (binary floats give 16100.000000000002).
    number, unit = Decimal(m.group(1)), m.group(2).upper()
    scaled = number * {"M": Decimal("0.001"), "G": Decimal(1), "T": Decimal(1000)}[unit]
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{value!r} is not a whole number of Gb/s")
    return int(scaled)


def format_speed(gbps: int) -> str:
    """``1600`` → ``1.6T``, ``400`` → ``400G``.

    >>> format_speed(400), format_speed(1600), format_speed(1000)
    ('400G', '1.6T', '1T')
    """
    if gbps >= 1000 and gbps % 100 == 0:
        tera = gbps / 1000
        return f"{tera:g}T"
    return f"{gbps}G"


def parse_breakout(value: str) -> tuple[int, int]:
    """``"2x400G"`` → ``(2, 400)``: number of logical ports and speed of each."""
    m = _BREAKOUT.match(value)
    if not m:
        raise ValueError(f"{value!r} is not a breakout mode; write e.g. 2x400G")
    count = int(m.group(1))
    if count < 1 or count > 16:
        raise ValueError(f"breakout {value!r}: 1 to 16 lanes groups per cage")
    return count, parse_speed(m.group(2))
