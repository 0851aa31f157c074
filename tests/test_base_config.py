"""Base configuration (management, users, API, NTP, syslog, SNMP, banner): inventory, merge, rendering on every
platform, the pre-push guard, the FG-BASE-001 finding, and secrets (never in a rendered file or an error)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fabricgen.checks import run_checks
from fabricgen.deploy.mgmt import management_problems
from fabricgen.deploy.secrets import secret_values, substitute
from fabricgen.errors import InputError
from fabricgen.inventory.load import load_inventory
from fabricgen.render.base import build_base
from fabricgen.render.retarget import retarget
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES, require
from tests.test_loader import problems
from tests.test_render_common import fabric_as, lab_configs

if TYPE_CHECKING:
    from fabricgen.topology.model import Fabric

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
    assert ("FG-BASE-001", "eos spine switches",
            "the eos configuration has no eAPI (management api http-commands) (base.api: true); "
            "`apply` would refuse to replace it (2 spine switches: spine1, spine2)") in codes


def test_finding_counts_and_names_switches_without_management() -> None:
    """One FG-BASE-001 per platform and role (not one per switch: a 100k-GPU fabric has 5,720 switches), with
    how many switches and the first five names."""
    fabric = resolve(load_inventory(INVENTORIES / "su1"))
    found = [f for f in run_checks(fabric) if f.code == "FG-BASE-001"]
    assert [(f.subject, f.message) for f in found] == [
        ("nvue leaf switches", "the nvue configuration has no management address (base.mgmt.address); `apply` would "
         "refuse to replace it (8 leaf switches: leaf-su001-r0, leaf-su001-r1, leaf-su001-r2, leaf-su001-r3, "
         "leaf-su001-r4 and 3 more)"),
        ("nvue spine switches", "the nvue configuration has no management address (base.mgmt.address); `apply` "
         "would refuse to replace it (8 spine switches: spine-01, spine-02, spine-03, spine-04, spine-05 and 3 more)"),
    ]
    assert [str(f.src) for f in found] == [str(fabric.pos("intent", "rail_optimized"))] * 2  # where the intent is
    assert not [f for f in run_checks(fabric_as(LAB, "nxos")) if f.code == "FG-BASE-001"]


def test_finding_groups_by_what_is_missing(tmp_path: Path) -> None:
    """Only the switches that lack something are counted (the spines have their API here), grouped by what they
    lack; the finding points at the first switch of its group."""
    lab = _lab_with(tmp_path, "base: {defaults: {api: true, mgmt: {address: 192.0.2.9/24}}, "
                              "roles: {leaf: {api: false}}}\n")
    fabric = resolve(retarget(load_inventory(lab), "eos"))
    found = [f for f in run_checks(fabric) if f.code == "FG-BASE-001"]
    assert [(f.subject, f.message) for f in found] == [
        ("eos leaf switches", "the eos configuration has no eAPI (management api http-commands) (base.api: true); "
         "`apply` would refuse to replace it (4 leaf switches: leaf1, leaf2, leaf3, leaf4)"),
    ]
    assert found[0].src == fabric.switches["leaf1"].src


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
        "digits and '_' (first not a digit)",
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


# --------------------------------------------------------------------------- AAA (TACACS+/RADIUS) and services

AAA_BASE = """\
base:
  defaults:
    mgmt: {gateway: 192.0.2.1}
    users:
      admin: {role: admin, secret: env:FABRICGEN_ADMIN_HASH}
    api: true
    ntp: [192.0.2.50, 192.0.2.51]
    syslog: [192.0.2.60]
    snmp: {community: env:FABRICGEN_SNMP_RO, location: lab row 1}
    aaa:
      tacacs:
        - {address: 192.0.2.70, key: env:FABRICGEN_TACACS_KEY}
        - {address: 192.0.2.71, port: 4949, key: env:FABRICGEN_TACACS_KEY}
      radius:
        - {address: 192.0.2.80, key: env:FABRICGEN_RADIUS_KEY}
      order: [tacacs, radius, local]
  roles:
    spine:
      aaa: {order: [radius, local]}
