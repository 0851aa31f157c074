"""ECN/WRED marking thresholds: per-ASIC-family defaults (roce.md §3) and per-speed overrides.

A default follows the switch's silicon, not its NOS: the same Spectrum-4 port gets NVIDIA's RoCE profile whether it
runs NVUE or SONiC. The NOS decides only where no vendor publishes a value for the family (Broadcom silicon under
SONiC keeps SONiC's own template default). No vendor publishes per-speed tables, so the inventory may override a
default per platform, per port role and per speed. Each value carries its source.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricgen.inventory.schema import EcnSpec
from fabricgen.qos.asic import asic_family


@dataclass(frozen=True, slots=True)
class EcnDefault:
    min_bytes: int
    max_bytes: int
    probability_pct: int
    source: str


SPECTRUM = EcnDefault(150_000, 1_500_000, 100, "asic:spectrum")
"""NVIDIA's RoCE profile for Spectrum switches: ECN on the RoCE traffic class from 150,000 B, every packet marked
(100 %) from 1,500,000 B (Cumulus Linux user guide, "RDMA over Converged Ethernet - RoCE", ``nv set qos roce``;
roce.md §3). NVIDIA generates that configuration per ASIC ("RoCE configuration generated for one switch ASIC ... is
not applicable to another", same page), so fabricgen gives it to every Spectrum switch, SONiC included: NVIDIA's
SONiC SKUs for the SN5600 in sonic-buildimage carry no lossless WRED profile of their own, and SONiC's generic one
(:data:`SONIC`) starts marking at 1 MiB, ~21 µs of queue at 400G, at 5 %: DCQCN reacts late and incast ends in PFC."""

SONIC = EcnDefault(1_048_576, 2_097_152, 5, "platform:sonic")
"""SONiC's generic lossless WRED profile ``AZURE_LOSSLESS`` (sonic-buildimage ``files/build_templates/qos_config.j2``:
green/yellow/red min 1,048,576 B, max 2,097,152 B, drop probability 5, ``ecn: ecn_all``), what a SONiC SKU without its
own ``generate_wred_profiles`` gets: fabricgen's default for SONiC on Broadcom (Tomahawk) and other non-Spectrum
silicon. Not verified: Arista's SONiC SKUs for the 7060X6-64PE are said to ship a tighter lossless profile (min
131,072 B, max 262,144 B, 5 %); the SKU files found in sonic-buildimage (``Arista-7060X6-64PE-C256S2/qos.json.j2``)
define no WRED profile and include ``qos_config.j2``, and no Arista file with those values was found, so they are not
used."""

CLOUDSCALE = EcnDefault(150 * 1024, 3000 * 1024, 7, "asic:cloudscale")
"""Cisco Nexus 9000 (Cloud Scale) AI/ML design (100G): ``random-detect minimum-threshold 150 kbytes
maximum-threshold 3000 kbytes drop-probability 7 weight 0 ecn`` (Cisco Data Center Networking Blueprint for AI/ML
Applications; roce.md §3)."""

FABRIC_DEFAULT = EcnDefault(150_000, 1_500_000, 100, "default")
"""fabricgen's default for silicon and NOS without a published profile (EOS and Junos on Tomahawk, FRR): NVIDIA's RoCE
profile, the one published RoCE default that marks early and hard."""

FAMILY_ECN = {"spectrum": SPECTRUM, "cloudscale": CLOUDSCALE}
"""ECN defaults the silicon vendor publishes for an ASIC family, whatever the NOS."""

PLATFORM_ECN = {"sonic": SONIC}
"""ECN defaults a NOS brings where its silicon has none (above)."""


def platform_default(platform: str, asic: str = "") -> EcnDefault:
    """The ECN default of a switch: its ASIC family's, else its NOS's, else fabricgen's.

    >>> platform_default("sonic", "Spectrum-4") == platform_default("nvue", "Spectrum-4")
    True
    >>> platform_default("sonic", "Spectrum-4").source, platform_default("sonic", "Tomahawk-5").min_bytes
    ('asic:spectrum', 1048576)
    >>> platform_default("eos", "Tomahawk-5").source, platform_default("nxos", "CloudScale-GX2A").source
    ('default', 'asic:cloudscale')
    """
    family = FAMILY_ECN.get(asic_family(asic))
    if family is not None:
        return family
    return PLATFORM_ECN.get(platform, FABRIC_DEFAULT)


def pick(
    platform: str,
    asic: str,
    speed: int,
    layers: list[tuple[str, EcnSpec | None, dict[int, EcnSpec]]],
) -> EcnDefault:
    """The ECN thresholds for a port: the switch's default (:func:`platform_default`), then each override layer in order
    (``(where, ecn, ecn_by_speed)``); within a layer a per-speed entry beats the layer's ``ecn``."""
    best = platform_default(platform, asic)
    for where, ecn, by_speed in layers:
        spec = by_speed.get(speed)
        label = f"override:{where}.ecn_by_speed.{speed}G"
        if spec is None and ecn is not None:
            spec, label = ecn, f"override:{where}.ecn"
        if spec is not None:
            best = EcnDefault(spec.min_bytes, spec.max_bytes, spec.probability_pct, label)
    return best
