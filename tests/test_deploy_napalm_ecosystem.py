"""fabricgen's drivers as NAPALM sees them, NAPALM's optional_args, redaction by token, and shared apply state."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.deploy.apply import FabricLock, LockError, state_dir
from fabricgen.deploy.credentials import redact


@pytest.mark.parametrize(
    ("name", "cls"),
    [("fabricgen_frr", "FrrDriver"), ("fabricgen_sonic", "SonicDriver"), ("fabricgen_nvue", "NvueDriver"),
     ("fabricgen_junos", "JunosDriver")],
)
def test_napalm_get_network_driver_loads_fabricgens_drivers(name: str, cls: str) -> None:
    import napalm
    from napalm.base import NetworkDriver

    driver = napalm.get_network_driver(name)
    assert driver.__name__ == cls and issubclass(driver, NetworkDriver)
    assert driver.__module__.startswith("fabricgen.deploy.drivers.")


def test_napalm_standard_optional_args_reach_netmiko(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import napalm
    import netmiko

    seen: dict[str, Any] = {}

    def connect(**kwargs: Any) -> Any:
        seen.update(kwargs)
        raise OSError("recorded: connection refused")

    monkeypatch.setattr(netmiko, "ConnectHandler", connect)
    kh, cfg = tmp_path / "known_hosts", tmp_path / "ssh_config"
    driver = napalm.get_network_driver("fabricgen_sonic")(
        "192.0.2.20", "admin", "pw", timeout=20,
        optional_args={"port": 2222, "alt_host_keys": True, "alt_key_file": str(kh), "ssh_config_file": str(cfg),
                       "keepalive": 30, "allow_agent": True},
    )
    with pytest.raises(napalm.base.exceptions.ConnectionException, match="recorded: connection refused"):
        driver.open()
    assert {k: seen[k] for k in ("host", "port", "alt_host_keys", "alt_key_file", "ssh_config_file", "keepalive",
                                 "allow_agent", "ssh_strict", "timeout")} == {
        "host": "192.0.2.20", "port": 2222, "alt_host_keys": True, "alt_key_file": str(kh),
        "ssh_config_file": str(cfg), "keepalive": 30, "allow_agent": True, "ssh_strict": True, "timeout": 20}


def test_strict_host_keys_without_any_known_hosts_is_refused_before_connecting(monkeypatch: pytest.MonkeyPatch) -> None:
    import napalm
    import netmiko

    monkeypatch.setattr(netmiko, "ConnectHandler", lambda **kw: pytest.fail("must not connect"))
    driver = napalm.get_network_driver("fabricgen_frr")("192.0.2.21", "admin", "pw")
    with pytest.raises(napalm.base.exceptions.ConnectionException, match="no known_hosts"):
        driver.open()


def test_a_one_letter_password_never_garbles_output() -> None:
    text = "cannot connect to leaf1 (10.0.0.1): Authentication failed for admin, password=a"
    assert redact(text, ["a"]) == "cannot connect to leaf1 (10.0.0.1): Authentication failed for admin, password=***"


@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789!#%+-", min_size=1, max_size=16),
    st.lists(st.sampled_from(["leaf1", "timeout", "admin:", "(", ")", "=", "failed", "10.0.0.1", " "]), max_size=8),
)
def test_redaction_removes_every_standalone_occurrence_and_keeps_every_other_word(
    secret: str, words: list[str]
) -> None:
    text = " ".join([*words, f"password={secret}", secret, *words])
    out = redact(text, [secret])
    assert out == " ".join([*(w if w != secret else "***" for w in words), "password=***", "***",
                            *(w if w != secret else "***" for w in words)])


def test_state_dir_from_option_or_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FABRICGEN_STATE_DIR", str(tmp_path / "shared"))
    assert state_dir("lab") == tmp_path / "shared" / "lab"
    assert state_dir("lab", str(tmp_path / "explicit")) == tmp_path / "explicit"


def test_a_lock_held_on_another_host_names_its_pid_host_and_age(tmp_path: Path) -> None:
    (tmp_path / "apply.lock").write_text(json.dumps({"pid": 4242, "host": "ci-runner-7", "since": time.time() - 600}))
    with pytest.raises(LockError) as exc:
        FabricLock(tmp_path).__enter__()
    msg = str(exc.value)
    assert "pid 4242 on host ci-runner-7" in msg and "(10 min ago)" in msg
    assert "another machine's" in msg and socket.gethostname() not in msg
    assert (tmp_path / "apply.lock").exists()  # never taken over from another host


def test_cli_apply_refuses_a_revert_timer_on_nxos_before_contacting_anything(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    inv = tmp_path / "fabric.yaml"
    inv.write_text(
        "fabric: {name: nxos-refusal}\n"
        "intent:\n  rail_optimized:\n    server: dgx-h100\n    nodes_per_unit: 4\n    units: 1\n"
        "    leaf: {model: cisco-n9364d-gx2a, platform: nxos}\n    spine: {model: cisco-n9364d-gx2a, platform: nxos}\n"
    )
    env = {**os.environ, "FABRICGEN_USERNAME": "admin", "FABRICGEN_PASSWORD": "pw", "CI": "1"}
    proc = subprocess.run([sys.executable, "-m", "fabricgen", "apply", str(inv), "--no-lab", "--state-dir",
                           str(tmp_path / "state")], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "--revert-in 120 refused, nothing was sent" in proc.stderr
    assert "nxos: the device has no commit-confirm" in proc.stderr and "rerun with --revert-in 0" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "state" / "last-apply.json").exists()
