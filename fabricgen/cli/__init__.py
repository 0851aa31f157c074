"""Command line: parse arguments, call one stage, print, choose the exit code.

Shared pieces live here (the group, exit codes, the input-error guard, consoles); each command is a
small module beside this one.

Exit codes (CI relies on them): 0 ok · 1 error findings or a failed operation · 2 drift/changes
(with --detailed-exitcode) · 3 usage or input error · 4 internal error (a bug in fabricgen: please report it).
A closed standard output (``fabricgen validate … | head -1``) is not an error: the command finishes and exits
with the code its result calls for.
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, ParamSpec, TextIO, TypeVar

import click
from rich.console import Console

from fabricgen import __version__
from fabricgen.errors import InputError
from fabricgen.runtime import tune_gc

EXIT_OK, EXIT_FINDINGS, EXIT_CHANGES, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3, 4

JSON_FORMAT = 1
"""Version of every JSON document fabricgen prints (``"format": 1``); raised when a field changes meaning or goes
away (adding a field does not raise it). Documented field by field in docs/json.md."""


def json_document(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with ``"format": JSON_FORMAT`` as its first key (a ``format`` already in ``body``, as in a plan
    whose file format is versioned on its own, keeps its value but moves first)."""
    return {"format": JSON_FORMAT, **body}


def echo_json(body: dict[str, Any], indent: int | None = 2) -> None:
    """Print one JSON document of a command (see :func:`json_document`)."""
    click.echo(json.dumps(json_document(body), indent=indent, ensure_ascii=False))

CI_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "junit", "github"]),
    default="text",
    show_default=True,
    help="Output for people (text), machines (json), CI test reports (junit: JUnit XML) or GitHub Actions "
    "annotations on the pull request's lines (github).",
)

LIVE_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "junit", "github", "markdown"]),
    default="text",
    show_default=True,
    help="Output for people (text), machines (json), CI test reports (junit: one test case per device), GitHub "
    "Actions annotations at each device's definition (github) or a pull-request comment (markdown).",
)

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


class Fraction(click.ParamType):  # type: ignore[type-arg]
    """A number in (0, 1]: NaN, infinities and anything outside are usage errors (exit 3)."""

    name = "fraction"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or not 0 < number <= 1:
            self.fail(f"{value!r} is not a fraction in (0, 1]", param, ctx)
        return number


def stdout_console() -> Console:
    # emoji off: rich would print a problem at line 100 (``file:100:5``) as ``file💯5``
    return Console(highlight=False, soft_wrap=False, emoji=False, width=None if sys.stdout.isatty() else 160)


def stderr_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn input errors into one line per problem and exit 3; never show a traceback by accident."""

    @wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except InputError as exc:
            fmt = kwargs.get("fmt")
            if fmt == "json":
                doc = {"format": JSON_FORMAT, "ok": False, "input_problems": [p.as_dict() for p in exc.problems]}
                click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
            elif fmt == "junit":
                from fabricgen.report.ci import junit_problems

                click.echo(junit_problems(fn.__name__, exc.problems), nl=False)
            elif fmt == "github":
                from fabricgen.report.ci import github_problems

                for line in github_problems(exc.problems):
                    click.echo(line)
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
            raise SystemExit(EXIT_INTERNAL) from None

    return wrapper


class OutputError(click.ClickException):
    """An output path that cannot be written: a usage error (exit 3), reported as one line naming the path."""

    exit_code = EXIT_INPUT


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Turn an ``OSError`` while writing ``path`` (or anything under it) into an :class:`OutputError`.

    >>> with writing("/proc/x/y"):  # doctest: +SKIP
    ...     Path("/proc/x/y").write_text("")
    """
    try:
        yield
    except OSError as exc:
        named = os.fspath(exc.filename) if exc.filename is not None else ""
        target = named if named.startswith(os.fspath(path)) else os.fspath(path)  # not a temporary sibling
        reason = exc.strerror or type(exc).__name__
        raise OutputError(f"cannot write {target}: {reason}") from None


