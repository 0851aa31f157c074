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

Every port has exactly one spelling per platform: the case shown, numbers in ASCII digits without leading
zeros. :func:`parse_port` refuses any other spelling (``swp1s00``, ``et-0/0/0:00``, ``ethernet0``) and names
the canonical one, so that one physical port can never be cabled twice under two names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_NUM = r"(?:0|[1-9][0-9]{0,5})"  # canonical: ASCII digits, no leading zero
_POS = r"[1-9][0-9]{0,5}"  # the same, counting from 1
_ANY = r"[0-9]{1,9}"  # any spelling of a number (for naming the canonical form)

# (canonical pattern, lenient pattern, format of the canonical name); groups: cage, sub, lane
_SCHEMES: dict[str, tuple[str, str, str]] = {
    "nvue": (rf"swp(?P<cage>{_POS})(?:s(?P<sub>{_NUM}))?", rf"swp(?P<cage>{_ANY})(?:s(?P<sub>{_ANY}))?", "swp{cage}"),
    "sonic": (rf"Ethernet(?P<lane>{_NUM})", rf"ethernet(?P<lane>{_ANY})", "Ethernet{lane}"),
    "eos": (
        rf"Ethernet(?P<cage>{_POS})/(?P<lane>{_POS})",
        rf"ethernet(?P<cage>{_ANY})/(?P<lane>{_ANY})",
        "Ethernet{cage}/{lane}",
    ),
    "nxos": (
        rf"Ethernet1/(?P<cage>{_POS})(?:/(?P<sub>{_POS}))?",
        rf"ethernet0*1/(?P<cage>{_ANY})(?:/(?P<sub>{_ANY}))?",
        "Ethernet1/{cage}",
    ),
    "junos": (
        rf"et-0/0/(?P<cage>{_NUM})(?::(?P<sub>{_NUM}))?",
        rf"et-0*/0*/(?P<cage>{_ANY})(?::(?P<sub>{_ANY}))?",
        "et-0/0/{cage}",
    ),
}
_SCHEMES["frr"] = _SCHEMES["nvue"]
_SUB_SEPARATOR = {"nvue": "s", "frr": "s", "nxos": "/", "junos": ":"}

_PATTERNS: dict[str, re.Pattern[str]] = {p: re.compile(c, re.ASCII) for p, (c, _, _) in _SCHEMES.items()}
_LENIENT: dict[str, re.Pattern[str]] = {
    p: re.compile(lenient, re.ASCII | re.IGNORECASE) for p, (_, lenient, _) in _SCHEMES.items()
}


def canonical_port(platform: str, name: str) -> str | None:
    """The one spelling of the port ``name`` means on ``platform`` (case and leading zeros fixed), or None
    when ``name`` does not look like a port of that platform at all.

    >>> canonical_port("nvue", "swp01s00"), canonical_port("sonic", "ethernet0"), canonical_port("junos", "et-0/0/0:00")
    ('swp1s0', 'Ethernet0', 'et-0/0/0:0')
    """
    lenient = _LENIENT.get(platform)
    m = lenient.fullmatch(name) if lenient is not None else None
    if m is None:
        return None
    numbers = {k: int(v) for k, v in m.groupdict().items() if v is not None}
    out = _SCHEMES[platform][2].format(**numbers)
    if "sub" in numbers:
        out += f"{_SUB_SEPARATOR[platform]}{numbers['sub']}"
    return out


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
    m = pattern.fullmatch(name)
    if not m:
        canonical = canonical_port(platform, name)
        if canonical is not None and canonical != name:
            raise ValueError(f"{name!r} is not the canonical {platform} spelling of this port; write {canonical!r}")
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
