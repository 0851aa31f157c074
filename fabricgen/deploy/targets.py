"""Which devices to talk to, where, and with which credentials: a running lab, a hosts file, or device names."""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fabricgen.deploy import certs
from fabricgen.deploy.certs import split_host, valid_fingerprint
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
        from ruamel.yaml.error import MarkedYAMLError, YAMLError

        try:
            with warnings.catch_warnings():  # a reused anchor is valid YAML: no multi-line warning on stderr
                warnings.simplefilter("ignore")
                data = YAML(typ="safe").load(text)
        except MarkedYAMLError as exc:  # a hosts file holds no secret: its line and the parser's words are shown
            mark = exc.problem_mark or exc.context_mark
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
            raise TargetError(f"{where}: YAML syntax error: {exc.problem or exc.context}") from None
        except YAMLError:
            raise TargetError(f"{path}: not a JSON or YAML mapping") from None
    if not isinstance(data, dict):
        raise TargetError(f"{path}: expected a mapping device → host or {{host, port}}")
    return data


_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,252}$")
"""A host name, IPv4 or IPv6 address as a hosts file may give it (nothing a shell or URL would read otherwise)."""

HOST_FIELDS = ("host", "port", "transport", "certificate", "ca_file")
"""The fields of a hosts-file entry written as a mapping (README, "Hosts file")."""


def _port(where: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
        raise TargetError(f"{where}: port: expected a number 1-65535, got {value!r}")
    return value


def _string(where: str, field: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise TargetError(f"{where}: {field}: expected a string, got {value!r}")
    return value.strip()


def entry_target(
    path: str | None, name: str, platform: str, entry: object, known_hosts: str | None,
    pins: dict[tuple[str, int], str], ca_file: str | None = None, insecure: bool = False,
) -> Target:
    """One switch's :class:`Target` from its hosts-file entry: ``host``, ``host:port``, or a mapping of
    :data:`HOST_FIELDS`. EOS is reached over eAPI (``transport: https`` by default, port 443; ``http``, port 80),
    its certificate pinned by ``certificate: sha256:…`` or the known-certificates file, or checked against
    ``ca_file:`` (else ``--ca-file``). A bad entry raises :class:`TargetError` naming the file, device and field."""
    where = f"{path or 'hosts'}: {name}"
    transport = cert = ca = None
    if isinstance(entry, dict):
        unknown = sorted(str(k) for k in entry if k not in HOST_FIELDS)
        if unknown:
            raise TargetError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(HOST_FIELDS)})")
        host = _string(where, "host", entry.get("host")) or name
        port = _port(where, entry.get("port"))
        transport = _string(where, "transport", entry.get("transport"))
        cert = _string(where, "certificate", entry.get("certificate"))
        ca = _string(where, "ca_file", entry.get("ca_file"))
    elif isinstance(entry, str) and entry.strip():
        try:
            host, number = split_host(entry.strip(), 0)
        except ValueError:
            raise TargetError(f"{where}: expected host or host:port (port 1-65535), got {entry!r}") from None
        port = number or None
    else:
        raise TargetError(f"{where}: expected host, host:port or a mapping of {', '.join(HOST_FIELDS)}")
    if not _HOST.match(host):
        raise TargetError(f"{where}: host: {host!r} is not a host name or address")
    if platform != "eos":
        for field, value in (("transport", transport), ("certificate", cert), ("ca_file", ca)):
            if value is not None:
                raise TargetError(f"{where}: {field}: only for eos switches (eAPI); {platform} is reached over SSH")
        return Target(name, platform, host, port or 22, None, known_hosts)
    transport = (transport or "https").lower()
    if transport not in ("https", "http"):
        raise TargetError(f"{where}: transport: expected https or http, got {transport!r}")
    port = port or (443 if transport == "https" else 80)
    if cert is not None and not valid_fingerprint(cert.lower()):
        raise TargetError(f"{where}: certificate: expected sha256:<64 hex digits>, got {cert!r}")
    if transport == "http" and (cert or ca):
        raise TargetError(f"{where}: {'certificate' if cert else 'ca_file'}: plain HTTP has no certificate to check")
    ca = ca or ca_file
    if ca and transport == "https" and not Path(os.path.expanduser(ca)).is_file():
        raise TargetError(f"{where}: ca_file: {ca}: no such file")
    pin = cert.lower() if cert else pins.get((host, port))
    return Target(name, platform, host, port, None, known_hosts, transport, pin if transport == "https" else None,
                  os.path.expanduser(ca) if ca and transport == "https" else None, insecure and transport == "https")


def host_port(source: str, name: str, entry: object, platform: str) -> tuple[str, int]:
    """The ``(host, port)`` of one hosts-file entry, checked exactly as :func:`entry_target` checks it for apply,
    drift and verify (the exports' management addresses)."""
    target = entry_target(source, name, platform, entry, None, {})
    return target.host, target.port


def resolve_targets(
    fabric: Fabric,
    hosts_file: str | None = None,
    credentials_file: str | None = None,
    known_hosts: str | None = None,
    use_lab: bool = True,
    known_certs: str | None = None,
    ca_file: str | None = None,
    insecure: bool = False,
) -> Targets:
    """Targets for every switch of ``fabric``.

    A lab of this fabric running on this machine wins unless a hosts file is given: its switches are reached
    from the lab's client namespace, with its known_hosts and (unless the environment or ``--credentials``
    says otherwise) its credentials file. Otherwise each switch's hosts-file entry (:func:`entry_target`), with
    ``known_hosts`` for SSH and NETCONF, and the known-certificates file (:mod:`fabricgen.deploy.certs`) or
    ``ca_file`` for eAPI over HTTPS; ``insecure`` skips the certificate check (never the default).
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
    return Targets(host_targets(fabric, hosts_file, known_hosts, known_certs, ca_file, insecure), creds,
                   f"hosts file {hosts_file}" if hosts_file else "device names (DNS)")


def host_targets(
    fabric: Fabric, hosts_file: str | None, known_hosts: str | None = None, known_certs: str | None = None,
    ca_file: str | None = None, insecure: bool = False,
) -> dict[str, Target]:
    """Every switch's target from the hosts file (a switch without an entry is reached by its name)."""
    kh = known_hosts or os.path.expanduser("~/.ssh/known_hosts")
    hosts = _load_hosts(hosts_file) if hosts_file else {}
    if ca_file and not Path(os.path.expanduser(ca_file)).is_file():
        raise TargetError(f"--ca-file {ca_file}: no such file")
    pins: dict[tuple[str, int], str] = {}
    if any(sw.platform == "eos" for sw in fabric.switches.values()):
        try:
            pins = certs.load(certs.default_path(known_certs))
        except certs.CertsError as exc:
            raise TargetError(str(exc)) from None
    return {name: entry_target(hosts_file, name, sw.platform, hosts.get(name, name), kh, pins, ca_file, insecure)
            for name, sw in fabric.switches.items()}


def restrict(t: Targets, names: list[str]) -> Targets:
    return replace(t, targets={n: t.targets[n] for n in names if n in t.targets})
