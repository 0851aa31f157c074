"""Saved plans: round trip, and refusing a plan whose inputs changed (by path and by git ref)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from fabricgen.cli import app
from fabricgen.errors import InputError
from fabricgen.plan.file import check_inputs, load_plan, save_plan
from fabricgen.plan.inputs import Base, valid_ref
from tests.conftest import INVENTORIES


def _copy_pair(tmp: Path) -> None:
    shutil.copytree(INVENTORIES / "expansion" / "before", tmp / "before")
    shutil.copytree(INVENTORIES / "expansion" / "after", tmp / "after")


def _plan(tmp: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["plan", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_round_trip_and_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _copy_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, _ = _plan(tmp_path, "--base", "before", "after", "-o", "plan.json", "--format", "json", "--no-configs")
    assert code == 0
    plan = load_plan("plan.json")
    doc = json.loads(Path("plan.json").read_text())
    assert doc["inputs"]["new"]["files"].keys() == {"fabric.yaml"}
    assert len(doc["inputs"]["new"]["digest"]) == 64
    assert plan.topology["counts"]["switches_added"] == 16
    assert check_inputs(plan) == []
    # the same plan saved again is identical data
    save_plan(plan, "again.json")
    assert load_plan("again.json").as_dict() == plan.as_dict()

    text = Path("after/fabric.yaml").read_text()
    Path("after/fabric.yaml").write_text(text.replace("units: 4", "units: 3"))
    problems = check_inputs(plan)
    assert len(problems) == 1
    assert problems[0].startswith("after/fabric.yaml: changed since the plan was made")
    Path("after/fabric.yaml").write_text(text)
    assert check_inputs(plan) == []
    Path("after/extra.yaml").write_text("catalog: {}\n")
    assert check_inputs(plan) == ["after/extra.yaml: added since the plan was made"]
    Path("after/extra.yaml").unlink()
    Path("before/fabric.yaml").write_text(Path("before/fabric.yaml").read_text() + "# edited\n")
    assert [p.split(":")[0] for p in check_inputs(plan)] == ["base before/fabric.yaml"]


def test_load_plan_rejects_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"format": 1}')
    with pytest.raises(InputError, match="not a fabricgen plan"):
        load_plan(bad)
    bad.write_text("not json")
    with pytest.raises(InputError, match="not JSON"):
        load_plan(bad)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_base_from_git_ref(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    (repo / "inv").mkdir(parents=True)
    shutil.copy(INVENTORIES / "expansion" / "before" / "fabric.yaml", repo / "inv" / "fabric.yaml")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "inv")
    _git(repo, "commit", "-q", "-m", "two units")
    shutil.copy(INVENTORIES / "expansion" / "after" / "fabric.yaml", repo / "inv" / "fabric.yaml")
    monkeypatch.chdir(repo)
    code, out = _plan(repo, "--base", "main", "inv", "--detailed-exitcode", "-o", "plan.json", "--no-configs")
    assert code == 2, out
    assert "+16 switches, +64 servers (+512 GPUs), +768 cables, 8 existing devices change." in out
    plan = load_plan("plan.json")
    assert plan.base.ref == "main" and plan.base.commit == _git(repo, "rev-parse", "HEAD")
    assert check_inputs(plan) == []
    # main moves on with the change merged: the base the plan was made against is gone
    _git(repo, "commit", "-q", "-am", "four units")
    problems = check_inputs(plan)
    assert len(problems) == 1 and problems[0].startswith("base main:inv/fabric.yaml: changed since the plan")
    # against the merged commit itself there is nothing to do
    code, out = _plan(repo, "--base", "HEAD", "inv", "--detailed-exitcode", "--no-configs")
    assert code == 0 and "No changes" in out


def test_bad_base_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _copy_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["plan", "--base", "git:--output=x", "after"])
    assert result.exit_code == 3
    result = CliRunner().invoke(app, ["plan", "--base", "no-such-ref-or-dir", "after"])
    assert result.exit_code == 3
    assert not valid_ref("--output=/tmp/x") and not valid_ref("a..b") and valid_ref("origin/main")
    assert Base.parse("before").ref is None and Base.parse("git:before").ref == "before"


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (lambda d: d["topology"]["added"][0].pop("name"), "topology.added[0].name", "Field required"),
        (lambda d: d["topology"]["counts"].update(switches_added="16"), "topology.counts.switches_added",
         "Input should be a valid integer"),
        (lambda d: d["topology"].update(changed={}), "topology.changed", "Input should be a valid list"),
        (lambda d: d["inputs"]["new"].update(files=["fabric.yaml"]), "inputs.new.files",
         "Input should be a valid dictionary"),
    ],
)
def test_a_plan_of_the_wrong_shape_is_an_input_error_for_its_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: object, field: str, message: str
) -> None:
    """A saved plan edited out of shape: `diagram --plan` (and `apply`) refuse it naming the file and the field,
    exit 3, instead of an internal error where they index into it."""
    _copy_pair(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert _plan(tmp_path, "--base", "before", "after", "-o", "plan.json", "--no-configs")[0] == 0
    doc = json.loads(Path("plan.json").read_text())
    edit(doc)  # type: ignore[operator]
    Path("plan.json").write_text(json.dumps(doc))
    result = CliRunner().invoke(app, ["diagram", "after", "--plan", "plan.json", "-o", "x.svg"])
    assert result.exit_code == 3, result.output
    assert f"plan.json:1:1: {field}: not a fabricgen plan: {message}" in result.output
    assert not Path("x.svg").exists()
