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
