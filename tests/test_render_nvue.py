"""NVUE: every rendered startup.yaml validated against NVIDIA's NVUE OpenAPI schema of its release.

The oracle is ``nvueschema`` (NVIDIA's per-release OpenAPI schema as Pydantic models), made strict by
:func:`fabricgen.render.check.nvue_oracle`: unknown keys are refused at every level and values are not
coerced. It is the same oracle ``fabricgen render --check`` runs.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from fabricgen.errors import InputError
from fabricgen.inventory.load import LoadedInventory, load_inventory
from fabricgen.inventory.releases import DEFAULT_RELEASE, RELEASES
from fabricgen.qos import compute
from fabricgen.render import render_device
from fabricgen.render.check import NvueSchema, nvue_oracle, nvue_releases
from fabricgen.render.data import nvue_watchdog
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES, require

BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")


def oracle(release: str) -> NvueSchema:
    require(bool(nvue_releases()), "nvueschema not installed (pip install -e '.[oracles]')")
    schema = nvue_oracle(release)
    assert schema is not None, f"nvueschema has no NVUE {release} models"
    return schema


def with_settings(loaded: LoadedInventory, release: str | None = None, roce_mode: str | None = None
                  ) -> LoadedInventory:
    inv = loaded.inventory
    update: dict[str, Any] = {}
    if release is not None:
        update["fabric"] = inv.fabric.model_copy(update={"releases": {"nvue": release}})
    if roce_mode is not None:
        nvue = inv.qos.platforms.get("nvue")
        override = nvue.model_copy(update={"roce_mode": roce_mode}) if nvue else None
        if override is None:
            from fabricgen.inventory.schema import QosOverride

            override = QosOverride(roce_mode="lossless")
        update["qos"] = inv.qos.model_copy(update={"platforms": {**inv.qos.platforms, "nvue": override}})
    return dataclasses.replace(loaded, inventory=inv.model_copy(update=update))


@cache
def nvue_fabric(inventory: str, release: str | None = None, roce_mode: str | None = None) -> Fabric:
    return resolve(with_settings(retarget(load_inventory(INVENTORIES / inventory), "nvue"), release, roce_mode))


def rendered(inventory: str, release: str | None = None, roce_mode: str | None = None) -> dict[str, str]:
    fabric = nvue_fabric(inventory, release, roce_mode)
    qos = compute(fabric)
    return {name: render_device(fabric, name, qos).main for name in sorted(fabric.switches)}


def doc(text: str) -> dict[str, Any]:
    (first,) = YAML(typ="safe").load(text)
    result: dict[str, Any] = first["set"]
    return result


# --------------------------------------------------------------------------- the oracle itself


def test_every_supported_release_has_a_schema() -> None:
    require(bool(nvue_releases()), "nvueschema not installed (pip install -e '.[oracles]')")
    assert set(RELEASES["nvue"]) <= set(nvue_releases())
    assert DEFAULT_RELEASE["nvue"] in RELEASES["nvue"]


def test_oracle_refuses_unknown_keys_at_every_level() -> None:
    schema = oracle("5.14")
    good = rendered("lab")["leaf1"]
    assert schema.problems(good) == []
    deep = good.replace("          pfc-watchdog:\n            state: enable\n",
                        "          pfc-watchdog:\n            state: enable\n            colour: red\n", 1)
    assert deep != good
    assert any(p.startswith("interface.swp1s0.qos.pfc-watchdog.colour: Extra inputs") for p in schema.problems(deep))
    top = good.replace("- set:\n", "- set:\n    bogus: {}\n", 1)
    assert schema.problems(top)[0].startswith("bogus: Extra inputs")


def test_oracle_refuses_what_the_device_refuses() -> None:
    """The two findings: a `100ms` polling interval and `on` in 5.15's ecmp-hash."""
    schema = oracle("5.14")
    text = rendered("lab")["leaf1"]
    bad = text.replace("polling-interval: 100\n", "polling-interval: 100ms\n")
    assert bad != text
    assert schema.problems(bad) == ['qos.pfc-watchdog.polling-interval: Input should be a valid integer (got "100ms")']
    new = rendered("lab", "5.15")["leaf1"]
    assert oracle("5.15").problems(new) == []
    assert any("destination-ip: Input should be 'enabled' or 'disabled'" in p for p in oracle("5.15").problems(text))


