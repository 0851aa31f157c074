"""Render stage: a resolved Fabric (and its computed QoS) → one native configuration per switch.

Two halves, as DESIGN.md asks: :mod:`fabricgen.render.data` builds per-device structured data in
Python (testable alone); templates under ``fabricgen/templates/<platform>/`` turn it into text, with
``StrictUndefined`` and no arithmetic. :mod:`fabricgen.render.platforms` is the registry of platforms.
Output is deterministic: nothing depends on dict order, time or the machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fabricgen.render.data import DeviceData, build_device
from fabricgen.render.engine import template
from fabricgen.render.platforms import PLATFORMS, Platform, platform
from fabricgen.render.sonic import render_config_db

if TYPE_CHECKING:
    from fabricgen.qos.model import FabricQos
    from fabricgen.topology.model import Fabric

__all__ = [
    "PLATFORMS",
    "DeviceConfig",
    "Platform",
    "RenderedFile",
    "build_device",
    "render_data",
    "render_device",
    "render_fabric",
]


@dataclass(frozen=True)
class RenderedFile:
    path: str  # relative, e.g. "leaf1/config_db.json"
    content: str


@dataclass(frozen=True)
class DeviceConfig:
    device: str
    platform: str
    files: tuple[RenderedFile, ...]
    main: str  # the text a driver pushes (frr.conf for frr, the CLI text for eos/nxos, ...)

    def file(self, name: str) -> RenderedFile:
        """The file called ``name`` (``"frr.conf"``) of this device."""
        for f in self.files:
            if f.path.rsplit("/", 1)[-1] == name:
                return f
        raise KeyError(name)


_BUILDERS = {"builder:sonic": render_config_db}


def render_data(data: DeviceData) -> DeviceConfig:
    """Render already built device data with its platform's templates."""
    plat = platform(data.platform)
    files: list[RenderedFile] = []
    main = ""
    for out in plat.files:
        builder = _BUILDERS.get(out.template)
        text = builder(data) if builder is not None else template(out.template).render(d=data)
        files.append(RenderedFile(f"{data.name}/{out.name}", text))
        if out.name == plat.main:
            main = text
    return DeviceConfig(data.name, data.platform, tuple(files), main)


def render_device(fabric: Fabric, name: str, qos: FabricQos | None = None) -> DeviceConfig:
    """Render switch ``name`` of ``fabric`` for its platform; with ``qos`` (``fabricgen.qos.compute``), RoCE
    QoS included, otherwise the underlay only."""
    return render_data(build_device(fabric, name, qos))


def render_fabric(fabric: Fabric) -> dict[str, DeviceConfig]:
    """Every switch of ``fabric``, with the fabric's computed QoS, sorted by name."""
    from fabricgen.qos import compute

    qos = compute(fabric)
    return {name: render_device(fabric, name, qos) for name in sorted(fabric.switches)}
