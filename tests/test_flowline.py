"""One-line flow items read without libyaml's events (fabricgen.inventory.flowline) read exactly as libyaml and
ruamel.yaml read them: the same tree, the same position for every item and key, the same problems.

Three readers are compared on every document: the libyaml reader with the one-line path, the libyaml reader
without it, and ruamel.yaml (the reference). Each test also checks whether the path was taken, so that a
document meant to exercise it cannot pass by falling back.
"""

from __future__ import annotations

import itertools
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricgen.errors import InputError, Problem
from fabricgen.inventory import cyaml, flowline
from fabricgen.inventory.load import SourceMap, _parse_file, load_inventory
from fabricgen.topology.resolve import resolve
from tests.conftest import require
from tests.test_loader_paths import _same


@pytest.fixture(autouse=True)
def _libyaml() -> None:
    require(cyaml.AVAILABLE, "PyYAML was built without its C extension (libyaml)")


Read = tuple[Any, dict[Any, str], list[str]]


def _read(path: Path, use_libyaml: bool) -> Read:
    source = SourceMap()
    problems: list[Problem] = []
    tree = _parse_file(path, source, problems, use_libyaml=use_libyaml)
    return tree, {k: str(v) for k, v in source.items()}, [str(p) for p in problems]


def read_three(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Read, bool]:
    """The file read with the one-line path; whether that path was used. Asserts that libyaml without the path
    reads the same tree, positions and problems, and when the path was used, ruamel.yaml too. (Where libyaml and
    ruamel.yaml disagree on a file the path did not take, e.g. ``{a: b:}``, or a tab after a flow collection,
    which YAML allows as separation space: libyaml reads it and ruamel refuses it, the path is not involved.)"""
    taken: list[bool] = []
    real = cyaml.Reader.read

    def spy(self: cyaml.Reader) -> Any:
        try:
            return real(self)
        finally:
            taken.append(bool(self.taken))

    with monkeypatch.context() as m:
        m.setattr(cyaml.Reader, "read", spy)
        fast = _read(path, True)
    with monkeypatch.context() as m:
        m.setattr(flowline, "take", lambda text: (text, {}))
        plain = _read(path, True)
    assert _same(fast[0], plain[0]), (fast[0], plain[0])
    assert fast[1] == plain[1]
    assert fast[2] == plain[2]  # libyaml's own words, on the original text
    if any(taken) and "\t" not in path.read_text():
        ruamel = _read(path, False)
        assert _same(fast[0], ruamel[0]), (fast[0], ruamel[0])
        assert fast[1] == ruamel[1]
        assert fast[2] == ruamel[2] == []
    return fast, any(taken)


