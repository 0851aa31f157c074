"""A corpus of broken inventories and CLI misuses: every one ends in its exact exit code, names the field and the
file:line:col it is about, never shows a traceback, and stays within a time budget (memory: see the subprocess
test at the end, which runs the hostile cases under an address-space limit).

Each inventory case is the bundled `inventories/lab` with one edit. The expected position is computed from the
edit itself: the line it landed on and the column of the key it names, so the corpus checks the loader's
positions rather than repeating them.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricgen.cli import main
from tests.conftest import INVENTORIES

ROOT = Path(__file__).resolve().parent.parent
LAB = INVENTORIES / "lab"
SECONDS = 10.0  # per case, in-process


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` by ``new`` (first occurrence) in ``file`` of the lab inventory.

    ``field``: the field path every message must name; ``key``: the key whose position the message points at
    (searched on the line where ``new`` landed; ``None``: the start of the edited text); ``code``: exit code.
    """

    id: str
    file: str
    old: str
    new: str
    field: str
    key: str | None
    code: int = 3


SWITCH = ("  - {name: leaf1, base: {mgmt: {address: 192.0.2.21/24}}, role: leaf, model: sn5600, platform: sonic, "
          "id: 1, unit: 1, rails: [0, 1]}")
NODE = "  - {name: gpu01, model: dgx-h100, unit: 1}"
LINK = "  - {a: gpu01:enp24s0np0, b: leaf1:Ethernet0, length_m: 3}"


def _switch(key: str, value: str) -> str:
    fields = {"name": "leaf1", "role": "leaf", "model": "sn5600", "platform": "sonic", "id": "1", "unit": "1",
              "rails": "[0, 1]"}
    fields[key] = value
    return "  - {" + ", ".join(f"{k}: {v}" for k, v in fields.items()) + "}"


def _node(key: str, value: str) -> str:
    fields = {"name": "gpu01", "model": "dgx-h100", "unit": "1"}
    fields[key] = value
    return "  - {" + ", ".join(f"{k}: {v}" for k, v in fields.items()) + "}"


def _link(key: str, value: str) -> str:
    fields = {"a": "gpu01:enp24s0np0", "b": "leaf1:Ethernet0", "length_m": "3"}
    fields[key] = value
    return "  - {" + ", ".join(f"{k}: {v}" for k, v in fields.items()) + "}"


