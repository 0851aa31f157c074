"""`fabricgen export nautobot` and `fabricgen import nautobot` against a real Nautobot 3.x (see
tests/nautobot_server.py): the lab inventory goes in through the API and comes back as an inventory that validates
and renders byte-identically. The server (its migrate alone takes minutes) is started once per test session."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require
from tests.nautobot_server import Server, missing, nautobot
from tests.test_netbox_sot import assert_same_fabric

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "inventories" / "lab"
# the fabric-wide settings files an import copies as they are
SETTINGS = ("--fabric", str(LAB / "fabric.yaml"), "--fabric", str(LAB / "base.yaml"))


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    venv = os.environ.get("FABRICGEN_NAUTOBOT_VENV")
    reason = missing(venv)
    require(reason is None, f"no Nautobot here: {reason}")
    assert venv is not None
    workdir = Path(tempfile.mkdtemp(prefix="fabricgen-nautobot-"))
    try:
        with nautobot(venv, workdir) as srv:
            yield srv
    finally:
        subprocess.run(["rm", "-rf", str(workdir)], check=False)


def run(srv: Server, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FABRICGEN_NAUTOBOT_URL": srv.url, "FABRICGEN_NAUTOBOT_TOKEN": srv.token}
    return subprocess.run([sys.executable, "-m", "fabricgen", *args], env=env, capture_output=True, text=True,
                          timeout=900, cwd=ROOT)


def test_lab_round_trip_through_nautobot(server: Server, tmp_path: Path) -> None:
    dry = run(server, "export", "nautobot", str(LAB), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    planned = [line.removeprefix("would ") for line in dry.stdout.splitlines()]

    started = time.monotonic()
    pushed = run(server, "export", "nautobot", str(LAB))
    push_s = time.monotonic() - started
    assert pushed.returncode == 0, pushed.stderr
    assert server.token not in pushed.stdout + pushed.stderr
    # the statuses exist in every Nautobot; everything else of the plan is created, in the plan's order
    assert pushed.stdout.splitlines() == [
        line.replace("use ", "exists ", 1) if line.startswith("use ") else line.replace("create ", "created ", 1)
        for line in planned
    ]
    again = run(server, "export", "nautobot", str(LAB))
    assert again.returncode == 0, again.stderr
    assert {line.split()[0] for line in again.stdout.splitlines()} == {"exists"}  # idempotent

    out = tmp_path / "imported"
    dry_import = run(server, "import", "nautobot", *SETTINGS, "-o", str(out),
                     "--dry-run")
    assert dry_import.returncode == 0, dry_import.stderr
    assert not out.exists() and f"would write {out / 'devices.yaml'}" in dry_import.stdout
    imported = run(server, "import", "nautobot", *SETTINGS, "-o", str(out))
    assert imported.returncode == 0, imported.stderr
    assert_same_fabric(LAB, out, tmp_path)
    print(f"\nnautobot: migrate {server.timings['migrate_s']:.0f} s, export of the lab {push_s:.1f} s")


def test_import_names_a_bad_custom_field(server: Server, tmp_path: Path) -> None:
    """A value put into Nautobot by hand that the inventory model refuses: one line naming the device."""
    env = {**os.environ, "FABRICGEN_NAUTOBOT_URL": server.url, "FABRICGEN_NAUTOBOT_TOKEN": server.token}
    pushed = subprocess.run([sys.executable, "-m", "fabricgen", "export", "nautobot", str(LAB)], env=env,
                            capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert pushed.returncode == 0, pushed.stderr
    from fabricgen.ecosystem.rest import Client

    client = Client(server.url, server.token)
    leaf = client.list("dcim/devices/", {"name": "leaf3"})[0]
    client._call("PATCH", f"{client.base}dcim/devices/{leaf['id']}/", {"custom_fields": {"fabricgen_unit": 0}})
    try:
        bad = run(server, "import", "nautobot", *SETTINGS, "-o", str(tmp_path / "x"))
        assert bad.returncode == 3 and "Traceback" not in bad.stderr
        assert bad.stderr.splitlines()[0].startswith(f"nautobot: dcim.device leaf3 (id {leaf['id']}): unit: ")
        assert not (tmp_path / "x").exists()
    finally:
        client._call("PATCH", f"{client.base}dcim/devices/{leaf['id']}/", {"custom_fields": {"fabricgen_unit": 1}})
