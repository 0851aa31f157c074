"""A stateful simulated switch for each vendor platform, at the lowest I/O layer the drivers use.

The real driver code runs on top of it: NAPALM's ``EOSDriver`` (through a pyeapi connection whose ``execute``
is answered here), NAPALM's ``NXOSSSHDriver`` (netmiko's connection object and ``file_transfer``),
fabricgen's ``JunosDriver`` = NAPALM's ``JunOSDriver`` (PyEZ's ``Device._rpc_reply``), and fabricgen's own
``SonicDriver`` / ``NvueDriver`` (their ``_exec`` SSH exec channel and ``_put`` SFTP upload).

:class:`SimDevice` is the device: a running configuration, the one a commit replaced (restored when a commit
timer expires unconfirmed), a startup configuration, and a clock that only :meth:`SimDevice.tick` moves (no
sleeps). ``lose_session_after`` names a command (prefix) that takes effect on the device and then drops the
connection for good: every later call raises ``ConnectionResetError``. Each adapter stores the configuration
in the form the vendor returns it and answers the commands its driver sends with the vendor's documented
output shapes (the recorded files under ``tests/data/deploy``), including the read of the switch's own chassis
ID (:mod:`fabricgen.deploy.identity`); ``chassis_mac=""`` plays a switch whose LLDP agent does not answer.
``kill`` plays an apply killed with SIGKILL just before or just after a command: from then on the device receives
nothing more from that process (no close, no abort); :meth:`SimDevice.revive` lets the next process in.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabricgen.deploy.normalize import frr_paths, junos_set_lines

DATA = Path(__file__).parent / "data" / "deploy"

CANARY_HASH = "$6$CANARYsalt$CANARYhashCANARYhashCANARYhashCANARYhash"
CANARY_COMMUNITY = "CANARYCOMMUNITY"


@dataclass
class SimDevice:
    """Vendor-neutral state of one switch; adapters keep ``running`` in the vendor's own text form."""

    platform: str
    hostname: str
    running: str
    startup: str | None = ""  # None: no startup configuration at all (a factory-fresh or ZTP-cancelled switch)
    previous: str | None = None  # the configuration a pending commit replaced
    deadline: float | None = None  # when the pending commit reverts, on this device's clock
    clock: float = 1000.0  # seconds since boot (EOS reports commit timers against uptime)
    commit_at: float = 0.0
    lose_session_after: str | None = None
    # the apply is killed (SIGKILL) at a command: (regex that arms the kill once a command matched it, or None;
    # "before" | "after"; regex of the command) — see receive()
    kill: tuple[str | None, str, str] | None = None
    kill_ready: bool = False
    kill_next: bool = False
    dead: bool = False
    sent: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    peers: dict[str, int] = field(default_factory=dict)  # as the cabling says: peer address → the peer's ASN
    cabled: set[str] = field(default_factory=set)  # ports with a cable (link up when enabled)
    lldp: dict[str, tuple[str, str]] = field(default_factory=dict)  # port → (peer host, port ID it advertises)
    chassis_mac: str = "00:1c:73:a0:fc:18"  # the chassis ID its LLDP agent advertises ("": LLDP agent not running)
    bfdd: bool = True  # SONiC: FRR's bfdd runs in the bgp container (community SONiC's default mode has none)

    def neighbours(self) -> dict[str, tuple[str, str]]:
        """LLDP neighbours heard: on cabled ports only."""
        return {port: peer for port, peer in self.lldp.items() if port in self.cabled}

    def established(self, address: str, remote_as: int) -> bool:
        """A configured session comes up when it points at a cabled peer with that peer's ASN (the peers run
        their intended configuration)."""
        return self.peers.get(address) == remote_as

    def receive(self, command: str) -> None:
        if self.kill is not None and not self.dead:
            arm, when, pattern = self.kill
            ready = self.kill_ready or arm is None
            if self.kill_next or (ready and when == "before" and re.search(pattern, command)):
                self.dead = True  # a killed process sends nothing more: not this command, no close, no abort
        if self.dead:
            raise ConnectionResetError(f"{self.hostname}: connection reset by peer")
        self.sent.append(command)
        if self.kill is not None:
            arm, when, pattern = self.kill
            if (self.kill_ready or arm is None) and when == "after" and re.search(pattern, command):
                self.kill_next = True  # this command is the last the device receives
            if arm is not None and re.search(arm, command):
                self.kill_ready = True

    def revive(self) -> None:
        """The next process's session: the device answers again (what the killed one left is all that stays)."""
        self.dead, self.kill, self.kill_ready, self.kill_next, self.lose_session_after = False, None, False, False, None

    def after(self, command: str) -> None:
        """The command took effect; drop the session now if this is the one to lose it at."""
        if self.lose_session_after and command.startswith(self.lose_session_after):
            self.dead = True
            raise ConnectionResetError(f"{self.hostname}: connection reset by peer")

    # ----------------------------------------------------------------------------------------- commits
    def commit(self, new: str, revert_in: int | None) -> None:
        self.previous = self.running
        self.running = new
        self.commit_at = self.clock
        self.deadline = self.clock + revert_in if revert_in else None
        if not revert_in:
            self.previous = None

    @property
    def pending(self) -> bool:
        return self.deadline is not None

    def confirm(self) -> None:
        self.previous, self.deadline = None, None

    def abort(self) -> None:
        if self.previous is not None:
            self.running = self.previous
        self.previous, self.deadline = None, None

    def tick(self, seconds: float) -> None:
        """Let ``seconds`` pass: an unconfirmed commit whose timer expires is reverted by the device."""
        self.clock += seconds
        if self.deadline is not None and self.clock >= self.deadline:
            self.abort()


# ================================================================================================ EOS

EOS_BLOCKS = ("interface ", "router ", "qos profile ", "policy-map ", "class-map ", "management ", "route-map ",
              "ip access-list ", "vrf instance ", "peer-filter ")
EOS_GLOBAL = ("hostname ", "service ", "ip routing", "ip load-sharing", "ip prefix-list", "ip community-list ",
              "ip route ", "lldp ",
              "qos map ", "priority-flow-control pause watchdog default", "priority-flow-control pause watchdog action",
              "username ", "snmp-server ", "ntp ", "logging ", "spanning-tree ", "platform ", "aaa ", "banner ")
EOS_CHILDREN = {  # child mode opener → the commands that stay in it (EOS falls back to the parent mode otherwise)
    "tx-queue ": ("no priority", "priority", "bandwidth", "random-detect", "shape", "no random-detect"),
    "class ": ("set ", "bandwidth", "police", "priority", "shape", "random-detect"),
    "address-family ": ("neighbor ", "network ", "maximum-paths", "redistribute", "bgp ", "no neighbor"),
    "vrf ": ("no shutdown", "shutdown"),  # management api http-commands → vrf MGMT
}


