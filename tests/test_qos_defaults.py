"""QoS defaults follow the switch's ASIC family, not its NOS; a fabric whose switches' CNP defaults differ gets one
CNP class (FG-QOS-016) instead of a DSCP-map mismatch on every link (FG-QOS-002)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.checks import Finding, Severity, run_checks
from fabricgen.inventory.schema import QosPolicy
from fabricgen.qos import compute
from fabricgen.qos.asic import asic_family
from fabricgen.qos.ecn import platform_default
from fabricgen.qos.policy import DEFAULT_CNP_TC, platform_cnp_tc, resolve_policy
from fabricgen.render import render_device
from tests.conftest import INVENTORIES, load_fabric
from tests.test_render_common import fabric_as, qos_of

PLATFORMS = ("sonic", "nvue", "eos", "nxos", "junos", "frr")
ASICS = ("Spectrum-4", "Spectrum-3", "Tomahawk-5", "Tomahawk-4", "CloudScale-GX2A")
SPEEDS = (100, 200, 400, 800)


def mixed(tmp_path: Path, qos: str = "") -> Path:
    """su1 (32 DGX H100, 8 leaves, 8 spines) on SONiC SN5600 leaves and EOS Arista 7060X6-64PE (Tomahawk-5)
    spines, with ``qos`` (YAML text) appended."""
    text = (INVENTORIES / "su1" / "fabric.yaml").read_text()
    text = text.replace("leaf: {model: sn5600}", "leaf: {model: sn5600, platform: sonic}")
    text = text.replace("spine: {model: sn5600}", "spine: {model: arista-7060x6-64pe, platform: eos}")
    assert "arista-7060x6-64pe" in text
    d = tmp_path / "mixed"
    d.mkdir()
    (d / "fabric.yaml").write_text(text + qos)
    return d


def qos_findings(path: Path) -> list[Finding]:
    return [f for f in run_checks(load_fabric(path)) if f.code.startswith("FG-QOS")]


# ---------------------------------------------------------------------------------------------------- ECN by ASIC


@given(st.sampled_from(("Spectrum-4", "Spectrum-3")), st.sampled_from(SPEEDS), st.sampled_from(("host", "fabric")))
def test_sonic_on_spectrum_gets_nvues_ecn_profile(asic: str, speed: int, role: str) -> None:
    policy = resolve_policy(QosPolicy())
    sonic = policy.settings("sonic", asic, role, speed).ecn_profile  # type: ignore[arg-type]
    nvue = policy.settings("nvue", asic, role, speed).ecn_profile  # type: ignore[arg-type]
    assert (sonic.min_bytes, sonic.max_bytes, sonic.probability_pct) == (150_000, 1_500_000, 100)
    assert sonic == nvue
    assert sonic.source == "asic:spectrum"


def test_ecn_defaults_by_family_and_nos() -> None:
    assert platform_default("sonic", "Tomahawk-5").source == "platform:sonic"  # SONiC's generic template
    assert platform_default("nxos", "CloudScale-GX2A").source == "asic:cloudscale"
    assert platform_default("eos", "Tomahawk-5").source == "default"


@given(
    st.sampled_from(("spectrum", "tomahawk", "cloudscale", "trident", "jericho")),
    st.sampled_from(("", "-2", "-3", "-4", " 5", "-X", "-GX2A")),
    st.sampled_from((str.lower, str.upper, str.title)),
)
def test_asic_family_ignores_generation_and_case(family: str, generation: str, case: object) -> None:
    name = case(family + generation)  # type: ignore[operator]
    assert asic_family(name) == family


def test_rendered_sonic_wred_equals_rendered_nvue_ecn_on_spectrum() -> None:
    lab = INVENTORIES / "lab"  # SN5600 (Spectrum-4)
    sonic = json.loads(render_device(fabric_as(lab, "sonic"), "leaf1", qos_of(lab, "sonic")).main)
    (wred,) = sonic["WRED_PROFILE"].values()
    nvue = yaml.safe_load(render_device(fabric_as(lab, "nvue"), "leaf1", qos_of(lab, "nvue")).main)
    (ecn,) = nvue[0]["set"]["qos"]["congestion-control"]["AI_RDMA"]["traffic-class"].values()
    for colour in ("green", "yellow", "red"):
        assert int(wred[f"{colour}_min_threshold"]) == ecn["min-threshold"] == 150_000
        assert int(wred[f"{colour}_max_threshold"]) == ecn["max-threshold"] == 1_500_000
        assert int(wred[f"{colour}_drop_probability"]) == ecn["probability"] == 100


def test_explain_shows_the_asic_family_as_source() -> None:
    port = qos_of(INVENTORIES / "lab", "sonic").shared("leaf1", "Ethernet0")
    assert port is not None
    assert port.sources["ecn"] == "asic:spectrum" and port.sources["cnp_tc"] == "asic:spectrum"


# ---------------------------------------------------------------------------------------------------- one CNP class


def test_mixed_fabric_resolves_one_cnp_class(tmp_path: Path) -> None:
    findings = qos_findings(mixed(tmp_path))
    assert [f for f in findings if f.code == "FG-QOS-002"] == []
    assert [f for f in findings if f.severity is not Severity.INFO] == []
    (resolved,) = [f for f in findings if f.code == "FG-QOS-016"]
    assert resolved.severity is Severity.INFO
    assert resolved.message == (
        "the switches' default CNP classes differ (6 on 8 switches (asic:spectrum), 7 on 8 switches "
        "(asic:tomahawk)): CNP (DSCP 48) uses priority 6 on every switch and NIC, the priority ConnectX sends "
        "CNPs on"
    )
    assert resolved.hint == "set qos.cnp_tc to choose another class"


def test_mixed_fabric_puts_cnp_on_6_everywhere(tmp_path: Path) -> None:
    qos = compute(load_fabric(mixed(tmp_path)))
    assert {sw.cnp_tc for sw in qos.switches.values()} == {DEFAULT_CNP_TC}
    assert {sw.sources["cnp_tc"] for sw in qos.switches.values()} == {"resolved:fabric"}
    assert {nic.cnp_priority for _, nic in qos.nics.shared_items()} == {6}
    spine = qos.switches["spine-01"]
    assert {p.dscp_to_tc[48] for p in spine.firsts} == {6}


@pytest.mark.parametrize("tc", [6, 7])
def test_explicit_cnp_tc_suppresses_the_resolution(tmp_path: Path, tc: int) -> None:
    path = mixed(tmp_path, f"qos:\n  cnp_tc: {tc}\n")
    findings = qos_findings(path)
    assert [f.code for f in findings if f.code in ("FG-QOS-002", "FG-QOS-016")] == []
    qos = compute(load_fabric(path))
    assert {sw.cnp_tc for sw in qos.switches.values()} == {tc}
    assert {sw.sources["cnp_tc"] for sw in qos.switches.values()} == {"override:qos"}


def test_a_platform_override_that_splits_the_fabric_is_one_finding(tmp_path: Path) -> None:
    """Spines forced back to 7: every leaf-spine link differs the same way, one FG-QOS-002 with the count."""
    findings = qos_findings(mixed(tmp_path, "qos:\n  platforms:\n    eos: {cnp_tc: 7}\n"))
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert [f.code for f in errors] == ["FG-QOS-002"]
    assert errors[0].subject == "leaf-su001-r0:Ethernet128"
    assert "DSCP 48 → 6 vs 7; the same on 127 more links (leaf-su001-r0:Ethernet136," in errors[0].message
    assert not any(f.code == "FG-QOS-016" for f in findings)  # the leaves' defaults alone agree


KINDS = st.lists(st.tuples(st.sampled_from(PLATFORMS), st.sampled_from(ASICS)), min_size=1, max_size=12)


@given(KINDS)
def test_every_switch_gets_one_cnp_class(kinds: list[tuple[str, str]]) -> None:
    policy = resolve_policy(QosPolicy(), kinds)
    classes = {policy.settings(p, a, "fabric", 400).cnp_tc for p, a in kinds}
    assert len(classes) == 1
    defaults = {platform_cnp_tc(p, a)[0] for p, a in kinds}
    if len(defaults) == 1:  # agreeing defaults are kept, and nothing is reported
        assert policy.fabric_cnp is None and classes == defaults
    else:
        assert policy.fabric_cnp is not None and classes == {DEFAULT_CNP_TC}
        assert sum(n for *_, n in policy.fabric_cnp.defaults) == len(kinds)


@given(KINDS, st.integers(0, 7))
def test_inventory_cnp_tc_always_wins(kinds: list[tuple[str, str]], tc: int) -> None:
    policy = resolve_policy(QosPolicy(cnp_tc=tc), kinds)
    assert policy.fabric_cnp is None
    assert {policy.settings(p, a, "host", 400).cnp_tc for p, a in kinds} == {tc}
