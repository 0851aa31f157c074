"""Front-panel port names per platform, both ways: (cage, breakout position) ↔ name.

Each NOS names a cage and its breakout sub-ports differently:

=========  ==================  ==================================  ==============================
platform   unbroken cage 3     2x breakout of cage 3 (8 lanes)      scheme
=========  ==================  ==================================  ==============================
nvue, frr  ``swp3``            ``swp3s0``, ``swp3s1``               sub-port index from 0
sonic      ``Ethernet16``      ``Ethernet16``, ``Ethernet20``       first SerDes lane, from 0
eos        ``Ethernet3/1``     ``Ethernet3/1``, ``Ethernet3/5``     first lane in the cage, from 1
nxos       ``Ethernet1/3``     ``Ethernet1/3/1``, ``Ethernet1/3/2`` sub-port index from 1
junos      ``et-0/0/2``        ``et-0/0/2:0``, ``et-0/0/2:1``       cage from 0, sub-port from 0
=========  ==================  ==================================  ==============================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_PATTERNS: dict[str, re.Pattern[str]] = {
    "nvue": re.compile(r"^swp(?P<cage>[1-9]\d*)(?:s(?P<sub>\d+))?$"),
    "frr": re.compile(r"^swp(?P<cage>[1-9]\d*)(?:s(?P<sub>\d+))?$"),
    "sonic": re.compile(r"^Ethernet(?P<lane>0|[1-9]\d*)$"),
    "eos": re.compile(r"^Ethernet(?P<cage>[1-9]\d*)/(?P<lane>[1-9]\d*)$"),
    "nxos": re.compile(r"^Ethernet1/(?P<cage>[1-9]\d*)(?:/(?P<sub>[1-9]\d*))?$"),
    "junos": re.compile(r"^et-0/0/(?P<cage>0|[1-9]\d*)(?::(?P<sub>\d+))?$"),
}

EXAMPLE = {
    "nvue": "swp1",
    "frr": "swp1",
    "sonic": "Ethernet0",
    "eos": "Ethernet1/1",
    "nxos": "Ethernet1/1",
    "junos": "et-0/0/0",
}


@dataclass(frozen=True, slots=True)
class PortPosition:
    """Where a logical port sits: 1-based cage, and its 0-based index among the cage's sub-ports."""

    cage: int
    sub: int
    breakout: int


def _check_split(breakout: int, lanes: int) -> None:
    if breakout < 1 or lanes < 1 or lanes % breakout:
        raise ValueError(f"a {lanes}-lane cage cannot be split {breakout} ways")


def port_name(platform: str, cage: int, sub: int, breakout: int, lanes: int) -> str:
    """Name of sub-port ``sub`` of ``cage`` split ``breakout`` ways on a platform.

    >>> port_name("sonic", 3, 1, 2, 8), port_name("nvue", 3, 1, 2, 8), port_name("eos", 3, 1, 2, 8)
    ('Ethernet20', 'swp3s1', 'Ethernet3/5')
    >>> port_name("nxos", 3, 0, 1, 8), port_name("junos", 3, 1, 4, 8)
    ('Ethernet1/3', 'et-0/0/2:1')
    """
    _check_split(breakout, lanes)
    step = lanes // breakout
    if platform in ("nvue", "frr"):
        return f"swp{cage}" if breakout == 1 else f"swp{cage}s{sub}"
    if platform == "sonic":
        return f"Ethernet{(cage - 1) * lanes + sub * step}"
    if platform == "eos":
        return f"Ethernet{cage}/{1 + sub * step}"
    if platform == "nxos":
        return f"Ethernet1/{cage}" if breakout == 1 else f"Ethernet1/{cage}/{sub + 1}"
    if platform == "junos":
        return f"et-0/0/{cage - 1}" if breakout == 1 else f"et-0/0/{cage - 1}:{sub}"
    raise ValueError(f"unknown platform {platform!r}")


@lru_cache(maxsize=65536)
def parse_port(platform: str, name: str, breakout: int, lanes: int) -> PortPosition:
    """Inverse of :func:`port_name`; raises ``ValueError`` with a one-line reason.

    >>> parse_port("sonic", "Ethernet20", 2, 8)
    PortPosition(cage=3, sub=1, breakout=2)
    """
    pattern = _PATTERNS.get(platform)
    if pattern is None:
        raise ValueError(f"unknown platform {platform!r}")
    m = pattern.match(name)
    if not m:
        raise ValueError(f"{name!r} is not a valid {platform} port name (e.g. {EXAMPLE[platform]})")
    groups = m.groupdict()
    _check_split(breakout, lanes)
    step = lanes // breakout
    if platform == "sonic":
        lane = int(groups["lane"])
        cage, offset = lane // lanes + 1, lane % lanes
        if offset % step:
            raise ValueError(f"{name} does not start a {breakout}-way breakout of its {lanes}-lane cage")
        return PortPosition(cage, offset // step, breakout)
    cage = int(groups["cage"]) + (1 if platform == "junos" else 0)
    if platform == "eos":
        offset = int(groups["lane"]) - 1
        if offset >= lanes or offset % step:
            raise ValueError(f"{name} does not start a {breakout}-way breakout of its {lanes}-lane cage")
        return PortPosition(cage, offset // step, breakout)
    raw = groups.get("sub")
    if raw is None:
        if breakout != 1:
            raise ValueError(f"{name} names a whole cage, but the link needs a {breakout}-way breakout")
        return PortPosition(cage, 0, 1)
    if breakout == 1:
        raise ValueError(f"{name} names a breakout sub-port, but the link runs at the cage's native speed")
    sub = int(raw) - (1 if platform == "nxos" else 0)
    if sub >= breakout:
        raise ValueError(f"{name}: sub-port {raw} does not exist in a {breakout}-way breakout")
    return PortPosition(cage, sub, breakout)
