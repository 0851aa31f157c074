"""NetBox 4.x: the objects that would seed it from a fabric (:func:`plan`, listed by ``export netbox --dry-run``)
and the fabric read back from it (:func:`read`). The mapping is documented in :mod:`fabricgen.ecosystem.sot`.

Shapes, from NetBox's REST API: lists are paginated ``{"count", "next", "previous", "results"}``; related
objects are nested brief objects (``{"id", "url", "display", "name", "slug"}``); a cable's ends are
``a_terminations``/``b_terminations`` lists of ``{"object_type": "dcim.interface", "object_id", "object"}``
whose ``object`` carries the interface ``name`` and its brief ``device``; ``length`` is a number and
``length_unit`` a ``{"value", "label"}`` choice.
"""

from __future__ import annotations

from typing import Any

from fabricgen.ecosystem.nautobot import Op, Ref
from fabricgen.ecosystem.rest import Client
from fabricgen.ecosystem.sot import (
    CABLE_FIELDS,
    DEVICE_FIELDS,
    INTERFACE_TYPES,
    NODE_ROLE,
    SWITCH_ROLES,
    Cable,
    Device,
    Sot,
    SotError,
    cable_record,
    device_record,
    length_fields,
    ref_name,
)

ROLE_COLORS = {"core": "9c27b0", "spine": "2196f3", "leaf": "4caf50", NODE_ROLE: "ff9800"}


def slug(name: str) -> str:
    return name.lower().replace(".", "-").replace("_", "-")


def plan(sot: Sot) -> list[Op]:
    """Every object, in dependency order, one per line of a dry run."""
    ops: list[Op] = []
    for key, kind in [*DEVICE_FIELDS.items(), *CABLE_FIELDS.items()]:
        otype = "dcim.cable" if key in CABLE_FIELDS else "dcim.device"
        ops.append(Op(f"extras.customfield {key}", "extras/custom-fields/", {"name": key},
                      {"name": key, "type": kind, "object_types": [otype]}))
    ops.append(Op(f"dcim.site {sot.fabric}", "dcim/sites/", {"slug": slug(sot.fabric)},
                  {"name": sot.fabric, "slug": slug(sot.fabric), "status": "active"}))
    for name in sorted({d.manufacturer for d in sot.devices}):
        ops.append(Op(f"dcim.manufacturer {name}", "dcim/manufacturers/", {"slug": slug(name)},
                      {"name": name, "slug": slug(name)}))
    for model, vendor in sorted({(d.model, d.manufacturer) for d in sot.devices}):
        ops.append(Op(f"dcim.devicetype {model}", "dcim/device-types/", {"slug": slug(model)},
                      {"model": model, "slug": slug(model), "manufacturer": Ref(f"dcim.manufacturer {vendor}")}))
    for platform in sorted({d.platform for d in sot.devices if d.platform}):
        ops.append(Op(f"dcim.platform {platform}", "dcim/platforms/", {"slug": platform},
                      {"name": platform, "slug": platform}))
    for role in [*SWITCH_ROLES, NODE_ROLE]:
        if any(d.role == role for d in sot.devices):
            ops.append(Op(f"dcim.devicerole {role}", "dcim/device-roles/", {"slug": role},
                          {"name": role, "slug": role, "color": ROLE_COLORS[role]}))
    for dev in sot.devices:
        body: dict[str, Any] = {"name": dev.name, "device_type": Ref(f"dcim.devicetype {dev.model}"),
                                "role": Ref(f"dcim.devicerole {dev.role}"), "site": Ref(f"dcim.site {sot.fabric}"),
                                "status": "active", "custom_fields": dict(dev.fields)}
        if dev.platform:
            body["platform"] = Ref(f"dcim.platform {dev.platform}")
        ops.append(Op(f"dcim.device {dev.name}", "dcim/devices/", {"name": dev.name}, body))
    for cable in sot.cables:
        for dev_name, port in ((cable.a_device, cable.a_port), (cable.b_device, cable.b_port)):
            ops.append(Op(f"dcim.interface {dev_name}:{port}", "dcim/interfaces/",
                          {"device_id": Ref(f"dcim.device {dev_name}"), "name": port},
                          {"device": Ref(f"dcim.device {dev_name}"), "name": port,
                           "type": INTERFACE_TYPES.get(cable.speed, "other")}))
        a, b = f"dcim.interface {cable.a_device}:{cable.a_port}", f"dcim.interface {cable.b_device}:{cable.b_port}"
        body = {"a_terminations": [{"object_type": "dcim.interface", "object_id": Ref(a)}],
                "b_terminations": [{"object_type": "dcim.interface", "object_id": Ref(b)}],
                "status": "connected", "custom_fields": dict(cable.fields)}
        if cable.length_m is not None:
            body["length"], body["length_unit"] = cable.length_m, "m"
            length_fields(cable.length_m)  # the same centimetre precision as Nautobot
        if cable.label:
            body["label"] = cable.label
        ops.append(Op(f"dcim.cable {cable.a_device}:{cable.a_port} -- {cable.b_device}:{cable.b_port}",
                      "dcim/cables/", {"id": Ref(a)}, body, exists_when="cable"))
    return ops


def _end(terms: Any) -> tuple[str, str] | None:
    """``(device, interface)`` of a cable end that is exactly one interface, else ``None``."""
    if not isinstance(terms, list) or len(terms) != 1 or not isinstance(terms[0], dict):
        return None
    term = terms[0]
    obj = term.get("object")
    if term.get("object_type") != "dcim.interface" or not isinstance(obj, dict):
        return None
    dev, port = ref_name(obj.get("device")), ref_name(obj)
    return (dev, port) if dev is not None and port is not None else None


def read(client: Client, site: str) -> tuple[Sot, dict[str, str]]:
    """The fabric of ``site``: its devices of fabricgen's roles and the cables between them."""
    roles = {*SWITCH_ROLES, NODE_ROLE}
    problems: list[str] = []
    devices: list[Device] = []
    where: dict[str, str] = {}
    for raw in client.list("dcim/devices/", {"site": slug(site)}):
        role = ref_name(raw.get("role"), "slug")
        if role not in roles:
            continue
        at = f"netbox: dcim.device {ref_name(raw)} (id {raw.get('id')})"
        dtype = raw.get("device_type")
        vendor = ref_name(dtype.get("manufacturer")) if isinstance(dtype, dict) else None
        device = device_record(raw, at, role, vendor or "", ref_name(raw.get("platform"), "slug"), problems)
        if device is not None:
            where[device.name] = at
            devices.append(device)
    names = {d.name for d in devices}
    cables: list[Cable] = []
    for raw in client.list("dcim/cables/", {"site": slug(site)}):
        a, b = _end(raw.get("a_terminations")), _end(raw.get("b_terminations"))
        if a is None or b is None or a[0] not in names or b[0] not in names:
            continue
        at = f"netbox: dcim.cable {a[0]}:{a[1]} (id {raw.get('id')})"
        cable = cable_record(raw, at, a, b, problems)
        if cable is not None:
            where[f"{a[0]}:{a[1]}"] = at  # device names have no ':'
            cables.append(cable)
    if problems:
        raise SotError(problems)
    return Sot(site, tuple(devices), tuple(cables)), where
