"""Raw configuration blocks (``base.raw.<platform>``): accepted blocks land verbatim at their documented place and
pass each platform's oracle; refused blocks (secrets, template text, owned sections, bad structure, oversize,
non-ASCII) are one-line errors at the file line of the offending block line; merge order; FG-BASE-002; drift."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricgen.checks import run_checks
from fabricgen.cli import main
from fabricgen.deploy.normalize import compare, nvue_tree
from fabricgen.errors import Problem, SourcePos
from fabricgen.inventory.raw import MAX_RAW_BYTES, check_raw, parse_structured, raw_lines
from fabricgen.render import render_data
from fabricgen.render.base import RawData, build_raw, yaml_lines
from fabricgen.render.check import nvue_oracle, sonic_oracle
from fabricgen.render.data import DeviceData, build_device
from fabricgen.topology.base import raw_blocks
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, require
from tests.junos_check import check as junos_check
from tests.nxos_check import check as nxos_check
from tests.test_loader import problems
from tests.test_render_common import fabric_as, qos_of
from tests.test_render_frr import vtysh_dryrun

LAB = INVENTORIES / "lab"

EOS_ACL = "ip access-list standard MGMT\n   10 permit 192.0.2.0/24\n"
BLOCKS = {
    "eos": "logging buffered 10000\n" + EOS_ACL,
    "nxos": "ip access-list MGMT-IN\n  10 permit ip 192.0.2.0/24 any\n  20 deny ip any any\n",
    "junos": "set system time-zone UTC\nset system syslog file messages any notice\n"
             "set firewall family inet filter MGMT term ssh from source-address 192.0.2.0/24\n"
             "set firewall family inet filter MGMT term ssh then accept\n",
    "frr": "ip prefix-list MGMT seq 5 permit 192.0.2.0/24\nroute-map MGMT permit 10\n"
           " match ip address prefix-list MGMT\nexit\n",
    "nvue": "system:\n  timezone: Etc/UTC\n",
    "sonic": 'PORTCHANNEL:\n  PortChannel1: {admin_status: up, mtu: "9100", min_links: "1"}\n',
}


def _indented(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" if line else "\n" for line in text.rstrip("\n").split("\n"))


def with_base(tmp_path: Path, base_yaml: str, switch_raw: str | None = None) -> Path:
    """The lab inventory with ``base.yaml`` replaced; ``switch_raw``: leaf1's own ``base.raw`` (flow YAML)."""
    out = tmp_path / "lab"
    shutil.copytree(LAB, out)
    (out / "base.yaml").write_text(base_yaml)
    if switch_raw is not None:
        devices = out / "devices.yaml"
        old = "{name: leaf1, base: {mgmt: {address: 192.0.2.21/24}},"
        text = devices.read_text()
        assert old in text
        devices.write_text(text.replace(old, f"{{name: leaf1, base: {{mgmt: {{address: 192.0.2.21/24}}, "
                                             f"raw: {switch_raw}}},"))
    return out


def defaults_block(tmp_path: Path, platform: str, block: str) -> Path:
    """An inventory whose ``base.defaults.raw.<platform>`` is ``block``, written so that block line *i* is file
    line 6 + *i*, its text starting in column 9."""
    text = ("base:\n  defaults:\n    mgmt: {gateway: 192.0.2.1}\n    raw:\n"  # lines 1-4
            f"      {platform}: |\n" + _indented(block, 8))  # line 5, then the block from line 6
    return with_base(tmp_path, text)


def rendered(path: Path, platform: str, device: str = "leaf1") -> tuple[DeviceData, str]:
    fabric = fabric_as(path, platform)
    data = build_device(fabric, device, qos_of(path, platform))
    return data, render_data(data).main


# --------------------------------------------------------------------------- accepted blocks, per platform


def test_eos_block_before_end_and_avd_renders_the_same(tmp_path: Path) -> None:
    path = defaults_block(tmp_path, "eos", BLOCKS["eos"])
    _, text = rendered(path, "eos")
    assert text.endswith("!\nlogging buffered 10000\n" + EOS_ACL + "!\nend\n")
    require(importlib.util.find_spec("pyavd") is not None, "pyavd (the `oracles` extra) is not installed")
    from tests.test_vendor_eos import assert_matches_avd

    # AVD's eos_cli is the same raw text; its rendering must agree with fabricgen's section by section
    assert_matches_avd(fabric_as(path, "eos"), qos_of(path, "eos"))


def test_nxos_block_at_the_end_passes_the_checker(tmp_path: Path) -> None:
    path = defaults_block(tmp_path, "nxos", BLOCKS["nxos"])
    _, text = rendered(path, "nxos")
    assert text.endswith("!\n" + BLOCKS["nxos"])
    qos = qos_of(path, "nxos").switches["leaf1"]
    lossless = {p for pq in qos.ports.values() for p in pq.pfc_priorities}
    assert nxos_check(text, lossless) == []
    # the checker reads the raw lines: a rule it does not know is reported
    assert nxos_check(text.replace("20 deny ip any any", "20 deny ip any bogus"), lossless) == [
        f"line {text.splitlines().index('  20 deny ip any any') + 1}: no documented command in this mode: "
        "20 deny ip any bogus"]


