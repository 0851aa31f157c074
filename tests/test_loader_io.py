"""Input that cannot be read, and where problems point: every case is an input error (exit 3), one line each.

Unreadable files are tested as an unprivileged user (uid 65534 through ``setpriv``): the tests run as
root, for whom a file of mode 000 is still readable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricgen.cli import main
from tests.conftest import INVENTORIES

LAB = INVENTORIES / "lab"
NOBODY = 65534


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    with pytest.raises(SystemExit) as info:
        main(["validate", "--no-summary", *args])
    _, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    return code, err.splitlines()


def lab_copy(tmp_path: Path) -> Path:
    inv = tmp_path / "inv"
    shutil.copytree(LAB, inv)
    return inv


# ------------------------------------------------------------------ paths that are not inventories


def test_empty_path_is_a_usage_error_not_the_current_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "") == (
        3,
        [
            "<inventory>: the inventory path is empty; give a YAML file or a directory",
            "1 input problem(s); nothing was checked further",
        ],
    )


def test_dangling_symlink_in_a_directory_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = lab_copy(tmp_path)
    (inv / "cabling.yaml").unlink()
    (inv / "cabling.yaml").symlink_to(tmp_path / "moved-away.yaml")
    code, lines = run(capsys, str(inv))
    assert (code, lines[0]) == (
        3,
        f"<inventory>: {inv / 'cabling.yaml'}: dangling symbolic link (to {tmp_path / 'moved-away.yaml'})",
    )
    assert len(lines) == 2


def test_symlink_loop_in_a_directory_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = lab_copy(tmp_path)
    (inv / "a.yaml").symlink_to(inv / "b.yaml")
    (inv / "b.yaml").symlink_to(inv / "a.yaml")
    code, lines = run(capsys, str(inv))
    assert code == 3
    assert lines == [
        f"<inventory>: {inv / 'a.yaml'}: symbolic link loop",
        f"<inventory>: {inv / 'b.yaml'}: symbolic link loop",
        "2 input problem(s); nothing was checked further",
    ]


def test_a_path_that_is_neither_file_nor_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "inventory.yaml"
    os.mkfifo(fifo)
    assert run(capsys, str(fifo)) == (
        3,
        [f"<inventory>: {fifo}: neither a file nor a directory", "1 input problem(s); nothing was checked further"],
    )


def test_a_fifo_inside_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = lab_copy(tmp_path)
    os.mkfifo(inv / "more.yaml")
    code, lines = run(capsys, str(inv))
    assert (code, lines[0]) == (3, f"<inventory>: {inv / 'more.yaml'}: not a regular file")


# ------------------------------------------------------------------ permissions, as an unprivileged user


@pytest.fixture
def world_dir() -> Iterator[Path]:
    """A directory the unprivileged user can reach (pytest's tmp_path is private to root)."""
    d = Path(tempfile.mkdtemp(prefix="fabricgen-perm-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        for p in d.rglob("*"):
            if not p.is_symlink():
                p.chmod(0o755)
        shutil.rmtree(d)


def as_nobody(*args: str) -> tuple[int, list[str]]:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run as another user")
    done = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, "-m", "fabricgen", "validate", "--no-summary", *args],
        capture_output=True, text=True, timeout=120, cwd="/", check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    return done.returncode, done.stderr.splitlines()


def test_unreadable_file_in_a_directory(world_dir: Path) -> None:
    inv = world_dir / "inv"
    shutil.copytree(LAB, inv)
    for p in [inv, *inv.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    (inv / "cabling.yaml").chmod(0o000)
    assert as_nobody(str(inv)) == (
        3,
        [
            f"{inv / 'cabling.yaml'}:1:1: cannot read the file: Permission denied",
            "1 input problem(s); nothing was checked further",
        ],
    )


def test_plan_reports_an_unreadable_inventory_file_as_input(world_dir: Path) -> None:
    """`plan` digests the inventory files before loading them: an unreadable one is an input error there too."""
    inv = world_dir / "inv"
    shutil.copytree(LAB, inv)
    for p in [inv, *inv.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    (inv / "cabling.yaml").chmod(0o000)
    done = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, "-m", "fabricgen", "plan", "--base", str(LAB), str(inv)],
        capture_output=True, text=True, timeout=120, cwd="/", check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
    ) if os.geteuid() == 0 and shutil.which("setpriv") else pytest.skip("needs root and setpriv")
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[0] == f"{inv / 'cabling.yaml'}:1:1: cannot read the file: Permission denied"


def test_unlistable_directory_inside_an_inventory(world_dir: Path) -> None:
    inv = world_dir / "inv"
    shutil.copytree(LAB, inv)
    for p in [inv, *inv.iterdir()]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    (inv / "extra").mkdir(mode=0o000)
    (inv / "extra").chmod(0o000)
    assert as_nobody(str(inv)) == (
        3,
        [
            f"<inventory>: {inv / 'extra'}: cannot list the directory: Permission denied",
            "1 input problem(s); nothing was checked further",
        ],
    )


# ------------------------------------------------------------------ positions and field paths


def test_nul_byte_is_reported_where_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "nul.yaml"
    f.write_text("fabric:\n  name: lab\n  host_mtu: 90\x0000\n")
    assert run(capsys, str(f)) == (
        3,
        [
            f"{f}:3:15: YAML error: unacceptable character #x0000: special characters are not allowed",
            "1 input problem(s); nothing was checked further",
        ],
    )


def test_huge_integer_is_reported_where_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "int.yaml"
    f.write_text("fabric:\n  name: lab\n  host_mtu: " + "9" * 5000 + "\n")
    code, lines = run(capsys, str(f))
    assert (code, lines[0]) == (
        3,
        f"{f}:3:13: YAML error: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits;"
        " use sys.set_int_max_str_digits() to increase the limit",
    )


def test_invalid_scalar_is_reported_where_it_is_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "us.yaml"
    f.write_text("fabric:\n  name: lab\n  host_mtu: -_\n")
    assert run(capsys, str(f)) == (
        3,
        [f"{f}:3:13: YAML error: string index out of range", "1 input problem(s); nothing was checked further"],
    )


def test_keys_that_are_not_strings_name_their_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "keys.yaml"
    f.write_text("fabric:\n  name: lab\n  ~: 1\n  [a, b]: 2\n  true: 3\n")
    assert run(capsys, str(f)) == (
        3,
        [
            f"{f}:3:3: fabric: mapping keys must be strings (got None)",
            f"{f}:4:3: fabric: mapping keys must be strings (got a sequence)",
            f"{f}:5:3: fabric: mapping keys must be strings (got True)",
            "3 input problem(s); nothing was checked further",
        ],
    )


def test_field_paths_of_mapping_keys_and_named_catalog_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "paths.yaml"
    f.write_text(
        "fabric: {name: lab}\n"
        "qos:\n"
        "  platforms:\n"
        "    nvue: {trust: pcpx}\n"
        "  roles:\n"
        "    hostx: {}\n"
        "catalog:\n"
        "  servers:\n"
        "    s1: {vendor: x, gpu: h, gpus: 1, nvlink_domain: 1, nvlink_gbytes_per_s: 1, backend_nic: x,\n"
        "         backend: [{ifname: a, rdma_dev: b, gpu: 3, numa: 0, pcie: '0000:00:00.0'}]}\n"
        "  switches:\n"
        "    sn9999: {vendor: x}\n"
    )
    code, lines = run(capsys, str(f))
    assert code == 3
    assert lines[:4] == [
        f"{f}:4:12: qos.platforms[nvue].trust: Input should be 'dscp' or 'pcp' (got 'pcpx')",
        f"{f}:6:5: qos.roles.hostx: Input should be 'host' or 'fabric' (got 'hostx')",
        f"{f}:9:5: catalog.servers[s1]: NIC a serves GPU 3, but the server has 1",
        f"{f}:12:5: catalog.switches[sn9999].asic: required field is missing",
    ]
    assert not any("[key]" in line or ".None" in line or "('" in line for line in lines)


def test_a_file_above_the_byte_cap_is_refused_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import fabricgen.inventory.load as load

    monkeypatch.setattr(load, "MAX_FILE_BYTES", 1000)
    f = tmp_path / "big.yaml"
    f.write_text("fabric: {name: lab}\nitems: [" + "1, " * 400 + "2]\n")
    assert run(capsys, str(f)) == (
        3,
        [
            f"{f}:1:1: file is {f.stat().st_size} bytes, above the 1000-byte limit",
            "1 input problem(s); nothing was checked further",
        ],
    )


def test_byte_cap_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "x.yaml"
    f.write_text("fabric: {name: lab}\n" + "# padding\n" * 20)
    monkeypatch.setenv("FABRICGEN_MAX_YAML_BYTES", "100")
    assert run(capsys, str(f))[1][0] == f"{f}:1:1: file is {f.stat().st_size} bytes, above the 100-byte limit"
    monkeypatch.setenv("FABRICGEN_MAX_YAML_BYTES", "16M")
    assert run(capsys, str(f)) == (
        3,
        [
            "<inventory>: FABRICGEN_MAX_YAML_BYTES must be a whole number of bytes (got '16M')",
            "1 input problem(s); nothing was checked further",
        ],
    )
