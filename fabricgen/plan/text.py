"""The plan for a terminal: a headline, then rich tables (capacity before/after, existing devices that
change and why, what is added, what to buy, checks), then the per-device config diffs."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from fabricgen.plan.model import Plan
from fabricgen.plan.present import grouped, headline, reasons_summary, tier_rows, totals_rows, units_text

MAX_ROWS = 40


def _table(title: str, *cols: str, right: tuple[str, ...] = ()) -> Table:
    t = Table(title=title, title_justify="left", title_style="bold")
    for c in cols:
        t.add_column(c, justify="right" if c in right else "left")
    return t


def print_plan(console: Console, plan: Plan, *, diffs: bool = True, max_rows: int = MAX_ROWS) -> None:
    console.print(f"[bold]Plan for {plan.fabric}[/bold]: {plan.base.source} → {plan.new.source}")
    console.print(headline(plan))
    if not plan.has_changes:
        return
    for line in plan.topology.get("risks", []):
        console.print(f"[red]risk:[/red] {line}", highlight=False)
    totals = _table("Before → after", "", "before", "after", "change", right=("before", "after", "change"))
    for row in totals_rows(plan):
        totals.add_row(*row)
    console.print(totals)
    tiers = _table(
        "Capacity per tier",
        "tier",
        "switches",
        "ratio",
        "worst",
        "worst, 1 upper down",
        "free cages",
        right=("switches", "ratio", "worst", "worst, 1 upper down", "free cages"),
    )
    for r in tier_rows(plan):
        tiers.add_row(r["tier"], r["switches"], r["ratio"], r["worst"], r["one_up_down"], r["free"])
    console.print(tiers)
    for line in plan.capacity["crossings"]:
        console.print(f"[red]![/red] {line}", highlight=False)
    growth = plan.capacity.get("growth")
    if growth:
        console.print(
            f"room to grow: {growth['units_left']} more units on the spines sized for "
            f"{growth['planned_units']} ({growth['tiers']} tiers)"
        )
    if plan.scaling:
        for line in plan.scaling.get("summary", []):
            console.print(f"scaling: {line}", highlight=False)

    changed = plan.topology["changed"]
    if changed:
        t = _table(f"Existing devices that change ({len(changed):,})", "devices", "count", "why", right=("count",))
        rows = reasons_summary(changed)
        for who, n, why in rows[:max_rows]:
            t.add_row(who, f"{n:,}", why)
        if len(rows) > max_rows:
            t.add_row(f"… {len(rows) - max_rows} more groups", "", "")
        console.print(t)
    else:
        console.print("No existing device changes.")
    for title, items in (("Added", plan.topology["added"]), ("Removed", plan.topology["removed"])):
        if not items:
            continue
        t = _table(title, "role", "model", "count", "units", "names", right=("count",))
        for g in grouped(items):
            t.add_row(g["role"], g["model"], f"{g['count']:,}", units_text(g["units"]), g["names"])
        console.print(t)
    c = plan.topology["counts"]
    if c["links_moved"] or c["links_changed"] or c["links_removed"]:
        console.print(
            f"cables: {c['links_added']:,} added, {c['links_removed']:,} removed, "
            f"{c['links_moved']:,} moved, {c['links_changed']:,} changed"
        )
    for s in plan.topology["settings"]:
        console.print(f"fabric setting: {s}", highlight=False)
    print_bom(console, plan)
    f = plan.findings
    if f["new"]:
        console.print(f"[red]Checks that newly fail ({len(f['new'])}):[/red]")
        for item in f["new"][:max_rows]:
            console.print(
                f"  {item['severity']} {item['code']} {item['subject']}: {item['message']}",
                markup=False,
                highlight=False,
            )
    if f["resolved"]:
        console.print(f"[green]Checks fixed by this change ({len(f['resolved'])})[/green]")
    console.print(f"checks on the new inventory: {f['errors_after']} error(s), {f['warnings_after']} warning(s)")
    if plan.configs:
        t = _table(
            "Configuration diffs", "device", "platform", "change", "+lines", "−lines", right=("+lines", "−lines")
        )
        for name, d in list(plan.configs.items())[:max_rows]:
            t.add_row(
                name,
                d.platform,
                d.change + (" (vs live)" if d.source == "live" else ""),
                f"{d.added:,}",
                f"{d.removed:,}",
            )
        if len(plan.configs) > max_rows:
            t.add_row(f"… {len(plan.configs) - max_rows} more", "", "", "", "")
        console.print(t)
        if diffs:
            for d in plan.configs.values():
                if d.change != "changed":
                    continue
                for line in d.text.splitlines():
                    style = (
                        "green"
                        if line.startswith("+")
                        else "red"
                        if line.startswith("-")
                        else ("cyan" if line.startswith("@@") else None)
                    )
                    console.print(Text(line, style=style or ""), soft_wrap=True)
    for note in plan.notes:
        console.print(f"note: {note}", highlight=False, markup=False)


def print_bom(console: Console, plan: Plan) -> None:
    b = plan.bom
    if not any(b.values()):
        console.print("Nothing to buy.")
        return
    t = _table("To buy", "item", "model / type", "length", "count", right=("length", "count"))
    for model, n in b["switches"].items():
        t.add_row("switch", model, "", f"{n:,}")
    for model, n in b["servers"].items():
        t.add_row("server", model, "", f"{n:,}")
    for model, n in b["nics"].items():
        t.add_row("NIC (in the servers)", model, "", f"{n:,}")
    for c in b["cables"]:
        t.add_row(f"cable, {c['kind']}", c["type"], f"{c['length_m']:g} m", f"{c['count']:,}")
    for x in b["transceivers"]:
        t.add_row(f"transceiver, {x['where']}", f"{x['speed']} {x['type']}", "", f"{x['count']:,}")
    console.print(t)
