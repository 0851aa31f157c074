"""The Plan: what an expansion (or any inventory change) adds, removes and changes, what it costs, and
what it risks — as plain data that serialises to JSON and back without loss.

A saved plan pins its inputs (:class:`~fabricgen.plan.inputs.InputRecord`: files and digests of both
inventories and fabricgen's version); :func:`fabricgen.plan.file.check_inputs` says whether they still
match. Apply reads :attr:`Plan.devices_to_change` and :attr:`Plan.configs` and nothing else it would
have to recompute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabricgen import __version__
from fabricgen.plan.configdiff import DeviceConfigDiff
from fabricgen.plan.inputs import InputRecord

FORMAT = 1


@dataclass(frozen=True)
class Plan:
    """A plan, as saved by ``fabricgen plan -o plan.json``.

    * ``base``/``new``: the two inputs, with the digests ``apply`` re-checks;
    * ``topology``: :meth:`fabricgen.plan.diff.FabricDiff.as_dict` — ``counts``, ``added``, ``removed``,
      ``changed`` (existing devices whose configuration changes, each with ``reasons``), ``links``,
      ``settings``;
    * ``capacity``: :func:`fabricgen.plan.capacity.capacity_delta`; ``bom``: :class:`~.bom.Bom` as a dict;
    * ``findings``: ``{"new": [...], "resolved": [...], "errors_after": n, "warnings_after": n}`` (each
      finding as :meth:`fabricgen.checks.Finding.as_dict`);
    * ``configs``: per-device config diffs (``None`` when the renderer was not available or not asked for);
    * ``scaling``: the scaling model's before/after comparison (``None`` when not available);
    * ``notes``: what the plan could not do (``"--live: no drift support installed"``).
    """

    fabric: str
    base: InputRecord
    new: InputRecord
    topology: dict[str, Any]
    capacity: dict[str, Any]
    bom: dict[str, Any]
    findings: dict[str, Any]
    configs: dict[str, DeviceConfigDiff] | None = None
    scaling: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()
    created: str = ""
    version: str = __version__
    format: int = FORMAT
    extra: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ questions apply and CI ask

    @property
    def has_changes(self) -> bool:
        t = self.topology
        return bool(t["added"] or t["removed"] or t["changed"] or t["links"] or t["settings"] or self.configs)

    @property
    def devices_to_change(self) -> list[str]:
        """Every device whose configuration must be pushed: added devices first, then changed ones."""
        names = [d["name"] for d in self.topology["added"]] + [d["name"] for d in self.topology["changed"]]
        if self.configs:
            names += [n for n in self.configs if n not in set(names)]
        return list(dict.fromkeys(names))

    @property
    def existing_devices_changed(self) -> list[str]:
        return [d["name"] for d in self.topology["changed"]]

    @property
    def devices_to_remove(self) -> list[str]:
        return [d["name"] for d in self.topology["removed"]]

    @property
    def has_errors(self) -> bool:
        return int(self.findings.get("errors_after", 0)) > 0

    # ------------------------------------------------------------------ JSON

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "fabricgen": self.version,
            "created": self.created,
            "fabric": self.fabric,
            "inputs": {"base": self.base.as_dict(), "new": self.new.as_dict()},
            "has_changes": self.has_changes,
            "devices_to_change": self.devices_to_change,
            "topology": self.topology,
            "capacity": self.capacity,
            "bom": self.bom,
            "findings": self.findings,
            "configs": None if self.configs is None else {k: v.as_dict() for k, v in self.configs.items()},
            "scaling": self.scaling,
            "notes": list(self.notes),
            **({"extra": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Plan:
        if d.get("format") != FORMAT:
            raise ValueError(f"plan format {d.get('format')!r} is not {FORMAT}; make the plan again")
        configs = d.get("configs")
        return cls(
            fabric=d["fabric"],
            base=InputRecord.from_dict(d["inputs"]["base"]),
            new=InputRecord.from_dict(d["inputs"]["new"]),
            topology=d["topology"],
            capacity=d["capacity"],
            bom=d["bom"],
            findings=d["findings"],
            configs=None if configs is None else {k: DeviceConfigDiff.from_dict(v) for k, v in configs.items()},
            scaling=d.get("scaling"),
            notes=tuple(d.get("notes", ())),
            created=d.get("created", ""),
            version=d.get("fabricgen", ""),
            format=d["format"],
            extra=d.get("extra", {}),
        )
