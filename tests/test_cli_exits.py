"""Exit codes a pipeline can script on, output paths that cannot be written, the size budget of a fabric, and
`render`/`apply` acting on error findings."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from fabricgen.cli import EXIT_INTERNAL, main
from tests.conftest import INVENTORIES

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parent.parent
BROKEN = DATA / "checks" / "FG-CAP-005.yaml"  # resolves, with one error finding


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    assert "Traceback" not in out + err
    return code, out, err


def cli(*args: str, stdout: int | None = subprocess.PIPE, user: int | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "fabricgen", *args]
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
    return subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, **(env or {})})


# --------------------------------------------------------------------------- exit codes


@pytest.mark.parametrize(("inventory", "expected"), [(INVENTORIES / "lab", 0), (BROKEN, 1)])
def test_a_closed_stdout_is_not_an_error(inventory: Path, expected: int) -> None:
    """`fabricgen validate … | head -1`: the reader is gone before fabricgen writes; the exit code is the result's."""
    r, w = os.pipe()
    os.close(r)
    try:
        proc = cli("validate", str(inventory), "--format", "json", stdout=w)
    finally:
        os.close(w)
    assert proc.returncode == expected
    assert proc.stderr == ""


def test_internal_error_has_its_own_exit_code(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import fabricgen.report.summary as summary

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(summary, "summarize", broken)
    monkeypatch.delenv("FABRICGEN_DEBUG", raising=False)
    code, _, err = run(capsys, "validate", str(INVENTORIES / "lab"))
    assert code == EXIT_INTERNAL == 4
    assert err.strip() == "fabricgen: internal error: RuntimeError: boom (set FABRICGEN_DEBUG=1 for the traceback)"


@pytest.mark.parametrize("value", ["nan", "inf", "-0.5", "0", "1.5", "x"])
def test_efficiency_must_be_a_finite_fraction(capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, _, err = run(capsys, "scaling", str(INVENTORIES / "su1"), "--nic-efficiency", value)
    assert code == 3
    assert "Invalid value for '--nic-efficiency'" in err


# --------------------------------------------------------------------------- output paths


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, err
    return lines[0]


def test_render_onto_a_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "afile"
    target.write_text("")
    code, _, err = run(capsys, "render", str(INVENTORIES / "lab"), "-o", str(target))
    assert code == 3
    assert _one_error_line(err) == f"Error: Invalid value for '-o' / '--output': Directory '{target}' is a file."


def test_render_where_a_switch_folder_is_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "leaf1").write_text("")
    code, _, err = run(capsys, "render", str(INVENTORIES / "lab"), "-o", str(tmp_path))
    assert code == 3
    assert _one_error_line(err) == f"Error: cannot write {tmp_path / 'leaf1'}: File exists"


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("plan", ["--base", str(INVENTORIES / "expansion" / "before"), str(INVENTORIES / "expansion" / "after"),
                  "-o", "{missing}/plan.json"]),
        ("diagram", [str(INVENTORIES / "lab"), "-o", "{missing}/x.svg"]),
    ],
)
def test_output_into_a_missing_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str,
                                         args: list[str]) -> None:
    missing = tmp_path / "nodir"
    argv = [a.replace("{missing}", str(missing)) for a in args]
    code, _, err = run(capsys, command, *argv)
    assert code == 3
    name = "plan.json" if command == "plan" else "x.svg"
    assert _one_error_line(err) == f"Error: cannot write {missing / name}: No such file or directory"
    assert not missing.exists()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run as an unprivileged user (root writes anywhere)")
@pytest.mark.parametrize("command", ["render", "hosts"])
def test_output_into_a_read_only_directory(command: str) -> None:
    top = Path(tempfile.mkdtemp(prefix="fg-ro-", dir="/tmp"))  # readable by the unprivileged user, unlike tmp_path
    try:
        top.chmod(0o755)
        ro = top / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        inventory = top / "lab"
        shutil.copytree(INVENTORIES / "lab", inventory)
        proc = cli(command, str(inventory), "-o", str(ro / "out"), user=65534, env={"HOME": str(top)})
        assert proc.returncode == 3, proc.stderr
        assert _one_error_line(proc.stderr) == f"Error: cannot write {ro / 'out'}: Permission denied"
        assert "Traceback" not in proc.stderr
    finally:
        shutil.rmtree(top)


