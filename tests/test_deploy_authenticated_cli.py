"""The EOS trust options and the device-hidden defaults through the CLI, against the simulated switch behind a
real HTTPS eAPI socket on 127.0.0.1 (:mod:`tests.simserver`): ``plan --live`` authenticates the switch as
``drift`` does; ``drift``/``verify`` name an unauthenticated switch in their reports; a switch that hides EOS
defaults is in sync for ``drift`` (the CLI) and ``unchanged`` for ``apply``, and a hand-added prefix-list on it is
drift tagged routing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from fabricgen.cli import app
from tests.simserver import Certificate
from tests.test_deploy_authenticated import _apply, _eos, _eos_inventory, eapi, pki  # noqa: F401 (fixture)
from tests.test_deploy_roundtrip import DEVICE, ENVIRON, PASSWORD, _rig

ENV = {"FABRICGEN_USERNAME": "admin", "FABRICGEN_PASSWORD": PASSWORD, **ENVIRON}


def _env(tmp_path: Path) -> dict[str, str]:
    return {**ENV, "FABRICGEN_STATE_DIR": str(tmp_path / "state"), "FABRICGEN_KNOWN_CERTS": str(tmp_path / "none")}


def _base_touching_leaf1(tmp_path: Path, inv: Path) -> Path:
    """A base inventory in which only leaf1 differs (its rack unit), so `plan --live` reads leaf1 alone."""
    base = tmp_path / "base"
    shutil.copytree(inv, base)
    devices = base / "devices.yaml"
    text = devices.read_text()
    assert "platform: eos, id: 1, unit: 1, rails: [0, 1]" in text
    devices.write_text(text.replace("platform: eos, id: 1, unit: 1, rails: [0, 1]",
                                    "platform: eos, id: 1, unit: 2, rails: [0, 1]"))
    return base


# ------------------------------------------------------------------------------------------- plan --live


def test_plan_live_authenticates_eos_with_a_pin_and_refuses_an_impostor(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    rig = _rig("eos", monkeypatch)
    inv = _eos_inventory(tmp_path)
    base = _base_touching_leaf1(tmp_path, inv)
    kc, hosts = tmp_path / "known_certs", tmp_path / "hosts.yaml"
    runner = CliRunner()
    args = ["plan", str(inv), "--base", str(base), "--live", "--no-lab", "--hosts", str(hosts),
            "--known-certs", str(kc), "--format", "json"]
    with eapi(rig, pki["genuine"]) as srv:
        port = srv.port
        hosts.write_text(f"{DEVICE}: 127.0.0.1:{port}\n")
        kc.write_text(f"127.0.0.1:{port} {pki['genuine'].fingerprint}\n")
        ok = runner.invoke(app, args, env=_env(tmp_path))
        assert ok.exit_code == 0, ok.output
        assert srv.log.authorization_seen and "show running-config" in srv.log.commands
    doc = json.loads(ok.stdout)
    text = json.dumps(doc)
    assert f"--- running/{DEVICE}" in text  # the diff is against what the switch runs
    assert not any(DEVICE in n and "not the recorded" in n for n in doc["notes"]), doc["notes"]
    assert PASSWORD not in ok.output
    with eapi(rig, pki["impostor"], port=port) as impostor:  # another device takes the switch's address
        refused = runner.invoke(app, args, env=_env(tmp_path))
    assert refused.exit_code == 0, refused.output
    notes = json.loads(refused.stdout)["notes"]
    assert any(n.startswith(f"--live: {DEVICE}: ") and "not the recorded" in n and "nothing was sent" in n
               for n in notes), notes
    assert f"--- running/{DEVICE}" not in refused.stdout  # nothing was read from the impostor
    assert impostor.log.connections >= 1 and impostor.log.requests == [] and not impostor.log.authorization_seen


def test_plan_live_insecure_is_named_in_the_plan(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    rig = _rig("eos", monkeypatch)
    inv = _eos_inventory(tmp_path)
    base = _base_touching_leaf1(tmp_path, inv)
    hosts = tmp_path / "hosts.yaml"
    with eapi(rig, pki["impostor"]) as srv:
        hosts.write_text(f"{DEVICE}: 127.0.0.1:{srv.port}\n")
        out = CliRunner().invoke(app, ["plan", str(inv), "--base", str(base), "--live", "--no-lab", "--hosts",
                                       str(hosts), "--insecure", "--format", "json"], env=_env(tmp_path))
    assert out.exit_code == 0, out.output
    notes = json.loads(out.stdout)["notes"]
    assert f"--live: warning: {DEVICE}: --insecure: the TLS certificate of 127.0.0.1:{srv.port} is NOT verified" in (
        " ".join(notes)), notes


# ------------------------------------------------------------------------ drift/verify name what is unverified


@pytest.mark.parametrize("command", ["drift", "verify"])
def test_http_and_insecure_are_named_in_the_drift_and_verify_reports(
    command: str, pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    rig = _rig("eos", monkeypatch)
    inv, hosts = _eos_inventory(tmp_path), tmp_path / "hosts.yaml"
    runner = CliRunner()
    for transport, cert, extra, expected in (
        ("http", None, [], f"warning: {DEVICE}: eAPI over plain HTTP (127.0.0.1:"),
        ("https", pki["impostor"], ["--insecure"], f"warning: {DEVICE}: --insecure: the TLS certificate of 127.0.0.1:"),
    ):
        with eapi(rig, cert) as srv:
            hosts.write_text(f"{DEVICE}: {{host: 127.0.0.1, port: {srv.port}, transport: {transport}}}\n")
            live = [command, str(inv), "--hosts", str(hosts), "--only", DEVICE, "--no-lab", *extra]
            text = runner.invoke(app, live, env=_env(tmp_path))
            doc = runner.invoke(app, [*live, "--format", "json"], env=_env(tmp_path))
            assert srv.log.authorization_seen  # the commands really talked to the switch
        assert text.exit_code in (0, 1, 2) and "NOT CHECKED" not in text.stdout, text.output
        report_lines = [line for line in text.stdout.splitlines() if line.startswith("warning: ")]
        assert len(report_lines) == 1 and report_lines[0].startswith(expected), text.stdout  # in the report itself
        assert expected in text.stderr  # and, as before, on stderr
        warnings = json.loads(doc.stdout)["warnings"]
        assert list(warnings) == [DEVICE] and warnings[DEVICE].startswith(expected), doc.stdout
        if transport == "https":  # drift and verify send no configuration: the warning does not say they do
            assert warnings[DEVICE].endswith("receives the password (and, from apply, the configuration) and can "
                                             "answer with anything"), warnings[DEVICE]


def test_an_authenticated_switch_has_no_warnings(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    rig = _rig("eos", monkeypatch)
    inv, hosts = _eos_inventory(tmp_path), tmp_path / "hosts.yaml"
    with eapi(rig, pki["genuine"]) as srv:
        pin = pki["genuine"].fingerprint
        hosts.write_text(f"{DEVICE}: {{host: 127.0.0.1, port: {srv.port}, certificate: '{pin}'}}\n")
        out = CliRunner().invoke(app, ["drift", str(inv), "--hosts", str(hosts), "--only", DEVICE, "--no-lab",
                                       "--format", "json"], env=_env(tmp_path))
    assert out.exit_code in (0, 2), out.output
    assert json.loads(out.stdout)["warnings"] == {}


# ------------------------------------------------------------------- defaults EOS hides, over the real socket


def _hide_eos_defaults(running: str) -> str:
    """The running configuration as an EOS switch shows it at its defaults: no ``lldp run`` (LLDP runs by
    default), no ``protocol https`` under ``management api http-commands`` (eAPI's default protocol)."""
    out, block = [], ""
    for line in running.splitlines():
        if not line.startswith(" "):
            block = line
        if line == "lldp run" or (block == "management api http-commands" and line.strip() == "protocol https"):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def test_eos_switch_hiding_its_defaults_is_in_sync_for_drift_and_unchanged_for_apply_then_a_hand_line_is_drift(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    rig = _rig("eos", monkeypatch)
    inv, hosts = _eos_inventory(tmp_path), tmp_path / "hosts.yaml"
    runner = CliRunner()
    with eapi(rig, pki["genuine"]) as srv:
        target = _eos(srv.port, tls_pin=pki["genuine"].fingerprint)
        assert _apply(rig, target).status == "applied"  # the switch at intent, as EOS stores it
        shown = _hide_eos_defaults(rig.dev.running)
        assert "lldp run" in rig.dev.running and "protocol https" in rig.dev.running
        assert "lldp run" not in shown and "protocol https" not in shown
        rig.dev.running = rig.dev.startup = shown
        hosts.write_text(f"{DEVICE}: {{host: 127.0.0.1, port: {srv.port}, "
                         f"certificate: '{pki['genuine'].fingerprint}'}}\n")
        drift = [str(inv), "--hosts", str(hosts), "--only", DEVICE, "--no-lab"]
        clean = runner.invoke(app, ["drift", *drift], env=_env(tmp_path))
        assert clean.exit_code == 0, clean.output
        assert f"  {DEVICE}: in sync" in clean.stdout
        before = len(srv.log.commands)
        again = _apply(rig, target)
        assert again.status == "unchanged", (again.status, again.message, again.diff)
        second = srv.log.commands[before:]
        assert "show running-config sanitized" in second  # it did compare with the switch
        assert not any(" commit" in c or c.startswith(("copy ", "write")) for c in second), second
        rig.dev.running += "ip prefix-list HAND seq 10 permit 203.0.113.0/24\n"  # added by hand on the switch
        dirty = runner.invoke(app, ["drift", *drift], env=_env(tmp_path))
        doc = runner.invoke(app, ["drift", *drift, "--format", "json"], env=_env(tmp_path))
    assert dirty.exit_code == 2, dirty.output
    line = "ip prefix-list HAND seq 10 permit 203.0.113.0/24"
    assert f"    + {line}    (on the device, removed by the next apply; routing)" in dirty.stdout, dirty.stdout
    assert f"  {DEVICE}: DRIFT (routing)" in dirty.stdout
    device = json.loads(doc.stdout)["devices"][DEVICE]
    assert device["unexpected"] == [line] and device["missing"] == [] and device["impact"]["routing"] == [line]


# ------------------------------------------------------------------------- what trust and a refusal tell a user


def test_trust_prints_an_on_switch_command_that_computes_the_same_fingerprint(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """The command `fabricgen trust` tells the user to run on the switch's console, run here against the
    simulated switch's eAPI port, prints the hex of exactly the fingerprint trust recorded."""
    import re
    import subprocess

    rig = _rig("eos", monkeypatch)
    inv, kc, hosts = _eos_inventory(tmp_path), tmp_path / "known_certs", tmp_path / "hosts.yaml"
    with eapi(rig, pki["genuine"]) as srv:
        hosts.write_text(f"{DEVICE}: 127.0.0.1:{srv.port}\n")
        out = CliRunner().invoke(app, ["trust", str(inv), "--hosts", str(hosts), "--known-certs", str(kc),
                                       "--only", DEVICE], env=_env(tmp_path))
        assert out.exit_code == 0, out.output
        m = re.search(r"in `bash`, `([^`]+)` prints the hex after sha256:", out.stdout)
        assert m, out.stdout
        command = m.group(1)
        assert f"127.0.0.1:{srv.port}" in command
        shown = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30, check=True)
    recorded = kc.read_text().split()[1]
    assert recorded == pki["genuine"].fingerprint
    assert f"sha256:{shown.stdout.split()[0]}" == recorded
    assert srv.log.requests == []  # neither trust nor openssl sent a request


def test_a_refused_certificate_says_how_to_record_a_changed_one_and_that_advice_works(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    rig = _rig("eos", monkeypatch)
    inv, kc, hosts = _eos_inventory(tmp_path), tmp_path / "known_certs", tmp_path / "hosts.yaml"
    runner = CliRunner()
    trust = ["trust", str(inv), "--hosts", str(hosts), "--known-certs", str(kc), "--only", DEVICE]
    with eapi(rig, pki["impostor"]) as srv:  # the switch's certificate was replaced (here: by "impostor")
        hosts.write_text(f"{DEVICE}: 127.0.0.1:{srv.port}\n")
        kc.write_text(f"127.0.0.1:{srv.port} {pki['genuine'].fingerprint}\n")
        refused = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint))
        assert refused.status == "unreachable"
        assert "nothing was sent" in refused.message, refused.message
        assert "delete its line in the known-certificates file" in refused.message, refused.message
        assert runner.invoke(app, trust, env=_env(tmp_path)).exit_code == 1  # trust alone never replaces it
        kc.write_text("")  # the advice: delete the line, then record again
        again = runner.invoke(app, trust, env=_env(tmp_path))
    assert again.exit_code == 0, again.output
    assert kc.read_text() == f"127.0.0.1:{srv.port} {pki['impostor'].fingerprint}\n"
