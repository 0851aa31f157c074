"""CI reports of drift and verify (JUnit XML, GitHub annotations, Markdown) over constructed results.

The live end of it (a drifted lab device as a JUnit failure and an annotation) is in tests/test_lab_live.py.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fabricgen.cli import EXIT_FINDINGS, JSON_FORMAT, main
from fabricgen.deploy.normalize import ConfigDiff
from fabricgen.deploy.runner import Result, Results
from fabricgen.deploy.verify import Check, DeviceVerdict
from fabricgen.errors import SourcePos
from fabricgen.report.live import (
    MAX_ANNOTATION_LINES,
    github_drift,
    github_verify,
    junit_drift,
    junit_verify,
    markdown_drift,
    markdown_verify,
)
from tests.conftest import INVENTORIES

MISSING = "router bgp 65001 / address-family ipv4 unicast / maximum-paths 64"
SHUT = "router bgp 65001 / neighbor 10.0.0.1 shutdown"
BANNER = "banner motd a<b>&c"


def drift_results() -> Results[ConfigDiff]:
    return Results({
        "leaf1": Result("leaf1", ConfigDiff(), seconds=0.25),
        "leaf2": Result("leaf2", ConfigDiff((MISSING,), (SHUT,), {"routing": [MISSING, SHUT]})),
        "leaf3": Result("leaf3", ConfigDiff((), (BANNER,), {})),
        "spine1": Result("spine1", error="TimeoutError: timed out"),
    })


def verify_results() -> Results[DeviceVerdict]:
    ok = DeviceVerdict("leaf1", [Check("bgp", "10.0.0.1 (spine1, AS 65100)", True, "Established"),
                                 Check("lldp", "swp1 → spine1:swp1", True)])
    bad = DeviceVerdict("leaf2", [
        Check("bgp", "10.0.0.3 (spine1, AS 65100)", False, "peer ASN is 65999, cabling implies 65100"),
        Check("lldp", "swp1 → spine1:swp2", True),
        Check("interface", "swp2", False, "down"),
    ], notes=["2 port(s) face devices outside the targets (not checked)"])
    return Results({"leaf1": Result("leaf1", ok), "leaf2": Result("leaf2", bad),
                    "spine1": Result("spine1", error="ConnectionRefusedError: [Errno 111]")})


def cases(xml: str, command: str) -> tuple[ET.Element, dict[str, ET.Element]]:
    root = ET.fromstring(xml)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [command]
    return suites[0], {c.get("name", ""): c for c in suites[0].iter("testcase")}


def test_junit_drift_one_case_per_device_failure_for_drift_error_for_unchecked() -> None:
    suite, by_name = cases(junit_drift(drift_results()), "drift")
    assert list(by_name) == ["leaf1", "leaf2", "leaf3", "spine1"]
    assert {c.get("classname") for c in by_name.values()} == {"fabricgen.drift"}
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "2", "1")
    assert by_name["leaf1"].find("failure") is None and by_name["leaf1"].find("error") is None
    assert by_name["leaf1"].get("time") == "0.250"
    assert by_name["leaf1"].find("system-out") is None
    fail = by_name["leaf2"].find("failure")
    assert fail is not None
    assert fail.get("message") == "1 line missing, 1 unexpected (routing)"
    assert fail.text == f"- {MISSING}    (routing)\n+ {SHUT}    (routing)"
    leaf3 = by_name["leaf3"].find("failure")
    assert leaf3 is not None and leaf3.text == f"+ {BANNER}    (other)"  # XML-escaped on the way, intact parsed
    err = by_name["spine1"].find("error")
    assert err is not None and err.text == "TimeoutError: timed out" and by_name["spine1"].find("failure") is None


def test_a_secret_bearing_section_is_drift_in_every_format_by_name_with_its_tag() -> None:
    user, plist = "username ops …", "ip prefix-list HAND-PL seq 5 permit 203.0.113.0/24"
    diff = ConfigDiff((), (plist, user), {"routing": [plist], "other": [user]}, (user,))
    results = Results({"leaf1": Result("leaf1", diff)})
    _, by_name = cases(junit_drift(results), "drift")
    fail = by_name["leaf1"].find("failure")
    assert fail is not None and fail.text == f"+ {plist}    (routing)\n+ {user}    (other; values not shown)"
    (annotation,) = github_drift(results, {})
    assert annotation.startswith("::error ")  # a routing line: an error, not a warning
    assert annotation.endswith(f"%0A+ {plist}    (routing)%0A+ {user}    (other; values not shown)")
    md = markdown_drift("f", "lab", results)
    assert "| leaf1 | drift | 0 | 2 | other, routing |" in md and f"+ {user}    (other; values not shown)" in md


def test_junit_drift_of_a_clean_run_has_no_failure() -> None:
    results = Results({"leaf1": Result("leaf1", ConfigDiff())})
    suite, by_name = cases(junit_drift(results), "drift")
    assert (suite.get("failures"), suite.get("errors")) == ("0", "0")
    assert list(by_name["leaf1"]) == []


def test_github_drift_points_at_each_device_definition() -> None:
    srcs = {"leaf2": SourcePos("inv/fabric.yaml", 40, 5), "leaf3": SourcePos("inv/fabric.yaml", 52, 5),
            "spine1": SourcePos("inv/fabric.yaml", 12, 5), "leaf1": SourcePos("inv/fabric.yaml", 30, 5)}
    assert github_drift(drift_results(), srcs) == [
        f"::error file=inv/fabric.yaml,line=40,col=5,title=fabricgen drift::leaf2: drift, 1 line missing, "
        f"1 unexpected (routing)%0A- {MISSING}    (routing)%0A+ {SHUT}    (routing)",
        f"::warning file=inv/fabric.yaml,line=52,col=5,title=fabricgen drift::leaf3: drift, 0 lines missing, "
        f"1 unexpected (other)%0A+ {BANNER}    (other)",
        "::error file=inv/fabric.yaml,line=12,col=5,title=fabricgen drift::spine1: not checked: TimeoutError: "
        "timed out",
    ]


def test_github_drift_without_a_position_and_with_a_long_diff() -> None:
    lines = tuple(f"interface swp{i} / mtu 9216" for i in range(MAX_ANNOTATION_LINES + 5))
    results = Results({"leaf9": Result("leaf9", ConfigDiff(lines, (), {"roce": list(lines)}))})
    (line,) = github_drift(results, {})
    head, *body = line.split("::", 2)[2].split("%0A")
    assert line.startswith("::error title=fabricgen drift::")
    assert head == f"leaf9: drift, {len(lines)} lines missing, 0 unexpected (roce)"
    assert body[:-1] == [f"- {x}    (roce)" for x in lines[:MAX_ANNOTATION_LINES]]
    assert body[-1] == "… and 5 more"


def test_github_escapes_workflow_command_syntax_in_device_text() -> None:
    evil = "description 100%\r\n::error::forged"
    results = Results({"leaf1": Result("leaf1", ConfigDiff((), (evil,), {}))})
    (line,) = github_drift(results, {"leaf1": SourcePos("a,b:c.yaml", 3, 1)})
    assert line == ("::warning file=a%2Cb%3Ac.yaml,line=3,col=1,title=fabricgen drift::leaf1: drift, 0 lines "
                    "missing, 1 unexpected (other)%0A+ description 100%25%0D%0A::error::forged    (other)")
    assert "\n" not in line


def test_markdown_drift_summary_table_and_folded_diffs() -> None:
    md = markdown_drift("lab-frr", "lab", drift_results())
    lines = md.splitlines()
    assert lines[:3] == ["### fabricgen drift: `lab-frr`", "",
                         "**❌ 2 drifted, 1 not checked, 1 in sync** (4 devices via lab)"]
    assert lines[4:11] == [
        "| device | state | missing | unexpected | impact / reason |",
        "|---|---|---:|---:|---|",
        "| leaf1 | in sync | 0 | 0 |  |",
        "| leaf2 | drift | 1 | 1 | routing |",
        "| leaf3 | drift | 0 | 1 | other |",
        "| spine1 | not checked |  |  | TimeoutError: timed out |",
        "",
    ]
    start = lines.index("<summary><code>leaf2</code> −1 +1</summary>")
    assert lines[start - 1: start + 7] == ["<details>", "<summary><code>leaf2</code> −1 +1</summary>", "",
                                           "```diff", f"- {MISSING}    (routing)", f"+ {SHUT}    (routing)",
                                           "```", "</details>"]
    assert "<summary><code>leaf3</code> −0 +1</summary>" in lines
    assert md.count("<details>") == 2  # the in-sync and unchecked devices have no diff


def test_markdown_diff_fence_cannot_be_closed_by_device_text() -> None:
    results = Results({"leaf1": Result("leaf1", ConfigDiff((), ("banner ```\n",), {}))})
    lines = markdown_drift("f", "hosts.yaml", results).splitlines()
    i = lines.index("````diff")
    assert lines[i + 1: i + 4] == ["+ banner ```", "    (other)", "````"]


def test_markdown_drift_keeps_to_its_budget() -> None:
    big = {f"leaf{i}": Result(f"leaf{i}", ConfigDiff(tuple(f"interface swp{j} / mtu 9216" for j in range(100)),
                                                     (), {})) for i in range(40)}
    md = markdown_drift("f", "lab", Results(big), budget=20_000)
    assert len(md) <= 20_000
    shown = md.count("<details>")
    assert 0 < shown < 40
    assert md.rstrip().endswith(f"{40 - shown:,} more diffs do not fit in a comment; they are in the JSON output.")


def test_junit_verify_lists_each_failed_check() -> None:
    suite, by_name = cases(junit_verify(verify_results()), "verify")
    assert list(by_name) == ["leaf1", "leaf2", "spine1"]
    assert {c.get("classname") for c in by_name.values()} == {"fabricgen.verify"}
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    assert list(by_name["leaf1"]) == []
    fail = by_name["leaf2"].find("failure")
    assert fail is not None and fail.get("message") == "2 failed checks of 3"
    assert fail.text == ("bgp 10.0.0.3 (spine1, AS 65100): peer ASN is 65999, cabling implies 65100\n"
                         "interface swp2: down")
    assert by_name["leaf2"].findtext("system-out") == "2 port(s) face devices outside the targets (not checked)"
    err = by_name["spine1"].find("error")
    assert err is not None and err.get("message") == "not checked: ConnectionRefusedError: [Errno 111]"


def test_github_verify_one_error_per_bad_device() -> None:
    out = github_verify(verify_results(), {"leaf2": SourcePos("f.yaml", 7, 3)})
    assert out == [
        "::error file=f.yaml,line=7,col=3,title=fabricgen verify::leaf2: 2 failed checks of 3%0A"
        "bgp 10.0.0.3 (spine1, AS 65100): peer ASN is 65999, cabling implies 65100%0Ainterface swp2: down",
        "::error title=fabricgen verify::spine1: not checked: ConnectionRefusedError: [Errno 111]",
    ]


def test_markdown_verify() -> None:
    lines = markdown_verify("lab-frr", "lab", verify_results()).splitlines()
    assert lines[:3] == ["### fabricgen verify: `lab-frr`", "",
                         "**❌ 1 ok, 1 with problems, 1 not checked** (3 devices via lab)"]
    assert lines[4:10] == [
        "| device | state | BGP ok | LLDP ok | interfaces ok | problems |",
        "|---|---|---:|---:|---:|---|",
        "| leaf1 | ok | 1/1 | 1/1 | 0/0 |  |",
        "| leaf2 | problems | 0/1 | 1/1 | 0/1 | 2 failed checks |",
        "| spine1 | not checked |  |  |  | ConnectionRefusedError: [Errno 111] |",
        "",
    ]
    i = lines.index("<summary><code>leaf2</code> 2 failed checks</summary>")
    assert lines[i + 2: i + 4] == ["- `bgp` 10.0.0.3 (spine1, AS 65100): peer ASN is 65999, cabling implies 65100",
                                   "- `interface` swp2: down"]


def test_markdown_table_keeps_a_multi_line_error_on_its_row() -> None:
    results = Results({"leaf1": Result("leaf1", error="SSHException: banner\nrefused | closed")})
    lines = markdown_drift("f", "lab", results).splitlines()
    assert "| leaf1 | not checked |  |  | SSHException: banner refused \\| closed |" in lines


def test_markdown_verify_all_ok() -> None:
    results = Results({"leaf1": Result("leaf1", DeviceVerdict("leaf1", [Check("lldp", "swp1 → s:swp1", True)]))})
    md = markdown_verify("f", "lab", results)
    assert "**✅ 1 ok, 0 with problems, 0 not checked** (1 device via lab)" in md
    assert "<details>" not in md


@pytest.mark.parametrize("command", ["drift", "verify"])
def test_cli_reports_an_unreachable_device_as_error_at_its_definition(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real CLI and NAPALM-contract driver: a refused connection is an ``<error>``, exit 1."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    inventory = INVENTORIES / "lab-frr"
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("spine1: 127.0.0.1:1\nspine2: 127.0.0.1:1\n")
    monkeypatch.setenv("FABRICGEN_USERNAME", "admin")
    monkeypatch.setenv("FABRICGEN_PASSWORD", "not-a-real-secret")
    base = [command, str(inventory), "--no-lab", "--hosts", str(hosts), "--only", "spine*", "--timeout", "5"]
    outputs = {}
    for fmt in ("junit", "github", "json"):
        with pytest.raises(SystemExit) as info:
            main([*base, "--format", fmt])
        assert info.value.code == EXIT_FINDINGS
        outputs[fmt] = capsys.readouterr().out
    suite, by_name = cases(outputs["junit"], command)
    assert list(by_name) == ["spine1", "spine2"] and suite.get("errors") == "2" and suite.get("failures") == "0"
    assert all(c.find("error") is not None for c in by_name.values())
    src = resolve(load_inventory(inventory)).switches["spine1"].src
    assert src is not None
    annotations = outputs["github"].splitlines()
    assert len(annotations) == 2
    assert annotations[0].startswith(f"::error file={src.file},line={src.line},col={src.col},"
                                     f"title=fabricgen {command}::spine1: not checked: ")
    assert json.loads(outputs["json"])["format"] == JSON_FORMAT
    assert "not-a-real-secret" not in "".join(outputs.values())


@pytest.mark.parametrize("command", ["drift", "verify"])
def test_unreadable_credentials_and_hosts_come_out_in_the_ci_format(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str) -> None:
    """A credentials file that cannot be read and a hosts file that is not text: exit 3, the one-line error on
    stderr, and on stdout a JUnit input error / a GitHub ``::error`` annotated on the file at fault."""
    missing = tmp_path / "nope.yaml"
    garbled = tmp_path / "hosts.yaml"
    garbled.write_bytes(b"leaf1: \xff\xfe\n")
    for option, path, what in (("--credentials", missing, "No such file or directory"),
                               ("--hosts", garbled, "invalid start byte")):
        if option == "--hosts":  # credentials from the environment, so that the hosts file is read
            monkeypatch.setenv("FABRICGEN_USERNAME", "admin")
            monkeypatch.setenv("FABRICGEN_PASSWORD", "not-used")
        else:
            monkeypatch.delenv("FABRICGEN_USERNAME", raising=False)
        for fmt in ("junit", "github"):
            with pytest.raises(SystemExit) as info:
                main([command, str(INVENTORIES / "lab"), "--no-lab", "--format", fmt, option, str(path)])
            out, err = capsys.readouterr()
            assert info.value.code == 3
            assert "Traceback" not in out + err
            assert err.strip().startswith(f"fabricgen: {path}: ") and what in err
            if fmt == "github":
                (line,) = out.splitlines()
                assert line.startswith(f"::error file={path},title=fabricgen {command}::{option}: {path}: ")
                assert what in line
            else:
                suite = ET.fromstring(out).find("testsuite")
                assert suite is not None and suite.get("name") == command and suite.get("errors") == "1"
                error = suite.find("testcase/error")
                assert error is not None and error.get("type") == "input"
                assert error.text is not None and error.text.startswith(f"<inventory>: {option}: {path}: ")
