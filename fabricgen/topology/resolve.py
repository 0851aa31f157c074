"""Resolve an inventory into a :class:`Fabric`: references, ports, cabling, addresses and ASNs.

Every problem that makes the input unusable (an unknown model, device or port, a duplicate name or id,
a port cabled twice, an impossible intent, an exhausted pool) is collected with its source position and
raised together as one :class:`InputError`. Design issues that still leave a usable model (a speed
mismatch, an over-full switch, a missing uplink) are left for :mod:`fabricgen.checks`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from ipaddress import IPv4Network
from operator import attrgetter
from typing import NamedTuple

from fabricgen.errors import InputError, Problem, SourcePos
from fabricgen.inventory.catalog import PLATFORMS, adaptive_routing_problem, merged
from fabricgen.inventory.load import LoadedInventory
from fabricgen.inventory.raw import raw_problems
from fabricgen.inventory.releases import release_problem, resolve_release
from fabricgen.inventory.schema import Catalog, Inventory, Role, SwitchModel
from fabricgen.inventory.sonic_platform import sonic_platform
from fabricgen.inventory.units import parse_breakout
from fabricgen.topology import addressing
from fabricgen.topology.intent import IntentError, check_budget, expand
from fabricgen.topology.model import (
    DesignTargets,
    End,
    Fabric,
    HostNic,
    IntentSummary,
    Link,
    LinkKind,
    Node,
    Port,
    PortKind,
    Switch,
)
from fabricgen.topology.portnames import parse_port
from fabricgen.topology.spec import LinkSpec, NodeSpec, SwitchSpec

_RANK = {Role.LEAF: 1, Role.SPINE: 2, Role.CORE: 3}
_ASN_FIELD = {Role.LEAF: "leaf_base", Role.SPINE: "spine_base", Role.CORE: "core"}
_CAGE_SUB = attrgetter("cage", "sub")  # a switch's ports in front-panel order
_KIND_BY_RANKS = {(0, 1): LinkKind.HOST, (1, 2): LinkKind.LEAF_SPINE, (2, 3): LinkKind.SPINE_CORE}


@cache
def cable_class(length_m: float) -> str:
    """The cable or optic a run of this length needs at 400G/800G.

    >>> cable_class(2), cable_class(40), cable_class(300), cable_class(1500)
    ('DAC', 'MMF-SR', 'SMF-DR', 'SMF-FR')
    """
    if length_m <= 3:
        return "DAC"
    if length_m <= 50:
        return "MMF-SR"
    if length_m <= 500:
        return "SMF-DR"
    return "SMF-FR"


def _link_field(spec: LinkSpec, which: str) -> str:
    """Field path of a link end in problem messages: ``links[gpu01:enp24s0np0].b``."""
    return f"links[{spec.a_device}:{spec.a_port}].{which}"


@dataclass
class _SwitchBuild:
    spec: SwitchSpec
    platform: str
    native: int
    lanes: int
    cages: int
    ports: list[Port] = field(default_factory=list)
    modes: tuple[str, ...] = ()  # the model's breakout modes, e.g. ("1x800G", "2x400G")
    release: str = ""
    hwsku: str = ""
    adaptive_routing: bool = False
    breakout_of: dict[int, int] = field(default_factory=dict)  # link speed → ports per cage (link_breakout)
    # (port, speed) → the port's _EndInfo; one dict shared by every switch of the same platform, lanes, modes,
    # native speed and role (a port name means the same on all of them)
    ends: dict[tuple[str, int], _EndInfo] = field(default_factory=dict)


@cache
def link_breakout(modes: tuple[str, ...], native: int, lanes: int, speed: int) -> int:
    """Into how many ports a cage is split to run ``speed``: the model's mode for that speed (the same rule
    the intent expansion uses), else native ÷ speed when that splits the cage's lanes evenly, else 1 (the
    check FG-PORT-003 then reports the unsupported speed).

    >>> link_breakout(("1x800G", "2x400G"), 800, 8, 400), link_breakout((), 800, 8, 50), link_breakout((), 800, 8, 300)
    (2, 1, 1)
    """
    for mode in modes:
        count, each = parse_breakout(mode)
        if each == speed:
            return count
    if native % speed == 0 and lanes % (native // speed) == 0:
        return native // speed
    return 1


class _EndInfo(NamedTuple):
    """What resolution needs to know of one end of a cable, besides its device and port name. It depends only
    on the port name, the link speed and the switch's shape, so one is made per distinct (shape, port, speed)
    and shared by every switch of that shape (and one per speed for every NIC)."""

    rank: int  # 0 NIC, 1 leaf, 2 spine, 3 core
    speed: int
    cage: int
    sub: int
    breakout: int
    lane: int  # first SerDes lane of the port on its switch (its /31's offset)


def explicit_specs(loaded: LoadedInventory) -> tuple[list[SwitchSpec], list[NodeSpec], list[LinkSpec]]:
    inv = loaded.inventory
    switches = [
        SwitchSpec(
            s.name,
            s.role,
            s.model,
            s.platform,
            s.id,
            s.asn,
            str(s.loopback) if s.loopback else None,
            s.unit,
            tuple(s.rails),
            s.pod,
            loaded.item_pos("switches", i),
            release=s.release,
            hwsku=s.hwsku,
            adaptive_routing=s.adaptive_routing,
            serial=s.serial or "",
            chassis_mac=s.chassis_mac or "",
            drained=s.maintenance == "drain",
        )
        for i, s in enumerate(inv.switches)
    ]
    nodes = [NodeSpec(n.name, n.model, n.unit, loaded.item_pos("nodes", i)) for i, n in enumerate(inv.nodes)]
    links = []
    for i, link in enumerate(inv.links):
        a_dev, a_port = link.a.split(":", 1)
        b_dev, b_port = link.b.split(":", 1) if link.b else (None, None)
        links.append(
            LinkSpec(a_dev, a_port, b_dev, b_port, link.speed, link.length_m, link.cable, loaded.item_pos("links", i))
        )
    return switches, nodes, links


def resolve(loaded: LoadedInventory) -> Fabric:
    """Build the fabric; raises :class:`InputError` with every problem found."""
    return _Resolver(loaded).run()


class _Resolver:
    def __init__(self, loaded: LoadedInventory) -> None:
        self.loaded = loaded
        self.inv: Inventory = loaded.inventory
        self.problems: list[Problem] = list(loaded.pending)
        self.catalog: Catalog = merged(self.inv.catalog)
        self.exhausted: set[tuple[str, str]] = set()
        self.nic_qos = {n.name: n.nic_qos for n in self.inv.nodes if n.nic_qos is not None}
        self.declared: dict[str, SourcePos | None] = {}
        self.unusable: set[str] = set(loaded.dropped)  # defined, with a problem reported: links to it stay quiet
        self._items: dict[SourcePos, tuple[str, int]] | None = None
        # (where a platform, release or hwsku was written, field, its problem) → the switches it names
        self.field_problems: dict[tuple[SourcePos | None, str, str], list[str]] = {}
        # (where adaptive_routing was written, field, why the switch cannot run it) → the switches it names
        self.ar_problems: dict[tuple[SourcePos | None, str, str], list[str]] = {}
        self._explicit: frozenset[str] = frozenset(s.name for s in self.inv.switches)
        self._backend: dict[str, tuple[frozenset[str], int]] = {}  # server model → its NICs' names, their speed
        self._shapes: dict[tuple[object, ...], dict[tuple[str, int], _EndInfo]] = {}
        self._nic_ends: dict[int, _EndInfo] = {}  # NIC speed → the _EndInfo of every NIC port

    def at(self, src: SourcePos | None, key: str) -> SourcePos | None:
        """The position of field ``key`` of the explicit switch, node or link written at ``src`` (its item's
        position); ``src`` itself when the object came from the intent or the field was not written."""
        if src is None:
            return None
        if self._items is None:
            self._items = {}
            for section in ("switches", "nodes", "links"):
                for i in range(len(getattr(self.inv, section))):
                    item = self.loaded.item_pos(section, i)
                    if item is not None:
                        kept = self.loaded.kept.get(section) if self.loaded.kept else None
                        self._items.setdefault(item, (section, kept[i] if kept else i))
        where = self._items.get(src)
        if where is None:
            return src
        return self.loaded.source.find((*where, key)) or src

    def problem(self, pos: SourcePos | None, field_: str, message: str) -> None:
        self.problems.append(Problem(pos, field_, message))

    def run(self) -> Fabric:
        self._check_catalog()
        switches, nodes, links = explicit_specs(self.loaded)
        summary: IntentSummary | None = None
        if self.inv.intent is not None:
            pos = self.loaded.pos("intent", "rail_optimized")
            try:
                exp = expand(self.inv.intent.rail_optimized, self.catalog, self.inv.fabric.oversubscription, pos)
            except IntentError as exc:
                keys = exc.field.split(".") if exc.field else []
                where = self.loaded.pos("intent", "rail_optimized", *keys) or pos
                self.problem(where, ".".join(["intent.rail_optimized", *keys]), str(exc))
            else:
                switches = exp.switches + switches
                nodes = exp.nodes + nodes
                links = exp.links + links
                summary = exp.summary
        try:  # the intent was bounded before it was expanded; this bounds what is written out too
            check_budget(len(switches), len(nodes), len(links))
        except IntentError as exc:
            self.problem(self.loaded.pos(), "", str(exc))
        if len(self.problems) > len(self.loaded.pending):  # catalog or intent unusable: stop here
            raise InputError(self.problems)
        builds = self._switches(switches)
        self._report_adaptive_routing()
        node_specs = self._nodes(nodes)
        fabric_links, nic_links = self._links(links, builds, node_specs)
        self.problems.extend(raw_problems(self.loaded))
        if self.problems:
            raise InputError(self.problems)
        final_switches = self._finish_switches(builds)
        self._check_drain(final_switches)
        final_nodes = self._finish_nodes(node_specs, nic_links)
        if self.problems:
            raise InputError(self.problems)
        s = self.inv.fabric
        return Fabric(
            name=s.name,
            settings=s,
            catalog=self.catalog,
            switches=final_switches,
            nodes=final_nodes,
            links=tuple(fabric_links),
            targets=DesignTargets(
                s.oversubscription.leaf, s.oversubscription.spine, s.failure.one_spine_down, s.failure.one_uplink_down
            ),
            intent=summary,
            qos_policy=self.inv.qos,
            base=self.inv.base,
            base_overrides={w.name: w.base for w in self.inv.switches if w.base is not None},
            source=self.loaded.source,
        )

    # ------------------------------------------------------------------ catalog and devices

    def _check_catalog(self) -> None:
        cat = self.catalog
        for name, model in cat.switches.items():
            if model.platform not in PLATFORMS:
                self.problem(
                    self.loaded.pos("catalog", "switches", name, "platform"),
                    f"catalog.switches[{name}].platform",
                    f"unknown platform {model.platform!r}; one of {', '.join(PLATFORMS)}",
                )
        for name, srv in cat.servers.items():
            if srv.backend_nic not in cat.nics:
                self.problem(
                    self.loaded.pos("catalog", "servers", name, "backend_nic"),
                    f"catalog.servers[{name}].backend_nic",
                    f"unknown NIC model {srv.backend_nic!r}; known: {', '.join(sorted(cat.nics))}",
                )

    def _declare(self, name: str, src: SourcePos | None, where: str) -> bool:
        """Record a device name; a second definition (switch or node) is a problem."""
        first = self.declared.get(name)
        if name in self.declared:
            self.problem(src, f"{where}.name", f"duplicate name {name!r}, first defined at {first}")
            return False
        self.declared[name] = src
        return True

    def _switches(self, specs: list[SwitchSpec]) -> dict[str, _SwitchBuild]:
        builds: dict[str, _SwitchBuild] = {}
        first_id: dict[tuple[Role, int], SwitchSpec] = {}
        for sp in specs:
            where = f"switches[{sp.name}]"
            if not self._declare(sp.name, sp.src, where):
                continue
            model = self.catalog.switches.get(sp.model)
            platform = sp.platform or (model.platform if model else None)
            other = first_id.get((sp.role, sp.id)) if sp.id is not None else None
            if model is None:
                known = ", ".join(sorted(self.catalog.switches))
                self.problem(
                    self.at(sp.src, "model"), f"{where}.model", f"unknown switch model {sp.model!r}; known: {known}"
                )
            elif platform not in PLATFORMS:
                self.problem(
                    self.at(sp.src, "platform"),
                    f"{where}.platform",
                    f"unknown platform {platform!r}; one of {', '.join(PLATFORMS)}",
                )
            elif sp.id is None:
                self.problem(
                    self.at(sp.src, "id"),
                    f"{where}.id",
                    "required: a stable id (addresses and ASNs are allocated from it)",
                )
            elif other is not None:
                self.problem(
                    self.at(sp.src, "id"),
                    f"{where}.id",
                    f"{sp.role} id {sp.id} is already used by {other.name} at {other.src}",
                )
            else:
                assert platform is not None
                if not model.pairs_with(platform):
                    self._unpaired(sp, platform, where)
                first_id[sp.role, sp.id] = sp
                modes = tuple(model.breakouts)
                shape = (platform, model.native_speed, model.lanes, modes, sp.role)
                builds[sp.name] = _SwitchBuild(
                    sp, platform, model.native_speed, model.lanes, model.ports, modes=modes,
                    release=self._release(sp, platform, where), ends=self._shapes.setdefault(shape, {}),
                    hwsku=self._hwsku(sp, platform, model, where),
                    adaptive_routing=self._adaptive_routing(sp, platform, model, where),
                )
                continue
            self.unusable.add(sp.name)
        self._report_field_problems()
        return builds

    def _written_at(self, sp: SwitchSpec, where: str, key: str) -> tuple[SourcePos | None, str]:
        """Where a switch's field ``key`` is written: the explicit switch's own field, or its intent tier's (one
        place for every switch of the tier), with the field's path for the problem."""
        if sp.name in self._explicit:
            return self.at(sp.src, key), f"{where}.{key}"
        tier = ("intent", "rail_optimized", sp.role.value, key)
        return self.loaded.pos(*tier) or sp.src, ".".join(tier)

    def _field_problem(self, sp: SwitchSpec, where: str, key: str, problem: str) -> None:
        """Count a switch whose field ``key`` has ``problem``, at the place it is written (reported once per
        place, with the switches it affects, by :meth:`_report_field_problems`)."""
        src, field_path = self._written_at(sp, where, key)
        self.field_problems.setdefault((src, field_path, problem), []).append(sp.name)

    def _report_field_problems(self) -> None:
        """One problem per place a field is written wrong; on an intent tier, with the switches it affects."""
        for (src, field_path, problem), names in self.field_problems.items():
            count = len(names)
            tail = f": {count} switch{'es' if count != 1 else ''} of this tier" if field_path.startswith("intent.") \
                else ""
            self.problem(src, field_path, problem + tail)

    def _unpaired(self, sp: SwitchSpec, platform: str, where: str) -> None:
        """A switch whose platform its model does not run: a problem at the place the platform is written (a
        platform left to the model's default always pairs: the catalog holds the default to its ``nos``)."""
        runs = ", ".join(self.catalog.switches[sp.model].runs())
        self._field_problem(sp, where, "platform", f"{sp.model} does not run {platform} (it runs {runs})")

    def _release(self, sp: SwitchSpec, platform: str, where: str) -> str:
        """The switch's NOS release; a release its platform does not have is a problem (reported once per
        place it is written, as an intent tier names it for many switches)."""
        if sp.release is not None:
            problem = release_problem(platform, sp.release)
            if problem is not None:
                self._field_problem(sp, where, "release", problem)
                return ""
        return resolve_release(platform, sp.release, self.inv.fabric.releases)

    def _hwsku(self, sp: SwitchSpec, platform: str, model: SwitchModel, where: str) -> str:
        """The SONiC HwSKU of a switch: as written on it or its intent tier, else its platform's default SKU; ""
        off SONiC or where fabricgen holds no platform facts for the model. A SKU its platform does not have, one
        whose port table is fixed, or one written for another NOS is a problem, reported once per place it is
        written."""
        facts = sonic_platform(sp.model)
        if facts is not None and not facts.fits(model.ports, model.lanes):
            facts = None
        if sp.hwsku is None:
            return facts.default_sku if facts is not None and platform == "sonic" else ""
        problem = None
        if platform != "sonic":
            problem = f"a SONiC HwSKU on a {platform} switch: hwsku applies to platform sonic only"
        elif facts is None:
            problem = f"fabricgen holds no SONiC platform facts for {sp.model}, so it cannot lay out {sp.hwsku!r}"
        elif sp.hwsku not in facts.skus:
            problem = f"{sp.hwsku!r} is not a SKU of {facts.platform}; one of {', '.join(sorted(facts.skus))}"
        elif facts.skus[sp.hwsku].fixed:
            fluid = sorted(n for n, k in facts.skus.items() if not k.fixed)
            problem = (f"{sp.hwsku} has a fixed port table (port_config.ini, no breakout), which fabricgen does not "
                       f"lay out; one of {', '.join(fluid)}")
        if problem is None:
            return sp.hwsku
        self._field_problem(sp, where, "hwsku", problem)
        return ""

    def _adaptive_routing(self, sp: SwitchSpec, platform: str, model: SwitchModel, where: str) -> bool:
        """Whether the switch runs adaptive routing: as written on it or its intent tier, else
        ``fabric.adaptive_routing``, else off. On where the switch cannot run it (another NOS, an ASIC before
        Spectrum-4) is a problem at the line that asked for it, reported once per line with the switches it
        names (see :meth:`_report_adaptive_routing`)."""
        value = sp.adaptive_routing if sp.adaptive_routing is not None else self.inv.fabric.adaptive_routing
        if not value:
            return False
        problem = adaptive_routing_problem(platform, sp.model, model.asic)
        if problem is None:
            return True
        if sp.adaptive_routing is None:
            src, field_path = self.loaded.pos("fabric", "adaptive_routing"), "fabric.adaptive_routing"
        else:
            src, field_path = self._written_at(sp, where, "adaptive_routing")
        self.ar_problems.setdefault((src, field_path, problem), []).append(sp.name)
        return False

    def _report_adaptive_routing(self) -> None:
        """One problem per line that turns adaptive routing on where it cannot run, with the count and first
        names of the switches it names."""
        for (src, field_path, problem), names in self.ar_problems.items():
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
            self.problem(src, field_path, f"{problem} ({len(names):,} switch{'es' if len(names) != 1 else ''}: "
                                          f"{shown}); set adaptive_routing: false there")

    def _nodes(self, specs: list[NodeSpec]) -> dict[str, NodeSpec]:
        out: dict[str, NodeSpec] = {}
        for sp in specs:
            where = f"nodes[{sp.name}]"
            if not self._declare(sp.name, sp.src, where):
                continue
            if sp.model not in self.catalog.servers:
                known = ", ".join(sorted(self.catalog.servers))
                self.problem(
                    self.at(sp.src, "model"), f"{where}.model", f"unknown server model {sp.model!r}; known: {known}"
                )
                self.unusable.add(sp.name)
                continue
            out[sp.name] = sp
        return out

    # ------------------------------------------------------------------ links

    def _end(
        self,
        spec: LinkSpec,
        which: str,
        device: str,
        port: str,
        builds: dict[str, _SwitchBuild],
        nodes: dict[str, NodeSpec],
        host_speed: int | None,
    ) -> _EndInfo | None:
        build = builds.get(device)
        if build is not None:
            speed = spec.speed or host_speed or build.native
            known = build.ends.get((port, speed))
            if known is not None:
                return known
            breakout = build.breakout_of.get(speed, 0)
            if not breakout:
                breakout = build.breakout_of[speed] = link_breakout(build.modes, build.native, build.lanes, speed)
            try:
                pos = parse_port(build.platform, port, breakout, build.lanes)
            except ValueError as exc:
                self.problem(self.at(spec.src, which), _link_field(spec, which), f"{device}: {exc}")
                return None
            lane = (pos.cage - 1) * build.lanes + pos.sub * (build.lanes // breakout)
            known = build.ends[port, speed] = _EndInfo(_RANK[build.spec.role], speed, pos.cage, pos.sub, breakout, lane)
            return known
        node = nodes.get(device)
        if node is not None:
            backend = self._backend.get(node.model)
            if backend is None:
                server = self.catalog.servers[node.model]
                backend = frozenset(n.ifname for n in server.backend), self.catalog.nics[server.backend_nic].speed
                self._backend[node.model] = backend
            ifnames, speed = backend
            if port not in ifnames:
                names = ", ".join(n.ifname for n in self.catalog.servers[node.model].backend)
                self.problem(
                    self.at(spec.src, which),
                    _link_field(spec, which),
                    f"{device} ({node.model}) has no backend NIC {port!r}; it has {names}",
                )
                return None
            nic = self._nic_ends.get(speed)
            if nic is None:
                nic = self._nic_ends[speed] = _EndInfo(0, speed, 0, 0, 1, 0)
            return nic
        if device not in self.unusable:
            self.problem(self.at(spec.src, which), _link_field(spec, which), f"unknown device {device!r}")
        return None

    def _links(
        self, specs: list[LinkSpec], builds: dict[str, _SwitchBuild], nodes: dict[str, NodeSpec]
    ) -> tuple[list[Link], dict[tuple[str, str], Link]]:
        """The fabric's links (each also adds its switch ports to their builds), and the link of every cabled
        NIC port by (node, NIC)."""
        s = self.inv.fabric
        pools = s.addressing
        lengths = {
            LinkKind.HOST: s.cable_defaults.host,
            LinkKind.LEAF_SPINE: s.cable_defaults.leaf_spine,
            LinkKind.SPINE_CORE: s.cable_defaults.spine_core,
        }
        pool_of = {
            kind: (name, pool, int(pool.network_address), pool.num_addresses)
            for kind, name, pool in (
                (LinkKind.HOST, "host_p2p", pools.host_p2p),
                (LinkKind.LEAF_SPINE, "leaf_spine_p2p", pools.leaf_spine_p2p),
                (LinkKind.SPINE_CORE, "spine_core_p2p", pools.spine_core_p2p),
            )
        }
        used: dict[tuple[str, str], SourcePos | None] = {}  # every cabled port → the link that cabled it
        links: list[Link] = []
        nic_links: dict[tuple[str, str], Link] = {}
        server_speed = {
            name: self.catalog.nics[srv.backend_nic].speed
            for name, srv in self.catalog.servers.items()
            if srv.backend_nic in self.catalog.nics
        }
        unusable = self.unusable
        end_of = self._end
        make_link = self._link
        for spec in specs:
            a_dev, a_port, b_dev, b_port = spec.a_device, spec.a_port, spec.b_device, spec.b_port
            if a_dev in unusable or b_dev in unusable:
                continue  # its device's problem is already reported; guessing the speed here would add false ones
            node = nodes.get(b_dev) if b_dev is not None else None  # a server at b wins, as it is the later end
            if node is None:
                node = nodes.get(a_dev)
            host_speed = server_speed[node.model] if node is not None else None
            a = end_of(spec, "a", a_dev, a_port, builds, nodes, host_speed)
            if b_dev is None or b_port is None:
                # b is left out (explicit_specs sets both or neither)
                if a is None or self._cabled_twice(spec, a_dev, a_port, used):
                    continue
                dangling = self._dangling(spec, a_dev, a_port, a, lengths, len(links))
                links.append(dangling)
                if a.rank == 0:
                    nic_links[a_dev, a_port] = dangling
                continue
            b = end_of(spec, "b", b_dev, b_port, builds, nodes, host_speed)
            if a is None or b is None:
                continue
            a_key, b_key = (a_dev, a_port), (b_dev, b_port)
            if a_key in used or b_key in used or a_key == b_key:
                # reported as checking one end at a time finds it: a first (and marked when only b is taken)
                if not self._cabled_twice(spec, a_dev, a_port, used):
                    self._cabled_twice(spec, b_dev, b_port, used)
                continue
            used[a_key] = used[b_key] = spec.src
            if a.rank <= b.rank:
                link = make_link(spec, a_dev, a_port, a, b_dev, b_port, b, builds, lengths, pool_of, len(links))
            else:
                link = make_link(spec, b_dev, b_port, b, a_dev, a_port, a, builds, lengths, pool_of, len(links))
            if link is None:
                continue
            links.append(link)
            if a.rank == 0:
                nic_links[a_dev, a_port] = link
            elif b.rank == 0:
                nic_links[b_dev, b_port] = link
        return links, nic_links

    def _cabled_twice(
        self, spec: LinkSpec, device: str, port: str, used: dict[tuple[str, str], SourcePos | None]
    ) -> bool:
        """Whether ``device:port`` is already cabled (a problem); else it is marked as cabled by ``spec``."""
        key = (device, port)
        if key in used:
            self.problem(
                spec.src,
                f"links[{spec.a_device}:{spec.a_port}]",
                f"port {device}:{port} is already cabled at {used[key]}",
            )
            return True
        used[key] = spec.src
        return False

    @staticmethod
    def _dangling(
        spec: LinkSpec, device: str, port: str, end: _EndInfo, lengths: dict[LinkKind, float], index: int
    ) -> Link:
        """A cable landed only at end ``a`` (``b`` left out): no peer, no /31, no port on the switch."""
        kind = LinkKind.HOST if end.rank <= 1 else LinkKind.LEAF_SPINE if end.rank == 2 else LinkKind.SPINE_CORE
        length = spec.length_m or lengths[kind]
        return Link(
            index,
            kind,
            End(device, port),
            None,
            end.speed,
            length,
            spec.length_m is None,
            spec.cable or cable_class(length),
            None,
            spec.src,
        )

    def _link(
        self,
        spec: LinkSpec,
        lo_dev: str,
        lo_port: str,
        lo: _EndInfo,
        hi_dev: str,
        hi_port: str,
        hi: _EndInfo,
        builds: dict[str, _SwitchBuild],
        lengths: dict[LinkKind, float],
        pool_of: dict[LinkKind, tuple[str, IPv4Network, int, int]],
        index: int,
    ) -> Link | None:
        """The link between a lower end (NIC, leaf or spine) and an upper one; its ports are added to their
        switches' builds. None, with a problem, for a pair of tiers fabricgen does not cable or an exhausted
        pool."""
        kind = _KIND_BY_RANKS.get((lo.rank, hi.rank))
        if kind is None:
            names = {0: "server", 1: "leaf", 2: "spine", 3: "core"}
            self.problem(
                spec.src,
                f"links[{spec.a_device}:{spec.a_port}]",
                f"links a {names[lo.rank]} ({lo_dev}) to a {names[hi.rank]} "
                f"({hi_dev}); fabricgen cables NIC–leaf, leaf–spine and spine–core",
            )
            return None
        length = spec.length_m or lengths[kind]
        anchor, anchor_build = (hi, builds[hi_dev]) if kind is LinkKind.HOST else (lo, builds[lo_dev])
        hi_ip: str | None = None  # the upper end holds the even address: the /31 as written
        lo_ip: str | None = None  # the lower end the odd one
        if anchor.cage <= anchor_build.cages and anchor.lane < addressing.PORT_STRIDE:
            pool_name, pool, base, size = pool_of[kind]
            try:
                hi_ip, lo_ip = addressing.p2p_pair(base, size, pool, anchor_build.spec.id or 0, anchor.lane)
            except addressing.PoolExhausted as exc:
                anchor_dev = hi_dev if kind is LinkKind.HOST else lo_dev
                if (pool_name, anchor_dev) not in self.exhausted:
                    self.exhausted.add((pool_name, anchor_dev))
                    self.problem(
                        self.loaded.pos("fabric", "addressing", pool_name),
                        f"fabric.addressing.{pool_name}",
                        f"{anchor_dev}: {exc}",
                    )
                return None
        speed = lo.speed if lo.speed < hi.speed else hi.speed
        link = Link(
            index,
            kind,
            End(lo_dev, lo_port),
            End(hi_dev, hi_port),
            speed,
            length,
            spec.length_m is None,
            spec.cable or cable_class(length),
            hi_ip,
            spec.src,
        )
        hi_build = builds.get(hi_dev)
        if hi_build is not None:
            hi_kind = PortKind.HOST if lo.rank == 0 else PortKind.DOWN
            hi_build.ports.append(
                Port(hi_dev, hi_port, hi.cage, hi.sub, hi.breakout, hi.speed, hi_kind, lo_dev, lo_port, index, hi_ip)
            )
        if lo.rank:  # a switch (a NIC's port is not a switch port)
            builds[lo_dev].ports.append(
                Port(lo_dev, lo_port, lo.cage, lo.sub, lo.breakout, lo.speed, PortKind.UP, hi_dev, hi_port, index,
                     lo_ip)
            )
        return link

    # ------------------------------------------------------------------ finish

    def _finish_switches(self, builds: dict[str, _SwitchBuild]) -> dict[str, Switch]:
        s = self.inv.fabric
        out: dict[str, Switch] = {}
        pools = {
            Role.LEAF: s.addressing.loopbacks.leaf,
            Role.SPINE: s.addressing.loopbacks.spine,
            Role.CORE: s.addressing.loopbacks.core,
        }
        drain = set(s.drain)
        for name, b in builds.items():
            sp = b.spec
            ident = sp.id or 0
            try:
                loopback = sp.loopback or addressing.loopback(pools[sp.role], ident)
            except addressing.PoolExhausted as exc:
                self.problem(
                    self.loaded.pos("fabric", "addressing", "loopbacks", sp.role.value),
                    f"fabric.addressing.loopbacks.{sp.role.value}",
                    f"{name}: {exc}",
                )
                continue
            try:
                asn = sp.asn or addressing.asn_for(s.asn, sp.role, ident, sp.pod)
            except addressing.PoolExhausted as exc:
                key = _ASN_FIELD[sp.role]
                self.problem(self.loaded.pos("fabric", "asn", key), f"fabric.asn.{key}", f"{name}: {exc}")
                continue
            ports = tuple(sorted(b.ports, key=_CAGE_SUB))
            out[name] = Switch(
                name, sp.role, sp.model, b.platform, ident, asn, loopback, sp.unit, sp.rails, sp.pod, ports, sp.src,
                release=b.release, hwsku=b.hwsku, serial=sp.serial, chassis_mac=sp.chassis_mac,
                adaptive_routing=b.adaptive_routing, drained=sp.drained or name in drain,
            )
        return out

    def _check_drain(self, switches: dict[str, Switch]) -> None:
        """Every name in ``fabric.drain`` is a switch of the fabric (a typo would drain nothing)."""
        for i, name in enumerate(self.inv.fabric.drain):
            if name not in switches and name not in self.unusable:
                self.problem(self.loaded.pos("fabric", "drain", i), f"fabric.drain[{i}]",
                             f"{name!r} is no switch of this fabric")

    def _finish_nodes(
        self, specs: dict[str, NodeSpec], nic_links: dict[tuple[str, str], Link]
    ) -> dict[str, Node]:
        out: dict[str, Node] = {}
        for name, sp in specs.items():
            server = self.catalog.servers[sp.model]
            speed = self.catalog.nics[server.backend_nic].speed
            nics = []
            for rail, card in enumerate(server.backend):
                link = nic_links.get((name, card.ifname))
                peer_dev = peer_port = address = None
                link_index = None
                if link is not None:
                    link_index = link.index
                    if link.b is not None:
                        peer_dev, peer_port = link.b.device, link.b.port
                    if link.subnet is not None:
                        address = addressing.odd_address(link.subnet)
                nics.append(
                    HostNic(
                        name,
                        card.ifname,
                        card.rdma_dev,
                        rail,
                        card.gpu,
                        card.numa,
                        card.pcie,
                        server.backend_nic,
                        speed,
                        peer_dev,
                        peer_port,
                        link_index,
                        address,
                    )
                )
            out[name] = Node(name, sp.model, sp.unit, server.gpus, tuple(nics), sp.src, self.nic_qos.get(name))
        return out
