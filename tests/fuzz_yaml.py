"""Hypothesis strategies that mutate YAML documents: every field of a bundled inventory replaced by a wrong type,
a huge or negative number, unicode, another enum value (platforms in every case), deleted, doubled or joined by an
unknown key — and the text itself: anchors and aliases, tags, duplicate keys, deep nesting, cuts and stray bytes."""

from __future__ import annotations

import contextlib
from typing import Any

import yaml
from hypothesis import strategies as st

from fabricgen.inventory.catalog import PLATFORMS

Path = tuple[str | int, ...]

ENUM_WORDS = (
    *PLATFORMS, *(p.upper() for p in PLATFORMS), *(p.title() for p in PLATFORMS), "SONiC", "NVUE", "cumulus", "ios",
    "nvidia", "leaf", "spine", "core", "Leaf", "host", "fabric", "dscp", "pcp", "ets", "strict", "drop", "forward",
    "tacacs", "radius", "local", "static", "dynamic", "lossless", "training", "cnp", "storage", "default", "none",
)  # fmt: skip
"""Values of the inventory's enums and of its neighbours, as written and in the wrong case."""

SHAPED = (
    "400G", "800G", "1.6T", "0G", "-400G", "400g", "400 G", "1e3G", "2x400G", "1x800G", "3x200G", "Ethernet0",
    "Ethernet999", "swp1s00", "et-0/0/0:1", "leaf1:Ethernet0", "gpu01:enp24s0np0", "nosuch:port", "10.0.0.0/24",
    "10.0.0.0/33", "300.1.1.1", "::1", "192.0.2.1", "env:FABRICGEN_X", "env:", "$6$s$h", "4.32", "5.14", "202411",
    "99.9", "sn5600", "dgx-h100", "nosuch-model", "aa:bb:cc:dd:ee:ff", "yes", "no", "on", "~", "null", "0777",
    "0x1F", "1_000", ".inf", ".nan", "", " ", "a" * 65,
)  # fmt: skip
"""Strings shaped like the inventory's values (speeds, breakouts, ports, addresses, secrets, releases), right and
wrong."""

NUMBERS = (0, 1, -1, 2, 63, 64, 255, 256, 4095, 4096, 65535, 2**31 - 1, 2**31, 2**32, 2**63, -(2**63), 10**30)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(NUMBERS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(ENUM_WORDS),
    st.sampled_from(SHAPED),
    st.text(max_size=12),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
)
"""One wrong or unusual value."""

values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)
"""A value: a scalar, or a small list or mapping of them."""


def paths(tree: Any, prefix: Path = ()) -> list[Path]:
    """Every path to a value in ``tree`` (mapping keys and list indices), the root excluded."""
    out: list[Path] = []
    if isinstance(tree, dict):
        for key, value in tree.items():
            out.append((*prefix, key))
            out.extend(paths(value, (*prefix, key)))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            out.append((*prefix, i))
            out.extend(paths(value, (*prefix, i)))
    return out


def _parent(tree: Any, path: Path) -> Any:
    node = tree
    for step in path[:-1]:
        node = node[step]
    return node


def _strings(tree: Any) -> list[str]:
    if isinstance(tree, dict):
        return [s for k, v in tree.items() for s in (*([k] if isinstance(k, str) else []), *_strings(v))]
    if isinstance(tree, list):
        return [s for v in tree for s in _strings(v)]
    return [tree] if isinstance(tree, str) else []


@st.composite
def _edited(draw: st.DrawFn, text: str) -> str:
    """A string one small edit away: a digit changed, a character added or dropped, the case flipped."""
    op = draw(st.sampled_from(("digit", "append", "drop", "case", "double")))
    if op == "digit" and any(c.isdigit() for c in text):
        i = draw(st.sampled_from([i for i, c in enumerate(text) if c.isdigit()]))
        return text[:i] + draw(st.sampled_from("0123456789")) + text[i + 1 :]
    if op == "append":
        return text + draw(st.sampled_from(("0", "9", "s0", "/1", ":1", "x", " ", "G", ".5")))
    if op == "drop" and text:
        i = draw(st.integers(0, len(text) - 1))
        return text[:i] + text[i + 1 :]
    if op == "double":
        return text + text
    return text.swapcase()


