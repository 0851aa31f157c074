"""The Jinja2 environment: templates shipped inside the package, StrictUndefined, no computing.

Templates live in ``fabricgen/templates/<platform>/`` (package data, so an installed wheel finds them).
``StrictUndefined`` turns a missing field into an error instead of an empty string; ``trim_blocks`` and
``lstrip_blocks`` keep block tags from leaving blank lines and indentation behind. The only filters are
formatting helpers (``join`` etc. from Jinja2) and the escaping filters below; anything that needs
arithmetic lives in :mod:`fabricgen.render.data`.

Trust boundary, second line: the inventory's strings are checked identifiers
(:mod:`fabricgen.inventory.schema`), and in addition every value a template prints passes
:func:`finalize`, which refuses a newline, carriage return or any other control character, so no value
can ever start a configuration line of its own. A string printed inside quotes goes through the filter
of its format:

* ``| junos_str`` — a Junos double-quoted string (``"..."`` with ``\\`` and ``"`` escaped);
* ``| yaml_str`` — a YAML single-quoted scalar (``'...'`` with ``'`` doubled);
* ``| dq_str`` — a double-quoted string with ``\\`` and ``"`` escaped (lldpcli);
* ``| sh`` — one shell word (:func:`shlex.quote`).
"""

from __future__ import annotations

import shlex
import unicodedata
from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined, Template


class UnsafeValue(ValueError):
    """A value that would break out of its line in a rendered file (a newline or control character)."""


def _unsafe_char(text: str) -> str | None:
    """The first character of ``text`` that may not appear in a rendered line, or None."""
    return next((ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")), None)


def finalize(value: object) -> object:
    """Every ``{{ … }}`` ends here: strings with a control character (newline, CR, tab, NUL, ESC, U+2028 …)
    are refused with :class:`UnsafeValue`; everything else prints as it is.

    >>> finalize("leaf1:swp1"), finalize(400)
    ('leaf1:swp1', 400)
    """
    if type(value) is str:
        if value.isascii() and value.isprintable():  # the common case, checked in C
            return value
        text = value
    elif isinstance(value, int | float):  # bool, int, float: nothing to check
        return value
    else:
        text = str(value)
        if text.isascii() and text.isprintable():
            return value
    bad = _unsafe_char(text)
    if bad is not None:
        raise UnsafeValue(f"refusing to render {text[:60]!r}: it contains the control character {bad!r}")
    return value


def junos_str(value: object) -> str:
    """A Junos configuration string in double quotes. Junos reads a value with spaces or special characters
    only inside double quotes, in which a backslash escapes the next character ("Additional Details About
    Specifying Junos Statements and Identifiers", Junos CLI User Guide,
    juniper.net/documentation/en_US/junos12.3/topics/concept/junos-cli-statements-and-identifiers-detailed-information.html).

    >>> print(junos_str('leaf "1" \\\\'))
    "leaf \\"1\\" \\\\"
    """
    return dq_str(value)


def dq_str(value: object) -> str:
    """A double-quoted string with backslash and double quote escaped."""
    text = str(finalize(str(value)))
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def yaml_str(value: object) -> str:
    """A YAML single-quoted scalar (the only escape in single quotes is ``''``).

    >>> yaml_str("it's")
    "'it''s'"
    """
    text = str(finalize(str(value)))
    return "'" + text.replace("'", "''") + "'"


def sh(value: object) -> str:
    """One POSIX shell word: :func:`shlex.quote`, which leaves safe words such as ``swp1`` unchanged.

    >>> sh("swp1"), sh("a b; c")
    ('swp1', "'a b; c'")
    """
    return shlex.quote(str(finalize(str(value))))


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("fabricgen", "templates"),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
        finalize=finalize,
    )
    env.filters.update(junos_str=junos_str, yaml_str=yaml_str, dq_str=dq_str, sh=sh)
    return env


@cache
def template(name: str) -> Template:
    """A compiled template by its path under ``fabricgen/templates`` (cached: templates compile once)."""
    return environment().get_template(name)
