"""An apply killed (SIGKILL, as a cancelled CI job is) at every step of FRR's commit sequence, on the real lab.

For each kill point an apply of leaf1 runs in a forked child whose driver — the real ``FrrDriver``, through a
wrapping ``make_driver`` — kills its own process (``os.kill(os.getpid(), SIGKILL)``: no ``finally``, no close)
just before or just after one device command. Then, in this process, the next apply of the same inventory and
``drift``: a device whose revert timer is armed (seen from outside the driver: a process of leaf1's mount
namespace with the timer's marker) must be reported ``pending`` by both, never ``unchanged``/in sync; a device
without one must be reported at its true state. After the revert window the device must be where the report
said: the previous configuration when ``pending``, the intended one when ``applied``/``unchanged``.

The rest of the lab stays bare, so leaf1's verification has no BGP session to prove and a revert window of a few
seconds suffices. Set ``FABRICGEN_CRASH_MATRIX=FILE`` to have each outcome appended to FILE (JSON lines).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricgen.deploy.apply import ApplyOptions, ApplyReport, apply
from fabricgen.deploy.drift import PendingDiff
from fabricgen.deploy.drivers.base import TIMER_MARKER
from fabricgen.deploy.drivers.frr import FrrDriver
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.ops import Live, load_live, run_drift
from fabricgen.lab import lab as labmod
from tests.labkit import lab_inventory, lab_up, skip_module_without_lab

skip_module_without_lab()

FABRIC = "fgtest-crash"
DEVICE = "leaf1"
REVERT = 8  # seconds: the revert window of every apply here
OLD, NEW = "log syslog warnings", "log syslog informational"  # the previous configuration's line, intent's


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lab_inventory(tmp_path_factory.mktemp("inv"), FABRIC)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state")


@pytest.fixture(scope="module")
def lab(inventory: Path) -> Iterator[labmod.LabState]:
    yield from lab_up(inventory)


@pytest.fixture(scope="module")
def live(lab: labmod.LabState, inventory: Path) -> Live:
    return load_live(str(inventory))


def running(lab: labmod.LabState) -> str:
    return labmod.switch_exec(lab, DEVICE, ["vtysh", "-c", "show running-config"])


def armed(lab: labmod.LabState) -> bool:
    """Ground truth, read without the driver: a process in leaf1's mount namespace carries the timer's marker."""
    holder = int(lab.switches[DEVICE]["holder_pid"])
    mnt = os.readlink(f"/proc/{holder}/ns/mnt")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if TIMER_MARKER.encode() in Path(f"/proc/{pid}/cmdline").read_bytes() and \
                    os.readlink(f"/proc/{pid}/ns/mnt") == mnt:
                return True
        except OSError:
            continue
    return False


def wait_disarmed(lab: labmod.LabState, bound: float = REVERT + 20) -> None:
    deadline = time.monotonic() + bound
    while armed(lab):
        assert time.monotonic() < deadline, "the revert timer did not end"
        time.sleep(0.5)


def opts(**kw: Any) -> ApplyOptions:
    return ApplyOptions(**{"revert_in": REVERT, "settle": 20.0, "workers": 4, "timeout": 20, **kw})


def killing(point: tuple[str, str]) -> Any:
    """A ``make_driver`` whose FrrDriver SIGKILLs this process just ``before``/``after`` the command matching
    the regex (only in the apply of the device, never in its identification: the patterns are its commands)."""
    from fabricgen.deploy.session import make_driver

    when, pattern = point

    class Killing(FrrDriver):
        def _exec(self, command: str, timeout: float | None = None) -> tuple[int, str]:
            if when == "before" and re.search(pattern, command):
                os.kill(os.getpid(), signal.SIGKILL)
            out = super()._exec(command, timeout)
            if when == "after" and re.search(pattern, command):
                os.kill(os.getpid(), signal.SIGKILL)
            return out

    def make(*args: Any, **kw: Any) -> Any:
        d = make_driver(*args, **kw)
        d.__class__ = Killing
        return d

    return make


KILLS: dict[str, tuple[str, str, bool]] = {
    # kill point → (before/after, the command, whether the commit must fail verification so a rollback runs);
    # "no timer" points run the killed apply with --revert-in 0
    "before load": ("before", r"^mkdir -p ", False),
    "after load": ("after", r"^vtysh --dryrun ", False),
    "timer started, before its record (and before the reload)": ("after", r"; setsid nohup sh -c ", False),
    "after the reload, before the previous startup is put back": (
        "after", r"^/usr/lib/frr/frr-reload\.py --reload --stdout \S*candidate", False),
    "after commit (the previous startup back)": ("after", r"^if \[ -e \S*startup-0\.conf \]", False),
    "confirm: after the save, before the disarm": ("after", r"^vtysh -c 'write memory'", False),
    "confirm: after the disarm": ("after", r"^kill -TERM ", False),
    "rollback: after the restore, before the disarm": ("after", r"^/usr/lib/frr/frr-reload\.py --reload \S*rollback-0",
                                                       True),
    "rollback: after the disarm, before the save": ("after", r"^kill -TERM ", True),
    "no timer: after the reload, before the save": ("after", r"^/usr/lib/frr/frr-reload\.py --reload --stdout ",
                                                    False),
    "no timer: rollback after the restore, before the save": ("after", r"^/usr/lib/frr/frr-reload\.py --reload "
                                                              r"\S*rollback-0", True),
}


def _killed_apply(live: Live, configs: dict[str, str], state: Path, point: tuple[str, str], revert: int) -> int:
    """Run the apply in a forked child that kills itself at ``point``; the child's signal."""
    pid = os.fork()
    if pid == 0:  # the child: the apply, then (had it not been killed) a plain exit
        try:
            apply(live.fabric, configs, live.targets, opts(revert_in=revert), state, only=[DEVICE],
                  make_driver=killing(point))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricgen", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def _record(row: dict[str, Any]) -> None:
    path = os.environ.get("FABRICGEN_CRASH_MATRIX")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(row) + "\n")


