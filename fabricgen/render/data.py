"""Per-device structured data: everything a template prints, computed in Python from the Fabric and its QoS.

This is the *design* half of the render stage (the templates are the other half): pure functions of a
:class:`~fabricgen.topology.model.Fabric` and a :class:`~fabricgen.qos.model.FabricQos`, testable
without any template. Templates only choose words and layout; every number, name, address, unit
conversion and cross reference is a field here.

Building one device reads only that device's ports and their peers, so rendering a fabric is linear in
its size. QoS blocks that many ports share (ECN profiles, headroom profiles, the port profile with its
lanes) are built once per distinct value and shared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Literal

from fabricgen.inventory.releases import NVUE_RADIUS_ACCOUNTING, NVUE_TACACS_COMMAND_AUTHORIZATION, at_least
from fabricgen.inventory.schema import Role
from fabricgen.qos.model import EcnProfile, FabricQos, Headroom, Lane, PfcWatchdog, PortQos, SwitchQos
from fabricgen.render.base import BaseData, RawData, build_base, build_raw
from fabricgen.render.platforms import platform as get_platform
from fabricgen.topology.frozen import fast_init
from fabricgen.topology.model import Fabric, Port, PortKind, Switch
from fabricgen.topology.portnames import port_name
from fabricgen.topology.routing import GSHUT, PrefixEntry, own_prefixes, role_community, routing_facts

GROUP_OF_ROLE = {Role.LEAF: "LEAVES", Role.SPINE: "SPINES", Role.CORE: "CORES"}
"""BGP peer-group name by the role of the peers it holds."""

MAX_PATHS = 64
"""eBGP ECMP width rendered on every platform (64-way ECMP fits every catalog ASIC)."""

ECMP_HASH_FIELDS = ("src-ip", "dst-ip", "ip-protocol", "src-port", "dst-port")
"""ECMP hash inputs: the 5-tuple, so RoCEv2 flows (UDP dst 4791) spread on their UDP source port."""

PREFIX_LIST_FABRIC = "FABRIC-PREFIXES"
"""Prefix list of everything the fabric allocates (fabricgen.topology.routing.fabric_prefix_entries)."""

PREFIX_LIST_LOCAL = "LOCAL-PREFIXES"
"""Prefix list of what this device originates (its loopback /32 and host-facing /31s)."""

ROUTE_MAP_IN = "FABRIC-IN-V4"
ROUTE_MAP_OUT = "FABRIC-OUT-V4"
"""Import and export policy of every underlay session."""

COMMUNITY_LIST_GSHUT = "GSHUT"
"""Community list matching the graceful-shutdown community 65535:0 (RFC 8326)."""

BFD_PROFILE = "FABRIC"
"""Name of the BFD profile (FRR, SONiC) or template the underlay sessions use."""

STRICT_TRANSMIT_PCT = 5
"""Junos: transmit rate of a strict-high queue (CNP), so that it can never starve the other queues;
the ETS lanes share the remaining bandwidth in their configured proportions."""

JUNOS_LOSSY_SHARED_PCT = 10
"""Junos shared-buffer partitions: the share of the shared buffer left to lossy traffic; the lossless
headroom partition is sized from the headroom plan, the lossless partition takes the rest. Each
direction's partitions must add up to exactly 100 % (Junos "buffer-partition (Ingress)/(Egress)")."""

JUNOS_MULTICAST_SHARED_PCT = 5
"""Junos egress multicast (multi-destination) partition: a GPU backend carries almost none."""

IP_HEADER_OVERHEAD = 14
"""Bytes of Ethernet header between a Junos media MTU and its ``family inet mtu`` (IP MTU)."""


# --------------------------------------------------------------------------- data classes


@fast_init
@dataclass(frozen=True, slots=True)
class BgpNeighbor:
    ip: str
    asn: int
    group: str
    peer_device: str
    peer_port: str
    local_port: str
    local_ip: str
    description: str  # "spine1:Ethernet0"


@fast_init
@dataclass(frozen=True, slots=True)
class BgpGroup:
    name: str
    description: str
    neighbors: tuple[BgpNeighbor, ...]
    asns: tuple[int, ...]  # distinct peer ASNs in the group, sorted


@fast_init
@dataclass(frozen=True, slots=True)
class Bgp:
    asn: int
    router_id: str
    groups: tuple[BgpGroup, ...]
    neighbors: tuple[BgpNeighbor, ...]  # every neighbor, in port order
    networks: tuple[str, ...]  # prefixes this device originates: its loopback /32 and host-facing /31s
    max_paths: int
    multipath_relax: bool  # peers of this device span more than one ASN
    bfd: Bfd | None  # None: fabric.bfd.enabled is false
    policy: BgpPolicy
    session_ports: frozenset[str]  # this device's ports that carry a BGP session (BFD timers on NX-OS)


@fast_init
@dataclass(frozen=True, slots=True)
class Bfd:
    """BFD on every underlay session (fabric.bfd): detection time is ``interval_ms`` x ``multiplier``."""

    interval_ms: int
    multiplier: int
    profile: str = BFD_PROFILE


