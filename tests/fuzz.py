"""The fuzz harness's shared parts: the budget, running a command in this process, the property every run must
hold, a guard that keeps every socket on this machine, and the corpus of found cases.

**The property.** Whatever the input, a command ends with exit code 0, 1, 2 or 3 — never 4 (an internal error) and
never an exception out of :func:`fabricgen.cli.main` — prints no ``Traceback`` and no Python warning, and when it
exits 3 (an input error) its output names the input that is wrong (the file the fuzzer wrote, or the argument it
gave).

**The budget.** ``FABRICGEN_FUZZ_EXAMPLES`` examples per property (default :data:`DEFAULT_EXAMPLES`). Under ``CI``
the examples are derandomized (the same inputs every run, so CI is reproducible and its time is known); locally each
run draws new ones, and Hypothesis keeps what failed in ``.hypothesis/`` (not committed) to try first next time.
``FABRICGEN_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_*.py`` searches longer.

**The corpus.** Every case the harness has found is a JSON file under ``tests/data/fuzz/<target>/`` that every run
replays before it fuzzes (:func:`corpus`), so a found case stays a regression test however Hypothesis draws. A
failing example is written to ``.hypothesis/fuzz-found/`` (see :func:`record_failure`) in that format, ready to move
into the corpus once the crash is fixed.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json
import os
import socket
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hypothesis import HealthCheck, settings

from fabricgen.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "data" / "fuzz"
FOUND = ROOT / ".hypothesis" / "fuzz-found"
DEFAULT_EXAMPLES = 40
ALLOWED_EXITS = frozenset({0, 1, 2, 3})


def examples(scale: float = 1.0) -> int:
    """Examples per property: ``FABRICGEN_FUZZ_EXAMPLES`` (default :data:`DEFAULT_EXAMPLES`) times ``scale``."""
    raw = os.environ.get("FABRICGEN_FUZZ_EXAMPLES", "")
    base = int(raw) if raw.strip().isdigit() else DEFAULT_EXAMPLES
    return max(1, round(base * scale))


def fuzz_settings(scale: float = 1.0) -> settings:
    """Hypothesis settings of every fuzz property (see the module docstring for the budget)."""
    return settings(
        max_examples=examples(scale),
        deadline=None,
        derandomize=bool(os.environ.get("CI")),
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
            HealthCheck.large_base_example,
        ],
        print_blob=True,
    )


# --------------------------------------------------------------------------- no packet leaves the machine


@dataclass
class NetworkLog:
    """Every connection a command tried while guarded: ``(host, port)``; ``outside`` those not to loopback."""

    attempts: list[tuple[str, int]] = field(default_factory=list)
    outside: list[tuple[str, int]] = field(default_factory=list)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@contextmanager
def network_guard() -> Iterator[NetworkLog]:
    """While active, a connection to a loopback address goes ahead (nothing listens where the fuzzer points), and
    anything else — a name to resolve, another address — is recorded and refused here, before a packet is sent."""
    log = NetworkLog()
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def where(address: Any) -> tuple[str, int]:
        if isinstance(address, tuple) and len(address) >= 2:
            return str(address[0]), int(address[1])
        return str(address), 0

    def connect(self: socket.socket, address: Any) -> None:
        host, port = where(address)
        if self.family in (socket.AF_INET, socket.AF_INET6):
            log.attempts.append((host, port))
            if not _loopback(host):
                log.outside.append((host, port))
                raise ConnectionRefusedError(111, f"fuzz network guard: {host}:{port} is not loopback")
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        try:
            connect(self, address)
        except OSError as exc:
            return exc.errno or 111
        return 0

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if host is not None and not _loopback(name) and name != "localhost":
            log.outside.append((name, int(port) if str(port).isdigit() else 0))
            raise socket.gaierror(socket.EAI_NONAME, f"fuzz network guard: {name} is not resolved")
        return real_getaddrinfo(host, port, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    try:
        yield log
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo


# --------------------------------------------------------------------------- running a command


@dataclass(frozen=True)
class Run:
    argv: tuple[str, ...]
    code: int
    out: str
    err: str
    network: NetworkLog
    warnings: tuple[str, ...] = ()  # the category of each Python warning the run raised (shown on stderr)

    @property
    def output(self) -> str:
        return self.out + self.err


def invoke(argv: Sequence[str]) -> Run:
    """``fabricgen ARGV`` in this process (as the console script runs it), output captured, network guarded. An
    exception that escapes :func:`fabricgen.cli.main` is not caught: it fails the property as the crash it is."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.pop("FABRICGEN_DEBUG", None)
    try:
        with network_guard() as net, redirect_stdout(out), redirect_stderr(err), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                main(list(argv))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        if saved is not None:
            os.environ["FABRICGEN_DEBUG"] = saved
    # a warning reaches the user's terminal in a real process (pytest would keep it to itself): part of the output
    shown = "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line) for w in caught)
    return Run(tuple(argv), code, out.getvalue(), err.getvalue() + shown, net,
               tuple(w.category.__name__ for w in caught))


