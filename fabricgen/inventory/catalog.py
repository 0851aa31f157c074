"""The hardware catalog: shipped as data (``fabricgen/data/catalog.yaml``), extendable per inventory."""

from __future__ import annotations

from functools import cache
from importlib import resources

from ruamel.yaml import YAML

from fabricgen.inventory.schema import PLATFORMS, Catalog

__all__ = ["PLATFORMS", "merged", "shipped"]


@cache
def shipped() -> Catalog:
    """The catalog that ships with fabricgen."""
    text = resources.files("fabricgen").joinpath("data/catalog.yaml").read_text(encoding="utf-8")
    return Catalog.model_validate(YAML(typ="safe").load(text))


def merged(extra: Catalog) -> Catalog:
    """The shipped catalog with the inventory's entries added (an entry of the same name replaces it)."""
    base = shipped()
    return Catalog(
        switches={**base.switches, **extra.switches},
        nics={**base.nics, **extra.nics},
        servers={**base.servers, **extra.servers},
    )
