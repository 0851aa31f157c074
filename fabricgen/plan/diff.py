"""The structural diff of two resolved fabrics: devices, ports, links, addresses, ASNs and QoS values.

Pure and linear in the size of the fabrics: every object is matched by its stable identity (a device by
name, a port by device and name, a cable by its lower end), never by position, so link indices and list
order — which shift whenever units are appended — never show up as changes.

The central answer is :attr:`FabricDiff.changed`: the *existing* devices whose configuration changes,
each with the reasons in words (``"+32 BGP sessions to 16 new peers"``). With stable addressing an
expansion should touch only the devices it must (the spines gain neighbours; existing leaves and servers
stay as they are).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from fabricgen.topology.model import Fabric, HostNic, Link, Node, Port, PortKind, Switch

Change = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True)
class DeviceChange:
    """One device that is added, removed, or whose configuration changes (with the reasons)."""

    name: str
    kind: Literal["switch", "node"]
    role: str  # leaf / spine / core / server
    change: Change
    model: str
    unit: int | None = None
    reasons: tuple[str, ...] = ()
    ports_added: tuple[str, ...] = ()
    ports_removed: tuple[str, ...] = ()
    ports_changed: tuple[str, ...] = ()
    sessions_added: int = 0  # eBGP sessions (one per switch–switch link)
    sessions_removed: int = 0
    peers_added: tuple[str, ...] = ()  # switches it newly peers with
    peers_removed: tuple[str, ...] = ()
    addresses_changed: int = 0  # loopback and interface addresses
    asn: tuple[int, int] | None = None  # (before, after) when it changes
    loopback: tuple[str, str] | None = None
    qos_ports_changed: int = 0
    qos_fields: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value in ((), None, 0) and f.name not in ("name", "kind", "role", "change", "model"):
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, slots=True)
class LinkChange:
    key: str  # "lower-device:port"
    kind: str
    change: Literal["added", "removed", "moved", "changed"]
    before: str | None  # the upper end "device:port", or None (dangling / absent)
    after: str | None
    details: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "change": self.change}
        if self.before is not None:
            out["before"] = self.before
        if self.after is not None:
            out["after"] = self.after
        if self.details:
            out["details"] = list(self.details)
        return out


@dataclass(frozen=True)
class FabricDiff:
    """What changes from ``before`` to ``after``.

    ``added``/``removed``: devices that appear or disappear. ``changed``: existing devices whose
    configuration changes, with reasons. ``links``: every cable added, removed, moved (its upper end lands
    elsewhere) or changed (speed, length, cable type, subnet). ``settings``: fabric-wide settings that
    differ (``"switch_mtu: 9216 → 9100"``). ``qos_compared``: whether per-port QoS values were compared.
    """

    added: tuple[DeviceChange, ...]
    removed: tuple[DeviceChange, ...]
    changed: tuple[DeviceChange, ...]
    links: tuple[LinkChange, ...]
    settings: tuple[str, ...] = ()
    qos_compared: bool = False
    counts: Mapping[str, int] = field(default_factory=dict)
    risks: tuple[str, ...] = ()  # what the change does to traffic on devices that stay (see adaptive_routing_risks)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.links or self.settings)

    def changed_names(self, kind: str | None = None) -> set[str]:
        return {d.name for d in self.changed if kind is None or d.kind == kind}

    def links_by(self, change: str) -> list[LinkChange]:
        return [x for x in self.links if x.change == change]

    def as_dict(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "settings": list(self.settings),
            "risks": list(self.risks),
            "qos_compared": self.qos_compared,
            "added": [d.as_dict() for d in self.added],
            "removed": [d.as_dict() for d in self.removed],
            "changed": [d.as_dict() for d in self.changed],
            "links": [x.as_dict() for x in self.links],
        }


# ----------------------------------------------------------------------------- comparison keys


def _port_key(p: Port) -> tuple[object, ...]:
    """Everything about a port that reaches its configuration (not ``link``: an index that shifts)."""
    return (p.speed, p.breakout, p.kind, p.peer_device, p.peer_port, p.address)


def _nic_key(n: HostNic) -> tuple[object, ...]:
    return (n.rdma_dev, n.rail, n.gpu, n.numa, n.pcie, n.model, n.speed, n.peer_device, n.peer_port, n.address)


def _end(device: str, port: str) -> str:
    return f"{device}:{port}"


def _role(sw: Switch) -> str:
    return sw.role.value


def _is_session(p: Port) -> bool:
    return p.kind is not PortKind.HOST


def plural(n: int, word: str) -> str:
    """``plural(1, "port")`` → ``"1 port"``; ``plural(2, "port")`` → ``"2 ports"``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _compress(names: Iterable[str], limit: int = 4) -> str:
    items = sorted(names)
    if len(items) <= limit:
        return ", ".join(items)
    return f"{items[0]} … {items[-1]}"


