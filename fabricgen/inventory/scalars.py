"""Plain YAML scalars resolved the way the ruamel.yaml loader resolves them (YAML 1.2).

The libyaml-based loader (:mod:`fabricgen.inventory.cyaml`) hands over scalars as text. PyYAML would resolve
them by YAML 1.1 (``yes``/``on`` as booleans, ``0777`` as octal, ``1:20`` as base 60); an inventory must
mean the same whichever parser read it, so plain scalars are resolved here with ruamel's own YAML 1.2
implicit resolvers, and the rare forms whose value needs ruamel's construction rules (underscores, ``0o``,
``0x``, ``0b``, floats, timestamps) are built by ruamel's round-trip constructor itself. The common forms
(words, plain decimal integers) never leave this module's fast path.

A timestamp becomes its ISO 8601 string, as it always did (``2024-01-02`` stays ``"2024-01-02"``).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import implicit_resolvers
from ruamel.yaml.tag import Tag

CORE_PREFIX = "tag:yaml.org,2002:"
STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
MERGE = "tag:yaml.org,2002:merge"
VALUE = "tag:yaml.org,2002:value"

# first character -> [(tag, regexp)], in ruamel's order, YAML 1.2 only
_RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _versions, _tag, _regexp, _first in implicit_resolvers:
    if (1, 2) in _versions:
        _compiled = re.compile(_regexp.pattern, _regexp.flags)  # ruamel's RegExp compiles lazily
        for _ch in _first:
            _RESOLVERS.setdefault(_ch, []).append((_tag, _compiled))

FIRST_CHARS = frozenset(_RESOLVERS)
"""A plain scalar starting with any other character is a string."""

_DECIMAL = re.compile(r"-?[1-9][0-9]{0,17}|0")  # what int() reads exactly as ruamel does, no construction needed
_BOOLS = {"true": True, "false": False}


def resolve_plain(value: str) -> str:
    """The tag ruamel's YAML 1.2 resolver gives a plain (unquoted, untagged) scalar."""
    for tag, regexp in _RESOLVERS.get(value[:1], ()):
        if regexp.match(value):
            return tag
    return STR


class _Constructor:
    """ruamel's round-trip constructor, used on single scalars of the forms it alone knows how to read."""

    def __init__(self) -> None:
        self._c: Any = YAML(typ="rt", pure=True).constructor
        self._methods: dict[str, Callable[[Any], Any]] = {
            INT: self._c.construct_yaml_int,
            FLOAT: self._c.construct_yaml_float,
            BOOL: self._c.construct_yaml_sbool,
            NULL: self._c.construct_yaml_null,
            TIMESTAMP: self._c.construct_yaml_timestamp,
        }

    def known(self, tag: str) -> bool:
        return tag in self._methods

    def build(self, tag: str, value: str) -> Any:
        out = self._methods[tag](ScalarNode(Tag(suffix=tag), value, None, None))
        return plain(out)


_CONSTRUCTOR: _Constructor | None = None


def constructor() -> _Constructor:
    global _CONSTRUCTOR
    if _CONSTRUCTOR is None:
        _CONSTRUCTOR = _Constructor()
    return _CONSTRUCTOR


def plain(value: Any) -> Any:
    """ruamel's scalar subclasses (ScalarInt, ScalarFloat, TimeStamp, ...) as plain Python values."""
    if isinstance(value, bool) or value is None:
        return bool(value) if value is not None else None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def construct_plain(value: str) -> tuple[str, Any]:
    """Resolve and build a plain scalar: its tag and its value.

    Raises ValueError (or another exception of ruamel's constructor) for a value that cannot be built,
    e.g. an integer of more than 4,300 digits.
    """
    if value[:1] not in FIRST_CHARS:
        return STR, value
    if _DECIMAL.fullmatch(value):  # only the int resolver matches digits alone
        return INT, int(value)
    tag = resolve_plain(value)
    if tag == STR:
        return STR, value
    if tag == NULL:
        return NULL, None
    if tag == BOOL:
        return BOOL, _BOOLS[value.lower()]
    if constructor().known(tag):
        return tag, constructor().build(tag, value)
    return tag, value  # merge (<<) and value (=): the caller decides
