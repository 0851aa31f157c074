"""Host outputs for the small lab, line by line, from the domain facts; `fabricgen hosts` and `explain`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from fabricgen.cli import app
from fabricgen.qos import compute
from fabricgen.qos.host import host_files, nccl_env, nic_qos_script
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES

# DGX H100 backend NICs in GPU order (catalog): ifname, RDMA device
DGX_H100 = [
    ("enp24s0np0", "mlx5_0"),
    ("enp64s0np0", "mlx5_3"),
    ("enp79s0np0", "mlx5_4"),
    ("enp94s0np0", "mlx5_5"),
    ("enp154s0np0", "mlx5_6"),
    ("enp192s0np0", "mlx5_9"),
    ("enp206s0np0", "mlx5_10"),
    ("enp220s0np0", "mlx5_11"),
]


def test_nccl_env_lab(lab: Fabric) -> None:
    text = nccl_env(compute(lab).nccl["gpu01"])
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines == [
        "NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11",
        "NCCL_IB_TC=106",  # DSCP 26 << 2 | ECT(0)
        "NCCL_IB_GID_INDEX=3",
        "NCCL_SOCKET_IFNAME='^lo,docker'",  # quoted: ^ is a pipe in the Bourne shell
    ]


def test_nic_qos_script_lab(lab: Fabric) -> None:
    qos = compute(lab)
    nics = [n for n in qos.nics.values() if n.node == "gpu02"]
    lines = nic_qos_script("gpu02", nics).splitlines()
    assert lines[0] == "#!/bin/sh"
    assert "set -eu" in lines
    # leaf of rail r: leaf1 rails 0,1 … leaf4 rails 6,7; gpu02 is the second node: port 4 (even rail) / 20 (odd)
    for rail, (ifname, dev) in enumerate(DGX_H100):
        leaf, port = f"leaf{rail // 2 + 1}", "Ethernet4" if rail % 2 == 0 else "Ethernet20"
        head = f"# {ifname} ({dev}, mlx5, GPU {rail}, rail {rail}) -> {leaf}:{port}"
        i = lines.index(head)
        block = lines[i + 1 : i + 24]
        assert block[0] == f"mlnx_qos -i {ifname} --trust dscp"
        assert block[1] == f"mlnx_qos -i {ifname} --pfc 0,0,0,1,0,0,0,0"
        # firmware maps DSCP >> 3; the policy needs 18 → 4 and every other DSCP but 26 (→3), 48 (→6) to 0
        dscp_loop = block[2]
        assert dscp_loop.startswith("for m in 8,0 9,0 ")
        assert " 18,4 " in dscp_loop and " 26," not in dscp_loop and " 48," not in dscp_loop
        assert " 7,0 " not in dscp_loop  # DSCP 0–7 already map to 0
        for prio in range(8):
            assert block[3 + prio] == f"echo {int(prio == 3)} > /sys/class/net/{ifname}/ecn/roce_np/enable/{prio}"
            assert block[11 + prio] == f"echo {int(prio == 3)} > /sys/class/net/{ifname}/ecn/roce_rp/enable/{prio}"
        assert block[19] == f"echo 48 > /sys/class/net/{ifname}/ecn/roce_np/cnp_dscp"
        assert block[20] == f"echo 6 > /sys/class/net/{ifname}/ecn/roce_np/cnp_802p_prio"  # SONiC on Spectrum
        assert block[21] == f"cma_roce_tos -d {dev} -t 106"
        assert block[22] == f"ip link set dev {ifname} mtu 9000"


def test_bnxt_nic_uses_broadcom_tooling(tmp_path: Path) -> None:
    inv = tmp_path / "inv.yaml"
    inv.write_text(
        "fabric: {name: t}\n"
        "switches:\n  - {name: leaf1, role: leaf, model: arista-7060x6-64pe, id: 1, unit: 1}\n"
        "nodes:\n  - {name: n1, model: hgx-h100-thor2, unit: 1}\n"
        "links:\n  - {a: n1:ens21f0np0, b: leaf1:Ethernet1/1, length_m: 2}\n"
    )
    from tests.conftest import load_fabric

    qos = compute(load_fabric(inv))
    nic = qos.nics["n1", "ens21f0np0"]
    assert (nic.driver, nic.cnp_priority, nic.roce_tos) == ("bnxt_re", 7, 106)  # eos: CNP on 7
    text = nic_qos_script("n1", [nic])
    assert "bnxtqos -dev=bnxt_re0 set_pfc enabled=3" in text
    assert "bnxtqos -dev=bnxt_re0 set_apptlv app=3,5,26" in text
    assert "bnxtqos -dev=bnxt_re0 set_apptlv app=7,5,48" in text
    assert "echo -n 7 > /sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/cnp_prio" in text
    assert "echo 106 > /sys/kernel/config/rdma_cm/bnxt_re0/ports/1/default_roce_tos" in text
    assert "mlnx_qos" not in text


def test_hosts_command_writes_every_node_deterministically(tmp_path: Path) -> None:
    out = tmp_path / "hosts"
    runner = CliRunner()
    first = runner.invoke(app, ["hosts", str(INVENTORIES / "lab"), "-o", str(out)])
    assert first.exit_code == 0, first.output
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [f"gpu0{i}/{name}" for i in range(1, 5) for name in ("nccl.env", "nic-qos.sh")]
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    second = runner.invoke(app, ["hosts", str(INVENTORIES / "lab"), "-o", str(out)])
    assert second.exit_code == 0
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert (out / "gpu01" / "nic-qos.sh").stat().st_mode & 0o111


def test_host_files_cover_every_node(su1: Fabric) -> None:
    qos = compute(su1)
    files = host_files(qos.nics, qos.nccl)
    assert sorted(files) == sorted(su1.nodes)
    assert "NCCL_IB_TC=106" in files["gpu-su001-n01"]["nccl.env"]
    assert "--pfc 0,0,0,1,0,0,0,0" in files["gpu-su001-n01"]["nic-qos.sh"]
    assert "cnp_802p_prio" in files["gpu-su001-n01"]["nic-qos.sh"]


def test_explain_port_names_each_source() -> None:
    result = CliRunner().invoke(app, ["explain", str(INVENTORIES / "lab"), "leaf1:Ethernet256", "--format", "json"])
    assert result.exit_code == 0, result.output
    values = {v["name"]: (v["value"], v["source"]) for v in json.loads(result.output)["values"]}
    assert values["peer"][0] == "spine1:Ethernet0"
    assert values["cnp_tc"] == ("6", "asic:spectrum")
    assert values["ecn queue 3"] == ("min 150000 B, max 1500000 B, 100%", "asic:spectrum")
    assert values["headroom pg 3 cable_m"] == ("30", "inventory:links")
    # 800G, 30 m, 8-lane port: NVIDIA's SN5600 table between 5 m (257024) and 40 m (362496):
    # 257024 + 105472 × 25/35 = 332361.1 → 325 KiB (the formula alone gives 297 KiB); size = xoff + xon + one MTU
    assert values["headroom pg 3 xoff"] == (
        "332800 B",
        "table:sn5600 (NVIDIA SN5600 static headroom, 800G, interpolated 5–40 m)",
    )
    assert values["headroom pg 3 xon"] == ("19456 B", "computed (catalog:sn5600)")
    assert values["headroom pg 3 size"][0] == f"{332800 + 19456 + 9216} B"
    assert values["trust"] == ("dscp", "default")
    assert values["mtu"] == ("9216", "override:fabric.switch_mtu")


def test_explain_says_which_headroom_source_it_used(tmp_path: Path) -> None:
    runner = CliRunner()
    # leaf1:Ethernet0, 400G on 3 m: below the table's first point, the first row (5 m: 231424 B) is the floor
    # (the formula alone: 213 KiB)
    host = runner.invoke(app, ["explain", str(INVENTORIES / "lab"), "leaf1:Ethernet0", "--format", "json"])
    values = {v["name"]: (v["value"], v["source"]) for v in json.loads(host.output)["values"]}
    assert values["headroom pg 3 xoff"] == (
        "231424 B",
        "table:sn5600 (NVIDIA SN5600 static headroom, 400G, first row (5 m) for a shorter cable)",
    )
    # the same model redefined in the inventory's own catalog without a table: the formula, and says so
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in (INVENTORIES / "lab").glob("*.yaml"):
        (inv / f.name).write_text(f.read_text())
    (inv / "catalog.yaml").write_text(
        "catalog:\n  switches:\n    sn5600:\n      vendor: NVIDIA\n      asic: Spectrum-4\n      ports: 64\n"
        "      native_speed: 800G\n      lanes: 8\n      breakouts: [1x800G, 2x400G, 4x200G, 8x100G]\n"
        "      platform: nvue\n      nos: [nvue, sonic]\n"
        "      buffer: {total_bytes: 167772160, cell_bytes: 192, pipeline_latency_bytes: 19456}\n"
    )
    own = runner.invoke(app, ["explain", str(inv), "leaf1:Ethernet0", "--format", "json"])
    assert own.exit_code == 0, own.output
    values = {v["name"]: (v["value"], v["source"]) for v in json.loads(own.output)["values"]}
    assert values["headroom pg 3 xoff"] == ("218112 B", "computed (catalog:sn5600)")


def test_explain_reports_overrides_and_defaults(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in (INVENTORIES / "lab").glob("*.yaml"):
        (inv / f.name).write_text(f.read_text())
    (inv / "qos.yaml").write_text(
        "qos:\n  platforms:\n    sonic: {cnp_tc: 7}\n"
        "  roles:\n    host:\n      ecn_by_speed:\n"
        "        400G: {min_bytes: 150000, max_bytes: 1500000, probability_pct: 100}\n"
    )
    runner = CliRunner()
    host = runner.invoke(app, ["explain", str(inv), "leaf1:Ethernet0", "--format", "json"])
    values = {v["name"]: (v["value"], v["source"]) for v in json.loads(host.output)["values"]}
    assert values["cnp_tc"] == ("7", "override:qos.platforms.sonic")
    assert values["ecn queue 3"] == ("min 150000 B, max 1500000 B, 100%", "override:qos.roles.host.ecn_by_speed.400G")
    nic = runner.invoke(app, ["explain", str(inv), "gpu01:enp24s0np0"])
    assert nic.exit_code == 0
    assert "DSCP 48, priority 7" in nic.output and "override:qos.platforms.sonic" in nic.output
    unknown = runner.invoke(app, ["explain", str(inv), "leaf1:Ethernet999"])
    assert unknown.exit_code == 3
