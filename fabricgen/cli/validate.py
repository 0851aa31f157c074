"""`fabricgen validate`: load, resolve, check, summarise."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from fabricgen.cli import CI_FORMAT, EXIT_FINDINGS, EXIT_OK, JSON_FORMAT, background, guarded, stdout_console

if TYPE_CHECKING:
    from fabricgen.checks import Finding
    from fabricgen.topology.model import Fabric


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@CI_FORMAT
@click.option("--summary/--no-summary", default=True, show_default=True, help="Print the capacity summary.")
@guarded
def validate(inventory: str, fmt: str, summary: bool) -> None:
    """Load INVENTORY (a YAML file or directory), resolve it, run every check and report.

    Exits 0 when no finding is an error, 1 otherwise, 3 when the input cannot be used.
    """
    from fabricgen.checks import Severity, rule_codes
    from fabricgen.inventory.load import load_inventory
    from fabricgen.report.summary import summarize
    from fabricgen.report.text import print_findings, print_summary
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    findings = checks_beside(fabric)
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


FORK_SWITCHES = 256
"""From this many switches on, the QoS rules run in a forked child (:mod:`fabricgen.cli.background`) while this
process runs the others; below it, a fork costs more than it saves (as for ``render``)."""


def checks_beside(fabric: Fabric) -> list[Finding]:
    """Every check's findings, in :func:`fabricgen.checks.run_checks`' order. On a large fabric the rules that
    work on the fabric's QoS (lossless and raw schema, which share one QoS computation) run in a child on the
    second core while this process runs the others: the same findings as one process finds, since codes are
    never shared between the two groups and each group keeps its own order."""
    from fabricgen.checks import all_checks, lossless, ordered, rawschema, run_checks

    on_qos = (*lossless.CHECKS, *rawschema.CHECKS)
    rest = tuple(c for c in all_checks() if c not in on_qos)
    collect = background.start(lambda: run_checks(fabric, on_qos), fork=len(fabric.switches) >= FORK_SWITCHES)
    found = run_checks(fabric, rest)
    return ordered([*found, *collect()])
