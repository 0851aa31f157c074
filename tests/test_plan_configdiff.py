"""Per-device config diffs over the renderer's seam, with small hand-made DeviceConfig objects."""

from __future__ import annotations

from dataclasses import dataclass

from fabricgen.plan.configdiff import diff_configs, unified


@dataclass(frozen=True)
class File:
    path: str
    content: str


@dataclass(frozen=True)
class Config:
    device: str
    platform: str
    files: tuple[File, ...]
    main: str = ""


def cfg(device: str, **files: str) -> Config:
    return Config(device, "frr", tuple(File(f"{device}/{k}", v) for k, v in files.items()))


def test_changed_added_removed_files() -> None:
    old = {
        "s1": cfg("s1", frr="router bgp 1\n neighbor 10.0.0.1 remote-as 2\n", lldp="a\n"),
        "s2": cfg("s2", frr="x\n"),
    }
    new = {
        "s1": cfg(
            "s1", frr="router bgp 1\n neighbor 10.0.0.1 remote-as 2\n neighbor 10.0.0.3 remote-as 3\n", qos="q\n"
        ),
        "s2": cfg("s2", frr="x\n"),
        "s3": cfg("s3", frr="new\n"),
    }
    out = diff_configs(old, new)
    assert set(out) == {"s1", "s3"}  # s2 is identical
    s1 = out["s1"]
    assert s1.change == "changed"
    assert [(f.path, f.change, f.added, f.removed) for f in s1.files] == [
        ("s1/frr", "changed", 1, 0),
        ("s1/lldp", "removed", 0, 1),
        ("s1/qos", "added", 1, 0),
    ]
    assert "+ neighbor 10.0.0.3 remote-as 3" in s1.text
    assert s1.text.splitlines()[0] == "--- a/s1/frr"
    assert out["s3"].change == "added" and out["s3"].files[0].diff == ""  # a new device: counts only


def test_only_selected_devices() -> None:
    old = {"a": cfg("a", f="1\n"), "b": cfg("b", f="1\n")}
    new = {"a": cfg("a", f="2\n"), "b": cfg("b", f="2\n")}
    assert set(diff_configs(old, new, ["b"])) == {"b"}


def test_unified_counts() -> None:
    text, plus, minus = unified("a\nb\nc\n", "a\nc\nd\n", "x", "y")
    assert (plus, minus) == (1, 1)
    assert "-b\n" in text and "+d\n" in text
