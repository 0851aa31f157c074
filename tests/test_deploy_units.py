"""Deploy logic without devices: normalisation, credentials, locking, waves, verification and the apply state
machine (with a scripted driver), plus the lab's pure planning."""

from __future__ import annotations

import json
import os
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any, ClassVar

import pytest

from fabricgen.deploy import credentials as cred
from fabricgen.deploy import runner
from fabricgen.deploy.apply import ApplyOptions, FabricLock, LockError, apply, make_waves, order_devices
from fabricgen.deploy.drivers.frr import parse_reload_test
from fabricgen.deploy.normalize import compare
from fabricgen.deploy.targets import Targets, as_lab_fabric
from fabricgen.deploy.transport import Target, TransportError, socket_factory
from fabricgen.deploy.verify import check_bgp, check_interfaces, check_lldp, normalize_ifname
from fabricgen.lab.plan import LabError, build_plan, covered_by_route
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).parent / "data" / "deploy"


@pytest.fixture(scope="module")
def labfrr() -> Fabric:
    return load_fabric(INVENTORIES / "lab-frr")


# ------------------------------------------------------------------------------------------ normalisation


RUNNING = (DATA / "frr" / "running_leaf1.conf").read_text()


def test_no_false_drift_from_order_whitespace_comments_and_defaults() -> None:
    blocks = RUNNING.split("\n!\n")  # top-level blocks only
    shuffled = "\n!\n".join([blocks[0], *reversed(blocks[1:-1]), blocks[-1]])
    assert shuffled != RUNNING
    noisy = shuffled.replace("\n ", "\n    ").replace("router bgp", "! a comment\nrouter bgp", 1)
    noisy = noisy.replace(" bgp router-id", " no bgp ebgp-requires-policy\n bgp log-neighbor-changes\n bgp router-id")
    assert not compare("frr", noisy, RUNNING).drifted


def test_real_change_is_reported_with_lines_and_impact() -> None:
    running = RUNNING.replace("  maximum-paths 64\n", "") + "ip route 0.0.0.0/0 198.51.100.1\n"
    diff = compare("frr", RUNNING, running)
    assert diff.missing == ("router bgp 4200100001 / address-family ipv4 unicast / maximum-paths 64",)
    assert diff.unexpected == ("ip route 0.0.0.0/0 198.51.100.1",)
    assert "routing" in diff.impact


def test_structured_configs_compare_as_data() -> None:
    a = json.dumps({"PORT": {"Ethernet0": {"mtu": "9100", "speed": "400000"}}, "DEVICE_METADATA": {"x": 1}})
    b = json.dumps({"DEVICE_METADATA": {"x": 1}, "PORT": {"Ethernet0": {"speed": "400000", "mtu": "9100"}}}, indent=4)
    assert not compare("sonic", a, b).drifted
    c = b.replace('"9100"', '"1500"')
    assert compare("sonic", a, c).missing == ('PORT / Ethernet0 / mtu = "9100"',)


def test_parse_reload_test_output() -> None:
    out = "\nLines To Delete\n===============\nrouter bgp 1\n neighbor 10.0.0.1 shutdown\n\nLines To Add\n" \
          "============\nrouter bgp 1\n address-family ipv4 unicast\n  maximum-paths 64\n"
    deletes, adds = parse_reload_test(out)
    assert deletes == [("router bgp 1", "neighbor 10.0.0.1 shutdown")]
    assert adds == [("router bgp 1", "address-family ipv4 unicast", "maximum-paths 64")]


# ------------------------------------------------------------------------------------------ credentials


def test_credentials_file_must_be_0600(tmp_path: Path) -> None:
    f = tmp_path / "creds"
    f.write_text(json.dumps({"username": "ops", "password": "hunter2-secret"}))
    os.chmod(f, 0o644)
    with pytest.raises(cred.CredentialsError, match="too open") as exc:
        cred.from_file(f)
    assert "hunter2" not in str(exc.value)
    os.chmod(f, 0o600)
    c = cred.from_file(f)
    assert c.username == "ops" and c.password == "hunter2-secret"
    assert "hunter2" not in repr(c) and "hunter2" not in str(c)


