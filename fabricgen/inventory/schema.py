"""Pydantic models of the inventory, exactly as the user writes it (``extra="forbid"`` everywhere).

Nothing here is resolved: references (a model name, a device, a port) are plain strings that
:mod:`fabricgen.topology.resolve` checks against the catalog and the other objects.

Trust boundary: inventory text is untrusted, and every string that can reach a rendered switch
configuration or host script is one of the typed identifiers below, checked here at load time:

* :data:`Name` — device, model, profile, lane, platform and interface names: ASCII letters and digits,
  then also ``.``, ``_``, ``-``; 1–64 characters.
* :data:`Label` — product names (vendor, ASIC, GPU, cable type): a :data:`Name` that may also hold
  space, ``:``, ``/``, ``+``, ``(`` and ``)``; 1–64 characters.
* :data:`Endpoint` — ``device:port``: a :data:`Name`, ``:``, then letters, digits and ``/._:-``.
* :data:`IfnameList` — ``NCCL_SOCKET_IFNAME``: optional ``^`` then ``=``, then comma-separated interface
  names of ``[A-Za-z0-9._-]`` (1–15 characters each, the kernel's limit).

None of them admits quotes, backslashes, ``;``, ``#``, ``!``, ``{``, ``}``, ``$``, control characters,
newlines or non-ASCII text. The models are strict (``strict=True``): a boolean is not a number, a number
is not a string; a float field still takes a whole number (``3`` for ``3.0``).
"""

from __future__ import annotations

import ipaddress
import itertools
import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from fabricgen.inventory.raw import RawPlatform
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

_NAME_CHARS = r"A-Za-z0-9._\-"


