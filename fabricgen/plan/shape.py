"""The shape of a saved plan's parts that its readers use, checked when a plan is loaded.

A plan file is input: it may be edited, truncated or written by another version. :class:`fabricgen.plan.model.Plan`
keeps ``topology``, ``findings`` and the rest as plain dicts, and ``apply`` (``devices_to_change``, the inputs it
re-checks) and ``diagram --plan`` (the added and changed devices, the counts) index into them. These models state
exactly what those readers read — keys, types, no coercion — and allow every other key, so a plan that passes
:func:`shape_problems` cannot fail in a reader, and one that does not is refused with one problem per field.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Named(_Open):
    name: StrictStr


class _Counts(_Open):
    switches_added: StrictInt
    nodes_added: StrictInt
    switches_changed: StrictInt
    nodes_changed: StrictInt


class _Topology(_Open):
    counts: _Counts
    added: list[_Named]
    removed: list[_Named]
    changed: list[_Named]
    links: list[Any]
    settings: list[Any]


class _Input(_Open):
    path: StrictStr
    files: dict[StrictStr, StrictStr]
    digest: StrictStr
    ref: StrictStr | None = None
    commit: StrictStr | None = None
    version: StrictStr = ""


class _Inputs(_Open):
    base: _Input
    new: _Input


class _FileDiff(_Open):
    path: StrictStr
    change: StrictStr
    added: StrictInt
    removed: StrictInt
    diff: StrictStr


class _DeviceConfig(_Open):
    device: StrictStr
    platform: StrictStr
    change: StrictStr
    files: list[_FileDiff]
    source: Literal["rendered", "live"] = "rendered"


class _Findings(_Open):
    errors_after: StrictInt = 0


class PlanShape(_Open):
    fabric: StrictStr
    inputs: _Inputs
    topology: _Topology
    capacity: dict[str, Any]
    bom: dict[str, Any]
    findings: _Findings
    configs: dict[StrictStr, _DeviceConfig] | None = None
    scaling: dict[str, Any] | None = None
    notes: list[StrictStr] = []
    created: StrictStr = ""
    fabricgen: StrictStr = ""
    extra: dict[str, Any] = {}


def shape_problems(doc: dict[str, Any], limit: int = 20) -> list[tuple[str, str]]:
    """``(field.path, message)`` for each part of ``doc`` that is not as a saved plan has it (at most ``limit``)."""
    try:
        PlanShape.model_validate(doc)
    except ValidationError as exc:
        out = []
        for error in exc.errors()[:limit]:
            path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
            out.append((path, error["msg"]))
        return out
    return []