"""
TACACS_KEY = "__FABRICGEN_ENV_FABRICGEN_TACACS_KEY__"
RADIUS_KEY = "__FABRICGEN_ENV_FABRICGEN_RADIUS_KEY__"


def _aaa_fabric(tmp_path: Path, platform: str, base_yaml: str = AAA_BASE, release: str | None = None) -> Fabric:
    loaded = retarget(load_inventory(_lab_with(tmp_path, base_yaml)), platform)
    if release is not None:
        from tests.test_render_nvue import with_settings

        loaded = with_settings(loaded, release)
    return resolve(loaded)


def _aaa_main(tmp_path: Path, platform: str, name: str = "leaf1", release: str | None = None) -> str:
    from fabricgen.render import render_device

    return render_device(_aaa_fabric(tmp_path, platform, release=release), name).main


def test_aaa_merges_key_by_key(tmp_path: Path) -> None:
    fabric = _aaa_fabric(tmp_path, "eos")
    leaf, spine = build_base(fabric, "leaf1", "eos"), build_base(fabric, "spine1", "eos")
    assert leaf is not None and spine is not None
    assert [(s.address, s.port, s.key, s.priority) for s in leaf.tacacs] == [
        ("192.0.2.70", 49, TACACS_KEY, 1), ("192.0.2.71", 4949, TACACS_KEY, 2)]
    assert [(s.address, s.port, s.key) for s in leaf.radius] == [("192.0.2.80", 1812, RADIUS_KEY)]
    assert leaf.login_methods == ("group tacacs+", "group radius", "local")
    # the spine role writes only the order: the servers still come from the defaults
    assert spine.tacacs == leaf.tacacs and spine.aaa_order == ("radius", "local")
    junos = build_base(_aaa_fabric(tmp_path / "j", "junos"), "spine1", "junos")
    assert junos is not None and junos.login_methods == ("radius", "password")


def test_aaa_switch_overrides_role(tmp_path: Path) -> None:
    lab = _lab_with(tmp_path, AAA_BASE)
    files = [p for p in lab.glob("*.yaml") if "name: spine1," in p.read_text()]
    assert len(files) == 1
    f = files[0]
    f.write_text(f.read_text().replace("base: {mgmt: {address: 192.0.2.11/24}}",
                                       "base: {mgmt: {address: 192.0.2.11/24}, aaa: {order: [local, tacacs]}}"))
    fabric = resolve(retarget(load_inventory(lab), "sonic"))
    b = build_base(fabric, "spine1", "sonic")
    assert b is not None and b.login_methods == ("local", "tacacs+")
    assert [s.address for s in b.radius] == ["192.0.2.80"]  # servers still inherited from the defaults


def test_no_servers_no_aaa_lines(tmp_path: Path) -> None:
    text = lab_configs("eos")["leaf1"].main
    assert "tacacs" not in text and "radius" not in text and "aaa " not in text
    assert "tacacs" not in lab_configs("nxos")["leaf1"].main
    b = build_base(fabric_as(LAB, "junos"), "leaf1", "junos")
    assert b is not None and b.aaa_order == () and b.login_methods == ()


def test_eos_aaa_lines(tmp_path: Path) -> None:
    text = _aaa_main(tmp_path, "eos")
    for line in (f"tacacs-server host 192.0.2.70 vrf MGMT key 0 {TACACS_KEY}\n",
                 f"tacacs-server host 192.0.2.71 vrf MGMT port 4949 key 0 {TACACS_KEY}\n",
                 f"radius-server host 192.0.2.80 vrf MGMT key 0 {RADIUS_KEY}\n",
                 "aaa authentication login default group tacacs+ group radius local\n",
                 "aaa authorization exec default group tacacs+ group radius local\n",
                 "ip tacacs vrf MGMT source-interface Management1\n",
                 "ip radius vrf MGMT source-interface Management1\n"):
        assert line in text, line


def test_eos_aaa_matches_avd(tmp_path: Path) -> None:
    """Arista's own generator renders the same AAA lines from AVD's data model (no custom TACACS+ port: AVD does
    not model one)."""
    import importlib.util

    if importlib.util.find_spec("pyavd") is None:
        pytest.skip("pyavd (the `oracles` extra) is not installed")
    import pyavd

    from tests.eos_avd import blocks

    base = AAA_BASE.replace(", port: 4949", "")
    fabric = _aaa_fabric(tmp_path, "eos", base)
    from fabricgen.render import render_device

    ours = blocks(render_device(fabric, "leaf1").main)
    b = build_base(fabric, "leaf1", "eos")
    assert b is not None
    cfg = {"hostname": "leaf1",
           "tacacs_servers": {"hosts": [{"host": s.address, "vrf": b.vrf, "key": s.key, "key_type": "0"}
                                        for s in b.tacacs]},
           "ip_tacacs_source_interfaces": [{"name": b.mgmt_interface, "vrf": b.vrf}],
           "radius_server": {"vrfs": [{"name": b.vrf, "servers": [{"host": s.address, "key": s.key, "key_type": "0"}
                                                                   for s in b.radius]}]},
           "ip_radius_source_interfaces": [{"name": b.mgmt_interface, "vrf": b.vrf}],
           "aaa_authentication": {"login": {"default": " ".join(b.login_methods)}},
           "aaa_authorization": {"exec": {"default": " ".join(b.login_methods)}}}
    result = pyavd.validate_structured_config(cfg)
    assert not result.validation_result.violations
    theirs = blocks(str(pyavd.get_device_config(result.validated_data)))
    aaa = {k: v for k, v in theirs.items() if k != "hostname leaf1"}
    assert len(aaa) == 7
    assert {k: ours.get(k) for k in aaa} == aaa


def test_nxos_aaa_lines_pass_the_checker(tmp_path: Path) -> None:
    from tests.nxos_check import check

    text = _aaa_main(tmp_path, "nxos")
    for block in ("feature tacacs+\n",
                  f"tacacs-server host 192.0.2.70 key 0 {TACACS_KEY}\n",
                  f"tacacs-server host 192.0.2.71 key 0 {TACACS_KEY} port 4949\n",
                  "aaa group server tacacs+ TACACS\n  server 192.0.2.70\n  server 192.0.2.71\n"
                  "  use-vrf management\n  source-interface mgmt0\n",
                  f"radius-server host 192.0.2.80 key 0 {RADIUS_KEY} authentication\n",
                  "aaa group server radius RADIUS\n  server 192.0.2.80\n  use-vrf management\n"
                  "  source-interface mgmt0\n",
                  "aaa authentication login default group TACACS RADIUS\n"):
        assert block in text, block
    import re

    lossless = {int(p) for p in re.findall(r"pause pfc-cos (\d)", text)}
    assert check(text, lossless) == []
    assert any("no documented command" in e
               for e in check(text.replace("use-vrf management", "use-vrf mgmt"), lossless))


def test_junos_aaa_lines_pass_the_checker(tmp_path: Path) -> None:
    from tests.junos_check import check

    text = _aaa_main(tmp_path, "junos")
    lines = text.splitlines()
    for line in ("set system tacplus-server 192.0.2.70 port 49",
                 f'set system tacplus-server 192.0.2.70 secret "{TACACS_KEY}"',
                 "set system tacplus-server 192.0.2.70 routing-instance mgmt_junos",
                 "set system tacplus-server 192.0.2.71 port 4949",
                 "set system radius-server 192.0.2.80 port 1812",
                 f'set system radius-server 192.0.2.80 secret "{RADIUS_KEY}"',
                 "set system radius-server 192.0.2.80 routing-instance mgmt_junos",
                 "set system authentication-order [ tacplus radius password ]"):
        assert line in lines, line
    assert check(text) == []
    bad = text.replace("[ tacplus radius password ]", "[ tacplus local ]")
    assert any("authentication-order" in e for e in check(bad))


SONIC_BASE_TABLES = ["AAA", "BREAKOUT_CFG", "MGMT_VRF_CONFIG", "NTP", "NTP_SERVER", "RADIUS_SERVER", "SNMP",
                     "SNMP_COMMUNITY", "SYSLOG_SERVER", "TACPLUS", "TACPLUS_SERVER"]
"""The tables ../shared/sonic-yang has no model for, in the base-configuration fabrics: the base tables and the
Spectrum switches' BREAKOUT_CFG (no sonic-breakout_cfg there): not validated (and said so)."""