def eos_indent(lines: list[str]) -> str:
    """The flat commands of a configure session (NAPALM strips indentation) → EOS's indented running config,
    by EOS's mode rules: a block opener enters its mode, a global command leaves every mode, a child mode
    (``tx-queue``, ``class``, ``address-family``) keeps only the commands it knows."""
    out: list[str] = []
    block, child = False, None
    banner = False  # banner login/motd: the text lines up to EOF are kept as they are
    for raw in lines:
        line = raw.strip()
        if banner:
            banner = line != "EOF"
            out.append(raw)
            continue
        if line.startswith(("banner login", "banner motd")):
            banner, block, child = True, False, None
            out.append(line)
            continue
        if not line or line == "end":
            block, child = (False, None) if line == "end" else (block, child)
            continue
        if line == "rollback clean-config":  # a session command: the session starts from an empty config
            out, block, child = [], False, None
            continue
        if line.startswith(EOS_BLOCKS) or re.fullmatch(r"ip prefix-list \S+", line):  # the list's mode; the
            block, child = True, None  # one-line form `ip prefix-list NAME seq N ...` is a global command
            out.append(line)
        elif not block or line.startswith(EOS_GLOBAL):
            block, child = False, None
            out.append(line)
        elif (opener := next((k for k in EOS_CHILDREN if line.startswith(k)), None)) is not None:
            child = opener
            out.append("   " + line)
        elif child is not None and line.startswith(EOS_CHILDREN[child]):
            out.append("      " + line)
        else:
            child = None
            out.append("   " + line)
    return "\n".join(out) + "\n"


def eos_bgp(running: str) -> tuple[int, str, dict[str, int]]:
    """(local ASN, router-id, neighbour → remote ASN) of an EOS running config."""
    from fabricgen.deploy.normalize import indent_paths

    asn, rid, nbrs = 0, "", {}
    for p in indent_paths(running):
        if p[0].startswith("router bgp ") and len(p) == 2:
            asn = int(p[0].split()[2])
            words = p[1].split()
            if words[0] == "router-id":
                rid = words[1]
            elif words[0] == "neighbor" and words[2:3] == ["remote-as"]:
                nbrs[words[1]] = int(words[3])
    return asn, rid, nbrs


def eos_interfaces(running: str) -> dict[str, dict[str, Any]]:
    """Interface → mtu, speed (Mbit/s, from ``speed 400g-4``), description, shutdown."""
    from fabricgen.deploy.normalize import indent_paths

    out: dict[str, dict[str, Any]] = {}
    for p in indent_paths(running):
        if not p[0].startswith("interface "):
            continue
        i = out.setdefault(p[0].split()[1], {"mtu": 1500, "speed": 0, "description": "", "shutdown": False})
        if len(p) == 2:
            words = p[1].split()
            if words[0] == "mtu":
                i["mtu"] = int(words[1])
            elif words[0] == "speed" and (m := re.match(r"(\d+)g", words[1])):
                i["speed"] = int(m.group(1)) * 1000
            elif words[0] == "description":
                i["description"] = p[1][len("description "):]
            elif p[1] == "shutdown":
                i["shutdown"] = True
    return out


def eos_sanitized(text: str) -> str:
    """``show running-config sanitized``: EOS replaces secrets and SNMP communities with ``<removed>``."""
    text = re.sub(r"(secret sha512|secret 0|secret 5|secret) \S+", r"\1 <removed>", text)
    return re.sub(r"(snmp-server community) \S+", r"\1 <removed>", text)


def eos_dir_flash(dev: SimDevice) -> str:
    """``dir flash:`` as EOS prints it (``tests/data/deploy/eos/dir_flash.txt``: the ``flash:/`` part of a vEOS-lab
    4.27.3F ``dir all-filesystems`` capture — mode, size, date, name a line), with ``startup-config`` and
    ``zerotouch-config`` only when the device has a startup configuration, and the files copied to flash."""
    lines = (DATA / "eos/dir_flash.txt").read_text().splitlines()
    absent = (" startup-config",) if dev.startup is not None else (" startup-config", " zerotouch-config")
    rows = [x for x in lines if x.startswith("       ") and not x.endswith(absent)]  # factory: neither file
    files = ({"startup-config": dev.startup} if dev.startup is not None else {}) | dev.files
    rows += [f"       -rw-  {len(text):>10}           May 10 09:10  {name}" for name, text in files.items()]
    rows.sort(key=lambda x: x.split()[-1])
    return "\n".join([lines[0], "", *rows, "", lines[-1]]) + "\n"


