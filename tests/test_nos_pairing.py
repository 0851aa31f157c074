"""Which NOS a switch model runs: the catalog's ``nos:`` lists, pairings outside them as input errors at the
field (one per place written), and ``render --platform`` as an explicit, warned what-if."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fabricgen.errors import InputError
from fabricgen.inventory.catalog import PLATFORMS, shipped
from fabricgen.inventory.load import load_inventory
from fabricgen.render import render_device
from fabricgen.render.retarget import retarget, retarget_what_if
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES, ROOT
from tests.test_cli_exits import run

RUNS = {
    "sn5600": ("nvue", "sonic"),
    "sn5400": ("nvue", "sonic"),
    "sn4700": ("nvue", "sonic"),
    "arista-7060x6-64pe": ("eos", "sonic"),
    "dell-z9864f-on": ("sonic",),
    "cisco-n9364d-gx2a": ("nxos",),
    "juniper-qfx5230-64cd": ("junos",),
}
"""The NOSes fabricgen renders that each vendor ships for its model (the catalog's comments cite each)."""


def problems(path: Path) -> list[str]:
    """The input problems of the inventory at ``path``, as the CLI prints them."""
    with pytest.raises(InputError) as info:
        resolve(load_inventory(path))
    return [str(p) for p in info.value.problems]


def line_col(path: Path, needle: str, key: str) -> str:
    """``line:col`` of ``key`` on the line of ``path`` that holds ``needle``."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return f"{n}:{line.index(key) + 1}"
    raise AssertionError(f"{needle!r} not in {path}")


def su1_with(tmp_path: Path, old: str, new: str) -> Path:
    path = tmp_path / "fabric.yaml"
    text = (INVENTORIES / "su1" / "fabric.yaml").read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


# ----------------------------------------------------------------------------- the catalog's facts


def test_every_shipped_model_lists_the_noses_it_runs_its_default_among_them() -> None:
    models = shipped().switches
    assert {name: m.runs() for name, m in models.items()} == RUNS
    for name, m in models.items():
        assert m.nos is not None, f"{name}: nos written in the shipped catalog"
        assert m.platform in m.nos and set(m.nos) <= set(PLATFORMS) - {"frr"}
        assert m.pairs_with("frr")  # the lab emulation stands in for any model
    assert not models["sn5600"].pairs_with("eos") and not models["dell-z9864f-on"].pairs_with("nvue")


def test_a_catalog_entry_whose_default_nos_it_does_not_run_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shutil.copy(INVENTORIES / "su1" / "fabric.yaml", tmp_path / "fabric.yaml")
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "catalog:\n  switches:\n    sn5600:\n      vendor: NVIDIA\n      asic: Spectrum-4\n      ports: 64\n"
        "      native_speed: 800G\n      lanes: 8\n      breakouts: [1x800G, 2x400G, 4x200G, 8x100G]\n"
        "      platform: nvue\n      nos: [sonic]\n"
        "      buffer: {total_bytes: 167772160, cell_bytes: 192, pipeline_latency_bytes: 19456}\n"
    )
    code, _, err = run(capsys, "validate", str(tmp_path))
    assert code == 3 and "Traceback" not in err
    assert err.splitlines()[0] == (
        f"{catalog}:11:7: catalog.switches[sn5600].nos: sonic leaves out the default platform nvue: "
        "a model runs its default"
    )
    assert len(err.splitlines()) == 2  # the problem, then the count


def test_an_inventory_model_without_nos_runs_its_default_platform_only(tmp_path: Path) -> None:
    path = tmp_path / "fabric.yaml"
    path.write_text(
        (INVENTORIES / "su1" / "fabric.yaml").read_text().replace("{model: sn5600}", "{model: box}")
        + "catalog:\n  switches:\n    box:\n      vendor: x\n      asic: y\n      ports: 64\n"
        "      native_speed: 800G\n      lanes: 8\n      breakouts: [1x800G, 2x400G]\n      platform: sonic\n"
        "      buffer: {total_bytes: 167772160, cell_bytes: 192, pipeline_latency_bytes: 19456}\n"
    )
    fabric = resolve(load_inventory(path))
    assert fabric.catalog.switches["box"].runs() == ("sonic",)
    assert {sw.platform for sw in fabric.switches.values()} == {"sonic"}
    path.write_text(path.read_text().replace("leaf: {model: box}", "leaf: {model: box, platform: nvue}"))
    assert problems(path) == [
        f"{path}:{line_col(path, 'leaf: {model: box', 'platform')}: intent.rail_optimized.leaf.platform: "
        "box does not run nvue (it runs sonic): 8 switches of this tier"
    ]


# ----------------------------------------------------------------------------- pairings in an inventory


def test_an_explicit_switch_on_a_nos_its_model_does_not_run_is_an_error_at_its_platform(tmp_path: Path) -> None:
    inv = tmp_path / "lab"
    shutil.copytree(INVENTORIES / "lab", inv)
    devices = inv / "devices.yaml"
    text = devices.read_text()
    old = "role: spine, model: sn5600, platform: sonic, id: 2}"
    assert old in text
    # a Cisco box with SONiC's port names: the cabling still parses, only the pairing is wrong
    devices.write_text(text.replace(old, "role: spine, model: cisco-n9364d-gx2a, platform: sonic, id: 2}"))
    assert problems(inv) == [
        f"{devices}:{line_col(devices, 'name: spine2', 'platform')}: switches[spine2].platform: "
        "cisco-n9364d-gx2a does not run sonic (it runs nxos)"
    ]


def test_each_explicit_line_is_its_own_finding(tmp_path: Path) -> None:
    inv = tmp_path / "lab"
    shutil.copytree(INVENTORIES / "lab", inv)
    devices = inv / "devices.yaml"
    devices.write_text(devices.read_text().replace("model: sn5600, platform: sonic",
                                                   "model: cisco-n9364d-gx2a, platform: sonic"))
    found = [p for p in problems(inv) if "does not run" in p]
    assert [p.split(": ", 2)[1] for p in found] == [
        f"switches[{n}].platform" for n in ("spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4")]
    assert len({p.split(": ", 1)[0] for p in found}) == 6  # six lines


def test_a_tier_platform_is_one_finding_where_it_is_written_with_the_switches_it_affects(tmp_path: Path) -> None:
    path = su1_with(tmp_path, "spine: {model: sn5600}", "spine: {model: sn5600, platform: eos}")
    assert problems(path) == [
        f"{path}:16:28: intent.rail_optimized.spine.platform: sn5600 does not run eos (it runs nvue, sonic): "
        "8 switches of this tier"
    ]
    multi = tmp_path / "multi.yaml"
    text = (INVENTORIES / "multi-su" / "fabric.yaml").read_text()
    old = "leaf: {model: arista-7060x6-64pe, uplink_speed: 400G}"
    assert old in text
    multi.write_text(text.replace(old, "leaf: {model: arista-7060x6-64pe, platform: junos, uplink_speed: 400G}"))
    leaves = sum(1 for sw in resolve(load_inventory(INVENTORIES / "multi-su")).switches.values()
                 if sw.role.value == "leaf")
    assert leaves > 32
    assert problems(multi) == [
        f"{multi}:{line_col(multi, 'leaf: {model: arista', 'platform')}: intent.rail_optimized.leaf.platform: "
        f"arista-7060x6-64pe does not run junos (it runs eos, sonic): {leaves} switches of this tier"
    ]


@pytest.mark.parametrize(("old", "new"), [
    ("leaf: {model: sn5600}", "leaf: {model: sn5600, platform: sonic}"),
    ("spine: {model: sn5600}", "spine: {model: arista-7060x6-64pe, platform: sonic}"),
    ("spine: {model: sn5600}", "spine: {model: sn5600, platform: frr}"),
])
def test_a_nos_the_model_runs_or_the_lab_emulation_is_accepted(tmp_path: Path, old: str, new: str) -> None:
    fabric = resolve(load_inventory(su1_with(tmp_path, old, new)))
    platform = new.split("platform: ")[1].rstrip("}")
    assert platform in {sw.platform for sw in fabric.switches.values()}


def test_the_bundled_inventories_pair_every_model_with_a_nos_it_runs() -> None:
    for name in ("lab", "lab-frr", "su1", "multi-su", "expansion/before", "expansion/after"):
        fabric = resolve(load_inventory(INVENTORIES / name))
        assert all(fabric.catalog.switches[sw.model].pairs_with(sw.platform) for sw in fabric.switches.values())


def test_validate_exits_3_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    path = su1_with(tmp_path, "leaf: {model: sn5600}", "leaf: {model: sn5600, platform: junos}")
    proc = subprocess.run([sys.executable, "-m", "fabricgen", "validate", str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 3 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        f"{path}:15:27: intent.rail_optimized.leaf.platform: sn5600 does not run junos (it runs nvue, sonic): "
        "8 switches of this tier",
        "1 input problem(s); nothing was checked further",
    ]


# ----------------------------------------------------------------------------- render --platform: a what-if


def test_retarget_renders_a_nos_the_model_does_not_run_as_a_what_if() -> None:
    loaded = load_inventory(INVENTORIES / "lab")
    moved, what_if = retarget_what_if(loaded, "eos")
    assert what_if == ("sn5600",)
    assert loaded.inventory.catalog.switches == {}  # the input is left as it was
    assert moved.inventory.catalog.switches["sn5600"].runs() == ("nvue", "sonic", "eos")
    fabric = resolve(moved)
    assert {sw.platform for sw in fabric.switches.values()} == {"eos"}
    [config] = render_device(fabric, "leaf1").files
    assert config.path == "leaf1/startup-config" and "\ninterface Ethernet1/1\n" in config.content
    assert resolve(retarget(loaded, "eos")).switches.keys() == fabric.switches.keys()
    # a NOS the model runs, and the emulation, are no what-if
    assert retarget_what_if(loaded, "nvue")[1] == () and retarget_what_if(loaded, "frr")[1] == ()
    assert resolve(retarget_what_if(loaded, "nvue")[0]).catalog.switches["sn5600"].runs() == ("nvue", "sonic")


def test_render_platform_warns_once_per_model_it_renders_as_a_what_if(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "render", str(INVENTORIES / "lab"), "-o", str(tmp_path / "eos"), "--platform", "eos")
    assert code == 0, err
    assert err.splitlines() == ["warning: sn5600 does not run eos; rendered as if it did (render --platform)"]
    assert out.startswith("rendered 6 switch(es)")
    code, _, err = run(capsys, "render", str(INVENTORIES / "lab"), "-o", str(tmp_path / "nvue"), "--platform", "nvue")
    assert (code, err) == (0, "")


def test_a_problem_from_line_100_on_prints_its_line_number(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "fabric.yaml"
    text = (INVENTORIES / "su1" / "fabric.yaml").read_text()
    path.write_text("#\n" * 100 + text.replace("leaf: {model: sn5600}", "leaf: {model: sn5600, platform: eos}"))
    code, _, err = run(capsys, "validate", str(path))
    assert code == 3
    assert err.splitlines()[0].startswith(f"{path}:115:27: intent.rail_optimized.leaf.platform: ")  # not "💯"
