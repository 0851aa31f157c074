"""NOS releases of EOS, Junos and NX-OS: every listed release renders the bundled lab inventory and passes
its platform's oracle (pyavd for EOS, the structural checkers for Junos and NX-OS, each told the
release); the release reaches every switch (fabric setting, switch setting, default); an unknown release
is an exit-3 input error naming the field, with file:line:col."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
from functools import cache
from pathlib import Path

import pytest

from fabricgen.cli import main
from fabricgen.inventory.load import load_inventory
from fabricgen.inventory.releases import DEFAULT_RELEASE, RELEASES
from fabricgen.qos import compute
from fabricgen.qos.model import FabricQos
from fabricgen.render import render_device
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from tests import junos_check, nxos_check
from tests.conftest import INVENTORIES, require

PLATFORMS = ("eos", "junos", "nxos")
CASES = [(p, r) for p in PLATFORMS for r in RELEASES[p]]


@cache
def at_release(inventory: str, platform: str, release: str | None) -> tuple[Fabric, FabricQos]:
    """A bundled inventory retargeted to ``platform`` with ``fabric.releases`` naming ``release``."""
    loaded = retarget(load_inventory(INVENTORIES / inventory), platform)
    if release is not None:
        inv = loaded.inventory
        fabric = inv.fabric.model_copy(update={"releases": {platform: release}})
        loaded = dataclasses.replace(loaded, inventory=inv.model_copy(update={"fabric": fabric}))
    resolved = resolve(loaded)
    return resolved, compute(resolved)


def oracle_problems(platform: str, release: str, fabric: Fabric, qos: FabricQos) -> dict[str, list[str]]:
    """The Junos/NX-OS checker's findings per switch (empty lists: every switch passes)."""
    out: dict[str, list[str]] = {}
    for name in sorted(fabric.switches):
        text = render_device(fabric, name, qos).main
        if platform == "junos":
            out[name] = junos_check.check(text, release)
        else:
            lossless = {p for pq in qos.switches[name].ports.values() for p in pq.pfc_priorities}
            out[name] = nxos_check.check(text, lossless, release)
    return out


@pytest.mark.parametrize(("platform", "release"), CASES)
def test_every_release_renders_the_lab_and_passes_its_oracle(platform: str, release: str) -> None:
    fabric, qos = at_release("lab", platform, release)
    assert {s.release for s in fabric.switches.values()} == {release}
    if platform == "eos":
        require(importlib.util.find_spec("pyavd") is not None, "pyavd (the `oracles` extra) is not installed")
        from tests.test_vendor_eos import assert_matches_avd

        assert_matches_avd(fabric, qos)
    else:
        problems = oracle_problems(platform, release, fabric, qos)
        assert problems and all(p == [] for p in problems.values()), problems


@pytest.mark.parametrize("platform", PLATFORMS)
def test_default_release_and_no_listed_release_changes_the_output(platform: str) -> None:
    """No EOS/Junos/NX-OS statement fabricgen renders is dated inside the listed releases, so every
    release renders byte for byte what the default does (a template branch would show up here)."""
    fabric, qos = at_release("lab", platform, None)
    assert {s.release for s in fabric.switches.values()} == {DEFAULT_RELEASE[platform]}
    default = {n: render_device(fabric, n, qos).main for n in sorted(fabric.switches)}
    for release in RELEASES[platform]:
        other, other_qos = at_release("lab", platform, release)
        assert {n: render_device(other, n, other_qos).main for n in sorted(other.switches)} == default, release


def test_junos_checker_knows_when_dscp_pfc_came() -> None:
    """DSCP-based PFC is from Junos 17.4R1: the same configuration fails for 17.3 on exactly those lines."""
    fabric, qos = at_release("lab", "junos", "22.4")
    text = render_device(fabric, "leaf1", qos).main
    assert junos_check.check(text, "22.4") == []
    old = junos_check.check(text, "17.3")
    dated = [n for n, line in enumerate(text.splitlines(), 1)
             if " pfc-priority " in line or (" input dscp code-point " in line and line.endswith(" pfc"))]
    assert dated and [int(e.split(":")[0].removeprefix("line ")) for e in old] == dated
    assert all("not in Junos 17.3 (from 17.4;" in e for e in old)


def _lab_with(tmp_path: Path, extra: str) -> Path:
    inv = tmp_path / "lab"
    shutil.copytree(INVENTORIES / "lab", inv)
    text = (inv / "fabric.yaml").read_text(encoding="utf-8")
    (inv / "fabric.yaml").write_text(text.replace("  name: lab\n", "  name: lab\n" + extra, 1), encoding="utf-8")
    return inv


@pytest.mark.parametrize(("platform", "bad", "known"), [
    ("eos", "4.27", "4.28, 4.29, 4.30, 4.31, 4.32, 4.33, 4.34"),
    ("junos", "21.4", "22.4, 23.2, 23.4, 24.2"),
    ("nxos", "9.2", "9.3, 10.2, 10.3, 10.4, 10.5"),
])
def test_unknown_release_is_exit_3_with_the_field(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  platform: str, bad: str, known: str) -> None:
    inv = _lab_with(tmp_path, f"  releases: {{{platform}: '{bad}'}}\n")
    with pytest.raises(SystemExit) as info:
        main(["render", str(inv), "-o", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert info.value.code == 3
    assert "Traceback" not in out + err
    assert err.strip().splitlines() == [
        f"{inv / 'fabric.yaml'}:3:3: fabric.releases: unknown {platform} release '{bad}'; one of {known}",
        "1 input problem(s); nothing was checked further"]
