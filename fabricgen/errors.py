"""Input problems: everything wrong with what the user wrote, reported together.

A problem names the file, line and column, the dotted field path and a one-line message.
The CLI prints one line per problem and exits 3; nothing here ever reaches the user as a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def one_line(text: str) -> str:
    """``text`` with every non-printable character (newline, CR, U+2028, …) written as its Python escape,
    so that a problem quoting untrusted input stays one line.

    >>> one_line("leaf\\nusername x")
    'leaf\\\\nusername x'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


@dataclass(frozen=True, slots=True)
class SourcePos:
    """Where something was written: file, 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the input."""

    pos: SourcePos | None
    field: str
    message: str

    def __str__(self) -> str:
        where = str(self.pos) if self.pos else "<inventory>"
        field = f" {one_line(self.field)}:" if self.field else ""
        return f"{where}:{field} {one_line(self.message)}"

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.pos.file if self.pos else None,
            "line": self.pos.line if self.pos else None,
            "col": self.pos.col if self.pos else None,
            "field": self.field,
            "message": self.message,
        }


class InputError(Exception):
    """The input cannot be used; carries every problem found, sorted by position."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = sorted(
            problems,
            key=lambda p: (p.pos.file, p.pos.line, p.pos.col) if p.pos else ("", 0, 0),
        )
        super().__init__("\n".join(str(p) for p in self.problems))
