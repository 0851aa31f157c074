"""Reports for CI systems: JUnit XML (GitLab, Jenkins, Azure, GitHub test reporters) and GitHub Actions
workflow annotations, for findings and for input problems alike.

JUnit: one ``<testsuite>`` per command; one ``<testcase>`` per rule that ran (``classname`` = the rule's area,
``name`` = its code), each error finding a ``<failure>``, warnings and infos in ``<system-out>``; input problems
are ``<error>``s of a ``fabricgen.input`` test case. GitHub: one ``::error``/``::warning``/``::notice`` command
per finding, with ``file``, ``line`` and ``col`` when the finding has a position — GitHub then shows it on the
line of the pull request's diff.

Every text here comes from an inventory and is escaped for its format: XML by :mod:`xml.etree.ElementTree`,
workflow commands by GitHub's own rules (``%``, CR and LF in messages; also ``:`` and ``,`` in properties).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterable, Sequence

from fabricgen.checks import Finding, Severity
from fabricgen.errors import Problem

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    """GitHub's escaping of a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """GitHub's escaping of a workflow command's property value (``file=…``)."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(level: str, message: str, file: str | None, line: int | None, col: int | None,
                title: str | None = None) -> str:
    props = []
    if file:
        props.append(f"file={_escape_property(file)}")
        if line:
            props.append(f"line={line}")
            if col:
                props.append(f"col={col}")
    if title:
        props.append(f"title={_escape_property(title)}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{_escape_data(message)}"


def github_findings(findings: Iterable[Finding]) -> list[str]:
    """One workflow command per finding.

    >>> from fabricgen.errors import SourcePos
    >>> github_findings([Finding("FG-CAP-001", Severity.ERROR, "leaf1", "oversubscribed 2.00:1", "",
    ...                          SourcePos("inv/a.yaml", 4, 5))])
    ['::error file=inv/a.yaml,line=4,col=5,title=FG-CAP-001::leaf1: oversubscribed 2.00:1']
    """
    out = []
    for f in findings:
        message = f"{f.subject}: {f.message}" + (f" — {f.hint}" if f.hint else "")
        src = f.src
        out.append(_annotation(_LEVEL[f.severity], message, src.file if src else None,
                               src.line if src else None, src.col if src else None, f.code))
    return out


def github_problems(problems: Iterable[Problem]) -> list[str]:
    """One ``::error`` per input problem."""
    out = []
    for p in problems:
        message = f"{p.field}: {p.message}" if p.field else p.message
        pos = p.pos
        out.append(_annotation("error", message, pos.file if pos else None, pos.line if pos else None,
                               pos.col if pos else None, "fabricgen input"))
    return out


def _where(f: Finding) -> str:
    return f"{f.src}: " if f.src else ""


def junit_findings(suite: str, findings: Sequence[Finding], rules: Iterable[str]) -> str:
    """A JUnit XML document: one test case per rule in ``rules`` (every rule that ran, so a clean run lists
    them as passed), a ``<failure>`` per error finding."""
    by_code: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_code[f.code].append(f)
    codes = sorted(set(rules) | set(by_code))
    root = ET.Element("testsuites", name="fabricgen", tests=str(len(codes)),
                      failures=str(sum(1 for c in codes if _fails(by_code[c]))))
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(codes)),
                       failures=str(sum(1 for c in codes if _fails(by_code[c]))), errors="0", skipped="0")
    for code in codes:
        case = ET.SubElement(ts, "testcase", classname=f"fabricgen.{_area(code)}", name=code)
        errors = [f for f in by_code[code] if f.severity is Severity.ERROR]
        if errors:
            fail = ET.SubElement(case, "failure", type=code,
                                 message=f"{len(errors)} error finding{'s' if len(errors) != 1 else ''}")
            fail.text = "\n".join(f"{_where(f)}{f.subject}: {f.message}" for f in errors)
        others = [f for f in by_code[code] if f.severity is not Severity.ERROR]
        if others:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(f"{_where(f)}{f.severity.value} {f.subject}: {f.message}" for f in others)
    return _xml(root)


def junit_problems(suite: str, problems: Sequence[Problem]) -> str:
    """A JUnit XML document whose one test case, ``fabricgen.input``, errors with every input problem."""
    root = ET.Element("testsuites", name="fabricgen", tests="1", errors="1")
    ts = ET.SubElement(root, "testsuite", name=suite, tests="1", failures="0", errors="1", skipped="0")
    case = ET.SubElement(ts, "testcase", classname="fabricgen.input", name="inventory")
    err = ET.SubElement(case, "error", type="input",
                        message=f"{len(problems)} input problem{'s' if len(problems) != 1 else ''}")
    err.text = "\n".join(str(p) for p in problems)
    return _xml(root)


def _fails(findings: list[Finding]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)


def _area(code: str) -> str:
    """``FG-CAP-001`` → ``cap``."""
    parts = code.split("-")
    return parts[1].lower() if len(parts) == 3 else "other"


def _xml(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
