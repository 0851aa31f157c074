"""EOS oracle: Arista's own generator (pyavd's ``eos_cli_config_gen``) renders the same device.

:func:`structured_config` maps fabricgen's per-device data (:class:`~fabricgen.render.data.DeviceData`)
to AVD's structured configuration, independently of fabricgen's template; :func:`avd_config` renders it
with pyavd; :func:`blocks` parses either text into top-level blocks so the two can be compared section by
section (the order of top-level sections is free in EOS, the order of lines inside a block is not).

``FABRICGEN_ONLY`` lists, with the reason, the top-level lines fabricgen renders and AVD does not model.
"""

from __future__ import annotations

import dataclasses
import ipaddress
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
        "peer_groups": [_peer_group(d, g.name, g.description) for g in b.groups],
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
    cfg.update(_policy(d))
    if d.base is not None:
        cfg.update(_base(d))
    if d.raw is not None:
        # AVD's `eos_cli`: "Multiline EOS CLI rendered directly on the root level of the final EOS configuration"
        # (eos_cli_config_gen input variables), the same place fabricgen gives a raw block
        cfg["eos_cli"] = "\n".join(d.raw.lines)
    return cfg


def _peer_group(d: DeviceData, name: str, description: str) -> dict[str, Any]:
    """AVD's peer group: BFD when the fabric runs it, the policy's route-maps both ways, every community
    sent, the prefix limit with its warning percentage."""
    pol = d.bgp.policy
    group: dict[str, Any] = {"name": name, "description": description, "send_community": "all",
                             "route_map_in": pol.route_map_in, "route_map_out": pol.route_map_out,
                             "maximum_routes": pol.maximum_prefix,
                             "maximum_routes_warning_limit": f"{pol.warning_pct} percent"}
    if d.bgp.bfd is not None:
        group["bfd"] = True
    return group


def _policy(d: DeviceData) -> dict[str, Any]:
    """AVD's keys for the routing policy (``router_bfd``, ``prefix_lists``, ``ip_community_lists``,
    ``route_maps``), written from the policy's meaning: import the fabric's prefixes (65535:0 ones at
    local-preference 0), export the device's own with its communities and the fabric's learned ones."""
    pol = d.bgp.policy
    cfg: dict[str, Any] = {}
    if d.bgp.bfd is not None:
        ms = d.bgp.bfd.interval_ms
        cfg["router_bfd"] = {"interval": ms, "min_rx": ms, "multiplier": d.bgp.bfd.multiplier}
    fabric = [e.prefix if e.exact else f"{e.prefix} ge {e.ge} le {e.le}" for e in pol.fabric_prefixes]
    cfg["prefix_lists"] = [
        {"name": pol.prefix_list_fabric,
         "sequence_numbers": [{"sequence": 10 * i, "action": f"permit {p}"} for i, p in enumerate(fabric, 1)]},
        {"name": pol.prefix_list_local,
         "sequence_numbers": [{"sequence": 10 * i, "action": f"permit {p}"}
                              for i, p in enumerate(pol.local_prefixes, 1)]},
    ]
    cfg["ip_community_lists"] = [{"name": pol.community_list_gshut,
                                  "entries": [{"action": "permit", "communities": [pol.gshut]}]}]
    in_fabric = f"ip address prefix-list {pol.prefix_list_fabric}"
    learned: dict[str, Any] = {"sequence": 20, "type": "permit", "match": [in_fabric]}
    if pol.drained:
        learned["set"] = [f"community {pol.gshut} additive"]
    cfg["route_maps"] = [
        {"name": pol.route_map_in, "sequence_numbers": [
            {"sequence": 10, "type": "permit", "match": [f"community {pol.community_list_gshut}", in_fabric],
             "set": ["local-preference 0"]},
            {"sequence": 20, "type": "permit", "match": [in_fabric]},
            {"sequence": 30, "type": "deny"},
        ]},
        {"name": pol.route_map_out, "sequence_numbers": [
            {"sequence": 10, "type": "permit", "match": [f"ip address prefix-list {pol.prefix_list_local}"],
             "set": [f"community {' '.join(pol.export_communities)} additive"]},
            learned,
            {"sequence": 30, "type": "deny"},
        ]},
    ]
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


POLICY_NAMES = ("FABRIC-IN-V4", "FABRIC-OUT-V4")
"""The route-maps fabricgen applies on every session; :func:`advertise` evaluates them."""


