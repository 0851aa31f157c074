"""ECN/WRED marking thresholds: per-platform defaults (roce.md §3) and per-speed overrides.

No vendor publishes per-speed tables, so each platform has one default and the inventory may override
it per platform, per port role and per speed. Each value carries its source.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricgen.inventory.schema import EcnSpec


@dataclass(frozen=True, slots=True)
class EcnDefault:
    min_bytes: int
    max_bytes: int
    probability_pct: int
    source: str


NVIDIA = EcnDefault(150_000, 1_500_000, 100, "platform:nvue")
"""NVIDIA Cumulus ``nv set qos roce``."""

SONIC = EcnDefault(1_048_576, 2_097_152, 5, "platform:sonic")
"""SONiC's default lossless WRED profile."""

NXOS = EcnDefault(150 * 1024, 3000 * 1024, 7, "platform:nxos")
"""Cisco Nexus AI/ML design (100G): 150 KB / 3,000 KB / 7 %."""

FABRIC_DEFAULT = EcnDefault(150_000, 1_500_000, 100, "default")
"""fabricgen's default for platforms without a published one (eos, junos, frr): NVIDIA's RoCE profile."""

PLATFORM_ECN = {"nvue": NVIDIA, "sonic": SONIC, "nxos": NXOS}


def platform_default(platform: str) -> EcnDefault:
    """The platform's ECN default, or fabricgen's.

    >>> platform_default("nvue").min_bytes, platform_default("eos").source
    (150000, 'default')
    """
    return PLATFORM_ECN.get(platform, FABRIC_DEFAULT)


def pick(
    platform: str,
    speed: int,
    layers: list[tuple[str, EcnSpec | None, dict[int, EcnSpec]]],
) -> EcnDefault:
    """The ECN thresholds for a port: the platform default, then each override layer in order
    (``(where, ecn, ecn_by_speed)``); within a layer a per-speed entry beats the layer's ``ecn``."""
    best = platform_default(platform)
    for where, ecn, by_speed in layers:
        spec = by_speed.get(speed)
        label = f"override:{where}.ecn_by_speed.{speed}G"
        if spec is None and ecn is not None:
            spec, label = ecn, f"override:{where}.ecn"
        if spec is not None:
            best = EcnDefault(spec.min_bytes, spec.max_bytes, spec.probability_pct, label)
    return best
