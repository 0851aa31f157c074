"""Golden files for the small lab on EOS, NX-OS, Junos and NVUE, plus structural checks of the CLI texts.

Goldens live in ``tests/golden/<platform>/<device>/<file>``; regenerate with
``FABRICGEN_UPDATE_GOLDEN=1 python -m pytest tests/test_render_golden.py`` and review the diff line by line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from fabricgen.render.data import build_device
from tests.conftest import INVENTORIES
from tests.test_render_common import fabric_as, lab_configs, qos_of

GOLDEN = Path(__file__).resolve().parent / "golden"
PLATFORMS = ("eos", "nxos", "junos", "nvue")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_lab_matches_golden(platform: str) -> None:
    for name in ("leaf1", "spine1"):
        for f in lab_configs(platform)[name].files:
            path = GOLDEN / platform / f.path
            if os.environ.get("FABRICGEN_UPDATE_GOLDEN"):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(f.content)
            assert path.read_text() == f.content, f"{path} differs from the rendered file"


def _blocks(text: str, header: str) -> dict[str, str]:
    """Indented blocks of a CLI text by their header line (``interface X``)."""
    out: dict[str, str] = {}
    for m in re.finditer(rf"^{header} (\S+)\n((?:[ ]+.*\n)*)", text, re.M):
        out[m.group(1)] = m.group(2)
    return out


def test_eos_every_roce_port_has_pfc_ecn_and_trust() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "eos")
    qos = qos_of(INVENTORIES / "lab", "eos")
    for name, cfg in lab_configs("eos").items():
        blocks = _blocks(cfg.main, "interface")
        profiles = _blocks(cfg.main, "qos profile")
        for p in fabric.switches[name].ports:
            pq = qos.port(name, p.name)
            assert pq is not None
            applied = re.findall(r"^   service-profile (\S+)$", blocks[p.name], re.M)
            assert len(applied) == 1, blocks[p.name]
            body = profiles[applied[0]]
            assert "priority-flow-control pause watchdog\n" in body
            assert "qos trust dscp" in body and "priority-flow-control on" in body
            for prio in pq.pfc_priorities:
                assert f"priority-flow-control priority {prio} no-drop" in body
            for tc, e in pq.ecn.items():
                assert f"tx-queue {tc}\n      no priority" in body or f"tx-queue {tc}\n      priority" in body
                assert (f"random-detect ecn minimum-threshold {e.min_bytes} bytes maximum-threshold {e.max_bytes}"
                        f" bytes max-mark-probability {e.probability_pct}") in body
            assert body.count("random-detect ecn") == len(pq.ecn)
        assert "qos map dscp 26 to traffic-class 3" in cfg.main
        assert "ip load-sharing trident fields ip source-ip destination-ip source-port destination-port" in cfg.main


def test_nxos_policies_defined_before_use_and_pfc_on_lossless_only() -> None:
    for _name, cfg in lab_configs("nxos").items():
        text = cfg.main
        defined = set(re.findall(r"^policy-map type \S+ (\S+)", text, re.M))
        defined |= set(re.findall(r"^class-map type qos match-any (\S+)", text, re.M))
        used = set(re.findall(r"service-policy type \S+ (?:input |output )?(\S+)", text))
        used |= {c for c in re.findall(r"^  class (?!type )(\S+)", text, re.M) if c != "class-default"}
        assert used <= defined, used - defined
        templates = set(re.findall(r"^  template peer (\S+)", text, re.M))
        assert set(re.findall(r"inherit peer (\S+)", text)) <= templates
        assert re.findall(r"pause pfc-cos (\d)", text) == ["3"]
        assert "random-detect minimum-threshold" in text and text.count(" ecn\n") == 1
        for body in _blocks(text, "interface").values():
            if "Ethernet" in text and "priority-flow-control mode on" in body:
                assert "service-policy type qos input AI_RDMA_CLASSIFY" in body


def test_junos_no_undefined_references() -> None:
    for _name, cfg in lab_configs("junos").items():
        text = cfg.main
        assert all(line.startswith("set ") for line in text.splitlines())
        defined = {
            "scheduler-map": set(re.findall(r"scheduler-maps (\S+) ", text)),
            "scheduler": set(re.findall(r"set class-of-service schedulers (\S+) ", text)),
            "drop-profile": set(re.findall(r"set class-of-service drop-profiles (\S+) ", text)),
            "congestion-notification-profile": set(
                re.findall(r"set class-of-service congestion-notification-profile (\S+) ", text)),
            "export": set(re.findall(r"policy-statement (\S+) ", text)),
            "forwarding-class": set(re.findall(r"forwarding-classes class (\S+) ", text)),
        }
        for kind, names in defined.items():
            for used in re.findall(rf" {kind} (\S+)", text):
                if kind == "forwarding-class" and used == "FC":
                    continue
                assert used in names, f"{kind} {used} used but never defined"
        assert "explicit-congestion-notification" in text
        assert "no-loss" in text and "input dscp code-point 011010 pfc" in text


def test_nvue_is_yaml_with_every_port_and_neighbor() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "nvue")
    qos = qos_of(INVENTORIES / "lab", "nvue")
    for name, cfg in lab_configs("nvue").items():
        doc = YAML(typ="safe").load(cfg.main)
        s = doc[0]["set"]
        for p in fabric.switches[name].ports:
            iface = s["interface"][p.name]
            assert iface["description"] == f"{p.peer_device}:{p.peer_port}"
            assert iface["qos"]["pfc"]["profile"] in s["qos"]["pfc"]
            assert iface["qos"]["mapping"]["profile"] in s["qos"]["mapping"]
        data = build_device(fabric, name, qos)
        neighbors = s["vrf"]["default"]["router"]["bgp"]["neighbor"]
        assert {(ip, n["remote-as"]) for ip, n in neighbors.items()} == {(n.ip, n.asn) for n in data.bgp.neighbors}
        tc3 = s["qos"]["congestion-control"]["AI_RDMA"]["traffic-class"]["3"]
        assert tc3["ecn"] == "enable" and tc3["min-threshold"] < tc3["max-threshold"]
        assert s["qos"]["egress-scheduler"]["AI_RDMA"]["traffic-class"]["6"]["mode"] == "strict"
        assert s["system"]["forwarding"]["ecmp-hash"]["source-port"] == "on"
