"""NetBox 4.x list responses for the objects `fabricgen export netbox` lists, in NetBox's REST shape
(documented OpenAPI schema of NetBox 4: ``PaginatedDeviceWithConfigContextList``, ``PaginatedCableList``):
nested brief objects ``{id, url, display, name, slug}``, ``status``/``length_unit`` as ``{value, label}``,
cable ends as ``a_terminations``/``b_terminations`` lists of ``{object_type, object_id, object}``.

``python tests/netbox_recorded.py`` rewrites tests/data/netbox/{devices,cables}.json from inventories/lab; the
test checks that the committed files are what this builds, then serves them (paginated) to the real importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fabricgen.ecosystem.nautobot import Ref
from fabricgen.ecosystem.netbox import plan
from fabricgen.ecosystem.sot import from_fabric
from fabricgen.inventory.load import load_inventory
from fabricgen.topology.resolve import resolve

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "netbox"
API = "http://netbox.example.com/api"


def brief(endpoint: str, oid: int, display: str, **extra: Any) -> dict[str, Any]:
    return {"id": oid, "url": f"{API}/{endpoint}{oid}/", "display": display, **extra}


def build(inventory: Path = ROOT / "inventories" / "lab") -> dict[str, list[dict[str, Any]]]:
    """``{"devices": [...], "cables": [...]}``: what NetBox lists after the plan's objects were created."""
    loaded = load_inventory(inventory)
    ops = plan(from_fabric(resolve(loaded), loaded.inventory))
    ids: dict[str, int] = {}
    objs: dict[str, dict[str, Any]] = {}
    counters: dict[str, int] = {}
    devices: list[dict[str, Any]] = []
    cables: list[dict[str, Any]] = []
    for op in ops:
        counters[op.endpoint] = counters.get(op.endpoint, 0) + 1
        oid = ids[op.key] = counters[op.endpoint]
        body = op.body

        def ref(value: Any) -> dict[str, Any]:
            assert isinstance(value, Ref)
            return objs[value.key]

        if op.endpoint == "dcim/manufacturers/":
            objs[op.key] = brief(op.endpoint, oid, body["name"], name=body["name"], slug=body["slug"],
                                 description="")
        elif op.endpoint == "dcim/device-types/":
            objs[op.key] = brief(op.endpoint, oid, body["model"], manufacturer=ref(body["manufacturer"]),
                                 model=body["model"], slug=body["slug"], description="")
        elif op.endpoint in ("dcim/platforms/", "dcim/device-roles/", "dcim/sites/"):
            objs[op.key] = brief(op.endpoint, oid, body["name"], name=body["name"], slug=body["slug"],
                                 description="")
        elif op.endpoint == "dcim/devices/":
            objs[op.key] = brief(op.endpoint, oid, body["name"], name=body["name"], description="")
            fields = {k: None for k in ("fabricgen_id", "fabricgen_unit", "fabricgen_rails", "fabricgen_pod",
                                        "fabricgen_asn", "fabricgen_loopback", "fabricgen_release", "fabricgen_mgmt")}
            devices.append({
                **brief(op.endpoint, oid, body["name"]), "name": body["name"],
                "device_type": ref(body["device_type"]), "role": ref(body["role"]),
                "tenant": None, "platform": ref(body["platform"]) if "platform" in body else None,
                "serial": "", "asset_tag": None, "site": ref(body["site"]), "location": None, "rack": None,
                "position": None, "face": None, "status": {"value": "active", "label": "Active"},
                "primary_ip": None, "primary_ip4": None, "primary_ip6": None, "config_template": None,
                "config_context": {}, "comments": "", "tags": [],
                "custom_fields": {**fields, **body["custom_fields"]},
                "created": "2026-12-01T00:00:00.000000Z", "last_updated": "2026-12-01T00:00:00.000000Z",
                "interface_count": 0,
            })
        elif op.endpoint == "dcim/interfaces/":
            objs[op.key] = brief(op.endpoint, oid, body["name"], device=objs[body["device"].key],
                                 name=body["name"], description="", cable=None, _occupied=False)
        elif op.endpoint == "dcim/cables/":
            ends = {}
            for side in ("a", "b"):
                term = body[f"{side}_terminations"][0]
                iface = objs[term["object_id"].key]
                iface["cable"], iface["_occupied"] = oid, True
                ends[side] = [{"object_type": "dcim.interface", "object_id": iface["id"], "object": iface}]
            cables.append({
                **brief(op.endpoint, oid, f"#{oid}"), "type": "", "a_terminations": ends["a"],
                "b_terminations": ends["b"], "status": {"value": "connected", "label": "Connected"}, "tenant": None,
                "label": body.get("label", ""), "color": "", "length": body.get("length"),
                "length_unit": {"value": "m", "label": "Meters"} if "length" in body else None,
                "description": "", "comments": "", "tags": [],
                "custom_fields": {"fabricgen_speed": None, **body["custom_fields"]},
                "created": "2026-12-01T00:00:00.000000Z", "last_updated": "2026-12-01T00:00:00.000000Z",
            })
    return {"devices": devices, "cables": cables}


def dumps(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


if __name__ == "__main__":
    for name, items in build().items():
        (DATA / f"{name}.json").write_text(dumps(items))