def check(run: Run, names: Sequence[str | os.PathLike[str]], case: dict[str, Any] | None = None,
          live: bool | Literal["source"] = False, secrets: Sequence[str] = ()) -> None:
    """The fuzz property (module docstring) for one run; ``names`` are the inputs a problem may name (the files
    written for it, an argument). ``case`` is recorded (:func:`record_failure`) when the property fails. No text of
    ``secrets`` (a password the input holds) may appear in the output, warnings included.

    A command that is not ``live`` must not open a connection at all. A ``live`` one (drift, verify, apply) may try
    the devices its hosts file names (the guard refuses anything but loopback, where nothing listens), but an input
    error (exit 3) must come before any connection. A ``"source"`` (``import``) reads what it checks from its
    server: it connects, to loopback only, whatever the outcome."""
    from hypothesis import event
    from hypothesis.errors import InvalidArgument

    with contextlib.suppress(InvalidArgument):  # outside a Hypothesis test (a corpus replay): no statistics
        event(f"{run.argv[0]} exit {run.code}")
    problems: list[str] = []
    if run.code not in ALLOWED_EXITS:
        problems.append(f"exit {run.code}")
    if "Traceback" in run.output:
        problems.append("a traceback in the output")
    if "internal error" in run.output:
        problems.append("an internal error in the output")
    if run.warnings:
        problems.append(f"Python warnings on stderr ({'; '.join(sorted(set(run.warnings)))[:200]})")
    if secrets and any(secret in run.output for secret in secrets):
        problems.append("a secret of the input in the output")
    if not live and (run.network.attempts or run.network.outside):
        problems.append(f"opened a connection: {(run.network.attempts + run.network.outside)[:3]}")
    if live is True and run.code == 3 and (run.network.attempts or run.network.outside):
        problems.append(f"exit 3 after contacting {(run.network.attempts + run.network.outside)[:3]}")
    if live == "source" and run.network.outside:
        problems.append(f"tried to reach beyond this machine: {run.network.outside[:3]}")
    if run.code == 3 and not any(os.fspath(n) in run.output for n in names):
        problems.append(f"exit 3 without naming the input ({', '.join(os.fspath(n) for n in names)})")
    if problems:
        if case is not None:
            record_failure(case)
        raise AssertionError(
            f"fabricgen {' '.join(run.argv)}: {'; '.join(problems)}\n--- stdout\n{run.out[-3000:]}\n"
            f"--- stderr\n{run.err[-3000:]}"
        )


# --------------------------------------------------------------------------- the corpus


def record_failure(case: dict[str, Any]) -> Path:
    """Write a failing case as a corpus file under ``.hypothesis/fuzz-found/<target>.json`` (the last failure of a
    target wins: Hypothesis runs the shrunk example last)."""
    FOUND.mkdir(parents=True, exist_ok=True)
    path = FOUND / f"{case['target']}.json"
    path.write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def corpus(target: str) -> list[Any]:
    """The stored cases of ``target`` as pytest params (id: the file name), in name order."""
    import pytest

    directory = CORPUS / target
    files = sorted(directory.glob("*.json")) if directory.is_dir() else []
    return [pytest.param(json.loads(p.read_text(encoding="utf-8")), id=p.stem) for p in files]


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write a case's files (text; a value starting ``base64:`` holds bytes) under ``root``."""
    import base64

    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content.startswith("base64:"):
            path.write_bytes(base64.b64decode(content.removeprefix("base64:")))
        else:
            path.write_text(content, encoding="utf-8")


def file_text(data: bytes) -> str:
    """A file's bytes as a case stores them: the text when it is UTF-8 (and not ``base64:…``), else base64."""
    import base64

    try:
        text = data.decode("utf-8")
        if not text.startswith("base64:"):
            return text
    except UnicodeDecodeError:
        pass
    return "base64:" + base64.b64encode(data).decode("ascii")


def expand(argv: Sequence[str], files: Path) -> list[str]:
    """A stored argv with ``{files}`` (the case's files), ``{inventories}`` and ``{data}`` (tests/data) filled in."""
    subst = {"{files}": str(files), "{inventories}": str(ROOT / "inventories"), "{data}": str(ROOT / "tests" / "data")}
    out = []
    for arg in argv:
        for key, value in subst.items():
            arg = arg.replace(key, value)
        out.append(arg)
    return out
