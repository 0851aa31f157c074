"""SONiC ``config_db.json``, built as data (it is JSON) from :class:`~fabricgen.render.data.DeviceData`.

Tables and field names follow SONiC's YANG models (``sonic-port``, ``sonic-interface``,
``sonic-device_metadata``, ``sonic-dscp-tc-map``, ``sonic-buffer-*``, ``sonic-wred-profile`` …). Values
are strings, as SONiC itself writes them (``"speed": "400000"``, ``"mtu": "9216"``). Nothing here
computes: the numbers come from the device data; this module only arranges them into tables. Output
is ``json.dumps(sort_keys=True, indent=4)``, so it is byte-stable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fabricgen.inventory.sonic_platform import SonicPlatform, sonic_platform
from fabricgen.render.base import BaseData
from fabricgen.render.data import BufferData, DeviceData, HeadroomData, cable_class
from fabricgen.render.sonic_ports import generic_ports, layout

GENERIC_HWSKU = {
    "arista-7060x6-64pe": ("Arista-7060X6-64PE-O128S2", "x86_64-arista_7060x6_64pe"),
}
"""SONiC HwSKU and platform string of a catalog model fabricgen holds no platform facts for (the NVIDIA and Dell
models have theirs in :mod:`fabricgen.inventory.sonic_platform`); others get a generic name. Their PORT table is
laid out by position (:func:`fabricgen.render.sonic_ports.generic_ports`), not from the platform's files."""

DEVICE_TYPE = {"leaf": "ToRRouter", "spine": "LeafRouter", "core": "LeafRouter"}
"""``DEVICE_METADATA|localhost.type`` per role. SONiC's buffer configuration picks the SKU's
``buffers_defaults_<topo>.j2`` by this type (sonic-buildimage ``files/build_templates/buffers_config.j2``:
``*ToRRouter`` → t0, ``*LeafRouter`` → t1, ``*SpineRouter`` → t2), and the NVIDIA SN5600, SN5400 and SN4700 SKUs
ship t0 and t1 only (one SN4700 SKU, Mellanox-SN4700-C128, has a t2): a ``SpineRouter`` there makes
``config qos reload`` look for a file that does not exist. So a leaf is a ToRRouter (its server ports are short
copper) and a spine or core a LeafRouter (the t1 defaults assume the longer optical links)."""

INGRESS_POOL = "ingress_lossless_pool"
EGRESS_POOL = "egress_lossless_pool"
INGRESS_LOSSY_POOL = "ingress_lossy_pool"
EGRESS_LOSSY_POOL = "egress_lossy_pool"
INGRESS_LISTS = {"lossy-pools": "ingress_lossless_profile,ingress_lossy_profile",
                 "shared-ingress": "ingress_lossless_profile"}
EGRESS_LIST = "egress_lossless_profile,egress_lossy_profile"
"""NVIDIA's per-port profile lists (``buffers_defaults_objects.j2``, ``generate_profile_lists``) by SKU layout."""
IDENTITY = {str(i): str(i) for i in range(8)}


def _facts(d: DeviceData) -> SonicPlatform | None:
    """The platform facts the switch's ports and buffers are laid out from (a SKU was resolved only where they
    exist: :meth:`fabricgen.topology.resolve` ``_hwsku``)."""
    return sonic_platform(d.model) if d.hwsku else None


def _hwsku(d: DeviceData) -> tuple[str, str]:
    facts = _facts(d)
    if facts is not None:
        return d.hwsku, facts.platform
    return GENERIC_HWSKU.get(d.model, (f"{d.vendor}-{d.model}", f"x86_64-{d.vendor.lower()}_{d.model}-r0"))