def test_junos_block_at_the_end_passes_the_checker(tmp_path: Path) -> None:
    path = defaults_block(tmp_path, "junos", BLOCKS["junos"])
    _, text = rendered(path, "junos")
    assert text.endswith(BLOCKS["junos"])
    assert junos_check(text) == []


def test_frr_block_before_end_passes_vtysh_dryrun(tmp_path: Path) -> None:
    path = defaults_block(tmp_path, "frr", BLOCKS["frr"])
    _, text = rendered(path, "frr")
    assert text.endswith("exit\n!\n" + BLOCKS["frr"] + "!\nend\n")
    vtysh_dryrun(tmp_path, text)


def test_nvue_block_is_a_second_set_document_valid_for_the_release(tmp_path: Path) -> None:
    path = defaults_block(tmp_path, "nvue", BLOCKS["nvue"])
    data, text = rendered(path, "nvue")
    assert text.endswith("- set:\n    system:\n      timezone: Etc/UTC\n")
    tree = nvue_tree(text)
    assert tree["system"]["timezone"] == "Etc/UTC" and tree["system"]["hostname"] == "leaf1"  # merged, not replaced
    oracle = nvue_oracle(data.release)
    require(oracle is not None, f"nvueschema with NVUE {data.release} is not installed")
    assert oracle is not None
    assert oracle.problems(text) == []
    assert oracle.problems(text.replace("timezone: Etc/UTC", "timezone-typo: Etc/UTC")) != []


def test_sonic_block_merged_into_config_db_passes_libyang(tmp_path: Path) -> None:
    import json

    path = defaults_block(tmp_path, "sonic", BLOCKS["sonic"])
    _, text = rendered(path, "sonic")
    db = json.loads(text)
    assert db["PORTCHANNEL"] == {"PortChannel1": {"admin_status": "up", "min_links": "1", "mtu": "9100"}}
    oracle = sonic_oracle()
    require(oracle is not None, "libyang binding not installed")
    assert oracle is not None
    # PORTCHANNEL validated; BREAKOUT_CFG and MGMT_VRF_CONFIG are not (../shared/sonic-yang has no
    # sonic-breakout_cfg or sonic-mgmt_vrf)
    assert oracle.judge(text) == ([], ["BREAKOUT_CFG", "MGMT_VRF_CONFIG"])
    bad = json.loads(text)
    bad["PORTCHANNEL"]["PortChannel1"]["admin_status"] = "sideways"
    assert oracle.problems(json.dumps(bad)) != []


def test_every_table_the_sonic_renderer_writes_is_owned() -> None:
    import json

    from fabricgen.inventory.raw import SONIC_OWNED, sonic_owned

    for name, cfg in ((n, c) for n, c in _lab_configs("sonic").items()):
        for table in json.loads(cfg):
            # so a rendered table without a model is fabricgen's (not validated), never a raw block's (an error)
            assert sonic_owned(table), (name, table)
            assert table in SONIC_OWNED or table.startswith(("BGP_", "BUFFER_", "MGMT_")), (name, table)


@functools.cache
def _lab_configs(platform: str) -> dict[str, str]:
    fabric = fabric_as(LAB, platform)
    return {n: render_data(build_device(fabric, n, qos_of(LAB, platform))).main for n in sorted(fabric.switches)}


def test_no_raw_block_adds_nothing() -> None:
    for platform in ("eos", "nxos", "junos", "frr", "nvue", "sonic"):
        assert build_raw(fabric_as(LAB, platform), "leaf1", platform) is None
    assert _lab_configs("nvue")["leaf1"].count("- set:") == 1
    assert _lab_configs("eos")["leaf1"].endswith("      network 10.64.4.56/31\n!\nend\n")


# --------------------------------------------------------------------------- refused blocks


SECRET = ("the line carries a secret ({!r}): secrets are not accepted in a raw block; put them in base: as env:NAME "
          "references")
