"""The plan as Markdown for a pull-request comment: the summary first, every detail folded in
``<details>`` blocks, and a hard size cap (GitHub refuses comments over 65,536 characters), so even a
100k-GPU fabric's plan posts: long lists are aggregated, diffs are cut to what fits and the rest is named.
"""

from __future__ import annotations

from fabricgen.plan.model import Plan
from fabricgen.plan.present import grouped, headline, reasons_summary, tier_rows, totals_rows, units_text

GITHUB_COMMENT_LIMIT = 65_536
DEFAULT_BUDGET = 60_000  # leaves room for a CI job's own header and footer
MAX_ROWS = 50
DIFF_CHARS_PER_DEVICE = 6_000


def _esc(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> list[str]:
    right = right or set()
    out = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|",
    ]
    out += ["| " + " | ".join(_esc(c) for c in row) + " |" for row in rows]
    return out


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _bom_line(plan: Plan) -> str:
    b = plan.bom
    parts = [f"{n:,}× {m}" for m, n in b["switches"].items()]
    parts += [f"{n:,}× {m}" for m, n in b["servers"].items()]
    parts += [f"{c['count']:,}× {c['type']} {c['length_m']:g} m ({c['kind']})" for c in b["cables"]]
    optics: dict[str, int] = {}
    for x in b["transceivers"]:
        key = f"{x['speed'].split(' ')[0]} {x['type']}"
        optics[key] = optics.get(key, 0) + x["count"]
    parts += [f"{n:,}× {k} transceivers" for k, n in optics.items()]
    return ", ".join(parts) if parts else "nothing"


