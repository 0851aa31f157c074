"""The plan's outputs: text, JSON and Markdown; exit codes; the Markdown size cap at 100k GPUs."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fabricgen.cli import app
from fabricgen.inventory.load import load_inventory
from fabricgen.plan.build import make_plan
from fabricgen.plan.inputs import record_path
from fabricgen.plan.markdown import GITHUB_COMMENT_LIMIT, render_markdown
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES

PAIR = [str(INVENTORIES / "expansion" / "after"), "--base", str(INVENTORIES / "expansion" / "before")]
DATA = Path(__file__).parent / "data" / "plan"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["plan", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_text() -> None:
    code, out = run(*PAIR, "--no-diffs")
    assert code == 0
    assert "+16 switches, +64 servers (+512 GPUs), +768 cables, 8 existing devices change." in out
    assert "spine: spine-01 … spine-08" in out
    assert "leaf-su003-r0 … leaf-su004-r7" in out
    for row in (
        "│ switch                  │ sn5600       │        │    16 │",
        "│ cable, host             │ DAC          │    3 m │   512 │",
        "│ cable, leaf-spine       │ MMF-SR       │   50 m │   256 │",
    ):
        assert row in out


def test_exit_codes(tmp_path: Path) -> None:
    assert run(*PAIR, "--detailed-exitcode", "--no-configs")[0] == 2
    same = str(INVENTORIES / "expansion" / "before")
    code, out = run(same, "--base", same, "--detailed-exitcode")
    assert code == 0 and "No changes" in out
    # a new inventory with an error finding: one backend NIC left uncabled in the lab
    shutil.copytree(INVENTORIES / "lab", tmp_path / "lab")
    cabling = tmp_path / "lab" / "cabling.yaml"
    lines = cabling.read_text().splitlines(keepends=True)
    cabling.write_text("".join(x for x in lines if "gpu04:enp24s0np0" not in x))
    code, out = run(str(tmp_path / "lab"), "--base", str(INVENTORIES / "lab"), "--no-configs")
    assert code == 1
    assert "Checks that newly fail" in out and "FG-CBL-004 gpu04: 1 of 8 backend NICs are not cabled" in out


def test_json() -> None:
    code, out = run(*PAIR, "--format", "json", "--no-configs")
    doc = json.loads(out)
    assert code == 0
    assert doc["topology"]["counts"]["switches_added"] == 16
    assert doc["bom"]["servers"] == {"dgx-h100": 64}
    assert [d["name"] for d in doc["topology"]["changed"]] == [f"spine-{i:02d}" for i in range(1, 9)]


def test_markdown_summary_first() -> None:
    code, out = run(*PAIR, "--format", "markdown", "--diagram-url", "fabric.svg")
    assert code == 0
    head = out.split("<details>")[0]
    assert head.startswith("### fabricgen plan: `expansion`")
    assert "**+16 switches, +64 servers (+512 GPUs), +768 cables, 8 existing devices change.** ✅ checks pass" in head
    assert "| GPUs | 512 | 1,024 | +512 |" in head
    assert "**To buy:** 16× sn5600, 64× dgx-h100" in head
    assert "![fabric diagram: added in green](fabric.svg)" in head
    assert out.count("<details>") == out.count("</details>")


@pytest.fixture(scope="module")
def big_plan_markdown() -> tuple[str, float]:
    """The 100k-GPU example (391 units of 32 DGX H100, three tiers of SN5600) grown from 383 units."""
    before = resolve(load_inventory(DATA / "100k-before.yaml"))
    after = resolve(load_inventory(DATA / "100k-after.yaml"))
    start = time.perf_counter()
    plan = make_plan(
        before,
        after,
        record_path(DATA / "100k-before.yaml"),
        record_path(DATA / "100k-after.yaml"),
        configs=False,
        qos=False,
    )
    seconds = time.perf_counter() - start
    assert after.gpus == 100_096
    return render_markdown(plan), seconds


def test_markdown_fits_a_github_comment_at_100k_gpus(big_plan_markdown: tuple[str, float]) -> None:
    text, seconds = big_plan_markdown
    assert len(text) < GITHUB_COMMENT_LIMIT
    assert "**+96 switches, +256 servers (+2,048 GPUs), +5,120 cables, 1,056 existing devices change.**" in text
    assert "1,006 more; all of them by kind of change:" in text  # 1,056 changed devices, 50 listed
    assert text.count("<details>") == text.count("</details>")
    assert seconds < 120


GROW_TO_THREE_TIERS = """\
fabric:
  name: grow
  oversubscription: {{leaf: 1.0, spine: 1.0}}
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 32
    units: {units}
    leaf: {{model: sn5600}}
    spine: {{model: sn5600}}
    core: {{model: sn5600}}
"""


def test_a_two_tier_top_reads_dash_like_validate(tmp_path: Path) -> None:
    """2 units fit two tiers (4 spines, nothing above them); 16 units need 3 (16 spines per pod × 4 pods under
    32 cores, 1:1 down). The spines' "before" side has no uplinks: "–", not "∞", in text and Markdown."""
    for name, units in (("before", 2), ("after", 16)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "fabric.yaml").write_text(GROW_TO_THREE_TIERS.format(units=units))
    pair = [str(tmp_path / "after"), "--base", str(tmp_path / "before"), "--no-configs"]
    code, out = run(*pair)
    assert code == 0
    spine = next(line for line in out.splitlines() if line.startswith("│ spine"))
    assert spine.split("│")[3:6] == [" – → 1.00:1 ", " – → 1.00:1 ", "          – → 2.00:1 "]
    assert "∞" not in out
    code, md = run(*pair, "--format", "markdown")
    assert code == 0
    assert "| spine (target 1:1) | 4 → 64 | – → 1.00:1 | – → 1.00:1 | – → 2.00:1 | 0 |" in md
    assert "∞" not in md
