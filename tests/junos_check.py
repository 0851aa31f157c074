"""Junos checker: a structural validator of ``set`` configurations, a policy-statement evaluator and a CoS
packet walk, written from Juniper's documented hierarchy (no Junos parser runs here).

Release targeted: Junos OS Evolved 23.4 on QFX5230/QFX5240 (the AI/ML data center JVD's switches).
:func:`check` takes the release the configuration was rendered for; a statement :data:`SINCE` dates
from a later release is reported (the Junos CLI reference's "Release Information" of each statement).
Every statement fabricgen may render is a row of :data:`GRAMMAR`: a pattern of keywords and typed slots,
and the Juniper document the statement is taken from. A slot ``<kind:def>`` defines a name of that kind
(a forwarding class, a scheduler, …), ``<kind:ref>`` uses one; :func:`check` reports every line no row
matches, every reference to an undefined name, and the lossless wiring rules (every no-loss forwarding
class has a PFC priority, an input DSCP PFC code point and an output flow-control queue; no two
forwarding classes share a queue; transmit rates fit in 100 %).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from fabricgen.inventory.releases import at_least

CLI = "Junos CLI Reference (juniper.net/documentation/us/en/software/junos/cli-reference)"
TM = "Junos Traffic Management User Guide for QFX (juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx)"
DSCP_PFC = ("Configuring DSCP-based PFC for Layer 3 Untagged Traffic (juniper.net/documentation/us/en/software/"
            "junos/ai-ml-evo/cos/topics/task/cos-configuring-l3-dscp-pfc.html)")
WATCHDOG = ("PFC Watchdog, Junos Class of Service User Guide (juniper.net/documentation/us/en/software/junos/cos/"
            "topics/topic-map/cos-pfc-watchdog-configure.html)")
POLICY = "Junos Routing Policies, Firewall Filters, and Traffic Policers User Guide"
BUFFER = "Configuring Global Ingress and Egress Shared Buffers; buffer-partition (Ingress)/(Egress), " + TM

# pattern → source. Slots: <str> <int> <pct> <ip> <prefix> <speed> <bits6> <bits3> <bits6list> <pctlist>
# <queue> <prio> and <kind:def|ref> names.
GRAMMAR: dict[str, str] = {
    "system host-name <str>": CLI + ": host-name",
    "system description <str>": CLI + ": description (System)",
    "system management-instance": CLI + ": management-instance; Junos OS Evolved names the management port re0:mgmt-0",
    "routing-instances mgmt_junos routing-options static route 0.0.0.0/0 next-hop <ip>":
        CLI + ": management-instance; static (Routing Options)",
    "system login user <str> class super-user": CLI + ": class (Defining Login Classes); user (Access)",
    "system login user <str> class read-only": CLI + ": class (Defining Login Classes); user (Access)",
    "system login user <str> authentication encrypted-password <str>": CLI + ": encrypted-password",
    "system services ssh": CLI + ": ssh (System Services)",
    "system services netconf ssh": CLI + ": netconf (System Services)",
    "system ntp server <ip> routing-instance mgmt_junos": CLI + ": server (NTP)",
    "system syslog host <ip> any info": CLI + ": host (System Logging)",
    "system syslog host <ip> routing-instance mgmt_junos": CLI + ": host (System Logging)",
    "snmp community <str> authorization read-only": CLI + ": community (SNMP)",
    "snmp location <str>": CLI + ": location (SNMP)",
    "snmp routing-instance-access": CLI + ": routing-instance-access",
    "system login message <str>": CLI + ": message (System Login)",
    "system tacplus-server <ip> port <int>": CLI + ": tacplus-server; port (TACACS+)",
    "system tacplus-server <ip> secret <str>": CLI + ": tacplus-server; secret",
    "system tacplus-server <ip> routing-instance mgmt_junos":
        "Junos User Access and Authentication Guide, TACACS+ Authentication: Configure TACACS+ to Use the "
        "Management Instance",
    "system radius-server <ip> port <int>": CLI + ": radius-server; port (RADIUS)",
    "system radius-server <ip> secret <str>": CLI + ": radius-server; secret",
    "system radius-server <ip> routing-instance mgmt_junos":
        "Junos User Access and Authentication Guide, RADIUS Authentication: Configure RADIUS to Use the "
        "Management Instance",
    "system authentication-order <authorder>": CLI + ": authentication-order (tacplus, radius, password)",
    "system accounting events <acctevents>":
        CLI + ": events (System Accounting) (login, change-log, interactive-commands)",
    "system accounting destination tacplus":
        CLI + ": destination (System Accounting); Junos User Access and Authentication Guide, Configuring TACACS+ "
        "System Accounting (no server under the destination: the servers of system tacplus-server)",
    "system accounting destination radius":
        CLI + ": destination (System Accounting); Junos User Access and Authentication Guide, Configuring RADIUS "
        "System Accounting (no server under the destination: the servers of system radius-server)",
    "interfaces <if:def> number-of-sub-ports <int>": CLI + ": number-of-sub-ports",
    "interfaces <if:def> speed <speed>": CLI + ": speed (Ethernet)",
    "interfaces <if:def> description <str>": CLI + ": description (Interfaces)",
    "interfaces <if:def> mtu <int>": CLI + ": mtu (Interfaces)",
    "interfaces <if:def> unit <int> family inet address <prefix>": CLI + ": address (Interfaces)",
    "interfaces <if:def> unit <int> family inet mtu <int>": CLI + ": mtu (Interfaces), family inet",
    "protocols lldp interface all": CLI + ": interface (LLDP)",
    "forwarding-options hash-key family inet layer-3": CLI + ": hash-key (Forwarding Options)",
    "forwarding-options hash-key family inet layer-4": CLI + ": hash-key (Forwarding Options)",
    "routing-options router-id <ip>": CLI + ": router-id",
    "routing-options autonomous-system <int>": CLI + ": autonomous-system",
    "routing-options forwarding-table export <policy:ref>": CLI + ": export (Routing Options)",
    "policy-options policy-statement <policy:def> then load-balance per-packet": CLI + ": load-balance",
    "policy-options policy-statement <policy:def> term <str> from route-filter <prefix> exact": CLI + ": route-filter",
    "policy-options policy-statement <policy:def> term <str> from route-filter <prefix> orlonger":
        CLI + ": route-filter",
    "policy-options policy-statement <policy:def> term <str> from protocol <proto>": CLI + ": from (Policy Options)",
    "policy-options policy-statement <policy:def> term <str> then accept": CLI + ": then (Policy Options)",
    "policy-options policy-statement <policy:def> term <str> then reject": CLI + ": then (Policy Options)",
    "policy-options policy-statement <policy:def> term <str> then next term": CLI + ": then (Policy Options)",
    "policy-options policy-statement <policy:def> term <str> from route-filter <prefix> prefix-length-range <plrange>":
        CLI + ": route-filter; " + POLICY + ", How Route Filters Are Evaluated in Routing Policy Match Conditions",
    "policy-options policy-statement <policy:def> term <str> from community <community:ref>":
        CLI + ": from (Policy Options), community",
    "policy-options policy-statement <policy:def> term <str> from prefix-list <plist:ref>":
        CLI + ": prefix-list (Policy Options), from (Policy Options)",
    "policy-options policy-statement <policy:def> term <str> then local-preference <u32>":
        CLI + ": local-preference (Policy Options)",
    "policy-options policy-statement <policy:def> term <str> then community add <community:ref>":
        CLI + ": community (Policy Options Then), then (Policy Options)",
    "policy-options community <community:def> members <comm>": CLI + ": community (Policy Options)",
    "policy-options prefix-list <plist:def> <prefix>": CLI + ": prefix-list (Policy Options)",
    "protocols bgp group <group:def> type external": CLI + ": type (BGP)",
    "protocols bgp group <group:def> description <str>": CLI + ": description (Protocols BGP)",
    "protocols bgp group <group:def> family inet unicast": CLI + ": family (Protocols BGP)",
    "protocols bgp group <group:def> export <policy:ref>": CLI + ": export (Protocols BGP)",
    "protocols bgp group <group:def> import <policy:ref>": CLI + ": import (Protocols BGP)",
    "protocols bgp group <group:def> family inet unicast prefix-limit maximum <pos32>":
        CLI + ": prefix-limit (Protocols BGP), maximum 1-4294967295",
    "protocols bgp group <group:def> family inet unicast prefix-limit teardown <pct1>":
        CLI + ": prefix-limit (Protocols BGP), teardown <percentage> 1-100",
    "protocols bgp group <group:def> multipath": CLI + ": multipath (Protocols BGP)",
    "protocols bgp group <group:def> multipath multiple-as": CLI + ": multipath (Protocols BGP)",
    "protocols bgp group <group:def> bfd-liveness-detection minimum-interval <bfdms>":
        CLI + ": bfd-liveness-detection (Protocols BGP)",
    "protocols bgp group <group:def> bfd-liveness-detection multiplier <bfdmult>":
        CLI + ": bfd-liveness-detection (Protocols BGP)",
    "protocols bgp group <group:def> neighbor <ip> description <str>": CLI + ": neighbor (Protocols BGP)",
    "protocols bgp group <group:def> neighbor <ip> peer-as <int>": CLI + ": peer-as (BGP)",
    "class-of-service shared-buffer ingress percent <pct>": BUFFER + "; ingress (Buffer Configuration)",
    "class-of-service shared-buffer egress percent <pct>": BUFFER + "; egress (Buffer Configuration)",
    "class-of-service shared-buffer ingress buffer-partition lossless percent <pct>": BUFFER,
    "class-of-service shared-buffer ingress buffer-partition lossless-headroom percent <pct>": BUFFER,
    "class-of-service shared-buffer ingress buffer-partition lossy percent <pct>": BUFFER,
    "class-of-service shared-buffer egress buffer-partition lossless percent <pct>": BUFFER,
    "class-of-service shared-buffer egress buffer-partition lossy percent <pct>": BUFFER,
    "class-of-service shared-buffer egress buffer-partition multicast percent <pct>": BUFFER,
    "class-of-service forwarding-classes class <fc:def> queue-num <queue>": CLI + ": class (Forwarding Classes)",
    "class-of-service forwarding-classes class <fc:def> queue-num <queue> no-loss":
        CLI + ": class (Forwarding Classes)",
    "class-of-service forwarding-classes class <fc:def> pfc-priority <prio>": DSCP_PFC + "; " + CLI + ": pfc-priority",
    "class-of-service host-outbound-traffic forwarding-class <fc:ref>":
        "Understanding Host Routing Engine Outbound Traffic Queues and Defaults, " + TM,
    "class-of-service classifiers dscp <classifier:def> forwarding-class <fc:ref> loss-priority low code-points"
    " <bits6list>": CLI + ": classifiers",
    "class-of-service drop-profiles <dp:def> interpolate fill-level <pctlist> drop-probability <pctlist>":
        CLI + ": drop-profiles, fill-level",
    "class-of-service schedulers <sched:def> priority strict-high": CLI + ": priority (Schedulers)",
    "class-of-service schedulers <sched:def> priority low": CLI + ": priority (Schedulers)",
    "class-of-service schedulers <sched:def> transmit-rate percent <pct>": CLI + ": transmit-rate",
    "class-of-service schedulers <sched:def> drop-profile-map loss-priority any protocol any drop-profile <dp:ref>":
        CLI + ": drop-profile-map",
    "class-of-service schedulers <sched:def> explicit-congestion-notification":
        CLI + ": explicit-congestion-notification",
    "class-of-service scheduler-maps <smap:def> forwarding-class <fc:ref> scheduler <sched:ref>":
        CLI + ": scheduler-maps",
    "class-of-service congestion-notification-profile <cnp:def> input dscp code-point <bits6> pfc": DSCP_PFC,
    "class-of-service congestion-notification-profile <cnp:def> output ieee-802.1 code-point <bits3>"
    " flow-control-queue <queue>": CLI + ": code-point (Output Congestion Notification)",
    "class-of-service congestion-notification-profile <cnp:def> input cable-length <int>":
        CLI + ": input (Congestion Notification), cable-length",
    "class-of-service congestion-notification-profile <cnp:def> pfc-watchdog poll-interval <poll>": WATCHDOG,
    "class-of-service congestion-notification-profile <cnp:def> pfc-watchdog detection <int>": WATCHDOG,
    "class-of-service congestion-notification-profile <cnp:def> pfc-watchdog recovery <int>": WATCHDOG,
    "class-of-service interfaces <if:ref> scheduler-map <smap:ref>": CLI + ": scheduler-map (Interfaces)",
    "class-of-service interfaces <if:ref> congestion-notification-profile <cnp:ref>":
        CLI + ": congestion-notification-profile",
    "class-of-service interfaces <if:ref> unit <int> classifiers dscp <classifier:ref>": CLI + ": classifiers",
    # raw-block statements (base.raw.junos)
    "system time-zone <str>": CLI + ": time-zone",
    "system name-server <ip>": CLI + ": name-server (System Services)",
    "system syslog file <str> any <severity>": CLI + ": file (System Logging)",
    "system syslog file <str> interactive-commands <severity>": CLI + ": file (System Logging)",
    "firewall family inet filter <str> term <str> from source-address <prefix>": CLI + ": from (Firewall Filter)",
    "firewall family inet filter <str> term <str> then accept": CLI + ": then (Firewall Filter)",
    "firewall family inet filter <str> term <str> then discard": CLI + ": then (Firewall Filter)",
}

SINCE: dict[str, tuple[str, str]] = {
    "class-of-service forwarding-classes class <fc:def> pfc-priority <prio>":
        ("17.4", CLI + ": pfc-priority, \"Statement introduced in Junos OS Release 17.4R1\""),
    "class-of-service congestion-notification-profile <cnp:def> input dscp code-point <bits6> pfc":
        ("17.4", CLI + ": dscp (Input Congestion Notification), \"Statement introduced in Junos OS Release 17.4R1\""),
}
"""GRAMMAR pattern → (first release that has it, source). Patterns not listed: no release information was
found that dates them after 17.4; they are taken as present in every release fabricgen renders for."""

_ENUMS = {
    "proto": {"bgp", "direct", "static", "local", "aggregate"},
    "poll": {"10", "100", "1000"},
    "severity": {"any", "emergency", "alert", "critical", "error", "warning", "notice", "info", "none"},
}
_IFNAME = re.compile(r"^(?:et|xe|ge)-\d+/\d+/\d+(?::\d+)?$|^lo0$|^re[01]:mgmt-[01]$")


def tokens(line: str) -> list[str]:
    """A ``set`` line's words; a ``[ a b ]`` list becomes one word ``"[a b]"``; quotes are removed.

    >>> tokens('set a "x y" code-points [ 011 100 ]')
    ['set', 'a', 'x y', 'code-points', '[011 100]']
    """
    out: list[str] = []
    words = shlex.split(line)
    i = 0
    while i < len(words):
        if words[i] == "[":
            j = words.index("]", i)
            out.append("[" + " ".join(words[i + 1:j]) + "]")
            i = j + 1
        else:
            out.append(words[i])
            i += 1
    return out


def _slot_ok(kind: str, value: str) -> bool:
    def pct(v: str) -> bool:
        return v.isdigit() and 0 <= int(v) <= 100

    if kind == "str":
        return bool(value) and "\n" not in value
    if kind == "int":
        return value.isdigit()
    if kind == "pct":
        return pct(value)
    if kind == "pct1":
        return value.isdigit() and 1 <= int(value) <= 100
    if kind == "pos32":
        return value.isdigit() and 1 <= int(value) <= 4_294_967_295
    if kind == "u32":
        return value.isdigit() and 0 <= int(value) <= 4_294_967_295
    if kind == "bfdms":  # bfd-liveness-detection minimum-interval 1-255000 ms
        return value.isdigit() and 1 <= int(value) <= 255_000
    if kind == "bfdmult":  # bfd-liveness-detection multiplier 1-255
        return value.isdigit() and 1 <= int(value) <= 255
    if kind == "comm":  # as-number:community-value, each 0-65535 ("community (Policy Options)")
        m = re.fullmatch(r"(\d+):(\d+)", value)
        return m is not None and all(int(x) <= 65_535 for x in m.groups())
    if kind == "plrange":  # /low-/high, 0 <= low <= high <= 32 (IPv4)
        m = re.fullmatch(r"/(\d+)-/(\d+)", value)
        return m is not None and int(m.group(1)) <= int(m.group(2)) <= 32
    if kind == "queue":
        return value.isdigit() and 0 <= int(value) <= 7
    if kind == "prio":
        return value.isdigit() and 0 <= int(value) <= 7
    if kind == "speed":
        return re.fullmatch(r"\d+g", value) is not None
    if kind == "bits6":
        return re.fullmatch(r"[01]{6}", value) is not None
    if kind == "bits3":
        return re.fullmatch(r"[01]{3}", value) is not None
    if kind == "bits6list":
        items = value[1:-1].split()
        return value.startswith("[") and bool(items) and all(re.fullmatch(r"[01]{6}", x) for x in items)
    if kind == "authorder":
        items = value[1:-1].split()
        return (value.startswith("[") and bool(items) and len(set(items)) == len(items)
                and set(items) <= {"tacplus", "radius", "password"})
    if kind == "acctevents":
        items = value[1:-1].split()
        return (value.startswith("[") and bool(items) and len(set(items)) == len(items)
                and set(items) <= {"login", "change-log", "interactive-commands"})
    if kind == "pctlist":
        items = value[1:-1].split()
        return value.startswith("[") and bool(items) and all(pct(x) for x in items)
    if kind == "ip":
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            return False
        return True
    if kind == "prefix":
        try:
            ipaddress.IPv4Interface(value)
        except ValueError:
            return False
        return "/" in value
    if kind in _ENUMS:
        return value in _ENUMS[kind]
    if kind == "if":
        return _IFNAME.match(value) is not None
    return re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", value) is not None  # a defined/referenced name


@dataclass
class Statement:
    line_no: int
    words: list[str]
    pattern: str
    values: dict[str, str]  # slot position name ("fc:def@3") → value
    named: list[tuple[str, str, str]]  # (kind, def|ref, value)


@dataclass
class Parsed:
    statements: list[Statement] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def where(self, prefix: Iterable[str]) -> list[list[str]]:
        """Word lists (without ``set``) of the statements starting with ``prefix``."""
        p = list(prefix)
        return [s.words for s in self.statements if s.words[:len(p)] == p]

    def defined(self, kind: str) -> set[str]:
        return {v for s in self.statements for k, how, v in s.named if k == kind and how == "def"}


def _match(words: list[str], pattern: str) -> list[tuple[str, str, str]] | None:
    parts = pattern.split()
    if len(parts) != len(words):
        return None
    named: list[tuple[str, str, str]] = []
    for part, word in zip(parts, words, strict=True):
        if part.startswith("<"):
            slot = part[1:-1]
            kind, _, how = slot.partition(":")
            if not _slot_ok(kind, word):
                return None
            if how:
                named.append((kind, how, word))
        elif part != word:
            return None
    return named


def parse(text: str) -> Parsed:
    """Every line matched against :data:`GRAMMAR`; unknown statements are errors ``line N: …``."""
    out = Parsed()
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        words = tokens(raw)
        if words[0] != "set":
            out.errors.append(f"line {n}: not a set statement: {raw}")
            continue
        for pattern in GRAMMAR:
            named = _match(words[1:], pattern)
            if named is not None:
                out.statements.append(Statement(n, words[1:], pattern, {}, named))
                break
        else:
            out.errors.append(f"line {n}: no documented statement matches: {raw}")
    return out


def check(text: str, release: str = "23.4") -> list[str]:
    """Every problem of a Junos ``set`` configuration rendered for ``release``, one line each (empty: it
    passes)."""
    p = parse(text)
    errors = list(p.errors)
    for s in p.statements:
        since = SINCE.get(s.pattern)
        if since is not None and not at_least(release, since[0]):
            errors.append(f"line {s.line_no}: not in Junos {release} (from {since[0]}; {since[1]}): "
                          + " ".join(s.words))
    defined = {k: p.defined(k) for k in ("fc", "policy", "sched", "dp", "classifier", "smap", "cnp", "if", "group",
                                         "community", "plist")}
    for s in p.statements:
        for kind, how, value in s.named:
            if how == "ref" and value not in defined.get(kind, set()):
                errors.append(f"line {s.line_no}: {kind} {value!r} is used but never defined")
    errors += _routing_problems(p, defined)
    # forwarding classes: one queue each, lossless ones tied to a PFC priority
    queue_of: dict[str, int] = {}
    lossless: set[str] = set()
    pfc_prio: dict[str, int] = {}
    for w in p.where(["class-of-service", "forwarding-classes", "class"]):
        if w[4] == "queue-num":
            queue_of[w[3]] = int(w[5])
            if w[-1] == "no-loss":
                lossless.add(w[3])
        elif w[4] == "pfc-priority":
            pfc_prio[w[3]] = int(w[5])
    by_queue: dict[int, list[str]] = {}
    for fc, queue in queue_of.items():
        by_queue.setdefault(queue, []).append(fc)
    for queue, fcs in by_queue.items():
        if len(fcs) > 1:
            errors.append(f"queue {queue} is shared by forwarding classes {sorted(fcs)}")
    # the routing engine's own traffic (default: forwarding class network-control, queue 7 on QFX; "Default
    # forwarding classes", Junos traffic management guide for QFX) must not share a queue with a lane
    host = [w[-1] for w in p.where(["class-of-service", "host-outbound-traffic", "forwarding-class"])]
    host_queue = queue_of.get(host[0], -1) if host else 7
    sharing = sorted(fc for fc, q in queue_of.items() if q == host_queue and fc not in host)
    if sharing:
        errors.append(f"routing-engine traffic (queue {host_queue}) shares its queue with {sharing}")
    cnps = defined["cnp"]
    for fc in sorted(lossless):
        if fc not in pfc_prio:
            errors.append(f"no-loss forwarding class {fc} has no pfc-priority")
            continue
        bits = f"{pfc_prio[fc]:03b}"
        dscps = {b for w in p.where(["class-of-service", "classifiers", "dscp"]) if w[5] == fc
                 for b in w[-1][1:-1].split()}
        for cnp in sorted(cnps):
            out = [w for w in p.where(["class-of-service", "congestion-notification-profile", cnp, "output"])
                   if w[6] == bits]
            if not out or int(out[0][-1]) != queue_of[fc]:
                errors.append(f"congestion-notification-profile {cnp}: no output code-point {bits} "
                              f"flow-control-queue {queue_of[fc]} for {fc}")
            pfc_in = {w[6] for w in p.where(["class-of-service", "congestion-notification-profile", cnp, "input",
                                             "dscp"])}
            if not dscps <= pfc_in:
                errors.append(f"congestion-notification-profile {cnp}: DSCPs {sorted(dscps - pfc_in)} of {fc} "
                              "do not trigger PFC")
    for cnp in sorted(cnps):
        body = p.where(["class-of-service", "congestion-notification-profile", cnp])
        if any(w[3] == "pfc-watchdog" for w in body) and not any(w[3] == "output" for w in body):
            errors.append(f"congestion-notification-profile {cnp}: pfc-watchdog without a flow-control-queue")
    for fc in sorted(set(pfc_prio) - lossless):
        errors.append(f"forwarding class {fc} has a pfc-priority but is not no-loss")
    # schedulers: rates within 100 % per scheduler map; drop profiles monotonic
    rate = {w[2]: int(w[-1]) for w in p.where(["class-of-service", "schedulers"]) if w[3] == "transmit-rate"}
    maps: dict[str, list[str]] = {}
    for w in p.where(["class-of-service", "scheduler-maps"]):
        maps.setdefault(w[2], []).append(w[-1])
    for name in maps:  # a class left out of a map falls back to the default scheduler on that port
        mapped = {w[4] for w in p.where(["class-of-service", "scheduler-maps", name])}
        if set(queue_of) - mapped:
            errors.append(f"scheduler-map {name} has no scheduler for {sorted(set(queue_of) - mapped)}")
    for name, scheds in maps.items():
        total = sum(rate.get(s, 0) for s in scheds)
        if total > 100:
            errors.append(f"scheduler-map {name}: transmit rates add up to {total} %")
    for w in p.where(["class-of-service", "drop-profiles"]):
        levels = [int(x) for x in w[5][1:-1].split()]
        if levels != sorted(set(levels)) or levels[-1] >= 100:
            errors.append(f"drop-profile {w[2]}: fill levels {levels} must rise and stay below 100")
    # each direction's shared-buffer partitions, when configured, add up to exactly 100 % (a commit error
    # otherwise: "buffer-partition (Ingress)/(Egress)"); the lossless partition is at least 5 %
    for direction, parts in (("ingress", {"lossless", "lossless-headroom", "lossy"}),
                             ("egress", {"lossless", "lossy", "multicast"})):
        got = {w[4]: int(w[-1]) for w in p.where(["class-of-service", "shared-buffer", direction, "buffer-partition"])}
        if got and (set(got) != parts or sum(got.values()) != 100 or got["lossless"] < 5):
            errors.append(f"shared-buffer {direction} partitions {got} must be {sorted(parts)} adding up to 100 %")
    connected = [ipaddress.IPv4Interface(w[-1]).network for w in p.where(["interfaces"])
                 if w[-3:-1] == ["inet", "address"]]
    for w in p.where(["protocols", "bgp", "group"]):
        if w[4] == "neighbor" and w[6] == "peer-as" and not any(
                ipaddress.IPv4Address(w[5]) in net for net in connected):
            errors.append(f"bgp neighbor {w[5]} is on no configured interface")
    return errors


def _routing_problems(p: Parsed, defined: dict[str, set[str]]) -> list[str]:
    """Every policy-statement, community and prefix-list defined is used; every BGP group imports and exports
    a policy and has a prefix limit (maximum and teardown); a route-filter's prefix-length-range starts at or
    beyond the filter's own prefix length (a commit error otherwise)."""
    errors: list[str] = []
    used = {(k, v) for s in p.statements for k, how, v in s.named if how == "ref"}
    for kind in ("policy", "community", "plist"):
        for name in sorted(defined[kind]):
            if (kind, name) not in used:
                errors.append(f"{kind} {name!r} is defined but never used")
    for group in sorted(defined["group"]):
        body = p.where(["protocols", "bgp", "group", group])
        for what in ("import", "export"):
            if not any(w[4] == what for w in body):
                errors.append(f"bgp group {group} has no {what} policy")
        limit = {w[8] for w in body if w[4:8] == ["family", "inet", "unicast", "prefix-limit"]}
        if limit != {"maximum", "teardown"}:
            errors.append(f"bgp group {group} has no prefix-limit maximum and teardown")
    for w in p.where(["policy-options", "policy-statement"]):
        if w[5:7] == ["from", "route-filter"] and w[8] == "prefix-length-range":
            low = int(w[9].split("-")[0][1:])
            if low < ipaddress.IPv4Network(w[7]).prefixlen:
                errors.append(f"route-filter {w[7]} prefix-length-range {w[9]} starts below the prefix length")
    return errors