def render_markdown(
    plan: Plan, *, budget: int = DEFAULT_BUDGET, diagram_url: str | None = None, max_rows: int = MAX_ROWS
) -> str:
    """Markdown of ``plan`` no longer than ``budget`` characters (summary first, details folded)."""
    f = plan.findings
    status = "✅ checks pass" if not f["errors_after"] else f"❌ {f['errors_after']} error finding(s)"
    if f["new"]:
        status += f", {len(f['new'])} newly failing"
    head = [
        f"### fabricgen plan: `{plan.fabric}`",
        "",
        f"**{headline(plan)}** {status}",
        "",
        f"<sub>base `{plan.base.source}` (digest `{plan.base.digest[:12]}`) → "
        f"`{plan.new.source}` (digest `{plan.new.digest[:12]}`), fabricgen {plan.version}</sub>",
        "",
    ]
    if not plan.has_changes:
        return "\n".join(head)
    risks = plan.topology.get("risks", [])
    head += [f"> ⚠️ **Risk:** {_esc(line)}" for line in risks] + ([""] if risks else [])
    head += _table(["", "before", "after", "change"], [list(r) for r in totals_rows(plan)], {1, 2, 3})
    head.append("")
    head += _table(
        ["tier", "switches", "ratio", "worst", "worst, 1 upper down", "free cages"],
        [[r["tier"], r["switches"], r["ratio"], r["worst"], r["one_up_down"], r["free"]] for r in tier_rows(plan)],
        {1, 2, 3, 4, 5},
    )
    head.append("")
    for line in plan.capacity["crossings"]:
        head.append(f"> ⚠️ {line}")
    if plan.capacity["crossings"]:
        head.append("")
    changed = plan.topology["changed"]
    groups = reasons_summary(changed)
    if changed:
        head.append(f"**Existing devices that change ({len(changed):,}):**")
        for who, n, why in groups[:5]:
            head.append(f"- {_esc(who)} ({n:,}): {_esc(why)}")
        if len(groups) > 5:
            head.append(f"- … {len(groups) - 5} more groups (below)")
    else:
        head.append("**No existing device changes.**")
    head += ["", f"**To buy:** {_bom_line(plan)}", ""]
    if plan.scaling:
        for line in plan.scaling.get("summary", []):
            head.append(f"**Scaling:** {_esc(str(line))}")
        head.append("")
    if diagram_url:
        head += [f"![fabric diagram: added in green]({diagram_url})", ""]

    body: list[str] = []
    if changed:
        rows = [[d["name"], d["role"], "; ".join(d["reasons"])] for d in changed[:max_rows]]
        extra = []
        if len(changed) > max_rows:
            extra = ["", f"{len(changed) - max_rows:,} more; all of them by kind of change:", ""]
            extra += _table(["devices", "count", "why"], [[w, f"{n:,}", y] for w, n, y in groups[:max_rows]], {1})
        body += _details(
            f"Existing devices that change ({len(changed):,})", _table(["device", "role", "why"], rows) + extra
        )
    for title, items in (("Added", plan.topology["added"]), ("Removed", plan.topology["removed"])):
        if items:
            rows = [
                [g["role"], g["model"], f"{g['count']:,}", units_text(g["units"]), g["names"]] for g in grouped(items)
            ][:max_rows]
            body += _details(
                f"{title} ({len(items):,} devices)", _table(["role", "model", "count", "units", "names"], rows, {2})
            )
    c = plan.topology["counts"]
    moved = [x for x in plan.topology["links"] if x["change"] in ("moved", "changed", "removed")]
    cable_lines = [
        f"{c['links_added']:,} added, {c['links_removed']:,} removed, {c['links_moved']:,} moved, "
        f"{c['links_changed']:,} changed",
        "",
    ]
    if moved:
        cable_lines += _table(
            ["cable (lower end)", "change", "before", "after", "details"],
            [
                [x["key"], x["change"], x.get("before", ""), x.get("after", ""), "; ".join(x.get("details", []))]
                for x in moved[:max_rows]
            ],
        )
        if len(moved) > max_rows:
            cable_lines.append(f"… and {len(moved) - max_rows:,} more (see plan.json)")
    body += _details("Cables", cable_lines)
    b = plan.bom
    bom_rows = [["switch", m, "", f"{n:,}"] for m, n in b["switches"].items()]
    bom_rows += [["server", m, "", f"{n:,}"] for m, n in b["servers"].items()]
    bom_rows += [["NIC (in the servers)", m, "", f"{n:,}"] for m, n in b["nics"].items()]
    bom_rows += [[f"cable, {x['kind']}", x["type"], f"{x['length_m']:g} m", f"{x['count']:,}"] for x in b["cables"]]
    bom_rows += [
        [f"transceiver, {x['where']}", f"{x['speed']} {x['type']}", "", f"{x['count']:,}"] for x in b["transceivers"]
    ]
    if bom_rows:
        body += _details("Bill of materials", _table(["item", "model / type", "length", "count"], bom_rows, {2, 3}))
    check_lines = [
        f"New inventory: {f['errors_after']} error(s), {f['warnings_after']} warning(s); "
        f"before: {f['errors_before']} error(s).",
        "",
    ]
    for title, items in (("Newly failing", f["new"]), ("Fixed", f["resolved"])):
        if items:
            check_lines += [f"**{title}:**", ""]
            check_lines += [
                f"- `{x['code']}` {x['severity']} {_esc(x['subject'])}: {_esc(x['message'])}" for x in items[:max_rows]
            ]
            if len(items) > max_rows:
                check_lines.append(f"- … and {len(items) - max_rows:,} more")
            check_lines.append("")
    body += _details("Checks" + (f" — {len(f['new'])} newly failing" if f["new"] else ""), check_lines)
    if plan.topology["settings"]:
        body += _details("Fabric settings", [f"- `{_esc(s)}`" for s in plan.topology["settings"]])
    tail = [f"<sub>note: {_esc(n)}</sub>" for n in plan.notes]

    text = "\n".join(head + body)
    room = budget - len(text) - sum(len(x) + 1 for x in tail) - 200
    text += "\n" + _configs(plan, room, max_rows)
    text += "\n".join(tail)
    if len(text) > budget:  # the caps above make this unlikely; never post something GitHub refuses
        cut = text[: budget - 120]
        text = cut[: cut.rfind("\n")] + "\n\n… (cut to fit a comment; the full plan is in plan.json)\n"
    return text


def _configs(plan: Plan, room: int, max_rows: int) -> str:
    if not plan.configs:
        return ""
    diffs = [d for d in plan.configs.values() if d.change == "changed"]
    lines = _table(
        ["device", "platform", "+lines", "−lines"],
        [[d.device, d.platform, f"{d.added:,}", f"{d.removed:,}"] for d in diffs[:max_rows]],
        {2, 3},
    )
    if len(diffs) > max_rows:
        lines.append(f"… and {len(diffs) - max_rows:,} more devices")
    lines.append("")
    used = sum(len(x) + 1 for x in lines) + 200
    shown = 0
    for d in diffs:
        text = d.text
        if len(text) > DIFF_CHARS_PER_DEVICE:
            text = text[:DIFF_CHARS_PER_DEVICE]
            text = text[: text.rfind("\n") + 1] + f"… ({d.added + d.removed:,} changed lines in all)\n"
        block = [
            "<details>",
            f"<summary><code>{d.device}</code> +{d.added} −{d.removed}</summary>",
            "",
            "```diff",
            text.rstrip("\n"),
            "```",
            "</details>",
            "",
        ]
        size = sum(len(x) + 1 for x in block)
        if used + size > room:
            break
        lines += block
        used += size
        shown += 1
    if shown < len(diffs):
        lines.append(f"{len(diffs) - shown:,} more diffs do not fit in a comment; they are in plan.json.")
    summary = f"Configuration diffs ({len(diffs):,} existing devices)"
    return "\n".join(_details(summary, lines))