@st.composite
def plausible(draw: st.DrawFn, value: Any, strings: list[str]) -> Any:
    """A value of the same type as ``value`` that the schema may well accept, so the mutation reaches the stages
    behind the loader (resolution, checks, rendering, planning)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return draw(st.one_of(st.integers(-2, 2 * abs(value) + 3), st.sampled_from(NUMBERS)))
    if isinstance(value, float):
        return draw(st.one_of(st.floats(0, 2 * abs(value) + 1), st.sampled_from((0.0, 0.5, 1.0, 1e-9, 1e9))))
    if isinstance(value, str):
        pool = [s for s in strings if s != value] or [value]
        return draw(st.one_of(st.sampled_from(pool), st.sampled_from(ENUM_WORDS), st.sampled_from(SHAPED),
                              _edited(value)))  # fmt: skip
    if isinstance(value, list) and value:
        op = draw(st.sampled_from(("drop", "double", "reverse", "empty")))
        if op == "drop":
            i = draw(st.integers(0, len(value) - 1))
            return value[:i] + value[i + 1 :]
        if op == "double":
            return [*value, value[draw(st.integers(0, len(value) - 1))]]
        return value[::-1] if op == "reverse" else []
    if isinstance(value, dict) and value:
        drop = draw(st.sampled_from(sorted(value, key=str)))
        return {k: v for k, v in value.items() if k != drop}
    return draw(values)


@st.composite
def mutated_tree(draw: st.DrawFn, tree: Any) -> Any:
    """``tree`` (parsed YAML, not modified) with one to three mutations."""
    import copy

    tree = copy.deepcopy(tree)
    strings = _strings(tree)
    for _ in range(draw(st.integers(1, 3))):
        where = paths(tree)
        if not where:
            return draw(values)
        path = draw(st.sampled_from(where))
        parent, key = _parent(tree, path), path[-1]
        op = draw(st.sampled_from(("plausible", "plausible", "plausible", "plausible", "replace", "replace", "delete",
                                   "unknown-key", "double", "wrap", "swap")))  # fmt: skip
        if op == "plausible":
            parent[key] = draw(plausible(parent[key], strings))
        elif op == "replace":
            parent[key] = draw(values)
        elif op == "delete":
            del parent[key]
        elif op == "unknown-key" and isinstance(parent[key], dict):
            parent[key][draw(st.sampled_from(("nmae", "extra", "Platform", "x-y", "ü")))] = draw(scalars)
        elif op == "double" and isinstance(parent, list):
            parent.insert(int(key), copy.deepcopy(parent[key]))
        elif op == "wrap":
            parent[key] = draw(st.sampled_from(([parent[key]], {"value": parent[key]})))
        elif op == "swap":
            other = draw(st.sampled_from(where))
            with contextlib.suppress(KeyError, IndexError, TypeError):  # the other path moved
                parent[key] = copy.deepcopy(_parent(tree, other)[other[-1]])
    return tree


def dump(tree: Any) -> str:
    """YAML text of a mutated tree (any key type PyYAML can write)."""
    return str(yaml.safe_dump(tree, sort_keys=False, allow_unicode=True, default_flow_style=None, width=120))


TEXT_SNIPPETS = (
    "&a ", "*a", "*nosuch", "!!python/object/apply:os.system ['true'] ", "!!binary aGk= ", "!!set {a, b} ",
    "!!timestamp 2024-01-01 ", "!!omap [{a: 1}] ", "!custom ", "<<: *a\n", "? [a, b]\n: c\n", "{", "[", "]", "\t",
    "\ufeff", "\u2028", "%YAML 1.1\n---\n", "---\n", "...\n", "'", '"', "#", "- ", ": ", "\x85", "\\", "@", "`",
    "[" * 80 + "]" * 80,
)  # fmt: skip
"""YAML text that changes a document's structure or meaning where it lands."""


@st.composite
def mutated_text(draw: st.DrawFn, text: str) -> bytes:
    """``text`` with one or two textual mutations: a line doubled (a duplicate key), a snippet inserted, a cut at
    a byte offset, stray bytes (NUL, invalid UTF-8, control characters)."""
    data = text.encode("utf-8")
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(("double-line", "insert", "insert", "cut", "bytes", "anchor-alias")))
        lines = data.split(b"\n")
        if op == "double-line" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            data = b"\n".join(lines)
        elif op == "insert":
            at = draw(st.integers(0, len(data)))
            data = data[:at] + draw(st.sampled_from(TEXT_SNIPPETS)).encode("utf-8") + data[at:]
        elif op == "cut":
            data = data[: draw(st.integers(0, len(data)))]
        elif op == "bytes":
            at = draw(st.integers(0, len(data)))
            stray = draw(st.sampled_from((b"\x00", b"\xff", b"\xc3", b"\x1b[31m", b"\r", b"\x7f")))
            data = data[:at] + stray + data[at:]
        elif op == "anchor-alias" and len(lines) > 2:
            i, j = sorted(draw(st.lists(st.integers(0, len(lines) - 1), min_size=2, max_size=2)))
            head, sep, rest = lines[i].partition(b": ")
            if sep and rest:
                lines[i] = head + sep + b"&x " + rest
                h2, sep2, _ = lines[j].partition(b": ")
                if sep2 and j != i:
                    lines[j] = h2 + sep2 + b"*x"
            data = b"\n".join(lines)
    return data
