"""The QoS policy: fabricgen's built-in defaults, per-platform defaults and the inventory's overrides,
resolved into per-port values that each carry their source.

Layers, later ones win::

    default  →  platform:<name>  →  override:qos  →  override:qos.platforms.<name>  →  override:qos.roles.<role>

Built-in policy (roce.md §1): RoCE data DSCP 26 → priority 3, lossless, ECN, ETS 50 %; CNP DSCP 48 →
strict priority, not PFC-enabled, on the class the switch's ASIC family uses (:func:`platform_cnp_tc`: 6 on NVIDIA
Spectrum, 7 on Broadcom and Cisco silicon); storage DSCP 18 → priority 4, lossy, ETS 25 %; everything else →
priority 0, lossy, ETS 25 %.

A fabric whose switches' CNP defaults differ (Spectrum leaves under Tomahawk spines) gets one CNP class
fabric-wide (:func:`fabric_cnp`), unless the inventory sets ``qos.cnp_tc``: a DSCP → priority map that differs
along a RoCE path breaks the lossless contract (FG-QOS-002).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Literal

from fabricgen.inventory.schema import (
    LaneSpec,
    NcclSpec,
    PfcThresholdSpec,
    QosOverride,
    QosPolicy,
    WatchdogSpec,
)
from fabricgen.qos import ecn as ecn_defaults
from fabricgen.qos.asic import asic_family
from fabricgen.qos.maps import dscp_map
from fabricgen.qos.model import EcnProfile, Lane, PfcWatchdog, Trust

Role = Literal["host", "fabric"]

BUILTIN_LANES = (
    LaneSpec(name="roce", purpose="training", dscp=[26], tc=3, lossless=True, scheduling="ets", weight=50, ecn=True),
    LaneSpec(name="cnp", purpose="cnp", dscp=[48], tc=None, scheduling="strict"),
    LaneSpec(name="storage", purpose="storage", dscp=[18], tc=4, lossless=False, scheduling="ets", weight=25),
    LaneSpec(name="default", purpose="default", dscp=[], tc=0, lossless=False, scheduling="ets", weight=25),
)
"""fabricgen's built-in lanes (roce.md §1)."""

DEFAULT_CNP_TC = 6
"""CNP priority where nothing else says: ConnectX firmware's default (DSCP 48 / priority 6)."""

DEFAULT_WATCHDOG = WatchdogSpec()
DEFAULT_THRESHOLD = PfcThresholdSpec()


FAMILY_CNP_TC = {"spectrum": 6, "tomahawk": 7, "trident": 7, "jericho": 7, "cloudscale": 7}
"""CNP priority by ASIC family. 6 on NVIDIA Spectrum: ``nv set qos roce`` maps switch priority 6 to the strict CNP
traffic class (Cumulus Linux user guide, "RDMA over Converged Ethernet - RoCE", default RoCE configuration), the
ConnectX default. 7 on Broadcom and Cisco silicon: the Broadcom, Arista and Cisco RoCE examples of roce.md §1, e.g.
"RoCE CNP traffic tagged with DSCP 48 and PRIORITY 7" (Juniper JVD "AI data center, Apstra, AMD": DCQCN
configuration for RDMA traffic on NICs, Broadcom Thor2 defaults)."""

PLATFORM_CNP_TC = {"nvue": 6, "sonic": 7, "eos": 7, "nxos": 7, "junos": 7}
"""CNP priority by NOS, for silicon the catalog names no family of (the NOS's usual examples, roce.md §1)."""


def platform_cnp_tc(platform: str, asic: str) -> tuple[int, str]:
    """A switch's default CNP priority and its source: by ASIC family, else by NOS, else ConnectX's 6.

    >>> platform_cnp_tc("nvue", "Spectrum-4"), platform_cnp_tc("sonic", "Spectrum-4")
    ((6, 'asic:spectrum'), (6, 'asic:spectrum'))
    >>> platform_cnp_tc("sonic", "Tomahawk-5"), platform_cnp_tc("eos", "Tomahawk-5"), platform_cnp_tc("eos", "X")
    ((7, 'asic:tomahawk'), (7, 'asic:tomahawk'), (7, 'platform:eos'))
    """
    family = asic_family(asic)
    if family in FAMILY_CNP_TC:
        return FAMILY_CNP_TC[family], f"asic:{family}"
    if platform in PLATFORM_CNP_TC:
        return PLATFORM_CNP_TC[platform], f"platform:{platform}"
    return DEFAULT_CNP_TC, "default"


@dataclass(frozen=True, slots=True)
class FabricCnp:
    """The one CNP class a mixed fabric uses: ``tc`` (:data:`DEFAULT_CNP_TC`), ``source`` (what ``explain`` shows)
    and ``defaults``: the switches' own defaults that disagreed, ``(source, tc, switches)`` sorted by source."""

    tc: int
    source: str
    defaults: tuple[tuple[str, int, int], ...]


