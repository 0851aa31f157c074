"""Apply intended configurations in waves with commit-confirm, post-change verification and rollback.

Per device: open → load replace candidate → compare (no change: done) → commit with a revert timer → verify
(every implied BGP session configured with the right peer ASN, and Established towards peers already at the
intended configuration; interfaces up with the intended MTU) → confirm. A failed verification rolls the
device back; a device lost after its commit is left to its revert timer. The first wave is the canary; any
failure stops further waves. Every device ends in a state the report names:

``unchanged`` already at the intended config · ``applied`` committed, verified, confirmed ·
``rolled-back`` verification failed, previous config restored · ``reverting`` lost after commit, its timer
restores the previous config · ``failed`` error before any change (candidate refused, …) ·
``unreachable`` no session · ``not-touched`` never contacted (a wave before it failed) ·
``would-change`` ``--dry-run`` only.

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
from fabricgen.deploy.credentials import redact
from fabricgen.deploy.targets import Targets
from fabricgen.deploy.verify import check_bgp, check_interfaces
from fabricgen.inventory.schema import Role
from fabricgen.lab.machine import pid_alive
from fabricgen.topology.model import Fabric

AT_INTENDED = ("unchanged", "applied")
STOPPING = ("rolled-back", "reverting", "failed", "unreachable")


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
    """``apply.lock`` created with O_EXCL; a lock left by a dead process on this host is taken over (and said)."""

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
                raise LockError(
                    f"another apply holds {self.path} (pid {pid or '?'} on {host or '?'}); "
                    "wait for it, or remove the file if you are sure it is gone"
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


def _verify_after_commit(
    fabric: Fabric, device: str, scope: set[str], ready: set[str], driver: Any, settle: float
) -> list[str]:
    """Problems after a commit (empty: verified). Polls until ``settle`` seconds for sessions to come up."""
    deadline = time.monotonic() + settle
    while True:
        checks = check_bgp(fabric, device, scope, driver.get_bgp_neighbors(), require_up=ready)
        checks += check_interfaces(fabric, device, scope, driver.get_interfaces())
        bad = [c for c in checks if not c.ok]
        hard = [c for c in bad if "peer ASN" in c.detail or "no such neighbour" in c.detail or c.kind == "interface"]
        if not bad or hard or time.monotonic() > deadline:
            return [f"{c.kind} {c.subject}: {c.detail}" for c in bad]
        time.sleep(1.0)


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
) -> Outcome:
    t0 = time.perf_counter()
    target = targets.targets[name]
    try:
        driver = make_driver(target, targets.credentials, timeout=opts.timeout, strict_host_keys=opts.strict_host_keys)
        driver.open()
    except Exception as exc:
        return Outcome(name, "unreachable", wave, message=_msg(exc, targets), seconds=time.perf_counter() - t0)
    committed = False
    try:
        driver.load_replace_candidate(config=config)
        diff = driver.compare_config()
        if not diff.strip():
            driver.discard_config()
            return Outcome(name, "unchanged", wave, seconds=time.perf_counter() - t0)
        if opts.dry_run:
            driver.discard_config()
            return Outcome(name, "would-change", wave, diff=diff, seconds=time.perf_counter() - t0)
        try:
            driver.commit_config(revert_in=opts.revert_in)
        except Exception as exc:
            # did the commit (and its revert timer) happen? Ask; if the device cannot answer, assume it did
            try:
                committed = bool(driver.has_pending_commit())
            except Exception:
                committed = True
            if not committed:
                raise
            raise exc
        committed = True
        problems = _verify_after_commit(fabric, name, scope, ready, driver, opts.settle)
        if problems:
            driver.rollback()
            still = driver.has_pending_commit()
            msg = "verification failed: " + "; ".join(problems)
            if still:
                msg += " (and a revert timer is still pending!)"
            return Outcome(name, "rolled-back", wave, diff=diff, message=msg, seconds=time.perf_counter() - t0)
        driver.confirm_commit()
        if driver.has_pending_commit():
            return Outcome(name, "reverting", wave, diff=diff, message="confirm did not clear the revert timer",
                           seconds=time.perf_counter() - t0)
        return Outcome(name, "applied", wave, diff=diff, seconds=time.perf_counter() - t0)
    except Exception as exc:
        msg = _msg(exc, targets)
        if not committed:
            with contextlib.suppress(Exception):
                driver.discard_config()
            return Outcome(name, "failed", wave, message=msg, seconds=time.perf_counter() - t0)
        try:  # lost mid-change: try to roll back now, else the timer does it
            driver.rollback()
            return Outcome(name, "rolled-back", wave, message=f"{msg}; rolled back", seconds=time.perf_counter() - t0)
        except Exception:
            return Outcome(
                name, "reverting", wave,
                message=f"{msg}; the device reverts by itself within {opts.revert_in}s (commit-confirm timer)",
                seconds=time.perf_counter() - t0,
            )
    finally:
        with contextlib.suppress(Exception):
            driver.close()


def _msg(exc: Exception, targets: Targets) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return redact(text, targets.secrets())


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
    names = order_devices(fabric, [n for n in (only or configs) if n in configs and n in scope])
    waves = make_waves(names, opts.canary, opts.wave_size)
    report = ApplyReport(fabric.name, targets.origin, opts.dry_run, waves, started_at=time.time())
    t0 = time.perf_counter()
    # devices outside this run that the last run left at the intended config count as ready peers
    ready: set[str] = set()
    previous = last_report(directory) or {}
    for dev, o in (previous.get("outcomes") or {}).items():
        if o.get("status") in AT_INTENDED and o.get("digest") == digest(configs.get(dev, "")):
            ready.add(dev)
    ready -= set(names)
    for i, wave in enumerate(waves, start=1):
        if on_wave:
            on_wave(i, wave)
        wave_ready = set(ready)

        def task(n: str, _i: int = i, _ready: set[str] = wave_ready) -> Outcome:
            return apply_device(fabric, n, configs[n], targets, scope, _ready, opts, _i, make_driver)

        results = runner.run(task, wave, workers=opts.workers, secrets=targets.secrets(), label=f"wave {i}")
        for n, r in results.by_device.items():
            report.outcomes[n] = r.value if r.value is not None else Outcome(n, "failed", i, message=r.error or "")
            if report.outcomes[n].status in AT_INTENDED:
                ready.add(n)
        if any(report.outcomes[n].status in STOPPING for n in wave):
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
