"""`fabricgen validate`: load, resolve, check, summarise."""

from __future__ import annotations

import json
from typing import Any

import click

from fabricgen.cli import CI_FORMAT, EXIT_FINDINGS, EXIT_OK, JSON_FORMAT, guarded, stdout_console


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@CI_FORMAT
@click.option("--summary/--no-summary", default=True, show_default=True, help="Print the capacity summary.")
@guarded
def validate(inventory: str, fmt: str, summary: bool) -> None:
    """Load INVENTORY (a YAML file or directory), resolve it, run every check and report.

    Exits 0 when no finding is an error, 1 otherwise, 3 when the input cannot be used.
    """
    from fabricgen.checks import Severity, rule_codes, run_checks
    from fabricgen.inventory.load import load_inventory
    from fabricgen.report.summary import summarize
    from fabricgen.report.text import print_findings, print_summary
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    findings = run_checks(fabric)
    failed = any(f.severity is Severity.ERROR for f in findings)
    if fmt == "json":
        doc: dict[str, Any] = {
            "format": JSON_FORMAT,
            "ok": not failed,
            "summary": summarize(fabric),
            "findings": [f.as_dict() for f in findings],
        }
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    elif fmt == "junit":
        from fabricgen.report.ci import junit_findings

        click.echo(junit_findings("validate", findings, rule_codes()), nl=False)
    elif fmt == "github":
        from fabricgen.report.ci import github_findings

        for line in github_findings(findings):
            click.echo(line)
    else:
        out = stdout_console()
        if summary:
            print_summary(out, summarize(fabric))
        print_findings(out, findings)
    raise SystemExit(EXIT_FINDINGS if failed else EXIT_OK)
