"""Bring a lab up, report its status, tear it down — by the names and pids recorded in its state file.

Layout under the run directory (``/run/fabricgen/lab`` unless ``FABRICGEN_LAB_DIR`` says otherwise)::

    <prefix>/state.json          what was created: namespaces, holder pids, saved sysctls, paths
    <prefix>/id_ed25519          the client key (root login on every lab switch)
    <prefix>/known_hosts         every switch's host key, for strict host-key checking
    <prefix>/credentials         username, password and key path (mode 0600)
    <prefix>/sw/<switch>/...     per-switch etc/frr, etc/ssh, etc/lldpd.d, hosts, resolv.conf, passwd, shadow,
                                 group, run, tmp, root, var/log/frr — bind-mounted over the stock paths
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

from fabricgen.lab import machine
from fabricgen.lab.plan import DEFAULT_MGMT_SUBNET, LabError, LabPlan, build_plan, covered_by_route, ns_prefix
from fabricgen.render.platforms import frr_daemons
from fabricgen.topology.model import Fabric

STATE_VERSION = 1
GC_KEYS = tuple(f"net.{v}.neigh.default.gc_thresh{i}" for v in ("ipv4", "ipv6") for i in (1, 2, 3))
GC_RAISED = ("8192", "16384", "32768") * 2
GC_ABOVE = 16  # switches; above this the shared neighbour tables are raised for the lab's lifetime

FRR_DAEMONS = frr_daemons("fabricgen lab: zebra, bgpd, staticd and bfdd; vty on loopback only", bfd=True)

DAEMON_PIDFILES = (("zebra", "run/frr/zebra.pid"), ("bgpd", "run/frr/bgpd.pid"), ("bfdd", "run/frr/bfdd.pid"),
                   ("lldpd", "run/lldpd.pid"), ("sshd", "run/sshd.pid"))
"""Every daemon a lab switch runs, and its pid file under the switch's directory (``fabricgen lab status``)."""

LLDPD_CONF = """\
# fabricgen lab: fabric ports only (not the management port), fast hellos, interface name as port ID
configure system interface pattern *,!eth0,!lo
configure lldp tx-interval 5
configure lldp portidsubtype ifname
"""

SSHD_CONFIG = """\
# fabricgen lab switch {name}
ListenAddress {ip}
Port 22
HostKey /etc/ssh/ssh_host_ed25519_key
PidFile /run/sshd.pid
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication yes
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
PrintMotd no
AcceptEnv LANG LC_*
Subsystem sftp /usr/lib/openssh/sftp-server
MaxStartups 64:30:128
"""

HOLDER = """\
set -e
D={dir}
hostname {name}
for p in etc/frr etc/ssh etc/lldpd.d root tmp var/log/frr; do mount --bind "$D/$p" "/$p"; done
for f in etc/hosts etc/resolv.conf etc/passwd etc/shadow etc/group; do mount --bind "$D/$f" "/$f"; done
mount --bind "$D/run" /run  # last: $D itself lives under /run
ip link set lo up
sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 net.ipv4.conf.all.rp_filter=0
/usr/lib/frr/frrinit.sh start >/var/log/frr/frrinit.log 2>&1
lldpd -L /usr/sbin/lldpcli >/var/log/frr/lldpd.log 2>&1
/usr/sbin/sshd -f /etc/ssh/sshd_config -E /var/log/frr/sshd.log
echo $$ > /tmp/.fabricgen-ready
exec sleep infinity
"""


def run_dir() -> Path:
    return Path(os.environ.get("FABRICGEN_LAB_DIR", "/run/fabricgen/lab"))


def lab_dir(fabric_name: str) -> Path:
    return run_dir() / ns_prefix(fabric_name)


