"""The checks as a gate: `render` and `apply` run every check and act on error findings.

``apply`` refuses to push a fabric with error findings unless each offending rule is named with
``--allow-findings CODE`` (a deliberate, reviewable exception); ``render`` writes its files and exits 1,
naming the findings on stderr, so a pipeline that renders never ships a fabric ``validate`` rejects.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click

from fabricgen.checks import Finding, Severity, run_checks
from fabricgen.topology.model import Fabric

F = TypeVar("F", bound=Callable[..., Any])


def _codes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> frozenset[str]:
    codes = {c.strip().upper() for v in values for c in v.split(",") if c.strip()}
    bad = sorted(c for c in codes if not c.startswith("FG-"))
    if bad:
        raise click.BadParameter(f"not a finding code: {', '.join(bad)} (codes look like FG-CAP-001)")
    return frozenset(codes)


def allow_findings_option(fn: F) -> F:
    """``--allow-findings CODE[,CODE…]`` (repeatable): error findings of these rules do not block."""
    return click.option(
        "--allow-findings",
        "allow_findings",
        multiple=True,
        metavar="CODE[,CODE…]",
        callback=_codes,
        help="Proceed despite error findings of these rules (e.g. FG-CAP-001); repeatable.",
    )(fn)


def blocking(fabric: Fabric, allowed: Iterable[str] = ()) -> tuple[list[Finding], list[Finding]]:
    """``(blocking, waived)``: the fabric's error findings, split by whether ``allowed`` names their rule."""
    allow = frozenset(allowed)
    errors = [f for f in run_checks(fabric) if f.severity is Severity.ERROR]
    return [f for f in errors if f.code not in allow], [f for f in errors if f.code in allow]


def summary(findings: list[Finding]) -> str:
    """``3 error findings (FG-CAP-001 ×2, FG-TOPO-002)``."""
    counts = Counter(f.code for f in findings)
    codes = ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in sorted(counts.items()))
    return f"{len(findings)} error finding{'s' if len(findings) != 1 else ''} ({codes})"