@fast_init
@dataclass(frozen=True, slots=True)
class BgpPolicy:
    """The underlay policy on this device (fabricgen.topology.routing): only the fabric's prefixes in and out,
    its own tagged with its role's community, everything tagged 65535:0 while it is drained, a prefix limit."""

    fabric_prefixes: tuple[PrefixEntry, ...]
    local_prefixes: tuple[str, ...]  # = Bgp.networks
    community: str  # this device's role community, "64512:2"
    drained: bool
    maximum_prefix: int
    warning_pct: int
    gshut: str = GSHUT
    prefix_list_fabric: str = PREFIX_LIST_FABRIC
    prefix_list_local: str = PREFIX_LIST_LOCAL
    route_map_in: str = ROUTE_MAP_IN
    route_map_out: str = ROUTE_MAP_OUT
    community_list_gshut: str = COMMUNITY_LIST_GSHUT

    @property
    def export_communities(self) -> tuple[str, ...]:
        """Communities this device adds to its own prefixes: its role's, and 65535:0 while drained."""
        return (self.community, self.gshut) if self.drained else (self.community,)

    @property
    def numbered_fabric_prefixes(self) -> tuple[tuple[int, PrefixEntry], ...]:
        """``fabric_prefixes`` with the sequence numbers 10, 20, ... of platforms that number list entries."""
        return tuple((10 * i, e) for i, e in enumerate(self.fabric_prefixes, 1))

    @property
    def numbered_local_prefixes(self) -> tuple[tuple[int, str], ...]:
        """``local_prefixes`` with the sequence numbers 10, 20, ..."""
        return tuple((10 * i, p) for i, p in enumerate(self.local_prefixes, 1))


@fast_init
@dataclass(frozen=True, slots=True)
class EcnData:
    """A WRED/ECN marking profile, with the unit conversions the platforms need."""

    name: str  # "ECN_150000_1500000_100"
    min_bytes: int
    max_bytes: int
    probability: int  # percent
    source: str
    min_fill_pct: int  # thresholds as a percent of the queue's buffer allocation (Junos drop profiles)
    max_fill_pct: int
    queue_buffer_bytes: int  # the egress queue's buffer allocation the fill levels are a percent of
    min_kbytes: int  # thresholds in KB (1024 bytes), rounded up (NX-OS "kbytes")
    max_kbytes: int


@fast_init
@dataclass(frozen=True, slots=True)
class HeadroomData:
    name: str  # SONiC style: "pg_lossless_400000_5m_profile"
    speed_mbps: int
    cable: str  # "5m"
    cable_m: int
    xoff: int
    xon: int
    size: int
    threshold: Literal["dynamic", "static"]
    dynamic_th: int
    static_th: int
    source: str


@fast_init
@dataclass(frozen=True, slots=True)
class LaneData:
    name: str
    tc: int
    queue: int
    dscp: tuple[int, ...]
    lossless: bool
    strict: bool
    weight: int | None  # ETS percent; None when strict
    ecn: EcnData | None
    purpose: str
    dscp_bits: tuple[str, ...]  # the DSCP values as 6-bit code points ("011010"), for Junos classifiers
    priority_bits: str  # the lane's 802.1p priority (== tc) as a 3-bit code point ("011"), for Junos PFC
    junos_transmit_pct: int  # Junos transmit-rate percent: ETS weight scaled below the strict queues' rate


@fast_init
@dataclass(frozen=True, slots=True)
class WatchdogData:
    detection_ms: int
    restoration_ms: int
    action: str
    detection_s: str  # "0.2" (EOS takes seconds)
    restoration_s: str
    junos_poll_ms: int  # Junos pfc-watchdog: poll-interval (ms) x detection (polls) = detection time
    junos_detection_polls: int
    nxos_interval_ms: int  # NX-OS: watch-dog interval (ms) x shutdown/restore multipliers
    nxos_shutdown_multiplier: int
    nxos_restore_multiplier: int


@fast_init
@dataclass(frozen=True, slots=True)
class QosProfile:
    """What ports with the same policy share: trust, DSCP map, lanes, PFC set, ETS, ECN, watchdog."""

    name: str
    trust: str
    dscp_map: str  # name of the DSCP → TC map
    lanes: tuple[LaneData, ...]  # by tc
    pfc_priorities: tuple[int, ...]
    pfc_enable: str  # "3" or "3,4"
    pfc_bitmap: str  # "0,0,0,1,0,0,0,0"
    lossless_queues: str  # "3-4" style range for SONiC keys, or "3"
    lossy_queues: tuple[int, ...]
    ecn_lanes: tuple[LaneData, ...]
    ets_lanes: tuple[LaneData, ...]
    strict_lanes: tuple[LaneData, ...]
    watchdog: WatchdogData | None


@fast_init
@dataclass(frozen=True, slots=True)
class InterfaceQos:
    profile: QosProfile
    headroom: tuple[tuple[int, HeadroomData], ...]  # (priority, profile) for each lossless priority
    cable: str  # "5m"
    cable_m: int
    role: str  # host | fabric


@fast_init
@dataclass(frozen=True, slots=True)
class DscpMap:
    name: str
    entries: tuple[tuple[int, int], ...]  # (dscp, tc) for all 64 DSCPs
    by_tc: tuple[tuple[int, tuple[int, ...]], ...]  # (tc, dscps) for every tc used
    non_default: tuple[tuple[int, int], ...]  # (dscp, tc) of the DSCPs not in the default tc 0


