"""The rail-optimized intents the benchmarks measure: DGX H100 in 256-GPU units on SN5600 leaves (400G
uplink breakouts), spines and, once two tiers no longer hold the fabric, a core tier."""

from __future__ import annotations

INTENT = """\
fabric: {{name: {name}}}
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 32
    units: {units}
    leaf: {{model: sn5600, uplink_speed: 400G}}
    spine: {{model: sn5600}}
    core: {{model: sn5600}}
"""


def intent_yaml(name: str, units: int) -> str:
    """The inventory text of a fabric of ``units`` × 256 GPUs."""
    return INTENT.format(name=name, units=units)
