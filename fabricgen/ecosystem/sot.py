"""A fabric in a source of truth (Nautobot 3.x, NetBox 4.x) and back: pure mapping, no I/O.

Mapping (one fabric = one location/site named after ``fabric.name``):

=====================  ==========================================  ==========================================
fabricgen              Nautobot 3.x                                 NetBox 4.x
=====================  ==========================================  ==========================================
fabric.name            Location (LocationType ``fabricgen-fabric``)  Site (slug = name)
switch/node model      DeviceType ``model`` (+ Manufacturer)        DeviceType ``model``/``slug`` (+ Manufacturer)
switch role            Role ``leaf``/``spine``/``core``              DeviceRole ``leaf``/``spine``/``core``
GPU node               Role ``gpu-node``                             DeviceRole ``gpu-node``
platform               Platform (name = fabricgen platform)          Platform (slug = fabricgen platform)
id, unit, rails, pod   Device custom fields ``fabricgen_id``,        the same custom fields
asn, loopback,         ``fabricgen_unit``, ``fabricgen_rails``
release, mgmt address   (``"0,1"``), ``fabricgen_pod``,
                       ``fabricgen_asn``, ``fabricgen_loopback``,
                       ``fabricgen_release``, ``fabricgen_mgmt``
                       (only those declared; on import an empty
                       ``fabricgen_mgmt`` falls back to the
                       device's primary IPv4 address)
link a/b               Interface on each device (type by speed) +   Interfaces + Cable ``a_terminations``/
                       Cable ``termination_a``/``termination_b``      ``b_terminations``
length_m               Cable ``length`` + ``length_unit`` (``m``,     Cable ``length`` + ``length_unit`` ``m``
                       or ``cm`` when not whole metres)
declared link speed    Cable custom field ``fabricgen_speed``        the same
cable label            Cable ``label``                               Cable ``label``
=====================  ==========================================  ==========================================

ASNs and loopbacks stay derived from ``fabric.asn``/``fabric.addressing`` and the switch ``id`` unless the
inventory declared them. The fabric-wide settings (``fabric:``, ``qos:``, ``catalog:``) are not device data and
stay in fabricgen: ``import`` copies them from YAML files (``--fabric``, repeatable: ``fabric.yaml``, ``base.yaml``).
Of a switch's own ``base:`` only the management address is carried; per-node ``nic_qos`` is not carried.

Everything read from a source of truth is untrusted: :func:`to_inventory` returns plain data that the caller
validates with the same typed models as a YAML inventory (:class:`fabricgen.inventory.schema.Inventory`), and
every problem names the object it came from (``nautobot: dcim.device leaf1 (id …): custom field …``).
Order is deterministic: switches by role (core, spine, leaf), id and name; nodes by name; links by their
``a`` end — so a re-import of unchanged data gives the same file, and a change is a small reviewable diff.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fabricgen.inventory.schema import Inventory
from fabricgen.topology.model import Fabric

NODE_ROLE = "gpu-node"
SWITCH_ROLES = ("core", "spine", "leaf")
LOCATION_TYPE = "fabricgen-fabric"

DEVICE_FIELDS: Mapping[str, str] = {
    # custom field key: (fabricgen switch/node attribute); Nautobot/NetBox custom field type
    "fabricgen_id": "integer",
    "fabricgen_unit": "integer",
    "fabricgen_rails": "text",
    "fabricgen_pod": "integer",
    "fabricgen_asn": "text",  # 32-bit ASNs exceed a signed 32-bit integer field on some releases
    "fabricgen_loopback": "text",
    "fabricgen_release": "text",
    "fabricgen_mgmt": "text",  # the switch's own base.mgmt.address, e.g. 192.0.2.21/24
}
CABLE_FIELDS: Mapping[str, str] = {"fabricgen_speed": "integer"}

INTERFACE_TYPES: Mapping[int, str] = {
    # Gb/s: Nautobot/NetBox InterfaceTypeChoices value (OSFP cages of the AI-fabric switches)
    10: "10gbase-x-sfpp",
    25: "25gbase-x-sfp28",
    50: "50gbase-x-sfp56",
    100: "100gbase-x-qsfp28",
    200: "200gbase-x-qsfp56",
    400: "400gbase-x-osfp",
    800: "800gbase-x-osfp",
}

NETWORK_DRIVERS: Mapping[str, str] = {
    # fabricgen platform: netutils network_driver (Nautobot Platform.network_driver)
    "eos": "arista_eos",
    "nxos": "cisco_nxos",
    "junos": "juniper_junos",
    "nvue": "nvidia_cumulus",
    "sonic": "sonic",
    "frr": "frr",
}


class SotError(ValueError):
    """Data of the source of truth that cannot become an inventory; one message per problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Device:
    name: str
    role: str  # leaf/spine/core or NODE_ROLE
    model: str
    manufacturer: str
    platform: str | None
    fields: dict[str, Any]  # custom fields, only those with a value


@dataclass(frozen=True, slots=True)
class Cable:
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    speed: int  # Gb/s, for the interface type
    length_m: float | None
    label: str | None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Sot:
    """The fabric as source-of-truth objects."""

    fabric: str
    devices: tuple[Device, ...]
    cables: tuple[Cable, ...]