@fast_init
@dataclass(frozen=True, slots=True)
class BufferData:
    pool_bytes: int
    lossless_headroom_bytes: int
    shared_bytes: int
    source: str
    shared_pct: int  # shared (vs per-port dedicated) percent of the pool: headroom + shared pool, rounded down
    headroom_pct: int  # Junos ingress partitions of the shared buffer: lossless-headroom, lossless, lossy
    lossless_pct: int
    lossy_pct: int
    egress_lossless_pct: int  # Junos egress partitions: lossless, lossy, multicast (100 % together)
    egress_lossy_pct: int
    egress_multicast_pct: int


@fast_init
@dataclass(frozen=True, slots=True)
class DeviceQos:
    cnp_tc: int
    roce_tc: int
    dscp_maps: tuple[DscpMap, ...]
    profiles: tuple[QosProfile, ...]
    ecn_profiles: tuple[EcnData, ...]
    headroom_profiles: tuple[HeadroomData, ...]
    buffer: BufferData
    watchdog: WatchdogData | None
    pfc_priorities: tuple[int, ...]  # union over ports
    lossless_lanes: tuple[LaneData, ...]  # union over profiles, by tc (for global blocks such as NX-OS)
    lanes: tuple[LaneData, ...]  # lanes of the first profile (platforms with one global policy)
    network_control_queue: int  # Junos: a queue no lane uses, for the routing engine's own traffic


@fast_init
@dataclass(frozen=True, slots=True)
class Interface:
    name: str
    description: str  # the peer, "leaf3:swp12"
    kind: str  # host | down | up
    peer_device: str
    peer_port: str
    cage: int
    sub: int
    breakout: int
    speed: int  # Gb/s
    speed_mbps: int
    lanes_per_port: int
    sonic_lanes: str  # "0,1,2,3"
    alias: str  # front-panel label "etp1a"
    mtu: int
    address: str | None  # "10.1.2.3/31"
    ip: str | None
    prefixlen: int | None
    subnet: str | None  # "10.1.2.2/31"
    ip_mtu: int  # IP MTU: the media MTU less the Ethernet header (Junos family inet mtu)
    qos: InterfaceQos | None


@fast_init
@dataclass(frozen=True, slots=True)
class Cage:
    """A front-panel cage in use and how it is split."""

    cage: int
    breakout: int
    speed: int  # Gb/s of each sub-port
    mode: str  # "2x400G"
    parent: str  # the platform's name of the cage (the unbroken port)
    junos_index: int  # Junos numbers cages from 0


