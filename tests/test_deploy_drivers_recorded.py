"""Drivers for NOSes that cannot run here, tested against recorded output of realistic shape (tests/data/deploy)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from fabricgen.deploy.drivers import NAPALM_DRIVER, driver_class
from fabricgen.deploy.drivers.base import TIMER_SCAN
from fabricgen.deploy.drivers.nvue import NvueDriver, PendingStatusUnknown, parse_confirm_status, parse_history_applied
from fabricgen.deploy.drivers.sonic import SonicDriver, parse_interfaces_status, parse_lldp_table, parse_show_version

DATA = Path(__file__).parent / "data" / "deploy"


def rec(path: str) -> str:
    return (DATA / path).read_text()


class Replay:
    """Stands in for the SSH exec channel: command → (exit status, recorded output); records what was sent."""

    def __init__(self, answers: dict[str, tuple[int, str]]) -> None:
        self.answers, self.sent = answers, []  # type: ignore[var-annotated]

    def __call__(self, command: str, timeout: float | None = None) -> tuple[int, str]:
        self.sent.append(command)
        for prefix, answer in self.answers.items():
            if command.startswith(prefix):
                return answer
        return 0, ""


def driver(cls: Any, answers: dict[str, tuple[int, str]], **optional: Any) -> Any:
    d = cls("192.0.2.99", "admin", "not-used", optional_args={"known_hosts": "/dev/null", **optional})
    d._exec = Replay(answers)
    d._put = lambda path, text, mode=0o600: None
    return d


def test_registry_maps_every_platform() -> None:
    assert set(NAPALM_DRIVER) == {"frr", "sonic", "nvue", "eos", "nxos", "junos"}
    from napalm.eos.eos import EOSDriver

    assert issubclass(driver_class("eos"), EOSDriver) and driver_class("eos").__name__ == "EosDriver"  # NAPALM's, ours
    assert driver_class("nxos").__name__ == "NXOSSSHDriver"
    assert driver_class("sonic") is SonicDriver


def test_sonic_lldp_table_uses_description_when_port_id_is_a_mac() -> None:
    lldp = parse_lldp_table(rec("sonic/show_lldp_table.txt"))
    assert lldp["Ethernet256"] == [{"hostname": "spine1", "port": "Ethernet0", "port_description": "Ethernet0"}]
    assert lldp["Ethernet272"] == [{"hostname": "spine1", "port": "Ethernet8", "port_description": "Ethernet8"}]
    assert lldp["Ethernet280"][0]["port"] == "Eth1/9"  # short name; verify normalises it
    assert len(lldp) == 5


def test_sonic_interfaces_status_and_version() -> None:
    ifaces = parse_interfaces_status(rec("sonic/show_interfaces_status.txt"))
    assert ifaces["Ethernet256"] == {
        "is_up": True, "is_enabled": True, "description": "etp33", "last_flapped": -1.0,
        "speed": 800000.0, "mtu": 9216, "mac_address": "",
    }
    assert not ifaces["Ethernet4"]["is_up"] and not ifaces["Ethernet264"]["is_enabled"]
    facts = parse_show_version(rec("sonic/show_version.txt"), "leaf1", list(ifaces))
    assert facts["os_version"] == "SONiC.202311.1-nvidia" and facts["serial_number"] == "MT2330X01234"


def test_sonic_commit_confirm_emulation_sequence() -> None:
    d = driver(SonicDriver, {
        "cat /tmp/fabricgen/pending.json": (1, ""),
        "sudo config replace": (0, rec("sonic/config_replace_ok.txt")),
        "rm -f /tmp/fabricgen/revert.log; setsid": (0, "4242\n"),
    })
    d.load_replace_candidate(config='{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}}')
    d.commit_config(revert_in=120)
    sent = d._exec.sent
    assert any(c.startswith("sudo config checkpoint fabricgen-rollback") for c in sent)
    timer = next(c for c in sent if "setsid" in c)
    assert "sleep 120" in timer and "config rollback fabricgen-rollback" in timer and "fabricgen-revert-timer" in timer
    assert not any(c.startswith("sudo config save") for c in sent)  # saved only on confirm


def test_sonic_failed_replace_rolls_back() -> None:
    from napalm.base.exceptions import CommitError

    d = driver(SonicDriver, {"cat ": (1, ""), "sudo config replace": (1, "Error: Failed to apply patch")})
    d.load_replace_candidate(config="{}")
    with pytest.raises(CommitError, match="rolled back"):
        d.commit_config(revert_in=60)
    assert any(c.startswith("sudo config rollback fabricgen-rollback") for c in d._exec.sent)


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("confirm_status_pending_5.x.txt", 347),
        ("confirm_status_pending_hms.txt", 347),
        ("confirm_status_none.txt", None),
    ],
)
def test_nvue_confirm_status_across_releases(fixture: str, expected: int | None) -> None:
    assert parse_confirm_status(rec(f"nvue/{fixture}")) == expected


def test_nvue_unknown_confirm_status_is_an_error_not_silence() -> None:
    with pytest.raises(PendingStatusUnknown):
        parse_confirm_status(rec("nvue/confirm_status_changed.txt"))


def test_nvue_commit_confirm_and_rollback_commands() -> None:
    d = driver(NvueDriver, {
        "nv config apply --confirm-status": (0, rec("nvue/confirm_status_none.txt")),
        "nv config history": (0, rec("nvue/config_history.txt")),
    })
    d.load_replace_candidate(config="- set:\n    system:\n      hostname: leaf1\n")
    d.commit_config(revert_in=600)
    assert "nv config apply --confirm 600s -y" in d._exec.sent
    d.rollback()
    assert d._exec.sent[-1] == "nv config apply 12 -y"
    assert parse_history_applied(rec("nvue/config_history.txt")) == ["13", "12"]


@pytest.mark.parametrize(
    ("cls", "running_cmd", "startup_file"),
    [
        (SonicDriver, "show runningconfiguration all", "/etc/sonic/config_db.json"),
        (NvueDriver, "nv config show -o yaml", "/etc/nvue.d/startup.yaml"),
    ],
)
def test_get_config_reads_running_and_startup_with_the_platforms_commands(
    cls: Any, running_cmd: str, startup_file: str
) -> None:
    extra = {"frr_conf": False} if cls is SonicDriver else {}  # the plain config_db.json, as NAPALM users expect
    d = driver(cls, {running_cmd: (0, "RUNNING"), f"cat {startup_file}": (0, "STARTUP")}, **extra)
    assert d.get_config() == {"running": "RUNNING", "candidate": "", "startup": "STARTUP"}
    assert d.get_config(retrieve="running") == {"running": "RUNNING", "candidate": "", "startup": ""}
    assert d._exec.sent == [running_cmd, f"cat {startup_file} 2>/dev/null", running_cmd]


def test_sonic_refuses_a_candidate_that_is_not_json_before_uploading_it() -> None:
    from napalm.base.exceptions import ReplaceConfigException

    d = driver(SonicDriver, {})
    with pytest.raises(ReplaceConfigException, match="not JSON"):
        d.load_replace_candidate(config="{not json")
    assert d._exec.sent == []  # nothing reached the device


@pytest.mark.parametrize("cls", [SonicDriver, NvueDriver])
def test_commit_is_refused_without_a_candidate_or_while_a_confirm_is_pending(cls: Any) -> None:
    from napalm.base.exceptions import CommitError, MergeConfigException

    d = driver(cls, {})
    with pytest.raises(CommitError, match="no candidate loaded"):
        d.commit_config(revert_in=60)
    with pytest.raises(MergeConfigException, match=f"the {d.platform} driver replaces the whole configuration"):
        d.load_merge_candidate(config="x")
    d._candidate = "loaded"
    d.has_pending_commit = lambda: True
    with pytest.raises(CommitError, match="already pending"):
        d.commit_config(revert_in=60)
    assert d._exec.sent == []  # refused before anything reached the device


def test_sonic_peers_advertise_their_alias_and_verify_matches_it() -> None:
    """SONiC's lldpd puts the port alias (etp1a) in the port ID; verify reads aliases from the intended config_db."""
    from fabricgen.deploy.intended import intended_configs
    from fabricgen.deploy.verify import check_lldp, sonic_aliases
    from tests.conftest import INVENTORIES, load_fabric

    fabric = load_fabric(INVENTORIES / "lab")
    platforms = {n: s.platform for n, s in fabric.switches.items()}
    aliases = sonic_aliases(intended_configs(fabric), platforms)
    ports = [p for p in fabric.switches["leaf1"].ports if p.peer_device in fabric.switches]
    assert ports and all((p.peer_device, p.peer_port) in aliases for p in ports)
    rows = "".join(f"{p.name:<13}{p.peer_device:<16}{aliases[(p.peer_device, p.peer_port)]:<19}BR            "
                   f"{p.peer_device}:{p.name}\n" for p in ports)
    table = ("Capability codes: (R) Router, (B) Bridge, (O) Other\n"
             "LocalPort    RemoteDevice    RemotePortID       Capability    RemotePortDescr\n"
             "-----------  --------------  -----------------  ------------  -----------------\n" + rows +
             "--------------------------------------------------\nTotal entries displayed:  4\n")
    lldp = parse_lldp_table(table)
    scope = set(fabric.switches)
    assert [c.ok for c in check_lldp(fabric, "leaf1", scope, lldp, aliases)] == [True] * len(ports)
    without = check_lldp(fabric, "leaf1", scope, lldp)  # by name only, every check would fail
    assert not any(c.ok for c in without)