# --------------------------------------------------------------------------- every render, every release


@pytest.mark.parametrize("inventory", BUNDLED)
def test_every_bundled_switch_validates_as_nvue(inventory: str) -> None:
    schema = oracle(DEFAULT_RELEASE["nvue"])
    configs = rendered(inventory)
    assert configs
    for name, text in configs.items():
        assert schema.problems(text) == [], f"{inventory}/{name}"


@pytest.mark.parametrize("release", RELEASES["nvue"])
def test_lab_validates_for_every_supported_release(release: str) -> None:
    schema = oracle(release)
    for roce_mode in (None, "lossless"):
        for name, text in rendered("lab", release, roce_mode).items():
            assert schema.problems(text) == [], f"{release} {roce_mode} {name}"


def test_release_words() -> None:
    old, new = doc(rendered("lab", "5.14")["leaf1"]), doc(rendered("lab", "5.15")["leaf1"])
    assert old["system"]["forwarding"]["ecmp-hash"]["source-port"] == "on"
    assert new["system"]["forwarding"]["ecmp-hash"]["source-port"] == "enabled"
    assert old["router"]["bgp"]["enable"] == "on" and new["router"]["bgp"]["state"] == "enabled"
    assert "ip" in old["interface"]["lo"] and "ipv4" in new["interface"]["lo"]
    assert "lldp" in old["service"] and "lldp" in new["system"]


# --------------------------------------------------------------------------- what the files say


def test_watchdog_times_are_rendered() -> None:
    fabric = nvue_fabric("lab")
    qos = compute(fabric)
    wd = qos.port("leaf1", "swp1s0").watchdog
    assert wd is not None
    cfg = doc(rendered("lab")["leaf1"])["qos"]["pfc-watchdog"]
    assert cfg["polling-interval"] * cfg["robustness"] == wd.detection_ms
    assert doc(rendered("lab")["leaf1"])["interface"]["swp1s0"]["qos"]["pfc-watchdog"] == {"state": "enable"}


@given(st.integers(min_value=10, max_value=60_000))
def test_nvue_watchdog_detection_is_the_smallest_not_shorter(detection_ms: int) -> None:
    polling, robustness, result = nvue_watchdog(detection_ms)
    assert 100 <= polling <= 5000 and 1 <= robustness <= 1000 and result == polling * robustness
    assert result >= min(detection_ms, 100_000)
    assert robustness == 1 or (robustness - 1) * polling < detection_ms


def test_roce_lldp_tlv_pool_and_no_adaptive_routing_unless_asked() -> None:
    cfg = doc(rendered("lab")["leaf1"])
    assert cfg["service"]["lldp"]["application-tlv"]["udp-port"]["4791"] == {"priority": 3}
    pools = cfg["qos"]["traffic-pool"]
    assert pools["default-lossless"]["switch-priority"] == {"3": {}}
    assert sum(p["memory-percent"] for p in pools.values()) <= 100
    assert set(pools["default-lossy"]["switch-priority"]) == {"0", "1", "2", "4", "5", "6", "7"}
    # SN5600 is Spectrum-4 (Spectrum-X), but the lab does not turn adaptive routing on: nothing is rendered
    # (rendering where it is on: tests/test_adaptive_routing.py)
    assert "adaptive-routing" not in cfg["router"]
    assert not any("router" in i for i in cfg["interface"].values())


def test_roce_mode_lossless_uses_nvidias_object() -> None:
    for release, word in (("5.14", {"enable": "on"}), ("5.15", {"state": "enabled"})):
        cfg = doc(rendered("lab", release, "lossless")["leaf1"])
        assert cfg["qos"]["roce"] == {**word, "mode": "lossless"}
        assert not {"pfc", "mapping", "congestion-control", "traffic-pool"} & set(cfg["qos"])
        assert "qos" not in cfg["interface"]["swp1s0"] or set(cfg["interface"]["swp1s0"]["qos"]) == {"pfc-watchdog"}


# --------------------------------------------------------------------------- release as input


def _lab_copy(tmp_path: Path, extra: str) -> Path:
    inv = tmp_path / "lab"
    shutil.copytree(INVENTORIES / "lab", inv)
    text = (inv / "fabric.yaml").read_text(encoding="utf-8")
    (inv / "fabric.yaml").write_text(text.replace("  name: lab\n", "  name: lab\n" + extra, 1), encoding="utf-8")
    return inv