def test_credentials_file_may_be_yaml_and_a_broken_one_never_echoes_its_content(tmp_path: Path) -> None:
    f = tmp_path / "credentials.yaml"
    f.write_text("# fabric switches\nusername: ops\npassword: 'hunter2-secret'\nssh_key: /etc/fabricgen/id_ed25519\n")
    os.chmod(f, 0o600)
    c = cred.from_file(f)
    assert (c.username, c.password, c.ssh_key) == ("ops", "hunter2-secret", "/etc/fabricgen/id_ed25519")
    f.write_text("username: ops\npassword: 'hunter2-se\n  cret: [\n")
    with pytest.raises(cred.CredentialsError, match="not a JSON or YAML mapping") as exc:
        cred.from_file(f)
    assert "hunter2" not in str(exc.value)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"username: ops\npassword: 0777\n", "'password' must be a string (quote it)"),  # YAML would read 777
        (b"username: ops\npassword: [hunter2]\n", "'password' must be a string (quote it)"),
        (b"username: ops\nssh_key: {path: x}\n", "'ssh_key' must be a string (quote it)"),
        (b"username: ops\n", "needs a 'password' or an 'ssh_key' besides 'username'"),
        (b"username: ops\npassword: '\xff\xfehunter2'\n", "not UTF-8 text"),
    ],
)
def test_a_credentials_file_holds_strings_and_a_secret(tmp_path: Path, content: bytes, said: str) -> None:
    """A secret is used as written or refused, never converted (a YAML number, a list) or left empty."""
    f = tmp_path / "credentials.yaml"
    f.write_bytes(content)
    os.chmod(f, 0o600)
    with pytest.raises(cred.CredentialsError) as exc:
        cred.from_file(f)
    assert str(exc.value) == f"{f}: {said}"