OWNED = "{!r} changes a section fabricgen owns ({!r}); raw blocks may only add what fabricgen does not model"
REFUSED = [
    # (platform, block, [(block line, column in the line, message)])
    ("eos", "logging buffered 10000\nusername bob privilege 15 secret 0 hunter2\n",
     [(1, 0, SECRET.format("secret"))]),
    ("eos", "snmp-server community public ro\n", [(0, 0, SECRET.format("community"))]),
    ("nxos", "tacacs-server host 192.0.2.9 key 7 abcdef\n", [(0, 0, SECRET.format("key"))]),
    ("junos", 'set system login user bob authentication encrypted-password "$6$abc$def"\n',
     [(0, 0, SECRET.format("encrypted-password"))]),
    ("nvue", "system:\n  aaa:\n    user:\n      bob:\n        password: hunter2\n",
     [(4, 0, SECRET.format("password"))]),
    ("sonic", 'MACSEC_PROFILE:\n  P1: {cipher_suite: GCM-AES-128, passkey: "0123"}\n',
     [(1, 0, SECRET.format("passkey"))]),
    ("eos", "snmp-server location __FABRICGEN_ENV_ADMIN_HASH__\n",
     [(0, 0, "a secret placeholder (__FABRICGEN_ENV_…) is not allowed in a raw block; secrets go in base:")]),
    ("eos", "logging buffered {{ size }}\n",
     [(0, 17, "template syntax '{{' is not allowed: a raw block is inserted verbatim, never rendered as a template")]),
    ("frr", "{% if x %}\nip prefix-list A seq 5 permit 10.0.0.0/8\n{% endif %}\n",
     [(0, 0, "template syntax '{%' is not allowed: a raw block is inserted verbatim, never rendered as a template"),
      (2, 0, "template syntax '{%' is not allowed: a raw block is inserted verbatim, never rendered as a template")]),
    ("eos", "router bgp 65000\n   neighbor 10.0.0.1 remote-as 1\n",
     [(0, 0, OWNED.format("router bgp 65000", "router bgp"))]),
    ("eos", "int et1\n   mtu 1500\n", [(0, 0, OWNED.format("int et1", "interface ethernet"))]),
    ("eos", "ip access-list standard X\n   10 permit any\nno qos map dscp 26 to traffic-class 1\n",
     [(2, 0, OWNED.format("no qos map dscp 26 to traffic-class 1", "qos"))]),
    ("eos", "management ssh\n   shutdown\n", [(0, 0, OWNED.format("management ssh", "management"))]),
    ("nxos", "interface Ethernet1/1\n  shutdown\n",
     [(0, 0, OWNED.format("interface Ethernet1/1", "interface ethernet"))]),
    ("frr", "router bgp 65001\n neighbor 10.0.0.1 remote-as 1\nexit\n",
     [(0, 0, OWNED.format("router bgp 65001", "router bgp"))]),
    ("junos", "set protocols bgp group X type internal\n",
     [(0, 0, OWNED.format("set protocols bgp group X type internal", "protocols bgp"))]),
    ("nvue", "interface:\n  swp1:\n    description: x\n",
     [(0, 0, "NVUE path 'interface' is a section fabricgen owns; raw blocks may only add what fabricgen does not "
             "model")]),
    ("sonic", 'PORT:\n  Ethernet0: {mtu: "1500"}\n',
     [(0, 0, "config_db table 'PORT' is one fabricgen owns; raw blocks may only add what fabricgen does not model")]),
    # the AAA servers are base: data (their keys come only from env:NAME), so their sections are owned too
    ("eos", "tacacs-server timeout 10\n", [(0, 0, OWNED.format("tacacs-server timeout 10", "tacacs-server"))]),
    ("eos", "ip radius source-interface Ethernet1\n",
     [(0, 0, OWNED.format("ip radius source-interface Ethernet1", "ip radius"))]),
    ("nxos", "feature tacacs+\n", [(0, 0, OWNED.format("feature tacacs+", "feature tacacs+"))]),
    ("junos", "set system authentication-order radius\n",
     [(0, 0, OWNED.format("set system authentication-order radius", "system authentication-order"))]),
    # command authorization and accounting are base: data too (aaa.authorization, aaa.accounting)
    ("junos", "set system accounting events login\n",
     [(0, 0, OWNED.format("set system accounting events login", "system accounting"))]),
    ("junos", "set system tacplus-options strict-authorization\n",
     [(0, 0, OWNED.format("set system tacplus-options strict-authorization", "system tacplus-options"))]),
    ("eos", "aaa accounting commands all default start-stop group tacacs+\n",
     [(0, 0, OWNED.format("aaa accounting commands all default start-stop group tacacs+", "aaa"))]),
    ("sonic", 'NTP_SERVER:\n  192.0.2.9: {iburst: "on"}\n',
     [(0, 0, "config_db table 'NTP_SERVER' is one fabricgen owns; raw blocks may only add what fabricgen does "
             "not model")]),
    ("eos", "ip access-list standard X\n\t10 permit any\n",
     [(1, 0, "character U+0009 is not allowed: a raw block is printable ASCII and newlines only")]),
    ("eos", "ip access-list standard X\n  10 permit 192.0.2.0/24\n",
     [(1, 0, "indentation of 2 spaces is not a multiple of 3 (eos blocks indent 3 spaces a level)")]),
    ("eos", "! a child without its head\n   10 permit 192.0.2.0/24\n",
     [(1, 3, "indented under nothing: an indented line belongs under a command one level above it")]),
    ("eos", "logging buffered 10000\nend\n",
     [(1, 0, "'end' ends the configuration or opens a multi-line text mode; not allowed in a raw block")]),
    ("eos", "banner motd\nhello\nEOF\n",
     [(0, 0, "'banner motd' ends the configuration or opens a multi-line text mode; not allowed in a raw block"),
      (2, 0, "'EOF' ends the configuration or opens a multi-line text mode; not allowed in a raw block")]),
    ("junos", "delete system time-zone\n",
     [(0, 0, "only `set` statements are accepted in a Junos raw block (got 'delete')")]),
    ("junos", "set system foo bar\n",
     [(0, 0, "'set system foo bar' is not a statement a Junos raw block may carry (see "
             "fabricgen.inventory.raw.JUNOS_STATEMENTS)")]),
    ("nvue", "- a\n- b\n", [(0, 0, "the raw block must be a mapping")]),
    ("nvue", "system: &a {timezone: UTC}\nservice: *a\n",
     [(0, 8, "YAML anchors and aliases are not allowed in a raw block")]),
    ("sonic", "PORTCHANNEL:\n  PortChannel1: {admin_status: up, mtu: 9100}\n",
     [(1, 35, 'PORTCHANNEL|PortChannel1.mtu: config_db values are strings (write "9100")')]),
    ("eos", "logging buffered 10000 \u00e9\n",
     [(0, 23, "character U+00E9 is not allowed: a raw block is printable ASCII and newlines only")]),
]