# --------------------------------------------------------------------------- routing policy evaluator


@dataclass(frozen=True)
class Route:
    prefix: str
    protocol: str  # "direct" (a local address), "bgp" (learned), "static", …
    communities: frozenset[str] = frozenset()
    local_preference: int = 100  # BGP's default; not carried over eBGP, so a received route starts at 100


@dataclass
class Term:
    name: str
    filters: list[tuple[str, str]] = field(default_factory=list)  # (prefix, exact|orlonger|/low-/high)
    protocols: list[str] = field(default_factory=list)
    communities: list[frozenset[str]] = field(default_factory=list)  # `from community`: the members of each
    prefix_list: set[str] = field(default_factory=set)  # `from prefix-list`: the prefixes of the lists named
    local_preference: int | None = None  # `then local-preference`
    community_add: set[str] = field(default_factory=set)  # `then community add`: the members added
    action: str | None = None  # accept | reject | next-term | None (no terminating action)


def _named_sets(text: str, kind: str) -> dict[str, set[str]]:
    """``policy-options community NAME members X`` / ``policy-options prefix-list NAME PREFIX``: name → values."""
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        w = tokens(line) if line.startswith(f"set policy-options {kind} ") else []
        if kind == "community" and len(w) == 6 and w[4] == "members":
            out.setdefault(w[3], set()).add(w[5])
        elif kind == "prefix-list" and len(w) == 5:
            out.setdefault(w[3], set()).add(w[4])
    return out


