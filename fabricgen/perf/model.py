"""Collective bandwidth of a job placed on a fabric, in the bus-bandwidth terms nccl-tests reports.

Pure functions of a resolved :class:`~fabricgen.topology.model.Fabric`; nothing here measures anything.
The model answers "what bus bandwidth should an all-reduce (all-gather, reduce-scatter, all-to-all) of
these GPUs reach on this fabric?" and is linear in the size of the placement.

Assumptions (also in the README, "Scaling and nccl-tests"):

* **Units.** Link speeds are Gb/s; bandwidths are reported in GB/s (10⁹ bytes/s) as nccl-tests does.
  A NIC of ``speed`` Gb/s carries ``speed / 8 × nic_efficiency`` GB/s of payload (default 0.92: RoCEv2
  headers, ACKs and CNPs take the rest). A GPU reaches ``nvlink_gbytes_per_s × nvlink_efficiency`` over
  its server's NVLink/NVSwitch domain (default 0.80: what NCCL's ring reaches of the one-direction figure).
* **Bus bandwidth.** nccl-tests' factors: all-reduce ``busbw = algbw × 2(n−1)/n``; all-gather,
  reduce-scatter and all-to-all ``busbw = algbw × (n−1)/n``, ``n`` the number of ranks. A collective is
  paced by its slowest path.
* **NCCL's default algorithm** (all-reduce, large messages; what ``best`` reports), by job size:
  one node: **NVLS** (NVLink SHARP) where the server has it (Hopper/Blackwell SXM GPUs on NVSwitch:
  H100, H200, H800, H20, B200, B300), else ring; two nodes: **NVLS-tree** where NVLS exists, else
  **tree**; three nodes and more: **ring** (nccl-tests #196, nccl #812, nccl #1031: "on two nodes NCCL
  uses the tree (or nvlstree) algorithm"; nccl #1221: NVLS stops helping beyond two nodes). All-gather
  and reduce-scatter: ring; all-to-all: direct. NVLS needs NCCL 2.17, NVLS-tree 2.18 (nccl-tests #153).
* **NVLS** (one node): every GPU writes its buffer once into the switch, which reduces and multicasts; the
  algorithm bandwidth is ``NVLink × nvls_efficiency × g/(g+1)`` (NCCL's maintainer in nccl-tests PR #239:
  ``algbw = busbw_wire × n/(n+1)``) and nccl-tests reports ``busbw = algbw × 2(n−1)/n``.
  ``nvls_efficiency`` 0.69 on Hopper: 8 × H100 reach algbw 275 GB/s = 0.69 × 450 × 8/9 (nccl-tests #212,
  nccl #2140); Blackwell gets 0.69 × 0.74/0.85, the ratio of NCCL's own ``nvlsEfficiency`` table
  (``src/graph/tuning.cc``: Hopper 0.85, Blackwell 0.74).
* **Tree** (two nodes): one reduce and one broadcast cross the network, so each node sends and receives
  the buffer once (``S``) instead of ring's ``2(n−1)/n·S``; ``algbw = min(0.46 × NVLink ring bandwidth,
  node network)`` — 0.46 = NCCL's tuner (``tuning.cc``: tree bus bandwidth × 0.92, algorithm bandwidth =
  half of it); with one GPU per node only the network counts. **NVLS-tree**: ``algbw = min(0.83 × NVLS
  algbw, node network)``, 0.83 calibrated on 2 × 8 × H100 with 8 × 400G RoCE reaching 430 GB/s (nccl
  #1221). Both report ``busbw = algbw × 2(n−1)/n``, which exceeds the NICs' line rate (nccl-tests #196).
* **Ring.** Every GPU forwards ``2(n−1)/n`` of the buffer (all-reduce) over NVLink inside a node; every
  node forwards the same over the network, spread evenly over its NICs (NCCL binds channels to NICs, so
  the slowest NIC paces them all). Ring bus bandwidth = ``min(NVLink per GPU, NICs per node × slowest NIC)``.
* **Hierarchical** (the tree/rail-aware form): NVLink reduce-scatter inside each node, an all-reduce per
  rail across the nodes (each GPU's NIC carries ``1/g`` of the buffer), NVLink all-gather; the phases
  pipeline, so the slower of the NVLink time ``2(g−1)/g·S/B_nvlink`` and the network time
  ``2(M−1)/M·S/B_node`` sets the step (``g`` GPUs per node, ``M`` nodes). All-gather and reduce-scatter
  use half of each term. All-to-all has one (direct) algorithm: ``g(n−g)/n·S`` leaves each node over its
  NICs, ``(g−1)/n·S`` crosses NVLink per GPU.
* **Rails.** NIC *r* of every node lands on a rail-*r* leaf; NCCL keeps inter-node traffic on the rail
  (PXN moves data to the right GPU over NVLink first), so traffic of rail *r* only meets rail *r*.
* **Oversubscription bites only when the job's traffic crosses a tier.** For every subtree the job uses
  (a leaf; in three-tier fabrics a pod of leaves and spines) the traffic that may leave it is bounded, per
  rail, by the job's NIC bandwidth inside and outside it (the hose model: any traffic matrix the NICs can
  inject). The job gets a share of the subtree's live uplinks in proportion to its share of the subtree's
  live host ports (its neighbours are assumed as busy as it is). A NIC's bandwidth is derated by
  ``min(1, uplink share ÷ demand)`` of its leaf and of its pod. A job inside one leaf per rail never
  touches the uplinks; one node on a 2:1 leaf, talking to nodes elsewhere, gets half its line rate.
* **Failures** (``--fail DEVICE`` or ``--fail DEVICE:PORT``) remove links: a failed spine takes its
  leaves' uplinks to it (and its own uplinks), a failed leaf or host link takes that NIC, whose GPU then
  borrows another NIC of its node. A node without any live NIC cannot talk to other nodes (bandwidth 0).
* **Scaling efficiency** ``= busbw(job) ÷ busbw(one node of the same server)``, for every collective: the
  share of a node's bus bandwidth a job keeps as it grows (what users compute when they compare a
  multi-node run with a one-node run). With one GPU per node the reference is the same job on NICs alone.
* **Not modelled:** latency and small messages (the model is the large-message plateau), in-network
  reduction in the switches (IB/Spectrum SHARP, CollNet), NVLS for all-gather/reduce-scatter, PAT,
  multi-node NVLink domains, ECMP hash collisions, congestion control dynamics, other jobs' real traffic
  (beyond the fair share above).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from fabricgen.errors import InputError, Problem
from fabricgen.inventory.schema import Role
from fabricgen.topology.model import Fabric, PortKind

BITS_PER_BYTE = 8


class Collective(StrEnum):
    ALL_REDUCE = "all_reduce"
    ALL_GATHER = "all_gather"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_TO_ALL = "all_to_all"


class Algorithm(StrEnum):
    RING = "ring"
    HIERARCHICAL = "hierarchical"  # rail-aware bound: NVLink inside nodes, one all-reduce per rail across nodes
    TREE = "tree"
    NVLS = "nvls"
    NVLS_TREE = "nvls_tree"
    DIRECT = "direct"  # all-to-all: every rank sends to every other (NCCL's only all-to-all)


NCCL_ALGO_NAMES = {
    "ring": Algorithm.RING,
    "tree": Algorithm.TREE,
    "nvls": Algorithm.NVLS,
    "nvlstree": Algorithm.NVLS_TREE,
}
"""``NCCL_ALGO`` values (case-insensitive) the model knows; CollNet and PAT are not modelled."""

NVLS_EFFICIENCY_HOPPER = 0.69
"""NVLS algorithm bandwidth ÷ (NVLink one-direction × g/(g+1)) on Hopper: 275 GB/s on 8 × H100 (450 GB/s)."""
NVLS_BLACKWELL_RATIO = 0.74 / 0.85
"""Blackwell's NVLS efficiency relative to Hopper's, from NCCL's own nvlsEfficiency table (tuning.cc)."""
TREE_RATIO = 0.46
"""Tree algorithm bandwidth ÷ NVLink ring bandwidth on two nodes: NCCL's tuner, 0.92 × 0.5 (tuning.cc)."""
NVLS_TREE_RATIO = 0.83
"""NVLS-tree algorithm bandwidth ÷ one-node NVLS algorithm bandwidth: 430 GB/s busbw on 2 × 8 × H100 (nccl #1221)."""

