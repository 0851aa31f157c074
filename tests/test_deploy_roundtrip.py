"""apply → simulated device → drift, end to end, on every vendor platform (FRR runs for real in the namespace lab).

The lab inventory is retargeted to each platform and leaf1's rendered configuration is pushed by
``fabricgen.deploy.apply`` through the real driver (NAPALM's EOSDriver / NXOSSSHDriver / JunOSDriver,
fabricgen's SonicDriver / NvueDriver) onto a stateful simulated switch (:mod:`tests.simdevice`) that starts with
a running configuration fabricgen does not own, including a password hash and an SNMP community. Then:

1. the apply ends ``applied`` and ``drift`` on the same device is clean;
2. a hand change inside a QoS block on the device is drift tagged ``roce``;
3. a session lost right after the commit-with-timer leaves the documented state (``deploy/commit.py``), and
   the device is back at its old configuration once its timer expires (the clock is driven, never slept);
4. neither a device secret nor the login password appears in the apply report, the drift report (text and
   JSON) or an error message.

The simulator answers the getters that verification reads (BGP neighbours, interfaces, LLDP) from its running
configuration and the inventory's cabling: a configured session is Established when it names a cabled peer's
address and ASN, a cabled port is up, and LLDP hears the peer's host name and port ID (a SONiC peer's alias).
So apply's verification after the commit runs for real, and an unplugged uplink rolls the device back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.deploy import apply as apply_mod
from fabricgen.deploy import runner
from fabricgen.deploy.apply import ApplyOptions, ApplyReport, apply
from fabricgen.deploy.commit import lost_session_note
from fabricgen.deploy.credentials import Credentials
from fabricgen.deploy.drift import drift_device
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.normalize import ConfigDiff
from fabricgen.deploy.secrets import secret_values
from fabricgen.deploy.targets import Targets
from fabricgen.deploy.transport import Target
from fabricgen.deploy.verify import check_bgp, check_interfaces, expected_sessions, sonic_aliases, verify_device
from fabricgen.inventory.load import load_inventory
from fabricgen.render.retarget import retarget
from fabricgen.report.live import drift_lines
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES
from tests.simdevice import (
    CANARY_COMMUNITY,
    CANARY_HASH,
    EosSim,
    JunosSim,
    NvueSim,
    NxosSim,
    SimDevice,
    SonicSim,
    junos_curly,
)

PLATFORMS = ["eos", "nxos", "junos", "sonic", "nvue"]
DEVICE = "leaf1"
ADDRESS = "192.0.2.21"  # leaf1's management address in the lab inventory's base: the session's target
PASSWORD = "CANARYPASSWORD-Zq9"  # the login password: must never be printed
# the environment apply resolves the base section's env:NAME secrets from (deploy/secrets.py): never printed
ENVIRON = {"FABRICGEN_ADMIN_HASH": "$6$CANARYenvsalt$CANARYenvhash", "FABRICGEN_SNMP_RO": "CANARYenvRO"}
REVERT = 120
EOS_SESSION = "fabricgen_1"


# ------------------------------------------------------------------------------------------ inventory side


def _initial_running(platform: str, address: str) -> str:
    """What the switch runs before fabricgen: its management access, a local user with a password hash and an
    SNMP community (now also rendered by the inventory's base, with other values) and, on EOS, a TACACS+ key
    the base does not model — in the vendor's running-config form."""
    if platform == "eos":
        return (f"hostname {DEVICE}\nusername admin privilege 15 role network-admin secret sha512 {CANARY_HASH}\n"
                f"snmp-server community {CANARY_COMMUNITY} ro\ntacacs-server host 192.0.2.90 key 7 {CANARY_HASH}\n"
                f"interface Management1\n   ip address {address}/24\n"
                "management api http-commands\n   no shutdown\n")
    if platform == "nxos":
        return (f"hostname {DEVICE}\nusername admin password 5 {CANARY_HASH} role network-admin\n"
                f"snmp-server community {CANARY_COMMUNITY} group network-operator\n"
                f"interface mgmt0\n  vrf member management\n  ip address {address}/24\n")
    if platform == "junos":
        return junos_curly([
            f"set system host-name {DEVICE}",
            "set system login user admin class super-user",
            f'set system login user admin authentication encrypted-password "{CANARY_HASH}"',
            f"set snmp community {CANARY_COMMUNITY} authorization read-only",
            "set system services netconf ssh",
            f"set interfaces em0 unit 0 family inet address {address}/24",
        ])
    if platform == "sonic":
        return json.dumps({
            "config_db.json": {
                "DEVICE_METADATA": {"localhost": {"hostname": DEVICE, "docker_routing_config_mode": "split"}},
                "MGMT_INTERFACE": {f"eth0|{address}/24": {"gwaddr": "192.0.2.1"}},
                "SNMP_COMMUNITY": {CANARY_COMMUNITY: {"TYPE": "RO"}},
                "TACPLUS": {"global": {"passkey": CANARY_HASH, "timeout": "5"}},
            },
            "frr.conf": f"hostname {DEVICE}\npassword {CANARY_HASH}\n",
        })
    if platform == "nvue":
        return (f"- set:\n    system:\n      hostname: {DEVICE}\n      aaa:\n        user:\n          admin:\n"
                f"            hashed-password: '{CANARY_HASH}'\n    service:\n      snmp-server:\n"
                f"        readonly-community:\n          {CANARY_COMMUNITY}:\n"
                "            access:\n              any: {}\n"
                f"    interface:\n      eth0:\n        ip:\n          address:\n            {address}/24: {{}}\n"
                "        type: eth\n")
    raise ValueError(platform)


def _mgmt_ip(fabric: Fabric, name: str, platform: str) -> str:
    from fabricgen.render.base import build_base

    base = build_base(fabric, name, platform)
    assert base is not None and base.mgmt_ip is not None
    return base.mgmt_ip


@dataclass
class Rig:
    platform: str
    fabric: Fabric
    intended: str
    dev: SimDevice
    sim: Any
    make_driver: Callable[..., Any]
    targets: Targets


_FABRICS: dict[str, tuple[Fabric, str]] = {}


def _fabric(platform: str) -> tuple[Fabric, str]:
    if platform not in _FABRICS:
        fabric = resolve(retarget(load_inventory(INVENTORIES / "lab"), platform))
        # the rendered candidate carries the base section's management access (interface, address, API)
        _FABRICS[platform] = fabric, intended_configs(fabric, [DEVICE])[DEVICE]
    return _FABRICS[platform]


def _aliases(platform: str) -> dict[tuple[str, str], str]:
    fabric, _ = _fabric(platform)
    if platform != "sonic":
        return {}
    return sonic_aliases(intended_configs(fabric), {n: s.platform for n, s in fabric.switches.items()})


def _rig(platform: str, monkeypatch: pytest.MonkeyPatch, lose_session_after: str | None = None) -> Rig:
    fabric, intended = _fabric(platform)
    dev = SimDevice(platform, DEVICE, _initial_running(platform, ADDRESS), lose_session_after=lose_session_after)
    dev.startup = dev.running
    dev.peers = {a: asn for a, (_, asn) in expected_sessions(fabric, DEVICE, set(fabric.switches)).items()}
    dev.cabled = {p.name for p in fabric.switches[DEVICE].ports if p.peer_device}
    aliases = _aliases(platform)  # SONiC peers advertise their port's alias as the port ID
    dev.lldp = {p.name: (p.peer_device, aliases.get((p.peer_device, p.peer_port), p.peer_port))
                for p in fabric.switches[DEVICE].ports if p.peer_device in fabric.switches}
    # the spines are in scope (their sessions with leaf1 are verified), only leaf1 is pushed
    # every session's target is the management address the inventory's base gives the device
    hosts = {n: _mgmt_ip(fabric, n, platform) for n in (DEVICE, "spine1", "spine2")}
    assert hosts[DEVICE] == ADDRESS
    targets = Targets({n: Target(n, platform, h) for n, h in hosts.items()}, Credentials("admin", PASSWORD),
                      "simulated")
    sim: Any
    if platform == "eos":
        from fabricgen.deploy.drivers.eos import EosDriver as EOSDriver  # what make_driver opens for eos

        sim = EosSim(dev)
        transport = sim.transport()

        def make(target: Target, creds: Credentials, **_: Any) -> Any:
            d = EOSDriver(target.host, creds.username, creds.password, optional_args={"transport": transport})
            d.config_session = EOS_SESSION
            return d
    elif platform == "nxos":
        import napalm.base.base
        import napalm.nxos.nxos
        from napalm.nxos_ssh.nxos_ssh import NXOSSSHDriver

        sim = NxosSim(dev)
        monkeypatch.setattr(napalm.base.base, "ConnectHandler", sim.connect)
        monkeypatch.setattr(napalm.nxos.nxos, "file_transfer", sim.file_transfer)

        def make(target: Target, creds: Credentials, **_: Any) -> Any:
            return NXOSSSHDriver(target.host, creds.username, creds.password)
    elif platform == "junos":
        from jnpr.junos.utils.config import Config  # type: ignore[import-untyped]

        from fabricgen.deploy.drivers.junos import JunosDriver

        sim = JunosSim(dev)

        def make(target: Target, creds: Credentials, **_: Any) -> Any:
            d = JunosDriver(target.host, creds.username, creds.password)

            def opened() -> None:  # what Device.open leaves behind, minus the NETCONF socket
                from types import SimpleNamespace

                from jnpr.junos import jxml as JXML  # type: ignore[import-untyped]
                from ncclient.devices.junos import JunosDeviceHandler

                d.device._conn = SimpleNamespace(_device_handler=JunosDeviceHandler({"name": "junos"}),
                                                 connected=True, timeout=30, close_session=lambda: None)
                d.device.connected = True
                d.device._nc_transform = d.device.transform
                d.device._norm_transform = lambda: JXML.normalize_xslt.encode("UTF-8")
                d.device.bind(cu=Config)

            d.open = opened
            d.device._rpc_reply = sim
            return d
    else:
        from fabricgen.deploy.drivers.nvue import NvueDriver
        from fabricgen.deploy.drivers.sonic import SonicDriver

        cls = SonicDriver if platform == "sonic" else NvueDriver
        sim = SonicSim(dev) if platform == "sonic" else NvueSim(dev)

        def make(target: Target, creds: Credentials, **_: Any) -> Any:
            d = cls(target.host, creds.username, creds.password, optional_args={"known_hosts": "/dev/null"})
            d.open = lambda: None  # the SSH session itself: the exec channel and SFTP below stand in for it
            d._exec, d._put = sim.exec, sim.put
            return d
    return Rig(platform, fabric, intended, dev, sim, make, targets)


VERIFIED: list[tuple[str, list[str]]] = []


@pytest.fixture(autouse=True)
def _verification_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """apply's own verification after the commit runs; what it found is recorded for the tests to assert on."""
    real = apply_mod._verify_after_commit
    VERIFIED.clear()

    def spy(fabric: Fabric, device: str, *args: Any, **kw: Any) -> list[str]:
        problems: list[str] = real(fabric, device, *args, **kw)
        VERIFIED.append((device, problems))
        return problems

    monkeypatch.setattr(apply_mod, "_verify_after_commit", spy)


def _apply(rig: Rig, tmp_path: Path) -> ApplyReport:
    revert = 0 if rig.platform == "nxos" else REVERT  # NX-OS has no commit-confirm: --revert-in 0 (commit.py)
    secrets = secret_values({DEVICE: rig.intended}, ENVIRON)  # as `fabricgen apply` reads them (cli/apply.py)
    return apply(rig.fabric, {DEVICE: rig.intended}, rig.targets,
                 ApplyOptions(revert_in=revert, settle=0, workers=1, secrets=secrets), tmp_path,
                 make_driver=rig.make_driver)


def _drift(rig: Rig) -> runner.Results[ConfigDiff]:
    """``fabricgen drift`` on the device: a fresh driver session, the same runner and comparison."""
    def task(name: str) -> ConfigDiff:
        d = rig.make_driver(rig.targets.targets[name], rig.targets.credentials)
        d.open()
        try:
            return drift_device(rig.platform, rig.intended, d)
        finally:
            d.close()

    return runner.run(task, [DEVICE], 1, rig.targets.secrets(), "drift")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_verification_reads_the_cabled_sessions_and_links_from_the_device(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _rig(platform, monkeypatch)
    assert _apply(rig, tmp_path).outcomes[DEVICE].status == "applied"
    d = rig.make_driver(rig.targets.targets[DEVICE], rig.targets.credentials)
    d.open()
    scope = set(rig.targets.targets)
    bgp = check_bgp(rig.fabric, DEVICE, scope, d.get_bgp_neighbors())
    links = check_interfaces(rig.fabric, DEVICE, scope, d.get_interfaces())
    assert [c.detail for c in bgp] == ["Established"] * 4
    assert len(links) == 4 and all(c.ok for c in links), [c.detail for c in links]
    # `fabricgen verify`'s whole check, LLDP included (a SONiC peer's port ID is its alias)
    verdict = verify_device(rig.fabric, DEVICE, scope, d, _aliases(platform))
    assert sorted(c.kind for c in verdict.checks) == ["bgp"] * 4 + ["interface"] * 4 + ["lldp"] * 4
    assert verdict.ok, [f"{c.subject}: {c.detail}" for c in verdict.failures]
    unplugged = next(iter(rig.dev.lldp))
    rig.dev.cabled.discard(unplugged)
    failed = {c.kind for c in verify_device(rig.fabric, DEVICE, scope, d, _aliases(platform)).failures}
    assert failed == {"lldp", "interface"}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_an_unplugged_uplink_fails_verification_and_the_device_is_rolled_back(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _rig(platform, monkeypatch)
    old = rig.dev.running
    uplink = next(p.name for p in rig.fabric.switches[DEVICE].ports if p.peer_device == "spine1")
    rig.dev.cabled.discard(uplink)
    outcome = _apply(rig, tmp_path).outcomes[DEVICE]
    assert outcome.status == "rolled-back", outcome.message
    assert f"interface {uplink}: down" in outcome.message
    assert rig.dev.running == old and not rig.dev.pending


def _diff(rig: Rig) -> ConfigDiff:
    result = _drift(rig).by_device[DEVICE]
    assert result.value is not None, result.error
    return result.value


# ------------------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("platform", PLATFORMS)
def test_apply_then_drift_is_clean(platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    rig = _rig(platform, monkeypatch)
    assert _diff(rig).drifted  # the device starts elsewhere
    report = _apply(rig, tmp_path)
    outcome = report.outcomes[DEVICE]
    assert outcome.status == "applied", outcome.message
    assert report.ok and VERIFIED == [(DEVICE, [])]
    assert not rig.dev.pending  # confirmed: no timer left to revert it
    diff = _diff(rig)
    assert (diff.missing, diff.unexpected) == ((), ()), drift_lines(diff)
    # and a second apply finds nothing to do
    again = _apply(rig, tmp_path).outcomes[DEVICE]
    assert again.status == "unchanged", again.message


HAND_CHANGES: dict[str, Callable[[str], str]] = {
    # ECN moved from the RoCE queue to another queue: the same line, another block
    "eos": lambda t: t.replace(
        "      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes "
        "max-mark-probability 100\n", "", 1).replace(
        "   tx-queue 4\n", "   tx-queue 4\n      random-detect ecn minimum-threshold 150000 bytes "
        "maximum-threshold 1500000 bytes max-mark-probability 100\n", 1),
    "nxos": lambda t: t.replace("pause pfc-cos 3", "pause pfc-cos 4", 1),  # PFC on another priority
    "junos": lambda t: t.replace("pfc-priority 3;", "pfc-priority 4;", 1),
    "sonic": lambda t: t.replace('"pfc_enable": "3"', '"pfc_enable": "4"', 1),
    "nvue": lambda t: t.replace("min-threshold: 150000", "min-threshold: 120000", 1),  # ECN threshold
}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_hand_change_inside_a_qos_block_is_roce_drift(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _rig(platform, monkeypatch)
    assert _apply(rig, tmp_path).outcomes[DEVICE].status == "applied"
    before = rig.dev.running
    rig.dev.running = HAND_CHANGES[platform](before)
    assert rig.dev.running != before  # the change did land in the device's own form
    diff = _diff(rig)
    assert diff.drifted and diff.missing and diff.unexpected, drift_lines(diff)
    assert set(diff.impact) == {"roce"}, diff.impact
    assert set(diff.impact["roce"]) == {*diff.missing, *diff.unexpected}


LOST_AT = {
    "eos": f"configure session {EOS_SESSION} commit timer",
    "nxos": "rollback running-config file candidate_config.txt",  # NX-OS: the commit itself, no timer
    "junos": "commit-configuration confirmed",
    "sonic": "sudo docker exec bgp /usr/lib/frr/frr-reload.py --reload /etc/frr/fabricgen-candidate.conf",  # timed
    "nvue": "nv config apply --confirm 1",  # not --confirm-status
}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_session_lost_at_the_commit_leaves_the_documented_state(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _rig(platform, monkeypatch, lose_session_after=LOST_AT[platform])
    old = rig.dev.running
    report = _apply(rig, tmp_path)
    outcome = report.outcomes[DEVICE]
    assert outcome.status == "unknown", outcome.message
    assert rig.dev.sent[-1].startswith(LOST_AT[platform]) or rig.dev.sent[-1] == "commit-configuration"
    assert "nothing more was sent" in outcome.message and "reverts by itself" not in outcome.message
    assert rig.dev.running != old  # the device did take the commit
    if platform == "nxos":
        assert "committed without a revert timer: the device keeps the new configuration" in outcome.message
        rig.sim.dev.tick(3600)
        assert rig.dev.running != old  # and keeps it: NX-OS has no timer
        assert report.on_lost_session["nxos"] == lost_session_note("nxos", None)
        return
    assert lost_session_note(platform, REVERT) in outcome.message
    assert report.on_lost_session[platform] == lost_session_note(platform, REVERT)
    rig.sim.tick(REVERT - 1)
    assert rig.dev.running != old and rig.dev.pending  # still inside the revert window
    rig.sim.tick(2)
    assert rig.dev.running == old and not rig.dev.pending  # the device's own timer restored it
    rig.dev.dead, rig.dev.lose_session_after = False, None  # the switch is reachable again
    assert _diff(rig).drifted


CANARIES = (CANARY_HASH, CANARY_COMMUNITY, "CANARYsalt", "CANARYhash", PASSWORD, *ENVIRON.values())


def _leaks(text: str) -> list[str]:
    return [c for c in CANARIES if c in text]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_no_secret_or_credential_appears_in_any_output(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _rig(platform, monkeypatch)
    assert CANARY_HASH in rig.dev.running  # the device does hold them
    results = _drift(rig)
    diff = results.by_device[DEVICE].value
    assert diff is not None and diff.drifted and diff.named_only  # a real report, secret-bearing sections named
    from fabricgen.cli.drift import drift_document

    document = json.dumps(drift_document(rig.fabric.name, rig.targets.origin, results))
    text = "\n".join(drift_lines(diff))
    assert _leaks(document) == [] and _leaks(text) == []
    report = _apply(rig, tmp_path)
    assert report.outcomes[DEVICE].status == "applied"
    assert _leaks(json.dumps(report.as_dict())) == []
    # a device whose error echoes the login: the message is redacted, the report still says what happened
    failing = _rig(platform, monkeypatch)

    def echoing(target: Target, creds: Credentials, **kw: Any) -> Any:
        raise ConnectionRefusedError(f"login admin/{creds.password} refused by {target.host}")

    failing.make_driver = echoing
    bad = _apply(failing, tmp_path / "again").outcomes[DEVICE]
    assert bad.status == "unreachable" and f"refused by {ADDRESS}" in bad.message
    assert _leaks(bad.message) == []


# ------------------------------------------------------------------------- the simulator's vendor forms

_WORD = st.text(alphabet="abcdefxyz0123456789-/:.", min_size=1, max_size=6) | st.sampled_from(
    ["leaf of fabric", "$6$salt$hash", "et-0/0/0:1", "10.0.0.1/31"])


@given(st.lists(st.lists(_WORD, min_size=2, max_size=6), min_size=1, max_size=12))
def test_junos_curly_form_reads_back_as_the_same_set_lines(paths: list[list[str]]) -> None:
    """The simulator's curly-brace running config (what Junos returns) is the set form drift normalises to."""
    from fabricgen.deploy.normalize import junos_set_lines

    unique = {tuple(p) for p in paths}
    # a statement is a leaf or a container, never both (Junos prints only the container)
    leaves = sorted(p for p in unique if not any(q[: len(p)] == p and q != p for q in unique))
    lines = junos_set_lines("\n".join("set " + " ".join(f'"{w}"' if " " in w else w for w in p) for p in leaves))
    back = junos_set_lines(junos_curly(lines))
    assert back[0] == "set version 23.4R1"  # Junos prints its version first
    assert sorted(back[1:]) == sorted(lines)


@pytest.mark.parametrize("device", ["leaf1", "leaf4", "spine1"])
def test_eos_modes_rebuilt_from_flat_session_commands_match_the_rendered_hierarchy(device: str) -> None:
    """NAPALM sends a configure session's lines stripped of indentation; the simulator rebuilds EOS's blocks
    (interface, qos profile → tx-queue, router bgp → address-family) exactly as rendered."""
    from fabricgen.deploy.normalize import indent_paths
    from tests.simdevice import eos_indent

    fabric, _ = _fabric("eos")
    rendered = intended_configs(fabric, [device])[device]
    flat = [ln.strip() for ln in rendered.splitlines() if ln.strip() and not ln.strip().startswith("!")]
    paths = indent_paths(eos_indent(flat))
    assert paths == indent_paths(rendered)
    assert any(len(p) == 3 and p[1].startswith("tx-queue") and "random-detect ecn" in p[2] for p in paths)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_candidate_without_the_session_address_is_refused_before_anything_reaches_the_device(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The guard stays: a session to an address the rendered candidate does not put on a management interface
    (the hosts file and the inventory's base disagree) would be cut by the replace, so apply refuses it with the
    device untouched."""
    rig = _rig(platform, monkeypatch)
    other = "192.0.2.99"
    assert other not in rig.intended and ADDRESS in rig.intended
    targets = Targets({**rig.targets.targets, DEVICE: Target(DEVICE, platform, other)}, rig.targets.credentials,
                      rig.targets.origin)
    opts = ApplyOptions(revert_in=0 if platform == "nxos" else REVERT, settle=0, workers=1,
                        secrets=secret_values({DEVICE: rig.intended}, ENVIRON))
    report = apply(rig.fabric, {DEVICE: rig.intended}, targets, opts, tmp_path, make_driver=rig.make_driver)
    outcome = report.outcomes[DEVICE]
    assert outcome.status == "refused", outcome.message
    assert f"the candidate configures no interface with {other}" in outcome.message
    assert rig.dev.sent == [] and rig.dev.running == _initial_running(platform, ADDRESS)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_facts_name_the_device(platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """get_facts through the real driver names the simulated switch (on Junos, PyEZ's own fact gathering: the
    simulator answers its software-information and chassis-inventory RPCs)."""
    rig = _rig(platform, monkeypatch)
    assert _apply(rig, tmp_path).outcomes[DEVICE].status == "applied"
    d = rig.make_driver(rig.targets.targets[DEVICE], rig.targets.credentials)
    d.open()
    facts = d.get_facts()
    assert facts["hostname"] == DEVICE


# ------------------------------------------------------------------------------------- identity before a load

CHASSIS_READ = {  # what each driver sends to read the device's own chassis ID (fabricgen.deploy.identity)
    "eos": "show lldp local-info",
    "nxos": "show sprom backplane 1",
    "junos": "get-lldp-local-info",
    "sonic": "sudo docker exec lldp lldpcli -f json0 show chassis",
    "nvue": "lldpcli -f json0 show chassis",
}
LOADS = {  # the first command of a load on each platform: none of them may reach a device refused as another one
    "eos": "configure session", "nxos": "scp ", "junos": "load-configuration", "sonic": "sftp ", "nvue": "sftp ",
}


def _recorded(rig: Rig, **fields: str) -> Rig:
    """The rig with leaf1's inventory entry carrying ``fields`` (``chassis_mac``, ``serial``), as resolved."""
    from dataclasses import replace

    switches = {**rig.fabric.switches, DEVICE: replace(rig.fabric.switches[DEVICE], **fields)}
    return replace(rig, fabric=replace(rig.fabric, switches=switches))


def _nothing_loaded(rig: Rig, old: str) -> None:
    assert rig.dev.running == old and rig.dev.startup == old and not rig.dev.pending
    # (NAPALM's EOS driver aborts its named session on close, loaded or not: an abort loads nothing)
    assert not any(c.startswith(LOADS[rig.platform]) and not c.endswith(" abort") for c in rig.dev.sent), rig.dev.sent


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_device_with_the_recorded_chassis_mac_and_a_factory_hostname_is_applied(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _recorded(_rig(platform, monkeypatch), chassis_mac="00:1c:73:a0:fc:18")
    rig.dev.hostname = "sonic" if platform == "sonic" else "localhost"  # not provisioned yet
    outcome = _apply(rig, tmp_path).outcomes[DEVICE]
    assert outcome.status == "applied", outcome.message
    assert outcome.message == "identified as leaf1 by its chassis MAC 00:1c:73:a0:fc:18"
    assert CHASSIS_READ[platform] in rig.dev.sent
    assert not _diff(rig).drifted


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_device_with_another_chassis_mac_is_wrong_device_and_left_as_it_was(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _recorded(_rig(platform, monkeypatch), chassis_mac="00:1c:73:a0:fc:18")
    rig.dev.chassis_mac = "00:1c:73:a0:fc:99"  # the hostname is right: only the chassis tells them apart
    old = rig.dev.running
    report = _apply(rig, tmp_path)
    outcome = report.outcomes[DEVICE]
    assert outcome.status == "wrong-device" and not report.ok
    assert outcome.message == ("the device at this address has chassis MAC 00:1c:73:a0:fc:99, the inventory says "
                               "leaf1 has 00:1c:73:a0:fc:18; nothing was loaded")
    _nothing_loaded(rig, old)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_chassis_id_that_cannot_be_read_refuses_a_recorded_chassis_mac(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rig = _recorded(_rig(platform, monkeypatch), chassis_mac="00:1c:73:a0:fc:18")
    rig.dev.chassis_mac = ""  # LLDP agent not running
    old = rig.dev.running
    outcome = _apply(rig, tmp_path).outcomes[DEVICE]
    assert outcome.status == "wrong-device"
    assert outcome.message.startswith("could not read the device's chassis id (")
    assert outcome.message.endswith("the inventory records leaf1's chassis MAC 00:1c:73:a0:fc:18, so the device is "
                                    "not taken for leaf1; nothing was loaded")
    _nothing_loaded(rig, old)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_factory_hostname_is_accepted_by_lldp_neighbours_as_cabled_and_refused_by_others(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Nothing recorded, a factory hostname: the neighbours decide (a SONiC peer's port by its alias)."""
    rig = _rig(platform, monkeypatch)
    rig.dev.hostname = "localhost"
    outcome = _apply(rig, tmp_path).outcomes[DEVICE]
    assert outcome.status == "applied", outcome.message
    assert outcome.message.startswith("identified as leaf1 although it calls itself localhost: its LLDP neighbours "
                                      "place it as leaf1: 4 of 4 cabled port(s) see their peer (")
    # the same device cabled as another leaf: its neighbours' ports are not leaf1's peers' ports
    other = _rig(platform, monkeypatch)
    other.dev.hostname = "localhost"
    a, b = list(other.dev.lldp)[:2]
    other.dev.lldp[a], other.dev.lldp[b] = other.dev.lldp[b], other.dev.lldp[a]
    old = other.dev.running
    refused = _apply(other, tmp_path / "other").outcomes[DEVICE]
    assert refused.status == "wrong-device"
    assert refused.message.startswith("the device at this address is localhost (hostname), not leaf1, and its LLDP "
                                      f"neighbours are not leaf1's: {a} sees ")
    _nothing_loaded(other, old)
