"""One-line flow items (``  - {name: leaf1, role: leaf, id: 3}``) read without libyaml's event stream.

An explicit inventory is mostly such lines: tens of thousands of switches, nodes and cables, one per line.
libyaml turns each into a mapping-start event, two scalar events per key and a mapping-end event, every one a
Python object with two position objects; building the tree from them cost ~20 µs per item. This module finds
the lines whose item it can read exactly with one regular expression and a split, reads them here, and hands
libyaml a copy of the text in which each such item is the one-character plain scalar ``0`` at the same line and
column. :class:`fabricgen.inventory.cyaml.Reader` puts the item read here where libyaml reports that scalar.

Only the plainest form is taken, so that there is nothing to get wrong; any other line stays with libyaml:

* ``- {`` right after the indentation (spaces only) and ``}`` at the end of the line (trailing spaces or tabs
  allowed), nothing else on the line: no comment, no second item;
* ``key: value`` pairs separated by ``, ``; a key is a word (letters, digits, ``_``, ``-``) that resolves to a
  string; a value is one plain word of letters, digits and ``_ . / + ~ - : @`` that does not start with ``:``,
  ``@`` or ``-`` followed by nothing, and does not end with ``:`` — no space, quote, bracket, brace, comma,
  ``#``, ``&``, ``*``, ``!``, ``|``, ``>``, ``%`` or backquote anywhere in the item;
* each value resolves, as a plain scalar, to a string, integer, float, boolean, null or timestamp
  (:func:`fabricgen.inventory.scalars.construct_plain`, the same resolution as every other scalar);
* no key written twice.

Whether a taken line really is a block sequence item is settled by the parse of the copy, not guessed here:
the reader accepts the copy only if every placeholder comes back as a plain sequence item at exactly its
line and column; a line inside a block scalar, a quoted scalar or anything else makes it read the original
text instead (as does any error), so errors and their positions are always libyaml's on the original.
"""

from __future__ import annotations

import re
from typing import Any

from fabricgen.inventory import scalars

PLACEHOLDER = "0"
"""What a taken item becomes in the copy of the text handed to libyaml."""

MAX_LINE = 1000
"""Longer lines stay with libyaml (its simple-key limit is 1024 characters)."""

_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
_VALUE = r"(?:[A-Za-z0-9_./+~]|-(?=[A-Za-z0-9_./+~:@-]))[A-Za-z0-9_./+~:@-]*(?<!:)"
_PAIR = f"{_KEY}: {_VALUE}"
_LINE = re.compile(rf"^( *)- \{{({_PAIR}(?:, {_PAIR})*)\}}[ \t]*$", re.MULTILINE)
_KEEP = frozenset(
    (scalars.STR, scalars.INT, scalars.FLOAT, scalars.BOOL, scalars.NULL, scalars.TIMESTAMP)
)
_FIRST_CHARS = scalars.FIRST_CHARS  # a text starting with another character is a string, itself


def read_items(inner: str, built: dict[str, Any]) -> dict[str, Any] | None:
    """The mapping written between the braces (``inner``, matched by ``_LINE``); None when a key is repeated or
    does not resolve to a string, or a value does not resolve to a core scalar. ``built``: the values of texts
    already resolved that do not resolve to themselves."""
    value: dict[str, Any] = {}
    first_chars = _FIRST_CHARS
    for piece in inner.split(", "):  # a value holds no space: every ", " separates two pairs
        key, _, text = piece.partition(": ")  # a key holds no colon
        if key in value:
            return None
        if key[:1] in first_chars:
            got = built.get(key, _MISSING)
            if got is _MISSING:
                got = built[key] = _resolve(key)
            if got != key or type(got) is not str:  # a key must be the string it is written as
                return None
        if text[:1] in first_chars:
            got = built.get(text, _MISSING)
            if got is _MISSING:
                got = built[text] = _resolve(text)
            if got is _REFUSED:
                return None
            value[key] = got
        else:
            value[key] = text
    return value


def key_columns(line: str) -> dict[str, int]:
    """The 1-based column of each key of the item on ``line`` (a line :func:`take` took): positions are worked
    out only when a problem is reported, so taking a line records just the item's own position."""
    m = _LINE.match(line)
    if m is None:
        return {}
    columns: dict[str, int] = {}
    col = m.start(2) + 1
    for piece in m.group(2).split(", "):
        columns.setdefault(piece.partition(": ")[0], col)
        col += len(piece) + 2
    return columns


_MISSING = object()
_REFUSED = object()


def _resolve(text: str) -> Any:
    """A plain scalar's value as every other scalar of the file is resolved, or ``_REFUSED``."""
    if text[:1] not in scalars.FIRST_CHARS:
        return text
    try:
        tag, value = scalars.construct_plain(text)
    except Exception:
        return _REFUSED
    return value if tag in _KEEP else _REFUSED


def take(text: str) -> tuple[str, dict[int, tuple[int, dict[str, Any]]]]:
    """The copy of ``text`` with every taken item replaced by :data:`PLACEHOLDER`, and the taken items by
    0-based line number: the 1-based column of the ``{`` and the item's value (no items, and ``text`` itself,
    when none is taken)."""
    items: dict[int, tuple[int, dict[str, Any]]] = {}
    out: list[str] = []
    last = 0  # end of the text copied so far
    line = 0  # 0-based line number at offset ``counted``
    counted = 0
    built: dict[str, Any] = {}
    count = text.count
    for m in _LINE.finditer(text):
        start, end = m.span()
        if end - start > MAX_LINE:
            continue
        value = read_items(m.group(2), built)
        if value is None:
            continue
        brace = m.end(1) + 2  # the offset of "{"
        line += count("\n", counted, start)
        counted = start
        items[line] = (brace - start + 1, value)
        out.append(text[last:brace])
        out.append(PLACEHOLDER)
        last = end
    if not items:
        return text, items
    out.append(text[last:])
    return "".join(out), items
