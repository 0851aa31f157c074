"""`fabricgen import netbox` against recorded NetBox 4.x list responses (NetBox 4 needs Python ≥ 3.12), served
paginated by a local HTTP stub on 127.0.0.1, so the real client, pagination and mapping run; and the
source-of-truth mapping's own properties."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.ecosystem.sot import Cable, Device, Sot, SotError, length_fields, to_inventory
from tests.netbox_recorded import DATA, build, dumps

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "inventories" / "lab"
# the fabric-wide settings files an import copies as they are
SETTINGS = ("--fabric", str(LAB / "fabric.yaml"), "--fabric", str(LAB / "base.yaml"))
TOKEN = "0123456789abcdef0123456789abcdef01234567"
PAGE = 25  # smaller than the lab's lists: every list takes several pages


class Stub(ThreadingHTTPServer):
    lists: dict[str, list[dict[str, Any]]]
    seen: list[str]


class Handler(BaseHTTPRequestHandler):
    server: Stub

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        self.server.seen.append(f"{url.path} site={query.get('site')}")
        if self.headers.get("Authorization") != f"Token {TOKEN}":
            return self._send(403, {"detail": "Invalid token"})
        name = url.path.removeprefix("/api/dcim/").strip("/")
        if name not in self.server.lists:
            return self._send(404, {"detail": "Not found."})
        items = self.server.lists[name]
        offset, limit = int(query.get("offset", 0)), min(int(query.get("limit", 50)), PAGE)
        base = f"http://127.0.0.1:{self.server.server_address[1]}{url.path}"

        def link(at: int) -> str:
            return f"{base}?{urllib.parse.urlencode({**query, 'limit': limit, 'offset': at})}"

        self._send(200, {"count": len(items), "next": link(offset + limit) if offset + limit < len(items) else None,
                         "previous": link(max(0, offset - limit)) if offset else None,
                         "results": items[offset:offset + limit]})

    def _send(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def netbox() -> Iterator[Stub]:
    server = Stub(("127.0.0.1", 0), Handler)
    server.lists = {name: json.loads((DATA / f"{name}.json").read_text()) for name in ("devices", "cables")}
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def fabricgen(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FABRICGEN_NETBOX_URL": url, "FABRICGEN_NETBOX_TOKEN": TOKEN}
    return subprocess.run([sys.executable, "-m", "fabricgen", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def url_of(server: Stub) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_recorded_responses_are_what_the_lab_export_creates() -> None:
    built = build(LAB)
    for name, items in built.items():
        assert (DATA / f"{name}.json").read_text() == dumps(items), f"run python tests/netbox_recorded.py ({name})"
    assert len(built["devices"]) == 10 and len(built["cables"]) == 48


def test_round_trip_validates_and_renders_byte_identically(netbox: Stub, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    run = fabricgen("import", "netbox", *SETTINGS, "-o", str(out), url=url_of(netbox))
    assert run.returncode == 0, run.stderr
    assert TOKEN not in run.stdout + run.stderr
    # every list was read page by page, filtered by the fabric's site
    assert netbox.seen.count("/api/dcim/devices/ site=lab") == 1  # 10 devices: one page
    assert netbox.seen.count("/api/dcim/cables/ site=lab") == 2  # 48 cables: two pages of 25
    assert_same_fabric(LAB, out, tmp_path)
    assert "  rails:\n  - 0\n  - 1\n" in (out / "devices.yaml").read_text()


def assert_same_fabric(original: Path, imported: Path, tmp_path: Path) -> None:
    """``imported`` validates like ``original`` and renders byte-identical files."""
    checks = [fabricgen("validate", str(inv), "--format", "json", url="") for inv in (original, imported)]
    assert checks[1].returncode == 0, checks[1].stderr
    docs = [json.loads(c.stdout) for c in checks]
    assert docs[1]["ok"] and docs[0]["summary"] == docs[1]["summary"], docs[1]
    for inv, to in ((original, "a"), (imported, "b")):
        run = fabricgen("render", str(inv), "-o", str(tmp_path / to), url="")
        assert run.returncode == 0, run.stderr
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert files_a == files_b and len(files_a) > 6
    for rel in files_a:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel


def test_dry_run_writes_nothing_and_shows_the_files(netbox: Stub, tmp_path: Path) -> None:
    out = tmp_path / "imported"
    run = fabricgen("import", "netbox", *SETTINGS, "-o", str(out), "--dry-run",
                    url=url_of(netbox))
    assert run.returncode == 0, run.stderr
    assert not out.exists()
    assert f"would write {out / 'cabling.yaml'}" in run.stdout
    assert "- a: gpu01:enp24s0np0\n  b: leaf1:Ethernet0\n  length_m: 3\n" in run.stdout


def test_bad_custom_field_names_the_object_and_exits_3(netbox: Stub, tmp_path: Path) -> None:
    leaf = next(d for d in netbox.lists["devices"] if d["name"] == "leaf2")
    leaf["custom_fields"]["fabricgen_unit"] = "one"
    leaf["custom_fields"]["fabricgen_rails"] = "2;3"
    run = fabricgen("import", "netbox", *SETTINGS, "-o", str(tmp_path / "x"),
                    url=url_of(netbox))
    assert run.returncode == 3
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    at = f"netbox: dcim.device leaf2 (id {leaf['id']})"
    assert f"{at}: custom field fabricgen_unit: 'one' is not a whole number" in lines
    assert f"{at}: custom field fabricgen_rails: '2;3' is not a list like '0,1'" in lines
    assert not (tmp_path / "x").exists()


def test_a_bad_cable_field_names_the_cable_record_and_exits_3(netbox: Stub, tmp_path: Path) -> None:
    cable = netbox.lists["cables"][3]
    cable["custom_fields"]["fabricgen_speed"] = [None]
    run = fabricgen("import", "netbox", *SETTINGS, "-o", str(tmp_path / "x"), url=url_of(netbox))
    assert run.returncode == 3 and "Traceback" not in run.stderr
    (a,) = cable["a_terminations"]
    at = f"netbox: dcim.cable {a['object']['device']['name']}:{a['object']['name']} (id {cable['id']})"
    assert run.stderr.splitlines() == [f"{at}: custom field fabricgen_speed: [None] is not a whole number"]


def test_unsafe_name_is_rejected_by_the_inventory_model(netbox: Stub, tmp_path: Path) -> None:
    spine = next(d for d in netbox.lists["devices"] if d["name"] == "spine1")
    spine["name"] = "spine1;reboot"
    run = fabricgen("import", "netbox", *SETTINGS, "-o", str(tmp_path / "x"),
                    url=url_of(netbox))
    assert run.returncode == 3, run.stdout
    assert any(line.startswith(f"netbox: dcim.device spine1;reboot (id {spine['id']}): name:")
               for line in run.stderr.splitlines()), run.stderr
    assert not (tmp_path / "x").exists()


def test_wrong_token_is_one_line_without_the_token(netbox: Stub, tmp_path: Path) -> None:
    env = {**os.environ, "FABRICGEN_NETBOX_URL": url_of(netbox), "FABRICGEN_NETBOX_TOKEN": "secret-wrong-token"}
    run = subprocess.run([sys.executable, "-m", "fabricgen", "import", "netbox", *SETTINGS,
                          "-o", str(tmp_path)], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 3
    assert "HTTP 403" in run.stderr and "secret-wrong-token" not in run.stderr + run.stdout


def test_export_netbox_dry_run_lists_objects_in_dependency_order() -> None:
    run = fabricgen("export", "netbox", str(LAB), "--dry-run", url="")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines.index("would create dcim.devicetype sn5600") < lines.index("would create dcim.device leaf1")
    assert lines.index("would create dcim.interface leaf1:Ethernet0") < lines.index(
        "would create dcim.cable gpu01:enp24s0np0 -- leaf1:Ethernet0")
    assert sum(line.startswith("would create dcim.cable ") for line in lines) == 48
    assert sum(line.startswith("would create dcim.device ") for line in lines) == 10


@given(st.integers(min_value=1, max_value=1_000_000))
def test_length_fields_keep_centimetres_exactly(cm: int) -> None:
    length, unit = length_fields(cm / 100)
    assert (length * (100 if unit == "m" else 1), unit in ("m", "cm")) == (cm, True)
    assert (unit == "m") == (cm % 100 == 0)


def test_length_below_a_centimetre_is_refused() -> None:
    with pytest.raises(SotError, match="whole number of centimetres"):
        length_fields(2.505)


@given(st.permutations(list(range(6))))
def test_import_order_does_not_depend_on_the_server_order(order: list[int]) -> None:
    devices = [Device(f"leaf{i}", "leaf", "sn5600", "NVIDIA", "sonic", {"fabricgen_id": 6 - i}) for i in range(3)]
    devices += [Device(f"gpu{i:02}", "gpu-node", "dgx-h100", "NVIDIA", None, {}) for i in range(3)]
    cables = [Cable(f"gpu{i:02}", "eth0", f"leaf{i}", f"Ethernet{i * 8}", 400, 3.0, None) for i in range(3)]
    shuffled = Sot("lab", tuple(devices[i] for i in order), tuple(reversed(cables)))
    reference = to_inventory(Sot("lab", tuple(devices), tuple(cables)), {})
    assert to_inventory(shuffled, {}) == reference
    assert [s["name"] for s in reference[0]["switches"]] == ["leaf2", "leaf1", "leaf0"]  # by id


def test_export_seeds_a_source_of_truth_from_an_intent() -> None:
    """An intent inventory (su1: the switches and cabling fabricgen derives) lists every derived object."""
    from tests.conftest import load_fabric

    fabric = load_fabric(ROOT / "inventories" / "su1")
    run = fabricgen("export", "nautobot", str(ROOT / "inventories" / "su1"), "--dry-run", "--format", "json", url="")
    assert run.returncode == 0, run.stderr
    objects = json.loads(run.stdout)["objects"]
    devices = {line.split()[2] for line in objects if line.startswith("create dcim.device ")}
    assert devices == set(fabric.switches) | set(fabric.nodes)
    cables = [line for line in objects if line.startswith("create dcim.cable ")]
    assert len(cables) == sum(1 for link in fabric.links if link.b is not None) == 384


def test_primary_ip4_is_the_management_address_when_the_custom_field_is_empty(netbox: Stub, tmp_path: Path) -> None:
    leaf = next(d for d in netbox.lists["devices"] if d["name"] == "leaf3")
    assert leaf["custom_fields"]["fabricgen_mgmt"] == "192.0.2.23/24"
    leaf["custom_fields"]["fabricgen_mgmt"] = None
    leaf["primary_ip4"] = {"id": 7, "url": "http://netbox.example.com/api/ipam/ip-addresses/7/",
                           "display": "192.0.2.99/24", "family": {"value": 4, "label": "IPv4"},
                           "address": "192.0.2.99/24", "description": ""}
    spine = next(d for d in netbox.lists["devices"] if d["name"] == "spine2")
    spine["primary_ip4"] = {**leaf["primary_ip4"], "address": "192.0.2.98/24"}  # the custom field wins
    out = tmp_path / "imported"
    run = fabricgen("import", "netbox", *SETTINGS, "-o", str(out), url=url_of(netbox))
    assert run.returncode == 0, run.stderr
    switches = {s["name"]: s for s in yaml.safe_load((out / "devices.yaml").read_text())["switches"]}
    assert switches["leaf3"]["base"] == {"mgmt": {"address": "192.0.2.99/24"}}
    assert switches["spine2"]["base"] == {"mgmt": {"address": "192.0.2.12/24"}}
    assert (out / "base.yaml").read_text() == (LAB / "base.yaml").read_text()


def test_settings_files_must_name_the_fabric_once(netbox: Stub, tmp_path: Path) -> None:
    run = fabricgen("import", "netbox", "--fabric", str(LAB / "base.yaml"), "-o", str(tmp_path / "x"),
                    url=url_of(netbox))
    assert run.returncode == 3
    assert run.stderr == f"netbox: {LAB / 'base.yaml'}: no fabric.name among the --fabric files\n"
    clash = tmp_path / "devices.yaml"
    clash.write_text("fabric: {name: lab}\n")
    run = fabricgen("import", "netbox", "--fabric", str(clash), "-o", str(tmp_path / "x"), url=url_of(netbox))
    assert run.returncode == 3
    assert run.stderr == f"netbox: {clash}: the output already has a devices.yaml; rename the settings file\n"
    assert not (tmp_path / "x").exists()


def test_export_names_what_a_switch_base_cannot_carry(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    for f in ("fabric.yaml", "base.yaml", "cabling.yaml"):
        (inv / f).write_text((LAB / f).read_text())
    (inv / "devices.yaml").write_text((LAB / "devices.yaml").read_text().replace(
        "base: {mgmt: {address: 192.0.2.21/24}}", "base: {mgmt: {address: 192.0.2.21/24, gateway: 192.0.2.254}, "
        "banner: leaf one}"))
    run = fabricgen("export", "netbox", str(inv), "--dry-run", url="")
    assert run.returncode == 3
    assert run.stderr == ("netbox: switch leaf1: base: banner, mgmt.gateway not carried by the source of truth "
                          "(only mgmt.address is); set them in the role or defaults of base.yaml\n")
