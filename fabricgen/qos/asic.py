"""Switch ASIC families: the catalog's ``asic:`` string (``Spectrum-4``, ``Tomahawk-5``, ``CloudScale-GX2A`` …) reduced
to the family whose vendor documents the QoS defaults (ECN thresholds, CNP class) of every member.

A family's defaults hold whatever NOS runs on it where the vendor publishes them for the silicon (NVIDIA's RoCE
profile is the same on Cumulus/NVUE and on SONiC for Spectrum); :mod:`fabricgen.qos.ecn` and
:mod:`fabricgen.qos.policy` fall back on the NOS only where no family value is published.
"""

from __future__ import annotations

import re
from typing import Literal

Family = Literal["spectrum", "tomahawk", "trident", "jericho", "cloudscale", "silicon-one", "other"]

_PREFIXES: tuple[tuple[str, Family], ...] = (
    ("spectrum", "spectrum"),  # NVIDIA Spectrum, Spectrum-2 … Spectrum-X
    ("tomahawk", "tomahawk"),  # Broadcom StrataXGS Tomahawk
    ("trident", "trident"),  # Broadcom StrataXGS Trident
    ("jericho", "jericho"),  # Broadcom StrataDNX Jericho
    ("cloudscale", "cloudscale"),  # Cisco Nexus 9000 Cloud Scale (LS, GX, GX2A …)
    ("silicon one", "silicon-one"),  # Cisco Silicon One (G100, G200 …)
    ("silicon-one", "silicon-one"),
)


def asic_family(asic: str) -> Family:
    """The family of a catalog ``asic`` string: its name without the generation, case and spacing ignored.

    >>> [asic_family(a) for a in ("Spectrum-4", "spectrum 3", "Tomahawk-5", "CloudScale-GX2A", "Trident4", "")]
    ['spectrum', 'spectrum', 'tomahawk', 'cloudscale', 'trident', 'other']
    """
    name = re.sub(r"[\s_]+", " ", asic.strip().lower())
    for prefix, family in _PREFIXES:
        if name.startswith(prefix):
            return family
    return "other"

