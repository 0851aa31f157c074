"""Pre-push guard: never replace a device's configuration with one that removes the access ``apply`` runs over.

``apply`` replaces the whole configuration. Before anything is loaded, the candidate text is read for the two
things the session needs, per platform:

* the **address** the session connects to (the target's host, resolved), configured on some interface;
* the **access method** the driver uses: eAPI (``management api http-commands`` with ``no shutdown``) on EOS,
  SSH on NX-OS (on unless ``no feature ssh``), NETCONF over SSH (``system services netconf ssh``) on Junos,
  SSH on SONiC (sshd, not part of config_db) and NVUE (on unless ``system ssh-server state disabled``).

FRR: sshd and the management address live in the host, outside ``frr.conf``; replacing ``frr.conf`` cannot
remove them, so there is nothing to check. On the other platforms the templates render the device's base
configuration (:mod:`fabricgen.render.base`: management interface and address, users, API) when the inventory
has a ``base:`` section, so a candidate passes exactly when its ``base.mgmt.address`` is the address the session
uses (and, on EOS and Junos, ``base.api`` is true); without it the replace is refused, and the check
FG-BASE-001 says so before ``apply`` is run.

>>> management_problems("nxos", "interface mgmt0\\n  ip address 192.0.2.10/24\\n", "192.0.2.10")
[]
>>> management_problems("nxos", "no feature ssh\\ninterface mgmt0\\n  ip address 192.0.2.10/24\\n", "192.0.2.10")
['the candidate disables SSH (`no feature ssh`), the access this session uses']
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
from typing import Any

_IP_CIDR = r"(\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]+:[0-9a-fA-F:.]*)/\d{1,3}"


def _cli_addresses(text: str) -> set[str]:
    """Addresses of ``ip address A/len`` / ``ipv6 address A/len`` lines (EOS, NX-OS, FRR-style)."""
    return {m.group(1) for m in re.finditer(rf"^\s*ipv?6? address {_IP_CIDR}", text, re.M)}


def _blocks(text: str) -> dict[str, list[str]]:
    """Top-level line → its indented child lines (EOS/NX-OS style)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.strip().startswith("!"):
            continue
        if raw[0] != " ":
            current = out.setdefault(" ".join(raw.split()), [])
        elif current is not None:
            current.append(" ".join(raw.split()))
    return out


def _eos(text: str) -> tuple[set[str], list[str]]:
    problems = []
    api = _blocks(text).get("management api http-commands")
    if api is None or "no shutdown" not in api or "shutdown" in api:
        problems.append("the candidate does not enable eAPI (`management api http-commands` / `no shutdown`), "
                        "the access this session uses")
    return _cli_addresses(text), problems


def _nxos(text: str) -> tuple[set[str], list[str]]:
    problems = []
    if re.search(r"^no feature ssh\s*$", text, re.M):
        problems.append("the candidate disables SSH (`no feature ssh`), the access this session uses")
    return _cli_addresses(text), problems


def _junos(text: str) -> tuple[set[str], list[str]]:
    from fabricgen.deploy.normalize import junos_set_lines

    lines = junos_set_lines(text)
    addrs = set()
    for line in lines:
        m = re.match(rf"set interfaces \S+ unit \S+ family inet6? address {_IP_CIDR}", line)
        if m:
            addrs.add(m.group(1))
    problems = []
    if not any(line.startswith("set system services netconf ssh") for line in lines):
        problems.append("the candidate does not enable NETCONF (`system services netconf ssh`), "
                        "the access this session uses")
    return addrs, problems


def _sonic(text: str) -> tuple[set[str], list[str]]:
    from fabricgen.deploy.intended import split_sonic

    parts = split_sonic(text)
    doc: dict[str, Any] = json.loads(parts[0] if parts else text)
    addrs = set()
    for table in ("MGMT_INTERFACE", "INTERFACE", "LOOPBACK_INTERFACE", "VLAN_INTERFACE", "PORTCHANNEL_INTERFACE"):
        for key in doc.get(table) or {}:
            _, sep, prefix = str(key).partition("|")
            if sep and "/" in prefix:
                addrs.add(prefix.split("/")[0])
    return addrs, []


def _nvue(text: str) -> tuple[set[str], list[str]]:
    from ruamel.yaml import YAML

    doc = YAML(typ="safe").load(text)
    sets = [d.get("set", {}) for d in (doc if isinstance(doc, list) else [doc]) if isinstance(d, dict)]
    addrs: set[str] = set()
    problems = []
    for s in sets:
        for iface in ((s or {}).get("interface") or {}).values():
            for a in (((iface or {}).get("ip") or {}).get("address") or {}):
                addrs.add(str(a).split("/")[0])
        ssh = (((s or {}).get("system") or {}).get("ssh-server") or {})
        if ssh.get("state") == "disabled":
            problems.append("the candidate disables the SSH server (`system ssh-server state disabled`), "
                            "the access this session uses")
    return addrs, problems


_READERS = {"eos": _eos, "nxos": _nxos, "junos": _junos, "sonic": _sonic, "nvue": _nvue}


def management_problems(platform: str, candidate: str, address: str) -> list[str]:
    """Why replacing the configuration with ``candidate`` would cut the session to ``address`` (empty: it would
    not, or the platform's management lives outside the replaced file)."""
    reader = _READERS.get(platform)
    if reader is None:
        return []
    try:
        addrs, problems = reader(candidate)
    except ValueError as exc:
        return [f"the candidate cannot be read to check management access: {exc}"]
    want = _canonical(address)
    if want is None:
        problems.insert(0, f"cannot tell which address the session uses ({address} does not resolve)")
    elif want not in {_canonical(a) for a in addrs}:
        problems.insert(0, f"the candidate configures no interface with {want}, the address this session uses")
    return problems


def _canonical(address: str) -> str | None:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None


def session_address(host: str) -> str:
    """The address a session to ``host`` connects to (the first one the resolver returns; ``host`` itself when it
    does not resolve, which the guard then reports)."""
    if _canonical(host):
        return host
    try:
        return str(socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)[0][4][0])
    except OSError:
        return host
