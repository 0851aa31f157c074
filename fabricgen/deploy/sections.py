"""What a configuration path *is*, by the platform's own grammar: ``routing``, ``roce`` or ``other``, and whether
its section holds secrets (reported by name only).

``drift`` and ``apply`` compare every running path (:mod:`fabricgen.deploy.normalize`): a full replace removes
whatever the intended configuration lacks, so every difference counts. This module only says what each one is.
A path is classified by the most specific :class:`Section` whose pattern matches its leading elements; a
pattern element matches a path element when its words are the element's first words (``*`` and other
:mod:`fnmatch` globs match one word). So ``ip prefix-list`` matches ``ip prefix-list HAND-PL seq 5 permit …``
and ``("interface", "ip address")`` matches ``interface swp1 / ip address 10.0.0.1/31`` — never a substring
elsewhere in the line (a route-map *named* ``ROCE`` is routing, an interface *described* ``bgp`` is other).

Each table cites the grammar it follows; the element shapes are those of :mod:`fabricgen.deploy.normalize`
(FRR and EOS/NX-OS: one configuration line per element; Junos: one token per element; SONiC: ``TABLE / key /
field = value``; NVUE: one object key per element).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fnmatch import fnmatchcase

ROUTING, ROCE, OTHER = "routing", "roce", "other"


@dataclass(frozen=True)
class Section:
    """One grammar entry: the path prefix it covers, what it is, and whether its values are secrets.

    ``shown``: how many words of the path's elements name a secret section in a report (default: the pattern's
    own words), e.g. ``username admin …`` names the user, never its hash."""

    pattern: tuple[str, ...]
    tag: str
    secret: bool = False
    shown: int = 0

    def matches(self, path: tuple[str, ...]) -> bool:
        if len(path) < len(self.pattern):
            return False
        for words, have in zip(_split(self.pattern), path, strict=False):
            got = have.split()
            if len(got) < len(words) or not all(
                    g == w or (_GLOB.intersection(w) and fnmatchcase(g, w)) for w, g in zip(words, got, strict=False)):
                return False
        return True

    @property
    def weight(self) -> tuple[int, int]:
        return len(self.pattern), sum(len(p.split()) for p in self.pattern)


_GLOB = frozenset("*?[")


@functools.cache
def _split(pattern: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p.split()) for p in pattern)


def _s(*pattern: str, tag: str = OTHER, secret: bool = False, shown: int = 0) -> Section:
    return Section(tuple(pattern), tag, secret, shown)


# FRR: vtysh's configuration nodes and top-level commands (FRR user guide, "Basic commands", "Filtering",
# "Route Maps", "BGP", "Static Route Commands", "Zebra", "BFD", "PBR", "VRF"; the context keywords of
# tools/frr-reload.py, which mirror vtysh.c's node list). Every routing daemon's node is routing.
FRR: tuple[Section, ...] = (
    _s("router", tag=ROUTING),  # router bgp|ospf|ospf6|isis|rip|ripng|eigrp|babel|openfabric (bgpd … ripngd)
    _s("ip prefix-list", tag=ROUTING), _s("ipv6 prefix-list", tag=ROUTING),  # lib/plist.c
    _s("route-map", tag=ROUTING),  # lib/routemap.c RMAP_NODE
    _s("bgp community-list", tag=ROUTING), _s("bgp large-community-list", tag=ROUTING),
    _s("bgp extcommunity-list", tag=ROUTING), _s("bgp as-path access-list", tag=ROUTING),  # bgpd/bgp_vty.c
    _s("access-list", tag=ROUTING), _s("ip access-list", tag=ROUTING), _s("ipv6 access-list", tag=ROUTING),
    _s("mac access-list", tag=ROUTING),  # lib/filter_cli.c
    _s("ip route", tag=ROUTING), _s("ipv6 route", tag=ROUTING), _s("ip mroute", tag=ROUTING),  # staticd
    _s("ip protocol", tag=ROUTING), _s("ipv6 protocol", tag=ROUTING), _s("ip nht", tag=ROUTING),
    _s("ipv6 nht", tag=ROUTING), _s("ip forwarding", tag=ROUTING), _s("ipv6 forwarding", tag=ROUTING),
    _s("no ip forwarding", tag=ROUTING), _s("no ipv6 forwarding", tag=ROUTING), _s("ip import-table", tag=ROUTING),
    _s("zebra", tag=ROUTING),  # zebra/zebra_vty.c
    _s("vrf", tag=ROUTING), _s("bfd", tag=ROUTING), _s("segment-routing", tag=ROUTING),
    _s("mpls", tag=ROUTING), _s("l2vpn", tag=ROUTING), _s("pseudowire", tag=ROUTING),
    _s("nexthop-group", tag=ROUTING), _s("pbr-map", tag=ROUTING), _s("rpki", tag=ROUTING),
    _s("bgp", tag=ROUTING),  # bgp route-map delay-timer, bgp send-extra-data, … (global bgpd commands)
    _s("interface", "ip address", tag=ROUTING), _s("interface", "ipv6 address", tag=ROUTING),
    _s("interface", "ip ospf", tag=ROUTING), _s("interface", "ipv6 ospf6", tag=ROUTING),
    _s("interface", "ip router", tag=ROUTING), _s("interface", "ipv6 router", tag=ROUTING),
    _s("interface", "isis", tag=ROUTING), _s("interface", "openfabric", tag=ROUTING),
    _s("interface", "ip pim", tag=ROUTING), _s("interface", "ipv6 nd", tag=ROUTING),
    _s("interface", "bfd", tag=ROUTING), _s("interface", "pbr-policy", tag=ROUTING),
    _s("interface", "evpn", tag=ROUTING), _s("interface", "link-params", tag=ROUTING),
    _s("interface", "mpls", tag=ROUTING), _s("interface", "vrrp", tag=ROUTING),
    _s("interface", "mtu", tag=ROCE),
    # lib/command.c "password", "enable password"; lib/keychain.c key chain / key / key-string
    _s("password", secret=True), _s("enable password", secret=True), _s("key chain", secret=True, shown=3),
)

# Arista EOS: top-level command families of the EOS User Manual (chapters "IP Routing", "Routing Policy"
# — prefix lists, route maps, community and AS-path lists —, "ACLs", "BGP", "Quality of Service", "Priority
# Flow Control", "User Security", "SNMP", "AAA"). Interface sub-commands as the same manual places them.
EOS: tuple[Section, ...] = (
    _s("router", tag=ROUTING), _s("ip routing", tag=ROUTING), _s("no ip routing", tag=ROUTING),
    _s("ipv6 unicast-routing", tag=ROUTING), _s("service routing", tag=ROUTING),
    _s("ip prefix-list", tag=ROUTING), _s("ipv6 prefix-list", tag=ROUTING), _s("route-map", tag=ROUTING),
    _s("ip community-list", tag=ROUTING), _s("ip extcommunity-list", tag=ROUTING),
    _s("ip large-community-list", tag=ROUTING), _s("ip as-path", tag=ROUTING),
    _s("ip access-list", tag=ROUTING), _s("ipv6 access-list", tag=ROUTING), _s("mac access-list", tag=ROUTING),
    _s("ip route", tag=ROUTING), _s("ipv6 route", tag=ROUTING), _s("ip load-sharing", tag=ROUTING),
    _s("peer-filter", tag=ROUTING), _s("vrf instance", tag=ROUTING), _s("ip virtual-router", tag=ROUTING),
    _s("mpls", tag=ROUTING), _s("bfd", tag=ROUTING), _s("policy-map type pbr", tag=ROUTING),
    _s("class-map type pbr", tag=ROUTING),
    _s("qos", tag=ROCE), _s("priority-flow-control", tag=ROCE), _s("policy-map", tag=ROCE),
    _s("class-map", tag=ROCE), _s("platform * mmu", tag=ROCE), _s("hardware tcam", tag=ROUTING),
    _s("interface", "ip address", tag=ROUTING), _s("interface", "ipv6 address", tag=ROUTING),
    _s("interface", "vrf", tag=ROUTING), _s("interface", "no switchport", tag=ROUTING),
    _s("interface", "ip access-group", tag=ROUTING), _s("interface", "ipv6 access-group", tag=ROUTING),
    _s("interface", "bfd", tag=ROUTING), _s("interface", "ip ospf", tag=ROUTING),
    _s("interface", "ip virtual-router", tag=ROUTING), _s("interface", "service-policy type pbr", tag=ROUTING),
    _s("interface", "mtu", tag=ROCE), _s("interface", "service-profile", tag=ROCE),
    _s("interface", "tx-queue", tag=ROCE), _s("interface", "priority-flow-control", tag=ROCE),
    _s("interface", "qos", tag=ROCE), _s("interface", "service-policy", tag=ROCE),
    _s("interface", "uc-tx-queue", tag=ROCE),
    _s("username", secret=True, shown=2), _s("enable password", secret=True), _s("enable secret", secret=True),
    _s("aaa root", secret=True), _s("snmp-server community", secret=True), _s("snmp-server user", secret=True),
    _s("tacacs-server", secret=True), _s("radius-server", secret=True), _s("ntp authentication-key", secret=True),
    _s("management security", secret=True), _s("management ssh", "user", secret=True),
)

# Cisco NX-OS: the command families of the NX-OS Unicast Routing, Security and Quality of Service configuration
# guides (``feature`` lines: the Fundamentals guide). ``policy-map``/``class-map`` type network-qos, qos and
# queuing and ``system qos`` are QoS.
NXOS: tuple[Section, ...] = (
    _s("router", tag=ROUTING), _s("feature bgp", tag=ROUTING), _s("feature ospf", tag=ROUTING),
    _s("feature bfd", tag=ROUTING), _s("feature pbr", tag=ROUTING), _s("feature isis", tag=ROUTING),
    _s("ip prefix-list", tag=ROUTING), _s("ipv6 prefix-list", tag=ROUTING), _s("route-map", tag=ROUTING),
    _s("ip community-list", tag=ROUTING), _s("ip extcommunity-list", tag=ROUTING),
    _s("ip large-community-list", tag=ROUTING), _s("ip as-path access-list", tag=ROUTING),
    _s("ip access-list", tag=ROUTING), _s("ipv6 access-list", tag=ROUTING), _s("mac access-list", tag=ROUTING),
    _s("object-group", tag=ROUTING), _s("ip route", tag=ROUTING), _s("ipv6 route", tag=ROUTING),
    _s("ip load-sharing", tag=ROUTING), _s("vrf context", tag=ROUTING), _s("hardware access-list", tag=ROUTING),
    _s("policy-map type network-qos", tag=ROCE), _s("policy-map type qos", tag=ROCE),
    _s("policy-map type queuing", tag=ROCE), _s("class-map type network-qos", tag=ROCE),
    _s("class-map type qos", tag=ROCE), _s("class-map type queuing", tag=ROCE), _s("system qos", tag=ROCE),
    _s("priority-flow-control", tag=ROCE), _s("hardware qos", tag=ROCE), _s("qos", tag=ROCE),
    _s("interface", "ip address", tag=ROUTING), _s("interface", "ipv6 address", tag=ROUTING),
    _s("interface", "vrf member", tag=ROUTING), _s("interface", "no switchport", tag=ROUTING),
    _s("interface", "ip access-group", tag=ROUTING), _s("interface", "ip router", tag=ROUTING),
    _s("interface", "ip port access-group", tag=ROUTING), _s("interface", "ip policy", tag=ROUTING),
    _s("interface", "mtu", tag=ROCE), _s("interface", "priority-flow-control", tag=ROCE),
    _s("interface", "service-policy", tag=ROCE),
    _s("username", secret=True, shown=2), _s("snmp-server community", secret=True),
    _s("snmp-server user", secret=True), _s("tacacs-server", secret=True), _s("radius-server", secret=True),
    _s("ntp authentication-key", secret=True), _s("key chain", secret=True, shown=3),
    _s("crypto", secret=True),
)

# Junos: the configuration hierarchy's top-level statements (Junos OS CLI User Guide, "Configuration statement
# hierarchy"; Routing Policies, Firewall Filters and Class of Service user guides).
JUNOS: tuple[Section, ...] = (
    _s("policy-options", tag=ROUTING), _s("routing-options", tag=ROUTING), _s("protocols", tag=ROUTING),
    _s("firewall", tag=ROUTING), _s("routing-instances", tag=ROUTING), _s("forwarding-options", tag=ROUTING),
    _s("protocols", "lldp", tag=OTHER), _s("protocols", "lldp-med", tag=OTHER),
    _s("protocols", "dcbx", tag=ROCE),
    _s("class-of-service", tag=ROCE),
    _s("interfaces", "*", "unit", "*", "family", tag=ROUTING), _s("interfaces", "*", "mtu", tag=ROCE),
    _s("interfaces", "*", "unit", "*", "family", "*", "mtu", tag=ROCE),
    _s("system", "login", "user", secret=True, shown=4), _s("system", "root-authentication", secret=True),
    _s("system", "tacplus-server", secret=True), _s("system", "radius-server", secret=True),
    _s("snmp", "community", secret=True), _s("snmp", "v3", secret=True), _s("security", secret=True),
    _s("system", "ntp", "authentication-key", secret=True),
)

# SONiC config_db: the tables of the SONiC configuration database manual (sonic-net/SONiC wiki,
# "Configuration": BGP_*, ROUTE_MAP, PREFIX_SET, COMMUNITY_SET, AS_PATH_SET, STATIC_ROUTE, ACL_* …; QoS
# and buffer tables: BUFFER_*, *_MAP, QUEUE, SCHEDULER, WRED_PROFILE, PFC_WD).
SONIC: tuple[Section, ...] = (
    _s("BGP_*", tag=ROUTING), _s("ROUTE_MAP*", tag=ROUTING), _s("ROUTE_REDISTRIBUTE", tag=ROUTING),
    _s("PREFIX_SET", tag=ROUTING), _s("PREFIX", tag=ROUTING), _s("COMMUNITY_SET", tag=ROUTING),
    _s("EXTENDED_COMMUNITY_SET", tag=ROUTING), _s("AS_PATH_SET", tag=ROUTING), _s("STATIC_ROUTE", tag=ROUTING),
    _s("ACL_*", tag=ROUTING), _s("VRF", tag=ROUTING), _s("INTERFACE", tag=ROUTING),
    _s("LOOPBACK_INTERFACE", tag=ROUTING), _s("VLAN_INTERFACE", tag=ROUTING),
    _s("PORTCHANNEL_INTERFACE", tag=ROUTING), _s("BFD*", tag=ROUTING),
    _s("BUFFER_*", tag=ROCE), _s("PORT_QOS_MAP", tag=ROCE), _s("*_MAP", tag=ROCE), _s("MAP_*", tag=ROCE),
    _s("QUEUE", tag=ROCE),
    _s("SCHEDULER", tag=ROCE), _s("WRED_PROFILE", tag=ROCE), _s("PFC_WD", tag=ROCE), _s("CABLE_LENGTH", tag=ROCE),
    _s("PORT", "*", "mtu", tag=ROCE), _s("PORT", "*", "pfc_asym", tag=ROCE),
    _s("SNMP_COMMUNITY", secret=True), _s("SNMP_USER", secret=True), _s("TACPLUS*", secret=True),
    _s("RADIUS*", secret=True), _s("PASSW_HARDENING", secret=True), _s("USER*", secret=True),
)

# NVUE: the object model of the NVIDIA Cumulus Linux user guide (``nv set router …``, ``nv set vrf <vrf> router
# …``, ``nv set acl …``, ``nv set qos …``, ``nv set system aaa …``, ``nv set system snmp-server …``).
NVUE: tuple[Section, ...] = (
    _s("router", tag=ROUTING), _s("vrf", tag=ROUTING), _s("router", "policy", tag=ROUTING),
    _s("interface", "*", "ip", "address", tag=ROUTING), _s("interface", "*", "ip", "vrf", tag=ROUTING),
    _s("interface", "*", "router", tag=ROUTING), _s("system", "forwarding", tag=ROUTING),
    _s("qos", tag=ROCE), _s("interface", "*", "qos", tag=ROCE), _s("interface", "*", "link", "mtu", tag=ROCE),
    _s("system", "aaa", secret=True), _s("system", "snmp-server", "readonly-community", secret=True),
    _s("system", "snmp-server", "readonly-community-v6", secret=True),
    _s("system", "snmp-server", "username", secret=True),
    _s("service", "snmp-server", "readonly-community", secret=True), _s("acl", tag=ROUTING),
)

TABLES: dict[str, tuple[Section, ...]] = {"frr": FRR, "eos": EOS, "nxos": NXOS, "junos": JUNOS, "sonic": SONIC,
                                          "nvue": NVUE}


def section_of(platform: str, path: tuple[str, ...]) -> Section | None:
    """The most specific grammar entry covering ``path`` (None: nothing the grammar tables name).

    >>> section_of("frr", ("ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24",)).tag
    'routing'
    >>> section_of("eos", ("interface Ethernet1", "tx-queue 3", "random-detect ecn")).tag
    'roce'
    >>> section_of("eos", ("route-map ROCE permit 10",)).tag  # a name is not a kind
    'routing'
    """
    if not path:
        return None
    first = path[0].split()[:1]
    best: Section | None = None
    for entry in _candidates(platform, first[0] if first else ""):
        if entry.matches(path) and (best is None or entry.weight > best.weight):
            best = entry
    return best


@functools.cache
def _candidates(platform: str, head: str) -> tuple[Section, ...]:
    """The entries whose first word can match a path starting with ``head`` (the table, indexed once)."""
    return tuple(e for e in TABLES.get(platform, ())
                 if (w := _split(e.pattern)[0][0]) == head or (_GLOB.intersection(w) and fnmatchcase(head, w)))


def tag_of(platform: str, path: tuple[str, ...]) -> str:
    """``routing``, ``roce`` or ``other`` for one path.

    >>> tag_of("junos", ("policy-options", "prefix-list", "HAND", "203.0.113.0/24"))
    'routing'
    >>> tag_of("sonic", ("BUFFER_PG", "Ethernet0|3", 'profile = "pg_lossless"'))
    'roce'
    >>> tag_of("frr", ("interface swp1", "description bgp uplink"))
    'other'
    """
    entry = section_of(platform, path)
    return entry.tag if entry is not None else OTHER


def secret_name(platform: str, path: tuple[str, ...]) -> str | None:
    """The name a secret-bearing path is reported by (its section, never a value); None if it bears none.

    >>> secret_name("eos", ("username admin privilege 15 role network-admin secret sha512 $6$x$y",))
    'username admin …'
    >>> secret_name("eos", ("snmp-server community s3cret ro",))
    'snmp-server community …'
    >>> secret_name("junos", ("system", "login", "user", "ops", "authentication", "encrypted-password", "$6$x"))
    'system login user ops …'
    >>> secret_name("eos", ("hostname leaf1",)) is None
    True
    """
    entry = section_of(platform, path)
    if entry is None or not entry.secret:
        return None
    words = [w for e in path for w in e.split(" = ")[0].split()]
    want = entry.shown or entry.weight[1]
    return " ".join(words[:want]) + " …"
