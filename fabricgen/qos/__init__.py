"""Lossless QoS: one policy, computed per switch port and host NIC, checked end to end.

:func:`compute` is the entry point: ``Fabric → FabricQos`` (see :mod:`fabricgen.qos.model` for the
result's fields). The math lives in small pure modules: :mod:`~fabricgen.qos.headroom` (PFC headroom),
:mod:`~fabricgen.qos.ecn` (ECN thresholds), :mod:`~fabricgen.qos.maps` (DSCP/ToS/MTU arithmetic),
:mod:`~fabricgen.qos.policy` (defaults and overrides), :mod:`~fabricgen.qos.host` (host file text).
"""

from __future__ import annotations

from fabricgen.qos.compute import compute
from fabricgen.qos.model import (
    BufferPlan,
    EcnProfile,
    FabricQos,
    Headroom,
    Lane,
    NcclEnv,
    NicQos,
    PfcWatchdog,
    PortQos,
    SwitchQos,
)

__all__ = [
    "BufferPlan",
    "EcnProfile",
    "FabricQos",
    "Headroom",
    "Lane",
    "NcclEnv",
    "NicQos",
    "PfcWatchdog",
    "PortQos",
    "SwitchQos",
    "compute",
]
