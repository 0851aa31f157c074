"""Apply intended configurations in waves with commit-confirm, post-change verification and rollback.

Before any device is contacted: every platform must honour ``--revert-in`` with a timer of its own
(:mod:`fabricgen.deploy.commit`; NX-OS has none and is refused unless ``--revert-in 0``), and no candidate may
remove the management address and access method its session uses (:mod:`fabricgen.deploy.mgmt`).

Before any device is loaded: every device of the rollout is identified (:mod:`fabricgen.deploy.identity`):
its serial number (NAPALM ``get_facts``) must be the inventory's ``serial:`` and the chassis ID its own LLDP
agent advertises the inventory's ``chassis_mac:``, when recorded (a chassis ID that cannot be read, or is not a
MAC address, refuses); either lets a device with a factory hostname be configured. With neither recorded, the
hostname must be the inventory's name — or, for a hostname that names no switch of the fabric, the device's
LLDP neighbours must place it: at least one cabled peer seen, and every neighbour on a cabled port that port's
peer and peer port. A device calling itself another switch of the fabric is always refused. One device that is
not who the hosts file says stops the whole rollout before anything is loaded anywhere; a device recognised by
anything but its hostname has the evidence in its report line.

Per device: open → a commit-confirm still pending from an interrupted apply (``has_pending_commit()``, on
every platform whose device keeps a timer) is reported ``pending`` and nothing is loaded: fabricgen never
confirms a commit it did not verify, and the device reverts by itself → read the running configuration
(sanitized) and compare it with the intended one exactly as ``drift`` does (in sync: done, nothing loaded) →
load replace candidate → device diff (empty: done) → note the sessions Established now → commit with the
platform's revert timer → read the running configuration again: a difference left (a reload that repaired a
drift badly) rolls back → verify the *new* state (every implied BGP session configured with the right peer
address and ASN; Established where its peer is at the intended configuration or the session was Established
before the commit, and proven so under the new configuration — up since after the commit, or up for a whole
hold time since it; LLDP neighbours as cabled, host and port — a peer this rollout has not configured yet may
advertise the hostname it was identified with, or a factory name that names no switch of the fabric
(:class:`fabricgen.deploy.verify.PeerNames`), never another switch's name; interfaces up with the intended MTU;
polled up to ``--settle`` seconds and never less than the platform's hold time + 5 s) → confirm. A failed verification
rolls the device back. A rollback is only ever sent to a device known to have taken the commit. The first
wave is the canary; any failure stops further waves. After every later wave the canary and the wave before
are checked again (BGP, LLDP, interfaces): a device a later wave broke is reported ``broken-later`` and the
rollout stops. ``--only`` narrows what is pushed, never what is verified: the selected devices' sessions and
LLDP with every other switch are checked. Every device ends in a state the report names:

``unchanged`` already at the intended config · ``applied`` committed, verified, confirmed ·
``rolled-back`` verification failed, previous config restored · ``reverting`` lost after commit, the device's
own timer restores the previous config · ``left-changed`` committed without a timer and could not be rolled
back: the device keeps the new config · ``unknown`` the session broke during the commit and the device could
not say whether it took it (nothing more was sent) · ``refused`` the candidate would cut the management
session (nothing sent) · ``wrong-device`` the device at that address is another one (nothing loaded) ·
``pending`` a commit-confirm of an interrupted apply waits on the device (nothing loaded; it reverts by
itself) · ``broken-later`` applied and confirmed, then failed its checks after a later wave · ``failed``
error before any change (candidate refused, …) · ``unreachable`` no session · ``not-touched`` never
contacted (a wave before it failed) · ``would-change`` ``--dry-run`` only.

Only one apply per fabric at a time: a lock file created with ``O_EXCL`` in the state directory, which also
holds the last report so a rerun can target exactly the devices that did not converge.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fabricgen.deploy import runner
from fabricgen.deploy.commit import RevertRefused, check_revert, lost_session_note, revert_seconds, semantics
from fabricgen.deploy.credentials import error_line, redact
from fabricgen.deploy.identity import by_hostname, identify_device, identify_device_named
from fabricgen.deploy.mgmt import management_problems, session_address
from fabricgen.deploy.normalize import ConfigDiff, compare
from fabricgen.deploy.secrets import substitute
from fabricgen.deploy.session import abandon
from fabricgen.deploy.targets import Targets
from fabricgen.deploy.verify import (
    PeerNames,
    check_bgp,
    check_interfaces,
    check_lldp,
    check_new_state,
    hold_time,
    is_hard,
    normalize_host,
    sonic_aliases,
)
from fabricgen.inventory.schema import Role
from fabricgen.lab.machine import pid_alive
from fabricgen.topology.model import Fabric

AT_INTENDED = ("unchanged", "applied")
STOPPING = ("rolled-back", "reverting", "left-changed", "unknown", "refused", "wrong-device", "pending",
            "broken-later", "failed", "unreachable")


class LockError(Exception):
    pass


@dataclass
class Outcome:
    device: str
    status: str
    wave: int
    diff: str = ""
    message: str = ""
    seconds: float = 0.0


@dataclass
class ApplyReport:
    fabric: str
    targets: str
    dry_run: bool
    waves: list[list[str]]
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    stopped_after_wave: int | None = None
    started_at: float = 0.0
    seconds: float = 0.0
    on_lost_session: dict[str, str] = field(default_factory=dict)  # platform → what a lost session leaves
    warnings: dict[str, str] = field(default_factory=dict)  # device → why it is not authenticated (--insecure, http)

    @property
    def ok(self) -> bool:
        return all(o.status in (*AT_INTENDED, "would-change") for o in self.outcomes.values())

    @property
    def changed(self) -> bool:
        return any(o.status in ("applied", "would-change") for o in self.outcomes.values())

    def by_status(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for o in self.outcomes.values():
            out.setdefault(o.status, []).append(o.device)
        return out

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        d["changed"] = self.changed
        d["summary"] = self.by_status()
        return d


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def order_devices(fabric: Fabric, names: list[str]) -> list[str]:
    """Upper tiers first (a spine's sessions are verified as its leaves arrive), then by name."""
    rank = {Role.CORE: 0, Role.SPINE: 1, Role.LEAF: 2}
    return sorted(names, key=lambda n: (rank.get(fabric.switches[n].role, 3), n))


def make_waves(names: list[str], canary: int, wave_size: int) -> list[list[str]]:
    """``canary`` devices first, then waves of ``wave_size``.

    >>> make_waves(["a", "b", "c", "d", "e"], 1, 2)
    [['a'], ['b', 'c'], ['d', 'e']]
    """
    waves = [names[:canary]] if canary > 0 else []
    rest = names[canary:] if canary > 0 else names
    waves += [rest[i : i + wave_size] for i in range(0, len(rest), max(1, wave_size))]
    return [w for w in waves if w]


# --------------------------------------------------------------------------------------------- state + lock


def state_dir(fabric_name: str, override: str | None = None) -> Path:
    if override:
        return Path(override)
    base = os.environ.get("FABRICGEN_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"), "fabricgen"
    )
    return Path(base) / fabric_name


