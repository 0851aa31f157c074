"""`fabricgen nccl analyze`: hold nccl-tests results against the fabric's predicted bus bandwidth."""

from __future__ import annotations

import click

from fabricgen.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, FORMAT, echo_json, guarded, stderr_console, stdout_console
from fabricgen.cli.scaling import COLLECTIVES, NIC_EFFICIENCY, NVLINK_EFFICIENCY
from fabricgen.perf.analyze import ALGORITHM_CHOICES, ExpectedAlgorithm


@click.group()
def nccl() -> None:
    """Work with nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf)."""


@nccl.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=False))
@click.option(
    "--threshold", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.15, show_default=True,
    help="Flag runs more than this fraction below the prediction.",
)
@click.option(
    "--collective", type=click.Choice(COLLECTIVES), default=None, help="Override the collective of every log."
)
@click.option(
    "--algorithm", type=click.Choice(ALGORITHM_CHOICES), default="default", show_default=True,
    help="Prediction the measurements are held against (default: the algorithm NCCL would have used: "
    "NVLS in one node, NVLS-tree/tree on two, ring beyond; NCCL_ALGO in the log restricts it).",
)
@click.option("--fail", "fail", multiple=True, metavar="DEVICE[:PORT]", help="Known failed switch, node, port or NIC.")
@click.option(
    "--accept-fabric-limits", is_flag=True, help="Report runs the declared fabric limits, but do not fail on them."
)
@NIC_EFFICIENCY
@NVLINK_EFFICIENCY
@FORMAT
@guarded
def analyze(
    inventory: str,
    logs: tuple[str, ...],
    threshold: float,
    collective: str | None,
    algorithm: str,
    fail: tuple[str, ...],
    accept_fabric_limits: bool,
    nic_efficiency: float,
    nvlink_efficiency: float,
    fmt: str,
) -> None:
    """Parse nccl-tests LOGS, map ranks to INVENTORY's nodes by hostname, compare the bus bandwidth at
    large message sizes with the model's prediction for each run's nodes, and flag runs, nodes and rails
    that fall short.

    Exits 0 when nothing is flagged, 1 when something is, 3 when a log or the inventory cannot be used
    (one line per problem, naming the file and line; readable logs are still analysed and reported).
    """
    from typing import cast

    from fabricgen.errors import Problem, SourcePos
    from fabricgen.inventory.load import load_inventory
    from fabricgen.perf import Assumptions, Collective, parse_failures
    from fabricgen.perf.analyze import analyze as run_analysis
    from fabricgen.perf.nccl import NcclLogError, NcclRun, read_log
    from fabricgen.perf.report import print_analysis
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    failures = parse_failures(fabric, fail)
    problems: list[Problem] = []
    runs: list[NcclRun] = []
    for path in logs:
        try:
            runs.extend(read_log(path))
        except NcclLogError as exc:
            # a log that cannot be opened is named as the log, at its start (not as the inventory)
            problems.append(Problem(SourcePos(exc.file, max(exc.line, 1), 1), "", exc.message))
    analysis = None
    if runs:  # every readable log is analysed; a broken one does not hide the others
        analysis = run_analysis(
            fabric,
            runs,
            threshold=threshold,
            assumptions=Assumptions(nic_efficiency, nvlink_efficiency),
            failures=failures,
            collective=Collective(collective) if collective else None,
            algorithm=cast(ExpectedAlgorithm, algorithm),
            accept_fabric_limits=accept_fabric_limits,
        )
        problems.extend(analysis.problems)
    if fmt == "json":
        doc = analysis.as_dict() if analysis else {"ok": False, "runs": []}
        doc["ok"] = bool(doc["ok"]) and not problems
        doc["problems"] = [p.as_dict() for p in problems]
        echo_json(doc)
    elif analysis is not None:
        print_analysis(stdout_console(), analysis)
    if problems:
        err = stderr_console()
        for p in problems:
            err.print(str(p), markup=False)
        err.print(f"{len(problems)} input problem(s)", markup=False)
        raise SystemExit(EXIT_INPUT)
    raise SystemExit(EXIT_FINDINGS if analysis is not None and analysis.flagged else EXIT_OK)
