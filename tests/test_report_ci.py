"""CI-native reports of `validate`: JUnit XML, GitHub annotations, versioned JSON — findings and input problems."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fabricgen.checks import Finding, Severity, rule_codes
from fabricgen.cli import JSON_FORMAT, main
from fabricgen.errors import Problem, SourcePos, one_line
from fabricgen.report.ci import github_findings, github_problems, junit_findings, junit_problems
from tests.conftest import INVENTORIES

DATA = Path(__file__).parent / "data"
BROKEN = DATA / "checks" / "FG-CAP-005.yaml"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(["validate", *args])
    out, err = capsys.readouterr()
    assert isinstance(info.value.code, int)
    return info.value.code, out, err


def test_junit_lists_every_rule_and_fails_the_broken_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(BROKEN), "--format", "junit")
    assert code == 1
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name") == "validate"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == set(rule_codes())
    failed = sorted(name for name, c in cases.items() if c.find("failure") is not None)
    assert failed == ["FG-CAP-002", "FG-CAP-005"]
    assert suite.get("failures") == "2" and suite.get("tests") == str(len(rule_codes()))
    failure = cases["FG-CAP-005"].find("failure")
    assert failure is not None and failure.text == f"{BROKEN}:27:5: leaf4: leaf has 3.2T down and no uplink"
    assert cases["FG-CAP-005"].get("classname") == "fabricgen.cap"


def test_junit_of_a_clean_fabric_has_no_failure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(INVENTORIES / "lab"), "--format", "junit")
    assert code == 0
    root = ET.fromstring(out)
    assert root.get("failures") == "0"
    assert not list(root.iter("failure"))


def test_github_annotations_point_at_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(BROKEN), "--format", "github")
    assert code == 1
    infos = ("title=FG-BASE-", "title=FG-BFD-002")  # the fixture's SONiC facts, as notices
    assert [line for line in out.splitlines() if not any(i in line for i in infos)] == [
        f"::error file={BROKEN},line=15,col=22,title=FG-CAP-002::leaf tier: oversubscribed 1.33:1 (12.8T down / "
        "9.6T up over 4 switches), target 1.00:1 — add uplinks or upper-tier switches",
        f"::error file={BROKEN},line=27,col=5,title=FG-CAP-005::leaf4: leaf has 3.2T down and no uplink — cable its "
        "uplinks; everything below it is cut off",
    ]


def test_input_problems_in_each_ci_format(capsys: pytest.CaptureFixture[str]) -> None:
    f = DATA / "bad" / "unknown-reference.yaml"
    code, out, _ = run(capsys, str(f), "--format", "github")
    assert code == 3
    assert out.splitlines()[0] == (
        f"::error file={f},line=4,col=33,title=fabricgen input::switches[spine1].model: unknown switch model "
        "'sn9999'; known: arista-7060x6-64pe, cisco-n9364d-gx2a, dell-z9864f-on, juniper-qfx5230-64cd, sn4700, "
        "sn5400, sn5600"
    )
    code, out, _ = run(capsys, str(f), "--format", "junit")
    assert code == 3
    error = ET.fromstring(out).find("testsuite/testcase/error")
    assert error is not None and error.get("message") == "6 input problems"
    assert error.text is not None and error.text.splitlines()[-1].endswith("links[gpu01:enp154s0np0].b: unknown "
                                                                           "device 'leaf9'")
    code, out, _ = run(capsys, str(f), "--format", "json")
    doc = json.loads(out)
    assert (code, doc["format"], doc["ok"], len(doc["input_problems"])) == (3, JSON_FORMAT, False, 6)


def test_json_is_versioned_and_findings_carry_the_column(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(BROKEN), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["format"] == 1 and doc["ok"] is False
    cap5 = next(f for f in doc["findings"] if f["code"] == "FG-CAP-005")
    assert (cap5["file"], cap5["line"], cap5["col"]) == (str(BROKEN), 27, 5)


def test_hostile_text_cannot_forge_an_annotation_or_break_the_xml() -> None:
    """Messages and paths come from inventories: a newline must not start a second workflow command, and XML
    special characters must stay text."""
    evil = "x\n::error file=/etc/passwd::pwned %0A <b>&</b> ]]>"
    finding = Finding("FG-CAP-001", Severity.ERROR, evil, evil, "", SourcePos("a,b:c.yaml", 3, 1))
    (line,) = github_findings([finding])
    assert "\n" not in line  # one line: GitHub reads one command per line
    assert line.startswith("::error file=a%2Cb%3Ac.yaml,line=3,col=1,title=FG-CAP-001::x%0A::error")
    assert "%250A" in line  # a literal %0A in the text stays literal
    (problem,) = github_problems([Problem(SourcePos("f.yaml", 1, 1), "fabric.name", evil)])
    assert "\n" not in problem
    root = ET.fromstring(junit_findings("validate", [finding], ["FG-CAP-001"]))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None and "<b>&</b> ]]>" in failure.text
    err = ET.fromstring(junit_problems("validate", [Problem(None, "", evil)])).find("testsuite/testcase/error")
    assert err is not None and err.text is not None and one_line(evil) in err.text  # problems print as one line
