"""`fabricgen import nautobot|netbox` and the source-of-truth side of `fabricgen export`: see
:mod:`fabricgen.ecosystem.sot` for the mapping. URL and token come from the environment only
(``FABRICGEN_NAUTOBOT_URL``/``FABRICGEN_NAUTOBOT_TOKEN``, ``FABRICGEN_NETBOX_URL``/``FABRICGEN_NETBOX_TOKEN``)
and the token is never printed."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError
from ruamel.yaml import YAML

from fabricgen.cli import EXIT_INPUT, EXIT_OK, FORMAT, echo_json, guarded, stdout_console

SOURCES = ("nautobot", "netbox")


def client(kind: str) -> Any:
    """A REST client from ``FABRICGEN_<KIND>_URL``/``_TOKEN``; exit 3 when unset."""
    from fabricgen.ecosystem.rest import Client

    url = os.environ.get(f"FABRICGEN_{kind.upper()}_URL", "")
    token = os.environ.get(f"FABRICGEN_{kind.upper()}_TOKEN", "")
    if not url or not token:
        fail(kind, f"set FABRICGEN_{kind.upper()}_URL and FABRICGEN_{kind.upper()}_TOKEN")
    return Client(url, token)


def fail(kind: str, *problems: str) -> None:
    for problem in problems:
        click.echo(problem if problem.startswith(f"{kind}: ") else f"{kind}: {problem}", err=True)
    raise SystemExit(EXIT_INPUT)


def export_sot(kind: str, inventory: str, dry_run: bool, fmt: str) -> None:
    """``fabricgen export nautobot|netbox``: the objects (dry run) or create them (Nautobot)."""
    from fabricgen.ecosystem import nautobot, netbox
    from fabricgen.ecosystem.rest import RestError
    from fabricgen.ecosystem.sot import SotError, from_fabric
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    loaded = load_inventory(inventory)
    try:
        sot = from_fabric(resolve(loaded), loaded.inventory)
        lines = [op.line() for op in (nautobot.plan(sot) if kind == "nautobot" else netbox.plan(sot))]
    except SotError as exc:
        fail(kind, *exc.problems)
    if not dry_run:
        if kind == "netbox":
            fail(kind, "pushing to NetBox is not supported; use --dry-run to list the objects")
        try:
            lines = nautobot.push(client(kind), nautobot.plan(sot))
        except RestError as exc:
            fail(kind, str(exc))
    if fmt == "json":
        echo_json({"dry_run": dry_run, "objects": lines})
    else:
        console = stdout_console()
        for line in lines:
            console.print(line if not dry_run else f"would {line}", markup=False)
    raise SystemExit(EXIT_OK)


def dump(data: Any) -> str:
    from fabricgen.cli.export import dump_yaml

    return dump_yaml(data)


def check(devices: dict[str, Any], cabling: dict[str, Any], where: dict[str, str], kind: str) -> list[str]:
    """Every imported object through the inventory's typed models; one message per problem, naming it."""
    from fabricgen.inventory.schema import Link, Node, Switch

    problems = []
    for model, items in ((Switch, devices["switches"]), (Node, devices["nodes"]), (Link, cabling["links"])):
        for item in items:
            try:
                model.model_validate(item)
            except ValidationError as exc:
                at = where.get(str(item.get("name") or item.get("a")), f"{kind}: dcim.cable {item.get('a')}")
                for err in exc.errors():
                    path = ".".join(str(p) for p in err["loc"])
                    problems.append(f"{at}: {path}: {err['msg']}")
    return problems


