"""The faster paths behave like the ones they replace: frozen dataclasses built by fast_init, the render
writer, the lazily imported commands."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.cli.render import _Writer
from fabricgen.topology.frozen import fast_init
from fabricgen.topology.model import HostNic, Link, Port, PortKind


@dataclasses.dataclass(frozen=True, slots=True)
class _Plain:
    name: str
    speed: int
    tags: tuple[str, ...] = ()
    extra: list[int] = dataclasses.field(default_factory=list, hash=False)


@fast_init
@dataclasses.dataclass(frozen=True, slots=True)
class _Fast:
    name: str
    speed: int
    tags: tuple[str, ...] = ()
    extra: list[int] = dataclasses.field(default_factory=list, hash=False)


def _fields(obj: object) -> tuple[object, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


@given(st.text(max_size=8), st.integers(), st.lists(st.text(max_size=3), max_size=3).map(tuple),
       st.none() | st.lists(st.integers(), max_size=3))
def test_fast_init_builds_what_the_dataclass_init_builds(name: str, speed: int, tags: tuple[str, ...],
                                                         extra: list[int] | None) -> None:
    kwargs = {} if extra is None else {"extra": extra}
    plain, fast = _Plain(name, speed, tags, **kwargs), _Fast(name, speed, tags, **kwargs)
    assert _fields(fast) == _fields(plain)
    assert _fields(_Fast(speed=speed, name=name)) == (name, speed, (), [])
    assert fast == _Fast(name, speed, tags, **kwargs) and hash(fast) == hash(_Fast(name, speed, tags, **kwargs))


def test_fast_init_keeps_instances_frozen_and_arguments_checked() -> None:
    fast = _Fast("leaf1", 400)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.speed = 800  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Fast("leaf1")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Fast("leaf1", 400, bogus=1)  # type: ignore[call-arg]
    assert _Fast("a", 1).extra is not _Fast("a", 1).extra  # a fresh default per instance
    assert dataclasses.replace(fast, speed=800) == _Fast("leaf1", 800)

    @dataclasses.dataclass
    class Loose:
        x: int

    with pytest.raises(TypeError, match="frozen=True, slots=True"):
        fast_init(Loose)  # not frozen with slots: refused, not half-applied


def test_the_fabric_model_uses_it() -> None:
    port = Port("leaf1", "swp1", 1, 0, 1, 400, PortKind.HOST, "gpu1", "eth0", 3, "10.0.0.0/31")
    assert Port.__init__.__code__.co_filename == "<string>"  # the fast one: stores through the slots
    assert (port.device, port.kind, port.link, port.address) == ("leaf1", PortKind.HOST, 3, "10.0.0.0/31")
    assert Link.__init__.__code__.co_filename == HostNic.__init__.__code__.co_filename == "<string>"
    with pytest.raises(dataclasses.FrozenInstanceError):
        port.name = "swp2"  # type: ignore[misc]


def test_writer_rewrites_only_what_changed(tmp_path: Path) -> None:
    writer = _Writer(tmp_path / "out")
    writer.write("leaf1/frr.conf", "hostname leaf1\n")
    writer.write("hosts/gpu1/nccl.env", "NCCL_IB_TC=106\n")
    conf = tmp_path / "out/leaf1/frr.conf"
    inode = conf.stat().st_ino
    os.utime(conf, ns=(1, 1))
    _Writer(tmp_path / "out").write("leaf1/frr.conf", "hostname leaf1\n")  # unchanged: untouched
    assert conf.stat().st_mtime_ns == 1 and conf.stat().st_ino == inode
    conf.write_text("hostname leaf1\nextra line\n")  # longer than what is rendered: cut back to it
    _Writer(tmp_path / "out").write("leaf1/frr.conf", "hostname leaf1\n")
    assert conf.read_bytes() == b"hostname leaf1\n"
    _Writer(tmp_path / "out").write("leaf1/frr.conf", "hostname leaf1 é\n")
    assert conf.read_text(encoding="utf-8") == "hostname leaf1 é\n"
    assert (tmp_path / "out/hosts/gpu1/nccl.env").read_text() == "NCCL_IB_TC=106\n"
    (tmp_path / "out/leaf2").write_text("a file where a directory should be")
    with pytest.raises(OSError):
        writer.write("leaf2/frr.conf", "hostname leaf2\n")


def test_render_loads_only_the_commands_it_runs(tmp_path: Path) -> None:
    code = ("import sys\nfrom fabricgen.cli import main\n"
            "try:\n    main(['validate', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith(('fabricgen.cli.', 'fabricgen.deploy', 'napalm'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    assert "fabricgen.cli.validate" in loaded
    for other in ("fabricgen.cli.apply", "fabricgen.cli.lab", "fabricgen.cli.nccl", "fabricgen.deploy", "napalm"):
        assert f"'{other}" not in loaded, loaded


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_background_work_runs_in_a_child_and_comes_back() -> None:
    out = _run(
        "import os\n"
        "from fabricgen.cli import background\n"
        "assert background.can_fork()\n"
        "collect = background.start(lambda: (os.getpid(), {'findings': [1, 2]}))\n"
        "pid, result = collect()\n"
        "print(pid != os.getpid(), result)\n"
        "try:\n"
        "    background.start(lambda: open('/nonexistent/dir/file', 'w'))()\n"
        "except OSError as exc:\n"
        "    print(exc.filename, exc.errno)\n"
        "def fails():\n"
        "    if os.getpid() != parent:\n"
        "        raise RuntimeError('only in the child')\n"
        "    return 'done here'\n"
        "parent = os.getpid()\n"
        "print(background.start(fails)())\n"
    )
    assert out.splitlines() == ["True {'findings': [1, 2]}", "/nonexistent/dir/file 2", "done here"]


def test_background_without_a_fork_runs_when_collected() -> None:
    from fabricgen.cli import background

    calls: list[int] = []
    collect = background.start(lambda: calls.append(1) or len(calls), fork=False)
    assert calls == []
    assert collect() == 1 and calls == [1]


def _render(inventory: Path, out: Path, threshold: int, *extra: str) -> str:
    code = ("import sys\nimport fabricgen.cli.render as r\nfrom fabricgen.cli import main\n"
            f"r.FORK_SWITCHES = {threshold}\n"
            "try:\n"
            f"    main(['render', {str(inventory)!r}, '-o', {str(out)!r}, *{list(extra)!r}])\n"
            "except SystemExit as exc:\n    print('exit', exc.code)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).replace(str(out), "OUT")


def test_render_reports_the_childs_findings_as_its_own(tmp_path: Path) -> None:
    broken = Path(__file__).resolve().parent / "data/checks/FG-CAP-005.yaml"  # two error findings
    forked = _render(broken, tmp_path / "a", 1)
    assert forked == _render(broken, tmp_path / "b", 10**9)
    assert "exit 1" in forked and "render: 2 error findings (FG-CAP-002, FG-CAP-005): the files were" in forked
    allowed = _render(broken, tmp_path / "c", 1, "--allow-findings", "FG-CAP-005")
    assert "exit 1" in allowed and "render: 1 error finding (FG-CAP-005) allowed by --allow-findings" in allowed
    assert "render: 1 error finding (FG-CAP-002): the files were" in allowed


def test_render_writes_the_same_with_and_without_the_child(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    outputs = {label: _render(root / "inventories/multi-su", tmp_path / label, threshold)
               for label, threshold in (("forked", 1), ("inline", 10**9))}
    assert outputs["forked"] == outputs["inline"]
    assert "exit 0" in outputs["forked"] and "host(s)" in outputs["forked"]
    files = sorted(p.relative_to(tmp_path / "inline") for p in (tmp_path / "inline").rglob("*") if p.is_file())
    assert any(str(f).startswith("hosts/") for f in files)
    assert files == sorted(p.relative_to(tmp_path / "forked") for p in (tmp_path / "forked").rglob("*") if p.is_file())
    for f in files:
        assert (tmp_path / "forked" / f).read_bytes() == (tmp_path / "inline" / f).read_bytes(), f
