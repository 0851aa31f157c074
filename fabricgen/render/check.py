"""Independent oracles for rendered configurations: the NOS vendor's own schema, not fabricgen's.

- **SONiC** ``config_db.json``: SONiC's YANG models from the directory ``FABRICGEN_SONIC_YANG_DIR`` names
  (sonic-buildimage's ``src/sonic-yang-models/yang-models``; fabricgen ships none) loaded into libyang (the
  ``yang`` extra). Each config_db table is translated into YANG
  instance data the way SONiC's ``sonic_yang_ext.py`` does (table → container of the module that defines
  it; ``key1|key2`` → list keys; map tables such as DSCP_TO_TC_MAP → their inner key/value list; values
  typed as the model says, since stock libyang does not accept numbers as strings) and validated with
  every leafref resolved (BUFFER_PG → BUFFER_PROFILE, PORT_QOS_MAP → DSCP_TO_TC_MAP, QUEUE → WRED_PROFILE …).
  A table fabricgen writes (:func:`fabricgen.inventory.raw.sonic_owned`) whose model is not in the directory is
  left out of the validation and reported as not validated (never as valid); any other table without a model
  came from a raw block and is an error (no model of the directory knows it).
- **NVUE** ``startup.yaml``: NVIDIA's NVUE OpenAPI schema of the device's release as Pydantic models
  (``nvueschema``, the ``oracles`` extra), made strict: unknown keys are refused at every level and values
  are not coerced (JSON-mode strict validation: ``"100"`` is not an integer, ``100ms`` is not a number).

Both loaders return ``None`` when their package is not installed (SONiC's also when no usable model directory is
named: :func:`sonic_unavailable` says why and what to do), so callers can say which oracle ran.
The validators are pure functions of their input; loading a schema is the only expensive step (do it
once per process: :func:`sonic_oracle` and :func:`nvue_oracle` cache).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fabricgen.inventory.raw import sonic_owned
from fabricgen.render.base import PLACEHOLDER_PREFIX, PLACEHOLDER_SUFFIX

SONIC_YANG_ENV = "FABRICGEN_SONIC_YANG_DIR"
"""The environment variable naming the directory of SONiC's YANG models the SONiC oracle loads."""
SONIC_YANG_HOWTO = (f"set {SONIC_YANG_ENV} to a directory of SONiC's YANG models "
                    "(sonic-buildimage src/sonic-yang-models/yang-models)")
"""What to do when no usable directory is named (one line)."""
SONIC_YANG_REQUIRED = "sonic-port.yang"
"""The module every SONiC model directory has: PORT, the target of most of config_db's leafrefs."""


# --------------------------------------------------------------------------- SONiC: libyang


