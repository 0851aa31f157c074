"""Drift on each platform's hierarchy: hand changes inside QoS blocks are found, form and order are not drift,
every running line the replace would remove is drift, secret-bearing sections are named but never shown, and no
secret reaches the output."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fabricgen.deploy.drift import drift_device
from fabricgen.deploy.normalize import compare, junos_set_lines, mask

DATA = Path(__file__).parent / "data" / "deploy"
EOS = (DATA / "eos/intended_leaf1.conf").read_text()
NXOS = (DATA / "nxos/intended_leaf1.conf").read_text()
JUNOS_SET = (DATA / "junos/intended_leaf1.set").read_text()
JUNOS_CURLY = (DATA / "junos/running_leaf1.conf").read_text()

EOS_SECRETS = (
    "username admin privilege 15 role network-admin secret sha512 $6$Zx8uQ0wM$Kd0Yy3uWq9bQ1nF0c4d7\n"
    "snmp-server community f4bR1c-s3cret ro\n"
    "management api http-commands\n   no shutdown\n"
)
SECRETS = ("$6$Zx8uQ0wM$Kd0Yy3uWq9bQ1nF0c4d7", "f4bR1c-s3cret", "Qx1x$Pq7kZl0Yb5dJm3n")


def _move_first(text: str, line: str, from_block: str, to_block: str) -> str:
    """Move the first ``line`` out of the first ``from_block`` into the first ``to_block`` (same indentation)."""
    assert line in text and to_block in text
    text = text.replace(line, "", 1)
    return text.replace(to_block, to_block + line, 1)


class Device:
    """A driver whose get_config answers like a device's, and records whether it was asked sanitized."""

    def __init__(self, running: str) -> None:
        self.running = running
        self.asked: list[dict[str, object]] = []

    def get_config(self, retrieve: str = "all", full: bool = False, sanitized: bool = False) -> dict[str, str]:
        self.asked.append({"retrieve": retrieve, "sanitized": sanitized})
        return {"running": self.running, "candidate": "", "startup": ""}


def test_eos_ecn_moved_to_another_tx_queue_is_roce_drift() -> None:
    ecn = "      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes " \
          "max-mark-probability 100\n"
    running = _move_first(EOS, ecn, "   tx-queue 3\n", "   tx-queue 4\n      no priority\n      bandwidth percent 25\n")
    diff = compare("eos", EOS, running)
    assert diff.drifted
    assert diff.missing == ("interface Ethernet1/1 / tx-queue 3 / " + ecn.strip(),)
    assert diff.unexpected == ("interface Ethernet1/1 / tx-queue 4 / " + ecn.strip(),)
    assert set(diff.impact) == {"roce"}


def test_nxos_pause_pfc_cos_moved_to_another_class_is_roce_drift() -> None:
    running = _move_first(NXOS, "    pause pfc-cos 3\n", "  class type network-qos c-8q-nq3\n",
                          "  class type network-qos c-8q-nq-default\n")
    diff = compare("nxos", NXOS, running)
    head = "policy-map type network-qos AI_RDMA_NETWORK_QOS / class type network-qos "
    assert diff.missing == (head + "c-8q-nq3 / pause pfc-cos 3",)
    assert diff.unexpected == (head + "c-8q-nq-default / pause pfc-cos 3",)
    assert set(diff.impact) == {"roce"}


def test_junos_curly_running_against_intended_set_form_differs_only_by_the_user_the_replace_removes() -> None:
    diff = compare("junos", JUNOS_SET, JUNOS_CURLY)
    # the form is not drift, nor the version Junos writes itself; the user the intended set lacks is, by name
    assert (diff.missing, diff.unexpected) == ((), ("system login user admin …",))
    assert diff.named_only == ("system login user admin …",) and diff.impact == {"other": ["system login user admin …"]}
    assert "Qx1x" not in json.dumps(diff.as_dict())


def test_junos_drop_profile_moved_to_another_scheduler_is_drift_in_either_form() -> None:
    dp = "drop-profile-map loss-priority any protocol any drop-profile DP-ECN_150000_1500000_100;\n"
    running = JUNOS_CURLY.replace("            " + dp, "").replace(
        "        S-default {\n", "        S-default {\n            " + dp)
    for form in (running, "\n".join(junos_set_lines(running))):
        diff = compare("junos", JUNOS_SET, form)
        assert diff.missing == ("set class-of-service schedulers S-roce " + dp.rstrip(";\n"),)
        assert diff.unexpected == ("system login user admin …",  # the user the intended set lacks, by name
                                   "set class-of-service schedulers S-default " + dp.rstrip(";\n"))
        assert diff.impact["roce"] == [*diff.missing, diff.unexpected[1]]


