"""What a commit with a revert timer really does on each platform, and what happens when the session is lost.

One table, read by ``apply`` (to choose the timer and to word the report) and stated in each driver's
docstring. A platform whose device keeps no timer of its own is refused ``--revert-in`` up front, before any
device is contacted: fabricgen never claims a device "reverts by itself" when it does not.

The invariant every platform with a device timer keeps, whatever moment an apply is killed at (a cancelled CI
job: no ``finally``, no close): the device either has an armed timer that ``has_pending_commit()`` reports —
and the timer restores the previous configuration — or runs a configuration with no timer (the new one
confirmed, or the previous one). ``apply`` reports such a device ``pending`` and ``drift`` says so, never "in
sync". On EOS, Junos and NVUE the timer is the device's own and starts in the commit command itself; on FRR and
SONiC it is a detached process that writes its own record before it sleeps and is found by its marker without
one (:mod:`fabricgen.deploy.drivers.frr`), and confirm saves before it disarms. NX-OS has no timer: killed after
its commit, the device keeps the new configuration (and the next apply finds it in sync or converges it).

>>> revert_seconds("junos", 90)
120
>>> revert_seconds("eos", 90)
90
>>> revert_seconds("nxos", 0) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommitSemantics:
    platform: str
    sequence: str  # load → commit → confirm → rollback, as the driver sends it
    device_timer: bool  # the device itself reverts an unconfirmed commit, with or without fabricgen
    granularity: int  # the timer counts in units of this many seconds (Junos: whole minutes)
    lost_session: str  # what happens to a device whose session is lost after its commit


SEMANTICS: dict[str, CommitSemantics] = {
    "eos": CommitSemantics(
        "eos",
        "configure session <s>; rollback clean-config; <candidate>; show session-config diffs; dir flash:; "
        "copy running-config flash:fabricgen-rollback-0; copy startup-config flash:fabricgen-startup-0 (only when "
        "dir lists a startup-config); "
        "configure session <s> commit timer HH:MM:SS (--revert-in 0: configure session <s> commit; write memory) "
        "→ confirm: configure session <s> commit; write memory → rollback: configure session <s> abort while its "
        "timer runs (startup untouched), else configure replace flash:fabricgen-rollback-0; "
        "copy flash:fabricgen-startup-0 startup-config (the running and startup configurations before the commit; "
        "a switch that had no startup-config gets delete flash:startup-config instead, in the same request, once "
        "write memory created one: it boots as before)",
        True, 1,
        "EOS's configure-session commit timer expires and the device restores the previous configuration",
    ),
    "junos": CommitSemantics(
        "junos",
        "lock; <load-configuration action=set> 'delete' + the set lines; show | compare; "
        "commit confirmed <minutes> → confirm: commit → rollback: rollback 1; commit",
        True, 60,
        "Junos rolls back to the previous commit when the `commit confirmed` minutes expire",
    ),
    "nvue": CommitSemantics(
        "nvue",
        "nv config replace <file>; nv config diff; nv config apply --confirm <N>s -y → confirm: "
        "nv config apply --confirm-yes → rollback: nv config apply <previous revision> -y",
        True, 1,
        "NVUE reverts the unconfirmed apply when its --confirm time expires",
    ),
    "sonic": CommitSemantics(
        "sonic",
        "config checkpoint fabricgen-rollback; a detached timer on the switch (sleep N; config rollback "
        "fabricgen-rollback), which writes its own record first; config replace <config_db.json> → confirm: "
        "config save -y, then kill the timer → rollback: config rollback fabricgen-rollback, then kill the timer, "
        "then save",
        True, 1,
        "the timer process fabricgen started on the switch restores the checkpoint (a switch reboot before it "
        "fires also reverts: the change was not saved)",
    ),
    "frr": CommitSemantics(
        "frr",
        "vtysh --dryrun <file>; frr-reload.py --test; save rollback-0.conf; a detached timer on the switch (sleep "
        "N; reload rollback-0.conf), which writes its own record first; frr-reload.py --reload → confirm: write "
        "memory, then kill the timer → rollback: reload rollback-0.conf, then kill the timer, then write memory",
        True, 1,
        "the timer process fabricgen started on the switch reloads the saved previous configuration",
    ),
    "nxos": CommitSemantics(
        "nxos",
        "copy the candidate to bootflash:candidate_config.txt; show diff rollback-patch; checkpoint file "
        "rollback_config.txt; rollback running-config file candidate_config.txt; copy running startup → "
        "rollback: rollback running-config file rollback_config.txt",
        False, 1,
        "NX-OS keeps the new configuration (NX-OS has no commit-confirm); restore it with "
        "`rollback running-config file bootflash:rollback_config.txt`",
    ),
}


class RevertRefused(Exception):
    """``--revert-in`` was asked for a platform whose devices cannot revert by themselves."""


def semantics(platform: str) -> CommitSemantics:
    return SEMANTICS.get(platform) or SEMANTICS["frr"]


def revert_seconds(platform: str, revert_in: int) -> int | None:
    """The timer to pass to ``commit_config(revert_in=…)``: None when no timer (``revert_in`` 0), rounded up to
    the platform's unit (Junos counts whole minutes: 90 s → 120 s). Raises :class:`RevertRefused` for a
    platform without a device-side timer."""
    if revert_in <= 0:
        return None
    sem = semantics(platform)
    if not sem.device_timer:
        raise RevertRefused(
            f"{platform}: the device has no commit-confirm (NAPALM's driver raises 'Commit confirm has not been "
            "implemented'); rerun with --revert-in 0 to commit without a revert timer: fabricgen checkpoints, "
            "verifies and rolls back to the checkpoint while its session lasts, but a lost session leaves the new "
            "configuration in place"
        )
    unit = sem.granularity
    return -(-revert_in // unit) * unit


def check_revert(platforms: set[str], revert_in: int) -> list[str]:
    """One message per platform that cannot honour ``revert_in`` (empty: every platform can)."""
    problems = []
    for p in sorted(platforms):
        try:
            revert_seconds(p, revert_in)
        except RevertRefused as exc:
            problems.append(str(exc))
    return problems


def lost_session_note(platform: str, revert: int | None) -> str:
    """The honest sentence for a device lost after its commit."""
    if revert is None:
        return "committed without a revert timer: the device keeps the new configuration"
    return f"{semantics(platform).lost_session} (within {revert}s)"