_HOPPER = re.compile(r"^(?:NVIDIA[ -])?G?H(?:100|200|800|20)\b(?!.*(?:PCIe|NVL\b))", re.IGNORECASE)
_BLACKWELL = re.compile(r"^(?:NVIDIA[ -])?G?B(?:100|200|300)\b", re.IGNORECASE)


def nvls_efficiency(gpu: str, gpus: int, nvlink_domain: int) -> float:
    """NVLS efficiency of a server model (0.0 when it has no NVLink SHARP): Hopper and Blackwell GPUs on an
    NVSwitch that spans the server (SXM boards; PCIe and NVL bridge cards have none).

    >>> nvls_efficiency("H100-SXM5-80GB", 8, 8), nvls_efficiency("A100-SXM4-80GB", 8, 8)
    (0.69, 0.0)
    >>> round(nvls_efficiency("B200", 8, 8), 3), nvls_efficiency("H100-PCIe", 8, 2)
    (0.601, 0.0)
    """
    if gpus < 2 or nvlink_domain < gpus:
        return 0.0
    if _HOPPER.match(gpu):
        return NVLS_EFFICIENCY_HOPPER
    if _BLACKWELL.match(gpu):
        return NVLS_EFFICIENCY_HOPPER * NVLS_BLACKWELL_RATIO
    return 0.0


