"""Capacity before and after: totals, per-tier ratios (also with one spine/uplink down), free cages, the
worst leaf, and the tiers an expansion pushes over their target (reuses :func:`fabricgen.report.summary.summarize`)."""

from __future__ import annotations

from typing import Any

from fabricgen.report.summary import summarize
from fabricgen.topology.model import Fabric

TIER_FIELDS = (
    "devices",
    "cages_used",
    "cages_free",
    "down_gbps",
    "up_gbps",
    "ratio",
    "worst_ratio",
    "worst_one_upper_down",
    "worst_one_uplink_down",
)
TOTAL_FIELDS = ("gpus", "nodes", "nics", "switches", "links")


def _over(value: float | None, target: float | None) -> bool:
    """A ratio of ``None`` means nothing above (the top tier): never oversubscribed."""
    return value is not None and target is not None and value > target + 1e-9


def capacity_delta(old: Fabric, new: Fabric) -> dict[str, Any]:
    """Before/after capacity as data.

    ``totals``: {field: [before, after]}. ``tiers``: one row per tier present in either fabric with
    ``before``/``after`` dicts (``None`` when the tier is absent) and its target. ``worst_leaf``: the
    worst leaf before and after. ``crossings``: sentences naming each tier whose ratio (or one-spine-down
    ratio) goes over its target with this change. ``growth``: units still possible on the planned spines.
    """
    a, b = summarize(old, worst=1), summarize(new, worst=1)
    totals = {k: [a["totals"][k], b["totals"][k]] for k in TOTAL_FIELDS}
    tiers_a = {t["tier"]: t for t in a["tiers"]}
    tiers_b = {t["tier"]: t for t in b["tiers"]}
    targets = b["targets"]
    failure = new.targets.one_spine_down
    rows = []
    crossings: list[str] = []
    for tier in ("leaf", "spine", "core"):
        ta, tb = tiers_a.get(tier), tiers_b.get(tier)
        if ta is None and tb is None:
            continue
        target = targets.get(tier)
        rows.append(
            {
                "tier": tier,
                "target": target,
                "before": {k: ta[k] for k in TIER_FIELDS} if ta else None,
                "after": {k: tb[k] for k in TIER_FIELDS} if tb else None,
            }
        )
        for key, limit, what in (
            ("ratio", target, "aggregate ratio"),
            ("worst_ratio", target, "worst switch ratio"),
            ("worst_one_upper_down", failure, "worst ratio with one upper switch down"),
        ):
            before = ta.get(key) if ta else None
            after = tb.get(key) if tb else None
            if _over(after, limit) and not _over(before, limit):
                crossings.append(f"{tier} tier: {what} {_r(before)} → {_r(after)} crosses the target {limit:g}:1")
            elif _over(before, limit) and not _over(after, limit):
                crossings.append(f"{tier} tier: {what} {_r(before)} → {_r(after)} is back within {limit:g}:1")
    growth: dict[str, Any] | None = None
    if new.intent is not None:
        i = new.intent
        growth = {
            "units": i.units,
            "planned_units": i.planned_units,
            "units_left": i.planned_units - i.units,
            "tiers": 3 if i.three_tier else 2,
        }
    tier_change = None
    if old.intent is not None and new.intent is not None and old.intent.three_tier != new.intent.three_tier:
        tier_change = f"{2 + old.intent.three_tier} → {2 + new.intent.three_tier} tiers"
        crossings.append(f"the fabric goes from {tier_change}: new tier switches and a re-cabled spine tier")
    return {
        "totals": totals,
        "switches_by_model": [a["totals"]["switches_by_model"], b["totals"]["switches_by_model"]],
        "targets": {**targets, "one_spine_down": failure},
        "tiers": rows,
        "worst_leaf": [
            a["worst_leaves"][0] if a["worst_leaves"] else None,
            b["worst_leaves"][0] if b["worst_leaves"] else None,
        ],
        "crossings": crossings,
        "growth": growth,
    }


def _r(x: float | None) -> str:
    """``None`` is nothing above (see :func:`_over`): "–", as validate prints it."""
    return "–" if x is None else f"{x:.2f}:1"