# ----------------------------------------------------------------------------- devices


def _switch_change(old: Switch, new: Switch, extra: Iterable[str]) -> DeviceChange | None:
    reasons: list[str] = []
    for attr in ("role", "model", "platform", "id", "unit", "rails", "pod"):
        a, b = getattr(old, attr), getattr(new, attr)
        if a != b:
            reasons.append(f"{attr} {a} → {b}")
    asn = (old.asn, new.asn) if old.asn != new.asn else None
    if asn:
        reasons.append(f"ASN {old.asn} → {new.asn}")
    loopback = (old.loopback, new.loopback) if old.loopback != new.loopback else None
    if loopback:
        reasons.append(f"loopback {old.loopback} → {new.loopback}")
    before = {p.name: p for p in old.ports}
    after = {p.name: p for p in new.ports}
    added = [p for n, p in after.items() if n not in before]
    removed = [p for n, p in before.items() if n not in after]
    changed: list[str] = []
    moved = speed = addr = 0
    for name, p in after.items():
        q = before.get(name)
        if q is None or _port_key(p) == _port_key(q):
            continue
        changed.append(name)
        if (p.peer_device, p.peer_port) != (q.peer_device, q.peer_port):
            moved += 1
        if (p.speed, p.breakout) != (q.speed, q.breakout):
            speed += 1
        if p.address != q.address:
            addr += 1
    sess_add = sum(1 for p in added if _is_session(p))
    sess_del = sum(1 for p in removed if _is_session(p))
    old_peers = {p.peer_device for p in old.ports if _is_session(p)}
    new_peers = {p.peer_device for p in new.ports if _is_session(p)}
    peers_added = tuple(sorted(new_peers - old_peers))
    peers_removed = tuple(sorted(old_peers - new_peers))
    # sessions whose peer changed on the same port also change
    for name in changed:
        p, q = after[name], before[name]
        if (p.peer_device, p.peer_port) != (q.peer_device, q.peer_port):
            sess_add += _is_session(p)
            sess_del += _is_session(q)
    if added:
        host = sum(1 for p in added if p.kind is PortKind.HOST)
        words = f"+{plural(len(added), 'port')} ({_compress(p.name for p in added)})"
        if host:
            words += f", {host} facing servers"
        reasons.append(words)
    if removed:
        reasons.append(f"−{plural(len(removed), 'port')} ({_compress(p.name for p in removed)})")
    if sess_add:
        reasons.append(
            f"+{plural(sess_add, 'BGP session')}"
            + (f" to {plural(len(peers_added), 'new peer')} ({_compress(peers_added)})" if peers_added else "")
        )
    if sess_del:
        reasons.append(
            f"−{plural(sess_del, 'BGP session')}"
            + (f" ({len(peers_removed)} peers gone: {_compress(peers_removed)})" if peers_removed else "")
        )
    if moved:
        reasons.append(f"{moved} ports re-cabled to another peer")
    if speed:
        reasons.append(f"{speed} ports change speed or breakout")
    if addr:
        reasons.append(f"{addr} interface addresses change")
    if old.hwsku != new.hwsku and new.platform == "sonic":
        reasons.append(f"HwSKU {old.hwsku or '(none)'} → {new.hwsku or '(none)'} (config reload)")
    if old.adaptive_routing != new.adaptive_routing and new.platform == "nvue":
        reasons.append(f"adaptive routing {'off → on' if new.adaptive_routing else 'on → off'} (switchd reloads)")
    if old.drained != new.drained:
        reasons.append("drained (graceful-shutdown on everything it sends)" if new.drained else "undrained")
    reasons.extend(extra)
    if not reasons:
        return None
    return DeviceChange(
        name=new.name,
        kind="switch",
        role=_role(new),
        change="changed",
        model=new.model,
        unit=new.unit,
        reasons=tuple(reasons),
        ports_added=tuple(p.name for p in added),
        ports_removed=tuple(p.name for p in removed),
        ports_changed=tuple(changed),
        sessions_added=sess_add,
        sessions_removed=sess_del,
        peers_added=peers_added,
        peers_removed=peers_removed,
        addresses_changed=addr + (1 if loopback else 0),
        asn=asn,
        loopback=loopback,
    )


