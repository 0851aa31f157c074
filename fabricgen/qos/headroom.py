"""PFC headroom of a lossless priority group (roce.md §4, the SONiC/NVIDIA dynamic model).

::

    peer_response = pause_quanta(speed) × 64
    on_cable      = 2 × length_m × speed_bps / 1.98e8 / 8
    propagation   = port_mtu + on_cable + mac_phy_delay + peer_response
    xoff          = ceil_1KiB(lossless_mtu + propagation × cell_occupancy)
    xon           = ceil_1KiB(pipeline_latency)
    size          = ceil_1KiB(xoff + xon [+ port_mtu on 8-lane ports])

>>> h = headroom(400, 5.0, 9216, 9216, BufferFacts(19456, 819, 3.0), lanes=4)
>>> h.xoff, h.xon, h.size
(221184, 19456, 240640)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PAUSE_QUANTA = {10: 67, 25: 80, 40: 118, 50: 147, 100: 394, 200: 453, 400: 905, 800: 905}
"""Peer response time in pause quanta (512 bit times) per port speed in Gb/s."""

SIGNAL_SPEED = 1.98e8
"""Signal propagation speed in a cable, m/s."""

KIB = 1024


@dataclass(frozen=True, slots=True)
class BufferFacts:
    """The ASIC facts the formula needs (from the catalog's ``buffer``)."""

    pipeline_latency_bytes: int
    mac_phy_delay_bytes: int
    cell_occupancy: float


@dataclass(frozen=True, slots=True)
class HeadroomBytes:
    xoff: int
    xon: int
    size: int


def pause_quanta(speed: int) -> int:
    """Peer response quanta for ``speed`` Gb/s: the table's value, else the nearest lower speed's
    (speeds above 800G use 800G's).

    >>> pause_quanta(400), pause_quanta(1600), pause_quanta(1)
    (905, 905, 67)
    """
    if speed in PAUSE_QUANTA:
        return PAUSE_QUANTA[speed]
    lower = [s for s in PAUSE_QUANTA if s <= speed]
    return PAUSE_QUANTA[max(lower)] if lower else PAUSE_QUANTA[min(PAUSE_QUANTA)]


def ceil_kib(value: float) -> int:
    """Round up to a whole KiB.

    >>> ceil_kib(1), ceil_kib(1024), ceil_kib(1025)
    (1024, 1024, 2048)
    """
    return math.ceil(value / KIB) * KIB


def bytes_on_cable(speed: int, length_m: float) -> float:
    """Bytes in flight on a cable of ``length_m`` at ``speed`` Gb/s, both directions (the PAUSE out and
    the data still coming back)."""
    return 2 * length_m * speed * 1e9 / SIGNAL_SPEED / 8


def headroom(
    speed: int,
    length_m: float,
    port_mtu: int,
    lossless_mtu: int,
    facts: BufferFacts,
    lanes: int,
) -> HeadroomBytes:
    """xoff/xon/size in bytes for one lossless PG of a ``speed`` Gb/s port using ``lanes`` SerDes lanes."""
    propagation = port_mtu + bytes_on_cable(speed, length_m) + facts.mac_phy_delay_bytes + pause_quanta(speed) * 64
    xoff = ceil_kib(lossless_mtu + propagation * facts.cell_occupancy)
    xon = ceil_kib(facts.pipeline_latency_bytes)
    size = ceil_kib(xoff + xon + (port_mtu if lanes >= 8 else 0))
    return HeadroomBytes(xoff, xon, size)


def dynamic_xoff_threshold(free_bytes: int, dynamic_th: int) -> int:
    """Estimated ingress occupancy at which a PG with dynamic thresholds sends XOFF when it is the only
    congested PG: alpha × free / (1 + alpha), alpha = 2 ** dynamic_th.

    >>> dynamic_xoff_threshold(1_000_000, 0)
    500000
    """
    alpha = 2.0**dynamic_th
    return int(alpha * max(free_bytes, 0) / (1 + alpha))
