"""Text and Markdown forms of a :class:`~fabricgen.perf.paths.core.PathsReport` (data first: ``as_dict``)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from fabricgen.perf.paths.core import PathsReport

COLUMNS = ("job", "GPUs", "remedy", "busbw median", "busbw p5", "efficiency median", "efficiency p5", "worst link load")
WORST_SHOWN = 3


def _title(report: PathsReport) -> str:
    a = report.assumptions
    return (
        f"{report.fabric}: {report.collective.value} ({report.pattern}) bus bandwidth (GB/s) with ECMP and its "
        f"remedies — {report.seeds} seeds, NIC efficiency {a.nic_efficiency:g}"
    )


def _cells(report: PathsReport) -> list[list[str]]:
    rows = []
    for j in report.jobs:
        for r in j.results:
            rows.append(
                [
                    j.label,
                    f"{j.gpus:,}",
                    r.remedy.name,
                    f"{r.median:,.1f}",
                    f"{r.p5:,.1f}",
                    f"{r.median_efficiency:.0%}",
                    f"{r.p5_efficiency:.0%}",
                    f"{sorted(r.max_load)[len(r.max_load) // 2]:.2f}",
                ]
            )
    return rows


def _worst_lines(report: PathsReport) -> list[str]:
    out = []
    for j in report.jobs:
        base = j.results[0] if j.results else None
        if base is None or not base.worst_links or base.median_efficiency >= 1.0:
            continue
        links = "; ".join(
            f"{w.link} at {w.load:.0%}" + (f" ({w.vs_ideal:.1f}× its spraying load)" if w.vs_ideal else "")
            for w in base.worst_links[:WORST_SHOWN]
        )
        out.append(f"{j.label}, {base.remedy.name}: worst links (median seed): {links}")
    return out


FOOTER = (
    "efficiency = the job's bandwidth with this remedy ÷ with packet spraying (perfect spreading); "
    "busbw = the scaling model's prediction × efficiency; worst link load = demand ÷ speed of the most "
    "loaded link (median seed; above 1 the flows on it slow down)"
)


def print_paths(console: Console, report: PathsReport) -> None:
    t = Table(title=_title(report), title_justify="left")
    for col in COLUMNS:
        t.add_column(col, justify="left" if col in ("job", "remedy") else "right")
    for cells in _cells(report):
        t.add_row(*cells)
    console.print(t)
    for line in _worst_lines(report):
        console.print(line, markup=False)
    for note in report.notes:
        console.print(f"note: {note}", markup=False)
    console.print(FOOTER, markup=False)


def paths_markdown(report: PathsReport) -> str:
    lines = [f"**{_title(report)}**", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for cells in _cells(report):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines.append("")
    lines.extend(f"- {x}" for x in _worst_lines(report))
    lines.extend(f"- note: {n}" for n in report.notes)
    lines.append(f"- {FOOTER}")
    return "\n".join(lines) + "\n"