def test_unknown_release_is_an_input_error(tmp_path: Path) -> None:
    inv = _lab_copy(tmp_path, "  releases: {nvue: '4.3'}\n")
    with pytest.raises(InputError) as info:
        resolve(load_inventory(inv))
    (line,) = [str(p) for p in info.value.problems]
    assert line == (f"{inv / 'fabric.yaml'}:3:3: fabric.releases: unknown nvue release '4.3'; "
                    "one of 5.9, 5.10, 5.11, 5.12, 5.13, 5.14, 5.15, 5.16, 5.17, 5.18")


def test_release_on_a_platform_without_releases_is_an_input_error(tmp_path: Path) -> None:
    inv = _lab_copy(tmp_path, "  releases: {frr: '8.4'}\n")
    with pytest.raises(InputError) as info:
        resolve(load_inventory(inv))
    assert "platform frr has no release setting" in str(info.value.problems[0])


def test_fabric_release_reaches_the_switch() -> None:
    fabric = nvue_fabric("lab", "5.16")
    assert {s.release for s in fabric.switches.values()} == {"5.16"}
    assert {s.release for s in nvue_fabric("lab").switches.values()} == {DEFAULT_RELEASE["nvue"]}


def test_explain_shows_how_nvue_writes_the_watchdog() -> None:
    from click.testing import CliRunner

    from fabricgen.cli import app

    fabric = resolve(load_inventory(INVENTORIES / "su1"))
    leaf = sorted(n for n, s in fabric.switches.items() if s.platform == "nvue")[0]
    port = fabric.switches[leaf].ports[0].name
    result = CliRunner().invoke(app, ["explain", str(INVENTORIES / "su1"), f"{leaf}:{port}", "--format", "json"])
    assert result.exit_code == 0, result.output
    values = {v["name"]: (v["value"], v["source"]) for v in json.loads(result.output)["values"]}
    assert values["nos release"] == ("nvue 5.14", "default")
    assert values["nvue pfc-watchdog"][0] == ("polling-interval 100 ms x robustness 2 = 200 ms; "
                                              "NVUE has no restoration time")


NVIDIA_ROCE_LOSSLESS = {26: (3, True, (150_000, 1_500_000)), 48: (6, False, None)}
"""`nv set qos roce mode lossless` defaults by DSCP: (priority, PFC, ECN thresholds) — Cumulus Linux 5.14 user
guide, "RDMA over Converged Ethernet - RoCE", default RoCE configuration (ECN absolute 150,000–1,500,000 B on
traffic class 3, PFC on switch priority 3, CNP on 6 strict)."""


def test_roce_mode_keeps_the_policys_roce_and_cnp_lanes() -> None:
    """With roce_mode the device runs NVIDIA's defaults: for RoCE and CNP they equal what the policy intends."""
    fabric = nvue_fabric("lab", None, "lossless")
    pq = compute(fabric).port("leaf1", "swp1s0")
    assert pq is not None
    for dscp, (prio, pfc, ecn) in NVIDIA_ROCE_LOSSLESS.items():
        tc = pq.dscp_to_tc[dscp]
        assert (tc, tc in pq.pfc_priorities) == (prio, pfc)
        got = pq.ecn.get(tc)
        assert (None if got is None else (got.min_bytes, got.max_bytes)) == ecn


def test_unknown_tier_release_is_one_input_error(tmp_path: Path) -> None:
    """A release on an intent tier is checked against the tier's platform, reported once (not per leaf)."""
    inv = tmp_path / "su1"
    shutil.copytree(INVENTORIES / "su1", inv)
    f = inv / "fabric.yaml"
    text = f.read_text(encoding="utf-8")
    f.write_text(text.replace("leaf: {model: sn5600}", "leaf: {model: sn5600, release: '5.99'}"), encoding="utf-8")
    with pytest.raises(InputError) as info:
        resolve(load_inventory(inv))
    lines = [str(p) for p in info.value.problems]
    assert lines == [f"{f}:15:27: intent.rail_optimized.leaf.release: unknown nvue release '5.99'; one of 5.9, 5.10, "
                     "5.11, 5.12, 5.13, 5.14, 5.15, 5.16, 5.17, 5.18: 8 switches of this tier"]  # su1: 8 leaves