def test_sonic_base_tables_and_the_shared_models_lack_theirs(tmp_path: Path) -> None:
    import json

    from fabricgen.render.check import sonic_oracle

    text = _aaa_main(tmp_path, "sonic")
    db = json.loads(text)
    assert db["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": "true"}}
    assert db["NTP"] == {"global": {"src_intf": "eth0", "vrf": "mgmt"}}
    assert db["NTP_SERVER"] == {"192.0.2.50": {"association_type": "server", "iburst": "on"},
                                "192.0.2.51": {"association_type": "server", "iburst": "on"}}
    assert db["SYSLOG_SERVER"] == {"192.0.2.60": {"vrf": "mgmt"}}
    assert db["SNMP_COMMUNITY"] == {SNMP: {"TYPE": "RO"}}
    assert db["SNMP"] == {"LOCATION": {"Location": "lab row 1"}}
    assert db["TACPLUS"] == {"global": {"auth_type": "pap", "passkey": TACACS_KEY, "src_intf": "eth0"}}
    assert db["TACPLUS_SERVER"] == {
        "192.0.2.70": {"passkey": TACACS_KEY, "priority": "2", "tcp_port": "49", "vrf": "mgmt"},
        "192.0.2.71": {"passkey": TACACS_KEY, "priority": "1", "tcp_port": "4949", "vrf": "mgmt"}}
    assert db["RADIUS_SERVER"] == {"192.0.2.80": {"auth_port": "1812", "passkey": RADIUS_KEY, "priority": "1",
                                                  "src_intf": "eth0", "vrf": "mgmt"}}
    assert db["AAA"] == {"authentication": {"failthrough": "True", "login": "tacacs+,radius,local"}}
    oracle = sonic_oracle()
    require(oracle is not None, "the libyang binding is not installed (pip install -e '.[yang]')")
    assert oracle is not None
    # ../shared/sonic-yang has none of sonic-mgmt_vrf, -ntp, -syslog, -snmp, -system-tacacs, -system-radius,
    # -system-aaa: every base table is named as not validated, and every other table validates
    assert oracle.judge(text) == ([], SONIC_BASE_TABLES)


