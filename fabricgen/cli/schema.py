"""`fabricgen schema [-o FILE]`: the JSON Schema of an inventory file, for editors and other validators."""

from __future__ import annotations

import json
from pathlib import Path

import click

from fabricgen.cli import EXIT_OK, guarded


@click.command()
@click.option("-o", "--output", "output", default=None, type=click.Path(dir_okay=False),
              help="Write the schema to this file (default: standard output).")
@guarded
def schema(output: str | None) -> None:
    """Print (or write) the JSON Schema of one inventory file, e.g. for a YAML language server."""
    from fabricgen.ecosystem.schema import inventory_schema

    text = json.dumps(inventory_schema(), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        path = Path(output)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        click.echo(f"wrote {path}", err=True)
    raise SystemExit(EXIT_OK)
