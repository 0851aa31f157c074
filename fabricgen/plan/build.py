"""Make a :class:`~fabricgen.plan.model.Plan` from two fabrics (and, when available, their renderings,
their QoS, the scaling model and the live devices)."""

from __future__ import annotations

import datetime
import importlib.util
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from fabricgen.checks import Finding, Severity, run_checks
from fabricgen.plan.bom import bill_of_materials
from fabricgen.plan.capacity import capacity_delta
from fabricgen.plan.configdiff import DeviceConfigDiff, DeviceConfigLike, diff_configs
from fabricgen.plan.diff import DeviceChange, FabricDiff, compute_qos, diff_fabrics
from fabricgen.plan.inputs import InputRecord
from fabricgen.plan.model import Plan
from fabricgen.topology.model import Fabric


def findings_delta(before: list[Finding], after: list[Finding]) -> dict[str, Any]:
    """Findings that appear with the change (``new``) and those it fixes (``resolved``), matched by code and
    subject (a finding whose numbers move but that stays failing is neither)."""
    key_a = {(f.code, f.subject) for f in before}
    key_b = {(f.code, f.subject) for f in after}
    new = [f.as_dict() for f in after if (f.code, f.subject) not in key_a and f.severity is not Severity.INFO]
    resolved = [f.as_dict() for f in before if (f.code, f.subject) not in key_b and f.severity is not Severity.INFO]
    return {
        "new": new,
        "resolved": resolved,
        "errors_before": sum(1 for f in before if f.severity is Severity.ERROR),
        "errors_after": sum(1 for f in after if f.severity is Severity.ERROR),
        "warnings_after": sum(1 for f in after if f.severity is Severity.WARNING),
        "errors": [f.as_dict() for f in after if f.severity is Severity.ERROR],
    }


def renderer_available() -> bool:
    return importlib.util.find_spec("fabricgen.render") is not None and hasattr(
        importlib.import_module("fabricgen.render"), "render_fabric"
    )


RENDER_ALL_UP_TO = 2000
"""Render every switch of both fabrics up to this many switches; above it, only the structurally changed ones."""


def render(fabric: Fabric, names: list[str] | None = None, qos: Any | None = None) -> dict[str, DeviceConfigLike]:
    """The renderer's seam: ``fabricgen.render.render_fabric(fabric)``, or ``render_device(fabric, name, qos)``
    for each of ``names``."""
    mod = importlib.import_module("fabricgen.render")
    if names is None or not hasattr(mod, "render_device"):
        result: dict[str, DeviceConfigLike] = dict(mod.render_fabric(fabric))
        return result if names is None else {n: result[n] for n in names if n in result}
    return {n: mod.render_device(fabric, n, qos) for n in names if n in fabric.switches}


def scaling(old: Fabric, new: Fabric) -> dict[str, Any] | None:
    """The scaling model's before/after comparison (``fabricgen.perf``): ``{"summary": [message, …],
    "crossings": [message, …], "changes": [ScalingChange.as_dict(), …], "before": whole-fabric row,
    "after": whole-fabric row}``; ``None`` when ``fabricgen.perf`` is not installed.

    A *crossing* is a job size that, after the expansion, first crosses an oversubscribed tier.
    """
    if importlib.util.find_spec("fabricgen.perf") is None:
        return None
    perf = importlib.import_module("fabricgen.perf")
    before, after = perf.scaling_table(old), perf.scaling_table(new)
    changes = perf.compare(before, after)
    crossings = [c.message for c in changes if c.kind == "crossing"]
    summary = [c.message for c in changes if c.kind == "fabric"] + crossings
    return {
        "summary": summary,
        "crossings": crossings,
        "changes": [c.as_dict() for c in changes],
        "before": before.whole.as_dict() if before.whole else None,
        "after": after.whole.as_dict() if after.whole else None,
    }


def _merge_config_changes(diff: FabricDiff, configs: Mapping[str, DeviceConfigDiff], new: Fabric) -> FabricDiff:
    """Devices whose rendered configuration changes although nothing structural did are changed too."""
    known = {d.name for d in (*diff.added, *diff.removed, *diff.changed)}
    extra = []
    for name, c in configs.items():
        if name in known or c.change != "changed":
            continue
        sw = new.switches.get(name)
        node = new.nodes.get(name)
        extra.append(
            DeviceChange(
                name=name,
                kind="switch" if sw is not None else "node",
                role=sw.role.value if sw is not None else "server",
                change="changed",
                model=sw.model if sw is not None else node.model if node is not None else "",
                unit=sw.unit if sw is not None else node.unit if node is not None else None,
                reasons=(f"rendered configuration changes (+{c.added} −{c.removed} lines)",),
            )
        )
    if not extra:
        return diff
    counts = dict(diff.counts)
    counts["switches_changed"] += sum(1 for d in extra if d.kind == "switch")
    counts["nodes_changed"] += sum(1 for d in extra if d.kind == "node")
    return replace(diff, changed=diff.changed + tuple(extra), counts=counts)


