"""Shared wording for the plan's text and Markdown forms: headline numbers, grouped device lists."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from fabricgen.inventory.units import format_speed
from fabricgen.plan.model import Plan

_NUM = re.compile(r"(\d+)")
_PAREN = re.compile(r" \([^)]*\)")


def natural(name: str) -> tuple[object, ...]:
    """Sort key that orders ``leaf2`` before ``leaf10``."""
    return tuple(int(p) if p.isdigit() else p for p in _NUM.split(name))


def span(names: list[str]) -> str:
    """``a, b`` for a few names; ``first … last`` for many."""
    items = sorted(names, key=natural)
    if len(items) <= 3:
        return ", ".join(items)
    return f"{items[0]} … {items[-1]}"


def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"−{-n:,}" if n < 0 else "0"


def ratio(x: float | None) -> str:
    return "∞" if x is None else f"{x:.2f}:1"


def bw(gbps: int) -> str:
    return f"{gbps / 1000:,.1f}T" if gbps >= 1000 else format_speed(gbps)


def headline(plan: Plan) -> str:
    """One sentence: what is added, removed and touched."""
    c = plan.topology["counts"]
    cap = plan.capacity["totals"]
    gpus = cap["gpus"][1] - cap["gpus"][0]
    if not plan.has_changes:
        return "No changes: the inventories resolve to the same fabric."
    parts = []
    if c["switches_added"] or c["switches_removed"]:
        parts.append(
            f"{signed(c['switches_added'])} switches"
            + (f" / −{c['switches_removed']}" if c["switches_removed"] and c["switches_added"] else "")
        )
    if c["nodes_added"] or c["nodes_removed"]:
        parts.append(f"{signed(c['nodes_added'] - c['nodes_removed'])} servers ({signed(gpus)} GPUs)")
    links = c["links_added"] - c["links_removed"]
    if c["links_added"] or c["links_removed"]:
        parts.append(f"{signed(links)} cables")
    if c["links_moved"]:
        parts.append(f"{c['links_moved']:,} cables moved")
    existing = c["switches_changed"] + c["nodes_changed"]
    parts.append(f"{existing:,} existing devices change" if existing else "no existing device changes")
    if c["addresses_changed"] or c["asns_changed"]:
        parts.append(f"{c['addresses_changed']:,} addresses and {c['asns_changed']:,} ASNs renumbered")
    return ", ".join(parts) + "."


def grouped(devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Devices grouped by role and model: ``{role, model, count, names, units}``."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in devices:
        groups[d["role"], d["model"]].append(d)
    order = {"core": 0, "spine": 1, "leaf": 2, "server": 3}
    out = []
    for (role, model), items in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1])):
        units = sorted({d["unit"] for d in items if d.get("unit") is not None})
        out.append(
            {
                "role": role,
                "model": model,
                "count": len(items),
                "names": span([d["name"] for d in items]),
                "units": units,
            }
        )
    return out


def units_text(units: list[int]) -> str:
    """``[3, 4, 5, 9]`` → ``3–5, 9``."""
    if not units:
        return ""
    runs: list[list[int]] = [[units[0], units[0]]]
    for u in units[1:]:
        if u == runs[-1][1] + 1:
            runs[-1][1] = u
        else:
            runs.append([u, u])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)


def reasons_summary(changed: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """Changed devices whose reasons read the same once names are stripped, grouped: (role, count, why)."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for d in changed:
        why = "; ".join(r if r.startswith("QoS") else _PAREN.sub("", r) for r in d["reasons"])
        groups[d["role"], why].append(d["name"])
    return [(f"{role}: {span(names)}", len(names), why) for (role, why), names in groups.items()]


def tier_rows(plan: Plan) -> list[dict[str, str]]:
    """Per tier, before → after: switches, ratio, worst, one upper down, free cages."""
    rows = []
    for t in plan.capacity["tiers"]:
        a, b = t["before"] or {}, t["after"] or {}
        has_up = bool(b.get("up_gbps") or a.get("up_gbps"))

        def pair(key: str, fmt: str = "n", a: dict[str, Any] = a, b: dict[str, Any] = b) -> str:
            va, vb = a.get(key), b.get(key)
            if fmt == "r":  # a side with nothing above (a two-tier fabric's spines) reads "–", as in validate
                sa = ratio(va) if a.get("up_gbps") else "–"
                sb = ratio(vb) if b.get("up_gbps") else "–"
            else:
                sa, sb = (f"{va:,}" if va is not None else "–"), (f"{vb:,}" if vb is not None else "–")
            return sb if sa == sb else f"{sa} → {sb}"

        rows.append(
            {
                "tier": t["tier"] + (f" (target {t['target']:g}:1)" if has_up and t.get("target") else ""),
                "switches": pair("devices"),
                "ratio": pair("ratio", "r") if has_up else "–",
                "worst": pair("worst_ratio", "r") if has_up else "–",
                "one_up_down": pair("worst_one_upper_down", "r") if has_up else "–",
                "free": pair("cages_free"),
            }
        )
    return rows


def totals_rows(plan: Plan) -> list[tuple[str, str, str, str]]:
    out = []
    for key in ("gpus", "nodes", "switches", "links"):
        a, b = plan.capacity["totals"][key]
        out.append(("GPUs" if key == "gpus" else key, f"{a:,}", f"{b:,}", signed(b - a)))
    return out
