"""One inventory file read with libyaml (PyYAML's C parser): the plain tree and the position of every key and item.

libyaml scans and parses in C; this module takes its events one by one and builds the plain tree
directly (no intermediate node graph), so the Python work per scalar is a type check and a dict or list
insert. The rules are those of the ruamel.yaml path in :mod:`fabricgen.inventory.load`, and so are the
positions (``file:line:col`` of every mapping key and of every sequence item):

* scalars resolve by YAML 1.2 as ruamel resolves them (:mod:`fabricgen.inventory.scalars`);
* explicit tags other than YAML's core ones are refused, as are YAML 1.1 types (``!!binary``, ``!!set``);
* a duplicate key is refused, naming where the key was first written;
* aliases are expanded while the tree is built, against the same budget, so an alias bomb fails fast;
  an alias inside the node its anchor is on is refused; nesting is capped at ``MAX_DEPTH``;
* errors are reported in the order ruamel reports them: a syntax error anywhere in the file first, then
  the first value that cannot be built (duplicate key, huge integer), then every refused tag or key.

A few rare constructs are left to ruamel (:class:`Unsupported`): a ``%YAML`` directive (which switches
resolution to YAML 1.1), merge keys (``<<``), the ``=`` value key and ``!!omap``/``!!pairs``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import yaml

from fabricgen.errors import Problem, SourcePos
from fabricgen.inventory import flowline, scalars

PathKey = tuple[str | int, ...]
Raw = int  # (file id << 64) | (line << 32) | column, 1-based: made a SourcePos only when looked up
_LOW = (1 << 32) - 1
FLOW = 1 << 31
"""Set in the position of a one-line item :mod:`fabricgen.inventory.flowline` read: its keys have no position of
their own recorded, :meth:`fabricgen.inventory.load.SourceMap.find` works them out from the item's line."""
COLUMN = FLOW - 1  # the column bits of a position


def pack(file_id: int, line: int, col: int) -> Raw:
    """A position as one integer (a third of the memory of a tuple; files record one per key and item)."""
    return (file_id << 64) | (line << 32) | col

