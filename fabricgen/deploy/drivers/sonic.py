"""NAPALM driver for SONiC over SSH: ``config_db.json`` replaced whole through the generic config updater, and
FRR's ``frr.conf`` (split routing mode) replaced through ``frr-reload.py`` in the bgp container.

The candidate is either a plain config_db.json, or fabricgen's bundle ``{"config_db.json": {...}, "frr.conf":
"..."}`` (:mod:`fabricgen.deploy.intended`: why split mode). With a bundle, ``get_config`` returns the running
configuration as the same bundle, so drift compares both files.

* ``load_replace_candidate`` uploads ``candidate.json`` (must parse as JSON); a bundle's frr.conf is installed
  as ``/etc/sonic/frr/fabricgen-candidate.conf`` (``/etc/frr`` inside the bgp container) and checked with
  ``vtysh --dryrun`` there;
* ``compare_config`` diffs ``show runningconfiguration all`` against config_db as data (key order never
  matters) and, for frr.conf, ``frr-reload.py --test``;
* ``commit_config(revert_in=N)``: ``config checkpoint fabricgen-rollback``, FRR's running configuration saved as
  ``fabricgen-rollback.conf``, a detached timer on the switch (armed before anything changes), then ``config
  replace`` and ``frr-reload.py --reload`` of the candidate; the timer restores both (``config rollback`` +
  ``frr-reload.py --reload`` of the saved file) unless confirmed — SONiC has no commit-confirm of its own;
  ``confirm_commit`` runs ``config save -y`` and FRR's ``write memory``, *then* kills the timer; ``rollback``
  restores both, then kills a pending timer, then saves. The timer is the frr driver's
  (:meth:`SSHDriver._timer_script`), with the same device-side invariant (:mod:`fabricgen.deploy.drivers.frr`): it
  writes its own record before it sleeps, it is found by its marker with or without a record, so an interrupted
  apply leaves an armed timer that ``has_pending_commit()`` reports, or a saved configuration without one;
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
from fabricgen.deploy.drivers.frr import bgp_routes, parse_bgp_neighbors

CHECKPOINT = "fabricgen-rollback"
FRR_DIR_HOST, FRR_DIR_BGP = "/etc/sonic/frr", "/etc/frr"  # split mode: the host directory mounted in the container
FRR_CANDIDATE, FRR_ROLLBACK = "fabricgen-candidate.conf", "fabricgen-rollback.conf"
IN_BGP = "sudo docker exec bgp"
BFD_NEIGHBOR = re.compile(r"^ neighbor \S+ bfd$", re.M)
"""A frr.conf line that needs FRR's bfdd (fabricgen.checks.routing.SONIC_BFDD)."""
FRR_RELOAD_BGP = f"{IN_BGP} /usr/lib/frr/frr-reload.py"