def _sets_cnp(spec: QosPolicy) -> bool:
    """Whether the inventory chose the CNP class for every port (``qos.cnp_tc``, both roles, or a CNP lane's tc)."""
    if spec.cnp_tc is not None:
        return True
    roles = [spec.roles.get(role) for role in ("host", "fabric")]
    if all(r is not None and r.cnp_tc is not None for r in roles):
        return True
    lanes = spec.lanes if spec.lanes is not None else ()
    return any(ls.purpose == "cnp" and ls.tc is not None for ls in lanes)


def fabric_cnp(spec: QosPolicy, switches: Iterable[tuple[str, str]]) -> FabricCnp | None:
    """The fabric-wide CNP class when the defaults of ``switches`` (``(platform, asic)`` of each) differ and the
    inventory chose none; ``None`` otherwise. Switches whose platform sets ``qos.platforms.<p>.cnp_tc`` keep it.

    The choice is :data:`DEFAULT_CNP_TC`, 6: the priority ConnectX firmware sends its CNPs on (DSCP 48 / priority 6,
    roce.md §6), so the hosts keep their firmware default, and NVIDIA Spectrum's own RoCE class; Broadcom and Cisco
    switches queue DSCP 48 on whatever class their map says, so moving them to 6 costs nothing. 7 would need every
    NIC and every Spectrum switch changed.

    >>> spec = QosPolicy()
    >>> fabric_cnp(spec, [("sonic", "Spectrum-4"), ("eos", "Tomahawk-5"), ("eos", "Tomahawk-5")])
    FabricCnp(tc=6, source='resolved:fabric', defaults=(('asic:spectrum', 6, 1), ('asic:tomahawk', 7, 2)))
    >>> fabric_cnp(spec, [("sonic", "Spectrum-4"), ("nvue", "Spectrum-3")]) is None
    True
    """
    if _sets_cnp(spec):
        return None
    counts: dict[tuple[str, int], int] = {}
    for platform, asic in switches:
        plat = spec.platforms.get(platform)
        if plat is not None and plat.cnp_tc is not None:
            continue
        tc, source = platform_cnp_tc(platform, asic)
        counts[source, tc] = counts.get((source, tc), 0) + 1
    if len({tc for _, tc in counts}) < 2:
        return None
    defaults = tuple(sorted((source, tc, n) for (source, tc), n in counts.items()))
    return FabricCnp(DEFAULT_CNP_TC, "resolved:fabric", defaults)


@dataclass(frozen=True, slots=True)
class PortSettings:
    """Everything about a port that depends only on (platform, ASIC, role, speed); shared by ports."""

    trust: Trust
    cnp_tc: int
    lanes: tuple[Lane, ...]
    dscp_to_tc: MappingProxyType[int, int]
    pfc_priorities: frozenset[int]
    ecn: MappingProxyType[int, EcnProfile]
    ecn_profile: EcnProfile
    ecn_marking: bool
    threshold: PfcThresholdSpec
    watchdog: PfcWatchdog | None
    sources: MappingProxyType[str, str]

    def training(self) -> Lane:
        return next(lane for lane in self.lanes if lane.purpose == "training")

    def cnp(self) -> Lane | None:
        return next((lane for lane in self.lanes if lane.purpose == "cnp"), None)


