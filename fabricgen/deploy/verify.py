"""Live state against intent: BGP sessions, LLDP neighbours and interfaces, as the cabling plan implies them.

Only what the targets can show is checked: a port whose peer is not among the targets (a GPU node, or a switch
outside a lab slice) is counted as out of scope, not failed. Interface names are normalised before comparing
(``Eth1/1`` and ``Ethernet1/1`` are one port; a neighbour that reports a port description instead of the
port name is matched on the description too). SONiC's lldpd advertises a port's *alias* (``etp1a``) as its
port ID, not its name (``Ethernet0``): the peer port's alias, read from its intended config_db ``PORT`` table,
matches too. Virtual interfaces report no speed: that is said, not faked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from netutils.interface import canonical_interface_name

from fabricgen.topology.model import Fabric


@dataclass
class Check:
    kind: str  # bgp | lldp | interface | drain
    subject: str  # "swp33 → spine1:swp1" or "10.128.6.0 (spine1)"
    ok: bool
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "ok": self.ok, "detail": self.detail}


@dataclass
class DeviceVerdict:
    device: str
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]


@dataclass(frozen=True)
class PeerNames:
    """What a rollout knows of its peers' names, for the LLDP check of a rollout that starts from factory state.

    ``seen_as``: device → the (normalised) hostnames it answered with when this rollout identified it by serial,
    chassis MAC or LLDP placement (:mod:`fabricgen.deploy.identity`); ``unreached``: devices this rollout has not
    configured yet (a later wave, or outside the rollout and not known at intent). On a cabled port, a neighbour
    with the cabled peer port is that peer when it advertises one of the peer's ``seen_as`` names, or when the
    peer is ``unreached`` and the name it advertises names no switch of the fabric (a factory name such as
    ``localhost``, or none). A neighbour calling itself *another* switch of the fabric is never accepted.

    >>> from types import SimpleNamespace as N
    >>> f = N(switches={"spine1": None, "leaf4": None})
    >>> names = PeerNames({}, frozenset({"leaf4"}))
    >>> names.accepts(f, "leaf4", "localhost"), names.accepts(f, "leaf4", "spine1")
    ('leaf4 is not configured yet: localhost names no switch of the fabric', '')
    """

    seen_as: Mapping[str, frozenset[str]] = field(default_factory=dict)
    unreached: frozenset[str] = frozenset()

    def accepts(self, fabric: Fabric, peer: str, advertised: str) -> str:
        """Why a neighbour advertising ``advertised`` is ``peer`` ("" when it is not)."""
        host = normalize_host(advertised)
        if host in self.seen_as.get(peer, frozenset()):
            return f"{peer} identified in this rollout, calling itself {advertised}"
        if peer in self.unreached and not any(normalize_host(n) == host for n in fabric.switches):
            return f"{peer} is not configured yet: {advertised or '(no name)'} names no switch of the fabric"
        return ""


def normalize_ifname(name: str) -> str:
    """Canonical interface name for comparisons (netutils' long names, lower-case).

    >>> normalize_ifname("Eth1/1"), normalize_ifname("Ethernet1/1"), normalize_ifname("swp1")
    ('ethernet1/1', 'ethernet1/1', 'swp1')
    """
    return str(canonical_interface_name(name.strip())).lower()


def normalize_host(name: str) -> str:
    """``Leaf1.dc1.example.`` → ``leaf1``."""
    return name.strip().rstrip(".").split(".")[0].lower()


def _ip(address: str | None) -> str | None:
    return address.split("/")[0] if address else None


def expected_sessions(fabric: Fabric, device: str, scope: set[str]) -> dict[str, tuple[str, int]]:
    """Peer address → (peer device, peer ASN) for every cabled switch peer in ``scope``."""
    sw = fabric.switches[device]
    out: dict[str, tuple[str, int]] = {}
    for port in sw.ports:
        peer = fabric.switches.get(port.peer_device)
        if peer is None or port.peer_device not in scope:
            continue
        peer_port = fabric.port(port.peer_device, port.peer_port)
        addr = _ip(peer_port.address if peer_port else None)
        if addr:
            out[addr] = (peer.name, peer.asn)
    return out


def check_bgp(
    fabric: Fabric, device: str, scope: set[str], bgp: dict[str, Any], require_up: set[str] | None = None
) -> list[Check]:
    """Every implied session present with the right peer ASN; Established when its peer is in ``require_up``
    (default: every peer in scope)."""
    peers = (bgp.get("global") or {}).get("peers", {})
    checks = []
    for addr, (peer, asn) in sorted(expected_sessions(fabric, device, scope).items()):
        subject = f"{addr} ({peer}, AS {asn})"
        got = peers.get(addr)
        if got is None:
            checks.append(Check("bgp", subject, False, "no such neighbour configured"))
            continue
        if int(got.get("remote_as", 0)) != asn:
            checks.append(Check("bgp", subject, False, f"peer ASN is {got.get('remote_as')}, cabling implies {asn}"))
            continue
        must_be_up = require_up is None or peer in require_up
        if got.get("is_up"):
            checks.append(Check("bgp", subject, True, "Established"))
        elif must_be_up:
            checks.append(Check("bgp", subject, False, "not Established"))
        else:
            checks.append(Check("bgp", subject, True, "configured; peer not at intended config yet"))
    return checks


HOLD_TIME = {"frr": 9.0, "sonic": 9.0, "nvue": 9.0, "eos": 180.0, "nxos": 180.0, "junos": 90.0}
"""BGP hold time (s) of the sessions fabricgen's templates render per platform: FRR's ``datacenter`` profile
(``timers bgp 3 9``, also NVUE's FRR), SONiC's frr.conf ``timers 3 9``; EOS and NX-OS keep their 180 s
default, Junos its 90 s."""


def hold_time(platform: str) -> float:
    return HOLD_TIME.get(platform, 180.0)


def is_hard(check: Check) -> bool:
    """A failure that waiting cannot cure: the configuration or the cabling is wrong."""
    if check.kind == "interface":
        return True
    if check.kind == "lldp":
        return check.detail.startswith("sees ")
    return "peer ASN" in check.detail or "no such neighbour" in check.detail


def check_new_state(
    fabric: Fabric, device: str, scope: set[str], bgp: dict[str, Any], lldp: dict[str, list[dict[str, str]]],
    ifaces: dict[str, dict[str, Any]], require_up: set[str], up_before: set[str], since_commit: float, hold: float,
    aliases: dict[tuple[str, str], str] | None = None, peers: PeerNames | None = None,
) -> list[Check]:
    """What a device must show after a commit before it is confirmed: every implied session configured with the
    right peer address and ASN; Established where its peer is at the intended config (``require_up``) or was
    Established before the commit (``up_before``, peer addresses) — and *proven* Established under the new
    configuration: it came up after the commit (uptime < ``since_commit``), or it has outlived a whole
    ``hold`` time since the commit (keepalives were exchanged under the new configuration); LLDP neighbours
    as cabled (host and port, a SONiC peer's port by its ``aliases`` too; a peer not named yet as ``peers``
    allows); interfaces up with the intended MTU.

    >>> c = Check("bgp", "10.0.0.1 (spine1, AS 65000)", True, "Established")
    >>> _prove(c, {"is_up": True, "uptime": 100}, since_commit=3.0, hold=9.0).detail
    'Established since before the commit (100 s) and not yet for a hold time (9 s) after it'
    >>> _prove(c, {"is_up": True, "uptime": 2}, since_commit=3.0, hold=9.0).ok
    True
    """
    sessions = (bgp.get("global") or {}).get("peers", {})
    want = expected_sessions(fabric, device, scope)
    must = set(require_up) | {want[a][0] for a in up_before if a in want}
    checks = []
    for c in check_bgp(fabric, device, scope, bgp, require_up=must):
        addr = c.subject.split()[0]
        got = sessions.get(addr) or {}
        if c.ok and got.get("is_up") and want.get(addr, ("", 0))[0] in must:
            c = _prove(c, got, since_commit, hold)
        checks.append(c)
    checks += check_lldp(fabric, device, scope, lldp, aliases, peers)
    checks += check_interfaces(fabric, device, scope, ifaces)
    return checks


def _prove(check: Check, peer: dict[str, Any], since_commit: float, hold: float) -> Check:
    uptime = peer.get("uptime")
    fresh = isinstance(uptime, int | float) and 0 <= uptime < since_commit
    if fresh or since_commit >= hold:
        how = "came up after the commit" if fresh else f"held for {hold:g} s under the new configuration"
        return Check(check.kind, check.subject, True, f"Established ({how})")
    return Check(check.kind, check.subject, False,
                 f"Established since before the commit ({uptime} s) and not yet for a hold time ({hold:g} s) after it")


def sonic_aliases(configs: dict[str, str], platforms: dict[str, str]) -> dict[tuple[str, str], str]:
    """(device, port name) → alias, from the intended config_db ``PORT`` table of every SONiC device.

    >>> sonic_aliases({"leaf1": '{"PORT": {"Ethernet0": {"alias": "etp1a"}}}'}, {"leaf1": "sonic"})
    {('leaf1', 'Ethernet0'): 'etp1a'}
    """
    import json

    from fabricgen.deploy.intended import split_sonic

    out: dict[tuple[str, str], str] = {}
    for name, text in configs.items():
        if platforms.get(name) != "sonic":
            continue
        parts = split_sonic(text)
        try:
            ports = (json.loads(parts[0] if parts else text).get("PORT") or {})
        except (ValueError, AttributeError):
            continue
        for port, fields in ports.items():
            if isinstance(fields, dict) and fields.get("alias"):
                out[(name, port)] = str(fields["alias"])
    return out


def check_lldp(
    fabric: Fabric, device: str, scope: set[str], lldp: dict[str, list[dict[str, str]]],
    aliases: dict[tuple[str, str], str] | None = None, peers: PeerNames | None = None,
) -> list[Check]:
    """Every cabled port in scope sees its peer: host name, and port as name, alias (SONiC) or description.

    With ``peers`` (a rollout's knowledge, :class:`PeerNames`), a neighbour on the cabled peer port that does not
    carry the peer's name yet is accepted as the peer when ``peers`` says why (the reason is the check's
    detail)."""
    aliases = aliases or {}
    local_alias = {alias: name for (dev, name), alias in aliases.items() if dev == device}
    by_port: dict[str, list[dict[str, str]]] = {}
    for k, v in lldp.items():  # a SONiC device may key its own ports by alias too
        by_port.setdefault(normalize_ifname(local_alias.get(k, k)), []).extend(v)
    checks = []
    for port in fabric.switches[device].ports:
        if port.peer_device not in scope:
            continue
        subject = f"{port.name} → {port.peer_device}:{port.peer_port}"
        neighbours = by_port.get(normalize_ifname(port.name), [])
        if not neighbours:
            checks.append(Check("lldp", subject, False, "no LLDP neighbour"))
            continue
        want_host = normalize_host(port.peer_device)
        want_ports = {normalize_ifname(port.peer_port)}
        alias = aliases.get((port.peer_device, port.peer_port))
        if alias:
            want_ports.add(normalize_ifname(alias))
        on_port = [n for n in neighbours if normalize_ifname(n.get("port", "")) in want_ports
                   or normalize_ifname(n.get("port_description", "") or "-") in want_ports]
        match = [n for n in on_port if normalize_host(n.get("hostname", "")) == want_host]
        why = next((w for n in on_port if (w := peers.accepts(fabric, port.peer_device, n.get("hostname", "")))),
                   "") if peers is not None and not match else ""
        if match:
            checks.append(Check("lldp", subject, True))
        elif why:
            checks.append(Check("lldp", subject, True, why))
        else:
            seen = ", ".join(f"{n.get('hostname')}:{n.get('port')}" for n in neighbours)
            checks.append(Check("lldp", subject, False, f"sees {seen}"))
    return checks


def check_interfaces(fabric: Fabric, device: str, scope: set[str], ifaces: dict[str, dict[str, Any]]) -> list[Check]:
    by_name = {normalize_ifname(k): v for k, v in ifaces.items()}
    from fabricgen.render.platforms import platform

    # the MTU the device was rendered with: the fabric's, capped at the platform's largest (EOS: 9214)
    mtu = min(fabric.settings.switch_mtu, platform(fabric.switches[device].platform).max_mtu)
    checks = []
    for port in fabric.switches[device].ports:
        if port.peer_device not in scope:
            continue
        got = by_name.get(normalize_ifname(port.name))
        if got is None:
            checks.append(Check("interface", port.name, False, "interface missing"))
            continue
        problems = []
        if not got.get("is_up"):
            problems.append("down" if got.get("is_enabled") else "admin down")
        if int(got.get("mtu", 0)) != mtu:
            problems.append(f"MTU {got.get('mtu')} (intended {mtu})")
        speed = float(got.get("speed", -1.0))
        note = ""
        if speed <= 0:
            note = f"speed not reported (virtual interface); intended {port.speed}G"
        elif int(speed) != port.speed * 1000:
            problems.append(f"speed {speed / 1000:g}G (intended {port.speed}G)")
        checks.append(Check("interface", port.name, not problems, "; ".join(problems) or note or "up"))
    return checks


def out_of_scope(fabric: Fabric, device: str, scope: set[str]) -> int:
    return sum(1 for p in fabric.switches[device].ports if p.peer_device not in scope)


DRAIN_SUBJECT = "best paths"


def _first(items: list[str], shown: int = 3) -> str:
    """The first ``shown`` items and how many more: a drained leaf originates one prefix per host link."""
    more = len(items) - shown
    return ", ".join(items[:shown]) + (f" and {more:,} more" if more > 0 else "")


def drained_switches(fabric: Fabric) -> frozenset[str]:
    """The switches the fabric has drained (``maintenance: drain``, ``fabric.drain`` or ``apply --drain``)."""
    return frozenset(n for n, s in fabric.switches.items() if s.drained)


def read_routes(driver: Any) -> dict[str, list[dict[str, Any]]] | None:
    """Every BGP route of the device in NAPALM's get_route_to shape; None when its driver cannot list them
    (only a driver that says ``full_route_table`` returns the whole table for ``destination=""``)."""
    if not getattr(driver, "full_route_table", False):
        return None
    routes: dict[str, list[dict[str, Any]]] = driver.get_route_to(destination="", protocol="bgp")
    return routes


def check_drain(fabric: Fabric, device: str, routes: dict[str, list[dict[str, Any]]] | None,
                platform: str = "") -> list[Check]:
    """On a switch that is not drained: every prefix with a path through an undrained neighbour has no best path
    (``selected_next_hop``) through a drained one. A prefix the device originates is not looked at; one originated
    by a drained switch, or reachable only through drained switches, is fine and counted as such. ``routes`` None
    (the driver reads no routes): "not available", a failed check — a drain is never taken as proven unread.

    >>> from types import SimpleNamespace as N
    >>> check_drain(N(switches={"leaf1": N(drained=False)}), "leaf1", None, "eos")[0].detail
    'not available: the eos driver reads no BGP routes (get_route_to); the drain is not proven'
    """
    from fabricgen.topology.routing import originated_by

    drained = drained_switches(fabric)
    if fabric.switches[device].drained:
        return [Check("drain", DRAIN_SUBJECT, True, "drained itself: its own best paths are not checked")]
    if routes is None:
        return [Check("drain", DRAIN_SUBJECT, False, f"not available: the {platform or 'device'} driver reads no "
                      "BGP routes (get_route_to); the drain is not proven")]
    via = {addr: peer for addr, (peer, _asn) in expected_sessions(fabric, device, set(fabric.switches)).items()}
    origin = originated_by(fabric)
    avoided, from_drained, only_drained, failures = 0, [], [], []
    for prefix, paths in sorted(routes.items()):
        if origin.get(prefix) == device:
            continue
        learned = [(via.get(p.get("next_hop", ""), p.get("next_hop", "")), p) for p in paths if p.get("next_hop")]
        if origin.get(prefix) in drained:
            from_drained.append(f"{prefix} of {origin[prefix]}")
            continue
        if not any(peer not in drained for peer, _ in learned):
            if learned:
                only_drained.append(prefix)
            continue
        bad = sorted({peer for peer, p in learned if p.get("selected_next_hop") and peer in drained})
        if bad:
            alive = sorted({peer for peer, _ in learned if peer not in drained})
            failures.append(Check("drain", prefix, False, f"best path via {', '.join(bad)} (drained) although "
                                  f"{', '.join(alive)} (not drained) has a path"))
        else:
            avoided += 1
    names = ", ".join(sorted(drained)) or "none"
    summary = f"{avoided} prefix(es) avoid drained {names}"
    if from_drained:
        summary += f"; {len(from_drained)} originated by a drained switch ({_first(from_drained)})"
    if only_drained:
        summary += f"; {len(only_drained)} reachable only via drained switches ({_first(only_drained)})"
    return [Check("drain", DRAIN_SUBJECT, not failures, summary), *failures]


def verify_device(
    fabric: Fabric, device: str, scope: set[str], driver: Any, aliases: dict[tuple[str, str], str] | None = None
) -> DeviceVerdict:
    """BGP, LLDP and interfaces against the cabling plan; and the drain (:func:`check_drain`) when some switch
    is drained — the routes are read only then, so verifying a fabric with no drain costs what it did."""
    verdict = DeviceVerdict(device)
    verdict.checks += check_bgp(fabric, device, scope, driver.get_bgp_neighbors())
    verdict.checks += check_lldp(fabric, device, scope, driver.get_lldp_neighbors(), aliases)
    verdict.checks += check_interfaces(fabric, device, scope, driver.get_interfaces())
    if drained_switches(fabric):
        verdict.checks += check_drain(fabric, device, read_routes(driver), getattr(driver, "platform", ""))
    skipped = out_of_scope(fabric, device, scope)
    if skipped:
        verdict.notes.append(f"{skipped} port(s) face devices outside the targets (not checked)")
    return verdict
