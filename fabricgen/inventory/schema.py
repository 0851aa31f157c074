"""Pydantic models of the inventory, exactly as the user writes it (``extra="forbid"`` everywhere).

Nothing here is resolved: references (a model name, a device, a port) are plain strings that
:mod:`fabricgen.topology.resolve` checks against the catalog and the other objects.
"""

from __future__ import annotations

import ipaddress
import itertools
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from fabricgen.inventory.units import SPEED_PATTERN, parse_breakout, parse_speed

Speed = Annotated[
    int,
    BeforeValidator(parse_speed),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": 100_000},
                {"type": "string", "pattern": SPEED_PATTERN},
            ],
            "description": "a speed: 400G, 800G, 1.6T, or a number of Gb/s",
        }
    ),
]
"""A link speed in Gb/s, written as ``400G``, ``800G``, ``1.6T``."""

Name = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")]
"""A device, model or profile name: letters, digits, ``.``, ``_``, ``-``."""

ASN = Annotated[int, Field(ge=1, le=4_294_967_294)]


def _network(value: object) -> ipaddress.IPv4Network:
    if not isinstance(value, str):
        raise ValueError("an IPv4 prefix like 10.0.0.0/16 is required")
    try:
        return ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an IPv4 prefix with host bits zero ({exc})") from None


