"""The CI examples install exactly what they test: fabricgen at a pinned commit, never a bare package name."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(EXAMPLES.glob("*.yml"))


def _commands(node: Any) -> list[str]:
    """Every shell command string in a CI file (GitHub `run:`, GitLab `script`/`before_script` items)."""
    out: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("run", "script", "before_script", "after_script"):
                out += [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]
            else:
                out += _commands(value)
    elif isinstance(node, list):
        for item in node:
            out += _commands(item)
    return out


def _pin(doc: Any) -> str:
    env = doc.get("env") or doc.get("variables")
    return str(env["FABRICGEN_PIN"])


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_install_is_the_pinned_commit(path: Path) -> None:
    doc = YAML(typ="safe").load(path.read_text())
    assert re.fullmatch(r"git\+https://\S+@[0-9a-f]{40}", _pin(doc))
    installs = [line.strip() for cmd in _commands(doc) for line in cmd.splitlines() if "pip install" in line]
    assert installs, "no install step"
    for line in installs:
        assert re.fullmatch(r'pip install (-q )?"fabricgen @ \$FABRICGEN_PIN"', line), line
    # each install is preceded, in the same job, by the guard that refuses a pin that is not a full commit
    joined = "\n".join(_commands(doc))
    assert joined.count("grep -Eq '@[0-9a-f]{40}$'") >= 1


@pytest.mark.parametrize(
    ("pin", "ok"),
    [("git+https://x/fabricgen@0123456789abcdef0123456789abcdef01234567", True),
     ("git+https://x/fabricgen@main", False), ("fabricgen", False), ("fabricgen==0.1.0", False)],
)
def test_the_guard_refuses_anything_but_a_full_commit(pin: str, ok: bool) -> None:
    guard = next(line.strip().removeprefix("- ") for line in (EXAMPLES / "gitlab-ci.yml").read_text().splitlines()
                 if "grep -Eq" in line)
    proc = subprocess.run(["sh", "-c", guard + "; echo passed"], env={"FABRICGEN_PIN": pin, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=10)
    assert ("passed" in proc.stdout) is ok
    assert (proc.returncode == 0) is ok