class SonicYang:
    """SONiC's models loaded into one libyang context, plus the config_db → instance-data translation."""

    def __init__(self, libyang: Any, models: Path) -> None:
        self.ly = libyang
        self.models = models
        self.ctx = libyang.Context(str(models))
        self.source = model_source(models)
        self.tables: dict[str, tuple[str, Any]] = {}  # table → (module name, container schema node)
        names = sorted({path.stem.split("@")[0] for path in models.glob("*.yang")})
        for name in names:
            self.ctx.load_module(name)
        # walk the schema only once everything is loaded (loading a module recompiles the context)
        for name in names:
            for top in self.ctx.get_module(name).children():
                if not isinstance(top, libyang.SContainer):
                    continue
                for table in top.children():
                    if isinstance(table, libyang.SContainer):
                        self.tables[table.name()] = (name, table)

    # --- values
    def _value(self, node: Any, raw: Any) -> Any:
        ly = self.ly
        types = [node.type()]
        if node.type().base() == ly.Type.UNION:
            types = list(node.type().union_types())
        if isinstance(raw, list):
            return [self._scalar(types, r) for r in raw]
        return self._scalar(types, raw)

    def _scalar(self, types: list[Any], raw: Any) -> Any:
        ly = self.ly
        ints = (ly.Type.INT8, ly.Type.INT16, ly.Type.INT32, ly.Type.UINT8, ly.Type.UINT16, ly.Type.UINT32)
        for t in types:
            b = t.base()
            if b == ly.Type.LEAFREF:
                b = t.leafref_type().base()
            if b in ints:
                try:
                    return int(raw)
                except ValueError:
                    continue
            if b == ly.Type.BOOL and str(raw).lower() in ("true", "false"):
                return str(raw).lower() == "true"
        return str(raw)

    # --- tables
    def unmodelled(self, db: dict[str, Any]) -> list[str]:
        """The tables of ``db`` that fabricgen writes but no model of this directory defines (sorted): they are
        left out of the validation, so they are not validated."""
        return sorted(t for t in db if t not in self.tables and sonic_owned(t))

    def instance(self, db: dict[str, Any]) -> dict[str, Any]:
        """``db`` as YANG instance data (JSON encoding), without its :meth:`unmodelled` tables; raises
        ``ValueError`` for a table or key no model takes."""
        out: dict[str, dict[str, Any]] = {}
        for table, rows in db.items():
            if table not in self.tables:
                if sonic_owned(table):
                    continue
                raise ValueError(f"{table}: table is not in any loaded SONiC model")
            module, container = self.tables[table]
            out.setdefault(f"{module}:{module}", {})[f"{module}:{table}"] = self._table(container, rows)
        return out

    def _table(self, container: Any, rows: dict[str, Any]) -> dict[str, Any]:
        ly = self.ly
        children = list(container.children())
        sub_containers = {c.name(): c for c in children if isinstance(c, ly.SContainer)}
        lists = [c for c in children if isinstance(c, ly.SList)]
        result: dict[str, Any] = {}
        for key, fields in rows.items():
            if key in sub_containers:
                result[key] = self._fields(sub_containers[key], fields)
                continue
            parts = key.split("|")
            matches = [lst for lst in lists if len(list(lst.keys())) == len(parts)]
            if not matches:
                raise ValueError(f"{container.name()}|{key}: no list of the model takes this key")
            lst = matches[0]
            entry = {k.name(): self._value(k, v) for k, v in zip(lst.keys(), parts, strict=True)}
            entry.update(self._fields(lst, fields))
            result.setdefault(lst.name(), []).append(entry)
        return result

    def _fields(self, node: Any, fields: dict[str, Any]) -> dict[str, Any]:
        ly = self.ly
        is_list = isinstance(node, ly.SList)
        keys = {k.name() for k in node.keys()} if is_list else set()  # noqa: SIM118 (libyang, not a dict)
        by_name = {c.name(): c for c in node.children() if c.name() not in keys}
        inner = [c for c in by_name.values() if isinstance(c, ly.SList)]
        out: dict[str, Any] = {}
        for name, raw in fields.items():
            if name in by_name and not isinstance(by_name[name], ly.SList):
                child = by_name[name]
                if isinstance(child, ly.SLeafList) and isinstance(raw, str):
                    raw = raw.split(",")
                out[name] = self._value(child, raw)
            else:
                # a map table (DSCP_TO_TC_MAP name → {dscp: tc}): one inner list of key + value
                if len(inner) != 1:
                    raise ValueError(f"{node.name()}: unknown field {name!r}")
                lst = inner[0]
                (key_node,) = list(lst.keys())
                (val_node,) = [c for c in lst.children() if c.name() != key_node.name()]
                out.setdefault(lst.name(), []).append(
                    {key_node.name(): self._value(key_node, name), val_node.name(): self._value(val_node, raw)}
                )
        return out

    def validate(self, db: dict[str, Any]) -> None:
        """Raise ``libyang.LibyangError`` (or ``ValueError`` for an unknown table) when ``db`` is invalid.

        A secret placeholder (``__FABRICGEN_ENV_<NAME>__``, :mod:`fabricgen.render.base`) stands for a value
        ``apply`` fills in; it is validated as :data:`PLACEHOLDER_STAND_IN`, a value every secret field of the
        models takes (an SNMP community is 4-32 characters, a placeholder may be longer)."""
        text = _PLACEHOLDER.sub(PLACEHOLDER_STAND_IN, json.dumps(self.instance(db)))
        tree = self.ctx.parse_data_mem(text, "json", strict=True, validate_present=True)
        if tree is not None:
            tree.free()

    def problems(self, text: str) -> list[str]:
        """One line per problem of the config_db.json ``text`` (empty: valid, but for its :meth:`unmodelled`
        tables, which :meth:`judge` names)."""
        return self.judge(text)[0]

    def judge(self, text: str) -> tuple[list[str], list[str]]:
        """The problems of the config_db.json ``text`` (one line each) and its tables not validated
        (:meth:`unmodelled`)."""
        try:
            db = json.loads(text)
        except ValueError as exc:
            return [f"not JSON: {exc}"], []
        if not isinstance(db, dict):
            return ["config_db.json must be a JSON object of tables"], []
        try:
            self.validate(db)
        except (ValueError, self.ly.LibyangError) as exc:
            return [" ".join(str(exc).split())], self.unmodelled(db)
        return [], self.unmodelled(db)


_PLACEHOLDER = re.compile(re.escape(PLACEHOLDER_PREFIX) + r"[A-Z_][A-Z0-9_]{0,63}" + re.escape(PLACEHOLDER_SUFFIX))
PLACEHOLDER_STAND_IN = "fgSecret1"
"""What a secret placeholder is validated as: letters and a digit, 9 characters (sonic-snmp: a community is 4-32
characters without blank, quote, ``@``, ``,`` or backslash; sonic-system-tacacs/-radius: a passkey has no blank,
``#`` or ``,``)."""