class EosSim:
    """pyeapi's ``EapiConnection.execute`` answered by a :class:`SimDevice` holding EOS text.

    A switch without a startup configuration (``SimDevice.startup is None``: factory-fresh, or ZTP cancelled —
    EOS boots into ZTP when flash holds neither ``startup-config`` nor ``zerotouch-config``, Arista EOS User
    Manual, Initial Switch Access) lists no ``startup-config`` in ``dir flash:``, and a command that reads the
    startup configuration fails with an eAPI error (Arista's rbeapi client reads an error of ``show
    startup-config`` as "no startup-config": ``Node#get_config`` returns nil). The error text is the sim's own; no
    recorded answer is stored. ``write memory`` creates it, ``delete flash:startup-config`` removes it.
    """

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev
        self.sessions: dict[str, list[str]] = {}
        self.pending_session: str | None = None
        self.current: str | None = None

    def transport(self) -> type:
        from pyeapi.eapilib import EapiConnection

        sim = self

        class SimEapi(EapiConnection):  # type: ignore[misc]
            def __init__(self, *a: Any, **kw: Any) -> None:
                super().__init__()

            def execute(self, commands: list[Any], encoding: str = "json", **kwargs: Any) -> dict[str, Any]:
                return {"jsonrpc": "2.0", "result": [sim.run(c, encoding) for c in commands], "id": "sim"}

        return SimEapi

    def run(self, command: str | dict[str, str], encoding: str) -> Any:
        """One eAPI command: a string, or ``{"cmd": …, "input": …}`` — a multi-line command such as
        ``banner login`` whose text eAPI takes as input (EOS stores it up to the ``EOF`` line)."""
        dev = self.dev
        cmd = command if isinstance(command, str) else command["cmd"]
        if cmd == "enable":
            return {}
        dev.receive(cmd)
        out = self._answer(cmd, encoding)
        if not isinstance(command, str) and "input" in command and self.current is not None:
            self.sessions[self.current] += [*command["input"].splitlines(), "EOF"]
        dev.after(cmd)
        return out

    def _answer(self, cmd: str, encoding: str) -> Any:
        dev = self.dev
        if self.current is not None and cmd != "end":
            self.sessions[self.current].append(cmd)
            return {}
        if cmd == "end":
            self.current = None
            return {}
        if cmd == "show version":
            doc = json.loads((DATA / "eos/show_version.json").read_text())
            doc["uptime"] = dev.clock
            return doc
        if cmd == "show hostname":
            return {"hostname": dev.hostname, "fqdn": dev.hostname}
        if cmd == "show configuration sessions":
            return {"sessions": {s: {"state": "pending" if s == self.pending_session else "completed"}
                                 for s in self.sessions}}
        if cmd == "show configuration sessions detail":
            sessions: dict[str, Any] = {}
            if dev.pending and self.pending_session:
                sessions[self.pending_session] = {"state": "pendingCommitTimer", "commitBy": dev.deadline,
                                                  "commitUser": "admin", "description": "", "instances": {}}
            return {"sessions": sessions, "maxSavedSessions": 1, "maxOpenSessions": 5}
        if cmd in ("show ip bgp summary vrf all", "show ipv6 bgp summary vrf all"):
            _, rid, _ = eos_bgp(dev.running)
            return {"vrfs": {"default": {"routerId": rid, "peers": {}}}} if rid else {"vrfs": {}}
        if cmd == "show ip bgp neighbors vrf all":
            asn, rid, nbrs = eos_bgp(dev.running)
            peers = [{"peerAddress": a, "localAsn": str(asn), "asn": str(r), "routerId": "0.0.0.0",
                      "state": "Established" if dev.established(a, r) else "Active", "idleReason": "",
                      "description": "", "prefixesReceived": 0, "prefixesSent": 0, "v6PrefixesReceived": 0,
                      "v6PrefixesSent": 0, "establishedTime": 10} for a, r in nbrs.items()]
            return {"vrfs": {"default": {"peerList": peers}}} if rid else {"vrfs": {}}
        if cmd == "show lldp local-info":  # chassis ID fields as EOS names them (identity.py: sources)
            if not dev.chassis_mac:
                return {"systemName": dev.hostname}
            dotted = dev.chassis_mac.replace(":", "")
            return {"chassisIdType": "macAddress", "chassisId": ".".join(dotted[i:i + 4] for i in (0, 4, 8)),
                    "systemName": dev.hostname, "localInterfaceInfo": {}}
        if cmd == "show lldp neighbors":
            return {"lldpNeighbors": [{"port": port, "neighborDevice": host, "neighborPort": pid, "ttl": 120}
                                      for port, (host, pid) in dev.neighbours().items()]}
        if cmd == "show ipv6 bgp peers vrf all":
            return {"vrfs": {}}
        if cmd == "show interfaces":
            out = {}
            for name, i in eos_interfaces(dev.running).items():
                up = name in dev.cabled and not i["shutdown"]
                out[name] = {"name": name, "lineProtocolStatus": "up" if up else "down",
                             "interfaceStatus": "disabled" if i["shutdown"] else ("connected" if up else "notconnect"),
                             "description": i["description"], "mtu": i["mtu"], "bandwidth": i["speed"] * 1_000_000,
                             "physicalAddress": "00:1c:73:00:00:01", "hardware": "ethernet"}
            return {"interfaces": out}
        if cmd == "show running-config sanitized":
            return {"output": eos_sanitized(dev.running)}
        if cmd == "show running-config":
            return {"output": dev.running}
        m = re.fullmatch(r"show session-config named (\S+) diffs", cmd)
        if m:
            new = eos_indent(self.sessions.get(m.group(1), []))
            diff = difflib.unified_diff(dev.running.splitlines(), new.splitlines(), "system:/running-config",
                                        f"session:/{m.group(1)}-session-config", lineterm="")
            return {"output": "\n".join(diff)}
        m = re.fullmatch(r"configure session (\S+)(?: (.*))?", cmd)
        if m:
            name, rest = m.group(1), m.group(2)
            if rest is None:
                self.sessions.setdefault(name, [])
                self.current = name
            elif rest.startswith("commit timer "):
                h, mi, s = (int(x) for x in rest.split()[2].split(":"))
                dev.commit(eos_indent(self.sessions[name]), h * 3600 + mi * 60 + s)
                self.pending_session = name
            elif rest == "commit":
                if self.pending_session == name and dev.pending:
                    dev.confirm()
                else:
                    dev.commit(eos_indent(self.sessions[name]), None)
                self.sessions.pop(name, None)
                self.pending_session = None
            elif rest == "abort":
                if self.pending_session == name:
                    dev.abort()
                    self.pending_session = None
                self.sessions.pop(name, None)
            return {"output": ""}
        if cmd == "dir flash:":
            return {"output": eos_dir_flash(dev)}
        if cmd == "write memory":
            dev.startup = dev.running
        elif dev.startup is None and cmd.startswith(
                ("copy startup-config ", "show startup-config", "delete flash:startup-config")):
            raise ValueError("% Error: flash:/startup-config: No such file or directory")
        elif cmd == "delete flash:startup-config":
            dev.startup = None
        elif m := re.fullmatch(r"copy (running|startup)-config flash:(\S+)", cmd):
            dev.files[m.group(2)] = dev.running if m.group(1) == "running" else (dev.startup or "")
        elif m := re.fullmatch(r"copy flash:(\S+) startup-config", cmd):
            dev.startup = dev.files[m.group(1)]
        elif m := re.fullmatch(r"configure replace flash:(\S+)", cmd):
            dev.commit(dev.files[m.group(1)], None)
        return {"output": ""} if encoding == "text" else {}

    def tick(self, seconds: float) -> None:
        self.dev.tick(seconds)
        if not self.dev.pending:
            self.pending_session = None


# ============================================================================================== NX-OS


def nxos_bgp(running: str) -> tuple[int, str, dict[str, int]]:
    """(local ASN, router-id, neighbour → remote ASN) of an NX-OS running config."""
    from fabricgen.deploy.normalize import indent_paths

    asn, rid, nbrs = 0, "", {}
    for p in indent_paths(running):
        if not p[0].startswith("router bgp "):
            continue
        asn = int(p[0].split()[2])
        if len(p) == 2 and p[1].startswith("router-id "):
            rid = p[1].split()[1]
        if len(p) == 3 and p[1].startswith("neighbor ") and p[2].startswith("remote-as "):
            nbrs[p[1].split()[1]] = int(p[2].split()[1])
    return asn, rid, nbrs


