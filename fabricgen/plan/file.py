"""Saving and loading plans, and the check ``apply`` makes before it touches anything.

Usage from ``apply``::

    from fabricgen.plan.file import load_plan, check_inputs

    plan = load_plan("plan.json")          # raises InputError when the file is not a plan
    problems = check_inputs(plan)          # [] when both inventories and fabricgen's version still match
    if problems:
        for p in problems: print(p)        # e.g. "inventories/prod/fabric.yaml: changed since the plan was made (…)"
        raise SystemExit(3)
    plan.devices_to_change                 # then push exactly these (plan.configs holds their diffs)

Paths in a plan are as they were given on the command line, so ``check_inputs`` resolves them against
``root`` (default: the working directory) — run ``apply`` from the same directory as ``plan`` (in CI:
the repository root).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fabricgen import __version__
from fabricgen.errors import InputError, Problem, SourcePos
from fabricgen.plan.inputs import recheck
from fabricgen.plan.model import FORMAT, Plan


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> None:
    """Write ``plan`` as JSON (atomically: a partly written plan never replaces a good one)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(json.dumps(plan.as_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read a plan written by :func:`save_plan`; raises :class:`InputError` when it is not one — including a plan
    whose parts that ``apply`` and ``diagram`` read are not of the shape :func:`save_plan` writes (one problem per
    field, :mod:`fabricgen.plan.shape`), so no reader of a loaded plan meets a missing key or a wrong type."""
    from fabricgen.plan.shape import shape_problems

    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError([Problem(None, "", f"{p}: no such plan file")]) from None
    except OSError as exc:
        raise InputError([Problem(SourcePos(str(p), 1, 1), "", f"cannot read: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError as exc:
        raise InputError([Problem(SourcePos(str(p), 1, 1), "", f"not UTF-8 text: {exc.reason}")]) from None
    except json.JSONDecodeError as exc:
        raise InputError([Problem(SourcePos(str(p), exc.lineno, exc.colno), "", f"not JSON: {exc.msg}")]) from None
    except RecursionError:
        raise InputError([Problem(SourcePos(str(p), 1, 1), "", "not a fabricgen plan: nested too deeply")]) from None
    if isinstance(doc, dict) and doc.get("format") == FORMAT:
        problems = shape_problems(doc)
        if problems:
            raise InputError([Problem(SourcePos(str(p), 1, 1), f, f"not a fabricgen plan: {m}") for f, m in problems])
    try:
        if not isinstance(doc, dict):
            raise ValueError("a plan is a JSON object")
        return Plan.from_dict(doc)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError([Problem(SourcePos(str(p), 1, 1), "", f"not a fabricgen plan: {exc}")]) from None


def check_inputs(plan: Plan, root: str | os.PathLike[str] | None = None) -> list[str]:
    """Empty when the plan's inputs are unchanged; otherwise one sentence per change, naming the file.

    Checks the new inventory's files, the base's (a path, or the files at the git ref's current commit),
    and that this is the fabricgen version that made the plan (rendering may differ between versions).
    """
    base_dir = Path(root) if root is not None else None
    problems: list[str] = []
    if plan.version != __version__:
        problems.append(f"fabricgen {plan.version} made the plan, this is fabricgen {__version__}")
    problems += recheck(plan.new, base_dir)
    problems += [f"base {p}" for p in recheck(plan.base, base_dir)]
    return problems
