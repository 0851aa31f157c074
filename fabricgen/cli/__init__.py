"""Command line: parse arguments, call one stage, print, choose the exit code.

Shared pieces live here (the group, exit codes, the input-error guard, consoles); each command is a
small module beside this one.

Exit codes (CI relies on them): 0 ok · 1 error findings or a failed operation · 2 drift/changes
(with --detailed-exitcode) · 3 usage or input error.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

import click
from rich.console import Console

from fabricgen import __version__
from fabricgen.errors import InputError
from fabricgen.runtime import tune_gc

EXIT_OK, EXIT_FINDINGS, EXIT_CHANGES, EXIT_INPUT = 0, 1, 2, 3

P = ParamSpec("P")
R = TypeVar("R")

FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output for people (text) or machines (json).",
)


def stdout_console() -> Console:
    return Console(highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 160)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn input errors into one line per problem and exit 3; never show a traceback by accident."""

    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            if kwargs.get("fmt") == "json":
                doc = {"ok": False, "input_problems": [p.as_dict() for p in exc.problems]}
                click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
            err = stderr_console()
            for problem in exc.problems:
                err.print(str(problem), markup=False)
            err.print(f"{len(exc.problems)} input problem(s); nothing was checked further", markup=False)
            raise SystemExit(EXIT_INPUT) from None
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:
            if os.environ.get("FABRICGEN_DEBUG"):
                raise
            stderr_console().print(
                f"fabricgen: internal error: {type(exc).__name__}: {exc} (set FABRICGEN_DEBUG=1 for the traceback)",
                markup=False,
            )
            raise SystemExit(EXIT_FINDINGS) from None

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fabricgen")
def app() -> None:
    """fabricgen: declare a GPU fabric, check it, render it, plan and apply changes."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: like click's standalone mode, but usage errors exit 3 as DESIGN.md says."""
    tune_gc()
    try:
        app.main(args=argv, prog_name="fabricgen", standalone_mode=False)
    except click.exceptions.Abort:
        stderr_console().print("aborted", markup=False)
        raise SystemExit(EXIT_FINDINGS) from None
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(EXIT_INPUT) from None
    except click.exceptions.Exit as exc:
        raise SystemExit(exc.exit_code) from None


def _register() -> None:
    """Each command lives in its own module under ``fabricgen/cli/``; register them here."""
    from fabricgen.cli import validate

    app.add_command(validate.validate)
    from fabricgen.cli import explain, hosts  # lossless QoS: per-port explanation, host files

    app.add_command(explain.explain)
    app.add_command(hosts.hosts)
    from fabricgen.cli import diagram, plan  # expansion planning: plan, diagram

    app.add_command(plan.plan)
    app.add_command(diagram.diagram)
    from fabricgen.cli import render as render_cmd  # per-device configurations

    app.add_command(render_cmd.render)
    from fabricgen.cli import apply, drift, lab, verify  # live operations through NAPALM, and the netns lab

    app.add_command(apply.apply)
    app.add_command(drift.drift)
    app.add_command(verify.verify)
    app.add_command(lab.lab)
    from fabricgen.cli import nccl, scaling  # collective bandwidth: scaling table, nccl-tests analysis

    app.add_command(scaling.scaling)
    app.add_command(nccl.nccl)
    from fabricgen.cli import paths  # multipath what-if: ECMP collisions and their remedies

    app.add_command(paths.paths)


_register()


if __name__ == "__main__":  # pragma: no cover
    main()