def read_settings(kind: str, paths: tuple[str, ...]) -> tuple[dict[str, str], str]:
    """``({file name: text}, fabric name)`` of the ``--fabric`` files, each a YAML mapping; exactly one names
    ``fabric.name``. Files keep their names in the output, which may not collide with the imported ones."""
    from ruamel.yaml.error import YAMLError

    texts: dict[str, str] = {}
    names: list[str] = []
    for path in paths:
        rel = Path(path).name
        if rel in ("devices.yaml", "cabling.yaml") or rel in texts:
            fail(kind, f"{path}: the output already has a {rel}; rename the settings file")
        try:
            texts[rel] = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            fail(kind, f"{path}: not UTF-8 text")
        except OSError as exc:
            fail(kind, f"{path}: {exc.strerror or exc}")
        try:
            with warnings.catch_warnings():  # a reused anchor is valid YAML: no multi-line warning on stderr
                warnings.simplefilter("ignore")
                settings = YAML(typ="safe").load(texts[rel])
        except YAMLError as exc:
            fail(kind, f"{path}: {exc}".replace("\n", " "))
        if settings is not None and not isinstance(settings, dict):
            fail(kind, f"{path}: not a YAML mapping")
        section = settings.get("fabric") if isinstance(settings, dict) else None
        if isinstance(section, dict) and isinstance(section.get("name"), str) and section["name"]:
            names.append(section["name"])
    if len(names) != 1:
        fail(kind, f"{', '.join(paths)}: {'no' if not names else 'more than one'} fabric.name among the --fabric files")
    return texts, names[0]


@click.command("import")
@click.argument("kind", type=click.Choice(SOURCES))
@click.option("--fabric", "fabric_files", required=True, multiple=True,
              type=click.Path(dir_okay=False, exists=True),
              help="YAML file of fabric-wide settings (fabric:, and optionally qos:, catalog:, base:), copied as is "
                   "under its own name; repeat it for each file (e.g. fabric.yaml and base.yaml).")
@click.option("--location", default=None, help="Nautobot location / NetBox site of the fabric (default: fabric.name).")
@click.option("-o", "--output", "output", default=".", show_default=True, type=click.Path(file_okay=False),
              help="Directory of the explicit inventory written (fabric.yaml, devices.yaml, cabling.yaml).")
@click.option("--dry-run", is_flag=True, help="Print the files that would be written; write nothing.")
@FORMAT
@guarded
def import_(kind: str, fabric_files: tuple[str, ...], location: str | None, output: str, dry_run: bool,
            fmt: str) -> None:
    """Import a fabric's devices and cables from Nautobot or NetBox as an explicit inventory."""
    from fabricgen.ecosystem import nautobot, netbox
    from fabricgen.ecosystem.rest import RestError
    from fabricgen.ecosystem.sot import SotError, to_inventory

    settings_files, name = read_settings(kind, fabric_files)
    try:
        reader = nautobot.read if kind == "nautobot" else netbox.read
        sot, where = reader(client(kind), location or str(name))
        devices, cabling = to_inventory(sot, where)
    except (RestError, SotError) as exc:
        fail(kind, *(exc.problems if isinstance(exc, SotError) else [str(exc)]))
    problems = check(devices, cabling, where, kind)
    if problems:
        fail(kind, *problems)
    header = f"# Imported from {kind} by `fabricgen import {kind}`; location {location or name}.\n"
    files = {**settings_files, "devices.yaml": header + dump(devices), "cabling.yaml": header + dump(cabling)}
    out = Path(output)
    if not dry_run:
        out.mkdir(parents=True, exist_ok=True)
        for rel, text in files.items():
            (out / rel).write_text(text, encoding="utf-8")
    if fmt == "json":
        echo_json({"dry_run": dry_run, "files": [str(out / rel) for rel in files],
                   "switches": len(devices["switches"]), "nodes": len(devices["nodes"]),
                   "links": len(cabling["links"])})
    else:
        console = stdout_console()
        for rel, text in files.items():
            console.print(f"{'would write' if dry_run else 'wrote'} {out / rel}", markup=False)
            if dry_run and rel not in settings_files:
                console.print(text, markup=False, end="")
    raise SystemExit(EXIT_OK)