_CORE_COLLECTION_TAGS = {None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
_ORDERED = {"tag:yaml.org,2002:omap", "tag:yaml.org,2002:pairs"}
_TAG_NAMES = {  # YAML 1.1 types outside the core schema, named as the ruamel path names them
    "tag:yaml.org,2002:binary": "!!binary",
    "tag:yaml.org,2002:set": "!!set",
}

AVAILABLE: bool = bool(getattr(yaml, "__with_libyaml__", False))


class Unsupported(Exception):
    """The file uses a construct this reader leaves to ruamel.yaml: what, and where (1-based)."""

    def __init__(self, what: str, mark: Any) -> None:
        super().__init__(what)
        self.what = what
        self.line = mark.line + 1
        self.col = mark.column + 1


class Fatal(Exception):
    """The file cannot be read any further; ``problem`` says why."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem


class _Fallback(Exception):
    """The copy with one-line items taken out (:mod:`fabricgen.inventory.flowline`) is not read as the original
    would be: read the original."""


class TooBig(Exception):
    def __init__(self, path: PathKey) -> None:
        self.path = path


class TooDeep(Exception):
    def __init__(self, path: PathKey) -> None:
        self.path = path


def dotted(path: tuple[str | int, ...] | list[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))


class _Anchor:
    """A node with an anchor: its value, its own position and where the positions of its insides were recorded."""

    __slots__ = ("mark", "path", "records", "rel", "start", "stop", "value")

    def __init__(
        self, path: PathKey, value: Any, mark: Raw, start: int, stop: int, records: tuple[int, int]
    ) -> None:
        self.path = path
        self.value = value
        self.mark = mark
        self.start = start
        self.stop = stop
        self.records = records  # the refusals recorded inside it: a range of Reader.records
        self.rel: dict[PathKey, Raw] | None = None


class _Frame:
    """An open mapping or sequence."""

    __slots__ = (
        "anchor", "dup", "is_key", "key", "keys", "mark", "out", "path", "records", "refused", "start", "value_path"
    )

    def __init__(self, out: Any, path: PathKey, mark: Raw, anchor: str | None, start: int) -> None:
        self.out = out
        self.path = path
        self.mark = mark
        self.anchor = anchor
        self.start = start  # index into the position list when the node opened
        self.records = 0  # index into Reader.records when the node opened
        self.dup: Problem | None = None  # the key just read repeats an earlier one (reported after its value)
        self.refused = False  # its tag is refused: its insides are not reported, it becomes None
        self.is_key = False  # a collection written as a mapping key
        self.key: Any = _NO_KEY  # a mapping waiting for its value: the key
        self.value_path: PathKey = ()
        self.keys: dict[Any, Raw] | None = {} if isinstance(out, dict) else None


_NO_KEY = object()
_KEEP = (scalars.STR, scalars.INT, scalars.FLOAT, scalars.BOOL, scalars.NULL, scalars.TIMESTAMP)


def _nesting(pos: SourcePos, depth: int) -> Fatal:
    return Fatal(Problem(pos, "", f"nesting deeper than {depth} levels; refused"))


def _refused_tag(tag: str) -> str:
    return f"YAML tag {_TAG_NAMES.get(tag, tag)} is not allowed in an inventory"


def _one_line(exc: object) -> str:
    return " ".join(str(exc).split())


class Reader:
    """Builds one file's tree; see the module docstring for the rules."""

    def __init__(self, name: str, file_id: int, text: str, max_depth: int, budget: int) -> None:
        self.name = name
        self.base = file_id << 64
        self.text = text
        self.max_depth = max_depth
        self.budget = budget
        self.root: Any = None
        # the position of every key and item, in document order: paths[i] is at raws[i]
        self.paths: list[PathKey] = []
        self.raws: list[Raw] = []
        self.problems: list[Problem] = []  # refused tags and keys, in document order (filled by read())
        # each refusal: (path, field path, position or None for the path's own, message); an alias repeats the
        # refusals inside its anchored node under its own path, as ruamel's copy of the node does
        self.records: list[tuple[PathKey, PathKey, Raw | None, str]] = []
        self.construct_error: Problem | None = None  # the first value that cannot be built
        self.copy_error: Problem | None = None  # alias bomb or too deep: building stops, parsing goes on
        self.anchors: dict[str, _Anchor] = {}
        self.anchor_log: list[_Anchor] = []  # every anchored node, in the order they were finished
        self.open_anchors: list[str] = []
        self.stack: list[_Frame] = []
        self.quiet = 0  # >0 inside a refused collection or a collection key: nothing inside is reported
        self.building = True
        self._index: dict[PathKey, Raw] = {}
        self._indexed = 0
        self.taken: dict[int, tuple[int, dict[str, Any]]] = {}  # one-line items flowline read, by 0-based line
        self.placed = 0  # how many of them were put in the tree

    # ------------------------------------------------------------------ helpers

    def pos(self, mark: Any) -> Raw:
        return pack(0, mark.line + 1, mark.column + 1) | self.base

    def src(self, raw: Raw) -> SourcePos:
        return SourcePos(self.name, (raw >> 32) & _LOW, raw & COLUMN)

    def at(self, mark: Any) -> SourcePos:
        return SourcePos(self.name, mark.line + 1, mark.column + 1)

    def charge(self, path: PathKey) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise TooBig(path)
        if len(path) > self.max_depth:
            raise TooDeep(path)

    def find(self, path: PathKey) -> SourcePos:
        """The position of ``path`` or its nearest ancestor (error paths only; indexes the positions once)."""
        for p, pos in zip(self.paths[self._indexed :], self.raws[self._indexed :], strict=True):
            self._index.setdefault(p, pos)
        self._indexed = len(self.paths)
        key = path
        while key:
            if key in self._index:
                return self.src(self._index[key])
            key = key[:-1]
        return SourcePos(self.name, 1, 1)

    def refuse(self, path: PathKey, message: str) -> None:
        if not self.quiet:
            self.records.append((path, path, None, message))

    def fail_construct(self, mark: Any, message: str) -> None:
        if self.construct_error is None:
            self.construct_error = Problem(self.at(mark), "", message)
        self.building = False

    def copy_failed(self, exc: TooBig | TooDeep) -> None:
        self.building = False
        if self.copy_error is None:
            what = (
                "document expands to far more nodes than its text holds (alias bomb?); refused"
                if isinstance(exc, TooBig)
                else f"nesting deeper than {self.max_depth} levels; refused"
            )
            self.copy_error = Problem(self.find(exc.path), dotted(exc.path), what)

    # ------------------------------------------------------------------ where a node goes

    def key_slot(self) -> bool:
        return bool(self.stack) and self.stack[-1].keys is not None and self.stack[-1].key is _NO_KEY

    def value_path(self, mark: Raw) -> PathKey:
        """The path of a node that is not a key; records a sequence item's position."""
        if not self.stack:
            return ()
        frame = self.stack[-1]
        if frame.keys is None:
            path = (*frame.path, len(frame.out))
            self.paths.append(path)
            self.raws.append(mark)
            return path
        return frame.value_path

    def place(self, value: Any) -> None:
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        if frame.keys is None:
            frame.out.append(value)
        else:
            frame.out[frame.key] = value
            frame.key = _NO_KEY
            if frame.dup is not None:
                if self.construct_error is None:
                    self.construct_error = frame.dup
                self.building = False
                frame.dup = None

    def set_key(self, key: Any, pos: Raw, is_string: bool, shown: str) -> None:
        frame = self.stack[-1]
        assert frame.keys is not None
        text = key if is_string else shown
        path = (*frame.path, text)
        try:
            first = frame.keys.get(key)
        except TypeError:  # not hashable: a collection
            first = None
        if first is not None:  # ruamel finds it once the value is built
            what = f'YAML syntax error: found duplicate key "{text}" (first at {self.src(first)})'
            frame.dup = Problem(self.src(pos), "", what)
        else:
            with contextlib.suppress(TypeError):  # a collection key: refused below, never compared
                frame.keys[key] = pos
        self.paths.append(path)
        self.raws.append(pos)
        if not is_string and not self.quiet:
            self.records.append((path, frame.path, pos, f"mapping keys must be strings (got {shown})"))
        frame.key = text
        frame.value_path = path

    # ------------------------------------------------------------------ aliases

    def remember(self, name: str, anchor: _Anchor) -> None:
        self.anchors[name] = anchor
        self.anchor_log.append(anchor)

    def relative(self, anchor: _Anchor) -> dict[PathKey, Raw]:
        """The positions inside an anchored node, relative to it (computed once, on first use)."""
        if anchor.rel is None:
            n = len(anchor.path)
            anchor.rel = {}
            inside = zip(self.paths[anchor.start : anchor.stop], self.raws[anchor.start : anchor.stop], strict=True)
            for p, pos in inside:
                if p[:n] == anchor.path:
                    anchor.rel.setdefault(p[n:], pos)
        return anchor.rel

    def replay(self, anchor: _Anchor, path: PathKey) -> Any:
        """A fresh copy of an anchored node at ``path``, with its positions, charged to the budget."""
        rel = self.relative(anchor)
        add_path, add_raw = self.paths.append, self.raws.append

        def copy(value: Any, sub: PathKey) -> Any:
            here = path + sub
            self.charge(here)
            if isinstance(value, dict):
                out: dict[str, Any] = {}
                for k, v in value.items():
                    p = rel.get((*sub, k))
                    if p is not None:
                        add_path((*here, k))
                        add_raw(p)
                    out[k] = copy(v, (*sub, k))
                return out
            if isinstance(value, list):
                items: list[Any] = []
                for i, v in enumerate(value):
                    p = rel.get((*sub, i))
                    if p is not None:
                        add_path((*here, i))
                        add_raw(p)
                    items.append(copy(v, (*sub, i)))
                return items
            return value

        value = copy(anchor.value, ())
        n = len(anchor.path)
        first, stop = anchor.records
        for i in range(first, stop):
            where, field, pos, message = self.records[i]
            if where[:n] == anchor.path:
                self.records.append((path + where[n:], path + field[n:], pos, message))
        return value

    # ------------------------------------------------------------------ the event loop

    def read(self) -> tuple[Any, list[PathKey], list[Raw]]:
        """The file's value (None for an empty file) and its positions; raises Fatal or Unsupported.

        The one-line items :mod:`fabricgen.inventory.flowline` can read are read there, and libyaml parses the
        rest; unless that gives a clean read with every item placed where libyaml reports its placeholder, the
        original text is read as a whole (so every problem is found, and reported, on the original).
        """
        copy, taken = flowline.take(self.text)
        if taken:
            trial = Reader(self.name, self.base >> 64, copy, self.max_depth, self.budget)
            trial.taken = taken
            try:
                result = trial._read()
            except (Fatal, Unsupported, _Fallback):
                result = None
            if result is not None and trial.placed == len(taken) and not trial.problems:
                self.root, self.paths, self.raws = result
                self.taken = taken
                return result
        return self._read()

    def _read(self) -> tuple[Any, list[PathKey], list[Raw]]:
        loader = yaml.CSafeLoader(self.text)
        try:
            self._events(loader.get_event)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            what = _one_line(exc.problem or exc.context or "invalid YAML")
            where = self.at(mark) if mark is not None else SourcePos(self.name, 1, 1)
            if "maximum nesting depth" in what:
                raise _nesting(where, self.max_depth) from None
            raise Fatal(Problem(where, "", f"YAML syntax error: {what}")) from None
        except yaml.YAMLError as exc:
            raise Fatal(Problem(SourcePos(self.name, 1, 1), "", f"YAML error: {_one_line(exc)}")) from None
        finally:
            loader.dispose()
        if self.construct_error is not None:
            raise Fatal(self.construct_error)
        self.problems = [
            Problem(self.src(pos) if pos else self.find(at), dotted(field), msg)
            for at, field, pos, msg in self.records
        ]
        if self.copy_error is not None:
            self.problems.append(self.copy_error)
        return self.root, self.paths, self.raws

    def _events(self, get_event: Callable[[], Any]) -> None:
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
        mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
        document_start, stream_end = yaml.DocumentStartEvent, yaml.StreamEndEvent
        documents = 0
        depth = 0  # ruamel's composer depth of the open collections (the root node is at depth 1)
        limit = self.max_depth + 1
        max_depth = self.max_depth
        stack = self.stack
        add_path, add_raw = self.paths.append, self.raws.append
        base = self.base
        first_chars = scalars.FIRST_CHARS
        construct_plain = scalars.construct_plain
        keep = _KEEP
        no_key = _NO_KEY
        taken = self.taken
        top: _Frame | None = None
        while True:
            event = get_event()
            cls = type(event)
            if cls is scalar_event:
                if depth >= limit:
                    raise _nesting(self.at(event.start_mark), max_depth)
                # the common case inline: a plain untagged scalar in an ordinary mapping or sequence
                if (
                    top is None
                    or event.tag is not None
                    or event.anchor is not None
                    or not event.implicit[0]
                    or self.quiet
                    or not self.building
                    or top.dup is not None
                ):
                    self._scalar(event)
                    continue
                value: Any = event.value
                if value[:1] in first_chars:
                    try:
                        rtag, value = construct_plain(value)
                    except Exception:
                        self._scalar(event)
                        continue
                    if rtag not in keep:
                        self._scalar(event)
                        continue
                    is_string = rtag is scalars.STR
                else:
                    is_string = True
                mark = event.start_mark
                raw = base | ((mark.line + 1) << 32) | (mark.column + 1)
                keys = top.keys
                if keys is None:  # a sequence item
                    path: PathKey = (*top.path, len(top.out))
                    add_path(path)
                    if taken and mark.line in taken:  # the placeholder of a one-line item flowline read
                        add_raw(raw | FLOW)
                        self._place_taken(taken[mark.line], event, path, depth, top)
                        continue
                    add_raw(raw)
                elif top.key is no_key:  # a key
                    if not is_string or value in keys:
                        self.set_key(value, raw, is_string, repr(value))
                        continue
                    keys[value] = raw
                    path = (*top.path, value)
                    add_path(path)
                    add_raw(raw)
                    top.key = value
                    top.value_path = path
                    continue
                else:  # a value
                    path = top.value_path
                self.budget -= 1
                if self.budget < 0 or len(path) > max_depth:
                    self.copy_failed(TooBig(path) if self.budget < 0 else TooDeep(path))
                if keys is None:
                    top.out.append(value)
                else:
                    top.out[top.key] = value
                    top.key = no_key
            elif cls is mapping_start or cls is sequence_start:
                depth += 1
                if depth > limit:
                    raise _nesting(self.at(event.start_mark), max_depth)
                self._start(event, cls is mapping_start)
                top = stack[-1]
            elif cls is mapping_end or cls is sequence_end:
                depth -= 1
                self._end()
                top = stack[-1] if stack else None
            elif cls is alias_event:
                self._alias(event)
            elif cls is document_start:
                documents += 1
                if documents > 1:
                    raise Fatal(
                        Problem(self.at(event.start_mark), "", "YAML syntax error: but found another document")
                    )
                if event.version is not None:
                    raise Unsupported("a %YAML directive", event.start_mark)
            elif cls is stream_end:
                return

    def _place_taken(
        self, item: tuple[int, dict[str, Any]], event: Any, path: PathKey, depth: int, top: _Frame
    ) -> None:
        """Put a one-line item flowline read where libyaml reported its placeholder (at ``path``, its position
        recorded with :data:`FLOW`), charged to the budget as its nodes would be."""
        col, value = item
        if (
            event.start_mark.column + 1 != col
            or event.value != flowline.PLACEHOLDER
            or depth + 1 >= self.max_depth + 1
            or len(path) + 1 > self.max_depth
        ):
            raise _Fallback
        self.budget -= 1 + len(value)
        if self.budget < 0:
            raise _Fallback
        top.out.append(value)
        self.placed += 1

    def _scalar(self, event: Any) -> None:
        if self.taken and event.start_mark.line in self.taken:  # a placeholder somewhere the fast path is not
            raise _Fallback
        tag = event.tag
        value: Any
        if tag is None and event.implicit[0]:
            try:
                rtag, value = scalars.construct_plain(event.value)
            except Exception as exc:  # a value ruamel's constructor refuses (e.g. an integer of 5,000 digits)
                self.fail_construct(event.start_mark, f"YAML error: {_one_line(exc)}")
                rtag, value = scalars.STR, event.value
            if rtag in (scalars.MERGE, scalars.VALUE):
                raise Unsupported(f"the {event.value} key", event.start_mark)
        elif tag is None or tag == "!" or tag == scalars.STR:
            rtag, value = scalars.STR, event.value
        elif scalars.constructor().known(tag):
            rtag = tag
            try:
                value = scalars.constructor().build(tag, event.value)
            except Exception as exc:
                self.fail_construct(event.start_mark, f"YAML error: {_one_line(exc)}")
                value = None
        else:
            rtag, value = tag, None
        mark = self.pos(event.start_mark)
        if self.key_slot():
            self.set_key(value, mark, rtag == scalars.STR, repr(value))
            if rtag not in _KEEP:
                self.refuse(self.stack[-1].value_path, _refused_tag(rtag))
            return
        path = self.value_path(mark)
        if self.building:
            try:
                self.charge(path)
            except (TooBig, TooDeep) as exc:
                self.copy_failed(exc)
        if rtag not in _KEEP:
            self.refuse(path, _refused_tag(rtag))
            value = None
        if event.anchor is not None:
            stop = len(self.records)
            records = (stop - 1 if rtag not in _KEEP and not self.quiet else stop, stop)
            self.remember(event.anchor, _Anchor(path, value, mark, len(self.paths), len(self.paths), records))
        self.place(value)

    def _start(self, event: Any, is_map: bool) -> None:
        mark = self.pos(event.start_mark)
        is_key = self.key_slot()
        if is_key:  # a collection as a key: refused; its insides go nowhere
            shown = "a mapping" if is_map else "a sequence"
            self.set_key(object(), mark, False, shown)
            path: PathKey = (*self.stack[-1].path, "?")
        else:
            path = self.value_path(mark)
            if self.building:
                try:
                    self.charge(path)
                except (TooBig, TooDeep) as exc:
                    self.copy_failed(exc)
        frame = _Frame({} if is_map else [], path, mark, event.anchor, len(self.paths))
        frame.records = len(self.records)
        frame.is_key = is_key
        tag = event.tag
        if tag in _ORDERED:
            raise Unsupported(f"the tag {tag.replace(scalars.CORE_PREFIX, '!!')}", event.start_mark)  # an ordered map
        if tag not in _CORE_COLLECTION_TAGS:
            if not is_key:
                self.refuse(path, _refused_tag(tag))
            frame.refused = True
        if frame.refused or is_key:
            self.quiet += 1
        if event.anchor is not None:
            self.open_anchors.append(event.anchor)
        self.stack.append(frame)

    def _end(self) -> None:
        frame = self.stack.pop()
        if frame.refused or frame.is_key:
            self.quiet -= 1
        value = None if frame.refused else frame.out
        if frame.refused or frame.is_key:  # ruamel records nothing inside a refused node or a key
            for anchor in reversed(self.anchor_log):
                if anchor.start < frame.start:
                    break
                self.relative(anchor)
            del self.paths[frame.start :]
            del self.raws[frame.start :]
        if frame.anchor is not None:
            self.open_anchors.pop()
            self.remember(
                frame.anchor,
                _Anchor(
                    frame.path, value, frame.mark, frame.start, len(self.paths), (frame.records, len(self.records))
                ),
            )
        if not frame.is_key:
            self.place(value)

    def _alias(self, event: Any) -> None:
        name = event.anchor
        mark = self.pos(event.start_mark)
        if name in self.open_anchors:
            what = f"alias *{name} refers to the node its anchor is on (a structure that contains itself); refused"
            raise Fatal(Problem(self.src(mark), "", what))
        anchor = self.anchors.get(name)
        if anchor is None:
            raise Fatal(Problem(self.src(mark), "", f"YAML syntax error: found undefined alias {name!r}"))
        if self.key_slot():  # ruamel places an aliased key where its anchored node is written
            value = anchor.value
            self.set_key(value, anchor.mark, isinstance(value, str), repr(value))
            return
        path = self.value_path(anchor.mark)  # ruamel places an aliased item where its anchored node is written
        value = None
        if self.building:
            try:
                value = self.replay(anchor, path)
            except (TooBig, TooDeep) as exc:
                self.copy_failed(exc)
        self.place(value)