def default_algorithm(
    collective: Collective,
    nodes: int,
    nvls: bool,
    *,
    nccl_version: tuple[int, int, int] | None = None,
    allowed: frozenset[Algorithm] | None = None,
) -> Algorithm:
    """The algorithm NCCL's tuner uses for large messages of ``collective`` on ``nodes`` nodes.

    ``nvls``: the servers have NVLink SHARP; ``nccl_version``: the library, when known (NVLS from 2.17,
    NVLS-tree from 2.18); ``allowed``: what ``NCCL_ALGO`` leaves (None: all).

    >>> [default_algorithm(Collective.ALL_REDUCE, m, True).value for m in (1, 2, 3)]
    ['nvls', 'nvls_tree', 'ring']
    >>> default_algorithm(Collective.ALL_REDUCE, 2, True, nccl_version=(2, 16, 5)).value
    'tree'
    >>> default_algorithm(Collective.ALL_REDUCE, 2, True, allowed=frozenset({Algorithm.RING})).value
    'ring'
    """
    if collective is Collective.ALL_TO_ALL:
        return Algorithm.DIRECT
    if collective is not Collective.ALL_REDUCE:
        return Algorithm.RING
    version = nccl_version or (99, 0, 0)  # unknown: a current NCCL
    has_nvls = nvls and version >= (2, 17, 0)
    has_nvls_tree = nvls and version >= (2, 18, 0)
    if nodes <= 1:
        order = [Algorithm.NVLS] if has_nvls else []
        order += [Algorithm.RING, Algorithm.TREE]
    elif nodes == 2:
        order = [Algorithm.NVLS_TREE] if has_nvls_tree else []
        order += [Algorithm.TREE, Algorithm.RING]
    else:
        order = [Algorithm.RING, Algorithm.TREE]
    for algo in order:
        if allowed is None or algo in allowed:
            return algo
    return order[0]


def parse_nccl_algo(value: str) -> frozenset[Algorithm] | None:
    """``NCCL_ALGO`` → the algorithms it allows among those modelled; None when it names none of them.

    >>> sorted(a.value for a in parse_nccl_algo("Ring,Tree"))
    ['ring', 'tree']
    >>> sorted(a.value for a in parse_nccl_algo("^NVLS,NVLSTree"))
    ['ring', 'tree']
    >>> parse_nccl_algo("CollnetDirect") is None
    True
    >>> sorted(a.value for a in parse_nccl_algo("allreduce:tree"))
    ['tree']
    """
    text = value.strip()
    exclude = text.startswith("^")
    # "allreduce:ring,tree;allgather:ring" (per-collective form): the algorithm names after the colon
    names = {t.strip().lower().rsplit(":", 1)[-1] for t in re.split(r"[,;]", text.lstrip("^")) if t.strip()}
    named = {NCCL_ALGO_NAMES[n] for n in names if n in NCCL_ALGO_NAMES}
    if exclude:
        return frozenset(set(NCCL_ALGO_NAMES.values()) - named)
    return frozenset(named) if named else None


def bus_factor(collective: Collective, ranks: int) -> float:
    """nccl-tests' algbw → busbw factor for ``ranks`` ranks.

    >>> bus_factor(Collective.ALL_REDUCE, 16), bus_factor(Collective.ALL_GATHER, 16)
    (1.875, 0.9375)
    >>> bus_factor(Collective.ALL_REDUCE, 1)
    0.0
    """
    if ranks <= 1:
        return 0.0
    per = (ranks - 1) / ranks
    return 2 * per if collective is Collective.ALL_REDUCE else per


@dataclass(frozen=True, slots=True)
class Assumptions:
    """Efficiency assumptions (0 < x ≤ 1). ``nic_efficiency``: payload share of a RoCE link's line rate;
    ``nvlink_efficiency``: share of the per-GPU one-direction NVLink bandwidth a collective reaches."""

    nic_efficiency: float = 0.92
    nvlink_efficiency: float = 0.80

    def __post_init__(self) -> None:
        for name in ("nic_efficiency", "nvlink_efficiency"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {value}")

    def as_dict(self) -> dict[str, float]:
        return {"nic_efficiency": self.nic_efficiency, "nvlink_efficiency": self.nvlink_efficiency}


@dataclass(frozen=True, slots=True)
class Failures:
    """Devices and links taken out of service; ``labels`` keeps what the user wrote, for reports."""

    devices: frozenset[str] = frozenset()
    links: frozenset[int] = frozenset()
    labels: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.devices or self.links)


NO_FAILURES = Failures()


