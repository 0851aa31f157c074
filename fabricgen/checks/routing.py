"""Underlay routing: the prefix limit against what the fabric announces, BFD timers against each platform's range,
and what a drain leaves behind (fabricgen.topology.routing holds the facts)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Role
from fabricgen.topology.model import Fabric, PortKind, Switch
from fabricgen.topology.routing import BFD_RANGES, routing_facts

_SHOWN = 3
"""Names a finding lists before it says how many more there are."""

SONIC_BFDD = (
    "community SONiC runs FRR's bfdd in the bgp container only with DEVICE_METADATA|localhost "
    "frr_mgmt_framework_config true (docker-fpm-frr supervisord.conf.common.j2); fabricgen's split routing mode "
    "keeps bgpcfgd, which runs none"
)
"""Why BFD on SONiC needs the operator (FG-BFD-002)."""


def _names(names: list[str]) -> str:
    n = len(names)
    return ", ".join(names[:_SHOWN]) + (f" and {n - _SHOWN:,} more" if n > _SHOWN else "")


def _switches(n: int) -> str:
    return f"{n:,} switch{'' if n == 1 else 'es'}"


def prefix_limit(fabric: Fabric) -> Iterator[Finding]:
    """FG-BGP-001: ``fabric.routing.maximum_prefix`` is below what one neighbor sends a switch, so sessions are
    torn down as soon as they converge. FG-BGP-002: what one neighbor sends has reached ``warning_pct`` of the
    limit, so growth soon trips it (a written limit only: the computed one is at least twice what is sent)."""
    if not fabric.switches:
        return
    facts = routing_facts(fabric)
    where = fabric.pos("fabric", "routing", "maximum_prefix") if not facts.computed else fabric.pos("fabric")
    sent = facts.received_max
    limit = facts.maximum_prefix
    if sent > limit:
        yield Finding(
            "FG-BGP-001",
            Severity.ERROR,
            "fabric.routing.maximum_prefix",
            f"maximum-prefix {limit:,} is below the {sent:,} prefixes one neighbor sends a switch (the fabric "
            f"announces {facts.announced:,}): every session over the limit is torn down as it converges",
            "raise fabric.routing.maximum_prefix with room for growth, or remove it: fabricgen then sizes it at "
            "twice what is sent, rounded up to 1, 2 or 5 x 10^k",
            where,
        )
    elif sent * 100 >= limit * facts.warning_pct:
        yield Finding(
            "FG-BGP-002",
            Severity.WARNING,
            "fabric.routing.maximum_prefix",
            f"one neighbor sends a switch up to {sent:,} prefixes, {sent * 100 // limit}% of maximum-prefix "
            f"{limit:,} (devices warn at {facts.warning_pct}%): the next expansion may tear sessions down",
            "raise fabric.routing.maximum_prefix before the fabric grows",
            where,
        )


def bfd_ranges(fabric: Fabric) -> Iterator[Finding]:
    """FG-BFD-001: the BFD interval or multiplier is outside a platform's documented range; one finding per
    platform and timer, with the switches it affects. FG-BFD-002 (info): BFD on SONiC switches, whose bgp container
    runs no bfdd unless the operator turns it on (``SONIC_BFDD``); apply refuses BFD where none runs."""
    b = fabric.settings.bfd
    if not b.enabled:
        return
    by_platform: dict[str, list[str]] = {}
    for name in sorted(fabric.switches):
        by_platform.setdefault(fabric.switches[name].platform, []).append(name)
    for platform, names in sorted(by_platform.items()):
        rng = BFD_RANGES.get(platform)
        if rng is None:
            continue
        for field, value, (lo, hi), unit in (("interval_ms", b.interval_ms, rng.interval_ms, " ms"),
                                             ("multiplier", b.multiplier, rng.multiplier, "")):
            if not lo <= value <= hi:
                yield Finding(
                    "FG-BFD-001",
                    Severity.ERROR,
                    f"fabric.bfd.{field}",
                    f"{value:,}{unit} is outside {platform}'s range {lo:,}-{hi:,}{unit} ({rng.source}): the "
                    f"configuration of {_switches(len(names))} ({_names(names)}) would be refused",
                    f"choose a {field.replace('_ms', '')} every platform of the fabric accepts",
                    fabric.pos("fabric", "bfd", field) or fabric.pos("fabric"),
                )
    sonic = by_platform.get("sonic", [])
    if sonic:
        yield Finding(
            "FG-BFD-002",
            Severity.INFO,
            "sonic switches",
            f"BFD is rendered for {_switches(len(sonic))} ({_names(sonic)}), but {SONIC_BFDD}: apply refuses BFD "
            "on a switch without bfdd",
            "start bfdd in the bgp container (or set frr_mgmt_framework_config), or set fabric.bfd.enabled: false",
            fabric.pos("fabric", "bfd") or fabric.pos("fabric"),
        )


def _drain_pos(fabric: Fabric, sw: Switch) -> SourcePos | None:
    drain = fabric.settings.drain
    if sw.name in drain:
        return fabric.pos("fabric", "drain", drain.index(sw.name))
    return sw.src


def _uplink_peers(sw: Switch) -> dict[str, int]:
    """Upper-tier neighbors of ``sw`` and the Gb/s towards each."""
    peers: dict[str, int] = {}
    for p in sw.ports:
        if p.kind is PortKind.UP:
            peers[p.peer_device] = peers.get(p.peer_device, 0) + p.speed
    return peers


@dataclass(frozen=True, slots=True)
class UplinkLoss:
    """What the drained switches take from the switches below them (undrained switches with an upper tier)."""

    affected: int  # switches with at least one drained upper-tier neighbor
    worst: str  # the one keeping the least uplink capacity ("" when none is affected)
    worst_pct: int  # the share of its uplink Gb/s that goes to undrained neighbors
    stranded: dict[tuple[str, ...], list[str]]  # drained neighbors -> switches with no undrained uplink left


def uplink_loss(fabric: Fabric) -> UplinkLoss:
    """:class:`UplinkLoss` of ``fabric`` (linear in its ports)."""
    stranded: dict[tuple[str, ...], list[str]] = {}
    worst_pct, worst, affected = 100, "", 0
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        peers = _uplink_peers(sw)
        if sw.drained or not peers:
            continue
        gone = sorted(p for p in peers if p in fabric.switches and fabric.switches[p].drained)
        if not gone:
            continue
        affected += 1
        if len(gone) == len(peers):
            stranded.setdefault(tuple(gone), []).append(name)
        total = sum(peers.values())
        pct = 100 * (total - sum(peers[p] for p in gone)) // total
        if not worst or pct < worst_pct:
            worst_pct, worst = pct, name
    return UplinkLoss(affected, worst, worst_pct, stranded)


def drains(fabric: Fabric) -> Iterator[Finding]:
    """What the drained switches leave behind, one finding per cause:

    * FG-DRAIN-001 (error): switches every one of whose upper-tier neighbors is drained: a drain moves traffic
      only where another path exists, so these keep using the drained switches and lose redundancy entirely;
    * FG-DRAIN-002 (warning): a drained leaf with hosts: its routes stay (the hosts have no other leaf on that
      rail), so their traffic is not moved; take the nodes out of scheduling first;
    * FG-DRAIN-003 (info): how much uplink capacity the drain takes from the switches below it."""
    drained = [fabric.switches[n] for n in sorted(fabric.switches) if fabric.switches[n].drained]
    if not drained:
        return
    loss = uplink_loss(fabric)
    for tiers, names in loss.stranded.items():
        yield Finding(
            "FG-DRAIN-001",
            Severity.ERROR,
            ", ".join(tiers),
            f"draining {_names(list(tiers))} leaves {_switches(len(names))} ({_names(names)}) with no undrained "
            "uplink: their traffic stays on the drained switches, with no redundancy left",
            "drain fewer switches of that tier at once (N-1: keep one undrained uplink per switch)",
            _drain_pos(fabric, fabric.switches[tiers[0]]),
        )
    for sw in drained:
        hosts = sum(1 for p in sw.ports if p.kind is PortKind.HOST)
        if sw.role is Role.LEAF and hosts:
            yield Finding(
                "FG-DRAIN-002",
                Severity.WARNING,
                sw.name,
                f"a drain moves transit traffic only: the {hosts:,} host link{'s' if hosts != 1 else ''} behind "
                f"{sw.name} have no other leaf on their rail, so their traffic keeps flowing through it",
                "drain the nodes behind this leaf in the job scheduler before maintenance",
                _drain_pos(fabric, sw),
            )
    if loss.affected:
        yield Finding(
            "FG-DRAIN-003",
            Severity.INFO,
            _names([s.name for s in drained]),
            f"while drained, {_switches(loss.affected)} below lose uplink capacity; the worst, {loss.worst}, keeps "
            f"{loss.worst_pct}% of it",
            "",
            _drain_pos(fabric, drained[0]),
        )


CHECKS = (prefix_limit, bfd_ranges, drains)
