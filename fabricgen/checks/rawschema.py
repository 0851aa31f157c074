"""Raw NVUE and SONiC blocks judged by the platform's own schema, from ``validate`` on.

When the inventory loads, :func:`fabricgen.inventory.raw.check_raw` judges a raw block's text, shape, secrets
and owned sections; whether its NVUE object paths or config_db tables, keys and fields *exist* (and take the
values written) only the platform's schema knows. This check renders each switch that carries an ``nvue`` or
``sonic`` raw block, runs the oracle of :mod:`fabricgen.render.check` on the rendered file, and reports what
the raw block caused at the block line that wrote it (FG-BASE-006).

Layering: ``checks`` and ``render`` sit side by side above ``qos`` (DESIGN.md); ``render`` never imports
``checks``, so rendering here adds no cycle, and it is imported only when a switch carries such a block —
a fabric without one costs a look at its ``base:`` levels.

Switches whose judgement cannot differ are judged once: NVUE validates the raw block as its own ``- set:``
document, so its verdict depends on the release and the merged block only; a SONiC block is merged into the
switch's config_db, whose leafrefs reach the switch's ports, so a SONiC verdict is taken per release, model,
role and merged block. A finding names the switch judged and how many others share the verdict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from fabricgen.checks import Finding, Severity
from fabricgen.errors import SourcePos
from fabricgen.topology.base import raw_blocks, raw_levels
from fabricgen.topology.model import Fabric, Switch

CODE = "FG-BASE-006"
ORACLE_PLATFORMS = ("nvue", "sonic")
MAX_MESSAGE = 240
"""Longer oracle messages (an enumeration of every time zone) are cut here, with ``…``."""

Path = tuple[str, ...]


def _carries(fabric: Fabric) -> bool:
    """Whether any ``base:`` level has an nvue or sonic raw block (no switch is looked at)."""
    levels = [fabric.base.defaults, *fabric.base.roles.values(), *fabric.base_overrides.values()]
    return any(level.raw is not None and any(p in level.raw for p in ORACLE_PLATFORMS) for level in levels)


def raw_schema(fabric: Fabric) -> Iterator[Finding]:
    """FG-BASE-006: an NVUE or SONiC raw block (``base.raw.nvue`` / ``base.raw.sonic``) that the platform's own
    schema refuses once rendered — a path, table, key or field the schema does not have, or a value it does
    not take (NVIDIA's NVUE schema of the switch's release, strict; SONiC's YANG models in libyang). Reported
    at the block line that wrote it; without the schema's package, one info finding says what was not
    checked."""
    if not _carries(fabric):
        return
    groups: dict[tuple[str, ...], list[str]] = {}
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        if sw.platform not in ORACLE_PLATFORMS:
            continue
        blocks = raw_blocks(fabric, name, sw.platform)
        if not blocks:
            continue
        key = (sw.platform, sw.release, *((sw.model, sw.role.value) if sw.platform == "sonic" else ()), *blocks)
        groups.setdefault(key, []).append(name)
    if not groups:
        return
    yield from _judge(fabric, groups)


def _judge(fabric: Fabric, groups: dict[tuple[str, ...], list[str]]) -> Iterator[Finding]:
    from fabricgen.qos import compute
    from fabricgen.render import check as oracles
    from fabricgen.render import render_device

    unchecked: dict[str, list[str]] = {}  # why no oracle ran → the switches
    found: dict[tuple[SourcePos | None, str], list[str]] = {}  # (where, message) → the switches
    files: dict[str, list[str]] = {}
    qos = None
    for members in groups.values():
        sw = fabric.switches[members[0]]
        validate, oracle_name, missing = _oracle(oracles, sw)
        if validate is None:
            unchecked.setdefault(missing, []).extend(members)
            continue
        if qos is None:
            qos = compute(fabric)
        config = render_device(fabric, sw.name, qos)
        suffix = "/startup.yaml" if sw.platform == "nvue" else "/config_db.json"
        text = next(f.content for f in config.files if f.path.endswith(suffix))
        raw = _raw_doc(fabric, sw)
        problems = _nvue_problems(text, raw, validate) if sw.platform == "nvue" else _sonic_problems(
            text, raw, oracles.sonic_oracle())
        for path, problem in problems:
            src, field, lead = _where(fabric, sw, path, files)
            shown = ".".join(path) if sw.platform == "nvue" else _sonic_label(path)
            message = f"{field}: {lead}{shown}: {_cut(problem)} ({oracle_name})" if shown else \
                f"{field}: {lead}{_cut(problem)} ({oracle_name})"
            found.setdefault((src, message), []).extend(members)
    for (src, message), members in sorted(found.items(), key=lambda kv: (kv[1][0], kv[0][1])):
        others = len(members) - 1
        yield Finding(
            CODE,
            Severity.ERROR,
            members[0],
            message + (f"; {others} other switch{'es' if others != 1 else ''} carr{'y' if others != 1 else 'ies'} "
                       "the same block" if others else ""),
            "correct the raw block: the switch would refuse this configuration",
            src,
        )
    for missing, members in sorted(unchecked.items()):
        n = len(members)
        yield Finding(
            CODE,
            Severity.INFO,
            members[0],
            f"{n} switch{'es' if n != 1 else ''} ({_names(members)}) carr{'y' if n != 1 else 'ies'} {missing}",
            "raw blocks are then checked for text, secrets and owned sections only",
            fabric.pos("base"),
        )


def _names(members: list[str], limit: int = 3) -> str:
    shown = ", ".join(members[:limit])
    return shown if len(members) <= limit else f"{shown}, …"


def _cut(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _oracle(oracles: Any, sw: Switch) -> tuple[Callable[[str], list[str]] | None, str, str]:
    """The switch's validator, the oracle's name, and (without one) what the info finding says."""
    if sw.platform == "sonic":
        sonic = oracles.sonic_oracle()
        if sonic is None:
            why, fix = oracles.sonic_unavailable() or ("", "")
            return None, "", f"sonic raw blocks that were not checked against SONiC's YANG models ({why}): {fix}"
        return sonic.problems, f"SONiC YANG models, {sonic.source}", ""
    nvue = oracles.nvue_oracle(sw.release)
    if nvue is None:
        if not oracles.nvue_releases():
            why = "nvue raw blocks that were not checked against NVIDIA's NVUE schema: pip install 'fabricgen[oracles]'"
        else:
            why = (f"nvue raw blocks that were not checked: the installed nvueschema has no NVUE {sw.release} "
                   "schema (upgrade it: pip install -U nvueschema)")
        return None, "", why
    return nvue.problems, f"NVUE {sw.release} schema", ""


def _raw_doc(fabric: Fabric, sw: Switch) -> dict[str, Any]:
    from fabricgen.render.base import build_raw

    raw = build_raw(fabric, sw.name, sw.platform)
    return raw.doc if raw is not None and raw.doc is not None else {}


# --------------------------------------------------------------------------- NVUE


def _nvue_problems(text: str, raw: dict[str, Any], validate: Callable[[str], list[str]]
                   ) -> list[tuple[Path, str]]:
    """The problems of the raw block's document of a rendered startup.yaml, each with the object path of the
    block it belongs to: the raw block is rendered as the file's last ``- set:`` document, and the schema
    judges each document on its own, so every problem of that document is the block's."""
    docs = text.split("\n- set:\n")
    if len(docs) < 2:
        return []
    paths: set[Path] = set()

    def walk(node: Any, path: Path) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                paths.add((*path, k))
                walk(v, (*path, k))

    walk(raw, ())
    return [_nvue_split(p, paths) for p in validate("- set:\n" + docs[-1])]


def _nvue_split(problem: str, paths: set[Path]) -> tuple[Path, str]:
    """``problem``'s object path (the longest path of the block its dotted location starts with) and the rest
    of its words. Keys may hold dots (``1.2.3.4``), so the location is matched, not split."""
    best: Path = ()
    for path in paths:
        dotted = ".".join(path)
        if len(path) > len(best) and (problem.startswith(dotted + ":") or problem.startswith(dotted + ".")):
            best = path
    if not best:
        return (), problem
    rest = problem[len(".".join(best)):]
    return best, rest[2:] if rest.startswith(": ") else problem


# --------------------------------------------------------------------------- SONiC


def _sonic_label(path: Path) -> str:
    """``PORTCHANNEL|PortChannel1.mtu`` for (table, key, field), as the load-time messages name a field."""
    if len(path) <= 1:
        return "".join(path)
    label = f"{path[0]}|{path[1]}"
    return f"{label}.{'.'.join(path[2:])}" if len(path) > 2 else label


def _sonic_problems(text: str, raw: dict[str, Any], sonic: Any) -> list[tuple[Path, str]]:
    """The problems of a rendered config_db.json that its raw tables cause, each with the (table[, key[,
    field]]) it belongs to, in the oracle's words.

    libyang names the first problem only and not where it is, so: one validation when the file is valid (the
    usual case); otherwise the file without the raw tables must be valid (if not, the problem is not the
    block's, and ``render --check`` reports it), and the raw rows are added one at a time — a row that makes a
    valid file invalid is the block's problem, and its field is named: the one whose value libyang quotes,
    else the one whose removal makes the file valid again.
    Rows are retried while any is accepted, so a row referring to a later row of the block is judged with it."""
    if not sonic.problems(text):
        return []
    db: dict[str, Any] = json.loads(text)
    accepted = {table: rows for table, rows in db.items() if table not in raw}
    if sonic.problems(json.dumps(accepted)):
        return []
    out: list[tuple[Path, str]] = []
    pending: list[tuple[str, str, dict[str, Any]]] = []
    for table, rows in db.items():
        if table not in raw:
            continue
        for key, row in rows.items():
            try:
                sonic.instance({table: {key: row}})
            except ValueError as exc:
                message = str(exc)
                if message.startswith(f"{table}: table is not"):
                    out.append(((table,), message.removeprefix(f"{table}: ")))
                    break
                field = next((f for f in row if f"{f!r}" in message), None)
                out.append(((table, key, field) if field else (table, key), message))
                continue
            pending.append((table, key, row))

    def trial(table: str, key: str, row: dict[str, Any]) -> dict[str, Any]:
        return {**accepted, table: {**accepted.get(table, {}), key: row}}

    progress = True
    while pending and progress:
        progress, left = False, []
        for table, key, row in pending:
            candidate = trial(table, key, row)
            if sonic.problems(json.dumps(candidate)):
                left.append((table, key, row))
            else:
                accepted, progress = candidate, True
        pending = left
    for table, key, row in pending:
        (problem, *_) = sonic.problems(json.dumps(trial(table, key, row)))
        field = _culprit(problem, row) or next((f for f in row if not sonic.problems(json.dumps(
            trial(table, key, {k: v for k, v in row.items() if k != f})))), None)
        out.append(((table, key, field) if field else (table, key), problem))
    return out


def _culprit(problem: str, row: dict[str, Any]) -> str | None:
    """The one field of ``row`` whose value libyang quotes in ``problem`` (``Invalid enumeration value
    "loud".``), or None."""
    quoted = [f for f, v in row.items() if isinstance(v, str) and f'"{v}"' in problem]
    return quoted[0] if len(quoted) == 1 else None


# --------------------------------------------------------------------------- positions


def _where(fabric: Fabric, sw: Switch, path: Path, files: dict[str, list[str]]
           ) -> tuple[SourcePos | None, str, str]:
    """The file position of ``path`` in the raw block that wrote it (the most specific level writing the
    longest part of it), that level's field path, and a lead for a block not written as a literal scalar."""
    from fabricgen.inventory.raw import block_position, key_lines, parse_structured

    levels = [(_source_path(fabric, sw, field), field, block)
              for field, block in raw_levels(fabric, sw.name, sw.platform)]
    best: tuple[int, int] = (-1, -1)  # (length of the path found, level)
    lines: list[dict[Path, tuple[int, int]]] = []
    for i, (_, _, block) in enumerate(levels):
        written = key_lines(block)
        lines.append(written)
        doc: Any = parse_structured(block)
        for n in range(len(path), -1, -1):
            node = doc
            for part in path[:n]:
                node = node.get(part) if isinstance(node, dict) else None
            if node is not None:
                best = max(best, (n, i))
                break
    if best[1] < 0:
        return sw.src, f"base.raw.{sw.platform}", ""
    n, i = best
    prefix, field, block = levels[i]
    key = fabric.pos(*prefix, "raw", sw.platform)
    line, col = lines[i].get(path[:n], (0, 0)) if n else (0, 0)
    pos, lead = block_position(key, block, line, col, files)
    return pos, f"{field}.raw.{sw.platform}", lead


def _source_path(fabric: Fabric, sw: Switch, field: str) -> tuple[str | int, ...]:
    """The inventory source path of a base level named as :func:`raw_levels` names it."""
    if field.startswith("base."):
        return tuple(field.split("."))
    index = next((i for i in range(len(fabric.switches)) if fabric.pos("switches", i) == sw.src), -1)
    return ("switches", index, "base")


CHECKS = (raw_schema,)