def policies(text: str) -> dict[str, list[Term]]:
    """The policy-statements of a configuration: name → terms in order of first appearance, with the
    communities and prefix-lists they name resolved to their members."""
    comms, plists = _named_sets(text, "community"), _named_sets(text, "prefix-list")
    out: dict[str, dict[str, Term]] = {}
    for line in text.splitlines():
        w = tokens(line) if line.startswith("set policy-options policy-statement ") else []
        if len(w) < 6 or w[4] != "term":
            continue
        term = out.setdefault(w[3], {}).setdefault(w[5], Term(w[5]))
        rest = w[6:]
        if rest[:2] == ["from", "route-filter"]:
            term.filters.append((rest[2], rest[4] if rest[3] == "prefix-length-range" else rest[3]))
        elif rest[:2] == ["from", "protocol"]:
            term.protocols.append(rest[2])
        elif rest[:2] == ["from", "community"]:
            term.communities.append(frozenset(comms[rest[2]]))
        elif rest[:2] == ["from", "prefix-list"]:
            term.prefix_list |= plists[rest[2]]
        elif rest[:2] == ["then", "local-preference"]:
            term.local_preference = int(rest[2])
        elif rest[:3] == ["then", "community", "add"]:
            term.community_add |= comms[rest[3]]
        elif rest[:1] == ["then"]:
            term.action = "next-term" if rest[1:] == ["next", "term"] else rest[1]
    return {name: list(terms.values()) for name, terms in out.items()}


