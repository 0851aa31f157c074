"""Load an inventory (one YAML file or a directory of them) into :class:`Inventory`.

YAML is untrusted input (it arrives in pull requests), so loading is bounded:

* files are read with libyaml through :mod:`fabricgen.inventory.cyaml` (linear time, C speed) when
  PyYAML has its C extension, otherwise with ruamel.yaml's round-trip loader; both build only maps,
  sequences and scalars — never Python objects — resolve scalars by YAML 1.2 as ruamel.yaml does and
  record the same positions; any explicit tag other than YAML's core ones is refused;
* a file larger than ``MAX_FILE_BYTES`` (8 MiB; ``FABRICGEN_MAX_YAML_BYTES``) is refused before it is parsed;
* aliases are expanded while the tree is copied, against a budget proportional to the text, so an
  alias bomb ("billion laughs") or a self-referencing anchor stops with an error instead of eating
  memory; nesting deeper than ``MAX_DEPTH`` is refused.

Every scalar's position is kept in a :class:`SourceMap` so that schema errors, resolve errors and
findings can all point at ``file:line:col``.
"""

from __future__ import annotations

import datetime
import errno
import os
import re
import stat
import types
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.reader import Reader
from ruamel.yaml.scalarbool import ScalarBoolean

from fabricgen.errors import InputError, Problem, SourcePos
from fabricgen.inventory import cyaml, flowline, scalars
from fabricgen.inventory.schema import Inventory, Name

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Per file, unless ``FABRICGEN_MAX_YAML_BYTES`` says otherwise (:func:`max_file_bytes`). libyaml reads
explicit inventories at about 4.7 MB per CPU-second and the worst case (one-letter list items, the most
positions per byte) at 2.5 (bench/parse.py), so the largest accepted file parses in at most about 3.5 s
of one core of the reference machine (README, "Limits")."""
MAX_DEPTH = 64
RUAMEL_FALLBACK_BYTES = 1024 * 1024
"""The largest file whose rare constructs (merge keys, ``%YAML``, ``!!omap``) ruamel.yaml may read instead."""
_CORE_TAGS = {
    None,
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}

PathKey = tuple[str | int, ...]


RawPos = int
"""A position not yet made a :class:`SourcePos` (:func:`fabricgen.inventory.cyaml.pack`): large files
record millions of positions and only the few that are looked up are ever needed as objects."""

_FILES: list[str] = []  # file id -> file name, for RawPos
_FILE_IDS: dict[str, int] = {}


def _file_id(name: str) -> int:
    if name not in _FILE_IDS:
        _FILE_IDS[name] = len(_FILES)
        _FILES.append(name)
    return _FILE_IDS[name]


class SourceMap:
    """Positions of everything in the merged inventory tree, keyed by its path (``("links", 3, "a")``)."""

    def __init__(self) -> None:
        self._pos: dict[PathKey, SourcePos | RawPos] = {}
        # the text of each file (by id) with one-line items read by flowline, and where its lines start
        self.texts: dict[int, str] = {}
        self._starts: dict[int, list[int]] = {}

    def add(self, path: PathKey, pos: SourcePos | RawPos) -> None:
        self._pos.setdefault(path, pos)

    def _get(self, key: PathKey) -> SourcePos | None:
        pos = self._pos.get(key)
        if pos is None:
            pos = self._flow_key(key)
            if pos is None:
                return None
        if isinstance(pos, int):
            src = SourcePos(_FILES[pos >> 64], (pos >> 32) & 0xFFFFFFFF, pos & cyaml.COLUMN)
            if not pos & cyaml.FLOW:  # an item's position keeps its mark: its keys are found from it
                self._pos[key] = src
            return src
        return pos

    def _flow_key(self, key: PathKey) -> RawPos | None:
        """The position of a key of a one-line item flowline read, from the item's line; None if ``key`` is
        not one."""
        if not self.texts or len(key) < 2 or not isinstance(key[-1], str):
            return None
        item = self._pos.get(key[:-1])
        if not isinstance(item, int) or not item & cyaml.FLOW:
            return None
        col = flowline.key_columns(self._line(item)).get(key[-1])
        return None if col is None else (item >> 32 << 32) | col

    def _line(self, raw: RawPos) -> str:
        """The text of the line ``raw`` is on."""
        file_id, line = raw >> 64, (raw >> 32) & 0xFFFFFFFF
        text = self.texts[file_id]
        starts = self._starts.get(file_id)
        if starts is None:
            starts = self._starts[file_id] = [0, *(m.end() for m in re.finditer("\n", text))]
        end = text.find("\n", starts[line - 1])
        return text[starts[line - 1] : None if end < 0 else end]

    def find(self, path: Sequence[str | int]) -> SourcePos | None:
        """The position of ``path``, or of its closest ancestor that has one."""
        key = tuple(path)
        while key:
            pos = self._get(key)
            if pos is not None:
                return pos
            key = key[:-1]
        return self._get(())

    def item(self, section: str, index: int) -> SourcePos | None:
        """:meth:`find` of ``(section, index)``, a list item (which has a position of its own when it was written)
        looked up first: once per switch, node and link of an explicit inventory."""
        return self._get((section, index)) or self.find((section,))

    def items(self) -> Iterator[tuple[PathKey, SourcePos]]:
        """Every recorded position, the keys of one-line items included."""
        for key, raw in list(self._pos.items()):
            pos = self._get(key)
            assert pos is not None
            yield key, pos
            if isinstance(raw, int) and raw & cyaml.FLOW:
                for name in flowline.key_columns(self._line(raw)):
                    child = (*key, name)
                    if child not in self._pos:
                        found = self._get(child)
                        assert found is not None
                        yield child, found


_ITEM_SECTIONS = ("switches", "nodes", "links")


@dataclass(frozen=True)
class LoadedInventory:
    """A schema-valid inventory with its positions.

    When only some list items (switches, nodes, links) were invalid, those items are left out, their
    problems kept in ``pending`` and their names in ``dropped``, so that resolution can still report
    every other problem in the same run; :func:`fabricgen.topology.resolve.resolve` raises them all.
    """

    inventory: Inventory
    source: SourceMap
    tree: dict[str, Any]
    files: tuple[str, ...]
    pending: tuple[Problem, ...] = ()
    dropped: frozenset[str] = frozenset()
    kept: dict[str, list[int]] | None = None  # per section: original index of each kept item

    def pos(self, *path: str | int) -> SourcePos | None:
        return self.source.find(path)

    def item_pos(self, section: str, index: int) -> SourcePos | None:
        """Position of the ``index``-th item of a list section (as validated, after any salvage)."""
        original = self.kept[section][index] if self.kept and section in self.kept else index
        return self.source.item(section, original)


def field_path(tree: Any, path: Sequence[str | int]) -> str:
    """Human form of a tree path: ``switches[leaf1].model`` (list items named by their ``name``).

    Keys of a mapping of named things (the catalog's models: ``catalog.switches[sn5600].lanes``) are
    written like named list items; other keys (``qos.platforms.nvue``) like fields.
    """
    out = ""
    node = tree
    ann: Any = Inventory
    for part in path:
        ann, named = _schema_child(ann, part)
        if isinstance(part, int):
            label: str = str(part)
            if isinstance(node, list) and 0 <= part < len(node):
                item = node[part]
                if isinstance(item, dict):
                    for key in ("name", "a"):  # devices by name, links by their first end
                        if isinstance(item.get(key), str) and item[key]:  # an empty name: the index
                            label = item[key]
                            break
                node = item
            else:
                node = None
            out += f"[{label}]"
        else:
            out += f"[{part}]" if named else (f".{part}" if out else part)
            node = node.get(part) if isinstance(node, dict) else None
    return out


def _schema_child(ann: Any, part: str | int) -> tuple[Any, bool]:
    """The schema type of ``part`` inside ``ann`` (None when unknown), and whether ``part`` is a name key."""
    while True:
        origin = get_origin(ann)
        if origin is Annotated:
            ann = get_args(ann)[0]
        elif origin is Union or origin is types.UnionType:
            inner = [a for a in get_args(ann) if a is not type(None)]
            ann = inner[0] if len(inner) == 1 else None
        else:
            break
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        field = ann.model_fields.get(part) if isinstance(part, str) else None
        return (field.annotation if field is not None else None), False
    if origin is dict:
        key, value = get_args(ann)
        return value, key == Name
    if origin is list and isinstance(part, int):
        return get_args(ann)[0], False
    return None, False


def _yaml_files(path: Path | str) -> list[Path]:
    """The inventory's files: ``path`` itself, or every .yaml/.yml file under it (hidden ones left out).

    Anything that cannot be listed or is not a readable regular file is an input problem, never skipped.
    """
    if str(path) == "":
        raise InputError([Problem(None, "", "the inventory path is empty; give a YAML file or a directory")])
    path = Path(path)
    try:
        st = path.stat()
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) and not path.is_symlink():
            raise InputError([Problem(None, "", f"{path}: no such file or directory")]) from None
        raise InputError([Problem(None, "", f"{path}: {_os_reason(exc, path)}")]) from None
    if stat.S_ISREG(st.st_mode):
        return [path]
    if not stat.S_ISDIR(st.st_mode):
        raise InputError([Problem(None, "", f"{path}: neither a file nor a directory")])
    files: list[Path] = []
    problems: list[Problem] = []

    def unlistable(exc: OSError) -> None:
        problems.append(Problem(None, "", f"{exc.filename}: cannot list the directory: {exc.strerror}"))

    for top, dirs, names in os.walk(path, onerror=unlistable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or not name.endswith((".yaml", ".yml")):
                continue
            f = Path(top) / name
            try:
                mode = f.stat().st_mode
            except OSError as exc:
                problems.append(Problem(None, "", f"{f}: {_os_reason(exc, f)}"))
                continue
            if not stat.S_ISREG(mode):
                problems.append(Problem(None, "", f"{f}: not a regular file"))
                continue
            files.append(f)
    if problems:
        raise InputError(problems)
    if not files:
        raise InputError([Problem(SourcePos(str(path), 1, 1), "", "directory holds no .yaml/.yml files")])
    return sorted(files)


def _os_reason(exc: OSError, path: Path) -> str:
    """Why ``path`` cannot be used, in words (a dangling or looping symbolic link named as such)."""
    if path.is_symlink():
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
        if isinstance(exc, FileNotFoundError):
            return f"dangling symbolic link (to {os.readlink(path)})"
    return exc.strerror or str(exc)


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit


class _RecursiveAlias(ComposerError):
    """An alias inside the node its anchor names (``a: &x [*x]``): a structure that contains itself."""


class _Composer(Composer):
    """ruamel's composer, refusing recursive aliases (ruamel would silently turn them into null)."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self._open: list[str] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.parser.check_event(AliasEvent):
            event = self.parser.peek_event()
            if event.anchor in self._open:
                raise _RecursiveAlias(
                    None,
                    None,
                    f"alias *{event.anchor} refers to the node its anchor is on (a structure that contains itself)",
                    event.start_mark,
                )
        return super().compose_node(parent, index)

    def _compose_open(self, anchor: Any, compose: Any) -> Any:
        if anchor is None:
            return compose(anchor)
        self._open.append(anchor)
        try:
            return compose(anchor)
        finally:
            self._open.pop()

    def compose_sequence_node(self, anchor: Any) -> Any:
        return self._compose_open(anchor, super().compose_sequence_node)

    def compose_mapping_node(self, anchor: Any) -> Any:
        return self._compose_open(anchor, super().compose_mapping_node)


_YAML_11_TYPES: dict[type, str] = {bytes: "!!binary", AbstractSet: "!!set", list: "!!pairs", tuple: "!!pairs"}


class _Copier:
    """Copies a ruamel tree into plain Python objects, recording positions; enforces the limits."""

    def __init__(self, file: str, source: SourceMap, budget: _Budget, problems: list[Problem]) -> None:
        self.file = file
        self.source = source
        self.budget = budget
        self.problems = problems

    def pos(self, line: int, col: int) -> SourcePos:
        return SourcePos(self.file, line + 1, col + 1)

    def copy(self, node: Any, path: PathKey, depth: int) -> Any:
        self.budget.left -= 1
        if self.budget.left < 0:
            raise _TooBig(path)
        if depth > MAX_DEPTH:
            raise _TooDeep(path)
        if isinstance(node, TaggedScalar) and node.tag.value == "tag:yaml.org,2002:str":
            return str(node.value)  # `!!str 123`: the core way to force a string
        if isinstance(node, TaggedScalar) or (
            isinstance(node, CommentedMap | CommentedSeq) and getattr(node.tag, "value", None) not in _CORE_TAGS
        ):
            tag = node.tag.value if hasattr(node.tag, "value") else node.tag
            self.problems.append(
                Problem(self.source.find(path), _dotted(path), f"YAML tag {tag} is not allowed in an inventory")
            )
            return None
        if isinstance(node, CommentedMap):
            out: dict[str, Any] = {}
            for key in node:
                text = key if isinstance(key, str) else _shown_key(key)
                child = (*path, text)
                try:
                    line, col = node.lc.key(key)
                    self.source.add(child, self.pos(line, col))
                except (KeyError, TypeError):
                    pass
                if not isinstance(key, str):
                    self.problems.append(
                        Problem(self.source.find(child), _dotted(path), f"mapping keys must be strings (got {text})")
                    )
                out[text] = self.copy(node[key], child, depth + 1)
            return out
        if isinstance(node, CommentedSeq):
            items: list[Any] = []
            for i, item in enumerate(node):
                child = (*path, i)
                try:
                    line, col = node.lc.item(i)
                    self.source.add(child, self.pos(line, col))
                except (KeyError, TypeError, IndexError):
                    pass
                items.append(self.copy(item, child, depth + 1))
            return items
        if isinstance(node, ScalarBoolean):  # an anchored boolean (an int subclass): still a boolean
            return bool(node)
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, int):
            return int(node)
        if isinstance(node, float):
            return float(node)
        if isinstance(node, str):
            return str(node)
        if isinstance(node, datetime.date):
            return node.isoformat()
        # YAML 1.1 types outside the core schema (!!binary, !!set, !!pairs): refused like any other tag
        tag = next((t for cls, t in _YAML_11_TYPES.items() if isinstance(node, cls)), type(node).__name__)
        self.problems.append(
            Problem(self.source.find(path), _dotted(path), f"YAML tag {tag} is not allowed in an inventory")
        )
        return None