class _ClosedPipeSafe(io.TextIOBase):
    """Standard output that turns a closed reader (``| head``) into a silent sink instead of an error.

    Once the reader is gone, the real file descriptor is pointed at ``/dev/null`` so that nothing —
    neither later writes nor the interpreter's final flush — raises ``BrokenPipeError`` again.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_pipe = False

    def _guard(self, op: Callable[[], int | None]) -> int | None:
        if self.closed_pipe:
            return None
        try:
            return op()
        except BrokenPipeError:
            self.closed_pipe = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
            return None

    def write(self, s: str) -> int:
        self._guard(lambda: self._stream.write(s))
        return len(s)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._stream.errors

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> Any:
        """The binary stream beneath (click writes bytes there, e.g. for shell completion)."""
        return self._stream.buffer


def version_text() -> str:
    """``fabricgen 0.1.0`` — plus the git revision when fabricgen runs from a checkout (``pip install -e``)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    text = f"fabricgen {__version__}"
    if (root / ".git").exists():
        try:
            rev = subprocess.run(
                ["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=12"],
                capture_output=True, text=True, timeout=5, check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            rev = ""
        if rev:
            text += f" (git {rev})"
    return text


def _print_version(ctx: click.Context, _: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(version_text())
        ctx.exit()


class _LazyGroup(click.Group):
    """A group whose commands are imported when they are run (or listed by ``--help``), not when the program
    starts: ``fabricgen render`` then loads the render stage only, not NAPALM drivers, the lab, the NCCL
    parser or the Nautobot client (about a third of the start-up time)."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy  # command name → "module:attribute"

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            from importlib import import_module

            from fabricgen.cli.helptext import epilog  # every command's Examples: and Environment: blocks

            module, attribute = self.lazy[cmd_name].split(":")
            command: click.Command = getattr(import_module(module), attribute)
            text = epilog(cmd_name)
            if text is not None:
                command.epilog = text
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)


_COMMANDS = {
    "validate": "fabricgen.cli.validate:validate",
    "explain": "fabricgen.cli.explain:explain",  # lossless QoS: per-port explanation, host files
    "hosts": "fabricgen.cli.hosts:hosts",
    "plan": "fabricgen.cli.plan:plan",  # expansion planning: plan, diagram
    "diagram": "fabricgen.cli.diagram:diagram",
    "render": "fabricgen.cli.render:render",  # per-device configurations
    "apply": "fabricgen.cli.apply:apply",  # live operations through NAPALM, and the netns lab
    "drift": "fabricgen.cli.drift:drift",
    "verify": "fabricgen.cli.verify:verify",
    "trust": "fabricgen.cli.trust:trust",  # record eAPI certificates (trust on first contact, explicit)
    "lab": "fabricgen.cli.lab:lab",
    "scaling": "fabricgen.cli.scaling:scaling",  # collective bandwidth: scaling table, nccl-tests analysis
    "nccl": "fabricgen.cli.nccl:nccl",
    "schema": "fabricgen.cli.schema:schema",  # ecosystem: the inventory JSON Schema, exports to other tools
    "export": "fabricgen.cli.export:export",
    "import": "fabricgen.cli.sot:import_",  # source of truth: import from Nautobot/NetBox
    "paths": "fabricgen.cli.paths:paths",  # multipath what-if: ECMP collisions and their remedies
}
"""Each command lives in its own module under ``fabricgen/cli/``, imported when it is used."""


def all_commands() -> dict[str, click.Command]:
    """Every command by name, imported (for tests and documentation)."""
    ctx = click.Context(app)
    return {name: cmd for name in app.list_commands(ctx) if (cmd := app.get_command(ctx, name)) is not None}


@click.group(cls=_LazyGroup, lazy=_COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version (and the git revision of a checkout) and exit.")
def app() -> None:
    """fabricgen: declare a GPU fabric, check it, render it, plan and apply changes."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: like click's standalone mode, but usage errors exit 3 as DESIGN.md says."""
    tune_gc()
    if not isinstance(sys.stdout, _ClosedPipeSafe):
        sys.stdout = _ClosedPipeSafe(sys.stdout)
    try:
        app.main(args=argv, prog_name="fabricgen", standalone_mode=False)
    except click.exceptions.Abort:
        stderr_console().print("aborted", markup=False)
        raise SystemExit(EXIT_FINDINGS) from None
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(exc.exit_code if isinstance(exc, OutputError) else EXIT_INPUT) from None
    except click.exceptions.Exit as exc:
        raise SystemExit(exc.exit_code) from None


if __name__ == "__main__":  # pragma: no cover
    main()
