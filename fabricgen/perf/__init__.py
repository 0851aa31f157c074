"""Performance model: collective bus bandwidth predicted from the fabric, scaling tables, nccl-tests logs.

Entry points for other stages (all pure):

* :func:`scaling_table` (fabric → :class:`ScalingTable`) and :func:`compare` (before, after → changes),
  used by ``fabricgen scaling`` and ``fabricgen plan``;
* :func:`predict` (fabric, placement → :class:`Prediction`) for one job;
* :func:`fabricgen.perf.nccl.parse_log` and :func:`fabricgen.perf.analyze.analyze` for nccl-tests output.
"""

from fabricgen.perf.model import (
    NO_FAILURES,
    Algorithm,
    Assumptions,
    Collective,
    Failures,
    Prediction,
    bus_factor,
    parse_failures,
    predict,
    predict_nonblocking,
)
from fabricgen.perf.scaling import ScalingChange, ScalingRow, ScalingTable, compare, scaling_table

__all__ = [
    "NO_FAILURES",
    "Algorithm",
    "Assumptions",
    "Collective",
    "Failures",
    "Prediction",
    "ScalingChange",
    "ScalingRow",
    "ScalingTable",
    "bus_factor",
    "compare",
    "parse_failures",
    "predict",
    "predict_nonblocking",
    "scaling_table",
]