def nxos_bgp_summary(dev: SimDevice) -> str:
    """``show bgp all summary vrf all`` in NX-OS's table form (State/PfxRcd: a count when Established)."""
    asn, rid, nbrs = nxos_bgp(dev.running)
    if not rid:
        return ""
    rows = [f"{a:<16}4 {r:>10}     120     118       12    0    0 00:10:00 "
            f"{'9' if dev.established(a, r) else 'Active'}" for a, r in nbrs.items()]
    return "\n".join([
        "BGP summary information for VRF default, address family IPv4 Unicast",
        f"BGP router identifier {rid}, local AS number {asn}",
        f"BGP table version is 12, IPv4 Unicast config peers {len(nbrs)}, capable peers {len(nbrs)}",
        "", "Neighbor        V    AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd", *rows]) + "\n"


def nxos_show_interface(dev: SimDevice) -> str:
    """``show interface`` sections (state, admin state, hardware, description, MTU/BW) from the running config."""
    from fabricgen.deploy.normalize import indent_paths

    ifaces: dict[str, dict[str, Any]] = {}
    for p in indent_paths(dev.running):
        if p[0].startswith("interface ") and not p[0].startswith("interface mgmt"):
            i = ifaces.setdefault(p[0].split()[1], {"mtu": 1500, "speed": 0, "description": "", "shutdown": True})
            if len(p) == 2:
                key, _, value = p[1].partition(" ")
                if key in ("mtu", "speed"):
                    i[key] = int(value)
                elif key == "description":
                    i["description"] = value
                elif p[1] in ("shutdown", "no shutdown"):
                    i["shutdown"] = p[1] == "shutdown"
    out = []
    for name, i in ifaces.items():
        up = name in dev.cabled and not i["shutdown"]
        state = "up" if up else ("down (Administratively down)" if i["shutdown"] else "down (Link not connected)")
        out += [f"{name} is {state}", f"admin state is {'down' if i['shutdown'] else 'up'}, Dedicated Interface",
                "  Hardware: 100000/400000/800000 Ethernet, address: 00fe.c8a1.0001 (bia 00fe.c8a1.0001)",
                f"  Description: {i['description']}",
                f"  MTU {i['mtu']} bytes, BW {i['speed'] * 1000} Kbit , DLY 10 usec"]
    return "\n".join(out) + "\n"


class NxosSim:
    """netmiko's connection object and ``file_transfer`` as NAPALM's nxos_ssh driver uses them."""

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev

    def connect(self, **kwargs: Any) -> NxosSim:
        if self.dev.dead:
            raise ConnectionResetError("Socket is closed")
        return self

    def enable(self) -> str:
        return ""

    def set_base_prompt(self) -> str:
        return self.dev.hostname

    def disconnect(self) -> None:
        pass

    def is_alive(self) -> dict[str, bool]:
        return {"is_alive": not self.dev.dead}

    def send_command(self, command: str, **kwargs: Any) -> str:
        dev = self.dev
        dev.receive(command)
        out = ""
        if command == "show running-config":
            out = f"!Command: show running-config\n!Time: simulated\n\nversion 10.3(4a) Bios:version\n{dev.running}"
        elif command == "show hostname":
            out = dev.hostname
        elif command == "show version":
            out = ("Cisco Nexus Operating System (NX-OS) Software\nSoftware\n"
                   "  NXOS: version 10.3(4a) [Maintenance Release]\n"
                   "Hardware\n  cisco Nexus9000 C9364D-GX2A Chassis\n\n"
                   "Kernel uptime is 0 day(s), 0 hour(s), 16 minute(s), 40 second(s)\n")
        elif command == "show hosts":
            out = "DNS lookup enabled\nDefault domain for vrf:default is example.net\n"
        elif command == "show inventory | json":
            out = json.dumps({"TABLE_inv": {"ROW_inv": [{"name": "Chassis", "serialnum": "FDO26010SIM"}]}})
        elif command == "show sprom backplane 1":  # the chassis base MAC, dash-separated (recorded shape)
            out = (DATA / "nxos/show_sprom_backplane_1.txt").read_text().replace(
                "00-fe-c8-a1-00-00", dev.chassis_mac.replace(":", "-")) if dev.chassis_mac else (
                "                    ^\n% Invalid command at '^' marker.\n")
        elif command == "show interface status":
            out = ("\n--------------------------------------------------------------------------------\n"
                   "Port          Name               Status    Vlan      Duplex  Speed   Type\n"
                   "--------------------------------------------------------------------------------\n"
                   "mgmt0         --                 connected routed    full    1000    --\n")
        elif command == "show bgp all summary vrf all":
            out = nxos_bgp_summary(dev)
        elif command == "show interface":
            out = nxos_show_interface(dev)
        elif command == "show lldp neighbors detail":
            out = "".join(
                f"Chassis id: 00fe.c8a1.0002\nPort id: {pid}\nLocal Port id: {port.replace('Ethernet', 'Eth')}\n"
                f"Port Description: {host}:{pid}\nSystem Name: {host}\n"
                "System Description: Cisco Nexus Operating System (NX-OS) Software 10.3(4a)\n"
                "Time remaining: 105 seconds\nSystem Capabilities: B, R\nEnabled Capabilities: R\n"
                "Management Address: not advertised\nVlan ID: not advertised\n\n"
                for port, (host, pid) in dev.neighbours().items()) + f"Total entries displayed: {len(dev.lldp)}\n"
        else:
            m = re.fullmatch(r"show diff rollback-patch file (\S+) file (\S+)", command)
            if m:
                diff = difflib.unified_diff(dev.files.get(m.group(1), "").splitlines(),
                                            dev.files.get(m.group(2), "").splitlines(), lineterm="")
                out = "#Generating Rollback Patch\n" + "\n".join(d for d in diff if not d.startswith(("---", "+++")))
            elif command.startswith("dir "):
                name = command.split()[1]
                out = (DATA / "nxos/dir_rollback_config.txt").read_text() if name in dev.files else "No such file"
        dev.after(command)
        return out

    def send_multiline(self, commands: list[str], **kwargs: Any) -> str:
        out = ""
        for c in commands:
            self.dev.receive(c)
            m = re.fullmatch(r"checkpoint file (\S+)", c)
            if m:
                self.dev.files[m.group(1)] = self.dev.running
            m = re.fullmatch(r"rollback running-config file (\S+)", c)
            if m:
                self.dev.commit(self.dev.files[m.group(1)], None)
                out = (DATA / "nxos/rollback_ok.txt").read_text()
            m = re.fullmatch(r"delete (\S+)", c)
            if m:
                self.dev.files.pop(m.group(1), None)
            self.dev.after(c)
        return out

    def save_config(self) -> str:
        self.dev.receive("copy running-config startup-config")
        self.dev.startup = self.dev.running
        return "[########################################] 100%\nCopy complete."

    def file_transfer(self, conn: Any, source_file: str, dest_file: str, **kw: Any) -> dict[str, bool]:
        self.dev.receive(f"scp {dest_file}")
        self.dev.files[dest_file] = Path(source_file).read_text()
        return {"file_exists": True, "file_transferred": True, "file_verified": True}


