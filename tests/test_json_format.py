"""Every JSON document a command prints starts with ``"format": JSON_FORMAT`` (docs/json.md): each command that
runs offline is run; drift and verify, which need devices, through the functions that build their documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fabricgen.cli import JSON_FORMAT, app
from fabricgen.cli.apply import apply_document
from fabricgen.cli.drift import drift_document
from fabricgen.cli.verify import verify_document
from fabricgen.deploy.apply import ApplyReport, Outcome
from fabricgen.deploy.normalize import ConfigDiff
from fabricgen.deploy.runner import Result, Results
from fabricgen.deploy.verify import Check, DeviceVerdict
from tests.conftest import INVENTORIES

DATA = Path(__file__).parent / "data"
LAB = str(INVENTORIES / "lab")
SU1 = str(INVENTORIES / "su1")


def document(args: list[str], code: int = 0) -> dict[str, Any]:
    res = CliRunner().invoke(app, args, catch_exceptions=False)
    assert res.exit_code == code, res.output
    doc = json.loads(res.stdout)
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize(
    ("args", "code", "key"),
    [
        (["validate", LAB, "--format", "json"], 0, "summary"),
        (["validate", str(DATA / "bad" / "duplicate-key.yaml"), "--format", "json"], 3, "input_problems"),
        (["explain", LAB, "leaf1:Ethernet0", "--format", "json"], 0, "values"),
        (["plan", str(INVENTORIES / "expansion" / "after"), "--base", str(INVENTORIES / "expansion" / "before"),
          "--no-configs", "--format", "json"], 0, "topology"),
        (["scaling", SU1, "--format", "json"], 0, "rows"),
        (["paths", LAB, "--seeds", "2", "--format", "json"], 0, "jobs"),
        (["nccl", "analyze", LAB, str(DATA / "nccl" / "healthy-2node.log"), "--format", "json"], 0, "runs"),
        (["export", "containerlab", LAB, "--dry-run", "--format", "json"], 0, "files"),
    ],
    ids=["validate", "input-error", "explain", "plan", "scaling", "paths", "nccl-analyze", "export"],
)
def test_every_command_document_starts_with_format(args: list[str], code: int, key: str) -> None:
    doc = document(args, code)
    assert next(iter(doc.items())) == ("format", JSON_FORMAT)
    assert key in doc


def test_hosts_document(tmp_path: Path) -> None:
    doc = document(["hosts", LAB, "-o", str(tmp_path), "--format", "json"])
    assert next(iter(doc)) == "format" and doc["format"] == JSON_FORMAT
    assert doc["written"] and all(Path(p).is_file() for p in doc["written"])


def test_render_document(tmp_path: Path) -> None:
    doc = document(["render", LAB, "-o", str(tmp_path), "--platform", "eos", "--check", "--format", "json"])
    assert next(iter(doc)) == "format" and doc["format"] == JSON_FORMAT
    assert (doc["ok"], doc["exit_code"], doc["switches"], doc["hosts"], doc["files"]) == (True, 0, 6, 4, 14)
    assert (doc["checks"], doc["without_oracle"], doc["refused"]) == ([], ["eos"], [])


def test_lab_status_without_a_lab(tmp_path: Path) -> None:
    inv = tmp_path / "fabric.yaml"  # a fabric name no lab was ever started for
    inv.write_text((INVENTORIES / "lab-frr" / "fabric.yaml").read_text().replace("name: ", "name: json-fmt-", 1))
    doc = document(["lab", "status", str(inv), "--format", "json"], 1)
    assert list(doc) == ["format", "fabric", "status"] and doc["format"] == JSON_FORMAT
    assert doc["status"] == "down"


def test_plan_file_keeps_its_format_and_loads(tmp_path: Path) -> None:
    """A saved plan's own ``format`` (fabricgen.plan.model.FORMAT) is the same key, first, and still loads."""
    from fabricgen.plan.file import load_plan
    from fabricgen.plan.model import FORMAT

    out = tmp_path / "plan.json"
    res = CliRunner().invoke(app, ["plan", str(INVENTORIES / "expansion" / "after"), "--base",
                                   str(INVENTORIES / "expansion" / "before"), "--no-configs", "-o", str(out)])
    assert res.exit_code == 0, res.output
    saved = json.loads(out.read_text())
    assert next(iter(saved)) == "format" and saved["format"] == FORMAT == JSON_FORMAT
    assert load_plan(out).fabric == "expansion"


def test_drift_document() -> None:
    results: Results[ConfigDiff] = Results(by_device={
        "leaf1": Result("leaf1", value=ConfigDiff(missing=("interface swp1 / mtu = 9216",))),
        "leaf2": Result("leaf2", error="timed out after 30 s"),
    })
    doc = drift_document("lab", "lab", results)
    assert list(doc)[:3] == ["format", "fabric", "targets"] and doc["format"] == JSON_FORMAT
    assert doc["drifted"] == ["leaf1"]
    assert doc["errors"] == {"leaf2": "timed out after 30 s"}
    assert doc["devices"]["leaf2"] is None


def test_verify_document() -> None:
    bad = DeviceVerdict("leaf1", checks=[Check("bgp", "spine1", False, "Idle")])
    results: Results[DeviceVerdict] = Results(by_device={"leaf1": Result("leaf1", value=bad)})
    doc = verify_document("lab", "hosts.yaml", results)
    assert next(iter(doc)) == "format" and doc["format"] == JSON_FORMAT
    assert doc["ok"] is False and doc["devices"]["leaf1"]["ok"] is False
    assert doc["devices"]["leaf1"]["checks"][0]["ok"] is False


def test_apply_document() -> None:
    report = ApplyReport("lab", "lab", dry_run=True, waves=[["spine1"], ["leaf1"]],
                         outcomes={"leaf1": Outcome("leaf1", "would-change", 2, diff="+ mtu 9216")})
    doc = apply_document(report)
    assert next(iter(doc)) == "format" and doc["format"] == JSON_FORMAT
    assert doc["summary"] == {"would-change": ["leaf1"]} and doc["ok"] is True and doc["changed"] is True
