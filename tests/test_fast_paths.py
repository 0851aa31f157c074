"""The faster paths behave like the ones they replace: frozen dataclasses built by fast_init, the render
writer, the lazily imported commands."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.cli.render import _Writer
from fabricgen.qos.model import NicQosMap
from fabricgen.topology.frozen import fast_init
from fabricgen.topology.model import Fabric, HostNic, Link, Port, PortKind


@dataclasses.dataclass(frozen=True, slots=True)
class _Plain:
    name: str
    speed: int
    tags: tuple[str, ...] = ()
    extra: list[int] = dataclasses.field(default_factory=list, hash=False)


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class _Fast:
    name: str
    speed: int
    tags: tuple[str, ...] = ()
    extra: list[int] = dataclasses.field(default_factory=list, hash=False)


def _fields(obj: object) -> tuple[object, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


@given(st.text(max_size=8), st.integers(), st.lists(st.text(max_size=3), max_size=3).map(tuple),
       st.none() | st.lists(st.integers(), max_size=3))
def test_fast_init_builds_what_the_dataclass_init_builds(name: str, speed: int, tags: tuple[str, ...],
                                                         extra: list[int] | None) -> None:
    kwargs = {} if extra is None else {"extra": extra}
    plain, fast = _Plain(name, speed, tags, **kwargs), _Fast(name, speed, tags, **kwargs)
    assert _fields(fast) == _fields(plain)
    assert _fields(_Fast(speed=speed, name=name)) == (name, speed, (), [])
    assert fast == _Fast(name, speed, tags, **kwargs) and hash(fast) == hash(_Fast(name, speed, tags, **kwargs))


def test_fast_init_keeps_instances_frozen_and_arguments_checked() -> None:
    fast = _Fast("leaf1", 400)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.speed = 800  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Fast("leaf1")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Fast("leaf1", 400, bogus=1)  # type: ignore[call-arg]
    assert _Fast("a", 1).extra is not _Fast("a", 1).extra  # a fresh default per instance
    assert dataclasses.replace(fast, speed=800) == _Fast("leaf1", 800)

    @dataclasses.dataclass
    class Loose:
        x: int

    with pytest.raises(TypeError, match="frozen=True, slots=True"):
        fast_init(Loose)  # not frozen with slots: refused, not half-applied


def test_the_fabric_model_uses_it() -> None:
    port = Port("leaf1", "swp1", 1, 0, 1, 400, PortKind.HOST, "gpu1", "eth0", 3, "10.0.0.0/31")
    assert Port.__init__.__code__.co_filename == "<string>"  # the fast one: stores through the slots
    assert (port.device, port.kind, port.link, port.address) == ("leaf1", PortKind.HOST, 3, "10.0.0.0/31")
    assert Link.__init__.__code__.co_filename == HostNic.__init__.__code__.co_filename == "<string>"
    with pytest.raises(dataclasses.FrozenInstanceError):
        port.name = "swp2"  # type: ignore[misc]


def test_writer_rewrites_only_what_changed(tmp_path: Path) -> None:
    writer = _Writer(tmp_path / "out")
    writer.write("leaf1/frr.conf", "hostname leaf1\n")
    writer.write("hosts/gpu1/nccl.env", "NCCL_IB_TC=106\n")
    conf = tmp_path / "out/leaf1/frr.conf"
    inode = conf.stat().st_ino
    os.utime(conf, ns=(1, 1))
    _Writer(tmp_path / "out").write("leaf1/frr.conf", "hostname leaf1\n")  # unchanged: untouched
    assert conf.stat().st_mtime_ns == 1 and conf.stat().st_ino == inode
    conf.write_text("hostname leaf1\nextra line\n")  # longer than what is rendered: cut back to it
    _Writer(tmp_path / "out").write("leaf1/frr.conf", "hostname leaf1\n")
    assert conf.read_bytes() == b"hostname leaf1\n"
    _Writer(tmp_path / "out").write("leaf1/frr.conf", "hostname leaf1 é\n")
    assert conf.read_text(encoding="utf-8") == "hostname leaf1 é\n"
    assert (tmp_path / "out/hosts/gpu1/nccl.env").read_text() == "NCCL_IB_TC=106\n"
    (tmp_path / "out/leaf2").write_text("a file where a directory should be")
    with pytest.raises(OSError):
        writer.write("leaf2/frr.conf", "hostname leaf2\n")


def test_render_loads_only_the_commands_it_runs(tmp_path: Path) -> None:
    code = ("import sys\nfrom fabricgen.cli import main\n"
            "try:\n    main(['validate', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('fabricgen.cli.', 'fabricgen.deploy', 'napalm'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    assert "fabricgen.cli.validate" in loaded
    for other in ("fabricgen.cli.apply", "fabricgen.cli.lab", "fabricgen.cli.nccl", "fabricgen.deploy", "napalm"):
        assert f"'{other}" not in loaded, loaded


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_background_work_runs_in_a_child_and_comes_back() -> None:
    out = _run(
        "import os\n"
        "from fabricgen.cli import background\n"
        "assert background.can_fork()\n"
        "collect = background.start(lambda: (os.getpid(), {'findings': [1, 2]}))\n"
        "pid, result = collect()\n"
        "print(pid != os.getpid(), result)\n"
        "try:\n"
        "    background.start(lambda: open('/nonexistent/dir/file', 'w'))()\n"
        "except OSError as exc:\n"
        "    print(exc.filename, exc.errno)\n"
        "def fails():\n"
        "    if os.getpid() != parent:\n"
        "        raise RuntimeError('only in the child')\n"
        "    return 'done here'\n"
        "parent = os.getpid()\n"
        "print(background.start(fails)())\n"
    )
    assert out.splitlines() == ["True {'findings': [1, 2]}", "/nonexistent/dir/file 2", "done here"]


def test_background_without_a_fork_runs_when_collected() -> None:
    from fabricgen.cli import background

    calls: list[int] = []
    collect = background.start(lambda: calls.append(1) or len(calls), fork=False)
    assert calls == []
    assert collect() == 1 and calls == [1]


def _render(inventory: Path, out: Path, threshold: int, *extra: str) -> str:
    code = ("import sys\nimport fabricgen.cli.render as r\nfrom fabricgen.cli import main\n"
            f"r.FORK_SWITCHES = {threshold}\n"
            "try:\n"
            f"    main(['render', {str(inventory)!r}, '-o', {str(out)!r}, *{list(extra)!r}])\n"
            "except SystemExit as exc:\n    print('exit', exc.code)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).replace(str(out), "OUT")


def test_render_reports_the_childs_findings_as_its_own(tmp_path: Path) -> None:
    broken = Path(__file__).resolve().parent / "data/checks/FG-CAP-005.yaml"  # two error findings
    forked = _render(broken, tmp_path / "a", 1)
    assert forked == _render(broken, tmp_path / "b", 10**9)
    assert "exit 1" in forked and "render: 2 error findings (FG-CAP-002, FG-CAP-005): the files were" in forked
    allowed = _render(broken, tmp_path / "c", 1, "--allow-findings", "FG-CAP-005")
    assert "exit 1" in allowed and "render: 1 error finding (FG-CAP-005) allowed by --allow-findings" in allowed
    assert "render: 1 error finding (FG-CAP-002): the files were" in allowed


def test_render_writes_the_same_with_and_without_the_child(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    outputs = {label: _render(root / "inventories/multi-su", tmp_path / label, threshold)
               for label, threshold in (("forked", 1), ("inline", 10**9))}
    assert outputs["forked"] == outputs["inline"]
    assert "exit 0" in outputs["forked"] and "host(s)" in outputs["forked"]
    files = sorted(p.relative_to(tmp_path / "inline") for p in (tmp_path / "inline").rglob("*") if p.is_file())
    assert any(str(f).startswith("hosts/") for f in files)
    assert files == sorted(p.relative_to(tmp_path / "forked") for p in (tmp_path / "forked").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "forked" / f).read_bytes() == (tmp_path / "inline" / f).read_bytes(), f


def _validate(inventory: Path, threshold: int, fmt: str) -> str:
    """``fabricgen validate`` with the QoS rules in a child from ``threshold`` switches on; its output, exit code
    and whether a child was forked."""
    code = ("import fabricgen.cli.validate as v\nfrom fabricgen.cli import background, main\n"
            f"v.FORK_SWITCHES = {threshold}\n"
            "start = background.start\nforked = []\n"
            "def spy(work, fork=True):\n"
            "    forked.append(fork and background.can_fork())\n"
            "    return start(work, fork)\n"
            "background.start = spy\n"
            "try:\n"
            f"    main(['validate', '--format', {fmt!r}, {str(inventory)!r}])\n"
            "except SystemExit as exc:\n    print('exit', exc.code, 'forked', forked)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_validate_finds_the_same_with_the_qos_rules_in_a_child(fmt: str) -> None:
    """The QoS rules (FG-QOS-*) run in a child on a large fabric while the others (FG-BASE-001 here) run in the
    parent: the same findings, in the same order, as in one process."""
    data = Path(__file__).parent / "data"
    outputs = {}
    for inventory in (data / "qos/watchdog-forward", data / "qos/dscp-map-role", data / "checks/FG-CAP-005.yaml"):
        forked = _validate(inventory, 1, fmt)
        inline = _validate(inventory, 10**9, fmt)
        assert forked.splitlines()[-1].endswith("forked [True]")
        assert inline.splitlines()[-1].endswith("forked [False]")
        assert forked.split(" forked")[0] == inline.split(" forked")[0]
        outputs[inventory.name] = forked
    both = outputs["watchdog-forward"]
    assert "exit 1" in both
    assert all(code in both for code in ("FG-QOS-011", "FG-QOS-015", "FG-BASE-001"))  # from the child and the parent
    assert "FG-CAP-005" in outputs["FG-CAP-005.yaml"]


_QOS_AND_CHECK_INVENTORIES = sorted(
    [p for p in (Path(__file__).parent / "data" / "qos").iterdir() if p.is_dir()]
    + list((Path(__file__).parent / "data" / "checks").glob("*.yaml"))
    + [Path(__file__).parent.parent / "inventories" / name for name in ("lab", "multi-su", "su1")]
)


@pytest.mark.parametrize("inventory", _QOS_AND_CHECK_INVENTORIES, ids=lambda p: p.name)
def test_lossless_rules_find_on_distinct_ports_what_they_find_on_every_port(
    inventory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lossless rules walk each switch's distinct port QoS (checks/lossless._distinct); walking every port, as
    they did before, gives the same findings in the same order (the qos test inventories break each rule)."""
    from fabricgen.checks import lossless, run_checks
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.topology.memo import per_fabric
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    fast = [f.as_dict() for f in run_checks(fabric, lossless.CHECKS)]
    distinct = lossless._distinct(fabric)
    # the first port of each distinct QoS, found among every port (as _distinct did before it looked at the
    # first port of each port class only): the same ports, in the same order
    by_every_port: dict[str, list[str]] = {}
    for name, sw in compute(fabric).switches.items():
        seen: set[tuple[object, ...]] = set()
        by_every_port[name] = []
        for port in sw.ports.values():
            key = (port.speed, port.mtu, port.trust, id(port.dscp_to_tc), id(port.lanes), id(port.pfc_priorities),
                   id(port.ecn), id(port.headroom), id(port.watchdog), id(port.sources), port.role)
            if key not in seen:
                seen.add(key)
                by_every_port[name].append(port.port)
    assert {name: [p.port for p in ports] for name, ports in distinct.items()} == by_every_port
    fabric = resolve(load_inventory(inventory))  # a new Fabric: nothing memoised

    @per_fabric
    def every_port(fab: object) -> dict[str, list[object]]:
        return {name: list(sw.ports.values()) for name, sw in compute(fab).switches.items()}  # type: ignore[arg-type]

    monkeypatch.setattr(lossless, "_distinct", every_port)
    assert [f.as_dict() for f in run_checks(fabric, lossless.CHECKS)] == fast
    if inventory.name in ("dscp-map-role", "su1"):  # ports that differ, and ports that do not
        assert sum(map(len, distinct.values())) < sum(map(len, every_port(fabric).values()))