@pytest.mark.parametrize(("platform", "block", "expected"), REFUSED,
                         ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(REFUSED)])
def test_refused_block_names_the_file_line(tmp_path: Path, platform: str, block: str,
                                           expected: list[tuple[int, int, str]]) -> None:
    path = defaults_block(tmp_path, platform, block)
    f = path / "base.yaml"
    assert problems(path) == [f"{f}:{6 + line}:{9 + col}: base.defaults.raw.{platform}: {msg}"
                              for line, col, msg in expected]
    assert "hunter2" not in "\n".join(problems(path))  # a refused secret is never echoed


def test_oversize_block(tmp_path: Path) -> None:
    block = "logging buffered 10000\n" * 3000
    assert len(block) > MAX_RAW_BYTES
    path = defaults_block(tmp_path, "eos", block)
    assert problems(path) == [f"{path / 'base.yaml'}:6:9: base.defaults.raw.eos: the raw block is {len(block)} "
                              f"bytes, above the {MAX_RAW_BYTES}-byte limit"]


def test_quoted_block_is_reported_at_its_key_naming_the_line(tmp_path: Path) -> None:
    path = with_base(tmp_path, "base:\n  roles:\n    leaf:\n      raw:\n        nxos: \"feature lldp\\nlogging x\"\n")
    assert problems(path) == [
        f"{path / 'base.yaml'}:5:9: base.roles.leaf.raw.nxos: line 1 of the block: "
        + OWNED.format("feature lldp", "feature lldp")]


def test_switch_level_problem_names_the_switch(tmp_path: Path) -> None:
    path = with_base(tmp_path, "base: {}\n", switch_raw='{frr: "hostname x"}')
    (p,) = problems(path)
    assert p.endswith(": switches[leaf1].base.raw.frr: line 1 of the block: "
                      + OWNED.format("hostname x", "hostname"))
    assert p.startswith(f"{path / 'devices.yaml'}:8:")


def test_validate_exits_3_with_one_line_per_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = defaults_block(tmp_path, "eos", "router bgp 1\nlogging buffered {{ x }}\nusername a secret b\n")
    with pytest.raises(SystemExit) as info:
        main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert info.value.code == 3
    lines = [x for x in (out + err).splitlines() if "base.defaults.raw.eos" in x]
    assert [x.split(":")[1] for x in lines] == ["6", "7", "8"]
    assert "Traceback" not in out + err


def test_unknown_platform_key_is_a_schema_error(tmp_path: Path) -> None:
    path = with_base(tmp_path, "base:\n  defaults:\n    raw:\n      ios: x\n")
    (p,) = problems(path)
    assert p.startswith(f"{path / 'base.yaml'}:4:7: base.defaults.raw.ios: Input should be 'eos', 'nxos', 'junos'")


# --------------------------------------------------------------------------- merge order, FG-BASE-002


MERGE = ("base:\n  defaults:\n    raw:\n      eos: |\n        logging buffered 10000\n"
         "      nvue: |\n        system: {timezone: Etc/UTC}\n"
         "  roles:\n    leaf:\n      raw:\n        eos: |\n" + _indented(EOS_ACL, 10)
         + "        nvue: |\n          system: {timezone: America/New_York}\n")


