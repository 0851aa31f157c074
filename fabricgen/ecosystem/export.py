"""Exports of a resolved fabric to other tools' inventories, as plain data (the CLI serialises it).

* containerlab: one FRR container per switch, cabled like the inventory's switch–switch links, with
  the interface names fabricgen's FRR rendering and lab use (``swp<cage>[s<sub>]``: Linux-safe).
* Nornir SimpleInventory: ``hosts.yaml`` and ``groups.yaml``, one group per role and per platform; a
  host's ``platform`` is the name ``napalm.get_network_driver`` loads the driver of its fabricgen platform
  under (:func:`napalm_driver`, from :data:`fabricgen.deploy.drivers.NAPALM_DRIVER`).
* Ansible: a YAML inventory with a group per role and per platform; the platform groups carry
  ``ansible_network_os`` and ``ansible_connection``.

Values from the inventory are names the inventory schema has already checked (device, model and fabric
names match ``[A-Za-z0-9][A-Za-z0-9._-]*``); everything is serialised with a YAML emitter, never by
pasting strings. Output is deterministic: the fabric's own order, no timestamps.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fabricgen.deploy.drivers import NAPALM_DRIVER
from fabricgen.render.platforms import frr_daemons
from fabricgen.topology.model import Fabric, Switch

FRR_IMAGE = "quay.io/frrouting/frr:8.4.1"
"""FRR 8.4, the release whose ``frr.conf`` syntax fabricgen renders (``fabricgen render --platform frr``)."""

LINUX_IFNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$")
"""A Linux interface name: at most 15 characters, no ``/``, ``:`` or blanks."""

ANSIBLE_NETWORK_OS: Mapping[str, tuple[str, str]] = {
    # platform: (ansible_network_os, ansible_connection), from each vendor collection's documentation
    "eos": ("arista.eos.eos", "ansible.netcommon.network_cli"),
    "nxos": ("cisco.nxos.nxos", "ansible.netcommon.network_cli"),
    "junos": ("junipernetworks.junos.junos", "ansible.netcommon.netconf"),
    "nvue": ("nvidia.nvue.httpapi", "ansible.netcommon.httpapi"),  # NVIDIA's nvidia.nvue collection (REST API)
    "sonic": ("dellemc.enterprise_sonic.sonic", "ansible.netcommon.network_cli"),
    "frr": ("frr.frr.frr", "ansible.netcommon.network_cli"),
}

DAEMONS = frr_daemons("FRR daemons for a fabricgen switch: BGP (the fabric's routing) and the base daemons.", bfd=True)
"""``/etc/frr/daemons`` for the containers (the FRR image starts only zebra and staticd by default)."""


def napalm_driver(platform: str) -> str:
    """The name ``napalm.get_network_driver`` loads ``platform``'s driver under: NAPALM's own names as they are
    (``eos``, ``nxos_ssh``), fabricgen's ``fabricgen.<x>`` as its community package ``napalm_fabricgen_<x>``
    is found (``fabricgen_<x>``).

    >>> napalm_driver("sonic"), napalm_driver("nxos")
    ('fabricgen_sonic', 'nxos_ssh')
    """
    name = NAPALM_DRIVER[platform]
    return "fabricgen_" + name.removeprefix("fabricgen.") if name.startswith("fabricgen.") else name


class ExportError(ValueError):
    """The fabric cannot be exported as asked; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Management:
    """Where a switch is reached: a host name or address and its SSH port."""

    host: str
    port: int = 22


def switch_links(fabric: Fabric) -> list[tuple[str, str, str, str]]:
    """``(a device, a port, b device, b port)`` of every landed switch–switch cable, in inventory order."""
    out = []
    for link in fabric.links:
        if link.b is None or link.a.device not in fabric.switches or link.b.device not in fabric.switches:
            continue
        out.append((link.a.device, link.a.port, link.b.device, link.b.port))
    return out