def _cases() -> Iterator[Edit]:
    bad_switch = {
        "role": ["foo", "1", "true", "null"],
        "model": ["123", "''", "'a b'"],
        "platform": ["windows", "5"],
        "id": ["0", "-1", "'x'", "1.5"],
        "unit": ["0", "'one'"],
        "rails": ["[64]", "[-1]", "x", "[0, 'a']"],
        "asn": ["0", "4294967295", "'x'"],
        "loopback": ["10.0.0.1/24", "300.1.1.1", "[1]"],
        "pod": ["-1", "'x'"],
    }
    for key, values in bad_switch.items():
        for i, value in enumerate(values):
            yield Edit(f"switch-{key}-{i}", "devices.yaml", SWITCH, _switch(key, value), f"switches[leaf1].{key}", key)
    yield Edit("switch-unknown-key", "devices.yaml", SWITCH, SWITCH[:-1] + ", colour: red}", "switches[leaf1].colour",
               "colour")
    yield Edit("switch-unknown-model", "devices.yaml", SWITCH, _switch("model", "sn9999"), "switches[leaf1].model",
               "model")
    for key, values in {"model": ["nope", "5"], "unit": ["0", "'x'"], "name": ["'a b'", "''", "-x"]}.items():
        for i, value in enumerate(values):
            label = (value.strip("'") or "0") if key == "name" else "gpu01"  # an empty name: the item's index
            yield Edit(f"node-{key}-{i}", "devices.yaml", NODE, _node(key, value), f"nodes[{label}].{key}", key)
    yield Edit("node-unknown-key", "devices.yaml", NODE, NODE[:-1] + ", rack: 5}", "nodes[gpu01].rack", "rack")
    bad_link = {
        "length_m": ["0", "-3", "100000", "'x'"],
        "speed": ["fast", "0", "'12.5G'"],
        "cable": ["[1]"],
    }
    for key, values in bad_link.items():
        for i, value in enumerate(values):
            yield Edit(f"link-{key}-{i}", "cabling.yaml", LINK, _link(key, value), f"links[gpu01:enp24s0np0].{key}",
                       key)
    for i, value in enumerate(["gpu01", "'gpu01:'", "'a b:c'"]):
        yield Edit(f"link-a-{i}", "cabling.yaml", LINK, _link("a", value), f"links[{value.strip(chr(39))}].a", "a")
    yield Edit("link-unknown-device", "cabling.yaml", LINK, _link("b", "leaf9:Ethernet0"),
               "links[gpu01:enp24s0np0].b", "b")
    yield Edit("link-unknown-port", "cabling.yaml", LINK, _link("b", "leaf1:Ethernet9999"),
               "links[gpu01:enp24s0np0].b", "b")
    yield Edit("link-unknown-nic", "cabling.yaml", LINK, _link("a", "gpu01:eth7"), "links[gpu01:eth7].a", "a")
    yield Edit("link-unknown-key", "cabling.yaml", LINK, LINK[:-1] + ", colour: red}",
               "links[gpu01:enp24s0np0].colour", "colour")
    fabric = {
        "  name: lab": [("name", v) for v in ("''", "'has space'", "'x;y'")],
        "  switch_mtu: 9216": [("switch_mtu", v) for v in ("100000", "'x'", "1000")],
        "  host_mtu: 9000": [("host_mtu", v) for v in ("100", "'big'")],
        "    leaf_base: 4200100000": [("leaf_base", v) for v in ("0", "4294967295", "'x'")],
        "    host_p2p: 10.64.0.0/16": [("host_p2p", v) for v in ("10.64.0.1/16", "nonsense", "5")],
    }
    paths = {"name": "fabric.name", "switch_mtu": "fabric.switch_mtu", "host_mtu": "fabric.host_mtu",
             "leaf_base": "fabric.asn.leaf_base", "host_p2p": "fabric.addressing.host_p2p"}
    for old, edits in fabric.items():
        indent = old[: len(old) - len(old.lstrip())]
        for i, (key, value) in enumerate(edits):
            yield Edit(f"fabric-{key}-{i}", "fabric.yaml", old, f"{indent}{key}: {value}", paths[key], key)
    for i, value in enumerate(["0", "-1", "100", "'x'"]):
        yield Edit(f"oversub-{i}", "fabric.yaml", "  oversubscription: {leaf: 1.0, spine: 1.0}",
                   f"  oversubscription: {{leaf: {value}, spine: 1.0}}", "fabric.oversubscription.leaf", "leaf")
    yield Edit("fabric-unknown-key", "fabric.yaml", "  host_mtu: 9000", "  host_mtu: 9000\n  colour: red",
               "fabric.colour", "colour")
    # QoS policy contradictions are findings: exit 1, each naming the line of the qos section it is about
    qos = "\nqos:\n"
    yield Edit("qos-pfc-lossy", "fabric.yaml", "  failure: {one_spine_down: 2.0}",
               "  failure: {one_spine_down: 2.0}" + qos + "  pfc_priorities: [3, 4]", "FG-QOS-012", "pfc_priorities",
               code=1)
    yield Edit("qos-unknown-key", "fabric.yaml", "  failure: {one_spine_down: 2.0}",
               "  failure: {one_spine_down: 2.0}" + qos + "  colour: red", "qos.colour", "colour")
    yield Edit("qos-bad-dscp", "fabric.yaml", "  failure: {one_spine_down: 2.0}",
               "  failure: {one_spine_down: 2.0}" + qos + "  lanes:\n"
               "    - {name: roce, purpose: training, dscp: [64], tc: 3, lossless: true, weight: 50}\n"
               "    - {name: default, purpose: default, tc: 0, weight: 50}", "qos.lanes[roce].dscp", "dscp")
    yield Edit("qos-unknown-platform", "fabric.yaml", "  failure: {one_spine_down: 2.0}",
               "  failure: {one_spine_down: 2.0}" + qos + "  platforms: {windows: {trust: dscp}}", "qos.platforms",
               "platforms")


CASES = list(_cases())


def _materialize(tmp: Path, case: Edit) -> tuple[Path, Path, int, int]:
    inv = tmp / "inv"
    shutil.copytree(LAB, inv)
    target = inv / case.file
    text = target.read_text()
    assert case.old in text, case.old
    start = text.index(case.old)
    text = text.replace(case.old, case.new, 1)
    target.write_text(text)
    # the position: the line where the key of the edit landed (the edit may add lines), its column
    offset = start
    if case.key is not None:
        offset = text.index(f"{case.key}:", start) if f"{case.key}:" in text[start:] else start
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return inv, target, line, col


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, float]:
    t0 = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        main(argv)
    elapsed = time.perf_counter() - t0
    out, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    return code, out, err, elapsed


