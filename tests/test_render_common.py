"""Render framework: the registry, determinism, the API, platform retargeting, the underlay on every platform."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from fabricgen.inventory.load import load_inventory
from fabricgen.qos import compute
from fabricgen.qos.model import FabricQos
from fabricgen.render import PLATFORMS, DeviceConfig, render_device, render_fabric
from fabricgen.render.data import build_device
from fabricgen.render.engine import environment
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric, PortKind
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES

ALL = ("sonic", "eos", "nvue", "nxos", "junos", "frr")


@cache
def fabric_as(path: Path, platform: str) -> Fabric:
    """A bundled inventory with every switch moved to ``platform`` (port names translated)."""
    return resolve(retarget(load_inventory(path), platform))


@cache
def qos_of(path: Path, platform: str) -> FabricQos:
    return compute(fabric_as(path, platform))


def lab_configs(platform: str) -> dict[str, DeviceConfig]:
    fabric = fabric_as(INVENTORIES / "lab", platform)
    qos = qos_of(INVENTORIES / "lab", platform)
    return {name: render_device(fabric, name, qos) for name in sorted(fabric.switches)}


def test_registry_covers_every_catalog_platform() -> None:
    from fabricgen.inventory.catalog import PLATFORMS as CATALOG

    assert set(PLATFORMS) == set(CATALOG) == set(ALL)
    for p in PLATFORMS.values():
        assert p.main in {f.name for f in p.files}
        for f in p.files:
            if not f.template.startswith("builder:"):
                environment().get_template(f.template)  # exists and compiles


@pytest.mark.parametrize("platform", ALL)
def test_lab_renders_every_switch_deterministically(platform: str) -> None:
    first = lab_configs(platform)
    second = lab_configs(platform)
    assert set(first) == {"leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"}
    for name, cfg in first.items():
        assert cfg == second[name]
        assert cfg.platform == platform and cfg.device == name
        assert [f.path.split("/")[0] for f in cfg.files] == [name] * len(cfg.files)
        assert cfg.main in {f.content for f in cfg.files}
        for f in cfg.files:
            assert f.content.endswith("\n") and "\t" not in f.content


@pytest.mark.parametrize("platform", ALL)
def test_multi_unit_renders(platform: str) -> None:
    fabric = fabric_as(INVENTORIES / "multi-su", platform)
    qos = qos_of(INVENTORIES / "multi-su", platform)
    names = sorted(fabric.switches)
    assert len(names) > 64
    for name in names:
        cfg = render_device(fabric, name, qos)
        assert cfg.main


def test_render_fabric_sorted_with_qos() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    configs = render_fabric(fabric)
    assert list(configs) == sorted(fabric.switches)
    assert "priority-flow-control priority 3 no-drop" in configs["leaf1"].main


@pytest.mark.parametrize("platform", ALL)
def test_every_port_described_by_its_peer_and_every_neighbor_from_cabling(platform: str) -> None:
    fabric = fabric_as(INVENTORIES / "lab", platform)
    qos = qos_of(INVENTORIES / "lab", platform)
    for name, sw in fabric.switches.items():
        text = "\n".join(f.content for f in render_device(fabric, name, qos).files)
        data = build_device(fabric, name, qos)
        expected = set()
        for p in sw.ports:
            assert f"{p.peer_device}:{p.peer_port}" in text
            if p.kind is not PortKind.HOST:
                peer = fabric.port(p.peer_device, p.peer_port)
                assert peer is not None and peer.address is not None
                expected.add((peer.address.split("/")[0], fabric.switches[p.peer_device].asn))
        assert {(n.ip, n.asn) for n in data.bgp.neighbors} == expected
        for ip, asn in expected:
            assert ip in text and str(asn) in text
        assert data.bgp.networks[0] == f"{sw.loopback}/32" and sw.loopback in text


def test_retarget_translates_port_names() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "nxos")
    leaf1 = fabric.switches["leaf1"]
    assert leaf1.platform == "nxos"
    names = [p.name for p in leaf1.ports]
    assert names[:2] == ["Ethernet1/1/1", "Ethernet1/1/2"] and "Ethernet1/33" in names
    for platform, first in (("eos", "Ethernet1/1"), ("junos", "et-0/0/0:0"), ("nvue", "swp1s0"), ("frr", "swp1s0")):
        assert fabric_as(INVENTORIES / "lab", platform).switches["leaf1"].ports[0].name == first


def test_underlay_without_qos_has_no_qos_blocks() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    cfg = render_device(fabric, "leaf1")
    assert "priority-flow-control" not in cfg.main and "router bgp 4200100001" in cfg.main
    assert build_device(fabric, "leaf1").qos is None


def test_multipath_relax_only_where_peer_asns_differ() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "frr")
    assert not build_device(fabric, "leaf1").bgp.multipath_relax  # both spines share one ASN
    assert build_device(fabric, "spine1").bgp.multipath_relax  # every leaf has its own


def test_templates_do_no_arithmetic() -> None:
    root = Path(__file__).resolve().parent.parent / "fabricgen" / "templates"
    for path in root.rglob("*.j2"):
        for expr in re.findall(r"\{\{(.*?)\}\}|\{%(.*?)%\}", path.read_text()):
            code = "".join(expr)
            stripped = re.sub(r"\"[^\"]*\"|'[^']*'", "", code)
            assert not re.search(r"[+*/%]|(?<![\w-])-(?!\w)", stripped), f"{path.name}: {code.strip()}"