@pytest.mark.parametrize("release", ["5.9", "5.11", "5.14", "5.15", "5.18"])
def test_nvue_services_and_aaa_pass_the_strict_schema(tmp_path: Path, release: str) -> None:
    from ruamel.yaml import YAML

    from fabricgen.render.check import nvue_oracle, nvue_releases

    text = _aaa_main(tmp_path, "nvue", release=release)
    (doc,) = YAML(typ="safe").load(text)
    s = doc["set"]
    aaa = s["system"]["aaa"]
    new = release in ("5.15", "5.18")
    if new:
        assert aaa["authentication"] == {"order": ["tacacs", "radius", "local"]}
        assert s["system"]["ntp"] == {"server": {"192.0.2.50": {"iburst": "enabled"},
                                                 "192.0.2.51": {"iburst": "enabled"}}, "vrf": "mgmt"}
    else:
        assert aaa["authentication-order"] == {"1": {"tacacs": {}}, "2": {"radius": {}}, "3": {"local": {}}}
        assert s["service"]["ntp"] == {"mgmt": {"server": {"192.0.2.50": {"iburst": "on"},
                                                           "192.0.2.51": {"iburst": "on"}}}}
    if release in ("5.9", "5.11"):
        assert aaa["tacacs"] == {"enable": "on", "vrf": "mgmt", "server": {
            "1": {"host": "192.0.2.70", "port": 49, "secret": TACACS_KEY},
            "2": {"host": "192.0.2.71", "port": 4949, "secret": TACACS_KEY}}}
    elif release == "5.18":  # "Configure TACACS priority for server, lower comes first" (NVUE OpenAPI 5.18)
        assert aaa["tacacs"] == {"vrf": "mgmt", "server": {
            "192.0.2.70": {"priority": 1, "port": 49, "secret": TACACS_KEY},
            "192.0.2.71": {"priority": 2, "port": 4949, "secret": TACACS_KEY}}}
    else:  # "Configure tacacs priority for server, higher comes first" (5.12–5.17): the first written is highest
        assert aaa["tacacs"] == {"vrf": "mgmt", "server": {
            "192.0.2.70": {"priority": 2, "port": 49, "secret": TACACS_KEY},
            "192.0.2.71": {"priority": 1, "port": 4949, "secret": TACACS_KEY}}}
    if release in ("5.9", "5.11"):
        assert s["service"]["syslog"] == {"mgmt": {"server": {"192.0.2.60": {}}}}
    else:
        assert s["system"]["syslog"] == {"server": {"192.0.2.60": {"vrf": "mgmt"}}}
    if release == "5.9":
        snmp = s["service"]["snmp-server"]
        assert snmp["enable"] == "on"
    else:
        snmp = s["system"]["snmp-server"]
        assert snmp["state"] == "enabled"
    assert aaa["radius"]["server"] == {"192.0.2.80": {"port": 1812, "priority": 1, "secret": RADIUS_KEY}}
    assert snmp["readonly-community"] == {SNMP: {"access": {"any": {}}}}
    assert snmp["listening-address"] == {"all": {"vrf": "mgmt"}} and snmp["system-location"] == "lab row 1"
    assert s["system"]["api"] == {"state": "enabled"}
    if not nvue_releases():
        pytest.skip("nvueschema not installed (pip install -e '.[oracles]')")
    oracle = nvue_oracle(release)
    assert oracle is not None
    assert oracle.problems(text) == []


def test_nvue_tacacs_server_tried_first_is_the_first_written_by_each_release_own_words(tmp_path: Path) -> None:
    """The direction of NVUE's TACACS+ server priority is read from each installed release's OpenAPI model
    ("Configure tacacs priority for server, higher comes first" in 5.12–5.17, "lower comes first" from 5.18),
    not from fabricgen: the server written first must be the one that release tries first."""
    import importlib
    import inspect
    import re

    from ruamel.yaml import YAML

    from fabricgen.inventory.releases import at_least
    from fabricgen.render.check import nvue_releases

    releases = [r for r in nvue_releases() if at_least(r, "5.12")]
    if not releases:
        pytest.skip("nvueschema not installed (pip install -e '.[oracles]')")
    seen = set()
    for release in releases:
        source = inspect.getsource(importlib.import_module(f"nvueschema.models.v{release.replace('.', '_')}"))
        words = re.search(r"Configure tacacs priority for server, (higher|lower) comes first", source, re.I)
        assert words is not None, release
        seen.add(words.group(1))
        (doc,) = YAML(typ="safe").load(_aaa_main(tmp_path / release, "nvue", release=release))
        servers = doc["set"]["system"]["aaa"]["tacacs"]["server"]
        pick = max if words.group(1) == "higher" else min
        first = pick(servers, key=lambda address: servers[address]["priority"])
        assert first == "192.0.2.70", (release, servers)  # the inventory writes 192.0.2.70 first
    assert seen == {"higher", "lower"}  # both directions exist among the releases fabricgen renders


