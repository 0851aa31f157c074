"""The underlay's routing policy as facts of a Fabric: what it announces, the prefix filter every session
applies, the prefix limit, the role communities, BFD's documented ranges and the drained switches.

Every platform renders the same policy from these facts (fabricgen.render.data builds the per-device
part), so a prefix the fabric does not allocate is refused at both ends of every session:

* export: the device's own prefixes (loopback /32, host-facing /31s) tagged with its role's community,
  and the fabric's prefixes it learned; nothing else.
* import: the fabric's prefixes only; one carrying the graceful-shutdown community (RFC 8326, 65535:0)
  gets local-preference 0, so a drained switch keeps every session and loses every best path it can.
* a drained switch adds 65535:0 to everything it exports.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace

from fabricgen.inventory.schema import Role
from fabricgen.topology.memo import per_fabric
from fabricgen.topology.model import Fabric, PortKind, Switch

GSHUT = "65535:0"
"""The GRACEFUL_SHUTDOWN well-known community (RFC 8326 section 4; IANA "BGP Well-known Communities")."""

ROLE_COMMUNITY_VALUE = {Role.LEAF: 1, Role.SPINE: 2, Role.CORE: 3}
"""Low half of the community a prefix carries from the role of the switch that originates it."""


@dataclass(frozen=True, slots=True)
class BfdRange:
    """A platform's documented BFD timer range (interval in ms, detection multiplier) and where it is written."""

    interval_ms: tuple[int, int]
    multiplier: tuple[int, int]
    source: str


BFD_RANGES: dict[str, BfdRange] = {
    "frr": BfdRange((10, 60_000), (2, 255), 'FRR User Guide, "BFD": transmit-interval/receive-interval (10-60000), '
                    "detect-multiplier (2-255)"),
    "sonic": BfdRange((10, 60_000), (2, 255), "SONiC runs FRR's bfdd in the bgp container: the FRR ranges"),
    "eos": BfdRange((50, 60_000), (3, 50), 'Arista EOS User Manual, "BFD": bfd interval <50-60000> min-rx '
                    "<50-60000> multiplier <3-50>"),
    "nvue": BfdRange((50, 60_000), (2, 255), "NVUE OpenAPI: bfd min-rx-interval/min-tx-interval 50-60000, "
                     "detect-multiplier 2-255"),
    "nxos": BfdRange((50, 999), (1, 50), 'Cisco Nexus 9000 NX-OS Interfaces Configuration Guide, "Configuring '
                     'BFD": bfd interval <50-999> min_rx <50-999> multiplier <1-50>'),
    "junos": BfdRange((1, 255_000), (1, 255), 'Junos CLI reference, "bfd-liveness-detection": minimum-interval '
                      "1-255000, multiplier 1-255"),
}


@dataclass(frozen=True, slots=True)
class PrefixEntry:
    """One permit line of the fabric's prefix filter: ``prefix`` and every longer prefix of length ``ge``..``le``."""

    prefix: str
    ge: int
    le: int
    what: str  # "leaf loopbacks", "host links", "loopback of leaf7"

    @property
    def exact(self) -> bool:
        """The entry matches ``prefix`` itself only (no ge/le needed)."""
        return ipaddress.IPv4Network(self.prefix).prefixlen == self.ge == self.le


@dataclass(frozen=True, slots=True)
class RoutingFacts:
    announced: int  # prefixes the fabric originates: every loopback and every addressed host link
    received_max: int  # the most one neighbor can send a device: what the fabric announces less the device's own
    planned_received: int  # received_max at the intent's planned_units (received_max without an intent)
    maximum_prefix: int  # the limit every session renders
    computed: bool  # True: fabricgen chose maximum_prefix (fabric.routing.maximum_prefix unset)
    warning_pct: int
    fabric_prefixes: tuple[PrefixEntry, ...]
    drained: frozenset[str]


def nice_limit(at_least: int) -> int:
    """The smallest of 1, 2, 5 x 10^k that is at least ``at_least`` (and at least 100): a limit that stays
    the same while a fabric grows, so an expansion does not touch every session's configuration.

    >>> nice_limit(1), nice_limit(101), nice_limit(201), nice_limit(4_001), nice_limit(200_000)
    (100, 200, 500, 5000, 200000)
    """
    step = 100
    while True:
        for m in (1, 2, 5):
            if step * m >= at_least:
                return step * m
        step *= 10


def role_community(fabric: Fabric, role: Role) -> str:
    """The community a prefix originated by a ``role`` switch carries: ``64512:1`` for a leaf by default."""
    return f"{fabric.settings.routing.community_asn}:{ROLE_COMMUNITY_VALUE[role]}"