# ============================================================================================== Junos


def junos_curly(set_lines: list[str]) -> str:
    """``set`` lines → curly-brace text as ``show configuration`` prints it: a statement with one child is
    written on one line (``host-name leaf1;``), branching levels open braces. Junos writes some single-child
    levels as braces where this writes them on one line; both read back as the same ``set`` lines."""
    from fabricgen.deploy.normalize import _junos_tokens

    tree: dict[str, Any] = {}
    for line in set_lines:
        if line.startswith("set version "):
            continue  # the device states its own version
        node = tree
        for tok in _junos_tokens(line)[1:]:
            node = node.setdefault(tok, {})

    def word(t: str) -> str:
        return f'"{t}"' if (not t or re.search(r"[\s;{}\[\]#]", t)) else t

    def emit(node: dict[str, Any], depth: int) -> list[str]:
        out = []
        for key, child in node.items():
            words = [word(key)]
            while len(child) == 1 and next(iter(child.values())):
                (k, child), = child.items()
                words.append(word(k))
            if len(child) == 1:
                (k, _), = child.items()
                words.append(word(k))
                child = {}
            pad = "    " * depth
            if not child:
                secret = "  ## SECRET-DATA" if any(w.startswith('"$') for w in words) else ""
                out.append(f"{pad}{' '.join(words)};{secret}")
            else:
                out += [f"{pad}{' '.join(words)} {{", *emit(child, depth + 1), f"{pad}}}"]
        return out

    return "## Last commit: simulated\nversion 23.4R1;\n" + "\n".join(emit(tree, 0)) + "\n"


def junos_bgp(lines: list[str]) -> tuple[int, str, dict[str, int]]:
    """(local ASN, router-id, neighbour → peer ASN) of a Junos configuration's set lines."""
    asn, rid, nbrs = 0, "", {}
    for line in lines:
        w = line.split()
        if w[1:3] == ["routing-options", "autonomous-system"]:
            asn = int(w[3])
        elif w[1:3] == ["routing-options", "router-id"]:
            rid = w[3]
        elif w[1:3] == ["protocols", "bgp"] and "neighbor" in w and w[-2] == "peer-as":
            nbrs[w[w.index("neighbor") + 1]] = int(w[-1])
    return asn, rid, nbrs


def junos_interfaces(lines: list[str]) -> dict[str, dict[str, Any]]:
    """Physical interface → mtu, speed (``800Gbps`` as ``show interfaces`` prints it), description, disable."""
    out: dict[str, dict[str, Any]] = {}
    for line in lines:
        w = line.split(maxsplit=4)
        if len(w) < 4 or w[1] != "interfaces" or w[3] == "unit":
            continue
        i = out.setdefault(w[2], {"mtu": 1514, "speed": "Unspecified", "description": "", "disable": False})
        if w[3] == "mtu":
            i["mtu"] = int(w[4])
        elif w[3] == "speed":
            i["speed"] = w[4].upper().replace("G", "Gbps")
        elif w[3] == "description":
            i["description"] = w[4].strip('"')
        elif w[3] == "disable":
            i["disable"] = True
    return out


