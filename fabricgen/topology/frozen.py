"""A faster ``__init__`` for the frozen ``slots`` dataclasses a fabric is made of.

A frozen dataclass assigns each field in ``__init__`` through ``object.__setattr__(self, "name", value)``: a
global lookup, an attribute lookup and a call per field, which made building a port or a link cost more
than everything else resolve does for it (about 2.6 µs for an 11-field ``Port`` on the benchmark machine).
:func:`fast_init` replaces that ``__init__`` by one that stores each field straight through its slot
descriptor, bound once per class (about half the time). The instances stay exactly as frozen: assigning
or deleting a field after construction still raises :class:`dataclasses.FrozenInstanceError`, and equality,
hashing, ``repr`` and ``dataclasses.replace`` are the dataclass's own.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, TypeVar, cast

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen slots dataclass ``cls`` a slot-storing ``__init__`` with the same signature.

    Positional and keyword arguments, defaults, ``default_factory`` and ``__post_init__`` behave as in the
    generated one.

    >>> from dataclasses import dataclass
    >>> @fast_init
    ... @dataclass(frozen=True, slots=True)
    ... class End:
    ...     device: str
    ...     port: str = "swp1"
    >>> End("leaf1"), End(port="swp2", device="leaf2") == End("leaf2", "swp2")
    (End(device='leaf1', port='swp1'), True)
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: fast_init is for @dataclass(frozen=True, slots=True) classes")
    ns: dict[str, Any] = {"MISSING": MISSING}
    args: list[str] = []
    body: list[str] = []
    for f in fields(cast(Any, cls)):
        if not f.init or f.kw_only:
            raise TypeError(f"{cls.__name__}.{f.name}: fast_init supports positional init fields only")
        ns[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is not MISSING:
            ns[f"_default_{f.name}"] = f.default
            args.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not MISSING:
            ns[f"_factory_{f.name}"] = f.default_factory
            args.append(f"{f.name}=MISSING")
            body.append(f"    if {f.name} is MISSING:\n        {f.name} = _factory_{f.name}()")
        elif any("=" in a for a in args):
            raise TypeError(f"{cls.__name__}.{f.name}: a field without a default follows one with a default")
        else:
            args.append(f.name)
        body.append(f"    _set_{f.name}(self, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    # the source is made only of this class's own field names (identifiers in fabricgen's code, checked by the
    # dataclass machinery), never of inventory data
    source = f"def __init__(self, {', '.join(args)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, ns)
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
