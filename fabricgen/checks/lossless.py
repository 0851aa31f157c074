"""Lossless RoCE: the consistency rules of roce.md §2, checked on every link from NIC to NIC.

Each rule is one function with a stable code; findings name both ends of the offending link and the
values that disagree. The per-port values come from :func:`fabricgen.qos.compute` (computed once per
fabric and shared by every check).

=========== ==========================================================================================
FG-QOS-001  trust mode: switch ports and host NICs classify on DSCP
FG-QOS-002  the same DSCP → priority map on both ends of every link and on every port of a switch
FG-QOS-003  the same PFC priority set on both ends of every link (host NIC included), covering the
            lossless lanes
FG-QOS-004  CNP in a strict (or highest-weight) queue, not PFC-enabled; NICs send CNPs there
FG-QOS-005  ECN on for the RoCE priority: NIC notification and reaction point, switch egress marking
FG-QOS-006  ECN marks before PFC pauses (min < XOFF threshold), and sane ECN thresholds
FG-QOS-007  MTU along every RoCE path; RoCE path MTU 4096 reachable; uniform host MTU
FG-QOS-008  storage and training do not share a lossless priority unless declared
FG-QOS-009  the lossless headroom of all priority groups fits the ASIC buffer
FG-QOS-010  hosts mark RoCE (RDMA-CM ToS, NCCL_IB_TC) into the lossless RoCE lane
FG-QOS-011  (info) cable lengths assumed from fabric.cable_defaults
FG-QOS-012  PFC only on priorities that carry a lossless lane (never on a lane declared lossy)
FG-QOS-013  ETS weights of a port sum to at most 100 %, and every ETS lane that carries traffic has one
FG-QOS-014  lanes that share a traffic class agree on whether it is lossless
FG-QOS-015  the PFC watchdog's action is one the switch's NOS has (``forward`` only on SONiC)
FG-QOS-016  (info) the switches' default CNP classes differ: the one class fabricgen uses fabric-wide
=========== ==========================================================================================
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.qos import compute
from fabricgen.qos.maps import L2_OVERHEAD, dscp_of_tos, map_differences, roce_path_mtu, tos_byte
from fabricgen.qos.model import Lane, NicQos, PortQos
from fabricgen.topology.memo import per_fabric
from fabricgen.topology.model import End, Fabric, HostNic, Link, LinkKind


@dataclass(frozen=True, slots=True)
class _End:
    name: str
    trust: str
    dscp_to_tc: Mapping[int, int]
    pfc: frozenset[int]
    mtu: int
    nic: NicQos | None
    port: PortQos | None


def _end(end: End, q: PortQos | NicQos) -> _End:
    """The QoS of a link end as the rules compare it, named (built only for the ends a finding names)."""
    if isinstance(q, PortQos):
        return _End(f"{end.device}:{end.port}", q.trust, q.dscp_to_tc, q.pfc_priorities, q.mtu, None, q)
    return _End(f"{end.device}:{end.port}", q.trust, q.dscp_to_prio, q.pfc_priorities, q.mtu, q, None)


def _ends(link: Link, qa: PortQos | NicQos, qb: PortQos | NicQos) -> tuple[_End, _End]:
    assert link.b is not None  # _link_classes keeps cabled links only
    return _end(link.a, qa), _end(link.b, qb)


def _dscp_map(q: PortQos | NicQos) -> Mapping[int, int]:
    return q.dscp_to_tc if isinstance(q, PortQos) else q.dscp_to_prio


_Qos = PortQos | NicQos


@per_fabric
def _link_classes(fabric: Fabric) -> list[tuple[_Qos, _Qos, list[Link]]]:
    """Every cabled link whose ends both have QoS, grouped by the QoS its two ends share with their class (a switch
    port's :meth:`PortQosMap.shared <fabricgen.qos.model.SharedQosMap.shared>`, a NIC's): ``(end a's QoS, end
    b's QoS, links)``, pairs in the order of their first link, links in fabric order. The rules compare the values
    of a pair once and name the ends of its links from each link (built once per fabric)."""
    qos = compute(fabric)
    switches, nics = qos.switches, qos.nics
    groups: dict[tuple[int, int], tuple[_Qos, _Qos, list[Link]]] = {}
    for link in fabric.links:
        b = link.b
        if b is None:
            continue
        a = link.a
        sw = switches.get(a.device)
        qa: _Qos | None = sw.ports.shared(a.port) if sw is not None else None
        if qa is None:
            qa = nics.shared((a.device, a.port))
        sw = switches.get(b.device)
        qb: _Qos | None = sw.ports.shared(b.port) if sw is not None else None
        if qb is None:
            qb = nics.shared((b.device, b.port))
        if qa is not None and qb is not None:
            key = (id(qa), id(qb))
            group = groups.get(key)
            if group is None:
                group = groups[key] = (qa, qb, [])
            group[2].append(link)
    return list(groups.values())


def _failing_links(fabric: Fabric, bad: Callable[[_Qos, _Qos], bool]) -> list[tuple[Link, _Qos, _Qos]]:
    """``(link, end a's QoS, end b's QoS)`` of every link whose pair of QoS ``bad`` holds for, in fabric order."""
    hits = [(link, qa, qb) for qa, qb, links in _link_classes(fabric) if bad(qa, qb) for link in links]
    hits.sort(key=lambda hit: hit[0].index)
    return hits


@per_fabric
def _distinct(fabric: Fabric) -> dict[str, list[PortQos]]:
    """Per switch, the first port (in port order) of each distinct QoS: every field but the port's name and peer,
    shared objects compared by identity. A rule that keeps the first port of each value of some of these fields
    finds exactly the ports it would find among all of them, as that first port is also the first of its own
    distinct QoS; so the rules below walk these few ports instead of every port of the fabric.

    Only the first port of each port class (``SwitchQos.firsts``, in port order) is looked at: the ports of a
    class share every one of these fields, so the first port with a given QoS is the first of its class."""
    out: dict[str, list[PortQos]] = {}
    for name, sw in compute(fabric).switches.items():
        seen: set[tuple[object, ...]] = set()
        ports = out[name] = []
        for port in sw.firsts:
            key = (port.speed, port.mtu, port.trust, id(port.dscp_to_tc), id(port.lanes), id(port.pfc_priorities),
                   id(port.ecn), id(port.headroom), id(port.watchdog), id(port.sources), port.role)
            if key not in seen:
                seen.add(key)
                ports.append(port)
    return out


@per_fabric
def _nic_classes(fabric: Fabric) -> list[tuple[NicQos, PortQos, list[tuple[int, str, HostNic]]]]:
    """Every host NIC cabled to a switch port that has QoS, grouped by its shared QoS and the shared QoS of that
    leaf port: ``(NIC QoS, leaf port QoS, [(position, node, NIC)])``, pairs in the order of their first NIC, NICs
    in fabric order (``position`` numbers them). The rules read values of the pair and name each NIC and its peer
    from the fabric's :class:`HostNic` (built once per fabric)."""
    qos = compute(fabric)
    nics = qos.nics
    groups: dict[tuple[int, int], tuple[NicQos, PortQos, list[tuple[int, str, HostNic]]]] = {}
    position = 0
    for node in fabric.nodes.values():
        for nic in node.nics:
            if nic.peer_device is None or nic.peer_port is None:
                continue
            q = nics.shared((node.name, nic.ifname))
            leaf = qos.shared(nic.peer_device, nic.peer_port)
            if q is None or leaf is None:
                continue
            key = (id(q), id(leaf))
            group = groups.get(key)
            if group is None:
                group = groups[key] = (q, leaf, [])
            group[2].append((position, node.name, nic))
            position += 1
    return list(groups.values())


def _failing_nics(fabric: Fabric, bad: Callable[[NicQos, PortQos], bool]) -> list[tuple[str, HostNic, NicQos, PortQos]]:
    """``(node, NIC, NIC QoS, leaf port QoS)`` of every NIC whose pair of QoS ``bad`` holds for, in fabric order."""
    hits = [(at, node, nic, q, leaf) for q, leaf, members in _nic_classes(fabric) if bad(q, leaf)
            for at, node, nic in members]
    hits.sort(key=lambda hit: hit[0])
    return [(node, nic, q, leaf) for _, node, nic, q, leaf in hits]


def _prios(values: frozenset[int] | set[int]) -> str:
    return "{" + ",".join(str(p) for p in sorted(values)) + "}"


def trust_mode(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-001: both ends of every link trust DSCP (ConnectX firmware trusts PCP until told)."""
    for link, qa, qb in _failing_links(fabric, lambda qa, qb: qa.trust != "dscp" or qb.trust != "dscp"):
        a, b = _ends(link, qa, qb)
        for end, peer in ((a, b), (b, a)):
            if end.trust != "dscp":
                what = "host NIC" if end.nic is not None else "switch port"
                yield Finding(
                    "FG-QOS-001",
                    Severity.ERROR,
                    end.name,
                    f"{what} trusts {end.trust.upper()}, its peer {peer.name} trusts {peer.trust.upper()}: "
                    "RoCE would be classified by the VLAN priority, not by its DSCP",
                    "trust DSCP on both ends (hosts: mlnx_qos --trust dscp); remove the trust override",
                    link.src,
                )


def _maps_differ(qa: _Qos, qb: _Qos) -> bool:
    ma, mb = _dscp_map(qa), _dscp_map(qb)
    return ma is not mb and dict(ma) != dict(mb)


def _diff_text(a: Mapping[int, int], b: Mapping[int, int], limit: int = 4) -> str:
    diffs = map_differences(a, b)
    shown = ", ".join(f"DSCP {d} → {x} vs {y}" for d, x, y in diffs[:limit])
    more = f" (+{len(diffs) - limit} more)" if len(diffs) > limit else ""
    return shown + more


def _more(names: list[str], shown: int = 3) -> str:
    """``a, b, c and 5 more``: the first ``shown`` of ``names``."""
    more = f" and {len(names) - shown:,} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


Diffs = tuple[tuple[int, int | None, int | None], ...]


def _diffs(a: Mapping[int, int], b: Mapping[int, int]) -> Diffs:
    return tuple(map_differences(a, b))


def dscp_map_consistent(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-002: the DSCP → priority map is identical along every RoCE path: on both ends of every
    link and on every port of each switch.

    One cause, one finding: the links whose two ends differ in the same DSCPs the same way are one finding (named
    by the first link, with the count of the others), and so are the switches whose ports differ the same way."""
    by_cause: dict[Diffs, list[tuple[Link, _Qos, _Qos]]] = {}
    for qa, qb, links in _link_classes(fabric):
        if _maps_differ(qa, qb):
            by_cause.setdefault(_diffs(_dscp_map(qa), _dscp_map(qb)), []).extend((link, qa, qb) for link in links)
    groups = [sorted(hits, key=lambda hit: hit[0].index) for hits in by_cause.values()]
    groups.sort(key=lambda hits: hits[0][0].index)
    for hits in groups:
        link, qa, qb = hits[0]
        a, b = _ends(link, qa, qb)
        more = (f"; the same on {len(hits) - 1:,} more link{'s' if len(hits) > 2 else ''} "
                f"({_more([f'{h[0].a.device}:{h[0].a.port}' for h in hits[1:]])})" if len(hits) > 1 else "")
        yield Finding(
            "FG-QOS-002",
            Severity.ERROR,
            a.name,
            f"DSCP→priority map differs from its peer {b.name}: {_diff_text(a.dscp_to_tc, b.dscp_to_tc)}{more}",
            "use one map fabric-wide (a per-platform or per-role cnp_tc override often causes this)",
            link.src,
        )
    qos = compute(fabric)
    on_switch: dict[Diffs, list[tuple[str, PortQos, PortQos, int]]] = {}
    for name, distinct in _distinct(fabric).items():
        first: dict[int, PortQos] = {}
        for port in distinct:
            first.setdefault(id(port.dscp_to_tc), port)
        if len(first) < 2:
            continue
        ports = list(first.values())
        base = ports[0]
        base_map = dict(base.dscp_to_tc)
        counts: dict[int, int] = {}  # id(map) → ports with that map object
        maps: dict[int, Mapping[int, int]] = {}
        for _, shared in qos.switches[name].ports.shared_items():
            m = shared.dscp_to_tc
            counts[id(m)] = counts.get(id(m), 0) + 1
            maps[id(m)] = m
        reported: set[Diffs] = set()
        for other in ports[1:]:
            other_map = dict(other.dscp_to_tc)
            key = _diffs(other_map, base_map)
            if not key or key in reported:
                continue
            reported.add(key)
            n = sum(counts[k] for k, m in maps.items() if dict(m) == other_map)
            on_switch.setdefault(key, []).append((name, other, base, n))
    for same in on_switch.values():
        name, other, base, _ = same[0]
        total = sum(n for *_, n in same)
        more = (f"; {total:,} ports on {len(same):,} switches differ the same way ({_more([h[0] for h in same])})"
                if len(same) > 1 else "")
        yield Finding(
            "FG-QOS-002",
            Severity.ERROR,
            f"{name}:{other.port}",
            f"DSCP→priority map differs from {name}:{base.port} on the same switch "
            f"(peers {other.peer} and {base.peer}): {_diff_text(other.dscp_to_tc, base.dscp_to_tc)}{more}",
            "a RoCE packet is classified on ingress and queued by that class on egress: one map per path",
            fabric.switches[name].src,
        )


def pfc_consistent(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-003: the PFC-enabled priorities are the same on both ends of every link (NIC included)
    and include every lossless lane's priority."""
    for link, qa, qb in _failing_links(fabric, lambda qa, qb: qa.pfc_priorities != qb.pfc_priorities):
        a, b = _ends(link, qa, qb)
        yield Finding(
            "FG-QOS-003",
            Severity.ERROR,
            a.name,
            f"PFC on priorities {_prios(a.pfc)}, its peer {b.name} on {_prios(b.pfc)}: "
            "PAUSE frames from one end are ignored by the other",
            "enable PFC on exactly the lossless priorities on both ends (NIC: mlnx_qos --pfc)",
            link.src,
        )
    for name, distinct in _distinct(fabric).items():
        seen: set[tuple[int, int]] = set()
        for port in distinct:
            key = (id(port.lanes), id(port.pfc_priorities))
            if key in seen:
                continue
            seen.add(key)
            missing = sorted(lane.tc for lane in port.lanes if lane.lossless and lane.tc not in port.pfc_priorities)
            if missing:
                yield Finding(
                    "FG-QOS-003",
                    Severity.ERROR,
                    f"{name}:{port.port}",
                    f"lossless priorities {_prios(set(missing))} have no PFC (PFC on {_prios(port.pfc_priorities)}; "
                    f"peer {port.peer})",
                    "a lossless lane without PFC drops under congestion",
                    fabric.switches[name].src,
                )


def cnp_strict(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-004: CNP lands in a strict-priority (or highest-weight) queue that is not PFC-enabled,
    and NICs send their CNPs with that DSCP and priority."""
    for name, distinct in _distinct(fabric).items():
        seen: set[tuple[int, int, int]] = set()
        for port in distinct:
            key = (id(port.lanes), id(port.pfc_priorities), id(port.dscp_to_tc))
            if key in seen:
                continue
            seen.add(key)
            cnp = next((lane for lane in port.lanes if lane.purpose == "cnp"), None)
            where = f"{name}:{port.port}"
            if cnp is None:
                tc = port.dscp_to_tc.get(48, 0)
                lane = port.lane(tc)
                yield Finding(
                    "FG-QOS-004",
                    Severity.ERROR,
                    where,
                    f"no CNP lane: CNP DSCP 48 lands in priority {tc} ({lane.name if lane else 'no lane'}), "
                    f"behind data (peer {port.peer})",
                    "add a lane with purpose cnp, DSCP 48, scheduling strict",
                    fabric.switches[name].src,
                )
                continue
            weights = [lane.ets_weight or 0 for lane in port.lanes if lane.scheduling == "ets"]
            top = cnp.scheduling == "strict" or (cnp.ets_weight or 0) >= max(weights, default=0)
            if not top:
                yield Finding(
                    "FG-QOS-004",
                    Severity.ERROR,
                    where,
                    f"CNP lane {cnp.name} (priority {cnp.tc}) is ETS {cnp.ets_weight}%, below the top weight "
                    f"{max(weights)}%: CNPs queue behind data (peer {port.peer})",
                    "schedule the CNP lane strict",
                    fabric.switches[name].src,
                )
            if cnp.tc in port.pfc_priorities:
                yield Finding(
                    "FG-QOS-004",
                    Severity.ERROR,
                    where,
                    f"CNP priority {cnp.tc} is PFC-enabled (PFC on {_prios(port.pfc_priorities)}; peer {port.peer}): "
                    "a paused CNP cannot slow the sender",
                    "keep the CNP priority out of PFC",
                    fabric.switches[name].src,
                )
    for node_name, host_nic, nic, leaf in _failing_nics(fabric, _nic_cnp_wrong):
        node = fabric.nodes[node_name]
        expect = leaf.dscp_to_tc.get(nic.cnp_dscp)
        cnp = _cnp_off_lane(nic, leaf)
        if cnp is not None:
            yield Finding(
                "FG-QOS-004",
                Severity.ERROR,
                f"{node_name}:{host_nic.ifname}",
                f"NIC sends CNPs with DSCP {nic.cnp_dscp} priority {nic.cnp_priority}, but its peer {host_nic.peer} "
                f"puts CNP (DSCP {','.join(map(str, cnp.dscp))}) on priority {cnp.tc} "
                f"(DSCP {nic.cnp_dscp} → {expect})",
                "set cnp_dscp/cnp_802p_prio on the NIC to the fabric's CNP lane",
                node.src,
            )
        if nic.cnp_priority in nic.pfc_priorities:
            yield Finding(
                "FG-QOS-004",
                Severity.ERROR,
                f"{node_name}:{host_nic.ifname}",
                f"NIC CNP priority {nic.cnp_priority} is PFC-enabled (PFC on {_prios(nic.pfc_priorities)}; "
                f"peer {host_nic.peer})",
                "keep the CNP priority out of the NIC's PFC bitmap",
                node.src,
            )


def _cnp_off_lane(nic: NicQos, leaf: PortQos) -> Lane | None:
    """The leaf port's CNP lane when the NIC sends its CNPs with another DSCP or priority."""
    cnp = next((lane for lane in leaf.lanes if lane.purpose == "cnp"), None)
    return cnp if cnp is not None and (nic.cnp_dscp not in cnp.dscp or nic.cnp_priority != cnp.tc) else None


def _nic_cnp_wrong(nic: NicQos, leaf: PortQos) -> bool:
    return _cnp_off_lane(nic, leaf) is not None or nic.cnp_priority in nic.pfc_priorities


def ecn_enabled(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-005: ECN is on for the RoCE priority: marking on every switch's RoCE egress queue, and
    notification and reaction point on every host NIC."""
    for name, distinct in _distinct(fabric).items():
        seen: set[tuple[int, int]] = set()
        for port in distinct:
            key = (id(port.lanes), id(port.ecn))
            if key in seen:
                continue
            seen.add(key)
            for lane in port.lanes:
                if lane.purpose == "training" and lane.tc not in port.ecn:
                    why = (
                        "the lane has ecn: false" if not lane.ecn else "the WRED profile lacks ecn (ecn_marking: false)"
                    )
                    yield Finding(
                        "FG-QOS-005",
                        Severity.ERROR,
                        f"{name}:{port.port}",
                        f"RoCE egress queue {lane.tc} does not mark ECN ({why}); peer {port.peer}: "
                        "congestion drops or pauses instead of slowing senders",
                        "mark ECN on the RoCE queue (SONiC WRED_PROFILE ecn: ecn_all)",
                        fabric.switches[name].src,
                    )
    for node_name, host_nic, nic, leaf in _failing_nics(fabric, lambda nic, leaf: bool(_ecn_off(nic, leaf))):
        training = _training(leaf)
        ifname = host_nic.ifname
        yield Finding(
            "FG-QOS-005",
            Severity.ERROR,
            f"{node_name}:{ifname}",
            f"ECN {' and '.join(_ecn_off(nic, leaf))} point off for RoCE priority {training.tc} "
            f"(NIC ECN on {_prios(nic.ecn_np)}), while its peer {host_nic.peer} marks queue {training.tc}",
            f"echo 1 > /sys/class/net/{ifname}/ecn/roce_np/enable/{training.tc} (and roce_rp)",
            fabric.nodes[node_name].src,
        )


def _training(leaf: PortQos) -> Lane:
    return next(lane for lane in leaf.lanes if lane.purpose == "training")


def _ecn_off(nic: NicQos, leaf: PortQos) -> list[str]:
    """The ECN points (notification, reaction) the NIC has off for the leaf port's RoCE priority."""
    tc = _training(leaf).tc
    return [what for what, tcs in (("notification", nic.ecn_np), ("reaction", nic.ecn_rp)) if tc not in tcs]


def ecn_before_pfc(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-006: ECN marks before PFC pauses — the ECN minimum of every lossless egress queue is below
    the XOFF threshold of every lossless ingress PG of the switch (error with static thresholds, warning
    with dynamic ones, whose threshold is an estimate); max ≥ min, probability 1–100 %, max ≤ the pool."""
    qos = compute(fabric)
    for name, sw in qos.switches.items():
        src = fabric.switches[name].src
        profiles: dict[int, tuple[PortQos, int]] = {}
        thresholds: dict[int, tuple[PortQos, int]] = {}
        for port in _distinct(fabric)[name]:
            for tc, prof in port.ecn.items():
                lane = port.lane(tc)
                if lane is not None and lane.lossless:
                    profiles.setdefault(id(prof), (port, tc))
            for pg, head in port.headroom.items():
                thresholds.setdefault(id(head), (port, pg))
        for port, tc in profiles.values():
            prof = port.ecn[tc]
            where = f"{name}:{port.port}"
            problems = []
            if prof.max_bytes < prof.min_bytes:
                problems.append(f"max {prof.max_bytes} B < min {prof.min_bytes} B")
            if not 1 <= prof.probability_pct <= 100:
                problems.append(f"mark probability {prof.probability_pct}% is outside 1–100")
            if 0 < sw.buffer.shared_bytes < prof.max_bytes:
                problems.append(f"max {prof.max_bytes} B exceeds the lossless pool ({sw.buffer.shared_bytes} B)")
            if problems:
                yield Finding(
                    "FG-QOS-006",
                    Severity.ERROR,
                    where,
                    f"ECN profile of queue {tc} ({prof.source}): {'; '.join(problems)} (peer {port.peer})",
                    "fix qos.ecn / ecn_by_speed",
                    src,
                )
            for ing, pg in thresholds.values():
                head = ing.headroom[pg]
                if prof.min_bytes < head.xoff_threshold_bytes:
                    continue
                if head.threshold == "dynamic" and sw.buffer.shared_bytes <= 0:
                    break  # no shared buffer left: FG-QOS-009 reports the switch
                static = head.threshold == "static"
                yield Finding(
                    "FG-QOS-006",
                    Severity.ERROR if static else Severity.WARNING,
                    where,
                    f"ECN min {prof.min_bytes} B on queue {tc} ({prof.source}; peer {port.peer}) is not below the "
                    f"{'static' if static else 'estimated dynamic'} PFC XOFF threshold {head.xoff_threshold_bytes} B "
                    f"of PG {pg} on {name}:{ing.port} (peer {ing.peer}): PFC pauses before ECN marks",
                    "lower the ECN minimum or raise the XOFF threshold",
                    src,
                )
                break


def mtu_path(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-007: every switch port on a RoCE path carries host MTU + L2 overhead, host MTUs are
    uniform, and the RoCE path MTU is 4096."""
    qos = compute(fabric)
    mtus = Counter(nic.mtu for _, nic in qos.nics.shared_items())
    if len(mtus) > 1:
        common = mtus.most_common(1)[0][0]
        for (node_name, ifname), nic in qos.nics.shared_items():
            if nic.mtu != common:
                yield Finding(
                    "FG-QOS-007",
                    Severity.ERROR,
                    f"{node_name}:{ifname}",
                    f"host MTU {nic.mtu} differs from the fabric's other NICs ({common}); "
                    f"peer {qos.nics[node_name, ifname].peer or 'none'}",
                    "use one host MTU everywhere (fabric.host_mtu)",
                    fabric.nodes[node_name].src,
                )
    host_mtu = max(mtus) if mtus else fabric.settings.host_mtu
    need = host_mtu + L2_OVERHEAD
    def too_small(qa: _Qos, qb: _Qos) -> bool:
        return (isinstance(qa, PortQos) and qa.mtu < need) or (isinstance(qb, PortQos) and qb.mtu < need)

    for link, qa, qb in _failing_links(fabric, too_small):
        a, b = _ends(link, qa, qb)
        for end, peer in ((a, b), (b, a)):
            if end.port is not None and end.mtu < need:
                yield Finding(
                    "FG-QOS-007",
                    Severity.ERROR,
                    end.name,
                    f"port MTU {end.mtu} is below host MTU {host_mtu} + {L2_OVERHEAD} = {need} "
                    f"(peer {peer.name}, MTU {peer.mtu}): full-size RoCE frames are dropped",
                    "raise fabric.switch_mtu (9214/9216)",
                    link.src,
                )
    seen: set[int] = set()
    for (node_name, ifname), nic in qos.nics.shared_items():
        path = roce_path_mtu(nic.mtu)
        if path < 4096 and nic.mtu not in seen:
            seen.add(nic.mtu)
            yield Finding(
                "FG-QOS-007",
                Severity.ERROR,
                f"{node_name}:{ifname}",
                f"host MTU {nic.mtu} gives RoCE path MTU {path}, not 4096 (needs ≥ 4192); "
                f"peer {qos.nics[node_name, ifname].peer or 'none'}",
                "use host MTU 9000",
                fabric.nodes[node_name].src,
            )


def storage_separate(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-008: storage and training do not share a lossless priority unless ``qos.shared_lossless``."""
    qos = compute(fabric)
    if qos.policy.shared_lossless:
        return
    for name, distinct in _distinct(fabric).items():
        for port in distinct:  # lanes differ between ports only by the CNP class: one port is enough
            training = [lane for lane in port.lanes if lane.purpose == "training"]
            for st in (lane for lane in port.lanes if lane.purpose == "storage"):
                for tr in training:
                    if st.tc == tr.tc:
                        yield Finding(
                            "FG-QOS-008",
                            Severity.ERROR,
                            f"{name}:{port.port}",
                            f"storage lane {st.name} (DSCP {','.join(map(str, st.dscp))}) shares lossless priority "
                            f"{tr.tc} with training lane {tr.name} (DSCP {','.join(map(str, tr.dscp))}); "
                            f"peer {port.peer}",
                            "give storage its own priority (e.g. 4), or set qos.shared_lossless: true on purpose",
                            fabric.switches[name].src,
                        )
            break


def buffer_fits(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-009: Σ headroom of every lossless priority group of a switch fits its ASIC buffer."""
    qos = compute(fabric)
    for name, sw in qos.switches.items():
        b = sw.buffer
        if not b.fits:
            yield Finding(
                "FG-QOS-009",
                Severity.ERROR,
                name,
                f"lossless headroom {b.lossless_headroom_bytes} B over {b.lossless_pgs} priority groups exceeds "
                f"the ASIC buffer {b.pool_bytes} B ({b.source})",
                "fewer lossless priorities, shorter cables, or a larger-buffer model",
                fabric.switches[name].src,
            )


def _unmarked(nic: NicQos, leaf: PortQos) -> bool:
    """Whether the NIC marks RoCE with a DSCP outside the leaf port's RoCE lane."""
    return dscp_of_tos(nic.roce_tos) not in _training(leaf).dscp


def host_marking(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-010: hosts mark RoCE (RDMA-CM ToS and NCCL_IB_TC) with the DSCP of the lossless RoCE lane."""
    qos = compute(fabric)
    for node_name, host_nic, nic, leaf in _failing_nics(fabric, _unmarked):
        ifname = host_nic.ifname
        training = _training(leaf)
        want = tos_byte(training.dscp[0], training.ecn) if training.dscp else 0
        dscp = dscp_of_tos(nic.roce_tos)
        tc = leaf.dscp_to_tc.get(dscp, 0)
        lane = leaf.lane(tc)
        kind = "lossless" if lane is not None and lane.lossless else "lossy"
        yield Finding(
            "FG-QOS-010",
            Severity.ERROR,
            f"{node_name}:{ifname}",
            f"RoCE ToS {nic.roce_tos} (DSCP {dscp}) lands in {kind} priority {tc} "
            f"({lane.name if lane else 'no lane'}) on its peer {host_nic.peer}; the RoCE lane wants ToS {want} "
            f"(DSCP {training.dscp[0] if training.dscp else '-'})",
            f"remove the tos override of {node_name} or set it to {want}",
            fabric.nodes[node_name].src,
        )
    for node_name, env in qos.nccl.items():
        node = fabric.nodes[node_name]
        cabled = [(n, q) for n in node.nics if n.peer_device and (q := qos.nics.shared((node_name, n.ifname)))]
        if not cabled:
            continue
        raw = env.variables.get("NCCL_IB_TC", "")
        expect = cabled[0][1].roce_tos
        if not raw.isdigit() or int(raw) != expect:
            yield Finding(
                "FG-QOS-010",
                Severity.ERROR,
                node_name,
                f"NCCL_IB_TC={raw or 'unset'} but its NICs mark RoCE with ToS {expect} "
                f"(DSCP {dscp_of_tos(expect)}); first NIC peer {cabled[0][0].peer}"
                + (": unset, NCCL sends on priority 0" if not raw else ""),
                f"NCCL_IB_TC={expect}",
                node.src,
            )


def cable_defaults(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-011 (info): links whose headroom assumes the default cable length of their role."""
    counts: dict[LinkKind, int] = defaultdict(int)  # by the member: its ``.value`` is a property call per link
    first: dict[LinkKind, Link] = {}
    for link in fabric.links:
        if link.length_defaulted and link.b is not None:
            counts[link.kind] += 1
            first.setdefault(link.kind, link)
    field = {"host": "host", "leaf-spine": "leaf_spine", "spine-core": "spine_core"}
    for kind, n in sorted((member.value, n) for member, n in counts.items()):
        link = first[LinkKind(kind)]
        assert link.b is not None
        src: SourcePos | None = link.src
        yield Finding(
            "FG-QOS-011",
            Severity.INFO,
            f"{link.a.device}:{link.a.port}",
            f"{n} {kind} link(s) have no length_m (first: to {link.b.device}:{link.b.port}); PFC headroom assumes "
            f"{link.length_m:g} m from fabric.cable_defaults.{field[kind]}",
            "give each link its measured length_m",
            src,
        )


def _layer_pos(fabric: Fabric, source: str, key: str) -> SourcePos | None:
    """Where the override layer named by a value's ``source`` (``override:qos.platforms.nvue``) wrote ``key``."""
    if not source.startswith("override:"):
        return fabric.pos("qos")
    return fabric.pos(*source.removeprefix("override:").split("."), key)


def _lane_pos(fabric: Fabric, name: str) -> SourcePos | None:
    for i, lane in enumerate(fabric.qos_policy.lanes or ()):
        if lane.name == name:
            return fabric.pos("qos", "lanes", i)
    return fabric.pos("qos")


def _distinct_ports(fabric: Fabric) -> Iterator[tuple[str, PortQos]]:
    """One port (``switch``, its QoS) per distinct combination of lanes and PFC set in the fabric."""
    seen: set[tuple[int, frozenset[int]]] = set()
    for name, distinct in _distinct(fabric).items():
        for port in distinct:
            key = (id(port.lanes), port.pfc_priorities)
            if key not in seen:
                seen.add(key)
                yield name, port


def pfc_only_lossless(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-012: PFC is enabled only on priorities that carry a lossless lane. PFC on a lane declared lossy
    makes it lossless by accident: it pauses the link for that traffic, with no headroom planned for it and
    (usually) no ECN to slow its senders first."""
    reported: set[tuple[int, str]] = set()
    for name, port in _distinct_ports(fabric):
        source = port.sources.get("pfc_priorities", "default")
        for prio in sorted(port.pfc_priorities):
            lanes = [lane for lane in port.lanes if lane.tc == prio]
            if any(lane.lossless or lane.purpose == "cnp" for lane in lanes) or (prio, source) in reported:
                continue  # a PFC-enabled CNP class is FG-QOS-004's finding
            reported.add((prio, source))
            what = (f"lane{'s' if len(lanes) > 1 else ''} {', '.join(lane.name for lane in lanes)} declared lossy"
                    if lanes else "no lane")
            yield Finding(
                "FG-QOS-012",
                Severity.ERROR,
                f"{name}:{port.port}",
                f"PFC is enabled on priority {prio} ({source.removeprefix('override:')}.pfc_priorities), which "
                f"carries {what}: that traffic would pause links without headroom or ECN planned for it",
                f"remove {prio} from pfc_priorities, or declare the lane lossless: true (with ecn: true)",
                _layer_pos(fabric, source, "pfc_priorities"),
            )


def ets_weights(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-013: the ETS weights of a port sum to at most 100 %, and an ETS lane that carries traffic has a
    weight (without one its queue is starved, or the NOS rejects the scheduler)."""
    reported: set[tuple[object, ...]] = set()
    for name, port in _distinct_ports(fabric):
        ets = [lane for lane in port.lanes if lane.scheduling == "ets"]
        total = sum(lane.ets_weight or 0 for lane in ets)
        key: tuple[object, ...] = ("sum", total, tuple(lane.name for lane in ets))
        if total > 100 and key not in reported:
            reported.add(key)
            shares = ", ".join(f"{lane.name} {lane.ets_weight}" for lane in ets if lane.ets_weight)
            yield Finding(
                "FG-QOS-013",
                Severity.ERROR,
                f"{name}:{port.port}",
                f"ETS weights sum to {total} % ({shares}); a port has 100 %",
                "scale the lanes' weight so that they sum to 100",
                fabric.pos("qos", "lanes"),
            )
        for lane in ets:
            if lane.ets_weight is None and lane.dscp and ("none", lane.name) not in reported:
                reported.add(("none", lane.name))
                yield Finding(
                    "FG-QOS-013",
                    Severity.ERROR,
                    f"{name}:{port.port}",
                    f"ETS lane {lane.name} carries DSCP {_dscps(lane.dscp)} but has no weight",
                    "give the lane a weight (percent), or make it strict",
                    _lane_pos(fabric, lane.name),
                )


def _dscps(values: tuple[int, ...]) -> str:
    shown = ",".join(str(d) for d in values[:6])
    return shown + (f",… ({len(values)} values)" if len(values) > 6 else "")


def tc_lossiness(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-014: lanes on one traffic class agree on lossless or lossy — a class is one queue and one
    priority group, so it cannot be both."""
    reported: set[tuple[int, frozenset[str]]] = set()
    for name, port in _distinct_ports(fabric):
        by_tc: dict[int, list[str]] = defaultdict(list)
        for lane in port.lanes:
            by_tc[lane.tc].append(lane.name)
        for tc, names in sorted(by_tc.items()):
            lanes = [lane for lane in port.lanes if lane.tc == tc]
            if len({lane.lossless for lane in lanes}) < 2 or (tc, frozenset(names)) in reported:
                continue
            reported.add((tc, frozenset(names)))
            lossy = [lane.name for lane in lanes if not lane.lossless]
            lossless = [lane.name for lane in lanes if lane.lossless]
            yield Finding(
                "FG-QOS-014",
                Severity.ERROR,
                f"{name}:{port.port}",
                f"traffic class {tc} carries lossless lane{'s' if len(lossless) > 1 else ''} {', '.join(lossless)} "
                f"and lossy lane{'s' if len(lossy) > 1 else ''} {', '.join(lossy)}",
                "give the lossy lane its own traffic class (tc)",
                _lane_pos(fabric, lossy[0]),
            )


WATCHDOG_DROPS_ONLY: Mapping[str, str] = {
    "eos": "EOS's watchdog actions are drop, errdisable and notify-only (Arista AVD eos_cli_config_gen schema, "
           "priority_flow_control.watchdog.action)",
    "junos": "Junos' watchdog mitigation is fixed: the stalled queue is disabled and its packets dropped for the "
             "recovery time (\"PFC Watchdog\", Junos class of service user guide)",
    "nxos": "NX-OS drops the outgoing packets of a stalled no-drop queue (\"Configuring Priority Flow Control\", "
            "Nexus 9000 NX-OS QoS configuration guide 10.2(x))",
    "nvue": "NVUE has no watchdog action in any release's schema (qos pfc-watchdog: polling-interval and "
            "robustness only)",
}
"""Platforms whose PFC watchdog cannot forward, with the document that says so."""


def watchdog_action(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-015: a PFC watchdog action ``forward`` only where the NOS has it; elsewhere the rendered
    configuration would drop (or be refused) while the inventory says the queue keeps forwarding."""
    reported: set[tuple[str, str]] = set()
    for name, distinct in _distinct(fabric).items():
        platform = fabric.switches[name].platform
        reason = WATCHDOG_DROPS_ONLY.get(platform)
        if reason is None:
            continue
        for port in distinct:
            wd = port.watchdog
            source = port.sources.get("watchdog", "default")
            if wd is None or wd.action != "forward" or (platform, source) in reported:
                continue
            reported.add((platform, source))
            release = fabric.switches[name].release
            yield Finding(
                "FG-QOS-015",
                Severity.ERROR,
                f"{name}:{port.port}",
                f"PFC watchdog action forward ({source.removeprefix('override:')}.pfc_watchdog.action) is not "
                f"available on {platform} {release}: {reason}",
                "use action: drop, or set the action for the platforms that forward only (qos.platforms.sonic)",
                _layer_pos(fabric, source, "pfc_watchdog"),
            )


def cnp_fabric_wide(fabric: Fabric) -> Iterator[Finding]:
    """FG-QOS-016 (info): the switches' default CNP classes differ (Spectrum's 6, Broadcom's and Cisco's 7) and the
    inventory sets no ``qos.cnp_tc``: fabricgen puts CNP on one class everywhere (:func:`fabricgen.qos.policy.
    fabric_cnp`) so that every DSCP → priority map agrees, and says which."""
    chosen = compute(fabric).policy.fabric_cnp
    if chosen is None:
        return
    defaults = ", ".join(
        f"{tc} on {n:,} switch{'es' if n != 1 else ''} ({source})" for source, tc, n in chosen.defaults
    )
    yield Finding(
        "FG-QOS-016",
        Severity.INFO,
        "qos",
        f"the switches' default CNP classes differ ({defaults}): CNP (DSCP 48) uses priority {chosen.tc} on every "
        f"switch and NIC, the priority ConnectX sends CNPs on",
        "set qos.cnp_tc to choose another class",
        fabric.pos("qos"),
    )


CHECKS = (
    trust_mode,
    dscp_map_consistent,
    pfc_consistent,
    cnp_strict,
    ecn_enabled,
    ecn_before_pfc,
    mtu_path,
    storage_separate,
    buffer_fits,
    host_marking,
    cable_defaults,
    pfc_only_lossless,
    ets_weights,
    tc_lossiness,
    watchdog_action,
    cnp_fabric_wide,
)