def natural(text: str) -> tuple[Any, ...]:
    """Sort key that puts ``Ethernet8`` before ``Ethernet16``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def length_fields(length_m: float) -> tuple[int, str]:
    """``(length, unit)`` for a cable: Nautobot stores a whole number, so whole metres in ``m``, else ``cm``."""
    if float(length_m).is_integer():
        return int(length_m), "m"
    cm = round(length_m * 100, 6)
    if not float(cm).is_integer():
        raise SotError([f"cable length {length_m} m is not a whole number of centimetres"])
    return int(cm), "cm"


def from_fabric(fabric: Fabric, inventory: Inventory) -> Sot:
    """The source-of-truth objects of a resolved fabric; ``inventory`` says which values were declared (ASN,
    loopback, release, link speed, cable label), the rest is derived again on import."""
    from fabricgen.inventory.catalog import merged

    declared = {s.name: s for s in inventory.switches}
    catalog = merged(inventory.catalog)
    vendors = {**{k: v.vendor for k, v in catalog.switches.items()},
               **{k: v.vendor for k, v in catalog.servers.items()}}
    problems: list[str] = []
    devices: list[Device] = []
    for sw in fabric.switches.values():
        src = declared.get(sw.name)
        fields: dict[str, Any] = {"fabricgen_id": sw.id}
        if sw.unit is not None:
            fields["fabricgen_unit"] = sw.unit
        if sw.rails:
            fields["fabricgen_rails"] = ",".join(str(r) for r in sw.rails)
        if sw.pod is not None:
            fields["fabricgen_pod"] = sw.pod
        if src is not None and src.asn is not None:
            fields["fabricgen_asn"] = str(src.asn)
        if src is not None and src.loopback is not None:
            fields["fabricgen_loopback"] = str(src.loopback)
        if src is not None and src.release is not None:
            fields["fabricgen_release"] = str(src.release)
        if src is not None and src.base is not None:
            own = src.base.model_dump(exclude_none=True, exclude_unset=True)
            mgmt = own.pop("mgmt", {})
            if mgmt.get("address") is not None:
                fields["fabricgen_mgmt"] = str(mgmt.pop("address"))
            if own or mgmt:
                extra = sorted([*own, *(f"mgmt.{k}" for k in mgmt)])
                problems.append(f"switch {sw.name}: base: {', '.join(extra)} not carried by the source of truth "
                                "(only mgmt.address is); set them in the role or defaults of base.yaml")
        devices.append(Device(sw.name, str(sw.role), sw.model, vendors.get(sw.model, "unknown"), sw.platform, fields))
    for node in fabric.nodes.values():
        if node.nic_qos is not None:
            problems.append(f"node {node.name}: nic_qos is not carried by the source of truth")
        fields = {"fabricgen_unit": node.unit} if node.unit is not None else {}
        devices.append(Device(node.name, NODE_ROLE, node.model, vendors.get(node.model, "unknown"), None, fields))
    links = {i: link for i, link in enumerate(inventory.links)} if not inventory.intent else {}
    cables: list[Cable] = []
    for link in fabric.links:
        if link.b is None:
            problems.append(f"link {link.a.device}:{link.a.port}: not landed (no b end); a cable needs two ends")
            continue
        src_link = links.get(link.index)
        cfields = {"fabricgen_speed": src_link.speed} if src_link is not None and src_link.speed else {}
        cables.append(Cable(link.a.device, link.a.port, link.b.device, link.b.port, link.speed,
                            None if link.length_defaulted else link.length_m,
                            src_link.cable if src_link is not None else None, cfields))
    if problems:
        raise SotError(problems)
    return Sot(fabric.name, tuple(devices), tuple(cables))


def _role_rank(role: str) -> int:
    return SWITCH_ROLES.index(role) if role in SWITCH_ROLES else len(SWITCH_ROLES)


def _int_field(where: str, key: str, value: Any, problems: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str) or not re.fullmatch(r"\d{1,10}", str(value)):
        problems.append(f"{where}: custom field {key}: {value!r} is not a whole number")
        return None
    return int(value)


def primary_ip4(raw: Mapping[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with ``fabricgen_mgmt`` taken from the device's primary IPv4 address when the custom field is
    empty (NetBox's nested ``primary_ip4`` and Nautobot's at ``depth=1`` both carry ``address``)."""
    ip = raw.get("primary_ip4")
    if fields.get("fabricgen_mgmt") in (None, "") and isinstance(ip, dict) and isinstance(ip.get("address"), str):
        return {**fields, "fabricgen_mgmt": ip["address"]}
    return fields


def ref_name(obj: Any, attr: str = "name") -> str | None:
    """``obj[attr]`` of a nested object as text, None when absent."""
    return str(obj[attr]) if isinstance(obj, dict) and obj.get(attr) is not None else None