def test_hand_added_static_route_users_and_snmp_are_all_drift_and_secrets_are_named_never_shown() -> None:
    running = EOS + "ip route 0.0.0.0/0 198.51.100.1\n" + EOS_SECRETS
    dev = Device(running)
    diff = drift_device("eos", EOS, dev)
    assert dev.asked == [{"retrieve": "running", "sanitized": True}]
    assert diff.unexpected == ("ip route 0.0.0.0/0 198.51.100.1", "username admin …", "snmp-server community …",
                               "management api http-commands", "management api http-commands / no shutdown")
    assert diff.named_only == ("username admin …", "snmp-server community …")
    assert diff.impact == {"routing": ["ip route 0.0.0.0/0 198.51.100.1"],
                           "other": ["username admin …", "snmp-server community …", "management api http-commands",
                                     "management api http-commands / no shutdown"]}
    out = json.dumps(diff.as_dict())
    assert not any(s in out for s in SECRETS)


def test_no_secret_reaches_the_report_even_inside_owned_sections() -> None:
    intended = "router bgp 65001\n neighbor 10.0.0.1 remote-as 65002\n neighbor 10.0.0.1 password OldS3cret\n"
    running = intended.replace("OldS3cret", "N3wS3cret")
    diff = compare("frr", intended, running)
    assert "OldS3cret" not in json.dumps(diff.as_dict()) and "N3wS3cret" not in json.dumps(diff.as_dict())


def test_sonic_and_nvue_compare_tables_and_object_trees() -> None:
    intended = {"PORT": {"Ethernet0": {"mtu": "9100"}}, "BGP_NEIGHBOR": {"10.0.0.1": {"asn": "65002"}}}
    running = {**intended, "BGP_NEIGHBOR": {"10.0.0.1": {"asn": "65002"}, "10.0.0.9": {"asn": "1"}},
               "TACPLUS": {"global": {"passkey": "t4c-s3cret"}}}
    diff = compare("sonic", json.dumps(intended), json.dumps(running, indent=4))
    assert diff.unexpected == ('BGP_NEIGHBOR / 10.0.0.9 / asn = "1"', "TACPLUS …")
    assert diff.impact == {"routing": ['BGP_NEIGHBOR / 10.0.0.9 / asn = "1"'], "other": ["TACPLUS …"]}
    assert diff.named_only == ("TACPLUS …",) and "t4c-s3cret" not in json.dumps(diff.as_dict())
    nv = "- set:\n    interface:\n      swp1:\n        link:\n          mtu: 9216\n"
    nv_running = "- header:\n    rev-id: 12\n- set:\n    interface:\n      swp1:\n        link:\n          mtu: 1500\n"
    d2 = compare("nvue", nv, nv_running)
    assert d2.missing == ("interface / swp1 / link / mtu = 9216",) and set(d2.impact) == {"roce"}


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-/.", min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(words, st.lists(st.tuples(words, words), max_size=4)), min_size=1, max_size=6,
                unique_by=lambda b: b[0]))
def test_eos_block_order_and_indentation_width_never_drift(blocks: list[tuple[str, list[tuple[str, str]]]]) -> None:
    def render(bs: list[tuple[str, list[tuple[str, str]]]], indent: str) -> str:
        return "".join(f"interface {h}\n" + "".join(f"{indent}{k} {v}\n" for k, v in kids) + "!\n" for h, kids in bs)

    a = render(blocks, "   ")
    b = render(list(reversed(blocks)), "  ")
    assert not compare("eos", a, b).drifted


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789$./", min_size=6, max_size=30))
def test_mask_hides_any_value_after_a_secret_keyword(secret: str) -> None:
    for prefix, rest in (("username a secret ", f"sha512 {secret}"), ("snmp-server community ", f"{secret} ro"),
                         ("neighbor 10.0.0.1 password ", secret), ("passkey: ", secret)):
        assert mask(prefix + rest) == prefix + "***"


def test_a_changed_single_valued_setting_is_drift_on_both_sides() -> None:
    diff = compare("eos", EOS, EOS.replace("hostname leaf1\n", "hostname leaf1-old\n"))
    assert diff.missing == ("hostname leaf1",) and diff.unexpected == ("hostname leaf1-old",)
    nv = "- set:\n    system:\n      hostname: leaf1\n"
    d2 = compare("nvue", nv, nv.replace("leaf1", "leaf9"))
    assert d2.missing == ('system / hostname = "leaf1"',) and d2.unexpected == ('system / hostname = "leaf9"',)
    d3 = compare("junos", JUNOS_SET, JUNOS_CURLY.replace("host-name leaf1;", "host-name leaf9;"))
    assert d3.missing == ("set system host-name leaf1",)
    assert d3.unexpected == ("set system host-name leaf9", "system login user admin …")
