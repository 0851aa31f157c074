"""Scaling efficiency of a fabric: expected bus bandwidth for jobs of growing size, and how an expansion
changes it.

A job of N GPUs is placed the way a scheduler packs it (by pod, unit, rail group, node); the rows are the
sizes where the traffic reaches a new part of the fabric: one node (NVLink only), two nodes (the rails),
one rail group, one unit, 2, 4, 8 … units, one pod, 2, 4 … pods, the whole fabric. The nodes are walked
once in that order and every row is evaluated when the walk reaches it, so a table costs one pass over
the fabric plus a few evaluations over the leaves touched (linear in fabric size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from fabricgen.perf.model import (
    NO_FAILURES,
    Algorithm,
    Assumptions,
    Collective,
    Failures,
    NodeSlot,
    Prediction,
    _Job,
    build_view,
    packed_order,
)
from fabricgen.topology.model import Fabric

RELATIVE_TOLERANCE = 1e-3
"""Differences below 0.1 % are not differences (floating point, rounding in reports)."""


@dataclass(frozen=True, slots=True)
class ScalingRow:
    """One job size. Bandwidths in GB/s (nccl-tests bus bandwidth).

    ``busbw``: per algorithm; ``best``: NCCL's default algorithm for the size (``algorithm``);
    ``healthy``: the same with every link up; ``nonblocking``: the same on a non-blocking fabric with
    every link up (NICs and NVLink only); ``ideal``: one node of the same server (NCCL's default there).
    ``scaling_efficiency``: ``best`` ÷ ``ideal`` — the share of one node's bus bandwidth the job keeps,
    for every collective (the step from one node to two shows what leaving NVLink costs).
    ``fabric_efficiency``: ``best`` ÷ ``nonblocking`` (what oversubscription and failures cost).
    ``oversubscribed``: an oversubscribed tier lowers ``healthy`` below ``nonblocking``;
    ``failure_limited``: failed links lower ``best`` below ``healthy``. ``ecmp``: ``best`` as it is left by ECMP
    hash collisions when the same number of nodes is scattered over the fabric in random rank order with one
    queue pair per connection (median over hash seeds; :func:`fabricgen.perf.paths.with_collisions`), or
    ``None`` when not computed.
    """

    scope: str
    gpus: int
    nodes: int
    tiers: tuple[str, ...]
    busbw: dict[Algorithm, float]
    best: float
    algorithm: Algorithm
    healthy: float
    nonblocking: float
    ideal: float
    scaling_efficiency: float
    fabric_efficiency: float
    limit: str
    bottleneck: str
    oversubscribed: bool
    failure_limited: bool
    prediction: Prediction
    ecmp: float | None = None  # busbw under ECMP collisions, scattered ranks, 1 QP (fabricgen.perf.paths)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "tiers": list(self.tiers),
            "busbw": {a.value: round(v, 2) for a, v in self.busbw.items()},
            "best": round(self.best, 2),
            "algorithm": self.algorithm.value,
            "healthy": round(self.healthy, 2),
            "nonblocking": round(self.nonblocking, 2),
            "ideal": round(self.ideal, 2),
            "scaling_efficiency": round(self.scaling_efficiency, 4),
            "fabric_efficiency": round(self.fabric_efficiency, 4),
            "limit": self.limit,
            "bottleneck": self.bottleneck,
            "oversubscribed": self.oversubscribed,
            "failure_limited": self.failure_limited,
            "ecmp_scattered_1qp": None if self.ecmp is None else round(self.ecmp, 2),
        }


@dataclass(frozen=True, slots=True)
class ScalingTable:
    """The scaling table of one fabric for one collective (see :func:`scaling_table`)."""

    fabric: str
    collective: Collective
    assumptions: Assumptions
    failed: tuple[str, ...]
    rows: tuple[ScalingRow, ...]
    notes: tuple[str, ...]

    def row(self, scope: str) -> ScalingRow | None:
        return next((r for r in self.rows if r.scope == scope), None)

    @property
    def whole(self) -> ScalingRow | None:
        """The row of the whole fabric (the last row)."""
        return self.rows[-1] if self.rows else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "fabric": self.fabric,
            "collective": self.collective.value,
            "assumptions": self.assumptions.as_dict(),
            "failed": list(self.failed),
            "rows": [r.as_dict() for r in self.rows],
            "notes": list(self.notes),
        }


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def _boundaries(order: list[NodeSlot]) -> list[tuple[int, str]]:
    """(node count, scope) at which rows are evaluated; the most telling scope wins for equal counts."""
    total = len(order)
    marks: dict[int, tuple[int, str]] = {}  # count → (priority, label)

    def mark(count: int, label: str, priority: int) -> None:
        if 0 < count <= total and (count not in marks or marks[count][0] < priority):
            marks[count] = (priority, label)

    mark(1, "1 node", 1)
    mark(2, "2 nodes", 1)
    unit_ends: list[int] = []
    pod_ends: list[int] = []
    group_end = None
    for i, slot in enumerate(order):
        nxt = order[i + 1] if i + 1 < total else None
        if group_end is None and (nxt is None or nxt.group != slot.group):
            group_end = i + 1
        if nxt is None or (nxt.pod, nxt.unit) != (slot.pod, slot.unit):
            unit_ends.append(i + 1)
        if nxt is None or nxt.pod != slot.pod:
            pod_ends.append(i + 1)
    if group_end is not None:
        mark(group_end, "1 rail group", 2)
    has_units = any(s.unit is not None for s in order)
    if has_units:
        u = 1
        while u <= len(unit_ends):
            mark(unit_ends[u - 1], _plural(u, "unit"), 3)
            u *= 2
    if len(pod_ends) > 1:
        p = 1
        while p <= len(pod_ends):
            mark(pod_ends[p - 1], _plural(p, "pod"), 4)
            p *= 2
    parts = [_plural(total, "node")]
    if has_units and len(unit_ends) > 1:
        parts.append(_plural(len(unit_ends), "unit"))
    if len(pod_ends) > 1:
        parts.append(_plural(len(pod_ends), "pod"))
    mark(total, "fabric (" + ", ".join(parts) + ")", 5)
    return [(count, label) for count, (_, label) in sorted(marks.items())]


def scaling_table(
    fabric: Fabric,
    collective: Collective = Collective.ALL_REDUCE,
    assumptions: Assumptions | None = None,
    failures: Failures = NO_FAILURES,
) -> ScalingTable:
    """Expected nccl-tests bus bandwidth and scaling efficiency for jobs of growing size on ``fabric``.

    Pure: reads the fabric, returns data. Rows, smallest first: ``1 node``, ``2 nodes``, ``1 rail group``,
    ``1 unit``, ``2 units``, ``4 units`` … ``1 pod``, ``2 pods`` … and ``fabric (…)`` (always last; its
    label names the node/unit/pod counts). Sizes that coincide keep the coarser name. Nodes listed in
    ``failures`` are left out of the placement; failed links derate the rows that cross them.

    >>> from fabricgen.perf import scaling_table  # doctest: +SKIP
    >>> t = scaling_table(fabric)  # doctest: +SKIP
    >>> [(r.scope, r.gpus, round(r.best), f"{r.scaling_efficiency:.0%}") for r in t.rows]  # doctest: +SKIP
    [('1 node', 8, 360, '100%'), ('2 nodes', 16, 386, '107%'), ('fabric (4 nodes)', 32, 375, '104%')]
    """
    a = assumptions or Assumptions()
    view = build_view(fabric, failures)
    order = [s for s in packed_order(view) if not s.failed]
    actual = _Job(view, failed=bool(failures))
    healthy = _Job(view, failed=False) if failures else actual
    rows: list[ScalingRow] = []
    marks = _boundaries(order)
    mi = 0
    for i, slot in enumerate(order):
        actual.add(slot)
        if healthy is not actual:
            healthy.add(slot)
        while mi < len(marks) and marks[mi][0] == i + 1:
            label = marks[mi][1]
            mi += 1
            p = actual.evaluate(collective, a)
            h = healthy.evaluate(collective, a) if healthy is not actual else p
            nonblocking = healthy.evaluate(collective, a, derate=False)
            rows.append(
                ScalingRow(
                    scope=label,
                    gpus=p.gpus,
                    nodes=p.nodes,
                    tiers=p.tiers,
                    busbw=dict(p.busbw),
                    best=p.best,
                    algorithm=p.algorithm,
                    healthy=h.best,
                    nonblocking=nonblocking.best,
                    ideal=p.ideal,
                    scaling_efficiency=p.best / p.ideal if p.ideal else 0.0,
                    fabric_efficiency=p.best / nonblocking.best if nonblocking.best else 0.0,
                    limit=p.limit,
                    bottleneck=p.bottleneck,
                    oversubscribed=h.best < nonblocking.best * (1 - RELATIVE_TOLERANCE),
                    failure_limited=p.best < h.best * (1 - RELATIVE_TOLERANCE),
                    prediction=p,
                )
            )
    notes = list(view.notes)
    if failures:
        notes.append("failed: " + ", ".join(failures.labels))
    skipped = sum(1 for s in view.nodes.values() if s.failed)
    if skipped:
        notes.append(f"{skipped} failed node(s) left out of the placement")
    return ScalingTable(fabric.name, collective, a, failures.labels, tuple(rows), tuple(notes))


# --------------------------------------------------------------------------- before / after


ChangeKind = Literal["crossing", "changed", "added", "removed", "fabric"]


@dataclass(frozen=True, slots=True)
class ScalingChange:
    """One difference between two scaling tables, with a one-line message for a plan report.

    ``kind``: ``fabric`` (the whole-fabric row before → after: always present), ``crossing`` (a job size
    whose traffic now crosses an oversubscribed tier, or a tier that became oversubscribed), ``changed``
    (same scope, bus bandwidth differs), ``added`` / ``removed`` (a scope present on one side only).
    ``before``/``after``: best bus bandwidth in GB/s (None when that side has no such row).
    """

    kind: ChangeKind
    scope: str
    gpus: tuple[int | None, int | None]
    before: float | None
    after: float | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "scope": self.scope,
            "gpus": list(self.gpus),
            "before": None if self.before is None else round(self.before, 2),
            "after": None if self.after is None else round(self.after, 2),
            "message": self.message,
        }


def _gb(x: float | None) -> str:
    return "–" if x is None else f"{x:,.1f} GB/s"


def _key(scope: str) -> str:
    return "fabric" if scope.startswith("fabric") else scope


def _crossing_text(row: ScalingRow) -> str:
    return (
        f"{row.scope} ({row.gpus:,} GPUs) crosses into an oversubscribed tier ({row.bottleneck}): "
        f"busbw {_gb(row.healthy)} vs {_gb(row.nonblocking)} non-blocking (fabric efficiency "
        f"{row.healthy / row.nonblocking:.0%})"
        if row.nonblocking
        else f"{row.scope} ({row.gpus:,} GPUs) crosses into an oversubscribed tier ({row.bottleneck})"
    )


def compare(before: ScalingTable, after: ScalingTable) -> list[ScalingChange]:
    """What an expansion does to the scaling table, as a list of changes (most important first).

    Rows are matched by scope (``1 unit``, ``2 units`` …; the whole-fabric rows match each other), or
    else by size (the whole fabric of 2 units before is the ``2 units`` row after).
    The list holds, in this order:

    1. ``fabric``: always one entry, whole fabric before → after: GPUs, best busbw, scaling efficiency.
    2. ``crossing``: every scope of ``after`` that crosses an oversubscribed tier (``row.oversubscribed``)
       where ``before`` had no such row or that row was not oversubscribed — the sizes at which the
       expansion first makes jobs pay for oversubscription. The message names the tier (the leaf or pod
       uplinks) and the busbw against the non-blocking figure.
    3. ``changed``: a scope on both sides whose best busbw differs by more than 0.1 %.
    4. ``added`` / ``removed``: scopes on one side only (job sizes the expansion makes possible, or takes).

    Both tables should be for the same collective and assumptions (their rows are not comparable
    otherwise; a :class:`ValueError` says so).
    """
    if before.collective is not after.collective or before.assumptions != after.assumptions:
        raise ValueError("scaling tables for different collectives or assumptions cannot be compared")
    old = {_key(r.scope): r for r in before.rows}
    new = {_key(r.scope): r for r in after.rows}
    old_by_size = {r.gpus: r for r in before.rows}
    new_sizes = {r.gpus for r in after.rows}

    def match(key: str, row: ScalingRow) -> ScalingRow | None:
        """The same scope before, or a row of the same size (``2 units`` was ``fabric (…)`` before)."""
        if key == "fabric":
            return old.get(key)
        return old.get(key) or old_by_size.get(row.gpus)
    out: list[ScalingChange] = []
    wb, wa = before.whole, after.whole
    if wb is not None or wa is not None:
        out.append(
            ScalingChange(
                "fabric",
                "fabric",
                (wb.gpus if wb else None, wa.gpus if wa else None),
                wb.best if wb else None,
                wa.best if wa else None,
                "whole fabric: "
                f"{wb.gpus if wb else 0:,} → {wa.gpus if wa else 0:,} GPUs, busbw {_gb(wb.best if wb else None)} → "
                f"{_gb(wa.best if wa else None)}, scaling efficiency "
                f"{f'{wb.scaling_efficiency:.0%}' if wb else '–'} → {f'{wa.scaling_efficiency:.0%}' if wa else '–'}",
            )
        )
    for key, row in new.items():
        prev = match(key, row)
        if row.oversubscribed and (prev is None or not prev.oversubscribed):
            out.append(
                ScalingChange(
                    "crossing", row.scope, (prev.gpus if prev else None, row.gpus),
                    prev.best if prev else None, row.best, _crossing_text(row),
                )
            )
    for key, row in new.items():
        prev = match(key, row)
        if prev is None or key == "fabric":
            continue
        if abs(row.best - prev.best) > RELATIVE_TOLERANCE * max(row.best, prev.best):
            out.append(
                ScalingChange(
                    "changed", row.scope, (prev.gpus, row.gpus), prev.best, row.best,
                    f"{row.scope}: busbw {_gb(prev.best)} → {_gb(row.best)} ({row.bottleneck})",
                )
            )
    for key, row in new.items():
        if match(key, row) is None:
            out.append(
                ScalingChange(
                    "added", row.scope, (None, row.gpus), None, row.best,
                    f"{row.scope} ({row.gpus:,} GPUs) becomes possible: busbw {_gb(row.best)}, "
                    f"scaling efficiency {row.scaling_efficiency:.0%}",
                )
            )
    for key, row in old.items():
        if key not in new and row.gpus not in new_sizes:
            out.append(
                ScalingChange(
                    "removed", row.scope, (row.gpus, None), row.best, None,
                    f"{row.scope} ({row.gpus:,} GPUs) no longer exists",
                )
            )
    return out