def test_plain_text_key_refused_with_position(tmp_path: Path) -> None:
    lab = _lab_with(tmp_path, (
        "base:\n"
        "  defaults:\n"
        "    aaa:\n"
        "      tacacs:\n"
        '        - {address: 192.0.2.70, key: "s3cr3t-tac"}\n'
        "      order: [tacacs]\n"
    ))
    f = lab / "base.yaml"
    got = problems(lab)
    assert got == [
        f"{f}:5:33: base.defaults.aaa.tacacs[0].key: a secret reference env:NAME, NAME of ASCII upper-case letters, "
        "digits and '_' (first not a digit)",
        f"{f}:6:7: base.defaults.aaa.order: ['tacacs'] does not name local: the local users would be locked out "
        "when no server answers",
    ]
    assert not any("s3cr3t" in line for line in got)
    assert not any("'s'" in line for line in got)  # not even the first character of the clear-text key
    run = subprocess.run([sys.executable, "-m", "fabricgen", "validate", str(lab)], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 3 and "Traceback" not in run.stderr and "s3cr3t" not in run.stdout + run.stderr


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos", "nvue", "sonic"])
def test_aaa_keys_never_rendered_nor_drift(tmp_path: Path, platform: str) -> None:
    from fabricgen.deploy.normalize import compare, mask_junos, sanitize

    def read_sanitized(text: str) -> str:  # as the platform's driver reads a running configuration
        return "\n".join(mask_junos(ln) for ln in text.splitlines()) if platform == "junos" else sanitize(text)

    env = {"FABRICGEN_ADMIN_HASH": CANARY_ADMIN, "FABRICGEN_SNMP_RO": CANARY_SNMP,
           "FABRICGEN_TACACS_KEY": "canaryTac9", "FABRICGEN_RADIUS_KEY": "canaryRad9"}
    intended = _aaa_main(tmp_path, platform)
    assert TACACS_KEY in intended and RADIUS_KEY in intended and "canary" not in intended
    running = substitute(intended, env)
    assert "canaryTac9" in running and "canaryRad9" in running
    shown = read_sanitized(running)
    assert "canary" not in shown.lower()
    assert not compare(platform, intended, shown).drifted
    diff = compare(platform, intended, read_sanitized(running.replace("192.0.2.80", "192.0.2.89")))
    assert diff.drifted and "canar" not in repr(diff).lower()


def test_sonic_management_address_without_gateway_is_an_error(tmp_path: Path) -> None:
    """SONiC's MGMT_INTERFACE model ties ip_prefix and gwaddr (a `must` on each): no gateway, no config_db."""
    lab = _lab_with(tmp_path, (LAB / "base.yaml").read_text().replace("    mgmt: {gateway: 192.0.2.1}\n", ""))
    found = {f.subject: (f.severity.value, f.message) for f in run_checks(fabric_as(lab, "sonic"))
             if f.code == "FG-BASE-003"}
    assert sorted(found) == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]
    assert found["spine2"] == ("error", "management address 192.0.2.12/24 has no gateway (base.mgmt.gateway); "
                               "SONiC's MGMT_INTERFACE model requires one, so the switch would reject its "
                               "config_db.json")
    assert not [f for f in run_checks(fabric_as(lab, "eos")) if f.code == "FG-BASE-003"]
    assert not [f for f in run_checks(fabric_as(LAB, "sonic")) if f.code == "FG-BASE-003"]


def test_an_order_naming_a_method_without_servers_is_a_warning(tmp_path: Path) -> None:
    base = AAA_BASE.replace("      radius:\n        - {address: 192.0.2.80, key: env:FABRICGEN_RADIUS_KEY}\n", "")
    fabric = _aaa_fabric(tmp_path, "eos", base)
    found = {f.subject: (f.severity.value, f.message) for f in run_checks(fabric) if f.code == "FG-BASE-004"}
    assert sorted(found) == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]
    assert found["leaf1"] == ("warning", "aaa.order names radius but no radius server is configured; the login "
                              "order rendered is tacacs, local")
    assert found["spine1"][1].endswith("the login order rendered is local")  # the spine role: [radius, local]
    leaf = build_base(fabric, "leaf1", "eos")
    assert leaf is not None and leaf.login_methods == ("group tacacs+", "local")  # what the message says
    assert not [f for f in run_checks(_aaa_fabric(tmp_path / "full", "eos")) if f.code == "FG-BASE-004"]


# --------------------------------------------------------------------------- command authorization and accounting

