"""`fabricgen render --check`: the vendor-schema oracles over what was written, per platform and release."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fabricgen.cli import main
from fabricgen.render import DeviceConfig, RenderedFile
from fabricgen.render import render_device as real_render_device
from fabricgen.render.check import ToCheck, check_files, nvue_releases, sonic_oracle
from tests.conftest import INVENTORIES, require


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(["render", *args])
    out, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    return code, out, err


def need_oracles() -> None:
    require(sonic_oracle() is not None, "libyang binding not installed (pip install -e '.[yang]')")
    require(bool(nvue_releases()), "nvueschema not installed (pip install -e '.[oracles]')")


def test_check_sonic_lab(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_oracles()
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--check")
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == "check sonic 202411: libyang + SONiC YANG models (sonic-buildimage 086b03b): " \
                                  "6 file(s) valid"


def test_check_nvue_names_the_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_oracles()
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--platform", "nvue", "--check")
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == "check nvue 5.14: nvueschema NVUE 5.14 OpenAPI models, strict: 6 file(s) valid"


def test_platform_without_oracle_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--platform", "eos", "--check")
    assert code == 0 and out.splitlines()[1] == "check eos: no schema oracle for this platform"


def _corrupting(device: str, name: str, edit: Any) -> Any:
    def render_device(fabric: Any, dev: str, qos: Any = None) -> DeviceConfig:
        cfg = real_render_device(fabric, dev, qos)
        if dev != device:
            return cfg
        files = tuple(RenderedFile(f.path, edit(f.content)) if f.path.endswith(name) else f for f in cfg.files)
        return DeviceConfig(cfg.device, cfg.platform, files, cfg.main)

    return render_device


def test_an_invalid_sonic_file_fails_with_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A config_db whose BUFFER_PG names an undefined profile (a dangling leafref) makes the run exit 1."""
    need_oracles()

    def dangle(text: str) -> str:
        db = json.loads(text)
        db["BUFFER_PG"]["Ethernet0|3"] = {"profile": "pg_lossless_missing_profile"}
        return json.dumps(db)

    monkeypatch.setattr("fabricgen.render.render_device", _corrupting("leaf2", "config_db.json", dangle))
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--check")
    assert code == 1
    assert "check sonic 202411: libyang + SONiC YANG models (sonic-buildimage 086b03b): 1 of 6 file(s) invalid" in out
    (line,) = err.splitlines()
    assert line.startswith(f"{tmp_path / 'leaf2' / 'config_db.json'}: ")
    assert "pg_lossless_missing_profile" in line


def test_an_invalid_nvue_file_fails_with_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    need_oracles()
    def ms(text: str) -> str:
        return text.replace("polling-interval: 100\n", "polling-interval: 100ms\n")

    bad = _corrupting("spine2", "startup.yaml", ms)
    monkeypatch.setattr("fabricgen.render.render_device", bad)
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--platform", "nvue", "--check")
    assert code == 1 and "1 of 6 file(s) invalid" in out
    assert err.splitlines() == [f"{tmp_path / 'spine2' / 'startup.yaml'}: qos.pfc-watchdog.polling-interval: "
                                'Input should be a valid integer (got "100ms")']


def test_missing_oracle_is_reported_not_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without nvueschema the check says so instead of calling the files valid."""
    monkeypatch.setattr("fabricgen.render.check.nvue_releases", lambda: ())
    monkeypatch.setattr("fabricgen.render.check.nvue_oracle", lambda release: None)
    (result,) = check_files([ToCheck("x/startup.yaml", "nvue", "5.14", "- set: {}\n")])
    assert not result.ran and result.files == 1 and result.problems == ()
    assert result.oracle == "not run: nvueschema is not installed (pip install 'fabricgen[oracles]')"


def test_an_unsupported_schema_release_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fabricgen.render.check.nvue_releases", lambda: ("5.14",))
    monkeypatch.setattr("fabricgen.render.check.nvue_oracle", lambda release: None)
    (result,) = check_files([ToCheck("x/startup.yaml", "nvue", "5.18", "- set: {}\n")])
    assert result.oracle == "not run: the installed nvueschema has no NVUE 5.18 schema"


def _without(tmp_path: Path, *modules: str) -> dict[str, str]:
    """An environment whose Python cannot import ``modules``: a package of that name first on the path, raising
    ImportError as an uninstalled one does (the code under test runs unchanged, in its own process)."""
    import os

    blocked = tmp_path / "blocked"
    for name in modules:
        (blocked / name).mkdir(parents=True)
        (blocked / name / "__init__.py").write_text(f"raise ImportError({f'No module named {name!r}'!r})\n")
    root = Path(__file__).resolve().parent.parent
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked), str(root)])}


@pytest.mark.parametrize(
    ("platform", "blocked", "said"),
    [
        ("sonic", "libyang", "check sonic 202411: not run: the libyang binding is not installed "
                             "(pip install 'fabricgen[yang]') (6 file(s) unchecked)"),
        ("nvue", "nvueschema", "check nvue 5.14: not run: nvueschema is not installed "
                               "(pip install 'fabricgen[oracles]') (6 file(s) unchecked)"),
    ],
)
def test_a_check_that_could_not_run_exits_3_naming_what_to_install(
    tmp_path: Path, platform: str, blocked: str, said: str
) -> None:
    """`render --check` in an environment without the oracle: the files are written, but the check that was asked
    for did not run, so the exit code is 3 (not 0) and stderr says what to install."""
    import subprocess
    import sys

    out_dir = tmp_path / "out"
    env = _without(tmp_path, blocked)
    proc = subprocess.run(
        [sys.executable, "-m", "fabricgen", "render", str(INVENTORIES / "lab"), "-o", str(out_dir),
         "--platform", platform, "--check"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert said in proc.stdout.splitlines()
    install = "pip install 'fabricgen[yang]'" if platform == "sonic" else "pip install 'fabricgen[oracles]'"
    assert proc.stderr.splitlines() == [
        f"render: --check did not run for {platform} {'202411' if platform == 'sonic' else '5.14'} "
        f"(6 file(s) unchecked): {install}"
    ]
    assert (out_dir / "leaf1").is_dir()  # the files are still written
    as_json = subprocess.run(
        [sys.executable, "-m", "fabricgen", "render", str(INVENTORIES / "lab"), "-o", str(out_dir),
         "--platform", platform, "--check", "--format", "json"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert as_json.returncode == 3
    doc = json.loads(as_json.stdout)
    assert (doc["ok"], doc["exit_code"], doc["check"]) == (False, 3, True)
    (checked,) = doc["checks"]
    assert (checked["platform"], checked["ran"], checked["files"], checked["install"]) == (platform, False, 6, install)
    assert said.startswith(f"check {platform} {checked['release']}: {checked['oracle']}")