def parse_failures(fabric: Fabric, specs: Iterable[str]) -> Failures:
    """``DEVICE`` (a switch or a node) or ``DEVICE:PORT`` (a switch port or a node's NIC interface).

    Raises :class:`InputError` naming every spec that matches nothing.

    >>> from fabricgen.perf.model import parse_failures  # doctest: +SKIP
    >>> parse_failures(fabric, ["spine1", "leaf1:Ethernet256"])  # doctest: +SKIP
    Failures(devices=frozenset({'spine1'}), links=frozenset({32}), labels=('spine1', 'leaf1:Ethernet256'))
    """
    devices: set[str] = set()
    links: set[int] = set()
    labels: list[str] = []
    problems: list[Problem] = []
    for raw in specs:
        spec = raw.strip()
        labels.append(spec)
        device, _, port = spec.partition(":")
        if not port:
            if device in fabric.switches or device in fabric.nodes:
                devices.add(device)
            else:
                problems.append(Problem(None, "--fail", f"{spec!r} is not a switch or node of {fabric.name}"))
            continue
        if device in fabric.switches:
            p = fabric.port(device, port)
            if p is None:
                problems.append(Problem(None, "--fail", f"{spec!r}: {device} has no cabled port {port!r}"))
            else:
                links.add(p.link)
            continue
        node = fabric.nodes.get(device)
        nic = next((n for n in node.nics if port in (n.ifname, n.rdma_dev)), None) if node else None
        if node is None:
            problems.append(Problem(None, "--fail", f"{spec!r}: {device!r} is not a switch or node of {fabric.name}"))
        elif nic is None or nic.link is None:
            problems.append(Problem(None, "--fail", f"{spec!r}: {device} has no cabled backend NIC {port!r}"))
        else:
            links.add(nic.link)
    if problems:
        raise InputError(problems)
    return Failures(frozenset(devices), frozenset(links), tuple(labels))


# --------------------------------------------------------------------------- a fabric, indexed once


@dataclass(frozen=True, slots=True)
class _Nic:
    rail: int
    gpu: int
    speed: int  # Gb/s
    leaf: int  # index into _View.leaves
    live: bool  # with the failures applied


@dataclass(frozen=True, slots=True)
class NodeSlot:
    """A node as the model sees it: its GPUs, NVLink bandwidth and cabled backend NICs."""

    name: str
    unit: int | None
    gpus: int
    nvlink_gbytes_per_s: float
    nics: tuple[_Nic, ...]
    failed: bool
    pod: int  # index into _View.pods; -1 when the node has no cabled NIC
    group: tuple[int, ...]  # the leaves of its NICs (by rail): nodes with the same group share every leaf
    nvls: float = 0.0  # NVLS efficiency of its server model (0: no NVLink SHARP)


@dataclass
class _View:
    """Per-leaf and per-pod capacity of a fabric (with and without the failures), built in one pass."""

    fabric: Fabric
    failures: Failures
    leaves: list[str] = field(default_factory=list)
    leaf_pod: list[int] = field(default_factory=list)
    host: list[list[float]] = field(default_factory=list)  # [healthy, failed] host bandwidth per leaf
    up: list[list[float]] = field(default_factory=list)  # [healthy, failed] uplink bandwidth per leaf
    pods: list[str] = field(default_factory=list)
    pod_host: list[list[float]] = field(default_factory=list)
    pod_up: list[list[float]] = field(default_factory=list)
    three_tier: bool = False
    nodes: dict[str, NodeSlot] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _link_live(fabric: Fabric, failures: Failures, link: int) -> bool:
    if link in failures.links:
        return False
    ln = fabric.links[link]
    if ln.a.device in failures.devices:
        return False
    return ln.b is None or ln.b.device not in failures.devices


def build_view(fabric: Fabric, failures: Failures = NO_FAILURES) -> _View:
    """Index ``fabric`` for the model: O(ports + NICs)."""
    view = _View(fabric, failures)
    view.three_tier = any(s.role is Role.CORE for s in fabric.switches.values())
    leaf_index: dict[str, int] = {}
    pod_index: dict[str, int] = {}

    def pod_of(key: str) -> int:
        if key not in pod_index:
            pod_index[key] = len(view.pods)
            view.pods.append(key)
            view.pod_host.append([0.0, 0.0])
            view.pod_up.append([0.0, 0.0])
        return pod_index[key]

    switches = fabric.switches
    for sw in switches.values():
        if sw.role is not Role.LEAF:
            continue
        leaf_index[sw.name] = len(view.leaves)
        view.leaves.append(sw.name)
        host = [0.0, 0.0]
        up = [0.0, 0.0]
        pod_key = "pod 1"
        if view.three_tier:
            peer_pod = next(
                (switches[p.peer_device].pod for p in sw.uplinks() if p.peer_device in switches), None
            )
            pod = sw.pod if sw.pod is not None else peer_pod
            pod_key = f"pod {pod + 1}" if pod is not None else "pod ?"
        for p in sw.ports:
            live = _link_live(fabric, failures, p.link)
            target = host if p.kind is PortKind.HOST else up if p.kind is PortKind.UP else None
            if target is None:
                continue
            target[0] += p.speed
            if live:
                target[1] += p.speed
        view.host.append(host)
        view.up.append(up)
        pi = pod_of(pod_key)
        view.leaf_pod.append(pi)
        for k in (0, 1):
            view.pod_host[pi][k] += host[k]
    if view.three_tier:
        for sw in switches.values():
            if sw.role is not Role.SPINE:
                continue
            pi = pod_of(f"pod {sw.pod + 1}" if sw.pod is not None else "pod ?")
            for p in sw.uplinks():
                view.pod_up[pi][0] += p.speed
                if _link_live(fabric, failures, p.link):
                    view.pod_up[pi][1] += p.speed

    servers = fabric.catalog.servers
    odd_domains: set[str] = set()
    for node in fabric.nodes.values():
        model = servers.get(node.model)
        nvlink = model.nvlink_gbytes_per_s if model else 0.0
        if model and model.nvlink_domain != model.gpus:
            odd_domains.add(node.model)
        node_failed = node.name in failures.devices
        nics = []
        for nic in node.nics:
            if nic.link is None or nic.peer_device not in leaf_index:
                continue
            live = not node_failed and _link_live(fabric, failures, nic.link)
            nics.append(_Nic(nic.rail, nic.gpu, nic.speed, leaf_index[nic.peer_device], live))
        nics.sort(key=lambda n: n.rail)
        pod = view.leaf_pod[nics[0].leaf] if nics else -1
        nvls = nvls_efficiency(model.gpu, model.gpus, model.nvlink_domain) if model else 0.0
        view.nodes[node.name] = NodeSlot(
            node.name, node.unit, node.gpus, nvlink, tuple(nics), node_failed, pod, tuple(n.leaf for n in nics), nvls
        )
    for name in sorted(odd_domains):
        m = servers[name]
        view.notes.append(
            f"{name}: NVLink domain of {m.nvlink_domain} GPUs vs {m.gpus} per server; "
            f"the model treats each server as one NVLink domain"
        )
    return view


