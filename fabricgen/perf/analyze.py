"""Hold nccl-tests results against the model: per run, per node, per rail.

For every run: the hostnames of its header map ranks to inventory nodes (exact name, then the short
hostname, case-insensitively) and each rank's ``device`` number to that node's GPU (and so to its rail
NIC); the model predicts the bus bandwidth of that node set; the measured figure is the best bus bandwidth
of the rows at large message sizes (``large_bytes`` and up; the largest row when none is that large).

The prediction a run is held against is, by default, the algorithm NCCL would have used for it: NVLS on
one node with NVLink SHARP, NVLS-tree or tree on two nodes, ring beyond (see :mod:`fabricgen.perf.model`),
restricted by ``NCCL_ALGO`` when the log shows it and by the NCCL version it names (NVLS from 2.17,
NVLS-tree from 2.18). ``algorithm`` names one instead.

A run is flagged when

* ``short``: measured < (1 − threshold) × predicted at plateau sizes — something the inventory does not
  know (a slow or flapping NIC, a mis-set QoS, a bad cable, a failed link not passed with ``--fail``);
* ``inconclusive``: the run cannot prove a pass: it stops early (truncated, cut off by a rerun, an
  unreadable row: the reason is given) and its plateau rows do not already show it short, or it is below
  the prediction but never reached ``large_bytes`` (the bandwidth may still have been climbing);
* ``fabric-limited``: predicted < (1 − threshold) × the same job on a non-blocking fabric — the fabric as
  declared holds the job back (an oversubscribed tier it crosses, failed links); the limiting switch and
  the job's nodes under it are named;
* ``data-errors``: nccl-tests counted wrong elements (``#wrong``) or out-of-bounds values.

A run without a single result row (a job killed at start-up, after its device list) is not a result: it is an
input problem at the run's line, unless a complete rerun of the same ranks follows it in the file (then a note).

Nodes and rails are localised across runs: a node (rail) is a suspect when it takes part in a short run
and in no passing run. With a single short run every node of it is a suspect and the report says that it
cannot tell them apart (run node pairs, or one GPU per node per rail, to localise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
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
    parse_nccl_algo,
)
from fabricgen.perf.nccl import NcclRun
from fabricgen.topology.model import Fabric

LARGE_BYTES = 256 * 1024 * 1024
"""Message size from which nccl-tests bus bandwidth is on its plateau (compared with the model)."""

ExpectedAlgorithm = Literal["default", "ring", "tree", "nvls", "nvls_tree", "direct", "hierarchical", "best"]
ALGORITHM_CHOICES: tuple[ExpectedAlgorithm, ...] = (
    "default", "ring", "tree", "nvls", "nvls_tree", "direct", "hierarchical", "best",
)  # fmt: skip


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
    flags: tuple[str, ...]  # "short", "inconclusive", "fabric-limited", "data-errors"
    details: tuple[str, ...]  # one sentence per flag or remark
    algorithm: Algorithm = Algorithm.RING  # the algorithm ``expected`` is the prediction of

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
            "avg_busbw": None if self.run.avg_busbw is None else round(self.run.avg_busbw, 3),
            "incomplete": self.run.incomplete,
            "algorithm": self.algorithm.value,
            "nccl_algo": self.run.nccl_algo,
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
    if not run.rows:
        return 0.0, (0, 0), False
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
    algorithm: ExpectedAlgorithm = "default",
    large_bytes: int = LARGE_BYTES,
    accept_fabric_limits: bool = False,
) -> Analysis:
    """Compare parsed runs with the model. ``collective`` overrides what each log says; ``algorithm`` is
    the prediction measured runs are held against (``default``: the algorithm NCCL would have used for
    the run, see the module docstring; ``best``: the fastest algorithm the model knows; or one by name).
    Runs that cannot be analysed (no result row, a host or device the inventory does not have, a collective that
    cannot be told) are left out and reported in :attr:`Analysis.problems`, one per problem, with the file and
    line."""
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    a = assumptions or Assumptions()
    view = build_view(fabric, failures)
    problems: list[Problem] = []
    results: list[RunResult] = []
    notes: list[str] = []
    for i, run in enumerate(runs):
        if not run.rows:  # a job killed at start-up: nothing to hold against the model
            rerun = _rerun(run, runs[i + 1 :])
            if rerun is not None:
                notes.append(
                    f"{run.file}: the run of line {run.line} has no result row and is settled by the complete "
                    f"rerun at line {rerun.line}"
                )
            else:
                why = run.incomplete or f"the run of line {run.line} has no result rows"
                problems.append(Problem(SourcePos(run.file, run.line, 1), "", f"no result row to compare: {why}"))
            continue
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
        allowed = parse_nccl_algo(run.nccl_algo) if run.nccl_algo else None
        pred = job.evaluate(coll, a, nccl_version=run.nccl_version, allowed=allowed)
        ideal = healthy.evaluate(coll, a, derate=False, nccl_version=run.nccl_version, allowed=allowed)
        algo, note = _choose(algorithm, pred)
        expected = pred.busbw.get(algo, 0.0) if algorithm != "best" else pred_best(pred)
        nonblocking = ideal.busbw.get(algo, 0.0) if algorithm != "best" else pred_best(ideal)
        measured, sizes, plateau = _measured(run, large_bytes)
        ratio = measured / expected if expected > 0 else float("inf")
        rails = tuple(
            sorted({n.rail for node, gpus in placement.items() for n in view.nodes[node].nics if n.gpu in gpus})
        )
        flags: list[str] = []
        details: list[str] = [f"held against {_algo_words(algo, run, algorithm)}"]
        if note:
            details.append(note)
        if run.incomplete:
            details.append(f"incomplete run: {run.incomplete}")
        if run.rows and not plateau:
            details.append(
                f"largest message is {sizes[1]:,} B (< {large_bytes:,} B): bandwidth may not have reached its plateau"
            )
        below = ratio < 1 - threshold
        if below and plateau:
            flags.append("short")
            details.append(
                f"measured {_gb(measured)} is {1 - ratio:.0%} below the expected {_gb(expected)} "
                f"(model limit: {pred.bottleneck})"
            )
        elif below:
            flags.append("inconclusive")
            details.append(
                f"measured {_gb(measured)} at {sizes[1]:,} B is {1 - ratio:.0%} below the expected {_gb(expected)}, "
                f"but the run never reached {large_bytes:,} B: rerun with -e 8G (or larger) to decide"
            )
        if run.incomplete and run.rows and "short" not in flags and "inconclusive" not in flags:
            flags.append("inconclusive")
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
        bad = [r for r in run.rows if r.wrong]
        if bad or run.out_of_bounds:
            flags.append("data-errors")
            worst = max((r.wrong for r in bad), default=0)
            details.append(
                f"nccl-tests counted wrong elements in {len(bad)} of {len(run.rows)} row(s) (up to {worst:,} in one, "
                f"from line {bad[0].line})" if bad else "nccl-tests found wrong results"
            )
            if run.out_of_bounds:
                details.append(f"{run.out_of_bounds} row(s) out of bounds (nccl-tests' '# Out of bounds values')")
        results.append(
            RunResult(
                run, coll, placement, rails, measured, sizes, pred, expected, nonblocking, ratio, tuple(flags),
                tuple(details), algo,
            )
        )
    results = _supersede(results)
    nodes, rails, more = _localise(results)
    notes.extend(more)
    return Analysis(tuple(results), nodes, rails, tuple(notes), threshold, accept_fabric_limits, tuple(problems))


def _same_ranks(a: NcclRun, b: NcclRun) -> bool:
    return a.file == b.file and [(k.host, k.device) for k in a.ranks] == [(k.host, k.device) for k in b.ranks]


def _rerun(run: NcclRun, later: Sequence[NcclRun]) -> NcclRun | None:
    """The first complete run after ``run`` in its file with the same ranks (a rerun after a crash), if any."""
    return next((x for x in later if x.incomplete is None and x.rows and _same_ranks(run, x)), None)


def _supersede(results: list[RunResult]) -> list[RunResult]:
    """An incomplete run followed in the same file by a complete run of the same ranks and collective (a
    rerun after a crash) is settled by the rerun: its ``inconclusive`` flag is dropped, with a remark."""
    out: list[RunResult] = []
    for i, r in enumerate(results):
        if r.run.incomplete and "inconclusive" in r.flags:
            key = (r.run.file, r.collective, tuple((k.host, k.device) for k in r.run.ranks))
            later = next(
                (
                    x
                    for x in results[i + 1 :]
                    if x.run.incomplete is None
                    and (x.run.file, x.collective, tuple((k.host, k.device) for k in x.run.ranks)) == key
                ),
                None,
            )
            if later is not None:
                flags = tuple(f for f in r.flags if f != "inconclusive")
                note = f"superseded by the complete rerun at line {later.run.line}"
                r = replace(r, flags=flags, details=(*r.details, note))
        out.append(r)
    return out


def pred_best(p: Prediction) -> float:
    """The fastest algorithm the model knows for the prediction."""
    return max(p.busbw.values())


def _choose(algorithm: ExpectedAlgorithm, p: Prediction) -> tuple[Algorithm, str]:
    """The algorithm to hold a run against, and a remark when the one asked for does not apply."""
    if algorithm == "default":
        return p.algorithm, ""
    if algorithm == "best":
        return max(p.busbw, key=lambda x: p.busbw[x]), ""
    wanted = Algorithm(algorithm)
    if wanted in p.busbw:
        return wanted, ""
    return p.algorithm, f"{wanted.value} does not apply to this job; held against {p.algorithm.value}"


def _algo_words(algo: Algorithm, run: NcclRun, algorithm: ExpectedAlgorithm) -> str:
    if algorithm != "default":
        return f"{algo.value} (--algorithm {algorithm})"
    why = f"NCCL_ALGO={run.nccl_algo} in the log" if run.nccl_algo else "NCCL's default for this job size"
    if run.nccl_version:
        why += f", NCCL {'.'.join(map(str, run.nccl_version))}"
    return f"{algo.value} ({why})"


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
