"""NAPALM driver for Linux + FRR switches (the lab, and FRR-routed NOSes configured through frr.conf).

Configuration is replaced whole, as NAPALM's ``load_replace_candidate`` means:

* ``load_replace_candidate`` uploads the file and checks it with ``vtysh --dryrun`` (no daemon touched);
* ``compare_config`` is ``frr-reload.py --test``: the commands that would turn the running configuration into
  the candidate, minus lines that FRR's ``datacenter`` profile treats as defaults (they are never echoed by
  ``show running-config`` and would otherwise show up as a change forever). A failed test raises: its output
  is never applied;
* ``commit_config(revert_in=N)`` saves the running configuration as ``rollback-0.conf``, starts a detached
  timer on the device (``sleep N`` then reload ``rollback-0.conf``; :meth:`SSHDriver._timer_script`), and only
  then applies the candidate with ``frr-reload.py --reload`` (the window counts from before the reload).
  ``frr-reload.py --reload`` saves what it reloaded (it ends with vtysh ``write`` whenever the file is not
  ``frr.conf``), so the previous ``frr.conf`` is kept aside and put back after the reload: until the confirm
  saves, a reboot boots the previous configuration, as the timer would restore it. ``revert_in=None`` reloads
  and saves the new configuration at once (``write memory``);
* ``has_pending_commit`` is true whenever a timer is armed: it looks for the timer's marker on the command line
  of the processes of this device (this mount namespace: the lab's switches share one PID namespace), with or
  without its record, so a vanished or recycled pid never reads as "pending" and an armed timer always does;
* ``confirm_commit`` saves the configuration (``write memory``), then kills the timer;
* ``rollback`` reloads ``rollback-0.conf``, then kills a pending timer, then saves.

Device-side invariant (what makes an interrupted apply accountable at every step): the timer writes its own
record (``pending.json``: its pid ``$$`` and deadline, atomically by a rename) *before* it sleeps, reverts, and
only then removes the record; and a timer is found by its marker even without a record. So whatever moment the
apply is killed at — before the load, after it, right after the timer started (before the reload, or before
its record), after the reload, between the steps of a confirm or of a rollback — the device is in one of three
states:
``has_pending_commit()`` is true and the timer will restore the previous configuration; or the new
configuration runs and is saved with no timer (confirmed); or the previous configuration runs with no timer.
With ``revert_in=None`` there is no timer: the reload is the change, and frr-reload.py saves it. The startup
file is only ever wrong for a moment: between the reload and putting the previous ``frr.conf`` back, a reboot
(not a kill of the apply: the timer is armed) would boot the unconfirmed candidate.

The candidate file is removed once it has been reloaded (or refused) and by ``discard_config``: no candidate
is left on the switch.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import Any

from napalm.base.exceptions import CommitError, ReplaceConfigException

from fabricgen.deploy.drivers.base import CommandError, SSHDriver  # noqa: F401 - CommandError re-exported

FRR_RELOAD = "/usr/lib/frr/frr-reload.py"

DATACENTER_DEFAULTS = frozenset(
    {
        ("router bgp", "no bgp ebgp-requires-policy"),
        ("router bgp", "bgp log-neighbor-changes"),
        ("router bgp", "bgp deterministic-med"),
        ("router bgp", "bgp default ipv4-unicast"),
        ("router bgp", "timers bgp 3 9"),
        ("", "frr defaults datacenter"),
    }
)
"""(context keyword, line) pairs that FRR 8.4's ``datacenter`` profile applies by default and never echoes."""


def is_default(context: tuple[str, ...], line: str) -> bool:
    """Whether ``line`` under ``context`` is a profile default FRR does not echo.

    >>> is_default(("router bgp 65001",), "no bgp ebgp-requires-policy")
    True
    >>> is_default(("router bgp 65001",), "no bgp network import-check")
    False
    """
    head = " ".join(context[0].split()[:2]) if context else ""
    return (head, " ".join(line.split())) in DATACENTER_DEFAULTS


