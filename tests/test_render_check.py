"""`fabricgen render --check`: the vendor-schema oracles over what was written, per platform and release."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fabricgen.cli import main
from fabricgen.render import DeviceConfig, RenderedFile
from fabricgen.render import render_device as real_render_device
from fabricgen.render.check import ToCheck, check_files, nvue_releases, sonic_oracle
from tests.conftest import INVENTORIES, LAB_UNVALIDATED, SONIC_YANG, require

HOWTO = ("set FABRICGEN_SONIC_YANG_DIR to a directory of SONiC's YANG models "
         "(sonic-buildimage src/sonic-yang-models/yang-models)")


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
    """The lab validates against the shared models but for the tables they have no model for: those are named, on
    stdout and stderr, and the check does not pass (3: a check asked for that did not run in full)."""
    need_oracles()
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--check")
    gap = f"no SONiC YANG model for table(s) {', '.join(LAB_UNVALIDATED)} in {SONIC_YANG}"
    assert code == 3
    assert out.splitlines()[1] == "check sonic 202411: libyang + SONiC YANG models (sonic-buildimage 086b03b): " \
                                  f"6 file(s) valid but for {len(LAB_UNVALIDATED)} table(s) not validated: {gap}"
    assert err.splitlines() == [f"render: --check did not validate every table for sonic 202411: {gap}; {HOWTO} "
                                "that has them"]
    code, out, _ = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--check", "--format", "json")
    doc = json.loads(out)
    (checked,) = doc["checks"]
    assert (code, doc["ok"], checked["ran"], checked["invalid"]) == (3, False, True, 0)
    assert checked["unvalidated"] == LAB_UNVALIDATED


def test_check_sonic_validates_every_table_of_a_fabric_without_base_config(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """multi-su moved to SONiC (Arista 7060X6, no platform facts, so no BREAKOUT_CFG) writes no table the shared
    models lack: every file validates in full and the run passes. su1's Spectrum switches write BREAKOUT_CFG, which
    the shared models have no module for: named, and not a pass."""
    need_oracles()
    code, out, err = run(capsys, str(INVENTORIES / "multi-su"), "-o", str(tmp_path / "m"), "--platform", "sonic",
                         "--check")
    assert (code, err) == (0, "")
    assert re.fullmatch(r"check sonic 202411: libyang \+ SONiC YANG models \(sonic-buildimage 086b03b\): "
                        r"\d+ file\(s\) valid", out.splitlines()[1])
    code, out, err = run(capsys, str(INVENTORIES / "su1"), "-o", str(tmp_path / "s"), "--platform", "sonic", "--check")
    assert code == 3
    assert out.splitlines()[1] == "check sonic 202411: libyang + SONiC YANG models (sonic-buildimage 086b03b): " \
                                  f"16 file(s) valid but for 1 table(s) not validated: no SONiC YANG model for " \
                                  f"table(s) BREAKOUT_CFG in {SONIC_YANG}"


def test_without_the_models_directory_the_check_says_how_and_does_not_pass(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """FABRICGEN_SONIC_YANG_DIR unset: one line says how to set it, and the run exits 3 (never a pass)."""
    require(sonic_oracle() is not None, "libyang binding not installed (pip install -e '.[yang]')")
    monkeypatch.delenv("FABRICGEN_SONIC_YANG_DIR")
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path), "--check")
    assert code == 3
    assert out.splitlines()[1] == (f"check sonic 202411: not run: FABRICGEN_SONIC_YANG_DIR is not set ({HOWTO}) "
                                   "(6 file(s) unchecked)")
    assert err.splitlines() == [f"render: --check did not run for sonic 202411 (6 file(s) unchecked): {HOWTO}"]
    assert "valid" not in out


@pytest.mark.parametrize("kind", ["empty", "missing", "file"])
def test_a_directory_without_sonic_models_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    require(sonic_oracle() is not None, "libyang binding not installed (pip install -e '.[yang]')")
    where = tmp_path / "models"
    if kind == "empty":
        where.mkdir()
    elif kind == "file":
        where.write_text("not a directory\n")
    monkeypatch.setenv("FABRICGEN_SONIC_YANG_DIR", str(where))
    code, out, err = run(capsys, str(INVENTORIES / "lab"), "-o", str(tmp_path / "out"), "--check")
    why = (f"FABRICGEN_SONIC_YANG_DIR={where} has no sonic-port.yang: not a directory of SONiC's YANG models"
           if kind == "empty" else f"FABRICGEN_SONIC_YANG_DIR={where} is not a directory")
    assert code == 3
    assert out.splitlines()[1] == f"check sonic 202411: not run: {why} ({HOWTO}) (6 file(s) unchecked)"
    assert err.splitlines() == [f"render: --check did not run for sonic 202411 (6 file(s) unchecked): {HOWTO}"]


def test_a_directory_whose_models_do_not_load_is_a_one_line_error(tmp_path: Path) -> None:
    """sonic-port.yang without the sonic-types it imports: libyang's refusal, on one line, and how to fix it."""
    require(sonic_oracle() is not None, "libyang binding not installed (pip install -e '.[yang]')")
    from fabricgen.render.check import sonic_unavailable

    (tmp_path / "sonic-port.yang").symlink_to(SONIC_YANG / "sonic-port.yang")
    assert sonic_oracle(tmp_path) is None
    found = sonic_unavailable(tmp_path)
    assert found is not None
    why, fix = found
    assert why.startswith(f"FABRICGEN_SONIC_YANG_DIR={tmp_path}: libyang cannot load its models: ")
    assert "sonic-types" in why and "\n" not in why
    assert fix == HOWTO


def test_a_directory_without_source_txt_is_cited_by_its_path(tmp_path: Path) -> None:
    """A sonic-buildimage checkout's yang-models directory has no SOURCE.txt: the finding cites the directory."""
    require(sonic_oracle() is not None, "libyang binding not installed (pip install -e '.[yang]')")
    from fabricgen.render.check import model_source

    copy = tmp_path / "yang-models"
    copy.mkdir()
    for f in SONIC_YANG.glob("*.yang"):
        (copy / f.name).symlink_to(f)
    assert model_source(copy) == str(copy)
    assert model_source(SONIC_YANG) == "sonic-buildimage 086b03b"
    loaded = sonic_oracle(copy)
    assert loaded is not None and loaded.source == str(copy)


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
    assert code == 3  # 1 for the invalid file, but tables of the lab are not validated (LAB_UNVALIDATED): 3
    assert "check sonic 202411: libyang + SONiC YANG models (sonic-buildimage 086b03b): 1 of 6 file(s) invalid " \
           f"but for {len(LAB_UNVALIDATED)} table(s) not validated" in out
    line, gap = err.splitlines()
    assert gap.startswith("render: --check did not validate every table for sonic 202411")
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
