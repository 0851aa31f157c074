"""What a lab consists of, computed from a Fabric without touching the machine (pure, testable anywhere)."""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network

from fabricgen.topology.model import Fabric

DEFAULT_MGMT_SUBNET = IPv4Network("198.18.0.0/24")
"""Benchmarking range (RFC 2544): only ever configured inside the lab's own namespaces."""

IFNAME_MAX = 15


class LabError(Exception):
    """The lab cannot be built, reached or torn down; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class LabSwitch:
    name: str
    netns: str
    mgmt_ip: str  # "198.18.0.11"
    mgmt_if: str  # the bridge-side end of its management veth, in the management namespace


@dataclass(frozen=True, slots=True)
class Cable:
    a_device: str
    a_port: str
    b_device: str
    b_port: str


@dataclass(frozen=True, slots=True)
class LabPlan:
    fabric: str
    prefix: str  # namespace name prefix, e.g. "fg-lab-frr"
    subnet: IPv4Network
    client_ip: str
    mgmt_netns: str
    client_netns: str
    switches: tuple[LabSwitch, ...]
    cables: tuple[Cable, ...]

    def switch(self, name: str) -> LabSwitch:
        for s in self.switches:
            if s.name == name:
                return s
        raise KeyError(name)


def select(fabric: Fabric, slice_: str | None) -> list[str]:
    """Switch names in the lab: all, or those matching a comma-separated list of names/globs.

    >>> # select(fabric, "spine*,leaf1") -> ["spine1", "spine2", "leaf1"] (fabric order)
    """
    names = list(fabric.switches)
    if not slice_:
        return names
    patterns = [p.strip() for p in slice_.split(",") if p.strip()]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(n, p) for n in names)]
    if unmatched:
        raise LabError(f"--slice: no switch matches {', '.join(unmatched)}")
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def ns_prefix(fabric_name: str) -> str:
    """A short, stable namespace prefix for a fabric (names stay readable, collisions impossible).

    >>> ns_prefix("lab-frr")
    'fg-lab-frr'
    """
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in fabric_name)
    if len(safe) > 24:
        safe = safe[:16] + "-" + hashlib.sha256(fabric_name.encode()).hexdigest()[:7]
    return f"fg-{safe}"


def build_plan(fabric: Fabric, slice_: str | None = None, subnet: IPv4Network = DEFAULT_MGMT_SUBNET) -> LabPlan:
    names = select(fabric, slice_)
    hosts = list(subnet.hosts())
    if len(names) + 10 > len(hosts):
        raise LabError(f"management subnet {subnet} is too small for {len(names)} switches")
    prefix = ns_prefix(fabric.name)
    switches = []
    for i, name in enumerate(names):
        switches.append(LabSwitch(name, f"{prefix}-{name}", str(hosts[9 + i]), f"m{i}"))
    chosen = set(names)
    cables: list[Cable] = []
    problems: list[str] = []
    for link in fabric.links:
        if link.b is None or link.a.device not in chosen or link.b.device not in chosen:
            continue
        for end in (link.a, link.b):
            if len(end.port) > IFNAME_MAX:
                problems.append(f"{end.device}:{end.port} is longer than {IFNAME_MAX} characters (Linux ifname)")
        cables.append(Cable(link.a.device, link.a.port, link.b.device, link.b.port))
    if problems:
        raise LabError("; ".join(problems))
    return LabPlan(
        fabric=fabric.name,
        prefix=prefix,
        subnet=subnet,
        client_ip=str(hosts[0]),
        mgmt_netns=f"{prefix}-mgmt",
        client_netns=f"{prefix}-client",
        switches=tuple(switches),
        cables=tuple(cables),
    )


def covered_by_route(subnet: IPv4Network, routes: list[dict[str, object]]) -> str | None:
    """The first non-default route of the machine that overlaps ``subnet`` (from ``ip -j route``), if any.

    >>> covered_by_route(IPv4Network("192.0.2.0/24"), [{"dst": "default"}, {"dst": "192.0.2.0/24"}])
    '192.0.2.0/24'
    >>> covered_by_route(IPv4Network("198.18.0.0/24"), [{"dst": "default"}, {"dst": "192.0.2.0/24"}]) is None
    True
    """
    for route in routes:
        dst = str(route.get("dst", ""))
        if dst in ("default", "") or ":" in dst:
            continue
        net = IPv4Network(dst if "/" in dst else f"{dst}/32", strict=False)
        if net.overlaps(subnet):
            return dst
    return None


def in_lab_subnet(host: str, subnet: IPv4Network = DEFAULT_MGMT_SUBNET) -> bool:
    try:
        return IPv4Address(host) in subnet
    except ValueError:
        return False
