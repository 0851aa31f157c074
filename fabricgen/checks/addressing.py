"""Addressing: unique loopbacks and /31s, pools that do not overlap, ASNs that let eBGP peer."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Network

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Role
from fabricgen.topology.model import Fabric


def unique_loopbacks(fabric: Fabric) -> Iterator[Finding]:
    """FG-ADDR-001: no two devices share a loopback."""
    seen: dict[str, str] = {}
    for name, sw in fabric.switches.items():
        other = seen.setdefault(sw.loopback, name)
        if other != name:
            yield Finding(
                "FG-ADDR-001",
                Severity.ERROR,
                name,
                f"loopback {sw.loopback} is also {other}'s",
                "give each device its own loopback (or drop the override)",
                sw.src,
            )


def unique_subnets(fabric: Fabric) -> Iterator[Finding]:
    """FG-ADDR-002: no two links share a /31."""
    seen: dict[str, int] = {}
    for link in fabric.links:
        if link.subnet is None:
            continue
        first = seen.setdefault(link.subnet, link.index)
        if first != link.index:
            other = fabric.links[first]
            yield Finding(
                "FG-ADDR-002",
                Severity.ERROR,
                f"{link.a.device}:{link.a.port}",
                f"/31 {link.subnet} is also used by {other.a.device}:{other.a.port}",
                "device ids must be unique per role and pools must not overlap",
                link.src,
            )


def pools_disjoint(fabric: Fabric) -> Iterator[Finding]:
    """FG-ADDR-003: address pools do not overlap, and no loopback falls inside a /31 pool."""
    a = fabric.settings.addressing
    pools: dict[str, IPv4Network] = {
        "loopbacks.leaf": a.loopbacks.leaf,
        "loopbacks.spine": a.loopbacks.spine,
        "loopbacks.core": a.loopbacks.core,
        "host_p2p": a.host_p2p,
        "leaf_spine_p2p": a.leaf_spine_p2p,
        "spine_core_p2p": a.spine_core_p2p,
    }
    names = list(pools)
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            if pools[x].overlaps(pools[y]):
                yield Finding(
                    "FG-ADDR-003",
                    Severity.ERROR,
                    "fabric.addressing",
                    f"pool {x} {pools[x]} overlaps {y} {pools[y]}",
                    "make the pools disjoint",
                    fabric.pos("fabric", "addressing", *y.split(".")),
                )
    p2p = [(n, pools[n]) for n in ("host_p2p", "leaf_spine_p2p", "spine_core_p2p")]
    for name, sw in fabric.switches.items():
        ip = IPv4Address(sw.loopback)
        for pool_name, net in p2p:
            if ip in net:
                yield Finding(
                    "FG-ADDR-003",
                    Severity.ERROR,
                    name,
                    f"loopback {sw.loopback} lies inside the {pool_name} pool {net}",
                    "take loopbacks from the loopback pools",
                    sw.src,
                )


def asns(fabric: Fabric) -> Iterator[Finding]:
    """FG-ASN-001: unique leaf ASNs (when the scheme says so) and no ASN shared across tiers."""
    unique_leaves = fabric.settings.asn.leaf == "unique"
    by_asn: dict[int, list[tuple[Role, int | None, str]]] = defaultdict(list)
    for name, sw in fabric.switches.items():
        by_asn[sw.asn].append((sw.role, sw.pod, name))
    for asn, users in sorted(by_asn.items()):
        roles = {r for r, _, _ in users}
        leaves = sorted(n for r, _, n in users if r is Role.LEAF)
        if len(roles) > 1:
            who = ", ".join(sorted(n for _, _, n in users)[:6])
            yield Finding(
                "FG-ASN-001",
                Severity.ERROR,
                f"AS{asn}",
                f"shared by different tiers ({who}); eBGP between them would not come up",
                "give each tier its own ASN range",
                _asn_pos(fabric, [n for _, _, n in users]),
            )
        elif unique_leaves and len(leaves) > 1:
            yield Finding(
                "FG-ASN-001",
                Severity.ERROR,
                f"AS{asn}",
                f"shared by leaves {', '.join(leaves[:6])} under the unique-per-leaf scheme",
                "give each leaf its own ASN or set fabric.asn.leaf: shared",
                _asn_pos(fabric, leaves),
            )


def _asn_pos(fabric: Fabric, names: list[str]) -> SourcePos | None:
    """Where the first switch (by name) that holds the clashing ASN is defined, else the fabric's ASN scheme."""
    for name in sorted(names):
        src = fabric.switches[name].src
        if src is not None:
            return src
    return fabric.pos("fabric", "asn")


CHECKS = (unique_loopbacks, unique_subnets, pools_disjoint, asns)
