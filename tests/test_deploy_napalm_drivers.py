"""apply through NAPALM's own driver classes, with only the lowest transport layer replaced by recorded output.

* EOS: fabricgen's ``EosDriver`` (``napalm.eos.EOSDriver`` with a running-config checkpoint) over a pyeapi
  ``EapiConnection`` whose ``execute`` answers from recordings;
* NX-OS: ``napalm.nxos_ssh.NXOSSSHDriver`` over a netmiko connection object (``send_command``,
  ``send_multiline``, ``save_config``) and netmiko's ``file_transfer``;
* Junos: fabricgen's ``JunosDriver`` (NAPALM's ``JunOSDriver``) over PyEZ's ``Device._rpc_reply``, the call
  that hands an RPC to the NETCONF session.

Each test runs fabricgen's ``apply_device`` and asserts the exact commands/RPCs the device receives for apply,
confirm, a failed verification (rollback) and a commit whose session is lost. The recorded replies follow each
vendor's documented shapes (``show configuration sessions detail``, ``show diff rollback-patch``,
``<load-configuration-results>``, ``<commit-results>``, ``<commit-revision-information>``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from lxml import etree
from pyeapi.eapilib import EapiConnection

from fabricgen.deploy import apply as apply_mod
from fabricgen.deploy.apply import ApplyOptions, apply, apply_device
from fabricgen.deploy.commit import RevertRefused
from fabricgen.deploy.credentials import Credentials
from fabricgen.deploy.targets import Targets
from fabricgen.deploy.transport import Target
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).parent / "data" / "deploy"


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return load_fabric(INVENTORIES / "lab-frr")


def _targets(platform: str, host: str) -> Targets:
    return Targets({"leaf1": Target("leaf1", platform, host)}, Credentials("admin", "pw-not-used"), "test")


def _verify(monkeypatch: pytest.MonkeyPatch, problems: list[str]) -> None:
    """Verification after the commit is tested on its own (test_deploy_units); here it passes or fails, and the
    sessions read before the commit (only an input of that verification) are none."""
    monkeypatch.setattr(apply_mod, "_verify_after_commit", lambda *a, **k: problems)
    monkeypatch.setattr(apply_mod, "_sessions_up", lambda driver: set())


# ----------------------------------------------------------------------------------------------------- EOS

EOS_CANDIDATE = """hostname leaf1
interface Ethernet1/1
   tx-queue 3
      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100