def bgp_filters(text: str) -> list[str]:
    """Lines of ``router bgp`` that could stop eBGP re-advertisement other than the fabric's policy
    route-maps (which :class:`Policy` evaluates), and peer groups left unactivated under
    ``no bgp default ipv4-unicast``."""
    b = blocks(text)
    (header,) = [h for h in b if h.startswith("router bgp ")]
    body = [ln.strip() for ln in b[header]]
    policy = re.compile(rf"neighbor \S+ route-map (?:{'|'.join(POLICY_NAMES)}) (?:in|out)"
                        r"|neighbor \S+ maximum-routes \d+ warning-limit \d+ percent")
    problems = [ln for ln in body if re.search(r"route-map|prefix-list|filter-list|distribute-list|maximum-routes"
                                               r"|default-originate|next-hop-unchanged", ln)
                and not policy.fullmatch(ln)]
    groups = {ln.split()[1] for ln in body if ln.endswith(" peer group") and ln.count(" ") == 3}
    active = {ln.split()[1] for ln in body if ln.endswith(" activate")}
    if "no bgp default ipv4-unicast" in body:
        problems += [f"peer group {g} not activated" for g in sorted(groups - active)]
    return problems


# --------------------------------------------------------------------------- routing policy evaluator


@dataclass(frozen=True)
class Route:
    """A BGP path as a route-map sees it."""

    prefix: ipaddress.IPv4Network
    as_path: tuple[int, ...] = ()
    communities: frozenset[str] = frozenset()
    local_pref: int = 100  # EOS's default local preference


@dataclass(frozen=True)
class PrefixRule:
    action: str
    network: ipaddress.IPv4Network
    ge: int | None
    le: int | None

    def matches(self, prefix: ipaddress.IPv4Network) -> bool:
        """EOS prefix-list semantics: without ge/le the prefix itself; with them, a prefix inside the
        network whose length is in ge..le (ge alone: up to /32; le alone: from the network's length)."""
        if self.ge is None and self.le is None:
            return prefix == self.network
        if not prefix.subnet_of(self.network):
            return False
        lo = self.ge if self.ge is not None else self.network.prefixlen
        hi = self.le if self.le is not None else 32
        return lo <= prefix.prefixlen <= hi


@dataclass(frozen=True)
class RouteMapEntry:
    seq: int
    action: str
    matches: tuple[str, ...]
    sets: tuple[str, ...]


@dataclass
class Policy:
    """The prefix-lists, community-lists and route-maps of one rendered EOS configuration."""

    prefix_lists: dict[str, list[PrefixRule]]
    community_lists: dict[str, list[tuple[str, frozenset[str]]]]
    route_maps: dict[str, list[RouteMapEntry]]
    _decided: dict[tuple[str, ipaddress.IPv4Network], bool] = dataclasses.field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Policy:
        b = blocks(text)
        pls: dict[str, list[PrefixRule]] = {}
        cls_: dict[str, list[tuple[str, frozenset[str]]]] = {}
        rms: dict[str, list[RouteMapEntry]] = {}
        for header, lines in b.items():
            words = header.split()
            if header.startswith("ip prefix-list "):
                pls[words[2]] = [_prefix_rule(ln.strip()) for ln in lines]
            elif header.startswith("ip community-list "):
                m = re.fullmatch(r"ip community-list (\S+) (permit|deny) (.+)", header)
                if m is None:
                    raise ValueError(f"unparsed community-list: {header!r}")
                cls_.setdefault(m.group(1), []).append((m.group(2), frozenset(m.group(3).split())))
            elif header.startswith("route-map "):
                body = [ln.strip() for ln in lines]
                rms.setdefault(words[1], []).append(RouteMapEntry(
                    int(words[3]), words[2], tuple(x[6:] for x in body if x.startswith("match ")),
                    tuple(x[4:] for x in body if x.startswith("set "))))
        for entries in rms.values():
            entries.sort(key=lambda e: e.seq)
        return cls(pls, cls_, rms)

    def prefix_list(self, name: str, prefix: ipaddress.IPv4Network) -> bool:
        """First matching rule's action; a prefix no rule matches is denied (EOS's implicit deny)."""
        key = (name, prefix)
        if key not in self._decided:
            rules = self.prefix_lists[name]  # KeyError: a reference to an undefined prefix-list
            self._decided[key] = next((r.action == "permit" for r in rules if r.matches(prefix)), False)
        return self._decided[key]

    def community_list(self, name: str, communities: frozenset[str]) -> bool:
        """A standard community-list entry matches a path carrying every community it lists."""
        for action, wanted in self.community_lists[name]:
            if wanted <= communities:
                return action == "permit"
        return False

    def _matches(self, clause: str, route: Route) -> bool:
        m = re.fullmatch(r"ip address prefix-list (\S+)", clause)
        if m:
            return self.prefix_list(m.group(1), route.prefix)
        m = re.fullmatch(r"community (\S+)", clause)
        if m:
            return self.community_list(m.group(1), route.communities)
        raise ValueError(f"match clause the evaluator does not know: {clause!r}")

    @staticmethod
    def _set(clause: str, route: Route) -> Route:
        m = re.fullmatch(r"local-preference (\d+)", clause)
        if m:
            return dataclasses.replace(route, local_pref=int(m.group(1)))
        m = re.fullmatch(r"community ((?:\d+:\d+ ?)+?)( additive)?", clause)
        if m:
            new = frozenset(m.group(1).split())
            return dataclasses.replace(route, communities=route.communities | new if m.group(2) else new)
        raise ValueError(f"set clause the evaluator does not know: {clause!r}")

    def apply(self, name: str, route: Route) -> Route | None:
        """The route-map ``name`` on ``route``: the first entry whose every match clause holds decides
        (permit: its set clauses applied; deny: dropped); no entry matching drops the route."""
        for entry in self.route_maps[name]:  # KeyError: a reference to an undefined route-map
            if all(self._matches(c, route) for c in entry.matches):
                if entry.action == "deny":
                    return None
                for c in entry.sets:
                    route = self._set(c, route)
                return route
        return None


