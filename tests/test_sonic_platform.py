"""SONiC's own platform data as the oracle of every rendered PORT and BREAKOUT_CFG table.

The judge is sonic-buildimage's files in ``../shared/sonic-platform/`` (``platform.json`` per platform, ``hwsku.json``
or ``port_config.ini`` per SKU, ``default_sku``; revision in its SOURCE.md), read here on their own terms: this file
parses them itself and derives each port the way SONiC's ``portconfig.py`` does (``BreakoutCfg.get_config``), without
fabricgen's :mod:`fabricgen.inventory.sonic_platform`. First fabricgen's facts are held against the files, then every
bundled inventory, moved onto each Spectrum and Dell model, is rendered and each PORT row and BREAKOUT_CFG entry is
held against what the platform derives for that mode.
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fabricgen.checks import run_checks
from fabricgen.errors import InputError
from fabricgen.inventory.load import LoadedInventory, load_inventory
from fabricgen.inventory.sonic_platform import sonic_platforms
from fabricgen.qos import compute
from fabricgen.render.data import build_device
from fabricgen.render.retarget import retarget
from fabricgen.render.sonic import config_db
from fabricgen.topology.model import Fabric
from fabricgen.topology.portnames import port_name
from fabricgen.topology.resolve import link_breakout, resolve
from tests.conftest import INVENTORIES, ROOT, require

DATA = ROOT.parent / "shared" / "sonic-platform"
MODELS = ("sn5600", "sn5400", "sn4700", "dell-z9864f-on")
BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")


# ----------------------------------------------------------------------------- the platform's files, read here


def _data() -> Path:
    require((DATA / "skus.json").is_file(), f"SONiC platform data not found at {DATA}")
    return DATA


@cache
def skus() -> dict[str, Any]:
    return json.loads((_data() / "skus.json").read_text(encoding="utf-8"))["models"]  # type: ignore[no-any-return]


@cache
def platform_json(model: str) -> dict[str, Any]:
    path = _data() / skus()[model]["dir"] / "platform.json"
    return json.loads(path.read_text(encoding="utf-8"))["interfaces"]  # type: ignore[no-any-return]


@cache
def hwsku_json(model: str, sku: str) -> dict[str, Any] | None:
    path = _data() / skus()[model]["dir"] / sku / "hwsku.json"
    return json.loads(path.read_text(encoding="utf-8"))["interfaces"] if path.is_file() else None


def default_sku(model: str) -> str:
    return (_data() / skus()[model]["dir"] / "default_sku").read_text(encoding="utf-8").split()[0]


def parse(mode: str) -> tuple[int, int, frozenset[int], int | None]:
    """(ports, default speed, every speed, assigned lanes) of a breakout mode string, in Mb/s."""
    m = re.fullmatch(r"(\d+)x(\d+)G(?:\((\d+)\))?(?:\[([\dG,]+)\])?", mode)
    assert m is not None, mode
    speed = int(m[2]) * 1000
    others = {int(s.rstrip("G")) * 1000 for s in (m[4] or "").split(",") if s}
    return int(m[1]), speed, frozenset({speed} | others), int(m[3]) if m[3] else None


def derive(model: str, parent: str, mode: str) -> dict[str, dict[str, Any]]:
    """The ports SONiC derives for ``parent`` in ``mode`` (a platform.json mode, or a SKU's spelling of one)."""
    entry = platform_json(model)[parent]
    lanes = entry["lanes"].split(",")
    indexes = entry["index"].split(",")
    ports, speed, speeds, assigned = parse(mode)
    matches = [m for m in entry["breakout_modes"]
               if (parse(m)[0], parse(m)[2], parse(m)[3]) == (ports, speeds, assigned)]
    assert matches, f"{model} {parent}: {mode} is not a mode of platform.json ({list(entry['breakout_modes'])})"
    aliases = entry["breakout_modes"][matches[0]]
    per = (assigned or len(lanes)) // ports
    base = int(parent.removeprefix("Ethernet"))
    out = {}
    for k in range(ports):
        out[f"Ethernet{base + k * per}"] = {
            "lanes": ",".join(lanes[k * per:(k + 1) * per]),
            "alias": aliases[k],
            "index": indexes[k * per],
            "subport": "0" if ports == 1 else str(k + 1),
            "speeds": speeds,
            "default_speed": speed,
            "per": per,
        }
    return out


# ----------------------------------------------------------------------------- fabricgen's facts against the files


@pytest.mark.parametrize("model", MODELS)
def test_facts_are_the_platform_s_files(model: str) -> None:
    """Platform string, default SKU, the SKU list, every parent's lanes, index and breakout mode strings, and each
    SKU's default modes and attributes: fabricgen's data equals sonic-buildimage's files."""
    facts = sonic_platforms()[model]
    assert facts.platform == skus()[model]["platform"]
    assert facts.default_sku == default_sku(model)
    assert sorted(facts.skus) == sorted(skus()[model]["skus"])
    interfaces = platform_json(model)
    by_index = sorted(interfaces, key=lambda n: int(interfaces[n]["index"].split(",")[0]))
    assert [p.name for p in facts.parents] == by_index
    for p in facts.parents:
        entry = interfaces[p.name]
        assert ",".join(map(str, p.lanes)) == entry["lanes"], p.name
        assert {str(p.index)} == set(entry["index"].split(",")), p.name
        assert [m.text for m in p.modes] == list(entry["breakout_modes"]), p.name
    for name, sku in facts.skus.items():
        hw = hwsku_json(model, name)
        if hw is None:
            assert sku.fixed and (_data() / skus()[model]["dir"] / name / "port_config.ini").is_file(), name
            continue
        assert not sku.fixed, name
        by_index = {p.index: p.name for p in facts.parents}
        parents = {n: e["default_brkout_mode"] for n, e in hw.items() if n in interfaces}  # the rest are children
        assert {by_index[i]: m.text for i, m in sku.layout.items()} == parents, name
        written: dict[str, dict[str, str]] = {}
        for parent, mode in parents.items():  # SONiC applies a child's optional attributes to all its siblings
            for child in derive(model, parent, mode):
                attrs = {k: v for k, v in hw.get(child, {}).items() if k in ("fec", "autoneg", "role")}
                written.setdefault(parent, {}).update(attrs)
        assert {by_index[i]: a for i, a in sku.attributes.items()} == {n: a for n, a in written.items() if a}, name


# ----------------------------------------------------------------------------- rendered tables against the files


def on_model(loaded: LoadedInventory, model: str) -> LoadedInventory:
    """``loaded`` with every switch made a ``model`` running SONiC. Cabled ports keep their order and take the
    new model's positions for their speed (a 400G link is a half cage on an SN5600, a whole one on an SN5400)."""
    loaded = retarget(loaded, "sonic")
    inv = loaded.inventory
    fabric = resolve(loaded)
    target = fabric.catalog.switches[model]
    modes = tuple(target.breakouts)
    rename: dict[tuple[str, str], str] = {}
    for sw in fabric.switches.values():
        cages = 0
        open_cage: dict[int, tuple[int, int]] = {}  # speed → (cage, sub-ports used)
        for p in sorted(sw.ports, key=lambda p: (p.cage, p.sub)):
            ways = link_breakout(modes, target.native_speed, target.lanes, p.speed)
            cage, used = open_cage.get(p.speed, (0, ways))
            if used == ways:
                cages += 1
                cage, used = cages, 0
            open_cage[p.speed] = (cage, used + 1)
            rename[sw.name, p.name] = port_name("sonic", cage, used, ways, target.lanes)

    def end(endpoint: str) -> str:
        device, port = endpoint.split(":", 1)
        return f"{device}:{rename.get((device, port), port)}"

    update: dict[str, Any] = {
        "switches": [s.model_copy(update={"model": model}) for s in inv.switches],
        "links": [link.model_copy(update={"a": end(link.a), "b": end(link.b) if link.b else None})
                  for link in inv.links],
    }
    if inv.intent is not None:
        ro = inv.intent.rail_optimized
        tiers = {t: getattr(ro, t).model_copy(update={"model": model}) for t in ("leaf", "spine", "core")
                 if getattr(ro, t) is not None}
        update["intent"] = inv.intent.model_copy(update={"rail_optimized": ro.model_copy(update=tiers)})
    return dataclasses.replace(loaded, inventory=inv.model_copy(update=update))


@cache
def fabric_on(inventory: str, model: str) -> Fabric | None:
    """The bundled inventory on ``model``; None for an intent the model cannot build (an SN4700 leaf has 32 cages, a
    two-tier SN5400 fabric tops out below the multi-SU design), which resolution refuses before any configuration
    exists."""
    try:
        return resolve(on_model(load_inventory(INVENTORIES / inventory), model))
    except InputError as err:
        assert model in ("sn4700", "sn5400"), err
        assert all((p.field == "intent.rail_optimized" and f"{model} has 32" in p.message)
                   or "two-tier fabric of sn5400" in p.message for p in err.problems), err
        return None


def _reported_cages(fabric: Fabric) -> set[tuple[str, int]]:
    """(switch, cage) a port check reports: the catalog or the platform has no mode for the cage's layout."""
    out: set[tuple[str, int]] = set()
    findings = [f for f in run_checks(fabric) if f.code in ("FG-PORT-001", "FG-PORT-003", "FG-PORT-004")]
    for name, sw in fabric.switches.items():
        for p in sw.ports:
            if any(f"{name}:{p.name}" == f.subject or f"{name} cage {p.cage}" in f.message
                   or (f.code == "FG-PORT-001" and f.subject == name) for f in findings):
                out.add((name, p.cage))
    return out


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("inventory", BUNDLED)
def test_port_and_breakout_tables_are_what_the_platform_derives(inventory: str, model: str) -> None:
    """Every PORT row of every switch is a port SONiC derives from platform.json for its parent's BREAKOUT_CFG mode
    (name, lanes, alias, index, subport; the speed one the mode runs); every parent of the SKU's hwsku.json is in
    BREAKOUT_CFG, a used cage with a platform.json mode string, an unused one in the SKU's default mode at its default
    speed with the SKU's attributes, admin down. A cage laid out without the facts is one a port check reports."""
    fabric = fabric_on(inventory, model)
    if fabric is None:
        return
    qos = compute(fabric)
    reported = _reported_cages(fabric)
    names = sorted(fabric.switches)
    for name in names[:2] + names[-2:]:  # a leaf and a spine at least; every switch renders the same way
        sw = fabric.switches[name]
        db = config_db(build_device(fabric, name, qos))
        meta = db["DEVICE_METADATA"]["localhost"]
        assert meta["hwsku"] == default_sku(model) and meta["platform"] == skus()[model]["platform"]
        sku = hwsku_json(model, meta["hwsku"])
        assert sku is not None
        cabled = {p.name: p for p in sw.ports}
        used = {p.cage for p in sw.ports}
        breakout = db["BREAKOUT_CFG"]
        assert set(sku) <= set(breakout) | {n for n in sku if _cage_of(model, n) in used}
        seen: set[str] = set()
        for parent, row in breakout.items():
            mode = row["brkout_mode"]
            cage = _cage_of(model, parent)
            if cage in used:
                assert mode in platform_json(model)[parent]["breakout_modes"], (name, parent, mode)
            else:
                assert mode == sku[parent]["default_brkout_mode"], (name, parent)
            for port, want in derive(model, parent, mode).items():
                got = db["PORT"][port]
                seen.add(port)
                assert {k: got[k] for k in ("lanes", "alias", "index", "subport")} == {
                    k: want[k] for k in ("lanes", "alias", "index", "subport")}, (name, port)
                assert int(got["speed"]) in want["speeds"], (name, port, got["speed"])
                assert ("fec" in got and got["fec"] == "rs") == (int(got["speed"]) // want["per"] >= 50000 or
                                                                  "fec" in sku.get(parent, {})), (name, port)
                if port in cabled:
                    assert got["admin_status"] == "up" and int(got["speed"]) == cabled[port].speed * 1000
                else:
                    assert got["admin_status"] == "down", (name, port)
                if cage not in used:
                    assert int(got["speed"]) == want["default_speed"], (name, port)
                    for attr in ("autoneg", "role"):
                        if attr in sku[parent]:
                            assert got[attr] == sku[parent][attr], (name, port, attr)
        unlaid = set(db["PORT"]) - seen
        assert {(name, cabled[p].cage) for p in unlaid} <= reported, (name, sorted(unlaid))


def _cage_of(model: str, parent: str) -> int:
    return int(platform_json(model)[parent]["index"].split(",")[0])


@pytest.mark.parametrize("model", MODELS)
def test_some_bundled_fabric_renders_every_cage_from_the_platform(model: str) -> None:
    """The oracle above is not vacuous: on each model some bundled fabric has no port finding, so its every switch's
    whole PORT table came from the platform's facts."""
    fabrics = [fabric_on(inv, model) for inv in BUNDLED]
    clean = [f for f in fabrics if f is not None and not _reported_cages(f)]
    assert clean, f"no bundled inventory fits a {model}"


# ----------------------------------------------------------------------------- the findings of the review


def _render(tmp_path: Path, text: str) -> dict[str, dict[str, Any]]:
    (tmp_path / "fabric.yaml").write_text(text, encoding="utf-8")
    fabric = resolve(load_inventory(tmp_path / "fabric.yaml"))
    qos = compute(fabric)
    return {name: config_db(build_device(fabric, name, qos)) for name in fabric.switches}


SMALL = """\
fabric: {{name: f1}}
switches:
  - {{name: spine1, role: spine, model: {model}, platform: sonic, id: 1{spine_extra}}}
  - {{name: leaf1, role: leaf, model: {model}, platform: sonic, id: 1, unit: 1{leaf_extra}}}
links:
  - {{a: leaf1:{up}, b: spine1:Ethernet0, speed: {speed}}}
"""


def small(model: str, speed: str = "400G", up: str = "Ethernet8", leaf_extra: str = "", spine_extra: str = "") -> str:
    return SMALL.format(model=model, speed=speed, up=up, leaf_extra=leaf_extra, spine_extra=spine_extra)


def test_sn5600_runs_its_platform_default_sku_not_v256(tmp_path: Path) -> None:
    db = _render(tmp_path, small("sn5600", "800G"))
    for name in ("leaf1", "spine1"):
        assert db[name]["DEVICE_METADATA"]["localhost"]["hwsku"] == "ACS-SN5600"
        assert db[name]["PORT"]["Ethernet0" if name == "spine1" else "Ethernet8"]["lanes"] == (
            "0,1,2,3,4,5,6,7" if name == "spine1" else "8,9,10,11,12,13,14,15")
    assert db["spine1"]["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "1x800G[400G,200G,100G,50G,40G,25G,10G]"}


def test_a_named_sku_lays_out_the_unused_cages_its_way(tmp_path: Path) -> None:
    """Mellanox-SN5600-O128 starts every cage as 2x400G with autoneg off: the unused cages say so."""
    db = _render(tmp_path, small("sn5600", "800G", leaf_extra=", hwsku: Mellanox-SN5600-O128"))
    leaf = db["leaf1"]
    assert leaf["DEVICE_METADATA"]["localhost"]["hwsku"] == "Mellanox-SN5600-O128"
    assert leaf["BREAKOUT_CFG"]["Ethernet16"] == {"brkout_mode": "2x400G[200G,100G,50G,40G,25G,10G]"}
    assert leaf["PORT"]["Ethernet20"] == {
        "admin_status": "down", "alias": "etp3b", "autoneg": "off", "fec": "rs", "index": "3",
        "lanes": "20,21,22,23", "mtu": "9216", "speed": "400000", "subport": "2"}
    assert leaf["BREAKOUT_CFG"]["Ethernet8"] == {"brkout_mode": "1x800G[400G,200G,100G,50G,40G,25G,10G]"}
    assert db["spine1"]["DEVICE_METADATA"]["localhost"]["hwsku"] == "ACS-SN5600"


def test_sn5400_cages_have_eight_lanes_and_its_own_sku(tmp_path: Path) -> None:
    db = _render(tmp_path, small("sn5400"))
    leaf = db["leaf1"]
    assert leaf["DEVICE_METADATA"]["localhost"]["hwsku"] == "ACS-SN5400"
    assert leaf["PORT"]["Ethernet8"] | {"description": ""} == {
        "admin_status": "up", "alias": "etp2", "description": "", "fec": "rs", "index": "2",
        "lanes": "8,9,10,11,12,13,14,15", "mtu": "9216", "speed": "400000", "subport": "0"}


def test_dell_z9864f_lanes_start_at_one_and_are_not_in_cage_order(tmp_path: Path) -> None:
    db = _render(tmp_path, small("dell-z9864f-on", "800G"))
    leaf = db["leaf1"]
    assert leaf["DEVICE_METADATA"]["localhost"]["hwsku"] == "Dell-Z9864f-O64"
    assert leaf["PORT"]["Ethernet8"]["lanes"] == "17,18,19,20,21,22,23,24"
    assert leaf["BREAKOUT_CFG"]["Ethernet8"] == {"brkout_mode": "1x800G"}
    assert leaf["PORT"]["Ethernet256"]["lanes"] == "25,26,27,28,29,30,31,32"  # cage 33
    half = _render(tmp_path, small("dell-z9864f-on", "400G"))["leaf1"]  # 400G: a 2x400G(8) cage
    assert half["BREAKOUT_CFG"]["Ethernet8"] == {"brkout_mode": "2x400G(8)"}
    assert [half["PORT"][n]["lanes"] for n in ("Ethernet8", "Ethernet12")] == ["17,18,19,20", "21,22,23,24"]
    assert half["PORT"]["Ethernet12"]["admin_status"] == "down"  # the other half of the cage, not cabled


def test_unused_cages_and_ports_beyond_the_panel_are_rendered_admin_down(tmp_path: Path) -> None:
    leaf = _render(tmp_path, small("sn5600", "800G"))["leaf1"]
    assert len(leaf["PORT"]) == 65 and len(leaf["BREAKOUT_CFG"]) == 65
    down = {n for n, r in leaf["PORT"].items() if r["admin_status"] == "down"}
    assert down == set(leaf["PORT"]) - {"Ethernet8"}
    assert leaf["PORT"]["Ethernet512"] == {"admin_status": "down", "alias": "etp65", "index": "65", "lanes": "512",
                                           "mtu": "9216", "speed": "25000", "subport": "0"}


def _problems(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "fabric.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        resolve(load_inventory(tmp_path / "fabric.yaml"))
    return [str(p) for p in err.value.problems]


def test_a_sku_the_platform_does_not_have_is_an_input_error_at_the_field(tmp_path: Path) -> None:
    problems = _problems(tmp_path, small("sn5600", "800G", leaf_extra=", hwsku: Mellanox-SN5600-O64"))
    assert len(problems) == 1
    assert problems[0].startswith(f"{tmp_path / 'fabric.yaml'}:4:")
    assert "switches[leaf1].hwsku: 'Mellanox-SN5600-O64' is not a SKU of x86_64-nvidia_sn5600-r0; one of " \
           "ACS-SN5600, Mellanox-SN5600-C224O8" in problems[0]


def test_a_fixed_port_table_sku_and_a_sku_off_sonic_are_input_errors(tmp_path: Path) -> None:
    fixed = _problems(tmp_path, small("sn5600", "800G", leaf_extra=", hwsku: Mellanox-SN5600-C224O8"))
    assert len(fixed) == 1 and "Mellanox-SN5600-C224O8 has a fixed port table" in fixed[0]
    off = _problems(tmp_path, small("sn5600", "800G").replace(
        "id: 1, unit: 1}", "id: 1, unit: 1, hwsku: ACS-SN5600}").replace(
        "model: sn5600, platform: sonic, id: 1, unit", "model: sn5600, platform: nvue, id: 1, unit").replace(
        "leaf1:Ethernet8", "leaf1:swp2"))
    assert len(off) == 1 and "hwsku applies to platform sonic only" in off[0]


def test_a_tier_sku_mistake_is_one_finding_at_the_tier(tmp_path: Path) -> None:
    text = (INVENTORIES / "su1" / "fabric.yaml").read_text(encoding="utf-8")
    text = text.replace("leaf: {model: sn5600}", "leaf: {model: sn5600, platform: sonic, hwsku: ACS-SN5601}")
    problems = _problems(tmp_path, text)
    assert len(problems) == 1, problems
    assert "intent.rail_optimized.leaf.hwsku: 'ACS-SN5601' is not a SKU" in problems[0]
    assert problems[0].endswith(": 8 switches of this tier")  # su1: one unit of 8 rails, one leaf each


def test_a_layout_the_platform_cannot_run_is_one_finding_naming_the_modes(tmp_path: Path) -> None:
    """The catalog's SN5600 has 8x100G (NVUE runs it); SONiC's SN5600 platform.json has no 8-port mode."""
    text = small("sn5600", "100G", up="Ethernet9").replace(
        "  - {a: leaf1:Ethernet9",
        "  - {a: leaf1:Ethernet8, b: spine1:Ethernet1, speed: 100G}\n  - {a: leaf1:Ethernet9")
    (tmp_path / "fabric.yaml").write_text(text, encoding="utf-8")
    fabric = resolve(load_inventory(tmp_path / "fabric.yaml"))
    found = [f for f in run_checks(fabric) if f.code == "FG-PORT-004"]
    assert len(found) == 1, [str(f) for f in found]
    assert found[0].subject == "sn5600"
    assert "2 cage(s) on 2 SONiC switch(es)" in found[0].message and "8x100G" in found[0].message
    assert "its cages run 1x800G, 1x400G" in found[0].message and "4x200G, 4x100G" in found[0].message


# ----------------------------------------------------------------------------- buffers as NVIDIA lays them out


@cache
def nvidia_buffers() -> dict[str, Any]:
    return json.loads((_data() / "nvidia_buffers.json").read_text(encoding="utf-8"))["skus"]  # type: ignore[no-any-return]


FLUID = [(model, sku) for model in ("sn5600", "sn5400", "sn4700") for sku in skus()[model]["skus"]
         if hwsku_json(model, sku) is not None] if (DATA / "skus.json").is_file() else []


@pytest.mark.parametrize(("model", "sku"), FLUID)
def test_buffer_tables_are_laid_out_as_nvidia_s_templates_for_the_sku(tmp_path: Path, model: str, sku: str) -> None:
    """NVIDIA's buffer templates for each SKU, rendered by sonic-cfggen's rules (nvidia_buffers.json: t0 for a
    ToRRouter, t1 for a LeafRouter), against what fabricgen writes for a leaf and a spine of that SKU: the same
    pools of the same type (and the lossless ingress pool carrying ``xoff`` exactly where NVIDIA's does), every
    NVIDIA profile in the same pool, the same per-port ingress and egress profile lists, the same profiles on
    lossy and lossless queues and on PG 0. Sizes are fabricgen's (its buffer and headroom model)."""
    speed = "800G" if model == "sn5600" else "400G"
    extra = f", hwsku: {sku}"
    db = _render(tmp_path, small(model, speed, leaf_extra=extra, spine_extra=extra))
    for name, topo in (("leaf1", "t0"), ("spine1", "t1")):
        nv = nvidia_buffers()[sku][topo]
        got = db[name]
        assert got["DEVICE_METADATA"]["localhost"]["type"] == {"t0": "ToRRouter", "t1": "LeafRouter"}[topo]
        assert {p: (r["type"], "xoff" in r) for p, r in got["BUFFER_POOL"].items()} == {
            p: (r["type"], "xoff" in r) for p, r in nv["BUFFER_POOL"].items()}, (sku, name)
        for profile, row in nv["BUFFER_PROFILE"].items():
            assert got["BUFFER_PROFILE"][profile]["pool"] == row["pool"], (sku, profile)
        ours = set(got["BUFFER_PROFILE"]) - set(nv["BUFFER_PROFILE"])
        assert ours and all(re.fullmatch(r"pg_lossless_\d+_\d+m_profile", p)
                            and got["BUFFER_PROFILE"][p]["pool"] == "ingress_lossless_pool" for p in ours), ours
        ports = [n for n, r in got["PORT"].items() if r["admin_status"] == "up"]
        assert {got["BUFFER_PORT_INGRESS_PROFILE_LIST"][p]["profile_list"] for p in ports} == {
            nv["BUFFER_PORT_INGRESS_PROFILE_LIST"]}
        assert {got["BUFFER_PORT_EGRESS_PROFILE_LIST"][p]["profile_list"] for p in ports} == {
            nv["BUFFER_PORT_EGRESS_PROFILE_LIST"]}
        queues = {r["profile"] for k, r in got["BUFFER_QUEUE"].items() if k.split("|")[0] in ports}
        assert queues == set(nv["BUFFER_QUEUE"].values()), (sku, name)
        assert {got["BUFFER_PG"][f"{p}|0"]["profile"] for p in ports} == {nv["BUFFER_PG"]["0"]}


def test_explain_names_the_sku_and_the_pools_the_file_writes() -> None:
    """``fabricgen explain`` shows the SKU and the pool sizes fabricgen chose (they differ from NVIDIA's template
    sizes by design), the same numbers the rendered BUFFER_POOL carries."""
    from fabricgen.cli.explain import port_rows

    fabric = resolve(load_inventory(INVENTORIES / "lab"))
    rows = {name: (value, source) for name, value, source in port_rows(fabric, "leaf1", "Ethernet0") or []}
    assert rows["sonic hwsku"] == ("ACS-SN5600", "default")
    db = config_db(build_device(fabric, "leaf1", compute(fabric)))
    value, source = rows["sonic buffer pools"]
    assert value == "lossy-pools: " + ", ".join(f"{n} {r['size']} B" for n, r in sorted(db["BUFFER_POOL"].items()))
    assert source == "render:sonic (NVIDIA ACS-SN5600 buffers_defaults layout)"


def test_a_sku_change_is_a_plan_risk_line_and_a_device_reason(tmp_path: Path) -> None:
    """A new HwSKU takes effect only through config reload or a reboot (every port down): the plan says so first,
    once for all switches it touches, and each switch names the SKU change among its reasons."""
    from fabricgen.plan.diff import diff_fabrics

    su1 = (INVENTORIES / "su1" / "fabric.yaml").read_text(encoding="utf-8").replace(
        "spine: {model: sn5600}", "spine: {model: sn5600, platform: sonic}")

    def fabric(leaf: str) -> Fabric:
        (tmp_path / f"{len(leaf)}.yaml").write_text(su1.replace("leaf: {model: sn5600}", leaf), encoding="utf-8")
        return resolve(load_inventory(tmp_path / f"{len(leaf)}.yaml"))

    before = fabric("leaf: {model: sn5600, platform: sonic}")
    after = fabric("leaf: {model: sn5600, platform: sonic, hwsku: Mellanox-SN5600-O128}")
    diff = diff_fabrics(before, after, qos=False)
    (risk,) = diff.risks
    assert risk.startswith("SONiC HwSKU ACS-SN5600 → Mellanox-SN5600-O128 on 8 switches (leaf-su001-r0 … "
                           "leaf-su001-r7): the SKU takes effect only by config reload or reboot")
    leaves = {d.name: d for d in diff.changed}
    assert set(leaves) == {n for n in after.switches if n.startswith("leaf")}
    assert "HwSKU ACS-SN5600 → Mellanox-SN5600-O128 (config reload)" in leaves["leaf-su001-r0"].reasons
    assert diff_fabrics(before, before, qos=False).risks == ()


def test_a_sku_is_a_checked_name_so_a_newline_cannot_add_a_line(tmp_path: Path) -> None:
    """``hwsku`` reaches DEVICE_METADATA only as a name of the platform's SKU list; a newline in it is refused at
    the field before anything renders."""
    problems = _problems(tmp_path, small("sn5600", "800G", leaf_extra=', hwsku: "ACS-SN5600\\nfoo"'))
    assert len(problems) == 1
    assert problems[0].startswith(f"{tmp_path / 'fabric.yaml'}:4:")
    assert "switches[leaf1].hwsku: a name: " in problems[0] and "'\\n' is not allowed" in problems[0]