@pytest.mark.parametrize("point", list(KILLS))
def test_an_apply_killed_at_each_step_is_reported_as_the_device_really_is(
    point: str, live: Live, lab: labmod.LabState, inventory: Path, state: Path
) -> None:
    when, pattern, fail_verification = KILLS[point]
    configs = intended_configs(live.fabric)
    assert NEW in configs[DEVICE]
    # leaf1 starts at its previous configuration (intent with one line changed), saved, no timer
    wait_disarmed(lab)
    if "router bgp" not in running(lab):
        old = {**configs, DEVICE: configs[DEVICE].replace(NEW, OLD)}
        first = apply(live.fabric, old, live.targets, opts(revert_in=0), state, only=[DEVICE])
        assert first.by_status() == {"applied": [DEVICE]}, first.as_dict()
    labmod.switch_exec(lab, DEVICE, ["vtysh", "-c", "configure terminal", "-c", OLD, "-c", "end",
                                     "-c", "write memory"])
    assert OLD in running(lab)
    if fail_verification:  # an uplink with the wrong MTU: the commit fails verification and is rolled back
        labmod.switch_exec(lab, DEVICE, ["ip", "link", "set", "swp36", "mtu", "9000"])
    try:
        sig = _killed_apply(live, configs, state, (when, pattern), 0 if point.startswith("no timer") else REVERT)
    finally:
        labmod.switch_exec(lab, DEVICE, ["ip", "link", "set", "swp36", "mtu", "9216"])
    assert sig == signal.SIGKILL, f"the apply was not killed at {point!r} (exit {-sig})"
    was_armed = armed(lab)
    if was_armed and "before the previous startup" not in point and not point.startswith("confirm"):
        # unconfirmed (not yet saved by a confirm), the candidate is not the startup configuration: a reboot
        # reverts as well
        startup = labmod.switch_exec(lab, DEVICE, ["cat", "/etc/frr/frr.conf"])
        assert OLD in startup and NEW not in startup, (point, startup)
    if "before its record" in point:  # the moment before the timer wrote its record: found by its marker alone
        labmod.switch_exec(lab, DEVICE, ["rm", "-f", "/etc/frr/fabricgen/pending.json"])

    # the next apply of the same inventory, and drift, inside the revert window
    report: ApplyReport = apply(live.fabric, configs, live.targets, opts(), state, only=[DEVICE])
    status = report.outcomes[DEVICE].status
    drift = run_drift(load_live(str(inventory), only=DEVICE)).by_device[DEVICE].value
    assert drift is not None
    drift_state = "pending" if isinstance(drift, PendingDiff) else ("drift" if drift.drifted else "in sync")
    if was_armed:
        assert status == "pending", (point, report.as_dict())
        assert drift_state == "pending", (point, drift)
        if "before its record" in point:
            # the timer is leaf1's alone: leaf2 shares the lab's PID namespace, not leaf1's mount namespace
            from fabricgen.deploy.session import make_driver

            for switch, pending in ((DEVICE, True), ("leaf2", False)):
                d = make_driver(live.targets.targets[switch], live.targets.credentials)
                d.open()
                try:
                    assert d.has_pending_commit() is pending, switch
                finally:
                    d.close()
            # what `fabricgen drift` prints and exits with for it
            text = _cli("drift", str(inventory), "--only", DEVICE)
            assert text.returncode == 2 and f"  {DEVICE}: PENDING: a commit-confirm is pending" in text.stdout, text
            doc = json.loads(_cli("drift", str(inventory), "--only", DEVICE, "--format", "json").stdout)
            assert doc["pending"] == [DEVICE] and doc["drifted"] == [DEVICE], doc
            assert doc["devices"][DEVICE]["pending"].startswith("a commit-confirm is pending"), doc
    else:
        assert status in ("applied", "unchanged"), (point, report.as_dict())
        assert drift_state == "in sync", (point, drift)
    # after the revert window the device is where the report said
    wait_disarmed(lab)
    after = running(lab)
    where = "previous" if OLD in after else "intended" if NEW in after else "neither"
    assert where == ("previous" if status == "pending" else "intended"), (point, status, after)
    settled = run_drift(load_live(str(inventory), only=DEVICE)).by_device[DEVICE].value
    assert settled is not None and not isinstance(settled, PendingDiff)
    assert settled.drifted == (where == "previous")
    startup = labmod.switch_exec(lab, DEVICE, ["cat", "/etc/frr/frr.conf"])
    saved = "previous" if OLD in startup else "intended" if NEW in startup else "neither"
    _record({"platform": "frr (lab)", "point": point, "revert_in": 0 if point.startswith("no timer") else REVERT,
             "armed": was_armed, "apply": status, "drift": drift_state, "after_window": where, "saved": saved})
