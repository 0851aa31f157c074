"""Hold nccl-tests results against the model: per run, per node, per rail.

For every run: the hostnames of its header map ranks to inventory nodes (exact name, then the short
hostname, case-insensitively) and each rank's ``device`` number to that node's GPU (and so to its rail
NIC); the model predicts the bus bandwidth of that node set; the measured figure is the best bus bandwidth
of the rows at large message sizes (``large_bytes`` and up; the largest row when none is that large).

A run is flagged when

* ``short``: measured < (1 − threshold) × predicted — something the inventory does not know (a slow or
  flapping NIC, a mis-set QoS, a bad cable, a failed link not passed with ``--fail``);
* ``fabric-limited``: predicted < (1 − threshold) × the same job on a non-blocking fabric — the fabric as
  declared holds the job back (an oversubscribed tier it crosses, failed links); the limiting switch and
  the job's nodes under it are named;
* ``data-errors``: nccl-tests counted wrong elements (``#wrong``) or out-of-bounds values.

Nodes and rails are localised across runs: a node (rail) is a suspect when it takes part in a short run
and in no passing run. With a single short run every node of it is a suspect and the report says that it
cannot tell them apart (run node pairs, or one GPU per node per rail, to localise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fabricgen.errors import InputError, Problem, SourcePos
from fabricgen.perf.model import (
    NO_FAILURES,
    Algorithm,
    Assumptions,
    Collective,
    Failures,
    Prediction,
    _Job,
    build_view,
)
from fabricgen.perf.nccl import NcclRun
from fabricgen.topology.model import Fabric

LARGE_BYTES = 256 * 1024 * 1024
"""Message size from which nccl-tests bus bandwidth is on its plateau (compared with the model)."""

ExpectedAlgorithm = Literal["ring", "hierarchical", "best"]


@dataclass(frozen=True, slots=True)
class RunResult:
    run: NcclRun
    collective: Collective
    placement: dict[str, tuple[int, ...]]
    rails: tuple[int, ...]
    measured: float
    measured_sizes: tuple[int, int]  # smallest and largest size compared
    prediction: Prediction
    expected: float
    nonblocking: float
    ratio: float
    flags: tuple[str, ...]  # "short", "fabric-limited", "data-errors"
    details: tuple[str, ...]  # one sentence per flag or remark

    @property
    def ok(self) -> bool:
        return not self.flags

    @property
    def label(self) -> str:
        return f"{self.run.file}:{self.run.line}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.run.file,
            "line": self.run.line,
            "collective": self.collective.value,
            "ranks": len(self.run.ranks),
            "nodes": sorted(self.placement),
            "rails": list(self.rails),
            "measured_busbw": round(self.measured, 2),
            "avg_busbw": round(self.run.avg_busbw, 3),
            "sizes_compared": list(self.measured_sizes),
            "expected_busbw": round(self.expected, 2),
            "nonblocking_busbw": round(self.nonblocking, 2),
            "ratio": round(self.ratio, 4),
            "ok": self.ok,
            "flags": list(self.flags),
            "details": list(self.details),
            "prediction": self.prediction.as_dict(),
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    runs: tuple[RunResult, ...]
    suspect_nodes: tuple[str, ...]
    suspect_rails: tuple[int, ...]
    notes: tuple[str, ...]
    threshold: float
    accept_fabric_limits: bool = False
    problems: tuple[Problem, ...] = ()  # runs that could not be analysed (unknown host, collective …)

    @property
    def flagged(self) -> bool:
        for r in self.runs:
            flags = set(r.flags)
            if self.accept_fabric_limits:
                flags.discard("fabric-limited")
            if flags:
                return True
        return False

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": not self.flagged,
            "threshold": self.threshold,
            "runs": [r.as_dict() for r in self.runs],
            "suspects": {"nodes": list(self.suspect_nodes), "rails": list(self.suspect_rails)},
            "notes": list(self.notes),
            "problems": [p.as_dict() for p in self.problems],
        }


def _host_index(fabric: Fabric) -> dict[str, str]:
    index: dict[str, str] = {}
    for name in fabric.nodes:
        index.setdefault(name.lower(), name)
    for name in fabric.nodes:
        index.setdefault(name.split(".", 1)[0].lower(), name)
    return index


def placement_of(fabric: Fabric, run: NcclRun) -> dict[str, tuple[int, ...]]:
    """{node: GPU indices} of a run; raises :class:`InputError` naming each unknown host or device."""
    index = _host_index(fabric)
    placement: dict[str, set[int]] = {}
    problems: list[Problem] = []
    unknown: set[str] = set()
    for r in run.ranks:
        node = index.get(r.host.lower()) or index.get(r.host.split(".", 1)[0].lower())
        pos = SourcePos(run.file, r.line, 1)
        if node is None:
            if r.host not in unknown:
                unknown.add(r.host)
                problems.append(Problem(pos, "", f"host {r.host!r} (rank {r.rank}) is not a node of {fabric.name}"))
            continue
        gpus = fabric.nodes[node].gpus
        if r.device >= gpus:
            problems.append(Problem(pos, "", f"rank {r.rank}: device {r.device} on {node}, which has {gpus} GPUs"))
            continue
        placement.setdefault(node, set()).add(r.device)
    if problems:
        raise InputError(problems)
    return {n: tuple(sorted(g)) for n, g in placement.items()}


def _measured(run: NcclRun, large_bytes: int) -> tuple[float, tuple[int, int], bool]:
    large = [r for r in run.rows if r.size >= large_bytes]
    plateau = bool(large)
    if not large:
        top = max(r.size for r in run.rows)
        large = [r for r in run.rows if r.size == top]
    return max(r.busbw for r in large), (min(r.size for r in large), max(r.size for r in large)), plateau


def _gb(x: float) -> str:
    return f"{x:,.1f} GB/s"


def analyze(
    fabric: Fabric,
    runs: Sequence[NcclRun],
    *,
    threshold: float = 0.15,
    assumptions: Assumptions | None = None,
    failures: Failures = NO_FAILURES,
    collective: Collective | None = None,
    algorithm: ExpectedAlgorithm = "ring",
    large_bytes: int = LARGE_BYTES,
    accept_fabric_limits: bool = False,
) -> Analysis:
    """Compare parsed runs with the model. ``collective`` overrides what each log says; ``algorithm`` is
    the prediction measured runs are held against (``ring``: NCCL's choice for large messages on RoCE
    rails; ``best``: the faster of ring and hierarchical). Runs that cannot be analysed (a host or device
    the inventory does not have, a collective that cannot be told) are left out and reported in
    :attr:`Analysis.problems`, one per problem, with the file and line."""
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    a = assumptions or Assumptions()
    view = build_view(fabric, failures)
    problems: list[Problem] = []
    results: list[RunResult] = []
    notes: list[str] = []
    for run in runs:
        coll = collective or run.collective()
        if coll is None:
            name = run.program or "this test"
            problems.append(
                Problem(
                    SourcePos(run.file, run.line, 1),
                    "",
                    f"cannot tell which collective {name} ran (the model knows all_reduce, all_gather, "
                    f"reduce_scatter, alltoall); pass --collective or name the file after the test",
                )
            )
            continue
        try:
            placement = placement_of(fabric, run)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        job, healthy = _Job(view, failed=bool(failures)), _Job(view, failed=False)
        for node, gpus in placement.items():
            job.add(view.nodes[node], gpus)
            healthy.add(view.nodes[node], gpus)
        pred = job.evaluate(coll, a)
        ideal = healthy.evaluate(coll, a, derate=False)
        pick = _pick(algorithm)
        expected, nonblocking = pick(pred), pick(ideal)
        measured, sizes, plateau = _measured(run, large_bytes)
        ratio = measured / expected if expected > 0 else float("inf")
        rails = tuple(
            sorted({n.rail for node, gpus in placement.items() for n in view.nodes[node].nics if n.gpu in gpus})
        )
        flags: list[str] = []
        details: list[str] = []
        if not plateau:
            details.append(
                f"largest message is {sizes[1]:,} B (< {large_bytes:,} B): bandwidth may not have reached its plateau"
            )
        if ratio < 1 - threshold:
            flags.append("short")
            details.append(
                f"measured {_gb(measured)} is {1 - ratio:.0%} below the expected {_gb(expected)} "
                f"(model limit: {pred.bottleneck})"
            )
        elif ratio > 1 + threshold:
            details.append(
                f"measured {_gb(measured)} is {ratio - 1:.0%} above the model's {_gb(expected)}: "
                f"in-network reduction (NVLS/SHARP) or the model's efficiency assumptions"
            )
        if nonblocking > 0 and expected < (1 - threshold) * nonblocking:
            flags.append("fabric-limited")
            under = ""
            if pred.switch is not None:
                hit = sorted(
                    node
                    for node, gpus in placement.items()
                    if any(
                        n.gpu in gpus and pred.switch in (view.leaves[n.leaf], view.pods[view.leaf_pod[n.leaf]])
                        for n in view.nodes[node].nics
                    )
                )
                if hit:
                    under = f"; nodes under it: {', '.join(hit)}"
            details.append(
                f"the fabric limits this job to {_gb(expected)} of {_gb(nonblocking)} non-blocking: "
                f"{pred.bottleneck}{under}"
            )
        wrong = sum(r.wrong for r in run.rows)
        if wrong or run.out_of_bounds:
            flags.append("data-errors")
            details.append(f"nccl-tests counted {wrong} wrong element(s), {run.out_of_bounds or 0} out of bounds")
        results.append(
            RunResult(
                run, coll, placement, rails, measured, sizes, pred, expected, nonblocking, ratio, tuple(flags),
                tuple(details),
            )
        )
    nodes, rails, more = _localise(results)
    notes.extend(more)
    return Analysis(tuple(results), nodes, rails, tuple(notes), threshold, accept_fabric_limits, tuple(problems))


def _pick(algorithm: ExpectedAlgorithm) -> Callable[[Prediction], float]:
    def pick(p: Prediction) -> float:
        if algorithm == "best":
            return p.best
        return p.busbw[Algorithm(algorithm)]

    return pick


def _localise(results: Sequence[RunResult]) -> tuple[tuple[str, ...], tuple[int, ...], list[str]]:
    short = [r for r in results if "short" in r.flags]
    passing = [r for r in results if "short" not in r.flags]
    if not short:
        return (), (), []
    nodes_short = {n for r in short for n in r.placement}
    nodes_ok = {n for r in passing for n in r.placement}
    rails_short = {x for r in short for x in r.rails}
    rails_ok = {x for r in passing for x in r.rails}
    nodes = tuple(sorted(nodes_short - nodes_ok))
    rails = tuple(sorted(rails_short - rails_ok))
    notes: list[str] = []
    if not passing:
        nodes, rails = (), ()
        notes.append(
            "every run is short: the suspects cannot be told apart; run node pairs or one GPU per node per "
            "rail (NCCL_TESTS_DEVICE) to localise"
        )
    elif not nodes and not rails:
        notes.append("no single node or rail explains the short runs: every one of them also passed elsewhere")
    return nodes, rails, notes