def test_tier_release_overrides_the_fabric() -> None:
    loaded = load_inventory(INVENTORIES / "su1")
    inv = loaded.inventory
    assert inv.intent is not None
    ro = inv.intent.rail_optimized
    ro = ro.model_copy(update={"leaf": ro.leaf.model_copy(update={"release": "5.16"})})
    inv = inv.model_copy(update={"intent": inv.intent.model_copy(update={"rail_optimized": ro}),
                                 "fabric": inv.fabric.model_copy(update={"releases": {"nvue": "5.15"}})})
    fabric = resolve(dataclasses.replace(loaded, inventory=inv))
    by_role = {(s.role.value, s.release) for s in fabric.switches.values()}
    assert by_role == {("leaf", "5.16"), ("spine", "5.15")}


@pytest.mark.parametrize("release", ["5.14", "5.15"])
def test_underlay_only_render_validates(release: str) -> None:
    """Without QoS (render_device with no qos) there is no lldp TLV, pool or watchdog, and the file is valid."""
    schema = oracle(release)
    fabric = nvue_fabric("lab", release)
    for name in sorted(fabric.switches):
        text = render_device(fabric, name).main
        assert schema.problems(text) == [], name
        assert "qos" not in doc(text)


# --------------------------------------------------------------------------- routing policy


@pytest.mark.parametrize("release", RELEASES["nvue"])
def test_every_bundled_inventory_validates_for_every_release(release: str) -> None:
    schema = oracle(release)
    for inventory in BUNDLED:
        for name, text in rendered(inventory, release).items():
            assert schema.problems(text) == [], f"{inventory} {release} {name}"