def test_merge_is_defaults_then_role_then_switch(tmp_path: Path) -> None:
    path = with_base(tmp_path, MERGE, switch_raw='{eos: "logging event link-status global"}')
    fabric = fabric_as(path, "eos")
    assert raw_blocks(fabric, "leaf1", "eos") == ("logging buffered 10000\n", EOS_ACL,
                                                  "logging event link-status global")
    assert raw_blocks(fabric, "spine1", "eos") == ("logging buffered 10000\n",)  # not a leaf, no own block
    _, text = rendered(path, "eos")
    assert text.endswith("!\nlogging buffered 10000\n" + EOS_ACL + "logging event link-status global\n!\nend\n")
    nvue = build_raw(fabric_as(path, "nvue"), "leaf1", "nvue")
    assert nvue is not None and nvue.doc == {"system": {"timezone": "America/New_York"}}  # the role's leaf wins


def test_fg_base_002_counts_the_raw_lines(tmp_path: Path) -> None:
    path = with_base(tmp_path, MERGE, switch_raw='{eos: "logging event link-status global"}')
    found = {f.subject: f.message for f in run_checks(fabric_as(path, "eos")) if f.code == "FG-BASE-002"}
    assert found["leaf1"] == ("the eos configuration carries 4 raw lines (base.raw.eos from defaults, role leaf, "
                              "switch), inserted verbatim after what fabricgen renders")
    assert found["spine1"] == ("the eos configuration carries 1 raw line (base.raw.eos from defaults), inserted "
                               "verbatim after what fabricgen renders")
    assert not [f for f in run_checks(fabric_as(LAB, "eos")) if f.code == "FG-BASE-002"]


# --------------------------------------------------------------------------- drift


def test_a_hand_change_of_a_raw_line_is_drift(tmp_path: Path) -> None:
    _, eos = rendered(defaults_block(tmp_path / "eos", "eos", BLOCKS["eos"]), "eos")
    assert not compare("eos", eos, eos).drifted
    changed = compare("eos", eos, eos.replace("logging buffered 10000", "logging buffered 20000"))
    assert changed.drifted and "logging buffered 10000" in changed.missing
    acl = compare("eos", eos, eos.replace("   10 permit 192.0.2.0/24", "   10 permit any"))
    assert acl.drifted and "ip access-list standard MGMT / 10 permit any" in acl.unexpected

    _, junos = rendered(defaults_block(tmp_path / "junos", "junos", BLOCKS["junos"]), "junos")
    tz = compare("junos", junos, junos.replace("time-zone UTC", "time-zone Europe/Paris"))
    assert tz.drifted and "set system time-zone UTC" in tz.missing


def test_nvue_raw_document_compares_against_the_devices_merged_tree(tmp_path: Path) -> None:
    import json

    _, text = rendered(defaults_block(tmp_path, "nvue", BLOCKS["nvue"]), "nvue")
    # the device prints one merged `- set:` document (JSON is YAML): same tree, no drift
    device = json.dumps([{"set": nvue_tree(text)}])
    assert not compare("nvue", text, device).drifted
    tree = nvue_tree(text)
    tree["system"]["timezone"] = "Europe/Paris"
    moved = compare("nvue", text, json.dumps([{"set": tree}]))
    assert moved.drifted and 'system / timezone = "Etc/UTC"' in moved.missing


# --------------------------------------------------------------------------- property: verbatim or refused

_LINES = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2030), max_size=30),
    st.text(alphabet=" !#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~"
                     "\t\"'\\", max_size=40),
    st.sampled_from(["end", "   end", "banner motd", "EOF", "exit", "!", "", "router bgp 1", "   ip address 1.1.1.1/32",
                     "logging buffered 100", "ip access-list standard A", "   10 permit any",
                     "set system time-zone UTC",
                     "set system foo", " match ip address prefix-list A", "route-map A permit 10", "{{ x }}", "}",
                     "__FABRICGEN_ENV_X__", "interface Port-Channel1", "  10 permit ip any any", "ip access-list B"]),
)


@functools.cache
def _device(platform: str) -> tuple[DeviceData, str]:
    fabric = fabric_as(LAB, platform)
    data = build_device(fabric, "leaf1", qos_of(LAB, platform))
    return data, render_data(data).main