def config_db(d: DeviceData) -> dict[str, Any]:
    """The ``config_db.json`` document of one SONiC switch (tables as SONiC writes them)."""
    hwsku, platform = _hwsku(d)
    metadata: dict[str, str] = {
        "bgp_asn": str(d.asn),
        "buffer_model": "traditional",
        "docker_routing_config_mode": "split",
        "hostname": d.name,
        "hwsku": hwsku,
        "platform": platform,
        "type": DEVICE_TYPE[d.role],
    }
    db: dict[str, Any] = {
        "DEVICE_METADATA": {"localhost": metadata},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, f"Loopback0|{d.loopback_prefix}": {}},
        "LLDP": {"GLOBAL": {"hello_time": "30", "multiplier": "4", "system_name": d.name}},
        "PORT": {},
        "BREAKOUT_CFG": {},
        "INTERFACE": {},
        "DEVICE_NEIGHBOR": {},
        "BGP_NEIGHBOR": {},
    }
    facts = _facts(d)
    if facts is not None:
        db["PORT"], db["BREAKOUT_CFG"] = layout(d, facts)
    else:
        db["PORT"] = generic_ports(d)
    for i in d.interfaces:
        db["DEVICE_NEIGHBOR"][i.name] = {"name": i.peer_device, "port": i.peer_port}
        if i.address:
            db["INTERFACE"][i.name] = {}
            db["INTERFACE"][f"{i.name}|{i.address}"] = {}
    for n in d.bgp.neighbors:
        db["BGP_NEIGHBOR"][n.ip] = {
            "admin_status": "up",
            "asn": str(n.asn),
            "holdtime": "9",
            "keepalive": "3",
            "local_addr": n.local_ip,
            "name": n.peer_device,
            "nhopself": "0",
            "rrclient": "0",
        }
    if d.base is not None and d.base.mgmt_address is not None:
        _mgmt(d.base, db)
        _services(d.base, db)
    if d.qos is not None:
        _qos(d, db)
    if d.raw is not None and d.raw.doc is not None:
        _raw(d.raw.doc, db)
    return {table: rows for table, rows in db.items() if rows}


def _raw(tables: dict[str, Any], db: dict[str, Any]) -> None:
    """The inventory's raw config_db tables (base.raw.sonic), merged in: only tables fabricgen does not own
    reach here (fabricgen.inventory.raw.SONIC_OWNED), and a row fabricgen wrote is never replaced."""
    for table, rows in tables.items():
        into = db.setdefault(table, {})
        for key, row in rows.items():
            into.setdefault(key, row)


def _mgmt(b: BaseData, db: dict[str, Any]) -> None:
    """The management port, its address and the management VRF (sonic-mgmt_port, sonic-mgmt_interface,
    sonic-mgmt_vrf YANG: ``MGMT_VRF_CONFIG|vrf_global`` ``mgmtVrfEnabled`` puts eth0 in the VRF ``mgmt``). Local
    users live in the host's /etc/passwd, not config_db, so they are not rendered on SONiC."""
    db["MGMT_PORT"] = {b.mgmt_interface: {"admin_status": "up", "alias": b.mgmt_interface}}
    row = {"gwaddr": b.mgmt_gateway} if b.mgmt_gateway else {}
    db["MGMT_INTERFACE"] = {f"{b.mgmt_interface}|{b.mgmt_address}": row}
    db["MGMT_VRF_CONFIG"] = {"vrf_global": {"mgmtVrfEnabled": "true"}}


def _services(b: BaseData, db: dict[str, Any]) -> None:
    """NTP, syslog, SNMP and AAA in the management VRF, as SONiC's YANG models name them: sonic-ntp (``NTP|global``
    vrf/src_intf, ``NTP_SERVER``), sonic-syslog (``SYSLOG_SERVER`` vrf), sonic-snmp (``SNMP|LOCATION``,
    ``SNMP_COMMUNITY`` TYPE RO), sonic-system-tacacs (``TACPLUS|global`` passkey/src_intf — the AAA model refuses
    tacacs+ login without a global passkey, so it is the first server's key — and ``TACPLUS_SERVER`` priority,
    higher first), sonic-system-radius (``RADIUS_SERVER``), sonic-system-aaa (``AAA|authentication`` login: the
    methods in order, comma-separated; failthrough: a method that fails passes to the next, so the local users
    still log in; ``AAA|authorization`` and ``AAA|accounting`` login for command authorization and
    accounting)."""
    if b.ntp:
        db["NTP"] = {"global": {"src_intf": b.mgmt_interface, "vrf": b.vrf}}
        db["NTP_SERVER"] = {s: {"association_type": "server", "iburst": "on"} for s in b.ntp}
    if b.syslog:
        db["SYSLOG_SERVER"] = {s: {"vrf": b.vrf} for s in b.syslog}
    if b.snmp_community:
        db["SNMP_COMMUNITY"] = {b.snmp_community: {"TYPE": "RO"}}
        if b.snmp_location:
            db["SNMP"] = {"LOCATION": {"Location": b.snmp_location}}
    if b.tacacs:
        db["TACPLUS"] = {"global": {"auth_type": "pap", "passkey": b.tacacs[0].key, "src_intf": b.mgmt_interface}}
        db["TACPLUS_SERVER"] = {
            s.address: {"passkey": s.key, "priority": str(s.rank), "tcp_port": str(s.port),
                        "vrf": b.vrf}
            for s in b.tacacs
        }
    if b.radius:
        db["RADIUS_SERVER"] = {
            s.address: {"auth_port": str(s.port), "passkey": s.key, "priority": str(s.rank),
                        "src_intf": b.mgmt_interface, "vrf": b.vrf}
            for s in b.radius
        }
    if b.login_methods:
        db["AAA"] = {"authentication": {"failthrough": "True", "login": ",".join(b.login_methods)}}
    # command authorization and accounting (sonic-system-aaa ``AAA|authorization`` / ``AAA|accounting`` login;
    # SONiC "TACACS+ protocol Design", sonic-net/SONiC doc/aaa: `config aaa authorization tacacs+ local` — the
    # bash plugin asks TACACS+ before each command, local group authorization when no server answers — and
    # `config aaa accounting tacacs+ local` — auditd's records to TACACS+, syslog when no server answers)
    if b.authz_methods:
        db.setdefault("AAA", {})["authorization"] = {"login": ",".join(b.authz_methods)}
    if b.acct_methods:
        db.setdefault("AAA", {})["accounting"] = {"login": ",".join((*b.acct_methods, "local"))}