class ResolvedPolicy:
    """The inventory's ``qos:`` section over fabricgen's built-in policy; answers per-port questions.

    ``spec`` is the section as written; ``lane_specs`` the lanes in force (built-in unless the inventory
    lists its own, see ``lanes_source``); ``fabric_cnp`` the CNP class of a mixed fabric (:func:`fabric_cnp`),
    which replaces each switch's own default. :meth:`settings` is cached: identical ports share the result.
    """

    def __init__(self, spec: QosPolicy, cnp: FabricCnp | None = None) -> None:
        self.spec = spec
        self.fabric_cnp = cnp
        self.lane_specs: tuple[LaneSpec, ...] = tuple(spec.lanes) if spec.lanes is not None else BUILTIN_LANES
        self.lanes_source = "override:qos.lanes" if spec.lanes is not None else "default"
        self.shared_lossless = spec.shared_lossless
        self.nccl: NcclSpec = spec.nccl
        self.nccl_source = "override:qos.nccl" if "nccl" in spec.model_fields_set else "default"
        self._settings = lru_cache(maxsize=None)(self._compute)

    def layers(self, platform: str, role: Role) -> list[tuple[str, QosOverride]]:
        """The inventory's override layers that apply to a port, in order."""
        out: list[tuple[str, QosOverride]] = [("qos", self.spec)]
        plat = self.spec.platforms.get(platform)
        if plat is not None:
            out.append((f"qos.platforms.{platform}", plat))
        rol = self.spec.roles.get(role)
        if rol is not None:
            out.append((f"qos.roles.{role}", rol))
        return out

    def settings(self, platform: str, asic: str, role: Role, speed: int) -> PortSettings:
        """The port values of a (platform, ASIC, role, speed), with their sources."""
        return self._settings(platform, asic, role, speed)

    def _compute(self, platform: str, asic: str, role: Role, speed: int) -> PortSettings:
        layers = self.layers(platform, role)
        sources: dict[str, str] = {}

        def pick(name: str, value: object, source: str) -> object:
            for where, layer in layers:
                v = getattr(layer, name)
                if v is not None:
                    value, source = v, f"override:{where}"
            sources[name] = source
            return value

        trust: Trust = pick("trust", "dscp", "default")  # type: ignore[assignment]
        cnp_default, cnp_src = platform_cnp_tc(platform, asic)
        if self.fabric_cnp is not None:
            cnp_default, cnp_src = self.fabric_cnp.tc, self.fabric_cnp.source
        cnp_lane_tc = next((ls.tc for ls in self.lane_specs if ls.purpose == "cnp"), None)
        if cnp_lane_tc is not None:
            cnp_default, cnp_src = cnp_lane_tc, self.lanes_source
        cnp_tc = int(pick("cnp_tc", cnp_default, cnp_src))  # type: ignore[call-overload]
        sources["cnp_tc"] = sources.pop("cnp_tc")

        claimed = {d for ls in self.lane_specs for d in ls.dscp}
        lanes: list[Lane] = []
        for ls in self.lane_specs:
            tc = cnp_tc if ls.purpose == "cnp" else ls.tc
            assert tc is not None
            dscps = (
                tuple(sorted(ls.dscp))
                if ls.purpose != "default"
                else tuple(sorted(set(range(64)) - claimed | set(ls.dscp)))
            )
            weight = ls.weight if ls.scheduling == "ets" else None
            lanes.append(Lane(ls.name, dscps, tc, ls.lossless, ls.scheduling, weight, ls.ecn, ls.purpose))
        lanes.sort(key=lambda lane: (lane.tc, lane.name))
        sources["lanes"] = self.lanes_source
        default_tc = next(lane.tc for lane in lanes if lane.purpose == "default")
        dmap = dscp_map(((lane.dscp, lane.tc) for lane in lanes if lane.purpose != "default"), default_tc)
        sources["dscp_to_tc"] = sources["cnp_tc"] if sources["cnp_tc"] != "default" else self.lanes_source

        lossless = frozenset(lane.tc for lane in lanes if lane.lossless)
        pfc_raw = pick("pfc_priorities", None, self.lanes_source)
        pfc = frozenset(pfc_raw) if isinstance(pfc_raw, list) else lossless

        chosen = ecn_defaults.pick(platform, asic, speed, [(w, layer.ecn, layer.ecn_by_speed) for w, layer in layers])
        profile = EcnProfile(chosen.min_bytes, chosen.max_bytes, chosen.probability_pct, chosen.source)
        sources["ecn"] = chosen.source
        marking = bool(pick("ecn_marking", True, "default"))
        ecn = {lane.tc: profile for lane in lanes if lane.ecn and marking}

        threshold = pick("pfc_threshold", DEFAULT_THRESHOLD, "default")
        assert isinstance(threshold, PfcThresholdSpec)
        sources["pfc_threshold"] = sources.pop("pfc_threshold")
        wd_spec = pick("pfc_watchdog", DEFAULT_WATCHDOG, "default")
        assert isinstance(wd_spec, WatchdogSpec)
        enabled = bool(pick("watchdog_enabled", True, "default"))
        watchdog = PfcWatchdog(wd_spec.detection_ms, wd_spec.restoration_ms, wd_spec.action) if enabled else None
        sources["watchdog"] = sources.pop("pfc_watchdog")
        if not enabled:
            sources["watchdog"] = sources["watchdog_enabled"]
        del sources["watchdog_enabled"]
        return PortSettings(
            trust=trust,
            cnp_tc=cnp_tc,
            lanes=tuple(lanes),
            dscp_to_tc=MappingProxyType(dmap),
            pfc_priorities=pfc,
            ecn=MappingProxyType(ecn),
            ecn_profile=profile,
            ecn_marking=marking,
            threshold=threshold,
            watchdog=watchdog,
            sources=MappingProxyType(sources),
        )


def resolve_policy(spec: QosPolicy, switches: Iterable[tuple[str, str]] = ()) -> ResolvedPolicy:
    """The policy of a fabric whose switches are ``switches`` (``(platform, asic)`` of each, for :func:`fabric_cnp`)."""
    return ResolvedPolicy(spec, fabric_cnp(spec, switches))
