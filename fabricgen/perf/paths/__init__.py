"""Multipath what-if: the flows of a collective placed on the fabric's equal-cost paths (ECMP as rendered,
more queue pairs, adaptive routing, packet spraying, failures), and what each costs (see :mod:`.core`).

Entry points (pure): :func:`paths_report` for ``fabricgen paths``; :func:`collision_efficiency` for the
``scaling`` table and ``plan`` (one number: the share of the balanced bandwidth a job keeps).
"""

from fabricgen.perf.paths.core import (
    Job,
    JobResult,
    LinkLoad,
    PathsReport,
    Remedy,
    RemedyResult,
    build_graph,
    collision_efficiency,
    job_flows,
    packed_nodes,
    parse_job,
    paths_report,
    rendered_hash,
    rendered_remedy,
    route,
    simulate,
    standard_remedies,
    tree_edges,
)

__all__ = [
    "Job",
    "JobResult",
    "LinkLoad",
    "PathsReport",
    "Remedy",
    "RemedyResult",
    "build_graph",
    "collision_efficiency",
    "job_flows",
    "packed_nodes",
    "parse_job",
    "paths_report",
    "rendered_hash",
    "rendered_remedy",
    "route",
    "simulate",
    "standard_remedies",
    "tree_edges",
]
