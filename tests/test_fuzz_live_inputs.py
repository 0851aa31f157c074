"""Fuzz: what ``drift``, ``verify`` and ``apply`` read before they contact a device — hosts files, credentials files
and saved plans — mutated. Every device of a hosts file points at a loopback port nothing listens on, and the
network guard of ``tests/fuzz.py`` refuses anything else (no name is resolved, no packet leaves the machine).

The property: exit 0–3, no traceback; an input error (exit 3) names the file and comes before any connection.
Found cases live in ``tests/data/fuzz/live/`` and are replayed first."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import ROOT, check, corpus, expand, file_text, fuzz_settings, invoke, write_files
from tests.fuzz_yaml import dump, mutated_text, mutated_tree

SWITCHES = {
    "lab": ("spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"),
    "lab-frr": ("spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4"),
}
LIVE = ("--no-lab", "--hosts", "{files}/hosts.yaml", "--credentials", "{files}/credentials.yaml",
        "--known-hosts", "{files}/known_hosts", "--timeout", "1", "--workers", "6")  # fmt: skip
COMMANDS = (
    ("drift", "{inv}", *LIVE),
    ("drift", "{inv}", *LIVE, "--format", "junit"),
    ("verify", "{inv}", *LIVE, "--format", "json"),
    ("apply", "{inv}", *LIVE, "--dry-run", "--state-dir", "{files}/state"),
    ("export", "nornir", "{inv}", "--hosts", "{files}/hosts.yaml", "--dry-run"),  # reads the same hosts file
)
ENV = {"FABRICGEN_ADMIN_HASH": "$6$fuzzsalt$" + "a" * 86, "FABRICGEN_SNMP_RO": "fuzzcommunity"}


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secrets the lab's base configuration references, and no credentials from the environment."""
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    for name in ("FABRICGEN_USERNAME", "FABRICGEN_PASSWORD", "FABRICGEN_SSH_KEY", "FABRICGEN_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)


def hosts_file(switches: tuple[str, ...], port: int) -> dict[str, Any]:
    """Every switch at 127.0.0.1 on a port nothing listens on, in each form the hosts file takes."""
    forms: list[Any] = [f"127.0.0.1:{port}", {"host": "127.0.0.1", "port": port}]
    return {name: forms[i % 2] for i, name in enumerate(switches)}


CREDENTIALS = {"username": "fuzz", "password": "not-a-real-password"}


def run_case(case: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="fg-fuzz-") as tmp:
        files = Path(tmp) / "files"
        write_files(files, case["files"])
        for name, mode in case.get("modes", {}).items():
            os.chmod(files / name, int(mode, 8))
        argv = expand(case["argv"], files)
        check(invoke(argv), [str(files)], case, live=True, secrets=[CREDENTIALS["password"]])


def _case(command: tuple[str, ...], inventory: str, files: dict[str, str], modes: dict[str, str]) -> dict[str, Any]:
    argv = [a.replace("{inv}", f"{{inventories}}/{inventory}") for a in command]
    return {"target": "live", "argv": argv, "files": {"known_hosts": "", **files}, "modes": modes}


PORT = 9
"""Where every device is: the discard port, on which nothing listens here (a privileged port no test binds)."""


def _base_files(inventory: str) -> dict[str, str]:
    return {"hosts.yaml": dump(hosts_file(SWITCHES[inventory], PORT)),
            "credentials.yaml": dump(CREDENTIALS)}  # fmt: skip


def _mutate(data: st.DataObject, text: str, label: str) -> str:
    if data.draw(st.booleans(), label=f"{label}: text or tree"):
        return file_text(data.draw(mutated_text(text), label=label))
    tree = data.draw(mutated_tree(yaml.safe_load(text)), label=label)
    if data.draw(st.booleans(), label=f"{label}: as JSON"):
        try:
            return json.dumps(tree, ensure_ascii=False, allow_nan=True)
        except (TypeError, ValueError):
            pass
    return dump(tree)


@fuzz_settings()
@given(data=st.data())
def test_hosts_files_mutated(data: st.DataObject) -> None:
    inventory = data.draw(st.sampled_from(sorted(SWITCHES)), label="inventory")
    files = _base_files(inventory)
    files["hosts.yaml"] = _mutate(data, files["hosts.yaml"], "hosts")
    command = data.draw(st.sampled_from(COMMANDS), label="command")
    run_case(_case(command, inventory, files, {"credentials.yaml": "600"}))


@fuzz_settings()
@given(data=st.data())
def test_credentials_files_mutated(data: st.DataObject) -> None:
    inventory = data.draw(st.sampled_from(sorted(SWITCHES)), label="inventory")
    files = _base_files(inventory)
    files["credentials.yaml"] = _mutate(data, files["credentials.yaml"], "credentials")
    mode = data.draw(st.sampled_from(("600", "600", "400", "640", "644", "000")), label="mode")
    command = data.draw(st.sampled_from(COMMANDS), label="command")
    run_case(_case(command, inventory, files, {"credentials.yaml": mode}))


@functools.cache
def saved_plan() -> tuple[str, str]:
    """``plan -o plan.json`` of the lab against a copy of it with one cable longer (its leaf changes), and the
    directory of that copy; inputs named by absolute path, so the plan's check of its inputs passes anywhere."""
    root = Path(tempfile.mkdtemp(prefix="fg-fuzz-plan-"))
    atexit.register(shutil.rmtree, root, True)
    new = root / "lab"
    shutil.copytree(ROOT / "inventories" / "lab", new)
    cabling = (new / "cabling.yaml").read_text(encoding="utf-8")
    longer = cabling.replace("b: leaf1:Ethernet12, length_m: 3}", "b: leaf1:Ethernet12, length_m: 30}")
    assert longer != cabling
    (new / "cabling.yaml").write_text(longer, encoding="utf-8")
    out = root / "plan.json"
    run = invoke(["plan", "--base", str(ROOT / "inventories" / "lab"), str(new), "-o", str(out)])
    assert run.code == 0 and out.is_file(), run.output
    return out.read_text(encoding="utf-8"), str(new)


PLAN_COMMANDS = (
    ("diagram", "{new}", "--plan", "{files}/plan.json", "-o", "{files}/fabric.svg"),
    ("apply", "{files}/plan.json", *LIVE, "--dry-run", "--state-dir", "{files}/state"),
)


@fuzz_settings()
@given(data=st.data())
def test_saved_plans_mutated(data: st.DataObject) -> None:
    plan, new = saved_plan()
    if data.draw(st.booleans(), label="text or tree"):
        text = file_text(data.draw(mutated_text(plan), label="plan text"))
    else:
        try:
            text = json.dumps(data.draw(mutated_tree(json.loads(plan)), label="plan"), ensure_ascii=False)
        except (TypeError, ValueError):  # a key the tree strategies made that JSON cannot hold
            text = plan
    files = {"plan.json": text, "hosts.yaml": dump(hosts_file(SWITCHES["lab"], PORT)),
             "credentials.yaml": dump(CREDENTIALS)}  # fmt: skip
    command = [a.replace("{new}", new) for a in data.draw(st.sampled_from(PLAN_COMMANDS), label="command")]
    run_case({"target": "live", "argv": command, "files": {"known_hosts": "", **files},
              "modes": {"credentials.yaml": "600"}})  # fmt: skip


@pytest.mark.parametrize("case", corpus("live"))
def test_live_corpus(case: dict[str, Any]) -> None:
    """Every hosts, credentials and plan case found so far, replayed."""
    run_case(case)