def _node_change(old: Node, new: Node, extra: Iterable[str]) -> DeviceChange | None:
    reasons: list[str] = []
    for attr in ("model", "unit", "gpus"):
        a, b = getattr(old, attr), getattr(new, attr)
        if a != b:
            reasons.append(f"{attr} {a} → {b}")
    before = {n.ifname: n for n in old.nics}
    after = {n.ifname: n for n in new.nics}
    added = [n for n in after if n not in before]
    removed = [n for n in before if n not in after]
    changed: list[str] = []
    moved = addr = 0
    for name, nic in after.items():
        was = before.get(name)
        if was is None or _nic_key(was) == _nic_key(nic):
            continue
        changed.append(name)
        if (was.peer_device, was.peer_port) != (nic.peer_device, nic.peer_port):
            moved += 1
        if was.address != nic.address:
            addr += 1
    if added:
        reasons.append(f"+{len(added)} NICs")
    if removed:
        reasons.append(f"−{len(removed)} NICs")
    if moved:
        reasons.append(f"{moved} NICs re-cabled")
    if addr:
        reasons.append(f"{addr} NIC addresses change")
    other = len(changed) - max(moved, addr)
    if other > 0 and not moved and not addr:
        reasons.append(f"{len(changed)} NICs change")
    reasons.extend(extra)
    if not reasons:
        return None
    return DeviceChange(
        name=new.name,
        kind="node",
        role="server",
        change="changed",
        model=new.model,
        unit=new.unit,
        reasons=tuple(reasons),
        ports_added=tuple(added),
        ports_removed=tuple(removed),
        ports_changed=tuple(changed),
        addresses_changed=addr,
    )


def _whole(kind: Literal["switch", "node"], obj: Switch | Node, change: Change) -> DeviceChange:
    if isinstance(obj, Switch):
        sessions = sum(1 for p in obj.ports if _is_session(p))
        return DeviceChange(
            name=obj.name,
            kind=kind,
            role=_role(obj),
            change=change,
            model=obj.model,
            unit=obj.unit,
            reasons=(f"{len(obj.ports)} ports, {sessions} BGP sessions",),
            sessions_added=sessions if change == "added" else 0,
            sessions_removed=sessions if change == "removed" else 0,
        )
    return DeviceChange(
        name=obj.name,
        kind=kind,
        role="server",
        change=change,
        model=obj.model,
        unit=obj.unit,
        reasons=(f"{obj.gpus} GPUs, {len(obj.nics)} backend NICs",),
    )


# ----------------------------------------------------------------------------- links


def _link_key(link: Link) -> tuple[str, str]:
    return (link.a.device, link.a.port)


def _upper(link: Link) -> str | None:
    return None if link.b is None else _end(link.b.device, link.b.port)