class JunosSim:
    """PyEZ's ``Device._rpc_reply``: an RPC element in, the device's ``<rpc-reply>`` out (parsed as ncclient does)."""

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev
        self.candidate: list[str] | None = None
        self.history: list[str] = []  # committed set-line texts, newest last (rollback N)

    def __call__(self, rpc: Any, filter_xml: Any = None, **kwargs: Any) -> Any:
        from ncclient.devices.junos import JunosDeviceHandler
        from ncclient.xml_ import NCElement

        self.dev.receive(rpc.tag)
        text = self.reply(rpc)
        self.dev.after(rpc.tag if rpc.tag != "commit-configuration" or rpc.find("confirmed") is None
                       else "commit-configuration confirmed")
        return NCElement(text, JunosDeviceHandler({"name": "junos"}).transform_reply())._NCElement__doc

    def _lines(self) -> list[str]:
        return junos_set_lines(self.dev.running)

    def reply(self, rpc: Any) -> str:
        from xml.sax.saxutils import escape

        dev, tag = self.dev, rpc.tag
        ns = '<rpc-reply xmlns:junos="http://xml.juniper.net/junos/23.4R0/junos">'
        if tag == "get-configuration":
            if rpc.get("compare") == "rollback":
                cand = self.candidate if self.candidate is not None else self._lines()
                diff = "\n".join(d for d in difflib.unified_diff(self._lines(), cand, lineterm="")
                                 if d.startswith(("+set", "-set")))
                return (f"{ns}<configuration-information><configuration-output>{escape(diff)}"
                        "</configuration-output></configuration-information></rpc-reply>")
            return f"{ns}<configuration-text>{escape(dev.running)}</configuration-text></rpc-reply>"
        if tag == "load-configuration":
            if rpc.get("rollback") is not None:
                n = int(rpc.get("rollback") or 0)
                self.candidate = (self._lines() if n == 0 else
                                  junos_set_lines(self.history[-n]) if len(self.history) >= n else self._lines())
            else:
                body = rpc.findtext("configuration-set") or ""
                lines = self._lines() if self.candidate is None else self.candidate
                for line in body.splitlines():
                    if line.strip() == "delete":
                        lines = []
                    elif line.strip().startswith("set "):
                        lines = [*lines, *junos_set_lines(line)]
                self.candidate = lines
            return f"{ns}<load-configuration-results><ok/></load-configuration-results></rpc-reply>"
        if tag == "commit-configuration":
            if self.candidate is not None and self.candidate != self._lines():
                self.history.append(dev.running)
                minutes = rpc.findtext("confirm-timeout")
                confirmed = rpc.find("confirmed") is not None
                dev.commit(junos_curly(self.candidate), int(minutes or 10) * 60 if confirmed else None)
            elif rpc.find("confirmed") is None and dev.pending:
                dev.confirm()
            self.candidate = None
            return (DATA / "junos/commit_success.xml").read_text()
        if tag == "get-commit-revision-information":
            comment = (f"<comment>commit confirmed, rollback in {int((dev.deadline or 0) - dev.commit_at) // 60}mins"
                       "</comment>") if dev.pending else ""
            return (f'{ns}<commit-revision-information><date-time junos:seconds="{int(dev.commit_at)}">'
                    f"simulated</date-time><revision>re0-{int(dev.commit_at)}-1</revision><user>admin</user>"
                    f"<client>netconf</client>{comment}</commit-revision-information></rpc-reply>")
        if tag == "get-instance-information":
            return (f"{ns}<instance-information><instance-core><instance-name>master</instance-name>"
                    "</instance-core></instance-information></rpc-reply>")
        if tag in ("get-bgp-neighbor-information", "get-bgp-summary-information"):
            asn, rid, nbrs = junos_bgp(self._lines())
            peers = []
            for a, r in nbrs.items():
                up = dev.established(a, r)
                if tag == "get-bgp-summary-information":
                    peers.append(f"<bgp-peer><peer-address>{a}</peer-address>"
                                 f'<elapsed-time junos:seconds="{600 if up else 0}">10:00</elapsed-time></bgp-peer>')
                    continue
                rib = ("<bgp-rib><name>inet.0</name><send-state>in sync</send-state><received-prefix-count>9"
                       "</received-prefix-count><accepted-prefix-count>9</accepted-prefix-count>"
                       "<advertised-prefix-count>9</advertised-prefix-count></bgp-rib>") if up else ""
                peers.append(f"<bgp-peer><peer-address>{a}+179</peer-address><peer-as>{r}</peer-as>"
                             f"<peer-state>{'Established' if up else 'Active'}</peer-state>"
                             f"<peer-fwd-rti>master</peer-fwd-rti><local-as>{asn}</local-as><local-id>{rid}</local-id>"
                             f"<peer-id>0.0.0.0</peer-id>{rib}</bgp-peer>")
            return f"{ns}<bgp-information>{''.join(peers)}</bgp-information></rpc-reply>"
        if tag == "get-lldp-neighbors-information":
            rows = "".join(f"<lldp-neighbor-information><lldp-local-port-id>{port}</lldp-local-port-id>"
                           f"<lldp-local-parent-interface-name>-</lldp-local-parent-interface-name>"
                           f"<lldp-remote-chassis-id>2c:6b:f5:00:00:02</lldp-remote-chassis-id>"
                           f"<lldp-remote-port-id>{pid}</lldp-remote-port-id>"
                           f"<lldp-remote-system-name>{host}</lldp-remote-system-name></lldp-neighbor-information>"
                           for port, (host, pid) in dev.neighbours().items())
            return f"{ns}<lldp-neighbors-information>{rows}</lldp-neighbors-information></rpc-reply>"
        if tag == "get-lldp-local-info":
            if not dev.chassis_mac:  # LLDP not running: the RPC answers with an error
                return (f"{ns}<rpc-error><error-severity>error</error-severity><error-message>LLDP is not running"
                        "</error-message></rpc-error></rpc-reply>")
            return (DATA / "junos/get_lldp_local_info.xml").read_text().replace(
                "2c:6b:f5:3a:10:c0", dev.chassis_mac).replace("<lldp-local-system-name>leaf1",
                                                               f"<lldp-local-system-name>{escape(dev.hostname)}")
        if tag == "get-interface-information":
            rows = []
            for name, i in junos_interfaces(self._lines()).items():
                up = name in dev.cabled and not i["disable"]
                rows.append(f"<physical-interface><name>{name}</name>"
                            f"<admin-status>{'down' if i['disable'] else 'up'}</admin-status>"
                            f"<oper-status>{'up' if up else 'down'}</oper-status>"
                            f"<description>{escape(i['description'])}</description><speed>{i['speed']}</speed>"
                            f"<mtu>{i['mtu']}</mtu><current-physical-address>2c:6b:f5:00:00:01"
                            "</current-physical-address></physical-interface>")
            return f"{ns}<interface-information>{''.join(rows)}</interface-information></rpc-reply>"
        if tag == "get-software-information" or (
                tag == "command" and (rpc.text or "").strip() == "show version invoke-on all-routing-engines"):
            # PyEZ's hostname/model/version facts; a single routing engine answers with its own
            # <software-information> (Junos XML API Explorer, get-software-information)
            return (f"{ns}<software-information><host-name>{escape(dev.hostname)}</host-name>"
                    "<product-model>qfx5220-32cd</product-model><product-name>qfx5220-32cd</product-name>"
                    "<junos-version>23.4R1</junos-version></software-information></rpc-reply>")
        if tag == "get-chassis-inventory":  # PyEZ's serialnumber fact reads chassis/serial-number
            return (f'{ns}<chassis-inventory><chassis junos:style="inventory"><name>Chassis</name>'
                    "<serial-number>WS3719SIM01</serial-number><description>QFX5220-32CD</description>"
                    "</chassis></chassis-inventory></rpc-reply>")
        if tag == "get-system-uptime-information":
            return (f'{ns}<system-uptime-information><current-time><date-time junos:seconds="{int(dev.clock)}">'
                    "simulated</date-time></current-time></system-uptime-information></rpc-reply>")
        return f"{ns}<ok/></rpc-reply>"

    def tick(self, seconds: float) -> None:
        before = self.dev.pending
        self.dev.tick(seconds)
        if before and not self.dev.pending and self.history:
            self.history.pop()


# ====================================================================================== SONiC and NVUE


def lldpcli_chassis(dev: SimDevice) -> tuple[int, str]:
    """``lldpcli -f json0 show chassis`` as lldpd 1.0.16 prints it (tests/data/deploy/lldpd); lldpd not running:
    lldpcli's error and exit status 1."""
    if not dev.chassis_mac:
        return 1, "[WARN/lldpctl] could not connect to socket /run/lldpd.socket\n"
    doc = json.loads((DATA / "lldpd/show_chassis_json0.json").read_text())
    chassis = doc["local-chassis"][0]["chassis"][0]
    chassis["id"][0]["value"], chassis["name"][0]["value"] = dev.chassis_mac, dev.hostname
    return 0, json.dumps(doc, indent=2)


class ShellSim:
    """The SSH exec channel (``_exec``) and SFTP upload (``_put``) of fabricgen's SSH drivers."""

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev
        self.timer_pid: int | None = None

    def put(self, path: str, text: str, mode: int = 0o600) -> None:
        self.dev.receive(f"sftp {path}")
        self.dev.files[path] = text

    def exec(self, command: str, timeout: float | None = None) -> tuple[int, str]:
        self.dev.receive(command)
        out = self.answer(command)
        self.dev.after(command)
        return out

    def answer(self, command: str) -> tuple[int, str]:
        raise NotImplementedError

    def tick(self, seconds: float) -> None:
        self.dev.tick(seconds)


def _sonic_split(bundle: str) -> tuple[dict[str, Any], str]:
    doc = json.loads(bundle)
    return doc["config_db.json"], doc["frr.conf"]