SONIC_BUNDLE = json.dumps({
    "config_db.json": {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "docker_routing_config_mode": "split"}}},
    "frr.conf": "frr defaults datacenter\nhostname leaf1\nrouter bgp 4200100001\n bgp router-id 10.0.0.1\n"
                " neighbor 10.128.6.0 remote-as 4200000100\n address-family ipv4 unicast\n  maximum-paths 64\n",
})


def test_sonic_pushes_config_db_and_frr_conf_with_one_revert_timer_for_both() -> None:
    running_db = json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf1",
                                                               "docker_routing_config_mode": "split"}}})
    d = driver(SonicDriver, {
        "show runningconfiguration all": (0, running_db),
        "sudo docker exec bgp /usr/lib/frr/frr-reload.py --test": (0, rec("sonic/frr_reload_test.txt")),
        "sudo config replace": (0, rec("sonic/config_replace_ok.txt")),
        "rm -f /tmp/fabricgen/revert.log; setsid": (0, "4242\n"),
    })
    d.load_replace_candidate(config=SONIC_BUNDLE)
    diff = d.compare_config()
    assert diff.splitlines() == [
        "- frr.conf: router bgp 4200100001 / neighbor 10.128.6.0 shutdown",
        "+ frr.conf: router bgp 4200100001 / address-family ipv4 unicast / maximum-paths 64",
    ]
    d.commit_config(revert_in=120)
    assert d._exec.sent == [
        "mkdir -p /tmp/fabricgen && chmod 700 /tmp/fabricgen",
        "sudo install -m 600 /tmp/fabricgen/candidate-frr.conf /etc/sonic/frr/fabricgen-candidate.conf",
        "sudo docker exec bgp vtysh --dryrun -f /etc/frr/fabricgen-candidate.conf",
        "show runningconfiguration all",
        "sudo docker exec bgp /usr/lib/frr/frr-reload.py --test --stdout /etc/frr/fabricgen-candidate.conf",
        TIMER_SCAN,  # no timer armed: found by its marker, with or without a record
        "sudo config checkpoint fabricgen-rollback",
        "sudo docker exec bgp vtysh -c 'show running-config' | sudo tee /etc/sonic/frr/fabricgen-rollback.conf "
        ">/dev/null",
        d._exec.sent[8],  # the timer, armed before anything changes
        "sudo config replace /tmp/fabricgen/candidate.json",
        "sudo docker exec bgp /usr/lib/frr/frr-reload.py --reload /etc/frr/fabricgen-candidate.conf",
        "rm -f /tmp/fabricgen/candidate.json /tmp/fabricgen/candidate-frr.conf; "
        "sudo rm -f /etc/sonic/frr/fabricgen-candidate.conf",  # no candidate is left on the switch
    ]
    timer = d._exec.sent[8]
    assert "sleep 120" in timer and timer.endswith("fabricgen-revert-timer </dev/null >/dev/null 2>&1 & echo $!")
    # the timer writes its own record (pid $$, deadline), by a rename, before it sleeps; removes it after
    script = shlex.split(timer.split("; ", 1)[1])[4]  # setsid nohup sh -c SCRIPT marker
    assert script.index("> /tmp/fabricgen/pending.json.tmp && mv -f /tmp/fabricgen/pending.json.tmp "
                        "/tmp/fabricgen/pending.json") < script.index("sleep 120")
    assert '"$$"' in script and script.endswith("; rm -f /tmp/fabricgen/pending.json")
    assert ("sudo config rollback fabricgen-rollback && sudo docker exec bgp /usr/lib/frr/frr-reload.py --reload "
            "/etc/frr/fabricgen-rollback.conf && sudo config save -y") in timer.replace("'\"'\"'", "'")