def device_record(raw: Mapping[str, Any], at: str, role: str, manufacturer: str, platform: str | None,
                  problems: list[str]) -> Device | None:
    """The device of one listed record (``at`` names it in messages), or None with a problem added."""
    name, model = ref_name(raw), ref_name(raw.get("device_type"), "model")
    if name is None or model is None:
        problems.append(f"{at}: no name or device type")
        return None
    fields = raw.get("custom_fields") or {}
    if not isinstance(fields, dict):
        problems.append(f"{at}: custom_fields is not a mapping")
        return None
    return Device(name, role, model, manufacturer, platform,
                  primary_ip4(raw, {k: v for k, v in fields.items() if k in DEVICE_FIELDS and v is not None}))


_LENGTH_UNITS = {"m": 1.0, "cm": 0.01, "km": 1000.0}


def cable_record(raw: Mapping[str, Any], at: str, a: tuple[str, str], b: tuple[str, str],
                 problems: list[str]) -> Cable | None:
    """The cable of one listed record between the interfaces ``a`` and ``b`` (device, port), or None with a
    problem added (a length that is not in m, cm or km)."""
    length, unit = raw.get("length"), raw.get("length_unit")
    unit = unit.get("value") if isinstance(unit, dict) else unit
    length_m: float | None = None
    if length is not None:
        if not isinstance(unit, str) or unit not in _LENGTH_UNITS or isinstance(length, bool) \
                or not isinstance(length, int | float):
            problems.append(f"{at}: length {length!r} {unit!r}: not a length in m, cm or km")
            return None
        length_m = round(float(length) * _LENGTH_UNITS[unit], 6)
    fields = raw.get("custom_fields") or {}
    return Cable(a[0], a[1], b[0], b[1], 0, length_m, str(raw["label"]) if raw.get("label") else None,
                 {k: v for k, v in fields.items() if k in CABLE_FIELDS and v is not None}
                 if isinstance(fields, dict) else {})


def to_inventory(sot: Sot, where: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(devices, cabling)``: the ``switches``/``nodes`` and ``links`` sections of an explicit inventory.
    ``where[device name]`` names the device's record for messages (``nautobot: dcim.device leaf1 (id …)``), and
    ``where["device:port"]`` the record of the cable whose first end that is (``netbox: dcim.cable leaf1:… (id …)``)."""
    problems: list[str] = []
    switches: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    nodes: list[dict[str, Any]] = []
    for dev in sot.devices:
        at = where.get(dev.name, dev.name)
        f = dev.fields
        if dev.role == NODE_ROLE:
            node: dict[str, Any] = {"name": dev.name, "model": dev.model}
            unit = _int_field(at, "fabricgen_unit", f.get("fabricgen_unit"), problems)
            if unit is not None:
                node["unit"] = unit
            nodes.append(node)
            continue
        sw: dict[str, Any] = {"name": dev.name, "role": dev.role, "model": dev.model}
        if dev.platform:
            sw["platform"] = dev.platform
        for key in ("id", "unit"):
            value = _int_field(at, f"fabricgen_{key}", f.get(f"fabricgen_{key}"), problems)
            if value is not None:
                sw[key] = value
        rails = f.get("fabricgen_rails")
        if rails not in (None, ""):
            text = str(rails)
            if not re.fullmatch(r"\d{1,2}(,\d{1,2})*", text.replace(" ", "")):
                problems.append(f"{at}: custom field fabricgen_rails: {text!r} is not a list like '0,1'")
            else:
                sw["rails"] = [int(r) for r in text.replace(" ", "").split(",")]
        pod = _int_field(at, "fabricgen_pod", f.get("fabricgen_pod"), problems)
        if pod is not None:
            sw["pod"] = pod
        asn = _int_field(at, "fabricgen_asn", f.get("fabricgen_asn"), problems)
        if asn is not None:
            sw["asn"] = asn
        for key in ("loopback", "release"):
            value = f.get(f"fabricgen_{key}")
            if value not in (None, ""):
                sw[key] = str(value)
        if f.get("fabricgen_mgmt") not in (None, ""):
            sw["base"] = {"mgmt": {"address": str(f["fabricgen_mgmt"])}}
        switches.append(((_role_rank(dev.role), sw.get("id") or 0, natural(dev.name)), sw))
    links: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for cable in sot.cables:
        link: dict[str, Any] = {"a": f"{cable.a_device}:{cable.a_port}", "b": f"{cable.b_device}:{cable.b_port}"}
        at = where.get(link["a"], f"cable {link['a']}")
        speed = _int_field(at, "fabricgen_speed", cable.fields.get("fabricgen_speed"), problems)
        if speed is not None:
            link["speed"] = speed
        if cable.length_m is not None:
            link["length_m"] = int(cable.length_m) if float(cable.length_m).is_integer() else cable.length_m
        if cable.label:
            link["cable"] = cable.label
        links.append(((natural(cable.a_device), natural(cable.a_port)), link))
    if problems:
        raise SotError(problems)
    devices = {"switches": [s for _, s in sorted(switches, key=lambda x: x[0])],
               "nodes": sorted(nodes, key=lambda n: natural(n["name"]))}
    return devices, {"links": [lk for _, lk in sorted(links, key=lambda x: x[0])]}
