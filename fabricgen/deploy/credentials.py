"""Credentials: environment variables or a credentials file with 0600 permissions; never printed.

Sources, first match wins:

1. ``FABRICGEN_USERNAME`` + ``FABRICGEN_PASSWORD`` and/or ``FABRICGEN_SSH_KEY`` (path to a private key);
2. the file named by ``--credentials`` / ``FABRICGEN_CREDENTIALS`` — a JSON or YAML mapping with ``username``,
   ``password`` and/or ``ssh_key`` — which must not be readable by group or others;
3. a running lab's own credentials file (written 0600 by ``fabricgen lab up``).

:class:`Credentials` never shows its password in ``repr``/``str``; :func:`redact` scrubs any text that is about
to be printed, logged or written to a report.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from dataclasses import dataclass, field
from pathlib import Path


class CredentialsError(Exception):
    """Credentials are missing or unsafe; the message names the variable or file, never a secret."""


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(default="", repr=False)
    ssh_key: str | None = None
    source: str = ""

    def __str__(self) -> str:
        kinds = "".join((", key" if self.ssh_key else "", ", password" if self.password else ""))
        return f"user {self.username} ({self.source}{kinds})"

    def secrets(self) -> list[str]:
        return [s for s in (self.password,) if s]


def check_permissions(path: Path) -> None:
    """Refuse a credentials file that group or others may read or write (like ssh does for keys)."""
    st = path.stat()
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise CredentialsError(
            f"{path}: permissions {stat.S_IMODE(st.st_mode):04o} are too open; run `chmod 600 {path}`"
        )


def _parse(path: Path, text: str) -> object:
    """A credentials file's mapping, from JSON or YAML. Errors name the line only, never its content; the parser's
    warnings (a reused anchor), which quote lines, are not shown."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        with warnings.catch_warnings():  # ruamel's warnings quote the file's lines, a secret among them
            warnings.simplefilter("ignore")
            return YAML(typ="safe", pure=True).load(text)  # JSON is YAML too
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}" if mark else ""
        raise CredentialsError(f"{path}: not a JSON or YAML mapping (syntax error{where})") from None
    except YAMLError:
        raise CredentialsError(f"{path}: not a JSON or YAML mapping") from None


def from_file(path: str | Path) -> Credentials:
    """Credentials from a JSON or YAML file of mode 0600: ``username`` and ``password`` and/or ``ssh_key``."""
    p = Path(path)
    try:
        check_permissions(p)
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CredentialsError(f"{p}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise CredentialsError(f"{p}: not UTF-8 text") from None
    data = _parse(p, text)
    if not isinstance(data, dict) or not isinstance(data.get("username"), str):
        raise CredentialsError(f"{p}: needs at least a string 'username'")
    for name in ("password", "ssh_key"):  # YAML reads `password: 0777` as 777: a secret is never converted
        if data.get(name) is not None and not isinstance(data[name], str):
            raise CredentialsError(f"{p}: '{name}' must be a string (quote it)")
    password, key = data.get("password") or "", data.get("ssh_key") or None
    if not password and not key:
        raise CredentialsError(f"{p}: needs a 'password' or an 'ssh_key' besides 'username'")
    return Credentials(data["username"], password, key, f"file {p}")


def from_env(env: dict[str, str] | None = None) -> Credentials | None:
    e = os.environ if env is None else env
    user = e.get("FABRICGEN_USERNAME")
    if not user:
        return None
    password = e.get("FABRICGEN_PASSWORD", "")
    key = e.get("FABRICGEN_SSH_KEY") or None
    if not password and not key:
        raise CredentialsError("FABRICGEN_USERNAME is set but neither FABRICGEN_PASSWORD nor FABRICGEN_SSH_KEY is")
    return Credentials(user, password, key, "environment")


def resolve(file: str | None = None, fallback: str | Path | None = None) -> Credentials:
    env = from_env()
    if env is not None:
        return env
    path = file or os.environ.get("FABRICGEN_CREDENTIALS")
    if path:
        return from_file(path)
    if fallback is not None:
        return from_file(fallback)
    raise CredentialsError(
        "no credentials: set FABRICGEN_USERNAME with FABRICGEN_PASSWORD or FABRICGEN_SSH_KEY, "
        "or pass --credentials FILE (mode 0600)"
    )


_EDGE = r"""\s"'`=:,;/@()\[\]{}<>"""


def error_line(exc: BaseException, limit: int = 400) -> str:
    """An exception as one line for a report: every non-empty line of its message joined with `` | `` (so the
    line that says *why* — "Host key for server … does not match" — is never cut off after the first), or its
    type when it says nothing; at most ``limit`` characters. Redact secrets afterwards.

    >>> error_line(OSError("Authentication failed.\\n\\nCommon causes:\\nHost key for server 'x' does not match"))
    "Authentication failed. | Common causes: | Host key for server 'x' does not match"
    >>> error_line(TimeoutError())
    'TimeoutError'
    """
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = " | ".join(lines) if lines else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def redact(text: str, secrets: list[str]) -> str:
    """Replace every secret that stands as a whole value in ``text`` by ``***``: delimited by the start or end,
    whitespace, quotes, ``= : , ; / @`` or brackets (a final ``.`` ends a sentence). A short password never garbles
    the words, names or addresses that merely contain it.

    >>> redact("login failed for s3cret (password=s3cret)", ["s3cret"])
    'login failed for *** (password=***)'
    >>> redact("cannot connect to leaf1 (10.0.0.1): a timeout", ["a", "0", "1"])
    'cannot connect to leaf1 (10.0.0.1): *** timeout'
    """
    for s in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = re.sub(rf"(?:^|(?<=[{_EDGE}])){re.escape(s)}(?=$|[{_EDGE}]|\.(?:\s|$))", "***", text)
    return text
