"""apply / drift / verify against a real lab: 2 spines and 4 leaves running FRR, lldpd and sshd in namespaces.

Needs root and frr, frr-pythontools, lldpd, openssh-server. Skipped with the reason otherwise — except when
``CI`` is set, where a missing prerequisite fails the run so CI proves these tests ran. One lab is started for
the module and always torn down, also on failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricgen.cli import JSON_FORMAT
from fabricgen.deploy.apply import ApplyOptions, apply, state_dir
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.ops import Live, load_live, run_drift, run_verify
from fabricgen.lab import lab as labmod
from tests.labkit import isolated_state, lab_inventory, lab_up, skip_module_without_lab

skip_module_without_lab()


FABRIC = "fgtest-lab"


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lab_inventory(tmp_path_factory.mktemp("inv"), FABRIC)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    yield from isolated_state(tmp_path_factory.mktemp("state"))


@pytest.fixture(scope="module")
def lab(inventory: Path, env: dict[str, str]) -> Iterator[labmod.LabState]:
    yield from lab_up(inventory)


def vtysh(state: labmod.LabState, switch: str, *commands: str) -> str:
    argv = ["vtysh"]
    for c in commands:
        argv += ["-c", c]
    return labmod.switch_exec(state, switch, argv)


def running(state: labmod.LabState, switch: str) -> str:
    return vtysh(state, switch, "show running-config")


def fabricgen(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "fabricgen", *args], capture_output=True, text=True, env=env,
                          timeout=240, check=False)


def opts(**kw: Any) -> ApplyOptions:
    return ApplyOptions(**{"revert_in": 60, "settle": 30.0, "wave_size": 5, "workers": 8, **kw})


@pytest.fixture(scope="module")
def live(lab: labmod.LabState, inventory: Path) -> Live:
    return load_live(str(inventory))


@pytest.fixture(scope="module")
def converged(live: Live, lab: labmod.LabState, env: dict[str, str]) -> Live:
    """Scenario 1: apply to the bare lab; every device applied."""
    before = running(lab, "leaf1")
    assert "router bgp" not in before  # bare
    configs = intended_configs(live.fabric)
    report = apply(live.fabric, configs, live.targets, opts(), Path(env["FABRICGEN_STATE_DIR"]))
    assert report.ok, report.as_dict()
    assert set(report.by_status()) == {"applied"}
    assert report.waves[0] == ["spine1"]  # canary
    return live


def test_apply_bare_lab_then_verify_clean(converged: Live, lab: labmod.LabState) -> None:
    results = run_verify(converged)
    assert not results.failed
    for name, r in results.by_device.items():
        assert r.value is not None and r.value.ok, (name, [c.as_dict() for c in r.value.failures] if r.value else r)
        bgp = [c for c in r.value.checks if c.kind == "bgp"]
        assert bgp and all(c.detail == "Established" for c in bgp)
        assert any(c.kind == "lldp" for c in r.value.checks)
    summary = json.loads(vtysh(lab, "spine1", "show bgp summary json"))
    peers = summary["ipv4Unicast"]["peers"]
    assert len(peers) == 8 and all(p["state"] == "Established" for p in peers.values())


def test_verify_cli_exit_0(converged: Live, inventory: Path) -> None:
    proc = fabricgen("verify", str(inventory))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "speed not reported (virtual interface)" in proc.stdout
    junit = fabricgen("verify", str(inventory), "--format", "junit")
    assert junit.returncode == 0, junit.stdout + junit.stderr
    suite = ET.fromstring(junit.stdout).find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "0", "0")
    assert {c.get("classname") for c in suite.iter("testcase")} == {"fabricgen.verify"}
    github = fabricgen("verify", str(inventory), "--format", "github")
    assert (github.returncode, github.stdout) == (0, "")


def test_second_apply_is_a_noop(converged: Live, inventory: Path, lab: labmod.LabState) -> None:
    before = {n: running(lab, n) for n in lab.switches}
    proc = fabricgen("apply", str(inventory), "--format", "json", "--detailed-exitcode")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # 0, not 2: nothing changed
    report = json.loads(proc.stdout)
    assert set(report["summary"]) == {"unchanged"}
    assert {n: running(lab, n) for n in lab.switches} == before


def test_drift_reports_hand_made_change_exactly_and_changes_nothing(
    converged: Live, inventory: Path, lab: labmod.LabState
) -> None:
    proc = fabricgen("drift", str(inventory))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    vtysh(lab, "leaf2", "configure terminal", "router bgp 4200100002", "neighbor 10.128.10.0 shutdown",
          "address-family ipv4 unicast", "no maximum-paths 64")
    try:
        before = running(lab, "leaf2")
        proc = fabricgen("drift", str(inventory))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "leaf2: DRIFT" in proc.stdout
        assert "+ router bgp 4200100002 / neighbor 10.128.10.0 shutdown" in proc.stdout
        assert "- router bgp 4200100002 / address-family ipv4 unicast / maximum-paths 64" in proc.stdout
        for other in ("leaf1", "leaf3", "leaf4", "spine1", "spine2"):
            assert f"{other}: in sync" in proc.stdout
        doc = json.loads(fabricgen("drift", str(inventory), "--format", "json").stdout)
        assert doc["drifted"] == ["leaf2"] and doc["format"] == JSON_FORMAT
        junit = fabricgen("drift", str(inventory), "--format", "junit")
        assert junit.returncode == 2, junit.stdout + junit.stderr
        suite = ET.fromstring(junit.stdout).find("testsuite")
        assert suite is not None and (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "1", "0")
        cases = {c.get("name"): c for c in suite.iter("testcase")}
        assert set(cases) == {"spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"}
        assert [n for n, c in cases.items() if c.find("failure") is not None] == ["leaf2"]
        failure = cases["leaf2"].find("failure")
        assert failure is not None and failure.text is not None
        assert "+ router bgp 4200100002 / neighbor 10.128.10.0 shutdown    (routing)" in failure.text.splitlines()
        github = fabricgen("drift", str(inventory), "--format", "github")
        assert github.returncode == 2, github.stdout + github.stderr
        (annotation,) = github.stdout.splitlines()
        leaf2 = converged.fabric.switches["leaf2"].src
        assert leaf2 is not None and leaf2.file.endswith("fabric.yaml")
        assert annotation.startswith(f"::error file={leaf2.file},line={leaf2.line},col={leaf2.col},"
                                     "title=fabricgen drift::leaf2: drift, ")
        assert "%0A+ router bgp 4200100002 / neighbor 10.128.10.0 shutdown    (routing)" in annotation
        markdown = fabricgen("drift", str(inventory), "--format", "markdown")
        assert markdown.returncode == 2
        assert "| leaf2 | drift | 1 | 1 | routing |" in markdown.stdout
        assert running(lab, "leaf2") == before  # drift changed nothing on the device
    finally:  # put leaf2 back for the scenarios after this one
        report = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf2"])
        assert report.by_status() == {"applied": ["leaf2"]}
    assert not run_drift(converged).by_device["leaf2"].value.drifted  # type: ignore[union-attr]


HAND_PL = "ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24"


def test_a_hand_added_prefix_list_is_drift_tagged_routing_and_the_next_apply_removes_it(
    converged: Live, inventory: Path, lab: labmod.LabState
) -> None:
    """A routing-policy line the intended configuration lacks is drift: the next apply (a full replace) removes it.
    And a freshly applied lab has no line FRR shows that fabricgen does not render: it is in sync."""
    proc = fabricgen("drift", str(inventory))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    vtysh(lab, "leaf4", "configure terminal", HAND_PL)
    try:
        assert HAND_PL in running(lab, "leaf4").splitlines()  # FRR took it, in this form
        proc = fabricgen("drift", str(inventory))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "  leaf4: DRIFT (routing)" in proc.stdout.splitlines()
        assert f"    + {HAND_PL}    (on the device, removed by the next apply; routing)" in proc.stdout.splitlines()
        for other in ("leaf1", "leaf2", "leaf3", "spine1", "spine2"):
            assert f"{other}: in sync" in proc.stdout
        doc = json.loads(fabricgen("drift", str(inventory), "--format", "json").stdout)
        assert doc["drifted"] == ["leaf4"]
        assert doc["devices"]["leaf4"] == {"missing": [], "unexpected": [HAND_PL], "impact": {"routing": [HAND_PL]},
                                           "named_only": []}
        junit = fabricgen("drift", str(inventory), "--format", "junit")
        assert junit.returncode == 2
        failure = {c.get("name"): c for c in ET.fromstring(junit.stdout).iter("testcase")}["leaf4"].find("failure")
        assert failure is not None and failure.text == f"+ {HAND_PL}    (routing)"
        dry = fabricgen("apply", str(inventory), "--dry-run", "--only", "leaf4", "--format", "json")
        outcome = json.loads(dry.stdout)["outcomes"]["leaf4"]
        assert (outcome["status"], outcome["diff"]) == ("would-change", f"- {HAND_PL}"), dry.stdout + dry.stderr
        assert HAND_PL in running(lab, "leaf4").splitlines()  # neither drift nor a dry run changed anything
    finally:  # the replace removes it; later scenarios see a converged lab
        report = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf4"])
        assert report.by_status() == {"applied": ["leaf4"]}, report.as_dict()
        assert report.outcomes["leaf4"].diff == f"- {HAND_PL}"
    assert "HAND-PL" not in running(lab, "leaf4")
    assert not run_drift(converged).by_device["leaf4"].value.drifted  # type: ignore[union-attr]


def test_wrong_peer_asn_fails_verification_and_is_rolled_back(converged: Live, lab: labmod.LabState) -> None:
    configs = intended_configs(converged.fabric)
    before = running(lab, "leaf3")
    bad = configs["leaf3"].replace("remote-as 4200000100", "remote-as 4200000999")
    assert bad != configs["leaf3"]
    report = apply(converged.fabric, {**configs, "leaf3": bad}, converged.targets, opts(canary=0, wave_size=1),
                   Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf3", "leaf4"])
    o = report.outcomes["leaf3"]
    assert o.status == "rolled-back", report.as_dict()
    assert "peer ASN is 4200000999" in o.message
    assert report.outcomes["leaf4"].status == "not-touched"
    assert running(lab, "leaf3") == before  # the device runs its previous config
    assert "4200000999" not in running(lab, "leaf3")


def test_unreachable_switch_mid_rollout_stops_with_clear_report(
    converged: Live, lab: labmod.LabState, inventory: Path
) -> None:
    configs = intended_configs(converged.fabric)
    changed = {n: c.replace("log syslog informational", "log syslog warnings") for n, c in configs.items()}
    mgmt = lab.switches["leaf1"]["netns"]

    def cut(i: int, names: list[str]) -> None:  # leaf1 loses its management link when wave 2 starts
        if i == 2:
            subprocess.run(["ip", "-n", mgmt, "link", "set", "eth0", "down"], check=True)

    try:
        report = apply(converged.fabric, changed, converged.targets, opts(canary=1, wave_size=2, timeout=5),
                       state_dir(converged.fabric.name), on_wave=cut)  # where `fabricgen apply` keeps its state
        s = report.by_status()
        assert s["applied"] == ["spine1", "spine2"]  # the canary, and leaf1's wave-mate
        assert s["unreachable"] == ["leaf1"]
        assert report.stopped_after_wave == 2
        assert sorted(s["not-touched"]) == ["leaf2", "leaf3", "leaf4"]
        assert "log syslog warnings" not in running(lab, "leaf3")
    finally:
        subprocess.run(["ip", "-n", mgmt, "link", "set", "eth0", "up"], check=True)
    # converge again with the real intent: continues with exactly the devices not at it
    proc = fabricgen("apply", str(inventory), "--rerun-failed", "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report2 = json.loads(proc.stdout)
    assert "not-touched" not in report2["summary"] and "unreachable" not in report2["summary"]
    assert "log syslog warnings" not in running(lab, "spine1")


def test_credentials_never_appear_in_output(converged: Live, lab: labmod.LabState, inventory: Path) -> None:
    secret = json.loads(lab.credentials.read_text().splitlines()[-1])["password"]
    env = {"FABRICGEN_USERNAME": "root", "FABRICGEN_PASSWORD": secret}
    outputs = []
    for args in (["verify", str(inventory)], ["drift", str(inventory), "--format", "json"],
                 ["apply", str(inventory), "--dry-run"]):
        proc = fabricgen(*args, env_extra=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr  # password login works
        outputs.append(proc.stdout + proc.stderr)
    wrong = fabricgen("verify", str(inventory), env_extra={**env, "FABRICGEN_PASSWORD": secret[::-1]})
    assert wrong.returncode == 1 and "NOT CHECKED" in wrong.stdout
    outputs.append(wrong.stdout + wrong.stderr)
    state_files = "".join(p.read_text() for p in Path(os.environ["FABRICGEN_STATE_DIR"]).rglob("*") if p.is_file())
    for text in [*outputs, state_files]:
        assert secret not in text and secret[::-1] not in text
    loose = lab.dir / "loose-credentials"
    loose.write_text(lab.credentials.read_text())
    os.chmod(loose, 0o644)
    proc = fabricgen("verify", str(inventory), "--credentials", str(loose))
    assert proc.returncode == 3 and "too open" in proc.stderr and secret not in proc.stderr


def test_lab_status_and_host_keys_are_checked(converged: Live, lab: labmod.LabState, inventory: Path) -> None:
    proc = fabricgen("lab", "status", str(inventory), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert all(r["bgp"]["established"] == r["bgp"]["configured"] > 0 for r in doc["switches"].values())
    kh = lab.dir / "empty_known_hosts"
    kh.write_text("")
    shutil.copy(lab.known_hosts, lab.dir / "known_hosts.bak")
    try:
        lab.known_hosts.write_text("")
        proc = fabricgen("verify", str(inventory), "--only", "leaf1")
        assert proc.returncode == 1 and "NOT CHECKED" in proc.stdout  # unknown host key: refused
    finally:
        shutil.copy(lab.dir / "known_hosts.bak", lab.known_hosts)


def test_apply_of_a_saved_plan_pushes_exactly_its_devices_and_refuses_it_once_stale(
    converged: Live, lab: labmod.LabState, inventory: Path, tmp_path: Path
) -> None:
    """`fabricgen plan -o plan.json` then `fabricgen apply plan.json`: the expansion that added leaf4 touches
    leaf4 and the two spines (new neighbours) and nothing else; a plan whose inventory changed is refused."""
    before = tmp_path / "before"
    before.mkdir()
    text = (inventory / "fabric.yaml").read_text()
    kept = [line for line in text.splitlines() if "leaf4" not in line]
    (before / "fabric.yaml").write_text("\n".join(kept) + "\n")
    plan_file = tmp_path / "plan.json"
    proc = fabricgen("plan", "--base", str(before), str(inventory), "--no-diffs", "-o", str(plan_file))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(plan_file.read_text())["devices_to_change"] == ["leaf4", "spine1", "spine2"]

    # leaf4 drifted (it is in the plan), leaf1 drifted too (it is not)
    for switch, asn, peer in (("leaf4", "4200100004", "10.128.18.0"), ("leaf1", "4200100001", "10.128.6.0")):
        vtysh(lab, switch, "configure terminal", f"router bgp {asn}", f"neighbor {peer} shutdown")
    leaf1_drifted = running(lab, "leaf1")
    try:
        proc = fabricgen("apply", str(plan_file), "--format", "json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = json.loads(proc.stdout)
        assert set(report["outcomes"]) == {"leaf4", "spine1", "spine2"}
        assert report["summary"] == {"applied": ["leaf4"], "unchanged": ["spine1", "spine2"]}
        assert "neighbor 10.128.18.0 shutdown" not in running(lab, "leaf4")
        assert running(lab, "leaf1") == leaf1_drifted  # not in the plan: not touched

        # the inventory changes after the plan was made: the plan is refused and nothing is pushed
        (inventory / "fabric.yaml").write_text(text + "# edited after the plan\n")
        vtysh(lab, "leaf4", "configure terminal", "router bgp 4200100004", "neighbor 10.128.18.0 shutdown")
        leaf4_drifted = running(lab, "leaf4")
        proc = fabricgen("apply", str(plan_file))
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert "fabric.yaml" in proc.stderr and "the plan is stale" in proc.stderr
        assert running(lab, "leaf4") == leaf4_drifted
    finally:
        (inventory / "fabric.yaml").write_text(text)
        report = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf1", "leaf4"])
        assert set(report.by_status()) <= {"applied", "unchanged"}


def test_plan_live_diffs_the_running_config_of_the_plans_devices(
    converged: Live, lab: labmod.LabState, inventory: Path, tmp_path: Path
) -> None:
    """`fabricgen plan --live`: the config diff of each device the plan touches is running → intended,
    read from the devices (read-only): a device at intent shows no diff, a hand-changed one shows the change."""
    before = tmp_path / "before"
    before.mkdir()
    text = (inventory / "fabric.yaml").read_text()
    (before / "fabric.yaml").write_text("\n".join(line for line in text.splitlines() if "leaf4" not in line) + "\n")
    vtysh(lab, "spine1", "configure terminal", "router bgp 4200000100", "neighbor 10.128.6.1 shutdown")
    spine1_running = running(lab, "spine1")
    try:
        proc = fabricgen("plan", "--base", str(before), str(inventory), "--live", "--format", "json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        configs = json.loads(proc.stdout)["configs"]
        live = {name: f for name, c in configs.items() for f in c["files"] if f["path"] == "running"}
        assert set(live) == {"spine1"}, configs  # spine2 and leaf4 run their intended frr.conf already
        assert live["spine1"]["diff"].splitlines()[2:] == ["- router bgp 4200000100 / neighbor 10.128.6.1 shutdown"]
        assert running(lab, "spine1") == spine1_running  # read-only
    finally:
        report = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["spine1"])
        assert report.by_status() == {"applied": ["spine1"]}


# ------------------------------------------------------------- a rollout cannot claim success on a broken fabric


def _variant(inventory: Path, tmp_path: Path, old: str, new: str) -> Path:
    """The lab's inventory with one edit, under the same fabric name (so the running lab is its target)."""
    text = (inventory / "fabric.yaml").read_text()
    assert old in text
    d = tmp_path / "variant"
    d.mkdir()
    (d / "fabric.yaml").write_text(text.replace(old, new))
    return d


