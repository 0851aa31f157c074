"""Memoisation of pure functions of a :class:`~fabricgen.topology.model.Fabric`, per Fabric object.

A Fabric is immutable, so anything derived from it (its QoS, the ends of its links) can be computed once
and shared by every check and renderer that asks. Entries live exactly as long as their Fabric.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from fabricgen.topology.model import Fabric

R = TypeVar("R")


def per_fabric(fn: Callable[[Fabric], R]) -> Callable[[Fabric], R]:
    """``fn(fabric)`` computed once per Fabric object (Fabrics are unhashable: keyed by identity)."""
    cache: dict[int, tuple[weakref.ref[Fabric], R]] = {}

    @wraps(fn)
    def wrapper(fabric: Fabric) -> R:
        key = id(fabric)
        hit = cache.get(key)
        if hit is not None and hit[0]() is fabric:
            return hit[1]
        result = fn(fabric)
        cache[key] = (weakref.ref(fabric, lambda _ref: cache.pop(key, None)), result)
        return result

    return wrapper
