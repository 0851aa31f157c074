"""Nautobot 3.x: the objects that seed it from a fabric (:func:`plan`, :func:`push`) and the fabric read back
from it (:func:`read`). The mapping is documented in :mod:`fabricgen.ecosystem.sot`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabricgen.ecosystem.rest import Client, RestError
from fabricgen.ecosystem.sot import (
    CABLE_FIELDS,
    DEVICE_FIELDS,
    INTERFACE_TYPES,
    LOCATION_TYPE,
    NETWORK_DRIVERS,
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


@dataclass(frozen=True, slots=True)
class Ref:
    """The id of another object of the plan (or one already on the server), found by ``key``."""

    key: str


@dataclass(frozen=True, slots=True)
class Op:
    """One object to create unless it exists: ``find`` are the list filters that find it."""

    key: str  # "dcim.device leaf1": unique in a plan, the name a Ref uses
    endpoint: str
    find: dict[str, Any]
    body: dict[str, Any]
    exists_when: str | None = field(default=None)  # a field of the found object that must be set (cables)

    def line(self) -> str:
        return f"{'create' if self.body else 'use'} {self.key}"


def _status() -> Ref:
    return Ref("extras.status Active")


def plan(sot: Sot) -> list[Op]:
    """Every object, in dependency order (referenced objects first), one per line of a dry run."""
    ops: list[Op] = []
    ops.append(Op("extras.status Active", "extras/statuses/", {"name": "Active"}, {}))
    ops.append(Op("extras.status Connected", "extras/statuses/", {"name": "Connected"}, {}))  # cables' status
    for key, kind in [*((k, v) for k, v in DEVICE_FIELDS.items()), *((k, v) for k, v in CABLE_FIELDS.items())]:
        ctype = "dcim.cable" if key in CABLE_FIELDS else "dcim.device"
        ops.append(Op(f"extras.customfield {key}", "extras/custom-fields/", {"label": key},
                      {"key": key, "label": key, "type": kind, "content_types": [ctype]}))
    ops.append(Op(f"dcim.locationtype {LOCATION_TYPE}", "dcim/location-types/", {"name": LOCATION_TYPE},
                  {"name": LOCATION_TYPE, "content_types": ["dcim.device"]}))
    ops.append(Op(f"dcim.location {sot.fabric}", "dcim/locations/", {"name": sot.fabric},
                  {"name": sot.fabric, "location_type": Ref(f"dcim.locationtype {LOCATION_TYPE}"),
                   "status": _status()}))
    for name in sorted({d.manufacturer for d in sot.devices}):
        ops.append(Op(f"dcim.manufacturer {name}", "dcim/manufacturers/", {"name": name}, {"name": name}))
    for model, vendor in sorted({(d.model, d.manufacturer) for d in sot.devices}):
        ops.append(Op(f"dcim.devicetype {model}", "dcim/device-types/", {"model": model},
                      {"model": model, "manufacturer": Ref(f"dcim.manufacturer {vendor}")}))
    for platform in sorted({d.platform for d in sot.devices if d.platform}):
        ops.append(Op(f"dcim.platform {platform}", "dcim/platforms/", {"name": platform},
                      {"name": platform, "network_driver": NETWORK_DRIVERS.get(platform, platform)}))
    for role in [*SWITCH_ROLES, NODE_ROLE]:
        if any(d.role == role for d in sot.devices):
            ops.append(Op(f"extras.role {role}", "extras/roles/", {"name": role},
                          {"name": role, "content_types": ["dcim.device"]}))
    for dev in sot.devices:
        body: dict[str, Any] = {
            "name": dev.name, "device_type": Ref(f"dcim.devicetype {dev.model}"),
            "role": Ref(f"extras.role {dev.role}"),
            "status": _status(), "location": Ref(f"dcim.location {sot.fabric}"), "custom_fields": dict(dev.fields),
        }
        if dev.platform:
            body["platform"] = Ref(f"dcim.platform {dev.platform}")
        ops.append(Op(f"dcim.device {dev.name}", "dcim/devices/", {"name": dev.name}, body))
    for cable in sot.cables:
        for dev_name, port in ((cable.a_device, cable.a_port), (cable.b_device, cable.b_port)):
            ops.append(Op(f"dcim.interface {dev_name}:{port}", "dcim/interfaces/",
                          {"device": Ref(f"dcim.device {dev_name}"), "name": port},
                          {"device": Ref(f"dcim.device {dev_name}"), "name": port,
                           "type": INTERFACE_TYPES.get(cable.speed, "other"), "status": _status()}))
        a, b = f"dcim.interface {cable.a_device}:{cable.a_port}", f"dcim.interface {cable.b_device}:{cable.b_port}"
        body = {"termination_a_type": "dcim.interface", "termination_a_id": Ref(a),
                "termination_b_type": "dcim.interface", "termination_b_id": Ref(b),
                "status": Ref("extras.status Connected"),
                "custom_fields": dict(cable.fields)}
        if cable.length_m is not None:
            body["length"], body["length_unit"] = length_fields(cable.length_m)
        if cable.label:
            body["label"] = cable.label
        ops.append(Op(f"dcim.cable {cable.a_device}:{cable.a_port} -- {cable.b_device}:{cable.b_port}",
                      "dcim/cables/", {"id": Ref(a)}, body, exists_when="cable"))
    return ops


def _resolve(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, Ref):
        return ids[value.key]
    if isinstance(value, dict):
        return {k: _resolve(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, ids) for v in value]
    return value


def push(client: Client, ops: list[Op]) -> list[str]:
    """Create what is missing, in order; ``["created …", "exists …"]`` one per object. Idempotent: a second
    run finds everything and creates nothing."""
    ids: dict[str, str] = {}
    done: list[str] = []
    for op in ops:
        endpoint = "dcim/interfaces/" if op.exists_when else op.endpoint
        found = client.list(endpoint, _resolve(op.find, ids))
        if op.exists_when:
            found = [f for f in found if f.get(op.exists_when)]
        if len(found) > 1:
            raise RestError(f"{op.key}: {len(found)} objects match {op.find}")
        if found:
            ids[op.key] = str(found[0]["id"])
            done.append(f"exists {op.key}")
            continue
        if not op.body:
            raise RestError(f"{op.key}: not found on the server")
        ids[op.key] = str(client.create(op.endpoint, _resolve(op.body, ids))["id"])
        done.append(f"created {op.key}")
    return done


def read(client: Client, location: str) -> tuple[Sot, dict[str, str]]:
    """The fabric stored at ``location``: its devices of fabricgen's roles and the cables between them."""
    roles = {*SWITCH_ROLES, NODE_ROLE}
    problems: list[str] = []
    devices: list[Device] = []
    where: dict[str, str] = {}
    by_id: dict[str, str] = {}
    for raw in client.list("dcim/devices/", {"location": location, "depth": 1}):
        role = ref_name(raw.get("role"))
        if role not in roles:
            continue
        at = f"nautobot: dcim.device {ref_name(raw)} (id {raw.get('id')})"
        device = device_record(raw, at, role, "", ref_name(raw.get("platform")), problems)
        if device is not None:
            where[device.name], by_id[str(raw.get("id"))] = at, device.name
            devices.append(device)
    ifaces: dict[str, tuple[str, str]] = {}
    for raw in client.list("dcim/interfaces/", {"location": location}):
        dev = raw.get("device")
        dev_id = str(dev.get("id")) if isinstance(dev, dict) else str(dev)
        if dev_id in by_id and raw.get("name") is not None:
            ifaces[str(raw.get("id"))] = (by_id[dev_id], str(raw["name"]))
    cables: list[Cable] = []
    for raw in client.list("dcim/cables/", {"location": location}):
        ends = [ifaces.get(str(raw.get(f"termination_{s}_id"))) for s in "ab"]
        if ends[0] is None or ends[1] is None:
            continue  # not between two fabric devices
        at = f"nautobot: dcim.cable {ends[0][0]}:{ends[0][1]} (id {raw.get('id')})"
        cable = cable_record(raw, at, ends[0], ends[1], problems)
        if cable is not None:
            where[f"{ends[0][0]}:{ends[0][1]}"] = at  # device names have no ':'
            cables.append(cable)
    if problems:
        raise SotError(problems)
    return Sot(location, tuple(devices), tuple(cables)), where