def _wait_verified(live: Live, seconds: float = 40.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while True:
        results = run_verify(live)
        if all(r.value is not None and r.value.ok for r in results.by_device.values()):
            return
        assert time.monotonic() < deadline, {n: [c.as_dict() for c in r.value.failures] if r.value else r.error
                                             for n, r in results.by_device.items()}
        time.sleep(1.0)


def test_apply_only_one_spine_still_verifies_its_sessions_with_the_leaves(
    converged: Live, lab: labmod.LabState, inventory: Path, tmp_path: Path
) -> None:
    """A wrong spine ASN pushed with --only: the leaves (not selected) refuse the sessions; rolled back, exit 1."""
    bad = _variant(inventory, tmp_path, "{name: spine2, role: spine, model: sn5600, platform: frr, id: 2}",
                   "{name: spine2, role: spine, model: sn5600, platform: frr, id: 2, asn: 4200000999}")
    before = running(lab, "spine2")
    proc = fabricgen("apply", str(bad), "--only", "spine2", "--revert-in", "60", "--settle", "15",
                     "--format", "json")
    report = json.loads(proc.stdout or "{}")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert report["summary"] == {"rolled-back": ["spine2"]}, report
    message = report["outcomes"]["spine2"]["message"]
    assert message.startswith("verification failed: bgp ") and "(leaf1, AS 4200100001): not Established" in message
    assert running(lab, "spine2") == before
    _wait_verified(converged)


def test_verify_only_one_leaf_checks_its_sessions_with_peers_outside_the_selection(
    converged: Live, lab: labmod.LabState, inventory: Path
) -> None:
    from fabricgen.deploy.verify import expected_sessions

    shut = {s: sorted(expected_sessions(converged.fabric, s, {"leaf4"})) for s in ("spine1", "spine2")}
    for spine, addrs in shut.items():
        vtysh(lab, spine, "configure terminal", "router bgp 4200000100", *(f"neighbor {a} shutdown" for a in addrs))
    try:
        proc = fabricgen("verify", str(inventory), "--only", "leaf4")
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "leaf4: 4 problem(s) — 4 BGP sessions, 4 LLDP neighbours, 4 interfaces" in proc.stdout
        assert proc.stdout.count("not Established") == 4
        assert f"verify: {FABRIC}: 1 device(s)" in proc.stdout  # leaf4 only, checked against its peers
    finally:
        for spine, addrs in shut.items():
            vtysh(lab, spine, "configure terminal", "router bgp 4200000100",
                  *(f"no neighbor {a} shutdown" for a in addrs))
    _wait_verified(converged)


def test_a_miscabled_plan_is_caught_by_lldp_and_rolled_back(
    converged: Live, lab: labmod.LabState, inventory: Path, tmp_path: Path
) -> None:
    """The plan says leaf3:swp33 goes to spine1:swp6 and swp35 to spine1:swp5; the lab is cabled the other way."""
    from fabricgen.deploy.targets import as_lab_fabric
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    text = (inventory / "fabric.yaml").read_text()
    swapped = text.replace("{a: leaf3:swp33, b: spine1:swp5,", "{a: leaf3:swp33, b: spine1:swpX,").replace(
        "{a: leaf3:swp35, b: spine1:swp6,", "{a: leaf3:swp35, b: spine1:swp5,").replace("spine1:swpX", "spine1:swp6")
    variant = _variant(inventory, tmp_path, text, swapped)
    fabric = as_lab_fabric(resolve(load_inventory(variant)))
    before = running(lab, "leaf3")
    report = apply(fabric, intended_configs(fabric), converged.targets, opts(settle=20.0),
                   Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf3"])
    o = report.outcomes["leaf3"]
    assert o.status == "rolled-back", report.as_dict()
    assert "lldp swp33 → spine1:swp6: sees spine1:swp5" in o.message
    assert running(lab, "leaf3") == before
    _wait_verified(converged)


def test_swapped_hosts_are_refused_before_anything_is_loaded(converged: Live, lab: labmod.LabState) -> None:
    from dataclasses import replace

    t = converged.targets.targets
    swapped = replace(converged.targets, targets={
        **t, "spine1": replace(t["spine1"], host=t["spine2"].host),
        "spine2": replace(t["spine2"], host=t["spine1"].host)})
    configs = {n: c.replace("log syslog informational", "log syslog warnings")
               for n, c in intended_configs(converged.fabric).items()}
    before = {n: running(lab, n) for n in lab.switches}
    report = apply(converged.fabric, configs, swapped, opts(), Path(os.environ["FABRICGEN_STATE_DIR"]))
    s = report.by_status()
    assert sorted(s["wrong-device"]) == ["spine1", "spine2"] and not report.ok, report.as_dict()
    assert report.outcomes["spine1"].message == (
        "the device at this address is spine2 (hostname), not spine1; record its serial: or chassis_mac: in the "
        "inventory to configure a device that does not carry its name yet; nothing was loaded")
    assert sorted(s["not-touched"]) == ["leaf1", "leaf2", "leaf3", "leaf4"]
    assert {n: running(lab, n) for n in lab.switches} == before


def test_a_recorded_chassis_mac_is_read_from_lldpd_and_a_wrong_one_stops_the_rollout(
    converged: Live, lab: labmod.LabState, inventory: Path, tmp_path: Path
) -> None:
    """leaf2's real chassis MAC, read through the driver from its lldpd, recorded in a copy of the inventory:
    the apply identifies leaf2 by it. One other MAC: leaf2 is ``wrong-device`` and nothing is loaded anywhere."""
    from fabricgen.deploy.identity import read_chassis_id
    from fabricgen.deploy.session import make_driver

    driver = make_driver(converged.targets.targets["leaf2"], converged.targets.credentials)
    driver.open()
    try:
        chassis = read_chassis_id("frr", driver)
    finally:
        driver.close()
    console = json.loads(labmod.switch_exec(lab, "leaf2", ["lldpcli", "-f", "json0", "show", "chassis"]))
    ident = console["local-chassis"][0]["chassis"][0]["id"][0]
    assert ident["type"] == "mac" and chassis.mac == ident["value"], (chassis, ident)
    leaf2 = "{name: leaf2, role: leaf, model: sn5600, platform: frr, id: 2, unit: 1}"
    wrong_mac = "02:00:5e:00:53:01" if chassis.mac != "02:00:5e:00:53:01" else "02:00:5e:00:53:02"
    (tmp_path / "wrong").mkdir()
    wrong = load_live(str(_variant(inventory, tmp_path / "wrong", leaf2, leaf2[:-1] + f", chassis_mac: {wrong_mac}}}")))
    configs = {n: c.replace("log syslog informational", "log syslog warnings")
               for n, c in intended_configs(wrong.fabric).items()}
    before = {n: running(lab, n) for n in lab.switches}
    report = apply(wrong.fabric, configs, wrong.targets, opts(), Path(os.environ["FABRICGEN_STATE_DIR"]))
    assert report.by_status() == {"wrong-device": ["leaf2"],
                                  "not-touched": ["spine1", "spine2", "leaf1", "leaf3", "leaf4"]}, report.as_dict()
    assert report.outcomes["leaf2"].message == (
        f"the device at this address has chassis MAC {chassis.mac}, the inventory says leaf2 has {wrong_mac}; "
        "nothing was loaded")
    assert {n: running(lab, n) for n in lab.switches} == before
    (tmp_path / "right").mkdir()
    written = chassis.mac.upper().replace(":", "-")  # as a label printer might write it
    right = load_live(str(_variant(inventory, tmp_path / "right", leaf2, leaf2[:-1] + f", chassis_mac: {written}}}")))
    assert right.fabric.switches["leaf2"].chassis_mac == chassis.mac
    try:
        report = apply(right.fabric, {**intended_configs(right.fabric), "leaf2": configs["leaf2"]}, right.targets,
                       opts(), Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf2"])
        assert report.by_status() == {"applied": ["leaf2"]}, report.as_dict()
        assert report.outcomes["leaf2"].message == f"identified as leaf2 by its chassis MAC {chassis.mac}"
        assert "log syslog warnings" in running(lab, "leaf2")
    finally:
        restore = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                        Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf2"])
        assert set(restore.by_status()) <= {"applied", "unchanged"}, restore.as_dict()


def test_a_factory_hostname_is_accepted_by_its_lldp_neighbours_and_refused_at_another_switchs_address(
    converged: Live, lab: labmod.LabState
) -> None:
    """leaf3 renamed ``sonic`` at its console (nothing recorded in the inventory): at leaf4's address (hosts
    swapped) its lldpd's neighbours are not leaf4's — refused, nothing loaded; at its own address they are
    leaf3's — accepted (a dry run goes on to load and compare), and the report says the neighbours decided."""
    from dataclasses import replace

    configs = {n: c.replace("log syslog informational", "log syslog warnings")
               for n, c in intended_configs(converged.fabric).items()}
    labmod.switch_exec(lab, "leaf3", ["hostname", "sonic"])
    try:
        t = converged.targets.targets
        swapped = replace(converged.targets, targets={**t, "leaf3": replace(t["leaf3"], host=t["leaf4"].host),
                                                      "leaf4": replace(t["leaf4"], host=t["leaf3"].host)})
        before = {n: running(lab, n) for n in lab.switches}
        report = apply(converged.fabric, configs, swapped, opts(), Path(os.environ["FABRICGEN_STATE_DIR"]),
                       only=["leaf3", "leaf4"])
        assert sorted(report.by_status()["wrong-device"]) == ["leaf3", "leaf4"], report.as_dict()
        assert report.outcomes["leaf3"].message.startswith("the device at this address is leaf4 (hostname), not leaf3;")
        assert report.outcomes["leaf4"].message.startswith(
            "the device at this address is sonic (hostname), not leaf4, and its LLDP neighbours are not leaf4's: "
            "swp33 sees spine1:swp5 (cabled: spine1:swp7)")
        assert {n: running(lab, n) for n in lab.switches} == before
        # a dry run: identified, then loaded and compared (FRR's running configuration names the system's
        # hostname, so a commit on a host still called `sonic` is drift after the commit and rolled back)
        report = apply(converged.fabric, configs, converged.targets, opts(dry_run=True),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf3"])
        assert report.by_status() == {"would-change": ["leaf3"]}, report.outcomes["leaf3"].message
        assert report.outcomes["leaf3"].message.startswith(
            "identified as leaf3 although it calls itself sonic: its LLDP neighbours place it as leaf3: 4 of 4 "
            "cabled port(s) see their peer (swp33 → spine1:swp5, ")
        assert "+ log syslog warnings" in report.outcomes["leaf3"].diff
        assert {n: running(lab, n) for n in lab.switches} == before
    finally:
        labmod.switch_exec(lab, "leaf3", ["hostname", "leaf3"])
    _wait_verified(converged)


def test_a_commit_left_pending_by_an_interrupted_apply_is_reported_pending(
    converged: Live, lab: labmod.LabState, inventory: Path
) -> None:
    """leaf2 drifted by hand; an apply is killed after its commit (inside the revert window): the device runs
    the intended config but will revert. The next apply says `pending` (not `unchanged`) and records it."""
    from fabricgen.deploy.session import make_driver

    vtysh(lab, "leaf2", "configure terminal", "log syslog warnings")
    drifted = running(lab, "leaf2")
    driver = make_driver(converged.targets.targets["leaf2"], converged.targets.credentials)
    driver.open()
    try:
        driver.load_replace_candidate(config=intended_configs(converged.fabric, ["leaf2"])["leaf2"])
        driver.commit_config(revert_in=60)  # … and the apply is killed here: nothing confirms
        assert driver.has_pending_commit()
        assert labmod.switch_exec(lab, "leaf2", ["ls", "/etc/frr/fabricgen"]).split().count("candidate.conf") == 0
        proc = fabricgen("apply", str(inventory), "--only", "leaf2", "--format", "json")
        assert proc.returncode == 1, proc.stdout + proc.stderr
        report = json.loads(proc.stdout)
        assert report["summary"] == {"pending": ["leaf2"]}
        assert "a commit-confirm is pending on the device" in report["outcomes"]["leaf2"]["message"]
        saved = json.loads((state_dir(FABRIC) / "last-apply.json").read_text())  # where `apply` keeps it
        assert saved["outcomes"]["leaf2"]["status"] == "pending"
        driver.rollback()  # what the timer would do, now
    finally:
        driver.close()
    assert running(lab, "leaf2") == drifted
    report2 = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                    Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf2"])
    assert report2.by_status() == {"applied": ["leaf2"]}
    assert "log syslog warnings" not in running(lab, "leaf2")


def test_a_drift_the_reload_repairs_badly_is_rolled_back_not_applied(
    converged: Live, lab: labmod.LabState
) -> None:
    """`no bgp default ipv4-unicast` made by hand: frr-reload.py's repair leaves the running config different
    from intent (the neighbours' ipv4 activation); apply compares again after the commit and rolls back."""
    vtysh(lab, "leaf1", "configure terminal", "router bgp 4200100001", "no bgp default ipv4-unicast")
    drifted = running(lab, "leaf1")
    try:
        report = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf1"])
        o = report.outcomes["leaf1"]
        assert o.status == "rolled-back", report.as_dict()
        assert "the running configuration still differs from intent after the commit" in o.message
        assert running(lab, "leaf1") == drifted
        assert "candidate.conf" not in labmod.switch_exec(lab, "leaf1", ["ls", "/etc/frr/fabricgen"]).split()
    finally:  # start BGP afresh from intent
        vtysh(lab, "leaf1", "configure terminal", "no router bgp 4200100001")
        report = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), only=["leaf1"])
        assert report.by_status() == {"applied": ["leaf1"]}, report.as_dict()
    _wait_verified(converged)


def test_a_canary_broken_during_a_later_wave_stops_the_rollout(converged: Live, lab: labmod.LabState) -> None:
    """The canary (spine1) is applied and proven; while wave 2 is pushed its link to a leaf of a later wave goes
    down. The re-check after wave 2 reports the canary ``broken-later`` and the rollout stops there."""
    configs = {n: c.replace("log syslog informational", "log syslog warnings")
               for n, c in intended_configs(converged.fabric).items()}
    waves: list[list[str]] = []
    cut: list[str] = []

    def pull_a_cable(i: int, wave: list[str]) -> None:
        waves.append(wave)
        if i == 2:
            later = sorted(n for n in converged.fabric.switches if n.startswith("leaf") and n not in wave)
            port = next(p.name for p in converged.fabric.switches["spine1"].ports if p.peer_device == later[-1])
            labmod.switch_exec(lab, "spine1", ["ip", "link", "set", port, "down"])
            cut.extend([port, later[-1]])

    try:
        report = apply(converged.fabric, configs, converged.targets, opts(wave_size=1, settle=20.0),
                       Path(os.environ["FABRICGEN_STATE_DIR"]), on_wave=pull_a_cable)
        o = report.outcomes["spine1"]
        assert o.status == "broken-later" and report.stopped_after_wave == 2 and not report.ok, report.as_dict()
        assert o.message.startswith("applied and confirmed in wave 1, but after wave 2: ")
        assert f"{cut[0]}" in o.message, o.message
        assert report.outcomes[waves[1][0]].status == "applied"
        untouched = sorted(n for n in converged.fabric.switches if n not in ("spine1", waves[1][0]))
        assert sorted(report.by_status()["not-touched"]) == untouched
        assert "log syslog warnings" not in running(lab, cut[1])  # a later wave's device was never changed
    finally:
        if cut:
            labmod.switch_exec(lab, "spine1", ["ip", "link", "set", cut[0], "up"])
    restore = apply(converged.fabric, intended_configs(converged.fabric), converged.targets, opts(),
                    Path(os.environ["FABRICGEN_STATE_DIR"]))
    assert restore.ok, restore.as_dict()
    _wait_verified(converged)
