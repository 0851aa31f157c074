"""EOS oracle: Arista's own generator (pyavd's ``eos_cli_config_gen``) renders the same device.

:func:`structured_config` maps fabricgen's per-device data (:class:`~fabricgen.render.data.DeviceData`)
to AVD's structured configuration, independently of fabricgen's template; :func:`avd_config` renders it
with pyavd; :func:`blocks` parses either text into top-level blocks so the two can be compared section by
section (the order of top-level sections is free in EOS, the order of lines inside a block is not).

``FABRICGEN_ONLY`` lists, with the reason, the top-level lines fabricgen renders and AVD does not model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fabricgen.render.data import DeviceData

FABRICGEN_ONLY: dict[str, str] = {
    "lldp run": "EOS's default; AVD renders only `no lldp run` (lldp.run: false)",
    "ip load-sharing trident fields ip source-ip destination-ip source-port destination-port":
        "AVD's load_balance key models only `load-balance policies`, not the ECMP hash fields",
    "end": "end of the file; AVD's generator leaves it to the loader",
}


def structured_config(d: DeviceData) -> dict[str, Any]:
    """AVD ``eos_cli_config_gen`` structured config of the device ``d`` describes."""
    cfg: dict[str, Any] = {
        "hostname": d.name,
        "service_routing_protocols_model": "multi-agent",
        "ip_routing": True,
        "ethernet_interfaces": [],
        "loopback_interfaces": [{"name": "Loopback0", "description": "router-id", "ip_address": d.loopback_prefix}],
    }
    queues_key = "uc_tx_queues" if d.eos_tx_queue == "uc-tx-queue" else "tx_queues"
    if d.qos is not None:
        q = d.qos
        cfg["qos"] = {"map": {"dscp": [f"{' '.join(str(x) for x in dscps)} to traffic-class {tc}"
                                       for m in q.dscp_maps for tc, dscps in m.by_tc]}}
        if q.watchdog is not None:
            cfg["priority_flow_control"] = {"watchdog": {
                "action": q.watchdog.action,
                "timeout": q.watchdog.detection_s,
                "recovery_time": q.watchdog.restoration_s,
            }}
        profiles = []
        for p in q.profiles:
            queues = []
            for lane in p.lanes:
                tq: dict[str, Any] = {"id": lane.queue}
                if lane.strict:
                    tq["priority"] = "priority strict"
                else:
                    tq["priority"] = "no priority"
                    tq["bandwidth_percent"] = lane.weight
                if lane.ecn is not None:
                    tq["random_detect"] = {"ecn": {"threshold": {
                        "units": "bytes", "min": lane.ecn.min_bytes, "max": lane.ecn.max_bytes,
                        "max_probability": lane.ecn.probability}}}
                queues.append(tq)
            pfc: dict[str, Any] = {"enabled": True,
                                   "priorities": [{"priority": prio, "no_drop": True} for prio in p.pfc_priorities]}
            if p.watchdog is not None:
                pfc["watchdog"] = {"enabled": True}
            profiles.append({"name": p.name, "trust": p.trust, queues_key: queues, "priority_flow_control": pfc})
        cfg["qos_profiles"] = profiles
    for i in d.interfaces:
        eth: dict[str, Any] = {
            "name": i.name, "description": i.description, "mtu": i.mtu,
            "speed": f"{i.speed}g-{i.lanes_per_port}", "switchport": {"enabled": False},
        }
        if i.address:
            eth["ip_address"] = i.address
        if i.qos is not None:
            eth["service_profile"] = i.qos.profile.name
        cfg["ethernet_interfaces"].append(eth)
    b = d.bgp
    bgp: dict[str, Any] = {
        "as": str(b.asn),
        "router_id": b.router_id,
        "bgp": {"default": {"ipv4_unicast": False}},
        "maximum_paths": {"paths": b.max_paths, "ecmp": b.max_paths},
        "peer_groups": [{"name": g.name, "description": g.description, "send_community": "all"} for g in b.groups],
        "neighbors": [{"ip_address": n.ip, "peer_group": n.group, "remote_as": str(n.asn),
                       "description": n.description} for n in b.neighbors],
        "address_family_ipv4": {
            "peer_groups": [{"name": g.name, "activate": True} for g in b.groups],
            "networks": [{"prefix": net} for net in b.networks],
        },
    }
    if b.multipath_relax:
        bgp["bgp_defaults"] = ["bgp bestpath as-path multipath-relax"]
    cfg["router_bgp"] = bgp
    if d.base is not None:
        cfg.update(_base(d))
    if d.raw is not None:
        # AVD's `eos_cli`: "Multiline EOS CLI rendered directly on the root level of the final EOS configuration"
        # (eos_cli_config_gen input variables), the same place fabricgen gives a raw block
        cfg["eos_cli"] = "\n".join(d.raw.lines)
    return cfg


def _base(d: DeviceData) -> dict[str, Any]:
    """AVD's keys for the base configuration (management interface and VRF, users, NTP, syslog, SNMP, eAPI,
    banner)."""
    b = d.base
    assert b is not None
    cfg: dict[str, Any] = {"vrfs": [{"name": b.vrf}]}
    if b.mgmt_address:
        cfg["management_interfaces"] = [{"name": b.mgmt_interface, "vrf": b.vrf, "ip_address": b.mgmt_address}]
    if b.mgmt_gateway:
        cfg["static_routes"] = [{"vrf": b.vrf, "prefix": "0.0.0.0/0", "next_hop": b.mgmt_gateway}]
    if b.users:
        cfg["local_users"] = [{"name": u.name, "privilege": u.privilege, "role": u.role, "sha512_password": u.secret}
                              for u in b.users]
    if b.ntp:
        cfg["ntp"] = {"servers": [{"name": s} for s in b.ntp], "vrf": b.vrf}
    if b.syslog:
        cfg["logging"] = {"vrfs": [{"name": b.vrf, "hosts": [{"name": s} for s in b.syslog]}]}
    if b.snmp_community:
        snmp: dict[str, Any] = {"communities": [{"name": b.snmp_community, "access": "ro"}],
                                "vrfs": [{"name": b.vrf, "enable": True}]}
        if b.snmp_location:
            snmp["location"] = b.snmp_location
        cfg["snmp_server"] = snmp
    if b.api:
        cfg["management_api_http"] = {"enable_https": True, "enable_vrfs": [{"name": b.vrf}]}
    if b.banner:
        cfg["banners"] = {"login": f"{b.banner}\nEOF\n"}
    return cfg


def avd_config(d: DeviceData) -> str:
    """The device's configuration as pyavd renders it; ``ValueError`` when AVD's schema rejects the input."""
    import pyavd

    result = pyavd.validate_structured_config(structured_config(d))
    problems = [f"{'.'.join(str(x) for x in v.path)}: {v.message}" for v in result.validation_result.violations]
    if problems:
        raise ValueError(f"AVD rejects the structured config of {d.name}: {problems}")
    return str(pyavd.get_device_config(result.validated_data))


def blocks(text: str) -> dict[str, tuple[str, ...]]:
    """Top-level sections of an EOS text: header line → its indented lines in order (``!`` separators,
    comments and blank lines dropped, trailing spaces stripped).

    >>> blocks("! c\\nhostname x\\n!\\ninterface E1\\n   mtu 9214\\n   !\\n   x\\n")
    {'hostname x': (), 'interface E1': ('   mtu 9214', '   x')}
    """
    out: dict[str, list[str]] = {}
    header: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.strip().startswith("!"):
            continue
        if line[0] != " ":
            header = line
            if header in out:
                raise ValueError(f"section {header!r} appears twice")
            out[header] = []
        elif header is None:
            raise ValueError(f"indented line before any section: {line!r}")
        else:
            out[header].append(line)
    return {k: tuple(v) for k, v in out.items()}


# --------------------------------------------------------------------------- semantics


@dataclass(frozen=True)
class Treatment:
    traffic_class: int
    queue: int
    no_drop: bool  # PFC on, and the priority no-drop, in the port's qos profile
    watchdog: bool
    ecn_bytes: tuple[int, int] | None
    mark_probability: int | None
    strict: bool
    bandwidth_pct: int | None


def walk(text: str, interface: str, dscp: int) -> Treatment:
    """Follow a packet of ``dscp`` arriving on ``interface``: the global ``qos map dscp`` → traffic class →
    the same-numbered egress queue (EOS default tc → queue map) → the port's qos profile (trust, PFC,
    the queue's scheduling and ECN)."""
    b = blocks(text)
    tc = 0  # EOS default for an unmapped DSCP under `qos trust dscp` is its DSCP >> 3; fabricgen maps all 64
    found = False
    for header in b:
        m = re.fullmatch(r"qos map dscp ([\d ]+) to traffic-class (\d)", header)
        if m and str(dscp) in m.group(1).split():
            tc, found = int(m.group(2)), True
    if not found:
        raise ValueError(f"DSCP {dscp} is not mapped")
    (profile,) = [ln.split()[-1] for ln in b[f"interface {interface}"] if ln.strip().startswith("service-profile ")]
    body = [ln.strip() for ln in b[f"qos profile {profile}"]]
    if "qos trust dscp" not in body:
        raise ValueError(f"profile {profile} does not trust DSCP")
    no_drop = "priority-flow-control on" in body and f"priority-flow-control priority {tc} no-drop" in body
    queue_lines: list[str] = []
    lines = b[f"qos profile {profile}"]
    for i, ln in enumerate(lines):
        if re.fullmatch(rf"   (?:uc-)?tx-queue {tc}", ln):
            for sub in lines[i + 1:]:
                if not sub.startswith("      "):
                    break
                queue_lines.append(sub.strip())
    ecn = next((re.findall(r"(\d+) bytes", x) for x in queue_lines if x.startswith("random-detect ecn ")), None)
    prob = next((int(x.split()[-1]) for x in queue_lines if x.startswith("random-detect ecn ")), None)
    bw = next((int(x.split()[-1]) for x in queue_lines if x.startswith("bandwidth percent ")), None)
    return Treatment(tc, tc, no_drop, "priority-flow-control pause watchdog" in body,
                     (int(ecn[0]), int(ecn[1])) if ecn else None, prob, "priority strict" in queue_lines, bw)


def bgp_filters(text: str) -> list[str]:
    """Lines of ``router bgp`` that could stop eBGP re-advertisement, and peer groups left unactivated
    under ``no bgp default ipv4-unicast`` (empty: every best route is advertised to every peer)."""
    b = blocks(text)
    (header,) = [h for h in b if h.startswith("router bgp ")]
    body = [ln.strip() for ln in b[header]]
    problems = [ln for ln in body if re.search(r"route-map|prefix-list|filter-list|distribute-list|maximum-routes"
                                               r"|default-originate|next-hop-unchanged", ln)]
    groups = {ln.split()[1] for ln in body if ln.endswith(" peer group") and ln.count(" ") == 3}
    active = {ln.split()[1] for ln in body if ln.endswith(" activate")}
    if "no bgp default ipv4-unicast" in body:
        problems += [f"peer group {g} not activated" for g in sorted(groups - active)]
    return problems