def own_prefixes(fabric: Fabric, sw: Switch) -> tuple[str, ...]:
    """The prefixes ``sw`` originates, in port order: its loopback /32 and each addressed host-facing link's
    subnet (what every platform's `network` statements and LOCAL-PREFIXES list)."""
    links = fabric.links
    return (f"{sw.loopback}/32", *(subnet for p in sw.ports if p.kind is PortKind.HOST and p.address
                                   for subnet in (links[p.link].subnet,) if subnet))


def own_prefix_count(fabric: Fabric, name: str) -> int:
    """How many prefixes switch ``name`` originates (:func:`own_prefixes`)."""
    return len(own_prefixes(fabric, fabric.switches[name]))


@per_fabric
def routing_facts(fabric: Fabric) -> RoutingFacts:
    """The fabric's routing facts, computed once per Fabric (linear in its ports)."""
    own = {name: own_prefix_count(fabric, name) for name in fabric.switches}
    announced = sum(own.values())
    received = max((announced - n for n in own.values()), default=0)
    planned = planned_received(fabric, received)
    written = fabric.settings.routing.maximum_prefix
    limit = written if written is not None else nice_limit(2 * planned)
    return RoutingFacts(
        announced=announced,
        received_max=received,
        planned_received=planned,
        maximum_prefix=limit,
        computed=written is None,
        warning_pct=fabric.settings.routing.warning_pct,
        fabric_prefixes=fabric_prefix_entries(fabric),
        drained=frozenset(n for n, s in fabric.switches.items() if s.drained),
    )


def planned_received(fabric: Fabric, received: int) -> int:
    """What one neighbor sends once an intent has grown to its ``planned_units``: ``received`` scaled by
    planned/built units, rounded up (an upper bound: the spines' loopbacks do not grow with units). The computed
    limit is sized from it, so growing up to the plan leaves every session's configuration as it was.

    >>> from types import SimpleNamespace as N
    >>> planned_received(N(intent=N(units=2, planned_units=4)), 535), planned_received(N(intent=None), 535)
    (1070, 535)
    """
    i = fabric.intent
    if i is None or i.planned_units <= i.units or i.units < 1:
        return received
    return -(-received * i.planned_units // i.units)


def fabric_prefix_entries(fabric: Fabric) -> tuple[PrefixEntry, ...]:
    """The prefix filter: the loopback pool of each role present (/32s only) and the host-link pool (/31s
    only), then an exact entry for each loopback written outside its role's pool."""
    a = fabric.settings.addressing
    pools = {Role.LEAF: a.loopbacks.leaf, Role.SPINE: a.loopbacks.spine, Role.CORE: a.loopbacks.core}
    roles = [r for r in (Role.LEAF, Role.SPINE, Role.CORE) if any(s.role is r for s in fabric.switches.values())]
    entries = [PrefixEntry(str(pools[r]), 32, 32, f"{r.value} loopbacks") for r in roles]
    if any(p.kind is PortKind.HOST and p.address for s in fabric.switches.values() for p in s.ports):
        entries.append(PrefixEntry(str(a.host_p2p), 31, 31, "host links"))
    for name, sw in sorted(fabric.switches.items()):
        if ipaddress.IPv4Address(sw.loopback) not in pools[sw.role]:
            entries.append(PrefixEntry(f"{sw.loopback}/32", 32, 32, f"loopback of {name}"))
    return tuple(entries)


class UnknownSwitch(ValueError):
    """A switch named for a drain or an undrain is not in the fabric (or is named for both)."""


def with_drain(fabric: Fabric, drain: set[str], undrain: set[str]) -> Fabric:
    """A copy of ``fabric`` with the switches of ``drain`` drained and those of ``undrain`` not; every other
    switch as it was. The copy is a new Fabric object, so its routing facts (and every render) are recomputed.

    Raises :class:`UnknownSwitch` naming every switch that is not in the fabric, or that is in both sets.
    """
    unknown = sorted((drain | undrain) - set(fabric.switches))
    if unknown:
        raise UnknownSwitch(f"no such switch in fabric {fabric.name}: {', '.join(map(repr, unknown))}")
    both = sorted(drain & undrain)
    if both:
        raise UnknownSwitch(f"both drained and undrained: {', '.join(map(repr, both))}")
    switches = {
        name: replace(sw, drained=True) if name in drain else replace(sw, drained=False) if name in undrain else sw
        for name, sw in fabric.switches.items()
    }
    return replace(fabric, switches=switches)


def drain_changes(before: Fabric, after: Fabric) -> dict[str, bool]:
    """Switch → its drain state in ``after``, for every switch whose drain state differs from ``before``'s."""
    return {n: sw.drained for n, sw in after.switches.items()
            if n in before.switches and before.switches[n].drained != sw.drained}


def originated_by(fabric: Fabric) -> dict[str, str]:
    """Prefix → the switch that originates it: each loopback /32 and each addressed host-facing link's subnet
    (:func:`own_prefixes`)."""
    return {prefix: name for name, sw in fabric.switches.items() for prefix in own_prefixes(fabric, sw)}