def test_corpus_is_large_enough() -> None:
    assert len(CASES) + len(RAW) + len(MISUSES) >= 100
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_broken_inventory(case: Edit, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv, target, line, col = _materialize(tmp_path, case)
    code, out, err, elapsed = _run(["validate", str(inv), "--no-summary"], capsys)
    assert "Traceback" not in out + err
    assert elapsed < SECONDS
    assert code == case.code, out + err
    where = f"{target}:{line}:{col}:"
    if case.code == 3:
        lines = err.splitlines()
        assert lines[-1].endswith("input problem(s); nothing was checked further")
        assert _names(lines[:-1], target, line, col, case.field), f"no line names {where} {case.field}:\n{err}"
    else:
        ours = [x for x in out.splitlines() if x.startswith(f"{where} error {case.field} ")]
        assert ours, f"no finding {case.field} at {where}:\n{out}"


def _names(lines: list[str], target: Path, line: int, col: int, field: str) -> bool:
    """A problem line names ``field`` at exactly ``line:col`` — or an element inside it (``rails[0]``), on the same
    line and to the right of the key."""
    prefix = f"{target}:{line}:"
    for x in lines:
        if not x.startswith(prefix):
            continue
        got_col, _, tail = x[len(prefix):].partition(": ")
        got_field = tail.split(": ", 1)[0]  # field paths hold ':' (links[gpu01:eth0]) but never ': '
        if got_field == field and int(got_col) == col:
            return True
        if got_field.startswith((f"{field}[", f"{field}.")) and int(got_col) > col:
            return True
    return False


@dataclass(frozen=True)
class Raw:
    """A YAML-level problem: ``text`` appended to (or, with ``replace``, replacing) ``file``; the message must
    point at ``line`` of that file and say ``says``."""

    id: str
    file: str
    text: str
    line: int
    says: str
    replace: bool = False
    also_next: bool = False  # the line after ``line`` is accepted too


RAW = [
    Raw("duplicate-key", "fabric.yaml", "fabric:\n  name: lab\n  name: lab2\n", 3, "duplicate key", replace=True),
    # where the flow starts, or where the parser finds it unclosed (the end of the file)
    Raw("unclosed-flow", "devices.yaml", "  - {name: gpu09, model: dgx-h100, unit: 1\n", 0, "YAML syntax error",
        also_next=True),
    Raw("python-tag", "fabric.yaml", "extra: !!python/object:os.system [echo]\n", 0, "YAML tag"),
    Raw("custom-tag", "fabric.yaml", "extra: !include other.yaml\n", 0, "YAML tag"),
    Raw("tab-indent", "fabric.yaml", "fabric:\n\tname: lab\n", 2, "YAML syntax error", replace=True),
    Raw("empty-file", "fabric.yaml", "", 1, "file is empty", replace=True),
    Raw("top-level-list", "fabric.yaml", "- fabric\n", 1, "must be a mapping", replace=True),
    Raw("recursive-anchor", "fabric.yaml", "loop: &a [*a]\n", 0, "refers to the node its anchor is on"),
]


@pytest.mark.parametrize("case", RAW, ids=[r.id for r in RAW])
def test_broken_yaml(case: Raw, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = tmp_path / "inv"
    shutil.copytree(LAB, inv)
    target = inv / case.file
    before = target.read_text()
    target.write_text(case.text if case.replace else before + case.text)
    line = case.line or before.count("\n") + 1  # 0: the first appended line
    code, out, err, elapsed = _run(["validate", str(inv)], capsys)
    assert "Traceback" not in out + err
    assert elapsed < SECONDS
    assert code == 3
    accepted = (f"{target}:{line}:", f"{target}:{line + 1}:") if case.also_next else (f"{target}:{line}:",)
    ours = [x for x in err.splitlines() if x.startswith(accepted)]
    assert ours and case.says in ours[0], err


# --------------------------------------------------------------------------- CLI misuses


@dataclass(frozen=True)
class Misuse:
    id: str
    argv: list[str]
    code: int
    says: str  # a substring of stderr


INV = str(LAB)
MISUSES = [
    Misuse("no-command", ["frobnicate"], 3, "No such command 'frobnicate'"),
    Misuse("unknown-option", ["validate", INV, "--colour"], 3, "No such option '--colour'"),
    Misuse("missing-argument", ["validate"], 3, "Missing argument 'INVENTORY'"),
    Misuse("missing-path", ["validate", "/nonexistent/inv"], 3, "/nonexistent/inv: no such file or directory"),
    Misuse("bad-format", ["validate", INV, "--format", "xml"], 3, "Invalid value for '--format'"),
    Misuse("render-unknown-platform", ["render", INV, "-o", "{tmp}/o", "--platform", "ios"], 3,
           "Invalid value for '--platform': 'ios' is not one of"),
    Misuse("render-unknown-device", ["render", INV, "-o", "{tmp}/o", "--device", "leaf9"], 3,
           "unknown switch(es): leaf9"),
    Misuse("render-no-output", ["render", INV], 3, "Missing option '-o'"),
    Misuse("render-allow-bad-code", ["render", INV, "-o", "{tmp}/o", "--allow-findings", "all"], 3,
           "not a finding code: ALL"),
    Misuse("render-into-missing-parent-of-file", ["render", INV, "-o", "{tmp}/f/o"], 3, "cannot write {tmp}/f"),
    Misuse("plan-out-missing-dir", ["plan", "--base", INV, INV, "-o", "{tmp}/nodir/plan.json"], 3,
           "cannot write {tmp}/nodir/plan.json: No such file or directory"),
    Misuse("diagram-out-missing-dir", ["diagram", INV, "-o", "{tmp}/nodir/x.svg"], 3,
           "cannot write {tmp}/nodir/x.svg: No such file or directory"),
    Misuse("hosts-onto-file", ["hosts", INV, "-o", "{tmp}/f"], 3, "is a file"),
    Misuse("scaling-nan", ["scaling", INV, "--nic-efficiency", "nan"], 3, "'nan' is not a fraction in (0, 1]"),
    Misuse("scaling-inf", ["scaling", INV, "--nvlink-efficiency", "inf"], 3, "'inf' is not a fraction in (0, 1]"),
    Misuse("scaling-unknown-collective", ["scaling", INV, "--collective", "broadcast"], 3,
           "Invalid value for '--collective'"),
    Misuse("explain-unknown-port", ["explain", INV, "leaf1:Ethernet999"], 3, "leaf1:Ethernet999"),
    Misuse("explain-unknown-device", ["explain", INV, "leaf9:Ethernet0"], 3, "leaf9"),
    Misuse("apply-bad-wave", ["apply", INV, "--wave-size", "0"], 3, "Invalid value for '--wave-size'"),
    Misuse("apply-bad-revert", ["apply", INV, "--revert-in", "-1"], 3, "Invalid value for '--revert-in'"),
    Misuse("nccl-missing-log", ["nccl", "analyze", INV, "/nonexistent/log"], 3, "/nonexistent/log"),
]


@pytest.mark.parametrize("case", MISUSES, ids=[m.id for m in MISUSES])
def test_cli_misuse(case: Misuse, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in case.argv]
    code, out, err, elapsed = _run(argv, capsys)
    assert "Traceback" not in out + err
    assert elapsed < SECONDS
    assert code == case.code, err
    assert case.says.replace("{tmp}", str(tmp_path)) in err


# --------------------------------------------------------------------------- hostile input under real limits

HOSTILE = {
    "alias-bomb.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))
    + "fabric: {name: x}\n",
    "deep.yaml": "fabric: " + "[" * 5000 + "]" * 5000 + "\n",
    "intent-bomb.yaml": """\
fabric: {name: bomb}
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 1024
    units: 4096
    leaf: {model: sn5600}
    spine: {model: sn5600}
""",
}


def test_hostile_inputs_stay_within_memory_and_time(tmp_path: Path) -> None:
    """Each hostile file in a fresh process limited to 1 GiB of address space and 20 s: exit 3, one line."""
    results = {}
    for name, text in HOSTILE.items():
        f = tmp_path / name
        f.write_text(text)

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "fabricgen", "validate", str(f), "--format", "json"],
                              capture_output=True, text=True, timeout=20, preexec_fn=limit, cwd=ROOT,
                              env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        results[name] = (proc.returncode, time.perf_counter() - t0)
        assert proc.returncode == 3, (name, proc.stderr)
        assert "Traceback" not in proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["ok"] is False and doc["input_problems"], name
        assert all(p["file"] == str(f) and p["line"] for p in doc["input_problems"]), doc
    assert all(seconds < 20 for _, seconds in results.values())