_ACCEPTED = {  # lines each platform accepts, so that accepted blocks are generated often, not only by luck
    "eos": ["logging buffered 100", "ip access-list standard A", "! note", "", "spanning-tree mode none"],
    "nxos": ["ip access-list B", "  10 permit ip any any", "! note", "", "logging timestamp milliseconds"],
    "junos": ["set system time-zone UTC", "set system name-server 192.0.2.53", "# note", "",
              "set firewall family inet filter F term t then accept"],
    "frr": ["route-map A permit 10", " match ip address prefix-list A", "exit", "! note", "",
            "ip prefix-list A seq 5 permit 10.0.0.0/8"],
}


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos", "frr"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_text_is_refused_in_one_line_or_inserted_verbatim_in_place(platform: str, data: st.DataObject) -> None:
    lines = data.draw(st.one_of(st.lists(_LINES, max_size=8),
                                st.lists(st.one_of(st.sampled_from(_ACCEPTED[platform]), _LINES), max_size=8),
                                st.lists(st.sampled_from(_ACCEPTED[platform]), max_size=8)))
    text = "\n".join(lines)
    issues = check_raw(platform, text)
    if issues:
        for issue in issues:
            shown = str(Problem(SourcePos("base.yaml", 6 + issue.line, 9 + issue.col), f"base.raw.{platform}",
                                issue.message))
            assert "\n" not in shown and "\r" not in shown and shown.isprintable()
        return
    device, without = _device(platform)
    block = raw_lines(text)
    assert all(line.isascii() and line.isprintable() for line in block)
    out = render_data(dataclasses.replace(device, raw=RawData(tuple(block)) if block else None)).main
    inserted = "".join(line + "\n" for line in block)
    if not block:
        assert out == without
    elif platform in ("eos", "frr"):  # before the final `end`, after a `!`, closed by a `!`
        assert without.endswith("!\nend\n")
        assert out == without[: -len("end\n")] + inserted + "!\nend\n"
        assert [x for x in out.splitlines() if x.strip() == "end"] == ["end"]
    elif platform == "nxos":
        assert out == without + "!\n" + inserted
    else:
        assert out == without + inserted