@pytest.mark.parametrize("inventory", _QOS_AND_CHECK_INVENTORIES, ids=lambda p: p.name)
def test_a_ports_qos_is_its_class_shared_qos_with_its_name_and_peer(inventory: Path) -> None:
    """SwitchQos.ports keeps one shared QoS per port class and makes a port's own PortQos on lookup: in port order,
    made once, equal to the shared one but for its name and peer, and the shared one is the port's own class's
    (its speed, role and cable)."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    qos = compute(fabric)
    for name, sq in qos.switches.items():
        switch = fabric.switches[name]
        assert list(sq.ports) == [p.name for p in switch.ports] and len(sq.ports) == len(switch.ports)
        for p in switch.ports:
            own, shared = sq.ports[p.name], sq.ports.shared(p.name)
            assert own is sq.ports[p.name] and own is qos.port(name, p.name)
            assert (own.device, own.port, own.peer) == (name, p.name, f"{p.peer_device}:{p.peer_port}")
            assert shared is not None and shared is qos.shared(name, p.name)
            assert dataclasses.replace(own, port="", peer="") == shared
            assert (shared.speed, shared.role) == (p.speed, "host" if p.kind is PortKind.HOST else "fabric")
            assert {h.cable_m for h in shared.headroom.values()} <= {fabric.links[p.link].length_m}
        assert all(first is sq.ports[first.port] for first in sq.firsts)
        assert len({id(sq.ports.shared(p)) for p in sq.ports}) == len(sq.firsts)
        assert sq.ports.shared("Ethernet999") is None and "Ethernet999" not in sq.ports
        with pytest.raises(KeyError):
            sq.ports["Ethernet999"]


@pytest.mark.parametrize("inventory", _QOS_AND_CHECK_INVENTORIES, ids=lambda p: p.name)
def test_a_nics_qos_is_its_class_shared_qos_with_its_own_names_and_peer(inventory: Path) -> None:
    """FabricQos.nics keeps one shared QoS per NIC class and makes a NIC's own NicQos on lookup: in node and NIC
    order, made once, equal to the shared one but for the node, interface, RDMA device, GPU, rail and peer."""
    _assert_nic_qos(inventory)


def test_a_nics_own_qos_keeps_its_gpu_apart_from_its_rail(tmp_path: Path) -> None:
    """The lab with a DGX H100 whose NIC i serves GPU 7 - i (every shipped server has NIC i on GPU i): each NIC's
    own QoS still has its GPU and its rail."""
    import shutil

    from fabricgen.inventory.catalog import shipped

    lab = tmp_path / "lab"
    shutil.copytree(Path(__file__).parent.parent / "inventories" / "lab", lab)
    server = shipped().servers["dgx-h100"].model_dump(mode="json", exclude_none=True)
    for card in server["backend"]:
        card["gpu"] = len(server["backend"]) - 1 - card["gpu"]
    (lab / "catalog.yaml").write_text(json.dumps({"catalog": {"servers": {"dgx-h100": server}}}))
    nics = _assert_nic_qos(lab)
    assert all(nic.gpu == 7 - nic.rail for nic in (nics[key] for key in nics)) and len(nics) == 32


def _assert_nic_qos(inventory: Path) -> NicQosMap:
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    nics = compute(fabric).nics
    order = [(node.name, nic.ifname) for node in fabric.nodes.values() for nic in node.nics]
    assert list(nics) == order and [key for key, _ in nics.shared_items()] == order and len(nics) == len(order)
    for node in fabric.nodes.values():
        for nic in node.nics:
            own, shared = nics[node.name, nic.ifname], nics.shared((node.name, nic.ifname))
            assert own is nics[node.name, nic.ifname] and shared is not None
            peer = f"{nic.peer_device}:{nic.peer_port}" if nic.peer_device else ""
            assert (own.node, own.ifname, own.rdma_dev, own.gpu, own.rail, own.peer) == (
                node.name, nic.ifname, nic.rdma_dev, nic.gpu, nic.rail, peer)
            assert dataclasses.replace(own, node="", ifname="", rdma_dev="", gpu=0, rail=0, peer="") == shared
            assert own.sources["roce_tos"].endswith(f"nodes[{node.name}].nic_qos") == (
                node.nic_qos is not None and node.nic_qos.tos is not None)
    assert nics.shared(("nope", "eth9")) is None and ("nope", "eth9") not in nics
    return nics


@pytest.mark.parametrize("inventory", _QOS_AND_CHECK_INVENTORIES, ids=lambda p: p.name)
def test_lossless_rules_find_on_shared_qos_what_they_find_on_each_port_and_nic(
    inventory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link and NIC rules compare the QoS each end shares with its class, once per pair of classes
    (lossless._link_classes, _nic_classes); one pair per link and per NIC made of each port's and NIC's own QoS,
    names and peers included, gives the same findings in the same order, rule by rule."""
    from fabricgen.checks import lossless
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.topology.memo import per_fabric
    from fabricgen.topology.resolve import resolve

    def findings() -> list[list[dict[str, object]]]:
        fabric = resolve(load_inventory(inventory))  # a new Fabric: nothing memoised
        return [[f.as_dict() for f in check(fabric)] for check in lossless.CHECKS]

    grouped = findings()
    if inventory.name in ("su1", "lab"):  # classes shared by many links and NICs
        fabric = resolve(load_inventory(inventory))
        assert len(lossless._link_classes(fabric)) < sum(1 for link in fabric.links if link.b is not None)
        assert len(lossless._nic_classes(fabric)) < sum(len(node.nics) for node in fabric.nodes.values())

    @per_fabric
    def one_per_link(fab: Fabric) -> list[tuple[object, object, list[object]]]:
        qos = compute(fab)
        out: list[tuple[object, object, list[object]]] = []
        for link in fab.links:
            if link.b is not None:
                qa = qos.port(link.a.device, link.a.port) or qos.nics.get((link.a.device, link.a.port))
                qb = qos.port(link.b.device, link.b.port) or qos.nics.get((link.b.device, link.b.port))
                if qa is not None and qb is not None:
                    out.append((qa, qb, [link]))
        return out

    @per_fabric
    def one_per_nic(fab: Fabric) -> list[tuple[object, object, list[object]]]:
        qos = compute(fab)
        out: list[tuple[object, object, list[object]]] = []
        for node in fab.nodes.values():
            for nic in node.nics:
                own = qos.nics.get((node.name, nic.ifname))
                leaf = qos.port(nic.peer_device, nic.peer_port) if nic.peer_device and nic.peer_port else None
                if own is not None and leaf is not None:
                    out.append((own, leaf, [(len(out), node.name, nic)]))
        return out

    monkeypatch.setattr(lossless, "_link_classes", one_per_link)
    monkeypatch.setattr(lossless, "_nic_classes", one_per_nic)
    assert findings() == grouped


