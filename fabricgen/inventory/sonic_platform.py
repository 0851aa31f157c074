"""SONiC's platform facts per switch model (``fabricgen/data/sonic-platforms.yaml``) and the port layout they give.

A SONiC image builds its PORT table from the platform's ``platform.json`` (every port's lanes, front-panel index and
breakout modes) and the SKU's ``hwsku.json`` (the mode each cage starts in). fabricgen holds those facts in its own
data file and derives ports with SONiC's rules (sonic-buildimage ``src/sonic-config-engine/portconfig.py``,
``BreakoutCfg.get_config``), so a rendered ``config_db.json`` carries the names, lanes, aliases and indexes the box
itself would write:

- a mode ``NxSG[S1,S2](L)`` splits a parent port into N ports of default speed S on L of its lanes (all when L is
  absent), each port taking ``L // N`` consecutive lanes;
- a child is named ``Ethernet<parent number + lane offset>``, keeps the parent's index, takes the next alias of the
  mode's alias list (``etp3`` for one port, ``etp3a`` … ``etp3d`` for four), ``subport`` 0 when alone else 1 … N;
- ``fec: rs`` when the speed per lane is 50 Gb/s or more.

Two mode strings name the same mode when they split into as many ports on as many lanes with the same set of speeds
(``2x100G[200G]`` in a SKU is the platform's ``2x200G[100G]``): SONiC's ``BreakoutCfg`` matches them the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml

_MODE = re.compile(r"(?P<ports>[1-9][0-9]?)x(?P<speed>[1-9][0-9]*)G(?:\((?P<lanes>[1-9][0-9]?)\))?"
                   r"(?:\[(?P<alt>[0-9G,]*)\])?")


@dataclass(frozen=True, slots=True)
class Mode:
    """A breakout mode of a parent port, as ``platform.json``/``hwsku.json`` spell it."""

    text: str  # the exact string: "2x400G[200G,100G,50G,40G,25G,10G]"
    ports: int
    default_speed: int  # Gb/s
    speeds: frozenset[int]  # every speed a port of this mode runs at (the default included), Gb/s
    lanes: int | None  # lanes the mode assigns, "(8)"; None: all the parent's lanes

    def assigned(self, parent_lanes: int) -> int:
        return parent_lanes if self.lanes is None else self.lanes

    def lanes_per_port(self, parent_lanes: int) -> int:
        return self.assigned(parent_lanes) // self.ports

    def same(self, other: Mode, parent_lanes: int) -> bool:
        """SONiC's match of two spellings of one mode (ports, speed set, assigned lanes)."""
        return (self.ports == other.ports and self.speeds == other.speeds
                and self.assigned(parent_lanes) == other.assigned(parent_lanes))


@cache
def parse_mode(text: str) -> Mode:
    """A breakout mode string.

    >>> m = parse_mode("2x400G[200G,100G]")
    >>> m.ports, m.default_speed, sorted(m.speeds), m.lanes
    (2, 400, [100, 200, 400], None)
    >>> parse_mode("4x25G(4)[10G,1G]").lanes_per_port(8), parse_mode("1x800G").speeds
    (1, frozenset({800}))
    """
    m = _MODE.fullmatch(text)
    if m is None:
        raise ValueError(f"{text!r} is not a breakout mode (NxSG[S,…] or NxSG(L)[S,…])")
    speed = int(m["speed"])
    alt = [s for s in (m["alt"] or "").split(",") if s]
    if any(not re.fullmatch(r"[1-9][0-9]*G", s) for s in alt):
        raise ValueError(f"{text!r}: speeds in [...] are NG, comma-separated")
    return Mode(text, int(m["ports"]), speed, frozenset([speed, *(int(s[:-1]) for s in alt)]),
                int(m["lanes"]) if m["lanes"] else None)


@dataclass(frozen=True, slots=True)
class ParentPort:
    """One ``platform.json`` interface: a front-panel cage, or a port beyond the front panel."""

    name: str  # "Ethernet16"
    index: int  # front-panel index, from 1
    lanes: tuple[int, ...]
    modes: tuple[Mode, ...]

    @property
    def number(self) -> int:
        return int(self.name.removeprefix("Ethernet"))


@dataclass(frozen=True, slots=True)
class PortRow:
    """A PORT table entry as SONiC derives it from a parent port and a mode."""

    name: str
    lanes: tuple[int, ...]
    alias: str
    index: int
    subport: int
    speed: int  # Gb/s

    @property
    def fec(self) -> str | None:
        """``rs`` at 50 Gb/s per lane or more (portconfig.py: ``default_speed // lanes_per_port >= 50000``)."""
        return "rs" if self.speed // len(self.lanes) >= 50 else None


@dataclass(frozen=True, slots=True)
class Sku:
    """A SONiC HwSKU of a platform: the mode each parent starts in and the port attributes it sets."""

    name: str
    fixed: bool  # a fixed port table (port_config.ini only): no dynamic breakout
    layout: dict[int, Mode] = field(default_factory=dict)  # parent index → default_brkout_mode
    attributes: dict[int, dict[str, str]] = field(default_factory=dict)  # parent index → autoneg/role/fec
    buffers: str = ""  # NVIDIA's buffer layout: "lossy-pools", "shared-ingress"; "" none published here


