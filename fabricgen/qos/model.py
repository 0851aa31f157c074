"""Computed lossless QoS of a fabric: per switch port, per host NIC, per node (NCCL).

Everything here is *data*, computed in Python by :func:`fabricgen.qos.compute` from the resolved
:class:`~fabricgen.topology.model.Fabric` and its QoS policy. Renderers (switch configs, host scripts)
read these objects and never compute: every number a template prints is a field below.

Conventions used throughout:

* ``tc`` is the traffic class, which fabricgen keeps equal to the 802.1p priority, the PFC priority,
  the ingress priority group and the egress queue index (the SONiC/NVIDIA 1:1 mapping).
* Bytes are integers in bytes (not KB, not cells). Times are integers in milliseconds.
* ``source`` strings say where a value came from: ``"default"`` (fabricgen's built-in policy),
  ``"platform:<name>"`` (fabricgen's built-in per-platform default, e.g. ``platform:nvue``),
  ``"override:<where>"`` (the inventory, e.g. ``override:qos.roles.host``), ``"inventory:<where>"``
  (a measured input such as a cable length) or ``"computed"`` (derived by a formula from the others).
* Identical ports share objects: the lanes tuple, EcnProfile, Headroom and the DSCP map of two ports
  with the same platform, speed, cable length and role are the *same* Python objects, so compare with
  ``==`` and never mutate (all classes are frozen).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

from fabricgen.topology.frozen import fast_init

if TYPE_CHECKING:
    from fabricgen.qos.policy import ResolvedPolicy
    from fabricgen.topology.model import HostNic, Port

K = TypeVar("K")
V = TypeVar("V")
O = TypeVar("O")  # noqa: E741 (the fabric object a value belongs to)

Trust = Literal["dscp", "pcp"]
Scheduling = Literal["strict", "ets"]
Purpose = Literal["training", "cnp", "storage", "default", "other"]


@fast_init
@dataclass(frozen=True, slots=True)
class Lane:
    """One traffic class ("lane") of the policy, as applied on one port.

    ``dscp``: the DSCP values classified into this lane (sorted; the ``default`` lane lists every DSCP
    no other lane claims). ``tc``: traffic class == 802.1p priority == egress queue index (0–7).
    ``lossless``: PFC is enabled on ``tc`` and the ingress priority group gets headroom.
    ``scheduling``: ``"strict"`` (strict priority) or ``"ets"`` with ``ets_weight`` percent (the ETS
    weights of one port sum to 100; ``None`` for strict lanes). ``ecn``: the egress queue marks ECN
    (WRED/ECN profile in :attr:`PortQos.ecn`). ``purpose``: what the lane carries, used by the checks
    (``training`` = RoCE/NCCL data, ``cnp`` = congestion notifications, ``storage``, ``default``).

    >>> Lane("roce", (26,), 3, True, "ets", 50, True, "training").tc
    3
    """

    name: str
    dscp: tuple[int, ...]
    tc: int
    lossless: bool
    scheduling: Scheduling
    ets_weight: int | None
    ecn: bool
    purpose: Purpose = "other"


@fast_init
@dataclass(frozen=True, slots=True)
class EcnProfile:
    """WRED/ECN marking on one egress queue: start marking at ``min_bytes`` of queue depth, mark with
    ``probability_pct`` percent at ``max_bytes`` (and every packet above). Always mark, never drop
    (SONiC ``ecn: ecn_all``, EOS ``random-detect ecn``, NX-OS ``ecn``).

    ``source`` names where the thresholds came from, e.g. ``platform:nvue`` or
    ``override:qos.ecn_by_speed.400G``.
    """

    min_bytes: int
    max_bytes: int
    probability_pct: int
    source: str


@fast_init
@dataclass(frozen=True, slots=True)
class Headroom:
    """PFC headroom of one lossless ingress priority group (roce.md §4), in bytes, rounded up to 1 KiB.

    ``xoff_bytes``: headroom that absorbs what is in flight after PAUSE is sent (SONiC BUFFER_PROFILE
    ``xoff``). ``xon_bytes``: pipeline latency (``xon``). ``size_bytes``: the reserved headroom of the
    PG (``size``; xoff + xon, plus one MTU on 8-lane ports). ``cable_m``: cable length used, whose origin
    is in ``cable_source`` (``inventory:links`` or ``default:fabric.cable_defaults.host`` …).
    ``source``: origin of the buffer facts (``catalog:<model>``). ``xoff_source``: what gave
    ``xoff_bytes``: the formula (``computed (catalog:<model>)``) or the vendor's published table, never
    less than it (``table:<model> (<title>, <speed>, interpolated 5–40 m)``).

    ``threshold``: how the PG decides to send XOFF once its headroom is reserved — ``"dynamic"`` (a
    share of free buffer, SONiC ``dynamic_th`` = ``dynamic_th`` as log2 of alpha) or ``"static"`` (a
    fixed byte count, SONiC ``static_th`` = ``xoff_threshold_bytes``). ``xoff_threshold_bytes`` is the
    ingress occupancy at which PAUSE is sent: exact when static, an estimate (alpha × free pool /
    (1 + alpha)) when dynamic.
    """

    xoff_bytes: int
    xon_bytes: int
    size_bytes: int
    cable_m: float
    source: str
    cable_source: str = "inventory:links"
    threshold: Literal["dynamic", "static"] = "dynamic"
    dynamic_th: int = 0
    xoff_threshold_bytes: int = 0
    xoff_source: str = "computed"


@fast_init
@dataclass(frozen=True, slots=True)
class PfcWatchdog:
    """PFC storm watchdog of a lossless queue (SONiC PFC_WD): after ``detection_ms`` of continuous
    pause the queue is ``action``-ed (``drop`` or ``forward``) until ``restoration_ms`` without pause."""

    detection_ms: int
    restoration_ms: int
    action: Literal["drop", "forward"]


@fast_init
@dataclass(frozen=True, slots=True)
class PortQos:
    """The complete QoS of one switch port.

    ``role``: ``"host"`` (faces a server NIC) or ``"fabric"`` (faces another switch).
    ``speed`` in Gb/s; ``mtu``: the port's Ethernet MTU. ``trust``: classify on ``dscp`` or ``pcp``.
    ``dscp_to_tc``: all 64 DSCP values → tc (render it whole: stock SONiC maps DSCP 26 to lossy TC1).
    ``lanes``: the policy's lanes, sorted by tc. ``pfc_priorities``: priorities with PFC enabled
    (SONiC ``pfc_enable "3"``). ``ecn``: the ECN profile of each marking egress queue, by tc.
    ``headroom``: by lossless priority (every priority in ``pfc_priorities``). ``watchdog``: PFC
    watchdog, or ``None`` when disabled. ``sources``: value name → origin, for ``trust``,
    ``dscp_to_tc``, ``lanes``, ``cnp_tc``, ``pfc_priorities``, ``ecn``, ``headroom``, ``cable_m``,
    ``watchdog``, ``mtu``. ``peer``: ``device:port`` at the other end of the cable.
    """

    device: str
    port: str
    speed: int
    mtu: int
    trust: Trust
    dscp_to_tc: Mapping[int, int]
    lanes: tuple[Lane, ...]
    pfc_priorities: frozenset[int]
    ecn: Mapping[int, EcnProfile]
    headroom: Mapping[int, Headroom]
    watchdog: PfcWatchdog | None
    sources: Mapping[str, str]
    role: Literal["host", "fabric"] = "fabric"
    peer: str = ""

    def lane(self, tc: int) -> Lane | None:
        """The lane on traffic class ``tc`` (``None`` when no lane uses it)."""
        for lane in self.lanes:
            if lane.tc == tc:
                return lane
        return None


class SharedQosMap(Mapping[K, V], Generic[K, V, O]):
    """QoS values by key, kept once per class of equal values.

    Many ports (or NICs) have the same QoS but for who they are: their name and peer. So such a map holds, per
    key, its class's *shared* value (a ``V`` whose identity fields are empty, one object per class) and the
    fabric object it belongs to (``O``); the key's own value is made from the two on its first lookup and kept.
    Rules and renderers that read only shared values use :meth:`shared` and :meth:`shared_items` and make none:
    a 100k-GPU fabric has 400k switch ports and 100k NICs, and a few dozen classes of each.
    """

    __slots__ = ("_entries", "_made")

    def __init__(self, entries: Mapping[K, tuple[V, O]]) -> None:
        self._entries = entries
        self._made: dict[K, V] = {}

    def _make(self, key: K, shared: V, own: O) -> V:
        raise NotImplementedError

    def __getitem__(self, key: K) -> V:
        made = self._made.get(key)
        if made is None:
            shared, own = self._entries[key]
            made = self._made[key] = self._make(key, shared, own)
        return made

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._entries)} entries)"

    def shared(self, key: K) -> V | None:
        """The value ``key`` shares with its class: equal to ``self[key]`` in every field but those that say
        whose it is (empty here); None when there is no such key."""
        got = self._entries.get(key)
        return None if got is None else got[0]

    def shared_items(self) -> Iterator[tuple[K, V]]:
        """``(key, shared value)`` for every key, in order."""
        for key, (shared, _) in self._entries.items():
            yield key, shared


class PortQosMap(SharedQosMap[str, PortQos, "Port"]):
    """The QoS of a switch's ports by port name, in port order. The ports of one class (same settings, speed,
    breakout and cable; :mod:`fabricgen.qos.compute`) share a :class:`PortQos` whose ``port`` and ``peer`` are
    empty; a port's own adds its name and peer (``device:port``) from its
    :class:`~fabricgen.topology.model.Port`."""

    __slots__ = ()

    def _make(self, key: str, shared: PortQos, own: Port) -> PortQos:
        s = shared
        return PortQos(
            s.device, key, s.speed, s.mtu, s.trust, s.dscp_to_tc, s.lanes, s.pfc_priorities, s.ecn, s.headroom,
            s.watchdog, s.sources, s.role, own.peer,
        )


@fast_init
@dataclass(frozen=True, slots=True)
class BufferPlan:
    """Buffer sanity of one switch (SONiC BUFFER_POOL ``ingress_lossless_pool``).

    ``pool_bytes``: the ASIC's shared packet buffer (catalog ``buffer.total_bytes``).
    ``lossless_headroom_bytes``: Σ headroom ``size`` over every lossless PG of every cabled port.
    ``shared_bytes``: what remains for the shared (dynamic) pool. ``lossless_pgs``: number of lossless
    priority groups counted. ``source``: ``catalog:<model>``. ``fits``: headroom ≤ pool.
    """

    pool_bytes: int
    lossless_headroom_bytes: int
    shared_bytes: int = 0
    lossless_pgs: int = 0
    source: str = ""

    @property
    def fits(self) -> bool:
        return self.lossless_headroom_bytes <= self.pool_bytes


@fast_init
@dataclass(frozen=True, slots=True)
class SwitchQos:
    """QoS of one switch: every cabled port, the buffer plan and the CNP traffic class.

    ``cnp_tc``: the traffic class of the CNP lane on this switch (6 on NVIDIA, 7 on Broadcom/Arista/
    Cisco by default; ``sources["cnp_tc"]`` says which). ``roce_tc``: the training lane's tc.
    ``sources``: switch-level value origins (``cnp_tc``, ``buffer``).
    """

    device: str
    platform: str
    ports: PortQosMap
    buffer: BufferPlan
    cnp_tc: int
    roce_tc: int = 3
    sources: Mapping[str, str] = field(default_factory=dict)
    # the first port (in port order) of each port class: the ports of one class have the same QoS but for their
    # name and peer (fabricgen.qos.compute); what a rule that needs each distinct QoS once walks
    firsts: tuple[PortQos, ...] = field(default=(), compare=False, repr=False)


@fast_init
@dataclass(frozen=True, slots=True)
class NicQos:
    """QoS of one host backend NIC (what the NIC QoS script applies).

    ``driver``: ``mlx5`` or ``bnxt_re`` (the script's tooling depends on it). ``trust``: ``dscp``
    (ConnectX firmware defaults to ``pcp``). ``pfc_priorities``: PFC-enabled priorities
    (``mlnx_qos --pfc`` bitmap). ``ecn_np`` / ``ecn_rp``: priorities with ECN notification-point /
    reaction-point enabled. ``roce_tos``: RDMA-CM default ToS byte (``DSCP << 2 | ECN``), also
    ``NCCL_IB_TC``. ``cnp_dscp`` / ``cnp_priority``: how the NIC marks the CNPs it sends.
    ``mtu``: the interface MTU. ``dscp_to_prio``: all 64 DSCP → priority (the firmware default is
    DSCP >> 3; the script sets only the entries that differ). ``peer``: ``device:port`` of the leaf.
    ``sources``: value name → origin (``override:nodes[gpu01].nic_qos`` when a node overrides it).
    """

    node: str
    ifname: str
    rdma_dev: str
    trust: Trust
    pfc_priorities: frozenset[int]
    ecn_np: frozenset[int]
    ecn_rp: frozenset[int]
    roce_tos: int
    cnp_dscp: int
    cnp_priority: int
    mtu: int
    driver: str = "mlx5"
    dscp_to_prio: Mapping[int, int] = field(default_factory=dict)
    gpu: int = 0
    rail: int = 0
    peer: str = ""
    sources: Mapping[str, str] = field(default_factory=dict)


class NicQosMap(SharedQosMap[tuple[str, str], NicQos, "HostNic"]):
    """The QoS of every host NIC by ``(node, ifname)``, in node and NIC order. The NICs of one class (same
    settings, node override and driver; :mod:`fabricgen.qos.compute`) share a :class:`NicQos` whose ``node``,
    ``ifname``, ``rdma_dev``, ``gpu``, ``rail`` and ``peer`` are empty or 0; a NIC's own takes them from its
    :class:`~fabricgen.topology.model.HostNic`."""

    __slots__ = ()

    def _make(self, key: tuple[str, str], shared: NicQos, own: HostNic) -> NicQos:
        s = shared
        return NicQos(  # positional: node, ifname, rdma_dev, trust, pfc_priorities, ecn_np, ecn_rp, roce_tos,
            # cnp_dscp, cnp_priority, mtu, driver, dscp_to_prio, gpu, rail, peer, sources
            key[0], key[1], own.rdma_dev, s.trust, s.pfc_priorities, s.ecn_np, s.ecn_rp, s.roce_tos, s.cnp_dscp,
            s.cnp_priority, s.mtu, s.driver, s.dscp_to_prio, own.gpu, own.rail,
            own.peer, s.sources,
        )


@fast_init
@dataclass(frozen=True, slots=True)
class NcclEnv:
    """NCCL environment of one node: ``variables`` in output order (``NCCL_IB_HCA``, ``NCCL_IB_TC``,
    ``NCCL_IB_GID_INDEX``, ``NCCL_SOCKET_IFNAME``); ``sources`` gives each variable's origin."""

    node: str
    variables: Mapping[str, str]
    sources: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FabricQos:
    """Everything :func:`fabricgen.qos.compute` returns for a fabric.

    ``switches``: by switch name. ``nics``: by ``(node, ifname)``. ``nccl``: by node name.
    ``policy``: the resolved policy (:class:`fabricgen.qos.policy.ResolvedPolicy`) the values came from.
    """

    switches: Mapping[str, SwitchQos]
    nics: NicQosMap
    nccl: Mapping[str, NcclEnv]
    policy: ResolvedPolicy

    def port(self, device: str, port: str) -> PortQos | None:
        sw = self.switches.get(device)
        return None if sw is None else sw.ports.get(port)

    def shared(self, device: str, port: str) -> PortQos | None:
        """The QoS of a switch port as its class shares it (:meth:`PortQosMap.shared`)."""
        sw = self.switches.get(device)
        return None if sw is None else sw.ports.shared(port)
