"""NX-OS checker: the configuration's indentation blocks parsed into a tree and checked against a grammar
of the documented commands of each mode, every reference resolved, the lossless wiring and the units, the
routing policy (every route-map, prefix-list and community-list used is defined and every one defined is
used; each neighbor has a route-map both ways, a maximum-prefix, and send-community when its export sets
communities) and BFD (`feature bfd`, `no ip redirects` and the documented timer ranges on each BFD
interface); plus a packet walk through the rendered classification, network-qos and queuing policies.

Release targeted: NX-OS 10.5(x) on Nexus 9000 (CloudScale). Sources (Cisco Nexus 9000 Series NX-OS
configuration guides, Release 10.5(x), cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/105x/configuration):
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from fabricgen.inventory.releases import at_least

QOS = "Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, Release 10.5(x)"
PFC = QOS + ", Configuring Priority Flow Control"
QUEUING = QOS + ", Configuring Queuing and Scheduling"
NETQOS = QOS + ", Configuring Network QoS"
CLASSIFY = QOS + ", Configuring Classification"
IFACE = "Cisco Nexus 9000 Series NX-OS Interfaces Configuration Guide, Release 10.5(x)"
ROUTING = "Cisco Nexus 9000 Series NX-OS Unicast Routing Configuration Guide, Release 10.5(x)"
RDMA = "Cisco Data Center Networking Blueprint for AI/ML Applications (RoCEv2 policy examples)"

N = r"[A-Za-z][A-Za-z0-9_.-]*"
IP = r"\d{1,3}(?:\.\d{1,3}){3}"
PFX = IP + r"/\d{1,2}"
OUT_Q = r"c-out-8q-q[1-7]|c-out-8q-q-default"
IN_Q = r"c-in-q[1-7]|c-in-q-default"
NQ = r"c-8q-nq[1-7]|c-8q-nq-default"

Grammar = dict[str, tuple[str, "Grammar"]]
"""regex of a line in a mode → (source, grammar of its sub-mode)."""

_NONE: Grammar = {}
BFD = IFACE + ", Configuring Bidirectional Forwarding Detection"
RPM = ROUTING + ", Configuring Route Policy Manager"
COMM = r"\d{1,5}:\d{1,5}"
NEIGHBOR_AF: Grammar = {
    r"send-community": (ROUTING + ", Configuring Advanced BGP (send-community)", _NONE),
    rf"route-map (?P<ref_rmap>{N}) (?:in|out)": (ROUTING + ", Configuring Advanced BGP (route-map in/out)", _NONE),
    r"maximum-prefix \d+(?: \d+)?": (ROUTING + ", Configuring Advanced BGP (maximum-prefix)", _NONE),
}
"""A neighbor's or peer template's ``address-family ipv4 unicast`` mode."""
BFD_INTERVAL_MS = (50, 999)
BFD_MULTIPLIER = (1, 50)
"""``bfd interval <50-999> min_rx <50-999> multiplier <1-50>`` (BFD chapter, Configuring BFD on an Interface)."""
POLICY_KINDS = ("plist", "clist", "rmap")
"""Routing-policy names: each one used must be defined, each one defined must be used."""
FUND = "Cisco Nexus 9000 Series NX-OS Fundamentals Configuration Guide, Release 10.5(x)"
SECURITY = "Cisco Nexus 9000 Series NX-OS Security Configuration Guide, Release 10.5(x)"
SYSMGMT = "Cisco Nexus 9000 Series NX-OS System Management Configuration Guide, Release 10.5(x)"
PROG = "Cisco Nexus 9000 Series NX-OS Programmability Guide, Release 10.5(x), NX-API"
GRAMMAR: Grammar = {
    r"hostname \S+": (ROUTING, _NONE),
    r"feature ssh": (SECURITY + ", Configuring SSH and Telnet", _NONE),
    r"feature nxapi": (PROG, _NONE),
    r"username [A-Za-z0-9][A-Za-z0-9._-]* password 5 \S+ role network-(admin|operator)":
        (SECURITY + ", Configuring User Accounts and RBAC", _NONE),
    r"vrf context management": (FUND + ", Using the Management Interface", {
        rf"ip route 0\.0\.0\.0/0 {IP}": (ROUTING + ", Configuring Static Routing", _NONE),
    }),
    r"interface mgmt0": (FUND + ", Using the Management Interface", {
        r"vrf member management": (FUND, _NONE),
        rf"ip address {PFX}": (FUND, _NONE),
    }),
    rf"ntp server {IP} use-vrf management": (SYSMGMT + ", Configuring NTP", _NONE),
    rf"logging server {IP} [0-7] use-vrf management": (SYSMGMT + ", Configuring System Message Logging", _NONE),
    r"snmp-server community \S+ group network-operator": (SYSMGMT + ", Configuring SNMP", _NONE),
    r"snmp-server location [A-Za-z0-9 .,_:/()+@-]+": (SYSMGMT + ", Configuring SNMP", _NONE),
    r"banner motd #[^#]+#": (FUND + ", Configuring the Banner", _NONE),
    r"feature tacacs\+": (SECURITY + ", Configuring TACACS+, Enabling TACACS+", _NONE),
    rf"tacacs-server host {IP} key 0 \S+( port \d+)?":
        (SECURITY + ", Configuring TACACS+, Configuring TACACS+ Server Hosts / Server Preshared Keys / TCP Ports",
         _NONE),
    r"aaa group server tacacs\+ TACACS": (SECURITY + ", Configuring TACACS+ Server Groups", {
        rf"server {IP}": (SECURITY + ", Configuring TACACS+ Server Groups", _NONE),
        r"use-vrf management": (SECURITY + ", Configuring TACACS+ Server Groups", _NONE),
        r"source-interface mgmt0": (SECURITY + ", Configuring the Global Source Interface for TACACS+ Server "
                                              "Groups", _NONE),
    }),
    rf"radius-server host {IP} key 0 \S+( auth-port \d+)? authentication":
        (SECURITY + ", Configuring RADIUS, Configuring RADIUS Server Hosts / Preshared Keys", _NONE),
    r"aaa group server radius RADIUS": (SECURITY + ", Configuring RADIUS Server Groups", {
        rf"server {IP}": (SECURITY + ", Configuring RADIUS Server Groups", _NONE),
        r"use-vrf management": (SECURITY + ", Configuring RADIUS Server Groups", _NONE),
        r"source-interface mgmt0": (SECURITY + ", Configuring the Global Source Interface for RADIUS Server "
                                              "Groups", _NONE),
    }),
    r"aaa authentication login default group (TACACS|RADIUS)( (TACACS|RADIUS))?":
        (SECURITY + ", Configuring AAA, Configuring Default Login Authentication Methods", _NONE),
    # command authorization: "Configuring TACACS+", "Configuring TACACS+ Command Authorization" (`aaa
    # authorization {commands | config-commands} default group <group-list> [local]`, TACACS+ groups only; the
    # same forms in cisco/cisco-network-node-utils cmd_ref/aaa_authorization_service.yaml); accounting:
    # "Configuring AAA", "Configuring AAA Accounting Default Methods" (`aaa accounting default group <group-list>`,
    # RADIUS or TACACS+ server groups)
    r"aaa authorization (commands|config-commands) default group TACACS local":
        (SECURITY + ", Configuring TACACS+, Configuring TACACS+ Command Authorization", _NONE),
    r"aaa accounting default group (TACACS|RADIUS)( (TACACS|RADIUS))?":
        (SECURITY + ", Configuring AAA, Configuring AAA Accounting Default Methods", _NONE),
    # raw-block commands (base.raw.nxos): an IPv4 ACL with sequence-numbered rules (Security Configuration
    # Guide, "Configuring IP ACLs": `ip access-list name`, then `[seq] {permit|deny} protocol source dest`)
    rf"ip access-list {N}": (SECURITY + ", Configuring IP ACLs", {
        rf"\d+ (?:permit|deny) (?:ip|tcp|udp) (?:{PFX}|any) (?:{PFX}|any)(?: eq \d+)?": (SECURITY, _NONE),
    }),
    r"feature (bgp|lldp)": (ROUTING, _NONE),
    r"feature bfd": (BFD + ", Enabling the BFD Feature", _NONE),
    rf"ip prefix-list (?P<def_plist>{N}) seq \d+ (?:permit|deny) {PFX}(?: ge \d+)?(?: le \d+)?": (RPM, _NONE),
    rf"ip community-list standard (?P<def_clist>{N}) seq \d+ (?:permit|deny) {COMM}(?: {COMM})*": (RPM, _NONE),
    rf"route-map (?P<def_rmap>{N}) (?:permit|deny) \d+": (RPM, {
        rf"match ip address prefix-list (?P<ref_plist>{N})": (RPM, _NONE),
        rf"match community (?P<ref_clist>{N})": (RPM, _NONE),
        r"set local-preference \d+": (RPM, _NONE),
        rf"set community {COMM}(?: {COMM})*(?: additive)?": (RPM, _NONE),
    }),
    r"ip load-sharing address source-destination port source-destination": (ROUTING + ", ECMP load sharing", _NONE),
    r"interface breakout module 1 port \d+ map \d+g-\dx": (IFACE + ", breakout", _NONE),
    rf"class-map type qos match-any (?P<def_cmap>{N})": (CLASSIFY, {
        r"match dscp \d+(,\d+)*": (CLASSIFY, _NONE),
    }),
    rf"policy-map type qos (?P<def_pmap_qos>{N})": (CLASSIFY, {
        rf"class (?P<ref_cmap>{N})": (CLASSIFY, {r"set qos-group [0-7]": (CLASSIFY, _NONE)}),
    }),
    rf"policy-map type network-qos (?P<def_pmap_nq>{N})": (NETQOS, {
        rf"class type network-qos (?:{NQ})": (NETQOS, {
            r"pause pfc-cos [0-7]": (PFC, _NONE),
            r"mtu \d+": (NETQOS, _NONE),
        }),
    }),
    rf"policy-map type queuing (?P<def_pmap_q>{N})": (QUEUING, {
        rf"class type queuing (?:{OUT_Q})": (QUEUING, {
            r"priority level 1": (QUEUING, _NONE),
            r"bandwidth remaining percent \d+": (QUEUING, _NONE),
            r"random-detect minimum-threshold \d+ kbytes maximum-threshold \d+ kbytes drop-probability \d+ "
            r"weight 0 ecn": (QUEUING + "; " + RDMA, _NONE),
        }),
        rf"class type queuing (?:{IN_Q})": (PFC, {
            r"pause buffer-size \d+ pause-threshold \d+ resume-threshold \d+": (PFC, _NONE),
        }),
    }),
    r"system qos": (NETQOS, {
        rf"service-policy type network-qos (?P<ref_pmap_nq>{N})": (NETQOS, _NONE),
        rf"service-policy type queuing output (?P<ref_pmap_q>{N})": (QUEUING, _NONE),
    }),
    r"priority-flow-control watch-dog-interval on": (PFC + ", PFC watchdog", _NONE),
    r"priority-flow-control watch-dog interval \d+": (PFC + ", PFC watchdog", _NONE),
    r"priority-flow-control watch-dog shutdown-multiplier ([1-9]|10)": (PFC + ", PFC watchdog", _NONE),
    r"priority-flow-control watch-dog restore-multiplier ([1-9]|10)": (PFC + ", PFC watchdog", _NONE),
    r"interface (?P<def_if>loopback0|Ethernet1/\d+(?:/\d+)?)": (IFACE, {
        r"description .+": (IFACE, _NONE),
        r"no switchport": (IFACE, _NONE),
        r"mtu \d+": (IFACE, _NONE),
        r"speed \d+": (IFACE, _NONE),
        rf"ip address {PFX}": (ROUTING, _NONE),
        r"no ip redirects": (BFD + ", Prerequisites for BFD", _NONE),
        r"bfd interval \d+ min_rx \d+ multiplier \d+": (BFD + ", Configuring BFD on an Interface", _NONE),
        r"priority-flow-control mode on": (PFC, _NONE),
        r"priority-flow-control watch-dog-interval on": (PFC, _NONE),
        rf"service-policy type qos input (?P<ref_pmap_qos>{N})": (CLASSIFY, _NONE),
        rf"service-policy type queuing input (?P<ref_pmap_q>{N})": (PFC, _NONE),
        r"no shutdown": (IFACE, _NONE),
    }),
    r"router bgp \d+": (ROUTING + ", Configuring Basic BGP", {
        rf"router-id {IP}": (ROUTING, _NONE),
        r"bestpath as-path multipath-relax": (ROUTING, _NONE),
        r"address-family ipv4 unicast": (ROUTING, {
            rf"network {PFX}": (ROUTING, _NONE),
            r"maximum-paths \d+": (ROUTING, _NONE),
        }),
        rf"template peer (?P<def_peer>{N})": (ROUTING + ", BGP templates", {
            r"bfd": (BFD + ", Configuring BFD on BGP", _NONE),
            r"description .+": (ROUTING, _NONE),
            r"address-family ipv4 unicast": (ROUTING, NEIGHBOR_AF),
        }),
        rf"neighbor {IP}": (ROUTING, {
            rf"inherit peer (?P<ref_peer>{N})": (ROUTING, _NONE),
            r"remote-as \d+": (ROUTING, _NONE),
            r"description .+": (ROUTING, _NONE),
            r"bfd": (BFD + ", Configuring BFD on BGP", _NONE),
            r"address-family ipv4 unicast": (ROUTING, NEIGHBOR_AF),
        }),
    }),
}


@dataclass
class Node:
    line: str
    line_no: int
    children: list[Node] = field(default_factory=list)

    def child(self, pattern: str) -> list[Node]:
        return [c for c in self.children if re.fullmatch(pattern, c.line)]


def tree(text: str) -> list[Node]:
    """Indentation blocks (two spaces a level) as a tree; ``!`` lines are comments and separators.

    >>> [(n.line, [c.line for c in n.children]) for n in tree("a\\n  b\\n!\\nc\\n")]
    [('a', ['b']), ('c', [])]
    """
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if indent % 2:
            raise ValueError(f"line {n}: odd indentation")
        node = Node(raw.strip(), n)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if indent == 0:
            roots.append(node)
        elif not stack or stack[-1][0] != indent - 2:
            raise ValueError(f"line {n}: indented under nothing")
        else:
            stack[-1][1].children.append(node)
        stack.append((indent, node))
    return roots


def _walk_grammar(nodes: list[Node], grammar: Grammar, names: dict[str, dict[str, set[str] | list[tuple[int, str]]]],
                  errors: list[str]) -> None:
    for node in nodes:
        for pattern, (_source, sub) in grammar.items():
            m = re.fullmatch(pattern, node.line)
            if m is None:
                continue
            for key, value in m.groupdict().items():
                how, _, kind = key.partition("_")
                entry = names.setdefault(kind, {"def": set(), "ref": []})
                if how == "def":
                    entry["def"].add(value)  # type: ignore[union-attr]
                else:
                    entry["ref"].append((node.line_no, value))  # type: ignore[union-attr]
            _walk_grammar(node.children, sub, names, errors)
            break
        else:
            errors.append(f"line {node.line_no}: no documented command in this mode: {node.line}")


SINCE: dict[str, tuple[str, str]] = {}
"""Top-level or sub-mode line (regex) → (first release that has it, source). Only lines a Cisco document
dates after 9.3 belong here; none of the grammar's commands is so dated in the documents at hand (the PFC
watchdog lines are documented in the 10.2(x) QoS guide; for 9.3(x) only the watchdog's fixed restore
multiplier, from 9.3(3), and PFC mode auto/on/off are documented), so every listed release is checked
with the 10.5(x) grammar as it is."""


def _release_errors(nodes: list[Node], release: str, errors: list[str]) -> None:
    for node in nodes:
        for pattern, (since, source) in SINCE.items():
            if re.fullmatch(pattern, node.line) and not at_least(release, since):
                errors.append(f"line {node.line_no}: not in NX-OS {release} (from {since}; {source}): {node.line}")
        _release_errors(node.children, release, errors)


def check(text: str, lossless: set[int], release: str = "10.5") -> list[str]:
    """Every problem of an NX-OS configuration rendered for ``release``, one line each; ``lossless``: the PFC
    priorities it must pause."""
    errors: list[str] = []
    roots = tree(text)
    names: dict[str, dict[str, set[str] | list[tuple[int, str]]]] = {}
    _walk_grammar(roots, GRAMMAR, names, errors)
    _release_errors(roots, release, errors)
    for kind, entry in names.items():
        defined = entry["def"]
        for line_no, value in entry["ref"]:  # type: ignore[misc]
            if value not in defined and not (kind == "cmap" and value == "class-default"):
                errors.append(f"line {line_no}: {kind} {value!r} is used but never defined")
    for kind in POLICY_KINDS:
        entry = names.get(kind, {"def": set(), "ref": []})
        used = {value for _, value in entry["ref"]}  # type: ignore[misc]
        for name in sorted(entry["def"] - used):  # type: ignore[operator]
            errors.append(f"{kind} {name!r} is defined but never used")
    errors += _bfd_errors(roots)
    pause = {int(m) for m in re.findall(r"^    pause pfc-cos (\d)$", text, re.M)}
    if pause != lossless:
        errors.append(f"pause pfc-cos {sorted(pause)} != the lossless priorities {sorted(lossless)}")
    for root in roots:
        if root.line.startswith("policy-map type network-qos "):
            for c in root.children:
                for p in c.child(r"pause pfc-cos \d"):
                    if not c.line.endswith(f"nq{p.line[-1]}"):
                        errors.append(f"line {p.line_no}: pause pfc-cos {p.line[-1]} in class {c.line}")
        if root.line.startswith("policy-map type queuing "):
            for c in root.children:
                for r in c.child(r"random-detect .*"):
                    found = [int(x) for x in re.findall(r"(\d+) kbytes", r.line)]
                    if len(found) != 2:
                        continue  # not in kbytes: already reported by the grammar
                    lo, hi = found
                    if not 0 < lo < hi:
                        errors.append(f"line {r.line_no}: ECN thresholds {lo} / {hi} kbytes")
                for p in c.child(r"pause buffer-size .*"):
                    q = int(c.line[-1]) if c.line[-1].isdigit() else -1
                    if q not in lossless:
                        errors.append(f"line {p.line_no}: ingress pause on queue {q}, not a lossless priority")
        if root.line.startswith("interface Ethernet"):
            lines = {c.line for c in root.children}
            if "priority-flow-control mode on" in lines and not any(
                    x.startswith("service-policy type qos input ") for x in lines):
                errors.append(f"line {root.line_no}: PFC on an unclassified interface")
        if root.line.startswith("router bgp "):
            for line in text.splitlines():
                if re.search(r"filter-list|distribute-list", line):
                    errors.append(f"BGP filters routes: {line.strip()}")
            errors += _session_policy(root, roots)
            connected = [ipaddress.IPv4Interface(m).network for m in re.findall(r"^  ip address (\S+)$", text, re.M)]
            for nb in root.child(r"neighbor \S+"):
                if not any(ipaddress.IPv4Address(nb.line.split()[-1]) in net for net in connected):
                    errors.append(f"line {nb.line_no}: {nb.line} is on no configured interface")
            templates = {t.line.split()[-1]: t for t in root.child(r"template peer \S+")}
            for nb in root.child(r"neighbor \S+"):
                inherit = [c.line.split()[-1] for c in nb.child(r"inherit peer \S+")]
                own = nb.child(r"address-family ipv4 unicast")
                if not own and not any(templates[t].child("address-family ipv4 unicast")
                                       for t in inherit if t in templates):
                    errors.append(f"line {nb.line_no}: {nb.line} is not activated for IPv4 unicast")
                if not nb.child(r"remote-as \d+"):
                    errors.append(f"line {nb.line_no}: {nb.line} has no remote-as")
    return errors


def _all_lines(nodes: list[Node]) -> list[Node]:
    return [x for n in nodes for x in (n, *_all_lines(n.children))]


def _bfd_errors(roots: list[Node]) -> list[str]:
    """`feature bfd` before any BFD command; ICMP redirects off and the timers in range on every BFD
    interface (BFD chapter: "Prerequisites for BFD" and "Configuring BFD on an Interface")."""
    errors: list[str] = []
    uses = [n for n in _all_lines(roots) if n.line == "bfd" or n.line.startswith("bfd ")]
    if uses and not any(r.line == "feature bfd" for r in roots):
        errors.append(f"line {uses[0].line_no}: {uses[0].line!r} without `feature bfd`")
    for root in roots:
        if not root.line.startswith("interface "):
            continue
        for b in root.child(r"bfd interval .*"):
            m = re.fullmatch(r"bfd interval (\d+) min_rx (\d+) multiplier (\d+)", b.line)
            if m is None:
                continue  # already reported by the grammar
            tx, rx, mult = (int(x) for x in m.groups())
            lo, hi = BFD_INTERVAL_MS
            if not (lo <= tx <= hi and lo <= rx <= hi):
                errors.append(f"line {b.line_no}: BFD interval {tx}/{rx} ms outside {lo}-{hi} ms")
            if not BFD_MULTIPLIER[0] <= mult <= BFD_MULTIPLIER[1]:
                errors.append(f"line {b.line_no}: BFD multiplier {mult} outside {BFD_MULTIPLIER[0]}-"
                              f"{BFD_MULTIPLIER[1]}")
            if not root.child(r"no ip redirects"):
                errors.append(f"line {root.line_no}: {root.line} runs BFD without `no ip redirects`")
    return errors


def _session_policy(bgp: Node, roots: list[Node]) -> list[str]:
    """Every neighbor (its own lines and its template's): a route-map each way, a maximum-prefix with a
    warning percentage of 1-100, and `send-community` when its outbound route-map sets communities (NX-OS
    sends none otherwise); a BFD neighbor's interface carries the BFD timers."""
    errors: list[str] = []
    templates = {t.line.split()[-1]: t for t in bgp.child(r"template peer \S+")}
    sets_community = {r.line.split()[1] for r in roots if r.line.startswith("route-map ")
                      and r.child(r"set community .*")}
    bfd_nets = [ipaddress.IPv4Interface(a.line.split()[-1]).network for r in roots
                if r.line.startswith("interface ") and r.child(r"bfd interval .*") for a in r.child(r"ip address \S+")]
    for nb in bgp.child(r"neighbor \S+"):
        sources = [nb, *(templates[t.line.split()[-1]] for t in nb.child(r"inherit peer \S+")
                         if t.line.split()[-1] in templates)]
        af = [c.line for src in sources for a in src.child("address-family ipv4 unicast") for c in a.children]
        out = [x.split()[1] for x in af if re.fullmatch(r"route-map \S+ out", x)]
        if not any(re.fullmatch(r"route-map \S+ in", x) for x in af) or not out:
            errors.append(f"line {nb.line_no}: {nb.line} has no route-map in both directions")
        limits = [x for x in af if x.startswith("maximum-prefix ")]
        if not limits:
            errors.append(f"line {nb.line_no}: {nb.line} has no maximum-prefix")
        for x in limits:
            pct = x.split()[2:]
            if pct and not 1 <= int(pct[0]) <= 100:
                errors.append(f"line {nb.line_no}: {nb.line}: maximum-prefix warning at {pct[0]} %")
        if any(o in sets_community for o in out) and "send-community" not in af:
            errors.append(f"line {nb.line_no}: {nb.line} sets communities on export without send-community")
        if any(src.child("bfd") for src in sources):
            addr = ipaddress.IPv4Address(nb.line.split()[-1])
            if not any(addr in net for net in bfd_nets):
                errors.append(f"line {nb.line_no}: {nb.line} runs BFD on an interface without BFD timers")
    return errors


@dataclass(frozen=True)
class Treatment:
    qos_group: int
    queue_class: str
    no_drop: bool  # network-qos pauses this class's CoS
    ingress_pause: bool  # the ingress port's queuing policy sets pause thresholds for it
    ecn_kbytes: tuple[int, int] | None
    mark_probability: int | None
    strict: bool
    bandwidth_pct: int | None


def walk(text: str, interface: str, dscp: int) -> Treatment:
    """Follow a packet of ``dscp`` arriving on ``interface`` through the classification, the system
    network-qos and the system egress queuing policy."""
    roots = {r.line: r for r in tree(text)}
    port = roots[f"interface {interface}"]
    (cls,) = [c.line.split()[-1] for c in port.child(r"service-policy type qos input \S+")]
    (in_q,) = [c.line.split()[-1] for c in port.child(r"service-policy type queuing input \S+")]
    group = 0
    for c in roots[f"policy-map type qos {cls}"].children:
        name = c.line.split()[-1]
        if name == "class-default":
            matched = True
        else:
            cmap = roots[f"class-map type qos match-any {name}"]
            matched = any(str(dscp) in m.line.split()[-1].split(",") for m in cmap.child(r"match dscp .*"))
        if matched:
            (s,) = c.child(r"set qos-group \d")
            group = int(s.line.split()[-1])
            break
    system = roots["system qos"]
    (nq,) = [c.line.split()[-1] for c in system.child(r"service-policy type network-qos \S+")]
    (eq,) = [c.line.split()[-1] for c in system.child(r"service-policy type queuing output \S+")]
    suffix = str(group) if group else "-default"
    nq_class = roots[f"policy-map type network-qos {nq}"].child(rf"class type network-qos c-8q-nq{suffix}")
    no_drop = bool(nq_class) and bool(nq_class[0].child(rf"pause pfc-cos {group}"))
    ingress = roots[f"policy-map type queuing {in_q}"].child(rf"class type queuing c-in-q{suffix}")
    queue_class = f"c-out-8q-q{suffix}"
    (qc,) = roots[f"policy-map type queuing {eq}"].child(rf"class type queuing {queue_class}")
    red = qc.child(r"random-detect .* ecn")
    ecn = None
    prob = None
    if red:
        lo, hi = (int(x) for x in re.findall(r"(\d+) kbytes", red[0].line))
        ecn = (lo, hi)
        prob = int(re.search(r"drop-probability (\d+)", red[0].line).group(1))  # type: ignore[union-attr]
    bw = qc.child(r"bandwidth remaining percent \d+")
    return Treatment(group, queue_class, no_drop, bool(ingress and ingress[0].child(r"pause buffer-size .*")),
                     ecn, prob, bool(qc.child(r"priority level 1")), int(bw[0].line.split()[-1]) if bw else None)