_KEYS = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=12)
_DOCS = st.dictionaries(_KEYS, st.recursive(st.one_of(_KEYS, st.integers(0, 10**6), st.booleans()),
                                            lambda inner: st.dictionaries(_KEYS, inner, max_size=3), max_leaves=6),
                        min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(_DOCS)
def test_an_accepted_nvue_mapping_lands_as_exactly_that_document(doc: dict[str, object]) -> None:
    import json

    from ruamel.yaml import YAML

    text = json.dumps(doc)  # JSON is YAML: any key, quoted
    issues = check_raw("nvue", text)
    if issues:
        assert all("\n" not in i.message for i in issues)
        return
    device, without = _device("nvue")
    raw = RawData(yaml_lines(parse_structured(text)), parse_structured(text))
    out = render_data(dataclasses.replace(device, raw=raw)).main
    assert out.startswith(without)
    docs = YAML(typ="safe", pure=True).load(out)
    assert len(docs) == 2 and docs[1] == {"set": doc}  # its own document, nothing more, nothing less


# --------------------------------------------------------------------------- FG-BASE-006: the platform's schema


SONIC_YANG = "(SONiC YANG models, sonic-buildimage 086b03b)"
SAME = "; 5 other switches carry the same block"  # the lab's six switches share base.defaults


def _schema_findings(fabric: Fabric) -> list[str]:
    return [str(f) for f in run_checks(fabric) if f.code == "FG-BASE-006"]


def _validate(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """``fabricgen validate path``: its exit code and its FG-BASE-006 lines."""
    with pytest.raises(SystemExit) as info:
        main(["validate", str(path), "--no-summary"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    code = info.value.code
    assert isinstance(code, int)
    return code, [x for x in out.splitlines() if "FG-BASE-006" in x]


def _need_sonic() -> None:
    require(sonic_oracle() is not None, "libyang binding not installed")


def _need_nvue(release: str) -> None:
    require(nvue_oracle(release) is not None, f"nvueschema with NVUE {release} is not installed")


def test_validate_reports_a_mistyped_sonic_table_at_its_line(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    _need_sonic()
    path = defaults_block(tmp_path, "sonic", "NTP_SERVERS:\n  10.0.0.1: {}\n")
    code, lines = _validate(path, capsys)
    assert code == 1
    assert lines == [f"{path / 'base.yaml'}:6:9: error FG-BASE-006 leaf1: base.defaults.raw.sonic: NTP_SERVERS: "
                     f"table is not in any loaded SONiC model {SONIC_YANG}{SAME} — correct the raw block: the "
                     "switch would refuse this configuration"]


def test_validate_reports_a_sonic_field_of_the_wrong_type_at_the_field(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _need_sonic()
    # block line 1, the mtu key at column 35 of it: file line 7, column 9 + 35
    path = defaults_block(tmp_path, "sonic", 'PORTCHANNEL:\n  PortChannel1: {admin_status: up, mtu: "abc", '
                                             'min_links: "1"}\n')
    code, lines = _validate(path, capsys)
    assert code == 1
    assert [x.split(" — ")[0] for x in lines] == [
        f"{path / 'base.yaml'}:7:44: error FG-BASE-006 leaf1: base.defaults.raw.sonic: PORTCHANNEL|PortChannel1.mtu: "
        f'failed to parse data tree: Invalid non-number-encoded uint16 value "abc". {SONIC_YANG}{SAME}']


def test_sonic_problems_of_two_rows_are_each_at_their_row(tmp_path: Path) -> None:
    _need_sonic()
    block = ('ROUTE_MAP:\n  RM1|10: {route_operation: "loud"}\n'
             'PORTCHANNEL:\n  PortChannel1: {admin_status: up, mtu: "9100", min_links: "1"}\n'
             '  PortChannel2: {admin_status: sideways}\n')
    path = defaults_block(tmp_path, "sonic", block)
    found = [x.split(f" {SONIC_YANG}")[0] for x in _schema_findings(fabric_as(path, "sonic"))]
    f = path / "base.yaml"
    assert found == [
        f"{f}:10:26: error FG-BASE-006 leaf1: base.defaults.raw.sonic: PORTCHANNEL|PortChannel2.admin_status: "
        'failed to parse data tree: Invalid enumeration value "sideways".',
        f"{f}:7:20: error FG-BASE-006 leaf1: base.defaults.raw.sonic: ROUTE_MAP|RM1|10.route_operation: "
        'failed to parse data tree: Invalid enumeration value "loud".']


def test_a_raw_table_whose_model_is_not_in_the_directory_is_an_error(tmp_path: Path) -> None:
    """SYSLOG_CONFIG is SONiC's (sonic-syslog), but ../shared/sonic-yang has no sonic-syslog: a raw table no loaded
    model defines is refused, whatever the reason (fabricgen holds no list of SONiC's tables); only the tables
    fabricgen writes itself are left unvalidated instead (tests/test_render_sonic.py LAB_UNVALIDATED)."""
    _need_sonic()
    assert "SYSLOG_CONFIG" not in sonic_oracle().tables  # type: ignore[union-attr]
    path = defaults_block(tmp_path, "sonic", 'SYSLOG_CONFIG:\n  GLOBAL: {severity: "info"}\n')
    assert _schema_findings(fabric_as(path, "sonic")) == [
        f"{path / 'base.yaml'}:6:9: error FG-BASE-006 leaf1: base.defaults.raw.sonic: SYSLOG_CONFIG: table is not in "
        f"any loaded SONiC model {SONIC_YANG}{SAME} — correct the raw block: the switch would refuse this "
        "configuration"]


def _nvue_fabric(tmp_path: Path, block: str) -> tuple[Fabric, str]:
    """The lab on NVUE with ``block`` as every switch's raw NVUE block, and leaf1's release (its schema needed)."""
    fabric = fabric_as(defaults_block(tmp_path, "nvue", block), "nvue")
    release = fabric.switches["leaf1"].release
    _need_nvue(release)
    return fabric, release


def test_a_mistyped_nvue_path_is_reported_at_its_key(tmp_path: Path) -> None:
    fabric, release = _nvue_fabric(tmp_path, "system:\n  timezon: Etc/UTC\n")
    assert _schema_findings(fabric) == [
        f"{tmp_path / 'lab' / 'base.yaml'}:7:11: error FG-BASE-006 leaf1: base.defaults.raw.nvue: system.timezon: "
        f'Extra inputs are not permitted (got "Etc/UTC") (NVUE {release} schema){SAME} — correct the raw block: '
        "the switch would refuse this configuration"]


def test_a_value_the_nvue_schema_refuses_is_reported_at_its_key(tmp_path: Path) -> None:
    fabric, release = _nvue_fabric(tmp_path, "system:\n  timezone: Mars/Olympus_Mons\n")
    (found,) = _schema_findings(fabric)
    assert found.startswith(f"{tmp_path / 'lab' / 'base.yaml'}:7:11: error FG-BASE-006 leaf1: base.defaults.raw."
                            "nvue: system.timezone: Input should be 'Africa/Abidjan', 'Africa/Accra'")
    assert f"… (NVUE {release} schema){SAME}" in found  # the schema's 400 time zones, cut


def test_a_switch_level_block_names_the_switch_and_its_line(tmp_path: Path) -> None:
    _need_sonic()
    path = with_base(tmp_path, "base:\n  defaults:\n    mgmt: {gateway: 192.0.2.1}\n",
                     switch_raw='{sonic: "NTP_SERVERS: {10.0.0.1: {}}"}')
    # a quoted block is reported at its key (column 64 of leaf1's line), naming the block's line
    assert _schema_findings(fabric_as(path, "sonic")) == [
        f"{path / 'devices.yaml'}:8:64: error FG-BASE-006 leaf1: switches[leaf1].base.raw.sonic: line 1 of the "
        f"block: NTP_SERVERS: table is not in any loaded SONiC model {SONIC_YANG} — correct the raw block: the "
        "switch would refuse this configuration"]


def test_correct_blocks_have_no_schema_finding(tmp_path: Path) -> None:
    _need_sonic()
    sonic = fabric_as(defaults_block(tmp_path / "s", "sonic", BLOCKS["sonic"]), "sonic")
    nvue = fabric_as(defaults_block(tmp_path / "n", "nvue", BLOCKS["nvue"]), "nvue")
    _need_nvue(nvue.switches["leaf1"].release)
    assert _schema_findings(sonic) == [] and _schema_findings(nvue) == []
    # ... and the check did judge them: FG-BASE-002 names the switches with the block
    assert len([f for f in run_checks(sonic) if f.code == "FG-BASE-002"]) == 6


def test_a_problem_the_block_did_not_cause_is_not_this_finding(tmp_path: Path) -> None:
    _need_sonic()
    # no management gateway: SONiC's MGMT_INTERFACE model refuses the rendered file with or without the block
    path = with_base(tmp_path, "base:\n  defaults:\n    raw:\n      sonic: |\n        NTP_SERVERS: {x: {}}\n")
    codes = [f.code for f in run_checks(fabric_as(path, "sonic")) if f.severity.value == "error"]
    assert "FG-BASE-003" in codes and "FG-BASE-006" not in codes


def _no_render(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make rendering and loading an oracle record their call (and fail the check if it happens)."""
    import fabricgen.render
    import fabricgen.render.check

    calls: list[str] = []

    def refuse(what: str) -> Any:
        def called(*args: object, **kwargs: object) -> None:
            calls.append(what)
            raise AssertionError(f"{what} called")
        return called

    monkeypatch.setattr(fabricgen.render, "render_device", refuse("render_device"))
    monkeypatch.setattr(fabricgen.render.check, "sonic_oracle", refuse("sonic_oracle"))
    monkeypatch.setattr(fabricgen.render.check, "nvue_oracle", refuse("nvue_oracle"))
    return calls


def test_without_an_nvue_or_sonic_block_nothing_is_rendered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _no_render(monkeypatch)
    for fabric in (fabric_as(LAB, "sonic"), fabric_as(LAB, "nvue"),
                   fabric_as(defaults_block(tmp_path, "eos", BLOCKS["eos"]), "eos"),  # a text block
                   fabric_as(defaults_block(tmp_path / "x", "nvue", BLOCKS["nvue"]), "sonic")):  # another platform's
        assert _schema_findings(fabric) == []
    assert calls == []


def test_without_the_extra_one_info_finding_says_what_was_not_checked(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import fabricgen.render.check

    calls = _no_render(monkeypatch)
    monkeypatch.setattr(fabricgen.render.check, "sonic_oracle", lambda: None)
    monkeypatch.setattr(fabricgen.render.check, "sonic_unavailable",
                        lambda: ("the libyang binding is not installed", "pip install 'fabricgen[yang]'"))
    monkeypatch.setattr(fabricgen.render.check, "nvue_oracle", lambda release: None)
    monkeypatch.setattr(fabricgen.render.check, "nvue_releases", lambda: ())
    sonic = [f for f in run_checks(fabric_as(defaults_block(tmp_path / "s", "sonic", "NTP_SERVERS: {x: {}}\n"),
                                             "sonic")) if f.code == "FG-BASE-006"]
    nvue = [f for f in run_checks(fabric_as(defaults_block(tmp_path / "n", "nvue", BLOCKS["nvue"]), "nvue"))
            if f.code == "FG-BASE-006"]
    assert [(f.severity.value, f.message) for f in sonic] == [
        ("info", "6 switches (leaf1, leaf2, leaf3, …) carry sonic raw blocks that were not checked against SONiC's "
                 "YANG models (the libyang binding is not installed): pip install 'fabricgen[yang]'")]
    assert [(f.severity.value, f.message) for f in nvue] == [
        ("info", "6 switches (leaf1, leaf2, leaf3, …) carry nvue raw blocks that were not checked against NVIDIA's "
                 "NVUE schema: pip install 'fabricgen[oracles]'")]
    assert calls == []  # nothing rendered for an oracle that is not there


def test_without_the_models_directory_one_info_finding_says_how_to_set_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """FABRICGEN_SONIC_YANG_DIR unset: a SONiC raw block is not judged, and one info finding says how to set it."""
    _need_sonic()
    calls = _no_render(monkeypatch)
    monkeypatch.delenv("FABRICGEN_SONIC_YANG_DIR")
    monkeypatch.setattr("fabricgen.render.check.sonic_oracle", sonic_oracle)  # the real one: it finds no models
    found = [f for f in run_checks(fabric_as(defaults_block(tmp_path, "sonic", "NTP_SERVERS: {x: {}}\n"), "sonic"))
             if f.code == "FG-BASE-006"]
    assert [(f.severity.value, f.message) for f in found] == [
        ("info", "6 switches (leaf1, leaf2, leaf3, …) carry sonic raw blocks that were not checked against SONiC's "
                 "YANG models (FABRICGEN_SONIC_YANG_DIR is not set): set FABRICGEN_SONIC_YANG_DIR to a directory of "
                 "SONiC's YANG models (sonic-buildimage src/sonic-yang-models/yang-models)")]
    assert calls == []