# --------------------------------------------------------------------------- a job on the fabric


@dataclass(frozen=True, slots=True)
class Prediction:
    """The model's answer for one placement and collective (bandwidths in GB/s).

    ``busbw`` per algorithm; ``best``: the one of ``algorithm``, NCCL's default for this job size (NVLS on one
    NVLS node, tree/NVLS-tree on two nodes, ring beyond; see the module docstring).
    ``nvlink``: per-GPU NVLink bandwidth (None on one GPU per node); ``network``: the slowest node's
    network bandwidth, NICs × slowest NIC after derating (None on one node); ``nic``: the slowest NIC.
    ``derate``: the smallest uplink-share factor any NIC of the job sees; ``limit``: what sets ``best``
    (``nvlink``, ``nic``, ``leaf``, ``spine``, ``node``); ``bottleneck``: the same in words.
    ``tiers``: what the job's traffic crosses (``nvlink``, ``leaf``, ``spine``, ``core``).
    ``ideal``: the bus bandwidth of one node of the job's server (``g`` GPUs, NCCL's default algorithm
    there); with one GPU per node, the same job on its NICs alone. The reference for scaling efficiency:
    ``best / ideal`` is what users compute as the share of a node's bandwidth a job keeps.
    """

    collective: Collective
    gpus: int
    nodes: int
    busbw: Mapping[Algorithm, float]
    best: float
    algorithm: Algorithm
    nvlink: float | None
    network: float | None
    nic: float | None
    derate: float
    limit: str
    bottleneck: str
    tiers: tuple[str, ...]
    ideal: float
    switch: str | None = None  # the leaf (or pod) whose uplinks set ``best``, when one does

    def as_dict(self) -> dict[str, object]:
        return {
            "collective": self.collective.value,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "busbw": {a.value: round(v, 3) for a, v in self.busbw.items()},
            "best": round(self.best, 3),
            "algorithm": self.algorithm.value,
            "nvlink_gbytes_per_s": None if self.nvlink is None else round(self.nvlink, 3),
            "network_gbytes_per_s": None if self.network is None else round(self.network, 3),
            "nic_gbytes_per_s": None if self.nic is None else round(self.nic, 3),
            "derate": round(self.derate, 4),
            "limit": self.limit,
            "bottleneck": self.bottleneck,
            "tiers": list(self.tiers),
            "ideal": round(self.ideal, 3),
            "switch": self.switch,
        }


