"""One switch's base configuration: the inventory's three levels of ``base:`` merged (switch > role > defaults).

Fields merge one by one, the most specific level that wrote a field winning; ``mgmt`` (address, gateway),
``users`` (by user name) and ``aaa`` (``tacacs``, ``radius``, ``order``, ``authorization``, ``accounting``) merge
key by key; lists (``ntp``, ``syslog``, ``aaa.tacacs``, ``aaa.radius``, ``aaa.order``, ``aaa.accounting``) and
``aaa.authorization`` are replaced whole.

``raw`` blocks do not replace each other: per platform, the defaults' block, then the role's, then the
switch's are all kept, in that order (:func:`raw_blocks`); a text platform's blocks are concatenated, a
structured one's (NVUE, SONiC) merged key by key, the later level winning on the same leaf.
"""

from __future__ import annotations

from typing import Any

from fabricgen.inventory.schema import Base
from fabricgen.topology.model import Fabric


def _merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    out = dict(low)
    for key, value in high.items():
        if key in ("mgmt", "users", "aaa") and isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = {**out[key], **value}
        elif key == "raw" and isinstance(out.get(key), dict) and isinstance(value, dict):
            raw = dict(out[key])
            for plat, text in value.items():
                raw[plat] = f"{raw[plat].rstrip(chr(10))}\n{text}" if plat in raw else text
            out[key] = raw
        else:
            out[key] = value
    return out


def merged_base(fabric: Fabric, name: str) -> Base:
    """Switch ``name``'s base: its own ``base:`` over its role's over ``base.defaults``.

    Merging works on what each level wrote (unset fields are not written, so they inherit).
    """
    sw = fabric.switches[name]
    levels = [fabric.base.defaults, fabric.base.roles.get(sw.role), fabric.base_overrides.get(name)]
    merged: dict[str, Any] = {}
    for level in levels:
        if level is not None:
            merged = _merge(merged, level.model_dump(exclude_none=True, exclude_unset=True, mode="json"))
    return Base.model_validate(merged, strict=False)


def raw_levels(fabric: Fabric, name: str, platform: str) -> tuple[tuple[str, str], ...]:
    """Switch ``name``'s raw blocks for ``platform`` with the level that wrote each (``base.defaults``,
    ``base.roles.<role>``, ``switches[<name>].base``), in merge order; unset levels left out."""
    sw = fabric.switches[name]
    levels = [("base.defaults", fabric.base.defaults), (f"base.roles.{sw.role.value}", fabric.base.roles.get(sw.role)),
              (f"switches[{name}].base", fabric.base_overrides.get(name))]
    return tuple((label, level.raw[platform]) for label, level in levels
                 if level is not None and level.raw is not None and platform in level.raw)


def raw_blocks(fabric: Fabric, name: str, platform: str) -> tuple[str, ...]:
    """Switch ``name``'s raw blocks for ``platform``, in merge order: defaults, role, switch (unset levels left
    out). Each was checked on its own by :func:`fabricgen.inventory.raw.check_raw` when the inventory was
    resolved."""
    return tuple(block for _, block in raw_levels(fabric, name, platform))
