"""Fuzz: ``fabricgen import netbox`` with what a source of truth may answer — the recorded NetBox 4.x device and cable
lists (tests/data/netbox) mutated, served paginated over real HTTP on 127.0.0.1 — and with mutated ``--fabric``
settings files. The property (``tests/fuzz.py``): exit 0–3, no traceback, an input error names the file or the
NetBox object. Found cases live in ``tests/data/fuzz/import/`` and are replayed first."""

from __future__ import annotations

import json
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import check, corpus, expand, file_text, fuzz_settings, invoke, write_files
from tests.fuzz_yaml import mutated_text, mutated_tree

ROOT = Path(__file__).resolve().parent.parent
RECORDED = {name: json.loads((ROOT / "tests" / "data" / "netbox" / f"{name}.json").read_text())
            for name in ("devices", "cables")}  # fmt: skip
TOKEN = "fuzz0123456789abcdef0123456789abcdef0123"
PAGE = 50


class _Server(ThreadingHTTPServer):
    lists: dict[str, Any]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        items = self.server.lists.get(url.path.removeprefix("/api/dcim/").strip("/"))
        if self.headers.get("Authorization") != f"Token {TOKEN}" or items is None:
            return self._send(404, {"detail": "Not found."})
        if not isinstance(items, list):  # a mutated answer that is not a list: served as it is
            return self._send(200, items)
        offset = int(query.get("offset", 0))
        base = f"http://127.0.0.1:{self.server.server_address[1]}{url.path}"
        more = offset + PAGE < len(items)
        after = f"{base}?{urllib.parse.urlencode({**query, 'offset': offset + PAGE})}" if more else None
        self._send(200, {"count": len(items), "results": items[offset : offset + PAGE], "next": after})

    def _send(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def netbox() -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.lists = dict(RECORDED)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FABRICGEN_NETBOX_TOKEN", TOKEN)


SETTINGS = {name: (ROOT / "inventories" / "lab" / name).read_text(encoding="utf-8")
            for name in ("fabric.yaml", "base.yaml")}  # fmt: skip
ARGV = ["import", "netbox", "--fabric", "{files}/fabric.yaml", "--fabric", "{files}/base.yaml",
        "-o", "{files}/out"]  # fmt: skip


def run_case(case: dict[str, Any], server: _Server) -> None:
    """Serve the case's lists, write its settings files, import, check the property."""
    server.lists = dict(RECORDED) if case["lists"] == "recorded" else case["lists"]
    with tempfile.TemporaryDirectory(prefix="fg-fuzz-") as tmp, pytest.MonkeyPatch.context() as env:
        files = Path(tmp) / "files"
        write_files(files, case["files"])
        env.setenv("FABRICGEN_NETBOX_URL", f"http://127.0.0.1:{server.server_address[1]}")
        run = invoke(expand(case["argv"], files))
        # a SoT object's problem names it (``netbox: dcim.device leaf3 (id 7): …``); a settings file's, the file
        check(run, [str(files), "netbox: dcim.", "netbox: GET "], case, live="source")


@fuzz_settings()
@given(data=st.data())
def test_sot_answers_mutated(netbox: _Server, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(RECORDED)), label="list")
    lists = dict(RECORDED)
    lists[name] = data.draw(mutated_tree(RECORDED[name]), label=name)
    fmt = data.draw(st.sampled_from(([], ["--format", "json"], ["--dry-run"])), label="options")
    run_case({"target": "import", "argv": [*ARGV, *fmt], "files": dict(SETTINGS), "lists": lists}, netbox)


@fuzz_settings(scale=0.5)
@given(data=st.data())
def test_settings_files_mutated(netbox: _Server, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(SETTINGS)), label="file")
    files = dict(SETTINGS)
    if data.draw(st.booleans(), label="text or tree"):
        files[name] = file_text(data.draw(mutated_text(files[name]), label=name))
    else:
        files[name] = str(yaml.safe_dump(data.draw(mutated_tree(yaml.safe_load(files[name])), label=name),
                                         allow_unicode=True))  # fmt: skip
    run_case({"target": "import", "argv": [*ARGV, "--dry-run"], "files": files, "lists": dict(RECORDED)}, netbox)


@pytest.mark.parametrize("case", corpus("import"))
def test_import_corpus(netbox: _Server, case: dict[str, Any]) -> None:
    """Every import case found so far, replayed."""
    run_case(case, netbox)


class _Collector(BaseHTTPRequestHandler):
    """Another server: records every request it gets, with its Authorization header."""

    seen: ClassVar[list[str]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        _Collector.seen.append(f"{self.path} {self.headers.get('Authorization')}")
        data = json.dumps({"count": 0, "results": [], "next": None}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _pair() -> tuple[_Server, ThreadingHTTPServer]:
    """A NetBox stub on port P and another server on port P·10+d: the other's address starts with the stub's."""
    for port in range(4100, 6553):
        try:
            stub = _Server(("127.0.0.1", port), _Handler)
        except OSError:
            continue
        for digit in range(10):
            try:
                return stub, ThreadingHTTPServer(("127.0.0.1", port * 10 + digit), _Collector)
            except OSError:
                continue
        stub.server_close()
    raise RuntimeError("no free pair of ports")


def test_a_next_link_to_another_server_is_refused_before_the_token_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``next`` link whose address merely starts with the server's (``http://127.0.0.1:4100`` →
    ``http://127.0.0.1:41003``) is another server: the import stops there, and that server never sees the token."""
    stub, other = _pair()
    link = f"http://127.0.0.1:{other.server_address[1]}/api/dcim/devices/?offset=1"

    class Leading(_Handler):
        def do_GET(self) -> None:
            self._send(200, {"count": 2, "results": RECORDED["devices"][:1], "next": link})

    stub.RequestHandlerClass = Leading
    _Collector.seen = []
    for server in (stub, other):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        write_files(tmp_path, SETTINGS)
        monkeypatch.setenv("FABRICGEN_NETBOX_URL", f"http://127.0.0.1:{stub.server_address[1]}")
        run = invoke(["import", "netbox", "--fabric", str(tmp_path / "fabric.yaml"), "--dry-run"])
    finally:
        for server in (stub, other):
            server.shutdown()
            server.server_close()
    assert run.code == 3, run.output
    assert "is on another server" in run.err and TOKEN not in run.output
    assert _Collector.seen == []