AUTHZ_BASE = AAA_BASE.replace(
    "      order: [tacacs, radius, local]\n",
    "      order: [tacacs, radius, local]\n"
    "      authorization: {commands: [tacacs, local]}\n"
    "      accounting: [tacacs, radius]\n",
).replace("      aaa: {order: [radius, local]}\n", "      aaa: {accounting: [radius]}\n")
"""Defaults: authorization through TACACS+ and accounting to both; the spine role accounts to RADIUS only."""


def _authz_main(tmp_path: Path, platform: str, name: str = "leaf1", release: str | None = None,
                base: str = AUTHZ_BASE) -> str:
    from fabricgen.render import render_device

    return render_device(_aaa_fabric(tmp_path, platform, base, release=release), name).main


def test_authorization_and_accounting_merge_level_by_level(tmp_path: Path) -> None:
    lab = _lab_with(tmp_path, AUTHZ_BASE)
    files = [p for p in lab.glob("*.yaml") if "name: spine2," in p.read_text()]
    assert len(files) == 1
    files[0].write_text(files[0].read_text().replace(
        "base: {mgmt: {address: 192.0.2.12/24}}",
        "base: {mgmt: {address: 192.0.2.12/24}, aaa: {authorization: {commands: [local]}}}"))
    fabric = resolve(retarget(load_inventory(lab), "eos"))
    leaf, spine1, spine2 = (build_base(fabric, n, "eos") for n in ("leaf1", "spine1", "spine2"))
    assert leaf is not None and spine1 is not None and spine2 is not None
    # defaults
    assert (leaf.command_authorization, leaf.accounting) == (("tacacs", "local"), ("tacacs", "radius"))
    assert (leaf.authz_methods, leaf.acct_methods) == (("group tacacs+", "local"), ("group tacacs+", "group radius"))
    # the role replaces accounting only; authorization and the servers still come from the defaults
    assert (spine1.command_authorization, spine1.accounting) == (("tacacs", "local"), ("radius",))
    assert spine1.aaa_order == ("tacacs", "radius", "local")
    # the switch replaces authorization (local only: nothing to render), keeps the role's accounting
    assert (spine2.command_authorization, spine2.accounting) == ((), ("radius",))


def test_eos_command_authorization_and_accounting_match_avd(tmp_path: Path) -> None:
    text = _authz_main(tmp_path, "eos")
    lines = text.splitlines()
    for line in ("aaa authorization commands all default group tacacs+ local",
                 "aaa accounting exec default start-stop group tacacs+ group radius",
                 "aaa accounting commands all default start-stop group tacacs+ group radius"):
        assert line in lines, line
    spine = _authz_main(tmp_path / "s", "eos", "spine1").splitlines()
    assert "aaa accounting exec default start-stop group radius" in spine
    import importlib.util

    if importlib.util.find_spec("pyavd") is None:
        pytest.skip("pyavd (the `oracles` extra) is not installed")
    import pyavd

    from tests.eos_avd import blocks

    groups = [{"method": "group", "group": g} for g in ("tacacs+", "radius")]
    cfg = {"hostname": "leaf1",
           "aaa_authorization": {"commands": {"all_default": "group tacacs+ local"}},
           "aaa_accounting": {"exec": {"default": {"type": "start-stop", "methods": groups}},
                              "commands": {"default": [{"commands": "all", "type": "start-stop",
                                                        "methods": groups}]}}}
    result = pyavd.validate_structured_config(cfg)
    assert not result.validation_result.violations
    theirs = {k: v for k, v in blocks(str(pyavd.get_device_config(result.validated_data))).items()
              if k != "hostname leaf1"}
    assert len(theirs) == 3
    assert {k: blocks(text).get(k) for k in theirs} == theirs


def test_nxos_command_authorization_and_accounting_pass_the_checker(tmp_path: Path) -> None:
    import re

    from tests.nxos_check import check

    text = _authz_main(tmp_path, "nxos")
    lines = text.splitlines()
    for line in ("aaa authorization commands default group TACACS local",
                 "aaa authorization config-commands default group TACACS local",
                 "aaa accounting default group TACACS RADIUS"):
        assert line in lines, line
    lossless = {int(p) for p in re.findall(r"pause pfc-cos (\d)", text)}
    assert check(text, lossless) == []
    # RADIUS cannot authorize commands: the checker knows only TACACS+ groups there
    bad = text.replace("config-commands default group TACACS local", "config-commands default group RADIUS local")
    assert any("no documented command" in e for e in check(bad, lossless))


def test_junos_accounting_and_remote_class_pass_the_checker(tmp_path: Path) -> None:
    from tests.junos_check import check

    text = _authz_main(tmp_path, "junos")
    lines = text.splitlines()
    for line in ("set system login user remote class read-only",
                 "set system accounting events [ login change-log interactive-commands ]",
                 "set system accounting destination tacplus",
                 "set system accounting destination radius"):
        assert line in lines, line
    assert check(text) == []
    assert any("accounting events" in e for e in check(text.replace("interactive-commands ]", "commands ]")))
    spine = _authz_main(tmp_path / "s", "junos", "spine1").splitlines()
    assert [ln for ln in spine if "accounting destination" in ln] == ["set system accounting destination radius"]


