"""``compute(fabric) → FabricQos``: the policy applied to every switch port, host NIC and node.

Linear in the number of ports; everything that depends only on (platform, ASIC, role, speed) or on
(model, speed, cable length) is computed once and shared between ports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import attrgetter
from types import MappingProxyType

from fabricgen.inventory.schema import SwitchModel
from fabricgen.qos import headroom as hr
from fabricgen.qos.maps import tos_byte
from fabricgen.qos.model import (
    BufferPlan,
    FabricQos,
    Headroom,
    NcclEnv,
    NicQos,
    NicQosMap,
    PortQos,
    PortQosMap,
    SwitchQos,
)
from fabricgen.qos.policy import PortSettings, ResolvedPolicy, Role, resolve_policy
from fabricgen.topology.memo import per_fabric
from fabricgen.topology.model import Fabric, HostNic, Link, LinkKind, Node, Port, PortKind

_GPU_RAIL = attrgetter("gpu", "rail")
_CABLE_DEFAULT = {
    LinkKind.HOST: "fabric.cable_defaults.host",
    LinkKind.LEAF_SPINE: "fabric.cable_defaults.leaf_spine",
    LinkKind.SPINE_CORE: "fabric.cable_defaults.spine_core",
}


@dataclass(frozen=True, slots=True)
class _PortClass:
    st: PortSettings
    hb: hr.HeadroomBytes
    link: Link  # the first port's cable: its length, whether defaulted and its kind are part of the class
    role: Role
    local_key: tuple[object, ...]
    headroom: int  # bytes of headroom the port reserves: size × lossless priorities
    pgs: int  # its lossless priority groups
    speed: int


def headroom_table(model_name: str, model: SwitchModel) -> hr.HeadroomTable | None:
    """The catalog's published xoff table of ``model`` in the shape :func:`headroom.headroom` takes."""
    spec = model.headroom_table
    if spec is None:
        return None
    rows = tuple((speed, tuple(spec.points(speed))) for speed in sorted(spec.xoff_bytes))
    return hr.HeadroomTable(model_name, spec.title, rows)


@per_fabric
def compute(fabric: Fabric) -> FabricQos:
    """The QoS of every switch port, host NIC and node of ``fabric`` (memoised per Fabric object)."""
    return _Computer(fabric).run()


def _setting_source(fabric: Fabric, name: str) -> str:
    return f"override:fabric.{name}" if name in fabric.settings.model_fields_set else "default"