def model_source(models: Path) -> str:
    """How a finding cites the models of ``models``: ``<repository> <commit>`` from its ``SOURCE.txt``
    (``Repository : https://github.com/sonic-net/sonic-buildimage`` and ``Commit : 086b03bd…`` lines, the
    first 7 hex digits) when it has one naming both, else the directory itself."""
    try:
        text = (models / "SOURCE.txt").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return str(models)
    fields: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() in ("Repository", "Commit") and name.strip() not in fields:
            fields[name.strip()] = value.strip()
    repo, commit = fields.get("Repository", "").rstrip("/"), fields.get("Commit", "")
    if not repo or re.fullmatch(r"[0-9a-f]{7,40}", commit) is None:
        return str(models)
    return f"{repo.rsplit('/', 1)[-1]} {commit[:7]}"


def sonic_yang_dir() -> Path | None:
    """The directory ``FABRICGEN_SONIC_YANG_DIR`` names (``~`` expanded), or ``None`` when it is unset or empty."""
    value = os.environ.get(SONIC_YANG_ENV, "").strip()
    return Path(value).expanduser() if value else None


def sonic_oracle(models: Path | None = None) -> SonicYang | None:
    """SONiC's YANG models of ``models`` (default: :func:`sonic_yang_dir`) in libyang, or ``None`` when the libyang
    binding is not installed or the directory is not given or not usable (:func:`sonic_unavailable` says why)."""
    loaded = _sonic(models if models is not None else sonic_yang_dir())
    return loaded if isinstance(loaded, SonicYang) else None


def sonic_unavailable(models: Path | None = None) -> tuple[str, str] | None:
    """Why :func:`sonic_oracle` is ``None`` (one line) and what to do (one line), or ``None`` when it loads."""
    loaded = _sonic(models if models is not None else sonic_yang_dir())
    return loaded if isinstance(loaded, tuple) else None


@functools.cache
def _sonic(models: Path | None) -> SonicYang | tuple[str, str]:
    """The models of ``models`` loaded once per process, or (why not, what to do)."""
    try:
        import libyang
    except ImportError:
        return "the libyang binding is not installed", "pip install 'fabricgen[yang]'"
    if models is None:
        return f"{SONIC_YANG_ENV} is not set", SONIC_YANG_HOWTO
    if not models.is_dir():
        return f"{SONIC_YANG_ENV}={models} is not a directory", SONIC_YANG_HOWTO
    if not (models / SONIC_YANG_REQUIRED).is_file():
        return (f"{SONIC_YANG_ENV}={models} has no {SONIC_YANG_REQUIRED}: not a directory of SONiC's YANG models",
                SONIC_YANG_HOWTO)
    try:
        return SonicYang(libyang, models)
    except libyang.LibyangError as exc:
        return (f"{SONIC_YANG_ENV}={models}: libyang cannot load its models: {' '.join(str(exc).split())}",
                SONIC_YANG_HOWTO)


# --------------------------------------------------------------------------- NVUE: nvueschema


def _strict_models(module: Any) -> type[Any]:
    """The root model of an ``nvueschema`` release module with ``extra="forbid"`` on every model.

    The generated models ignore unknown keys (pydantic's default), which would accept a misspelt or
    misplaced path; every model of the module is switched to ``forbid`` and rebuilt, so the whole tree is
    strict. This changes the module's classes in place (they are used here only).
    """
    from pydantic import BaseModel

    classes = [c for c in vars(module).values()
               if isinstance(c, type) and issubclass(c, BaseModel) and c.__module__ == module.__name__]
    for c in classes:
        c.model_config["extra"] = "forbid"
    for c in classes:
        c.model_rebuild(force=True)
    root: type[Any] = module.NvueConfig
    return root


@dataclass(frozen=True)
class NvueSchema:
    """NVIDIA's NVUE schema of one release, strict."""

    release: str
    root: type[Any]

    def problems(self, text: str) -> list[str]:
        """One line per problem of the startup.yaml ``text`` (a list of ``- set:`` documents; empty: valid)."""
        import yaml
        from pydantic import ValidationError

        try:
            docs = yaml.load(text, Loader=_yaml12_loader())  # a safe loader with YAML 1.2 scalars
        except yaml.YAMLError as exc:
            return [f"not YAML: {' '.join(str(exc).split())}"]
        if not isinstance(docs, list) or not all(isinstance(d, dict) and set(d) == {"set"} for d in docs):
            return ["startup.yaml must be a list of `- set:` documents"]
        out: list[str] = []
        for doc in docs:
            try:
                self.root.model_validate_json(json.dumps(doc["set"]), strict=True)
            except ValidationError as exc:
                for e in exc.errors():
                    where = ".".join(str(p) for p in e["loc"])
                    out.append(f"{where}: {e['msg']} (got {json.dumps(e['input'])[:60]})")
        return out