def test_sonic_authorization_and_accounting_and_the_shared_models_lack_aaa(tmp_path: Path) -> None:
    import json

    from fabricgen.render.check import sonic_oracle

    text = _authz_main(tmp_path, "sonic")
    db = json.loads(text)
    assert db["AAA"] == {"authentication": {"failthrough": "True", "login": "tacacs+,radius,local"},
                         "authorization": {"login": "tacacs+,local"},
                         "accounting": {"login": "tacacs+,local"}}  # RADIUS accounting: not in SONiC (FG-BASE-005)
    oracle = sonic_oracle()
    require(oracle is not None, "the libyang binding is not installed (pip install -e '.[yang]')")
    assert oracle is not None
    assert oracle.judge(text) == ([], SONIC_BASE_TABLES)  # AAA among them: sonic-system-aaa is not in the models


@pytest.mark.parametrize("release", ["5.9", "5.11", "5.14", "5.17", "5.18"])
def test_nvue_authorization_and_accounting_per_release(tmp_path: Path, release: str) -> None:
    from ruamel.yaml import YAML

    from fabricgen.render.check import nvue_oracle, nvue_releases

    text = _authz_main(tmp_path, "nvue", release=release)
    (doc,) = YAML(typ="safe").load(text)
    aaa = doc["set"]["system"]["aaa"]
    legacy = release in ("5.9", "5.11")
    assert aaa["tacacs"]["accounting"] == ({"enable": "on"} if legacy else {"state": "enabled"})
    if release in ("5.17", "5.18"):
        assert aaa["tacacs"]["authorization"] == {str(level): {"all-commands": "enabled"} for level in range(16)}
    else:
        assert "authorization" not in aaa["tacacs"]
    if release == "5.9":
        assert "accounting" not in aaa["radius"]
    else:
        assert aaa["radius"]["accounting"] == {"state": "enabled"}
    if not nvue_releases():
        pytest.skip("nvueschema not installed (pip install -e '.[oracles]')")
    oracle = nvue_oracle(release)
    assert oracle is not None
    assert oracle.problems(text) == []
    if release == "5.14":  # the gate is the schema's: all-commands does not exist before 5.17
        forced = text.replace("        tacacs:\n", "        tacacs:\n          authorization:\n            '0':\n"
                                                    "              all-commands: enabled\n", 1)
        assert oracle.problems(forced) != []


