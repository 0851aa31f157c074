"""Cabling: speeds on both ends, even uplink spread, rail alignment, unconnected NICs, dangling cables."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Role
from fabricgen.inventory.units import format_speed
from fabricgen.topology.model import End, Fabric, PortKind


def _end_speed(fabric: Fabric, end: End) -> int | None:
    port = fabric.port(end.device, end.port)
    if port is not None:
        return port.speed
    node = fabric.nodes.get(end.device)
    if node is not None:
        for nic in node.nics:
            if nic.ifname == end.port:
                return nic.speed
    return None


def speed_match(fabric: Fabric) -> Iterator[Finding]:
    """FG-CBL-001: both ends of a link must run the same speed (NIC–leaf links included)."""
    links = fabric.links
    # of two ends that differ, at least one runs other than its link's speed: only the links of such ends are
    # looked at end by end (a walk over the ports and NICs, without a lookup per end)
    suspects = {p.link for sw in fabric.switches.values() for p in sw.ports if p.speed != links[p.link].speed}
    suspects.update(
        nic.link
        for node in fabric.nodes.values()
        for nic in node.nics
        if nic.link is not None and nic.speed != links[nic.link].speed
    )
    for index in sorted(suspects):
        link = links[index]
        if link.b is None:
            continue
        a, b = _end_speed(fabric, link.a), _end_speed(fabric, link.b)
        if a is not None and b is not None and a != b:
            yield Finding(
                "FG-CBL-001",
                Severity.ERROR,
                f"{link.a.device}:{link.a.port}",
                f"runs {format_speed(a)} but its peer {link.b.device}:{link.b.port} runs {format_speed(b)}",
                "set `speed:` on the link to a mode both ends support (breaking out the faster cage)",
                link.src,
            )


def uplink_spread(fabric: Fabric) -> Iterator[Finding]:
    """FG-CBL-002: a switch's uplink bandwidth is split equally over its upper-tier peers (even ECMP)."""
    for name, sw in fabric.switches.items():
        per_peer: dict[str, int] = defaultdict(int)
        for p in sw.uplinks():
            per_peer[p.peer_device] += p.speed
        if len(set(per_peer.values())) > 1:
            detail = ", ".join(f"{peer} {format_speed(bw)}" for peer, bw in sorted(per_peer.items()))
            yield Finding(
                "FG-CBL-002",
                Severity.ERROR,
                name,
                f"uplinks are uneven over its upper tier: {detail}",
                "give each upper-tier switch the same number of links at the same speed",
                sw.src,
            )


def rail_alignment(fabric: Fabric) -> Iterator[Finding]:
    """FG-CBL-003: NIC *i* of every node lands on the rail-*i* leaf of the node's unit."""
    nics_by_leaf: dict[str, list[tuple[str, int, int | None, SourcePos | None]]] = defaultdict(list)
    for node in fabric.nodes.values():
        for nic in node.nics:
            if nic.peer_device is not None:
                cable = fabric.links[nic.link].src if nic.link is not None else None  # point at the cable
                nics_by_leaf[nic.peer_device].append((f"{node.name}:{nic.ifname}", nic.rail, node.unit, cable))
    for leaf_name, nics in sorted(nics_by_leaf.items()):
        leaf = fabric.switches.get(leaf_name)
        if leaf is None:
            continue
        if leaf.rails:
            rails = set(leaf.rails)
            declared = True
        else:
            counts = Counter(r for _, r, _, _ in nics)
            top = max(counts.values())
            rails = {min(r for r, c in counts.items() if c == top)}
            declared = False
        rail_text = ", ".join(str(r) for r in sorted(rails))
        for nic_name, rail, unit, cable in nics:
            if rail not in rails:
                how = "serves" if declared else "mostly carries"
                yield Finding(
                    "FG-CBL-003",
                    Severity.ERROR,
                    nic_name,
                    f"rail {rail} NIC lands on {leaf_name}, which {how} rail {rail_text}",
                    f"move it to the rail-{rail} leaf of its unit",
                    cable or leaf.src,
                )
            elif leaf.unit is not None and unit is not None and unit != leaf.unit:
                yield Finding(
                    "FG-CBL-003",
                    Severity.ERROR,
                    nic_name,
                    f"node of unit {unit} lands on {leaf_name} of unit {leaf.unit}",
                    "cable each node to the leaves of its own scalable unit",
                    cable or leaf.src,
                )


def unconnected_nics(fabric: Fabric) -> Iterator[Finding]:
    """FG-CBL-004: every backend NIC of every node is cabled to a leaf."""
    for node in fabric.nodes.values():
        missing = [n for n in node.nics if n.peer_device is None]
        if missing:
            names = ", ".join(f"{n.ifname} (rail {n.rail})" for n in missing)
            yield Finding(
                "FG-CBL-004",
                Severity.ERROR,
                node.name,
                f"{len(missing)} of {len(node.nics)} backend NICs are not cabled: {names}",
                "cable each to the leaf of its rail; an uncabled NIC idles its GPU's network share",
                node.src,
            )


def dangling(fabric: Fabric) -> Iterator[Finding]:
    """FG-CBL-005: a cable with only one end landed."""
    for link in fabric.links:
        if link.b is None:
            yield Finding(
                "FG-CBL-005",
                Severity.WARNING,
                f"{link.a.device}:{link.a.port}",
                f"cable ({link.cable}, {link.length_m:g} m) has no far end",
                "land it or remove it from the cabling plan",
                link.src,
            )


def leaf_without_hosts(fabric: Fabric) -> Iterator[Finding]:
    """FG-CBL-006 (info): a leaf with uplinks but no host port yet, e.g. built ahead for a unit."""
    for name, sw in fabric.switches.items():
        if (
            sw.role is Role.LEAF
            and any(True for _ in sw.uplinks())
            and not any(p.kind is PortKind.HOST for p in sw.ports)
        ):
            yield Finding(
                "FG-CBL-006",
                Severity.INFO,
                name,
                "has uplinks but no servers yet",
                "expected while a unit is being filled",
                sw.src,
            )


CHECKS = (speed_match, uplink_spread, rail_alignment, unconnected_nics, dangling, leaf_without_hosts)