def test_a_port_name_is_placed_per_switch_shape(tmp_path: Path) -> None:
    """resolve looks a link end up in a table shared by switches of one platform, lane count, modes, native speed
    and role: the same SONiC name on an 8-lane and on a 4-lane switch is a different cage and breakout."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    (tmp_path / "fabric.yaml").write_text(
        "fabric: {name: shapes}\n"
        "catalog:\n"
        "  switches:\n"
        "    quad-400:\n"  # a 4-lane 400G cage (no catalog model has one)
        "      {vendor: Example, asic: Tomahawk-4, ports: 32, native_speed: 400G, lanes: 4,\n"
        "       breakouts: [1x400G, 2x200G, 4x100G], platform: sonic,\n"
        "       buffer: {total_bytes: 67108864, cell_bytes: 254, pipeline_latency_bytes: 19456,\n"
        "                mac_phy_delay_bytes: 819}}\n"
        "switches:\n"
        "  - {name: leaf1, role: leaf, model: dell-z9864f-on, id: 1}\n"
        "  - {name: leaf2, role: leaf, model: quad-400, id: 2}\n"
        "  - {name: leaf3, role: leaf, model: dell-z9864f-on, id: 3}\n"
        "  - {name: spine1, role: spine, model: dell-z9864f-on, id: 1}\n"
        "links:\n"
        "  - {a: leaf1:Ethernet8, b: spine1:Ethernet0, speed: 400G}\n"
        "  - {a: leaf2:Ethernet8, b: spine1:Ethernet4, speed: 400G}\n"
        "  - {a: leaf3:Ethernet8, b: spine1:Ethernet8, speed: 400G}\n"
    )
    fabric = resolve(load_inventory(tmp_path))
    placed = {(p.device, p.name): (p.cage, p.sub, p.breakout, p.address) for s in fabric.switches.values()
              for p in s.ports}
    assert placed == {
        ("leaf1", "Ethernet8"): (2, 0, 2, "10.128.4.17/31"),
        ("leaf2", "Ethernet8"): (3, 0, 1, "10.128.8.17/31"),  # 4 lanes a cage: lane 8 opens cage 3
        ("leaf3", "Ethernet8"): (2, 0, 2, "10.128.12.17/31"),
        ("spine1", "Ethernet0"): (1, 0, 2, "10.128.4.16/31"),
        ("spine1", "Ethernet4"): (1, 1, 2, "10.128.8.16/31"),
        ("spine1", "Ethernet8"): (2, 0, 2, "10.128.12.16/31"),  # the spine's own Ethernet8, not a leaf's
    }