def _reload_test(running: str, candidate: str) -> str:
    """``frr-reload.py --test`` output (Lines To Delete / Lines To Add, each with its context lines)."""
    have, want = frr_paths(running), frr_paths(candidate)

    def block(paths: list[tuple[str, ...]]) -> list[str]:
        return [" " * i + e for p in paths for i, e in enumerate(p)]

    return "\n".join(["Lines To Delete", "===============", *block([p for p in have if p not in want]), "",
                      "Lines To Add", "============", *block([p for p in want if p not in have])]) + "\n"


def frr_neighbors_json(dev: SimDevice, nbrs: dict[str, int]) -> str:
    """``vtysh -c 'show bgp vrf all neighbors json'`` (FRR 8.x) for the configured neighbours."""
    body = {a: {"remoteAs": r, "localAs": 0, "localRouterId": "", "nbrDesc": "",
                "bgpState": "Established" if dev.established(a, r) else "Active", "bgpTimerUpMsec": 10000}
            for a, r in nbrs.items()}
    return json.dumps({"default": {"vrfId": 0, "vrfName": "default", **body}})


def frr_conf_neighbors(text: str) -> dict[str, int]:
    out = {}
    for p in frr_paths(text):
        if p[0].startswith("router bgp ") and len(p) == 2 and re.fullmatch(r"neighbor \S+ remote-as \d+", p[1]):
            out[p[1].split()[1]] = int(p[1].split()[3])
    return out


SONIC_STATUS_COLUMNS = (("Interface", 12), ("Lanes", 40), ("Speed", 8), ("MTU", 6), ("FEC", 5), ("Alias", 8),
                        ("Vlan", 7), ("Oper", 5), ("Admin", 6), ("Type", 8), ("Asym PFC", 9))


def sonic_interfaces_status(dev: SimDevice, db: dict[str, Any]) -> str:
    """``show interfaces status`` from config_db's PORT table (link up where cabled and admin up)."""
    def row(values: list[str]) -> str:
        return " ".join(v.rjust(w) for v, (_, w) in zip(values, SONIC_STATUS_COLUMNS, strict=True))

    lines = [row([c for c, _ in SONIC_STATUS_COLUMNS]), " ".join("-" * w for _, w in SONIC_STATUS_COLUMNS)]
    for name, port in (db.get("PORT") or {}).items():
        admin = port.get("admin_status", "down")
        oper = "up" if admin == "up" and name in dev.cabled else "down"
        speed = f"{int(port.get('speed', '0')) // 1000}G"
        lines.append(row([name, port.get("lanes", ""), speed, port.get("mtu", "9100"), port.get("fec", "N/A"),
                          port.get("alias", ""), "routed", oper, admin, "OSFP", "N/A"]))
    return "\n".join(lines) + "\n"


class SonicSim(ShellSim):
    """SONiC's shell: ``running`` is the bundle of config_db (``show runningconfiguration all``) and frr.conf."""

    def answer(self, command: str) -> tuple[int, str]:
        dev = self.dev
        db, frr = _sonic_split(dev.running)
        wd = "/tmp/fabricgen"
        if command.startswith(("mkdir ", "sudo docker exec bgp vtysh --dryrun")):
            return 0, ""
        if command == "sudo docker exec bgp pgrep -x bfdd":
            return (0, "4711\n") if dev.bfdd else (1, "")
        if command.startswith("sudo install -m 600 "):
            src, dst = command.split()[4:6]
            dev.files[dst] = dev.files[src]
            return 0, ""
        if command == "show runningconfiguration all":
            return 0, json.dumps(db, indent=4)
        if "frr-reload.py --test" in command:
            return 0, _reload_test(frr, dev.files["/etc/sonic/frr/fabricgen-candidate.conf"])
        if command.startswith(f"cat {wd}/pending.json"):
            return (0, dev.files[f"{wd}/pending.json"]) if f"{wd}/pending.json" in dev.files else (1, "")
        if command.startswith("me=$(readlink /proc/self/ns/mnt)"):  # the timer found by its marker (base.py)
            return 0, f"{self.timer_pid}\n" if self.timer_pid and dev.pending else ""
        if command.startswith("tr "):
            pid = int(re.search(r"/proc/(\d+)/", command).group(1))  # type: ignore[union-attr]
            alive = dev.pending and pid == self.timer_pid
            return (0, "sh -c ... fabricgen-revert-timer") if alive else (1, "")
        if command == "sudo config checkpoint fabricgen-rollback":
            dev.files["checkpoint"] = json.dumps(db)
            return 0, "Config Rollbacking: checkpoint fabricgen-rollback created\n"
        if command.startswith("sudo docker exec bgp vtysh -c 'show running-config' | sudo tee "):
            dev.files["/etc/sonic/frr/fabricgen-rollback.conf"] = frr
            return 0, ""
        if command.startswith("sudo config replace "):
            self.new_db = json.loads(dev.files[command.split()[-1]])
            return 0, (DATA / "sonic/config_replace_ok.txt").read_text()
        if "frr-reload.py --reload /etc/frr/fabricgen-candidate.conf" in command:
            new = json.dumps({"config_db.json": self.new_db,
                              "frr.conf": dev.files["/etc/sonic/frr/fabricgen-candidate.conf"]})
            dev.running = new  # both files are live; whether it stays is the timer's business (below)
            return 0, ""
        m = re.search(r"setsid nohup sh -c (.*) fabricgen-revert-timer", command)
        if m:
            seconds = int(re.search(r"sleep (\d+)", shlex.split(m.group(1))[0]).group(1))  # type: ignore[union-attr]
            self.timer_pid = 4242
            dev.previous = json.dumps({"config_db.json": json.loads(dev.files["checkpoint"]),
                                       "frr.conf": dev.files["/etc/sonic/frr/fabricgen-rollback.conf"]})
            dev.commit_at, dev.deadline = dev.clock, dev.clock + seconds
            # the detached sh writes its own record before it sleeps (base.py SSHDriver._timer_script)
            dev.files[f"{wd}/pending.json"] = json.dumps({"pid": 4242, "deadline": dev.deadline,
                                                         "revert_in": seconds})
            return 0, "4242\n"
        if command.startswith("kill -TERM"):
            dev.confirm()
            self.timer_pid = None
            return 0, ""
        if command.startswith("rm -f "):
            for path in shlex.split(command)[2:]:
                dev.files.pop(path, None)
            return 0, ""
        if command.startswith("sudo config rollback fabricgen-rollback"):
            dev.running = json.dumps({"config_db.json": json.loads(dev.files["checkpoint"]),
                                      "frr.conf": dev.files["/etc/sonic/frr/fabricgen-rollback.conf"]})
            # an armed timer is its own process: it stays armed (and will restore the same checkpoint)
            return 0, (DATA / "sonic/config_rollback_ok.txt").read_text()
        if command in ("sudo config save -y", "sudo docker exec bgp vtysh -c 'write memory'"):
            dev.startup = dev.running
            return 0, ""
        if "show running-config" in command:
            return 0, "Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.5.4\n" + frr
        if command == "vtysh -c 'show bgp vrf all neighbors json'":
            return 0, frr_neighbors_json(dev, frr_conf_neighbors(frr))
        if command == "show interfaces status":
            return 0, sonic_interfaces_status(dev, db)
        if command == "show version":
            return 0, (DATA / "sonic/show_version.txt").read_text()
        if command == "show lldp table":
            rows = "".join(f"{port:<13}{host:<16}{pid:<19}BR            {pid}\n"
                           for port, (host, pid) in dev.neighbours().items())
            return 0, ("Capability codes: (R) Router, (B) Bridge, (O) Other\n"
                       "LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr\n"
                       "-----------  --------------  -----------------  ------------  -----------------\n" + rows +
                       f"--------------------------------------------------\nTotal entries displayed:  "
                       f"{len(dev.neighbours())}\n")
        if command == "sudo docker exec lldp lldpcli -f json0 show chassis":
            return lldpcli_chassis(dev)
        if command == "hostname":
            return 0, dev.hostname + "\n"
        return 127, f"sh: simulated SONiC does not know {command.split()[0]}"

    def tick(self, seconds: float) -> None:
        was = self.dev.pending
        super().tick(seconds)
        if was and not self.dev.pending:  # the timer fired: restored, saved (`... && config save -y`), record gone
            self.dev.startup = self.dev.running
        if not self.dev.pending:
            self.dev.files.pop("/tmp/fabricgen/pending.json", None)


