"""`fabricgen diagram`: draw a fabric (tiers, switches, link groups with their oversubscription) as SVG."""

from __future__ import annotations

import click

from fabricgen.cli import EXIT_OK, guarded, stderr_console, writing


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option(
    "-o",
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    default="fabric.svg",
    show_default=True,
    help="Where to write the SVG.",
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False),
    help="A saved plan (fabricgen plan -o): highlight what it adds and which existing devices change.",
)
@click.option(
    "--detail/--aggregate",
    "detail",
    default=None,
    help="Every switch as a box, or one column per pod (default: chosen by size).",
)
@guarded
def diagram(inventory: str, out: str, plan_file: str | None, detail: bool | None) -> None:
    """Draw INVENTORY as an SVG picture: one row per tier, green for what a plan adds."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.plan.diagram import write_svg
    from fabricgen.plan.file import load_plan
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    plan = load_plan(plan_file) if plan_file else None
    with writing(out):
        write_svg(fabric, out, plan=plan, detail=detail)
    stderr_console().print(f"wrote {out}", markup=False)
    raise SystemExit(EXIT_OK)