def _qos(d: DeviceData, db: dict[str, Any]) -> None:
    q = d.qos
    assert q is not None
    metadata = db["DEVICE_METADATA"]["localhost"]
    metadata["default_pfcwd_status"] = "enable" if q.watchdog is not None else "disable"
    db["DSCP_TO_TC_MAP"] = {m.name: {str(dscp): str(tc) for dscp, tc in m.entries} for m in q.dscp_maps}
    db["TC_TO_QUEUE_MAP"] = {"AI_RDMA": dict(IDENTITY)}
    db["TC_TO_PRIORITY_GROUP_MAP"] = {"AI_RDMA": tc_to_pg(q.pfc_priorities)}
    db["MAP_PFC_PRIORITY_TO_QUEUE"] = {"AI_RDMA": dict(IDENTITY)}
    db["WRED_PROFILE"] = {
        e.name: {
            "ecn": "ecn_all",
            "green_drop_probability": str(e.probability),
            "green_max_threshold": str(e.max_bytes),
            "green_min_threshold": str(e.min_bytes),
            "red_drop_probability": str(e.probability),
            "red_max_threshold": str(e.max_bytes),
            "red_min_threshold": str(e.min_bytes),
            "wred_green_enable": "true",
            "wred_red_enable": "true",
            "wred_yellow_enable": "true",
            "yellow_drop_probability": str(e.probability),
            "yellow_max_threshold": str(e.max_bytes),
            "yellow_min_threshold": str(e.min_bytes),
        }
        for e in q.ecn_profiles
    }
    schedulers: dict[str, dict[str, str]] = {}
    for prof in q.profiles:
        for lane in prof.lanes:
            if lane.strict:
                schedulers["AI_RDMA_STRICT"] = {"type": "STRICT"}
            else:
                schedulers[f"AI_RDMA_DWRR_{lane.weight}"] = {"type": "DWRR", "weight": str(lane.weight)}
    db["SCHEDULER"] = schedulers
    layout = nvidia_layout(d)
    db["BUFFER_POOL"], profiles = (nvidia_pools(q.buffer, layout) if layout else generic_pools(q.buffer))
    lossy_queue = "q_lossy_profile" if layout else "egress_lossy_profile"
    pg_names = buffermgrd_names(q.headroom_profiles)
    for h in q.headroom_profiles:
        name = pg_names[h.name]
        profiles[name] = _larger(profiles.get(name), _pg_profile(h))
    db["BUFFER_PROFILE"] = profiles
    port_qos: dict[str, dict[str, str]] = {}
    queues: dict[str, dict[str, str]] = {}
    buffer_pg: dict[str, dict[str, str]] = {}
    buffer_queue: dict[str, dict[str, str]] = {}
    cable: dict[str, str] = {}
    pfc_wd: dict[str, dict[str, str]] = {}
    for i in d.interfaces:
        iq = i.qos
        if iq is None:
            continue
        prof = iq.profile
        entry = {
            "dscp_to_tc_map": prof.dscp_map,
            "pfc_to_queue_map": "AI_RDMA",
            "tc_to_pg_map": "AI_RDMA",
            "tc_to_queue_map": "AI_RDMA",
        }
        if prof.pfc_priorities:
            entry["pfc_enable"] = prof.pfc_enable
            if prof.watchdog is not None:
                entry["pfcwd_sw_enable"] = prof.pfc_enable
        port_qos[i.name] = entry
        for lane in prof.lanes:
            row = {"scheduler": "AI_RDMA_STRICT" if lane.strict else f"AI_RDMA_DWRR_{lane.weight}"}
            if lane.ecn is not None:
                row["wred_profile"] = lane.ecn.name
            queues[f"{i.name}|{lane.queue}"] = row
        buffer_pg[f"{i.name}|0"] = {"profile": "ingress_lossy_profile"}
        for prio in q.pfc_priorities:  # every PG the map uses gets a profile: lossy where this port has no PFC
            buffer_pg[f"{i.name}|{prio}"] = {"profile": "ingress_lossy_profile"}
        for prio, h in iq.headroom:
            buffer_pg[f"{i.name}|{prio}"] = {"profile": pg_names[h.name]}
        if prof.pfc_priorities:
            buffer_queue[f"{i.name}|{prof.lossless_queues}"] = {"profile": "egress_lossless_profile"}
        for q_range in index_ranges(prof.lossy_queues):
            buffer_queue[f"{i.name}|{q_range}"] = {"profile": lossy_queue}
        cable[i.name] = cable_class(iq.cable_m).written
        if prof.watchdog is not None and prof.pfc_priorities:
            w = prof.watchdog
            pfc_wd[i.name] = {"action": w.action, "detection_time": str(w.detection_ms),
                              "restoration_time": str(w.restoration_ms)}
    if q.dscp_maps:
        # newer SONiC classifies by the switch-wide DSCP map of PORT_QOS_MAP|global (sonic-port-qos-map
        # YANG: ifname "global"); the per-port entries stay for the ports' own bindings.
        port_qos["global"] = {"dscp_to_tc_map": q.profiles[0].dscp_map if q.profiles else q.dscp_maps[0].name}
    db["PORT_QOS_MAP"] = port_qos
    db["QUEUE"] = queues
    db["BUFFER_PG"] = buffer_pg
    db["BUFFER_QUEUE"] = buffer_queue
    if layout:
        ingress = INGRESS_LISTS[layout]
        names = [i.name for i in d.interfaces if i.qos is not None]
        db["BUFFER_PORT_INGRESS_PROFILE_LIST"] = {n: {"profile_list": ingress} for n in names}
        db["BUFFER_PORT_EGRESS_PROFILE_LIST"] = {n: {"profile_list": EGRESS_LIST} for n in names}
    db["CABLE_LENGTH"] = {"AZURE": cable}
    if pfc_wd:
        pfc_wd["GLOBAL"] = {"POLL_INTERVAL": "100"}
        db["PFC_WD"] = pfc_wd
        db["FLEX_COUNTER_TABLE"] = {"PFCWD": {"FLEX_COUNTER_STATUS": "enable"}}


