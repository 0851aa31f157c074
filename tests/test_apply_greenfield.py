"""A rollout that starts from factory state: spines first, leaves still called ``localhost``, on simulated devices.

Every switch of the lab inventory is its own simulated device behind the real driver (NAPALM's EOSDriver and
JunOSDriver, fabricgen's SonicDriver and NvueDriver; :mod:`tests.simdevice`). Each device's LLDP neighbours are
what the cabling puts on its ports, each advertising the name it has now: a leaf advertises ``localhost`` until its
own configuration (which sets its hostname) is committed. The leaves are identified by their LLDP neighbours
before anything is loaded; the canary spine's post-commit LLDP check then sees ``localhost`` on every leaf port —
accepted, because the rollout identified that leaf there and has not configured it yet — and the rollout goes on
to configure every leaf. A neighbour that calls itself another switch of the fabric stays a failure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fabricgen.deploy import apply as apply_mod
from fabricgen.deploy.apply import ApplyOptions, apply
from fabricgen.deploy.credentials import Credentials
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.normalize import compare
from fabricgen.deploy.secrets import secret_values
from fabricgen.deploy.targets import Targets
from fabricgen.deploy.transport import Target
from fabricgen.deploy.verify import PeerNames, check_lldp, expected_sessions
from fabricgen.topology.model import Fabric
from tests.simdevice import EosSim, JunosSim, NvueSim, SimDevice, SonicSim
from tests.test_deploy_roundtrip import ENVIRON, PASSWORD, _aliases, _fabric, _initial_running, _mgmt_ip

FACTORY = "localhost"


def _named(platform: str, running: str, name: str) -> bool:
    """Whether the running configuration sets ``name`` as the hostname (what the device's LLDP agent then
    advertises as its system name)."""
    if platform == "sonic":
        meta = json.loads(running)["config_db.json"].get("DEVICE_METADATA", {}).get("localhost", {})
        return bool(meta.get("hostname") == name)
    if platform == "junos":
        return f"host-name {name};" in running
    if platform == "nvue":
        return f"hostname: {name}" in running
    return re.search(rf"^hostname {re.escape(name)}$", running, re.MULTILINE) is not None


@dataclass
class FieldDevice(SimDevice):
    """A switch of a simulated fabric: its LLDP neighbours advertise the names they have now."""

    name: str = ""
    world: dict[str, FieldDevice] = field(default_factory=dict)
    ports: dict[str, tuple[str, str]] = field(default_factory=dict)  # port → (peer device, port ID it advertises)

    def advertised(self) -> str:
        return self.name if _named(self.platform, self.running, self.name) else self.hostname

    def neighbours(self) -> dict[str, tuple[str, str]]:
        return {port: (self.world[peer].advertised(), pid) for port, (peer, pid) in self.ports.items()
                if port in self.cabled}


def _world(platform: str, fabric: Fabric, factory_leaves: bool) -> tuple[dict[str, FieldDevice], Targets, Any]:
    aliases = _aliases(platform)
    world: dict[str, FieldDevice] = {}
    switches = list(fabric.switches)
    for n in switches:
        address = _mgmt_ip(fabric, n, platform)
        running = _initial_running(platform, address).replace("leaf1", n)
        host = FACTORY if factory_leaves and n.startswith("leaf") else n
        if host != n:
            running = running.replace(n, host)
        sw = fabric.switches[n]
        dev = FieldDevice(platform, host, running, name=n, world=world)
        dev.startup = running
        dev.peers = {a: asn for a, (_, asn) in expected_sessions(fabric, n, set(switches)).items()}
        dev.cabled = {p.name for p in sw.ports if p.peer_device}
        dev.ports = {p.name: (p.peer_device, aliases.get((p.peer_device, p.peer_port), p.peer_port))
                     for p in sw.ports if p.peer_device in fabric.switches}
        world[n] = dev
    targets = Targets({n: Target(n, platform, _mgmt_ip(fabric, n, platform)) for n in switches},
                      Credentials("admin", PASSWORD), "simulated")
    sims: dict[str, Any] = {}
    for n, dev in world.items():
        sims[n] = {"eos": EosSim, "junos": JunosSim, "sonic": SonicSim, "nvue": NvueSim}[platform](dev)

    def make(target: Target, creds: Credentials, **_: Any) -> Any:
        sim = sims[target.name]
        if platform == "eos":
            from napalm.eos.eos import EOSDriver

            d = EOSDriver(target.host, creds.username, creds.password, optional_args={"transport": sim.transport()})
            d.config_session = "fabricgen_1"
            return d
        if platform == "junos":
            from jnpr.junos.utils.config import Config  # type: ignore[import-untyped]

            from fabricgen.deploy.drivers.junos import JunosDriver

            j = JunosDriver(target.host, creds.username, creds.password)

            def opened() -> None:  # what Device.open leaves behind, minus the NETCONF socket
                from types import SimpleNamespace

                from jnpr.junos import jxml as JXML  # type: ignore[import-untyped]
                from ncclient.devices.junos import JunosDeviceHandler

                j.device._conn = SimpleNamespace(_device_handler=JunosDeviceHandler({"name": "junos"}),
                                                 connected=True, timeout=30, close_session=lambda: None)
                j.device.connected = True
                j.device._nc_transform = j.device.transform
                j.device._norm_transform = lambda: JXML.normalize_xslt.encode("UTF-8")
                j.device.bind(cu=Config)

            j.open = opened
            j.device._rpc_reply = sim
            return j
        from fabricgen.deploy.drivers.nvue import NvueDriver
        from fabricgen.deploy.drivers.sonic import SonicDriver

        s = (SonicDriver if platform == "sonic" else NvueDriver)(
            target.host, creds.username, creds.password, optional_args={"known_hosts": "/dev/null"})
        s.open = lambda: None
        s._exec, s._put = sim.exec, sim.put
        return s

    return world, targets, make


@pytest.mark.parametrize("platform", ["eos", "junos", "nvue", "sonic"])
def test_a_spines_first_rollout_from_factory_state_passes_its_canary_and_configures_the_leaves(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fabric, _ = _fabric(platform)
    configs = intended_configs(fabric)
    world, targets, make = _world(platform, fabric, factory_leaves=True)
    assert {d.advertised() for n, d in world.items() if n.startswith("leaf")} == {FACTORY}
    # the simulated sessions report a fixed uptime: the hold-time proof of a session older than the commit is
    # not what this rollout is about (tests/test_deploy_roundtrip.py covers it)
    monkeypatch.setattr(apply_mod, "hold_time", lambda platform: 0.0)
    lldp_seen: list[tuple[str, list[str]]] = []
    real = apply_mod._verify_after_commit

    def spy(fab: Fabric, device: str, *args: Any, **kw: Any) -> list[str]:
        lldp_seen.append((device, sorted({h for p in world[device].neighbours().values() for h in p[:1]})))
        problems: list[str] = real(fab, device, *args, **kw)
        return problems

    monkeypatch.setattr(apply_mod, "_verify_after_commit", spy)
    opts = ApplyOptions(revert_in=120, settle=0, workers=1, canary=1, wave_size=1,
                        secrets=secret_values(configs, ENVIRON))
    report = apply(fabric, configs, targets, opts, tmp_path, make_driver=make)
    assert report.waves[:2] == [["spine1"], ["spine2"]]  # spines first, the canary alone
    assert report.by_status() == {"applied": list(apply_mod.order_devices(fabric, list(configs)))}, {
        n: o.message for n, o in report.outcomes.items()}
    # the canary's check did see the leaves by their factory name, and passed
    assert lldp_seen[0] == ("spine1", [FACTORY])
    for leaf in ("leaf1", "leaf2", "leaf3", "leaf4"):
        assert report.outcomes[leaf].message.startswith(
            f"identified as {leaf} although it calls itself {FACTORY}: its LLDP neighbours place it as {leaf}")
    for n, dev in world.items():
        assert not compare(platform, configs[n], dev.running).drifted, n
        assert not dev.pending and dev.advertised() == n


def test_the_lldp_check_accepts_a_peer_by_this_rollouts_evidence_and_never_another_switchs_name() -> None:
    fabric, _ = _fabric("eos")
    port = next(p for p in fabric.switches["spine1"].ports if p.peer_device == "leaf4")
    scope = set(fabric.switches)

    def seen(host: str, peers: PeerNames | None) -> tuple[bool, str]:
        lldp = {port.name: [{"hostname": host, "port": port.peer_port}]}
        (check,) = [c for c in check_lldp(fabric, "spine1", scope, lldp, None, peers)
                    if c.subject.startswith(f"{port.name} ")]
        return check.ok, check.detail

    assert seen("leaf4", None) == (True, "")
    assert seen(FACTORY, None) == (False, f"sees {FACTORY}:{port.peer_port}")  # without the rollout's knowledge
    unreached = PeerNames({}, frozenset({"leaf4"}))
    assert seen(FACTORY, unreached) == (True, f"leaf4 is not configured yet: {FACTORY} names no switch of the fabric")
    assert seen("", unreached)[0]  # no system name at all: unknown, not another switch
    assert seen("leaf3", unreached) == (False, f"sees leaf3:{port.peer_port}")  # another switch of the fabric
    assert seen("spine2", unreached)[0] is False
    # configured already (not unreached): a factory name is a failure — unless it is the name leaf4 answered with
    assert seen(FACTORY, PeerNames({}, frozenset()))[0] is False
    assert seen("sonic", PeerNames({"leaf4": frozenset({"sonic"})}, frozenset())) == (
        True, "leaf4 identified in this rollout, calling itself sonic")
    # the right name on the wrong port is still the wrong port
    lldp = {port.name: [{"hostname": FACTORY, "port": "Ethernet99/1"}]}
    assert not next(c for c in check_lldp(fabric, "spine1", scope, lldp, None, unreached)
                    if c.subject.startswith(f"{port.name} ")).ok
