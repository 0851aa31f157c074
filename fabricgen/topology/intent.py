"""Expand a rail-optimized intent into switches, nodes and a deterministic cabling plan.

Design rules (roce.md §5):

* A scalable unit (SU) has ``nodes_per_unit`` servers and one leaf per rail; NIC *r* of every node of
  unit *u* goes to leaf ``(u, r)``. Leaves and their uplinks are built for the full unit even when
  nodes are missing.
* A leaf has ``U = ceil(down bandwidth / target ratio / uplink speed)`` uplinks, spread evenly over the
  spines: the spine count divides ``U``.
* Two tiers while the spines' radix holds every planned leaf; otherwise pods of units with their own
  spines (half down, half up at the spine ratio) and a core tier in planes (spine *j* of each pod goes to
  plane *j*), each spine's uplinks spread evenly over its plane's cores.

Port assignment is positional and stable: leaf host ports first (node order), then uplinks; a spine
port is fixed by the leaf's global index and the link's ordinal, so adding units only appends.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import cache

from fabricgen.errors import SourcePos
from fabricgen.inventory.schema import Catalog, Oversubscription, RailOptimized, Role, SwitchModel
from fabricgen.inventory.units import format_speed, parse_breakout
from fabricgen.topology.model import IntentSummary
from fabricgen.topology.portnames import port_name
from fabricgen.topology.spec import LinkSpec, NodeSpec, SwitchSpec

ID_STRIDE = 64
"""Spine and core ids are ``group × ID_STRIDE + index + 1``, so growing one group never renumbers another."""


@dataclass(frozen=True, slots=True)
class Expansion:
    switches: list[SwitchSpec]
    nodes: list[NodeSpec]
    links: list[LinkSpec]
    summary: IntentSummary


class IntentError(ValueError):
    """The intent cannot be built with the chosen models; the message says why and what to change.

    ``field`` is the key under ``intent.rail_optimized`` that the problem is about (``"core.model"``), or ``""``.
    """

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


DEFAULT_MAX_OBJECTS = 600_000
"""Largest fabric (switches + servers + links) fabricgen builds unless ``FABRICGEN_MAX_OBJECTS`` says otherwise.