def nvidia_layout(d: DeviceData) -> str:
    """The NVIDIA buffer layout of the switch's SKU (:class:`~fabricgen.inventory.sonic_platform.Sku` ``buffers``),
    or "" where none is published (Broadcom SKUs, models without platform facts)."""
    facts = _facts(d)
    return facts.skus[d.hwsku].buffers if facts is not None else ""


def nvidia_pools(b: BufferData, layout: str) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """BUFFER_POOL and the static BUFFER_PROFILE rows laid out as NVIDIA's Spectrum SKU templates lay them out
    (sonic-buildimage ``device/mellanox/<platform>/<SKU>/buffers_defaults_t0.j2``/``_t1.j2`` with the shared
    ``buffers_defaults_objects.j2``), sized by fabricgen's buffer model.

    Both layouts have a lossless and a lossy pool per direction except that ``shared-ingress`` SKUs keep lossy
    ingress traffic in the lossless pool, which then carries the ports' lossless headroom as ``xoff``; in
    ``lossy-pools`` SKUs the headroom is reserved by the PG profiles themselves (their ``size``). The pools are
    views of one shared buffer on Spectrum, which is why NVIDIA gives the ingress pools and the egress lossy pool
    one size: here the shared pool fabricgen computes (total less headroom and reserved cells), and the egress
    lossless pool the whole pool. Profile thresholds are NVIDIA's: ``dynamic_th`` 7 for lossless and the lossy
    egress port profile (9,216 B reserved: one jumbo frame), 3 for lossy ingress and lossy queues."""
    shared = str(b.shared_bytes)
    pools = {
        INGRESS_POOL: {"mode": "dynamic", "size": shared, "type": "ingress"},
        EGRESS_POOL: {"mode": "dynamic", "size": str(b.pool_bytes), "type": "egress"},
        EGRESS_LOSSY_POOL: {"mode": "dynamic", "size": shared, "type": "egress"},
    }
    lossy_in = INGRESS_POOL
    if layout == "lossy-pools":
        pools[INGRESS_LOSSY_POOL] = {"mode": "dynamic", "size": shared, "type": "ingress"}
        lossy_in = INGRESS_LOSSY_POOL
    else:
        pools[INGRESS_POOL]["xoff"] = str(b.lossless_headroom_bytes)
    profiles = {
        "ingress_lossless_profile": {"dynamic_th": "7", "pool": INGRESS_POOL, "size": "0"},
        "ingress_lossy_profile": {"dynamic_th": "3", "pool": lossy_in, "size": "0"},
        "egress_lossless_profile": {"dynamic_th": "7", "pool": EGRESS_POOL, "size": "0"},
        "egress_lossy_profile": {"dynamic_th": "7", "pool": EGRESS_LOSSY_POOL, "size": "9216"},
        "q_lossy_profile": {"dynamic_th": "3", "pool": EGRESS_LOSSY_POOL, "size": "0"},
    }
    return pools, profiles


