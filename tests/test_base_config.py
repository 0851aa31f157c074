"""Base configuration (management, users, API, NTP, syslog, SNMP, banner): inventory, merge, rendering on every
platform, the pre-push guard, the FG-BASE-001 finding, and secrets (never in a rendered file or an error)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fabricgen.checks import run_checks
from fabricgen.deploy.mgmt import management_problems
from fabricgen.deploy.secrets import secret_values, substitute
from fabricgen.errors import InputError
from fabricgen.inventory.load import load_inventory
from fabricgen.render.base import build_base
from fabricgen.render.retarget import retarget
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES
from tests.test_loader import problems
from tests.test_render_common import fabric_as, lab_configs

LAB = INVENTORIES / "lab"
OPS_HASH = "$6$labsalt$0fJ2mP0JYbJpH0B4pMkqY8O7vJ4V7x6N8n0bH5qQZ3l0Gk4sVQ1rW9yR7cT2aE6uX3dF8gH1jK5mN9pL2oI4u."
ADMIN = "__FABRICGEN_ENV_FABRICGEN_ADMIN_HASH__"
SNMP = "__FABRICGEN_ENV_FABRICGEN_SNMP_RO__"


def _lab_with(tmp_path: Path, base_yaml: str) -> Path:
    out = tmp_path / "lab"
    shutil.copytree(LAB, out)
    (out / "base.yaml").write_text(base_yaml)
    return out


# --------------------------------------------------------------------------- merge


def test_switch_over_role_over_defaults() -> None:
    fabric = fabric_as(LAB, "eos")
    spine, leaf = build_base(fabric, "spine1", "eos"), build_base(fabric, "leaf1", "eos")
    assert spine is not None and leaf is not None
    assert spine.syslog == ("192.0.2.60", "192.0.2.61")  # the spine role replaces the list
    assert leaf.syslog == ("192.0.2.60",)  # the defaults
    assert (spine.mgmt_address, spine.mgmt_gateway) == ("192.0.2.11/24", "192.0.2.1")  # switch + defaults, merged
    assert leaf.mgmt_address == "192.0.2.21/24"
    assert [(u.name, u.role, u.secret) for u in leaf.users] == [
        ("admin", "network-admin", ADMIN), ("ops", "network-operator", OPS_HASH)]


def test_frr_has_no_base_and_no_base_means_none(tmp_path: Path) -> None:
    assert build_base(fabric_as(LAB, "frr"), "leaf1", "frr") is None
    bare = tmp_path / "bare"
    shutil.copytree(INVENTORIES / "su1", bare)
    fabric = resolve(load_inventory(bare))
    name = sorted(fabric.switches)[0]
    assert build_base(fabric, name, fabric.switches[name].platform) is None


# --------------------------------------------------------------------------- rendering, per platform


def test_eos_base_lines() -> None:
    text = lab_configs("eos")["leaf1"].main
    for line in ("vrf instance MGMT", "interface Management1\n   vrf MGMT\n   ip address 192.0.2.21/24\n",
                 "ip route vrf MGMT 0.0.0.0/0 192.0.2.1",
                 f"username admin privilege 15 role network-admin secret sha512 {ADMIN}",
                 f"username ops privilege 1 role network-operator secret sha512 {OPS_HASH}",
                 "ntp server vrf MGMT 192.0.2.50\nntp server vrf MGMT 192.0.2.51\n",
                 "logging vrf MGMT host 192.0.2.60\n", f"snmp-server community {SNMP} ro",
                 "snmp-server location lab row 1", "snmp-server vrf MGMT",
                 "management api http-commands\n   protocol https\n   no shutdown\n   !\n"
                 "   vrf MGMT\n      no shutdown\n",
                 "banner login\nAuthorized access only - fabric lab\nEOF\n"):
        assert line in text, line


def test_nxos_base_lines() -> None:
    text = lab_configs("nxos")["leaf1"].main
    for line in ("feature ssh\nfeature nxapi\n", f"username admin password 5 {ADMIN} role network-admin",
                 "vrf context management\n  ip route 0.0.0.0/0 192.0.2.1\n",
                 "interface mgmt0\n  vrf member management\n  ip address 192.0.2.21/24\n",
                 "ntp server 192.0.2.50 use-vrf management", "logging server 192.0.2.60 6 use-vrf management",
                 f"snmp-server community {SNMP} group network-operator",
                 "banner motd #Authorized access only - fabric lab#"):
        assert line in text, line


def test_junos_base_lines() -> None:
    lines = lab_configs("junos")["leaf1"].main.splitlines()
    for line in ("set system management-instance",
                 "set interfaces re0:mgmt-0 unit 0 family inet address 192.0.2.21/24",
                 "set routing-instances mgmt_junos routing-options static route 0.0.0.0/0 next-hop 192.0.2.1",
                 "set system login user admin class super-user",
                 f'set system login user admin authentication encrypted-password "{ADMIN}"',
                 "set system login user ops class read-only", "set system services ssh",
                 "set system services netconf ssh", "set system ntp server 192.0.2.51 routing-instance mgmt_junos",
                 "set system syslog host 192.0.2.60 routing-instance mgmt_junos",
                 f"set snmp community {SNMP} authorization read-only", "set snmp routing-instance-access",
                 'set system login message "Authorized access only - fabric lab"'):
        assert line in lines, line


def test_nvue_and_sonic_base() -> None:
    from ruamel.yaml import YAML

    (doc,) = YAML(typ="safe").load(lab_configs("nvue")["leaf1"].main)
    s = doc["set"]
    assert s["system"]["aaa"]["user"] == {"admin": {"hashed-password": ADMIN, "role": "system-admin"},
                                          "ops": {"hashed-password": OPS_HASH, "role": "nvue-monitor"}}
    assert s["system"]["message"] == {"pre-login": "Authorized access only - fabric lab"}
    eth0 = s["interface"]["eth0"]
    ip = eth0.get("ip") or eth0["ipv4"]
    assert ip["address"] == {"192.0.2.21/24": {}} and ip["gateway"] == {"192.0.2.1": {}}
    assert (ip.get("vrf") or eth0.get("vrf")) == "mgmt"
    import json

    db = json.loads(lab_configs("sonic")["leaf1"].main)
    assert db["MGMT_INTERFACE"] == {"eth0|192.0.2.21/24": {"gwaddr": "192.0.2.1"}}
    assert db["MGMT_PORT"] == {"eth0": {"admin_status": "up", "alias": "eth0"}}


# --------------------------------------------------------------------------- the pre-push guard


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos", "sonic", "nvue"])
def test_guard_passes_own_address_and_refuses_another(platform: str) -> None:
    from fabricgen.deploy.intended import intended_configs

    config = intended_configs(fabric_as(LAB, platform), ["spine1"])["spine1"]
    assert management_problems(platform, config, "192.0.2.11") == []
    assert management_problems(platform, config, "192.0.2.12") == [
        "the candidate configures no interface with 192.0.2.12, the address this session uses"]


def test_guard_refuses_eos_without_api(tmp_path: Path) -> None:
    lab = _lab_with(tmp_path, "base: {defaults: {api: false}}\n")
    fabric = resolve(retarget(load_inventory(lab), "eos"))
    from fabricgen.deploy.intended import intended_configs

    config = intended_configs(fabric, ["spine1"])["spine1"]
    assert "management api http-commands" not in config
    problems_ = management_problems("eos", config, "192.0.2.11")
    assert problems_ == ["the candidate does not enable eAPI (`management api http-commands` / `no shutdown`), "
                         "the access this session uses"]
    codes = [(f.code, f.subject, f.message) for f in run_checks(fabric) if f.code == "FG-BASE-001"]
    assert ("FG-BASE-001", "spine1",
            "the eos configuration has no eAPI (management api http-commands) (base.api: true); "
            "`apply` would refuse to replace it") in codes


def test_finding_names_switch_without_management() -> None:
    fabric = resolve(load_inventory(INVENTORIES / "su1"))
    found = [f for f in run_checks(fabric) if f.code == "FG-BASE-001"]
    non_frr = sorted(n for n, s in fabric.switches.items() if s.platform != "frr")
    assert sorted(f.subject for f in found) == non_frr
    assert all("no management address (base.mgmt.address)" in f.message for f in found)
    assert not [f for f in run_checks(fabric_as(LAB, "nxos")) if f.code == "FG-BASE-001"]


# --------------------------------------------------------------------------- bad input


def test_hostile_base_refused_with_positions(tmp_path: Path) -> None:
    lab = _lab_with(tmp_path, (
        "base:\n"
        "  defaults:\n"
        "    users:\n"
        '      admin: {role: admin, secret: "hunter2"}\n'
        "    snmp: {community: env:lower}\n"
        '    banner: "hi\\nconfigure terminal"\n'
        "  roles:\n"
        "    leaf:\n"
        "      ntp: [192.0.2.500]\n"
        "      mgmt: {address: 192.0.2.0/24}\n"
    ))
    f = lab / "base.yaml"
    got = problems(lab)
    assert got == [
        f"{f}:4:28: base.defaults.users[admin].secret: a sha512-crypt hash ($6$salt$86 characters of [./A-Za-z0-9]) "
        "or a reference env:NAME; clear-text secrets are not accepted",
        f"{f}:5:12: base.defaults.snmp.community: a secret reference env:NAME, NAME of ASCII upper-case letters, "
        "digits and '_' (first not a digit); 'l' is not allowed",
        f"{f}:6:5: base.defaults.banner: one line of ASCII letters, digits, space and '.,_:/()+@-' (first a letter "
        "or digit); '\\n' is not allowed (got 'hi\\nconfigure terminal')",
        f"{f}:9:13: base.roles.leaf.ntp[0]: '192.0.2.500' is not an IPv4 address",
        f"{f}:10:14: base.roles.leaf.mgmt.address: '192.0.2.0/24' is the network or broadcast address of its prefix",
    ]
    assert not any("hunter2" in line for line in got)  # a mistyped secret is never echoed


# --------------------------------------------------------------------------- secrets


CANARY_ADMIN = "$6$canary$" + "C" * 86
CANARY_SNMP = "canarY7f3a"


def test_rendered_tree_holds_no_secret(tmp_path: Path) -> None:
    env = {**os.environ, "FABRICGEN_ADMIN_HASH": CANARY_ADMIN, "FABRICGEN_SNMP_RO": CANARY_SNMP}
    for platform in ("eos", "junos"):
        out = tmp_path / platform
        run = subprocess.run([sys.executable, "-m", "fabricgen", "render", str(LAB), "-o", str(out),
                              "--platform", platform], capture_output=True, text=True, env=env, check=False)
        assert run.returncode == 0, run.stderr
        files = [p for p in out.rglob("*") if p.is_file()]
        assert files
        text = "".join(p.read_text() for p in files) + run.stdout + run.stderr
        assert SNMP in text and ADMIN in text and "canary" not in text


def test_secret_values_resolved_and_missing_named() -> None:
    configs = {"leaf1": f"a {ADMIN}\nb {SNMP} ro\n", "leaf2": f"b {SNMP} ro\n"}
    env = {"FABRICGEN_ADMIN_HASH": CANARY_ADMIN, "FABRICGEN_SNMP_RO": CANARY_SNMP}
    values = secret_values(configs, env)
    assert substitute(configs["leaf1"], values) == f"a {CANARY_ADMIN}\nb {CANARY_SNMP} ro\n"
    with pytest.raises(InputError) as info:
        secret_values(configs, {"FABRICGEN_ADMIN_HASH": CANARY_ADMIN})
    assert [str(p) for p in info.value.problems] == [
        "<inventory>: base: env:FABRICGEN_SNMP_RO: environment variable FABRICGEN_SNMP_RO is not set "
        "(a secret of leaf1, leaf2)"]
    with pytest.raises(InputError) as info:
        secret_values(configs, {**env, "FABRICGEN_SNMP_RO": "two words"})
    assert "two words" not in str(info.value)


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos", "nvue"])
def test_unchanged_secret_is_not_drift_and_never_shown(platform: str) -> None:
    from fabricgen.deploy.normalize import compare

    intended = lab_configs(platform)["leaf1"].main
    running = substitute(intended, {"FABRICGEN_ADMIN_HASH": CANARY_ADMIN, "FABRICGEN_SNMP_RO": CANARY_SNMP})
    assert CANARY_ADMIN in running
    assert not compare(platform, intended, running).drifted
    changed = running.replace("192.0.2.21/24", "192.0.2.59/24")
    diff = compare(platform, intended, changed)
    assert diff.drifted
    shown = repr(diff)
    assert "192.0.2.59" in shown and "canar" not in shown.lower()