@dataclass(frozen=True, slots=True)
class SonicPlatform:
    """SONiC's facts for one catalog switch model."""

    model: str
    platform: str  # "x86_64-nvidia_sn5600-r0"
    default_sku: str
    cage_lanes: int
    front: int  # front-panel cages: parents 1…front; the ports beyond follow
    parents: tuple[ParentPort, ...]  # front-panel cages by index, then the ports beyond
    skus: dict[str, Sku]

    def fits(self, ports: int, lanes: int) -> bool:
        """Whether a catalog model of ``ports`` cages of ``lanes`` lanes is this platform (an inventory may redefine
        a model under the same name: then the facts do not apply)."""
        return ports == self.front and lanes == self.cage_lanes

    def parent(self, index: int) -> ParentPort:
        return self.parents[index - 1]

    def mode_for(self, index: int, breakout: int, speed: int) -> Mode | None:
        """The platform mode a parent runs ``breakout`` ports of ``speed`` Gb/s in, each sub-port on an equal share of
        the cage's lanes (fabricgen names sub-ports by that share; one port may take fewer, ``1x100G(4)``); a mode
        whose default is ``speed`` first, then one on all the lanes."""
        parent = self.parent(index)
        share = len(parent.lanes) // breakout
        fits = [m for m in parent.modes if m.ports == breakout and speed in m.speeds
                and (breakout == 1 or m.lanes_per_port(len(parent.lanes)) == share)]
        fits.sort(key=lambda m: (m.default_speed != speed, m.lanes is not None))
        return fits[0] if fits else None

    def supported(self, index: int) -> list[str]:
        """The port layouts a parent runs, ``2x400G`` … (each mode's ports × every speed it supports)."""
        return sorted({f"{m.ports}x{s}G" for m in self.parent(index).modes for s in m.speeds},
                      key=lambda t: (int(t.split("x")[0]), -int(t.split("x")[1][:-1])))


def port_rows(parent: ParentPort, mode: Mode, speed: int | None = None) -> list[PortRow]:
    """The ports ``parent`` becomes in ``mode`` (at ``speed`` Gb/s, default the mode's), by SONiC's rules.

    >>> p = ParentPort("Ethernet8", 2, tuple(range(17, 25)), (parse_mode("2x400G(8)"),))
    >>> [(r.name, r.lanes, r.alias, r.subport) for r in port_rows(p, p.modes[0])]
    [('Ethernet8', (17, 18, 19, 20), 'etp2a', 1), ('Ethernet12', (21, 22, 23, 24), 'etp2b', 2)]
    """
    per = mode.lanes_per_port(len(parent.lanes))
    rows = []
    for i in range(mode.ports):
        alias = f"etp{parent.index}" if mode.ports == 1 else f"etp{parent.index}{chr(ord('a') + i)}"
        rows.append(PortRow(f"Ethernet{parent.number + i * per}", parent.lanes[i * per:(i + 1) * per], alias,
                            parent.index, 0 if mode.ports == 1 else i + 1, speed or mode.default_speed))
    return rows


def _ranges(spec: dict[str, Any]) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for key, value in spec.items():
        lo, _, hi = str(key).partition("-")
        for index in range(int(lo), int(hi or lo) + 1):
            out[index] = value
    return out


def _platform(model: str, raw: dict[str, Any]) -> SonicPlatform:
    lanes = int(raw["lanes"])
    modes = tuple(parse_mode(m) for m in raw["modes"])
    parents = [ParentPort(f"Ethernet{lanes * i}", i + 1, tuple(range(first, first + lanes)), modes)
               for i, first in enumerate(raw["first_lanes"])]
    parents += [ParentPort(e["name"], int(e["index"]), tuple(e["lanes"]), tuple(parse_mode(m) for m in e["modes"]))
                for e in raw["extra"]]
    if [p.index for p in parents] != list(range(1, len(parents) + 1)):
        raise ValueError(f"{model}: parent ports must be indexed 1…{len(parents)} in order")
    skus = {}
    for name, s in raw["skus"].items():
        layout = {i: parse_mode(m) for i, m in _ranges(s.get("layout", {})).items()}
        skus[name] = Sku(name, bool(s.get("fixed", False)), layout,
                         {i: dict(a) for i, a in _ranges(s.get("attributes", {})).items()}, s.get("buffers", ""))
    return SonicPlatform(model, raw["platform"], raw["default_sku"], lanes, len(raw["first_lanes"]), tuple(parents),
                         skus)


@cache
def sonic_platforms() -> dict[str, SonicPlatform]:
    """Every model's facts, by catalog model name."""
    text = resources.files("fabricgen").joinpath("data/sonic-platforms.yaml").read_text(encoding="utf-8")
    return {model: _platform(model, raw) for model, raw in yaml.safe_load(text).items()}


def sonic_platform(model: str) -> SonicPlatform | None:
    """The facts of a catalog model, or None where fabricgen holds none (the generic SONiC layout applies)."""
    return sonic_platforms().get(model)
