"""Capacity: oversubscription per switch and tier, failure cases, port budgets and spine radix."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterator

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Role
from fabricgen.inventory.sonic_platform import sonic_platform
from fabricgen.inventory.units import format_speed, parse_breakout
from fabricgen.topology.capacity import loads, tier_load
from fabricgen.topology.model import Fabric, PortKind


def _r(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.2f}:1"


def _tb(gbps: float) -> str:
    return f"{gbps / 1000:g}T" if gbps >= 1000 else f"{gbps:g}G"


def _target(fabric: Fabric, role: Role) -> float:
    return fabric.targets.leaf_ratio if role is Role.LEAF else fabric.targets.spine_ratio


def oversubscription(fabric: Fabric) -> Iterator[Finding]:
    """FG-CAP-001 per switch and FG-CAP-002 per tier: ratio above the tier's target; FG-CAP-005: a switch with
    downlinks and no uplink."""
    all_loads = loads(fabric)
    has_upper = {
        Role.LEAF: any(s.role is Role.SPINE for s in fabric.switches.values()),
        Role.SPINE: any(s.role is Role.CORE for s in fabric.switches.values()),
    }
    for name, load in all_loads.items():
        if load.role is Role.CORE or not has_upper[load.role] or load.down_gbps == 0:
            continue
        target = _target(fabric, load.role)
        if load.up_gbps == 0:
            yield Finding(
                "FG-CAP-005",
                Severity.ERROR,
                name,
                f"{load.role} has {_tb(load.down_gbps)} down and no uplink",
                "cable its uplinks; everything below it is cut off",
                fabric.switches[name].src,
            )
        elif load.ratio > target + 1e-9:
            yield Finding(
                "FG-CAP-001",
                Severity.ERROR,
                name,
                f"oversubscribed {_r(load.ratio)} ({_tb(load.down_gbps)} down / {_tb(load.up_gbps)} up), "
                f"target {_r(target)}",
                f"add {_tb(load.down_gbps / target - load.up_gbps)} of uplinks",
                fabric.switches[name].src,
            )
    for role in (Role.LEAF, Role.SPINE):
        if not has_upper[role]:
            continue
        tier = tier_load(role, all_loads.values())
        target = _target(fabric, role)
        if tier.up_gbps and tier.ratio > target + 1e-9:
            yield Finding(
                "FG-CAP-002",
                Severity.ERROR,
                f"{role} tier",
                f"oversubscribed {_r(tier.ratio)} ({_tb(tier.down_gbps)} down / {_tb(tier.up_gbps)} up "
                f"over {tier.devices} switches), target {_r(target)}",
                "add uplinks or upper-tier switches",
                fabric.pos("fabric", "oversubscription", str(role)),
            )


def failure_cases(fabric: Fabric) -> Iterator[Finding]:
    """FG-CAP-003 one upper switch down, FG-CAP-004 one uplink down (against the failure targets)."""
    t = fabric.targets
    for name, load in loads(fabric).items():
        if load.role is Role.CORE or load.up_gbps == 0 or load.down_gbps == 0:
            continue
        sw = fabric.switches[name]
        upper = "spine" if load.role is Role.LEAF else "core"
        if math.isinf(load.one_upper_down):
            peers = {p.peer_device for p in sw.uplinks()}
            yield Finding(
                "FG-CAP-003",
                Severity.ERROR,
                name,
                f"all uplinks go to one {upper} ({', '.join(sorted(peers))}): losing it isolates the "
                f"{_tb(load.down_gbps)} below",
                f"spread the uplinks over at least two {upper}s",
                sw.src,
            )
        elif t.one_spine_down is not None and load.one_upper_down > t.one_spine_down + 1e-9:
            yield Finding(
                "FG-CAP-003",
                Severity.WARNING,
                name,
                f"with one {upper} down the ratio is {_r(load.one_upper_down)}, above the failure target "
                f"{_r(t.one_spine_down)}",
                f"add {upper}s or uplinks",
                sw.src,
            )
        if t.one_uplink_down is not None and load.one_uplink_down > t.one_uplink_down + 1e-9:
            yield Finding(
                "FG-CAP-004",
                Severity.WARNING,
                name,
                f"with one uplink down the ratio is {_r(load.one_uplink_down)}, above the failure target "
                f"{_r(t.one_uplink_down)}",
                "add uplinks",
                sw.src,
            )


def port_budget(fabric: Fabric) -> Iterator[Finding]:
    """FG-PORT-001 cages beyond the model, FG-PORT-002 mixed breakouts in a cage, FG-PORT-003 bad modes."""
    models = fabric.catalog.switches
    for name, sw in fabric.switches.items():
        model = models[sw.model]
        modes = {parse_breakout(m) for m in model.breakouts}
        by_cage: dict[int, set[int]] = defaultdict(set)
        beyond: list[str] = []
        for p in sw.ports:
            by_cage[p.cage].add(p.breakout)
            if p.cage > model.ports:
                beyond.append(p.name)
            if (p.breakout, p.speed) not in modes:
                yield Finding(
                    "FG-PORT-003",
                    Severity.ERROR,
                    f"{name}:{p.name}",
                    f"{format_speed(p.speed)} is not a mode of {sw.model} "
                    f"(native {format_speed(model.native_speed)}; modes {', '.join(model.breakouts)})",
                    "set the link speed to one the model supports",
                    sw.src,
                )
        if beyond or len(by_cage) > model.ports:
            mix = Counter(f"{next(iter(b))}x" for b in by_cage.values())
            detail = ", ".join(f"{n} at {m}" for m, n in sorted(mix.items()))
            extra = f"; beyond the front panel: {', '.join(beyond[:4])}" if beyond else ""
            yield Finding(
                "FG-PORT-001",
                Severity.ERROR,
                name,
                f"uses {len(by_cage)} cages ({detail}) of the {model.ports} a {sw.model} has{extra}",
                "move links to another switch or use a larger model",
                sw.src,
            )
        for cage, factors in sorted(by_cage.items()):
            if len(factors) > 1:
                yield Finding(
                    "FG-PORT-002",
                    Severity.ERROR,
                    f"{name}:cage{cage}",
                    f"cage {cage} is used with different breakouts ({', '.join(f'{f}x' for f in sorted(factors))})",
                    "all sub-ports of a cage run the same mode",
                    sw.src,
                )


def spine_radix(fabric: Fabric) -> Iterator[Finding]:
    """FG-TOPO-001: more leaf uplinks towards a spine group than its radix holds; FG-TOPO-002 partial mesh."""
    models = fabric.catalog.switches
    spines_by_pod: dict[int | None, list[str]] = defaultdict(list)
    for s in fabric.switches.values():
        if s.role is Role.SPINE:
            spines_by_pod[s.pod].append(s.name)
    if not spines_by_pod:
        return
    leaves_by_pod: dict[int | None, list[str]] = defaultdict(list)
    for s in fabric.switches.values():
        if s.role is Role.LEAF:
            pod = s.pod if s.pod in spines_by_pod else (None if None in spines_by_pod else s.pod)
            leaves_by_pod[pod].append(s.name)
    for pod, spines in sorted(spines_by_pod.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        leaves = leaves_by_pod.get(pod, [])
        spine_set = set(spines)
        for spine in spines:
            sw = fabric.switches[spine]
            model = models[sw.model]
            down = [p for p in sw.ports if p.kind is PortKind.DOWN]
            if not down:
                continue
            speed = down[0].speed
            radix = model.ports * next((c for c, s in map(parse_breakout, model.breakouts) if s == speed), 1)
            per_leaf = max(Counter(p.peer_device for p in down).values())
            need = len(leaves) * per_leaf
            if need > radix:
                yield Finding(
                    "FG-TOPO-001",
                    Severity.ERROR,
                    spine,
                    f"{len(leaves)} leaves × {per_leaf} links = {need} ports at {format_speed(speed)}, "
                    f"but a {sw.model} has {radix}",
                    "split the leaves into pods under a core tier, or use a larger spine",
                    sw.src,
                )
        for leaf in leaves:
            reached = {p.peer_device for p in fabric.switches[leaf].uplinks()} & spine_set
            if reached and len(reached) < len(spine_set):
                missing = sorted(spine_set - reached)
                yield Finding(
                    "FG-TOPO-002",
                    Severity.ERROR,
                    leaf,
                    f"reaches {len(reached)} of {len(spine_set)} spines (missing {', '.join(missing[:4])})",
                    "cable every leaf to every spine of its pod for even ECMP",
                    fabric.switches[leaf].src,
                )


def sonic_modes(fabric: Fabric) -> Iterator[Finding]:
    """FG-PORT-004: a cage a SONiC switch uses in a layout its platform has no breakout mode for (the platform's own
    ``platform.json``, :mod:`fabricgen.inventory.sonic_platform`); one finding per model and layout, with the count.
    FG-PORT-003 already reports a layout the catalog model lacks; this one is the box's own list, which can be
    shorter (the SN5600 runs no 8x100G under SONiC)."""
    groups: dict[tuple[str, int, int], list[tuple[str, int]]] = defaultdict(list)
    first: dict[tuple[str, int, int], SourcePos | None] = {}
    models = fabric.catalog.switches
    for name, sw in fabric.switches.items():
        facts = sonic_platform(sw.model) if sw.hwsku else None
        if facts is None:
            continue
        modes = {parse_breakout(m) for m in models[sw.model].breakouts}
        seen: set[int] = set()
        for p in sw.ports:
            if p.cage in seen or p.cage > facts.front or (p.breakout, p.speed) not in modes:
                continue  # FG-PORT-001/003 report those
            seen.add(p.cage)
            if facts.mode_for(p.cage, p.breakout, p.speed) is None:
                key = (sw.model, p.breakout, p.speed)
                groups[key].append((name, p.cage))
                first.setdefault(key, sw.src)
    for (model, breakout, speed), cages in sorted(groups.items()):
        facts = sonic_platform(model)
        assert facts is not None
        switches = sorted({n for n, _ in cages})
        sample = ", ".join(f"{n} cage {c}" for n, c in cages[:3]) + (" …" if len(cages) > 3 else "")
        yield Finding(
            "FG-PORT-004",
            Severity.ERROR,
            model,
            f"{len(cages)} cage(s) on {len(switches)} SONiC switch(es) ({sample}) run {breakout}x{speed}G, a layout "
            f"{facts.platform} has no breakout mode for; its cages run {', '.join(facts.supported(cages[0][1]))}",
            "choose a breakout and speed of the platform's list",
            first[model, breakout, speed],
        )


CHECKS = (oversubscription, failure_cases, port_budget, sonic_modes, spine_radix)