@dataclass
class LabState:
    """Everything a lab consists of; written before each step so a failed ``up`` can still be torn down."""

    fabric: str
    prefix: str
    subnet: str
    client_ip: str
    mgmt_netns: str
    client_netns: str
    switches: dict[str, dict[str, Any]]  # name → {netns, mgmt_ip, dir, holder_pid}
    cables: list[list[str]]
    netns_created: list[str] = field(default_factory=list)
    sysctl_saved: dict[str, str] = field(default_factory=dict)
    status: str = "starting"
    started_at: float = 0.0
    version: int = STATE_VERSION

    @property
    def dir(self) -> Path:
        return run_dir() / self.prefix

    @property
    def key_file(self) -> Path:
        return self.dir / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.dir / "known_hosts"

    @property
    def credentials(self) -> Path:
        return self.dir / "credentials"

    def save(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / "state.json.tmp"
        tmp.write_text(json.dumps(asdict(self), indent=2))
        tmp.replace(self.dir / "state.json")


def load_state(fabric_name: str) -> LabState | None:
    path = lab_dir(fabric_name) / "state.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if data.get("version") != STATE_VERSION:
        raise LabError(f"{path}: state of another fabricgen version; tear it down with that version")
    return LabState(**data)


def _state_from_plan(plan: LabPlan) -> LabState:
    return LabState(
        fabric=plan.fabric,
        prefix=plan.prefix,
        subnet=str(plan.subnet),
        client_ip=plan.client_ip,
        mgmt_netns=plan.mgmt_netns,
        client_netns=plan.client_netns,
        switches={
            s.name: {"netns": s.netns, "mgmt_ip": s.mgmt_ip, "mgmt_if": s.mgmt_if, "holder_pid": None}
            for s in plan.switches
        },
        cables=[[c.a_device, c.a_port, c.b_device, c.b_port] for c in plan.cables],
        started_at=time.time(),
    )


# --------------------------------------------------------------------------------------------------- up


def up(
    fabric: Fabric,
    slice_: str | None = None,
    subnet: IPv4Network = DEFAULT_MGMT_SUBNET,
    timeout: float = 60.0,
) -> LabState:
    """Build the lab; on any failure tear down what was created, then raise LabError."""
    why = machine.missing_prerequisites()
    if why:
        raise LabError("; ".join(why))
    plan = build_plan(fabric, slice_, subnet)
    route = covered_by_route(plan.subnet, machine.routes_v4())
    if route is not None:
        raise LabError(
            f"management subnet {plan.subnet} overlaps route {route} on this machine; choose another with --mgmt-subnet"
        )
    existing = load_state(fabric.name)
    if existing is not None:
        raise LabError(f"a lab of fabric {fabric.name!r} is already recorded; run `fabricgen lab down` first")
    for name in [plan.mgmt_netns, plan.client_netns, *(s.netns for s in plan.switches)]:
        if machine.netns_exists(name):
            raise LabError(f"network namespace {name} exists but no lab state records it; remove it by hand")
    state = _state_from_plan(plan)
    if state.dir.exists():
        shutil.rmtree(state.dir)
    state.save()
    try:
        _build(state, plan, timeout)
    except BaseException:
        down_state(state)
        raise
    state.status = "up"
    state.save()
    return state


def _build(state: LabState, plan: LabPlan, timeout: float) -> None:
    if len(plan.switches) > GC_ABOVE:
        for key in GC_KEYS:
            state.sysctl_saved[key] = machine.sysctl_get(key)
        state.save()
        for key, value in zip(GC_KEYS, GC_RAISED, strict=True):
            if int(machine.sysctl_get(key)) < int(value):
                machine.sysctl_set(key, value)
    for ns in [plan.mgmt_netns, plan.client_netns, *(s.netns for s in plan.switches)]:
        state.netns_created.append(ns)
        state.save()
        machine.run(["ip", "netns", "add", ns])

    # management: a bridge in its own namespace, one veth per switch, the client on the bridge
    prefixlen = plan.subnet.prefixlen
    root_cmds = [f"link add name c0 netns {plan.mgmt_netns} type veth peer name eth0 netns {plan.client_netns}"]
    root_cmds += [
        f"link add name {s.mgmt_if} netns {plan.mgmt_netns} type veth peer name eth0 netns {s.netns}"
        for s in plan.switches
    ]
    for c in plan.cables:
        a, b = plan.switch(c.a_device), plan.switch(c.b_device)
        root_cmds.append(
            f"link add name {c.a_port} netns {a.netns} mtu 9216 type veth peer name {c.b_port} netns {b.netns} mtu 9216"
        )
    machine.ip_batch(root_cmds)
    mgmt_cmds = ["link add br0 type bridge", "link set br0 up", "link set lo up", "link set c0 master br0 up"]
    mgmt_cmds += [f"link set {s.mgmt_if} master br0 up" for s in plan.switches]
    machine.ip_batch(mgmt_cmds, plan.mgmt_netns)
    machine.ip_batch(
        ["link set lo up", f"addr add {plan.client_ip}/{prefixlen} dev eth0", "link set eth0 up"], plan.client_netns
    )
    ports: dict[str, list[str]] = {s.name: [] for s in plan.switches}
    for c in plan.cables:
        ports[c.a_device].append(c.a_port)
        ports[c.b_device].append(c.b_port)
    for s in plan.switches:
        cmds = [f"addr add {s.mgmt_ip}/{prefixlen} dev eth0", "link set eth0 up"]
        cmds += [f"link set {p} up" for p in ports[s.name]]
        machine.ip_batch(cmds, s.netns)

    # client key and lab password
    state.dir.mkdir(parents=True, exist_ok=True)
    pub = machine.keygen(state.key_file, f"fabricgen-lab-{plan.fabric}")
    password = secrets.token_urlsafe(18)
    pw_hash = machine.sha512_crypt(password)
    fd = os.open(state.credentials, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(f"# fabricgen lab {plan.fabric}: root on every switch\n")
        f.write(json.dumps({"username": "root", "password": password, "ssh_key": str(state.key_file)}) + "\n")
    hosts = "127.0.0.1 localhost\n" + "".join(f"{s.mgmt_ip} {s.name}\n" for s in plan.switches)
    known: list[str] = []
    for s in plan.switches:
        d = state.dir / "sw" / s.name
        _switch_files(d, s.name, s.mgmt_ip, pub, pw_hash, hosts)
        host_pub = (d / "etc/ssh/ssh_host_ed25519_key.pub").read_text().split()
        known.append(f"{s.mgmt_ip} {host_pub[0]} {host_pub[1]}")
        state.switches[s.name]["dir"] = str(d)
    state.known_hosts.write_text("\n".join(known) + "\n")
    state.save()

    # start every switch: a holder process in the switch's namespaces starts FRR, lldpd and sshd
    procs: dict[str, subprocess.Popen[bytes]] = {}
    for s in plan.switches:
        d = Path(state.switches[s.name]["dir"])
        log = open(d / "holder.log", "wb")  # noqa: SIM115 - handed to the child
        procs[s.name] = subprocess.Popen(
            ["ip", "netns", "exec", s.netns, "unshare", "--mount", "--uts", "--propagation", "private",
             "bash", "-c", HOLDER.format(dir=str(d), name=s.name)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )
        log.close()
        state.switches[s.name]["holder_pid"] = procs[s.name].pid
    state.save()
    deadline = time.monotonic() + timeout
    pending = set(procs)
    while pending:
        for name in sorted(pending):
            d = Path(state.switches[name]["dir"])
            if (d / "tmp/.fabricgen-ready").exists():
                pending.discard(name)
            elif procs[name].poll() is not None:
                tail = (d / "holder.log").read_text(errors="replace").strip().splitlines()[-3:]
                raise LabError(f"{name}: switch failed to start: {' | '.join(tail) or 'no output'}")
        if pending and time.monotonic() > deadline:
            raise LabError(f"switches not up after {timeout:.0f}s: {', '.join(sorted(pending))}")
        if pending:
            time.sleep(0.05)


def _switch_files(d: Path, name: str, ip: str, client_pub: str, pw_hash: str, hosts: str) -> None:
    for sub in ("etc/frr", "etc/ssh", "etc/lldpd.d", "root/.ssh", "tmp", "run/frr", "run/sshd", "var/log/frr"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(d / "tmp", 0o1777)
    os.chmod(d / "root", 0o700)
    os.chmod(d / "root/.ssh", 0o700)
    os.chmod(d / "run/sshd", 0o755)
    frr = d / "etc/frr"
    (frr / "daemons").write_text(FRR_DAEMONS)
    (frr / "vtysh.conf").write_text("service integrated-vtysh-config\n")
    (frr / "frr.conf").write_text(f"frr defaults datacenter\nhostname {name}\nservice integrated-vtysh-config\n!\n")
    shutil.chown(frr, "frr", "frr")
    for f in frr.iterdir():
        shutil.chown(f, "frr", "frr")
        os.chmod(f, 0o640)
    for sub in ("run/frr", "var/log/frr"):
        shutil.chown(d / sub, "frr", "frr")
    (d / "etc/lldpd.d/fabricgen.conf").write_text(LLDPD_CONF)
    (d / "etc/ssh/sshd_config").write_text(SSHD_CONFIG.format(name=name, ip=ip))
    machine.keygen(d / "etc/ssh/ssh_host_ed25519_key", f"root@{name}")
    (d / "root/.ssh/authorized_keys").write_text(client_pub + "\n")
    os.chmod(d / "root/.ssh/authorized_keys", 0o600)
    (d / "etc/hosts").write_text(hosts)
    (d / "etc/resolv.conf").write_text("# fabricgen lab: no DNS server; names resolve from /etc/hosts only\n")
    for base in ("passwd", "group"):
        shutil.copyfile(f"/etc/{base}", d / "etc" / base)
    shadow = []
    for line in Path("/etc/shadow").read_text().splitlines():
        parts = line.split(":")
        if parts[0] == "root" and len(parts) > 2:
            parts[1] = pw_hash
        shadow.append(":".join(parts))
    fd = os.open(d / "etc/shadow", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "w") as out:
        out.write("\n".join(shadow) + "\n")


# ------------------------------------------------------------------------------------------------- down


def down(fabric_name: str) -> LabState | None:
    """Tear down the recorded lab of this fabric; None when none is recorded."""
    state = load_state(fabric_name)
    if state is None:
        return None
    down_state(state)
    return state


def down_state(state: LabState) -> None:
    """Stop every recorded process, delete every recorded namespace, restore sysctls, remove the run dir."""
    errors: list[str] = []
    for name in reversed(state.netns_created):
        extra = [
            int(s["holder_pid"]) for s in state.switches.values() if s.get("netns") == name and s.get("holder_pid")
        ]
        try:
            machine.kill_in_netns(name, extra)
            if machine.netns_exists(name):
                machine.run(["ip", "netns", "del", name])
        except (LabError, OSError, subprocess.SubprocessError) as exc:
            errors.append(f"{name}: {exc}")
    for key, value in state.sysctl_saved.items():
        try:
            machine.sysctl_set(key, value)
        except OSError as exc:
            errors.append(f"{key}: {exc}")
    if not errors:
        shutil.rmtree(state.dir, ignore_errors=True)
    else:
        state.status = "teardown-failed"
        state.save()
        raise LabError("teardown incomplete: " + "; ".join(errors))


# ----------------------------------------------------------------------------------------------- status


def switch_exec(state: LabState, switch: str, argv: Sequence[str], timeout: float = 30) -> str:
    """Run a command inside a lab switch (its network, mount and UTS namespaces), as an operator at its console."""
    info = state.switches.get(switch)
    if info is None:
        raise LabError(f"{switch} is not part of lab {state.fabric}")
    pid = info.get("holder_pid")
    ident = machine.netns_inode(info["netns"])
    if not pid or ident is None or machine.pid_netns(int(pid)) != ident:
        raise LabError(f"{switch} is not running")
    return machine.run(["nsenter", "--target", str(pid), "--net", "--mount", "--uts", "--", *argv], timeout=timeout)


def status(state: LabState) -> dict[str, Any]:
    """Per switch: namespace present, holder and daemons alive, BGP sessions Established/configured."""
    rows: dict[str, Any] = {}
    for name, info in state.switches.items():
        ident = machine.netns_inode(info["netns"])
        pid = info.get("holder_pid")
        alive = pid is not None and ident is not None and machine.pid_netns(int(pid)) == ident
        row: dict[str, Any] = {"netns": info["netns"], "mgmt_ip": info["mgmt_ip"], "running": alive}
        if alive:
            d = Path(info["dir"])
            daemons = {}
            for daemon, pidfile in DAEMON_PIDFILES:
                try:
                    dpid = int((d / pidfile).read_text().split()[0])
                    daemons[daemon] = machine.pid_netns(dpid) == ident
                except (OSError, ValueError, IndexError):
                    daemons[daemon] = False
            row["daemons"] = daemons
            try:
                summary = json.loads(switch_exec(state, name, ["vtysh", "-c", "show bgp summary json"]) or "{}")
                peers = summary.get("ipv4Unicast", {}).get("peers", {})
                row["bgp"] = {
                    "configured": len(peers),
                    "established": sum(1 for p in peers.values() if p.get("state") == "Established"),
                }
            except (LabError, ValueError):
                row["bgp"] = None
        rows[name] = row
    return {
        "fabric": state.fabric,
        "status": state.status,
        "subnet": state.subnet,
        "client_netns": state.client_netns,
        "switches": rows,
        "cables": len(state.cables),
    }
