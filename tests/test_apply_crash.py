"""An apply killed at every step of each vendor platform's commit sequence, on the simulated devices.

The kill of a process (SIGKILL: no ``finally``, no close, no abort) is modelled at the device: from the kill point
on, the simulated switch receives nothing more from that apply (:attr:`tests.simdevice.SimDevice.kill`), whose
own report is discarded. Then the next apply of the same inventory runs on the same device, and ``drift``
(:func:`fabricgen.deploy.drift.drift_or_pending`, as ``fabricgen drift`` runs it). The device's own state is the
ground truth: a device whose revert timer is armed must never be reported ``unchanged`` or in sync; a device
without one must be reported at its true state. The device clock is then moved past the revert window, and the
device must be where the report said: the previous configuration when ``pending``, the intended one when
``applied``/``unchanged``.

Kill points sit at request boundaries where a request is atomic for the device (an eAPI request carrying several
commands, one NETCONF RPC): a client killed after sending it cannot stop it half-way. NX-OS has no device timer
(``--revert-in 0`` only): nothing can be armed; a kill leaves the configuration the last command made, which the
next apply finds in sync or converges. ``FABRICGEN_CRASH_MATRIX=FILE`` appends each outcome to FILE (JSON lines).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from fabricgen.deploy.apply import ApplyOptions, ApplyReport, apply
from fabricgen.deploy.drift import PendingDiff, drift_or_pending
from fabricgen.deploy.normalize import ConfigDiff, compare
from fabricgen.deploy.secrets import secret_values
from tests.test_deploy_roundtrip import DEVICE, ENVIRON, Rig, _rig

REVERT = 60

Kill = tuple[str | None, str, str]  # (regex arming the kill, "before"|"after", regex of the command)
VERIFY_READ = {  # a read of apply's verification after the commit: arms the kills of confirm and rollback
    "eos": r"^show lldp neighbors$", "junos": r"^get-lldp-neighbors-information$",
    "nvue": r"^lldpcli -f json0 show neighbors$", "sonic": r"^show lldp table$", "nxos": r"^show lldp neighbors",
}


def _points(platform: str) -> dict[str, tuple[Kill, bool, int]]:
    """Kill point → (the kill, whether verification must fail so a rollback runs, --revert-in of the apply)."""
    v = VERIFY_READ[platform]
    if platform == "eos":  # fabricgen's EosDriver (NAPALM's EOSDriver, own checkpoint): one eAPI request a step
        return {
            "before load": ((None, "before", r"^configure session \S+$"), False, REVERT),
            "after load": ((None, "before", r"^copy running-config flash:fabricgen-rollback-0$"), False, REVERT),
            "after commit (the timer is the commit)": ((None, "after", r" commit timer "), False, REVERT),
            "confirm: before it": ((v, "before", r"^configure session \S+ commit$"), False, REVERT),
            "confirm: after it (commit; write memory)": ((v, "after", r"^write memory$"), False, REVERT),
            "rollback: before it": ((v, "before", r" abort$"), True, REVERT),
            "rollback: after it": ((v, "after", r" abort$"), True, REVERT),
        }
    if platform == "junos":  # one NETCONF RPC per step
        return {
            "before load": ((None, "before", r"^load-configuration$"), False, REVERT),
            "after load": ((None, "before", r"^commit-configuration$"), False, REVERT),
            "after commit (the timer is the commit)": ((None, "after", r"^commit-configuration$"), False, REVERT),
            "confirm: before it": ((v, "before", r"^commit-configuration$"), False, REVERT),
            "confirm: after it": ((v, "after", r"^commit-configuration$"), False, REVERT),
            "rollback: after loading rollback 1": ((v, "after", r"^load-configuration$"), True, REVERT),
            "rollback: after its commit": ((v, "after", r"^commit-configuration$"), True, REVERT),
        }
    if platform == "nvue":
        return {
            "before load": ((None, "before", r"^nv config replace "), False, REVERT),
            "after load": ((None, "before", r"^nv config apply --confirm \d+s"), False, REVERT),
            "after commit (the timer is the commit)": ((None, "after", r"^nv config apply --confirm \d+s"), False,
                                                       REVERT),
            "confirm: before it": ((v, "before", r"^nv config apply --confirm-yes$"), False, REVERT),
            "confirm: after it": ((v, "after", r"^nv config apply --confirm-yes$"), False, REVERT),
            "rollback: before it": ((v, "before", r"^nv config apply \d+ -y$"), True, REVERT),
            "rollback: after it": ((v, "after", r"^nv config apply \d+ -y$"), True, REVERT),
            "no timer: after the apply": ((None, "after", r"^nv config apply -y$"), False, 0),
        }
    if platform == "sonic":
        reload = r"frr-reload\.py --reload /etc/frr/fabricgen-candidate"
        return {
            "before load": ((None, "before", r"^mkdir -p "), False, REVERT),
            "after load": ((None, "before", r"^sudo config checkpoint "), False, REVERT),
            "timer started, before its record (and before the replace)": ((None, "after", r"setsid nohup sh -c "),
                                                                          False, REVERT),
            "after commit (replace and reload done)": ((None, "after", reload), False, REVERT),
            "confirm: after the save, before the disarm": ((v, "after", r"vtysh -c 'write memory'$"), False, REVERT),
            "confirm: after the disarm": ((v, "after", r"^kill -TERM "), False, REVERT),
            "rollback: after the restore, before the disarm": ((v, "after", r"^sudo config rollback "), True, REVERT),
            "rollback: after the disarm, before the save": ((v, "after", r"^kill -TERM "), True, REVERT),
            "no timer: after the reload, before the save": ((None, "after", reload), False, 0),
        }
    assert platform == "nxos"  # no device timer: --revert-in 0 only
    return {
        "before load": ((None, "before", r"^scp "), False, 0),
        "after load": ((None, "before", r"^checkpoint file rollback_config"), False, 0),
        "after commit, before the save": ((None, "after", r"^rollback running-config file \S*candidate"), False, 0),
        "after the save": ((None, "after", r"^copy running-config startup-config$"), False, 0),
        "rollback: after the restore, before the save": ((v, "after", r"^rollback running-config file \S*rollback"),
                                                         True, 0),
    }


PLATFORMS = ["eos", "junos", "nvue", "sonic", "nxos"]
CASES = [(p, point) for p in PLATFORMS for point in _points(p)]


def _apply(rig: Rig, tmp_path: Path, revert: int) -> ApplyReport:
    secrets = secret_values({DEVICE: rig.intended}, ENVIRON)
    return apply(rig.fabric, {DEVICE: rig.intended}, rig.targets,
                 ApplyOptions(revert_in=revert, settle=0, workers=1, secrets=secrets), tmp_path,
                 make_driver=rig.make_driver)


def _drift(rig: Rig) -> ConfigDiff:
    d = rig.make_driver(rig.targets.targets[DEVICE], rig.targets.credentials)
    d.open()
    try:
        return drift_or_pending(rig.platform, rig.intended, d)
    finally:
        d.close()


def _record(row: dict[str, Any]) -> None:
    path = os.environ.get("FABRICGEN_CRASH_MATRIX")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(row) + "\n")


@pytest.mark.parametrize(("platform", "point"), CASES, ids=[f"{p}-{k}" for p, k in CASES])
def test_an_apply_killed_at_each_step_is_reported_as_the_device_really_is(
    platform: str, point: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kill, fail_verification, revert = _points(platform)[point]
    rig = _rig(platform, monkeypatch)
    if platform == "eos":  # as session.make_driver leaves it: NAPALM names its configure session at the load
        made = rig.make_driver

        def fresh(*args: Any, **kw: Any) -> Any:
            d = made(*args, **kw)
            d.config_session = None
            return d

        rig.make_driver = fresh
    old = rig.dev.running
    uplink = next(p.name for p in rig.fabric.switches[DEVICE].ports if p.peer_device == "spine1")
    if fail_verification:  # an unplugged uplink: the commit fails verification and is rolled back
        rig.dev.cabled.discard(uplink)
    rig.dev.kill = kill
    _apply(rig, tmp_path / "killed", revert)  # its report is discarded: the process that made it is dead
    assert rig.dev.dead, f"the kill point {point!r} was never reached: {rig.dev.sent[-5:]}"
    rig.dev.revive()
    rig.dev.cabled.add(uplink)
    if hasattr(rig.sim, "current"):
        rig.sim.current = None  # an eAPI request's configuration mode ends with the request
    if "before its record" in point:  # the moment before the timer wrote its record: found by its marker alone
        rig.dev.files.pop("/tmp/fabricgen/pending.json", None)
    armed = rig.dev.pending

    # the next apply of the same inventory, and drift, inside the revert window
    report = _apply(rig, tmp_path / "next", 0 if platform == "nxos" else REVERT)
    status = report.outcomes[DEVICE].status
    diff = _drift(rig)
    drift = "pending" if isinstance(diff, PendingDiff) else "drift" if diff.drifted else "in sync"
    assert status != "unchanged" or not armed, "reported unchanged while a revert is armed"
    if armed:
        assert (status, drift) == ("pending", "pending"), (status, drift, report.as_dict())
    else:
        assert (status, drift) in (("applied", "in sync"), ("unchanged", "in sync")), (status, drift,
                                                                                       report.as_dict())
    # after the revert window the device is where the report said
    (rig.sim.tick if hasattr(rig.sim, "tick") else rig.dev.tick)(REVERT + 1)
    assert not rig.dev.pending
    at_intent = not compare(platform, rig.intended, rig.dev.running).drifted
    where = "intended" if at_intent else "previous" if rig.dev.running == old else "neither"
    assert where == ("previous" if status == "pending" else "intended"), (status, where)
    assert not isinstance(_drift(rig), PendingDiff)
    # the startup configuration, where the simulator keeps one apart (a Junos commit and an NVUE apply are saved)
    saved = "-" if platform in ("junos", "nvue") else "intended" if not compare(
        platform, rig.intended, rig.dev.startup).drifted else "previous" if rig.dev.startup == old else "neither"
    _record({"platform": platform, "point": point, "revert_in": revert, "armed": armed, "apply": status,
             "drift": drift, "after_window": where, "saved": saved})


def test_a_pending_device_is_a_failure_in_every_ci_format_and_says_why() -> None:
    """``drift --format junit|github|markdown``: a device with an armed timer fails and its report line says so,
    even when its running configuration is the intended one (it is about to revert)."""
    import xml.etree.ElementTree as ET

    from fabricgen.cli.drift import drift_document
    from fabricgen.deploy.drift import pending_note
    from fabricgen.deploy.runner import Result, Results
    from fabricgen.report.live import github_drift, junit_drift, markdown_drift

    note = pending_note("sonic")
    results = Results({"leaf1": Result("leaf1", PendingDiff(pending=note)), "leaf2": Result("leaf2", ConfigDiff())})
    suite = ET.fromstring(junit_drift(results)).find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failure = next(c for c in suite.iter("testcase") if c.get("name") == "leaf1").find("failure")
    assert failure is not None and failure.text == f"! pending: {note}"
    (annotation,) = github_drift(results, {})
    assert annotation.startswith("::warning") and f"%0A! pending: {note}" in annotation
    assert "| leaf1 | drift |" in markdown_drift("lab", "simulated", results) and note in markdown_drift(
        "lab", "simulated", results)
    doc = drift_document("lab", "simulated", results)
    assert (doc["drifted"], doc["pending"], doc["devices"]["leaf1"]["pending"]) == (["leaf1"], ["leaf1"], note)
