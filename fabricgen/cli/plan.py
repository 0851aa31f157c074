"""`fabricgen plan`: what an inventory change adds, removes, moves, costs and risks — before anything is
bought or pushed. Saved with ``-o plan.json`` for ``fabricgen apply``."""

from __future__ import annotations

from pathlib import Path

import click

from fabricgen.cli import (
    EXIT_CHANGES,
    EXIT_FINDINGS,
    EXIT_INPUT,
    EXIT_OK,
    echo_json,
    guarded,
    stderr_console,
    stdout_console,
    writing,
)
from fabricgen.cli.drift import tls_options, tls_settings


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option(
    "--base",
    "base",
    required=True,
    metavar="REF_OR_PATH",
    help="The inventory before the change: a path (file or directory) or a git ref (git:REF forces a ref).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="For people (text), machines (json) or a pull-request comment (markdown).",
)
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False), help="Save the plan (JSON, with input digests).")
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes (0: none).")
@click.option("--live", is_flag=True, help="Diff configurations against the running devices instead of the base.")
@click.option("--hosts", type=click.Path(exists=True, dir_okay=False),
              help="--live: YAML/JSON device → host[:port] or {host, port, transport, certificate, ca_file}.")
@click.option("--credentials", type=click.Path(dir_okay=False), help="--live: credentials file (mode 0600).")
@click.option("--known-hosts", type=click.Path(dir_okay=False), help="--live: known_hosts for host-key checks.")
@tls_options
@click.option(
    "--lab/--no-lab",
    "use_lab",
    default=True,
    show_default=True,
    help="--live: use this fabric's lab when one is up on this machine.",
)
@click.option("--configs/--no-configs", default=True, show_default=True, help="Render and diff device configurations.")
@click.option("--diffs/--no-diffs", default=True, show_default=True, help="Print the unified diffs (text format).")
@click.option(
    "--diagram",
    "diagram",
    type=click.Path(dir_okay=False),
    help="Also write an SVG diagram of the new fabric with the additions highlighted.",
)
@click.option("--diagram-url", help="Where the diagram will be reachable (embedded in the Markdown).")
@guarded
def plan(
    inventory: str,
    base: str,
    fmt: str,
    out: str | None,
    detailed_exitcode: bool,
    live: bool,
    hosts: str | None,
    credentials: str | None,
    known_hosts: str | None,
    use_lab: bool,
    configs: bool,
    diffs: bool,
    diagram: str | None,
    diagram_url: str | None,
) -> None:
    """Compare INVENTORY with --base and report what changes, what it costs and what it risks.

    Exits 0 (no changes, or changes without --detailed-exitcode), 2 (changes, with --detailed-exitcode),
    1 (the new inventory has error findings; the newly failing ones are listed), 3 (input error).
    """
    from fabricgen.inventory.load import load_inventory
    from fabricgen.plan.build import make_plan
    from fabricgen.plan.file import save_plan
    from fabricgen.plan.inputs import Base, open_base, record_path
    from fabricgen.topology.resolve import resolve

    new = resolve(load_inventory(inventory))
    target = record_path(inventory)
    with open_base(Base.parse(base), inventory) as (base_path, base_rec):
        old = resolve(load_inventory(base_path))
    notes: list[str] = []
    live_diffs = None
    if live:
        from fabricgen.deploy.credentials import CredentialsError
        from fabricgen.deploy.targets import TargetError
        from fabricgen.lab.plan import LabError
        from fabricgen.plan.diff import diff_fabrics
        from fabricgen.plan.live import live_config_diffs

        touched = sorted(diff_fabrics(old, new, qos=False).changed_names("switch"))
        try:
            live_diffs, live_notes = live_config_diffs(
                inventory, touched, hosts=hosts, credentials=credentials, known_hosts=known_hosts, use_lab=use_lab,
                **tls_settings(),
            )
        except (CredentialsError, TargetError, LabError) as exc:
            stderr_console().print(f"fabricgen: --live: {exc}", markup=False)
            raise SystemExit(EXIT_INPUT) from None
        notes += live_notes
    the_plan = make_plan(old, new, base_rec, target, configs=configs, live_diffs=live_diffs, notes=tuple(notes))
    if out:
        with writing(out):
            save_plan(the_plan, out)
    if diagram:
        from fabricgen.plan.diagram import write_svg

        with writing(diagram):
            write_svg(new, diagram, plan=the_plan)
    if fmt == "json":
        echo_json(the_plan.as_dict(), indent=1)
    elif fmt == "markdown":
        from fabricgen.plan.markdown import render_markdown

        url = diagram_url or (Path(diagram).as_posix() if diagram else None)
        click.echo(render_markdown(the_plan, diagram_url=url))
    else:
        from fabricgen.plan.text import print_plan

        print_plan(stdout_console(), the_plan, diffs=diffs)
    if out and fmt != "json":
        stderr_console().print(f"plan saved to {out} (apply it with: fabricgen apply {out})", markup=False)
    if the_plan.has_errors:
        raise SystemExit(EXIT_FINDINGS)
    raise SystemExit(EXIT_CHANGES if detailed_exitcode and the_plan.has_changes else EXIT_OK)