def parse_reload_test(output: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Parse ``frr-reload.py --test --stdout`` into (lines to delete, lines to add), each a context path.

    >>> out = "\\nLines To Delete\\n===============\\nrouter bgp 1\\n neighbor 10.0.0.1 remote-as 2\\n" \\
    ...       "\\nLines To Add\\n============\\ninterface swp1\\n ip address 10.0.0.0/31\\n"
    >>> parse_reload_test(out)
    ([('router bgp 1', 'neighbor 10.0.0.1 remote-as 2')], [('interface swp1', 'ip address 10.0.0.0/31')])
    """
    sections: dict[str, list[tuple[str, ...]]] = {"delete": [], "add": []}
    current: str | None = None
    item: list[str] = []

    def flush() -> None:
        if current is not None and item:
            sections[current].append(tuple(x.strip() for x in item))

    for raw in output.splitlines():
        line = raw.rstrip()
        if line.startswith("Lines To Delete"):
            flush()
            current, item = "delete", []
            continue
        if line.startswith("Lines To Add"):
            flush()
            current, item = "add", []
            continue
        if current is None or not line or set(line) == {"="}:
            continue
        if not line.startswith(" "):
            flush()
            item = [line]
        else:
            item.append(line)
    flush()
    return sections["delete"], sections["add"]


def _significant(paths: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Drop bare context openers that only precede their own lines, and profile defaults."""
    out = []
    for i, p in enumerate(paths):
        if is_default(p[:-1], p[-1]):
            continue
        if len(p) == 1 and any(q[: len(p)] == p and len(q) > 1 for q in paths[i + 1 :]):
            continue
        out.append(p)
    return out


def format_paths(deletes: list[tuple[str, ...]], adds: list[tuple[str, ...]]) -> str:
    lines: list[str] = []
    for sign, paths in (("-", deletes), ("+", adds)):
        for p in paths:
            lines.append(f"{sign} {' / '.join(p)}")
    return "\n".join(lines)


class FrrDriver(SSHDriver):
    """Linux + FRR over SSH (netmiko ``linux``), following NAPALM's NetworkDriver contract."""

    platform = "frr"
    workdir = "/etc/frr/fabricgen"
    running_command = "vtysh -c 'show running-config'"
    startup_path = "/etc/frr/frr.conf"

    # ------------------------------------------------------------------ candidate
    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        config = self._stage_candidate("candidate.conf", filename, config)
        rc, out = self._exec(f"vtysh --dryrun -f {self._path('candidate.conf')}")
        if rc != 0:
            self._exec(f"rm -f {self._path('candidate.conf')}")
            raise ReplaceConfigException(f"candidate rejected by vtysh --dryrun: {out.strip()[-400:]}")
        self._candidate = config

    def _reload_test(self, path: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        rc, out = self._exec(f"{FRR_RELOAD} --test --stdout {path} 2>/dev/null")
        if rc != 0:
            raise ReplaceConfigException(f"frr-reload.py --test failed ({rc}); nothing applied: {out.strip()[-400:]}")
        deletes, adds = parse_reload_test(out)
        return _significant(deletes), _significant(adds)

    def compare_config(self) -> str:
        if self._candidate is None:
            return ""
        deletes, adds = self._reload_test(self._path("candidate.conf"))
        return format_paths(deletes, adds)

    def discard_config(self) -> None:
        self._exec(f"rm -f {self._path('candidate.conf')}")
        self._candidate = None

    # ------------------------------------------------------------------ commit / confirm / rollback
    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        self._ready_to_commit()
        self._reload_test(self._path("candidate.conf"))  # never apply after a failed test
        self._run(f"vtysh -c 'show running-config' | sed -e '/^Building config/d' -e '/^Current configuration:/d'"
                  f" > {self._path('rollback-0.conf')}.tmp && "
                  f"mv {self._path('rollback-0.conf')}.tmp {self._path('rollback-0.conf')}")
        if revert_in is not None:  # armed before the reload: no moment runs the candidate without a timer
            wd = shlex.quote(self.workdir)
            self._start_timer(f"{FRR_RELOAD} --reload {wd}/rollback-0.conf && vtysh -c 'write memory'", revert_in)
        startup, saved = shlex.quote(self.startup_path), self._path("startup-0.conf")
        if revert_in is not None:  # frr-reload.py saves what it reloads (`write`): keep the previous startup aside
            self._run(f"rm -f {saved}; if [ -e {startup} ]; then cp -p {startup} {saved}; fi")
        rc, _out = self._exec(f"{FRR_RELOAD} --reload --stdout {self._path('candidate.conf')} 2>&1", timeout=120)
        self._exec(f"rm -f {self._path('candidate.conf')}")  # loaded (or refused): the file has done its job
        if revert_in is not None:  # unconfirmed, the candidate is not the startup: a reboot boots the previous one
            self._run(f"if [ -e {saved} ]; then cp -p {saved} {startup}.fabricgen && mv {startup}.fabricgen {startup}; "
                      f"fi; rm -f {saved}")
        if rc != 0:
            self._exec(f"{FRR_RELOAD} --reload {self._path('rollback-0.conf')} >/dev/null 2>&1", timeout=120)
            if revert_in is not None:
                self._cancel_timer()
            raise CommitError(f"frr-reload.py --reload failed ({rc}); previous configuration restored")
        if revert_in is None:
            self._run("vtysh -c 'write memory' >/dev/null")
        self._candidate = None

    def confirm_commit(self) -> None:
        """Save, then disarm: ``write memory`` while the timer is still armed, then end the timer. Interrupted
        after the save, the armed timer still reverts (and saves the previous configuration again)."""
        if not self.has_pending_commit():
            raise CommitError("no pending commit-confirm found (the revert timer may already have fired)")
        self._run("vtysh -c 'write memory' >/dev/null")
        fired = not self._cancel_timer()
        rc, _ = self._exec(f"test -e {self._path('revert.log')}")
        if fired or rc == 0:
            raise CommitError("the revert timer fired while confirming; the previous configuration is running")

    def rollback(self) -> None:
        """Restore, then disarm, then save: ``rollback-0.conf`` is reloaded while a pending timer is still armed
        (it would restore the same file), the timer is ended, and the restored configuration saved."""
        rc, _ = self._exec(f"test -s {self._path('rollback-0.conf')}")
        if rc != 0:
            self._cancel_timer()
            raise CommitError("nothing to roll back to (no rollback-0.conf on the device)")
        rc, out = self._exec(f"{FRR_RELOAD} --reload {self._path('rollback-0.conf')} 2>&1", timeout=120)
        if rc != 0:
            raise CommitError(f"rollback failed ({rc}): {out.strip()[-300:]}")
        self._cancel_timer()
        self._run("vtysh -c 'write memory' >/dev/null")

    # ------------------------------------------------------------------ getters
    def get_facts(self) -> dict[str, Any]:
        out = self._run("hostname; cut -d' ' -f1 /proc/uptime; vtysh -c 'show version' | head -1; ls /sys/class/net")
        lines = out.splitlines()
        return {
            "hostname": lines[0].strip(),
            "fqdn": lines[0].strip(),
            "uptime": float(lines[1]),
            "vendor": "FRRouting",
            "model": "Linux",
            "os_version": lines[2].strip(),
            "serial_number": "",
            "interface_list": sorted(x for x in " ".join(lines[3:]).split() if x),
        }

    def get_interfaces(self) -> dict[str, dict[str, Any]]:
        links = json.loads(self._run("ip -j -d link show"))
        speeds = self._exec(
            "for i in /sys/class/net/*; do "
            "printf '%s %s\\n' \"${i##*/}\" \"$(cat $i/speed 2>/dev/null || echo -1)\"; done"
        )[1]
        return parse_ip_link(links, speeds)

    def get_bgp_neighbors(self) -> dict[str, dict[str, Any]]:
        return parse_bgp_neighbors(json.loads(self._run("vtysh -c 'show bgp vrf all neighbors json'") or "{}"))

    def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
        return parse_lldpcli_json0(json.loads(self._run("lldpcli -f json0 show neighbors") or "{}"))

    full_route_table = True
    """:meth:`get_route_to` with ``destination=""`` returns every BGP route (the drain check reads them all)."""

    def get_route_to(self, destination: str = "", protocol: str = "", longer: bool = False) -> dict[str, list[Any]]:
        """BGP routes of the default VRF (``vtysh -c 'show ip bgp json'``) in the shape of NAPALM's
        ``get_route_to``: every prefix when ``destination`` is empty, else the prefix ``destination`` (and every
        longer one with ``longer``). Only BGP is read: another ``protocol`` raises NotImplementedError. See
        :func:`parse_show_ip_bgp` for the fields.

        Example::

            {
                "10.0.0.2/32": [
                    {
                        "protocol": "BGP",
                        "current_active": True,
                        "last_active": False,
                        "age": -1,
                        "next_hop": "10.128.6.16",
                        "outgoing_interface": "",
                        "selected_next_hop": True,
                        "preference": 20,
                        "inactive_reason": "",
                        "routing_table": "default",
                        "protocol_attributes": {
                            "local_as": 4200100001,
                            "remote_as": 4200000100,
                            "peer_id": "10.128.6.16",
                            "as_path": "4200000100 4200100002",
                            "communities": [],
                            "local_preference": 100,
                            "metric": 0,
                        },
                    },
                ]
            }
        """
        return bgp_routes(self._run, self.platform, destination, protocol, longer)


def bgp_routes(run: Callable[[str], str], platform: str, destination: str, protocol: str,
               longer: bool) -> dict[str, list[Any]]:
    """:meth:`FrrDriver.get_route_to` over ``run`` (a command runner): FRR's and SONiC's drivers share it."""
    if protocol.lower() not in ("", "bgp"):
        raise NotImplementedError(f"get_route_to: only BGP routes are read on {platform}, not {protocol}")
    routes = parse_show_ip_bgp(json.loads(run("vtysh -c 'show ip bgp json'") or "{}"))
    return select_routes(routes, destination, longer)


# ---------------------------------------------------------------------- parsers (pure; shared with sonic)


VIRTUAL_KINDS = frozenset({"veth", "bridge", "dummy", "vxlan", "vrf", "tun", "macvlan", "ipvlan"})


def parse_ip_link(links: list[dict[str, Any]], speeds: str) -> dict[str, dict[str, Any]]:
    """``ip -j -d link show`` plus ``name speed`` lines → NAPALM interfaces; speed −1.0 where none is reported
    or the interface is virtual (a veth says 10000 whatever it carries)."""
    speed_of: dict[str, float] = {}
    for line in speeds.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                speed_of[parts[0]] = float(parts[1])
            except ValueError:
                speed_of[parts[0]] = -1.0
    out: dict[str, dict[str, Any]] = {}
    for link in links:
        name = link["ifname"]
        flags = link.get("flags", [])
        # veth, bridge, dummy, …: the kernel reports a nominal speed (10G for veth) that means nothing
        virtual = (link.get("linkinfo") or {}).get("info_kind") in VIRTUAL_KINDS or link.get("link_type") == "loopback"
        out[name] = {
            "is_up": link.get("operstate") in ("UP", "UNKNOWN") and "LOWER_UP" in flags,
            "is_enabled": "UP" in flags,
            "description": link.get("ifalias", ""),
            "last_flapped": -1.0,
            "speed": -1.0 if virtual or speed_of.get(name, -1.0) <= 0 else speed_of[name],
            "mtu": int(link.get("mtu", 0)),
            "mac_address": str(link.get("address", "")).upper(),
        }
    return out


def parse_bgp_neighbors(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``show bgp vrf all neighbors json`` (FRR 8.x) → NAPALM's get_bgp_neighbors shape."""
    out: dict[str, dict[str, Any]] = {}
    for vrf, body in data.items():
        if not isinstance(body, dict):
            continue
        peers: dict[str, Any] = {}
        router_id = ""
        for key, nbr in body.items():
            if not isinstance(nbr, dict) or "remoteAs" not in nbr:
                continue
            router_id = router_id or str(nbr.get("localRouterId", ""))
            families: dict[str, dict[str, int]] = {}
            for af, info in (nbr.get("addressFamilyInfo") or {}).items():
                name = {"ipv4Unicast": "ipv4", "ipv6Unicast": "ipv6"}.get(af, af)
                families[name] = {
                    "received_prefixes": int(info.get("acceptedPrefixCounter", 0)),
                    "accepted_prefixes": int(info.get("acceptedPrefixCounter", 0)),
                    "sent_prefixes": int(info.get("sentPrefixCounter", 0)),
                }
            up = nbr.get("bgpState") == "Established"
            peers[key] = {
                "local_as": int(nbr.get("localAs", 0)),
                "remote_as": int(nbr["remoteAs"]),
                "remote_id": str(nbr.get("remoteRouterId", "")),
                "is_up": up,
                "is_enabled": str(nbr.get("adminShutDown", "")).lower() != "true",
                "description": str(nbr.get("nbrDesc", "")),
                "uptime": int(nbr.get("bgpTimerUpMsec", 0)) // 1000 if up else -1,
                "address_family": families,
            }
        out["global" if vrf == "default" else vrf] = {"router_id": router_id, "peers": peers}
    return out


def parse_lldpcli_json0(data: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    """``lldpcli -f json0 show neighbors`` → {local port: [{hostname, port}]}.

    The remote port is the port *ID* when its subtype is an interface name (or local), else the port
    description: some NOSes send a MAC as port ID and the name only as description (napalm#771).
    """
    out: dict[str, list[dict[str, str]]] = {}
    for lldp in data.get("lldp", []):
        for iface in lldp.get("interface", []):
            hostname = ""
            for chassis in iface.get("chassis", []):
                for n in chassis.get("name", []):
                    hostname = n.get("value", hostname)
            port = ""
            for p in iface.get("port", []):
                ids = p.get("id", [{}])
                descr = (p.get("descr") or [{}])[0].get("value", "")
                pid = ids[0] if ids else {}
                by_name = pid.get("type") in ("ifname", "local")
                port = pid.get("value", "") if by_name else (descr or pid.get("value", ""))
            out.setdefault(iface["name"], []).append({"hostname": hostname, "port": port})
    return out


BGP_DISTANCE = {"external": 20, "internal": 200, "local": 200}
"""FRR's default administrative distances for BGP routes (FRR User Guide, "BGP" > "Administrative Distance
Metrics": ``distance bgp 20 200 200``, external / internal / local); ``show ip bgp json`` does not print them."""


def _path_from(path: dict[str, Any]) -> str:
    kind = str(path.get("pathFrom", "external"))
    return kind if kind in BGP_DISTANCE else "external"


def _bgp_path(path: dict[str, Any], local_as: int, default_locpref: int, table: str) -> dict[str, Any]:
    """One path of ``show ip bgp json`` as one entry of NAPALM's get_route_to."""
    peer = str(path.get("peerId", ""))
    local = peer in ("", "(unspec)")
    nexthops = [nh for nh in path.get("nexthops") or [] if isinstance(nh, dict)]
    used = next((nh for nh in nexthops if nh.get("used")), nexthops[0] if nexthops else {})
    hop = "" if local else str(used.get("ip", ""))
    as_path = str(path.get("path", ""))
    first = as_path.split()[0] if as_path.split() else ""
    best = bool(path.get("bestpath"))
    valid = bool(path.get("valid"))
    return {
        "protocol": "BGP",
        "current_active": best,
        "last_active": False,
        "age": -1,
        "next_hop": "" if hop == "0.0.0.0" else hop,
        "outgoing_interface": str(used.get("interface", "")),
        "selected_next_hop": valid and (best or bool(path.get("multipath"))),
        "preference": BGP_DISTANCE["local" if local else _path_from(path)],
        "inactive_reason": "" if valid else "invalid",
        "routing_table": table,
        "protocol_attributes": {
            "local_as": local_as,
            "remote_as": int(first) if first.isdigit() else local_as,
            "peer_id": "" if local else peer,
            "as_path": as_path,
            "communities": [],
            "local_preference": int(path.get("locPrf", default_locpref)),
            "metric": int(path.get("metric", 0)),
        },
    }


def parse_show_ip_bgp(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``show ip bgp json`` (FRR 8.x) → NAPALM's get_route_to shape: prefix → one entry per path.

    ``current_active`` is FRR's best path; ``selected_next_hop`` is true for every valid path zebra is given (the
    best and its equal-cost multipaths); a locally originated path has ``next_hop`` and ``peer_id`` empty and
    ``remote_as`` the local AS; ``local_preference`` is the path's (``locPrf``) or the table's default
    (``defaultLocPrf``); ``preference`` is the administrative distance (:data:`BGP_DISTANCE`). This output
    carries no communities (``communities`` is empty) and no age (``age`` is -1).

    >>> doc = {"localAS": 65001, "defaultLocPrf": 100, "vrfName": "default", "routes": {"10.0.0.2/32": [
    ...     {"valid": True, "bestpath": True, "pathFrom": "external", "peerId": "10.1.0.0", "path": "65000 65002",
    ...      "locPrf": 0, "nexthops": [{"ip": "10.1.0.0", "used": True}]}]}}
    >>> r = parse_show_ip_bgp(doc)["10.0.0.2/32"][0]
    >>> r["next_hop"], r["selected_next_hop"], r["protocol_attributes"]["local_preference"], r["preference"]
    ('10.1.0.0', True, 0, 20)
    """
    if not isinstance(data, dict):
        raise ValueError(f"show ip bgp json: expected an object, got {type(data).__name__}")
    local_as = int(data.get("localAS", 0) or 0)
    default_locpref = int(data.get("defaultLocPrf", 100) or 100)
    table = str(data.get("vrfName", "default"))
    out: dict[str, list[dict[str, Any]]] = {}
    for prefix, paths in (data.get("routes") or {}).items():
        if isinstance(paths, list):
            out[prefix] = [_bgp_path(p, local_as, default_locpref, table) for p in paths if isinstance(p, dict)]
    return out


def select_routes(routes: dict[str, list[Any]], destination: str, longer: bool) -> dict[str, list[Any]]:
    """The routes of ``destination`` (a prefix or an address: the prefixes that contain it), every longer prefix
    too with ``longer``; all of them when ``destination`` is empty.

    >>> r = {"10.0.0.0/24": [1], "10.0.0.2/32": [2], "10.0.1.1/32": [3]}
    >>> select_routes(r, "10.0.0.2", False), select_routes(r, "10.0.0.0/24", True)
    ({'10.0.0.0/24': [1], '10.0.0.2/32': [2]}, {'10.0.0.0/24': [1], '10.0.0.2/32': [2]})
    """
    if not destination:
        return dict(routes)
    import ipaddress

    want = ipaddress.IPv4Network(destination, strict=False)
    bare = "/" not in destination
    out = {}
    for prefix, paths in routes.items():
        net = ipaddress.IPv4Network(prefix, strict=False)
        if net == want or (bare and want.subnet_of(net)) or (longer and net.subnet_of(want)):
            out[prefix] = paths
    return out
