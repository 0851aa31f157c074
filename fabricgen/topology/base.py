"""One switch's base configuration: the inventory's three levels of ``base:`` merged (switch > role > defaults).

Fields merge one by one, the most specific level that wrote a field winning; ``mgmt`` (address, gateway),
``users`` (by user name) and ``aaa`` (``tacacs``, ``radius``, ``order``) merge key by key; lists (``ntp``,
``syslog``, ``aaa.tacacs``, ``aaa.radius``, ``aaa.order``) are replaced whole.
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
