"""Text and Markdown forms of scaling tables and nccl-tests analyses (data first: see ``as_dict``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from fabricgen.perf.analyze import Analysis
from fabricgen.perf.model import Algorithm
from fabricgen.perf.scaling import ScalingChange, ScalingTable

COLUMNS = (
    "scope", "GPUs", "nodes", "crosses", "ring", "hier.", "default", "scaling eff.", "fabric eff.", "limited by",
)  # fmt: skip
FOOTNOTE = (
    "default = the algorithm NCCL picks for large messages (NVLS in one node, NVLS-tree/tree on two, ring "
    "beyond); scaling eff. = its busbw ÷ one node's busbw; fabric eff. = busbw ÷ the same job on a non-blocking "
    "fabric with every link up; hier. = a rail-aware bound no NCCL algorithm is measured to reach"
)


def _columns(table: ScalingTable) -> tuple[str, ...]:
    if any(r.ecmp is not None for r in table.rows):
        return (*COLUMNS[:7], "ECMP scattered", *COLUMNS[7:])
    return COLUMNS


ECMP_FOOTNOTE = (
    "ECMP scattered = default busbw left by ECMP hash collisions when the job's nodes are scattered over the fabric "
    "in random rank order, 1 queue pair per connection (median of 8 hash seeds), with adaptive routing where the "
    "inventory turns it on; `fabricgen paths` shows what more "
    "QPs, adaptive routing or spraying recover"
)


def _cells(table: ScalingTable) -> list[list[str]]:
    rows = []
    ecmp = any(r.ecmp is not None for r in table.rows)
    for r in table.rows:
        extra = [f"{r.ecmp:,.1f}" if r.ecmp is not None else "–"] if ecmp else []
        rows.append(
            [
                r.scope,
                f"{r.gpus:,}",
                f"{r.nodes:,}",
                " → ".join(r.tiers) or "–",
                f"{r.busbw[Algorithm.RING]:,.1f}",
                f"{r.busbw[Algorithm.HIERARCHICAL]:,.1f}",
                f"{r.best:,.1f} {r.algorithm.value}",
                *extra,
                f"{r.scaling_efficiency:.0%}",
                f"{r.fabric_efficiency:.0%}" + (" (oversub.)" if r.oversubscribed else "")
                + (" (failures)" if r.failure_limited else ""),
                r.bottleneck,
            ]
        )
    return rows


def _title(table: ScalingTable) -> str:
    a = table.assumptions
    return (
        f"{table.fabric}: {table.collective.value} bus bandwidth (GB/s) by job size — NIC efficiency "
        f"{a.nic_efficiency:g}, NVLink efficiency {a.nvlink_efficiency:g}"
    )


def print_scaling(console: Console, table: ScalingTable) -> None:
    t = Table(title=_title(table), title_justify="left")
    for col in _columns(table):
        t.add_column(
            col, justify="left" if col in ("scope", "crosses", "limited by") else "right", no_wrap=col == "scope"
        )
    for cells in _cells(table):
        t.add_row(*cells)
    console.print(t)
    for note in table.notes:
        console.print(f"note: {note}", markup=False)
    console.print(FOOTNOTE, markup=False)
    if any(r.ecmp is not None for r in table.rows):
        console.print(ECMP_FOOTNOTE, markup=False)


def scaling_markdown(table: ScalingTable) -> str:
    """The scaling table as a Markdown table (for plan reports and pull requests)."""
    cols = _columns(table)
    lines = [f"**{_title(table)}**", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for cells in _cells(table):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines.extend(f"- {n}" for n in table.notes)
    return "\n".join(lines) + "\n"


def changes_markdown(changes: Sequence[ScalingChange]) -> str:
    """:func:`fabricgen.perf.compare` output as a Markdown list (crossings in bold)."""
    out = []
    for c in changes:
        text = f"**{c.message}**" if c.kind == "crossing" else c.message
        out.append(f"- {text}")
    return "\n".join(out) + ("\n" if out else "")


def print_analysis(console: Console, analysis: Analysis) -> None:
    t = Table(title=f"nccl-tests runs against the model (threshold {analysis.threshold:.0%})", title_justify="left")
    for col in ("run", "collective", "ranks", "nodes", "measured", "expected", "ratio", "verdict"):
        t.add_column(col, justify="left" if col in ("run", "collective", "nodes", "verdict") else "right")
    for r in analysis.runs:
        nodes = sorted(r.placement)
        shown = ", ".join(nodes[:4]) + (f" … (+{len(nodes) - 4})" if len(nodes) > 4 else "")
        rails = "" if len(r.rails) > 2 else f" rail {','.join(map(str, r.rails))}"
        t.add_row(
            r.label,
            r.collective.value,
            str(len(r.run.ranks)),
            shown + rails,
            f"{r.measured:,.1f}",
            f"{r.expected:,.1f}",
            f"{r.ratio:.2f}",
            "ok" if r.ok else ", ".join(r.flags),
        )
    console.print(t)
    for r in analysis.runs:
        for d in r.details:
            console.print(f"{r.label}: {d}", markup=False)
    if analysis.suspect_nodes:
        console.print("suspect nodes: " + ", ".join(analysis.suspect_nodes), markup=False)
    if analysis.suspect_rails:
        console.print("suspect rails: " + ", ".join(map(str, analysis.suspect_rails)), markup=False)
    for note in analysis.notes:
        console.print(f"note: {note}", markup=False)
    short = sum(1 for r in analysis.runs if "short" in r.flags)
    limited = sum(1 for r in analysis.runs if "fabric-limited" in r.flags)
    errors = sum(1 for r in analysis.runs if "data-errors" in r.flags)
    unsure = sum(1 for r in analysis.runs if "inconclusive" in r.flags)
    console.print(
        f"{len(analysis.runs)} run(s): {short} short of the model, {limited} fabric-limited, {errors} with data "
        f"errors, {unsure} inconclusive",
        markup=False,
    )