"""
EOS_RUNNING = EOS_CANDIDATE.replace("minimum-threshold 150000", "minimum-threshold 120000")


class RecordedEapi(EapiConnection):  # type: ignore[misc]
    """pyeapi's connection with ``execute`` answering from recordings; commit timers change what it reports."""

    sent: ClassVar[list[str]] = []
    pending: ClassVar[bool] = False
    lost_on: ClassVar[str | None] = None  # this command takes effect, then the connection is gone for good
    dead: ClassVar[bool] = False
    committed: ClassVar[bool] = False  # the running configuration is the candidate's from the commit on

    def __init__(self, host: str | None = None, username: str | None = None, password: str | None = None,
                 timeout: int = 60, **kwargs: Any) -> None:
        super().__init__()

    def execute(self, commands: list[Any], encoding: str = "json", **kwargs: Any) -> dict[str, Any]:
        result: list[Any] = []
        for c in commands:
            cmd = c if isinstance(c, str) else c["cmd"]
            if cmd == "enable":
                result.append({})
                continue
            if RecordedEapi.dead:
                raise ConnectionError("eAPI: connection refused")
            RecordedEapi.sent.append(cmd)
            if self.lost_on and cmd.startswith(self.lost_on):
                RecordedEapi.dead = True
                RecordedEapi.pending = RecordedEapi.pending or " commit timer " in cmd
                raise ConnectionError("eAPI: connection reset by peer")
            session = cmd.split()[2] if cmd.startswith("configure session ") else None
            if cmd == "show version":
                result.append(json.loads((DATA / "eos/show_version.json").read_text()))
            elif cmd == "show configuration sessions":
                result.append({"sessions": {}})
            elif cmd == "show configuration sessions detail":
                name = "pending" if RecordedEapi.pending else "none"
                text = (DATA / f"eos/show_configuration_sessions_detail_{name}.json").read_text()
                result.append(json.loads(text.replace("SESSION", RecordedEapi.session)))
            elif cmd == "show running-config sanitized":
                result.append({"output": EOS_CANDIDATE if RecordedEapi.committed else EOS_RUNNING})
            elif cmd == "dir flash:":  # the flash:/ part of a vEOS-lab 4.27.3F `dir all-filesystems` capture
                result.append({"output": (DATA / "eos/dir_flash.txt").read_text()})
            elif cmd.startswith("show session-config named") and cmd.endswith("diffs"):
                result.append({"output": (DATA / "eos/session_diffs.txt").read_text()})
            elif session and " commit timer " in cmd:
                RecordedEapi.pending = RecordedEapi.committed = True
                result.append({"output": ""})
            elif session and (cmd.endswith(" commit") or cmd.endswith(" abort")):
                RecordedEapi.pending = RecordedEapi.pending and session != RecordedEapi.session
                result.append({"output": ""})
            else:
                result.append({"output": ""} if encoding == "text" else {})
        return {"jsonrpc": "2.0", "result": result, "id": "fabricgen"}

    session: ClassVar[str] = ""


def _eos(monkeypatch: pytest.MonkeyPatch, lost_on: str | None = None) -> Any:
    from fabricgen.deploy.drivers.eos import EosDriver as EOSDriver  # NAPALM's EOSDriver, checkpointing running

    RecordedEapi.sent, RecordedEapi.pending, RecordedEapi.lost_on, RecordedEapi.dead = [], False, lost_on, False
    RecordedEapi.committed = False

    def make(target: Target, creds: Credentials, **_: Any) -> Any:
        d = EOSDriver(target.host, creds.username, creds.password, optional_args={"transport": RecordedEapi})
        d.config_session = RecordedEapi.session = "fabricgen_1"
        return d

    return make


def _eos_run(fabric: Fabric, make: Any, revert_in: int = 120) -> Any:
    opts = ApplyOptions(revert_in=revert_in, settle=0)
    return apply_device(fabric, "leaf1", EOS_CANDIDATE, _targets("eos", "192.0.2.11"), {"leaf1"}, set(), opts, 1, make)


EOS_LOAD = ["show version",
            "show configuration sessions detail", "show version",  # has_pending_commit: none left by an earlier run
            "show running-config sanitized", "show configuration sessions",
            "configure session fabricgen_1", "rollback clean-config", "hostname leaf1", "interface Ethernet1/1",
            "tx-queue 3", "random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes "
            "max-mark-probability 100", "end", "show session-config named fabricgen_1 diffs"]
EOS_COMMIT = ["show configuration sessions detail", "show version",  # has_pending_commit: none yet
              "dir flash:",  # whether the switch has a startup-config to checkpoint (it has)
              "copy running-config flash:fabricgen-rollback-0", "copy startup-config flash:fabricgen-startup-0",
              "configure session fabricgen_1 commit timer 00:02:00"]
EOS_AFTER = ["show running-config sanitized"]  # the commit must have produced the intended configuration