A 100,000-GPU rail-optimized fabric is about 320,000 objects; the cap leaves room for twice that while
keeping a hostile 20-line intent (millions of servers) from taking minutes and gigabytes. The inventory
cannot raise it: only the environment of whoever runs fabricgen can."""


def max_objects() -> int:
    """The object cap in force (``FABRICGEN_MAX_OBJECTS``, default :data:`DEFAULT_MAX_OBJECTS`)."""
    raw = os.environ.get("FABRICGEN_MAX_OBJECTS", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_OBJECTS


def check_budget(switches: int, nodes: int, links: int, gpus: int | None = None, field: str = "") -> None:
    """Raise :class:`IntentError` naming the numbers when a fabric would exceed :func:`max_objects`."""
    total = switches + nodes + links
    cap = max_objects()
    if total > cap:
        what = f"{gpus:,} GPUs: " if gpus is not None else ""
        raise IntentError(
            f"this fabric would have {what}{switches:,} switches, {nodes:,} servers and {links:,} links "
            f"= {total:,} objects, above the limit of {cap:,} (set FABRICGEN_MAX_OBJECTS to raise it)",
            field,
        )


def _breakout(model: SwitchModel, model_name: str, speed: int) -> int:
    """How many ``speed`` ports one cage of ``model`` yields, if the model supports that mode."""
    for mode in model.breakouts:
        count, each = parse_breakout(mode)  # also reads modes like 1x1.6T from an inventory's catalog
        if each == speed:
            return count
    modes = ", ".join(model.breakouts)
    raise IntentError(f"switch model {model_name} cannot run {format_speed(speed)} ports (modes: {modes})")


def _smallest_divisor(n: int, fits: int, need_per_divisor: int) -> int | None:
    """Smallest d dividing n with ``need_per_divisor * n / d <= fits``; at least 2 when n allows it, since all
    uplinks on one upper switch is a single point of failure (FG-CAP-003 rejects it)."""
    for d in range(min(2, n), n + 1):
        if n % d == 0 and need_per_divisor * (n // d) <= fits:
            return d
    return None


def expand(intent: RailOptimized, catalog: Catalog, ratios: Oversubscription, src: SourcePos | None) -> Expansion:
    """Expand ``intent``; raises :class:`IntentError` with a one-line reason when it cannot be built."""
    server = catalog.servers.get(intent.server)
    if server is None:
        raise IntentError(f"unknown server model {intent.server!r}", "server")
    nic = catalog.nics.get(server.backend_nic)
    if nic is None:
        raise IntentError(f"server {intent.server} names unknown NIC model {server.backend_nic!r}")
    leaf_m = catalog.switches.get(intent.leaf.model)
    if leaf_m is None:
        raise IntentError(f"unknown leaf model {intent.leaf.model!r}", "leaf.model")
    spine_m = catalog.switches.get(intent.spine.model)
    if spine_m is None:
        raise IntentError(f"unknown spine model {intent.spine.model!r}", "spine.model")
    if intent.core is not None and intent.core.model not in catalog.switches:
        # checked even when two tiers suffice: a typo must not wait for the day the core is needed
        raise IntentError(f"unknown core model {intent.core.model!r}", "core.model")
    leaf_platform = intent.leaf.platform or leaf_m.platform
    spine_platform = intent.spine.platform or spine_m.platform

    rails = len(server.backend)
    npu = intent.nodes_per_unit
    host_speed = nic.speed
    up_speed = intent.leaf.uplink_speed or leaf_m.native_speed
    b_host = _breakout(leaf_m, intent.leaf.model, host_speed)
    b_up = _breakout(leaf_m, intent.leaf.model, up_speed)
    b_spine_down = _breakout(spine_m, intent.spine.model, up_speed)

    host_cages = math.ceil(npu / b_host)
    # at least two uplinks, so that a leaf can reach two spines (one uplink is a single point of failure);
    # the 1e-9 keeps float noise (e.g. 12800 / 1.1 / 800) from adding an uplink the target does not need
    uplinks = max(2, math.ceil(npu * host_speed / ratios.leaf / up_speed - 1e-9))
    leaf_cages = host_cages + math.ceil(uplinks / b_up)
    if leaf_cages > leaf_m.ports:
        raise IntentError(
            f"a leaf needs {host_cages} host cages + {math.ceil(uplinks / b_up)} uplink cages = {leaf_cages}, "
            f"but {intent.leaf.model} has {leaf_m.ports}; use fewer nodes_per_unit or a larger leaf"
        )
    planned = intent.planned_units or intent.units
    leaves_planned = planned * rails
    spine_logical = spine_m.ports * b_spine_down

    switches: list[SwitchSpec] = []
    nodes: list[NodeSpec] = []
    links: list[LinkSpec] = []

    # ---- tiers
    spines_fixed = intent.spine.count
    if spines_fixed is not None and uplinks % spines_fixed:
        raise IntentError(
            f"spine.count={spines_fixed} does not divide the {uplinks} uplinks of each leaf; "
            f"choose a divisor of {uplinks}"
        )
    two_tier_spines = (
        spines_fixed if spines_fixed is not None and leaves_planned * uplinks // spines_fixed <= spine_logical else None
    )
    if two_tier_spines is None and spines_fixed is None:
        two_tier_spines = _smallest_divisor(uplinks, spine_logical, leaves_planned)
    three_tier = two_tier_spines is None

    if not three_tier:
        assert two_tier_spines is not None
        spines_per_pod, pods, units_per_pod = two_tier_spines, 1, planned
        spine_down = spine_logical
        spine_up = 0
        cores_per_plane = 0
    else:
        if intent.core is None:
            need = leaves_planned * uplinks
            if spines_fixed is not None:  # name the count the user fixed, and whether more spines would do
                enough = _smallest_divisor(uplinks, spine_logical, leaves_planned)
                more = f", set spine.count: {enough}" if enough is not None else ""
                raise IntentError(
                    f"{leaves_planned} leaves × {uplinks} uplinks = {need} spine ports exceed what spine.count="
                    f"{spines_fixed} can hold in a two-tier fabric ({spines_fixed} spines × {spine_logical} ports of "
                    f"{intent.spine.model} = {spines_fixed * spine_logical}); add a `core:` tier{more} "
                    f"or use a larger spine"
                )
            raise IntentError(
                f"{leaves_planned} leaves × {uplinks} uplinks = {need} spine ports exceed what a two-tier "
                f"fabric of {intent.spine.model} can hold ({uplinks} spines × {spine_logical} ports); "
                f"add a `core:` tier or use a larger spine"
            )
        spines_per_pod = spines_fixed or uplinks
        up_speed_core = intent.spine_uplink_speed or spine_m.native_speed
        b_spine_up = _breakout(spine_m, intent.spine.model, up_speed_core)
        # split spine cages between down and up so that down/up bandwidth ≈ the spine target ratio
        best: tuple[int, int] | None = None
        for down_cages in range(spine_m.ports - 1, 0, -1):
            down = down_cages * b_spine_down
            up = math.ceil(down * up_speed / ratios.spine / up_speed_core)
            if down_cages + math.ceil(up / b_spine_up) <= spine_m.ports:
                best = (down, up)
                break
        if best is None:
            raise IntentError(f"spine model {intent.spine.model} cannot split its ports into down and up links")
        spine_down, spine_up = best
        links_per_spine = uplinks // spines_per_pod
        units_per_pod = spine_down // (links_per_spine * rails)
        if units_per_pod < 1:
            raise IntentError(
                f"one unit needs {links_per_spine * rails} down ports on each spine, "
                f"but a {intent.spine.model} has {spine_down} in a three-tier design"
            )
        pods = math.ceil(planned / units_per_pod)
        core_name = intent.core.model
        core_m = catalog.switches.get(core_name)
        if core_m is None:
            raise IntentError(f"unknown core model {core_name!r}")
        b_core = _breakout(core_m, core_name, up_speed_core)
        core_logical = core_m.ports * b_core
        fixed_cores = intent.core.count
        if fixed_cores is not None:
            if fixed_cores % spines_per_pod or spine_up % (fixed_cores // spines_per_pod):
                raise IntentError(
                    f"core.count={fixed_cores} must be a multiple of the {spines_per_pod} planes and "
                    f"split each spine's {spine_up} uplinks evenly"
                )
            cores_per_plane = fixed_cores // spines_per_pod
            if pods * spine_up // cores_per_plane > core_logical:
                raise IntentError(f"core.count={fixed_cores} leaves too few core ports for {pods} pods")
        else:
            found = _smallest_divisor(spine_up, core_logical, pods)
            if found is None:
                raise IntentError(
                    f"{pods} pods × {spine_up} spine uplinks exceed a plane of {core_name} "
                    f"({spine_up} cores × {core_logical} ports); a larger core model is needed"
                )
            cores_per_plane = found
    if spines_per_pod > ID_STRIDE or cores_per_plane > ID_STRIDE:
        raise IntentError(
            f"{max(spines_per_pod, cores_per_plane)} switches in one spine pod or core plane; "
            f"fabricgen numbers at most {ID_STRIDE} per group"
        )
    summary = IntentSummary(
        server=intent.server,
        units=intent.units,
        planned_units=planned,
        nodes_per_unit=npu,
        rails=rails,
        spines_per_pod=spines_per_pod,
        pods=pods if three_tier else 1,
        cores=cores_per_plane * spines_per_pod if three_tier else 0,
        three_tier=three_tier,
    )

    # ---- size, computed before anything is built
    built_pods = math.ceil(intent.units / units_per_pod) if three_tier else 1
    total_nodes = intent.nodes if intent.nodes is not None else intent.units * npu
    n_spines = built_pods * spines_per_pod
    check_budget(
        switches=n_spines + summary.cores + intent.units * rails,
        nodes=total_nodes,
        links=intent.units * rails * uplinks + (n_spines * spine_up if three_tier else 0) + total_nodes * rails,
        gpus=total_nodes * server.gpus,
        field="units",
    )

    # ---- switches (only the pods that hold built units exist)
    spine_names: dict[tuple[int, int], str] = {}
    for pod in range(built_pods):
        for j in range(spines_per_pod):
            name = f"spine-p{pod + 1:02d}-{j + 1:02d}" if three_tier else f"spine-{j + 1:02d}"
            spine_names[pod, j] = name
            switches.append(
                SwitchSpec(
                    name,
                    Role.SPINE,
                    intent.spine.model,
                    spine_platform,
                    pod * ID_STRIDE + j + 1,
                    None,
                    None,
                    None,
                    (),
                    pod if three_tier else None,
                    src,
                    release=intent.spine.release,
                    hwsku=intent.spine.hwsku,
                    adaptive_routing=intent.spine.adaptive_routing,
                )
            )
    core_names: dict[tuple[int, int], str] = {}
    if three_tier:
        assert intent.core is not None
        core_m = catalog.switches[intent.core.model]
        core_platform = intent.core.platform or core_m.platform
        for plane in range(spines_per_pod):
            for c in range(cores_per_plane):
                name = f"core-{plane + 1:02d}-{c + 1:02d}"
                core_names[plane, c] = name
                switches.append(
                    SwitchSpec(
                        name,
                        Role.CORE,
                        intent.core.model,
                        core_platform,
                        plane * ID_STRIDE + c + 1,
                        None,
                        None,
                        None,
                        (),
                        None,
                        src,
                        release=intent.core.release,
                        hwsku=intent.core.hwsku,
                        adaptive_routing=intent.core.adaptive_routing,
                    )
                )

    length_default = None  # links take the fabric's per-role default length
    per_spine = uplinks // spines_per_pod
    lanes_l, lanes_s = leaf_m.lanes, spine_m.lanes
    # port names by position, each made once: every leaf has the same uplink ports, and every spine of a pod the
    # same down port for a given (leaf, link) position
    leaf_up_ports = [port_name(leaf_platform, host_cages + up // b_up + 1, up % b_up, b_up, lanes_l)
                     for up in range(uplinks)]

    @cache
    def spine_down_port(logical: int) -> str:
        return port_name(spine_platform, logical // b_spine_down + 1, logical % b_spine_down, b_spine_down, lanes_s)

    for u in range(intent.units):
        unit = u + 1
        pod = u // units_per_pod if three_tier else 0
        unit_in_pod = u - pod * units_per_pod
        for r in range(rails):
            leaf = f"leaf-su{unit:03d}-r{r}"
            switches.append(
                SwitchSpec(
                    leaf,
                    Role.LEAF,
                    intent.leaf.model,
                    leaf_platform,
                    u * rails + r + 1,
                    None,
                    None,
                    unit,
                    (r,),
                    pod if three_tier else None,
                    src,
                    release=intent.leaf.release,
                    hwsku=intent.leaf.hwsku,
                    adaptive_routing=intent.leaf.adaptive_routing,
                )
            )
            leaf_index = (unit_in_pod if three_tier else u) * rails + r
            for up, lport in enumerate(leaf_up_ports):
                j, k = up % spines_per_pod, up // spines_per_pod
                sport = spine_down_port(leaf_index * per_spine + k)
                links.append(LinkSpec(leaf, lport, spine_names[pod, j], sport, up_speed, length_default, None, src))
    # spine → core
    if three_tier:
        assert intent.core is not None
        core_m = catalog.switches[intent.core.model]
        core_platform = intent.core.platform or core_m.platform
        up_speed_core = intent.spine_uplink_speed or spine_m.native_speed
        b_spine_up = _breakout(spine_m, intent.spine.model, up_speed_core)
        b_core = _breakout(core_m, intent.core.model, up_speed_core)
        down_cages = math.ceil(spine_down / b_spine_down)
        per_core = spine_up // cores_per_plane
        spine_up_ports = [
            port_name(spine_platform, down_cages + v // b_spine_up + 1, v % b_spine_up, b_spine_up, lanes_s)
            for v in range(spine_up)
        ]

        lanes_c = core_m.lanes

        @cache
        def core_port(logical: int) -> str:
            return port_name(core_platform, logical // b_core + 1, logical % b_core, b_core, lanes_c)

        for (pod, j), spine in spine_names.items():
            for v, sport in enumerate(spine_up_ports):
                c, k = v % cores_per_plane, v // cores_per_plane
                cport = core_port(pod * per_core + k)
                links.append(LinkSpec(spine, sport, core_names[j, c], cport, up_speed_core, None, None, src))
    # nodes and host links
    ifnames = [card.ifname for card in server.backend]
    leaf_ports = [port_name(leaf_platform, n // b_host + 1, n % b_host, b_host, lanes_l) for n in range(npu)]
    for i in range(total_nodes):
        u, n = divmod(i, npu)
        unit = u + 1
        name = f"gpu-su{unit:03d}-n{n + 1:02d}"
        nodes.append(NodeSpec(name, intent.server, unit, src))
        lport = leaf_ports[n]  # node n of every unit is on the same port of each of its unit's leaves
        for r, ifname in enumerate(ifnames):
            links.append(LinkSpec(name, ifname, f"leaf-su{unit:03d}-r{r}", lport, host_speed, None, None, src))
    return Expansion(switches, nodes, links, summary)
