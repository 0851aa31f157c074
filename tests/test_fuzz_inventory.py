"""Fuzz: every command that reads an inventory, on mutated copies of the bundled inventories (explicit and intent).

One file of an inventory is mutated — a field replaced, deleted, doubled, an unknown key added (parsed and written
again), or its text changed (anchors, aliases, tags, duplicate keys, cuts, stray bytes) — and one command runs on the
result. The property (``tests/fuzz.py``): exit 0–3, no traceback, an input error names the inventory. Found cases
live in ``tests/data/fuzz/inventory/`` and are replayed first.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import check as check_run
from tests.fuzz import corpus, expand, file_text, fuzz_settings, invoke, write_files
from tests.fuzz_yaml import dump, mutated_text, mutated_tree

ROOT = Path(__file__).resolve().parent.parent
INVENTORIES = ROOT / "inventories"
BUNDLED = ("lab", "lab-frr", "su1", "multi-su", "expansion/after")
"""Explicit (lab: four files; lab-frr) and intent (su1, multi-su, expansion) inventories."""

PORTS = {"lab": "leaf1:Ethernet0", "lab-frr": "leaf1:swp1", "su1": "gpu-su001-n01:enp24s0np0",
         "multi-su": "gpu-su001-n01:enp24s0np0", "expansion/after": "leaf-su001-r0:swp1s0"}  # fmt: skip

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("validate", "{inv}"),
    ("validate", "{inv}", "--format", "json"),
    ("validate", "{inv}", "--format", "github"),
    ("render", "{inv}", "-o", "{out}/render"),
    ("render", "{inv}", "-o", "{out}/render", "--check", "--format", "json"),
    ("plan", "--base", "{base}", "{inv}"),
    ("plan", "--base", "{inv}", "{base}", "--format", "json"),
    ("explain", "{inv}", "{port}"),
    ("hosts", "{inv}", "-o", "{out}/hosts"),
    ("scaling", "{inv}", "--no-collisions"),
    ("paths", "{inv}", "--job", "16", "--seeds", "2"),
    ("diagram", "{inv}", "-o", "{out}/fabric.svg"),
    ("export", "nornir", "{inv}", "-o", "{out}/nornir"),
    ("export", "ansible", "{inv}", "-o", "{out}/ansible"),
    ("export", "containerlab", "{inv}", "-o", "{out}/clab"),
    ("export", "netbox", "{inv}", "--dry-run"),
)
"""Each command that reads an inventory, with the placeholders a case fills in."""


def _files(name: str) -> dict[str, str]:
    root = INVENTORIES / name
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(root.glob("*.yaml"))}


@pytest.fixture(autouse=True)
def _small_fabrics(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutated intent may ask for a huge fabric: the cap fabricgen honours keeps each run short."""
    monkeypatch.setenv("FABRICGEN_MAX_OBJECTS", "20000")


def run_case(case: dict[str, Any]) -> None:
    """Write a case's inventory, run its command, check the property."""
    with tempfile.TemporaryDirectory(prefix="fg-fuzz-") as tmp:
        files = Path(tmp) / "files"
        write_files(files, case["files"])
        argv = expand(case["argv"], files)
        # an input error names the inventory, or the option or DEVICE:PORT argument it is about
        names = [str(files)] + [a for a in argv if a.startswith("--") or (":" in a and not a.startswith("/"))]
        check_run(invoke(argv), names, case)


def _argv(command: tuple[str, ...], name: str) -> list[str]:
    subst = {"{inv}": "{files}/inventory", "{out}": "{files}/out", "{base}": f"{{inventories}}/{name}",
             "{port}": PORTS[name]}
    out = []
    for arg in command:
        for key, value in subst.items():
            arg = arg.replace(key, value)
        out.append(arg)
    return out


@fuzz_settings(scale=1.5)
@given(data=st.data())
def test_inventory_fields_mutated(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(BUNDLED), label="inventory")
    files = _files(name)
    target = data.draw(st.sampled_from(sorted(files)), label="file")
    tree = yaml.safe_load(files[target])
    files[target] = dump(data.draw(mutated_tree(tree), label="tree"))
    command = data.draw(st.sampled_from(COMMANDS), label="command")
    case = {"target": "inventory", "argv": _argv(command, name),
            "files": {f"inventory/{k}": v for k, v in files.items()}}  # fmt: skip
    run_case(case)


@fuzz_settings()
@given(data=st.data())
def test_inventory_text_mutated(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(BUNDLED), label="inventory")
    files = _files(name)
    target = data.draw(st.sampled_from(sorted(files)), label="file")
    raw = data.draw(mutated_text(files[target]), label="text")
    command = data.draw(st.sampled_from(COMMANDS[:5]), label="command")  # the loader is shared by every command
    texts = {f"inventory/{k}": v for k, v in files.items()}
    texts[f"inventory/{target}"] = file_text(raw)
    run_case({"target": "inventory", "argv": _argv(command, name), "files": texts})


@pytest.mark.parametrize("case", corpus("inventory"))
def test_inventory_corpus(case: dict[str, Any]) -> None:
    """Every inventory case found so far, replayed."""
    run_case(case)


@pytest.mark.parametrize("case", corpus("inventory") + corpus("nccl"))
def test_the_corpus_in_a_real_process(case: dict[str, Any]) -> None:
    """The stored cases that need no network, run as the console script runs (``python -m fabricgen``, a process of
    its own): the same exit code as in this process, and no traceback."""
    import os
    import subprocess
    import sys

    with tempfile.TemporaryDirectory(prefix="fg-fuzz-") as tmp:
        files = Path(tmp) / "files"
        write_files(files, case["files"])
        argv = expand(case["argv"], files)
        env = {k: v for k, v in os.environ.items() if k != "FABRICGEN_DEBUG"} | {"PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, "-m", "fabricgen", *argv], capture_output=True, text=True, timeout=120,
                              env=env, cwd=tmp)  # fmt: skip
        assert proc.returncode in (0, 1, 2, 3) and "Traceback" not in proc.stdout + proc.stderr, proc.stderr
        assert proc.returncode == invoke(argv).code
