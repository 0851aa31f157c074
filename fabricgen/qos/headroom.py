"""PFC headroom of a lossless priority group (roce.md §4, the SONiC/NVIDIA dynamic model).

::

    peer_response = pause_quanta(speed) × 64
    on_cable      = 2 × length_m × speed_bps / 1.98e8 / 8
    propagation   = port_mtu + on_cable + mac_phy_delay + peer_response
    xoff          = ceil_1KiB(lossless_mtu + propagation × cell_occupancy)
    xon           = ceil_1KiB(pipeline_latency)
    size          = ceil_1KiB(xoff + xon [+ port_mtu on 8-lane ports])

Where the vendor publishes a static xoff table for the switch model (catalog ``headroom_table``), the
formula is never allowed to go below it: ``xoff = max(formula, table floor)``. The table floor at a port
speed is the highest interpolated value of every published row at or below that speed (a faster port
never needs less headroom than a slower one), where a row is interpolated linearly between its published
cable lengths, extrapolated above the longest with the formula's own slope (bytes on the cable × cell
occupancy per metre, which is what the formula adds per metre), and held at the first row below the shortest
(a shorter cable never gets less than the smallest published value). Both terms grow with length and speed,
so their maximum does too, and at a published point the result is the published value whenever the
formula lies below it. ``HeadroomBytes.xoff_source`` says which term won.

>>> h = headroom(400, 5.0, 9216, 9216, BufferFacts(19456, 819, 3.0), lanes=4)
>>> h.xoff, h.xon, h.size
(221184, 19456, 240640)
"""

from __future__ import annotations

import itertools
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
class HeadroomTable:
    """A vendor's published static xoff table for one switch model.

    ``model``: catalog name (``sn5600``). ``title``: what the vendor calls it. ``rows``: by port speed in
    Gb/s ascending, ``(speed, points)`` with ``(cable length m, xoff bytes)`` points sorted by length and
    xoff non-decreasing (the catalog schema checks both).
    """

    model: str
    title: str
    rows: tuple[tuple[int, tuple[tuple[float, int], ...]], ...]


@dataclass(frozen=True, slots=True)
class HeadroomBytes:
    """``xoff_source``: ``computed`` when the formula gave xoff, else the table row and segment used,
    e.g. ``table:sn5600 (NVIDIA static headroom, 400G, interpolated 5–40 m)``."""

    xoff: int
    xon: int
    size: int
    xoff_source: str = "computed"


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


def _m(value: float) -> str:
    return f"{value:g}"


def interpolate_row(
    points: tuple[tuple[float, int], ...], length_m: float, slope: float
) -> tuple[float, str]:
    """A published row's xoff at ``length_m`` and how it was obtained: the point itself, linear between
    the two published lengths around it, extrapolated above the longest with ``slope`` bytes/m, and the first
    row's value below the shortest length (a floor: never extrapolated down).

    >>> row = ((5.0, 1000), (40.0, 4500))
    >>> interpolate_row(row, 5, 10.0), interpolate_row(row, 12, 10.0), interpolate_row(row, 50, 10.0)
    ((1000.0, 'at 5 m'), (1700.0, 'interpolated 5–40 m'), (4600.0, 'extrapolated above 40 m'))
    >>> interpolate_row(row, 1, 10.0)
    (1000.0, 'first row (5 m) for a shorter cable')
    """
    first_m, first_x = points[0]
    last_m, last_x = points[-1]
    if length_m < first_m:
        # the shortest published length is a floor: a shorter cable never gets less than the vendor's first row
        # (the vendor publishes no value below it, and the formula's own term still applies on top)
        return float(first_x), f"first row ({_m(first_m)} m) for a shorter cable"
    if length_m > last_m:
        return last_x + slope * (length_m - last_m), f"extrapolated above {_m(last_m)} m"
    for (lo_m, lo_x), (hi_m, hi_x) in itertools.pairwise(points):
        if lo_m < length_m < hi_m:
            share = (length_m - lo_m) / (hi_m - lo_m)
            return lo_x + share * (hi_x - lo_x), f"interpolated {_m(lo_m)}–{_m(hi_m)} m"
    at = next(x for m, x in points if m == length_m)
    return float(at), f"at {_m(length_m)} m"


def table_floor(
    table: HeadroomTable, speed: int, length_m: float, cell_occupancy: float
) -> tuple[int, str] | None:
    """The published table's xoff floor for a ``speed`` Gb/s port on ``length_m`` of cable, rounded up
    to 1 KiB, and its source text; ``None`` when no row is at or below ``speed``.

    Every row at or below ``speed`` counts (the largest wins), extrapolating with the formula's slope
    at that row's speed: ``bytes_on_cable(row_speed, 1 m) × cell_occupancy``.
    """
    best: tuple[float, str] | None = None
    for row_speed, points in table.rows:
        if row_speed > speed:
            break
        value, how = interpolate_row(points, length_m, bytes_on_cable(row_speed, 1) * cell_occupancy)
        if best is None or value >= best[0]:
            row = f"{row_speed}G" if row_speed == speed else f"{row_speed}G row for a {speed}G port"
            best = value, f"table:{table.model} ({table.title}, {row}, {how})"
    if best is None:
        return None
    return ceil_kib(best[0]), best[1]


def headroom(
    speed: int,
    length_m: float,
    port_mtu: int,
    lossless_mtu: int,
    facts: BufferFacts,
    lanes: int,
    table: HeadroomTable | None = None,
) -> HeadroomBytes:
    """xoff/xon/size in bytes for one lossless PG of a ``speed`` Gb/s port using ``lanes`` SerDes lanes;
    xoff is never below ``table`` (the vendor's published values for the model) when one is given."""
    propagation = port_mtu + bytes_on_cable(speed, length_m) + facts.mac_phy_delay_bytes + pause_quanta(speed) * 64
    xoff = ceil_kib(lossless_mtu + propagation * facts.cell_occupancy)
    source = "computed"
    if table is not None:
        floor = table_floor(table, speed, length_m, facts.cell_occupancy)
        if floor is not None and floor[0] >= xoff:
            xoff, source = floor
    xon = ceil_kib(facts.pipeline_latency_bytes)
    size = ceil_kib(xoff + xon + (port_mtu if lanes >= 8 else 0))
    return HeadroomBytes(xoff, xon, size, source)


def dynamic_xoff_threshold(free_bytes: int, dynamic_th: int) -> int:
    """Estimated ingress occupancy at which a PG with dynamic thresholds sends XOFF when it is the only
    congested PG: alpha × free / (1 + alpha), alpha = 2 ** dynamic_th.

    >>> dynamic_xoff_threshold(1_000_000, 0)
    500000
    """
    alpha = 2.0**dynamic_th
    return int(alpha * max(free_bytes, 0) / (1 + alpha))
