"""Text forms of reports, as rich tables (plain ASCII-safe text when not on a terminal)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from fabricgen.checks import Finding, Severity
from fabricgen.inventory.units import format_speed


def ratio_text(value: float | None) -> str:
    """``1.0`` → ``1.00:1``; ``None`` (nothing above) → ``∞``."""
    return "∞" if value is None else f"{value:.2f}:1"


def bw_text(gbps: int) -> str:
    if gbps >= 1000:
        return f"{gbps / 1000:,.1f}T"
    return format_speed(gbps)


def print_summary(console: Console, summary: dict[str, Any]) -> None:
    t = summary["totals"]
    models = ", ".join(f"{n}× {m}" for m, n in t["switches_by_model"].items())
    console.print(
        f"[bold]{summary['fabric']}[/bold]: {t['gpus']:,} GPUs on {t['nodes']:,} nodes, {t['nics']:,} backend NICs, "
        f"{t['switches']:,} switches ({models}), {t['links']:,} links"
    )
    if "intent" in summary:
        i = summary["intent"]
        console.print(
            f"intent: {i['units']} units (spines sized for {i['planned_units']}) × {i['nodes_per_unit']} × "
            f"{i['server']}, {i['rails']} rails, {i['tiers']} tiers: {i['spines_per_pod']} spines per pod × "
            f"{i['pods']} pod(s), {i['cores']} cores"
        )
    table = Table(title="Capacity per tier", title_justify="left")
    for col in (
        "tier",
        "switches",
        "cages used",
        "cages free",
        "down",
        "up",
        "ratio",
        "worst",
        "worst, 1 upper down",
        "worst, 1 uplink down",
    ):
        table.add_column(col, justify="left" if col == "tier" else "right")
    targets = summary["targets"]
    for row in summary["tiers"]:
        has_up = row["up_gbps"] > 0
        target = targets.get(row["tier"])
        table.add_row(
            row["tier"] + (f" (target {target:g}:1)" if has_up and target else ""),
            f"{row['devices']:,}",
            f"{row['cages_used']:,}",
            f"{row['cages_free']:,}",
            bw_text(row["down_gbps"]),
            bw_text(row["up_gbps"]) if has_up else "–",
            ratio_text(row["ratio"]) if has_up else "–",
            ratio_text(row["worst_ratio"]) if has_up else "–",
            ratio_text(row["worst_one_upper_down"]) if has_up else "–",
            ratio_text(row["worst_one_uplink_down"]) if has_up else "–",
        )
    console.print(table)
    if summary["worst_leaves"]:
        worst = Table(title="Worst leaves", title_justify="left")
        for col in ("leaf", "down", "up", "ratio", "1 spine down", "1 uplink down"):
            worst.add_column(col, justify="left" if col == "leaf" else "right")
        for row in summary["worst_leaves"]:
            worst.add_row(
                row["name"],
                bw_text(row["down_gbps"]),
                bw_text(row["up_gbps"]),
                ratio_text(row["ratio"]),
                ratio_text(row["one_spine_down"]),
                ratio_text(row["one_uplink_down"]),
            )
        console.print(worst)
    cables = Table(title="Cables", title_justify="left")
    for col in ("link", "type", "length", "count"):
        cables.add_column(col, justify="right" if col in ("length", "count") else "left")
    for row in summary["cables"]:
        cables.add_row(row["kind"], row["type"], f"{row['length_m']:g} m", f"{row['count']:,}")
    console.print(cables)
    for d in summary["defaulted_cable_lengths"]:
        console.print(f"note: {d['kind']} links without length_m assume the default {d['length_m']:g} m")


_STYLE = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def print_findings(console: Console, findings: list[Finding]) -> None:
    for f in findings:
        console.print(str(f), style=_STYLE[f.severity], highlight=False, markup=False, soft_wrap=True)
    counts = {s: sum(1 for f in findings if f.severity is s) for s in Severity}
    console.print(
        f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} info",
        highlight=False,
    )
