"""Drift against a full replace: every running line the next apply would remove is a difference, tagged by what
it is in the platform's grammar, a secret-bearing one named without its value; a line that states a default
the device hides or always shows is none.

Each platform's intended configuration is the lab inventory's leaf1 as fabricgen renders it; each hand-added
line is written in the form that platform's running configuration shows it.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fabricgen.deploy.defaults import is_platform_default
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.normalize import compare, mask
from fabricgen.deploy.sections import tag_of
from fabricgen.inventory.load import load_inventory
from fabricgen.render.retarget import retarget
from fabricgen.report.live import drift_lines
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES

SECRET = "h4nd-S3cret-9q"  # a hand-added secret value: must never be shown
HASH = "$6$handsalt$HANDhashHANDhashHANDhash"


@functools.cache
def intended(platform: str) -> str:
    inventory = INVENTORIES / ("lab-frr" if platform == "frr" else "lab")
    loaded = load_inventory(inventory)
    fabric = resolve(loaded if platform == "frr" else retarget(loaded, platform))
    return intended_configs(fabric, ["leaf1"])["leaf1"]


def _sonic_add(table: str, value: dict[str, object], frr: str = "") -> object:
    def add(text: str) -> str:
        doc = json.loads(text)
        if value:
            doc["config_db.json"].setdefault(table, {}).update(value)
        doc["frr.conf"] += frr
        return json.dumps(doc)
    return add


def _text_add(extra: str) -> object:
    return lambda text: text.rstrip("\n").removesuffix("end").rstrip("\n") + "\n" + extra


def _nvue_add(extra: str) -> object:
    return lambda text: text.rstrip("\n") + "\n- set:\n" + extra


# (platform, what, how the running configuration gains it, a text every shown line of it carries, tag, secret)
HAND: list[tuple[str, str, object, str, str, bool]] = [
    ("frr", "prefix-list", _text_add("ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24\n"), "HAND-PL", "routing",
     False),
    ("frr", "route-map", _text_add("route-map HAND permit 10\n match ip address prefix-list HAND-PL\nexit\n"),
     "route-map HAND", "routing", False),
    ("frr", "community-list", _text_add("bgp community-list standard HAND seq 5 permit 65000:1\n"), "HAND",
     "routing", False),
    ("frr", "static route", _text_add("ip route 198.51.100.0/24 10.128.6.0\n"), "198.51.100.0/24", "routing", False),
    ("frr", "ACL", _text_add("access-list HAND seq 5 permit 10.0.0.0/8\n"), "HAND", "routing", False),
    ("frr", "password", _text_add(f"password {SECRET}\n"), "password …", "other", True),
    ("eos", "prefix-list", _text_add("ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24\n"), "HAND-PL", "routing",
     False),
    ("eos", "route-map", _text_add("route-map HAND permit 10\n   match ip address prefix-list HAND-PL\n"),
     "route-map HAND", "routing", False),
    ("eos", "community-list", _text_add("ip community-list HAND permit 65000:1\n"), "HAND", "routing", False),
    ("eos", "static route", _text_add("ip route 198.51.100.0/24 10.128.6.0\n"), "198.51.100.0/24", "routing", False),
    ("eos", "ACL", _text_add("ip access-list HAND\n   10 permit ip any any\n"), "HAND", "routing", False),
    ("eos", "SNMP community", _text_add(f"snmp-server community {SECRET} rw\n"), "snmp-server community …", "other",
     True),
    ("eos", "user", _text_add(f"username hand privilege 15 role network-admin secret sha512 {HASH}\n"),
     "username hand …", "other", True),
    ("nxos", "prefix-list", _text_add("ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24\n"), "HAND-PL", "routing",
     False),
    ("nxos", "route-map", _text_add("route-map HAND permit 10\n  match ip address prefix-list HAND-PL\n"),
     "route-map HAND", "routing", False),
    ("nxos", "community-list", _text_add("ip community-list standard HAND seq 5 permit 65000:1\n"), "HAND",
     "routing", False),
    ("nxos", "static route", _text_add("ip route 198.51.100.0/24 10.128.6.0\n"), "198.51.100.0/24", "routing",
     False),
    ("nxos", "ACL", _text_add("ip access-list HAND\n  10 permit ip any any\n"), "HAND", "routing", False),
    ("nxos", "SNMP community", _text_add(f"snmp-server community {SECRET} group network-admin\n"),
     "snmp-server community …", "other", True),
    ("nxos", "user", _text_add(f"username hand password 5 {HASH} role network-admin\n"), "username hand …", "other",
     True),
    ("junos", "prefix-list", _text_add("set policy-options prefix-list HAND-PL 203.0.113.0/24\n"), "HAND-PL",
     "routing", False),
    ("junos", "policy-statement", _text_add("set policy-options policy-statement HAND term 1 then accept\n"),
     "policy-statement HAND", "routing", False),
    # a Junos community's name is masked as the sanitized read masks it (mask_junos): shown, never compared by name
    ("junos", "community", _text_add("set policy-options community HAND members 65000:1\n"),
     "set policy-options community ***", "routing", False),
    ("junos", "static route", _text_add("set routing-options static route 198.51.100.0/24 next-hop 10.128.6.0\n"),
     "198.51.100.0/24", "routing", False),
    ("junos", "firewall filter", _text_add("set firewall family inet filter HAND term 1 then accept\n"), "HAND",
     "routing", False),
    ("junos", "SNMP community", _text_add(f"set snmp community {SECRET} authorization read-write\n"),
     "snmp community …", "other", True),
    ("junos", "user", _text_add(f'set system login user hand authentication encrypted-password "{HASH}"\n'),
     "system login user hand …", "other", True),
    ("sonic", "prefix set", _sonic_add("PREFIX_SET", {"HAND-PL": {"mode": "IPv4"}}), "HAND-PL", "routing", False),
    ("sonic", "route map", _sonic_add("ROUTE_MAP", {"HAND|10": {"route_operation": "permit"}}), "HAND|10",
     "routing", False),
    ("sonic", "community set", _sonic_add("COMMUNITY_SET", {"HAND": {"community_member": "65000:1"}}), "HAND",
     "routing", False),
    ("sonic", "static route", _sonic_add("STATIC_ROUTE", {"198.51.100.0/24": {"nexthop": "10.128.6.0"}}),
     "198.51.100.0/24", "routing", False),
    ("sonic", "ACL", _sonic_add("ACL_TABLE", {"HAND": {"type": "L3", "stage": "ingress"}}), "HAND", "routing",
     False),
    ("sonic", "frr.conf prefix-list", _sonic_add("PREFIX_SET", {}, "ip prefix-list HAND-PL seq 5 permit "
                                                 "203.0.113.0/24\n"), "frr.conf: ip prefix-list HAND-PL", "routing",
     False),
    ("sonic", "SNMP community", _sonic_add("SNMP_COMMUNITY", {SECRET: {"TYPE": "RW"}}), "SNMP_COMMUNITY …", "other",
     True),
    ("sonic", "TACACS+ key", _sonic_add("TACPLUS", {"global": {"passkey": SECRET}}), "TACPLUS …", "other", True),
    ("nvue", "prefix-list", _nvue_add("    router:\n      policy:\n        prefix-list:\n          HAND-PL:\n"
                                      "            rule:\n              '5':\n                action: permit\n"),
     "HAND-PL", "routing", False),
    ("nvue", "route-map", _nvue_add("    router:\n      policy:\n        route-map:\n          HAND:\n"
                                    "            rule:\n              '10':\n                action:\n"
                                    "                  permit: {}\n"), "HAND", "routing", False),
    ("nvue", "static route", _nvue_add("    vrf:\n      default:\n        router:\n          static:\n"
                                       "            198.51.100.0/24:\n              via:\n"
                                       "                10.128.6.0: {}\n"), "198.51.100.0/24", "routing", False),
    ("nvue", "ACL", _nvue_add("    acl:\n      HAND:\n        type: ipv4\n"), "HAND", "routing", False),
    ("nvue", "SNMP community", _nvue_add(f"    system:\n      snmp-server:\n        readonly-community:\n"
                                         f"          {SECRET}:\n            access:\n              any: {{}}\n"),
     "system snmp-server readonly-community …", "other", True),
    ("nvue", "user", _nvue_add(f"    system:\n      aaa:\n        user:\n          hand:\n"
                               f"            hashed-password: '{HASH}'\n"), "system aaa …", "other", True),
]


@pytest.mark.parametrize(("platform", "what", "add", "shown", "tag", "secret"), HAND,
                         ids=[f"{h[0]}-{h[1]}" for h in HAND])
def test_a_hand_added_line_is_drift_with_its_grammar_tag_and_a_secret_only_by_name(
    platform: str, what: str, add: object, shown: str, tag: str, secret: bool
) -> None:
    base = intended(platform)
    assert not compare(platform, base, base).drifted
    running = add(base)  # type: ignore[operator]
    diff = compare(platform, base, running)
    assert diff.drifted and diff.missing == ()  # only what the replace would remove
    assert diff.unexpected and all(shown in line for line in diff.unexpected), diff.unexpected
    assert diff.impact == {tag: list(diff.unexpected)}
    document = json.dumps(diff.as_dict()) + "\n".join(drift_lines(diff))
    assert (SECRET not in document) and ("HANDhash" not in document)
    if secret:
        assert diff.named_only == diff.unexpected == (shown,)
        assert drift_lines(diff) == [f"+ {shown}    ({tag}; values not shown)"]
    else:
        assert diff.named_only == ()


@pytest.mark.parametrize(("platform", "path", "tag"), [
    ("frr", ("route-map ROCE-QOS permit 10",), "routing"),  # a name is not a kind
    ("frr", ("interface swp1", "description pfc ecn uplink"), "other"),
    ("frr", ("interface swp1", "ip address 10.0.0.1/31"), "routing"),
    ("eos", ("interface Ethernet1/1", "tx-queue 3", "random-detect ecn minimum-threshold 150000 bytes"), "roce"),
    ("eos", ("interface Ethernet1/1", "description bgp to spine"), "other"),
    ("eos", ("qos profile ROCE", "priority-flow-control priority 3 no-drop"), "roce"),
    ("nxos", ("policy-map type network-qos X", "class type network-qos c-8q-nq3", "pause pfc-cos 3"), "roce"),
    ("nxos", ("policy-map type control-plane copp-system-p", "class copp-class-critical"), "other"),  # CoPP
    ("junos", ("class-of-service", "schedulers", "S-roce", "transmit-rate", "percent", "50"), "roce"),
    ("junos", ("protocols", "lldp", "interface", "all"), "other"),
    ("junos", ("interfaces", "et-0/0/0", "unit", "0", "family", "inet", "address", "10.0.0.0/31"), "routing"),
    ("sonic", ("BGP_NEIGHBOR", "10.0.0.1", 'asn = "65001"'), "routing"),
    ("sonic", ("WRED_PROFILE", "AZURE_LOSSLESS", 'ecn = "ecn_all"'), "roce"),
    ("sonic", ("MAP_PFC_PRIORITY_TO_QUEUE", "AZURE", '3 = "3"'), "roce"),
    ("sonic", ("NTP_SERVER", "192.0.2.1", 'association_type = "server"'), "other"),
    ("nvue", ("qos", "pfc", "default", "switch-priority = [3]"), "roce"),
    ("nvue", ("vrf", "default", "router", "bgp", "enable = \"on\""), "routing"),
    ("nvue", ("interface", "swp1", "link", "mtu = 9216"), "roce"),
])
def test_each_path_is_tagged_by_what_it_is_not_by_the_words_in_it(platform: str, path: tuple[str, ...],
                                                                   tag: str) -> None:
    assert tag_of(platform, path) == tag


# ------------------------------------------------------------------------------------------------ properties

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-/.", min_size=1, max_size=8)
_HEADS = st.sampled_from(["ip prefix-list", "route-map", "interface", "router bgp", "snmp-server", "hostname",
                          "ip route", "username", "qos map", "ntp server", "vrf", "access-list", "logging"])


def _eos_text(blocks: list[tuple[str, list[str]]]) -> str:
    return "".join(f"{head}\n" + "".join(f"   {child}\n" for child in kids) + "!\n" for head, kids in blocks)


_BLOCKS = st.lists(st.tuples(st.builds(lambda h, w: f"{h} {w}", _HEADS, _WORD),
                             st.lists(st.builds(lambda a, b: f"{a} {b}", _WORD, _WORD), max_size=4)),
                   min_size=1, max_size=6, unique_by=lambda b: b[0])


@settings(max_examples=int(os.environ.get("FABRICGEN_DRIFT_EXAMPLES", "80")), deadline=None)
@given(_BLOCKS, st.builds(lambda h, w: f"{h} {w}", _HEADS, _WORD), st.booleans(), st.integers(0, 5),
       st.sampled_from(["eos", "nxos", "frr"]))
def test_a_config_never_drifts_from_itself_and_any_line_only_the_device_has_is_drift(
    blocks: list[tuple[str, list[str]]], line: str, nested: bool, where: int, platform: str
) -> None:
    text = _eos_text(blocks)
    assert not compare(platform, text, text).drifted
    head = blocks[where % len(blocks)][0]
    # FRR: only a context opener has a block (vtysh's nodes); an indented line under another is top-level
    nested = nested and (platform != "frr" or head.startswith(("interface ", "router ", "route-map ", "vrf ")))
    path = (head, line) if nested else (line,)
    assume(mask(line) == line and not is_platform_default(platform, path))
    existing = {(h,) for h, _ in blocks} | {(h, k) for h, kids in blocks for k in kids}
    assume(path not in existing)
    running = text.replace(f"{head}\n", f"{head}\n   {line}\n", 1) if nested else text + f"{line}\n"
    diff = compare(platform, text, running)
    assert diff.drifted and diff.missing == ()
    shown = " / ".join(path)
    assert shown in diff.unexpected or diff.named_only, diff


_TREE_KEYS = st.sampled_from(["BGP_NEIGHBOR", "PREFIX_SET", "ACL_RULE", "NTP_SERVER", "PORT", "BUFFER_PG", "VRF"])


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_TREE_KEYS, st.dictionaries(_WORD, st.dictionaries(_WORD, _WORD, min_size=1, max_size=3),
                                                      min_size=1, max_size=3), min_size=1, max_size=4),
       _TREE_KEYS, _WORD, _WORD, st.sampled_from(["sonic", "nvue"]))
def test_a_tree_never_drifts_from_itself_and_any_entry_only_the_device_has_is_drift(
    db: dict[str, dict[str, dict[str, str]]], table: str, key: str, value: str, platform: str
) -> None:
    """SONiC's config_db tables and NVUE's object tree (the same key-path comparison)."""
    text = json.dumps(db)
    assert not compare(platform, text, text).drifted
    assume(key not in db.get(table, {}) and mask(f"{key} {value}") == f"{key} {value}")  # a secret key is masked
    running = json.loads(text)
    running.setdefault(table, {})[key] = {"hand": value}
    diff = compare(platform, text, json.dumps(running))
    assert diff.unexpected == (f'{table} / {key} / hand = "{value}"',) and diff.missing == ()
    assert diff.impact == {tag_of(platform, (table, key, "hand")): list(diff.unexpected)}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_WORD, min_size=2, max_size=5), min_size=1, max_size=8), st.lists(_WORD, min_size=2,
                                                                                          max_size=5))
def test_a_junos_config_never_drifts_from_itself_and_any_statement_only_the_device_has_is_drift(
    statements: list[list[str]], extra: list[str]
) -> None:
    text = "".join(f"set {' '.join(s)}\n" for s in statements)
    assert not compare("junos", text, text).drifted
    assume(extra not in statements and extra[0] != "version" and mask(" ".join(extra)) == " ".join(extra))
    assume(not any(extra[: len(s)] == s or s[: len(extra)] == extra for s in statements))
    diff = compare("junos", text, text + f"set {' '.join(extra)}\n")
    assert diff.drifted and diff.missing == ()
    assert f"set {' '.join(extra)}" in diff.unexpected or diff.named_only


# ------------------------------------------------------------------------------------------------ defaults

REAL_EOS = Path(__file__).resolve().parents[2] / "shared" / "real-configs" / "eos"


def _real_eos() -> list[Path]:
    configs = sorted(REAL_EOS.glob("*.cfg")) if REAL_EOS.is_dir() else []
    if not configs:
        pytest.skip(f"the recorded EOS configurations are not on this machine ({REAL_EOS})")
    return configs


def test_the_eos_defaults_table_matches_what_recorded_eos_configurations_show() -> None:
    """Hidden defaults appear in no recorded EOS running-config, shown ones in every one; so each recorded
    configuration is in sync with itself plus the hidden lines, and without the shown ones."""
    for path in _real_eos():
        text = path.read_text()
        lines = {line.strip() for line in text.splitlines()}
        assert "lldp run" not in lines and "no lldp run" not in lines, path.name
        assert not re.search(r"(?m)^management api http-commands\n(   .*\n)*   protocol https\n", text), path.name
        assert {"transceiver qsfp default-mode 4x10G", "spanning-tree mode mstp"} <= lines, path.name
        stating = text.replace("management api http-commands\n", "management api http-commands\n   protocol https\n")
        stating = stating.replace("transceiver qsfp default-mode 4x10G\n", "").replace("spanning-tree mode mstp\n",
                                                                                       "") + "lldp run\n"
        diff = compare("eos", stating, text)
        assert not diff.drifted, (path.name, drift_lines(diff))
        assert compare("eos", text + "no lldp run\n", text).missing == ("no lldp run",)


def _hides_eos_defaults(rig: Any) -> None:
    """The simulated EOS answers ``show running-config`` as EOS does: without the defaults it never shows
    (``lldp run``, eAPI's ``protocol https``), whatever the session that configured them sent."""
    answer = rig.sim._answer

    def shown(cmd: str, encoding: str) -> Any:
        out = answer(cmd, encoding)
        if cmd in ("show running-config", "show running-config sanitized"):
            text = re.sub(r"(?m)^lldp run\n", "", out["output"])
            text = re.sub(r"(?m)^(management api http-commands\n(?:   .*\n)*?)   protocol https\n", r"\1", text)
            out = {**out, "output": text}
        return out

    rig.sim._answer = shown


def test_eos_defaults_the_switch_does_not_show_are_in_sync_for_drift_and_apply(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.test_deploy_roundtrip import DEVICE, _apply, _diff, _rig

    rig = _rig("eos", monkeypatch)
    assert "lldp run\n" in rig.intended and "   protocol https\n" in rig.intended  # rendered
    _hides_eos_defaults(rig)
    outcome = _apply(rig, tmp_path).outcomes[DEVICE]
    assert outcome.status == "applied", outcome.message  # not rolled back: nothing "still differs"
    d = rig.make_driver(rig.targets.targets[DEVICE], rig.targets.credentials)
    d.open()
    shown = d.get_config(retrieve="running")["running"]
    assert "lldp run" not in shown and "protocol https" not in shown  # the device really hides them
    diff = _diff(rig)
    assert not diff.drifted, drift_lines(diff)
    again = _apply(rig, tmp_path).outcomes[DEVICE]
    assert again.status == "unchanged", again.message


def test_eos_a_rendered_non_default_line_missing_and_a_non_default_setting_are_drift(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.test_deploy_roundtrip import DEVICE, _apply, _diff, _rig

    rig = _rig("eos", monkeypatch)
    _hides_eos_defaults(rig)
    assert _apply(rig, tmp_path).outcomes[DEVICE].status == "applied"
    assert "ip routing\n" in rig.dev.running
    rig.dev.running = rig.dev.running.replace("ip routing\n", "", 1) + "no lldp run\n"
    diff = _diff(rig)
    assert diff.missing == ("ip routing",) and diff.unexpected == ("no lldp run",)
    assert diff.impact == {"routing": ["ip routing"], "other": ["no lldp run"]}


def test_a_device_whose_only_difference_is_a_hand_added_prefix_list_is_changed_by_apply_not_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from fabricgen.deploy.apply import ApplyOptions, apply
    from fabricgen.deploy.secrets import secret_values
    from tests.test_deploy_roundtrip import DEVICE, ENVIRON, _apply, _diff, _rig

    rig = _rig("eos", monkeypatch)
    assert _apply(rig, tmp_path).outcomes[DEVICE].status == "applied"
    hand = "ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24"
    rig.dev.running += hand + "\n"
    assert _diff(rig).unexpected == (hand,)
    opts = ApplyOptions(revert_in=120, settle=0, workers=1, dry_run=True,
                        secrets=secret_values({DEVICE: rig.intended}, ENVIRON))
    dry = apply(rig.fabric, {DEVICE: rig.intended}, rig.targets, opts, tmp_path,
                make_driver=rig.make_driver).outcomes[DEVICE]
    assert (dry.status, dry.diff) == ("would-change", f"- {hand}")  # what the replace removes, said before
    outcome = _apply(rig, tmp_path).outcomes[DEVICE]
    assert outcome.status == "applied", outcome.message
    assert outcome.diff == f"- {hand}"
    assert hand not in rig.dev.running and not _diff(rig).drifted