class FabricLock:
    """``apply.lock`` created with O_EXCL; a lock left by a dead process on this host is taken over (and said).

    With ``--state-dir`` / ``FABRICGEN_STATE_DIR`` on storage that CI runners share, the lock and
    ``last-apply.json`` (what ``--rerun-failed`` reads) are shared too: a second runner is refused with the
    holder's pid, host and age, and an ephemeral runner's successor still knows what the last run left."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "apply.lock"
        self.note = ""

    def __enter__(self) -> FabricLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        me = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()})
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                try:
                    holder = json.loads(self.path.read_text() or "{}")
                except (OSError, ValueError):
                    holder = {}
                pid, host = int(holder.get("pid", 0)), holder.get("host")
                if host == socket.gethostname() and pid and not pid_alive(pid):
                    self.note = f"removed a stale lock of pid {pid} (no longer running)"
                    self.path.unlink(missing_ok=True)
                    continue
                since = float(holder.get("since") or 0)
                age = (
                    f" since {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(since))} "
                    f"({max(0, int(time.time() - since)) // 60} min ago)" if since else ""
                )
                elsewhere = "" if host == socket.gethostname() else (
                    "; it is another machine's, so fabricgen cannot tell whether that process still runs")
                raise LockError(
                    f"another apply holds {self.path}: pid {pid or '?'} on host {host or '?'}{age}{elsewhere}; "
                    "wait for it, or remove the file if you are sure that apply is gone"
                ) from None
            with os.fdopen(fd, "w") as f:
                f.write(me)
            return self
        raise LockError(f"could not take {self.path}")

    def __exit__(self, *exc: object) -> None:
        self.path.unlink(missing_ok=True)


def last_report(directory: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads((directory / "last-apply.json").read_text())
    except (OSError, ValueError):
        return None
    return data


# --------------------------------------------------------------------------------------------- one device


@dataclass
class ApplyOptions:
    canary: int = 1
    wave_size: int = 5
    revert_in: int = 120
    settle: float = 45.0
    dry_run: bool = False
    workers: int = 8
    timeout: int = 30
    strict_host_keys: bool = True
    secrets: dict[str, str] = field(default_factory=dict, repr=False)  # env NAME → value (deploy.secrets)


def _sessions_up(driver: Any) -> set[str]:
    """Peer addresses whose BGP session is Established right now (read before a commit)."""
    peers = (driver.get_bgp_neighbors().get("global") or {}).get("peers", {})
    return {addr for addr, p in peers.items() if p.get("is_up")}


def _verify_after_commit(
    fabric: Fabric, device: str, scope: set[str], ready: set[str], driver: Any, settle: float,
    committed_at: float, up_before: set[str] | None = None, platform: str = "frr",
    aliases: dict[tuple[str, str], str] | None = None, peers: PeerNames | None = None,
) -> list[str]:
    """Problems after a commit (empty: verified), proving the *new* state (:func:`check_new_state`).

    Polls until every check passes, a hard failure (a wrong peer ASN, a missing neighbour, a port down, LLDP
    showing another neighbour) is seen, or the bound passes: ``settle`` seconds, and never less than the
    platform's hold time plus 5 s (a session older than the commit is only trusted once it outlived a hold
    time under the new configuration)."""
    hold = hold_time(platform)
    deadline = committed_at + max(settle, hold + 5.0)
    while True:
        since = time.monotonic() - committed_at
        checks = check_new_state(
            fabric, device, scope, driver.get_bgp_neighbors(), driver.get_lldp_neighbors(),
            driver.get_interfaces(), require_up=ready, up_before=up_before or set(), since_commit=since, hold=hold,
            aliases=aliases, peers=peers,
        )
        bad = [c for c in checks if not c.ok]
        hard = [c for c in bad if is_hard(c)]
        if not bad or hard or time.monotonic() > deadline:
            return [f"{c.kind} {c.subject}: {c.detail}" for c in (hard or bad)]
        time.sleep(1.0)


def _recheck(fabric: Fabric, device: str, scope: set[str], ready: set[str], driver: Any,
             aliases: dict[tuple[str, str], str] | None = None, peers: PeerNames | None = None) -> list[str]:
    """Problems of a device already confirmed, re-read after a later wave (BGP with the peers at intent, LLDP,
    interfaces); no proof of recency is needed any more."""
    checks = check_bgp(fabric, device, scope, driver.get_bgp_neighbors(), require_up=ready)
    checks += check_lldp(fabric, device, scope, driver.get_lldp_neighbors(), aliases, peers)
    checks += check_interfaces(fabric, device, scope, driver.get_interfaces())
    return [f"{c.kind} {c.subject}: {c.detail}" for c in checks if not c.ok]


def _elapsed(t0: float) -> float:
    return time.perf_counter() - t0


def _semantic(target_platform: str, config: str, driver: Any) -> ConfigDiff:
    """The running configuration (sanitized) against ``config``, exactly as ``fabricgen drift`` compares them."""
    running = driver.get_config(retrieve="running", sanitized=True)["running"]
    return compare(target_platform, config, running)


def _pending_note(platform: str) -> str:
    return ("a commit-confirm is pending on the device (an earlier apply was interrupted inside its revert window): "
            f"nothing was loaded; {semantics(platform).lost_session} — rerun apply once it has, or "
            "confirm/roll back on the device")


def shown_change(drift: ConfigDiff) -> str:
    """What a report shows of a change: fabricgen's comparison (every path the replace adds or removes, masked;
    a secret-bearing section by name only). Never the device's own diff: it carries the device's secrets (a
    removed ``username … secret`` line, an SNMP community that is a key of NVUE's or config_db's tree).

    >>> shown_change(ConfigDiff(("hostname leaf1",), ("hostname x", "snmp-server community …"), {},
    ...                         ("snmp-server community …",)))
    '+ hostname leaf1\\n- hostname x\\n- snmp-server community …    (values not shown)'
    """
    hidden = set(drift.named_only)
    lines = [f"+ {x}" + ("    (values not shown)" if x in hidden else "") for x in drift.missing]
    lines += [f"- {x}" + ("    (values not shown)" if x in hidden else "") for x in drift.unexpected]
    return "\n".join(lines)


def apply_device(
    fabric: Fabric,
    name: str,
    config: str,
    targets: Targets,
    scope: set[str],
    ready: set[str],
    opts: ApplyOptions,
    wave: int,
    make_driver: Callable[..., Any],
    check_id: bool = False,
    aliases: dict[tuple[str, str], str] | None = None,
    peers: PeerNames | None = None,
) -> Outcome:
    t0 = time.perf_counter()
    target = targets.targets[name]
    revert = revert_seconds(target.platform, opts.revert_in)  # checked for every platform before the rollout
    try:
        driver = make_driver(target, targets.credentials, timeout=opts.timeout, strict_host_keys=opts.strict_host_keys)
        driver.open()
    except Exception as exc:
        return Outcome(name, "unreachable", wave, message=_msg(exc, targets), seconds=_elapsed(t0))
    committed = False
    lost = False  # the device's state is unknown or left to its own timer: nothing more is sent to it
    try:
        if check_id:
            same, why = identify_device(fabric, name, target.platform, driver, aliases)
            if not same:
                return Outcome(name, "wrong-device", wave, message=f"{why}; nothing was loaded",
                               seconds=_elapsed(t0))
        # an unconfirmed commit of an interrupted apply: its running config says nothing about what will stay
        if semantics(target.platform).device_timer and driver.has_pending_commit():
            return Outcome(name, "pending", wave, message=_pending_note(target.platform), seconds=_elapsed(t0))
        drift = _semantic(target.platform, config, driver)
        if not drift.drifted:
            return Outcome(name, "unchanged", wave, seconds=_elapsed(t0))
        # secrets enter the text only here, in memory (fabricgen.deploy.secrets), and leave the device's diff
        driver.load_replace_candidate(config=substitute(config, opts.secrets))
        diff = redact(driver.compare_config(), list(opts.secrets.values()))
        if not diff.strip():
            driver.discard_config()
            return Outcome(name, "unchanged", wave, seconds=_elapsed(t0))
        diff = shown_change(drift)
        if opts.dry_run:
            driver.discard_config()
            return Outcome(name, "would-change", wave, diff=diff, seconds=_elapsed(t0))
        up_before = _sessions_up(driver)
        committed_at = time.monotonic()
        try:
            if revert is None:
                driver.commit_config()
            else:
                driver.commit_config(revert_in=revert)
        except Exception as exc:
            # Did the device take the commit? Only a device that says so is ever sent a rollback.
            taken: bool | None = None
            if revert is not None:
                try:
                    taken = bool(driver.has_pending_commit())
                except Exception:
                    taken = None
            if taken is None:
                lost = True
                return Outcome(
                    name, "unknown", wave, diff=diff,
                    message=f"{_msg(exc, targets)}; the device could not say whether it took the commit, so nothing "
                            f"more was sent; if it did: {lost_session_note(target.platform, revert)}",
                    seconds=_elapsed(t0),
                )
            if not taken:
                raise
            committed = True
            raise
        committed = True
        # the commit must have produced the intended configuration (a reload can repair a drift badly)
        after = _semantic(target.platform, config, driver)
        if after.drifted:
            left = [f"- {p}" for p in after.missing[:3]] + [f"+ {p}" for p in after.unexpected[:3]]
            problems = [f"the running configuration still differs from intent after the commit: {'; '.join(left)}"]
        else:
            problems = _verify_after_commit(fabric, name, scope, ready, driver, opts.settle, committed_at,
                                            up_before, target.platform, aliases, peers)
        if problems:
            driver.rollback()
            msg = "verification failed: " + "; ".join(problems)
            if revert is not None and driver.has_pending_commit():
                msg += " (and a revert timer is still pending!)"
            return Outcome(name, "rolled-back", wave, diff=diff, message=msg, seconds=_elapsed(t0))
        if revert is not None:
            driver.confirm_commit()
            if driver.has_pending_commit():
                return Outcome(name, "reverting", wave, diff=diff, message="confirm did not clear the revert timer",
                               seconds=_elapsed(t0))
        return Outcome(name, "applied", wave, diff=diff, seconds=_elapsed(t0))
    except Exception as exc:
        msg = _msg(exc, targets)
        if not committed:
            with contextlib.suppress(Exception):
                driver.discard_config()
            return Outcome(name, "failed", wave, message=msg, seconds=_elapsed(t0))
        try:  # the commit was taken, then something failed: roll back now
            driver.rollback()
            return Outcome(name, "rolled-back", wave, message=f"{msg}; rolled back", seconds=_elapsed(t0))
        except Exception:
            lost = True
            status = "reverting" if revert is not None else "left-changed"
            return Outcome(name, status, wave, message=f"{msg}; {lost_session_note(target.platform, revert)}",
                           seconds=_elapsed(t0))
    finally:
        with contextlib.suppress(Exception):
            if lost:
                abandon(driver)
            else:
                driver.close()


def identify(
    fabric: Fabric, targets: Targets, names: list[str], opts: ApplyOptions, make_driver: Callable[..., Any],
    aliases: dict[tuple[str, str], str] | None = None,
) -> tuple[dict[str, str], set[str], dict[str, str], dict[str, frozenset[str]]]:
    """Identify every device before anything is loaded anywhere (:mod:`fabricgen.deploy.identity`): (device →
    why it is not the device the inventory names, devices that could not be asked — their own turn checks them
    again, device → the evidence that identified it when that was not its hostname, device → the hostname it
    answered with when that was not its name: what its neighbours' LLDP sees it as until it is configured)."""

    def one(n: str) -> tuple[bool, str, str]:
        driver = make_driver(targets.targets[n], targets.credentials, timeout=opts.timeout,
                             strict_host_keys=opts.strict_host_keys)
        driver.open()
        try:
            return identify_device_named(fabric, n, targets.targets[n].platform, driver, aliases)
        finally:
            with contextlib.suppress(Exception):
                driver.close()

    results = runner.run(one, names, workers=opts.workers, secrets=targets.secrets(), label="identity")
    wrong = {n: r.value[1] for n, r in results.by_device.items() if r.value and not r.value[0]}
    notes = {n: r.value[1] for n, r in results.by_device.items()
             if r.value and r.value[0] and r.value[1] != by_hostname(n)}
    seen_as = {n: frozenset({normalize_host(r.value[2])}) for n, r in results.by_device.items()
               if r.value and r.value[0] and normalize_host(r.value[2]) != normalize_host(n)}
    return wrong, set(results.failed), notes, seen_as


def recheck(
    fabric: Fabric, targets: Targets, names: list[str], scope: set[str], ready: set[str], opts: ApplyOptions,
    make_driver: Callable[..., Any], aliases: dict[tuple[str, str], str] | None = None,
    peers: PeerNames | None = None,
) -> dict[str, str]:
    """Devices already confirmed, checked again after a later wave: device → what is now wrong."""

    def one(n: str) -> list[str]:
        driver = make_driver(targets.targets[n], targets.credentials, timeout=opts.timeout,
                             strict_host_keys=opts.strict_host_keys)
        driver.open()
        try:
            return _recheck(fabric, n, scope, ready, driver, aliases, peers)
        finally:
            with contextlib.suppress(Exception):
                driver.close()

    results = runner.run(one, names, workers=opts.workers, secrets=targets.secrets(), label="re-check")
    out = {}
    for n, r in results.by_device.items():
        if r.error:
            out[n] = f"could not be checked again: {r.error}"
        elif r.value:
            out[n] = "; ".join(r.value)
    return out


def preflight(configs: dict[str, str], targets: Targets, names: list[str],
              address_of: Callable[[str], str] = session_address) -> dict[str, str]:
    """Device → why its candidate would cut the management session (only the devices that would)."""
    out = {}
    for n in names:
        t = targets.targets[n]
        problems = management_problems(t.platform, configs[n], address_of(t.host))
        if problems:
            out[n] = "refused before anything was loaded: " + "; ".join(problems)
    return out


def _sonic_aliases(fabric: Fabric, targets: Targets) -> dict[tuple[str, str], str]:
    """(SONiC device, port) → the alias its lldpd advertises as port ID, for every SONiC target: verification
    after a commit matches LLDP by it as ``fabricgen verify`` does (:func:`fabricgen.deploy.verify.check_lldp`)."""
    platforms = {n: t.platform for n, t in targets.targets.items()}
    sonic = [n for n, p in platforms.items() if p == "sonic" and n in fabric.switches]
    if not sonic:
        return {}
    from fabricgen.deploy.intended import intended_configs

    return sonic_aliases(intended_configs(fabric, sonic), platforms)


def _msg(exc: Exception, targets: Targets) -> str:
    return redact(error_line(exc), targets.secrets())


# --------------------------------------------------------------------------------------------- the rollout


def apply(
    fabric: Fabric,
    configs: dict[str, str],
    targets: Targets,
    opts: ApplyOptions,
    directory: Path,
    only: list[str] | None = None,
    make_driver: Callable[..., Any] | None = None,
    on_wave: Callable[[int, list[str]], None] | None = None,
) -> ApplyReport:
    """Roll ``configs`` out over ``targets``; the caller holds the fabric lock."""
    if make_driver is None:
        from fabricgen.deploy.session import make_driver as default_make

        make_driver = default_make
    scope = set(targets.targets)
    # an empty selection (a rerun with nothing left to do) selects nothing, not everything
    names = order_devices(fabric, [n for n in (configs if only is None else only) if n in configs and n in scope])
    platforms = {targets.targets[n].platform for n in names}
    refused_timer = check_revert(platforms, opts.revert_in)
    if refused_timer:
        raise RevertRefused("; ".join(refused_timer))
    waves = make_waves(names, opts.canary, opts.wave_size)
    report = ApplyReport(fabric.name, targets.origin, opts.dry_run, waves, started_at=time.time())
    report.on_lost_session = {
        p: lost_session_note(p, revert_seconds(p, opts.revert_in)) for p in sorted(platforms)
    }
    report.warnings = {n: w for n in names if (w := targets.targets[n].warning()) is not None}
    t0 = time.perf_counter()
    aliases = _sonic_aliases(fabric, targets)
    cut = preflight(configs, targets, names)
    if cut:
        for i, wave in enumerate(waves, start=1):
            for n in wave:
                report.outcomes[n] = Outcome(n, "refused", i, message=cut[n]) if n in cut else Outcome(
                    n, "not-touched", i, message="another device's candidate was refused; nothing was sent")
        report.stopped_after_wave = 0
        report.seconds = time.perf_counter() - t0
        return report
    # devices outside this run that the last run left at the intended config count as ready peers
    ready: set[str] = set()
    previous = last_report(directory) or {}
    for dev, o in (previous.get("outcomes") or {}).items():
        if o.get("status") in AT_INTENDED and o.get("digest") == digest(configs.get(dev, "")):
            ready.add(dev)
    ready -= set(names)
    # identity of every device before anything is loaded anywhere: a swapped hosts entry stops the rollout
    wrong, unasked, identified, seen_as = identify(fabric, targets, names, opts, make_driver, aliases)
    if wrong:
        for i, wave in enumerate(waves, start=1):
            for n in wave:
                report.outcomes[n] = Outcome(n, "wrong-device", i, message=f"{wrong[n]}; nothing was loaded") \
                    if n in wrong else Outcome(n, "not-touched", i, message="another device's identity check "
                                                                             "failed; nothing was sent")
        report.stopped_after_wave = 0
        report.seconds = time.perf_counter() - t0
        if not opts.dry_run:
            _save(report, configs, directory, previous)
        return report
    outside = scope - set(names) - ready  # not in this rollout and not known at intent: maybe factory state too
    for i, wave in enumerate(waves, start=1):
        if on_wave:
            on_wave(i, wave)
        wave_ready = set(ready)
        # a peer of this wave or a later one still carries the name it had when identified (or a factory name)
        names_now = PeerNames(seen_as, frozenset(outside | {n for w in waves[i - 1:] for n in w}))

        def task(n: str, _i: int = i, _ready: set[str] = wave_ready, _peers: PeerNames = names_now) -> Outcome:
            return apply_device(fabric, n, configs[n], targets, scope, _ready, opts, _i, make_driver,
                                check_id=n in unasked, aliases=aliases, peers=_peers)

        results = runner.run(task, wave, workers=opts.workers, secrets=targets.secrets(), label=f"wave {i}")
        for n, r in results.by_device.items():
            report.outcomes[n] = r.value if r.value is not None else Outcome(n, "failed", i, message=r.error or "")
            if n in identified:  # how a device that does not carry its name yet was recognised
                o = report.outcomes[n]
                o.message = "; ".join(m for m in (identified[n], o.message) if m)
            if report.outcomes[n].status in AT_INTENDED:
                ready.add(n)
        # a later wave can break what an earlier one proved: check the canary and the wave before again
        if i > 1 and not opts.dry_run:
            earlier = [n for n in dict.fromkeys([*waves[0], *waves[i - 2]])
                       if report.outcomes[n].status == "applied"]
            names_after = PeerNames(seen_as, frozenset(outside | {n for w in waves[i:] for n in w}))
            for n, why in recheck(fabric, targets, earlier, scope, ready, opts, make_driver, aliases,
                                  names_after).items():
                o = report.outcomes[n]
                report.outcomes[n] = Outcome(n, "broken-later", o.wave, o.diff,
                                             f"applied and confirmed in wave {o.wave}, but after wave {i}: {why}",
                                             o.seconds)
                ready.discard(n)
        if any(report.outcomes[n].status in STOPPING for n in [*wave, *waves[0]]) or any(
                o.status == "broken-later" for o in report.outcomes.values()):
            report.stopped_after_wave = i
            for later in waves[i:]:
                for n in later:
                    report.outcomes[n] = Outcome(n, "not-touched", waves.index(later) + 1,
                                                 message=f"rollout stopped after wave {i}")
            break
    report.seconds = time.perf_counter() - t0
    if not opts.dry_run:
        _save(report, configs, directory, previous)
    return report


def _save(report: ApplyReport, configs: dict[str, str], directory: Path, previous: dict[str, Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    outcomes = dict(previous.get("outcomes") or {})
    for n, o in report.outcomes.items():
        outcomes[n] = {"status": o.status, "digest": digest(configs.get(n, "")), "wave": o.wave, "message": o.message}
    doc = {"fabric": report.fabric, "finished_at": time.time(), "outcomes": outcomes}
    tmp = directory / "last-apply.json.tmp"
    tmp.write_text(json.dumps(doc, indent=2))
    tmp.replace(directory / "last-apply.json")


def rerun_devices(directory: Path, configs: dict[str, str]) -> list[str]:
    """Devices the last run did not leave at the intended config (or whose intended config changed since)."""
    previous = last_report(directory) or {}
    done = {
        dev for dev, o in (previous.get("outcomes") or {}).items()
        if o.get("status") in AT_INTENDED and o.get("digest") == digest(configs.get(dev, ""))
    }
    return [n for n in configs if n not in done]