def _shown_key(key: Any) -> str:
    """A key that is not a string, as problems name it."""
    if isinstance(key, tuple | list):
        return "a sequence"
    if isinstance(key, Mapping):
        return "a mapping"
    return repr(scalars.plain(key))


class _TooBig(Exception):
    def __init__(self, path: PathKey) -> None:
        self.path = path


class _TooDeep(Exception):
    def __init__(self, path: PathKey) -> None:
        self.path = path


def _dotted(path: Sequence[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))


_NON_PRINTABLE = Reader.NON_PRINTABLE  # the characters YAML does not allow in a stream (ruamel's own rule)


class _ConstructError(MarkedYAMLError):
    """A scalar ruamel's constructor cannot build (e.g. an integer of 5,000 digits), at the scalar."""


class _Constructor(RoundTripConstructor):
    """ruamel's round-trip constructor; a value it cannot build is reported where it is written."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except YAMLError:
            raise
        except (ValueError, IndexError, TypeError, OverflowError) as exc:
            raise _ConstructError(None, None, " ".join(str(exc).split()), node.start_mark) from None


def max_file_bytes() -> int:
    """The per-file byte cap: ``FABRICGEN_MAX_YAML_BYTES`` when set, else :data:`MAX_FILE_BYTES`."""
    value = os.environ.get("FABRICGEN_MAX_YAML_BYTES", "").strip()
    if not value:
        return MAX_FILE_BYTES
    if not value.isdigit() or int(value) < 1:
        raise InputError(
            [Problem(None, "", f"FABRICGEN_MAX_YAML_BYTES must be a whole number of bytes (got {value[:40]!r})")]
        )
    return int(value)


def _read_text(path: Path, problems: list[Problem]) -> tuple[str, int] | None:
    name = str(path)
    cap = max_file_bytes()
    try:
        size = path.stat().st_size
        if size > cap:
            problems.append(Problem(SourcePos(name, 1, 1), "", f"file is {size} bytes, above the {cap}-byte limit"))
            return None
        with path.open("rb") as fh:
            data = fh.read(cap + 1)
    except OSError as exc:
        problems.append(Problem(SourcePos(name, 1, 1), "", f"cannot read the file: {_os_reason(exc, path)}"))
        return None
    if len(data) > cap:  # it grew since stat
        problems.append(Problem(SourcePos(name, 1, 1), "", f"file is above the {cap}-byte limit"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(SourcePos(name, 1, 1), "", f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
        return None
    text = text.replace("\r\n", "\n")  # as read_text() did (universal newlines)
    text = text.replace("\r", "\n")
    bad = _NON_PRINTABLE.search(text)
    if bad is not None:
        at = bad.start()
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        problems.append(
            Problem(
                SourcePos(name, line, col),
                "",
                f"YAML error: unacceptable character #x{ord(bad.group()):04x}: special characters are not allowed",
            )
        )
        return None
    return text, len(data)


def _parse_file(
    path: Path, source: SourceMap, problems: list[Problem], use_libyaml: bool | None = None
) -> dict[str, Any] | None:
    """One file's tree, its positions added to ``source``; None (with problems) when it cannot be used.

    libyaml reads the file when PyYAML has its C extension (``use_libyaml`` None: whenever available);
    otherwise, and for the few constructs :mod:`fabricgen.inventory.cyaml` leaves to it, ruamel.yaml.
    """
    read = _read_text(path, problems)
    if read is None:
        return None
    text, size = read
    if use_libyaml is None:
        use_libyaml = cyaml.AVAILABLE
    if use_libyaml:
        try:
            return _parse_libyaml(str(path), text, size, source, problems)
        except cyaml.Unsupported as exc:
            if size > RUAMEL_FALLBACK_BYTES:  # ruamel.yaml reads ~0.2 MB/s: keep the time bounded
                problems.append(
                    Problem(
                        SourcePos(str(path), exc.line, exc.col),
                        "",
                        f"{exc.what} is supported only in files of up to {RUAMEL_FALLBACK_BYTES} bytes"
                        f" (this one has {size}); write the keys out, or split the file",
                    )
                )
                return None
    return _parse_ruamel(str(path), text, size, source, problems)


def _parse_libyaml(
    name: str, text: str, size: int, source: SourceMap, problems: list[Problem]
) -> dict[str, Any] | None:
    reader = cyaml.Reader(name, _file_id(name), text, MAX_DEPTH, _budget(size))
    try:
        doc, paths, raws = reader.read()
    except cyaml.Fatal as exc:
        problems.append(exc.problem)
        return None
    if doc is None:
        problems.append(Problem(SourcePos(name, 1, 1), "", "file is empty"))
        return None
    if not isinstance(doc, dict):
        problems.append(Problem(SourcePos(name, 1, 1), "", "the top level of an inventory file must be a mapping"))
        return None
    problems.extend(reader.problems)
    if reader.copy_error is not None:
        return None
    paths.reverse()  # the first position recorded for a path wins, as in SourceMap.add
    raws.reverse()
    source._pos.update(zip(paths, raws, strict=True))
    if reader.taken:
        source.texts[reader.base >> 64] = text
    return doc


def _budget(size: int) -> int:
    """How many nodes a file of ``size`` bytes may expand to (its aliases included)."""
    return 4 * size + 100_000


def _parse_ruamel(
    name: str, text: str, size: int, source: SourceMap, problems: list[Problem]
) -> dict[str, Any] | None:
    yaml = YAML(typ="rt", pure=True)
    yaml.allow_duplicate_keys = False
    yaml.Composer = _Composer
    yaml.Constructor = _Constructor
    yaml.max_depth = MAX_DEPTH + 1  # the composer recurses: stop deep nesting before Python's stack does
    try:
        doc = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = SourcePos(name, mark.line + 1, mark.column + 1) if mark else SourcePos(name, 1, 1)
        what = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        if "duplicate key" in what:
            what = what.split(" with value")[0]
        if isinstance(exc, _RecursiveAlias):
            problems.append(Problem(pos, "", f"{what}; refused"))
        elif isinstance(exc, _ConstructError):
            problems.append(Problem(pos, "", f"YAML error: {what}"))
        elif "maximum depth" in what:
            problems.append(Problem(pos, "", f"nesting deeper than {MAX_DEPTH} levels; refused"))
        else:
            problems.append(Problem(pos, "", f"YAML syntax error: {what}"))
        return None
    except YAMLError as exc:
        problems.append(Problem(SourcePos(name, 1, 1), "", f"YAML error: {' '.join(str(exc).split())}"))
        return None
    if doc is None:
        problems.append(Problem(SourcePos(name, 1, 1), "", "file is empty"))
        return None
    if not isinstance(doc, CommentedMap):
        problems.append(Problem(SourcePos(name, 1, 1), "", "the top level of an inventory file must be a mapping"))
        return None
    file_map = SourceMap()
    file_map.add((), SourcePos(name, 1, 1))
    copier = _Copier(name, file_map, _Budget(_budget(size)), problems)
    try:
        tree = copier.copy(doc, (), 0)
    except _TooBig as exc:
        problems.append(
            Problem(
                file_map.find(exc.path),
                _dotted(exc.path),
                "document expands to far more nodes than its text holds (alias bomb?); refused",
            )
        )
        return None
    except _TooDeep as exc:
        problems.append(
            Problem(file_map.find(exc.path), _dotted(exc.path), f"nesting deeper than {MAX_DEPTH} levels; refused")
        )
        return None
    source._pos.update({k: v for k, v in file_map._pos.items() if k})
    assert isinstance(tree, dict)
    return tree


def _merge(
    into: dict[str, Any],
    new: dict[str, Any],
    path: PathKey,
    source: SourceMap,
    new_map: SourceMap,
    problems: list[Problem],
    moves: dict[PathKey, int | None],
) -> None:
    """Merge one file's tree into the inventory: lists concatenate, mappings merge, scalars may not clash.

    ``moves`` collects where the new file's positions go: a path taken over whole (None) or a list whose
    items were appended after ``offset`` others; :func:`_move_positions` applies them in one pass.
    """
    for key, value in new.items():
        child = (*path, key)
        if key not in into:
            into[key] = value
            moves[child] = None
            continue
        old = into[key]
        if isinstance(old, list) and isinstance(value, list):
            moves[child] = len(old)
            old.extend(value)
        elif isinstance(old, dict) and isinstance(value, dict):
            _merge(old, value, child, source, new_map, problems, moves)
        else:
            first = source.find(child)
            problems.append(Problem(new_map.find(child), _dotted(child), f"already defined at {first}; define it once"))


def _move_positions(new_map: SourceMap, moves: dict[PathKey, int | None], dest: SourceMap) -> None:
    """Add the positions of a merged file under their paths in the merged tree (linear in the positions)."""
    if all(len(moved) == 1 for moved in moves):  # the usual case, top-level sections only: one lookup per position
        _move_top_positions(new_map, {moved[0]: offset for moved, offset in moves.items()}, dest)
    else:
        _move_any_positions(new_map, moves, dest)


def _move_any_positions(new_map: SourceMap, moves: dict[PathKey, int | None], dest: SourceMap) -> None:
    """:func:`_move_positions` for moves at any depth: each position under its shortest moved ancestor."""
    for key, pos in new_map._pos.items():
        for n in range(1, len(key) + 1):
            if key[:n] not in moves:
                continue
            offset = moves[key[:n]]
            if offset is None:
                dest.add(key, pos)
            elif len(key) > n:
                index = key[n]
                if isinstance(index, int):
                    dest.add((*key[:n], index + offset, *key[n + 1 :]), pos)
            break


def _move_top_positions(new_map: SourceMap, moves: dict[str | int, int | None], dest: SourceMap) -> None:
    """:func:`_move_positions` when every moved path is a top-level key (``moves``: that key → offset)."""
    add = dest._pos.setdefault  # SourceMap.add: the first position given for a path stays
    for key, pos in new_map._pos.items():
        if not key or key[0] not in moves:
            continue
        offset = moves[key[0]]
        if offset is None:
            add(key, pos)
        elif len(key) > 1:
            index = key[1]
            if isinstance(index, int):
                add((key[0], index + offset, *key[2:]), pos)


def load_tree(
    path: str | os.PathLike[str], use_libyaml: bool | None = None
) -> tuple[dict[str, Any], SourceMap, tuple[str, ...]]:
    """Parse and merge the YAML of an inventory into a plain tree with positions.

    ``use_libyaml``: None reads with libyaml when PyYAML's C extension is there; False forces ruamel.yaml.
    """
    files = _yaml_files(os.fspath(path))
    problems: list[Problem] = []
    merged: dict[str, Any] = {}
    source = SourceMap()
    source.add((), SourcePos(str(files[0]), 1, 1))
    for f in files:
        file_map = SourceMap()
        tree = _parse_file(f, file_map, problems, use_libyaml)
        if tree is None:
            continue
        source.texts.update(file_map.texts)
        if not merged:
            merged.update(tree)
            source._pos.update(file_map._pos)
        else:
            moves: dict[PathKey, int | None] = {}
            _merge(merged, tree, (), source, file_map, problems, moves)
            _move_positions(file_map, moves, source)
    if problems:
        raise InputError(problems)
    return merged, source, tuple(str(f) for f in files)


def _validation_problems(exc: ValidationError, tree: dict[str, Any], source: SourceMap) -> Iterator[Problem]:
    for err in exc.errors(include_url=False):
        path = _tree_path(tree, err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "required field is missing"
        msg = msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if (
            err["type"] not in ("missing", "extra_forbidden")
            and "input" in err
            and _short(err["input"])
            and repr(err["input"]) not in msg  # the message may quote the value already
            and not _secret_field(err["loc"])  # a mistyped secret is never echoed
        ):
            msg += f" (got {err['input']!r})"
        yield Problem(source.find(path), field_path(tree, path), msg)


def _secret_field(loc: tuple[int | str, ...]) -> bool:
    """A field of the ``base:`` section that holds a secret (a user's secret, an SNMP community, a TACACS+/RADIUS
    shared key)."""
    return bool(loc) and loc[-1] in ("secret", "community", "key")


def _short(value: object) -> bool:
    return isinstance(value, str | int | float | bool) and len(str(value)) <= 40


def _tree_path(tree: Any, loc: Sequence[str | int]) -> list[str | int]:
    """Keep the parts of a pydantic ``loc`` that walk the tree (drops union/validator tags)."""
    path: list[str | int] = []
    node = tree
    for part in loc:
        if part == "[key]":  # the key itself is wrong: its position and path are those of the entry
            continue
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
            path.append(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            path.append(part)
        elif isinstance(node, dict) and isinstance(part, str) and not part.startswith(("function", "union")):
            path.append(part)  # a missing field: point at its parent, name the field
            node = None
    return path


def _salvage(
    tree: dict[str, Any], exc: ValidationError
) -> tuple[dict[str, Any], dict[str, list[int]], set[str]] | None:
    """The tree without the list items that failed validation, or None when other parts failed too."""
    bad: dict[str, set[int]] = {}
    for err in exc.errors(include_url=False):
        loc = err["loc"]
        if len(loc) >= 2 and loc[0] in _ITEM_SECTIONS and isinstance(loc[1], int):
            bad.setdefault(str(loc[0]), set()).add(loc[1])
        else:
            return None
    salvaged = dict(tree)
    kept: dict[str, list[int]] = {}
    dropped: set[str] = set()
    for section, indexes in bad.items():
        items = tree.get(section)
        if not isinstance(items, list):
            return None
        kept[section] = [i for i in range(len(items)) if i not in indexes]
        salvaged[section] = [items[i] for i in kept[section]]
        for i in indexes:
            if isinstance(items[i], dict) and isinstance(items[i].get("name"), str):
                dropped.add(items[i]["name"])
    return salvaged, kept, dropped


def load_inventory(path: str | os.PathLike[str]) -> LoadedInventory:
    """Load and schema-validate an inventory; raises :class:`InputError` listing every problem.

    Invalid switches, nodes or links are set aside (see :class:`LoadedInventory`) so that reference
    problems elsewhere are still found in the same run.
    """
    tree, source, files = load_tree(path)
    try:
        inventory = Inventory.model_validate(tree)
    except ValidationError as exc:
        problems = list(_validation_problems(exc, tree, source))
        salvage = _salvage(tree, exc)
        if salvage is None:
            raise InputError(problems) from None
        salvaged, kept, dropped = salvage
        try:
            inventory = Inventory.model_validate(salvaged)
        except ValidationError:
            raise InputError(problems) from None
        return LoadedInventory(inventory, source, tree, files, tuple(problems), frozenset(dropped), kept)
    return LoadedInventory(inventory, source, tree, files)
