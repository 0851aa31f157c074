"""CI reports of `drift` and `verify`: JUnit XML, GitHub Actions annotations and Markdown, per device.

JUnit: one ``<testsuite>`` per command, one ``<testcase>`` per device (``classname`` ``fabricgen.drift`` or
``fabricgen.verify``, ``name`` the device); a drifted device or a failed verification is a ``<failure>`` (the
diff lines, or every failed check), a device that could not be reached or checked an ``<error>``.

GitHub: one workflow command per device that drifted, failed or was not checked, with ``file``/``line``/``col``
of the device's definition in the inventory when known, so GitHub shows it on the pull request. A drift that
touches routing or RoCE lines, a failed verification and an unchecked device are ``::error``; a drift of other
lines only is a ``::warning``.

Markdown (a pull-request comment): the counts first, then a per-device table, then every diff or list of failed
checks folded in ``<details>``, within :data:`fabricgen.plan.markdown.DEFAULT_BUDGET` characters.

Diff lines arrive already masked by the drift comparison (secret values never reach these functions); every
text is escaped for its format here.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import TYPE_CHECKING

from fabricgen.errors import SourcePos
from fabricgen.plan.markdown import DEFAULT_BUDGET, DIFF_CHARS_PER_DEVICE, _details, _esc, _table
from fabricgen.report.ci import _annotation, _xml

if TYPE_CHECKING:
    from fabricgen.deploy.normalize import ConfigDiff
    from fabricgen.deploy.runner import Results
    from fabricgen.deploy.verify import DeviceVerdict

MAX_ANNOTATION_LINES = 20
"""Diff lines or failed checks quoted in one annotation; the rest are counted."""

_SEVERE = ("routing", "roce")


def drift_lines(diff: ConfigDiff) -> list[str]:
    """The diff as ``- line (tag)`` (intended, missing on the device) and ``+ line (tag)`` (on the device only:
    the next apply removes it); a secret-bearing section by its name, ``(tag; values not shown)``; first a
    ``! pending: …`` line for a device whose commit-confirm is pending.

    >>> from fabricgen.deploy.normalize import ConfigDiff
    >>> drift_lines(ConfigDiff(("router bgp 1 / maximum-paths 64",), ("hostname x", "username ops …"),
    ...                        {"routing": ["router bgp 1 / maximum-paths 64"]}, ("username ops …",)))
    ['- router bgp 1 / maximum-paths 64    (routing)', '+ hostname x    (other)', \
'+ username ops …    (other; values not shown)']
    """
    tag_of = {line: tag for tag, lines in diff.impact.items() for line in lines}
    hidden = set(diff.named_only)
    pending = getattr(diff, "pending", "")  # a device with an armed revert timer (fabricgen.deploy.drift)

    def one(sign: str, line: str) -> str:
        return f"{sign} {line}    ({tag_of.get(line, 'other')}{'; values not shown' if line in hidden else ''})"

    return [f"! pending: {pending}"] * bool(pending) + [one("-", line) for line in diff.missing] + [
        one("+", line) for line in diff.unexpected]


def _tags(diff: ConfigDiff) -> list[str]:
    return sorted(t for t, lines in diff.impact.items() if lines) or ["other"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _quoted(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_ANNOTATION_LINES:
        return lines
    return [*lines[:MAX_ANNOTATION_LINES], f"… and {len(lines) - MAX_ANNOTATION_LINES} more"]


def _pos(srcs: Mapping[str, SourcePos | None], device: str) -> tuple[str | None, int | None, int | None]:
    src = srcs.get(device)
    return (src.file, src.line, src.col) if src else (None, None, None)


def _suite(command: str, cases: int, failures: int, errors: int) -> tuple[ET.Element, ET.Element]:
    root = ET.Element("testsuites", name="fabricgen", tests=str(cases), failures=str(failures), errors=str(errors))
    suite = ET.SubElement(root, "testsuite", name=command, tests=str(cases), failures=str(failures),
                          errors=str(errors), skipped="0")
    return root, suite


# --- drift -----------------------------------------------------------------------------------------------------


def junit_drift(results: Results[ConfigDiff]) -> str:
    """JUnit XML of a drift run: a test case per device, a ``<failure>`` per drifted device, an ``<error>`` per
    device not checked."""
    devices = results.by_device
    drifted = sum(1 for r in devices.values() if r.error is None and r.value is not None and r.value.drifted)
    errors = sum(1 for r in devices.values() if r.error is not None or r.value is None)
    root, suite = _suite("drift", len(devices), drifted, errors)
    for name, r in devices.items():
        case = ET.SubElement(suite, "testcase", classname="fabricgen.drift", name=name, time=f"{r.seconds:.3f}")
        if r.error is not None or r.value is None:
            err = ET.SubElement(case, "error", type="not-checked", message=f"not checked: {r.error or 'no result'}")
            err.text = r.error or "no result"
            continue
        diff = r.value
        if diff.drifted:
            fail = ET.SubElement(
                case, "failure", type="drift",
                message=f"{_plural(len(diff.missing), 'line')} missing, {len(diff.unexpected)} unexpected "
                f"({', '.join(_tags(diff))})",
            )
            fail.text = "\n".join(drift_lines(diff))
    return _xml(root)


def github_drift(results: Results[ConfigDiff], srcs: Mapping[str, SourcePos | None]) -> list[str]:
    """One workflow command per drifted or unchecked device, at its definition in the inventory."""
    out = []
    for name, r in results.by_device.items():
        file, line, col = _pos(srcs, name)
        if r.error is not None or r.value is None:
            out.append(_annotation("error", f"{name}: not checked: {r.error or 'no result'}", file, line, col,
                                   "fabricgen drift"))
            continue
        diff = r.value
        if not diff.drifted:
            continue
        tags = _tags(diff)
        level = "error" if any(t in _SEVERE for t in tags) else "warning"
        head = (f"{name}: drift, {_plural(len(diff.missing), 'line')} missing, {len(diff.unexpected)} unexpected "
                f"({', '.join(tags)})")
        out.append(_annotation(level, "\n".join([head, *_quoted(drift_lines(diff))]), file, line, col,
                               "fabricgen drift"))
    return out


def _one_line(error: str | None) -> str:
    """An error as one table cell (a driver's message may span lines)."""
    return " ".join((error or "no result").split())


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``, so no line can close it."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _diff_block(name: str, summary: str, text: str, total: int) -> list[str]:
    if len(text) > DIFF_CHARS_PER_DEVICE:
        text = text[:DIFF_CHARS_PER_DEVICE]
        text = text[: text.rfind("\n") + 1] + f"… ({total:,} lines in all)\n"
    fence = _fence(text)
    return ["<details>", f"<summary><code>{_esc(name)}</code> {_esc(summary)}</summary>", "",
            f"{fence}diff", text.rstrip("\n"), fence, "</details>", ""]


def _fit(head: list[str], blocks: list[list[str]], budget: int, what: str) -> str:
    text = "\n".join(head)
    shown = 0
    for block in blocks:
        piece = "\n" + "\n".join(block)
        if len(text) + len(piece) > budget - 200:
            break
        text += piece
        shown += 1
    if shown < len(blocks):
        text += f"\n{len(blocks) - shown:,} more {what} do not fit in a comment; they are in the JSON output.\n"
    return text


def markdown_drift(fabric: str, origin: str, results: Results[ConfigDiff], *, budget: int = DEFAULT_BUDGET) -> str:
    """Markdown of a drift run: counts, a table of devices, each diff folded."""
    devices = results.by_device
    unchecked = [n for n, r in devices.items() if r.error is not None or r.value is None]
    drifted = [n for n, r in devices.items() if n not in unchecked and r.value is not None and r.value.drifted]
    in_sync = len(devices) - len(unchecked) - len(drifted)
    status = "✅" if not drifted and not unchecked else "❌"
    head = [
        f"### fabricgen drift: `{_esc(fabric)}`",
        "",
        f"**{status} {len(drifted)} drifted, {len(unchecked)} not checked, {in_sync} in sync** "
        f"({_plural(len(devices), 'device')} via {_esc(origin)})",
        "",
    ]
    rows = []
    for name, r in devices.items():
        if name in unchecked:
            rows.append([name, "not checked", "", "", _one_line(r.error)])
        elif r.value is not None and r.value.drifted:
            rows.append([name, "drift", str(len(r.value.missing)), str(len(r.value.unexpected)),
                         ", ".join(_tags(r.value))])
        else:
            rows.append([name, "in sync", "0", "0", ""])
    head += _table(["device", "state", "missing", "unexpected", "impact / reason"], rows, {2, 3})
    head.append("")
    blocks = []
    for name in drifted:
        diff = devices[name].value
        assert diff is not None
        lines = drift_lines(diff)
        blocks.append(_diff_block(name, f"−{len(diff.missing)} +{len(diff.unexpected)}", "\n".join(lines) + "\n",
                                  len(lines)))
    return _fit(head, blocks, budget, "diffs")


# --- verify ----------------------------------------------------------------------------------------------------


def _check_line(kind: str, subject: str, detail: str) -> str:
    return f"{kind} {subject}: {detail}"


def junit_verify(results: Results[DeviceVerdict]) -> str:
    """JUnit XML of a verify run: a test case per device, a ``<failure>`` listing each failed check, an
    ``<error>`` per device not checked."""
    devices = results.by_device
    failed = sum(1 for r in devices.values() if r.error is None and r.value is not None and not r.value.ok)
    errors = sum(1 for r in devices.values() if r.error is not None or r.value is None)
    root, suite = _suite("verify", len(devices), failed, errors)
    for name, r in devices.items():
        case = ET.SubElement(suite, "testcase", classname="fabricgen.verify", name=name, time=f"{r.seconds:.3f}")
        if r.error is not None or r.value is None:
            err = ET.SubElement(case, "error", type="not-checked", message=f"not checked: {r.error or 'no result'}")
            err.text = r.error or "no result"
            continue
        v = r.value
        if not v.ok:
            fail = ET.SubElement(case, "failure", type="verify",
                                 message=f"{_plural(len(v.failures), 'failed check')} of {len(v.checks)}")
            fail.text = "\n".join(_check_line(c.kind, c.subject, c.detail) for c in v.failures)
        if v.notes:
            out = ET.SubElement(case, "system-out")
            out.text = "\n".join(v.notes)
    return _xml(root)


def github_verify(results: Results[DeviceVerdict], srcs: Mapping[str, SourcePos | None]) -> list[str]:
    """One ``::error`` per device with failed checks or not checked, at its definition in the inventory."""
    out = []
    for name, r in results.by_device.items():
        file, line, col = _pos(srcs, name)
        if r.error is not None or r.value is None:
            out.append(_annotation("error", f"{name}: not checked: {r.error or 'no result'}", file, line, col,
                                   "fabricgen verify"))
            continue
        v = r.value
        if v.ok:
            continue
        lines = [_check_line(c.kind, c.subject, c.detail) for c in v.failures]
        head = f"{name}: {_plural(len(v.failures), 'failed check')} of {len(v.checks)}"
        out.append(_annotation("error", "\n".join([head, *_quoted(lines)]), file, line, col, "fabricgen verify"))
    return out


def markdown_verify(fabric: str, origin: str, results: Results[DeviceVerdict], *, budget: int = DEFAULT_BUDGET) -> str:
    """Markdown of a verify run: counts, a table of devices, each device's failed checks folded."""
    devices = results.by_device
    unchecked = [n for n, r in devices.items() if r.error is not None or r.value is None]
    failed = [n for n, r in devices.items() if n not in unchecked and r.value is not None and not r.value.ok]
    ok = len(devices) - len(unchecked) - len(failed)
    status = "✅" if not failed and not unchecked else "❌"
    head = [
        f"### fabricgen verify: `{_esc(fabric)}`",
        "",
        f"**{status} {ok} ok, {len(failed)} with problems, {len(unchecked)} not checked** "
        f"({_plural(len(devices), 'device')} via {_esc(origin)})",
        "",
    ]
    rows = []
    for name, r in devices.items():
        if name in unchecked or r.value is None:
            rows.append([name, "not checked", "", "", "", _one_line(r.error)])
            continue
        v = r.value
        cells = []
        for kind in ("bgp", "lldp", "interface"):
            mine = [c for c in v.checks if c.kind == kind]
            cells.append(f"{sum(1 for c in mine if c.ok)}/{len(mine)}")
        problems = "" if v.ok else _plural(len(v.failures), "failed check")
        rows.append([name, "ok" if v.ok else "problems", *cells, problems])
    head += _table(["device", "state", "BGP ok", "LLDP ok", "interfaces ok", "problems"], rows, {2, 3, 4})
    head.append("")
    blocks = []
    for name in failed:
        verdict = devices[name].value
        assert verdict is not None
        items = [f"- `{c.kind}` {_esc(c.subject)}: {_esc(c.detail)}" for c in verdict.failures]
        blocks.append(_details(f"<code>{_esc(name)}</code> {_plural(len(verdict.failures), 'failed check')}",
                               items))
    return _fit(head, blocks, budget, "devices' failures")
