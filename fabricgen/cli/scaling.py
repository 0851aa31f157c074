"""`fabricgen scaling`: expected collective bus bandwidth and scaling efficiency by job size."""

from __future__ import annotations

import click

from fabricgen.cli import EXIT_OK, FORMAT, Fraction, echo_json, guarded, stdout_console
from fabricgen.perf.model import Assumptions

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")


_DEFAULT = Assumptions()
NIC_EFFICIENCY = click.option(
    "--nic-efficiency", type=Fraction(), default=_DEFAULT.nic_efficiency,
    show_default=True, help="Payload share of a RoCE link's line rate.",
)
NVLINK_EFFICIENCY = click.option(
    "--nvlink-efficiency", type=Fraction(), default=_DEFAULT.nvlink_efficiency,
    show_default=True, help="Share of the per-GPU NVLink bandwidth a collective reaches.",
)


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option(
    "--collective", type=click.Choice(COLLECTIVES), default="all_reduce", show_default=True, help="Collective to model."
)
@click.option(
    "--fail",
    "fail",
    multiple=True,
    metavar="DEVICE[:PORT]",
    help="Take a switch, node, switch port or node NIC out of service (repeatable).",
)
@NIC_EFFICIENCY
@NVLINK_EFFICIENCY
@click.option("--collisions/--no-collisions", default=None,
              help="Add the ECMP column: busbw left by hash collisions for scattered jobs, 1 QP "
                   "(default: on up to 16,384 GPUs).")
@FORMAT
@guarded
def scaling(
    inventory: str, collective: str, fail: tuple[str, ...], nic_efficiency: float, nvlink_efficiency: float,
    collisions: bool | None, fmt: str,
) -> None:
    """Predict nccl-tests bus bandwidth (GB/s) for jobs of growing size on INVENTORY's fabric: one node,
    two nodes, a rail group, a unit, 2, 4 … units, pods, the whole fabric; with scaling efficiency
    and what limits each size.

    Exits 0, or 3 when the input cannot be used.
    """
    from fabricgen.inventory.load import load_inventory
    from fabricgen.perf import Assumptions, Collective, parse_failures, scaling_table
    from fabricgen.perf.report import print_scaling
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    failures = parse_failures(fabric, fail)
    table = scaling_table(
        fabric, Collective(collective), Assumptions(nic_efficiency, nvlink_efficiency), failures
    )
    if collisions is None:
        from fabricgen.perf.paths.core import COLLISION_COLUMN_MAX_GPUS

        collisions = fabric.gpus <= COLLISION_COLUMN_MAX_GPUS and collective == "all_reduce"
    if collisions:
        from fabricgen.perf.paths.core import with_collisions

        table = with_collisions(table, fabric, failures)
    if fmt == "json":
        echo_json(table.as_dict())
    else:
        print_scaling(stdout_console(), table)
    raise SystemExit(EXIT_OK)
