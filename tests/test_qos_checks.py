"""Lossless QoS checks: the bundled inventories are clean; each broken example fails with its finding."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fabricgen.checks import Finding, Severity, run_checks
from fabricgen.checks import lossless as L
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).resolve().parent / "data" / "qos"


def qos_findings(path: Path) -> list[Finding]:
    return [f for f in run_checks(load_fabric(path)) if f.code.startswith("FG-QOS")]


@pytest.mark.parametrize("name", ["lab", "su1", "multi-su"])
def test_bundled_inventories_have_no_qos_errors_or_warnings(name: str) -> None:
    findings = qos_findings(INVENTORIES / name)
    assert [f for f in findings if f.severity is not Severity.INFO] == []


def test_lab_is_completely_clean() -> None:
    assert qos_findings(INVENTORIES / "lab") == []


def test_intent_reports_defaulted_cable_lengths() -> None:
    findings = qos_findings(INVENTORIES / "su1")
    assert [(f.code, f.severity) for f in findings] == [("FG-QOS-011", Severity.INFO)] * 2
    assert "256 host link(s) have no length_m" in findings[0].message
    assert "assumes 5 m from fabric.cable_defaults.host" in findings[0].message
    assert "assumes 40 m from fabric.cable_defaults.leaf_spine" in findings[1].message


def _one(findings: list[Finding], code: str, subject: str) -> Finding:
    hits = [f for f in findings if f.code == code and f.subject == subject]
    assert len(hits) == 1, [str(f) for f in findings]
    return hits[0]


def test_rule1_host_trusting_pcp() -> None:
    findings = qos_findings(DATA / "trust-pcp-host")
    assert {f.code for f in findings} == {"FG-QOS-001"}
    assert sorted(f.subject for f in findings) == sorted(
        f"gpu02:{nic}"
        for nic in (
            "enp24s0np0", "enp64s0np0", "enp79s0np0", "enp94s0np0",
            "enp154s0np0", "enp192s0np0", "enp206s0np0", "enp220s0np0",
        )
    )  # fmt: skip
    f = _one(findings, "FG-QOS-001", "gpu02:enp24s0np0")
    assert f.severity is Severity.ERROR
    assert f.message.startswith("host NIC trusts PCP, its peer leaf1:Ethernet4 trusts DSCP")


def test_rule2_dscp_map_differs_between_host_and_fabric_ports() -> None:
    findings = qos_findings(DATA / "dscp-map-role")
    assert {f.code for f in findings} == {"FG-QOS-002"}
    # one cause (the role override), one finding: every leaf's 4 uplinks differ from its host ports the same way
    assert [f.subject for f in findings] == ["leaf1:Ethernet256"]
    f = findings[0]
    assert "differs from leaf1:Ethernet0 on the same switch" in f.message
    assert "peers spine1:Ethernet0 and gpu01:enp24s0np0" in f.message
    assert f.message.endswith(
        "DSCP 48 → 7 vs 6; 16 ports on 4 switches differ the same way (leaf1, leaf2, leaf3 and 1 more)"
    )


def test_rule2_pfc_set_differs_on_host_link() -> None:
    findings = qos_findings(DATA / "pfc-host-mismatch")
    assert {f.code for f in findings} == {"FG-QOS-003"}
    assert len(findings) == 8
    f = _one(findings, "FG-QOS-003", "gpu03:enp24s0np0")
    assert f.message.startswith("PFC on priorities {3,4}, its peer leaf1:Ethernet8 on {3}")


def test_rule3_cnp_priority_pfc_enabled() -> None:
    findings = qos_findings(DATA / "cnp-pfc")
    assert {f.code for f in findings} == {"FG-QOS-004"}
    f = _one(findings, "FG-QOS-004", "leaf1:Ethernet0")
    assert f.message.startswith("CNP priority 6 is PFC-enabled (PFC on {3,6}; peer gpu01:enp24s0np0)")
    nic = _one(findings, "FG-QOS-004", "gpu01:enp24s0np0")
    assert nic.message == "NIC CNP priority 6 is PFC-enabled (PFC on {3,6}; peer leaf1:Ethernet0)"


def test_rule4_ecn_off_on_switch_queue_and_nic() -> None:
    findings = qos_findings(DATA / "ecn-off")
    assert {f.code for f in findings} == {"FG-QOS-005"}
    sw = _one(findings, "FG-QOS-005", "leaf1:Ethernet256")
    assert sw.message.startswith("RoCE egress queue 3 does not mark ECN (the WRED profile lacks ecn")
    assert "peer spine1:Ethernet0" in sw.message
    spine = _one(findings, "FG-QOS-005", "spine1:Ethernet0")
    assert "peer leaf1:Ethernet256" in spine.message
    nic = _one(findings, "FG-QOS-005", "gpu04:enp24s0np0")
    assert nic.message == (
        "ECN notification and reaction point off for RoCE priority 3 (NIC ECN on {}), "
        "while its peer leaf1:Ethernet12 marks queue 3"
    )
    assert not any(f.subject == "leaf1:Ethernet0" for f in findings)  # host ports still mark


def test_rule5_ecn_min_not_below_static_xoff_threshold() -> None:
    findings = qos_findings(DATA / "ecn-after-pfc")
    assert {f.code for f in findings} == {"FG-QOS-006"}
    assert all(f.severity is Severity.ERROR for f in findings)
    f = _one(findings, "FG-QOS-006", "leaf1:Ethernet0")
    assert f.message.startswith(
        "ECN min 150000 B on queue 3 (asic:spectrum; peer gpu01:enp24s0np0) is not below the static "
        "PFC XOFF threshold 131072 B of PG 3"
    )


def test_rule5_dynamic_thresholds_only_warn(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in (INVENTORIES / "lab").glob("*.yaml"):
        (inv / f.name).write_text(f.read_text())
    # dynamic_th -8: alpha 1/256 → threshold ≈ 640 KB, below SONiC's generic 1 MiB ECN minimum (set here: the
    # SN5600's own default, NVIDIA's 150,000 B, marks below any dynamic threshold)
    (inv / "qos.yaml").write_text(
        "qos:\n  pfc_threshold: {mode: dynamic, dynamic_th: -8}\n"
        "  ecn: {min_bytes: 1048576, max_bytes: 2097152, probability_pct: 5}\n"
    )
    findings = [f for f in qos_findings(inv) if f.code == "FG-QOS-006"]
    assert findings and all(f.severity is Severity.WARNING for f in findings)
    assert "estimated dynamic PFC XOFF threshold" in findings[0].message


def test_rule5_ecn_profile_sanity(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in (INVENTORIES / "lab").glob("*.yaml"):
        (inv / f.name).write_text(f.read_text())
    (inv / "qos.yaml").write_text(
        "qos:\n  ecn_by_speed:\n    400G: {min_bytes: 200000, max_bytes: 100000, probability_pct: 0}\n"
    )
    findings = [f for f in qos_findings(inv) if f.code == "FG-QOS-006"]
    f = _one(findings, "FG-QOS-006", "leaf1:Ethernet0")
    assert f.message == (
        "ECN profile of queue 3 (override:qos.ecn_by_speed.400G): max 100000 B < min 200000 B; "
        "mark probability 0% is outside 1–100 (peer gpu01:enp24s0np0)"
    )
    assert not any(f.subject == "leaf1:Ethernet256" for f in findings)  # 800G uplinks keep the default


def test_rule6_host_mtu_1500_gives_roce_1024() -> None:
    findings = qos_findings(DATA / "mtu-1500")
    assert [f.code for f in findings] == ["FG-QOS-007"]
    assert findings[0].message == (
        "host MTU 1500 gives RoCE path MTU 1024, not 4096 (needs ≥ 4192); peer leaf1:Ethernet0"
    )


def test_rule6_switch_mtu_below_host_mtu_plus_overhead() -> None:
    findings = qos_findings(DATA / "mtu-switch")
    assert {f.code for f in findings} == {"FG-QOS-007"}
    f = _one(findings, "FG-QOS-007", "leaf1:Ethernet0")
    assert f.message.startswith("port MTU 9000 is below host MTU 9000 + 22 = 9022 (peer gpu01:enp24s0np0, MTU 9000)")
    assert len(findings) == 48 + 16  # 32 host ports + 16 leaf–spine links × 2 ends


def test_rule7_storage_sharing_training_priority() -> None:
    findings = qos_findings(DATA / "storage-shared")
    assert {f.code for f in findings} == {"FG-QOS-008"}
    f = _one(findings, "FG-QOS-008", "leaf1:Ethernet0")
    assert f.message.startswith(
        "storage lane nvmeof (DSCP 24) shares lossless priority 3 with training lane roce (DSCP 26)"
    )


def test_rule7_declared_sharing_is_accepted(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in (DATA / "storage-shared").glob("*.yaml"):
        (inv / f.name).write_text(f.read_text())
    with (inv / "qos.yaml").open("a") as fh:
        fh.write("  shared_lossless: true\n")
    assert qos_findings(inv) == []


def test_buffer_headroom_exceeds_asic() -> None:
    findings = qos_findings(DATA / "buffer-small")
    assert {f.code for f in findings} == {"FG-QOS-009"}
    f = _one(findings, "FG-QOS-009", "leaf1")
    # 8 host ports × 237,568 (400G, 3 m) + 4 uplinks × 332,800 (800G, 30 m, 8 lanes)
    assert f.message == (
        "lossless headroom 3231744 B over 12 priority groups exceeds the ASIC buffer 2097152 B (catalog:sn5600)"
    )


def test_buffer_fit_counts_the_vendor_table_headroom(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in (DATA / "buffer-small").glob("*.yaml"):
        (inv / f.name).write_text(f.read_text())
    with (inv / "catalog.yaml").open("a") as fh:
        fh.write(
            "      headroom_table:\n        title: NVIDIA SN5600 static headroom\n        source: NVIDIA\n"
            "        xoff_bytes: {400G: {5m: 231424, 40m: 283648}, 800G: {5m: 257024, 40m: 362496}}\n"
        )
    f = _one(qos_findings(inv), "FG-QOS-009", "leaf1")
    # 8 host ports: 400G, 3 m → the 5 m row is the floor: 231,424 xoff, + 19,456 xon = 250,880
    # 4 uplinks: 800G, 30 m → 257024 + 105472 × 25/35 → 325 KiB xoff, + xon + one MTU = 361,472
    assert 8 * 250_880 + 4 * 361_472 == 3_452_928
    assert f.message == (
        "lossless headroom 3452928 B over 12 priority groups exceeds the ASIC buffer 2097152 B (catalog:sn5600)"
    )


def test_headroom_table_must_not_decrease_with_length() -> None:
    from fabricgen.inventory.schema import HeadroomTableSpec

    with pytest.raises(ValueError, match="400G: xoff must not decrease with cable length"):
        HeadroomTableSpec.model_validate(
            {"title": "t", "source": "s", "xoff_bytes": {"400G": {"5m": 2048, "40m": 1024}}}
        )


def test_host_marking_override_lands_in_lossy_lane() -> None:
    findings = qos_findings(DATA / "host-tos")
    assert {f.code for f in findings} == {"FG-QOS-010"}
    f = _one(findings, "FG-QOS-010", "gpu01:enp24s0np0")
    assert f.message == (
        "RoCE ToS 96 (DSCP 24) lands in lossy priority 0 (default) on its peer leaf1:Ethernet0; "
        "the RoCE lane wants ToS 106 (DSCP 26)"
    )
    nccl = _one(findings, "FG-QOS-010", "gpu02")
    assert nccl.message.startswith("NCCL_IB_TC=0 but its NICs mark RoCE with ToS 106 (DSCP 26)")


def test_pfc_on_a_lane_declared_lossy_is_an_error() -> None:
    findings = [f for f in qos_findings(DATA / "pfc-lossy-lane") if f.code != "FG-QOS-011"]
    assert [(f.code, f.severity.value) for f in findings] == [("FG-QOS-012", "error")]
    f = findings[0]
    assert f.message == (
        "PFC is enabled on priority 4 (qos.pfc_priorities), which carries lane storage declared lossy: "
        "that traffic would pause links without headroom or ECN planned for it"
    )
    assert f.src is not None and f.src.file.endswith("pfc-lossy-lane/qos.yaml") and (f.src.line, f.src.col) == (4, 3)


def test_ets_weights_over_100_percent_are_an_error() -> None:
    findings = [f for f in qos_findings(DATA / "ets-over") if f.code != "FG-QOS-011"]
    assert [f.code for f in findings] == ["FG-QOS-013"]
    assert findings[0].message == "ETS weights sum to 160 % (default 30, roce 80, storage 50); a port has 100 %"
    assert findings[0].src is not None and (findings[0].src.line, findings[0].src.col) == (3, 3)


def test_ets_lane_without_weight_that_carries_traffic_is_an_error(tmp_path: Path) -> None:
    d = tmp_path / "inv"
    shutil.copytree(DATA / "ets-over", d)
    text = (d / "qos.yaml").read_text().replace("weight: 50}", "weight: 20}").replace(
        "scheduling: ets, weight: 30}", "scheduling: ets}")
    (d / "qos.yaml").write_text(text)
    findings = [f for f in qos_findings(d) if f.code != "FG-QOS-011"]
    assert [f.code for f in findings] == ["FG-QOS-013"]
    assert findings[0].message.startswith("ETS lane default carries DSCP 0,1,2,3,4,5,… (61 values) but has no weight")
    assert findings[0].src is not None and (findings[0].src.line, findings[0].src.col) == (7, 7)


def test_lossy_and_lossless_lanes_on_one_class_are_an_error() -> None:
    findings = [f for f in qos_findings(DATA / "tc-mixed") if f.code != "FG-QOS-011"]
    assert [f.code for f in findings] == ["FG-QOS-014"]
    assert findings[0].message == "traffic class 3 carries lossless lane roce and lossy lane bulk"
    assert findings[0].src is not None and (findings[0].src.line, findings[0].src.col) == (7, 7)


def test_watchdog_forward_is_an_error_where_the_nos_only_drops() -> None:
    findings = [f for f in qos_findings(DATA / "watchdog-forward") if f.code != "FG-QOS-011"]
    assert [(f.code, f.subject.split(":")[0]) for f in findings] == [
        ("FG-QOS-015", "leaf-su001-r0"), ("FG-QOS-015", "spine-01")]
    assert findings[0].message.startswith(
        "PFC watchdog action forward (qos.pfc_watchdog.action) is not available on eos 4.32: ")
    assert " junos 23.4: " in findings[1].message
    assert all(f.src is not None and (f.src.line, f.src.col) == (16, 3) for f in findings)


def test_watchdog_forward_on_sonic_is_no_finding(tmp_path: Path) -> None:
    d = tmp_path / "wd"
    shutil.copytree(DATA / "watchdog-forward", d)
    text = (d / "fabric.yaml").read_text()
    # the same fabric on SONiC: the Arista leaves run it, the Junos-only spines become Dell Z9864F-ON
    text = text.replace("platform: eos", "platform: sonic").replace(
        "{model: juniper-qfx5230-64cd, platform: junos}", "{model: dell-z9864f-on, platform: sonic}")
    assert "eos" not in text and "junos" not in text
    (d / "fabric.yaml").write_text(text)
    assert [f for f in qos_findings(d) if f.code == "FG-QOS-015"] == []


def test_every_rule_has_a_broken_example() -> None:
    codes = set()
    for d in DATA.iterdir():
        codes |= {f.code for f in qos_findings(d)}
    info = {"FG-QOS-011", "FG-QOS-016"}  # no broken example: info (016 is in tests/test_qos_defaults.py)
    assert codes - info == {f"FG-QOS-{i:03d}" for i in range(1, 17)} - info
    assert len(L.CHECKS) == 16
