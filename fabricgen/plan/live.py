"""``fabricgen plan --live``: diff the new intended configuration against what the devices run now.

Reuses the drift machinery of :mod:`fabricgen.deploy` (targets, credentials, drivers, the per-device
runner, the intended configurations, the semantic comparison — so order, whitespace and echoed defaults
are not reported): only getters are called, nothing is pushed.
"""

from __future__ import annotations

from collections.abc import Iterable

from fabricgen.deploy.normalize import ConfigDiff, compare
from fabricgen.plan.configdiff import DeviceConfigDiff, FileDiff


def live_config_diffs(
    inventory: str,
    devices: Iterable[str],
    *,
    hosts: str | None = None,
    credentials: str | None = None,
    known_hosts: str | None = None,
    use_lab: bool = True,
    known_certs: str | None = None,
    ca_file: str | None = None,
    insecure: bool = False,
    workers: int = 16,
    timeout: int = 30,
) -> tuple[dict[str, DeviceConfigDiff], list[str]]:
    """Unified diffs running → intended for ``devices`` that are reachable targets, and notes on the rest (a
    device that could not be read, and one that is not authenticated: ``--insecure`` or ``transport: http``).
    EOS switches are authenticated as ``drift`` authenticates them: ``known_certs``, ``ca_file``, ``insecure``."""
    from fabricgen.deploy.intended import intended_configs
    from fabricgen.deploy.ops import load_live, per_device

    live = load_live(inventory, hosts, credentials, known_hosts, use_lab, None, known_certs=known_certs,
                     ca_file=ca_file, insecure=insecure)
    wanted = [n for n in devices if n in live.targets.targets]
    notes = [f"--live: {w}" for n in wanted if (w := live.targets.targets[n].warning()) is not None]
    skipped = sorted(set(devices) - set(wanted))
    if skipped:
        notes.append(
            f"--live: {len(skipped)} devices are not reachable targets and were not read "
            f"({', '.join(skipped[:5])}{' …' if len(skipped) > 5 else ''})"
        )
    if not wanted:
        return {}, notes
    from fabricgen.deploy.targets import restrict

    live.targets = restrict(live.targets, wanted)
    intended = intended_configs(live.fabric, wanted)
    results = per_device(live, lambda d, n: str(d.get_config(retrieve="running")["running"]), workers, timeout, "read")
    out: dict[str, DeviceConfigDiff] = {}
    for name, res in sorted(results.by_device.items()):
        if res.failed or res.value is None:
            notes.append(f"--live: {name}: {res.error}")
            continue
        platform = live.targets.targets[name].platform
        diff = compare(platform, intended[name], res.value)  # semantic, as `fabricgen drift` compares
        if diff.drifted:
            text = live_diff_text(name, diff)
            out[name] = DeviceConfigDiff(
                name, platform, "changed",
                (FileDiff("running", "changed", len(diff.missing), len(diff.unexpected), text),), "live",
            )
    return out, notes


def live_diff_text(name: str, diff: ConfigDiff) -> str:
    """What applying would change on a running device, one configuration path per line.

    >>> print(live_diff_text("leaf1", ConfigDiff(missing=("router bgp 1 / maximum-paths 64",),
    ...                                          unexpected=("router bgp 1 / neighbor 10.0.0.1 shutdown",))))
    --- running/leaf1
    +++ intended/leaf1
    - router bgp 1 / neighbor 10.0.0.1 shutdown
    + router bgp 1 / maximum-paths 64
    """
    lines = [f"--- running/{name}", f"+++ intended/{name}"]
    lines += [f"- {line}" for line in diff.unexpected] + [f"+ {line}" for line in diff.missing]
    return "\n".join(lines)
