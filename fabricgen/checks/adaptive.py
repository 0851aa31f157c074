"""Adaptive routing: where the inventory turns it on, the NICs, the ports and the other tiers must go along.

Facts (Cumulus Linux "Equal Cost Multipath Load Sharing", adaptive routing section; NVIDIA DOCA "Out-of-order
Data Placement"): adaptive routing chooses an egress port per packet, so the packets of one RoCE flow arrive out
of order and every receiving NIC must place out-of-order data; Spectrum-4 "does not support adaptive routing on
800G links"; mixing adaptive-routing and non-adaptive-routing ECMP egress ports causes unexpected hashing.
"""

from __future__ import annotations

from collections.abc import Iterator

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Role
from fabricgen.topology.model import Fabric, PortKind, Switch

_SHOWN = 3
"""Names a finding lists before it says how many more there are."""

AR_800G_ASICS = frozenset({"Spectrum-4"})
"""ASICs on which Cumulus Linux runs adaptive routing at 400G and 200G but not on 800G links (Cumulus Linux
"Equal Cost Multipath Load Sharing": "does not support adaptive routing on 800G links")."""


def _names(names: list[str]) -> str:
    n = len(names)
    return ", ".join(names[:_SHOWN]) + (f" and {n - _SHOWN:,} more" if n > _SHOWN else "")


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 'es' if word.endswith('h') else 's'}"


def _on(fabric: Fabric) -> list[Switch]:
    return [fabric.switches[n] for n in sorted(fabric.switches) if fabric.switches[n].adaptive_routing]


def incapable_nics(fabric: Fabric) -> Iterator[Finding]:
    """FG-AR-001: adaptive routing is on, and NICs of the fabric do not place out-of-order RoCE data (the catalog's
    ``nics.<model>.adaptive_routing``). A switch that adapts spreads one flow's packets over its ports, so any
    NIC whose traffic crosses it receives them out of order; a NIC that cannot place them retransmits (go-back-N)
    instead. One finding per NIC model, with how many NICs and switches."""
    on = _on(fabric)
    if not on:
        return
    by_model: dict[str, list[str]] = {}
    first: dict[str, SourcePos | None] = {}
    for name in sorted(fabric.nodes):
        node = fabric.nodes[name]
        for nic in node.nics:
            spec = fabric.catalog.nics.get(nic.model)
            if spec is not None and not spec.adaptive_routing:
                by_model.setdefault(nic.model, []).append(f"{name}:{nic.ifname}")
                first.setdefault(nic.model, node.src)
    switches = [s.name for s in on]
    for model, nics in by_model.items():
        yield Finding(
            "FG-AR-001",
            Severity.ERROR,
            f"NIC {model}",
            f"adaptive routing is on on {_count(len(switches), 'switch')} ({_names(switches)}), but {model} does not "
            f"place out-of-order RoCE data: {_count(len(nics), 'NIC')} ({_names(nics)}) would receive reordered "
            "packets and retransmit",
            "turn adaptive_routing off on the tiers these NICs' traffic crosses, or use NICs whose catalog entry "
            "has adaptive_routing: true (ConnectX-7/8, BlueField-3 with the Spectrum-X profile, "
            "ROCE_ADAPTIVE_ROUTING_EN=1)",
            first[model],
        )


def ports_800g(fabric: Fabric) -> Iterator[Finding]:
    """FG-AR-002: adaptive routing on a Spectrum-4 switch with 800G switch-to-switch ports, where Cumulus Linux does
    not run it ("does not support adaptive routing on 800G links"; 400G and 200G only). One finding per model and
    role, with how many ports and switches."""
    groups: dict[tuple[str, Role], list[tuple[Switch, int]]] = {}
    for sw in _on(fabric):
        model = fabric.catalog.switches.get(sw.model)
        if model is None or model.asic not in AR_800G_ASICS:
            continue
        n = sum(1 for p in sw.ports if p.kind is not PortKind.HOST and p.speed >= 800)
        if n:
            groups.setdefault((sw.model, sw.role), []).append((sw, n))
    for (model_name, role), items in groups.items():
        ports = sum(n for _, n in items)
        names = [sw.name for sw, _ in items]
        yield Finding(
            "FG-AR-002",
            Severity.ERROR,
            f"{model_name} {role.value} switches",
            f"adaptive routing is on, but Spectrum-4 does not support it on 800G links: {_count(ports, 'port')} at "
            f"800G on {_count(len(names), 'switch')} ({_names(names)})",
            "run the fabric links at 400G (2x400G breakout) or set adaptive_routing: false on this tier",
            items[0][0].src,
        )


def _ecmps(fabric: Fabric, sw: Switch) -> bool:
    """Whether the switch chooses among equal-cost egress ports toward other switches: two or more uplinks,
    parallel links down to one switch, or (a core) two or more spines of one pod below it."""
    ups = sum(1 for p in sw.ports if p.kind is PortKind.UP)
    if ups >= 2:
        return True
    below: dict[object, int] = {}
    for p in sw.ports:
        if p.kind is not PortKind.DOWN:
            continue
        peer = fabric.switches.get(p.peer_device)
        key = (peer.pod if peer is not None else None) if sw.role is Role.CORE else p.peer_device
        below[key] = below.get(key, 0) + 1
    return any(n >= 2 for n in below.values())


def mixed_ecmp(fabric: Fabric) -> Iterator[Finding]:
    """FG-AR-003: adaptive routing is on on some switches that choose among equal-cost paths and off on others
    (Cumulus Linux: mixing adaptive-routing and non-adaptive-routing ECMP egress ports "causes unexpected
    hashing"): the flows one tier spreads are hashed again where the other tier chooses. Only switches that
    have a choice count (a two-tier fabric's spines with one link per leaf have none). One finding per role that
    hashes, with how many switches."""
    on = _on(fabric)
    if not on:
        return
    choosing = [fabric.switches[n] for n in sorted(fabric.switches) if _ecmps(fabric, fabric.switches[n])]
    adapting = [s.name for s in choosing if s.adaptive_routing]
    if not adapting:
        return
    hashing: dict[Role, list[Switch]] = {}
    for s in choosing:
        if not s.adaptive_routing:
            hashing.setdefault(s.role, []).append(s)
    for role, switches in hashing.items():
        names = [s.name for s in switches]
        yield Finding(
            "FG-AR-003",
            Severity.WARNING,
            f"{role.value} switches",
            f"adaptive routing is on on {_count(len(adapting), 'switch')} that choose among equal-cost paths "
            f"({_names(adapting)}) but off on {_count(len(names), role.value + ' switch')} that also do "
            f"({_names(names)}): what one tier spreads, the other hashes again",
            f"set adaptive_routing the same on every tier that has equal-cost paths (here the {role.value} tier)",
            switches[0].src,
        )


CHECKS = (incapable_nics, ports_800g, mixed_ecmp)
