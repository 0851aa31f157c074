"""The JSON Schema of one inventory file, for editors (YAML language server) and other validators.

Built from the pydantic models (:class:`fabricgen.inventory.schema.Inventory`) and post-processed:

* **multi-file**: an inventory may be a directory whose files each hold part of it, merged by the loader
  (lists concatenate, mappings merge key by key). So no key is required in a mapping the loader may
  assemble from several files: the top level and every mapping reached from it through mappings only.
  Objects inside lists (a switch, a link) come whole from one file and keep their required keys.
* **platforms**: every ``platform`` value and the keys of ``qos.platforms`` are one of
  :data:`fabricgen.inventory.catalog.PLATFORMS`.
* **model names**: a reference to a switch, server or NIC model is one of the shipped catalog's names
  (an ``enum`` editors complete) or any other valid name, which the inventory's own ``catalog:`` section
  must define (JSON Schema cannot look at the file's other keys; ``fabricgen validate`` checks it).
* **speed-keyed mappings** (``ecn_by_speed``, headroom tables) take speeds such as ``800G`` as keys.
* ``additionalProperties: false`` on every object whose model forbids extra keys (all of them), and on
  mappings whose keys are patterns.
"""

from __future__ import annotations

import copy
from typing import Any

from fabricgen.inventory.catalog import PLATFORMS, shipped
from fabricgen.inventory.schema import Inventory
from fabricgen.inventory.units import SPEED_PATTERN

DRAFT = "https://json-schema.org/draft/2020-12/schema"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"

# (definition, property) → which catalog section the value names
_MODEL_REFS: dict[tuple[str, str], str] = {
    ("Switch", "model"): "switches",
    ("TierIntent", "model"): "switches",
    ("LeafIntent", "model"): "switches",
    ("Node", "model"): "servers",
    ("RailOptimized", "server"): "servers",
    ("ServerModel", "backend_nic"): "nics",
}
_PLATFORM_REFS = (("Switch", "platform"), ("TierIntent", "platform"), ("LeafIntent", "platform"))
_SPEED_KEYED = (("QosPolicy", "ecn_by_speed"), ("QosOverride", "ecn_by_speed"), ("HeadroomTableSpec", "xoff_bytes"))


def _prop(defs: dict[str, Any], definition: str, prop: str) -> dict[str, Any]:
    """The schema of ``definition.prop``; KeyError when the models changed under this module."""
    value: dict[str, Any] = defs[definition]["properties"][prop]
    return value


def _keep_doc(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    for key in ("title", "description", "default"):
        if key in old:
            new.setdefault(key, old[key])
    return new


def _model_ref(section: str, names: list[str], nullable: bool) -> dict[str, Any]:
    one: dict[str, Any] = {
        "anyOf": [
            {"enum": names},
            {"type": "string", "minLength": 1, "maxLength": 64, "pattern": NAME_PATTERN},
        ]
    }
    if nullable:
        one = {"anyOf": [one, {"type": "null"}]}
    one["description"] = (
        f"a {section[:-1]} model: one of the shipped catalog's, or one defined under catalog.{section}"
    )
    return one


def _forbid_extras(node: Any) -> None:
    """``additionalProperties: false`` on pattern-keyed mappings (pydantic leaves them open)."""
    if isinstance(node, dict):
        if "patternProperties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _forbid_extras(value)
    elif isinstance(node, list):
        for value in node:
            _forbid_extras(value)


def _mapping_defs(node: Any, defs: dict[str, Any], seen: set[str]) -> None:
    """Names of the definitions reachable from ``node`` through mappings only (never through ``items``)."""
    if isinstance(node, list):
        for value in node:
            _mapping_defs(value, defs, seen)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name not in seen:
            seen.add(name)
            _mapping_defs(defs[name], defs, seen)
    for key in ("properties", "patternProperties"):
        for value in node.get(key, {}).values():
            _mapping_defs(value, defs, seen)
    for key in ("additionalProperties", "anyOf", "oneOf", "allOf"):
        if key in node:
            _mapping_defs(node[key], defs, seen)


def inventory_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one file of an inventory."""
    schema: dict[str, Any] = copy.deepcopy(Inventory.model_json_schema())
    defs: dict[str, Any] = schema["$defs"]
    catalog = shipped()
    names = {
        "switches": sorted(catalog.switches),
        "servers": sorted(catalog.servers),
        "nics": sorted(catalog.nics),
    }
    platforms = list(PLATFORMS)
    for (definition, prop), section in _MODEL_REFS.items():
        old = _prop(defs, definition, prop)
        nullable = any(alt.get("type") == "null" for alt in old.get("anyOf", []))
        defs[definition]["properties"][prop] = _keep_doc(old, _model_ref(section, names[section], nullable))
    for definition, prop in _PLATFORM_REFS:
        old = _prop(defs, definition, prop)
        defs[definition]["properties"][prop] = _keep_doc(
            old, {"anyOf": [{"enum": platforms}, {"type": "null"}]}
        )
    old = _prop(defs, "SwitchModel", "platform")
    defs["SwitchModel"]["properties"]["platform"] = _keep_doc(old, {"enum": platforms})
    _prop(defs, "QosPolicy", "platforms")["propertyNames"] = {"enum": platforms}
    for definition, prop in _SPEED_KEYED:
        _prop(defs, definition, prop)["propertyNames"] = {"pattern": SPEED_PATTERN}
    _forbid_extras(schema)

    merged: set[str] = set()
    _mapping_defs({"properties": schema["properties"]}, defs, merged)
    schema.pop("required", None)
    for name in merged:
        defs[name].pop("required", None)

    return {
        "$schema": DRAFT,
        "title": "fabricgen inventory file",
        "description": (
            "One YAML file of a fabricgen inventory (an inventory may be a directory of files that the loader "
            "merges, so no top-level key is required here). `fabricgen validate` checks the whole inventory."
        ),
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }
