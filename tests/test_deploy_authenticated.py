"""Every transport authenticates the device before a credential leaves, and what is sent after a failure is
exactly what the report says — over real sockets on 127.0.0.1 (:mod:`tests.simserver`).

The devices are :mod:`tests.simdevice`'s state machines behind an HTTPS/HTTP eAPI server and a NETCONF-over-SSH
server; the drivers are the ones ``fabricgen`` runs (``session.make_driver``: fabricgen's EOS driver = NAPALM's
EOSDriver over pyeapi, fabricgen's Junos driver = NAPALM's JunOSDriver over PyEZ/ncclient, NAPALM's nxos_ssh over
netmiko, fabricgen's FRR driver over netmiko), with nothing replaced. Per platform:

* an impostor — another certificate or host key at the same address — is refused, and the impostor's own log
  shows that no request / no authentication reached it (no ``Authorization`` header, no ``check_auth_*`` call);
* the genuine device (pinned or CA-signed certificate, known host key) works end to end: apply and drift;
* a session lost during the commit is reported ``unknown`` and nothing but the read asking whether the device
  took the commit reaches the device afterwards (no ``configure session … abort``, from ``close()`` or NAPALM's
  ``__del__``);
* ``--revert-in 0`` on EOS rolls back to the previous *running* configuration, an unsaved change included.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paramiko
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.deploy import certs
from fabricgen.deploy.apply import ApplyOptions, Outcome, apply_device
from fabricgen.deploy.credentials import Credentials
from fabricgen.deploy.drift import drift_device
from fabricgen.deploy.normalize import ConfigDiff
from fabricgen.deploy.secrets import secret_values
from fabricgen.deploy.session import make_driver
from fabricgen.deploy.targets import TargetError, Targets, host_targets
from fabricgen.deploy.transport import Target, TransportError
from tests.conftest import INVENTORIES
from tests.simserver import Certificate, EapiServer, NetconfServer, make_certificate
from tests.test_deploy_roundtrip import DEVICE, ENVIRON, PASSWORD, REVERT, Rig, _rig

CREDS = Credentials("admin", PASSWORD)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Certificate]:
    d = tmp_path_factory.mktemp("pki")
    ca, other_ca = make_certificate(d, "ca", ca=True), make_certificate(d, "other-ca", ca=True)
    return {"genuine": make_certificate(d, "genuine"), "impostor": make_certificate(d, "impostor"), "ca": ca,
            "signed": make_certificate(d, "signed", issuer=ca),
            "forged": make_certificate(d, "forged", issuer=other_ca)}


@contextmanager
def eapi(rig: Rig, cert: Certificate | None, port: int = 0) -> Iterator[EapiServer]:
    srv = EapiServer(rig.sim, "admin", PASSWORD, cert, port)
    try:
        yield srv
    finally:
        srv.close()


@contextmanager
def netconf(rig: Rig | None, key: paramiko.PKey, **kw: Any) -> Iterator[NetconfServer]:
    srv = NetconfServer(rig.sim if rig else None, key, "admin", PASSWORD, **kw)
    try:
        yield srv
    finally:
        srv.close()


def _apply(rig: Rig, target: Target, revert_in: int = REVERT, make: Any = make_driver) -> Outcome:
    """apply_device of leaf1's rendered configuration, with the real verification after the commit."""
    secrets = secret_values({DEVICE: rig.intended}, ENVIRON)
    opts = ApplyOptions(revert_in=revert_in, settle=0, workers=1, secrets=secrets)
    return apply_device(rig.fabric, DEVICE, rig.intended, Targets({DEVICE: target}, CREDS, "test"),
                        set(rig.targets.targets), set(), opts, 1, make)


def _drift(rig: Rig, target: Target) -> ConfigDiff:
    d = make_driver(target, CREDS)
    d.open()
    try:
        return drift_device(rig.platform, rig.intended, d)
    finally:
        d.close()


def _eos(port: int, **kw: Any) -> Target:
    return Target(DEVICE, "eos", "127.0.0.1", port, transport=kw.pop("transport", "https"), **kw)


# ------------------------------------------------------------------------------------------ EOS over HTTPS


def test_eos_impostor_with_another_certificate_gets_no_request(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    with eapi(rig, pki["impostor"]) as srv:  # answers at the address the genuine switch's pin is recorded for
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint))
    assert out.status == "unreachable", out.message
    assert f"is {pki['impostor'].fingerprint}, not the recorded {pki['genuine'].fingerprint}" in out.message
    assert "nothing was sent" in out.message
    assert srv.log.connections >= 1 and srv.log.requests == []  # the TLS handshake, then nothing: no header
    assert not srv.log.authorization_seen and rig.dev.sent == []


def test_eos_certificate_checked_against_a_ca_bundle(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    with eapi(rig, pki["forged"]) as srv:  # a certificate for the right address, from another CA
        out = _apply(rig, _eos(srv.port, ca_file=str(pki["ca"].cert)))
    assert out.status == "unreachable" and "CERTIFICATE_VERIFY_FAILED" in out.message, out.message
    assert srv.log.requests == [] and not srv.log.authorization_seen
    with eapi(rig, pki["signed"]) as srv:
        diff = _drift(rig, _eos(srv.port, ca_file=str(pki["ca"].cert)))
    assert diff.drifted  # a real comparison with the device's running configuration
    assert srv.log.authorization_seen and "show running-config sanitized" in srv.log.commands


def test_eos_without_a_pin_or_ca_is_refused_before_connecting(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    with eapi(rig, pki["genuine"]) as srv:
        out = _apply(rig, _eos(srv.port))
    assert out.status == "unreachable" and "no pinned certificate and no CA bundle" in out.message, out.message
    assert srv.log.connections == 0


def test_eos_genuine_pinned_switch_apply_and_drift_end_to_end(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    with eapi(rig, pki["genuine"]) as srv:
        target = _eos(srv.port, tls_pin=pki["genuine"].fingerprint)
        out = _apply(rig, target)
        assert out.status == "applied", out.message
        diff = _drift(rig, target)
    assert (diff.missing, diff.unexpected) == ((), ())
    assert srv.log.authorization_seen and all(r.user == "admin" for r in srv.log.requests)
    assert not rig.dev.pending and PASSWORD not in out.message + out.diff


# ------------------------------------------------------------------------------------------- EOS over HTTP


def test_eos_hosts_entry_transport_http_reaches_a_plain_http_eapi_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    with eapi(rig, None) as srv:
        hosts = tmp_path / "hosts.yaml"
        hosts.write_text(f"{DEVICE}: {{host: 127.0.0.1, port: {srv.port}, transport: http}}\n")
        target = host_targets(rig.fabric, str(hosts))[DEVICE]
        assert (target.transport, target.port) == ("http", srv.port)
        assert "eAPI over plain HTTP" in (target.warning() or "")
        out = _apply(rig, target)
        assert out.status == "applied", out.message
        assert _drift(rig, target).drifted is False
    assert srv.log.authorization_seen


def test_eos_https_to_a_plain_http_impostor_is_refused_before_any_request(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    with eapi(rig, None) as srv:  # a downgrade: plain HTTP where the switch speaks HTTPS
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint))
    assert out.status == "unreachable" and "SSL" in out.message, out.message
    assert srv.log.connections >= 1 and srv.log.requests == [] and not srv.log.authorization_seen


def test_hosts_entry_default_eapi_port_is_443_not_ssh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = _rig("eos", monkeypatch)
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(f"{DEVICE}: 192.0.2.21\nspine1: {{host: 192.0.2.11, transport: http}}\n")
    targets = host_targets(rig.fabric, str(hosts))
    assert (targets[DEVICE].transport, targets[DEVICE].port) == ("https", 443)
    assert (targets["spine1"].transport, targets["spine1"].port) == ("http", 80)


@pytest.mark.parametrize(("entry", "message"), [
    ("{host: 10.0.0.1, transport: ftp}", "leaf1: transport: expected https or http, got 'ftp'"),
    ("{host: 10.0.0.1, port: 70000}", "leaf1: port: expected a number 1-65535, got 70000"),
    ("{host: 10.0.0.1, certificate: abc}", "leaf1: certificate: expected sha256:<64 hex digits>, got 'abc'"),
    ("{host: 10.0.0.1, ca_file: /nonexistent/ca.pem}", "leaf1: ca_file: /nonexistent/ca.pem: no such file"),
    ("{host: 10.0.0.1, transport: http, certificate: 'sha256:" + "a" * 64 + "'}",
     "leaf1: certificate: plain HTTP has no certificate to check"),
    ("{host: 10.0.0.1, tls: on}", "leaf1: unknown field 'tls' (known: host, port, transport, certificate, ca_file)"),
    ("'10.0.0.1:http'", "leaf1: expected host or host:port (port 1-65535), got '10.0.0.1:http'"),
    ("'10.0.0.1:'", "leaf1: expected host or host:port (port 1-65535), got '10.0.0.1:'"),
    ("'[2001:db8::1]x'", "leaf1: expected host or host:port (port 1-65535), got '[2001:db8::1]x'"),
    ("'[2001:db8::1'", "leaf1: expected host or host:port (port 1-65535), got '[2001:db8::1'"),
])
def test_bad_hosts_entries_name_the_file_device_and_field(
    entry: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(f"{DEVICE}: {entry}\n")
    with pytest.raises(TargetError) as err:
        host_targets(rig.fabric, str(hosts))
    assert str(err.value) == f"{hosts}: {message}"


def test_known_certs_file_errors_name_the_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = _rig("eos", monkeypatch)
    kc = tmp_path / "known_certs"
    kc.write_text("# pinned\n127.0.0.1 sha256:" + "ab" * 32 + "\n127.0.0.2 md5:00\n")
    with pytest.raises(TargetError, match=rf"^{re.escape(str(kc))}:3: expected `HOST\[:PORT\] sha256:"):
        host_targets(rig.fabric, None, known_certs=str(kc))


# ----------------------------------------------------------------------------- what is sent after a failure


def _named_session(d: Any) -> Any:
    d.config_session = "fabricgen_1"  # NAPALM names it napalm_<microseconds>: fixed, to lose the session at it
    return d


def test_eos_session_lost_during_the_commit_gets_no_abort_from_close_or_del(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch, lose_session_after="configure session fabricgen_1 commit timer")
    with eapi(rig, pki["genuine"]) as srv:
        target = _eos(srv.port, tls_pin=pki["genuine"].fingerprint)
        out = _apply(rig, target, make=lambda t, c, **kw: _named_session(make_driver(t, c, **kw)))
        gc.collect()  # NAPALM's NetworkDriver.__del__ calls close(): it must not send anything either
        sent = list(srv.log.commands)
    assert out.status == "unknown", out.message
    assert "nothing more was sent" in out.message
    commit = sent.index("configure session fabricgen_1 commit timer 00:02:00")
    # the one read that asks whether the device took the commit (it did not answer); no abort, no rollback
    assert sent[commit + 1:] == ["show configuration sessions detail"]
    assert rig.dev.pending  # the device's own timer restores the previous configuration, as the report says


def test_eos_revert_in_0_rolls_back_to_the_previous_running_config_with_its_unsaved_change(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    rig.dev.running += "ntp server 192.0.2.123\n"  # configured by hand, never saved: running ≠ startup
    running, startup = rig.dev.running, rig.dev.startup
    uplink = next(p.name for p in rig.fabric.switches[DEVICE].ports if p.peer_device == "spine1")
    rig.dev.cabled.discard(uplink)  # verification after the commit fails: the device is rolled back
    with eapi(rig, pki["genuine"]) as srv:
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint), revert_in=0)
    assert out.status == "rolled-back", out.message
    assert rig.dev.running == running and "ntp server 192.0.2.123" in rig.dev.running  # the unsaved change too
    assert rig.dev.startup == startup  # and startup as it was
    sent = srv.log.commands
    assert sent[sent.index("copy running-config flash:fabricgen-rollback-0"):][:2] == [
        "copy running-config flash:fabricgen-rollback-0", "copy startup-config flash:fabricgen-startup-0"]
    assert sent[-2:] == ["configure replace flash:fabricgen-rollback-0",
                         "copy flash:fabricgen-startup-0 startup-config"]


def test_eos_failed_verification_with_a_timer_aborts_and_leaves_startup_alone(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    rig.dev.running += "ntp server 192.0.2.123\n"
    running, startup = rig.dev.running, rig.dev.startup
    rig.dev.cabled.discard(next(p.name for p in rig.fabric.switches[DEVICE].ports if p.peer_device == "spine1"))
    with eapi(rig, pki["genuine"]) as srv:
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint))
    assert out.status == "rolled-back", out.message
    assert (rig.dev.running, rig.dev.startup) == (running, startup) and not rig.dev.pending
    assert "write memory" not in srv.log.commands  # NAPALM saves after its abort: the unsaved change would stick


def _factory(rig: Rig) -> None:
    """A switch without a startup configuration (factory-fresh, or ZTP cancelled): it runs a configuration that was
    never saved."""
    rig.dev.startup = None


def _uplink(rig: Rig) -> str:
    return next(p.name for p in rig.fabric.switches[DEVICE].ports if p.peer_device == "spine1")


@pytest.mark.parametrize("revert_in", [0, REVERT], ids=["revert-in-0", "commit-timer"])
def test_eos_without_a_startup_config_applies_and_saves_one(
    revert_in: int, pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    _factory(rig)
    with eapi(rig, pki["genuine"]) as srv:
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint), revert_in=revert_in)
    assert out.status == "applied", out.message
    assert rig.dev.startup == rig.dev.running  # write memory (the commit's, or the confirm's) created it
    sent = srv.log.commands
    assert "dir flash:" in sent and not any(c.startswith("copy startup-config") for c in sent)


