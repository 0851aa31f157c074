"""The resolved fabric: every device, port, link, address and ASN. Immutable; read by every later stage.

Objects are frozen ``slots`` dataclasses (a 100k-GPU fabric holds ~10⁶ of them). Cross references are
by name (``Port.peer_device``) and looked up through :class:`Fabric`'s indexes, so the model has no
cycles and serialises as plain data.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING

from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Base, BaseSection, Catalog, FabricSettings, NicQosOverride, QosPolicy, Role
from fabricgen.topology.frozen import fast_init

if TYPE_CHECKING:
    from fabricgen.inventory.load import SourceMap


class LinkKind(StrEnum):
    HOST = "host"  # server NIC – leaf
    LEAF_SPINE = "leaf-spine"
    SPINE_CORE = "spine-core"


class PortKind(StrEnum):
    HOST = "host"  # faces a server NIC
    DOWN = "down"  # faces a lower switch tier
    UP = "up"  # faces a higher switch tier


@fast_init
@dataclass(frozen=True, slots=True)
class Port:
    device: str
    name: str
    cage: int
    sub: int
    breakout: int
    speed: int  # Gb/s
    kind: PortKind
    peer_device: str
    peer_port: str
    link: int  # index into Fabric.links
    address: str | None  # "10.1.2.3/31"; None when no /31 could be given (port beyond the model)

    @property
    def peer(self) -> str:
        """``device:port`` at the other end of the cable."""
        return f"{self.peer_device}:{self.peer_port}"


@fast_init
@dataclass(frozen=True, slots=True)
class Switch:
    name: str
    role: Role
    model: str
    platform: str
    id: int
    asn: int
    loopback: str
    unit: int | None
    rails: tuple[int, ...]  # rails this leaf serves; empty: not declared
    pod: int | None
    ports: tuple[Port, ...]
    src: SourcePos | None = None
    release: str = ""  # NOS release rendered for ("5.14"); "" on platforms without release-specific syntax
    hwsku: str = ""  # SONiC HwSKU (DEVICE_METADATA hwsku); "" off SONiC or on a model without platform facts
    adaptive_routing: bool = False  # adaptive routing on (switch, its tier or fabric.adaptive_routing says so)
    serial: str = ""  # chassis serial the inventory records ("" not recorded); apply checks it before a load
    chassis_mac: str = ""  # chassis MAC the inventory records (aa:bb:cc:dd:ee:ff; "" not recorded); apply checks it
    drained: bool = False  # in maintenance: traffic moved off it, sessions kept (maintenance: drain / fabric.drain)

    def uplinks(self) -> Iterator[Port]:
        return (p for p in self.ports if p.kind is PortKind.UP)

    def downlinks(self) -> Iterator[Port]:
        """Ports facing servers or a lower tier."""
        return (p for p in self.ports if p.kind is not PortKind.UP)


@fast_init
@dataclass(frozen=True, slots=True)
class HostNic:
    node: str
    ifname: str
    rdma_dev: str
    rail: int  # position in the server's backend NIC list
    gpu: int
    numa: int
    pcie: str
    model: str
    speed: int
    peer_device: str | None
    peer_port: str | None
    link: int | None
    address: str | None

    @property
    def peer(self) -> str:
        """``device:port`` of the leaf port the NIC is cabled to; empty while it is not cabled."""
        return f"{self.peer_device}:{self.peer_port}" if self.peer_device else ""


@fast_init
@dataclass(frozen=True, slots=True)
class Node:
    name: str
    model: str
    unit: int | None
    gpus: int
    nics: tuple[HostNic, ...]
    src: SourcePos | None = None
    nic_qos: NicQosOverride | None = None  # per-node NIC QoS override from the inventory (explicit nodes only)


@fast_init
@dataclass(frozen=True, slots=True)
class End:
    device: str
    port: str


@fast_init
@dataclass(frozen=True, slots=True)
class Link:
    """A cable. ``a`` is the lower end (NIC, leaf or spine), ``b`` the upper; ``b`` is None while dangling."""

    index: int
    kind: LinkKind
    a: End
    b: End | None
    speed: int
    length_m: float
    length_defaulted: bool
    cable: str
    subnet: str | None  # "10.1.2.2/31"; the upper end holds the even address
    src: SourcePos | None = None


@fast_init
@dataclass(frozen=True, slots=True)
class DesignTargets:
    leaf_ratio: float
    spine_ratio: float
    one_spine_down: float | None
    one_uplink_down: float | None


@fast_init
@dataclass(frozen=True, slots=True)
class IntentSummary:
    """What an intent asked for and what fabricgen chose (shown in the capacity summary)."""

    server: str
    units: int
    planned_units: int
    nodes_per_unit: int
    rails: int
    spines_per_pod: int
    pods: int
    cores: int
    three_tier: bool


@dataclass(frozen=True)
class Fabric:
    name: str
    settings: FabricSettings
    catalog: Catalog
    switches: Mapping[str, Switch]
    nodes: Mapping[str, Node]
    links: tuple[Link, ...]
    targets: DesignTargets
    intent: IntentSummary | None = None
    qos_policy: QosPolicy = field(default_factory=QosPolicy)  # the inventory's `qos:` section, as written
    base: BaseSection = field(default_factory=BaseSection)  # the inventory's `base:` section, as written
    base_overrides: Mapping[str, Base] = field(default_factory=dict)  # switch → its own `base:`, as written
    source: SourceMap | None = field(default=None, repr=False, compare=False)  # where the inventory said what

    def __post_init__(self) -> None:
        object.__setattr__(self, "switches", MappingProxyType(dict(self.switches)))
        object.__setattr__(self, "nodes", MappingProxyType(dict(self.nodes)))

    @cached_property
    def _ports(self) -> Mapping[tuple[str, str], Port]:
        """Every switch port by (device, port); built on the first lookup, not by every command that
        resolves a fabric (400k ports at 100k GPUs)."""
        return MappingProxyType({(p.device, p.name): p for s in self.switches.values() for p in s.ports})

    def port(self, device: str, name: str) -> Port | None:
        return self._ports.get((device, name))

    def pos(self, *path: str | int) -> SourcePos | None:
        """Where the inventory wrote ``path`` (``"fabric", "asn"``), or its closest written ancestor."""
        return self.source.find(path) if self.source is not None else None

    def by_role(self, role: Role) -> list[Switch]:
        return [s for s in self.switches.values() if s.role is role]

    @property
    def gpus(self) -> int:
        return sum(n.gpus for n in self.nodes.values())

    @property
    def nics(self) -> int:
        return sum(len(n.nics) for n in self.nodes.values())
