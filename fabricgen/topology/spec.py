"""The common form both ways of describing a fabric reduce to before resolution.

The explicit inventory (switches, nodes, links written by hand) and the rail-optimized intent both
produce these; :mod:`fabricgen.topology.resolve` turns them into one :class:`~.model.Fabric`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Role
from fabricgen.topology.frozen import fast_init


@fast_init
@dataclass(frozen=True, slots=True)
class SwitchSpec:
    name: str
    role: Role
    model: str
    platform: str | None
    id: int | None
    asn: int | None
    loopback: str | None
    unit: int | None
    rails: tuple[int, ...]
    pod: int | None
    src: SourcePos | None
    release: str | None = None  # as written (switch or intent tier); resolved with the fabric's releases
    hwsku: str | None = None  # SONiC HwSKU as written (switch or intent tier); unset: the platform's default
    adaptive_routing: bool | None = None  # as written (switch or intent tier); unset: fabric.adaptive_routing
    serial: str = ""  # chassis serial recorded in the inventory ("" not recorded)
    chassis_mac: str = ""  # chassis MAC recorded in the inventory, aa:bb:cc:dd:ee:ff ("" not recorded)
    drained: bool = False  # `maintenance: drain` written on the switch


@fast_init
@dataclass(frozen=True, slots=True)
class NodeSpec:
    name: str
    model: str
    unit: int | None
    src: SourcePos | None


@fast_init
@dataclass(frozen=True, slots=True)
class LinkSpec:
    a_device: str
    a_port: str
    b_device: str | None
    b_port: str | None
    speed: int | None
    length_m: float | None
    cable: str | None
    src: SourcePos | None
