"""Capacity arithmetic on a resolved fabric: bandwidth down/up, ratios, failure cases, port budgets.

Pure functions shared by the checks, the capacity summary and the planner. Bandwidths are in Gb/s.
A ratio is downlink bandwidth ÷ uplink bandwidth (``inf`` when nothing is left above).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from fabricgen.inventory.schema import Role, SwitchModel
from fabricgen.topology.memo import per_fabric
from fabricgen.topology.model import Fabric, PortKind, Switch


@dataclass(frozen=True, slots=True)
class SwitchLoad:
    name: str
    role: Role
    down_gbps: int
    up_gbps: int
    ratio: float
    one_upper_down: float  # ratio after losing the upper switch that carries most of its uplinks
    one_uplink_down: float  # ratio after losing its fastest single uplink
    cages_used: int
    cages_total: int


def ratio(down: float, up: float) -> float:
    """Oversubscription ``down/up``; ``0`` with nothing below, ``inf`` with nothing above.

    >>> ratio(3200, 3200), ratio(3200, 1600), ratio(0, 0), ratio(400, 0)
    (1.0, 2.0, 0.0, inf)
    """
    if down == 0:
        return 0.0
    if up == 0:
        return math.inf
    return down / up


def cages_used(switch: Switch) -> int:
    return len({p.cage for p in switch.ports})


def switch_load(switch: Switch, model: SwitchModel) -> SwitchLoad:
    down = up = 0
    by_peer: dict[str, int] = defaultdict(int)
    fastest = 0
    for p in switch.ports:
        if p.kind is PortKind.UP:
            up += p.speed
            by_peer[p.peer_device] += p.speed
            fastest = max(fastest, p.speed)
        else:
            down += p.speed
    worst_peer = max(by_peer.values(), default=0)
    return SwitchLoad(
        name=switch.name,
        role=switch.role,
        down_gbps=down,
        up_gbps=up,
        ratio=ratio(down, up),
        one_upper_down=ratio(down, up - worst_peer),
        one_uplink_down=ratio(down, up - fastest),
        cages_used=cages_used(switch),
        cages_total=model.ports,
    )


@per_fabric
def loads(fabric: Fabric) -> Mapping[str, SwitchLoad]:
    """Every switch's load, by name (computed once per fabric and shared, hence read-only)."""
    models = fabric.catalog.switches
    return MappingProxyType({name: switch_load(sw, models[sw.model]) for name, sw in fabric.switches.items()})


@dataclass(frozen=True, slots=True)
class TierLoad:
    role: Role
    devices: int
    down_gbps: int
    up_gbps: int
    ratio: float
    worst_ratio: float
    worst_one_upper_down: float
    worst_one_uplink_down: float
    cages_used: int
    cages_total: int


def tier_load(role: Role, items: Iterable[SwitchLoad]) -> TierLoad:
    rows = [x for x in items if x.role is role]
    down = sum(x.down_gbps for x in rows)
    up = sum(x.up_gbps for x in rows)
    return TierLoad(
        role=role,
        devices=len(rows),
        down_gbps=down,
        up_gbps=up,
        ratio=ratio(down, up),
        worst_ratio=max((x.ratio for x in rows), default=0.0),
        worst_one_upper_down=max((x.one_upper_down for x in rows), default=0.0),
        worst_one_uplink_down=max((x.one_uplink_down for x in rows), default=0.0),
        cages_used=sum(x.cages_used for x in rows),
        cages_total=sum(x.cages_total for x in rows),
    )


def top_tier(fabric: Fabric) -> Role:
    roles = {s.role for s in fabric.switches.values()}
    return Role.CORE if Role.CORE in roles else Role.SPINE if Role.SPINE in roles else Role.LEAF


def cable_counts(fabric: Fabric) -> Counter[tuple[str, str, float]]:
    """Cables by (link kind, cable type, length in metres)."""
    # counted by the enum member and named once per distinct row: ``.value`` is a property call per link
    by_member = Counter((link.kind, link.cable, link.length_m) for link in fabric.links)
    return Counter({(kind.value, cable, length): n for (kind, cable, length), n in by_member.items()})