def _write(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "items.yaml"
    f.write_text(text, encoding="utf-8")
    return f


def test_an_explicit_inventory_s_items_are_taken_with_every_key_s_position(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "fabric: {name: lab}\n"
        "nodes:\n"
        "  - {name: gpu1, model: dgx-h100, unit: 1}\n"
        "links:\n"
        "  - {a: leaf1:Ethernet1/1, b: spine-01:Ethernet1/1, speed: 800G, length_m: 2.5}\n"
        "  -   {a: leaf1:Ethernet2/1}\n"  # not the plain form: libyaml reads it
    )
    copy, items = flowline.take(text)
    assert sorted(items) == [2, 4]
    assert copy.splitlines()[2] == "  - 0" and copy.splitlines()[4] == "  - 0"
    assert items[4] == (5, {"a": "leaf1:Ethernet1/1", "b": "spine-01:Ethernet1/1", "speed": "800G", "length_m": 2.5})
    f = _write(tmp_path, text)
    (tree, positions, problems), taken = read_three(f, monkeypatch)
    assert taken and not problems
    assert positions[("links", 0)] == f"{f}:5:5"
    assert positions[("links", 0, "b")] == f"{f}:5:28"
    assert positions[("links", 0, "length_m")] == f"{f}:5:66"
    assert positions[("nodes", 0, "unit")] == f"{f}:3:35"
    assert tree["links"][1] == {"a": "leaf1:Ethernet2/1"}


def test_a_problem_at_a_taken_item_is_reported_at_its_key(tmp_path: Path) -> None:
    f = _write(
        tmp_path,
        "fabric: {name: lab}\n"
        "switches:\n"
        "  - {name: leaf1, role: leaf, model: sn5600}\n"
        "  - {name: spine1, role: spine, model: sn5600, colour: red}\n"
        "links:\n"
        "  - {a: leaf1:swp1, b: spine1:swp1, length_m: thirty}\n",
    )
    with pytest.raises(InputError) as exc:
        resolve(load_inventory(f))
    lines = [str(p) for p in exc.value.problems]
    assert f"{f}:4:48: switches[spine1].colour: unknown key" in lines
    bad_length = f"{f}:6:37: links[leaf1:swp1].length_m: Input should be a valid number"
    assert any(line.startswith(bad_length) for line in lines)


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        # taken
        ("items:\n  - {a: 1, b: x}\n  - {a: 2, b: y}\n", True),
        ("items:\n- {a: yes, b: no, c: 0x1F, d: 1e5, e: .nan, f: ~, g: 2024-01-02, h: -5, i: +7, j: 1_000}\n", True),
        ("items:\n  - {a: x:y, b: http://h/p, c: a@b, d: -x, e: 1:20, f: ._~+}\n", True),
        ("a:\n  b:\n    - {k: v}   \t\n", True),  # trailing blanks
        ("s: &s\n  - {a: 1, b: 2}\n  - {a: 3}\nt: *s\nu: [*s, *s]\n", True),  # aliases copy taken items
        # not taken: the line is not of the plain form
        ("items:\n  - {a: 1, a: 2}\n", False),  # a duplicate key: libyaml's error
        ("items:\n  - {true: 1}\n  - {null: 2}\n", False),  # keys that are not strings
        ("items:\n  - {a: b}  # a comment\n", False),
        ("items:\n  - {a: 'q', b: \"r\"}\n", False),
        ("items:\n  - {a: b c}\n", False),
        ("items:\n  - {a: [1, 2]}\n", False),
        ("items:\n  - {a: b:}\n", False),
        ("items:\n  - {a: &x b, c: *x}\n", False),
        ("items:\n  - {a: !!str 1}\n", False),
        ("items:\n  - {a: 9" + "9" * 5000 + "}\n", False),  # a line longer than MAX_LINE
        ("items:\n  - - {a: b}\n", False),
        ("items:\n  -\t{a: b}\n", False),
        # taken by the scan, refused by the parse of the copy: the original is read
        ("raw: |\n  - {a: b}\n  - {c: d}\nitems:\n  - {e: f}\n", False),  # inside a block scalar
        ('text: "x\n  - {a: b}\n  y"\nitems:\n  - {e: f}\n', False),  # inside a quoted scalar
        ("items:\n  - {a: b}\ndup: 1\ndup: 2\n", False),  # a problem elsewhere in the file
        ("items:\n  - {a: b}\nt: !custom 1\n", False),
        ("items:\n  - {a: b}\nbad: [1\n", False),
        ("items: [\n  - {a: b}\n]\n", False),
        ("items:\n  - {a: b}\n  : c\n", False),
    ],
)
def test_edge_lines_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, taken: bool) -> None:
    _, used = read_three(_write(tmp_path, text), monkeypatch)
    assert used is taken


def test_a_block_scalar_keeps_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "raw: |\n  - {a: b}\nitems:\n  - {e: f}\n"
    assert len(flowline.take(text)[1]) == 2  # the scan takes both lines; the parse of the copy refuses
    (tree, _, _), used = read_three(_write(tmp_path, text), monkeypatch)
    assert not used
    assert tree == {"raw": "- {a: b}\n", "items": [{"e": "f"}]}


def test_items_at_the_nesting_cap_fall_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def nested(depth: int) -> str:
        lines = [f"{'  ' * i}k{i}:" for i in range(depth)]
        return "\n".join(lines) + f"\n{'  ' * depth}- {{a: b}}\n"

    (_, _, problems), used = read_three(_write(tmp_path, nested(62)), monkeypatch)  # the item's keys at depth 64
    assert used and not problems
    (_, _, problems), used = read_three(_write(tmp_path, nested(63)), monkeypatch)
    assert not used
    assert [p.split(": ", 1)[1] for p in problems] == ["nesting deeper than 64 levels; refused"]


def test_items_count_against_the_node_budget() -> None:
    text = "items:\n" + "  - {a: 1, b: 2, c: 3}\n" * 5
    fast = cyaml.Reader("f.yaml", 0, text, 64, 21)  # one node short
    fast.read()
    assert not fast.taken  # over budget: the original was read, and refused
    plain = cyaml.Reader("f.yaml", 0, text, 64, 21)
    plain._read()
    assert [str(p) for p in fast.problems] == [str(p) for p in plain.problems]
    assert "alias bomb" in str(fast.problems[0])
    roomy = cyaml.Reader("f.yaml", 0, text, 64, 22)  # 1 for the root, 1 for the list, 4 per item
    roomy.read()
    assert roomy.taken and not roomy.problems