def generic_pools(b: BufferData) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """BUFFER_POOL and the static BUFFER_PROFILE rows where no vendor layout is held: one lossless pool per
    direction (SONiC's generic ``buffers_config.j2`` shape), the headroom as the ingress pool's ``xoff``."""
    pools = {
        INGRESS_POOL: {"mode": "dynamic", "size": str(b.shared_bytes), "type": "ingress",
                       "xoff": str(b.lossless_headroom_bytes)},
        EGRESS_POOL: {"mode": "dynamic", "size": str(b.pool_bytes), "type": "egress"},
    }
    profiles = {
        "ingress_lossy_profile": {"dynamic_th": "3", "pool": INGRESS_POOL, "size": "0"},
        "egress_lossless_profile": {"pool": EGRESS_POOL, "size": "0", "static_th": str(b.pool_bytes)},
        "egress_lossy_profile": {"dynamic_th": "7", "pool": EGRESS_POOL, "size": "9216"},
    }
    return pools, profiles


def tc_to_pg(lossless: Iterable[int]) -> dict[str, str]:
    """TC → priority group as SONiC's own RoCE buffer templates map it: each lossless TC to the PG of the same
    number (where its headroom profile is), every lossy TC to PG 0 (the shared lossy PG).

    >>> tc_to_pg([3, 4]) == {"0": "0", "1": "0", "2": "0", "3": "3", "4": "4", "5": "0", "6": "0", "7": "0"}
    True
    """
    keep = set(lossless)
    return {str(tc): str(tc if tc in keep else 0) for tc in range(8)}


def index_ranges(indexes: Iterable[int]) -> list[str]:
    """Consecutive queue indexes folded into SONiC's ``X-Y`` ranges, as SONiC's own buffer templates write them.

    >>> index_ranges([0, 1, 2, 4, 5, 6, 7]), index_ranges([6]), index_ranges([])
    (['0-2', '4-7'], ['6'], [])
    """
    runs: list[list[int]] = []
    for v in sorted(indexes):
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return [str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs]