def test_eos_without_a_startup_config_rolls_back_to_none(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--revert-in 0 on a switch without startup-config, verification fails: the running configuration is restored
    and the startup configuration the commit wrote is deleted, so the switch boots as before (into ZTP), never into
    the configuration that was rolled back."""
    rig = _rig("eos", monkeypatch)
    _factory(rig)
    rig.dev.running += "ntp server 192.0.2.123\n"
    running = rig.dev.running
    rig.dev.cabled.discard(_uplink(rig))  # verification after the commit fails: the device is rolled back
    with eapi(rig, pki["genuine"]) as srv:
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint), revert_in=0)
    assert out.status == "rolled-back", out.message
    assert rig.dev.running == running and rig.dev.startup is None
    sent = srv.log.commands
    assert sent[-2:] == ["configure replace flash:fabricgen-rollback-0", "delete flash:startup-config"]
    assert sent.index("write memory") < len(sent) - 2


def test_eos_without_a_startup_config_aborted_timer_leaves_none(
    pki: dict[str, Certificate], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("eos", monkeypatch)
    _factory(rig)
    running = rig.dev.running
    rig.dev.cabled.discard(_uplink(rig))
    with eapi(rig, pki["genuine"]) as srv:
        out = _apply(rig, _eos(srv.port, tls_pin=pki["genuine"].fingerprint))
    assert out.status == "rolled-back", out.message
    assert (rig.dev.running, rig.dev.startup) == (running, None) and not rig.dev.pending
    assert not any(c.startswith(("delete", "write memory")) for c in srv.log.commands)


# --------------------------------------------------------------------------------------- Junos over NETCONF


@pytest.fixture(scope="module")
def keys() -> dict[str, paramiko.PKey]:
    return {"genuine": paramiko.ECDSAKey.generate(), "impostor": paramiko.ECDSAKey.generate()}


def _known_hosts(tmp_path: Path, port: int, key: paramiko.PKey) -> str:
    kh = tmp_path / "known_hosts"
    kh.write_text(f"[127.0.0.1]:{port} {key.get_name()} {key.get_base64()}\n")
    return str(kh)


def test_junos_impostor_host_key_is_refused_before_authentication(
    keys: dict[str, paramiko.PKey], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("junos", monkeypatch)
    with netconf(rig, keys["impostor"]) as srv:
        target = Target(DEVICE, "junos", "127.0.0.1", srv.port, known_hosts=_known_hosts(tmp_path, srv.port,
                                                                                          keys["genuine"]))
        out = _apply(rig, target)
    assert out.status == "unreachable", out.message
    assert "host key" in out.message and "not the one" in out.message and "no authentication" in out.message
    assert srv.log.connections == 1 and srv.log.auth_attempts == [] and srv.log.rpcs == []
    assert rig.dev.sent == []


def test_junos_unknown_host_key_is_refused_before_authentication(
    keys: dict[str, paramiko.PKey], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("junos", monkeypatch)
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    with netconf(rig, keys["genuine"]) as srv:
        out = _apply(rig, Target(DEVICE, "junos", "127.0.0.1", srv.port, known_hosts=str(empty)))
    assert out.status == "unreachable" and "host key" in out.message, out.message
    assert srv.log.auth_attempts == [] and srv.log.rpcs == []


@pytest.mark.parametrize("base11", [True, False], ids=["base1.1-chunked", "base1.0-eom"])
def test_junos_genuine_device_apply_and_drift_end_to_end_over_netconf(
    base11: bool, keys: dict[str, paramiko.PKey], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("junos", monkeypatch)
    with netconf(rig, keys["genuine"], base11=base11) as srv:
        target = Target(DEVICE, "junos", "127.0.0.1", srv.port,
                        known_hosts=_known_hosts(tmp_path, srv.port, keys["genuine"]))
        out = _apply(rig, target)
        assert out.status == "applied", out.message
        diff = _drift(rig, target)
    assert (diff.missing, diff.unexpected) == ((), ())
    assert srv.log.framing == ("1.1" if base11 else "1.0")
    assert "password admin" in srv.log.auth_attempts and not rig.dev.pending
    assert srv.log.rpcs.count("commit-configuration") == 2  # commit confirmed, then the confirm


def test_junos_session_lost_at_the_commit_gets_no_close_session_or_unlock(
    keys: dict[str, paramiko.PKey], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _rig("junos", monkeypatch, lose_session_after="commit-configuration confirmed")
    with netconf(rig, keys["genuine"]) as srv:
        target = Target(DEVICE, "junos", "127.0.0.1", srv.port,
                        known_hosts=_known_hosts(tmp_path, srv.port, keys["genuine"]))
        secrets = secret_values({DEVICE: rig.intended}, ENVIRON)
        out = apply_device(rig.fabric, DEVICE, rig.intended, Targets({DEVICE: target}, CREDS, "test"),
                           set(rig.targets.targets), set(),
                           ApplyOptions(revert_in=REVERT, settle=0, timeout=3, secrets=secrets), 1, make_driver)
        gc.collect()
        rpcs = list(srv.log.rpcs)
    assert out.status == "unknown", out.message
    commit = rpcs.index("commit-configuration")
    # the read asking whether a commit confirmed is pending (unanswered); no <close-session/>, no unlock
    assert rpcs[commit + 1:] == ["get-commit-revision-information"]
    assert rig.dev.pending  # Junos's own commit-confirmed timer rolls it back, as the report says


# ----------------------------------------------------------------------------- NX-OS and FRR over SSH


@pytest.mark.parametrize("platform", ["nxos", "frr"])
def test_ssh_impostor_host_key_is_refused_before_authentication(
    platform: str, keys: dict[str, paramiko.PKey], tmp_path: Path
) -> None:
    """NAPALM's nxos_ssh (netmiko) and fabricgen's FRR driver, as make_driver opens them."""
    with netconf(None, keys["impostor"], netconf=False) as srv:
        d = make_driver(Target(DEVICE, platform, "127.0.0.1", srv.port,
                               known_hosts=_known_hosts(tmp_path, srv.port, keys["genuine"])), CREDS, timeout=10)
        with pytest.raises(Exception) as err:
            d.open()
    chain, e = [], err.value  # NAPALM's nxos_ssh says only "Cannot connect to …"; netmiko's cause says why
    while e is not None:
        chain.append(f"{type(e).__name__}: {e}")
        e = e.__cause__ or e.__context__
    assert any(re.search(r"host key|BadHostKey|not found in known_hosts|does not match", c, re.I) for c in chain)
    assert re.search(r"Host key for server .* does not match", str(err.value)), err.value  # in the report too
    assert srv.log.connections == 1 and srv.log.auth_attempts == []
    assert PASSWORD not in " ".join(chain)


@pytest.mark.parametrize("platform", ["nxos", "frr"])
def test_ssh_known_host_key_passes_to_authentication(
    platform: str, keys: dict[str, paramiko.PKey], tmp_path: Path
) -> None:
    """The same server with the recorded key gets as far as the password (which this server refuses): the
    refusal above is the host key check, not a server that never lets anyone in."""
    with netconf(None, keys["genuine"], netconf=False) as srv:
        d = make_driver(Target(DEVICE, platform, "127.0.0.1", srv.port,
                               known_hosts=_known_hosts(tmp_path, srv.port, keys["genuine"])), CREDS, timeout=10)
        with pytest.raises(Exception) as err:
            d.open()
    assert re.search(r"authentication", str(err.value), re.I), err.value
    assert "password admin" in srv.log.auth_attempts


@pytest.mark.parametrize(("platform", "prompt"), [("nxos", "leaf1# "), ("frr", "admin@leaf1:~$ ")])
def test_ssh_abandon_sends_nothing_where_close_says_exit(
    platform: str, prompt: str, keys: dict[str, paramiko.PKey], tmp_path: Path
) -> None:
    """session.abandon on NAPALM's nxos_ssh (its SSH transport shut under netmiko) and on fabricgen's SSH base
    (``SSHDriver.abandon``): after the login, not a byte more — close() would type ``exit``."""
    from fabricgen.deploy.session import abandon

    typed = {}
    for how in ("close", "abandon"):
        with netconf(None, keys["genuine"], netconf=False, shell=True, prompt=prompt) as srv:
            d = make_driver(Target(DEVICE, platform, "127.0.0.1", srv.port,
                                   known_hosts=_known_hosts(tmp_path, srv.port, keys["genuine"])), CREDS, timeout=10)
            d.open()
            logged_in = len(srv.log.shell)
            if how == "close":
                d.close()
            else:
                abandon(d)
            del d
            gc.collect()  # NAPALM's __del__ may not send anything either
            for _ in range(50):  # the server reads what arrives on its own thread
                if srv.log.shell[logged_in:] or how == "abandon":
                    break
                time.sleep(0.05)
            time.sleep(0.2)
            typed[how] = srv.log.shell[logged_in:]
    commands = {how: [line for line in lines if line.strip()] for how, lines in typed.items()}  # not the login's Enters
    assert commands == {"close": ["exit"], "abandon": []}


def test_nxos_known_host_key_drift_end_to_end_over_ssh(keys: dict[str, paramiko.PKey], tmp_path: Path) -> None:
    """NAPALM's nxos_ssh through netmiko over a real SSH socket to the simulated NX-OS CLI reads the same running
    configuration — the same drift — as with its transport replaced (tests/test_deploy_roundtrip.py)."""
    with pytest.MonkeyPatch.context() as mp:  # the replaced transport, undone before the real socket is used
        rig = _rig("nxos", mp)
        d = rig.make_driver(rig.targets.targets[DEVICE], CREDS)
        d.open()
        expected = drift_device("nxos", rig.intended, d)
    with netconf(None, keys["genuine"], netconf=False, shell=True, prompt="leaf1# ",
                 answer=rig.sim.send_command) as srv:
        diff = _drift(rig, Target(DEVICE, "nxos", "127.0.0.1", srv.port,
                                  known_hosts=_known_hosts(tmp_path, srv.port, keys["genuine"])))
    assert diff.drifted and diff == expected
    assert "show running-config" in srv.log.shell and srv.log.auth_attempts == ["password admin"]


def test_nxos_strict_host_keys_without_a_known_hosts_file_is_refused_before_connecting(
    keys: dict[str, paramiko.PKey],
) -> None:
    with netconf(None, keys["impostor"], netconf=False) as srv, pytest.raises(TransportError, match="no known_hosts"):
        make_driver(Target(DEVICE, "nxos", "127.0.0.1", srv.port), CREDS)
    assert srv.log.connections == 0


def test_nxos_strict_host_keys_reach_netmiko(tmp_path: Path) -> None:
    d = make_driver(Target(DEVICE, "nxos", "127.0.0.1", 2222, known_hosts=str(tmp_path / "kh")), CREDS)
    args = d.netmiko_optional_args
    assert (args["ssh_strict"], args["alt_host_keys"], args["alt_key_file"]) == (True, True, str(tmp_path / "kh"))


# ------------------------------------------------------------------------------- the CLI: trust, then drift


def _eos_inventory(tmp_path: Path) -> Path:
    """inventories/lab with every switch on EOS (ports renamed as fabricgen.render.retarget names them). The
    SN5600 does not run EOS: the inventory's own catalog says it does, the what-if ``retarget`` renders (and
    the simulated switch is configured from)."""
    import json
    from importlib import resources

    from ruamel.yaml import YAML

    from fabricgen.inventory.load import load_inventory
    from fabricgen.render.retarget import retarget
    from fabricgen.topology.resolve import resolve

    old = resolve(load_inventory(INVENTORIES / "lab"))
    new = resolve(retarget(load_inventory(INVENTORIES / "lab"), "eos"))
    rename = {f"{n}:{a.name}": f"{n}:{b.name}" for n, sw in old.switches.items()
              for a, b in zip(sw.ports, new.switches[n].ports, strict=True)}
    out = tmp_path / "inv"
    out.mkdir()
    for f in (INVENTORIES / "lab").iterdir():
        text = f.read_text().replace("platform: sonic", "platform: eos")
        text = re.sub(r"\b[\w-]+:Ethernet\d+\b", lambda m: rename.get(m.group(0), m.group(0)), text)
        (out / f.name).write_text(text)
    shipped = YAML(typ="safe").load(resources.files("fabricgen").joinpath("data/catalog.yaml").read_text())
    sn5600 = {**shipped["switches"]["sn5600"], "nos": ["nvue", "sonic", "eos"]}
    (out / "catalog.yaml").write_text(json.dumps({"catalog": {"switches": {"sn5600": sn5600}}}))
    return out


def test_cli_trust_records_on_first_contact_and_drift_then_refuses_an_impostor(
    pki: dict[str, Certificate], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fabricgen.cli import app

    rig = _rig("eos", monkeypatch)
    inv, kc, hosts = _eos_inventory(tmp_path), tmp_path / "known_certs", tmp_path / "hosts.yaml"
    env = {"FABRICGEN_USERNAME": "admin", "FABRICGEN_PASSWORD": PASSWORD, "FABRICGEN_STATE_DIR": str(tmp_path)}
    runner = CliRunner()
    live = ["--hosts", str(hosts), "--known-certs", str(kc), "--only", DEVICE, "--no-lab"]
    trust = ["--hosts", str(hosts), "--known-certs", str(kc), "--only", DEVICE]
    with eapi(rig, pki["genuine"]) as srv:
        hosts.write_text(f"{DEVICE}: 127.0.0.1:{srv.port}\n")
        before = runner.invoke(app, ["drift", str(inv), *live], env=env)
        assert before.exit_code == 1 and "no pinned certificate and no CA bundle" in before.output, before.output
        assert srv.log.connections == 0  # nothing is trusted implicitly
        rec = runner.invoke(app, ["trust", str(inv), *trust], env=env)
        assert rec.exit_code == 0, rec.output
        assert kc.read_text() == f"127.0.0.1:{srv.port} {pki['genuine'].fingerprint}\n"
        assert f"{DEVICE} 127.0.0.1:{srv.port}: recorded: {pki['genuine'].fingerprint}" in rec.output
        assert srv.log.requests == []  # recording is a TLS handshake: no request, no credential
        after = runner.invoke(app, ["drift", str(inv), *live], env=env)
        assert after.exit_code in (0, 2) and "NOT CHECKED" not in after.output, after.output
        assert srv.log.authorization_seen
        port = srv.port
    with eapi(rig, pki["impostor"], port=port) as impostor:  # another device takes the switch's address
        refused = runner.invoke(app, ["drift", str(inv), *live], env=env)
        assert refused.exit_code == 1 and "NOT CHECKED" in refused.output and "not the recorded" in refused.output
        assert impostor.log.requests == []
        again = runner.invoke(app, ["trust", str(inv), *trust], env=env)
        assert again.exit_code == 1 and "differs" in again.output, again.output
        assert kc.read_text() == f"127.0.0.1:{port} {pki['genuine'].fingerprint}\n"  # never replaced
        loud = runner.invoke(app, ["drift", str(inv), *live, "--insecure"], env=env)
        assert loud.exit_code in (0, 2), loud.output
        assert f"warning: {DEVICE}: --insecure: the TLS certificate of 127.0.0.1:{port} is NOT verified" in (
            loud.stderr)
        assert impostor.log.authorization_seen  # --insecure does what it says: it trusts whoever answers


def test_insecure_and_http_are_named_in_the_apply_report_before_anything_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fabricgen.deploy.apply import apply

    rig = _rig("eos", monkeypatch)
    targets = Targets({DEVICE: _eos(443, insecure=True), "spine1": Target("spine1", "eos", "192.0.2.11", 80,
                                                                          transport="http")}, CREDS, "test")
    contacted: list[str] = []
    report = apply(rig.fabric, {DEVICE: rig.intended, "spine1": rig.intended}, targets, ApplyOptions(), tmp_path,
                   make_driver=lambda t, c, **_: contacted.append(t.name))
    assert report.warnings[DEVICE].startswith(f"warning: {DEVICE}: --insecure: the TLS certificate of 127.0.0.1:443")
    assert "eAPI over plain HTTP (192.0.2.11:80)" in report.warnings["spine1"]
    assert report.as_dict()["warnings"] == report.warnings  # and in --format json
    assert contacted == []  # (the management guard refused these candidates before any device was contacted)


def test_napalm_loads_fabricgens_eos_driver_by_name() -> None:
    import napalm

    from fabricgen.deploy.drivers.eos import EosDriver

    assert napalm.get_network_driver("fabricgen_eos") is EosDriver


@pytest.mark.parametrize("transport", ["ssh", "socket", "https_local"])
def test_eos_driver_refuses_a_transport_that_would_not_authenticate_the_switch(transport: str) -> None:
    """NAPALM's ``ssh`` transport for EOS opens netmiko without a host-key check; through fabricgen's driver only
    eAPI over https (the certificate checked) or an explicit http is spoken."""
    import napalm
    from napalm.base.exceptions import ConnectionException

    with pytest.raises(ConnectionException, match=rf"eAPI transport '{transport}': expected https or http"):
        napalm.get_network_driver("fabricgen_eos")("192.0.2.21", "admin", PASSWORD,
                                                    optional_args={"transport": transport})


# ------------------------------------------------------------------------------- the known-certificates file

HOSTS = st.one_of(st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z0-9-]{1,10}){0,2}", fullmatch=True),
                  st.ip_addresses().map(str))


@given(HOSTS, st.integers(1, 65535), st.binary(min_size=1, max_size=64))
def test_known_certs_entry_reads_back(host: str, port: int, der: bytes) -> None:
    from fabricgen.deploy.drivers.eos import fingerprint

    fp = fingerprint(der)
    assert certs.parse_line(certs.entry(host, port, fp)) == (host, port, fp)


@given(st.text(max_size=300))
def test_known_certs_file_of_any_text_loads_or_names_a_line(tmp_path_factory: pytest.TempPathFactory,
                                                            text: str) -> None:
    path = tmp_path_factory.mktemp("kc") / "known_certs"
    path.write_text(text, encoding="utf-8")
    try:
        pins = certs.load(str(path))
    except certs.CertsError as exc:
        assert re.match(rf"{re.escape(str(path))}(:\d+)?: ", str(exc)), exc
    else:
        assert all(certs.valid_fingerprint(fp) and 0 < port < 65536 for (_, port), fp in pins.items())


def test_record_adds_once_and_never_replaces(tmp_path: Path) -> None:
    kc = str(tmp_path / "sub" / "known_certs")
    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    assert certs.record(kc, "10.0.0.1", 443, a) is True
    assert certs.record(kc, "10.0.0.1", 443, a) is False
    assert certs.record(kc, "2001:db8::1", 8443, b) is True
    with pytest.raises(certs.CertsError, match="is recorded, but the device now presents"):
        certs.record(kc, "10.0.0.1", 443, b)
    assert Path(kc).read_text() == f"10.0.0.1 {a}\n[2001:db8::1]:8443 {b}\n"