def test_reading_credentials_shows_no_parser_warning_that_quotes_the_file(tmp_path: Path) -> None:
    """A reused YAML anchor is valid YAML, and ruamel warns about it by quoting both lines: never a password."""
    import warnings

    f = tmp_path / "credentials.yaml"
    f.write_text("username: &a ops\npassword: &a hunter2-secret\n")
    os.chmod(f, 0o600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        c = cred.from_file(f)
    assert c.password == "hunter2-secret"
    assert [str(w.message) for w in caught] == []


def test_credentials_from_env_and_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRICGEN_USERNAME", "ops")
    monkeypatch.setenv("FABRICGEN_PASSWORD", "s3cr3t-pw")
    c = cred.resolve()
    assert c.source == "environment"
    assert cred.redact("auth failed for ops: s3cr3t-pw.", c.secrets()) == "auth failed for ops: ***."
    monkeypatch.delenv("FABRICGEN_PASSWORD")
    with pytest.raises(cred.CredentialsError):
        cred.resolve()


# ------------------------------------------------------------------------------------------ transport, lab plan


def test_lab_addresses_are_never_dialled_outside_a_lab() -> None:
    with pytest.raises(TransportError, match="lab management range"):
        socket_factory(Target("leaf1", "frr", "198.18.0.12"), 5)
    assert socket_factory(Target("leaf1", "frr", "leaf1.example.net"), 5) is None


def test_lab_plan_and_route_check(labfrr: Fabric) -> None:
    plan = build_plan(labfrr, "spine*,leaf1")
    assert [s.name for s in plan.switches] == ["spine1", "spine2", "leaf1"]
    assert len(plan.cables) == 4 and all(c.a_device == "leaf1" for c in plan.cables)
    assert all(s.mgmt_ip.startswith("198.18.0.") for s in plan.switches)
    with pytest.raises(LabError, match="no switch matches"):
        build_plan(labfrr, "nosuch*")
    assert covered_by_route(IPv4Network("192.0.2.0/24"), [{"dst": "192.0.2.0/24"}]) == "192.0.2.0/24"
    assert covered_by_route(IPv4Network("198.18.0.0/24"), [{"dst": "default"}, {"dst": "192.0.2.0/24"}]) is None


def test_sonic_inventory_runs_in_the_lab_with_its_own_port_names(lab: Fabric) -> None:
    plan = build_plan(as_lab_fabric(lab))
    assert {c.a_port for c in plan.cables} >= {"Ethernet256", "Ethernet280"}
    assert all(s.platform == "frr" for s in as_lab_fabric(lab).switches.values())


# ------------------------------------------------------------------------------------------ waves and lock


def test_waves_canary_first_upper_tiers_first(labfrr: Fabric) -> None:
    names = order_devices(labfrr, list(labfrr.switches))
    assert names[:2] == ["spine1", "spine2"]
    assert make_waves(names, 1, 2) == [["spine1"], ["spine2", "leaf1"], ["leaf2", "leaf3"], ["leaf4"]]


def test_lock_is_exclusive_and_stale_locks_are_taken_over(tmp_path: Path) -> None:
    with FabricLock(tmp_path), pytest.raises(LockError, match="another apply"), FabricLock(tmp_path):
        pass
    (tmp_path / "apply.lock").write_text(json.dumps({"pid": 2**22 + 12345, "host": os.uname().nodename}))
    with FabricLock(tmp_path) as lock:
        assert "stale" in lock.note
    assert not (tmp_path / "apply.lock").exists()


# ------------------------------------------------------------------------------------------ verify


def test_verify_bgp_lldp_interfaces_from_recorded_frr_output(labfrr: Fabric) -> None:
    from fabricgen.deploy.drivers.frr import parse_bgp_neighbors, parse_ip_link, parse_lldpcli_json0

    scope = set(labfrr.switches)
    bgp = parse_bgp_neighbors(json.loads((DATA / "frr/bgp_neighbors_leaf1.json").read_text()))
    assert all(c.ok for c in check_bgp(labfrr, "leaf1", scope, bgp)), check_bgp(labfrr, "leaf1", scope, bgp)
    lldp = parse_lldpcli_json0(json.loads((DATA / "frr/lldpcli_json0_leaf1.json").read_text()))
    assert all(c.ok for c in check_lldp(labfrr, "leaf1", scope, lldp))
    ifaces = parse_ip_link(json.loads((DATA / "frr/ip_link_leaf1.json").read_text()), "swp33 10000\n")
    checks = check_interfaces(labfrr, "leaf1", scope, ifaces)
    assert all(c.ok for c in checks)
    assert "speed not reported (virtual interface)" in checks[0].detail  # a veth's 10000 is not a speed
    # a wrong peer ASN is caught from configuration alone
    bgp["global"]["peers"]["10.128.6.0"]["remote_as"] = 65000
    bad = [c for c in check_bgp(labfrr, "leaf1", scope, bgp) if not c.ok]
    assert len(bad) == 1 and "peer ASN is 65000" in bad[0].detail


def test_lldp_names_are_normalised(labfrr: Fabric) -> None:
    assert normalize_ifname("Eth1/1") == normalize_ifname("Ethernet1/1")
    lldp = {"swp33": [{"hostname": "SPINE1.dc.example.", "port": "swp1"}]}
    checks = {c.subject: c for c in check_lldp(labfrr, "leaf1", {"leaf1", "spine1"}, lldp)}
    assert checks["swp33 → spine1:swp1"].ok
    assert not checks["swp35 → spine1:swp2"].ok


# ------------------------------------------------------------------------------------------ apply state machine


class ScriptedDriver:
    """Follows the NetworkDriver contract; behaviour per device from a script."""

    log: ClassVar[list[tuple[str, str]]] = []

    def __init__(self, name: str, script: dict[str, str], fabric: Fabric) -> None:
        self.name, self.script, self.fabric = name, script, fabric
        self.pending = False
        self.committed = False

    def open(self) -> None:
        self.log.append((self.name, "open"))
        if self.script.get(self.name) == "unreachable":
            raise ConnectionError(f"cannot connect to {self.name}: timed out (password hunter2-secret)")

    def close(self) -> None:
        pass

    def get_config(self, retrieve: str = "all", full: bool = False, sanitized: bool = False) -> dict[str, str]:
        assert sanitized, "apply reads sanitized configurations only"
        at_intent = self.script.get(self.name) == "unchanged" or (
            self.committed and self.script.get(self.name) != "reload-repairs-badly")
        running = f"hostname {self.name}\n" if at_intent else "hostname old\n"
        return {"running": running, "candidate": "", "startup": ""}

    def load_replace_candidate(self, config: str | None = None, filename: str | None = None) -> None:
        self.log.append((self.name, "load"))

    def compare_config(self) -> str:
        return "" if self.script.get(self.name) == "unchanged" else "+ something"

    def discard_config(self) -> None:
        self.log.append((self.name, "discard"))

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        assert revert_in
        self.log.append((self.name, "commit"))
        if self.script.get(self.name) == "commit-rejected":
            raise RuntimeError("commit failed: configuration check-out failed")
        self.pending = self.committed = True
        if self.script.get(self.name) in ("lost", "lost-silent"):
            raise OSError("socket closed")

    def has_pending_commit(self) -> bool:
        if self.script.get(self.name) == "left-pending":
            return True
        if self.script.get(self.name) == "lost-silent" and self.committed:
            raise OSError("socket closed")
        return self.pending

    def confirm_commit(self) -> None:
        self.pending = False
        self.log.append((self.name, "confirm"))

    def rollback(self) -> None:
        self.log.append((self.name, "rollback-sent"))
        if self.script.get(self.name) in ("lost", "lost-silent"):
            raise OSError("socket closed")
        self.pending = False
        self.log.append((self.name, "rollback"))

    def get_bgp_neighbors(self) -> dict[str, Any]:
        from fabricgen.deploy.verify import expected_sessions

        peers = {
            addr: {"remote_as": 1 if self.script.get(self.name) == "bad-asn" else asn, "is_up": True, "uptime": 0}
            for addr, (_, asn) in expected_sessions(self.fabric, self.name, set(self.fabric.switches)).items()
        }
        return {"global": {"router_id": "", "peers": peers}}

    def get_facts(self) -> dict[str, Any]:
        self.log.append((self.name, "facts"))
        return {"hostname": self.script.get(f"{self.name}.hostname", self.name), "serial_number": ""}

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        return {p.name: [{"hostname": str(p.peer_device), "port": str(p.peer_port)}]
                for p in self.fabric.switches[self.name].ports if p.peer_device in self.fabric.switches}

    def get_interfaces(self) -> dict[str, Any]:
        return {
            p.name: {"is_up": True, "is_enabled": True, "mtu": 9216, "speed": -1.0}
            for p in self.fabric.switches[self.name].ports
        }


def _run(labfrr: Fabric, tmp_path: Path, script: dict[str, str], **kw: Any) -> Any:
    ScriptedDriver.log = []
    targets = Targets({n: Target(n, "frr", n) for n in labfrr.switches}, cred.Credentials("u", "hunter2-secret"), "t")
    configs = {n: f"hostname {n}\n" for n in labfrr.switches}
    opts = ApplyOptions(canary=1, wave_size=2, settle=0, workers=2, **kw)
    return apply(labfrr, configs, targets, opts, tmp_path,
                 make_driver=lambda t, c, **_: ScriptedDriver(t.name, script, labfrr))


def test_apply_all_waves_and_rerun_is_noop(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {})
    assert report.ok and set(report.by_status()) == {"applied"}
    assert report.waves == [["spine1"], ["spine2", "leaf1"], ["leaf2", "leaf3"], ["leaf4"]]
    again = _run(labfrr, tmp_path, dict.fromkeys(labfrr.switches, "unchanged"))
    assert set(again.by_status()) == {"unchanged"} and not again.changed
    assert not any(step == "commit" for _, step in ScriptedDriver.log)


def test_a_rerun_with_nothing_left_contacts_no_device(labfrr: Fabric, tmp_path: Path) -> None:
    from fabricgen.deploy.apply import rerun_devices

    assert _run(labfrr, tmp_path, {}).ok
    configs = {n: f"hostname {n}\n" for n in labfrr.switches}
    assert rerun_devices(tmp_path, configs) == []
    ScriptedDriver.log = []
    targets = Targets({n: Target(n, "frr", n) for n in labfrr.switches}, cred.Credentials("u", "p"), "t")
    report = apply(labfrr, configs, targets, ApplyOptions(canary=1, wave_size=2, settle=0, workers=2), tmp_path,
                   only=[], make_driver=lambda t, c, **_: ScriptedDriver(t.name, {}, labfrr))
    assert ScriptedDriver.log == [] and report.outcomes == {}


def test_failed_verify_rolls_back_and_stops(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {"leaf1": "bad-asn"})
    s = report.by_status()
    assert s["rolled-back"] == ["leaf1"] and s["applied"] == ["spine1", "spine2"]
    assert sorted(s["not-touched"]) == ["leaf2", "leaf3", "leaf4"]
    assert report.stopped_after_wave == 2 and not report.ok
    assert ("leaf1", "rollback") in ScriptedDriver.log and ("leaf1", "confirm") not in ScriptedDriver.log
    assert "peer ASN is 1" in report.outcomes["leaf1"].message


def test_unreachable_and_lost_devices_are_named_and_secrets_redacted(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {"spine2": "unreachable", "leaf1": "lost"})
    s = report.by_status()
    assert s["unreachable"] == ["spine2"] and s["reverting"] == ["leaf1"]
    # frr: the revert timer is fabricgen's own process on the switch, and the report says so
    assert "the timer process fabricgen started on the switch" in report.outcomes["leaf1"].message
    assert "(within 120s)" in report.outcomes["leaf1"].message
    assert "hunter2" not in json.dumps(report.as_dict())
    assert "***" in report.outcomes["spine2"].message
    # the rerun targets exactly the devices not at the intended config
    from fabricgen.deploy.apply import rerun_devices

    configs = {n: f"hostname {n}\n" for n in labfrr.switches}
    assert sorted(rerun_devices(tmp_path, configs)) == ["leaf1", "leaf2", "leaf3", "leaf4", "spine2"]


def test_a_rollback_is_sent_only_to_a_device_known_to_have_taken_the_commit(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {"spine1": "commit-rejected"})
    assert report.outcomes["spine1"].status == "failed"
    assert ("spine1", "rollback-sent") not in ScriptedDriver.log
    assert ("spine1", "discard") in ScriptedDriver.log
    report = _run(labfrr, tmp_path, {"spine1": "lost-silent"})
    o = report.outcomes["spine1"]
    assert o.status == "unknown" and ("spine1", "rollback-sent") not in ScriptedDriver.log
    assert "could not say whether it took the commit" in o.message
    assert report.stopped_after_wave == 1


def test_devices_in_sync_are_not_loaded_and_the_report_names_lost_session_behaviour(
    labfrr: Fabric, tmp_path: Path
) -> None:
    report = _run(labfrr, tmp_path, {"leaf1": "unchanged"})
    assert report.outcomes["leaf1"].status == "unchanged"
    assert ("leaf1", "load") not in ScriptedDriver.log  # same comparison as drift: in sync → nothing sent
    assert report.on_lost_session == {"frr": "the timer process fabricgen started on the switch reloads the saved "
                                              "previous configuration (within 120s)"}


def test_dry_run_changes_nothing(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {}, dry_run=True)
    assert set(report.by_status()) == {"would-change"}
    assert not any(step == "commit" for _, step in ScriptedDriver.log)
    assert not (tmp_path / "last-apply.json").exists()


def test_fan_out_keeps_going_past_failures_and_redacts_secrets() -> None:
    def task(name: str) -> str:
        if name == "leaf2":
            raise ConnectionError("auth failed for admin/hunter2")
        return name.upper()

    res = runner.run(task, ["spine1", "leaf2", "leaf1"], workers=2, secrets=["hunter2"])
    assert list(res.by_device) == ["spine1", "leaf2", "leaf1"]  # input order, whatever finished first
    assert res.by_device["leaf1"].value == "LEAF1" and res.failed == ["leaf2"]
    assert res.by_device["leaf2"].error is not None and "hunter2" not in res.by_device["leaf2"].error


def test_progress_only_on_a_terminal_outside_ci_and_only_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from rich.console import Console

    monkeypatch.setattr(runner.sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("CI", "true")
    assert not runner.show_progress()
    monkeypatch.delenv("CI")
    assert runner.show_progress()

    drawn = io.StringIO()
    monkeypatch.setattr(runner, "progress_console", lambda: Console(file=drawn, force_terminal=True, width=80))
    res = runner.run(lambda n: n, ["a", "b", "c"], label="verify")
    assert not res.failed
    assert "verify" in drawn.getvalue()  # the bar was drawn, on the progress console
    assert capsys.readouterr().out == ""  # and nothing reached stdout


def test_a_connection_error_keeps_every_line_of_its_reason() -> None:
    """A refusal whose reason is not on its first line (host key mismatch) still says why, on one line."""
    from fabricgen.deploy.credentials import error_line

    exc = ConnectionError("Authentication to device failed.\n\nCommon causes of this problem are:\n"
                          "Host key for server '[198.18.0.11]:22' does not match: got 'AAAAC3', expected 'AAAAB3'")
    text = error_line(exc)
    assert "\n" not in text and text.endswith("does not match: got 'AAAAC3', expected 'AAAAB3'")
    assert text.startswith("Authentication to device failed. | Common causes")
    assert error_line(ConnectionError("x" * 1000)).endswith("…") and len(error_line(ConnectionError("x" * 1000))) == 400


def test_swapped_hosts_are_refused_before_anything_is_loaded_anywhere(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {"spine1.hostname": "spine2", "spine2.hostname": "spine1"})
    s = report.by_status()
    assert sorted(s["wrong-device"]) == ["spine1", "spine2"] and not report.ok
    assert report.outcomes["spine1"].message == (
        "the device at this address is spine2 (hostname), not spine1; record its serial: or chassis_mac: in the "
        "inventory to configure a device that does not carry its name yet; nothing was loaded")
    assert sorted(s["not-touched"]) == ["leaf1", "leaf2", "leaf3", "leaf4"]
    assert {step for _, step in ScriptedDriver.log} == {"open", "facts"}  # nothing loaded anywhere
    from fabricgen.deploy.apply import last_report

    saved = last_report(tmp_path)
    assert saved is not None and saved["outcomes"]["spine1"]["status"] == "wrong-device"


def test_a_pending_commit_is_reported_pending_never_unchanged(labfrr: Fabric, tmp_path: Path) -> None:
    assert _run(labfrr, tmp_path, {}).ok  # last-apply.json: every device at intent
    script = {**dict.fromkeys(labfrr.switches, "unchanged"), "spine1": "left-pending"}
    report = _run(labfrr, tmp_path, script)
    o = report.outcomes["spine1"]
    assert o.status == "pending" and not report.ok and report.stopped_after_wave == 1
    assert "a commit-confirm is pending on the device" in o.message
    assert ("spine1", "load") not in ScriptedDriver.log
    from fabricgen.deploy.apply import last_report

    saved = last_report(tmp_path)
    assert saved is not None and saved["outcomes"]["spine1"]["status"] == "pending"  # not at intent


def test_a_commit_that_leaves_a_difference_is_rolled_back(labfrr: Fabric, tmp_path: Path) -> None:
    report = _run(labfrr, tmp_path, {"spine1": "reload-repairs-badly"})
    o = report.outcomes["spine1"]
    assert o.status == "rolled-back" and ("spine1", "rollback") in ScriptedDriver.log
    assert "the running configuration still differs from intent after the commit: - hostname spine1" in o.message
    assert ("spine1", "confirm") not in ScriptedDriver.log


def test_the_canary_is_checked_again_after_each_later_wave(
    labfrr: Fabric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def lldp(self: ScriptedDriver) -> dict[str, list[dict[str, str]]]:
        calls.append(self.name)
        sees = self.name == "spine1" and calls.count("spine1") > 1  # fine at its own commit, not afterwards
        return {p.name: [{"hostname": "leaf9" if sees else str(p.peer_device), "port": str(p.peer_port)}]
                for p in self.fabric.switches[self.name].ports if p.peer_device in self.fabric.switches}

    monkeypatch.setattr(ScriptedDriver, "get_lldp_neighbors", lldp)
    report = _run(labfrr, tmp_path, {})
    o = report.outcomes["spine1"]
    assert o.status == "broken-later" and report.stopped_after_wave == 2 and not report.ok
    assert o.message.startswith("applied and confirmed in wave 1, but after wave 2: lldp ")
    assert "sees leaf9:" in o.message
    assert sorted(report.by_status()["not-touched"]) == ["leaf2", "leaf3", "leaf4"]


def test_new_state_refuses_a_session_older_than_the_commit_until_a_hold_time_passed(labfrr: Fabric) -> None:
    from fabricgen.deploy.verify import check_new_state, expected_sessions

    want = expected_sessions(labfrr, "leaf1", {"leaf1", "spine1"})
    bgp = {"global": {"peers": {a: {"remote_as": asn, "is_up": True, "uptime": 600} for a, (_, asn) in want.items()}}}
    lldp = {p.name: [{"hostname": "spine1", "port": str(p.peer_port)}]
            for p in labfrr.switches["leaf1"].ports if p.peer_device == "spine1"}
    ifaces = {p.name: {"is_up": True, "is_enabled": True, "mtu": 9216, "speed": -1.0}
              for p in labfrr.switches["leaf1"].ports}
    kw = {"require_up": set(), "up_before": set(want), "hold": 9.0}
    early = check_new_state(labfrr, "leaf1", {"leaf1", "spine1"}, bgp, lldp, ifaces, since_commit=3.0, **kw)
    assert [c.detail for c in early if c.kind == "bgp"] == [
        "Established since before the commit (600 s) and not yet for a hold time (9 s) after it"] * len(want)
    later = check_new_state(labfrr, "leaf1", {"leaf1", "spine1"}, bgp, lldp, ifaces, since_commit=9.5, **kw)
    assert all(c.ok for c in later)
    fresh = {"global": {"peers": {a: {**p, "uptime": 2} for a, p in bgp["global"]["peers"].items()}}}
    now = check_new_state(labfrr, "leaf1", {"leaf1", "spine1"}, fresh, lldp, ifaces, since_commit=3.0, **kw)
    assert all(c.ok for c in now) and {c.detail for c in now if c.kind == "bgp"} == {
        "Established (came up after the commit)"}


def test_identity_compares_hostname_and_the_serial_the_inventory_records(tmp_path: Path) -> None:
    from fabricgen.deploy.identity import check_identity

    text = (INVENTORIES / "lab-frr" / "fabric.yaml").read_text().replace(
        "platform: frr, id: 1, unit: 1}", "platform: frr, id: 1, unit: 1, serial: MT2330X01234}")
    (tmp_path / "fabric.yaml").write_text(text)
    fabric = load_fabric(tmp_path)
    assert fabric.switches["leaf1"].serial == "MT2330X01234" and fabric.switches["leaf2"].serial == ""
    assert check_identity(fabric, "leaf1", {"hostname": "leaf1.dc1.example", "serial_number": "MT2330X01234"}) == ""
    assert check_identity(fabric, "leaf1", {"hostname": "leaf1", "serial_number": "MT2330X09999"}) == (
        "the device at this address has serial MT2330X09999, the inventory says leaf1 has MT2330X01234")
    assert check_identity(fabric, "leaf2", {"hostname": "leaf2", "serial_number": "anything"}) == ""
    assert check_identity(fabric, "leaf2", {"hostname": "leaf3", "serial_number": ""}) == (
        "the device at this address is leaf3 (hostname), not leaf2; record its serial: or chassis_mac: in the "
        "inventory to configure a device that does not carry its name yet")
    # first provisioning: the factory hostname, the recorded serial
    assert check_identity(fabric, "leaf1", {"hostname": "sonic", "serial_number": "mt2330x01234 "}) == ""
    assert check_identity(fabric, "leaf1", {"hostname": "leaf4", "serial_number": "MT2330X01234"}) == (
        "the device with leaf1's serial MT2330X01234 calls itself leaf4, another switch of this fabric")
