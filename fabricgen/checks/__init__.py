"""Checks: each rule is a pure function ``Fabric → Iterable[Finding]``; checks never raise."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from fabricgen.errors import SourcePos
from fabricgen.topology.model import Fabric


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of a check: a stable code, who, what (with the numbers that failed) and a hint."""

    code: str
    severity: Severity
    subject: str
    message: str
    hint: str = ""
    src: SourcePos | None = None

    def __str__(self) -> str:
        where = f"{self.src}: " if self.src else ""
        hint = f" — {self.hint}" if self.hint else ""
        return f"{where}{self.severity.value} {self.code} {self.subject}: {self.message}{hint}"

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "subject": self.subject,
            "message": self.message,
            "hint": self.hint,
            "file": self.src.file if self.src else None,
            "line": self.src.line if self.src else None,
            "col": self.src.col if self.src else None,
        }


Check = Callable[[Fabric], Iterable[Finding]]


def all_checks() -> tuple[Check, ...]:
    from fabricgen.checks import adaptive, addressing, base, cabling, capacity, lossless, rawschema, routing

    return (*capacity.CHECKS, *cabling.CHECKS, *addressing.CHECKS, *lossless.CHECKS, *base.CHECKS,
            *rawschema.CHECKS, *adaptive.CHECKS, *routing.CHECKS)


def rule_codes(checks: Iterable[Check] | None = None) -> list[str]:
    """The rule codes the checks implement, read from each check's docstring (``FG-CAP-001: …``)."""
    import re

    codes: set[str] = set()
    for check in checks or all_checks():
        codes.update(re.findall(r"\bFG-[A-Z]+-\d{3}\b", check.__doc__ or ""))
    return sorted(codes)


def run_checks(fabric: Fabric, checks: Iterable[Check] | None = None) -> list[Finding]:
    """Run every check and return the findings, errors first, then by code and subject."""
    return ordered([f for check in (checks or all_checks()) for f in check(fabric)])


def ordered(findings: list[Finding]) -> list[Finding]:
    """``findings`` sorted in place, errors first, then by code and subject (a stable sort: findings of one
    rule about one subject keep the order their check gave them); returned."""
    findings.sort(key=lambda f: (_ORDER[f.severity], f.code, f.subject))
    return findings
