"""The hardware catalog: shipped as data (``fabricgen/data/catalog.yaml``), extendable per inventory."""

from __future__ import annotations

from functools import cache
from importlib import resources

from ruamel.yaml import YAML

from fabricgen.inventory.schema import PLATFORMS, Catalog

__all__ = ["ADAPTIVE_ROUTING_ASICS", "ADAPTIVE_ROUTING_PLATFORMS", "PLATFORMS", "adaptive_routing_problem", "merged",
           "shipped"]

ADAPTIVE_ROUTING_ASICS = frozenset({"Spectrum-4", "Spectrum-5"})
"""ASICs of NVIDIA's Spectrum-X, where Cumulus Linux offers adaptive routing: "Cumulus Linux 5.6 supports adaptive
routing on Spectrum-4" (earlier releases: Spectrum-2/3 as a beta only), and the Cumulus ECMP page says it "is only
supported on the NVIDIA Spectrum-X networking platform" (NVUE reference, Adaptive Routing; Cumulus Linux "Equal
Cost Multipath Load Sharing")."""

ADAPTIVE_ROUTING_PLATFORMS = frozenset({"nvue"})
"""Platforms on which fabricgen renders adaptive routing. SONiC is not among them: the SONiC YANG models
(sonic-yang-models) have no adaptive-routing table — community SONiC's ARS tables (``ARS_PROFILE``,
``ARS_INTERFACE``) live in vendor forks of sonic-swss without a published YANG model, and NVIDIA's SONiC
configures adaptive routing through its own "doAI" application extension, not config_db — so there is no
documented knob fabricgen could render and validate."""


def adaptive_routing_problem(platform: str, model: str, asic: str) -> str | None:
    """Why a switch cannot run adaptive routing as fabricgen renders it, or ``None`` when it can.

    >>> adaptive_routing_problem("nvue", "sn5600", "Spectrum-4") is None, adaptive_routing_problem("eos", "x", "y")
    (True, 'adaptive routing on platform eos: fabricgen renders it on nvue (Cumulus Linux) only')
    """
    if platform == "sonic":
        return ("adaptive routing on platform sonic is not rendered: SONiC's config_db models have no adaptive-routing "
                "table (NVIDIA's SONiC sets it through its doAI extension), so fabricgen renders it on nvue only")
    if platform not in ADAPTIVE_ROUTING_PLATFORMS:
        return f"adaptive routing on platform {platform}: fabricgen renders it on nvue (Cumulus Linux) only"
    if asic not in ADAPTIVE_ROUTING_ASICS:
        return (f"adaptive routing on {model} ({asic}): Cumulus Linux supports it on Spectrum-4 and later "
                "(Spectrum-X) only")
    return None


@cache
def shipped() -> Catalog:
    """The catalog that ships with fabricgen."""
    text = resources.files("fabricgen").joinpath("data/catalog.yaml").read_text(encoding="utf-8")
    return Catalog.model_validate(YAML(typ="safe").load(text))


def merged(extra: Catalog) -> Catalog:
    """The shipped catalog with the inventory's entries added (an entry of the same name replaces it)."""
    base = shipped()
    return Catalog(
        switches={**base.switches, **extra.switches},
        nics={**base.nics, **extra.nics},
        servers={**base.servers, **extra.servers},
    )