def _with_config_reasons(diff: FabricDiff, configs: Mapping[str, DeviceConfigDiff]) -> FabricDiff:
    changed = []
    for d in diff.changed:
        c = configs.get(d.name)
        if c is not None and not d.reasons[-1].startswith("rendered configuration"):
            d = replace(d, reasons=(*d.reasons, f"config +{c.added} −{c.removed} lines"))
        changed.append(d)
    return replace(diff, changed=tuple(changed))


def _with_collision_risk(scale: dict[str, Any], old: Fabric, new: Fabric, notes: list[str]) -> dict[str, Any]:
    """``scale`` with ``collisions`` (see :mod:`fabricgen.plan.collisions`), and its message among the summary
    lines when the change raises the ECMP collision loss."""
    from fabricgen.plan.collisions import collision_risk

    try:
        risk = collision_risk(old, new)
    except Exception as exc:  # the path simulation failing must not hide the rest of the plan
        notes.append(f"ECMP collision risk not included: {type(exc).__name__}: {exc}")
        return scale
    if risk is None:
        return scale
    summary = [*scale.get("summary", []), risk["message"]] if risk["risk"] else scale.get("summary", [])
    return {**scale, "summary": summary, "collisions": risk}


def make_plan(
    old: Fabric,
    new: Fabric,
    base: InputRecord,
    target: InputRecord,
    *,
    configs: bool = True,
    qos: bool = True,
    old_configs: Mapping[str, DeviceConfigLike] | None = None,
    new_configs: Mapping[str, DeviceConfigLike] | None = None,
    live_diffs: Mapping[str, DeviceConfigDiff] | None = None,
    notes: tuple[str, ...] = (),
) -> Plan:
    """Everything ``fabricgen plan`` reports, as one :class:`Plan`.

    ``configs``: render both fabrics (when :mod:`fabricgen.render` is present, or use ``old_configs``/
    ``new_configs`` when given) and diff every device that exists in both; devices whose rendering changes
    are added to the changed set even when nothing structural did. ``live_diffs``: config diffs against the
    running devices (``--live``), which replace the rendered "before" for those devices.
    """
    notes_l = list(notes)
    old_q = new_q = None
    if qos:
        try:
            old_q, new_q = compute_qos(old), compute_qos(new)
        except Exception as exc:  # a QoS computation that fails must not hide the rest of the plan
            notes_l.append(f"QoS values were not compared: {type(exc).__name__}: {exc}")
            old_q = new_q = None
    diff = diff_fabrics(old, new, qos=old_q is not None, old_qos=old_q, new_qos=new_q)
    if qos and not diff.qos_compared and not any(n.startswith("QoS") for n in notes_l):
        notes_l.append("QoS values were not compared (fabricgen.qos is not available)")
    config_diffs: dict[str, DeviceConfigDiff] | None = None
    if configs:
        if old_configs is None or new_configs is None:
            if renderer_available():
                common = sorted(old.switches.keys() & new.switches.keys())
                if len(new.switches) > RENDER_ALL_UP_TO:
                    common = sorted(diff.changed_names("switch"))
                    notes_l.append(
                        f"{len(new.switches)} switches: configurations rendered and compared only for the "
                        f"{len(common)} structurally changed ones"
                    )
                try:
                    old_configs, new_configs = render(old, common, old_q), render(new, common, new_q)
                except Exception as exc:
                    notes_l.append(
                        f"configuration diffs were not made: the renderer failed: {type(exc).__name__}: {exc}"
                    )
            else:
                notes_l.append("configuration diffs were not made (fabricgen.render is not available)")
        if old_configs is not None and new_configs is not None:
            common_set = old_configs.keys() & new_configs.keys()
            config_diffs = diff_configs(old_configs, new_configs, common_set)
            diff = _with_config_reasons(_merge_config_changes(diff, config_diffs, new), config_diffs)
    if live_diffs is not None:
        config_diffs = {**(config_diffs or {}), **live_diffs}
    before, after = run_checks(old), run_checks(new)
    try:
        scale = scaling(old, new)
    except Exception as exc:  # the scaling model failing must not hide the rest of the plan
        scale = None
        notes_l.append(f"scaling before/after not included: {type(exc).__name__}: {exc}")
    else:
        if scale is None:
            notes_l.append("scaling before/after not included (fabricgen.perf is not installed)")
        else:
            scale = _with_collision_risk(scale, old, new, notes_l)
    bom = bill_of_materials(old, new, diff)
    return Plan(
        fabric=new.name,
        base=base,
        new=target,
        topology=diff.as_dict(),
        capacity=capacity_delta(old, new),
        bom=bom.as_dict(),
        findings=findings_delta(before, after),
        configs=config_diffs,
        scaling=scale,
        notes=tuple(notes_l),
        created=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
