"""The Jinja2 environment: templates shipped inside the package, StrictUndefined, no computing.

Templates live in ``fabricgen/templates/<platform>/`` (package data, so an installed wheel finds them).
``StrictUndefined`` turns a missing field into an error instead of an empty string; ``trim_blocks`` and
``lstrip_blocks`` keep block tags from leaving blank lines and indentation behind. The only filters are
formatting helpers (``join`` etc. from Jinja2); anything that needs arithmetic lives in
:mod:`fabricgen.render.data`.
"""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined, Template


@cache
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("fabricgen", "templates"),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
    )


@cache
def template(name: str) -> Template:
    """A compiled template by its path under ``fabricgen/templates`` (cached: templates compile once)."""
    return environment().get_template(name)