class _Computer:
    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric
        models = fabric.catalog.switches
        kinds = [(sw.platform, models[sw.model].asic) for sw in fabric.switches.values()]
        self.policy: ResolvedPolicy = resolve_policy(fabric.qos_policy, kinds)
        self.mtu = fabric.settings.switch_mtu
        self.mtu_source = _setting_source(fabric, "switch_mtu")
        self.host_mtu = fabric.settings.host_mtu
        self.host_mtu_source = _setting_source(fabric, "host_mtu")
        self._bytes: dict[tuple[str, int, float, int], hr.HeadroomBytes] = {}
        self._headroom: dict[tuple[object, ...], Mapping[int, Headroom]] = {}
        self._sources: dict[tuple[int, str, str], Mapping[str, str]] = {}
        self._nic_cache: dict[tuple[object, ...], NicQos] = {}
        self._hca: dict[tuple[str, ...], str] = {}  # RDMA devices in (GPU, rail) order → NCCL_IB_HCA
        self._platform_asic: dict[str, tuple[str, str]] = {}  # switch → its platform and ASIC
        self._driver: dict[str, str] = {}  # NIC model → its RDMA driver
        # (switch model, platform) → port class key → its class (see _switch)
        self._classes: dict[tuple[str, str], dict[tuple[object, ...], _PortClass]] = {}

    def run(self) -> FabricQos:
        switches = {name: self._switch(name) for name in self.fabric.switches}
        nics: dict[tuple[str, str], tuple[NicQos, HostNic]] = {}
        nccl: dict[str, NcclEnv] = {}
        for node in self.fabric.nodes.values():
            shared = [self._nic(node, nic, switches) for nic in node.nics]
            for nic, q in zip(node.nics, shared, strict=True):
                nics[node.name, nic.ifname] = (q, nic)
            nccl[node.name] = self._nccl(node, shared)
        return FabricQos(switches=switches, nics=NicQosMap(nics), nccl=nccl, policy=self.policy)

    # ------------------------------------------------------------------ switches

    def _headroom_bytes(
        self, model_name: str, model: SwitchModel, speed: int, cable: float, lanes: int
    ) -> hr.HeadroomBytes:
        key = (model_name, speed, cable, lanes)
        got = self._bytes.get(key)
        if got is None:
            b = model.buffer
            facts = hr.BufferFacts(b.pipeline_latency_bytes, b.mac_phy_delay_bytes, b.cell_occupancy)
            table = headroom_table(model_name, model)
            got = hr.headroom(speed, cable, self.mtu, self.mtu, facts, lanes, table)
            self._bytes[key] = got
        return got

    def _port_class(self, sw_model: str, model: SwitchModel, platform: str, p: Port, link: Link) -> _PortClass:
        """What a port's QoS depends on besides its name and peer: its settings, its headroom bytes and the cable
        (shared by every port of the fabric with the same model, platform, role, speed, breakout and cable)."""
        role: Role = "host" if p.kind is PortKind.HOST else "fabric"
        st = self.policy.settings(platform, model.asic, role, p.speed)
        lanes = model.lanes // max(p.breakout, 1)
        hb = self._headroom_bytes(sw_model, model, p.speed, link.length_m, lanes)
        # everything a port's headroom and sources depend on, cheap to hash (st is one object per setting)
        local_key = (id(st), id(hb), link.length_m, link.length_defaulted, link.kind)
        return _PortClass(st, hb, link, role, local_key, hb.size * len(st.pfc_priorities), len(st.pfc_priorities),
                          p.speed)

    def _switch(self, name: str) -> SwitchQos:
        sw = self.fabric.switches[name]
        model = self.fabric.catalog.switches[sw.model]
        links = self.fabric.links
        classes = self._classes.setdefault((sw.model, sw.platform), {})
        host = PortKind.HOST
        port_classes: list[_PortClass] = []
        total = 0
        pgs = 0
        for p in sw.ports:
            link = links[p.link]
            ckey = (p.kind is host, p.speed, p.breakout, link.length_m, link.length_defaulted, link.kind)
            c = classes.get(ckey)
            if c is None:
                c = classes[ckey] = self._port_class(sw.model, model, sw.platform, p, link)
            total += c.headroom
            pgs += c.pgs
            port_classes.append(c)
        pool = model.buffer.total_bytes
        shared = pool - total
        buffer = BufferPlan(pool, total, shared, pgs, f"catalog:{sw.model}")
        mtu = self.mtu
        # the shared QoS of each class (PortQosMap): the first port of a local key (in port order) gives the
        # headroom and sources of every port with that key, as each class has one key
        per_switch: dict[tuple[object, ...], tuple[Mapping[int, Headroom], Mapping[str, str]]] = {}
        shapes: dict[int, PortQos] = {}  # id(class) → its shared QoS
        entries: dict[str, tuple[PortQos, Port]] = {}
        firsts: list[str] = []  # the first port of each class
        for p, c in zip(sw.ports, port_classes, strict=True):
            t = shapes.get(id(c))
            if t is None:
                got = per_switch.get(c.local_key)
                if got is None:
                    got = per_switch[c.local_key] = self._port_headroom(sw.model, c.st, c.hb, c.link, c.role, shared)
                head, sources = got
                st = c.st
                t = shapes[id(c)] = PortQos(
                    name, "", c.speed, mtu, st.trust, st.dscp_to_tc, st.lanes, st.pfc_priorities, st.ecn, head,
                    st.watchdog, sources, c.role,
                )
                firsts.append(p.name)
            entries[p.name] = (t, p)
        ports = PortQosMap(entries)
        any_st = self.policy.settings(sw.platform, model.asic, "fabric", model.native_speed)
        return SwitchQos(
            device=name,
            platform=sw.platform,
            ports=ports,
            buffer=buffer,
            cnp_tc=any_st.cnp_tc,
            roce_tc=any_st.training().tc,
            sources=MappingProxyType({"cnp_tc": any_st.sources["cnp_tc"], "buffer": f"catalog:{sw.model}"}),
            firsts=tuple(ports[n] for n in firsts),
        )

    def _port_headroom(self, model_name: str, st: PortSettings, hb: hr.HeadroomBytes, link: Link, role: Role,
                       shared: int) -> tuple[Mapping[int, Headroom], Mapping[str, str]]:
        """A port's headroom per lossless priority and the sources of its settings: one shared object per
        distinct value across the fabric (the renderers share their blocks by identity)."""
        cable = link.length_m
        cable_src = f"default:{_CABLE_DEFAULT[link.kind]}" if link.length_defaulted else "inventory:links"
        th = st.threshold
        xoff_th = (
            th.static_bytes
            if th.mode == "static" and th.static_bytes
            else hr.dynamic_xoff_threshold(shared, th.dynamic_th)
        )
        hkey = (model_name, hb, cable, cable_src, th, xoff_th, st.pfc_priorities)
        head = self._headroom.get(hkey)
        if head is None:
            xoff_src = f"computed (catalog:{model_name})" if hb.xoff_source == "computed" else hb.xoff_source
            one = Headroom(
                hb.xoff, hb.xon, hb.size, cable, f"catalog:{model_name}", cable_src, th.mode, th.dynamic_th, xoff_th,
                xoff_src,
            )
            head = MappingProxyType(dict.fromkeys(sorted(st.pfc_priorities), one))
            self._headroom[hkey] = head
        skey = (id(st), cable_src, role)
        sources = self._sources.get(skey)
        if sources is None:
            sources = MappingProxyType(
                {
                    **st.sources,
                    "mtu": self.mtu_source,
                    "headroom": "computed",
                    "buffer_facts": f"catalog:{model_name}",
                    "cable_m": cable_src,
                    "role": role,
                }
            )
            self._sources[skey] = sources
        return head, sources

    # ------------------------------------------------------------------ hosts

    def _nic(self, node: Node, nic: HostNic, switches: Mapping[str, SwitchQos]) -> NicQos:
        """The QoS ``nic`` shares with its class (NicQosMap): one object per distinct leaf port settings, node
        override and RDMA driver."""
        port = None
        if nic.peer_device is not None and nic.peer_port is not None:
            sq = switches.get(nic.peer_device)
            port = sq.ports.shared(nic.peer_port) if sq is not None else None
        if port is not None:
            platform_asic = self._platform_asic.get(port.device)
            if platform_asic is None:
                sw = self.fabric.switches[port.device]
                asic = self.fabric.catalog.switches[sw.model].asic
                platform_asic = self._platform_asic[port.device] = (sw.platform, asic)
            st = self.policy.settings(*platform_asic, "host", port.speed)
        else:
            st = self.policy.settings("", "", "host", nic.speed)
        over = node.nic_qos
        driver = self._driver.get(nic.model)
        if driver is None:
            nics = self.fabric.catalog.nics
            driver = self._driver[nic.model] = nics[nic.model].rdma_driver if nic.model in nics else "mlx5"
        key = (id(st), id(over), driver)
        shared = self._nic_cache.get(key)
        if shared is None:
            where = f"override:nodes[{node.name}].nic_qos"
            training = st.training()
            cnp = st.cnp()
            sources = {
                "trust": st.sources["trust"],
                "pfc_priorities": st.sources["pfc_priorities"],
                "ecn": st.sources["lanes"],
                "roce_tos": st.sources["lanes"],
                "cnp": st.sources["cnp_tc"],
                "dscp_to_prio": st.sources["dscp_to_tc"],
                "mtu": self.host_mtu_source,
            }
            ecn_tcs = frozenset(lane.tc for lane in st.lanes if lane.ecn)
            trust = st.trust
            pfc = st.pfc_priorities
            tos = tos_byte(training.dscp[0], training.ecn) if training.dscp else 0
            mtu = self.host_mtu
            if over is not None:
                if over.trust is not None:
                    trust, sources["trust"] = over.trust, where
                if over.pfc is not None:
                    pfc, sources["pfc_priorities"] = frozenset(over.pfc), where
                if over.ecn is not None:
                    ecn_tcs = frozenset({training.tc}) if over.ecn else frozenset()
                    sources["ecn"] = where
                if over.tos is not None:
                    tos, sources["roce_tos"] = over.tos, where
                if over.mtu is not None:
                    mtu, sources["mtu"] = over.mtu, where
            shared = NicQos(
                node="",
                ifname="",
                rdma_dev="",
                trust=trust,
                pfc_priorities=pfc,
                ecn_np=ecn_tcs,
                ecn_rp=ecn_tcs,
                roce_tos=tos,
                cnp_dscp=cnp.dscp[0] if cnp is not None and cnp.dscp else 48,
                cnp_priority=st.cnp_tc,
                mtu=mtu,
                driver=driver,
                dscp_to_prio=st.dscp_to_tc,
                sources=MappingProxyType(sources),
            )
            self._nic_cache[key] = shared
        return shared

    def _nccl(self, node: Node, nics: list[NicQos]) -> NcclEnv:
        """The node's NCCL environment; ``nics`` is the shared QoS of each of its NICs, in NIC order."""
        names = tuple(n.rdma_dev for n in sorted(node.nics, key=_GPU_RAIL))
        hca = self._hca.get(names)
        if hca is None:  # once per distinct list of RDMA devices (every node of a server model has the same)
            exact = any(a != b and b.startswith(a) for a in names for b in names)
            hca = self._hca[names] = ("=" if exact else "") + ",".join(names)
        tos = nics[0].roce_tos if nics else 0
        tos_src = nics[0].sources["roce_tos"] if nics else "default"
        over = node.nic_qos
        if over is not None and over.nccl_tc is not None:
            tos, tos_src = over.nccl_tc, f"override:nodes[{node.name}].nic_qos"
        spec = self.policy.nccl
        variables = {
            "NCCL_IB_HCA": hca,
            "NCCL_IB_TC": str(tos),
            "NCCL_IB_GID_INDEX": str(spec.gid_index),
            "NCCL_SOCKET_IFNAME": spec.socket_ifname,
        }
        sources = {
            "NCCL_IB_HCA": f"catalog:{node.model}",
            "NCCL_IB_TC": tos_src,
            "NCCL_IB_GID_INDEX": self.policy.nccl_source,
            "NCCL_SOCKET_IFNAME": self.policy.nccl_source,
        }
        return NcclEnv(node.name, MappingProxyType(variables), MappingProxyType(sources))