def _filter_matches(prefix: str, flt: str, how: str) -> bool:
    route, f = ipaddress.IPv4Network(prefix), ipaddress.IPv4Network(flt)
    if how == "exact":
        return route == f
    if how == "orlonger":
        return route.subnet_of(f)
    m = re.fullmatch(r"/(\d+)-/(\d+)", how)
    if m:
        return route.subnet_of(f) and int(m.group(1)) <= route.prefixlen <= int(m.group(2))
    raise ValueError(f"route-filter match type {how!r} not modelled")


def _filters_match(prefix: str, filters: list[tuple[str, str]]) -> bool:
    """Junos evaluates a term's route-filters by longest match: of the filters whose prefix covers the route,
    those with the longest prefix are kept and the route matches if one of their match types holds ("How Route
    Filters Are Evaluated in Routing Policy Match Conditions", Junos routing policy user guide)."""
    route = ipaddress.IPv4Network(prefix)
    covering = [(f, h) for f, h in filters if route.subnet_of(ipaddress.IPv4Network(f))]
    if not covering:
        return False
    longest = max(ipaddress.IPv4Network(f).prefixlen for f, _ in covering)
    return any(_filter_matches(prefix, f, h) for f, h in covering if ipaddress.IPv4Network(f).prefixlen == longest)


