"""Multipath what-if: where a job's RoCE flows land on the fabric's equal-cost paths, and what that costs.

The scaling model (:mod:`fabricgen.perf.model`) treats each tier as a fluid: traffic crossing it shares the
tier's bandwidth evenly. Training traffic is a few long, fat flows instead, and ECMP puts each flow on one
path chosen by a hash of its header: two flows on one uplink while another idles, and a ring collective runs
at the pace of its slowest flow. This module enumerates the flows a collective generates on a placement,
routes them hop by hop the way the fabric's switches would, and reports the per-link load.

* **Flows.** NCCL keeps inter-node traffic on its rail: per rail, every node's NIC sends to the next node's
  NIC of the same rail in rank order (ring), or to its neighbours in NCCL's double binary tree (tree).
  Each connection opens ``qps`` queue pairs (``NCCL_IB_QPS_PER_CONNECTION``) and the NIC's rate is split
  evenly over its queue pairs. Flows between two nodes on the same leaf never touch the fabric.
* **Headers.** RoCEv2 is UDP to port 4791; the source port is what the NIC derives from the queue pair
  numbers (Linux ``rdma_calc_flow_label`` / ``rdma_flow_label_to_udp_sport``, include/rdma/ib_verbs.h):
  ``fl = lqpn × rqpn`` folded to 20 bits, ``sport = 0xC000 | (fl[13:0] ^ fl[19:14])``. Queue pair numbers
  are drawn per seed. Addresses are the NICs' resolved /31 addresses.
* **Paths.** Shortest up/down paths of the Clos: a leaf sends toward spines that reach the destination leaf
  (or, in three tiers, that reach it through a core); a failed link or switch (``Failures``) is withdrawn
  the way BGP withdraws it, so the remaining equal-cost next hops take its traffic.
* **Choice per hop** (:class:`Remedy.mode`): ``ecmp`` hashes the header fields each switch is rendered with
  (:data:`fabricgen.render.data.ECMP_HASH_FIELDS`: the 5-tuple) or the 3-tuple (addresses and protocol).
  Switch ASICs' hash functions (CRC variants with per-switch seeds) are not published in a form that can be
  reproduced here, so the hash is a seeded random function (splitmix64), different on every switch, and the
  result is reported as a distribution over seeds. ``adaptive``: each flow is cut into ``flowlets`` pieces
  and each piece goes to the least-loaded local next hop (what a switch sees: its own egress ports), in
  random arrival order. ``spray``: every packet over every equal-cost next hop in equal shares.
* **Load and bandwidth.** A directed link's load is the demand of its flows ÷ its speed. A flow on links
  loaded above 1 gets its share of the most loaded one, and the collective waits for the slowest flow, so
  it runs at ``1 / max(1, max load)`` of its rate. The *collision efficiency* is that figure for the remedy
  over the same for packet spraying (perfect spreading): what the path choice costs beyond what the
  fabric's capacity already costs. The predicted bus bandwidth is the scaling model's prediction with the
  NICs' payload efficiency multiplied by it.
* **Not modelled:** congestion control dynamics (DCQCN would slow colliding flows rather than drop them;
  the steady state is the same share), flow start times, other jobs, all-to-all (every pair of nodes: the
  many small flows average out), NVLink SHARP.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from fabricgen.errors import InputError, Problem
from fabricgen.inventory.schema import Role
from fabricgen.perf.model import (
    NO_FAILURES,
    Assumptions,
    Collective,
    Failures,
    _View,
    build_view,
    packed_order,
    predict,
)
from fabricgen.perf.scaling import ScalingTable
from fabricgen.render.data import ECMP_HASH_FIELDS
from fabricgen.topology.model import Fabric, PortKind

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]

Mode = Literal["ecmp", "adaptive", "spray"]
HashFields = Literal["5-tuple", "3-tuple"]
Pattern = Literal["ring", "tree"]

ROCE_UDP_PORT = 4791
UDP = 17
ROCE_SPORT_MIN = 0xC000
BITS_PER_BYTE = 8


def rendered_hash() -> HashFields:
    """The hash the rendered configurations set: 5-tuple when the UDP source port is among the fields."""
    return "5-tuple" if "src-port" in ECMP_HASH_FIELDS else "3-tuple"


@dataclass(frozen=True, slots=True)
class Remedy:
    """How flows are put on paths. ``name`` labels the row; ``qps``: queue pairs per connection;
    ``hash``: header fields ECMP hashes (``ecmp``, and ``adaptive`` on the switches that do not adapt);
    ``flowlets``: pieces per flow (``adaptive`` only); ``adaptive_switches``: with ``adaptive``, the switches that
    adapt (the others hash every piece of a flow alike); ``None``: every switch."""

    name: str
    mode: Mode = "ecmp"
    qps: int = 1
    hash: HashFields = "5-tuple"
    flowlets: int = 8
    adaptive_switches: frozenset[str] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "mode": self.mode, "qps": self.qps, "hash": self.hash,
                               "flowlets": self.flowlets}
        if self.adaptive_switches is not None:
            out["adaptive_switches"] = len(self.adaptive_switches)
        return out


def standard_remedies(qps: int = 1, more_qps: int = 4, flowlets: int = 8) -> tuple[Remedy, ...]:
    """ECMP as rendered with ``qps`` queue pairs, with ``more_qps``, adaptive routing, packet spraying."""
    h = rendered_hash()
    return (
        Remedy(f"ECMP {h}, {qps} QP", "ecmp", qps, h),
        Remedy(f"ECMP {h}, {more_qps} QPs", "ecmp", more_qps, h),
        Remedy(f"adaptive ({flowlets} flowlets)", "adaptive", qps, h, flowlets),
        Remedy("packet spraying", "spray", qps, h),
    )


def rendered_remedy(fabric: Fabric, qps: int = 1, flowlets: int = 8) -> Remedy:
    """How the rendered configurations put flows on paths: ECMP with the rendered hash, or — where the fabric has
    adaptive routing on (:attr:`~fabricgen.topology.model.Switch.adaptive_routing`) — adaptive routing on those
    switches and the rendered hash on the others.

    >>> rendered_remedy(fabric_without_ar).mode, rendered_remedy(fabric_with_ar_on_every_switch).name  # doctest: +SKIP
    ('ecmp', 'as rendered: adaptive (8 flowlets)')
    """
    h = rendered_hash()
    on = frozenset(n for n, sw in fabric.switches.items() if sw.adaptive_routing)
    if not on:
        return Remedy(f"ECMP {h}, {qps} QP" + ("s" if qps > 1 else ""), "ecmp", qps, h)
    if len(on) == len(fabric.switches):
        return Remedy(f"as rendered: adaptive ({flowlets} flowlets)", "adaptive", qps, h, flowlets)
    return Remedy(f"as rendered: adaptive ({flowlets} flowlets) on {len(on):,} of {len(fabric.switches):,} switches, "
                  f"ECMP {h} elsewhere", "adaptive", qps, h, flowlets, on)


# --------------------------------------------------------------------------- the fabric as a graph


@dataclass
class Graph:
    """Switches and live directed links of a fabric, indexed for routing. Directed link ``2·l`` runs from a
    link's lower end to its upper end, ``2·l + 1`` back down."""

    fabric: Fabric
    names: list[str]
    index: dict[str, int]
    role: list[Role]
    up: list[list[tuple[int, int]]]  # per switch: (directed link, upper switch), live links only
    down: list[dict[int, list[int]]]  # per switch: lower switch → directed links down to it (live)
    parents: list[frozenset[int]]  # per switch: upper switches with a live link to it
    speed: F64  # Gb/s per directed link
    pclass: list[int] = field(default_factory=list)  # per leaf: id of its parent set (same id: same routes)
    _sets: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    _set_id: dict[tuple[int, ...], int] = field(default_factory=dict)
    _by_key: dict[int, int] = field(default_factory=dict)  # s · switches + leaf → candidate set
    _by_class: dict[tuple[int, int], int] = field(default_factory=dict)  # (s, parent class) → candidate set
    _via_core: dict[tuple[int, int], bool] = field(default_factory=dict)  # (spine, class) → reaches via a core
    _core_class: dict[tuple[int, int], bool] = field(default_factory=dict)  # (core, class) → reaches going down
    _arrays: tuple[I64, I64, I64] | None = None
    _built: int = 0
    _class_table: I64 = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    _pclass: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _classes: int = 0
    _direct_keys: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _direct_sets: I64 = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        ids: dict[frozenset[int], int] = {}
        self.pclass = [ids.setdefault(p, len(ids)) for p in self.parents]
        self._pclass = np.asarray(self.pclass, dtype=np.int64)
        self._classes = len(ids)
        n = len(self.names)
        pairs = sorted(
            (s * n + lo, s) for s in range(n) if self.role[s] is Role.SPINE for lo in self.down[s]
            if self.role[lo] is Role.LEAF
        )
        self._class_table = np.full((n, self._classes), -1, dtype=np.int64)
        self._direct_keys = np.asarray([k for k, _ in pairs], dtype=np.int64)
        self._direct_sets = np.asarray([self.set_for(s, k % n) for k, s in pairs], dtype=np.int64)

    def sets_for(self, cur: I64, dst: I64) -> I64:
        """:meth:`set_for` of many (switch, leaf) pairs: the pairs of a spine above its leaf by a sorted
        lookup, the others once per (switch, parent class)."""
        n = len(self.names)
        out = np.empty(cur.shape[0], dtype=np.int64)
        k = cur * n + dst
        dk = self._direct_keys
        if dk.size:
            pos = np.minimum(np.searchsorted(dk, k), dk.size - 1)
            direct = dk[pos] == k
            out[direct] = self._direct_sets[pos[direct]]
        else:
            direct = np.zeros(cur.shape[0], dtype=bool)
        rest = ~direct
        if rest.any():
            rc, rl = cur[rest], dst[rest]
            ids = self._class_table[rc, self._pclass[rl]]
            miss = ids < 0
            if miss.any():
                mc, ml = rc[miss], rl[miss]
                _, first = np.unique(mc * self._classes + self._pclass[ml], return_index=True)
                for c, lf in zip(mc[first].tolist(), ml[first].tolist(), strict=True):
                    self._class_table[c, self.pclass[lf]] = self.set_for(c, lf)
                ids = self._class_table[rc, self._pclass[rl]]
            out[rest] = ids
        return out

    def _core_reaches(self, core: int, leaf: int) -> bool:
        key = (core, self.pclass[leaf])
        hit = self._core_class.get(key)
        if hit is None:
            down = self.down[core]
            hit = self._core_class[key] = any(p in down for p in self.parents[leaf])
        return hit

    def _spine_via_core(self, spine: int, leaf: int) -> bool:
        key = (spine, self.pclass[leaf])
        hit = self._via_core.get(key)
        if hit is None:
            hit = self._via_core[key] = any(self._core_reaches(c, leaf) for _, c in self.up[spine])
        return hit

    def _intern(self, links: list[int], nexts: list[int]) -> int:
        t = tuple(links)
        j = self._set_id.get(t)
        if j is None:
            j = self._set_id[t] = len(self._sets)
            self._sets.append((t, tuple(nexts)))
        return j

    def set_for(self, s: int, leaf: int) -> int:
        """The candidate set (an id) of equal-cost next hops from switch ``s`` toward ``leaf``.

        A spine above the leaf goes down its cables to it; a core goes down to the spines above the leaf;
        anything else goes up: to the upper switches that reach the leaf going down, or else to those
        that reach it through a core. Only the first case depends on the leaf itself: the others depend on
        which spines reach the leaf (its parent class), so they are computed once per class.
        """
        key = s * len(self.names) + leaf
        j = self._by_key.get(key)
        if j is not None:
            return j
        if self.role[s] is Role.SPINE and leaf in self.down[s]:
            links = list(self.down[s][leaf])
            j = self._intern(links, [leaf] * len(links))
        else:
            ck = (s, self.pclass[leaf])
            hit = self._by_class.get(ck)
            if hit is None:
                links, nexts = [], []
                if self.role[s] is Role.CORE and self._core_reaches(s, leaf):
                    for p in sorted(self.parents[leaf]):
                        for d in self.down[s].get(p, ()):
                            links.append(d)
                            nexts.append(p)
                else:
                    ups = self.up[s]
                    chosen = [(d, u) for d, u in ups if u in self.parents[leaf]] or [
                        (d, u) for d, u in ups if self.role[u] is Role.SPINE and self._spine_via_core(u, leaf)
                    ] or [(d, u) for d, u in ups if self.role[u] is Role.CORE and self._core_reaches(u, leaf)]
                    links = [d for d, _ in chosen]
                    nexts = [u for _, u in chosen]
                hit = self._by_class[ck] = self._intern(links, nexts)
            j = hit
        self._by_key[key] = j
        return j

    def arrays(self) -> tuple[I64, I64, I64]:
        """Every candidate set so far as padded arrays: (directed links, next switches, counts). Sets interned
        since the last call are appended (the arrays grow by doubling, so routing many batches stays linear)."""
        total = len(self._sets)
        if self._arrays is None or self._built < total:
            new = self._sets[self._built:]
            width = max([len(x[0]) for x in new] + [1 if self._arrays is None else self._arrays[0].shape[1]])
            if self._arrays is None or total > self._arrays[0].shape[0] or width > self._arrays[0].shape[1]:
                cap = max(total, 2 * (0 if self._arrays is None else self._arrays[0].shape[0]), 64)
                cand = np.full((cap, width), -1, dtype=np.int64)
                nxt = np.full((cap, width), -1, dtype=np.int64)
                count = np.zeros(cap, dtype=np.int64)
                if self._arrays is not None:
                    oc, on, ok = self._arrays
                    cand[: self._built, : oc.shape[1]] = oc[: self._built]
                    nxt[: self._built, : on.shape[1]] = on[: self._built]
                    count[: self._built] = ok[: self._built]
                self._arrays = (cand, nxt, count)
            cand, nxt, count = self._arrays
            for j, (links, nexts) in enumerate(new, start=self._built):
                cand[j, : len(links)] = links
                nxt[j, : len(links)] = nexts
                count[j] = len(links)
            self._built = total
        cand, nxt, count = self._arrays
        return cand[:total], nxt[:total], count[:total]

    def link_label(self, directed: int) -> str:
        ln = self.fabric.links[directed // 2]
        if ln.b is None:
            return f"{ln.a.device}:{ln.a.port}"
        src, dst = (ln.a, ln.b) if directed % 2 == 0 else (ln.b, ln.a)
        return f"{src.device}:{src.port} → {dst.device}"


def build_graph(fabric: Fabric, failures: Failures = NO_FAILURES) -> Graph:
    """Index the switch tiers of ``fabric``: O(switch ports)."""
    names = list(fabric.switches)
    index = {n: i for i, n in enumerate(names)}
    role = [fabric.switches[n].role for n in names]
    up: list[list[tuple[int, int]]] = [[] for _ in names]
    down: list[dict[int, list[int]]] = [{} for _ in names]
    parents: list[set[int]] = [set() for _ in names]
    speed = np.zeros(2 * len(fabric.links), dtype=np.float64)
    dead = failures.devices
    for sw in fabric.switches.values():
        for p in sw.ports:
            if p.kind is not PortKind.UP or p.peer_device not in index:
                continue
            ln = fabric.links[p.link]
            if p.link in failures.links or sw.name in dead or p.peer_device in dead or ln.b is None:
                continue
            lo, hi = index[sw.name], index[p.peer_device]
            speed[2 * p.link] = speed[2 * p.link + 1] = float(p.speed)
            up[lo].append((2 * p.link, hi))
            down[hi].setdefault(lo, []).append(2 * p.link + 1)
            parents[lo].add(hi)
    return Graph(fabric, names, index, role, up, down, [frozenset(x) for x in parents], speed)


# --------------------------------------------------------------------------- flows of a collective


@dataclass(frozen=True, slots=True)
class Flows:
    """One row per queue pair that crosses the fabric: source and destination leaf (switch index), addresses,
    the connection it belongs to, its queue pair number within the connection, and its demand (Gb/s)."""

    src_leaf: I64
    dst_leaf: I64
    src_ip: U64
    dst_ip: U64
    conn: I64
    demand: F64
    connections: int  # connections of the job (crossing or not)

    def __len__(self) -> int:
        return int(self.src_leaf.shape[0])


def _ip(text: str | None, fallback: int) -> int:
    if not text:
        return fallback
    a, b, c, d = (int(x) for x in text.split("/")[0].split("."))
    return (a << 24) | (b << 16) | (c << 8) | d


def tree_edges(n: int) -> list[tuple[int, int]]:
    """Parent → child edges of NCCL's double binary tree over ranks ``0 … n−1`` (both trees, deduplicated).

    As NCCL's ``ncclGetBtree`` (src/graph/trees.cc): rank ``r``'s parent is ``(r ^ b) | (b << 1)`` with ``b``
    the lowest set bit of ``r`` (``r ^ b`` when that is out of range); the second tree is the first mirrored
    (``n − 1 − r``) for even ``n`` and shifted by one rank for odd ``n``.

    >>> tree_edges(4)
    [(0, 2), (1, 0), (1, 2), (2, 1), (2, 3), (3, 1)]
    """
    if n < 2:
        return []
    one: list[tuple[int, int]] = []
    for r in range(1, n):
        b = r & -r
        up = (r ^ b) | (b << 1)
        if up >= n:
            up = r ^ b
        one.append((up, r))
    shift = n % 2  # odd: shift by one rank; even: mirror
    two = [((p - 1) % n, (c - 1) % n) if shift else (n - 1 - p, n - 1 - c) for p, c in one]
    return sorted(set(one + two))


def job_flows(
    fabric: Fabric,
    graph: Graph,
    nodes: Sequence[str],
    qps: int,
    pattern: Pattern = "ring",
    failures: Failures = NO_FAILURES,
) -> Flows:
    """The queue pairs of a collective over ``nodes`` (in rank order), per rail; only those whose source and
    destination NICs sit on different leaves are kept (the others never leave their leaf).

    A NIC's rate is split evenly over its connections' queue pairs. A failed NIC's rail is carried by
    another NIC of the same node (PXN over NVLink); a node without a live NIC is left out.
    """
    m = len(nodes)
    if pattern == "ring":
        pairs = [(i, (i + 1) % m) for i in range(m)] if m > 2 else ([(0, 1), (1, 0)] if m == 2 else [])
    else:
        pairs = [e for p, c in tree_edges(m) for e in ((p, c), (c, p))]
    out_degree = [0] * m
    for s, _ in pairs:
        out_degree[s] += 1
    nic_of: list[dict[int, tuple[int, int, float]]] = []  # per rank: rail → (leaf index, ip, Gb/s)
    for k, name in enumerate(nodes):
        node = fabric.nodes[name]
        live: dict[int, tuple[int, int, float]] = {}
        for nic in node.nics:
            if nic.link is None or nic.peer_device not in graph.index:
                continue
            if name in failures.devices or nic.peer_device in failures.devices or nic.link in failures.links:
                continue
            live[nic.rail] = (graph.index[nic.peer_device], _ip(nic.address, (k << 8) | nic.rail), float(nic.speed))
        rails = {nic.rail for nic in node.nics if nic.link is not None}
        if live:
            spare = live[min(live)]
            for r in rails:
                live.setdefault(r, spare)
        nic_of.append(live)
    rails_all = sorted({r for live in nic_of for r in live})
    src_l: list[int] = []
    dst_l: list[int] = []
    sip: list[int] = []
    dip: list[int] = []
    dem: list[float] = []
    conn_id: list[int] = []
    connections = 0
    for rail in rails_all:
        for s, d in pairs:
            a = nic_of[s].get(rail)
            b = nic_of[d].get(rail)
            if a is None or b is None:
                continue
            connections += 1
            if a[0] == b[0]:
                continue
            # a NIC that carries several rails (a failed neighbour's) splits its rate over all of them
            share = sum(1 for r2 in rails_all if nic_of[s].get(r2) == a)
            rate = min(a[2], b[2]) / out_degree[s] / share / qps
            for _ in range(qps):
                src_l.append(a[0])
                dst_l.append(b[0])
                sip.append(a[1])
                dip.append(b[1])
                dem.append(rate)
                conn_id.append(connections - 1)
    return Flows(
        np.asarray(src_l, dtype=np.int64),
        np.asarray(dst_l, dtype=np.int64),
        np.asarray(sip, dtype=np.uint64),
        np.asarray(dip, dtype=np.uint64),
        np.asarray(conn_id, dtype=np.int64),
        np.asarray(dem, dtype=np.float64),
        connections,
    )


# --------------------------------------------------------------------------- hashing


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


def mix64(x: U64) -> U64:
    """splitmix64's finaliser: a bijection of 64-bit words whose output bits all depend on every input bit."""
    with np.errstate(over="ignore"):
        z = x + _GOLD
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def roce_source_port(lqpn: U64, rqpn: U64) -> U64:
    """RoCEv2 UDP source port from the local and remote queue pair numbers, as Linux computes it
    (``rdma_calc_flow_label`` then ``rdma_flow_label_to_udp_sport``, include/rdma/ib_verbs.h).

    >>> int(roce_source_port(np.asarray([0x11], np.uint64), np.asarray([0x22], np.uint64))[0])
    49730
    """
    with np.errstate(over="ignore"):
        fl = lqpn * rqpn
    fl = fl ^ (fl >> np.uint64(20))
    fl = fl ^ (fl >> np.uint64(40))
    fl = fl & np.uint64(0xFFFFF)
    low = (fl & np.uint64(0x3FFF)) ^ ((fl & np.uint64(0xFC000)) >> np.uint64(14))
    return low | np.uint64(ROCE_SPORT_MIN)


def header_hash(src_ip: U64, dst_ip: U64, sport: U64, fields: HashFields, salt: U64) -> U64:
    """A seeded hash of each flow's header fields (the UDP ports only with ``5-tuple``), salted per switch."""
    h = mix64(src_ip ^ salt)
    h = mix64(h ^ dst_ip)
    h = mix64(h ^ np.uint64(UDP))
    if fields == "5-tuple":
        h = mix64(h ^ sport)
        h = mix64(h ^ np.uint64(ROCE_UDP_PORT))
    return h


# --------------------------------------------------------------------------- routing


def _group(cur: I64, dst: I64, graph: Graph) -> tuple[I64, I64, I64, I64]:
    """For each flow at switch ``cur`` heading to leaf ``dst``: its candidate set, and the candidate sets as
    padded arrays (directed links, next switches, counts)."""
    sets = graph.sets_for(cur, dst)
    cand, nxt, count = graph.arrays()
    return sets, cand, nxt, count


def _least_loaded(sets: I64, cand: I64, count: I64, rng: np.random.Generator, load: F64) -> I64:
    """Local least-loaded choice for pieces arriving in random order: within each candidate set the pieces
    go round-robin over its links sorted by their current load (random among equals), which is exactly
    what "each piece takes the least-loaded link" gives for pieces of equal size. Sets are served side by
    side, so two sets that share links (only under failures) do not see each other's pieces."""
    arrival = rng.random(len(sets))
    order = np.lexsort((arrival, sets))
    sorted_sets = sets[order]
    starts = np.searchsorted(sorted_sets, sorted_sets, side="left")
    rank = np.empty(len(sets), dtype=np.int64)
    rank[order] = np.arange(len(sets)) - starts
    safe = np.where(cand >= 0, cand, 0)
    salt = rng.integers(0, 1 << 63, dtype=np.uint64)
    tie = (mix64(safe.astype(np.uint64) ^ salt) >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    key = np.where(cand >= 0, load[safe], np.inf) + tie * 1e-9  # random among equals, per link and seed
    by_load: I64 = np.argsort(key, axis=1).astype(np.int64)
    chosen: I64 = by_load[sets, rank % count[sets]]
    return chosen


def route(
    graph: Graph, flows: Flows, remedy: Remedy, seed: int
) -> tuple[F64, int]:
    """Demand (Gb/s) per directed link after placing ``flows`` with ``remedy``; and the number of flows that
    had no path (a destination cut off by failures)."""
    rng = np.random.default_rng(seed)
    load = np.zeros(graph.speed.shape[0], dtype=np.float64)
    if len(flows) == 0:
        return load, 0
    if remedy.mode == "spray":
        return _spray(graph, flows, load)
    cur = flows.src_leaf.copy()
    dst = flows.dst_leaf
    demand = flows.demand
    idx = np.arange(len(flows))
    sport = np.zeros(len(flows), dtype=np.uint64)
    partial = remedy.mode == "adaptive" and remedy.adaptive_switches is not None
    adapts = np.zeros(len(graph.names), dtype=bool)
    if partial:
        assert remedy.adaptive_switches is not None
        adapts = np.asarray([n in remedy.adaptive_switches for n in graph.names], dtype=bool)
    if remedy.mode == "ecmp" or partial:
        lq = rng.integers(1, 1 << 24, size=len(flows), dtype=np.uint64)
        rq = rng.integers(1, 1 << 24, size=len(flows), dtype=np.uint64)
        sport = roce_source_port(lq, rq)
        salts = rng.integers(0, 1 << 63, size=len(graph.names), dtype=np.uint64)
    if remedy.mode == "adaptive" and remedy.flowlets > 1:
        idx = np.repeat(idx, remedy.flowlets)
        cur = np.repeat(cur, remedy.flowlets)
        dst = np.repeat(dst, remedy.flowlets)
        demand = np.repeat(demand, remedy.flowlets) / remedy.flowlets
    stranded = 0
    for _ in range(6):  # leaf → spine → core → spine → leaf: four hops at most
        active = cur != dst
        if not active.any():
            break
        cur, dst, demand, idx = cur[active], dst[active], demand[active], idx[active]
        sets, cand, nxt, count = _group(cur, dst, graph)
        n = count[sets]
        ok = n > 0
        if not ok.all():
            stranded += int(np.unique(idx[~ok]).shape[0])
            cur, dst, demand, idx, sets, n = cur[ok], dst[ok], demand[ok], idx[ok], sets[ok], n[ok]
        if remedy.mode == "ecmp":
            h = header_hash(flows.src_ip[idx], flows.dst_ip[idx], sport[idx], remedy.hash, salts[cur])
            k = ((h >> np.uint64(32)) % n.astype(np.uint64)).astype(np.int64)
            links = cand[sets, k]
            load += np.bincount(links, weights=demand, minlength=load.shape[0])
        elif partial:  # hashed switches first (every piece of a flow alike), then the adapting ones see that load
            h = header_hash(flows.src_ip[idx], flows.dst_ip[idx], sport[idx], remedy.hash, salts[cur])
            k = ((h >> np.uint64(32)) % n.astype(np.uint64)).astype(np.int64)
            here = adapts[cur]
            hashed = ~here
            load += np.bincount(cand[sets[hashed], k[hashed]], weights=demand[hashed], minlength=load.shape[0])
            if here.any():
                k[here] = _least_loaded(sets[here], cand, count, rng, load)
                load += np.bincount(cand[sets[here], k[here]], weights=demand[here], minlength=load.shape[0])
        else:
            k = _least_loaded(sets, cand, count, rng, load)
            links = cand[sets, k]
            load += np.bincount(links, weights=demand, minlength=load.shape[0])
        cur = nxt[sets, k]
    return load, stranded


SPRAY_ROWS = 2_000_000
"""Rows of (switch, destination, share) held at once while spraying: destinations are taken in batches
so that memory stays bounded on the largest fabrics."""


def _spray(graph: Graph, flows: Flows, load: F64) -> tuple[F64, int]:
    """Packet spraying: the traffic at each switch toward each leaf, summed, split evenly over the next hops.

    Destination leaves are sprayed in batches (the rows of a batch stay under :data:`SPRAY_ROWS` even when
    every switch of a tier holds traffic for every destination): the result does not depend on the batches.
    """
    order = np.argsort(flows.dst_leaf, kind="stable")
    dst_sorted = flows.dst_leaf[order]
    leaves = np.unique(dst_sorted)
    width = max((len(u) for u in graph.up), default=1) or 1  # the widest split a row can fan out into
    per_batch = max(1, SPRAY_ROWS // (len(graph.names) * width))
    stranded = 0
    for first in range(0, len(leaves), per_batch):
        lo = np.searchsorted(dst_sorted, leaves[first])
        hi = np.searchsorted(dst_sorted, leaves[min(first + per_batch, len(leaves)) - 1], side="right")
        pick = order[lo:hi]
        stranded += _spray_batch(graph, flows.src_leaf[pick], flows.dst_leaf[pick], flows.demand[pick], load)
    return load, stranded


def _spray_batch(graph: Graph, cur: I64, dst: I64, demand: F64, load: F64) -> int:
    n_sw = len(graph.names)
    stranded = 0
    for _ in range(6):
        active = cur != dst
        if not active.any():
            break
        keys, inv = np.unique(cur[active] * n_sw + dst[active], return_inverse=True)
        total = np.bincount(inv.reshape(-1), weights=demand[active], minlength=len(keys))
        cur, dst = keys // n_sw, keys % n_sw
        sets, cand, nxt, count = _group(cur, dst, graph)
        n = count[sets]
        ok = n > 0
        if not ok.all():
            stranded += int((~ok).sum())
            cur, dst, total, sets, n = cur[ok], dst[ok], total[ok], sets[ok], n[ok]
        rows = np.repeat(sets, n)
        offs = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        share = np.repeat(total / n, n)
        load += np.bincount(cand[rows, offs], weights=share, minlength=load.shape[0])
        cur, dst, demand = nxt[rows, offs], np.repeat(dst, n), share
    return stranded


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class LinkLoad:
    """A loaded link: ``link`` in words (``device:port → peer``), ``load`` (demand ÷ speed), ``vs_ideal``
    (``load`` ÷ the same link's load under packet spraying; None when spraying leaves it idle)."""

    link: str
    load: float
    vs_ideal: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "link": self.link,
            "load": round(self.load, 3),
            "vs_ideal": None if self.vs_ideal is None else round(self.vs_ideal, 3),
        }


@dataclass(frozen=True, slots=True)
class RemedyResult:
    """One remedy on one job, over ``seeds`` hash seeds. ``efficiency``: collision efficiency per seed
    (1.0: as good as packet spraying); ``busbw``: predicted bus bandwidth per seed (GB/s)."""

    remedy: Remedy
    efficiency: tuple[float, ...]
    busbw: tuple[float, ...]
    max_load: tuple[float, ...]
    worst_links: tuple[LinkLoad, ...]
    flows: int
    stranded: int

    @property
    def median(self) -> float:
        return float(np.median(self.busbw))

    @property
    def p5(self) -> float:
        return float(np.percentile(self.busbw, 5))

    @property
    def median_efficiency(self) -> float:
        return float(np.median(self.efficiency))

    @property
    def p5_efficiency(self) -> float:
        return float(np.percentile(self.efficiency, 5))

    def as_dict(self) -> dict[str, Any]:
        return {
            "remedy": self.remedy.as_dict(),
            "flows": self.flows,
            "stranded_flows": self.stranded,
            "busbw": {"median": round(self.median, 2), "p5": round(self.p5, 2),
                      "min": round(min(self.busbw), 2), "max": round(max(self.busbw), 2)},
            "efficiency": {"median": round(self.median_efficiency, 4), "p5": round(self.p5_efficiency, 4),
                           "min": round(min(self.efficiency), 4), "max": round(max(self.efficiency), 4)},
            "max_link_load": {"median": round(float(np.median(self.max_load)), 3),
                              "max": round(max(self.max_load), 3)},
            "worst_links": [w.as_dict() for w in self.worst_links],
        }


@dataclass(frozen=True, slots=True)
class JobResult:
    """All remedies for one job. ``fluid``: the scaling model's bus bandwidth for the job (GB/s), the figure
    the collision efficiency multiplies; ``spray_max_load``: the most loaded link under packet spraying."""

    label: str
    gpus: int
    nodes: int
    fluid: float
    spray_max_load: float
    results: tuple[RemedyResult, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "job": self.label,
            "gpus": self.gpus,
            "nodes": self.nodes,
            "fluid_busbw": round(self.fluid, 2),
            "spray_max_link_load": round(self.spray_max_load, 3),
            "remedies": [r.as_dict() for r in self.results],
        }


@dataclass(frozen=True, slots=True)
class Job:
    """A placement: ``nodes`` in rank order, and a label for reports."""

    label: str
    nodes: tuple[str, ...]


def _max_load(load: F64, speed: F64) -> float:
    used = speed > 0
    return float((load[used] / speed[used]).max()) if used.any() else 0.0


def simulate(
    fabric: Fabric,
    job: Job,
    remedies: Iterable[Remedy],
    *,
    collective: Collective = Collective.ALL_REDUCE,
    pattern: Pattern = "ring",
    seeds: int = 16,
    failures: Failures = NO_FAILURES,
    assumptions: Assumptions | None = None,
    worst: int = 5,
    graph: Graph | None = None,
) -> JobResult:
    """Every remedy on ``job``: per seed, the per-link load, collision efficiency and bus bandwidth."""
    a = assumptions or Assumptions()
    g = graph or build_graph(fabric, failures)
    speed = g.speed
    placement: dict[str, None] = dict.fromkeys(job.nodes)
    view = build_view(fabric, failures)
    fluid = predict(fabric, placement, collective, a, failures, view=view).best if job.nodes else 0.0
    scaled: dict[float, float] = {}  # efficiency → bus bandwidth (seeds often repeat a figure)
    flows_by_qps: dict[int, Flows] = {}

    def flows_for(q: int) -> Flows:
        if q not in flows_by_qps:
            flows_by_qps[q] = job_flows(fabric, g, job.nodes, q, pattern, failures)
        return flows_by_qps[q]

    spray_load, spray_stranded = route(g, flows_for(1), Remedy("spray", "spray"), 0)
    spray_max = _max_load(spray_load, speed)
    ideal_pace = 1.0 / max(1.0, spray_max)
    gpus = sum(fabric.nodes[n].gpus for n in job.nodes)
    results: list[RemedyResult] = []
    for remedy in remedies:
        flows = flows_for(remedy.qps)
        effs: list[float] = []
        bws: list[float] = []
        maxes: list[float] = []
        worst_links: tuple[LinkLoad, ...] = ()
        stranded = 0
        runs = 1 if remedy.mode == "spray" else seeds
        loads: list[F64] = []
        for s in range(runs):
            # spraying splits every flow evenly whatever its queue pairs: the reference run serves
            load, stranded = (spray_load, spray_stranded) if remedy.mode == "spray" else route(g, flows, remedy, s)
            ml = _max_load(load, speed)
            eff = min(1.0, (1.0 / max(1.0, ml)) / ideal_pace) if stranded == 0 else 0.0
            if eff not in scaled:
                scaled[eff] = _scaled(fabric, placement, collective, a, failures, eff, fluid, view)
            bw = scaled[eff]
            effs.append(eff)
            bws.append(bw)
            maxes.append(ml)
            loads.append(load)
        median_run = int(np.argsort(maxes)[len(maxes) // 2])
        worst_links = _worst(g, loads[median_run], spray_load, worst)
        results.append(RemedyResult(remedy, tuple(effs), tuple(bws), tuple(maxes), worst_links, len(flows), stranded))
    return JobResult(job.label, gpus, len(job.nodes), fluid, spray_max, tuple(results))


def _scaled(
    fabric: Fabric, placement: dict[str, None], collective: Collective, a: Assumptions, failures: Failures,
    eff: float, fluid: float, view: _View,
) -> float:
    """The scaling model's bus bandwidth with the network's payload efficiency scaled by ``eff``."""
    if eff >= 1.0 or not placement:
        return fluid
    if eff <= 0.0:
        return 0.0
    scaled = Assumptions(a.nic_efficiency * eff, a.nvlink_efficiency)
    return predict(fabric, placement, collective, scaled, failures, view=view).best


def _worst(g: Graph, load: F64, spray: F64, count: int) -> tuple[LinkLoad, ...]:
    used = np.flatnonzero(g.speed > 0)
    if used.size == 0:
        return ()
    ratio = load[used] / g.speed[used]
    top = used[np.argsort(-ratio, kind="stable")[:count]]
    out = []
    for d in top.tolist():
        if load[d] <= 0:
            break
        vs = float(load[d] / spray[d]) if spray[d] > 0 else None
        out.append(LinkLoad(g.link_label(d), float(load[d] / g.speed[d]), vs))
    return tuple(out)


# --------------------------------------------------------------------------- jobs from the command line


def packed_nodes(fabric: Fabric, failures: Failures = NO_FAILURES) -> list[str]:
    """Every node in the order a scheduler packs jobs (the scaling model's order), failed nodes left out."""
    return [s.name for s in packed_order(build_view(fabric, failures)) if not s.failed]


def parse_job(
    fabric: Fabric, spec: str, placement: Literal["packed", "scattered"] = "packed", seed: int = 0,
    failures: Failures = NO_FAILURES,
) -> Job:
    """``N`` (GPUs, rounded up to whole nodes), ``N:packed``, ``N:scattered`` or ``node1,node2,…`` (rank order
    as written).

    ``packed``: the first nodes of the packed order; ``scattered``: nodes drawn at random from the whole
    fabric, in random rank order (a fragmented cluster). Raises :class:`InputError` for unknown nodes or a
    size the fabric cannot hold.
    """
    text = spec.strip()
    size, _, how = text.partition(":")
    if size.isdigit() and how in ("packed", "scattered"):
        text, placement = size, "scattered" if how == "scattered" else "packed"
    if text.isdigit():
        gpus = int(text)
        order = packed_nodes(fabric, failures)
        per = max((fabric.nodes[n].gpus for n in order), default=1) or 1
        count = math.ceil(gpus / per)
        if gpus <= 0 or count > len(order):
            raise InputError([Problem(None, "--job", f"{text!r}: {fabric.name} has {len(order) * per:,} usable GPUs")])
        if placement == "scattered":
            pick = np.random.default_rng(seed).permutation(len(order))[:count]
            chosen = tuple(order[i] for i in pick.tolist())
        else:
            chosen = tuple(order[:count])
        return Job(f"{count * per:,} GPUs ({placement})", chosen)
    names = tuple(x.strip() for x in text.split(",") if x.strip())
    unknown = [n for n in names if n not in fabric.nodes]
    if unknown or not names:
        what = ", ".join(repr(n) for n in unknown) if unknown else repr(text)
        raise InputError([Problem(None, "--job", f"{what}: not a node of {fabric.name}")])
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError([Problem(None, "--job", f"{', '.join(dup)} listed twice")])
    gpus = sum(fabric.nodes[n].gpus for n in names)
    return Job(f"{gpus:,} GPUs ({len(names)} listed nodes)", names)


# --------------------------------------------------------------------------- for scaling and plan


def collision_efficiency(
    fabric: Fabric,
    job_nodes: Sequence[str],
    *,
    qps: int = 1,
    remedy: Remedy | None = None,
    pattern: Pattern = "ring",
    seeds: int = 8,
    failures: Failures = NO_FAILURES,
    graph: Graph | None = None,
) -> float:
    """Median collision efficiency (0…1) of a collective over ``job_nodes`` (rank order) as rendered (ECMP, or
    adaptive routing where it is on: :func:`rendered_remedy`) and ``qps`` queue pairs per connection (or
    ``remedy``): the share of the balanced (packet-spraying)
    bandwidth the job keeps. Multiply the scaling model's bus bandwidth by it.

    >>> collision_efficiency(fabric, ["gpu-su001-n01", "gpu-su002-n01"])  # doctest: +SKIP
    1.0
    """
    r = remedy or rendered_remedy(fabric, qps)
    result = simulate(
        fabric, Job("job", tuple(job_nodes)), [r], pattern=pattern, seeds=seeds, failures=failures, worst=0,
        graph=graph,
    )
    return result.results[0].median_efficiency


# --------------------------------------------------------------------------- the whole report


@dataclass(frozen=True, slots=True)
class PathsReport:
    """``fabricgen paths``: every job × remedy on one fabric (see :func:`paths_report`)."""

    fabric: str
    collective: Collective
    pattern: Pattern
    seeds: int
    assumptions: Assumptions
    failed: tuple[str, ...]
    jobs: tuple[JobResult, ...]
    notes: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": 1,
            "fabric": self.fabric,
            "collective": self.collective.value,
            "algorithm": self.pattern,
            "seeds": self.seeds,
            "assumptions": self.assumptions.as_dict(),
            "failed": list(self.failed),
            "jobs": [j.as_dict() for j in self.jobs],
            "notes": list(self.notes),
        }


def paths_report(
    fabric: Fabric,
    jobs: Sequence[Job],
    remedies: Sequence[Remedy],
    *,
    collective: Collective = Collective.ALL_REDUCE,
    pattern: Pattern = "ring",
    seeds: int = 16,
    failures: Failures = NO_FAILURES,
    assumptions: Assumptions | None = None,
) -> PathsReport:
    """Simulate every remedy on every job (the switch graph is indexed once)."""
    a = assumptions or Assumptions()
    g = build_graph(fabric, failures)
    results = tuple(
        simulate(fabric, j, remedies, collective=collective, pattern=pattern, seeds=seeds, failures=failures,
                 assumptions=a, graph=g)
        for j in jobs
    )
    notes: list[str] = [
        "hash: a seeded random function per switch (ASIC hash functions are not public); "
        f"median and 5th percentile over {seeds} seeds of queue pair numbers and switch hash seeds",
    ]
    if failures:
        notes.append("failed: " + ", ".join(failures.labels))
    for r in results:
        lost = max((x.stranded for x in r.results), default=0)
        if lost:
            notes.append(f"{r.label}: {lost} flow(s) have no path left (the job cannot run: bandwidth 0)")
    return PathsReport(fabric.name, collective, pattern, seeds, a, failures.labels, results, tuple(notes))


COLLISION_COLUMN_MAX_GPUS = 16_384
"""Largest fabric whose scaling table gets the ECMP column by default (it simulates every row over 8 seeds)."""


def with_collisions(table: ScalingTable, fabric: Fabric, failures: Failures = NO_FAILURES, seeds: int = 8,
                    qps: int = 1) -> ScalingTable:
    """``table`` with each row's :attr:`ScalingRow.ecmp` filled in: NCCL's default busbw × the collision
    efficiency of a job of the row's node count, scattered over the fabric in random rank order, placed as
    rendered (adaptive routing where it is on) with ``qps`` queue pairs per connection. Rows of one node (no
    fabric traffic) keep their busbw."""
    from dataclasses import replace as dc_replace

    graph = build_graph(fabric, failures)
    remedy = rendered_remedy(fabric, qps)
    rows = []
    for i, row in enumerate(table.rows):
        if row.nodes <= 1:
            rows.append(dc_replace(row, ecmp=row.best))
            continue
        order = packed_nodes(fabric, failures)
        pick = np.random.default_rng(i).permutation(len(order))[: row.nodes]
        nodes = [order[j] for j in pick.tolist()]
        eff = collision_efficiency(fabric, nodes, remedy=remedy, seeds=seeds, failures=failures, graph=graph)
        rows.append(dc_replace(row, ecmp=row.best * eff))
    notes = table.notes
    if remedy.mode == "adaptive":
        notes = (*notes, f"ECMP scattered: placed as rendered, {remedy.name.removeprefix('as rendered: ')} "
                         "(the inventory turns adaptive routing on)")
    return dc_replace(table, rows=tuple(rows), notes=notes)
