"""A picture of a fabric: tiers as rows, switches as boxes, link groups as lines labelled with
count × speed and oversubscription; what a plan adds is drawn in green, existing devices it changes in amber.

Two levels of detail, chosen by size:

* **detailed** (a few units): every spine and leaf is a box; a unit's leaves sit in a frame over one box
  for its servers; one line per unit to its spine group, one per pod to the cores;
* **aggregated** (large fabrics): one column per pod — its spines as one box, its leaves as a grid of
  unit × rail cells (green cells are added), its servers as one box — with the core tier as a band of
  plane boxes on top.

The SVG is written by hand (no dependency) and uses only basic elements so every renderer draws it.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from fabricgen.inventory.schema import Role
from fabricgen.inventory.units import format_speed
from fabricgen.topology.capacity import loads
from fabricgen.topology.intent import ID_STRIDE
from fabricgen.topology.model import Fabric, LinkKind

EXISTING = ("#eef2f7", "#5b6b7f")  # fill, stroke
ADDED = ("#d3f4d6", "#1f8a3b")
CHANGED = ("#fff1d6", "#c27803")
LINE = "#8a96a8"
TEXT = "#1f2937"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

DETAIL_MAX_LEAVES = 128
DETAIL_MAX_SPINES = 64


@dataclass
class _Svg:
    width: float = 0
    height: float = 0
    parts: list[str] = field(default_factory=list)

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        colours: tuple[str, str],
        *,
        rx: float = 4,
        sw: float = 1.2,
        dash: bool = False,
        title: str | None = None,
    ) -> None:
        d = ' stroke-dasharray="4 3"' if dash else ""
        t = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" fill="{colours[0]}" '
            f'stroke="{colours[1]}" stroke-width="{sw}"{d}>{t}</rect>'
        )
        self.width, self.height = max(self.width, x + w), max(self.height, y + h)

    def text(
        self,
        x: float,
        y: float,
        s: str,
        *,
        size: float = 11,
        anchor: str = "middle",
        weight: str = "normal",
        colour: str = TEXT,
    ) -> None:
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{colour}">{escape(s)}</text>'
        )
        right = x + 0.6 * size * len(s) * (1.0 if anchor == "start" else 0.5)
        self.width = max(self.width, right)

    def line(self, x1: float, y1: float, x2: float, y2: float, *, colour: str = LINE, width: float = 1.5) -> None:
        self.parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
            f'stroke-width="{width:.1f}" stroke-linecap="round"/>'
        )

    def label(self, x: float, y: float, s: str, colour: str = TEXT) -> None:
        """Text on a white pill, so it stays readable over lines."""
        w = 6.4 * len(s) + 8
        self.parts.append(
            f'<rect x="{x - w / 2:.1f}" y="{y - 11:.1f}" width="{w:.1f}" height="15" rx="7" fill="#ffffff" '
            f'fill-opacity="0.92" stroke="none"/>'
        )
        self.text(x, y, s, size=10.5, colour=colour)

    def document(self, margin: float = 20) -> str:
        w, h = self.width + margin, self.height + margin
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" viewBox="0 0 {w:.0f} {h:.0f}" '
            f'font-family="{FONT}">\n<rect x="0" y="0" width="{w:.0f}" height="{h:.0f}" fill="#ffffff"/>\n'
            + "\n".join(self.parts)
            + "\n</svg>\n"
        )


def _ratio(x: float) -> str:
    return "∞" if x == float("inf") else f"{x:.2f}:1"


def _speeds(speeds: dict[int, int]) -> str:
    return " + ".join(f"{n:,} × {format_speed(s)}" for s, n in sorted(speeds.items(), reverse=True))


@dataclass
class _Marks:
    added: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, plan: Any) -> _Marks:
        if plan is None:
            return cls()
        topo = plan.topology if hasattr(plan, "topology") else plan["topology"]
        return cls({d["name"] for d in topo["added"]}, {d["name"] for d in topo["changed"]})

    def colours(self, names: list[str]) -> tuple[str, str]:
        if names and all(n in self.added for n in names):
            return ADDED
        if any(n in self.changed or n in self.added for n in names):
            return CHANGED
        return EXISTING


@dataclass
class _Groups:
    """The fabric gathered into units, pods and planes in one pass (linear in its size)."""

    leaves_by_unit: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    unit_pod: dict[int, int] = field(default_factory=dict)
    spines_by_pod: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    cores_by_plane: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    nodes_by_unit: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))
    gpus_by_unit: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    host: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    leaf_up: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    spine_up: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    worst_unit: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    worst_pod: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    rails: int = 1


def _gather(fabric: Fabric) -> _Groups:
    g = _Groups()
    leaf_unit: dict[str, int] = {}
    spine_pod: dict[str, int] = {}
    for sw in fabric.switches.values():
        if sw.role is Role.LEAF:
            unit = sw.unit or 0
            leaf_unit[sw.name] = unit
            g.leaves_by_unit[unit].append(sw.name)
            g.unit_pod.setdefault(unit, sw.pod or 0)
        elif sw.role is Role.SPINE:
            spine_pod[sw.name] = sw.pod or 0
            g.spines_by_pod[sw.pod or 0].append(sw.name)
        else:
            g.cores_by_plane[(sw.id - 1) // ID_STRIDE if sw.id else 0].append(sw.name)
    g.rails = max((len(v) for v in g.leaves_by_unit.values()), default=1)
    for node in fabric.nodes.values():
        g.nodes_by_unit[node.unit or 0].append(node.name)
        g.gpus_by_unit[node.unit or 0] += node.gpus
    for link in fabric.links:
        if link.b is None:
            continue
        if link.kind is LinkKind.HOST:
            g.host[leaf_unit.get(link.b.device, 0)][link.speed] += 1
        elif link.kind is LinkKind.LEAF_SPINE:
            g.leaf_up[leaf_unit.get(link.a.device, 0)][link.speed] += 1
        else:
            g.spine_up[spine_pod.get(link.a.device, 0)][link.speed] += 1
    for name, load in loads(fabric).items():
        if name in leaf_unit and load.up_gbps:
            u = leaf_unit[name]
            g.worst_unit[u] = max(g.worst_unit[u], load.ratio)
        elif name in spine_pod and load.up_gbps:
            p = spine_pod[name]
            g.worst_pod[p] = max(g.worst_pod[p], load.ratio)
    return g


def build_svg(fabric: Fabric, plan: Any = None, *, detail: bool | None = None) -> str:
    """The SVG text. ``plan``: a :class:`~fabricgen.plan.model.Plan` (or its dict) whose additions are
    highlighted. ``detail``: force the level of detail (default: by size)."""
    g = _gather(fabric)
    marks = _Marks.of(plan)
    leaves = sum(len(v) for v in g.leaves_by_unit.values())
    spines = sum(len(v) for v in g.spines_by_pod.values())
    if detail is None:
        detail = leaves <= DETAIL_MAX_LEAVES and spines <= DETAIL_MAX_SPINES
    svg = _Svg()
    _title(svg, fabric, plan)
    if detail:
        _detailed(svg, fabric, g, marks)
    else:
        _aggregated(svg, fabric, g, marks)
    _legend(svg, marks, detail)
    return svg.document()


def write_svg(fabric: Fabric, path: str | os.PathLike[str], plan: Any = None, detail: bool | None = None) -> None:
    Path(path).write_text(build_svg(fabric, plan, detail=detail), encoding="utf-8")


def _title(svg: _Svg, fabric: Fabric, plan: Any) -> None:
    sub = (
        f"{fabric.gpus:,} GPUs · {len(fabric.nodes):,} servers · {len(fabric.switches):,} switches · "
        f"{len(fabric.links):,} links"
    )
    if plan is not None:
        c = (plan.topology if hasattr(plan, "topology") else plan["topology"])["counts"]
        sub += (
            f" · plan: +{c['switches_added']} switches, +{c['nodes_added']} servers, "
            f"{c['switches_changed'] + c['nodes_changed']} existing devices change"
        )
    svg.text(20, 28, f"fabric {fabric.name}", size=17, anchor="start", weight="bold")
    svg.text(20, 48, sub, size=12, anchor="start")


def _legend(svg: _Svg, marks: _Marks, detail: bool) -> None:
    y = svg.height + 24
    x = 20.0
    for colours, words in ((EXISTING, "existing"), (ADDED, "added by the plan"), (CHANGED, "existing, changes")):
        svg.rect(x, y - 11, 16, 14, colours, rx=3)
        svg.text(x + 22, y, words, size=11, anchor="start")
        x += 36 + 6.5 * len(words)
    svg.text(
        x + 10,
        y,
        "lines: links per group as count × speed · ratio = worst down:up of the group"
        + ("" if detail else " · leaf grid: one cell per unit (column) and rail (row)"),
        size=11,
        anchor="start",
    )


# ----------------------------------------------------------------------------- detailed


def _detailed(svg: _Svg, fabric: Fabric, g: _Groups, marks: _Marks) -> None:
    box_w, box_h, gap = 62.0, 26.0, 6.0
    unit_gap = 22.0
    units = sorted(g.leaves_by_unit)
    unit_w = {u: len(g.leaves_by_unit[u]) * (box_w + gap) + gap for u in units}
    total_w = sum(unit_w.values()) + unit_gap * max(len(units) - 1, 0)
    spine_pods = sorted(g.spines_by_pod)
    pod_w = {p: len(g.spines_by_pod[p]) * (box_w + gap) + gap for p in spine_pods}
    spine_total = sum(pod_w.values()) + unit_gap * max(len(spine_pods) - 1, 0)
    planes = sorted(g.cores_by_plane)
    cores = sum(len(v) for v in g.cores_by_plane.values())
    core_boxes: list[tuple[str, list[str]]] = (
        [(n, [n]) for p in planes for n in sorted(g.cores_by_plane[p])]
        if cores <= 32
        else [(f"plane {p + 1}: {len(g.cores_by_plane[p])} cores", g.cores_by_plane[p]) for p in planes]
    )
    core_w = box_w if cores <= 32 else 120.0
    core_total = len(core_boxes) * (core_w + gap)
    width = max(total_w, spine_total, core_total, 700)
    left = 80.0
    y = 80.0
    y_core = y
    if core_boxes:
        x = left + (width - core_total) / 2
        for label, names in core_boxes:
            svg.rect(x, y_core, core_w, box_h, marks.colours(names), title=", ".join(names[:8]))
            svg.text(x + core_w / 2, y_core + 17, _short(label), size=9.5)
            x += core_w + gap
        svg.text(left - 8, y_core + 17, "core", size=12, anchor="end", weight="bold")
        y += box_h + 90
    y_spine = y
    pod_x: dict[int, tuple[float, float]] = {}
    x = left + (width - spine_total) / 2
    for p in spine_pods:
        names = sorted(g.spines_by_pod[p], key=_nat)
        if len(spine_pods) > 1:
            svg.rect(x, y_spine - 6, pod_w[p], box_h + 12, ("#fafbfc", "#c5ccd6"), dash=True)
        bx = x + gap
        for n in names:
            svg.rect(bx, y_spine, box_w, box_h, marks.colours([n]), title=n)
            svg.text(bx + box_w / 2, y_spine + 17, _short(n), size=9.5)
            bx += box_w + gap
        pod_x[p] = (x, pod_w[p])
        x += pod_w[p] + unit_gap
    svg.text(left - 8, y_spine + 17, "spine", size=12, anchor="end", weight="bold")
    if core_boxes:
        for p, (px, pw) in pod_x.items():
            cx = px + pw / 2
            colour = ADDED[1] if marks.colours(g.spines_by_pod[p]) is ADDED else LINE
            svg.line(cx, y_spine - 6, left + width / 2, y_core + box_h, colour=colour, width=2.5)
            ratio = g.worst_pod.get(p, 0.0)
            svg.label(cx, y_spine - 16, f"{_speeds(g.spine_up[p])} · {_ratio(ratio)}", colour=colour)
    y_leaf = y_spine + box_h + 110
    x = left + (width - total_w) / 2
    for u in units:
        names = sorted(g.leaves_by_unit[u], key=_nat)
        frame = marks.colours(names)
        svg.rect(x, y_leaf - 18, unit_w[u], box_h + 24, (frame[0], frame[1]), rx=6, dash=frame is EXISTING)
        svg.text(x + 6, y_leaf - 6, f"unit {u}" if u else "leaves", size=10, anchor="start", weight="bold")
        bx = x + gap
        for n in names:
            svg.rect(bx, y_leaf, box_w, box_h, marks.colours([n]), title=n)
            sw = fabric.switches[n]
            svg.text(bx + box_w / 2, y_leaf + 17, f"rail {sw.rails[0]}" if len(sw.rails) == 1 else _short(n), size=9.5)
            bx += box_w + gap
        cx = x + unit_w[u] / 2
        # to the spines of its pod
        px, pw = pod_x.get(g.unit_pod.get(u, 0), next(iter(pod_x.values()), (x, unit_w[u])))
        colour = ADDED[1] if frame is ADDED else LINE
        if g.leaf_up.get(u):
            svg.line(cx, y_leaf - 18, px + pw / 2, y_spine + box_h + 6, colour=colour, width=2.5)
            svg.label(cx, y_leaf - 26, f"{_speeds(g.leaf_up[u])} · {_ratio(g.worst_unit.get(u, 0.0))}", colour=colour)
        # to its servers
        nodes = g.nodes_by_unit.get(u, [])
        ny = y_leaf + box_h + 70
        ncol = marks.colours(nodes) if nodes else EXISTING
        svg.rect(x + 4, ny, unit_w[u] - 8, 34, ncol, rx=6)
        model = fabric.nodes[nodes[0]].model if nodes else ""
        svg.text(cx, ny + 14, f"{len(nodes):,} × {model}" if nodes else "no servers yet", size=10.5, weight="bold")
        svg.text(cx, ny + 28, f"{g.gpus_by_unit.get(u, 0):,} GPUs", size=10)
        if g.host.get(u):
            hc = ADDED[1] if ncol is ADDED else LINE
            svg.line(cx, y_leaf + box_h + 6, cx, ny, colour=hc, width=2.5)
            svg.label(cx, y_leaf + box_h + 38, _speeds(g.host[u]), colour=hc)
        x += unit_w[u] + unit_gap
    svg.text(left - 8, y_leaf + 17, "leaf", size=12, anchor="end", weight="bold")
    svg.text(left - 8, y_leaf + box_h + 92, "servers", size=12, anchor="end", weight="bold")


def _short(name: str) -> str:
    return name if len(name) <= 11 else name[:5] + "…" + name[-5:]


def _nat(name: str) -> tuple[object, ...]:
    from fabricgen.plan.present import natural

    return natural(name)


# ----------------------------------------------------------------------------- aggregated


def _aggregated(svg: _Svg, fabric: Fabric, g: _Groups, marks: _Marks) -> None:
    units_by_pod: dict[int, list[int]] = defaultdict(list)
    for u, p in g.unit_pod.items():
        units_by_pod[p].append(u)
    pods = sorted(set(g.spines_by_pod) | set(units_by_pod))
    max_units = max((len(v) for v in units_by_pod.values()), default=1)
    cell = 7.0
    col_w = max(max_units * cell + 16, 100.0)
    per_row = max(1, min(len(pods), int(1500 // (col_w + 10))))
    left, top = 80.0, 80.0
    planes = sorted(g.cores_by_plane)
    y = top
    if planes:
        pw = 54.0
        cols = max(1, min(len(planes), int(1500 // (pw + 4))))
        for i, p in enumerate(planes):
            names = g.cores_by_plane[p]
            x = left + (i % cols) * (pw + 4)
            yy = y + (i // cols) * 30
            svg.rect(x, yy, pw, 24, marks.colours(names), title=f"plane {p + 1}: {len(names)} cores")
            svg.text(x + pw / 2, yy + 11, f"plane {p + 1}", size=8.5)
            svg.text(x + pw / 2, yy + 20, f"{len(names)} cores", size=8)
        svg.text(left - 8, y + 16, "core", size=12, anchor="end", weight="bold")
        y += ((len(planes) - 1) // cols + 1) * 30 + 40
    rails = g.rails
    row_h = 48 + 8 + rails * cell + 14 + 40 + 40
    for i, p in enumerate(pods):
        col, row = i % per_row, i // per_row
        x = left + col * (col_w + 10)
        yy = y + row * row_h
        spines = g.spines_by_pod.get(p, [])
        sc = marks.colours(spines)
        svg.rect(x, yy, col_w, 40, sc, title=f"pod {p + 1}: {', '.join(sorted(spines, key=_nat)[:4])} …")
        svg.text(x + col_w / 2, yy + 15, f"pod {p + 1}", size=10, weight="bold")
        up_ratio = f" · {_ratio(g.worst_pod.get(p, 0))}" if g.spine_up.get(p) else ""
        svg.text(x + col_w / 2, yy + 30, f"{len(spines)} spines{up_ratio}", size=9.5)
        if g.spine_up.get(p):
            svg.text(
                x + col_w / 2, yy - 4, f"↑ {_speeds(g.spine_up[p])}", size=8.5, colour=ADDED[1] if sc is ADDED else TEXT
            )
        units = sorted(units_by_pod.get(p, []))
        gy = yy + 48 + 8
        lc = LINE
        all_leaves: list[str] = []
        for k, u in enumerate(units):
            names = sorted(g.leaves_by_unit[u], key=_nat)
            all_leaves += names
            for r, n in enumerate(names):
                c = marks.colours([n])
                svg.rect(x + 8 + k * cell, gy + r * cell, cell - 1, cell - 1, c, rx=1, sw=0.6, title=n)
        lcol = marks.colours(all_leaves)
        if lcol is ADDED:
            lc = ADDED[1]
        worst = max((g.worst_unit.get(u, 0.0) for u in units), default=0.0)
        svg.line(x + col_w / 2, yy + 40, x + col_w / 2, gy - 2, colour=lc, width=2)
        svg.text(x + col_w / 2, gy + rails * cell + 11, f"{len(all_leaves)} leaves · {_ratio(worst)}", size=8.5)
        ny = gy + rails * cell + 14 + 22
        nodes = [n for u in units for n in g.nodes_by_unit.get(u, [])]
        gpus = sum(g.gpus_by_unit.get(u, 0) for u in units)
        nc = marks.colours(nodes) if nodes else EXISTING
        svg.line(
            x + col_w / 2, gy + rails * cell + 14, x + col_w / 2, ny, colour=ADDED[1] if nc is ADDED else LINE, width=2
        )
        svg.rect(x, ny, col_w, 30, nc)
        first, last = (units[0], units[-1]) if units else (0, 0)
        svg.text(x + col_w / 2, ny + 12, f"units {first}–{last}" if first != last else f"unit {first}", size=8.5)
        svg.text(x + col_w / 2, ny + 25, f"{gpus:,} GPUs", size=9.5, weight="bold")
    svg.text(left - 8, y + 24, "spine", size=12, anchor="end", weight="bold")
    svg.text(left - 8, y + 48 + 8 + rails * cell / 2 + 4, "leaf", size=12, anchor="end", weight="bold")
    svg.text(left - 8, y + 48 + 8 + rails * cell + 14 + 22 + 20, "servers", size=12, anchor="end", weight="bold")