class SonicDriver(SSHDriver):
    platform = "sonic"
    workdir = "/tmp/fabricgen"
    running_command = "show runningconfiguration all"
    startup_path = "/etc/sonic/config_db.json"

    _frr: str | None = None  # the candidate's frr.conf (bundle only)

    def __init__(self, hostname: str, username: str, password: str, timeout: int = 60,
                 optional_args: dict[str, Any] | None = None) -> None:
        args = dict(optional_args or {})
        self.with_frr = bool(args.pop("frr_conf", True))
        super().__init__(hostname, username, password, timeout, args)

    def _check_candidate(self, config: str) -> None:
        try:
            json.loads(config)
        except ValueError as exc:
            raise ReplaceConfigException(f"candidate is not JSON: {exc}") from None

    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        from fabricgen.deploy.intended import split_sonic

        text = config
        if filename is not None:
            with open(filename) as f:
                text = f.read()
        parts = split_sonic(text or "")
        db = parts[0] if parts else text
        self._stage_candidate("candidate.json", None, db)
        self._frr = parts[1] if parts else None
        if self._frr is not None:
            self._put(f"{self.workdir}/candidate-frr.conf", self._frr)
            self._run(f"sudo install -m 600 {self._path('candidate-frr.conf')} {FRR_DIR_HOST}/{FRR_CANDIDATE}")
            rc, out = self._exec(f"{IN_BGP} vtysh --dryrun -f {FRR_DIR_BGP}/{FRR_CANDIDATE}")
            if rc != 0:
                raise ReplaceConfigException(f"frr.conf refused by vtysh --dryrun: {out.strip()[-300:]}")
            if BFD_NEIGHBOR.search(self._frr) and self._exec(f"{IN_BGP} pgrep -x bfdd")[0] != 0:
                # bgpd keeps `neighbor ... bfd` without bfdd, and nothing detects a failure: refuse before any change
                raise ReplaceConfigException(
                    "frr.conf runs BFD on its sessions, but bfdd is not running in the bgp container (community "
                    "SONiC starts it only with DEVICE_METADATA|localhost frr_mgmt_framework_config true); start "
                    "it there, or set fabric.bfd.enabled: false")
        self._candidate = text

    def _db_candidate(self) -> str:
        from fabricgen.deploy.intended import split_sonic

        parts = split_sonic(self._candidate or "")
        return parts[0] if parts else (self._candidate or "")

    def compare_config(self) -> str:
        if self._candidate is None:
            return ""
        from fabricgen.deploy.drivers.frr import _significant, format_paths, parse_reload_test
        from fabricgen.deploy.normalize import compare

        running = self._run(self.running_command)
        diff = compare("sonic", self._db_candidate(), running)
        lines = [*(f"+ {x}" for x in diff.missing), *(f"- {x}" for x in diff.unexpected)]
        if self._frr is not None:
            out = self._run(f"{FRR_RELOAD_BGP} --test --stdout {FRR_DIR_BGP}/{FRR_CANDIDATE}", timeout=120)
            deletes, adds = parse_reload_test(out)
            frr = format_paths(_significant(deletes), _significant(adds))
            lines += [f"{line[:2]}frr.conf: {line[2:]}" for line in frr.splitlines()]
        return "\n".join(lines)

    def discard_config(self) -> None:
        self._exec(f"rm -f {self._path('candidate.json')} {self._path('candidate-frr.conf')}")
        self._candidate, self._frr = None, None

    def _restore(self) -> str:
        """The shell command that restores the checkpoint (and FRR's saved configuration)."""
        cmd = f"sudo config rollback {CHECKPOINT}"
        if self._frr is not None:
            cmd += f" && {FRR_RELOAD_BGP} --reload {FRR_DIR_BGP}/{FRR_ROLLBACK}"
        return cmd

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        self._ready_to_commit()
        self._run(f"sudo config checkpoint {CHECKPOINT}")
        if self._frr is not None:
            self._run(f"{IN_BGP} vtysh -c 'show running-config' | sudo tee {FRR_DIR_HOST}/{FRR_ROLLBACK} >/dev/null")
        if revert_in is not None:  # armed before the replace: no moment runs the candidate without a timer
            self._start_timer(f"{self._restore()} && sudo config save -y", revert_in)
        rc, out = self._exec(f"sudo config replace {self._path('candidate.json')}", timeout=300)
        ok = rc == 0 and "Config replaced successfully" in out
        if ok and self._frr is not None:
            rc, out = self._exec(f"{FRR_RELOAD_BGP} --reload {FRR_DIR_BGP}/{FRR_CANDIDATE}", timeout=300)
            ok = rc == 0
        # the candidate files have done their job (the FRR rollback file stays for the timer)
        self._exec(f"rm -f {self._path('candidate.json')} {self._path('candidate-frr.conf')}"
                   + (f"; sudo rm -f {FRR_DIR_HOST}/{FRR_CANDIDATE}" if self._frr is not None else ""))
        if not ok:
            self._exec(self._restore(), timeout=300)
            if revert_in is not None:
                self._cancel_timer()
            raise CommitError(f"config replace failed; rolled back: {out.strip()[-300:]}")
        if revert_in is None:
            self._save()
        self._candidate = None

    def _save(self) -> None:
        self._run("sudo config save -y")
        if self._frr is not None:
            self._run(f"{IN_BGP} vtysh -c 'write memory'")

    def confirm_commit(self) -> None:
        """Save, then disarm (as the frr driver: a kill after the save leaves the timer armed, and it reverts)."""
        if not self.has_pending_commit():
            raise CommitError("no pending commit-confirm found (the revert timer may already have fired)")
        self._save()
        if not self._cancel_timer():
            raise CommitError("the revert timer fired while confirming; the previous configuration is running")

    def rollback(self) -> None:
        """Restore the checkpoint (a pending timer still armed would restore the same), then disarm, then save."""
        rc, out = self._exec(self._restore(), timeout=300)
        if rc != 0 or "Config rolled back successfully" not in out:
            raise CommitError(f"rollback failed: {out.strip()[-300:]}")
        self._cancel_timer()
        self._save()

    def get_config(
        self, retrieve: str = "all", full: bool = False, sanitized: bool = False, format: str = "text"
    ) -> dict[str, str]:
        """NAPALM's get_config; ``running`` is the bundle of ``show runningconfiguration all`` and FRR's
        ``show running-config`` (plain config_db.json with ``optional_args={"frr_conf": False}``)."""
        out = super().get_config(retrieve, full, sanitized, format)
        if out["running"] and (self._frr is not None or self.with_frr):
            from fabricgen.deploy.intended import sonic_bundle
            from fabricgen.deploy.normalize import sanitize

            frr = self._run("vtysh -c 'show running-config'")
            out["running"] = sonic_bundle(out["running"], sanitize(frr) if sanitized else frr)
        return out

    def get_facts(self) -> dict[str, Any]:
        return parse_show_version(self._run("show version"), self._run("hostname").strip(),
                                  list(self.get_interfaces()))

    def get_interfaces(self) -> dict[str, dict[str, Any]]:
        return parse_interfaces_status(self._run("show interfaces status"))

    def get_bgp_neighbors(self) -> dict[str, dict[str, Any]]:
        return parse_bgp_neighbors(json.loads(self._run("vtysh -c 'show bgp vrf all neighbors json'") or "{}"))

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        return parse_lldp_table(self._run("show lldp table"))

    full_route_table = True
    """:meth:`get_route_to` with ``destination=""`` returns every BGP route (the drain check reads them all)."""

    def get_route_to(self, destination: str = "", protocol: str = "", longer: bool = False) -> dict[str, list[Any]]:
        """BGP routes from FRR's ``show ip bgp json``, as :meth:`fabricgen.deploy.drivers.frr.FrrDriver.get_route_to`
        reads them (the same vtysh, in the bgp container)."""
        return bgp_routes(self._run, "sonic", destination, protocol, longer)


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
