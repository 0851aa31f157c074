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
    length_fields,
    primary_ip4,
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


def _name(obj: Any, attr: str = "name") -> str | None:
    return str(obj[attr]) if isinstance(obj, dict) and obj.get(attr) is not None else None


def _end(terms: Any) -> tuple[str, str] | None:
    """``(device, interface)`` of a cable end that is exactly one interface, else ``None``."""
    if not isinstance(terms, list) or len(terms) != 1 or not isinstance(terms[0], dict):
        return None
    term = terms[0]
    obj = term.get("object")
    if term.get("object_type") != "dcim.interface" or not isinstance(obj, dict):
        return None
    dev, port = _name(obj.get("device")), _name(obj)
    return (dev, port) if dev is not None and port is not None else None


def read(client: Client, site: str) -> tuple[Sot, dict[str, str]]:
    """The fabric of ``site``: its devices of fabricgen's roles and the cables between them."""
    roles = {*SWITCH_ROLES, NODE_ROLE}
    problems: list[str] = []
    devices: list[Device] = []
    where: dict[str, str] = {}
    for raw in client.list("dcim/devices/", {"site": slug(site)}):
        role = _name(raw.get("role"), "slug")
        if role not in roles:
            continue
        name = _name(raw)
        at = f"netbox: dcim.device {name} (id {raw.get('id')})"
        model = _name(raw.get("device_type"), "model")
        if name is None or model is None:
            problems.append(f"{at}: no name or device type")
            continue
        fields = raw.get("custom_fields") or {}
        if not isinstance(fields, dict):
            problems.append(f"{at}: custom_fields is not a mapping")
            continue
        where[name] = at
        devices.append(Device(name, role, model, _name(raw["device_type"].get("manufacturer")) or "",
                              _name(raw.get("platform"), "slug"),
                              primary_ip4(raw, {k: v for k, v in fields.items()
                                                if k in DEVICE_FIELDS and v is not None})))
    names = {d.name for d in devices}
    cables: list[Cable] = []
    for raw in client.list("dcim/cables/", {"site": slug(site)}):
        a, b = _end(raw.get("a_terminations")), _end(raw.get("b_terminations"))
        if a is None or b is None or a[0] not in names or b[0] not in names:
            continue
        at = f"netbox: dcim.cable {a[0]}:{a[1]} (id {raw.get('id')})"
        length, unit = raw.get("length"), raw.get("length_unit")
        unit = unit.get("value") if isinstance(unit, dict) else unit
        scale = {"m": 1.0, "cm": 0.01, "km": 1000.0}
        length_m: float | None = None
        if length is not None:
            if unit not in scale or isinstance(length, bool) or not isinstance(length, int | float):
                problems.append(f"{at}: length {length!r} {unit!r}: not a length in m, cm or km")
                continue
            length_m = round(float(length) * scale[unit], 6)
        fields = raw.get("custom_fields") or {}
        cables.append(Cable(a[0], a[1], b[0], b[1], 0, length_m, str(raw["label"]) if raw.get("label") else None,
                            {k: v for k, v in fields.items() if k in CABLE_FIELDS and v is not None}))
    if problems:
        raise SotError(problems)
    return Sot(site, tuple(devices), tuple(cables)), where
