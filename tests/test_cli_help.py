"""Every command's --help carries an Examples: and an Environment: block, names only variables fabricgen reads,
and the shell completion offers the platforms."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from fabricgen.cli import all_commands, version_text
from fabricgen.cli.helptext import ENVIRONMENT, EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = "\n".join(p.read_text() for p in (ROOT / "fabricgen").rglob("*.py") if p.name != "helptext.py")


@pytest.mark.parametrize("name", sorted(all_commands()))
def test_every_command_has_examples_and_environment(name: str) -> None:
    command = all_commands()[name]
    help_text = command.get_help(click.Context(command, info_name=name))
    stripped = [line.strip() for line in help_text.splitlines()]
    assert "Examples:" in stripped and "Environment:" in stripped, help_text
    assert all(example.split()[0:2] in (["fabricgen", name], ["sudo", "fabricgen"]) for example in EXAMPLES[name])
    for variable in ENVIRONMENT[name]:
        assert variable in help_text


def test_documented_variables_are_read_by_fabricgen() -> None:
    documented = {v for env in ENVIRONMENT.values() for v in env}
    read = set(re.findall(r"FABRICGEN_[A-Z_]+", SOURCES))
    assert documented <= read, documented - read


def test_platform_option_completes(tmp_path: Path) -> None:
    env = {**os.environ, "_FABRICGEN_COMPLETE": "bash_complete", "COMP_WORDS": "fabricgen render x --platform ",
           "COMP_CWORD": "4"}
    out = subprocess.run([sys.executable, "-m", "fabricgen"], env=env, capture_output=True, text=True, timeout=60,
                         cwd=ROOT).stdout
    offered = {line.split(",", 1)[1] for line in out.splitlines() if line.startswith("plain,")}
    assert offered == {"eos", "frr", "junos", "nvue", "nxos", "sonic"}


def test_version_names_the_git_revision_of_a_checkout() -> None:
    text = version_text()
    assert text.startswith("fabricgen ")
    if (ROOT / ".git").exists():
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        assert f"(git {rev}" in text
