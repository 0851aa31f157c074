"""`fabricgen drift`: intended vs running configuration on every device, read-only; exit 2 on drift."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from fabricgen.cli import (
    EXIT_CHANGES,
    EXIT_FINDINGS,
    EXIT_INPUT,
    EXIT_OK,
    LIVE_FORMAT,
    echo_json,
    guarded,
    json_document,
    stdout_console,
)

if TYPE_CHECKING:
    from fabricgen.deploy.normalize import ConfigDiff
    from fabricgen.deploy.ops import Live
    from fabricgen.deploy.runner import Results


F = TypeVar("F", bound=Callable[..., Any])


TLS_META = "fabricgen.tls"  # click context meta: --known-certs, --ca-file, --insecure (read by load_or_exit)


def _tls_option(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    ctx.meta.setdefault(TLS_META, {})[param.name] = value
    return value


TLS_OPTIONS = (
    click.option("--known-certs", type=click.Path(dir_okay=False), expose_value=False, callback=_tls_option,
                 help="EOS eAPI: pinned TLS certificates, `HOST[:PORT] sha256:HEX` a line (written by `fabricgen "
                      "trust`; default $FABRICGEN_KNOWN_CERTS or ~/.config/fabricgen/known_certs)."),
    click.option("--ca-file", type=click.Path(dir_okay=False), expose_value=False, callback=_tls_option,
                 help="EOS eAPI: CA bundle the switches' certificates must chain to (default $FABRICGEN_CA_FILE)."),
    click.option("--insecure", is_flag=True, expose_value=False, callback=_tls_option,
                 help="EOS eAPI: do NOT verify certificates (warned per device); never the default."),
)
"""How eAPI switches are authenticated: the same three options on apply, drift, verify and ``plan --live``."""


def tls_options(fn: F) -> F:
    """Add :data:`TLS_OPTIONS` to a command; read them back with :func:`tls_settings`."""
    for opt in reversed(TLS_OPTIONS):
        fn = opt(fn)
    return fn


def tls_settings() -> dict[str, Any]:
    """``known_certs``, ``ca_file`` (else ``$FABRICGEN_CA_FILE``) and ``insecure`` as the current command's
    :data:`TLS_OPTIONS` set them: keyword arguments of :func:`fabricgen.deploy.ops.load_live`."""
    ctx = click.get_current_context(silent=True)
    tls = dict(ctx.meta.get(TLS_META, {})) if ctx is not None else {}
    return {"known_certs": tls.get("known_certs"),
            "ca_file": tls.get("ca_file") or os.environ.get("FABRICGEN_CA_FILE") or None,
            "insecure": bool(tls.get("insecure"))}


def live_options(fn: F) -> F:
    """Options shared by apply, drift and verify. How eAPI switches are authenticated (``--known-certs``,
    ``--ca-file``, ``--insecure``) reaches :func:`load_or_exit` through the click context, not the commands'
    arguments."""
    opts = [
        click.option("--hosts", type=click.Path(exists=True, dir_okay=False),
                     help="YAML/JSON: device → host[:port] or {host, port, transport, certificate, ca_file}."),
        click.option("--credentials", type=click.Path(dir_okay=False), help="Credentials file (mode 0600)."),
        click.option("--known-hosts", type=click.Path(dir_okay=False), help="known_hosts for host-key checks."),
        *TLS_OPTIONS,
        click.option("--lab/--no-lab", "use_lab", default=True, show_default=True,
                     help="Use this fabric's lab when one is up on this machine."),
        click.option("--only", help="Comma-separated device names or globs."),
        click.option("--workers", type=click.IntRange(1, 256), default=16, show_default=True,
                     help="Devices handled in parallel."),
        click.option("--timeout", type=click.IntRange(1, 600), default=30, show_default=True,
                     help="Seconds per device operation."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def emit_report(fmt: str, kind: str, live: Any, results: Any, document: dict[str, Any]) -> None:
    """Print the ``json``, ``junit``, ``github`` or ``markdown`` report of a drift or verify run (``kind``)."""
    from fabricgen.report import live as reports

    if fmt == "json":
        echo_json(document)
    elif fmt == "junit":
        click.echo(getattr(reports, f"junit_{kind}")(results), nl=False)
    elif fmt == "github":
        for line in getattr(reports, f"github_{kind}")(results, {n: s.src for n, s in live.fabric.switches.items()}):
            click.echo(line)
    elif fmt == "markdown":
        click.echo(getattr(reports, f"markdown_{kind}")(live.fabric.name, live.targets.origin, results))


def load_or_exit(inventory: str, hosts: str | None, credentials: str | None, known_hosts: str | None,
                 use_lab: bool, only: str | None, fmt: str = "text", kind: str = "drift") -> Live:
    """The live view of ``inventory``; a hosts, credentials or lab problem exits 3 with one line on stderr and,
    under ``--format junit|github``, the same problem in that format on stdout (the file it is about as the
    annotation's ``file``)."""
    from fabricgen.cli import stderr_console
    from fabricgen.deploy.credentials import CredentialsError
    from fabricgen.deploy.ops import load_live
    from fabricgen.deploy.targets import TargetError
    from fabricgen.lab.plan import LabError

    try:
        live = load_live(inventory, hosts, credentials, known_hosts, use_lab, only, **tls_settings())
        for warning in live_warnings(live).values():  # a switch that is not authenticated: one line each
            stderr_console().print(warning, markup=False)
        return live
    except (CredentialsError, TargetError, LabError) as exc:
        if fmt in ("junit", "github"):
            from fabricgen.errors import Problem
            from fabricgen.report.ci import _annotation, junit_problems

            option, file = (("--credentials", credentials) if isinstance(exc, CredentialsError)
                            else ("--hosts", hosts) if isinstance(exc, TargetError) else ("--lab", None))
            if fmt == "junit":
                click.echo(junit_problems(kind, [Problem(None, option, str(exc))]), nl=False)
            else:
                click.echo(_annotation("error", f"{option}: {exc}", file, None, None, f"fabricgen {kind}"))
        stderr_console().print(f"fabricgen: {exc}", markup=False)
        raise SystemExit(EXIT_INPUT) from None


def live_warnings(live: Live) -> dict[str, str]:
    """Device → why it is not authenticated (``--insecure``, ``transport: http``): on stderr when the targets
    are loaded, and again in the report of apply, drift and verify (``warnings``)."""
    return {n: w for n, t in live.targets.targets.items() if (w := t.warning()) is not None}


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@LIVE_FORMAT
@live_options
@guarded
def drift(inventory: str, fmt: str, hosts: str | None, credentials: str | None, known_hosts: str | None,
          use_lab: bool, only: str | None, workers: int, timeout: int) -> None:
    """Compare intended with running configuration on every device of INVENTORY (read-only).

    Compares on each platform's hierarchy (a line moved to another block is drift; order, whitespace,
    comments and defaults the device hides or always shows are not). Every running line the next apply (a
    full replace) would remove or change is drift, tagged routing/roce/other by what it is; secret-bearing
    sections (users, keys, SNMP communities) are named, never shown. Configurations are read sanitized and
    secret values are masked. A device with a pending commit-confirm (an interrupted apply's revert timer) is
    PENDING, never in sync, and counts as drift. Exits 0 when nothing drifted, 2 on any drift or pending
    device, 1 when a device could not be checked, 3 on input errors.
    """
    from fabricgen.deploy.drift import PendingDiff
    from fabricgen.deploy.ops import run_drift

    live = load_or_exit(inventory, hosts, credentials, known_hosts, use_lab, only, fmt, "drift")
    results = run_drift(live, workers, timeout)
    drifted = [n for n, r in results.by_device.items() if r.value is not None and r.value.drifted]
    errors = results.failed
    if fmt != "text":
        emit_report(fmt, "drift", live, results,
                    drift_document(live.fabric.name, live.targets.origin, results, live_warnings(live)))
    else:
        out = stdout_console()
        out.print(f"drift: {live.fabric.name}: {len(results.by_device)} device(s) via {live.targets.origin}",
                  markup=False)
        for n, r in results.by_device.items():
            if r.error:
                out.print(f"  {n}: NOT CHECKED: {r.error}", markup=False)
            elif isinstance(r.value, PendingDiff):
                out.print(f"  {n}: PENDING: {r.value.pending}", markup=False)
            elif r.value is not None and r.value.drifted:
                tags = ", ".join(sorted(r.value.impact))
                out.print(f"  {n}: DRIFT ({tags})", markup=False)
                tag_of = {line: tag for tag, lines in r.value.impact.items() for line in lines}
                hidden = set(r.value.named_only)
                for sign, lines, where in (("-", r.value.missing, "intended, missing on the device"),
                                           ("+", r.value.unexpected, "on the device, removed by the next apply")):
                    for line in lines:
                        note = "; values not shown" if line in hidden else ""
                        out.print(f"    {sign} {line}    ({where}; {tag_of.get(line, 'other')}{note})",
                                  markup=False)
            else:
                out.print(f"  {n}: in sync", markup=False)
        out.print(f"{len(drifted)} drifted, {len(errors)} not checked, "
                  f"{len(results.by_device) - len(drifted) - len(errors)} in sync", markup=False)
        for warning in live_warnings(live).values():
            out.print(warning, markup=False)
    if errors:
        raise SystemExit(EXIT_FINDINGS)
    raise SystemExit(EXIT_CHANGES if drifted else EXIT_OK)


def drift_document(fabric: str, targets: str, results: Results[ConfigDiff],
                   warnings: dict[str, str] | None = None) -> dict[str, Any]:
    """``drift --format json`` (fields in docs/json.md); ``warnings`` as :func:`live_warnings` gives them."""
    drifted = [n for n, r in results.by_device.items() if r.value is not None and r.value.drifted]
    return json_document({
        "fabric": fabric,
        "targets": targets,
        "drifted": drifted,
        "pending": [n for n, r in results.by_device.items() if getattr(r.value, "pending", "")],
        "errors": {n: results.by_device[n].error for n in results.failed},
        "devices": {n: (r.value.as_dict() if r.value is not None else None) for n, r in results.by_device.items()},
        "warnings": dict(warnings or {}),
    })
