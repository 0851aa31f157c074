"""SONiC's PORT and BREAKOUT_CFG tables from the platform's own facts (:mod:`fabricgen.inventory.sonic_platform`).

Every parent port of the SKU is written, as SONiC's own config generation writes them (sonic-buildimage
``portconfig.py``: ``parse_platform_json_file`` for PORT, ``parse_breakout_mode`` for BREAKOUT_CFG):

- a cage the fabric uses runs the ``platform.json`` mode of its breakout and speed; its cabled ports are
  ``admin_status: up`` with the fabric's speed, MTU and description, a sub-port left without a cable is down;
- every other cage, and every port beyond the front panel, stays in the SKU's ``default_brkout_mode`` with the port
  attributes its ``hwsku.json`` sets (``autoneg``, ``role``, ``fec``), ``admin_status: down``: a ``config replace``
  keeps the box's whole port table, and nothing unplanned comes up.

BREAKOUT_CFG names each parent's mode with its exact string: the platform's for a used cage (what ``config interface
breakout`` accepts), the SKU's for the others (what SONiC writes at first boot).
"""

from __future__ import annotations

from typing import Any

from fabricgen.inventory.sonic_platform import PortRow, SonicPlatform, port_rows
from fabricgen.render.data import DeviceData, Interface


def _row(r: PortRow, mtu: int, admin: str, extra: dict[str, str]) -> dict[str, str]:
    row = {
        "admin_status": admin,
        "alias": r.alias,
        "index": str(r.index),
        "lanes": ",".join(str(lane) for lane in r.lanes),
        "mtu": str(mtu),
        "speed": str(r.speed * 1000),
        "subport": str(r.subport),
    }
    if r.fec is not None:
        row["fec"] = r.fec
    row.update(extra)
    return row


def _cabled(r: PortRow, i: Interface) -> dict[str, str]:
    row = _row(r, i.mtu, "up", {})
    row["description"] = i.description
    return row


def layout(d: DeviceData, facts: SonicPlatform) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """The PORT and BREAKOUT_CFG tables of a SONiC switch whose model fabricgen holds platform facts for.

    A used cage without a platform mode for its breakout (check FG-PORT-004 reports it) keeps the ports fabricgen
    derived without the facts, so the rest of the file still renders for review."""
    sku = facts.skus[d.hwsku]
    cabled = {i.name: i for i in d.interfaces}
    ports: dict[str, dict[str, str]] = {}
    breakout: dict[str, dict[str, str]] = {}
    used = {c.cage: c for c in d.cages}
    for parent in facts.parents:
        cage = used.get(parent.index)
        if cage is not None:
            mode = facts.mode_for(parent.index, cage.breakout, cage.speed)
            if mode is None:
                for i in d.interfaces:
                    if i.cage == parent.index:
                        ports[i.name] = _generic(i)
                continue
            for r in port_rows(parent, mode, cage.speed):
                port = cabled.get(r.name)
                ports[r.name] = _cabled(r, port) if port is not None else _row(r, d.mtu, "down", {})
            breakout[parent.name] = {"brkout_mode": mode.text}
        elif parent.index in sku.layout:
            mode = sku.layout[parent.index]
            attrs = sku.attributes.get(parent.index, {})
            for r in port_rows(parent, mode):
                ports[r.name] = _row(r, d.mtu, "down", attrs)
            breakout[parent.name] = {"brkout_mode": mode.text}
    for i in d.interfaces:  # beyond the front panel (FG-PORT-001 reports it): kept for review, never dropped
        ports.setdefault(i.name, _generic(i))
    return ports, breakout


def _generic(i: Interface) -> dict[str, str]:
    """A port laid out without platform facts: lanes by position, ``rs`` FEC."""
    return {
        "admin_status": "up",
        "alias": i.alias,
        "description": i.description,
        "fec": "rs",
        "index": str(i.cage),
        "lanes": i.sonic_lanes,
        "mtu": str(i.mtu),
        "speed": str(i.speed_mbps),
    }


def generic_ports(d: DeviceData) -> dict[str, dict[str, Any]]:
    """The PORT table of a model without platform facts: the cabled ports only."""
    return {i.name: _generic(i) for i in d.interfaces}