def test_sonic_running_configuration_is_the_bundle_so_drift_sees_frr_changes() -> None:
    from fabricgen.deploy.normalize import compare

    running_db = json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf1",
                                                               "docker_routing_config_mode": "split"}}})
    d = driver(SonicDriver, {"show runningconfiguration all": (0, running_db),
                             "vtysh -c 'show running-config'": (0, rec("sonic/frr_running_leaf1.conf"))})
    running = d.get_config(retrieve="running", sanitized=True)["running"]
    diff = compare("sonic", SONIC_BUNDLE, running)
    assert diff.missing == ("frr.conf: router bgp 4200100001 / address-family ipv4 unicast",
                            "frr.conf: router bgp 4200100001 / address-family ipv4 unicast / maximum-paths 64")
    # every running line the replace removes, the two this bundle does not render included
    assert diff.unexpected == ("frr.conf: log syslog informational", "frr.conf: no service integrated-vtysh-config",
                               "frr.conf: router bgp 4200100001 / neighbor 10.128.6.0 shutdown")
    assert diff.impact == {"routing": [*diff.missing, diff.unexpected[2]], "other": list(diff.unexpected[:2])}


_PEER = " neighbor 10.128.6.0 remote-as 4200000100\\n"
SONIC_BFD_BUNDLE = SONIC_BUNDLE.replace(_PEER, _PEER + " neighbor 10.128.6.0 bfd\\n")


