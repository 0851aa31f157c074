"""Which devices to talk to, where, and with which credentials: a running lab, a hosts file, or device names."""

from __future__ import annotations

import json
import os
import re
import warnings
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
            with warnings.catch_warnings():  # a reused anchor is valid YAML: no multi-line warning on stderr
                warnings.simplefilter("ignore")
                data = YAML(typ="safe").load(text)
        except YAMLError:
            raise TargetError(f"{path}: not a JSON or YAML mapping") from None
    if not isinstance(data, dict):
        raise TargetError(f"{path}: expected a mapping device → host or {{host, port}}")
    return data


_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,252}$")
"""A host name, IPv4 or IPv6 address as a hosts file may give it (nothing a shell or URL would read otherwise)."""


def host_port(source: str, name: str, entry: object) -> tuple[str, int]:
    """The ``(host, port)`` of one hosts-file entry — ``host``, ``host:port`` (one colon: an IPv6 address is a host
    alone) or ``{host, port}`` — checked: the host a plain name or address, the port a whole number 1–65535 (22
    unless given). Anything else raises :class:`TargetError` naming ``source`` and the device."""
    if isinstance(entry, dict):
        host, port = entry.get("host", name), entry.get("port", 22)
    elif isinstance(entry, str):
        head, sep, tail = entry.rpartition(":")
        host, port = (head, tail) if sep and entry.count(":") == 1 else (entry, 22)
    else:
        raise TargetError(f"{source}: {name}: {entry!r} is not a host, host:port or {{host, port}}")
    if not isinstance(host, str) or not _HOST.match(host):
        raise TargetError(f"{source}: {name}: {host!r} is not a host name or address")
    whole = isinstance(port, int) and not isinstance(port, bool)
    if not whole and not (isinstance(port, str) and port.isascii() and port.isdigit()):
        raise TargetError(f"{source}: {name}: port {port!r} is not a whole number 1-65535")
    number = int(port)  # an int or a string of ASCII digits, checked above
    if not 1 <= number <= 65535:
        raise TargetError(f"{source}: {name}: port {port!r} is not 1-65535")
    return host, number


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
        host, port = host_port(hosts_file or "device names", name, hosts.get(name, name))
        targets[name] = Target(name, sw.platform, host, port, None, kh)
    return Targets(targets, creds, f"hosts file {hosts_file}" if hosts_file else "device names (DNS)")


def restrict(t: Targets, names: list[str]) -> Targets:
    return replace(t, targets={n: t.targets[n] for n in names if n in t.targets})
