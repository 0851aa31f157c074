"""The plan's ECMP-collision risk line: does the change make hashed paths cost a full-fabric job more?

The job is the whole fabric in scattered rank order (a fragmented cluster: every ring neighbour on another
leaf, every leaf's uplinks as busy as they get), with ECMP as rendered (adaptive routing where it is on) and one
queue pair per connection,
simulated by :func:`fabricgen.perf.paths.collision_efficiency` before and after the change. A drop of more
than :data:`RISK_DROP` in its median collision efficiency is a risk line.
"""

from __future__ import annotations

from typing import Any

from fabricgen.perf.paths import parse_job, rendered_remedy, simulate
from fabricgen.topology.model import Fabric

RISK_DROP = 0.02
"""Two percentage points: smaller moves are within the spread over hash seeds."""
SEEDS = 8
MAX_GPUS = 16_384
"""Above this size the simulation is left to ``fabricgen paths`` (the plan stays quick)."""


def _efficiency(fabric: Fabric) -> tuple[float, str | None]:
    job = parse_job(fabric, f"{fabric.gpus}:scattered")
    result = simulate(fabric, job, [rendered_remedy(fabric)], seeds=SEEDS, worst=1).results[0]
    worst = result.worst_links[0].link if result.worst_links else None
    return result.median_efficiency, worst


def collision_risk(old: Fabric, new: Fabric) -> dict[str, Any] | None:
    """``{"before": eff, "after": eff, "risk": bool, "message": str}`` for the whole-fabric scattered
    all-reduce (efficiencies 0…1); ``None`` when either fabric has no GPU or more than :data:`MAX_GPUS`.

    >>> collision_risk(before, after)["message"]  # doctest: +SKIP
    'ECMP collisions: a whole-fabric all-reduce in scattered rank order keeps 40% → 31% of its ...'
    """
    if not 0 < old.gpus <= MAX_GPUS or not 0 < new.gpus <= MAX_GPUS:
        return None
    before, _ = _efficiency(old)
    after, worst = _efficiency(new)
    risk = after < before - RISK_DROP
    message = (
        f"ECMP collisions: a whole-fabric all-reduce in scattered rank order keeps {before:.0%} → {after:.0%} "
        f"of its balanced bandwidth (1 QP per connection, median of {SEEDS} hash seeds"
        + (f"; worst link {worst}" if worst else "")
        + "); more queue pairs, adaptive routing or packet spraying recover it (fabricgen paths)"
    )
    return {"before": round(before, 4), "after": round(after, 4), "risk": risk, "message": message}