def _term_matches(t: Term, route: Route) -> bool:
    """Every kind of ``from`` condition the term has must hold (AND); within one kind, any value (OR); a
    community matches when the route carries all of its members."""
    if t.filters and not _filters_match(route.prefix, t.filters):
        return False
    if t.protocols and route.protocol not in t.protocols:
        return False
    if t.prefix_list and route.prefix not in t.prefix_list:
        return False
    return not t.communities or any(members <= route.communities for members in t.communities)


def evaluate(chain: list[list[Term]], route: Route, default_accept: bool) -> Route | None:
    """The route a policy chain lets through (with its ``then`` modifications), or None when it rejects it.
    Junos semantics: a matching term applies its modifications; its accept/reject ends the evaluation; the
    first policy of the chain that decides wins; with no decision the protocol's default policy decides."""
    current = route
    for terms in chain:
        for t in terms:
            if not _term_matches(t, current):
                continue
            if t.local_preference is not None:
                current = dataclasses.replace(current, local_preference=t.local_preference)
            if t.community_add:
                current = dataclasses.replace(current, communities=current.communities | t.community_add)
            if t.action in ("accept", "reject"):
                return current if t.action == "accept" else None
    return current if default_accept else None


def export_route(chain: list[list[Term]], route: Route) -> Route | None:
    """BGP export: with no decision, BGP's default export policy sends active BGP routes only."""
    return evaluate(chain, route, route.protocol == "bgp")


