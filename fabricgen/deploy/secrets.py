"""Secrets of the base configuration: resolved from the environment in memory, only at load time.

Rendered files carry a placeholder ``__FABRICGEN_ENV_<NAME>__`` for every ``env:NAME`` reference of the
inventory's ``base:`` section (:mod:`fabricgen.render.base`), never the value. ``apply`` reads the values with
:func:`secret_values` before any device is contacted (a missing variable is an input error naming it, exit 3),
substitutes them with :func:`substitute` into the text it loads and nowhere else, and redacts them from what a
device answers (``compare_config``'s diff). ``drift`` and ``apply``'s own comparison never see a value: the
running configuration is read sanitized, and :func:`fabricgen.deploy.normalize.mask` masks both sides (values
after secret keywords, hash-like tokens and the placeholders), so an unchanged secret is not drift and no secret
is printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from fabricgen.errors import InputError, Problem

PLACEHOLDER = re.compile(r"__FABRICGEN_ENV_([A-Z_][A-Z0-9_]{0,63})__")
# a value goes into a CLI word, a Junos/NVUE quoted string or a JSON string: printable, no blank, no quote
_VALUE = re.compile(r"[!#-&(-\[\]-~]{1,256}")


def referenced(texts: Iterable[str]) -> set[str]:
    """Environment variables the placeholders of ``texts`` name.

    >>> sorted(referenced(["secret sha512 __FABRICGEN_ENV_ADMIN__", "community __FABRICGEN_ENV_RO__ ro"]))
    ['ADMIN', 'RO']
    """
    return {m.group(1) for t in texts for m in PLACEHOLDER.finditer(t)}


def secret_values(configs: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """NAME → value for every variable the configurations reference; :class:`InputError` (one problem per
    variable, naming it and the devices) when one is unset or holds what cannot stand in a configuration."""
    values: dict[str, str] = {}
    problems = []
    for name in sorted(referenced(configs.values())):
        devices = ", ".join(sorted(d for d, t in configs.items() if f"__FABRICGEN_ENV_{name}__" in t))
        value = environ.get(name)
        if value is None:
            problems.append(Problem(None, f"base: env:{name}",
                                    f"environment variable {name} is not set (a secret of {devices})"))
        elif _VALUE.fullmatch(value) is None:
            problems.append(Problem(None, f"base: env:{name}",
                                    f"environment variable {name} must be 1-256 printable ASCII characters without "
                                    "blanks, quotes or backslashes"))
        else:
            values[name] = value
    if problems:
        raise InputError(problems)
    return values


def substitute(text: str, values: Mapping[str, str]) -> str:
    """``text`` with every placeholder replaced by its value (``KeyError`` for a value not read).

    >>> substitute("snmp-server community __FABRICGEN_ENV_RO__ ro", {"RO": "c0mm"})
    'snmp-server community c0mm ro'
    """
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)
