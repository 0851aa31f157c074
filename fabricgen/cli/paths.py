"""`fabricgen paths`: where a job's RoCE flows land on the equal-cost paths, and what each remedy buys."""

from __future__ import annotations

import click

from fabricgen.cli import EXIT_OK, echo_json, guarded, stdout_console
from fabricgen.perf.model import Assumptions

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter")
REMEDIES = ("ecmp", "qps", "3-tuple", "adaptive", "spray")
DEFAULT_REMEDIES = ("ecmp", "qps", "adaptive", "spray")
MAX_SEEDS = 1000
_DEFAULT = Assumptions()
NIC_EFFICIENCY = click.option(
    "--nic-efficiency", type=click.FloatRange(0, 1, min_open=True), default=_DEFAULT.nic_efficiency,
    show_default=True, help="Payload share of a RoCE link's line rate.",
)
NVLINK_EFFICIENCY = click.option(
    "--nvlink-efficiency", type=click.FloatRange(0, 1, min_open=True), default=_DEFAULT.nvlink_efficiency,
    show_default=True, help="Share of the per-GPU NVLink bandwidth a collective reaches.",
)


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option(
    "--job", "jobs", multiple=True, metavar="N[:packed|scattered]|NODE,NODE,…",
    help="A job: N GPUs (whole nodes, placed as --placement says or as the suffix says) or nodes in rank "
    "order (repeatable; default: the whole fabric).",
)
@click.option(
    "--collective", type=click.Choice(COLLECTIVES), default="all_reduce", show_default=True,
    help="Collective to model.",
)
@click.option(
    "--algorithm", type=click.Choice(["ring", "tree"]), default="ring", show_default=True,
    help="NCCL algorithm whose neighbours exchange data (tree: all_reduce's double binary tree).",
)
@click.option(
    "--placement", type=click.Choice(["packed", "scattered"]), default="packed", show_default=True,
    help="For --job N: the first nodes a scheduler packs, or nodes drawn at random (a fragmented cluster).",
)
@click.option("--qps", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION) for ECMP.")
@click.option("--more-qps", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Queue pairs per connection of the 'qps' remedy.")
@click.option("--flowlets", type=click.IntRange(1, 64), default=8, show_default=True,
              help="Pieces per flow that adaptive routing places independently.")
@click.option(
    "--remedy", "remedies", multiple=True, type=click.Choice(REMEDIES),
    help="Rows to show (repeatable; default: ecmp, qps, adaptive, spray). ecmp: as rendered with --qps (the rendered "
    "hash, or adaptive routing where the inventory turns it on); "
    "qps: the same with --more-qps; 3-tuple: ECMP hashing addresses only, with --more-qps; adaptive: "
    "least-loaded per flowlet; spray: every packet over every path.",
)
@click.option("--seeds", type=click.IntRange(1, MAX_SEEDS), default=16, show_default=True,
              help="Hash seeds (queue pair numbers and switch hash seeds) per remedy.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True,
              help="Seed of the scattered placement.")
@click.option(
    "--fail", "fail", multiple=True, metavar="DEVICE[:PORT]",
    help="Take a switch, node, switch port or node NIC out of service (repeatable).",
)
@NIC_EFFICIENCY
@NVLINK_EFFICIENCY
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True,
    help="For people (text), machines (json) or a pull-request comment (markdown).",
)
@guarded
def paths(
    inventory: str, jobs: tuple[str, ...], collective: str, algorithm: str, placement: str, qps: int,
    more_qps: int, flowlets: int, remedies: tuple[str, ...], seeds: int, seed: int, fail: tuple[str, ...],
    nic_efficiency: float, nvlink_efficiency: float, fmt: str,
) -> None:
    """Place the flows of a collective on INVENTORY's fabric the way its switches hash them, and predict
    the bus bandwidth (GB/s) with ECMP and each remedy: more queue pairs, adaptive routing, packet
    spraying; with --fail, on the degraded fabric. Reports the median and 5th percentile over hash seeds
    and the most loaded links.

    Exits 0, or 3 when the input cannot be used.
    """
    from fabricgen.errors import InputError, Problem
    from fabricgen.inventory.load import load_inventory
    from fabricgen.perf import Assumptions, Collective, parse_failures
    from fabricgen.perf.paths import (
        Job,
        Remedy,
        packed_nodes,
        parse_job,
        paths_report,
        rendered_hash,
        rendered_remedy,
    )
    from fabricgen.perf.paths.report import paths_markdown, print_paths
    from fabricgen.topology.resolve import resolve

    if algorithm == "tree" and collective != "all_reduce":
        raise InputError([Problem(None, "--algorithm", "tree is NCCL's all_reduce algorithm only")])
    fabric = resolve(load_inventory(inventory))
    failures = parse_failures(fabric, fail)
    if jobs:
        job_list = [parse_job(fabric, spec, "scattered" if placement == "scattered" else "packed", seed, failures)
                    for spec in jobs]
    else:
        every = tuple(packed_nodes(fabric, failures))
        job_list = [Job(f"{sum(fabric.nodes[n].gpus for n in every):,} GPUs (whole fabric)", every)]
    h = rendered_hash()
    table = {
        "ecmp": rendered_remedy(fabric, qps, flowlets),  # adaptive where the inventory turns adaptive routing on
        "qps": Remedy(f"ECMP {h}, {more_qps} QP" + ("s" if more_qps > 1 else ""), "ecmp", more_qps, h),
        "3-tuple": Remedy(f"ECMP 3-tuple, {more_qps} QP" + ("s" if more_qps > 1 else ""), "ecmp", more_qps,
                          "3-tuple"),
        "adaptive": Remedy(f"adaptive ({flowlets} flowlets)", "adaptive", qps, h, flowlets),
        "spray": Remedy("packet spraying", "spray", qps, h),
    }
    chosen = [table[r] for r in dict.fromkeys(remedies or DEFAULT_REMEDIES)]
    report = paths_report(
        fabric, job_list, chosen, collective=Collective(collective),
        pattern="tree" if algorithm == "tree" else "ring", seeds=seeds, failures=failures,
        assumptions=Assumptions(nic_efficiency, nvlink_efficiency),
    )
    if fmt == "json":
        echo_json(report.as_dict())
    elif fmt == "markdown":
        click.echo(paths_markdown(report), nl=False)
    else:
        print_paths(stdout_console(), report)
    raise SystemExit(EXIT_OK)