def _links(old: Fabric, new: Fabric) -> list[LinkChange]:
    before = {_link_key(x): x for x in old.links}
    out: list[LinkChange] = []
    seen: set[tuple[str, str]] = set()
    for link in new.links:
        key = _link_key(link)
        seen.add(key)
        was = before.get(key)
        name = _end(*key)
        if was is None:
            out.append(LinkChange(name, link.kind.value, "added", None, _upper(link)))
            continue
        if _upper(was) != _upper(link):
            out.append(LinkChange(name, link.kind.value, "moved", _upper(was), _upper(link)))
            continue
        details = []
        if was.speed != link.speed:
            details.append(f"speed {was.speed}G → {link.speed}G")
        if was.length_m != link.length_m:
            details.append(f"length {was.length_m:g} m → {link.length_m:g} m")
        if was.cable != link.cable:
            details.append(f"cable {was.cable} → {link.cable}")
        if was.subnet != link.subnet:
            details.append(f"subnet {was.subnet} → {link.subnet}")
        if details:
            out.append(LinkChange(name, link.kind.value, "changed", _upper(was), _upper(link), tuple(details)))
    for key, was in before.items():
        if key not in seen:
            out.append(LinkChange(_end(*key), was.kind.value, "removed", _upper(was), None))
    return out


# ----------------------------------------------------------------------------- settings and QoS


