"""Fuzz: running configurations as ``drift`` and ``apply`` read them, through :func:`fabricgen.deploy.normalize.compare`
and :func:`~fabricgen.deploy.normalize.sanitize`, on every platform.

Sources: what fabricgen renders for each platform (the lab moved to it); the real EOS configurations of
``../shared/real-configs/eos/`` (read from there at test time); and configurations written here in the shape the
vendors document. Each is read the way the platform's driver hands it to ``compare`` (sanitized: fabricgen's
:func:`sanitize` for FRR, SONiC and NVUE; NAPALM's sanitizer and then fabricgen's ``mask_junos`` for Junos; NAPALM's
EOS and NX-OS filters for those).

Properties: no exception for any text but :class:`~fabricgen.deploy.normalize.UnreadableConfig` (a SONiC or NVUE text
that neither JSON nor YAML reads: the device is reported not checked); ``compare(p, x, x)`` finds no drift; and a
device whose running configuration is its intended one, as the driver reads it, is not drift. Found cases live in
``tests/data/fuzz/configs/``.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.deploy.normalize import UnreadableConfig, compare, mask_junos, sanitize
from fabricgen.inventory.catalog import PLATFORMS
from tests.conftest import INVENTORIES, require
from tests.fuzz import ROOT, corpus, fuzz_settings, record_failure
from tests.fuzz_yaml import mutated_tree

REAL_EOS = ROOT.parent / "shared" / "real-configs" / "eos"
"""Recorded EOS running configurations (see SOURCES.md there), beside the repository as CI checks it out."""


def _napalm(filters_name: str) -> Callable[[str], str]:
    from napalm.base import constants
    from napalm.base.helpers import sanitize_config

    filters = getattr(constants, filters_name)
    return lambda text: str(sanitize_config(text, filters))


def _junos_read(text: str) -> str:
    from napalm.base.helpers import sanitize_config

    napalm_junos = {  # napalm/junos/junos.py JunOSDriver.get_config's sanitize_strings
        r"^(\s+community\s+)\w+(;.*|\s+{.*)$": r"\1<removed>\2",
        r'^(.*)"\$\d\$\S+"(;.*)$': r"\1<removed>\2",
    }
    return "\n".join(mask_junos(line) for line in str(sanitize_config(text, napalm_junos)).splitlines())


AS_READ: dict[str, Callable[[str], str]] = {
    "frr": sanitize,
    "sonic": sanitize,
    "nvue": sanitize,
    "junos": _junos_read,
    "eos": _napalm("EOS_SANITIZE_FILTERS"),
    "nxos": _napalm("CISCO_SANITIZE_FILTERS"),
}
"""How each platform's driver returns ``get_config(sanitized=True)`` (fabricgen.deploy.drivers, NAPALM 5.x)."""

VENDOR_SHAPED = {
    # Junos `show configuration` (curly braces, as Juniper's CLI User Guide prints a hierarchy)
    "junos": "system {\n    host-name leaf1;\n    services {\n        ssh;\n        netconf {\n            ssh;\n"
             "        }\n    }\n}\ninterfaces {\n    et-0/0/0 {\n        mtu 9216;\n        unit 0 {\n"
             "            family inet {\n                address 10.128.0.1/31;\n            }\n        }\n    }\n}\n"
             "protocols {\n    bgp {\n        group SPINES {\n            type external;\n"
             "            neighbor 10.128.0.0 {\n                peer-as 4200000100;\n            }\n        }\n"
             "    }\n}\nsnmp {\n    community c0mmunity {\n        authorization read-only;\n    }\n}\n",
    # FRR `show running-config` with routing policy (FRR user guide, "Filtering" / "Route Maps")
    "frr": "frr version 8.4.4\nfrr defaults traditional\nhostname leaf1\n!\nip prefix-list HAND-PL seq 5 permit "
           "203.0.113.0/24\n!\nroute-map RM-IN permit 10\n match ip address prefix-list HAND-PL\nexit\n!\n"
           "router bgp 4200100001\n bgp router-id 10.0.0.1\n neighbor 10.128.0.0 remote-as 4200000100\n"
           " !\n address-family ipv4 unicast\n  neighbor 10.128.0.0 route-map RM-IN in\n exit-address-family\n"
           "exit\n!\nend\n",
    # NX-OS `show running-config` (Cisco NX-OS configuration guides' examples)
    "nxos": "!Command: show running-config\nversion 10.3(2) Bios:version\nhostname leaf1\nfeature bgp\n"
            "feature lldp\nusername admin password 5 $5$KJHGF$abc  role network-admin\n"
            "snmp-server community c0mm group network-operator\ninterface Ethernet1/1\n  mtu 9216\n"
            "  no shutdown\nrouter bgp 4200100001\n  router-id 10.0.0.1\n  neighbor 10.128.0.0\n"
            "    remote-as 4200000100\n    address-family ipv4 unicast\n",
    # SONiC config_db.json with tables fabricgen does not write (SONiC Configuration wiki)
    "sonic": json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf1", "hwsku": "ACS-SN5600"}},
                         "SNMP_COMMUNITY": {"c0mm": {"TYPE": "RO"}}, "ACL_TABLE": {"DATAACL": {"type": "L3"}},
                         "STATIC_ROUTE": {"0.0.0.0/0": {"nexthop": "192.0.2.1"}}}),
    # NVUE `nv config show -o yaml` (NVIDIA Cumulus Linux user guide)
    "nvue": "- set:\n    system:\n      hostname: leaf1\n    interface:\n      swp1:\n        type: swp\n"
            "        link:\n          mtu: 9216\n    service:\n      snmp-server:\n        readonly-community:\n"
            "          c0mm:\n            access:\n              any: {}\n",
}