@fast_init
@dataclass(frozen=True, slots=True)
class TrafficPool:
    """An NVUE shared-buffer traffic pool and the switch priorities it holds."""

    name: str
    memory_percent: int
    priorities: tuple[int, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class NvueData:
    """What NVUE needs beyond the common data: the release's words and the NVUE-only RoCE objects."""

    on: str  # the word that turns a feature on: "on" up to 5.14, "enabled" from 5.15
    enable_key: str  # the leaf that holds it: "enable" up to 5.14, "state" from 5.15
    ip_key: str  # interface addresses live under "ip" up to 5.14, "ipv4" from 5.15
    lldp_parent: str  # LLDP is a "service" up to 5.14 and under "system" from 5.15
    roce_mode: str | None  # "lossless": NVIDIA's `qos roce` object instead of the explicit QoS profiles
    roce_udp_port: int  # RoCEv2's UDP port, announced in the LLDP application TLV
    roce_priority: int
    adaptive_routing: bool  # Spectrum-X adaptive routing, as the inventory resolves it (Switch.adaptive_routing)
    watchdog_polling_ms: int | None  # NVUE's PFC watchdog: detection = polling-interval × robustness
    watchdog_robustness: int | None
    watchdog_detection_ms: int | None  # what that product gives (the inventory's detection time, rounded up)
    traffic_pools: tuple[TrafficPool, ...]
    # where the base configuration's services live in this release's object tree (NVUE OpenAPI of each release)
    ntp_parent: str = "service"  # NTP: service/ntp/<vrf> up to 5.14, system/ntp (with a vrf leaf) from 5.15
    syslog_parent: str = "service"  # syslog: service/syslog/<vrf> up to 5.12, system/syslog from 5.13
    snmp_parent: str = "service"  # SNMP: service/snmp-server up to 5.10, system/snmp-server from 5.11
    snmp_state_key: str = "enable"  # its switch: "enable: on" up to 5.10, "state: enabled" from 5.11
    snmp_on: str = "on"
    aaa_legacy: bool = False  # up to 5.11: `enable: on` on tacacs/radius, TACACS+ servers keyed by priority
    auth_order_new: bool = False  # login order: aaa/authentication-order up to 5.14, aaa/authentication/order after
    tacacs_high_first: bool = False  # TACACS+ server priority: "higher comes first" 5.12–5.17, "lower" from 5.18
    tacacs_command_authz: bool = False  # from 5.17: tacacs/authorization/<level>/all-commands (server-side)
    radius_accounting: bool = False  # from 5.11: radius/accounting/state
    bfd_profile: bool = False  # BFD timers: on each BGP peer group up to 5.14, in a router/bfd/profile from 5.15


@fast_init
@dataclass(frozen=True, slots=True)
class DeviceData:
    name: str
    platform: str
    role: str
    model: str
    vendor: str
    asic: str
    fabric: str
    asn: int
    loopback: str
    loopback_prefix: str  # "10.0.0.1/32"
    mtu: int
    interfaces: tuple[Interface, ...]
    cages: tuple[Cage, ...]
    bgp: Bgp
    ecmp_hash_fields: tuple[str, ...]
    lldp: bool
    eos_tx_queue: str  # EOS egress queue keyword of this model's family: "tx-queue" or "uc-tx-queue"
    qos: DeviceQos | None
    release: str = ""  # NOS release rendered for ("5.14", "202411"); "" where syntax does not vary
    hwsku: str = ""  # SONiC HwSKU with platform facts (inventory.sonic_platform); "" lays ports out by position
    nvue: NvueData | None = None  # NVUE only
    base: BaseData | None = None  # management, users, API, NTP, syslog, SNMP, banner (fabricgen.render.base)
    raw: RawData | None = None  # the inventory's raw blocks for this platform (fabricgen.inventory.raw)


@fast_init
@dataclass(frozen=True, slots=True)
class CableClass:
    """A cable length as SONiC's buffer manager looks it up, for the ports with that real length."""

    length_m: int  # the link's length, rounded up to a metre
    written: str  # what CABLE_LENGTH says: "5m", "40m", "300m" (the smallest standard class ≥ length_m)
    standard: bool  # True: a class of SONiC's standard pg_profile_lookup table; False: written as computed


# --------------------------------------------------------------------------- helpers


def _compress(values: Iterable[int]) -> str:
    """Sorted integers as SONiC key ranges: ``[3, 4]`` → ``"3-4"``, ``[3]`` → ``"3"``, ``[1, 3]`` → ``"1,3"``.

    >>> _compress([3, 4]), _compress([3]), _compress([1, 3, 4, 5])
    ('3-4', '3', '1,3-5')
    """
    vals = sorted(set(values))
    parts: list[str] = []
    i = 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        parts.append(str(vals[i]) if i == j else f"{vals[i]}-{vals[j]}")
        i = j + 1
    return ",".join(parts)


def _seconds(ms: int) -> str:
    """Milliseconds as a decimal number of seconds without trailing zeros.

    >>> _seconds(200), _seconds(1000), _seconds(1250)
    ('0.2', '1', '1.25')
    """
    whole, frac = divmod(ms, 1000)
    return f"{whole}" if frac == 0 else f"{whole}.{frac:03d}".rstrip("0")


def _kbytes(n: int) -> int:
    """Bytes as whole KB (1024 bytes), rounded up.

    >>> _kbytes(153600), _kbytes(150000)
    (150, 147)
    """
    return -(-n // 1024)


def _fill_pct(n: int, queue_bytes: int, lo: int, hi: int) -> int:
    """``n`` bytes as a percent of a queue's buffer, rounded up and kept within ``lo..hi``.

    >>> _fill_pct(150000, 1_500_000, 1, 98), _fill_pct(10, 1_500_000, 1, 98), _fill_pct(9**9, 10, 1, 99)
    (10, 1, 99)
    """
    return max(lo, min(hi, -(-n * 100 // max(queue_bytes, 1))))


def junos_watchdog(detection_ms: int) -> tuple[int, int]:
    """Junos ``pfc-watchdog``: (poll-interval ms, detection in polls) whose product is ``detection_ms``
    (rounded up). Junos polls every 10, 100 or 1000 ms; the coarsest exact poll is chosen.

    >>> junos_watchdog(200), junos_watchdog(1500), junos_watchdog(2000), junos_watchdog(15)
    ((100, 2), (100, 15), (1000, 2), (10, 2))
    """
    for poll in (1000, 100, 10):
        if detection_ms % poll == 0:
            return poll, detection_ms // poll
    return 10, -(-detection_ms // 10)


def nxos_watchdog(detection_ms: int, restoration_ms: int) -> tuple[int, int, int]:
    """NX-OS ``priority-flow-control watch-dog``: (interval ms 100..1000, shutdown-multiplier 1..10,
    restore-multiplier 1..10) whose products are the detection and restoration times, exactly when
    possible, otherwise the nearest larger times.

    >>> nxos_watchdog(200, 200), nxos_watchdog(200, 2000), nxos_watchdog(50, 50)
    ((200, 1, 1), (200, 1, 10), (100, 1, 1))
    """
    best: tuple[int, int, int, int] | None = None
    for interval in range(1000, 99, -1):
        shut = max(1, -(-detection_ms // interval))
        rest = max(1, -(-restoration_ms // interval))
        if shut > 10 or rest > 10:
            continue
        error = (shut * interval - detection_ms) + (rest * interval - restoration_ms)
        if best is None or error < best[0]:
            best = (error, interval, shut, rest)
    if best is None:  # times above 10 s: the largest the platform takes
        return 1000, 10, 10
    return best[1], best[2], best[3]


def _cable_m(length: float) -> int:
    """Cable length rounded up to a whole metre (the unit every NOS takes).

    >>> _cable_m(3), _cable_m(2.5)
    (3, 3)
    """
    whole = int(length)
    return whole if whole == length else whole + 1


def _alias(cage: int, sub: int, breakout: int) -> str:
    """Front-panel label of a port, as NVIDIA's SONiC port_config names them: ``etp3``, ``etp3a``, ``etp3b``.

    >>> _alias(3, 0, 1), _alias(3, 1, 2)
    ('etp3', 'etp3b')
    """
    return f"etp{cage}" if breakout == 1 else f"etp{cage}{chr(ord('a') + sub)}"


class _QosBlocks:
    """Distinct QoS blocks of one device, each built once and shared by every port that uses it."""

    def __init__(self, shared_bytes: int, ports: int = 1) -> None:
        self.shared_bytes = max(shared_bytes, 1)
        # A queue's buffer allocation: its port's fair share of the shared buffer (Junos drop-profile fill
        # levels are a percent of the queue's allocation, not of the switch's buffer).
        self.queue_bytes = max(self.shared_bytes // max(ports, 1), 1)
        self.ecn: dict[EcnProfile, EcnData] = {}
        self.headroom: dict[tuple[int, int, Headroom], HeadroomData] = {}
        self.watchdog: dict[PfcWatchdog, WatchdogData] = {}
        self.maps: dict[tuple[tuple[int, int], ...], DscpMap] = {}
        self.profiles: dict[tuple[object, ...], QosProfile] = {}
        # Ports of one policy share the policy's objects (compute.py), so a port's profile and headroom are
        # found by the identity of those objects first; the content key is built once per distinct object.
        # The objects outlive this per-device table, so their ids cannot be reused while it is in use.
        self._profile_by_id: dict[tuple[object, ...], QosProfile] = {}
        self._headroom_by_id: dict[tuple[int, int, int], tuple[tuple[int, HeadroomData], ...]] = {}
        self._interface_qos: dict[tuple[int, int, int, str], InterfaceQos] = {}
        self._port_qos: dict[tuple[object, ...], InterfaceQos] = {}  # by the identity of a port's QoS objects

    def ecn_data(self, e: EcnProfile) -> EcnData:
        data = self.ecn.get(e)
        if data is None:
            lo = _fill_pct(e.min_bytes, self.queue_bytes, 1, 98)
            hi = max(lo + 1, _fill_pct(e.max_bytes, self.queue_bytes, 1, 99))
            data = EcnData(f"ECN_{e.min_bytes}_{e.max_bytes}_{e.probability_pct}", e.min_bytes, e.max_bytes,
                           e.probability_pct, e.source, lo, hi, self.queue_bytes,
                           _kbytes(e.min_bytes), _kbytes(e.max_bytes))
            self.ecn[e] = data
        return data

    def headroom_data(self, speed: int, cable_m: int, h: Headroom) -> HeadroomData:
        key = (speed, cable_m, h)
        data = self.headroom.get(key)
        if data is None:
            name = f"pg_lossless_{speed * 1000}_{cable_m}m_profile"
            taken = {d.name for d in self.headroom.values()}
            suffix = 2
            base = name
            while name in taken:
                name = f"{base.removesuffix('_profile')}_{suffix}_profile"
                suffix += 1
            data = HeadroomData(name, speed * 1000, f"{cable_m}m", cable_m, h.xoff_bytes, h.xon_bytes, h.size_bytes,
                                h.threshold, h.dynamic_th, h.xoff_threshold_bytes, h.source)
            self.headroom[key] = data
        return data

    def watchdog_data(self, w: PfcWatchdog | None) -> WatchdogData | None:
        if w is None:
            return None
        data = self.watchdog.get(w)
        if data is None:
            data = _watchdog_data(w)
            self.watchdog[w] = data
        return data

    def dscp_map(self, mapping: Mapping[int, int]) -> DscpMap:
        entries = tuple(sorted(mapping.items()))
        data = self.maps.get(entries)
        if data is None:
            name = "AI_RDMA_DSCP_TO_TC" if not self.maps else f"AI_RDMA_DSCP_TO_TC_{len(self.maps) + 1}"
            by_tc: dict[int, list[int]] = {}
            for dscp, tc in entries:
                by_tc.setdefault(tc, []).append(dscp)
            data = DscpMap(name, entries, tuple((tc, tuple(d)) for tc, d in sorted(by_tc.items())),
                           tuple((dscp, tc) for dscp, tc in entries if tc != 0))
            self.maps[entries] = data
        return data

    def profile(self, pq: PortQos) -> QosProfile:
        fast = (pq.trust, id(pq.lanes), pq.pfc_priorities, id(pq.ecn), pq.watchdog, id(pq.dscp_to_tc))
        data = self._profile_by_id.get(fast)
        if data is None:
            data = self._profile(pq)
            self._profile_by_id[fast] = data
        return data

    def port_headroom(self, speed: int, cable_m: int, pq: PortQos) -> tuple[tuple[int, HeadroomData], ...]:
        """(priority, headroom profile) for each lossless priority of a port."""
        key = (speed, cable_m, id(pq.headroom))
        data = self._headroom_by_id.get(key)
        if data is None:
            data = tuple((prio, self.headroom_data(speed, cable_m, pq.headroom[prio])) for prio in sorted(pq.headroom))
            self._headroom_by_id[key] = data
        return data

    def interface_qos(self, speed: int, cable_m: int, pq: PortQos) -> InterfaceQos:
        """The QoS of a port: one shared object per distinct profile, headroom, cable and role."""
        fast = (speed, cable_m, pq.role, id(pq.headroom), pq.trust, id(pq.lanes), id(pq.pfc_priorities),
                id(pq.ecn), id(pq.watchdog), id(pq.dscp_to_tc))
        data = self._port_qos.get(fast)
        if data is None:
            data = self._port_qos[fast] = self._interface_qos_of(speed, cable_m, pq)
        return data

    def _interface_qos_of(self, speed: int, cable_m: int, pq: PortQos) -> InterfaceQos:
        profile = self.profile(pq)
        headroom = self.port_headroom(speed, cable_m, pq)
        key = (id(profile), id(headroom), cable_m, pq.role)
        data = self._interface_qos.get(key)
        if data is None:
            data = InterfaceQos(profile, headroom, f"{cable_m}m", cable_m, pq.role)
            self._interface_qos[key] = data
        return data

    def _profile(self, pq: PortQos) -> QosProfile:
        key = (pq.trust, pq.lanes, pq.pfc_priorities, tuple(sorted(pq.ecn.items())), pq.watchdog,
               tuple(sorted(pq.dscp_to_tc.items())))
        data = self.profiles.get(key)
        if data is None:
            dmap = self.dscp_map(pq.dscp_to_tc)
            lanes = tuple(self._lane(lane, pq) for lane in sorted(pq.lanes, key=lambda x: x.tc))
            pfc = tuple(sorted(pq.pfc_priorities))
            name = "ROCE" if not self.profiles else f"ROCE_{len(self.profiles) + 1}"
            data = QosProfile(
                name=name,
                trust=pq.trust,
                dscp_map=dmap.name,
                lanes=lanes,
                pfc_priorities=pfc,
                pfc_enable=",".join(str(p) for p in pfc),
                pfc_bitmap=",".join("1" if p in pq.pfc_priorities else "0" for p in range(8)),
                lossless_queues=_compress(pfc),
                lossy_queues=tuple(q for q in range(8) if q not in pq.pfc_priorities),
                ecn_lanes=tuple(lane for lane in lanes if lane.ecn is not None),
                ets_lanes=tuple(lane for lane in lanes if not lane.strict),
                strict_lanes=tuple(lane for lane in lanes if lane.strict),
                watchdog=self.watchdog_data(pq.watchdog),
            )
            self.profiles[key] = data
        return data

    def _lane(self, lane: Lane, pq: PortQos) -> LaneData:
        ecn = pq.ecn.get(lane.tc) if lane.ecn else None
        strict_pct = STRICT_TRANSMIT_PCT * sum(1 for x in pq.lanes if x.scheduling == "strict")
        weight = lane.ets_weight if lane.scheduling == "ets" else None
        return LaneData(
            name=lane.name,
            tc=lane.tc,
            queue=lane.tc,
            dscp=tuple(lane.dscp),
            lossless=lane.lossless,
            strict=lane.scheduling == "strict",
            weight=lane.ets_weight if lane.scheduling == "ets" else None,
            ecn=self.ecn_data(ecn) if ecn is not None else None,
            purpose=lane.purpose,
            dscp_bits=tuple(f"{v:06b}" for v in lane.dscp),
            priority_bits=f"{lane.tc:03b}",
            junos_transmit_pct=STRICT_TRANSMIT_PCT if weight is None else weight * (100 - strict_pct) // 100,
        )


_WATCHDOG: dict[PfcWatchdog, WatchdogData] = {}
"""Watchdog words by watchdog setting (pure values, shared by every device: the NX-OS search is not free)."""


def _watchdog_data(w: PfcWatchdog) -> WatchdogData:
    data = _WATCHDOG.get(w)
    if data is None:
        poll, polls = junos_watchdog(w.detection_ms)
        interval, shut, rest = nxos_watchdog(w.detection_ms, w.restoration_ms)
        data = WatchdogData(w.detection_ms, w.restoration_ms, w.action, _seconds(w.detection_ms),
                            _seconds(w.restoration_ms), poll, polls, interval, shut, rest)
        _WATCHDOG[w] = data
    return data


@cache
def _sonic_lanes(first: int, count: int) -> str:
    return ",".join(str(first + i) for i in range(count))




# --------------------------------------------------------------------------- builders


@cache
def _lane_fields(cage: int, sub: int, breakout: int, lanes: int) -> tuple[int, str, str]:
    """Lanes per port, SONiC's lane list and the front-panel alias of a port at ``cage``/``sub``."""
    lanes_per_port = lanes // breakout
    first = (cage - 1) * lanes + sub * lanes_per_port
    return lanes_per_port, _sonic_lanes(first, lanes_per_port), _alias(cage, sub, breakout)


def _interface(fabric: Fabric, sw: Switch, port: Port, mtu: int, lanes: int, qos: PortQos | None,
               blocks: _QosBlocks | None) -> Interface:
    link = fabric.links[port.link]
    lanes_per_port, sonic_lanes, alias = _lane_fields(port.cage, port.sub, port.breakout, lanes)
    iq: InterfaceQos | None = None
    if qos is not None and blocks is not None:
        iq = blocks.interface_qos(port.speed, _cable_m(link.length_m), qos)
    address = port.address
    ip, prefixlen = (None, None)
    if address:
        ip, _, length = address.partition("/")
        prefixlen = int(length)
    return Interface(
        port.name,
        port.peer,
        port.kind.value,
        port.peer_device,
        port.peer_port,
        port.cage,
        port.sub,
        port.breakout,
        port.speed,
        port.speed * 1000,
        lanes_per_port,
        sonic_lanes,
        alias,
        mtu,
        address,
        ip,
        prefixlen,
        link.subnet,
        mtu - IP_HEADER_OVERHEAD,
        iq,
    )


def _cages(sw: Switch, platform: str, lanes: int) -> tuple[Cage, ...]:
    seen: dict[int, Cage] = {}
    for p in sw.ports:
        if p.cage not in seen:
            seen[p.cage] = Cage(p.cage, p.breakout, p.speed, f"{p.breakout}x{p.speed}G",
                                port_name(platform, p.cage, 0, 1, lanes), p.cage - 1)
    return tuple(seen[c] for c in sorted(seen))


def _bgp(fabric: Fabric, sw: Switch) -> Bgp:
    neighbors: list[BgpNeighbor] = []
    for p in sw.ports:
        if p.kind is PortKind.HOST or p.address is None:
            continue
        peer = fabric.switches.get(p.peer_device)
        peer_port = fabric.port(p.peer_device, p.peer_port)
        if peer is None or peer_port is None or peer_port.address is None:
            continue
        neighbors.append(BgpNeighbor(
            ip=peer_port.address.split("/", 1)[0],
            asn=peer.asn,
            group=GROUP_OF_ROLE[peer.role],
            peer_device=peer.name,
            peer_port=p.peer_port,
            local_port=p.name,
            local_ip=p.address.split("/", 1)[0],
            description=p.peer,
        ))
    groups: list[BgpGroup] = []
    for role in (Role.LEAF, Role.SPINE, Role.CORE):
        members = tuple(n for n in neighbors if n.group == GROUP_OF_ROLE[role])
        if members:
            groups.append(BgpGroup(GROUP_OF_ROLE[role], f"{role.value} switches",
                                   members, tuple(sorted({n.asn for n in members}))))
    nets = own_prefixes(fabric, sw)
    return Bgp(
        asn=sw.asn,
        router_id=sw.loopback,
        groups=tuple(groups),
        neighbors=tuple(neighbors),
        networks=nets,
        max_paths=MAX_PATHS,
        multipath_relax=len({n.asn for n in neighbors}) > 1,
        bfd=_bfd(fabric),
        policy=_policy(fabric, sw, nets),
        session_ports=frozenset(n.local_port for n in neighbors),
    )


def _bfd(fabric: Fabric) -> Bfd | None:
    b = fabric.settings.bfd
    return Bfd(b.interval_ms, b.multiplier) if b.enabled else None


def _policy(fabric: Fabric, sw: Switch, networks: tuple[str, ...]) -> BgpPolicy:
    facts = routing_facts(fabric)
    return BgpPolicy(
        fabric_prefixes=facts.fabric_prefixes,
        local_prefixes=networks,
        community=role_community(fabric, sw.role),
        drained=sw.drained,
        maximum_prefix=facts.maximum_prefix,
        warning_pct=facts.warning_pct,
    )


SONIC_CABLE_CLASSES = (5, 40, 300)
"""Cable lengths (m) of SONiC's standard ``pg_profile_lookup.ini`` tables (buffermgrd looks headroom up by
speed and one of these lengths; a length not in the table finds no entry)."""

NVUE_WATCHDOG_POLLING_MS = 100
"""NVUE's PFC-watchdog polling interval: the schema's minimum (100–5000 ms), so detection is as exact as NVUE allows."""


def cable_class(length_m: int) -> CableClass:
    """The CABLE_LENGTH value SONiC gets for a link of ``length_m``: the smallest standard class that is not
    shorter (a longer assumed cable only adds headroom), or the length itself beyond the longest class.

    >>> cable_class(3), cable_class(40).written, cable_class(301).written
    (CableClass(length_m=3, written='5m', standard=True), '40m', '301m')
    """
    for c in SONIC_CABLE_CLASSES:
        if length_m <= c:
            return CableClass(length_m, f"{c}m", True)
    return CableClass(length_m, f"{length_m}m", False)


def nvue_watchdog(detection_ms: int) -> tuple[int, int, int]:
    """NVUE's (polling-interval, robustness, resulting detection time) for a PFC-watchdog detection time.
    NVUE detects a pause storm after ``robustness`` consecutive polls; the product is rounded up.

    >>> nvue_watchdog(200), nvue_watchdog(250), nvue_watchdog(10)
    ((100, 2, 200), (100, 3, 300), (100, 1, 100))
    """
    polling = NVUE_WATCHDOG_POLLING_MS
    robustness = min(1000, max(1, -(-detection_ms // polling)))
    return polling, robustness, polling * robustness


def _nvue(fabric: Fabric, sw: Switch, qos: DeviceQos | None) -> NvueData:
    new = at_least(sw.release, "5.15")
    override = fabric.qos_policy.platforms.get("nvue")
    polling = robustness = detection = None
    if qos is not None and qos.watchdog is not None:
        polling, robustness, detection = nvue_watchdog(qos.watchdog.detection_ms)
    pools: tuple[TrafficPool, ...] = ()
    if qos is not None and qos.pfc_priorities:
        lossy = tuple(p for p in range(8) if p not in qos.pfc_priorities)
        pools = (TrafficPool("default-lossy", 50, lossy), TrafficPool("default-lossless", 50, qos.pfc_priorities))
    return NvueData(
        on="enabled" if new else "on",
        enable_key="state" if new else "enable",
        ip_key="ipv4" if new else "ip",
        lldp_parent="system" if new else "service",
        roce_mode=override.roce_mode if override is not None else None,
        roce_udp_port=ROCE_UDP_PORT,
        roce_priority=qos.roce_tc if qos is not None else 3,
        adaptive_routing=sw.adaptive_routing,
        watchdog_polling_ms=polling,
        watchdog_robustness=robustness,
        watchdog_detection_ms=detection,
        traffic_pools=pools,
        ntp_parent="system" if new else "service",
        syslog_parent="system" if at_least(sw.release, "5.13") else "service",
        snmp_parent="system" if at_least(sw.release, "5.11") else "service",
        snmp_state_key="state" if at_least(sw.release, "5.11") else "enable",
        snmp_on="enabled" if at_least(sw.release, "5.11") else "on",
        aaa_legacy=not at_least(sw.release, "5.12"),
        auth_order_new=new,
        tacacs_high_first=at_least(sw.release, "5.12") and not at_least(sw.release, "5.18"),
        tacacs_command_authz=at_least(sw.release, NVUE_TACACS_COMMAND_AUTHORIZATION),
        radius_accounting=at_least(sw.release, NVUE_RADIUS_ACCOUNTING),
        bfd_profile=new,
    )


ROCE_UDP_PORT = 4791
"""RoCEv2's IANA UDP destination port."""



def _device_qos(sq: SwitchQos, blocks: _QosBlocks, profiles_used: list[QosProfile]) -> DeviceQos:
    lossless: dict[int, LaneData] = {}
    pfc: set[int] = set()
    for prof in profiles_used:
        pfc.update(prof.pfc_priorities)
        for lane in prof.lanes:
            if lane.lossless:
                lossless.setdefault(lane.tc, lane)
    b = sq.buffer
    lanes = profiles_used[0].lanes if profiles_used else ()
    watchdog = next((p.watchdog for p in profiles_used if p.watchdog is not None), None)
    used_queues = {lane.queue for p in profiles_used for lane in p.lanes}
    free = [q for q in range(7, -1, -1) if q not in used_queues]
    pool = max(b.pool_bytes, 1)
    shared_pct = max(1, min(100, (b.shared_bytes + b.lossless_headroom_bytes) * 100 // pool))
    headroom_pct = max(1, -(-b.lossless_headroom_bytes * 100 // pool))
    lossy_pct = JUNOS_LOSSY_SHARED_PCT
    lossless_pct = max(1, 100 - headroom_pct - lossy_pct)
    return DeviceQos(
        cnp_tc=sq.cnp_tc,
        roce_tc=sq.roce_tc,
        dscp_maps=tuple(sorted(blocks.maps.values(), key=lambda m: m.name)),
        profiles=tuple(sorted(blocks.profiles.values(), key=lambda p: p.name)),
        ecn_profiles=tuple(sorted(blocks.ecn.values(), key=lambda e: e.name)),
        headroom_profiles=tuple(sorted(blocks.headroom.values(), key=lambda h: h.name)),
        buffer=BufferData(b.pool_bytes, b.lossless_headroom_bytes, b.shared_bytes, b.source, shared_pct,
                          headroom_pct, lossless_pct, lossy_pct,
                          100 - lossy_pct - JUNOS_MULTICAST_SHARED_PCT, lossy_pct, JUNOS_MULTICAST_SHARED_PCT),
        watchdog=watchdog,
        pfc_priorities=tuple(sorted(pfc)),
        lossless_lanes=tuple(lossless[tc] for tc in sorted(lossless)),
        lanes=lanes,
        network_control_queue=free[0] if free else 7,
    )


def build_device(fabric: Fabric, name: str, qos: FabricQos | None = None) -> DeviceData:
    """The structured data of switch ``name``: ports, addresses, BGP, ECMP hashing, LLDP and QoS.

    ``qos`` is the fabric's computed QoS (:func:`fabricgen.qos.compute`); without it the device gets the
    underlay only. Raises ``KeyError`` for an unknown switch or platform.
    """
    sw = fabric.switches[name]
    plat = get_platform(sw.platform)
    model = fabric.catalog.switches[sw.model]
    mtu = min(fabric.settings.switch_mtu, plat.max_mtu)
    sq = qos.switches.get(name) if qos is not None else None
    blocks = _QosBlocks(sq.buffer.shared_bytes, model.ports) if sq is not None else None
    # an interface's QoS blocks are its class's (PortQosMap.shared): the same values, no per-port object
    interfaces = tuple(
        _interface(fabric, sw, p, mtu, model.lanes, sq.ports.shared(p.name) if sq is not None else None, blocks)
        for p in sw.ports
    )
    device_qos = None
    if sq is not None and blocks is not None:
        used: list[QosProfile] = []
        for i in interfaces:
            if i.qos is not None and i.qos.profile not in used:
                used.append(i.qos.profile)
        device_qos = _device_qos(sq, blocks, used)
    return DeviceData(
        name=sw.name,
        platform=sw.platform,
        role=sw.role.value,
        model=sw.model,
        vendor=model.vendor,
        asic=model.asic,
        fabric=fabric.name,
        asn=sw.asn,
        loopback=sw.loopback,
        loopback_prefix=f"{sw.loopback}/32",
        mtu=mtu,
        interfaces=interfaces,
        cages=_cages(sw, sw.platform, model.lanes),
        bgp=_bgp(fabric, sw),
        ecmp_hash_fields=ECMP_HASH_FIELDS,
        lldp=True,
        eos_tx_queue=model.eos_tx_queue,
        qos=device_qos,
        release=sw.release,
        hwsku=sw.hwsku,
        nvue=_nvue(fabric, sw, device_qos) if sw.platform == "nvue" else None,
        base=build_base(fabric, name, sw.platform),
        raw=build_raw(fabric, name, sw.platform),
    )