def _prefix_rule(line: str) -> PrefixRule:
    m = re.fullmatch(r"seq \d+ (permit|deny) (\S+)(?: ge (\d+))?(?: le (\d+))?", line)
    if m is None:
        raise ValueError(f"unparsed prefix-list entry: {line!r}")
    return PrefixRule(m.group(1), ipaddress.IPv4Network(m.group(2)),
                      int(m.group(3)) if m.group(3) else None, int(m.group(4)) if m.group(4) else None)


@dataclass(frozen=True)
class Session:
    """One configured BGP neighbor as the rendered ``router bgp`` has it (its peer group's settings)."""

    peer: str
    remote_as: int
    active: bool
    route_map_in: str | None
    route_map_out: str | None
    send_community: bool
    maximum_routes: int | None


@dataclass
class Speaker:
    """A rendered EOS device's BGP: its AS, originated networks, sessions by neighbor IP, and policy."""

    asn: int
    networks: tuple[ipaddress.IPv4Network, ...]
    sessions: dict[str, Session]
    policy: Policy

    @classmethod
    def parse(cls, text: str) -> Speaker:
        b = blocks(text)
        (header,) = [h for h in b if h.startswith("router bgp ")]
        body = [ln.strip() for ln in b[header]]

        said: dict[str, list[str]] = {}  # neighbor IP or peer group → what its `neighbor X ...` lines say
        for ln in body:
            if ln.startswith("neighbor "):
                _, who, rest = ln.split(" ", 2)
                said.setdefault(who, []).append(rest)

        def setting(name: str, pattern: str) -> str | None:
            found = [m.group(1) for rest in said.get(name, []) if (m := re.fullmatch(pattern, rest))]
            return found[-1] if found else None

        active = {ln.split()[1] for ln in body if ln.endswith(" activate")}
        sessions = {}
        for ln in body:
            m = re.fullmatch(r"neighbor (\d+\.\d+\.\d+\.\d+) peer group (\S+)", ln)
            if not m:
                continue
            ip, group = m.groups()

            def of(pattern: str, ip: str = ip, group: str = group) -> str | None:
                own = setting(ip, pattern)
                return own if own is not None else setting(group, pattern)

            remote = of(r"remote-as (\d+)")
            limit = of(r"maximum-routes (\d+)(?: .*)?")
            sessions[ip] = Session(ip, int(remote or 0), ip in active or group in active,
                                   of(r"route-map (\S+) in"), of(r"route-map (\S+) out"),
                                   of(r"(send-community)(?: .*)?") is not None, int(limit) if limit else None)
        nets = tuple(ipaddress.IPv4Network(ln.split()[-1]) for ln in body if ln.startswith("network "))
        return cls(int(header.split()[-1]), nets, sessions, Policy.parse(text))

    def export(self, session: Session, route: Route) -> Route | None:
        """``route`` (originated here, or learned) sent on ``session``: the outbound route-map, this AS
        prepended, communities stripped unless send-community; local preference is not sent to eBGP."""
        if not session.active:
            return None
        out = route if session.route_map_out is None else self.policy.apply(session.route_map_out, route)
        if out is None:
            return None
        return Route(out.prefix, (self.asn, *out.as_path), out.communities if session.send_community else frozenset())

    def receive(self, session: Session, route: Route) -> Route | None:
        """``route`` arriving on ``session``: dropped when this AS is in its path (eBGP loop prevention),
        then the inbound route-map from the default local preference."""
        if not session.active or self.asn in route.as_path:
            return None
        fresh = Route(route.prefix, route.as_path, route.communities)
        return fresh if session.route_map_in is None else self.policy.apply(session.route_map_in, fresh)
