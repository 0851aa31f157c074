"""Which devices to talk to, where, and with which credentials: a running lab, a hosts file, or device names."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fabricgen.deploy.credentials import Credentials, resolve
from fabricgen.deploy.transport import Target
from fabricgen.topology.model import Fabric


class TargetError(Exception):
    pass


@dataclass(frozen=True)
class Targets:
    targets: dict[str, Target]
    credentials: Credentials
    origin: str  # "lab lab-frr (namespace fg-lab-frr-client)", "hosts file x", "device names"
    lab: bool = False

    def secrets(self) -> list[str]:
        return self.credentials.secrets()


def as_lab_fabric(fabric: Fabric) -> Fabric:
    """The fabric as the lab runs it: every switch on platform ``frr`` with the inventory's port names."""
    from dataclasses import replace as dc_replace

    switches = {n: dc_replace(s, platform="frr") for n, s in fabric.switches.items()}
    return dc_replace(fabric, switches=switches)


def _load_hosts(path: str) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except ValueError:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        try:
            data = YAML(typ="safe").load(text)
        except YAMLError:
            raise TargetError(f"{path}: not a JSON or YAML mapping") from None
    if not isinstance(data, dict):
        raise TargetError(f"{path}: expected a mapping device → host or {{host, port}}")
    return data


def resolve_targets(
    fabric: Fabric,
    hosts_file: str | None = None,
    credentials_file: str | None = None,
    known_hosts: str | None = None,
    use_lab: bool = True,
) -> Targets:
    """Targets for every switch of ``fabric``.

    A lab of this fabric running on this machine wins unless a hosts file is given: its switches are reached
    from the lab's client namespace, with its known_hosts and (unless the environment or ``--credentials``
    says otherwise) its credentials file.
    """
    from fabricgen.lab.lab import load_state

    state = load_state(fabric.name) if use_lab and hosts_file is None else None
    if state is not None and state.status == "up":
        creds = resolve(credentials_file, fallback=state.credentials)
        targets = {
            name: Target(name, "frr", info["mgmt_ip"], 22, state.client_netns, str(state.known_hosts))
            for name, info in state.switches.items()
        }
        return Targets(targets, creds, f"lab {state.fabric} (client namespace {state.client_netns})", lab=True)
    creds = resolve(credentials_file)
    kh = known_hosts or os.path.expanduser("~/.ssh/known_hosts")
    hosts = _load_hosts(hosts_file) if hosts_file else {}
    targets = {}
    for name, sw in fabric.switches.items():
        entry = hosts.get(name, name)
        if isinstance(entry, dict):
            host, port = str(entry.get("host", name)), int(entry.get("port", 22))
        else:
            host, _, p = str(entry).partition(":")
            port = int(p) if p else 22
        targets[name] = Target(name, sw.platform, host, port, None, kh)
    return Targets(targets, creds, f"hosts file {hosts_file}" if hosts_file else "device names (DNS)")


def restrict(t: Targets, names: list[str]) -> Targets:
    return replace(t, targets={n: t.targets[n] for n in names if n in t.targets})