# --------------------------------------------------------------------------- budgets


BOMB = """\
fabric: {name: bomb}
catalog:
  switches:
    huge:
      vendor: x
      asic: y
      ports: 1024
      native_speed: 12800G
      lanes: 16
      breakouts: [1x12800G, 16x800G, 16x400G]
      platform: sonic
      buffer: {total_bytes: 100000000, cell_bytes: 256, pipeline_latency_bytes: 19456}
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 1024
    units: 4096
    leaf: {model: huge, uplink_speed: 800G}
    spine: {model: huge, count: 16}
    core: {model: huge}
    spine_uplink_speed: 800G
"""


def test_an_intent_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    f = tmp_path / "bomb.yaml"
    f.write_text(BOMB)
    proc = cli("validate", str(f))  # a subprocess: its memory and time are the real ones
    assert proc.returncode == 3
    assert proc.stderr.splitlines()[0] == (
        f"{f}:17:5: intent.rail_optimized.units: this fabric would have 33,554,432 GPUs: 35,840 switches, "
        "4,194,304 servers and 67,108,864 links = 71,339,008 objects, above the limit of 600,000 "
        "(set FABRICGEN_MAX_OBJECTS to raise it)"
    )


def test_the_object_cap_is_set_by_the_environment(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRICGEN_MAX_OBJECTS", "432")
    code, _, err = run(capsys, "validate", str(INVENTORIES / "su1"))
    assert (code, err) == (0, "")
    monkeypatch.setenv("FABRICGEN_MAX_OBJECTS", "431")
    code, _, err = run(capsys, "validate", str(INVENTORIES / "su1"))
    assert code == 3
    # su1: 8 leaves + 8 spines, 32 servers, 8 × 16 uplinks + 32 × 8 host links
    assert err.splitlines()[0].endswith(
        "intent.rail_optimized.units: this fabric would have 256 GPUs: 16 switches, 32 servers and 384 links "
        "= 432 objects, above the limit of 431 (set FABRICGEN_MAX_OBJECTS to raise it)")


def test_an_explicit_inventory_counts_against_the_cap(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRICGEN_MAX_OBJECTS", "40")
    code, _, err = run(capsys, "validate", str(INVENTORIES / "lab"))
    assert code == 3
    assert "this fabric would have 6 switches, 4 servers and 48 links = 58 objects, above the limit of 40" in err


def test_unknown_core_model_is_reported_even_when_two_tiers_suffice(capsys: pytest.CaptureFixture[str],
                                                                      tmp_path: Path) -> None:
    f = tmp_path / "su.yaml"
    f.write_text((INVENTORIES / "su1" / "fabric.yaml").read_text() + "    core: {model: sn9999}\n")
    code, _, err = run(capsys, "validate", str(f))
    assert code == 3
    line = (INVENTORIES / "su1" / "fabric.yaml").read_text().count("\n") + 1
    assert err.splitlines()[0] == f"{f}:{line}:12: intent.rail_optimized.core.model: unknown core model 'sn9999'"


# --------------------------------------------------------------------------- render and apply act on findings


def test_render_writes_the_files_and_exits_1_on_error_findings(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    code, out, err = run(capsys, "render", str(BROKEN), "-o", str(tmp_path / "out"))
    assert code == 1
    assert out.startswith("rendered ")
    assert (tmp_path / "out" / "leaf1").is_dir()
    assert err.strip() == (
        f"render: 2 error findings (FG-CAP-002, FG-CAP-005): the files were written, but `fabricgen validate "
        f"{BROKEN}` rejects this fabric"
    )
    code, _, err = run(capsys, "render", str(BROKEN), "-o", str(tmp_path / "out"), "--allow-findings", "FG-CAP-005")
    assert code == 1
    assert err.splitlines()[0] == "render: 1 error finding (FG-CAP-005) allowed by --allow-findings"
    code, _, err = run(capsys, "render", str(BROKEN), "-o", str(tmp_path / "out"),
                       "--allow-findings", "fg-cap-005,FG-CAP-002")
    assert code == 0
    assert err.strip() == "render: 2 error findings (FG-CAP-002, FG-CAP-005) allowed by --allow-findings"


def test_allow_findings_takes_only_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "render", str(BROKEN), "-o", str(tmp_path), "--allow-findings", "all")
    assert code == 3
    assert "not a finding code: ALL (codes look like FG-CAP-001)" in err


def test_apply_refuses_a_fabric_with_error_findings_before_contacting_any_device(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fabricgen.deploy.apply as deploy_apply

    def must_not_run(*_: object, **__: object) -> None:
        raise AssertionError("apply contacted devices")

    monkeypatch.setattr(deploy_apply, "apply", must_not_run)
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("".join(f"{n}: 127.0.0.1:9\n" for n in ("leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2")))
    monkeypatch.setenv("FABRICGEN_USERNAME", "admin")
    monkeypatch.setenv("FABRICGEN_PASSWORD", "not-used")
    monkeypatch.setenv("FABRICGEN_STATE_DIR", str(tmp_path / "state"))
    code, _, err = run(capsys, "apply", str(BROKEN), "--hosts", str(hosts), "--no-lab")
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[-1] == ("apply refused: 2 error findings (FG-CAP-002, FG-CAP-005); fix them, or name each rule "
                         "with --allow-findings")
    assert [line.split(" error ")[1].split(":")[0] for line in lines[:-1]] == [
        "FG-CAP-002 leaf tier", "FG-CAP-005 leaf4"]


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("{host: 127.0.0.1, port: []}", "port: expected a number 1-65535, got []"),
        ("{host: 127.0.0.1, port: true}", "port: expected a number 1-65535, got True"),
        ("'127.0.0.1:ssh'", "expected host or host:port (port 1-65535), got '127.0.0.1:ssh'"),
        ("'127.0.0.1:0'", "expected host or host:port (port 1-65535), got '127.0.0.1:0'"),
        ("{host: 127.0.0.1, port: 70000}", "port: expected a number 1-65535, got 70000"),
        ("[127.0.0.1, 22]", "expected host, host:port or a mapping of host, port, transport, certificate, ca_file"),
        ("", "expected host, host:port or a mapping of host, port, transport, certificate, ca_file"),
        ("'a b'", "host: 'a b' is not a host name or address"),
        ("{host: 22}", "host: expected a string, got 22"),
    ],
)
def test_a_bad_hosts_entry_is_an_input_error_before_any_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, said: str
) -> None:
    """Each entry of a hosts file is checked before a device is contacted: one line naming the file and device."""
    from tests.fuzz import invoke

    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(f"leaf1: {entry}\n" + "".join(f"{n}: 127.0.0.1:1\n" for n in ("spine1", "spine2", "leaf2")))
    monkeypatch.setenv("FABRICGEN_USERNAME", "admin")
    monkeypatch.setenv("FABRICGEN_PASSWORD", "not-used")
    result = invoke(["drift", str(INVENTORIES / "lab"), "--hosts", str(hosts), "--no-lab", "--timeout", "1"])
    assert (result.code, result.out) == (3, "")
    assert result.err.splitlines() == [f"fabricgen: {hosts}: leaf1: {said}"]
    assert result.network.attempts == [] and result.network.outside == []


def test_a_hosts_file_with_a_yaml_syntax_error_names_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken hosts file is one line with the file, line and column of the syntax error, before any connection."""
    from tests.fuzz import invoke

    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("spine1: 127.0.0.1:1\nleaf1: {host: 127.0.0.1\nleaf2: 127.0.0.1:1\n")
    monkeypatch.setenv("FABRICGEN_USERNAME", "admin")
    monkeypatch.setenv("FABRICGEN_PASSWORD", "not-used")
    result = invoke(["drift", str(INVENTORIES / "lab"), "--hosts", str(hosts), "--no-lab", "--timeout", "1"])
    assert (result.code, result.out) == (3, "")
    [line] = result.err.splitlines()
    assert line.startswith(f"fabricgen: {hosts}:3:") and "YAML syntax error" in line, line
    assert result.network.attempts == []