def _address(value: object) -> ipaddress.IPv4Address:
    if not isinstance(value, str):
        raise ValueError("an IPv4 address is required")
    try:
        return ipaddress.IPv4Address(value.split("/")[0] if value.endswith("/32") else value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address") from None


Prefix = Annotated[ipaddress.IPv4Network, BeforeValidator(_network)]
Address = Annotated[ipaddress.IPv4Address, BeforeValidator(_address)]


def _breakouts(values: list[str]) -> list[str]:
    for v in values:
        parse_breakout(v)
    return values


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


# --------------------------------------------------------------------------- catalog


class AsicBuffer(Strict):
    """Buffer facts of a switch ASIC, as published by its vendor (used by the lossless QoS math)."""

    total_bytes: int = Field(gt=0, description="shared packet buffer of the ASIC")
    cell_bytes: int = Field(gt=0, description="buffer cell size")
    pipeline_latency_bytes: int = Field(ge=0, description="xon: bytes the pipeline keeps sending")
    mac_phy_delay_bytes: int = Field(ge=0, default=819)
    cell_occupancy: float = Field(gt=0, le=8, default=3.0, description="worst-case cells used per byte")


CableLength = Annotated[str, Field(pattern=r"^[0-9]{1,5}(\.[0-9]{1,3})?m$")]
"""A cable length in metres, written ``5m``, ``2.5m`` (a mapping key, so a string)."""


class HeadroomTableSpec(Strict):
    """A vendor's published static PFC xoff table for a switch model: fabricgen never computes less."""

    title: str = Field(min_length=1, max_length=80, description="what the vendor calls the table")
    source: str = Field(min_length=1, description="where the vendor publishes it")
    xoff_bytes: dict[Speed, dict[CableLength, Annotated[int, Field(gt=0)]]] = Field(
        min_length=1, description="xoff bytes by port speed, then by cable length such as 5m, 40m, 2.5m"
    )

    def points(self, speed: int) -> list[tuple[float, int]]:
        """``(metres, xoff bytes)`` of one speed's row, by length."""
        return sorted((float(m.removesuffix("m")), x) for m, x in self.xoff_bytes[speed].items())

    @model_validator(mode="after")
    def _monotone(self) -> HeadroomTableSpec:
        for speed, row in self.xoff_bytes.items():
            if not row:
                raise ValueError(f"{speed}G: at least one cable length is required")
            points = self.points(speed)
            if points[0][0] <= 0:
                raise ValueError(f"{speed}G: cable lengths must be above 0 m")
            values = [x for _, x in points]
            if any(b < a for a, b in itertools.pairwise(values)):
                raise ValueError(f"{speed}G: xoff must not decrease with cable length")
        return self


class SwitchModel(Strict):
    vendor: str
    asic: str
    ports: int = Field(gt=0, le=1024, description="front-panel cages")
    native_speed: Speed
    lanes: int = Field(gt=0, le=16, description="SerDes lanes per cage")
    breakouts: Annotated[list[str], AfterValidator(_breakouts)] = Field(
        description="supported cage modes such as 1x800G, 2x400G"
    )
    platform: str = Field(description="default platform (NOS) of this model")
    buffer: AsicBuffer
    headroom_table: HeadroomTableSpec | None = Field(
        default=None, description="the vendor's published PFC xoff table, a floor for the computed headroom"
    )

    @model_validator(mode="after")
    def _consistent(self) -> SwitchModel:
        for mode in self.breakouts:
            count, speed = parse_breakout(mode)
            if self.lanes % count:
                raise ValueError(f"breakout {mode} does not divide the cage's {self.lanes} lanes")
            if count * speed > self.native_speed:
                raise ValueError(f"breakout {mode} exceeds the cage's native {self.native_speed}G")
        return self


class NicModel(Strict):
    vendor: str
    speed: Speed
    ports: int = Field(ge=1, le=4, default=1)
    rdma_driver: Literal["mlx5", "bnxt_re", "irdma", "ionic"]


class ServerNic(Strict):
    """One backend (GPU fabric) NIC of a server model and the GPU it serves."""

    ifname: Name
    rdma_dev: Name
    gpu: int = Field(ge=0)
    numa: int = Field(ge=0)
    pcie: str = Field(pattern=r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


class ServerModel(Strict):
    vendor: str
    gpu: str
    gpus: int = Field(ge=1, le=144)
    nvlink_domain: int = Field(ge=1, description="GPUs that share one NVLink/NVSwitch domain")
    nvlink_gbytes_per_s: float = Field(gt=0, description="per-GPU NVLink bandwidth, one direction")
    backend_nic: str = Field(description="NIC model of the backend NICs")
    backend: list[ServerNic] = Field(min_length=1, description="backend NICs in rail order")

    @model_validator(mode="after")
    def _consistent(self) -> ServerModel:
        seen_if: set[str] = set()
        for nic in self.backend:
            if nic.gpu >= self.gpus:
                raise ValueError(f"NIC {nic.ifname} serves GPU {nic.gpu}, but the server has {self.gpus}")
            if nic.ifname in seen_if:
                raise ValueError(f"NIC {nic.ifname} is listed twice")
            seen_if.add(nic.ifname)
        return self


class Catalog(Strict):
    switches: dict[Name, SwitchModel] = Field(default_factory=dict)
    nics: dict[Name, NicModel] = Field(default_factory=dict)
    servers: dict[Name, ServerModel] = Field(default_factory=dict)


# --------------------------------------------------------------------------- fabric settings


class Role(StrEnum):
    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"


class LoopbackPools(Strict):
    leaf: Prefix = ipaddress.IPv4Network("10.0.0.0/17")
    spine: Prefix = ipaddress.IPv4Network("10.0.128.0/18")
    core: Prefix = ipaddress.IPv4Network("10.0.192.0/18")


class Addressing(Strict):
    loopbacks: LoopbackPools = LoopbackPools()
    host_p2p: Prefix = Field(default=ipaddress.IPv4Network("10.64.0.0/10"), description="leaf–NIC /31s")
    leaf_spine_p2p: Prefix = ipaddress.IPv4Network("10.128.0.0/10")
    spine_core_p2p: Prefix = ipaddress.IPv4Network("10.192.0.0/10")


class AsnScheme(Strict):
    """eBGP ASNs: one per leaf (or one shared), one per spine group (pod), one for the core tier."""

    leaf_base: ASN = 4_200_100_000
    leaf: Literal["unique", "shared"] = "unique"
    spine_base: ASN = 4_200_000_100
    core: ASN = 4_200_000_000


class Oversubscription(Strict):
    """Largest acceptable downlink:uplink bandwidth ratio per tier (1.0 = non-blocking)."""

    leaf: float = Field(default=1.0, gt=0, le=64)
    spine: float = Field(default=1.0, gt=0, le=64)


class FailureTargets(Strict):
    """Largest acceptable ratio with one spine (or one uplink) down; unset: report only."""

    one_spine_down: float | None = Field(default=None, gt=0)
    one_uplink_down: float | None = Field(default=None, gt=0)


class CableDefaults(Strict):
    """Cable length in metres assumed by link role when a link does not say (shown in the output)."""

    host: float = Field(default=5.0, gt=0, le=10_000)
    leaf_spine: float = Field(default=40.0, gt=0, le=10_000)
    spine_core: float = Field(default=300.0, gt=0, le=10_000)


class FabricSettings(Strict):
    name: Name
    switch_mtu: int = Field(default=9216, ge=1500, le=9216)
    host_mtu: int = Field(default=9000, ge=1280, le=9216)
    asn: AsnScheme = AsnScheme()
    addressing: Addressing = Addressing()
    oversubscription: Oversubscription = Oversubscription()
    failure: FailureTargets = FailureTargets()
    cable_defaults: CableDefaults = CableDefaults()


# --------------------------------------------------------------------------- lossless QoS policy

Dscp = Annotated[int, Field(ge=0, le=63)]
Priority = Annotated[int, Field(ge=0, le=7)]
"""An 802.1p priority, which fabricgen keeps equal to the traffic class and the egress queue."""


class LaneSpec(Strict):
    """One traffic class of the QoS policy ("lane"): which DSCPs, which priority, how it is treated."""

    name: Name
    purpose: Literal["training", "cnp", "storage", "default", "other"] = "other"
    dscp: list[Dscp] = Field(default_factory=list, description="DSCPs classified here (default lane: the rest)")
    tc: Priority | None = Field(default=None, description="priority; unset on the cnp lane: per-platform default")
    lossless: bool = False
    scheduling: Literal["strict", "ets"] = "ets"
    weight: int | None = Field(default=None, ge=1, le=100, description="ETS share in percent (ets lanes)")
    ecn: bool = False


class EcnSpec(Strict):
    """WRED/ECN marking thresholds of a queue (bytes). Sanity (max ≥ min, 1–100 %) is a finding, not an error."""

    min_bytes: int = Field(ge=0)
    max_bytes: int = Field(ge=0)
    probability_pct: int = Field(ge=0, le=100)


class PfcThresholdSpec(Strict):
    """When a lossless priority group sends XOFF: a share of free buffer (dynamic) or a fixed byte count."""

    mode: Literal["dynamic", "static"] = "dynamic"
    dynamic_th: int = Field(default=0, ge=-8, le=8, description="log2 of alpha (SONiC dynamic_th)")
    static_bytes: int | None = Field(default=None, gt=0, description="static_th, required when static")

    @model_validator(mode="after")
    def _static_needs_bytes(self) -> PfcThresholdSpec:
        if self.mode == "static" and self.static_bytes is None:
            raise ValueError("mode static needs static_bytes (the XOFF threshold in bytes)")
        return self


class WatchdogSpec(Strict):
    detection_ms: int = Field(default=200, ge=10, le=60_000)
    restoration_ms: int = Field(default=200, ge=10, le=60_000)
    action: Literal["drop", "forward"] = "drop"


class QosOverride(Strict):
    """Values that a platform or a port role may override (unset: inherit)."""

    trust: Literal["dscp", "pcp"] | None = None
    cnp_tc: Priority | None = None
    pfc_priorities: list[Priority] | None = Field(default=None, description="unset: the lossless lanes' priorities")
    ecn: EcnSpec | None = None
    ecn_by_speed: dict[Speed, EcnSpec] = Field(default_factory=dict)
    ecn_marking: bool | None = Field(default=None, description="false: WRED drops instead of marking")
    pfc_threshold: PfcThresholdSpec | None = None
    pfc_watchdog: WatchdogSpec | None = None
    watchdog_enabled: bool | None = None


class NcclSpec(Strict):
    gid_index: int | Literal["auto"] = 3
    socket_ifname: str = Field(default="^lo,docker", min_length=1, max_length=128)


class QosPolicy(QosOverride):
    """The fabric's QoS policy; every field is optional and falls back to fabricgen's built-in policy."""

    lanes: list[LaneSpec] | None = Field(default=None, description="unset: the built-in lanes")
    shared_lossless: bool = Field(default=False, description="storage may share the training lossless priority")
    nccl: NcclSpec = NcclSpec()
    platforms: dict[str, QosOverride] = Field(default_factory=dict)
    roles: dict[Literal["host", "fabric"], QosOverride] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _lanes_consistent(self) -> QosPolicy:
        from fabricgen.inventory.catalog import PLATFORMS

        for name in self.platforms:
            if name not in PLATFORMS:
                raise ValueError(f"platforms: unknown platform {name!r}; one of {', '.join(PLATFORMS)}")
        if self.lanes is None:
            return self
        names: set[str] = set()
        owner: dict[int, str] = {}
        for lane in self.lanes:
            if lane.name in names:
                raise ValueError(f"lane {lane.name!r} is defined twice")
            names.add(lane.name)
            for d in lane.dscp:
                if d in owner:
                    raise ValueError(f"DSCP {d} is in lanes {owner[d]!r} and {lane.name!r}")
                owner[d] = lane.name
            if lane.tc is None and lane.purpose != "cnp":
                raise ValueError(f"lane {lane.name!r} needs tc (only the cnp lane may leave it to the platform)")
        for purpose in ("training", "default"):
            if sum(1 for lane in self.lanes if lane.purpose == purpose) != 1:
                raise ValueError(f"exactly one lane with purpose {purpose!r} is required")
        return self


class NicQosOverride(Strict):
    """Per-node NIC settings that replace the fabric policy's (a disagreement is reported as a finding)."""

    trust: Literal["dscp", "pcp"] | None = None
    pfc: list[Priority] | None = Field(default=None, description="PFC-enabled priorities")
    tos: int | None = Field(default=None, ge=0, le=255, description="RoCE ToS byte: DSCP << 2 | ECN")
    ecn: bool | None = Field(default=None, description="ECN notification and reaction on the RoCE priority")
    mtu: int | None = Field(default=None, ge=576, le=9216)
    nccl_tc: int | None = Field(default=None, ge=0, le=255, description="NCCL_IB_TC when it differs from tos")


# --------------------------------------------------------------------------- explicit objects


class Switch(Strict):
    name: Name
    role: Role
    model: Name
    platform: str | None = None
    id: int | None = Field(default=None, ge=1, description="stable identity used for address/ASN allocation")
    asn: ASN | None = None
    loopback: Address | None = None
    unit: int | None = Field(default=None, ge=1, description="scalable unit (leaves)")
    rails: list[Annotated[int, Field(ge=0, le=63)]] = Field(default_factory=list, description="rails served (leaves)")
    pod: int | None = Field(default=None, ge=0, description="pod (spines)")


class Node(Strict):
    name: Name
    model: Name
    unit: int | None = Field(default=None, ge=1)
    nic_qos: NicQosOverride | None = None


Endpoint = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*:[A-Za-z0-9][A-Za-z0-9/._:-]*$")]
"""``device:port`` — a switch port (``leaf1:swp1``) or a server NIC (``gpu01:enp24s0np0``)."""


class Link(Strict):
    a: Endpoint
    b: Endpoint | None = Field(default=None, description="unset: a cable pulled to `a` but not landed yet")
    speed: Speed | None = None
    length_m: float | None = Field(default=None, gt=0, le=10_000)
    cable: str | None = Field(default=None, max_length=64)


# --------------------------------------------------------------------------- intent


class TierIntent(Strict):
    model: Name
    platform: str | None = None
    count: int | None = Field(default=None, ge=1, description="fixed count; unset: fabricgen chooses")


class LeafIntent(Strict):
    model: Name
    platform: str | None = None
    uplink_speed: Speed | None = Field(default=None, description="default: the model's native speed")


class RailOptimized(Strict):
    """A rail-optimized design in scalable units (SUs): NIC *i* of every node of a unit on leaf *i*."""

    server: Name
    nodes_per_unit: int = Field(ge=1, le=1024)
    units: int = Field(ge=1, le=4096)
    planned_units: int | None = Field(default=None, ge=1, le=4096, description="size the spines for growth")
    nodes: int | None = Field(default=None, ge=1, description="nodes actually present (default: all)")
    leaf: LeafIntent
    spine: TierIntent
    core: TierIntent | None = None
    spine_uplink_speed: Speed | None = None

    @model_validator(mode="after")
    def _consistent(self) -> RailOptimized:
        if self.nodes is not None and self.nodes > self.units * self.nodes_per_unit:
            raise ValueError(f"nodes={self.nodes} exceeds units × nodes_per_unit = {self.units * self.nodes_per_unit}")
        if self.planned_units is not None and self.planned_units < self.units:
            raise ValueError(f"planned_units={self.planned_units} is below units={self.units}")
        return self


class Intent(Strict):
    rail_optimized: RailOptimized


# --------------------------------------------------------------------------- the whole inventory


class Inventory(Strict):
    fabric: FabricSettings
    catalog: Catalog = Catalog()
    intent: Intent | None = None
    switches: list[Switch] = Field(default_factory=list)
    nodes: list[Node] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    qos: QosPolicy = Field(default_factory=QosPolicy)