@pytest.mark.parametrize(("bfdd", "refused"), [(1, True), (0, False)])
def test_sonic_refuses_bfd_where_the_bgp_container_runs_no_bfdd(bfdd: int, refused: bool) -> None:
    from napalm.base.exceptions import ReplaceConfigException

    assert "neighbor 10.128.6.0 bfd" in SONIC_BFD_BUNDLE
    d = driver(SonicDriver, {"sudo docker exec bgp pgrep -x bfdd": (bfdd, "" if bfdd else "4711\n")})
    if refused:
        with pytest.raises(ReplaceConfigException, match="bfdd is not running in the bgp container"):
            d.load_replace_candidate(config=SONIC_BFD_BUNDLE)
        assert not [c for c in d._exec.sent if "config replace" in c or "frr-reload" in c]  # nothing changed
    else:
        d.load_replace_candidate(config=SONIC_BFD_BUNDLE)
    assert "sudo docker exec bgp pgrep -x bfdd" in d._exec.sent
    d2 = driver(SonicDriver, {"sudo docker exec bgp pgrep -x bfdd": (1, "")})
    d2.load_replace_candidate(config=SONIC_BUNDLE)  # no BFD in the candidate: bfdd is not asked for
    assert "sudo docker exec bgp pgrep -x bfdd" not in d2._exec.sent


def test_sonic_reads_its_bgp_table_with_the_vtysh_of_its_bgp_container() -> None:
    """The drain check's route getter on SONiC: FRR's ``show ip bgp json`` (recorded on the FRR lab, the same
    bgpd), read whole for ``destination=""`` and narrowed to one prefix otherwise; only BGP is read."""
    text = (Path(__file__).parent / "data" / "routing" / "leaf1-show-ip-bgp-undrained.txt").read_text()
    body = text.split("\n", 1)[1]  # the first line says where it was recorded
    d = driver(SonicDriver, {"vtysh -c 'show ip bgp json'": (0, body)})
    every = d.get_route_to(destination="", protocol="bgp")
    assert "vtysh -c 'show ip bgp json'" in d._exec.sent
    assert "10.0.0.2/32" in every and len(every) == len(json.loads(body)["routes"])
    (one,) = d.get_route_to(destination="10.0.0.2").values()
    assert {p["next_hop"] for p in one if p["selected_next_hop"]} == {p["next_hop"] for p in every["10.0.0.2/32"]
                                                                      if p["selected_next_hop"]}
    with pytest.raises(NotImplementedError, match="only BGP routes are read on sonic"):
        d.get_route_to(destination="10.0.0.2", protocol="static")