def import_route(chain: list[list[Term]], route: Route) -> Route | None:
    """BGP import: with no decision, BGP's default import policy accepts every route."""
    return evaluate(chain, route, True)


def evaluate_export(chain: list[list[Term]], route: Route) -> bool:
    """Whether BGP exports ``route`` through the policy chain."""
    return export_route(chain, route) is not None


def bgp_chain(text: str, group: str, direction: str) -> list[list[Term]]:
    """The policies of BGP group ``group`` in ``direction`` ("import" or "export"), in order."""
    pols = policies(text)
    names = [tokens(line)[-1] for line in text.splitlines()
             if line.startswith(f"set protocols bgp group {group} {direction} ")]
    return [pols[n] for n in names]


def bgp_export_chain(text: str, group: str) -> list[list[Term]]:
    return bgp_chain(text, group, "export")


# --------------------------------------------------------------------------- CoS packet walk


@dataclass(frozen=True)
class Treatment:
    forwarding_class: str
    queue: int
    lossless: bool
    pfc_priority: int | None
    pauses_on_dscp: bool  # the ingress CNP sends PAUSE for this DSCP
    flow_control_queue: int | None  # queue stopped by a received PAUSE of that priority
    ecn: bool
    fill_levels: tuple[int, ...] | None
    mark_probability: int | None
    strict: bool
    transmit_pct: int | None


