"""NAPALM driver for SONiC over SSH: ``config_db.json`` replaced whole through the generic config updater.

* ``load_replace_candidate`` uploads ``candidate.json`` (must parse as JSON);
* ``compare_config`` diffs ``show runningconfiguration all`` against it as data (key order never matters);
* ``commit_config(revert_in=N)`` takes ``config checkpoint fabricgen-rollback``, runs ``config replace`` and
  starts a detached timer that runs ``config rollback fabricgen-rollback`` unless confirmed (SONiC has no
  commit-confirm of its own); ``confirm_commit`` cancels it and runs ``config save -y``;
* getters: BGP from FRR (``vtysh``, as on the device's bgp container), LLDP from ``show lldp table``,
  interfaces from ``show interfaces status``.

SONiC cannot run on this machine: the parsers are tested against recorded output (``tests/data/deploy/sonic``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from napalm.base.exceptions import CommitError, ReplaceConfigException

from fabricgen.deploy.drivers.base import SSHDriver
from fabricgen.deploy.drivers.frr import parse_bgp_neighbors

CHECKPOINT = "fabricgen-rollback"


class SonicDriver(SSHDriver):
    platform = "sonic"
    workdir = "/tmp/fabricgen"
    running_command = "show runningconfiguration all"
    startup_path = "/etc/sonic/config_db.json"

    def _check_candidate(self, config: str) -> None:
        try:
            json.loads(config)
        except ValueError as exc:
            raise ReplaceConfigException(f"candidate is not JSON: {exc}") from None

    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        config = self._stage_candidate("candidate.json", filename, config)
        self._candidate = config

    def compare_config(self) -> str:
        if self._candidate is None:
            return ""
        from fabricgen.deploy.normalize import compare

        running = self._run("show runningconfiguration all")
        diff = compare("sonic", self._candidate, running)
        return "\n".join([*(f"+ {x}" for x in diff.missing), *(f"- {x}" for x in diff.unexpected)])

    def discard_config(self) -> None:
        self._exec(f"rm -f {self._path('candidate.json')}")
        self._candidate = None

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        self._ready_to_commit()
        self._run(f"sudo config checkpoint {CHECKPOINT}")
        rc, out = self._exec(f"sudo config replace {self._path('candidate.json')}", timeout=300)
        if rc != 0 or "Config replaced successfully" not in out:
            self._exec(f"sudo config rollback {CHECKPOINT}", timeout=300)
            raise CommitError(f"config replace failed; rolled back: {out.strip()[-300:]}")
        if revert_in is None:
            self._run("sudo config save -y")
        else:
            self._start_timer(f"sudo config rollback {CHECKPOINT} && sudo config save -y", revert_in)
        self._candidate = None

    def confirm_commit(self) -> None:
        if not self._cancel_timer():
            raise CommitError("no pending commit-confirm found (the revert timer may already have fired)")
        self._run("sudo config save -y")

    def rollback(self) -> None:
        self._cancel_timer()
        rc, out = self._exec(f"sudo config rollback {CHECKPOINT}", timeout=300)
        if rc != 0 or "Config rolled back successfully" not in out:
            raise CommitError(f"rollback failed: {out.strip()[-300:]}")
        self._run("sudo config save -y")

    def get_facts(self) -> dict[str, Any]:
        return parse_show_version(self._run("show version"), self._run("hostname").strip(),
                                  list(self.get_interfaces()))

    def get_interfaces(self) -> dict[str, dict[str, Any]]:
        return parse_interfaces_status(self._run("show interfaces status"))

    def get_bgp_neighbors(self) -> dict[str, dict[str, Any]]:
        return parse_bgp_neighbors(json.loads(self._run("vtysh -c 'show bgp vrf all neighbors json'") or "{}"))

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        return parse_lldp_table(self._run("show lldp table"))


def _columns(header: str, dashes: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
    return [(s, spans[i + 1][0] if i + 1 < len(spans) else 10_000) for i, (s, _) in enumerate(spans)]


def _table(text: str) -> list[dict[str, str]]:
    """A SONiC CLI table (header line, dashes line, rows) → list of {column: value}."""
    lines = text.splitlines()
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() and set(line.strip()) <= {"-", " "} and lines[i - 1].strip():
            cols = _columns(lines[i - 1], line)
            names = [lines[i - 1][s:e].strip() for s, e in cols]
            rows = []
            for row in lines[i + 1 :]:
                if not row.strip() or set(row.strip()) <= {"-"} or row.startswith("Total entries"):
                    break
                rows.append({n: row[s:e].strip() for n, (s, e) in zip(names, cols, strict=True)})
            return rows
    return []


def parse_lldp_table(text: str) -> dict[str, list[dict[str, str]]]:
    """``show lldp table`` → {local port: [{hostname, port, port_description}]}; the port ID (SONiC peers advertise
    their alias there), or the description when the ID is a MAC."""
    out: dict[str, list[dict[str, str]]] = {}
    for row in _table(text):
        port = row.get("RemotePortID", "")
        if re.fullmatch(r"(?:[0-9a-f]{2}:){5}[0-9a-f]{2}", port.lower()):
            port = row.get("RemotePortDescr", port)
        entry = {"hostname": row.get("RemoteDevice", ""), "port": port}
        if row.get("RemotePortDescr"):
            entry["port_description"] = row["RemotePortDescr"]  # verify's fallback when the ID is neither
        out.setdefault(row.get("LocalPort", ""), []).append(entry)
    return out


def _speed_mbit(text: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([GM])", text.strip())
    if not m:
        return -1.0
    return float(m.group(1)) * (1000 if m.group(2) == "G" else 1)


def parse_interfaces_status(text: str) -> dict[str, dict[str, Any]]:
    """``show interfaces status`` → NAPALM interfaces (speed in Mbit/s, −1 when N/A)."""
    out: dict[str, dict[str, Any]] = {}
    for row in _table(text):
        name = row.get("Interface", "")
        if not name:
            continue
        try:
            mtu = int(row.get("MTU", "0"))
        except ValueError:
            mtu = 0
        out[name] = {
            "is_up": row.get("Oper", "").lower() == "up",
            "is_enabled": row.get("Admin", "").lower() == "up",
            "description": row.get("Alias", ""),
            "last_flapped": -1.0,
            "speed": _speed_mbit(row.get("Speed", "")),
            "mtu": mtu,
            "mac_address": "",
        }
    return out


def parse_show_version(text: str, hostname: str, interfaces: list[str]) -> dict[str, Any]:
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return {
        "hostname": hostname,
        "fqdn": hostname,
        "uptime": -1.0,
        "vendor": "SONiC",
        "model": fields.get("HwSKU", ""),
        "os_version": fields.get("SONiC Software Version", ""),
        "serial_number": fields.get("Serial Number", ""),
        "interface_list": interfaces,
    }
