"""What the apply/drift/verify commands share: load the fabric, pick targets, render intent, run per device."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from fabricgen.deploy import runner
from fabricgen.deploy.drift import drift_or_pending
from fabricgen.deploy.normalize import ConfigDiff
from fabricgen.deploy.targets import Targets, as_lab_fabric, resolve_targets
from fabricgen.deploy.verify import DeviceVerdict, verify_device
from fabricgen.topology.model import Fabric

T = TypeVar("T")


@dataclass
class Live:
    fabric: Fabric  # as the targets run it (every switch on frr in a lab)
    targets: Targets  # the selected devices (``--only``): what is pushed, drift-checked, verified
    everything: Targets | None = None  # every reachable switch: what the selected devices are verified against

    @property
    def scope(self) -> set[str]:
        """Devices whose sessions and LLDP with the selected ones are checked: selection narrows what is pushed,
        never what is verified about it."""
        return set((self.everything or self.targets).targets)


def load_live(
    inventory: str,
    hosts: str | None = None,
    credentials: str | None = None,
    known_hosts: str | None = None,
    use_lab: bool = True,
    only: str | None = None,
    known_certs: str | None = None,
    ca_file: str | None = None,
    insecure: bool = False,
) -> Live:
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    targets = resolve_targets(fabric, hosts, credentials, known_hosts, use_lab, known_certs, ca_file, insecure)
    if targets.lab:
        fabric = as_lab_fabric(fabric)
    everything = targets
    if only:
        from fabricgen.deploy.targets import restrict
        from fabricgen.lab.plan import select

        targets = restrict(targets, [n for n in select(fabric, only) if n in targets.targets])
    return Live(fabric, targets, everything)


def per_device(live: Live, fn: Callable[[Any, str], T], workers: int, timeout: int, label: str) -> runner.Results[T]:
    from fabricgen.deploy.session import make_driver

    def task(name: str) -> T:
        driver = make_driver(live.targets.targets[name], live.targets.credentials, timeout=timeout)
        driver.open()
        try:
            return fn(driver, name)
        finally:
            driver.close()

    return runner.run(task, list(live.targets.targets), workers, live.targets.secrets(), label)


def run_drift(live: Live, workers: int = 8, timeout: int = 30) -> runner.Results[ConfigDiff]:
    """Every selected device's drift; a device with a pending commit-confirm is a
    :class:`fabricgen.deploy.drift.PendingDiff` (drift, never in sync)."""
    from fabricgen.deploy.intended import intended_configs

    configs = intended_configs(live.fabric, list(live.targets.targets))
    platform = {n: t.platform for n, t in live.targets.targets.items()}
    return per_device(live, lambda d, n: drift_or_pending(platform[n], configs[n], d), workers, timeout, "drift")


def run_verify(live: Live, workers: int = 8, timeout: int = 30) -> runner.Results[DeviceVerdict]:
    from fabricgen.deploy.verify import sonic_aliases

    scope = live.scope
    platforms = {n: t.platform for n, t in (live.everything or live.targets).targets.items()}
    aliases: dict[tuple[str, str], str] = {}
    if "sonic" in platforms.values():
        from fabricgen.deploy.intended import intended_configs

        sonic = [n for n, p in platforms.items() if p == "sonic"]
        aliases = sonic_aliases(intended_configs(live.fabric, sonic), platforms)
    return per_device(live, lambda d, n: verify_device(live.fabric, n, scope, d, aliases), workers, timeout, "verify")