def _identifier(pattern: str, allowed: str, max_length: int, chars: str, name_bad: bool = True) -> AfterValidator:
    """A check that a string matches ``pattern`` (``allowed`` describes it for the message), made of the
    character class ``chars``; the message names the first character outside it, unless ``name_bad`` is false
    (a field that may hold a secret written in clear by mistake: no part of it is echoed)."""
    full = re.compile(pattern, re.ASCII)
    char = re.compile(f"[{chars}]", re.ASCII)

    def check(value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        if len(value) > max_length:
            raise ValueError(f"at most {max_length} characters, got {len(value)}")
        if full.fullmatch(value) is None:
            bad = next((c for c in value if not char.fullmatch(c)), None) if name_bad else None
            found = f"; {bad!r} is not allowed" if bad is not None else ""
            raise ValueError(f"{allowed}{found}")
        return value

    return AfterValidator(check)


Name = Annotated[
    str,
    _identifier(
        rf"[A-Za-z0-9][{_NAME_CHARS}]*",
        "a name: ASCII letters, digits, '.', '_', '-' (first a letter or digit)",
        64,
        _NAME_CHARS,
    ),
]
"""A device, model, profile, lane, platform or interface name: ASCII letters and digits, ``.``, ``_``, ``-``
(first a letter or digit), at most 64 characters."""

PLATFORMS = ("sonic", "eos", "nvue", "nxos", "junos", "frr")
"""Network operating systems fabricgen knows (each has a template folder and a port-naming scheme)."""

EMULATION = "frr"
"""fabricgen's lab emulation: a Linux network namespace running FRR stands in for a switch of any model (the
port layout is the model's, the NOS is FRR), so every model pairs with it without listing it in ``nos:``."""


def _known_platform(value: str) -> str:
    if value not in PLATFORMS:
        raise ValueError(f"unknown platform {value!r}; one of {', '.join(PLATFORMS)}")
    return value


Platform = Annotated[Name, AfterValidator(_known_platform)]
"""A platform (NOS) name, one of :data:`PLATFORMS` exactly as written there (``sonic``, not ``SONiC``): checked
at load wherever an inventory names one (a switch, an intent tier, a catalog model), so nothing later meets an
unknown platform."""

Label = Annotated[
    str,
    _identifier(
        rf"[A-Za-z0-9][{_NAME_CHARS} :/+()]*",
        "a product name: ASCII letters, digits, space and '._-:/+()' (first a letter or digit)",
        64,
        rf"{_NAME_CHARS} :/+()",
    ),
]
"""A product name as vendors write it (``NVIDIA``, ``Tomahawk-5``, ``H100-SXM5-80GB``, ``AOC (400G)``): the
characters of :data:`Name` plus space, ``:``, ``/``, ``+``, ``(``, ``)``; at most 64 characters. Printed
unquoted in switch CLI comments and inside double quotes in Junos, so nothing that ends a line, a quoted
string or a command is allowed."""

IfnameList = Annotated[
    str,
    _identifier(
        rf"\^?=?[{_NAME_CHARS}]{{1,15}}(?:,[{_NAME_CHARS}]{{1,15}})*",
        "interface-name prefixes of ASCII letters, digits, '._-' (at most 15 each), separated by commas, "
        "optionally after '^' (exclude) and '=' (exact match), e.g. ^lo,docker",
        128,
        rf"{_NAME_CHARS},^=",
    ),
]
"""An ``NCCL_SOCKET_IFNAME`` value: interface-name prefixes separated by commas, optionally preceded by ``^``
(exclude these) and then ``=`` (exact names), e.g. ``^lo,docker`` or ``=eth0``."""

ASN = Annotated[int, Field(ge=1, le=4_294_967_294)]


def mac_address(value: object) -> str:
    """A MAC address in any of the usual forms → lower-case, colon-separated (netutils' forms: ``aa:bb:…``,
    ``aa-bb-…``, ``aabb.ccdd.eeff``, ``aabb-ccdd-eeff``, ``aabbccddeeff``).

    >>> mac_address("00-1C-73-A0-FC-18"), mac_address("001c.73a0.fc18"), mac_address("00:1c:73:a0:fc:18")
    ('00:1c:73:a0:fc:18', '00:1c:73:a0:fc:18', '00:1c:73:a0:fc:18')
    """
    from netutils.mac import is_valid_mac, mac_to_format

    if not isinstance(value, str):
        raise ValueError("a MAC address such as aa:bb:cc:dd:ee:ff is required (quote it in YAML)")
    text = value.strip()
    if not text.isascii() or not is_valid_mac(text):
        raise ValueError("not a MAC address: write it as aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or aabb.ccdd.eeff")
    return str(mac_to_format(text, "MAC_COLON_TWO")).lower()


MacAddress = Annotated[str, BeforeValidator(mac_address)]
"""A MAC address, normalised to lower-case colon form (``aa:bb:cc:dd:ee:ff``) at load."""


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
    """Base of every inventory model: unknown keys refused, no type coercion (``true`` is not ``1``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True, strict=True)


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
    vendor: Label
    asic: Label
    ports: int = Field(gt=0, le=1024, description="front-panel cages")
    native_speed: Speed
    lanes: int = Field(gt=0, le=16, description="SerDes lanes per cage")
    breakouts: Annotated[list[str], AfterValidator(_breakouts)] = Field(
        description="supported cage modes such as 1x800G, 2x400G"
    )
    platform: Platform = Field(description="default platform (NOS) of this model")
    nos: list[Platform] | None = Field(
        default=None,
        min_length=1,
        description="the NOSes the vendor ships for this model, the default platform among them; unset: only "
        "the default platform (frr, the lab emulation, pairs with every model)",
    )
    buffer: AsicBuffer
    eos_tx_queue: Literal["tx-queue", "uc-tx-queue"] = Field(
        default="tx-queue",
        description="EOS egress queue keyword of the model's family: uc-tx-queue on Trident/Tomahawk "
        "(7050X/7060X/7260X/7300X), tx-queue on Jericho (7280R/7500R/7800R)",
    )
    headroom_table: HeadroomTableSpec | None = Field(
        default=None, description="the vendor's published PFC xoff table, a floor for the computed headroom"
    )

    def runs(self) -> tuple[str, ...]:
        """The NOSes this model runs, as listed (``nos:``, else its default platform), without the emulation."""
        return tuple(self.nos) if self.nos is not None else (self.platform,)

    def pairs_with(self, platform: str) -> bool:
        """Whether a switch of this model may be rendered for ``platform``: a NOS it runs, or the lab emulation."""
        return platform in self.runs() or platform == EMULATION

    @field_validator("nos")
    @classmethod
    def _default_among(cls, nos: list[str] | None, info: ValidationInfo) -> list[str] | None:
        """The default platform is one of the NOSes the model runs; each is listed once."""
        if nos is None:
            return nos
        if len(set(nos)) != len(nos):
            raise ValueError(f"{', '.join(nos)} names a NOS twice")
        platform = info.data.get("platform")  # absent when the platform itself was refused
        if platform is not None and platform not in nos:
            raise ValueError(f"{', '.join(nos)} leaves out the default platform {platform}: a model runs its default")
        return nos

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
    vendor: Label
    speed: Speed
    ports: int = Field(ge=1, le=4, default=1)
    rdma_driver: Literal["mlx5", "bnxt_re", "irdma", "ionic"]
    adaptive_routing: bool = Field(
        default=False,
        description="the NIC places out-of-order RoCE data (RC QPs), as switch adaptive routing needs; unset: "
                    "false (a NIC fabricgen knows nothing of is not assumed to tolerate reordering)",
    )


class ServerNic(Strict):
    """One backend (GPU fabric) NIC of a server model and the GPU it serves."""

    ifname: Name
    rdma_dev: Name
    gpu: int = Field(ge=0)
    numa: int = Field(ge=0)
    pcie: str = Field(pattern=r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


class ServerModel(Strict):
    vendor: Label
    gpu: Label
    gpus: int = Field(ge=1, le=144)
    nvlink_domain: int = Field(ge=1, description="GPUs that share one NVLink/NVSwitch domain")
    nvlink_gbytes_per_s: float = Field(gt=0, description="per-GPU NVLink bandwidth, one direction")
    backend_nic: Name = Field(description="NIC model of the backend NICs")
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

_AR_WHY = (
    "adaptive routing (Spectrum-X: NVUE `router adaptive-routing` globally and on every switch-to-switch port); "
    "unset: inherit ({}), off by default because every NIC receiving the fabric's traffic must place "
    "out-of-order RoCE data (the catalog's nics.<model>.adaptive_routing) and because enabling or disabling it "
    "reloads switchd on Cumulus Linux (traffic stops on the switch), so an operator chooses it"
)
"""Why adaptive routing is off unless the inventory says so (Cumulus Linux "Equal Cost Multipath Load Sharing",
adaptive routing section: enabling it reloads switchd; NVIDIA DOCA "Out-of-order Data Placement")."""

AdaptiveRouting = Annotated[bool | None, Field(description=_AR_WHY.format("fabric.adaptive_routing"))]
"""A switch's or intent tier's adaptive-routing setting (unset: the fabric's)."""

HwSku = Annotated[Name | None, Field(
    description="SONiC HwSKU (DEVICE_METADATA hwsku) the switch or the tier's switches run; unset: the platform's "
                "default SKU (fabricgen.inventory.sonic_platform)")]
"""A SONiC HwSKU as written on a switch or an intent tier."""


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


class BfdSettings(Strict):
    """BFD on every underlay eBGP session: a link that passes light but drops packets leaves ECMP within
    ``interval_ms`` x ``multiplier`` instead of the BGP hold time. Each platform's documented range is
    checked by FG-BFD-001 (fabricgen.topology.routing.BFD_RANGES)."""

    enabled: bool = True
    interval_ms: int = Field(default=300, ge=1, le=60_000, description="transmit and receive interval")
    multiplier: int = Field(default=3, ge=1, le=255, description="missed packets before the session is down")


class RoutingPolicy(Strict):
    """Underlay routing policy: every session imports and exports only the prefixes the fabric allocates
    (loopbacks /32, point-to-point /31s), each tagged with its origin role's community, with a prefix limit."""

    maximum_prefix: int | None = Field(
        default=None, ge=1, le=100_000_000,
        description="prefixes accepted from one neighbor; unset: the smallest of 1, 2, 5 x 10^k that is at "
                    "least twice what one neighbor sends once an intent has its planned_units",
    )
    warning_pct: int = Field(default=80, ge=1, le=100, description="validate warns when one neighbor sends this "
                             "share of maximum_prefix; devices log at it")
    community_asn: int = Field(default=64512, ge=1, le=65534, description="high half of the role communities "
                               "(leaf N:1, spine N:2, core N:3)")


def _releases(value: dict[str, str]) -> dict[str, str]:
    from fabricgen.inventory.releases import release_problem

    for plat, release in value.items():
        problem = release_problem(plat, release)
        if problem is not None:
            raise ValueError(problem)
    return value


Release = Annotated[str, Field(min_length=1, max_length=16, pattern=r"^[0-9][0-9.]*$")]
"""A NOS release: ``"5.14"`` (NVUE), ``"202411"`` (SONiC). See :mod:`fabricgen.inventory.releases`."""


class FabricSettings(Strict):
    name: Name
    switch_mtu: int = Field(default=9216, ge=1500, le=9216)
    host_mtu: int = Field(default=9000, ge=1280, le=9216)
    asn: AsnScheme = AsnScheme()
    addressing: Addressing = Addressing()
    oversubscription: Oversubscription = Oversubscription()
    failure: FailureTargets = FailureTargets()
    cable_defaults: CableDefaults = CableDefaults()
    releases: Annotated[dict[str, Release], AfterValidator(_releases)] = Field(
        default_factory=dict, description="NOS release per platform, e.g. {nvue: '5.14', sonic: '202411'}"
    )
    adaptive_routing: bool | None = Field(
        default=None, description=_AR_WHY.format("off") + "; the default of every tier and switch"
    )
    bfd: BfdSettings = BfdSettings()
    routing: RoutingPolicy = RoutingPolicy()
    drain: list[Name] = Field(
        default_factory=list, max_length=100_000,
        description="switches in maintenance: traffic is moved off them (RFC 8326 graceful shutdown) with every "
                    "session kept up; the same as `maintenance: drain` on the switch",
    )


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
    roce_mode: Literal["lossless"] | None = Field(
        default=None, description="NVUE only (qos.platforms.nvue): NVIDIA's `qos roce` object sets the RoCE policy"
    )


class NcclSpec(Strict):
    gid_index: int | Literal["auto"] = 3
    socket_ifname: IfnameList = "^lo,docker"


class QosPolicy(QosOverride):
    """The fabric's QoS policy; every field is optional and falls back to fabricgen's built-in policy."""

    lanes: list[LaneSpec] | None = Field(default=None, description="unset: the built-in lanes")
    shared_lossless: bool = Field(default=False, description="storage may share the training lossless priority")
    nccl: NcclSpec = NcclSpec()
    platforms: dict[Name, QosOverride] = Field(default_factory=dict)
    roles: dict[Literal["host", "fabric"], QosOverride] = Field(default_factory=dict)

    @field_validator("platforms")
    @classmethod
    def _known_platforms(cls, platforms: dict[str, QosOverride]) -> dict[str, QosOverride]:
        for name in platforms:
            _known_platform(name)
        return platforms

    @field_validator("lanes")
    @classmethod
    def _lanes_consistent(cls, lanes: list[LaneSpec] | None) -> list[LaneSpec] | None:
        if lanes is None:
            return lanes
        names: set[str] = set()
        owner: dict[int, str] = {}
        for lane in lanes:
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
            if sum(1 for lane in lanes if lane.purpose == purpose) != 1:
                raise ValueError(f"exactly one lane with purpose {purpose!r} is required")
        return lanes

    @model_validator(mode="after")
    def _roce_mode_on_nvue_only(self) -> QosPolicy:
        if self.roce_mode is not None:
            raise ValueError("roce_mode is an NVUE setting: write it under qos.platforms.nvue")
        for where, override in [*(("platforms." + k, v) for k, v in self.platforms.items() if k != "nvue"),
                                *(("roles." + k, v) for k, v in self.roles.items())]:
            if override.roce_mode is not None:
                raise ValueError(f"{where}.roce_mode: an NVUE setting, only valid under qos.platforms.nvue")
        return self


class NicQosOverride(Strict):
    """Per-node NIC settings that replace the fabric policy's (a disagreement is reported as a finding)."""

    trust: Literal["dscp", "pcp"] | None = None
    pfc: list[Priority] | None = Field(default=None, description="PFC-enabled priorities")
    tos: int | None = Field(default=None, ge=0, le=255, description="RoCE ToS byte: DSCP << 2 | ECN")
    ecn: bool | None = Field(default=None, description="ECN notification and reaction on the RoCE priority")
    mtu: int | None = Field(default=None, ge=576, le=9216)
    nccl_tc: int | None = Field(default=None, ge=0, le=255, description="NCCL_IB_TC when it differs from tos")


# --------------------------------------------------------------------------- base configuration
#
# A device's base configuration: what ``apply`` must keep on the switch because it replaces the whole
# configuration (management address and route, local users, API access, NTP, syslog, SNMP, banner). Written
# as ``base: {defaults: …, roles: {leaf: …}}`` at the top level and ``base: …`` on a switch; the three are
# merged field by field, switch over role over defaults (``mgmt`` and ``users`` key by key), in
# :mod:`fabricgen.render.base`. Secrets never appear in clear: a user's secret is a sha512-crypt hash or an
# ``env:NAME`` reference, an SNMP community is only an ``env:NAME`` reference; references are rendered as the
# placeholder ``__FABRICGEN_ENV_<NAME>__`` and resolved from the environment by ``apply`` in memory.

_ENV_NAME = r"[A-Z_][A-Z0-9_]{0,63}"

EnvRef = Annotated[
    str,
    _identifier(
        rf"env:{_ENV_NAME}",
        "a secret reference env:NAME, NAME of ASCII upper-case letters, digits and '_' (first not a digit)",
        68,
        r"A-Z0-9_:env",
        name_bad=False,
    ),
]
"""``env:NAME``: a secret read from the environment variable ``NAME`` (``[A-Z_][A-Z0-9_]*``, at most 64
characters) when ``apply`` pushes; never written to a rendered file."""

Secret = Annotated[
    str,
    _identifier(
        rf"env:{_ENV_NAME}|\$6\$(?:rounds=[0-9]{{4,9}}\$)?[./A-Za-z0-9]{{1,16}}\$[./A-Za-z0-9]{{86}}",
        "a sha512-crypt hash ($6$salt$86 characters of [./A-Za-z0-9]) or a reference env:NAME; "
        "clear-text secrets are not accepted",
        200,
        r"A-Za-z0-9_:$./=",
    ),
]
"""A local user's secret: a sha512-crypt hash ``$6$salt$hash`` (what ``mkpasswd -m sha-512`` prints), which
every platform accepts as already hashed, or an :data:`EnvRef` to such a hash."""

BannerText = Annotated[
    str,
    _identifier(
        r"[A-Za-z0-9][A-Za-z0-9 .,_:/()+@-]*",
        "one line of ASCII letters, digits, space and '.,_:/()+@-' (first a letter or digit)",
        200,
        r"A-Za-z0-9 .,_:/()+@-",
    ),
]
"""A pre-login banner: one line of letters, digits, space and ``.,_:/()+@-`` (no quotes, ``!``, ``#``, ``$``,
``;``, braces or anything that ends a CLI banner or a quoted string), at most 200 characters."""


def _interface(value: object) -> ipaddress.IPv4Interface:
    if not isinstance(value, str) or "/" not in value:
        raise ValueError("an IPv4 address with its prefix length, like 192.0.2.11/24, is required")
    try:
        iface = ipaddress.IPv4Interface(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address/prefix-length") from None
    if iface.network.prefixlen < 31 and iface.ip in (iface.network.network_address, iface.network.broadcast_address):
        raise ValueError(f"{value!r} is the network or broadcast address of its prefix")
    return iface


HostPrefix = Annotated[ipaddress.IPv4Interface, BeforeValidator(_interface)]


class MgmtSpec(Strict):
    """The out-of-band management port: its address and the default route of the management VRF."""

    address: HostPrefix | None = Field(default=None, description="e.g. 192.0.2.11/24 (usually per switch)")
    gateway: Address | None = Field(default=None, description="default route of the management VRF")


class UserSpec(Strict):
    role: Literal["admin", "operator"] = Field(description="admin: full rights; operator: read-only")
    secret: Secret


class SnmpSpec(Strict):
    community: EnvRef = Field(description="read-only SNMPv2c community, only as env:NAME")
    location: BannerText | None = None


AaaMethod = Literal["tacacs", "radius", "local"]
AaaServerMethod = Literal["tacacs", "radius"]


class AaaServer(Strict):
    """A TACACS+ or RADIUS server, reached in the management VRF from the management interface."""

    address: Address
    port: int | None = Field(default=None, ge=1, le=65535, description="unset: the protocol's (TACACS+ 49, "
                                                                          "RADIUS 1812)")
    key: EnvRef = Field(description="the shared secret, only as env:NAME")


class AaaAuthorization(Strict):
    """Command authorization: every command a user enters is first sent to the methods in order, e.g.
    ``commands: [tacacs, local]`` (EOS ``aaa authorization commands all default group tacacs+ local``). Only
    TACACS+ authorizes single commands; ``local`` (the user's own role) must be the last method, so that a
    switch whose TACACS+ servers do not answer still lets its users work instead of refusing every command."""

    commands: list[Literal["tacacs", "local"]] = Field(description="methods in the order tried; must end with local")

    @field_validator("commands")
    @classmethod
    def _commands(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError(f"{value} names a method twice")
        if not value or value[-1] != "local":
            raise ValueError(f"{value} does not end with local: every command would be refused when no TACACS+ "
                             "server answers")
        return value


class AaaSpec(Strict):
    """Remote login: TACACS+ and RADIUS servers (tried in the order written) and the method order of login
    authentication, e.g. ``order: [tacacs, local]``. ``local`` (the ``users:`` of the base) is always a method,
    so the local users still log in when no server answers. ``authorization`` sends every command to TACACS+
    first (``local`` after it, always); ``accounting`` names the servers that receive a record of every session
    (login, logout) and every command. Written at several levels, ``tacacs``, ``radius``, ``order``,
    ``authorization`` and ``accounting`` merge one by one."""

    tacacs: list[AaaServer] | None = Field(default=None, max_length=8)
    radius: list[AaaServer] | None = Field(default=None, max_length=8)
    order: list[AaaMethod] | None = Field(
        default=None, description="methods in the order tried; must name local; unset: tacacs, radius (those "
                                  "with servers), then local")
    authorization: AaaAuthorization | None = None
    accounting: list[AaaServerMethod] | None = Field(
        default=None, min_length=1, description="where session and command accounting records go, e.g. [tacacs]; "
                                                "unset: no accounting to a server")

    @field_validator("accounting")
    @classmethod
    def _accounting(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and len(set(value)) != len(value):
            raise ValueError(f"{value} names a method twice")
        return value

    @field_validator("order")
    @classmethod
    def _order(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return value
        if len(set(value)) != len(value):
            raise ValueError(f"{value} names a method twice")
        if "local" not in value:
            raise ValueError(f"{value} does not name local: the local users would be locked out when no server "
                             "answers")
        return value

    @field_validator("tacacs", "radius")
    @classmethod
    def _distinct(cls, value: list[AaaServer] | None) -> list[AaaServer] | None:
        addresses = [str(s.address) for s in value or ()]
        dup = sorted({a for a in addresses if addresses.count(a) > 1})
        if dup:
            raise ValueError(f"server {', '.join(dup)} written twice")
        return value


RawText = Annotated[str, StringConstraints(strip_whitespace=False)]
"""A raw configuration block, kept exactly as written (not stripped: a first line's indentation is part of what
:func:`fabricgen.inventory.raw.check_raw` judges)."""


class Base(Strict):
    """One level of base configuration (defaults, a role, or a switch); unset fields inherit."""

    mgmt: MgmtSpec | None = None
    users: dict[Name, UserSpec] | None = None
    aaa: AaaSpec | None = None
    api: bool | None = Field(default=None, description="enable the platform's API (eAPI, NX-API, NETCONF, NVUE)")
    ntp: list[Address] | None = None
    syslog: list[Address] | None = None
    snmp: SnmpSpec | None = None
    banner: BannerText | None = None
    raw: dict[RawPlatform, RawText] | None = Field(
        default=None,
        description="per platform, configuration fabricgen does not model, inserted verbatim after what it "
                    "renders; levels concatenate (defaults, then role, then switch); checked by "
                    "fabricgen.inventory.raw (printable ASCII, at most 64 KiB, no secret, nothing fabricgen owns)",
    )


class BaseSection(Strict):
    defaults: Base = Base()
    roles: dict[Annotated[Role, Field(strict=False)], Base] = Field(default_factory=dict)


# --------------------------------------------------------------------------- explicit objects


class Switch(Strict):
    name: Name
    role: Annotated[Role, Field(strict=False)]
    model: Name
    platform: Platform | None = None
    id: int | None = Field(default=None, ge=1, description="stable identity used for address/ASN allocation")
    asn: ASN | None = None
    loopback: Address | None = None
    unit: int | None = Field(default=None, ge=1, description="scalable unit (leaves)")
    rails: list[Annotated[int, Field(ge=0, le=63)]] = Field(default_factory=list, description="rails served (leaves)")
    pod: int | None = Field(default=None, ge=0, description="pod (spines)")
    release: Release | None = Field(default=None, description="NOS release; unset: fabric.releases or the default")
    hwsku: HwSku = None
    adaptive_routing: AdaptiveRouting = None
    serial: Name | None = Field(
        default=None,
        description="chassis serial number as the device reports it (NAPALM get_facts serial_number); when set, "
                    "apply refuses a device at this switch's address that reports another serial",
    )
    chassis_mac: MacAddress | None = Field(
        default=None,
        description="the chassis MAC the switch's LLDP agent advertises as its chassis ID (NX-OS: the chassis "
                    "base MAC of `show sprom backplane 1`); aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or aabb.ccdd.eeff; "
                    "when set, apply refuses a device at this switch's address with another chassis MAC, or one "
                    "whose chassis ID it cannot read",
    )
    maintenance: Literal["drain"] | None = Field(
        default=None, description="drain: move traffic off this switch with every BGP session kept up "
                                  "(RFC 8326 graceful shutdown; peers set local-preference 0)",
    )
    base: Base | None = Field(default=None, description="base configuration over its role's and the defaults")


class Node(Strict):
    name: Name
    model: Name
    unit: int | None = Field(default=None, ge=1)
    nic_qos: NicQosOverride | None = None


Endpoint = Annotated[
    str,
    _identifier(
        rf"[A-Za-z0-9][{_NAME_CHARS}]{{0,63}}:[A-Za-z0-9][{_NAME_CHARS}/:]{{0,63}}",
        "device:port: a name, ':', then a port of ASCII letters, digits and '/._:-' (64 characters each)",
        129,
        rf"{_NAME_CHARS}/:",
    ),
]
"""``device:port`` — a switch port (``leaf1:swp1``) or a server NIC (``gpu01:enp24s0np0``); the device is a
:data:`Name`, the port ASCII letters, digits and ``/._:-`` (at most 64 characters each)."""


class Link(Strict):
    a: Endpoint
    b: Endpoint | None = Field(default=None, description="unset: a cable pulled to `a` but not landed yet")
    speed: Speed | None = None
    length_m: float | None = Field(default=None, gt=0, le=10_000)
    cable: Label | None = None


# --------------------------------------------------------------------------- intent


class TierIntent(Strict):
    model: Name
    platform: Platform | None = None
    release: Release | None = Field(default=None, description="NOS release of the tier's switches")
    hwsku: HwSku = None
    adaptive_routing: AdaptiveRouting = None
    count: int | None = Field(default=None, ge=1, description="fixed count; unset: fabricgen chooses")


class LeafIntent(Strict):
    model: Name
    platform: Platform | None = None
    release: Release | None = Field(default=None, description="NOS release of the leaves")
    hwsku: HwSku = None
    adaptive_routing: AdaptiveRouting = None
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
    base: BaseSection = Field(default_factory=BaseSection)