@functools.cache
def _yaml12_loader() -> type[Any]:
    """PyYAML's C safe loader with YAML 1.2 core-schema scalars, as NVUE reads startup.yaml: ``on``/``off``
    stay strings (YAML 1.1 would make them booleans) and ``1:20`` is no base-60 number. PyYAML's C parser is
    several times faster than ruamel.yaml's pure-Python one on a fabric's worth of files."""
    import re

    import yaml

    class Yaml12Loader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):  # type: ignore[misc]
        pass

    Yaml12Loader.yaml_implicit_resolvers = {}
    core = [
        ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
        ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
        ("tag:yaml.org,2002:float",
         r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
         list("-+0123456789.")),
    ]
    for tag, pattern, first in core:
        Yaml12Loader.add_implicit_resolver(tag, re.compile(pattern), first)
    return Yaml12Loader


def nvue_releases() -> tuple[str, ...]:
    """The NVUE releases whose schema the installed ``nvueschema`` carries (empty: not installed)."""
    try:
        from nvueschema.models._versions import VERSIONS
    except ImportError:
        return ()
    return tuple(VERSIONS)


@functools.cache
def nvue_oracle(release: str) -> NvueSchema | None:
    """NVIDIA's NVUE schema for ``release`` ("5.14"), or ``None`` when nvueschema (or that release) is missing."""
    if release not in nvue_releases():
        return None
    module = importlib.import_module(f"nvueschema.models.v{release.replace('.', '_')}")
    return NvueSchema(release, _strict_models(module))


# --------------------------------------------------------------------------- checking rendered files


@dataclass(frozen=True)
class Checked:
    """The outcome of one oracle over the files of one platform and release."""

    platform: str
    release: str
    oracle: str  # "libyang + SONiC YANG models (sonic-buildimage 086b03b)", or why none ran
    ran: bool
    files: int
    problems: tuple[tuple[str, str], ...]  # (file, problem)
    install: str | None = None  # when it did not run: what to install (or set) so that it runs
    unvalidated: tuple[str, ...] = ()  # tables of the files the oracle has no model for (SONiC: not validated)
    models: str = ""  # where the oracle's models are (SONiC: the directory), for the not-validated line


@dataclass(frozen=True)
class ToCheck:
    path: str  # the file, as shown to the user
    platform: str
    release: str
    text: str


def check_files(files: Iterable[ToCheck]) -> list[Checked]:
    """Run the oracle of each (platform, release) over its files; platforms without an oracle are left out."""
    groups: dict[tuple[str, str], list[ToCheck]] = {}
    for f in files:
        if f.platform in ("sonic", "nvue"):
            groups.setdefault((f.platform, f.release), []).append(f)
    out: list[Checked] = []
    for (plat, release), group in sorted(groups.items()):
        validate: Callable[[str], list[str]] | None
        install: str | None = None
        if plat == "sonic":
            sonic = sonic_oracle()
            if sonic is not None:
                out.append(_check_sonic(sonic, release, group))
                continue
            why, install = sonic_unavailable() or ("", "")
            validate, name = None, f"not run: {why} ({install})"
        else:
            nvue = nvue_oracle(release)
            validate = nvue.problems if nvue is not None else None
            if nvue is not None:
                name = f"nvueschema NVUE {release} OpenAPI models, strict"
            elif not nvue_releases():
                install = "pip install 'fabricgen[oracles]'"
                name = f"not run: nvueschema is not installed ({install})"
            else:
                install = f"an nvueschema with the NVUE {release} schema (pip install --upgrade nvueschema)"
                name = f"not run: the installed nvueschema has no NVUE {release} schema"
        problems: list[tuple[str, str]] = []
        if validate is not None:
            for f in group:
                problems.extend((f.path, p) for p in validate(f.text))
        out.append(Checked(plat, release, name, validate is not None, len(group), tuple(problems), install))
    return out


def _check_sonic(sonic: SonicYang, release: str, group: list[ToCheck]) -> Checked:
    """The SONiC oracle over ``group``: each file's problems, and the tables of any file it did not validate."""
    problems: list[tuple[str, str]] = []
    unvalidated: set[str] = set()
    for f in group:
        found, skipped = sonic.judge(f.text)
        problems.extend((f.path, p) for p in found)
        unvalidated.update(skipped)
    return Checked("sonic", release, f"libyang + SONiC YANG models ({sonic.source})", True, len(group),
                   tuple(problems), None, tuple(sorted(unvalidated)), str(sonic.models))
