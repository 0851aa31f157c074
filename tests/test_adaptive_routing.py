"""Adaptive routing: an inventory setting per fabric, tier and switch (off unless set), checked against the NICs,
the ports and the other tiers, rendered on NVUE only where on, a plan risk when a change toggles it, and the
"as rendered" row of ``paths``/``scaling`` placing flows adaptively where it is on."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from fabricgen.checks import run_checks
from fabricgen.cli import app
from fabricgen.errors import InputError
from fabricgen.inventory.load import load_inventory
from fabricgen.perf.paths import parse_job, rendered_remedy, simulate
from fabricgen.plan.diff import diff_fabrics
from fabricgen.qos import compute
from fabricgen.render import render_device
from fabricgen.render.check import nvue_oracle, nvue_releases
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES, require


def intent(tmp_path: Path, *, fabric: str = "", leaf: str = "", spine: str = "", spines: int = 2,
           catalog: str = "", platform: str = "nvue", release: str = "5.14", uplink: str = "400G") -> Path:
    """A two-unit rail-optimized fabric of SN5600s (4 DGX H100 per unit) written to ``tmp_path``."""
    text = f"""fabric:
  name: ar
  releases: {{nvue: "{release}"}}
{fabric}
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 4
    units: 2
    leaf: {{model: sn5600, platform: {platform}, uplink_speed: {uplink}{leaf}}}
    spine: {{model: sn5600, platform: {platform}, count: {spines}{spine}}}
{catalog}"""
    (tmp_path / "fabric.yaml").write_text(text)
    return tmp_path


def sub(tmp_path: Path, name: str) -> Path:
    (tmp_path / name).mkdir()
    return tmp_path / name


def fabric_of(path: Path) -> Fabric:
    return resolve(load_inventory(path))


def nvue_doc(fabric: Fabric, name: str) -> tuple[str, dict[str, Any]]:
    text = render_device(fabric, name, compute(fabric)).main
    (first,) = YAML(typ="safe").load(text)
    return text, first["set"]


def codes(fabric: Fabric, code: str) -> list[Any]:
    return [f for f in run_checks(fabric) if f.code == code]


# --------------------------------------------------------------------------- the setting


def test_off_unless_the_inventory_turns_it_on(tmp_path: Path) -> None:
    fabric = resolve(retarget(load_inventory(INVENTORIES / "su1"), "nvue"))
    assert not any(sw.adaptive_routing for sw in fabric.switches.values())
    _, cfg = nvue_doc(fabric, "leaf-su001-r0")
    assert "adaptive-routing" not in cfg["router"]
    assert not any("router" in i for i in cfg["interface"].values())


def test_resolves_switch_over_tier_over_fabric(tmp_path: Path) -> None:
    fabric = fabric_of(intent(tmp_path, fabric="  adaptive_routing: true", spine=", adaptive_routing: false"))
    on = {n for n, sw in fabric.switches.items() if sw.adaptive_routing}
    assert on == {n for n, sw in fabric.switches.items() if sw.role.value == "leaf"} and len(on) == 16

    loaded = retarget(load_inventory(INVENTORIES / "lab"), "nvue")  # explicit switches
    inv = loaded.inventory
    switches = [s.model_copy(update={"adaptive_routing": False}) if s.name == "leaf1" else s for s in inv.switches]
    inv = inv.model_copy(update={"switches": switches,
                                 "fabric": inv.fabric.model_copy(update={"adaptive_routing": True})})
    fabric = resolve(dataclasses.replace(loaded, inventory=inv))
    assert {n for n, sw in fabric.switches.items() if sw.adaptive_routing} == {
        "leaf2", "leaf3", "leaf4", "spine1", "spine2"}


@pytest.mark.parametrize(("platform", "model", "words"), [
    ("eos", "arista-7060x6-64pe", "platform eos"),  # a model that runs EOS: only adaptive routing is wrong
    ("sonic", "sn5600", "platform sonic is not rendered"),
    ("nvue", "sn4700", "Spectrum-3"),
])
def test_on_where_the_switch_cannot_run_it_is_an_error_at_the_line(tmp_path: Path, platform: str, model: str,
                                                                     words: str) -> None:
    path = intent(tmp_path, platform="nvue", spine=", adaptive_routing: true")
    text = (path / "fabric.yaml").read_text()
    text = text.replace("spine: {model: sn5600, platform: nvue", f"spine: {{model: {model}, platform: {platform}")
    (path / "fabric.yaml").write_text(text)
    with pytest.raises(InputError) as exc:
        fabric_of(path)
    (problem,) = exc.value.problems
    assert problem.field == "intent.rail_optimized.spine.adaptive_routing"
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "spine:" in t)
    assert problem.pos is not None and problem.pos.line == line
    assert words in problem.message and "(2 switches: spine-01, spine-02)" in problem.message


# --------------------------------------------------------------------------- rendering


@pytest.mark.parametrize(("release", "word"), [("5.14", {"enable": "on"}), ("5.15", {"state": "enabled"})])
def test_nvue_renders_it_only_where_on_and_the_schema_accepts_it(tmp_path: Path, release: str,
                                                                 word: dict[str, str]) -> None:
    fabric = fabric_of(intent(tmp_path, leaf=", adaptive_routing: true", release=release))
    leaf = fabric.switches["leaf-su001-r0"]
    text, cfg = nvue_doc(fabric, leaf.name)
    assert cfg["router"]["adaptive-routing"] == word
    for p in leaf.ports:
        ar = cfg["interface"][p.name].get("router", {}).get("adaptive-routing")
        assert (ar == word) == (p.kind.value != "host"), p.name
    spine_text, spine = nvue_doc(fabric, "spine-01")
    assert "adaptive-routing" not in spine["router"] and "adaptive-routing" not in spine_text
    require(bool(nvue_releases()), "nvueschema not installed (pip install -e '.[oracles]')")
    oracle = nvue_oracle(release)
    assert oracle is not None
    assert oracle.problems(text) == [] and oracle.problems(spine_text) == []


# --------------------------------------------------------------------------- checks


def test_nics_that_cannot_place_out_of_order_data_are_one_finding(tmp_path: Path) -> None:
    # a ConnectX-7 without the Spectrum-X profile: the inventory redefines it without adaptive_routing
    catalog = "catalog:\n  nics:\n    connectx-7: {vendor: NVIDIA, speed: 400G, ports: 1, rdma_driver: mlx5}\n"
    fabric = fabric_of(intent(tmp_path, leaf=", adaptive_routing: true", catalog=catalog))
    (f,) = codes(fabric, "FG-AR-001")
    assert f.severity.value == "error" and f.subject == "NIC connectx-7"
    assert "64 NICs (gpu-su001-n01:enp24s0np0" in f.message and "on 16 switches" in f.message
    assert codes(fabric_of(intent(tmp_path, leaf=", adaptive_routing: true")), "FG-AR-001") == []


def test_800g_links_on_spectrum_4(tmp_path: Path) -> None:
    fabric = fabric_of(intent(tmp_path, fabric="  adaptive_routing: true", uplink="800G"))
    found = {f.subject: f for f in codes(fabric, "FG-AR-002")}
    assert set(found) == {"sn5600 leaf switches", "sn5600 spine switches"}
    assert "32 ports at 800G on 16 switches" in found["sn5600 leaf switches"].message
    assert codes(fabric_of(intent(tmp_path, fabric="  adaptive_routing: true")), "FG-AR-002") == []
    assert codes(fabric_of(intent(tmp_path, uplink="800G")), "FG-AR-002") == []


def test_mixed_ecmp_only_where_the_other_tier_has_a_choice(tmp_path: Path) -> None:
    # two spines: four parallel links from each spine to each leaf, so the spines choose (and hash)
    mixed = fabric_of(intent(tmp_path, leaf=", adaptive_routing: true", spines=2))
    (f,) = codes(mixed, "FG-AR-003")
    assert f.severity.value == "warning" and f.subject == "spine switches"
    assert "on 16 switches" in f.message and "off on 2 spine switches" in f.message
    # four spines: one link per leaf, the spines have no choice to make
    assert codes(fabric_of(intent(tmp_path, leaf=", adaptive_routing: true", spines=4)), "FG-AR-003") == []


# --------------------------------------------------------------------------- plan


def test_plan_risk_line_when_a_change_toggles_it(tmp_path: Path) -> None:
    before = fabric_of(intent(sub(tmp_path, "a")))
    after = fabric_of(intent(sub(tmp_path, "b"),
                             leaf=", adaptive_routing: true"))
    diff = diff_fabrics(before, after, qos=False)
    (risk,) = diff.risks
    assert risk.startswith("adaptive routing off → on on 16 Cumulus switches (leaf-su001-r0 … leaf-su002-r7)")
    assert "reloads switchd" in risk
    changed = {d.name: d for d in diff.changed}
    assert set(changed) == {n for n in after.switches if n.startswith("leaf")}
    assert "adaptive routing off → on (switchd reloads)" in changed["leaf-su001-r0"].reasons
    (back,) = diff_fabrics(after, before, qos=False).risks
    assert back.startswith("adaptive routing on → off on 16 Cumulus switches")
    assert diff_fabrics(before, before, qos=False).risks == ()

    result = CliRunner().invoke(app, ["plan", "--base", str(tmp_path / "a"), str(tmp_path / "b"), "--no-configs"],
                                catch_exceptions=False)
    assert "risk: adaptive routing off → on on 16 Cumulus switches" in result.output, result.output
    result = CliRunner().invoke(app, ["plan", "--base", str(tmp_path / "a"), str(tmp_path / "b"), "--no-configs",
                                      "--format", "markdown"], catch_exceptions=False)
    assert "> ⚠️ **Risk:** adaptive routing off → on on 16 Cumulus switches" in result.output


# --------------------------------------------------------------------------- paths and scaling


def test_paths_as_rendered_row_is_adaptive_where_on(tmp_path: Path) -> None:
    off = fabric_of(intent(sub(tmp_path, "a")))
    on = fabric_of(intent(sub(tmp_path, "b"),
                          fabric="  adaptive_routing: true"))
    part = fabric_of(intent(sub(tmp_path, "c"),
                            leaf=", adaptive_routing: true"))
    assert rendered_remedy(off).mode == "ecmp"
    assert (rendered_remedy(on).mode, rendered_remedy(on).adaptive_switches) == ("adaptive", None)
    partial = rendered_remedy(part)
    assert partial.mode == "adaptive" and partial.adaptive_switches == frozenset(
        n for n in part.switches if n.startswith("leaf"))
    eff = {name: simulate(f, parse_job(f, "64:scattered"), [rendered_remedy(f)], seeds=8).results[0].median_efficiency
           for name, f in (("off", off), ("on", on), ("part", part))}
    assert eff["off"] < eff["part"] < eff["on"], eff  # the spines still hash their parallel links in "part"

    result = CliRunner().invoke(app, ["paths", str(tmp_path / "b"), "--format", "json", "--seeds", "2"],
                                catch_exceptions=False)
    first = json.loads(result.output)["jobs"][0]["remedies"][0]["remedy"]
    assert first["mode"] == "adaptive" and first["name"].startswith("as rendered: adaptive")


def test_scaling_ecmp_column_is_placed_as_rendered(tmp_path: Path) -> None:
    rows = {}
    for name, leaf in (("off", ""), ("on", ", adaptive_routing: true")):
        path = intent(sub(tmp_path, name), leaf=leaf)
        result = CliRunner().invoke(app, ["scaling", str(path), "--format", "json"], catch_exceptions=False)
        table = json.loads(result.output)
        rows[name] = {r["gpus"]: r["ecmp_scattered_1qp"] for r in table["rows"]}
        assert any("placed as rendered, adaptive" in n for n in table["notes"]) == (name == "on")
    assert rows["on"][64] > rows["off"][64]


def test_retarget_keeps_it_for_nvue_and_drops_it_where_it_is_not_rendered(tmp_path: Path) -> None:
    path = intent(tmp_path, fabric="  adaptive_routing: true", leaf=", adaptive_routing: true")
    assert any(sw.adaptive_routing for sw in resolve(retarget(load_inventory(path), "nvue")).switches.values())
    for platform in ("eos", "sonic", "frr"):
        fabric = resolve(retarget(load_inventory(path), platform))  # not an input error
        assert not any(sw.adaptive_routing for sw in fabric.switches.values())