def _flatten(prefix: str, value: object, out: dict[str, object]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


def _settings(old: Fabric, new: Fabric) -> list[str]:
    a: dict[str, object] = {}
    b: dict[str, object] = {}
    _flatten("", old.settings.model_dump(mode="json"), a)
    _flatten("", new.settings.model_dump(mode="json"), b)
    return [f"{k}: {a.get(k)} → {b.get(k)}" for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]


QosDiff = dict[str, tuple[int, tuple[str, ...]]]
"""Per device: (ports/NICs whose QoS values change, the names of the fields that change)."""


def _changed_fields(a: object, b: object) -> list[str]:
    names = [f.name for f in fields(a)] if hasattr(a, "__dataclass_fields__") else []  # type: ignore[arg-type]
    return [n for n in names if n not in ("sources", "device", "port", "node") and getattr(a, n) != getattr(b, n)]


def qos_diff(old_qos: Any, new_qos: Any, devices: Iterable[str]) -> QosDiff:
    """Compare per-port QoS (``fabricgen.qos`` ``FabricQos`` objects) of devices present in both fabrics.

    Switch ports are compared as ``PortQos`` objects (plus the switch's buffer plan); host NICs as
    ``NicQos`` objects. ``sources`` (where a value came from) is ignored: only values reach a device.
    """
    out: QosDiff = {}
    wanted = set(devices)
    for name in wanted & set(new_qos.switches) & set(old_qos.switches):
        a, b = old_qos.switches[name], new_qos.switches[name]
        count = 0
        changed: set[str] = set()
        for port, pq in b.ports.items():
            was = a.ports.get(port)
            if was is not None and was != pq:
                diff = _changed_fields(was, pq)
                if diff:
                    count += 1
                    changed.update(diff)
        if a.buffer != b.buffer:
            changed.add("buffer")
        if count or changed:
            out[name] = (count, tuple(sorted(changed)))
    for (node, ifname), nq in new_qos.nics.items():
        if node not in wanted:
            continue
        was = old_qos.nics.get((node, ifname))
        if was is not None and was != nq:
            diff = _changed_fields(was, nq)
            if diff:
                count, names = out.get(node, (0, ()))
                out[node] = (count + 1, tuple(sorted(set(names) | set(diff))))
    return out


def compute_qos(fabric: Fabric) -> Any | None:
    """``fabricgen.qos.compute(fabric)`` when that package is present and usable, else ``None``."""
    try:
        from fabricgen.qos import compute  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    return compute(fabric)


# ----------------------------------------------------------------------------- the diff


def diff_fabrics(
    old: Fabric, new: Fabric, *, qos: bool = True, old_qos: Any | None = None, new_qos: Any | None = None
) -> FabricDiff:
    """Compare two fabrics. With ``qos`` and ``fabricgen.qos`` available, per-port QoS values are compared too
    (pass ``old_qos``/``new_qos`` when they are already computed)."""
    settings = _settings(old, new)
    switch_wide = [s for s in settings if s.startswith(("switch_mtu", "asn.", "addressing."))]
    host_wide = [s for s in settings if s.startswith("host_mtu")]
    qos_changes: QosDiff = {}
    compared = False
    if qos:
        old_q = old_qos if old_qos is not None else compute_qos(old)
        new_q = new_qos if new_qos is not None else compute_qos(new) if old_q is not None else None
        if old_q is not None and new_q is not None:
            common = (old.switches.keys() & new.switches.keys()) | (old.nodes.keys() & new.nodes.keys())
            qos_changes = qos_diff(old_q, new_q, common)
            compared = True

    def extra(name: str, wide: list[str]) -> list[str]:
        words = [f"fabric setting {s}" for s in wide if not s.startswith(("asn.", "addressing."))]
        q = qos_changes.get(name)
        if q:
            count, names = q
            words.append(
                f"QoS values change on {plural(count, 'port')} ({', '.join(names)})"
                if count
                else f"QoS changes ({', '.join(names)})"
            )
        return words

    added: list[DeviceChange] = []
    removed: list[DeviceChange] = []
    changed: list[DeviceChange] = []
    for name, sw in new.switches.items():
        was = old.switches.get(name)
        if was is None:
            added.append(_whole("switch", sw, "added"))
            continue
        c = _switch_change(was, sw, extra(name, switch_wide))
        if c is not None:
            q = qos_changes.get(name)
            changed.append(_with_qos(c, q))
    for name, sw in old.switches.items():
        if name not in new.switches:
            removed.append(_whole("switch", sw, "removed"))
    for name, node in new.nodes.items():
        was_node = old.nodes.get(name)
        if was_node is None:
            added.append(_whole("node", node, "added"))
            continue
        c = _node_change(was_node, node, extra(name, host_wide))
        if c is not None:
            changed.append(_with_qos(c, qos_changes.get(name)))
    for name, node in old.nodes.items():
        if name not in new.nodes:
            removed.append(_whole("node", node, "removed"))
    links = _links(old, new)
    by = Counter(x.change for x in links)
    counts = {
        "switches_added": sum(1 for d in added if d.kind == "switch"),
        "switches_removed": sum(1 for d in removed if d.kind == "switch"),
        "switches_changed": sum(1 for d in changed if d.kind == "switch"),
        "nodes_added": sum(1 for d in added if d.kind == "node"),
        "nodes_removed": sum(1 for d in removed if d.kind == "node"),
        "nodes_changed": sum(1 for d in changed if d.kind == "node"),
        "links_added": by["added"],
        "links_removed": by["removed"],
        "links_moved": by["moved"],
        "links_changed": by["changed"],
        "sessions_added": sum(d.sessions_added for d in (*added, *changed) if d.kind == "switch"),
        "sessions_removed": sum(d.sessions_removed for d in (*removed, *changed) if d.kind == "switch"),
        "addresses_changed": sum(d.addresses_changed for d in changed),
        "asns_changed": sum(1 for d in changed if d.asn is not None),
    }
    order = {"core": 0, "spine": 1, "leaf": 2, "server": 3}
    changed.sort(key=lambda d: (order.get(d.role, 9), d.name))
    return FabricDiff(
        added=tuple(added),
        removed=tuple(removed),
        changed=tuple(changed),
        links=tuple(links),
        settings=tuple(settings),
        qos_compared=compared,
        counts=counts,
        risks=(*drain_risks(old, new), *prefix_limit_risks(old, new), *adaptive_routing_risks(old, new),
               *hwsku_risks(old, new)),
    )


def drain_risks(old: Fabric, new: Fabric) -> list[str]:
    """A drain and an undrain, each its own risk line (switches in both fabrics whose drain state changes): a drain
    sends everything with 65535:0, so its peers move their best paths elsewhere (RFC 8326) with every session kept;
    an undrain brings the traffic back. The drain line says how much uplink capacity the switches below keep
    (fabricgen.checks.routing FG-DRAIN-003 has the same numbers)."""
    from fabricgen.checks.routing import uplink_loss

    flipped: dict[bool, list[str]] = {}
    for name, sw in new.switches.items():
        was = old.switches.get(name)
        if was is not None and was.drained != sw.drained:
            flipped.setdefault(sw.drained, []).append(name)
    out = []
    if flipped.get(True):
        names = sorted(flipped[True])
        loss = uplink_loss(new)
        kept = f"; the worst of {_switches(loss.affected)} below, {loss.worst}, keeps {loss.worst_pct}% of its " \
               "uplink capacity" if loss.affected else ""
        out.append(f"drain {_compress(names)} ({_switches(len(names))}): peers move their best paths off it "
                   f"(graceful-shutdown 65535:0, local-preference 0), every BGP session stays up{kept} — apply "
                   "them one at a time and verify in between")
    if flipped.get(False):
        names = sorted(flipped[False])
        out.append(f"undrain {_compress(names)} ({_switches(len(names))}): traffic returns to it as soon as "
                   "its peers see the prefixes without 65535:0 — verify it before it carries a job again")
    return out


def prefix_limit_risks(old: Fabric, new: Fabric) -> list[str]:
    """The sessions' maximum-prefix changes (a written limit, or the computed one stepping up as the fabric grows):
    one line, because every switch's configuration changes with it."""
    from fabricgen.topology.routing import routing_facts

    if not old.switches or not new.switches:
        return []
    a, b = routing_facts(old), routing_facts(new)
    if a.maximum_prefix == b.maximum_prefix:
        return []
    kept = sum(1 for n in new.switches if n in old.switches)
    return [f"maximum-prefix {a.maximum_prefix:,} → {b.maximum_prefix:,} on every session (one neighbor now sends up "
            f"to {b.received_max:,} prefixes): the configuration of all {_switches(kept)} in both changes"]


def _switches(n: int) -> str:
    return f"{n:,} switch{'' if n == 1 else 'es'}"


def hwsku_risks(old: Fabric, new: Fabric) -> list[str]:
    """One risk line per HwSKU change of SONiC switches in both fabrics: a switch reads ``DEVICE_METADATA|localhost
    .hwsku`` at boot (the SKU picks the SAI profile, port table and buffer templates), so the new SKU takes effect
    only through ``config reload`` or a reboot, which takes every port of the switch down."""
    moved: dict[tuple[str, str], list[str]] = {}
    for name, sw in new.switches.items():
        was = old.switches.get(name)
        if was is not None and sw.platform == "sonic" and was.platform == "sonic" and was.hwsku != sw.hwsku:
            moved.setdefault((was.hwsku, sw.hwsku), []).append(name)
    out = []
    for (a, b), names in moved.items():
        n = len(names)
        out.append(f"SONiC HwSKU {a or '(none)'} → {b or '(none)'} on {n:,} switch{'' if n == 1 else 'es'} "
                   f"({_compress(names)}): the SKU takes effect only by config reload or reboot, which takes every "
                   "port of the switch down — drain them first or change them one at a time")
    return out


def adaptive_routing_risks(old: Fabric, new: Fabric) -> list[str]:
    """One risk line per direction for the Cumulus switches (in both fabrics) whose adaptive routing the change
    turns on or off: NVUE reloads ``switchd`` to apply it (Cumulus Linux "Equal Cost Multipath Load Sharing":
    enabling adaptive routing reloads switchd), which stops forwarding on the switch while it restarts.

    >>> adaptive_routing_risks(before, after)  # doctest: +SKIP
    ['adaptive routing off → on on 16 Cumulus switches (leaf-su001-r0 … leaf-su001-r7): NVUE reloads switchd ...']
    """
    toggled: dict[bool, list[str]] = {}
    for name, sw in new.switches.items():
        was = old.switches.get(name)
        if was is not None and sw.platform == "nvue" and was.adaptive_routing != sw.adaptive_routing:
            toggled.setdefault(sw.adaptive_routing, []).append(name)
    out = []
    for on in (True, False):
        names = toggled.get(on)
        if not names:
            continue
        n = len(names)
        out.append(
            f"adaptive routing {'off → on' if on else 'on → off'} on {n:,} Cumulus switch{'' if n == 1 else 'es'} "
            f"({_compress(names)}): NVUE reloads switchd to apply it, so each of them stops forwarding while switchd "
            "restarts — drain them first or change them one at a time"
        )
    return out


def _with_qos(c: DeviceChange, q: tuple[int, tuple[str, ...]] | None) -> DeviceChange:
    if not q:
        return c
    from dataclasses import replace

    return replace(c, qos_ports_changed=q[0], qos_fields=q[1])
