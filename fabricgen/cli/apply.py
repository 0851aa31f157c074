"""`fabricgen apply`: push intended configurations in waves with commit-confirm, verify and rollback."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fabricgen.cli import (
    EXIT_CHANGES,
    EXIT_FINDINGS,
    EXIT_INPUT,
    EXIT_OK,
    FORMAT,
    echo_json,
    guarded,
    json_document,
    stderr_console,
    stdout_console,
)
from fabricgen.cli.drift import live_options, load_or_exit
from fabricgen.cli.gate import allow_findings_option, blocking, summary

if TYPE_CHECKING:
    from fabricgen.deploy.apply import ApplyReport
    from fabricgen.deploy.ops import Live


@click.command()
@click.argument("plan_or_inventory", metavar="PLAN_OR_INVENTORY", type=click.Path(exists=False))
@FORMAT
@live_options
@click.option("--wave-size", type=click.IntRange(1, 10_000), default=5, show_default=True, help="Devices per wave.")
@click.option("--canary", type=click.IntRange(0, 100), default=1, show_default=True, help="Devices in the first wave.")
@click.option("--revert-in", type=click.IntRange(0, 3600), default=120, show_default=True,
              help="Commit-confirm timer: seconds until an unconfirmed device reverts by itself (Junos: rounded up "
                   "to whole minutes). 0: commit without a timer (required for NX-OS, which has none).")
@click.option("--settle", type=click.FloatRange(0, 600), default=45.0, show_default=True,
              help="Seconds to wait for BGP sessions after a commit before verification fails (never less than the "
                   "platform's BGP hold time + 5 s).")
@click.option("--dry-run", is_flag=True, help="Show per-device diffs; change nothing.")
@click.option("--rerun-failed", is_flag=True, help="Only devices the last apply did not leave at the intended config.")
@click.option("--state-dir", type=click.Path(file_okay=False), help="Lock and last report (default per fabric).")
@click.option("--detailed-exitcode", is_flag=True, help="Exit 2 when changes were applied (or would be).")
@click.option("--drain", "drain", multiple=True, metavar="NAME",
              help="Apply with this switch drained (RFC 8326 graceful shutdown: sessions kept, traffic moved off "
                   "it); repeatable. Not recorded: record `maintenance: drain` to keep it.")
@click.option("--undrain", "undrain", multiple=True, metavar="NAME",
              help="Apply with this switch in service although the inventory drains it; repeatable.")
@allow_findings_option
@guarded
def apply(plan_or_inventory: str, fmt: str, hosts: str | None, credentials: str | None, known_hosts: str | None,
          use_lab: bool, only: str | None, workers: int, timeout: int, wave_size: int, canary: int, revert_in: int,
          settle: float, dry_run: bool, rerun_failed: bool, state_dir: str | None, detailed_exitcode: bool,
          drain: tuple[str, ...], undrain: tuple[str, ...], allow_findings: frozenset[str]) -> None:
    """Push rendered configurations of PLAN_OR_INVENTORY to live switches: canary first, then waves; per device
    load, compare (skip when unchanged), commit with a revert timer, verify, confirm — or roll back.

    Every device is identified (serial and chassis MAC when the inventory records them, else hostname, else its LLDP
    neighbours as cabled) before anything is loaded anywhere; a commit-confirm left pending by an interrupted apply
    is reported `pending` and nothing is loaded. After a commit the running config must equal intent and the new
    state must be proven (sessions up since the commit or for a hold time after it, right peer address and ASN, LLDP
    as cabled) before the confirm; the canary and the previous wave are checked again after each wave. --only
    narrows what is pushed, never what is verified: the selected devices' sessions and LLDP with every other switch
    are checked.

    --drain NAME / --undrain NAME apply the inventory with those switches drained / in service (only their
    configurations change: FABRIC-OUT-V4 adds or drops 65535:0); the next apply of the inventory as written
    reverses it unless the inventory records it. When some switch is drained, the rollout ends with the drain
    check of `fabricgen verify` on every reachable switch (best paths avoid the drained ones).

    A fabric with error findings (as `fabricgen validate` reports them) is refused before any device is
    contacted, unless --allow-findings names every rule that fails. A failure stops further waves; the report
    names every device's state. Exits 0 on success (2 with --detailed-exitcode when something changed), 1 on
    error findings or a failed rollout, 3 on input errors.
    """
    from fabricgen.deploy.apply import ApplyOptions, FabricLock, LockError, rerun_devices
    from fabricgen.deploy.apply import apply as run_apply
    from fabricgen.deploy.apply import state_dir as default_state_dir
    from fabricgen.deploy.commit import RevertRefused
    from fabricgen.deploy.intended import intended_configs
    from fabricgen.deploy.secrets import secret_values
    from fabricgen.deploy.verify import drained_switches

    planned: list[str] | None = None
    inventory = plan_or_inventory
    if Path(plan_or_inventory).is_file() and plan_or_inventory.endswith(".json"):
        # a saved plan: refuse it when its inputs changed (Terraform's discipline), then push its devices only
        from fabricgen.plan.file import check_inputs, load_plan

        plan = load_plan(plan_or_inventory)
        problems = check_inputs(plan)
        if problems:
            for problem in problems:
                stderr_console().print(f"{plan_or_inventory}: {problem}", markup=False)
            stderr_console().print("the plan is stale; make it again with `fabricgen plan`", markup=False)
            raise SystemExit(EXIT_INPUT)
        inventory, planned = plan.new.path, list(plan.devices_to_change)
    if planned is not None and (drain or undrain):
        stderr_console().print("fabricgen: --drain/--undrain apply an inventory, not a saved plan", markup=False)
        raise SystemExit(EXIT_INPUT)
    live = load_or_exit(inventory, hosts, credentials, known_hosts, use_lab, only)
    if drain or undrain:
        live = drained_live(live, set(drain), set(undrain))
    refused, waived = blocking(live.fabric, allow_findings)
    err = stderr_console()
    if waived:
        err.print(f"apply: proceeding despite {summary(waived)} (--allow-findings)", markup=False)
    if refused:
        for finding in refused:
            err.print(str(finding), markup=False)
        err.print(f"apply refused: {summary(refused)}; fix them, or name each rule with --allow-findings",
                  markup=False)
        raise SystemExit(EXIT_FINDINGS)
    configs = intended_configs(live.fabric, list(live.targets.targets))
    if planned is not None:
        configs = {n: c for n, c in configs.items() if n in planned}
    secrets = secret_values(configs, os.environ)  # before any device is contacted; unset → exit 3
    directory = default_state_dir(live.fabric.name, state_dir)
    opts = ApplyOptions(canary=canary, wave_size=wave_size, revert_in=revert_in, settle=settle, dry_run=dry_run,
                        workers=workers, timeout=timeout, secrets=secrets)
    text = fmt == "text"
    try:
        with FabricLock(directory) as lock:
            if lock.note:
                err.print(f"note: {lock.note}", markup=False)
            subset = rerun_devices(directory, configs) if rerun_failed else None
            if subset is None and only:
                subset = list(configs)  # --only narrows what is pushed; the selection is verified against all
            if subset == []:
                if text:
                    stdout_console().print(f"apply: {live.fabric.name}: nothing to rerun — the last apply left every "
                                           "device at its intended configuration", markup=False)
                else:
                    echo_json({"ok": True, "nothing_to_rerun": True})
                raise SystemExit(EXIT_OK)
            if text:
                stdout_console().print(
                    f"apply: {live.fabric.name}: {len(subset if subset is not None else configs)} device(s) via "
                    f"{live.targets.origin}{' (dry run)' if dry_run else ''}", markup=False)

            def on_wave(i: int, names: list[str]) -> None:
                if text:
                    stdout_console().print(f"wave {i}{' (canary)' if i == 1 and canary else ''}: {', '.join(names)}",
                                           markup=False)

            report = run_apply(live.fabric, configs, live.everything or live.targets, opts, directory, only=subset,
                               on_wave=on_wave)
    except LockError as exc:
        err.print(f"fabricgen: {exc}", markup=False)
        raise SystemExit(EXIT_FINDINGS) from None
    except RevertRefused as exc:
        err.print(f"fabricgen: --revert-in {revert_in} refused, nothing was sent: {exc}", markup=False)
        raise SystemExit(EXIT_INPUT) from None
    drain_problems = None
    if report.ok and not dry_run and drained_switches(live.fabric):
        drain_problems = verify_drain(live, settle, workers, timeout)
    if fmt == "json":
        doc = apply_document(report)
        if drain_problems is not None:
            doc["drain"] = {"drained": sorted(drained_switches(live.fabric)), "ok": not drain_problems,
                            "problems": drain_problems}
        echo_json(doc)
    else:
        out = stdout_console()
        for o in report.outcomes.values():
            out.print(f"  {o.device:<16} {o.status:<12} wave {o.wave}  {o.seconds:5.1f}s  {o.message}".rstrip(),
                      markup=False)
            if o.diff and (dry_run or o.status != "applied"):
                for line in o.diff.splitlines():
                    out.print(f"      {line}", markup=False)
        groups = report.by_status()
        out.print("at the new config: " + (", ".join(sorted(groups.get("applied", []))) or "none"), markup=False)
        for status in ("unchanged", "would-change", "rolled-back", "reverting", "left-changed", "unknown", "refused",
                       "wrong-device", "pending", "broken-later", "failed", "unreachable", "not-touched"):
            if groups.get(status):
                out.print(f"{status}: {', '.join(sorted(groups[status]))}", markup=False)
        if groups.get("refused"):
            out.print("rollout REFUSED: a candidate would remove the management access its session uses; nothing "
                      "was sent to any device (the templates do not render management yet)", markup=False)
        elif report.stopped_after_wave:
            out.print(f"rollout STOPPED after wave {report.stopped_after_wave}; rerun with --rerun-failed once fixed",
                      markup=False)
        for platform, note in report.on_lost_session.items():
            out.print(f"on a lost session ({platform}): {note}", markup=False)
        for warning in report.warnings.values():
            out.print(warning, markup=False)
        if drain_problems is not None:
            names = ", ".join(sorted(drained_switches(live.fabric)))
            out.print(f"drain of {names}: " + ("verified: no best path goes through a drained switch where another "
                                               "exists" if not drain_problems else "NOT VERIFIED"), markup=False)
            for problem in drain_problems:
                out.print(f"  ✗ {problem}", markup=False)
    if not report.ok or drain_problems:
        raise SystemExit(EXIT_FINDINGS)
    raise SystemExit(EXIT_CHANGES if detailed_exitcode and report.changed else EXIT_OK)


def drained_live(live: Live, drain: set[str], undrain: set[str]) -> Live:
    """``live`` with its fabric drained / undrained as ``--drain`` / ``--undrain`` say (exit 3 on a name that is
    not a switch of the fabric); one line per switch whose drain state now differs from the inventory's."""
    from fabricgen.topology.routing import UnknownSwitch, drain_changes, with_drain

    try:
        fabric = with_drain(live.fabric, drain, undrain)
    except UnknownSwitch as exc:
        stderr_console().print(f"fabricgen: --drain/--undrain: {exc}", markup=False)
        raise SystemExit(EXIT_INPUT) from None
    for name, drained in drain_changes(live.fabric, fabric).items():
        if drained:
            line = (f"{name}: drained by --drain, in service in the inventory: the next apply of the inventory as "
                    "written undrains it unless `maintenance: drain` (or fabric.drain) is recorded")
        else:
            line = (f"{name}: in service by --undrain, drained in the inventory: the next apply of the inventory as "
                    "written drains it again unless its `maintenance: drain` (and fabric.drain entry) is removed")
        stderr_console().print(line, markup=False)
    return replace(live, fabric=fabric)


def verify_drain(live: Live, settle: float, workers: int, timeout: int) -> list[str]:
    """The drain check (:func:`fabricgen.deploy.verify.check_drain`) on every reachable switch, read again each
    second until it passes or ``settle`` seconds (at least 10) pass; the problems left (empty: verified)."""
    import time

    from fabricgen.deploy.ops import per_device
    from fabricgen.deploy.verify import check_drain, read_routes

    every = replace(live, targets=live.everything or live.targets)
    deadline = time.monotonic() + max(settle, 10.0)
    while True:
        results = per_device(every, lambda d, n: check_drain(live.fabric, n, read_routes(d),
                                                             getattr(d, "platform", "")), workers, timeout, "drain")
        problems = [f"{n}: {r.error}" for n, r in results.by_device.items() if r.error or r.value is None]
        problems += [f"{n}: {c.subject}: {c.detail}" for n, r in results.by_device.items() for c in r.value or []
                     if not c.ok]
        if not problems or time.monotonic() > deadline:
            return problems
        time.sleep(1.0)


def apply_document(report: ApplyReport) -> dict[str, Any]:
    """``apply --format json`` (fields in docs/json.md)."""
    return json_document(report.as_dict())
