"""The intended configuration of each device: the render stage's output (``fabricgen.render``).

SONiC runs FRR in *split* routing mode (``docker_routing_config_mode: split``, rendered in DEVICE_METADATA):
config_db.json carries ports, addresses, QoS and buffers, and FRR's own frr.conf carries BGP — fabricgen's BGP
(datacenter defaults, route-maps, multipath) is more than SONiC's BGP tables and bgpcfgd templates express, and
split mode lets frr-reload apply it as a diff without restarting the bgp container. So a SONiC device's
intended configuration is both files, as one JSON *bundle* ``{"config_db.json": {...}, "frr.conf": "..."}``
that the sonic driver pushes, compares and reads back in the same shape.
"""

from __future__ import annotations

import json

from fabricgen.topology.model import Fabric

SONIC_DB, SONIC_FRR = "config_db.json", "frr.conf"


def sonic_bundle(config_db: str, frr_conf: str) -> str:
    """One text for both SONiC files.

    >>> sonic_bundle('{"PORT": {}}', "router bgp 1")
    '{"config_db.json": {"PORT": {}}, "frr.conf": "router bgp 1"}'
    """
    return json.dumps({SONIC_DB: json.loads(config_db), SONIC_FRR: frr_conf})


def split_sonic(text: str) -> tuple[str, str] | None:
    """(config_db.json text, frr.conf text) of a bundle; None when ``text`` is a plain config_db.json."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if isinstance(doc, dict) and SONIC_DB in doc and isinstance(doc[SONIC_DB], dict):
        return json.dumps(doc[SONIC_DB]), str(doc.get(SONIC_FRR) or "")
    return None


def intended_configs(fabric: Fabric, names: list[str] | None = None) -> dict[str, str]:
    """Device → the text its driver pushes (``DeviceConfig.main``; for SONiC the config_db + frr.conf bundle),
    for ``names`` or every switch."""
    from fabricgen.render import render_fabric

    rendered = render_fabric(fabric)
    wanted = names if names is not None else list(fabric.switches)
    out = {}
    for n in wanted:
        if n not in rendered:
            continue
        dc = rendered[n]
        if dc.platform == "sonic":
            out[n] = sonic_bundle(dc.main, dc.file(SONIC_FRR).content)
        else:
            out[n] = dc.main
    return out