class _Job:
    """Accumulates a placement node by node; :meth:`evaluate` is O(leaves and pods touched)."""

    def __init__(self, view: _View, failed: bool) -> None:
        self.view = view
        self.k = 1 if failed else 0  # which column of the capacity lists
        self.failed = failed
        self.ranks = 0
        self.nodes = 0
        self.g_min = math.inf
        self.g_max = 0
        self.nvlink_min = math.inf  # raw per-GPU GB/s over nodes with > 1 GPU in the job
        self.nvls_min = math.inf  # NVLS efficiency over the same nodes (0: one of them has none)
        self.dead_node: str | None = None
        self.leaf_j: dict[int, float] = {}
        self.leaf_rail_j: dict[tuple[int, int], float] = {}
        self.leaf_m: dict[int, float] = {}  # min over job NICs on the leaf of (NICs of its node × speed)
        self.leaf_m_node: dict[int, str] = {}
        self.leaf_m_k: dict[int, int] = {}
        self.pod_j: dict[int, float] = {}
        self.pod_rail_j: dict[tuple[int, int], float] = {}
        self.rail_j: dict[int, float] = {}

    def add(self, slot: NodeSlot, gpus: Iterable[int] | None = None) -> None:
        """Place GPUs of ``slot`` (all of them when ``gpus`` is None)."""
        chosen = set(range(slot.gpus)) if gpus is None else set(gpus)
        g = len(chosen)
        if g == 0:
            return
        self.ranks += g
        self.nodes += 1
        self.g_min = min(self.g_min, g)
        self.g_max = max(self.g_max, g)
        if g > 1:
            self.nvlink_min = min(self.nvlink_min, slot.nvlink_gbytes_per_s)
            self.nvls_min = min(self.nvls_min, slot.nvls)
        usable = [n for n in slot.nics if n.live or not self.failed]
        nics = [n for n in usable if n.gpu in chosen]
        if not nics and usable:
            nics = [usable[0]]  # the GPU borrows its node's nearest live NIC (PXN over NVLink)
        if not nics:
            if self.dead_node is None:
                self.dead_node = slot.name
            return
        k = len(nics)
        for nic in nics:
            leaf, rail, s = nic.leaf, nic.rail, float(nic.speed)
            pod = self.view.leaf_pod[leaf]
            self.leaf_j[leaf] = self.leaf_j.get(leaf, 0.0) + s
            self.leaf_rail_j[leaf, rail] = self.leaf_rail_j.get((leaf, rail), 0.0) + s
            self.pod_j[pod] = self.pod_j.get(pod, 0.0) + s
            self.pod_rail_j[pod, rail] = self.pod_rail_j.get((pod, rail), 0.0) + s
            self.rail_j[rail] = self.rail_j.get(rail, 0.0) + s
            m = k * s
            if m < self.leaf_m.get(leaf, math.inf):
                self.leaf_m[leaf] = m
                self.leaf_m_node[leaf] = slot.name
                self.leaf_m_k[leaf] = k

    # ---- derating

    def _derates(self) -> tuple[dict[int, float], dict[int, float], set[int], set[int]]:
        v, k = self.view, self.k
        leaf_demand: dict[int, float] = {}
        for (leaf, rail), inside in self.leaf_rail_j.items():
            outside = self.rail_j[rail] - inside
            if outside > 1e-9:
                leaf_demand[leaf] = leaf_demand.get(leaf, 0.0) + min(inside, outside)
        leaf_d: dict[int, float] = {}
        for leaf, demand in leaf_demand.items():
            host = v.host[leaf][k]
            share = v.up[leaf][k] * self.leaf_j[leaf] / host if host > 0 else 0.0
            leaf_d[leaf] = min(1.0, share / demand)
        pod_d: dict[int, float] = {}
        if v.three_tier:
            pod_demand: dict[int, float] = {}
            for (pod, rail), inside in self.pod_rail_j.items():
                outside = self.rail_j[rail] - inside
                if outside > 1e-9:
                    pod_demand[pod] = pod_demand.get(pod, 0.0) + min(inside, outside)
            for pod, demand in pod_demand.items():
                host = v.pod_host[pod][k]
                share = v.pod_up[pod][k] * self.pod_j[pod] / host if host > 0 else 0.0
                pod_d[pod] = min(1.0, share / demand)
        return leaf_d, pod_d, set(leaf_demand), set(pod_d)

    def nvls_algbw(self, g: int) -> float | None:
        """NVLS algorithm bandwidth of ``g`` GPUs of the job's servers in one node; None without NVLS."""
        if g < 2 or self.nvlink_min == math.inf or not 0 < self.nvls_min < math.inf:
            return None
        return self.nvlink_min * self.nvls_min * g / (g + 1)

    def evaluate(
        self,
        collective: Collective,
        a: Assumptions,
        derate: bool = True,
        *,
        nccl_version: tuple[int, int, int] | None = None,
        allowed: frozenset[Algorithm] | None = None,
    ) -> Prediction:
        """The prediction; ``nccl_version`` and ``allowed`` (from ``NCCL_ALGO``) steer which algorithm
        :func:`default_algorithm` takes as ``algorithm``/``best``."""
        v = self.view
        n, m = self.ranks, self.nodes
        nvlink = self.nvlink_min * a.nvlink_efficiency if self.g_max > 1 and self.nvlink_min < math.inf else None
        nvls = self.nvls_algbw(self.g_max)
        network: float | None = None
        nic: float | None = None
        min_d = 1.0
        net_limit, net_where = "nic", ""
        net_switch: str | None = None
        raw_net: float | None = None
        tiers: list[str] = ["nvlink"] if nvlink is not None else []
        if m > 1:
            tiers.append("leaf")
            leaf_d, pod_d, crossed_leaves, crossed_pods = self._derates()
            if crossed_leaves:
                tiers.append("spine")
            if crossed_pods:
                tiers.append("core")
            if self.dead_node is not None:
                network, nic, net_limit = 0.0, 0.0, "node"
                net_where = f"{self.dead_node} has no live backend NIC"
            else:
                best_net, best_k = math.inf, 1
                for leaf, mk in self.leaf_m.items():
                    dl = leaf_d.get(leaf, 1.0) if derate else 1.0
                    dp = pod_d.get(v.leaf_pod[leaf], 1.0) if derate else 1.0
                    d = min(dl, dp)
                    bw = mk * d * a.nic_efficiency / BITS_PER_BYTE
                    if bw < best_net:
                        best_net = bw
                        best_k = self.leaf_m_k[leaf]
                        min_d = d
                        if d >= 1.0:
                            net_limit, net_where, net_switch = "nic", "", None
                        elif dl <= dp:
                            net_limit, net_switch = "leaf", v.leaves[leaf]
                            net_where = f"{v.leaves[leaf]} uplinks: {_pct(d)} of line rate for this job"
                        else:
                            net_limit, net_switch = "spine", v.pods[v.leaf_pod[leaf]]
                            net_where = f"{v.pods[v.leaf_pod[leaf]]} spine uplinks: {_pct(d)} of line rate for this job"
                network = best_net
                nic = best_net / best_k
                if net_limit == "nic":
                    net_where = f"NICs: {best_k} × {nic:.1f} GB/s per node"
                raw_net = min(self.leaf_m.values()) * a.nic_efficiency / BITS_PER_BYTE
        busbw, limiter = _busbw(collective, n, m, self.g_min, self.g_max, nvlink, network, nvls)
        algo = default_algorithm(collective, m, nvls is not None, nccl_version=nccl_version, allowed=allowed)
        if algo not in busbw:  # NCCL_ALGO names one that does not apply here (NVLS across nodes …)
            algo = Algorithm.RING
        best = busbw[algo]
        switch: str | None = None
        if n <= 1:
            limit, where = "none", "one GPU: nothing to move"
        elif limiter[algo] == "nvlink":
            limit, where = "nvlink", "NVLink"
        else:
            limit, where, switch = net_limit, net_where, net_switch
        if nvlink is not None:
            g = self.g_max
            one = _busbw(collective, g, 1, g, g, nvlink, None, nvls)[0]
            ideal = one[default_algorithm(collective, 1, nvls is not None, nccl_version=nccl_version)]
        else:
            ideal = _busbw(collective, n, m, self.g_min, self.g_max, None, raw_net)[0][algo]
        return Prediction(
            collective, n, m, busbw, best, algo, nvlink, network, nic, min_d, limit, where, tuple(tiers), ideal, switch
        )


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _busbw(
    collective: Collective,
    n: int,
    m: int,
    g_min: float,
    g_max: int,
    nvlink: float | None,
    network: float | None,
    nvls: float | None = None,
) -> tuple[dict[Algorithm, float], dict[Algorithm, str]]:
    """Bus bandwidth per algorithm from the per-GPU NVLink and per-node network bandwidths (GB/s), and
    which of the two (``nvlink`` / ``network``) sets each algorithm's time. ``nvls``: the NVLS algorithm
    bandwidth of one node (None without NVLink SHARP). Ring and hierarchical always; for all-reduce also
    tree, NVLS (one node) and NVLS-tree (two nodes) where they apply."""
    factor = bus_factor(collective, n)
    algos = (Algorithm.RING, Algorithm.HIERARCHICAL)
    if factor == 0.0:
        return dict.fromkeys(algos, 0.0), dict.fromkeys(algos, "none")
    nv = nvlink if nvlink is not None else math.inf
    net = network if network is not None else math.inf
    if m > 1 and net <= 0:
        zero = algos + ((Algorithm.TREE,) if collective is Collective.ALL_REDUCE else ())
        return dict.fromkeys(zero, 0.0), dict.fromkeys(zero, "network")
    g = g_max
    if collective is Collective.ALL_TO_ALL:
        # per unit of the per-rank buffer: (g−1)/n crosses each GPU's NVLink, g(n−g)/n leaves each node
        t_nv = (g - 1) / n / nv if g > 1 else 0.0
        t_net = g_max * (n - g_min) / n / net if m > 1 else 0.0
        direct = factor / max(t_nv, t_net)
        a2a_lim = "nvlink" if t_nv >= t_net else "network"
        keys = (*algos, Algorithm.DIRECT)
        return dict.fromkeys(keys, direct), dict.fromkeys(keys, a2a_lim)
    ring = min(nv, net)
    phases = 2.0 if collective is Collective.ALL_REDUCE else 1.0
    t_nv = phases * (g - 1) / g / nv if g > 1 else 0.0
    t_net = phases * (m - 1) / m / net if m > 1 else 0.0
    hier = factor / max(t_nv, t_net)
    out = {Algorithm.RING: ring, Algorithm.HIERARCHICAL: hier}
    lim = {
        Algorithm.RING: "nvlink" if nv <= net else "network",
        Algorithm.HIERARCHICAL: "nvlink" if t_nv >= t_net else "network",
    }
    if collective is Collective.ALL_REDUCE:
        # tree: two nodes exchange the buffer once each way; deeper trees halve an inner node's share
        tree_nv = TREE_RATIO * nv if g > 1 else math.inf
        tree_net = net if m <= 2 else net / 2
        tree_alg = min(tree_nv, tree_net)
        if tree_alg == math.inf:  # one GPU on one node: nothing moves (factor is 0 then anyway)
            tree_alg = 0.0
        out[Algorithm.TREE] = factor * tree_alg
        lim[Algorithm.TREE] = "nvlink" if tree_nv <= tree_net else "network"
        if nvls is not None and g > 1 and m == 1:
            out[Algorithm.NVLS] = factor * nvls
            lim[Algorithm.NVLS] = "nvlink"
        if nvls is not None and g > 1 and m == 2:
            nvls_tree = NVLS_TREE_RATIO * nvls
            out[Algorithm.NVLS_TREE] = factor * min(nvls_tree, net)
            lim[Algorithm.NVLS_TREE] = "nvlink" if nvls_tree <= net else "network"
    return out, lim