class NvueSim(ShellSim):
    """Cumulus Linux's ``nv`` CLI: staged revision, applied revisions, ``--confirm`` timer."""

    def __init__(self, dev: SimDevice) -> None:
        super().__init__(dev)
        self.staged: str | None = None
        self.revisions: list[str] = [dev.running]  # applied revisions; rev id = index + 1

    def answer(self, command: str) -> tuple[int, str]:
        dev = self.dev
        if command.startswith("mkdir "):
            return 0, ""
        m = re.fullmatch(r"nv config replace (\S+)", command)
        if m:
            self.staged = dev.files[m.group(1)]
            return 0, ""
        if command == "nv config diff":
            if self.staged is None:
                return 0, ""
            return 0, "\n".join(d for d in difflib.unified_diff(dev.running.splitlines(), self.staged.splitlines(),
                                                               lineterm="") if not d.startswith(("---", "+++")))
        if command == "nv config detach":
            self.staged = None
            return 0, ""
        m = re.fullmatch(r"nv config apply(?: --confirm (\d+)s)? -y", command)
        if m and self.staged is not None:
            dev.commit(self.staged, int(m.group(1)) if m.group(1) else None)
            self.revisions.append(self.staged)
            self.staged = None
            return 0, f"applied [rev_id: {len(self.revisions)}]\n"
        if command == "nv config apply --confirm-status":
            if dev.pending:
                return 0, f"Confirm-status: {int((dev.deadline or 0) - dev.clock)} seconds remaining\n"
            return 0, (DATA / "nvue/confirm_status_none.txt").read_text()
        if command == "nv config apply --confirm-yes":
            dev.confirm()
            return 0, ""
        if command == "nv config history":
            return 0, "".join(f"- apply-id: '{i}'\n  rev_id: '{i}'\n  state: applied\n  user: admin\n"
                              for i in range(len(self.revisions), 0, -1))
        m = re.fullmatch(r"nv config apply (\d+) -y", command)
        if m:
            text = self.revisions[int(m.group(1)) - 1]
            dev.commit(text, None)
            self.revisions.append(text)
            return 0, ""
        if command == "nv config show -o yaml":
            return 0, "- header:\n    model: SN5600\n    nvue-api-version: nvue_v1\n    rev-id: 1.0\n" + dev.running
        if command == "vtysh -c 'show bgp vrf all neighbors json'":
            return 0, frr_neighbors_json(dev, self._neighbors())
        if command.startswith("hostname; cut -d' ' -f1 /proc/uptime;"):
            return 0, f"{dev.hostname}\n{dev.clock:.2f}\nFRRouting 8.4.3 (leaf1).\n" + "\n".join(sorted(self._links()))
        if command == "lldpcli -f json0 show neighbors":
            return 0, json.dumps({"lldp": [{"interface": [
                {"name": port, "via": "LLDP", "chassis": [{"name": [{"value": host}]}],
                 "port": [{"id": [{"type": "ifname", "value": pid}], "descr": [{"value": pid}]}]}
                for port, (host, pid) in dev.neighbours().items()]}]})
        if command == "ip -j -d link show":
            return 0, json.dumps([
                {"ifname": n, "flags": ["BROADCAST", "UP", *(["LOWER_UP"] if up else [])],
                 "operstate": "UP" if up else "DOWN", "mtu": mtu, "address": "1c:34:da:00:00:01", "linkinfo": {}}
                for n, (mtu, _, up) in self._links().items()])
        if command.startswith("for i in /sys/class/net/*"):
            return 0, "".join(f"{n} {speed}\n" for n, (_, speed, _) in self._links().items())
        if command == "lldpcli -f json0 show chassis":
            return lldpcli_chassis(dev)
        if command == "hostname":
            return 0, dev.hostname + "\n"
        return 127, f"bash: simulated Cumulus does not know {command.split()[0]}"

    def _tree(self) -> dict[str, Any]:
        from fabricgen.deploy.normalize import nvue_tree

        tree: dict[str, Any] = nvue_tree(self.dev.running) or {}
        return tree

    def _neighbors(self) -> dict[str, int]:
        bgp = ((((self._tree().get("vrf") or {}).get("default") or {}).get("router") or {}).get("bgp") or {})
        return {str(a): int(n["remote-as"]) for a, n in (bgp.get("neighbor") or {}).items()
                if isinstance(n, dict) and str(n.get("remote-as", "")).isdigit()}

    def _links(self) -> dict[str, tuple[int, int, bool]]:
        """Interface → (MTU, speed in Mbit/s, link up) of the swp ports the running config sets up."""
        out = {}
        for name, iface in (self._tree().get("interface") or {}).items():
            link = (iface or {}).get("link") or {}
            if "mtu" not in link:
                continue
            m = re.fullmatch(r"(\d+)G", str(link.get("speed", "")))
            up = "up" in (link.get("state") or {}) and name in self.dev.cabled
            out[str(name)] = (int(link["mtu"]), int(m.group(1)) * 1000 if m else -1, up)
        return out

    def tick(self, seconds: float) -> None:
        was = self.dev.pending
        super().tick(seconds)
        if was and not self.dev.pending:
            self.revisions.append(self.dev.running)  # NVUE applies the previous revision again
