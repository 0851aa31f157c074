"""The capacity summary: what a network engineer wants at a glance, as data first, then as text."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from fabricgen.inventory.schema import Role
from fabricgen.topology.capacity import cable_counts, loads, tier_load
from fabricgen.topology.model import Fabric


def _num(x: float) -> float | None:
    """JSON has no infinity: a ratio with nothing above is reported as null."""
    return None if math.isinf(x) else round(x, 4)


def summarize(fabric: Fabric, worst: int = 5) -> dict[str, Any]:
    """Per tier: devices, cages used/free, bandwidth down/up, ratios (also under failure); worst switches;
    totals: GPUs, NICs, switches by model, cables by type and length."""
    all_loads = loads(fabric)
    tiers = []
    for role in (Role.LEAF, Role.SPINE, Role.CORE):
        t = tier_load(role, all_loads.values())
        if t.devices == 0:
            continue
        tiers.append(
            {
                "tier": role.value,
                "devices": t.devices,
                "cages_used": t.cages_used,
                "cages_free": t.cages_total - t.cages_used,
                "down_gbps": t.down_gbps,
                "up_gbps": t.up_gbps,
                "ratio": _num(t.ratio) if t.up_gbps else None,
                "worst_ratio": _num(t.worst_ratio) if t.up_gbps else None,
                "worst_one_upper_down": _num(t.worst_one_upper_down) if t.up_gbps else None,
                "worst_one_uplink_down": _num(t.worst_one_uplink_down) if t.up_gbps else None,
            }
        )
    leaves = sorted(
        (x for x in all_loads.values() if x.role is Role.LEAF and x.up_gbps), key=lambda x: (-x.ratio, x.name)
    )[:worst]
    models = Counter(s.model for s in fabric.switches.values())
    nics = Counter(n.model for node in fabric.nodes.values() for n in node.nics)
    servers = Counter(n.model for n in fabric.nodes.values())
    cables = [
        {"kind": kind, "type": ctype, "length_m": length, "count": count}
        for (kind, ctype, length), count in sorted(cable_counts(fabric).items())
    ]
    defaulted = sorted({(kind.value, length) for kind, length in
                        {(link.kind, link.length_m) for link in fabric.links if link.length_defaulted}})
    out: dict[str, Any] = {
        "fabric": fabric.name,
        "totals": {
            "gpus": fabric.gpus,
            "nodes": len(fabric.nodes),
            "nics": fabric.nics,
            "switches": len(fabric.switches),
            "links": len(fabric.links),
            "switches_by_model": dict(sorted(models.items())),
            "servers_by_model": dict(sorted(servers.items())),
            "nics_by_model": dict(sorted(nics.items())),
        },
        "targets": {"leaf": fabric.targets.leaf_ratio, "spine": fabric.targets.spine_ratio},
        "tiers": tiers,
        "worst_leaves": [
            {
                "name": x.name,
                "down_gbps": x.down_gbps,
                "up_gbps": x.up_gbps,
                "ratio": _num(x.ratio),
                "one_spine_down": _num(x.one_upper_down),
                "one_uplink_down": _num(x.one_uplink_down),
            }
            for x in leaves
        ],
        "cables": cables,
        "defaulted_cable_lengths": [{"kind": k, "length_m": m} for k, m in defaulted],
    }
    if fabric.intent is not None:
        i = fabric.intent
        out["intent"] = {
            "server": i.server,
            "units": i.units,
            "planned_units": i.planned_units,
            "nodes_per_unit": i.nodes_per_unit,
            "rails": i.rails,
            "spines_per_pod": i.spines_per_pod,
            "pods": i.pods,
            "cores": i.cores,
            "tiers": 3 if i.three_tier else 2,
        }
    return out