def job_busbw(
    collective: Collective,
    nodes: int,
    gpus_per_node: int,
    nvlink_gbytes_per_s: float,
    network_gbytes_per_s: float,
    *,
    gpu: str = "",
    assumptions: Assumptions | None = None,
    algorithm: Algorithm | None = None,
) -> tuple[Algorithm, float]:
    """Bus bandwidth of ``collective`` on ``nodes`` identical non-blocking nodes: the model of
    :func:`predict` without a fabric (published measurements are held against it). ``network_gbytes_per_s``
    is a node's NIC line rate in GB/s (e.g. 8 × 400 Gb/s = 400), before ``nic_efficiency``. Returns the
    algorithm (``algorithm``, or NCCL's default) and its bus bandwidth.

    >>> algo, bw = job_busbw(Collective.ALL_REDUCE, 1, 8, 450, 400, gpu="H100-SXM5-80GB")
    >>> algo.value, round(bw)
    ('nvls', 483)
    """
    a = assumptions or Assumptions()
    g = gpus_per_node
    nvlink = nvlink_gbytes_per_s * a.nvlink_efficiency if g > 1 else None
    eff = nvls_efficiency(gpu, g, g)
    nvls = nvlink_gbytes_per_s * eff * g / (g + 1) if eff > 0 and g > 1 else None
    network = network_gbytes_per_s * a.nic_efficiency if nodes > 1 else None
    busbw, _ = _busbw(collective, nodes * g, nodes, g, g, nvlink, network, nvls)
    algo = algorithm or default_algorithm(collective, nodes, nvls is not None)
    return algo, busbw[algo]


