"""Per-device configuration diffs: unified diffs of the rendered files of two fabrics.

The seam with the renderer is :func:`diff_configs`, which takes two ``{device: DeviceConfig}`` maps as
:func:`fabricgen.render.render_fabric` returns them (``DeviceConfig(device, platform, files, main)`` with
``files`` a tuple of ``RenderedFile(path, content)``). Only the attributes below are read, so any object
of that shape works (tests use small hand-made ones).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

FileChange = Literal["added", "removed", "changed"]


class RenderedFileLike(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def content(self) -> str: ...


class DeviceConfigLike(Protocol):
    @property
    def device(self) -> str: ...

    @property
    def platform(self) -> str: ...

    @property
    def files(self) -> Sequence[RenderedFileLike]: ...


@dataclass(frozen=True, slots=True)
class FileDiff:
    path: str
    change: FileChange
    added: int  # lines
    removed: int
    diff: str  # unified diff text ("" for an added or removed file when only counts are kept)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "change": self.change,
            "added": self.added,
            "removed": self.removed,
            "diff": self.diff,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FileDiff:
        return cls(d["path"], d["change"], int(d["added"]), int(d["removed"]), d["diff"])


@dataclass(frozen=True, slots=True)
class DeviceConfigDiff:
    device: str
    platform: str
    change: FileChange
    files: tuple[FileDiff, ...]
    source: Literal["rendered", "live"] = "rendered"  # what "before" is: the base's rendering or the device

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        return sum(f.removed for f in self.files)

    @property
    def text(self) -> str:
        return "".join(f.diff for f in self.files)

    def as_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "platform": self.platform,
            "change": self.change,
            "source": self.source,
            "added": self.added,
            "removed": self.removed,
            "files": [f.as_dict() for f in self.files],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DeviceConfigDiff:
        return cls(
            d["device"],
            d["platform"],
            d["change"],
            tuple(FileDiff.from_dict(f) for f in d["files"]),
            d.get("source", "rendered"),
        )


def unified(before: str, after: str, from_name: str, to_name: str, context: int = 3) -> tuple[str, int, int]:
    """Unified diff text and the numbers of lines added and removed.

    >>> text, plus, minus = unified("a\\nb\\n", "a\\nc\\n", "a/x", "b/x")
    >>> plus, minus, text.splitlines()[3:]
    (1, 1, [' a', '-b', '+c'])
    """
    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, from_name, to_name, n=context))
    plus = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
    minus = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
    text = "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in lines)
    return text, plus, minus


def diff_device(
    before: DeviceConfigLike | None, after: DeviceConfigLike | None, context: int = 3, whole_files: bool = False
) -> DeviceConfigDiff | None:
    """Diff one device's files; ``None`` when nothing differs. Added/removed devices keep line counts only
    unless ``whole_files``."""
    ref = after or before
    assert ref is not None
    old = {f.path: f.content for f in before.files} if before else {}
    new = {f.path: f.content for f in after.files} if after else {}
    out: list[FileDiff] = []
    for path in sorted(old.keys() | new.keys()):
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        shown = path if path.startswith(f"{ref.device}/") else f"{ref.device}/{path}"
        change: FileChange = "added" if a is None else "removed" if b is None else "changed"
        if change != "changed" and before is not None and after is not None:
            whole = True
        else:
            whole = whole_files or change == "changed"
        text, plus, minus = unified(
            a or "",
            b or "",
            f"a/{shown}" if a is not None else "/dev/null",
            f"b/{shown}" if b is not None else "/dev/null",
            context,
        )
        out.append(FileDiff(path, change, plus, minus, text if whole else ""))
    if not out:
        return None
    dev_change: FileChange = "added" if before is None else "removed" if after is None else "changed"
    return DeviceConfigDiff(ref.device, ref.platform, dev_change, tuple(out))


def diff_configs(
    before: Mapping[str, DeviceConfigLike],
    after: Mapping[str, DeviceConfigLike],
    devices: Iterable[str] | None = None,
    context: int = 3,
) -> dict[str, DeviceConfigDiff]:
    """Diff the rendered configurations of two fabrics, device by device (``devices``: only these).

    Returns only devices whose files differ, keyed by name in sorted order.
    """
    names = sorted(set(devices) if devices is not None else before.keys() | after.keys())
    out: dict[str, DeviceConfigDiff] = {}
    for name in names:
        d = diff_device(before.get(name), after.get(name), context)
        if d is not None:
            out[name] = d
    return out