@pytest.mark.parametrize(("snippet", "line", "col", "message"), [
    ("authorization: {commands: [tacacs]}", 7, 23, "base.defaults.aaa.authorization.commands: ['tacacs'] does not "
     "end with local: every command would be refused when no TACACS+ server answers"),
    ("authorization: {commands: [local, tacacs]}", 7, 23, "base.defaults.aaa.authorization.commands: "
     "['local', 'tacacs'] does not end with local: every command would be refused when no TACACS+ server "
     "answers"),
    ("authorization: {commands: [radius, local]}", 7, 34, "base.defaults.aaa.authorization.commands[0]: "
     "Input should be 'tacacs' or 'local' (got 'radius')"),
    ("accounting: [tacacs, tacacs]", 7, 7, "base.defaults.aaa.accounting: ['tacacs', 'tacacs'] names a method "
     "twice"),
    ("accounting: [local]", 7, 20,
     "base.defaults.aaa.accounting[0]: Input should be 'tacacs' or 'radius' (got 'local')"),
])
def test_bad_authorization_or_accounting_refused_with_position(tmp_path: Path, snippet: str, line: int, col: int,
                                                               message: str) -> None:
    lab = _lab_with(tmp_path, (
        "base:\n"
        "  defaults:\n"
        "    aaa:\n"
        "      tacacs:\n"
        "        - {address: 192.0.2.70, key: env:FABRICGEN_TACACS_KEY}\n"
        "      order: [tacacs, local]\n"
        f"      {snippet}\n"
    ))
    assert problems(lab) == [f"{lab / 'base.yaml'}:{line}:{col}: {message}"]
    run = subprocess.run([sys.executable, "-m", "fabricgen", "validate", str(lab)], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 3 and "Traceback" not in run.stderr
    assert f"base.yaml:{line}:{col}: " in run.stdout + run.stderr


def test_authorization_or_accounting_without_servers_is_a_warning(tmp_path: Path) -> None:
    base = AUTHZ_BASE.replace(
        "      tacacs:\n        - {address: 192.0.2.70, key: env:FABRICGEN_TACACS_KEY}\n"
        "        - {address: 192.0.2.71, port: 4949, key: env:FABRICGEN_TACACS_KEY}\n", "").replace(
        "order: [tacacs, radius, local]", "order: [radius, local]")
    fabric = _aaa_fabric(tmp_path, "eos", base)
    found = [(f.subject, f.message) for f in run_checks(fabric) if f.code == "FG-BASE-004"]
    assert [m for s, m in found if s == "leaf1"] == [
        "aaa.authorization.commands names tacacs but no tacacs server is configured; command authorization is not "
        "rendered (the local roles apply)",
        "aaa.accounting names tacacs but no tacacs server is configured; accounting is rendered to radius only"]
    assert all(f.severity.value == "warning" for f in run_checks(fabric) if f.code == "FG-BASE-004")
    text = _authz_main(tmp_path / "r", "eos", base=base)
    assert "aaa authorization commands" not in text  # what the message says
    assert "aaa accounting exec default start-stop group radius\n" in text
    assert not [f for f in run_checks(_aaa_fabric(tmp_path / "full", "eos", AUTHZ_BASE)) if f.code == "FG-BASE-004"]


@pytest.mark.parametrize(("platform", "release", "expected"), [
    ("nvue", "5.14", ["aaa.authorization.commands is not rendered: NVUE 5.14 has no server-side command "
                      "authorization (tacacs authorization <level> all-commands, from 5.17); TACACS+ users keep the "
                      "rights of their privilege level"]),
    ("nvue", "5.9", ["aaa.authorization.commands is not rendered: NVUE 5.9 has no server-side command "
                     "authorization (tacacs authorization <level> all-commands, from 5.17); TACACS+ users keep the "
                     "rights of their privilege level",
                     "RADIUS accounting is not rendered: NVUE 5.9 has no radius accounting (from 5.11)"]),
    ("nvue", "5.18", []),
    ("sonic", None, ["RADIUS accounting is not rendered: SONiC accounts to TACACS+ or syslog only (AAA|accounting)"]),
    ("eos", None, []),
    ("junos", None, []),
])
def test_what_a_platform_cannot_render_is_a_warning(tmp_path: Path, platform: str, release: str | None,
                                                     expected: list[str]) -> None:
    fabric = _aaa_fabric(tmp_path, platform, AUTHZ_BASE, release=release)
    found = [f for f in run_checks(fabric) if f.code == "FG-BASE-005"]
    assert [f.message for f in found if f.subject == "leaf1"] == expected
    assert all(f.severity.value == "warning" for f in found)


def test_junos_remote_template_left_to_a_local_user_named_remote(tmp_path: Path) -> None:
    base = AUTHZ_BASE.replace("      admin: {role: admin, secret: env:FABRICGEN_ADMIN_HASH}\n",
                              "      admin: {role: admin, secret: env:FABRICGEN_ADMIN_HASH}\n"
                              "      remote: {role: admin, secret: env:FABRICGEN_ADMIN_HASH}\n")
    fabric = _aaa_fabric(tmp_path, "junos", base)
    text = _authz_main(tmp_path / "r", "junos", base=base)
    assert [ln for ln in text.splitlines() if "user remote class" in ln] == [
        "set system login user remote class super-user"]
    found = [f.message for f in run_checks(fabric) if f.code == "FG-BASE-005" and f.subject == "leaf1"]
    assert found == ["the Junos template user remote (the login class of TACACS+ users) is not rendered: a local "
                     "user is named remote and keeps its own class"]


@pytest.mark.parametrize(("platform", "line", "changed"), [
    ("eos", "aaa accounting commands all default start-stop group tacacs+ group radius",
     "aaa accounting commands all default start-stop group radius"),
    ("nxos", "aaa authorization config-commands default group TACACS local",
     "aaa authorization config-commands default local"),
    ("junos", "set system accounting events [ login change-log interactive-commands ]",
     "set system accounting events [ login change-log ]"),
])
def test_a_hand_changed_authorization_or_accounting_line_is_drift(tmp_path: Path, platform: str, line: str,
                                                                  changed: str) -> None:
    from fabricgen.deploy.normalize import compare, mask_junos, sanitize

    def read(text: str) -> str:
        return "\n".join(mask_junos(ln) for ln in text.splitlines()) if platform == "junos" else sanitize(text)

    env = {"FABRICGEN_ADMIN_HASH": CANARY_ADMIN, "FABRICGEN_SNMP_RO": CANARY_SNMP,
           "FABRICGEN_TACACS_KEY": "canaryTac9", "FABRICGEN_RADIUS_KEY": "canaryRad9"}
    intended = _authz_main(tmp_path, platform)
    assert line in intended.splitlines()
    running = substitute(intended, env)
    assert not compare(platform, intended, read(running)).drifted
    diff = compare(platform, intended, read(running.replace(line, changed)))
    assert diff.drifted and "canar" not in repr(diff).lower()