def _router_policy(cfg: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = cfg["router"]["policy"]
    return result


@pytest.mark.parametrize("release", ["5.14", "5.15"])
def test_peer_groups_name_policies_the_document_defines(release: str) -> None:
    for text in rendered("lab", release).values():
        cfg = doc(text)
        pol = _router_policy(cfg)
        groups = cfg["vrf"]["default"]["router"]["bgp"]["peer-group"]
        assert groups
        for g in groups.values():
            af = g["address-family"]["ipv4-unicast"]
            named = set(af["policy"]["inbound"].values()) | set(af["policy"]["outbound"].values())
            assert named == {"FABRIC-IN-V4", "FABRIC-OUT-V4"} and named <= set(pol["route-map"])
            assert af["community-advertise"]["regular"] in ("on", "enabled")
            assert af["prefix-limits"]["inbound"]["maximum"] >= 1
            assert "warning-only" not in af["prefix-limits"]["inbound"]  # exceeded: the session is torn down
        for rm in pol["route-map"].values():
            for rule in rm["rule"].values():
                match = rule.get("match", {})
                assert match.get("ip-prefix-list", next(iter(pol["prefix-list"]))) in pol["prefix-list"]
                assert match.get("community-list", next(iter(pol["community-list"]))) in pol["community-list"]
        # every list defined is used by a route map
        used = {r.get("match", {}).get(k) for rm in pol["route-map"].values() for r in rm["rule"].values()
                for k in ("ip-prefix-list", "community-list")}
        assert set(pol["prefix-list"]) | set(pol["community-list"]) <= used


def _permits(plist: dict[str, Any], prefix: str) -> bool:
    """FRR prefix-list semantics of an NVUE prefix-list: the first rule whose prefix covers ``prefix`` with a
    length in [min-prefix-len, max-prefix-len] (the rule's own length when neither is set) decides."""
    import ipaddress

    net = ipaddress.IPv4Network(prefix)
    for _, rule in sorted(plist["rule"].items(), key=lambda kv: int(kv[0])):
        for p, lens in rule["match"].items():
            f = ipaddress.IPv4Network(p)
            lo, hi = lens.get("min-prefix-len", f.prefixlen), lens.get("max-prefix-len", f.prefixlen)
            if net.subnet_of(f) and lo <= net.prefixlen <= hi:
                return bool(rule["action"] == "permit")
    return False


def test_prefix_lists_hold_the_fabric_and_the_device() -> None:
    fabric = nvue_fabric("lab")
    cfg = doc(rendered("lab")["leaf1"])
    pol = _router_policy(cfg)
    fabric_list, local = pol["prefix-list"]["FABRIC-PREFIXES"], pol["prefix-list"]["LOCAL-PREFIXES"]
    for s in fabric.switches.values():
        assert _permits(fabric_list, f"{s.loopback}/32")
    assert not _permits(fabric_list, "192.0.2.0/24") and not _permits(fabric_list, "10.0.0.0/24")
    own = f"{fabric.switches['leaf1'].loopback}/32"
    assert _permits(local, own) and not _permits(local, f"{fabric.switches['leaf2'].loopback}/32")
    assert set(cfg["vrf"]["default"]["router"]["bgp"]["address-family"]["ipv4-unicast"]["network"]) == {
        next(iter(r["match"])) for r in local["rule"].values()}
    rin = pol["route-map"]["FABRIC-IN-V4"]["rule"]
    assert rin["100"]["match"] == {"community-list": "GSHUT", "ip-prefix-list": "FABRIC-PREFIXES"}
    assert rin["100"]["set"] == {"local-preference": 0} and "permit" in rin["100"]["action"]
    assert pol["community-list"]["GSHUT"]["rule"]["10"]["community"] == {"65535:0": {}}


def _drained(release: str) -> Fabric:
    loaded = retarget(load_inventory(INVENTORIES / "lab"), "nvue")
    inv = with_settings(loaded, release).inventory
    return resolve(dataclasses.replace(loaded, inventory=inv.model_copy(
        update={"fabric": inv.fabric.model_copy(update={"drain": ["spine1"]})})))


@pytest.mark.parametrize(("release", "on"), [("5.14", "on"), ("5.18", "enabled")])
def test_a_drained_switch_turns_on_nvues_graceful_shutdown(release: str, on: str) -> None:
    """A drained switch sends everything with 65535:0 through NVUE's own `router bgp graceful-shutdown` (which has
    FRR add it to every path sent to eBGP peers); the export route-map only adds the role community to the
    device's own prefixes, which carry none before it, so whether NVUE's `set community` adds or replaces does not
    matter."""
    fabric = _drained(release)
    for name in ("spine1", "spine2"):
        text = render_device(fabric, name).main
        assert oracle(release).problems(text) == []
        cfg = doc(text)
        out = _router_policy(cfg)["route-map"]["FABRIC-OUT-V4"]["rule"]
        assert out["100"]["set"]["community"] == {"64512:2": {}} and "set" not in out["110"]
        assert cfg["router"]["bgp"].get("graceful-shutdown") == (on if name == "spine1" else None)


@pytest.mark.parametrize("release", ["5.14", "5.15"])
def test_bfd_on_every_peer_group(release: str) -> None:
    fabric = nvue_fabric("lab", release)
    bfd = fabric.settings.bfd
    for text in rendered("lab", release).values():
        cfg = doc(text)
        for g in cfg["vrf"]["default"]["router"]["bgp"]["peer-group"].values():
            if release == "5.14":
                assert g["bfd"] == {"enable": "on", "detect-multiplier": bfd.multiplier,
                                    "min-rx-interval": bfd.interval_ms, "min-tx-interval": bfd.interval_ms}
            else:  # 5.15: the timers are a profile's, the group names it
                prof = cfg["router"]["bfd"]["profile"][g["bfd"]["profile"]]
                assert prof == {"detect-multiplier": bfd.multiplier, "min-rx-interval": bfd.interval_ms,
                                "min-tx-interval": bfd.interval_ms}
                assert cfg["router"]["bfd"]["state"] == "enabled"


def test_no_bfd_when_disabled() -> None:
    loaded = retarget(load_inventory(INVENTORIES / "lab"), "nvue")
    for release in ("5.14", "5.15"):
        inv = with_settings(loaded, release).inventory
        inv = inv.model_copy(update={"fabric": inv.fabric.model_copy(
            update={"bfd": inv.fabric.bfd.model_copy(update={"enabled": False})})})
        fabric = resolve(dataclasses.replace(loaded, inventory=inv))
        cfg = doc(render_device(fabric, "leaf1").main)
        assert oracle(release).problems(render_device(fabric, "leaf1").main) == []
        assert "bfd" not in cfg["router"]
        assert all("bfd" not in g for g in cfg["vrf"]["default"]["router"]["bgp"]["peer-group"].values())