@functools.cache
def rendered(platform: str) -> tuple[str, ...]:
    """The intended configurations of two lab switches (a spine and a leaf) moved to ``platform``."""
    from fabricgen.deploy.intended import intended_configs
    from tests.test_render_common import fabric_as

    fabric = fabric_as(INVENTORIES / "lab", platform)
    configs = intended_configs(fabric, ["spine1", "leaf1"])
    return configs["spine1"], configs["leaf1"]


def real_eos() -> list[str]:
    require(REAL_EOS.is_dir(), f"{REAL_EOS} is not here (CI checks out ../shared beside the repository)")
    return [p.read_text(encoding="utf-8") for p in sorted(REAL_EOS.glob("*.cfg"))]


def sources(platform: str) -> list[str]:
    out = [*rendered(platform), *([VENDOR_SHAPED[platform]] if platform in VENDOR_SHAPED else [])]
    if platform == "eos" and REAL_EOS.is_dir():
        out += real_eos()
    return out


def fuzz_sources(platform: str) -> list[str]:
    """What the mutating properties start from: :func:`sources`, but NVUE's rendered files only in the deterministic
    test (reading a 14 kB NVUE document takes YAML most of a second: too slow to mutate by the hundred)."""
    return [VENDOR_SHAPED["nvue"]] if platform == "nvue" else sources(platform)


def check_compare(platform: str, intended: str, running: str) -> None:
    """The properties for one pair: no exception anywhere, and no drift between a text and itself."""
    case = {"target": "configs", "platform": platform, "intended": intended, "running": running}
    try:
        for text in (intended, running):
            sanitize(text)
            AS_READ[platform](text)
            try:
                assert not compare(platform, text, text).drifted, f"{platform}: a configuration drifts from itself"
            except UnreadableConfig as exc:  # the one error compare has: not JSON/YAML where the platform needs it
                assert platform in ("sonic", "nvue") and str(exc).startswith("the configuration is neither")
                continue
        with contextlib.suppress(UnreadableConfig):
            compare(platform, intended, running)
    except BaseException:
        record_failure(case)
        raise


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_device_at_intent_is_not_drift(platform: str) -> None:
    """Each source as intended, and as the platform's driver reads the same configuration back: no drift."""
    for text in sources(platform):
        read = AS_READ[platform](text)
        diff = compare(platform, text, read)
        assert not diff.drifted, f"{platform}: {diff.missing[:3]} {diff.unexpected[:3]}"
        check_compare(platform, text, read)


def test_the_real_eos_configurations_are_read(tmp_path: Path) -> None:
    """The recorded EOS configurations compare with themselves and against what fabricgen renders without error,
    and their secret-bearing sections (users, SNMP) are named, never shown."""
    configs = real_eos()
    assert len(configs) == 3
    leaf = rendered("eos")[1]
    for text in configs:
        diff = compare("eos", leaf, AS_READ["eos"](text))
        assert diff.drifted and diff.named_only
        assert not any("secret" in u or "$6$" in u for u in diff.named_only)
        assert not any("$6$" in line for line in (*diff.missing, *diff.unexpected))


LINE_SNIPPETS = (
    "!", "end", "exit", "exit-address-family", "}", "{", ";", "}}}", "set", "delete", "interface", "router bgp",
    "   ", "\t", "\x00", "\ufeff", "\u2028", "é", "#", "##", " " * 40 + "x", "a" * 300, "- set:", "-", ":", "[", "]",
    "'", '"', "no", "default", "!!", "{{", "%", "\r",
)  # fmt: skip


@st.composite
def mutated_config(draw: st.DrawFn, text: str) -> str:
    """``text`` with lines dropped, doubled, swapped, re-indented, cut, or a snippet inserted; a JSON or YAML
    document also as its tree mutated."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "- ")) and draw(st.booleans()):
        try:
            tree = json.loads(text) if stripped.startswith("{") else yaml.safe_load(text)
            tree = draw(mutated_tree(tree))
            return json.dumps(tree) if stripped.startswith("{") else str(yaml.safe_dump(tree, allow_unicode=True))
        except (TypeError, ValueError, yaml.YAMLError):
            pass
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [draw(st.sampled_from(LINE_SNIPPETS))]
            continue
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(("drop", "double", "swap", "indent", "dedent", "insert", "cut", "edit")))
        if op == "drop":
            del lines[i]
        elif op == "double":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = " " * draw(st.integers(1, 9)) + lines[i]
        elif op == "dedent":
            lines[i] = lines[i].lstrip()
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(LINE_SNIPPETS)))
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
            if draw(st.booleans()):
                del lines[i + 1 :]
        elif op == "edit":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(st.sampled_from(LINE_SNIPPETS)) + lines[i][at:]
    return "\n".join(lines)


@fuzz_settings(scale=2)
@given(platform=st.sampled_from(PLATFORMS), data=st.data())
def test_running_configurations_mutated(platform: str, data: st.DataObject) -> None:
    intended = data.draw(st.sampled_from(fuzz_sources(platform)), label="intended")
    running = data.draw(mutated_config(intended), label="running")
    check_compare(platform, intended, AS_READ[platform](running) if data.draw(st.booleans()) else running)


@fuzz_settings(scale=0.5)
@given(platform=st.sampled_from(PLATFORMS), text=st.text(max_size=200))
def test_any_text_is_a_configuration(platform: str, text: str) -> None:
    check_compare(platform, fuzz_sources(platform)[0], text)


@pytest.mark.parametrize("case", corpus("configs"))
def test_configs_corpus(case: dict[str, Any]) -> None:
    """Every configuration case found so far, replayed."""
    check_compare(case["platform"], case["intended"], case["running"])