_WORDS = [
    "a", "name", "x_1", "k-2", "yes", "no", "true", "null", "True", "NULL", "_", "é",
    "1", "-1", "+1", "0x1F", "0o17", "1_000", "1e5", ".5", ".nan", "-.inf", "~", "2024-01-02", "12:30",
    "leaf1:Ethernet1/1", "10.0.0.1/31", "a@b", "-x", "-", "x:", ":x", "@x", "a.b", "a/b", "400G", "",
]


@st.composite
def _item_line(draw: st.DrawFn) -> str:
    indent = draw(st.sampled_from(["", "  ", "    "]))
    pairs = draw(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_WORDS)), min_size=1, max_size=5))
    sep = draw(st.sampled_from([", ", ",", ",  ", ", "]))
    colon = draw(st.sampled_from([": ", ": ", ":", ":  "]))
    tail = draw(st.sampled_from(["", "", " ", "\t", " # c", ", "]))
    body = sep.join(f"{k}{colon}{v}" for k, v in pairs)
    return f"{indent}- {{{body}}}{tail}\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_item_line(), min_size=1, max_size=6), junk=st.text(string.printable, max_size=6))
def test_generated_item_lines_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], junk: str
) -> None:
    """Lines of every form, plain or not, under one key: whatever the one-line path takes, it reads as the
    others do; whatever it does not take, libyaml reads."""
    indent = min(len(ln) - len(ln.lstrip(" ")) for ln in lines)
    body = "".join(ln[indent:] for ln in lines)
    read_three(_write(tmp_path, f"items:\n{body}"), monkeypatch)
    read_three(_write(tmp_path, f"items:\n{body}{junk}\n"), monkeypatch)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pairs=st.lists(
        st.tuples(
            st.text(string.ascii_letters, min_size=1, max_size=6),
            st.text(string.ascii_letters + string.digits + "_./+~:@-", min_size=1, max_size=10),
        ),
        min_size=1,
        max_size=6,
        unique_by=lambda p: p[0],
    )
)
def test_plain_items_are_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pairs: list[tuple[str, str]]) -> None:
    """Items of words alone (keys that are strings, values that do not end with ``:`` nor start with ``:``,
    ``@`` or a lone ``-``) always take the one-line path."""
    plain = all(
        flowline._resolve(k) == k and not v.endswith(":") and v[0] not in ":@" and v != "-" for k, v in pairs
    )
    line = "  - {" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}\n"
    (_, positions, problems), used = read_three(_write(tmp_path, "items:\n" + line), monkeypatch)
    if plain and all(flowline._resolve(v) is not flowline._REFUSED for _, v in pairs):
        assert used
        assert not problems
        key, _ = pairs[-1]
        assert positions[("items", 0, key)].endswith(f":2:{line.index(', ' + key + ': ') + 3 if len(pairs) > 1 else 6}")


def test_every_short_value_reads_as_libyaml_reads_it() -> None:
    """Every value of one to three characters of the alphabet a taken item's values are made of, plus a few
    letters: libyaml with the one-line path and without it read the same tree and positions, or fail alike."""
    alphabet = "A0_./+~:@-"
    values = ["".join(chars) for n in (1, 2, 3) for chars in itertools.product(alphabet, repeat=n)]
    taken = 0
    for value in values:
        text = f"items:\n  - {{a: {value}, b: x{value}}}\n"
        fast, plain = cyaml.Reader("f.yaml", 0, text, 64, 10**6), cyaml.Reader("f.yaml", 0, text, 64, 10**6)
        try:
            got: Any = fast.read()
        except cyaml.Fatal as exc:
            got = str(exc.problem)
        try:
            want: Any = plain._read()
        except cyaml.Fatal as exc:
            want = str(exc.problem)
        if isinstance(want, str):
            assert got == want, value
            continue
        assert _same(got[0], want[0]), value
        assert got[1][:2] == want[1][:2] and [r & ~cyaml.FLOW for r in got[2][:2]] == want[2][:2], value
        taken += bool(fast.taken)
    assert taken > len(values) // 2  # most of them take the path