def containerlab(fabric: Fabric, image: str = FRR_IMAGE, configs: str = "configs") -> dict[str, Any]:
    """A containerlab topology of ``fabric`` (every switch already on platform ``frr``, see
    :func:`fabricgen.render.retarget.retarget`): FRR nodes whose ``/etc/frr/frr.conf`` is
    ``<configs>/<switch>/frr.conf`` and links equal to the switch–switch cabling."""
    problems = []
    links = []
    for a_dev, a_port, b_dev, b_port in switch_links(fabric):
        for dev, port in ((a_dev, a_port), (b_dev, b_port)):
            if not LINUX_IFNAME.match(port):
                problems.append(f"{dev}:{port} is not a Linux interface name")
        links.append({"endpoints": [f"{a_dev}:{a_port}", f"{b_dev}:{b_port}"]})
    if problems:
        raise ExportError("; ".join(problems))
    nodes = {
        name: {
            "kind": "linux",
            "labels": _labels(sw),
            "binds": [f"{configs}/{name}/frr.conf:/etc/frr/frr.conf", f"{configs}/daemons:/etc/frr/daemons"],
        }
        for name, sw in fabric.switches.items()
    }
    return {
        "name": fabric.name,
        "topology": {"kinds": {"linux": {"image": image}}, "nodes": nodes, "links": links},
    }


def _labels(sw: Switch) -> dict[str, str]:
    return {"fabricgen.role": str(sw.role), "fabricgen.model": sw.model}


def _host_data(sw: Switch, platform: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "role": str(sw.role),
        "model": sw.model,
        "fabricgen_platform": platform,
        "asn": sw.asn,
        "loopback": sw.loopback,
    }
    if sw.unit is not None:
        data["unit"] = sw.unit
    if sw.pod is not None:
        data["pod"] = sw.pod
    return data


def nornir(fabric: Fabric, mgmt: Mapping[str, Management] | None = None) -> dict[str, dict[str, Any]]:
    """Nornir SimpleInventory files: ``{"hosts.yaml": {...}, "groups.yaml": {...}}``."""
    mgmt = mgmt or {}
    hosts: dict[str, Any] = {}
    roles: list[str] = []
    platforms: list[str] = []
    for name, sw in fabric.switches.items():
        role = str(sw.role)
        driver = napalm_driver(sw.platform)
        host: dict[str, Any] = {}
        if name in mgmt:
            host["hostname"] = mgmt[name].host
            host["port"] = mgmt[name].port
        host["platform"] = driver
        host["groups"] = [role, sw.platform]
        host["data"] = _host_data(sw, sw.platform)
        hosts[name] = host
        roles += [role] if role not in roles else []
        platforms += [sw.platform] if sw.platform not in platforms else []
    groups: dict[str, Any] = {role: {"data": {"role": role}} for role in roles}
    for p in platforms:
        driver = napalm_driver(p)
        groups[p] = {
            "platform": driver,
            "connection_options": {"napalm": {"platform": driver}},
            "data": {"fabricgen_platform": p},
        }
    return {"hosts.yaml": hosts, "groups.yaml": groups}


def _ansible_var(key: str) -> str:
    return key if key.startswith("fabricgen_") else f"fabricgen_{key}"


def ansible(fabric: Fabric, mgmt: Mapping[str, Management] | None = None) -> dict[str, dict[str, Any]]:
    """An Ansible YAML inventory: ``{"inventory.yaml": {"all": {"children": {...}}}}``; host variables
    sit under the host's role group, ``ansible_network_os`` under its platform group."""
    mgmt = mgmt or {}
    by_role: dict[str, dict[str, Any]] = {}
    by_platform: dict[str, dict[str, Any]] = {}
    for name, sw in fabric.switches.items():
        hv: dict[str, Any] = {}
        if name in mgmt:
            hv["ansible_host"] = mgmt[name].host
            hv["ansible_port"] = mgmt[name].port
        hv.update({_ansible_var(k): v for k, v in _host_data(sw, sw.platform).items()})
        by_role.setdefault(str(sw.role), {})[name] = hv
        by_platform.setdefault(sw.platform, {})[name] = None
    children: dict[str, Any] = {role: {"hosts": hosts} for role, hosts in by_role.items()}
    for p, hosts in by_platform.items():
        network_os, connection = ANSIBLE_NETWORK_OS[p]
        children[p] = {"hosts": hosts, "vars": {"ansible_network_os": network_os, "ansible_connection": connection}}
    return {"inventory.yaml": {"all": {"children": children}}}