def test_eos_apply_commits_with_a_session_timer_and_confirms(fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    _verify(monkeypatch, [])
    out = _eos_run(fabric, _eos(monkeypatch))
    assert out.status == "applied", out.message
    assert "random-detect ecn minimum-threshold 150000" in out.diff
    assert RecordedEapi.sent == [
        *EOS_LOAD, *EOS_COMMIT, *EOS_AFTER,
        "show configuration sessions detail", "show version",  # confirm: the session must be pending
        "configure session fabricgen_1 commit", "write memory",
        "show configuration sessions detail", "show version",  # and no longer is
    ]


def test_eos_failed_verification_aborts_the_pending_session(fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    _verify(monkeypatch, ["bgp 10.128.6.0 (spine1, AS 4200000100): not Established"])
    out = _eos_run(fabric, _eos(monkeypatch))
    assert out.status == "rolled-back"
    assert RecordedEapi.sent == [
        *EOS_LOAD, *EOS_COMMIT, *EOS_AFTER,
        "show configuration sessions detail", "show version",
        "configure session fabricgen_1 abort",  # EOS restores the running config; startup was never written
        "show configuration sessions detail", "show version",
    ]


def test_eos_session_lost_at_the_commit_is_left_to_the_devices_timer(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, [])
    # the commit timer reaches the device, then the connection is gone: nothing more can be asked or sent
    out = _eos_run(fabric, _eos(monkeypatch, lost_on="configure session fabricgen_1 commit timer"))
    assert out.status == "unknown"
    assert "EOS's configure-session commit timer expires" in out.message and "(within 120s)" in out.message
    assert RecordedEapi.sent == [*EOS_LOAD, *EOS_COMMIT]  # no abort, no rollback, no confirm reached it
    assert "reverts by itself" not in out.message


# ---------------------------------------------------------------------------------------------------- NX-OS

NXOS_CANDIDATE = "hostname leaf1\ninterface Ethernet1/1/1\n  mtu 9216\n"


class RecordedNetmiko:
    """netmiko's connection as NAPALM's nxos_ssh driver uses it."""

    sent: ClassVar[list[str]] = []
    rollback_answer: ClassVar[str] = ""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    def enable(self) -> str:
        return ""

    def set_base_prompt(self) -> str:
        return "leaf1"

    def disconnect(self) -> None:
        pass

    def send_command(self, command: str, **kwargs: Any) -> str:
        self.sent.append(command)
        if command == "show running-config":
            replaced = "rollback running-config file candidate_config.txt" in self.sent
            return "!Command: show running-config\n" + (NXOS_CANDIDATE if replaced else NXOS_CANDIDATE.replace(
                "mtu 9216", "mtu 1500"))
        if command.startswith("show diff rollback-patch"):
            return (DATA / "nxos/show_diff_rollback_patch.txt").read_text()
        if command.startswith("dir "):
            return (DATA / "nxos/dir_rollback_config.txt").read_text()
        return ""

    def send_multiline(self, commands: list[str], **kwargs: Any) -> str:
        self.sent.extend(commands)
        if any(c.startswith("rollback running-config file") for c in commands):
            return (DATA / "nxos/rollback_ok.txt").read_text()
        return ""

    def save_config(self) -> str:
        self.sent.append("copy running-config startup-config")
        return "[########################################] 100%\nCopy complete, now saving to disk (please wait)..."


def _nxos(monkeypatch: pytest.MonkeyPatch) -> Any:
    import napalm.base.base
    import napalm.nxos.nxos
    from napalm.nxos_ssh.nxos_ssh import NXOSSSHDriver

    RecordedNetmiko.sent = []
    monkeypatch.setattr(napalm.base.base, "ConnectHandler", lambda **kw: RecordedNetmiko(**kw))

    def transfer(conn: Any, source_file: str, dest_file: str, **kw: Any) -> dict[str, bool]:
        RecordedNetmiko.sent.append(f"scp {Path(source_file).read_text().splitlines()[0]}… → {dest_file}")
        return {"file_exists": True, "file_transferred": True, "file_verified": True}

    monkeypatch.setattr(napalm.nxos.nxos, "file_transfer", transfer)
    return lambda target, creds, **_: NXOSSSHDriver(target.host, creds.username, creds.password)


NXOS_LOAD = ["show running-config", "scp hostname leaf1… → candidate_config.txt",
             "terminal dont-ask", "delete sot_file", "no terminal dont-ask",
             "terminal dont-ask", "checkpoint file sot_file", "no terminal dont-ask",
             "show diff rollback-patch file sot_file file candidate_config.txt"]
NXOS_COMMIT = ["terminal dont-ask", "checkpoint file rollback_config.txt", "no terminal dont-ask",
               "terminal dont-ask", "rollback running-config file candidate_config.txt", "no terminal dont-ask",
               "copy running-config startup-config"]


def test_nxos_refuses_a_revert_timer_up_front(fabric: Fabric, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    contacted: list[str] = []
    with pytest.raises(RevertRefused, match=r"no commit-confirm.*--revert-in 0"):
        apply(fabric, {"leaf1": NXOS_CANDIDATE}, _targets("nxos", "192.0.2.12"), ApplyOptions(revert_in=120),
              tmp_path, make_driver=lambda t, c, **_: contacted.append(t.name))
    assert contacted == []  # refused before any device was contacted


def test_nxos_without_timer_checkpoints_commits_and_rolls_back_to_the_checkpoint(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, ["interface Ethernet1/1/1: MTU 1500 (intended 9216)"])
    opts = ApplyOptions(revert_in=0, settle=0)
    out = apply_device(fabric, "leaf1", NXOS_CANDIDATE, _targets("nxos", "192.0.2.12"), {"leaf1"}, set(), opts, 1,
                       _nxos(monkeypatch))
    assert out.status == "rolled-back", out.message
    assert "mtu 9216" in out.diff
    assert RecordedNetmiko.sent == [
        *NXOS_LOAD, *NXOS_COMMIT, "show running-config",
        "dir rollback_config.txt",
        "terminal dont-ask", "rollback running-config file rollback_config.txt", "no terminal dont-ask",
        "copy running-config startup-config",
    ]


def test_nxos_without_timer_applied_sends_no_confirm_and_no_rollback(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, [])
    opts = ApplyOptions(revert_in=0, settle=0)
    out = apply_device(fabric, "leaf1", NXOS_CANDIDATE, _targets("nxos", "192.0.2.12"), {"leaf1"}, set(), opts, 1,
                       _nxos(monkeypatch))
    assert out.status == "applied", out.message
    assert RecordedNetmiko.sent == [*NXOS_LOAD, *NXOS_COMMIT, "show running-config"]


# ---------------------------------------------------------------------------------------------------- Junos


class RecordedNetconf:
    """PyEZ's ``Device._rpc_reply``: RPC element in, recorded ``<rpc-reply>`` out."""

    def __init__(self, lost_at_commit: bool = False) -> None:
        self.sent: list[str] = []
        self.pending = False
        self.lost_at_commit = lost_at_commit
        self.dead = False
        self.committed = False

    def __call__(self, rpc: Any, filter_xml: Any = None, **kwargs: Any) -> Any:
        """The reply as ncclient hands it to PyEZ: parsed, namespaces removed by the Junos device handler."""
        from ncclient.devices.junos import JunosDeviceHandler
        from ncclient.xml_ import NCElement

        text = self.reply(rpc)
        error = etree.fromstring(text.encode()).find(".//rpc-error")
        if error is not None:  # ncclient raises an <rpc-error> reply as RPCError; PyEZ turns it into its own
            from ncclient.operations.rpc import RPCError

            raise RPCError(error)
        return NCElement(text, JunosDeviceHandler({"name": "junos"}).transform_reply())._NCElement__doc

    def reply(self, rpc: Any) -> str:
        if self.dead:
            raise ConnectionResetError("NETCONF session closed")
        self.sent.append(etree.tostring(rpc).decode())
        tag = rpc.tag
        if tag == "get-configuration":
            if rpc.get("compare") == "rollback":
                name = "compare.xml"
            else:
                text = (DATA / "junos/running_leaf1.conf").read_text().replace("&", "&amp;").replace("<", "&lt;")
                if self.committed:  # the candidate's scheduler from the commit on, and not the user it lacks
                    text = text.replace("protocol any drop-profile DP-ECN_150000_1500000_100;",
                                        "protocol any drop-profile DP-OLD;")
                    text = re.sub(r"\n    login \{.*?\n    \}", "", text, count=1, flags=re.S)
                return f"<rpc-reply><configuration-text>{text}</configuration-text></rpc-reply>"
        elif tag == "load-configuration":
            name = "load_success.xml"
        elif tag == "commit-configuration":
            if self.lost_at_commit:  # the commit reaches the device, the session does not survive it
                self.pending, self.dead = True, True
                raise ConnectionResetError("NETCONF session closed")
            self.pending = rpc.find("confirmed") is not None
            self.committed = True
            name = "commit_success.xml"
        elif tag == "get-commit-revision-information":
            name = "commit_revision_pending.xml" if self.pending else "commit_revision_confirmed.xml"
        elif tag == "get-system-uptime-information":
            name = "system_uptime.xml"
        else:
            name = "ok.xml"
        return (DATA / "junos" / name).read_text()


def _junos(netconf: RecordedNetconf) -> Any:
    from jnpr.junos.utils.config import Config

    from fabricgen.deploy.drivers.junos import JunosDriver

    def make(target: Target, creds: Credentials, **_: Any) -> Any:
        d = JunosDriver(target.host, creds.username, creds.password)

        def opened() -> None:  # what Device.open leaves behind, minus the NETCONF socket
            from types import SimpleNamespace

            from ncclient.devices.junos import JunosDeviceHandler

            handler = JunosDeviceHandler({"name": "junos"})
            d.device._conn = SimpleNamespace(_device_handler=handler, connected=True, timeout=30)
            d.device.connected = True
            d.device.bind(cu=Config)

        d.open = opened
        d.device._rpc_reply = netconf
        return d

    return make


def _junos_tags(netconf: RecordedNetconf) -> list[str]:
    return [etree.fromstring(x).tag for x in netconf.sent]


JUNOS_CANDIDATE = (DATA / "junos/intended_leaf1.set").read_text().replace(
    "drop-profile DP-ECN_150000_1500000_100\nset class-of-service schedulers S-roce explicit",
    "drop-profile DP-OLD\nset class-of-service schedulers S-roce explicit")


def test_junos_replace_loads_set_lines_after_a_delete_and_commits_confirmed_in_whole_minutes(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, [])
    netconf = RecordedNetconf()
    opts = ApplyOptions(revert_in=90, settle=0)  # 90 s → 2 minutes, never fewer than asked
    out = apply_device(fabric, "leaf1", JUNOS_CANDIDATE, _targets("junos", "192.0.2.13"), {"leaf1"}, set(), opts, 1,
                       _junos(netconf))
    assert out.status == "applied", out.message
    assert _junos_tags(netconf) == [
        "get-commit-revision-information",  # has_pending_commit: no commit confirmed left by an earlier run
        "get-configuration",  # sanitized running, compared as drift compares
        "lock-configuration", "load-configuration", "get-configuration",  # load, show | compare
        "commit-configuration", "unlock-configuration",  # commit confirmed
        "get-configuration",  # the commit produced the intended configuration
        "commit-configuration",  # confirm
        "get-commit-revision-information",  # the timer is gone (the last commit has no "commit confirmed" comment)
    ]
    load = etree.fromstring(netconf.sent[3])
    assert load.get("action") == "set" and load.get("format") == "text"
    assert load.findtext("configuration-set").startswith("delete\nset system host-name leaf1\n")
    commit = etree.fromstring(netconf.sent[5])
    assert commit.find("confirmed") is not None and commit.findtext("confirm-timeout") == "2"
    assert etree.fromstring(netconf.sent[8]).find("confirmed") is None


def test_junos_failed_verification_rolls_back_one_and_commits(fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    _verify(monkeypatch, ["bgp 10.128.6.0 (spine1, AS 4200000100): not Established"])
    netconf = RecordedNetconf()
    out = apply_device(fabric, "leaf1", JUNOS_CANDIDATE, _targets("junos", "192.0.2.13"), {"leaf1"}, set(),
                       ApplyOptions(revert_in=120, settle=0), 1, _junos(netconf))
    assert out.status == "rolled-back"
    tail = netconf.sent[8:]
    assert etree.fromstring(tail[0]).tag == "load-configuration" and etree.fromstring(tail[0]).get("rollback") == "1"
    assert etree.fromstring(tail[1]).tag == "commit-configuration"


def test_junos_session_lost_at_commit_is_left_to_junos_own_timer(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, [])
    netconf = RecordedNetconf(lost_at_commit=True)
    out = apply_device(fabric, "leaf1", JUNOS_CANDIDATE, _targets("junos", "192.0.2.13"), {"leaf1"}, set(),
                       ApplyOptions(revert_in=120, settle=0), 1, _junos(netconf))
    assert out.status == "unknown"
    assert "Junos rolls back to the previous commit when the `commit confirmed` minutes expire (within 120s)" in (
        out.message)
    assert _junos_tags(netconf)[-1] == "commit-configuration"  # nothing after the lost commit reached the device


# ------------------------------------------------------------------------------------- management guard

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(
    ("platform", "rendered", "host"),
    [
        ("eos", "eos/leaf1/startup-config", "192.0.2.11"),
        ("nxos", "nxos/leaf1/startup-config", "192.0.2.12"),
        ("junos", "junos/leaf1/config.set", "192.0.2.13"),
        ("nvue", "nvue/leaf1/startup.yaml", "192.0.2.14"),
    ],
)
def test_apply_refuses_a_replace_that_removes_the_management_session(
    fabric: Fabric, tmp_path: Path, platform: str, rendered: str, host: str
) -> None:
    contacted: list[str] = []
    report = apply(fabric, {"leaf1": (GOLDEN / rendered).read_text()}, _targets(platform, host),
                   ApplyOptions(revert_in=0 if platform == "nxos" else 120), tmp_path,
                   make_driver=lambda t, c, **_: contacted.append(t.name))
    o = report.outcomes["leaf1"]
    assert o.status == "refused" and contacted == [] and not report.ok
    assert f"the candidate configures no interface with {host}, the address this session uses" in o.message


def test_management_guard_reads_each_platforms_access_method() -> None:
    from fabricgen.deploy.mgmt import management_problems

    eos = "interface Management1\n   ip address 192.0.2.11/24\nmanagement api http-commands\n   no shutdown\n"
    assert management_problems("eos", eos, "192.0.2.11") == []
    assert management_problems("eos", eos.replace("   no shutdown\n", "   shutdown\n"), "192.0.2.11") == [
        "the candidate does not enable eAPI (`management api http-commands` / `no shutdown`), the access this "
        "session uses"]
    junos = "set interfaces em0 unit 0 family inet address 192.0.2.13/24\nset system services netconf ssh\n"
    assert management_problems("junos", junos, "192.0.2.13") == []
    assert "NETCONF" in management_problems("junos", junos.replace("netconf ssh", "ssh"), "192.0.2.13")[0]
    sonic = json.dumps({"MGMT_INTERFACE": {"eth0|192.0.2.15/24": {"gwaddr": "192.0.2.1"}}})
    assert management_problems("sonic", sonic, "192.0.2.15") == []
    assert management_problems("sonic", sonic, "192.0.2.16") == [
        "the candidate configures no interface with 192.0.2.16, the address this session uses"]
    assert management_problems("frr", "hostname x\n", "192.0.2.17") == []  # sshd and mgmt live outside frr.conf


def test_nxos_session_lost_during_the_commit_sends_no_rollback(fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a revert timer nothing can say whether the device changed: fabricgen sends nothing more."""
    _verify(monkeypatch, [])
    make = _nxos(monkeypatch)

    def lost(self: RecordedNetmiko, commands: list[str], **kwargs: Any) -> str:
        self.sent.extend(commands)
        if "rollback running-config file candidate_config.txt" in commands:
            raise OSError("Socket is closed")
        return ""

    monkeypatch.setattr(RecordedNetmiko, "send_multiline", lost)
    out = apply_device(fabric, "leaf1", NXOS_CANDIDATE, _targets("nxos", "192.0.2.12"), {"leaf1"}, set(),
                       ApplyOptions(revert_in=0, settle=0), 1, make)
    assert out.status == "unknown"
    assert "NX-OS keeps the new configuration" not in out.message or "if it did" in out.message
    assert "committed without a revert timer: the device keeps the new configuration" in out.message
    assert not any("rollback_config.txt" in c and c.startswith("rollback") for c in RecordedNetmiko.sent)
    assert "reverts by itself" not in out.message


def test_junos_load_error_fails_before_any_commit(fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    _verify(monkeypatch, [])
    netconf = RecordedNetconf()
    error = (DATA / "junos/load_error.xml").read_text()
    original = netconf.reply

    def reply(rpc: Any) -> str:
        return error if rpc.tag == "load-configuration" and rpc.get("action") == "set" else original(rpc)

    netconf.reply = reply  # type: ignore[method-assign]
    out = apply_device(fabric, "leaf1", JUNOS_CANDIDATE, _targets("junos", "192.0.2.13"), {"leaf1"}, set(),
                       ApplyOptions(revert_in=120, settle=0), 1, _junos(netconf))
    assert out.status == "failed" and "syntax error" in out.message and "interpolatee" in out.message
    assert "commit-configuration" not in _junos_tags(netconf)
    assert '<load-configuration compare="rollback" rollback="0"/>' in netconf.sent  # the candidate is discarded


# ------------------------------------------------------------------------------- a commit left pending earlier


def test_eos_pending_session_of_an_interrupted_apply_is_reported_pending_and_nothing_is_loaded(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, [])
    make = _eos(monkeypatch)

    def earlier(target: Target, creds: Credentials, **kw: Any) -> Any:
        d = make(target, creds, **kw)
        RecordedEapi.session = "fabricgen_0"  # the pending session is the interrupted run's, not this driver's
        return d

    RecordedEapi.pending = True  # `show configuration sessions detail` lists a session with a commit timer
    out = _eos_run(fabric, earlier)
    assert out.status == "pending", out.message
    assert "a commit-confirm is pending on the device" in out.message
    assert "EOS's configure-session commit timer expires" in out.message
    assert RecordedEapi.sent == [
        "show version", "show configuration sessions detail", "show version",
        "configure session fabricgen_1 abort",  # NAPALM's close() discards its own (empty) session only
    ]
    assert RecordedEapi.pending  # the interrupted run's session is left to its timer


def test_junos_commit_confirmed_of_an_interrupted_apply_is_reported_pending(
    fabric: Fabric, monkeypatch: pytest.MonkeyPatch
) -> None:
    _verify(monkeypatch, [])
    netconf = RecordedNetconf()
    netconf.pending = True  # the last commit's comment: "commit confirmed, rollback in 2mins"
    out = apply_device(fabric, "leaf1", JUNOS_CANDIDATE, _targets("junos", "192.0.2.13"), {"leaf1"}, set(),
                       ApplyOptions(revert_in=120, settle=0), 1, _junos(netconf))
    assert out.status == "pending", out.message
    assert "Junos rolls back to the previous commit" in out.message
    # NAPALM reads the commit revision and the system clock to see the timer is still running; nothing else
    assert _junos_tags(netconf) == ["get-commit-revision-information", "get-system-uptime-information"]
