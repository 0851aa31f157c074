"""Fuzz: ``fabricgen nccl analyze`` on nccl-tests logs cut at every line and at byte offsets, and with lines mutated
(numbers, NaN, infinities, missing and extra columns, binary bytes, swapped and repeated lines, other hosts and
devices). The property (``tests/fuzz.py``): exit 0–3, no traceback, an input error names the log. Found cases live
in ``tests/data/fuzz/nccl/`` and are replayed first."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import check, corpus, expand, file_text, fuzz_settings, invoke, write_files

DATA = Path(__file__).parent / "data"
LOGS = sorted((DATA / "nccl").rglob("*.log"))


def _inventory(log: Path) -> str:
    return "{data}/perf/oversub" if log.name.startswith("oversub") else "{inventories}/lab"


def run_case(case: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="fg-fuzz-") as tmp:
        files = Path(tmp) / "files"
        write_files(files, case["files"])
        argv = expand(case["argv"], files)
        check(invoke(argv), [str(files)], case)


def _case(log: Path, data: bytes, *extra: str) -> dict[str, Any]:
    # the file keeps its name: the collective may come from it
    return {"target": "nccl", "argv": ["nccl", "analyze", _inventory(log), f"{{files}}/{log.name}", *extra],
            "files": {log.name: file_text(data)}}  # fmt: skip


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_every_log_cut_at_every_line(log: Path) -> None:
    """What a job killed at any moment leaves: each prefix of whole lines of every sample log (every line of the
    short ones, 40 evenly spaced cuts of the long ones)."""
    lines = log.read_bytes().splitlines(keepends=True)
    cuts = range(len(lines) + 1) if len(lines) <= 60 else sorted({round(i * len(lines) / 40) for i in range(41)})
    for n in cuts:
        run_case(_case(log, b"".join(lines[:n])))


@fuzz_settings()
@given(log=st.sampled_from(LOGS), data=st.data())
def test_logs_cut_at_a_byte(log: Path, data: st.DataObject) -> None:
    raw = log.read_bytes()
    at = data.draw(st.integers(0, len(raw)), label="offset")
    run_case(_case(log, raw[:at], *data.draw(st.sampled_from(((), ("--format", "json"))), label="format")))


NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])")
REPLACEMENTS = (
    b"nan", b"NaN", b"inf", b"-inf", b"-1", b"0", b"1e308", b"1e-320", b"99999999999999999999999", b"N/A", b"-",
    b"0x10", b"1,5", b"", b"  ", b"\x00", b"\xff\xfe", b"\xe2\x80\xa8", b"12:00:00", b"2024-01-01 12:00:00",
)  # fmt: skip
HOSTS = (b"gpu01", b"gpu99", b"GPU01", b"gpu01.cluster.local", b"", b"gpu01:", b"[1,0]<stdout>:")


@st.composite
def mutated_log(draw: st.DrawFn, raw: bytes) -> bytes:
    lines = raw.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        op = draw(st.sampled_from(("number", "number", "number", "drop-column", "add-column", "drop", "double",
                                   "swap", "bytes", "host", "truncate")))  # fmt: skip
        numbers = list(NUMBER.finditer(line))
        if op == "number" and numbers:
            m = draw(st.sampled_from(numbers))
            line = line[: m.start()] + draw(st.sampled_from(REPLACEMENTS)) + line[m.end() :]
        elif op == "drop-column":
            cols = line.split()
            if cols:
                del cols[draw(st.integers(0, len(cols) - 1))]
                line = b"  ".join(cols) + b"\n"
        elif op == "add-column":
            line = line.rstrip(b"\n") + b"  " + draw(st.sampled_from(REPLACEMENTS)) + b"\n"
        elif op == "drop":
            del lines[i]
            continue
        elif op == "double":
            lines.insert(i, line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            continue
        elif op == "bytes":
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(st.binary(min_size=1, max_size=4)) + line[at:]
        elif op == "host":
            line = re.sub(rb"\bgpu0\d\b", draw(st.sampled_from(HOSTS)), line)
        elif op == "truncate":
            line = line[: draw(st.integers(0, len(line)))]
        lines[i] = line
    return b"".join(lines)


@fuzz_settings(scale=1.5)
@given(log=st.sampled_from(LOGS), data=st.data())
def test_logs_with_lines_mutated(log: Path, data: st.DataObject) -> None:
    raw = data.draw(mutated_log(log.read_bytes()), label="log")
    extra = data.draw(st.sampled_from(((), ("--format", "json"), ("--collective", "all_reduce"),
                                       ("--algorithm", "tree"), ("--fail", "spine1"))), label="options")  # fmt: skip
    run_case(_case(log, raw, *extra))


@pytest.mark.parametrize("case", corpus("nccl"))
def test_nccl_corpus(case: dict[str, Any]) -> None:
    """Every nccl case found so far, replayed."""
    run_case(case)
