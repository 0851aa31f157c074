"""`fabricgen validate`: exit codes 0/1/3, JSON output, one line per input problem and never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fabricgen.cli import main
from tests.conftest import INVENTORIES

DATA = Path(__file__).parent / "data"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(["validate", *args])
    out, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    return code, out, err


@pytest.mark.parametrize("name", ["lab", "su1", "multi-su"])
def test_bundled_inventories_exit_0(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = run(capsys, str(INVENTORIES / name))
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("0 error(s), ")  # other modules' checks may add infos


def test_error_findings_exit_1_with_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    f = DATA / "checks" / "FG-CAP-001.yaml"
    code, out, err = run(capsys, str(f), "--no-summary")
    assert (code, err) == (1, "")
    ours = [line for line in out.splitlines() if " FG-CAP-" in line]  # other modules' checks may add lines
    assert ours == [
        f"{f}:24:5: error FG-CAP-001 leaf1: oversubscribed 2.00:1 (3.2T down / 1.6T up), target 1.00:1 — "
        "add 1.6T of uplinks",
        f"{f}:15:22: error FG-CAP-002 leaf tier: oversubscribed 1.14:1 (12.8T down / 11.2T up over 4 switches), "
        "target 1.00:1 — add uplinks or upper-tier switches",
        f"{f}:24:5: warning FG-CAP-003 leaf1: with one spine down the ratio is 4.00:1, above the failure target "
        "2.00:1 — add spines or uplinks",
    ]
    assert out.splitlines()[-1].startswith("2 error(s), 1 warning(s)")


def test_warnings_only_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(DATA / "checks" / "FG-CAP-004.yaml"), "--no-summary")
    assert code == 0
    assert out.splitlines()[-1].startswith("0 error(s), 4 warning(s)")


def test_json_parses_and_has_the_findings(capsys: pytest.CaptureFixture[str]) -> None:
    f = DATA / "checks" / "FG-CBL-004.yaml"
    code, out, err = run(capsys, str(f), "--format", "json")
    assert (code, err) == (1, "")
    doc = json.loads(out)
    assert doc["ok"] is False
    assert [
        x
        for x in doc["findings"]
        if x["code"].startswith(("FG-CAP", "FG-CBL", "FG-PORT", "FG-TOPO", "FG-ADDR", "FG-ASN"))
    ] == [
        {
            "code": "FG-CBL-004",
            "severity": "error",
            "subject": "gpu04",
            "message": "1 of 8 backend NICs are not cabled: enp220s0np0 (rail 7)",
            "hint": "cable each to the leaf of its rail; an uncabled NIC idles its GPU's network share",
            "file": str(f),
            "line": 33,
            "col": 5,
        }
    ]
    # 4 nodes, 31 of 32 NICs cabled: leaf4 has 7 × 400G down
    assert doc["summary"]["totals"]["gpus"] == 32
    leaf_tier = next(t for t in doc["summary"]["tiers"] if t["tier"] == "leaf")
    assert (leaf_tier["down_gbps"], leaf_tier["up_gbps"]) == (12400, 12800)


def test_json_ok_on_the_lab(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(INVENTORIES / "lab"), "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["ok"] is True
    assert [t["ratio"] for t in doc["summary"]["tiers"]] == [1.0, None]  # spines have nothing above them


BAD_INPUTS = sorted(p.name for p in (DATA / "bad").iterdir())


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_input_exits_3_without_traceback(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = run(capsys, str(DATA / "bad" / name))
    assert code == 3
    assert out == ""
    lines = err.splitlines()
    assert lines[-1].endswith("input problem(s); nothing was checked further")
    assert all(line.startswith(str(DATA / "bad" / name)) for line in lines[:-1])
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_input_json_lists_the_problems(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = run(capsys, str(DATA / "bad" / name), "--format", "json")
    assert code == 3
    doc = json.loads(out)
    assert doc["ok"] is False
    problems = doc["input_problems"]
    assert len(problems) == len(err.splitlines()) - 1
    assert all(p["file"].startswith(str(DATA / "bad" / name)) and p["line"] >= 1 for p in problems)


def test_usage_error_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(INVENTORIES / "lab"), "--format", "xml")
    assert code == 3
    assert "Invalid value for '--format'" in err


def test_missing_inventory_exits_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope"))
    assert code == 3
    assert err.splitlines()[0] == f"<inventory>: {tmp_path / 'nope'}: no such file or directory"


def test_real_process_alias_bomb_and_deep_nesting(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("fabric: " + "[" * 3000 + "]" * 3000 + "\n")
    for path in (DATA / "bad" / "alias-bomb.yaml", deep):
        proc = subprocess.run(
            [sys.executable, "-m", "fabricgen", "validate", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 3, proc.stderr
        assert "Traceback" not in proc.stderr
        assert proc.stderr.splitlines()[-1] == "1 input problem(s); nothing was checked further"


@pytest.mark.parametrize(
    "module", ["fabricgen.inventory.catalog", "fabricgen.topology.resolve", "fabricgen.checks.capacity"]
)
def test_each_stage_imports_on_its_own(module: str) -> None:
    """Importing a stage first must work (a schema default that imports the catalog once made this a cycle)."""
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.parametrize(
    ("tier", "value"),
    [("leaf", "cumulus"), ("spine", "SONiC"), ("core", "Eos"), ("leaf", "nvidia")],
)
def test_an_intent_tiers_unknown_platform_is_one_input_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tier: str, value: str
) -> None:
    """An intent tier's platform is held to the same list as a switch's, at load: one line at the value, exit 3."""
    text = (INVENTORIES / "su1" / "fabric.yaml").read_text()
    text = text.replace("    spine: {model: sn5600}\n", "    spine: {model: sn5600}\n    core: {model: sn5600}\n")
    text = text.replace(f"    {tier}: {{model: sn5600}}", f"    {tier}: {{model: sn5600, platform: {value}}}")
    (tmp_path / "fabric.yaml").write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if f"platform: {value}" in t)
    col = text.splitlines()[line - 1].index("platform:") + 1  # the key, as every problem of a mapping names it
    code, out, err = run(capsys, str(tmp_path))
    assert out == ""
    assert code == 3, err
    assert err.splitlines() == [
        f"{tmp_path / 'fabric.yaml'}:{line}:{col}: intent.rail_optimized.{tier}.platform: unknown platform "
        f"{value!r}; one of sonic, eos, nvue, nxos, junos, frr",
        "1 input problem(s); nothing was checked further",
    ]
