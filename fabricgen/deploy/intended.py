"""The intended configuration of each device: the render stage's output (``fabricgen.render``)."""

from __future__ import annotations

from fabricgen.topology.model import Fabric


def intended_configs(fabric: Fabric, names: list[str] | None = None) -> dict[str, str]:
    """Device → the text its driver pushes (``DeviceConfig.main``), for ``names`` or every switch."""
    from fabricgen.render import render_fabric

    rendered = render_fabric(fabric)
    wanted = names if names is not None else list(fabric.switches)
    return {n: rendered[n].main for n in wanted if n in rendered}
