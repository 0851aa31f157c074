"""Render an inventory for another platform: every switch's platform replaced, port names translated.

Port names are platform-specific (``Ethernet16`` on SONiC is ``swp3`` on Cumulus and ``Ethernet1/3`` on
NX-OS), so switching a device's platform also renames the ports its cables land on: each port keeps its
cage and breakout position (resolved once under the original names) and takes the new platform's name
for that position. Used by ``fabricgen render --platform`` and the benchmarks.

A model whose catalog ``nos`` does not list the new platform is an input error in an inventory; retargeting
renders it anyway, as an explicit what-if: the retargeted inventory's own ``catalog:`` redefines each such
model with the platform added to its ``nos``, and :func:`retarget_what_if` names those models so the CLI
can say so.
"""

from __future__ import annotations

import dataclasses

from fabricgen.inventory.catalog import ADAPTIVE_ROUTING_PLATFORMS
from fabricgen.inventory.load import LoadedInventory
from fabricgen.topology.portnames import port_name
from fabricgen.topology.resolve import resolve


def retarget(loaded: LoadedInventory, platform: str) -> LoadedInventory:
    """``loaded`` with every switch on ``platform`` (explicit switches, intent tiers and cable ends). Releases
    written on a switch or tier belonged to the old platform and are dropped: ``fabric.releases`` (or the new
    platform's default) applies. So is ``adaptive_routing`` (switches, tiers and the fabric's) when ``platform``
    does not render it: the new platform would refuse it as an input error. Models that do not run ``platform``
    are rendered as if they did."""
    return retarget_what_if(loaded, platform)[0]


def retarget_what_if(loaded: LoadedInventory, platform: str) -> tuple[LoadedInventory, tuple[str, ...]]:
    """:func:`retarget`, and the models of the fabric that do not run ``platform`` (sorted): those the
    retargeted inventory's catalog lets run it as a what-if."""
    fabric = resolve(loaded)
    used = sorted({sw.model for sw in fabric.switches.values()})
    what_if = tuple(m for m in used if not fabric.catalog.switches[m].pairs_with(platform))
    lanes = {name: fabric.catalog.switches[sw.model].lanes for name, sw in fabric.switches.items()}
    rename = {
        (p.device, p.name): port_name(platform, p.cage, p.sub, p.breakout, lanes[p.device])
        for sw in fabric.switches.values()
        for p in sw.ports
    }

    def end(endpoint: str) -> str:
        device, port = endpoint.split(":", 1)
        return f"{device}:{rename.get((device, port), port)}"

    inv = loaded.inventory
    models = fabric.catalog.switches
    catalog = inv.catalog.model_copy(update={"switches": {
        **inv.catalog.switches,
        **{m: models[m].model_copy(update={"nos": [*models[m].runs(), platform]}) for m in what_if},
    }})
    drop: dict[str, object] = {"platform": platform, "release": None, "hwsku": None}
    if platform not in ADAPTIVE_ROUTING_PLATFORMS:
        drop["adaptive_routing"] = None
    update: dict[str, object] = {
        "catalog": catalog,
        "switches": [s.model_copy(update=drop) for s in inv.switches],
        "links": [
            link.model_copy(update={"a": end(link.a), "b": end(link.b) if link.b else None}) for link in inv.links
        ],
    }
    if inv.intent is not None:
        ro = inv.intent.rail_optimized
        tiers: dict[str, object] = {
            "leaf": ro.leaf.model_copy(update=drop),
            "spine": ro.spine.model_copy(update=drop),
        }
        if ro.core is not None:
            tiers["core"] = ro.core.model_copy(update=drop)
        update["intent"] = inv.intent.model_copy(update={"rail_optimized": ro.model_copy(update=tiers)})
    if platform not in ADAPTIVE_ROUTING_PLATFORMS:
        update["fabric"] = inv.fabric.model_copy(update={"adaptive_routing": None})
    return dataclasses.replace(loaded, inventory=inv.model_copy(update=update)), what_if
