"""The bill of materials of an expansion: only what the new fabric adds.

* switches by model (added switches), servers by model (added nodes), backend NICs by model (the added
  servers' NICs — most GPU servers ship with them, so they are listed, not necessarily ordered apart);
* cables by link kind, cable type and length class (the stock length a run is ordered at): every cable
  that is added, re-run to another port, or whose type/length changes;
* transceivers: one per newly lit switch cage (a breakout cage takes one transceiver for all its ports)
  and one per server NIC, by speed and cable type; DAC/ACC cables carry their own ends and need none.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import Any

from fabricgen.inventory.units import format_speed
from fabricgen.plan.diff import FabricDiff
from fabricgen.topology.model import Fabric, Link

STOCK_LENGTHS_M = (0.5, 1, 1.5, 2, 2.5, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000, 10_000)
"""Lengths cables and fibre runs are ordered at; a run is ordered at the next one up."""

COPPER = ("DAC", "ACC", "AEC")
"""Cable types with their ends built in (no separate transceivers)."""


def length_class(length_m: float) -> float:
    """The stock length a run of ``length_m`` is ordered at.

    >>> length_class(3), length_class(3.2), length_class(40), length_class(20_000)
    (3, 5, 50, 10000)
    """
    i = bisect_left(STOCK_LENGTHS_M, length_m - 1e-9)
    return STOCK_LENGTHS_M[min(i, len(STOCK_LENGTHS_M) - 1)]


@dataclass(frozen=True, slots=True)
class Bom:
    switches: dict[str, int]  # model → count
    servers: dict[str, int]
    nics: dict[str, int]
    cables: list[dict[str, Any]]  # {kind, type, length_m, count}
    transceivers: list[dict[str, Any]]  # {speed, type, where, count}

    @property
    def empty(self) -> bool:
        return not (self.switches or self.servers or self.nics or self.cables or self.transceivers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "switches": self.switches,
            "servers": self.servers,
            "nics": self.nics,
            "cables": self.cables,
            "transceivers": self.transceivers,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Bom:
        return cls(d["switches"], d["servers"], d["nics"], d["cables"], d["transceivers"])


def _is_copper(cable: str) -> bool:
    return cable.upper().startswith(COPPER)


def bill_of_materials(old: Fabric, new: Fabric, diff: FabricDiff) -> Bom:
    """What must be bought to go from ``old`` to ``new`` (nothing for what is removed)."""
    switches = Counter(d.model for d in diff.added if d.kind == "switch")
    servers = Counter(d.model for d in diff.added if d.kind == "node")
    nics: Counter[str] = Counter()
    for d in diff.added:
        if d.kind == "node":
            for nic in new.nodes[d.name].nics:
                nics[nic.model] += 1
    wanted = {x.key for x in diff.links if x.change in ("added", "moved")}
    wanted |= {
        x.key
        for x in diff.links
        if x.change == "changed" and any(s.startswith(("length", "cable", "speed")) for s in x.details)
    }
    new_links: list[Link] = [link for link in new.links if f"{link.a.device}:{link.a.port}" in wanted]
    cables: Counter[tuple[str, str, float]] = Counter(
        (link.kind.value, link.cable, length_class(link.length_m)) for link in new_links
    )
    old_cages = {(s.name, p.cage) for s in old.switches.values() for p in s.ports}
    lit: dict[tuple[str, int], tuple[str, str]] = {}
    host_optics: Counter[tuple[str, str, str]] = Counter()
    for link in new_links:
        if _is_copper(link.cable):
            continue
        for end in (link.a, link.b):
            if end is None:
                continue
            port = new.port(end.device, end.port)
            if port is None:  # a server NIC
                host_optics[(format_speed(link.speed), link.cable, "server NIC")] += 1
                continue
            key = (end.device, port.cage)
            if key in old_cages or key in lit:
                continue
            sw = new.switches[end.device]
            cage_speed = new.catalog.switches[sw.model].native_speed
            label = format_speed(cage_speed)
            if port.breakout > 1:
                label += f" ({port.breakout}x{format_speed(port.speed)})"
            lit[key] = (label, f"{link.cable}|{sw.role.value} cage")
    optics: Counter[tuple[str, str, str]] = Counter(host_optics)
    for speed, tag in lit.values():
        cable, where = tag.split("|")
        optics[(speed, cable, where)] += 1
    return Bom(
        switches=dict(sorted(switches.items())),
        servers=dict(sorted(servers.items())),
        nics=dict(sorted(nics.items())),
        cables=[
            {"kind": k, "type": t, "length_m": m, "count": n}
            for (k, t, m), n in sorted(cables.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2]))
        ],
        transceivers=[{"speed": s, "type": t, "where": w, "count": n} for (s, t, w), n in sorted(optics.items())],
    )
