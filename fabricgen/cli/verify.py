"""`fabricgen verify`: live BGP, LLDP and interface state against the cabling plan."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from fabricgen.cli import EXIT_FINDINGS, EXIT_OK, LIVE_FORMAT, guarded, json_document, stdout_console
from fabricgen.cli.drift import emit_report, live_options, live_warnings, load_or_exit

if TYPE_CHECKING:
    from fabricgen.deploy.runner import Results
    from fabricgen.deploy.verify import DeviceVerdict


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@LIVE_FORMAT
@live_options
@guarded
def verify(inventory: str, fmt: str, hosts: str | None, credentials: str | None, known_hosts: str | None,
           use_lab: bool, only: str | None, workers: int, timeout: int) -> None:
    """Check live state of INVENTORY's devices: every BGP session the cabling implies Established with the
    right peer ASN, LLDP neighbours as cabled (names normalised), interfaces up with the intended MTU/speed; and,
    when some switch is drained, that no best path of another switch goes through a drained one where a path
    through an undrained neighbour exists (the drain check; "not available" — a failure — on a platform whose
    driver reads no routes).

    Exits 0 when everything matches, 1 otherwise, 3 on input errors.
    """
    from fabricgen.deploy.ops import run_verify
    from fabricgen.deploy.verify import DRAIN_SUBJECT

    live = load_or_exit(inventory, hosts, credentials, known_hosts, use_lab, only, fmt, "verify")
    results = run_verify(live, workers, timeout)
    bad = [n for n, r in results.by_device.items() if r.error or (r.value is not None and not r.value.ok)]
    if fmt != "text":
        emit_report(fmt, "verify", live, results,
                    verify_document(live.fabric.name, live.targets.origin, results, live_warnings(live)))
    else:
        out = stdout_console()
        out.print(f"verify: {live.fabric.name}: {len(results.by_device)} device(s) via {live.targets.origin}",
                  markup=False)
        for n, r in results.by_device.items():
            if r.error or r.value is None:
                out.print(f"  {n}: NOT CHECKED: {r.error}", markup=False)
                continue
            v = r.value
            counts = {k: sum(1 for c in v.checks if c.kind == k) for k in ("bgp", "lldp", "interface")}
            state = "ok" if v.ok else f"{len(v.failures)} problem(s)"
            drain = next((c for c in v.checks if c.kind == "drain" and c.subject == DRAIN_SUBJECT), None)
            out.print(f"  {n}: {state} — {counts['bgp']} BGP sessions, {counts['lldp']} LLDP neighbours, "
                      f"{counts['interface']} interfaces{', drain checked' if drain else ''}", markup=False)
            for c in v.failures:
                out.print(f"    ✗ {c.kind} {c.subject}: {c.detail}", markup=False)
            if drain is not None and drain.ok:
                out.print(f"    · drain: {drain.detail}", markup=False)
            notes = sorted({c.detail for c in v.checks if c.ok and "not reported" in c.detail})
            for note in [*v.notes, *(f"{len([c for c in v.checks if c.detail == x])} interface(s): {x}"
                                     for x in notes)]:
                out.print(f"    · {note}", markup=False)
        out.print(f"{len(results.by_device) - len(bad)} device(s) ok, {len(bad)} with problems", markup=False)
        for warning in live_warnings(live).values():
            out.print(warning, markup=False)
    raise SystemExit(EXIT_FINDINGS if bad else EXIT_OK)


def verify_document(fabric: str, targets: str, results: Results[DeviceVerdict],
                    warnings: dict[str, str] | None = None) -> dict[str, Any]:
    """``verify --format json`` (fields in docs/json.md): ``ok`` when no device failed or errored; ``warnings``
    as :func:`fabricgen.cli.drift.live_warnings` gives them."""
    return json_document({
        "fabric": fabric,
        "targets": targets,
        "ok": not any(r.error or (r.value is not None and not r.value.ok) for r in results.by_device.values()),
        "devices": {
            n: {
                "ok": r.value.ok if r.value is not None else False,
                "error": r.error,
                "checks": [c.as_dict() for c in r.value.checks] if r.value is not None else [],
                "notes": r.value.notes if r.value is not None else [],
            }
            for n, r in results.by_device.items()
        },
        "warnings": dict(warnings or {}),
    })