# --------------------------------------------------------------------------- public entry points

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[object, ...]:
    """Sort ``gpu2`` before ``gpu10``.

    >>> sorted(["gpu10", "gpu2", "gpu1"], key=natural_key)
    ['gpu1', 'gpu2', 'gpu10']
    """
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(name))


def packed_order(view: _View) -> list[NodeSlot]:
    """Nodes in the order a scheduler packs a job: by pod, unit, rail group (shared leaves), name."""
    return sorted(
        view.nodes.values(),
        key=lambda s: (s.pod, s.unit if s.unit is not None else 0, s.group, natural_key(s.name)),
    )


def predict(
    fabric: Fabric,
    placement: Mapping[str, Iterable[int] | None],
    collective: Collective = Collective.ALL_REDUCE,
    assumptions: Assumptions | None = None,
    failures: Failures = NO_FAILURES,
    *,
    view: _View | None = None,
) -> Prediction:
    """Predicted bus bandwidth of ``collective`` on ``placement`` ({node: GPU indices, or None for all}).

    Unknown nodes raise :class:`KeyError`; GPU indices are the server's (0…gpus−1).
    """
    a = assumptions or Assumptions()
    v = view or build_view(fabric, failures)
    job = _Job(v, failed=bool(failures))
    for name, gpus in placement.items():
        job.add(v.nodes[name], gpus)
    return job.evaluate(collective, a)


def predict_nonblocking(
    fabric: Fabric,
    placement: Mapping[str, Iterable[int] | None],
    collective: Collective = Collective.ALL_REDUCE,
    assumptions: Assumptions | None = None,
    *,
    view: _View | None = None,
) -> Prediction:
    """The same placement on an ideal fabric: every link up, no tier oversubscribed (NICs and NVLink only)."""
    a = assumptions or Assumptions()
    v = view or build_view(fabric)
    job = _Job(v, failed=False)
    for name, gpus in placement.items():
        job.add(v.nodes[name], gpus)
    return job.evaluate(collective, a, derate=False)