def buffermgrd_names(headroom: Iterable[HeadroomData]) -> dict[str, str]:
    """The SONiC name of each headroom profile: ``pg_lossless_<speed>_<CABLE_LENGTH>_profile``, where the cable
    length is the port's ``CABLE_LENGTH`` value (:func:`cable_class`), not its length in metres.

    That is the name buffermgrd looks for (sonic-swss ``cfgmgr/buffermgr.cpp``, ``doSpeedUpdateTask``: on a port's
    speed or cable-length update it builds ``pg_lossless_`` + speed + ``_`` + cable + ``_profile``, uses the
    BUFFER_PROFILE of that name where it exists and otherwise writes its own from ``pg_profile_lookup.ini``, then
    points the port's lossless PGs at it). A profile under any other name is replaced at the next update.

    >>> from fabricgen.render.data import HeadroomData
    >>> h = HeadroomData("pg_lossless_400000_3m_profile", 400000, "3m", 3, 1, 1, 2, "dynamic", 0, 0, "t")
    >>> buffermgrd_names([h])
    {'pg_lossless_400000_3m_profile': 'pg_lossless_400000_5m_profile'}
    """
    return {h.name: f"pg_lossless_{h.speed_mbps}_{cable_class(h.cable_m).written}_profile" for h in headroom}


def _larger(a: dict[str, str] | None, b: dict[str, str]) -> dict[str, str]:
    """Of two headroom profiles that fall under one buffermgrd name (two cable lengths of one ``CABLE_LENGTH``
    class at one speed), the one reserving more: the name can hold one profile, and every port under it then has
    at least the headroom its own cable needs."""
    if a is None:
        return b
    return a if (int(a["size"]), int(a["xoff"])) >= (int(b["size"]), int(b["xoff"])) else b


def _pg_profile(h: HeadroomData) -> dict[str, str]:
    row = {"pool": INGRESS_POOL, "size": str(h.size), "xoff": str(h.xoff), "xon": str(h.xon)}
    if h.threshold == "static":
        row["static_th"] = str(h.static_th)
    else:
        row["dynamic_th"] = str(h.dynamic_th)
    return row


def dumps(obj: Any, level: int = 0) -> str:
    """Exactly ``json.dumps(obj, sort_keys=True, indent=4)`` for nested dicts of strings, several times
    faster (``json`` falls back to its pure-Python encoder whenever ``indent`` is set).

    >>> doc = {"b": {"x": "1"}, "a": {}, "c": "é"}
    >>> dumps(doc) == json.dumps(doc, sort_keys=True, indent=4)
    True
    """
    if not isinstance(obj, dict):
        return _string(obj)
    if not obj:
        return "{}"
    pad = _PAD[level + 1]
    keys = sorted(obj)
    if all(type(obj[k]) is str for k in keys):
        sep = ",\n" + pad
        items = sep.join([_string(k) + ": " + _string(obj[k]) for k in keys])
    else:
        sep = ",\n" + pad
        items = sep.join([_string(k) + ": " + dumps(obj[k], level + 1) for k in keys])
    return "{\n" + pad + items + "\n" + _PAD[level] + "}"


_PAD = ["    " * i for i in range(16)]
_string = json.encoder.encode_basestring_ascii


def dumps_config_db(db: dict[str, Any]) -> str:
    """:func:`dumps` specialised for config_db's shape (table → key → field → string), the hot path of the
    SONiC renderer; any other shape below a table falls back to :func:`dumps`.

    >>> db = {"PORT": {"Ethernet0": {"mtu": "9216", "alias": "etp1"}}, "LLDP": {}}
    >>> dumps_config_db(db) == json.dumps(db, sort_keys=True, indent=4)
    True
    """
    enc = _string
    row_sep, field_sep = ",\n" + _PAD[2], ",\n" + _PAD[3]
    tables = []
    for name in sorted(db):
        rows = db[name]
        if type(rows) is not dict or not rows:
            tables.append(enc(name) + ": " + dumps(rows, 1))
            continue
        out = []
        for key in sorted(rows):
            fields = rows[key]
            if type(fields) is dict and fields:
                try:
                    body = field_sep.join([enc(f) + ": " + enc(fields[f]) for f in sorted(fields)])
                except TypeError:  # a value that is not a string: take the general path
                    out.append(enc(key) + ": " + dumps(fields, 2))
                    continue
                out.append(enc(key) + ": {\n" + _PAD[3] + body + "\n" + _PAD[2] + "}")
            else:
                out.append(enc(key) + ": " + dumps(fields, 2))
        tables.append(enc(name) + ": {\n" + _PAD[2] + row_sep.join(out) + "\n" + _PAD[1] + "}")
    if not tables:
        return "{}"
    return "{\n" + _PAD[1] + (",\n" + _PAD[1]).join(tables) + "\n}"


def render_config_db(d: DeviceData) -> str:
    return dumps_config_db(config_db(d)) + "\n"