def walk(text: str, ingress: str, egress: str, dscp: int) -> Treatment:
    """Follow a packet of ``dscp`` from interface ``ingress`` to ``egress`` through the rendered CoS."""
    p = parse(text)
    bits = f"{dscp:06b}"
    (classifier,) = [w[-1] for w in p.where(["class-of-service", "interfaces", ingress, "unit"])
                     if w[5] == "classifiers"]
    (fc,) = [w[5] for w in p.where(["class-of-service", "classifiers", "dscp", classifier])
             if bits in w[-1][1:-1].split()]
    fcw = p.where(["class-of-service", "forwarding-classes", "class", fc])
    queue = next(int(w[5]) for w in fcw if w[4] == "queue-num")
    lossless = any(w[4] == "queue-num" and w[-1] == "no-loss" for w in fcw)
    prio = next((int(w[5]) for w in fcw if w[4] == "pfc-priority"), None)
    (cnp,) = [w[-1] for w in p.where(["class-of-service", "interfaces", ingress])
              if w[3] == "congestion-notification-profile"]
    cnpw = p.where(["class-of-service", "congestion-notification-profile", cnp])
    pauses = any(w[3:7] == ["input", "dscp", "code-point", bits] for w in cnpw)
    fcq = None
    if prio is not None:
        fcq = next((int(w[-1]) for w in cnpw if w[3] == "output" and w[6] == f"{prio:03b}"), None)
    (smap,) = [w[-1] for w in p.where(["class-of-service", "interfaces", egress]) if w[3] == "scheduler-map"]
    (sched,) = [w[-1] for w in p.where(["class-of-service", "scheduler-maps", smap]) if w[4] == fc]
    sw = p.where(["class-of-service", "schedulers", sched])
    ecn = any(w[3] == "explicit-congestion-notification" for w in sw)
    dp = next((w[-1] for w in sw if w[3] == "drop-profile-map"), None)
    levels: tuple[int, ...] | None = None
    probability: int | None = None
    if dp is not None:
        (dpw,) = p.where(["class-of-service", "drop-profiles", dp])
        levels = tuple(int(x) for x in dpw[5][1:-1].split())
        probability = int(dpw[7][1:-1].split()[-1])
    return Treatment(
        forwarding_class=fc, queue=queue, lossless=lossless, pfc_priority=prio, pauses_on_dscp=pauses,
        flow_control_queue=fcq, ecn=ecn, fill_levels=levels, mark_probability=probability,
        strict=any(w[3:] == ["priority", "strict-high"] for w in sw),
        transmit_pct=next((int(w[-1]) for w in sw if w[3] == "transmit-rate"), None),
    )
