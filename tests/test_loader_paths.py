"""The libyaml reader and the ruamel.yaml reader agree: same tree, same positions, same problems at the same places.

ruamel.yaml is the reference (it was the only reader before, and stays as the fallback); every bundled
inventory, every test inventory and generated YAML documents are read both ways and compared. Where the
wording of a syntax error differs between the parsers, the position and the field must still agree.
"""

from __future__ import annotations

import math
import string
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricgen.errors import Problem
from fabricgen.inventory import cyaml
from fabricgen.inventory.load import SourceMap, _parse_file, load_tree
from tests.conftest import INVENTORIES, require

ROOT = Path(__file__).parent.parent
CORPUS = sorted(
    p
    for base in (ROOT / "inventories", ROOT / "tests" / "data")
    for p in base.rglob("*")
    if p.suffix in (".yaml", ".yml")
)



@pytest.fixture(autouse=True)
def _libyaml() -> None:
    require(cyaml.AVAILABLE, "PyYAML was built without its C extension (libyaml)")


def read(path: Path, use_libyaml: bool) -> tuple[Any, dict[Any, str], list[tuple[str, str, str]]]:
    source = SourceMap()
    problems: list[Problem] = []
    tree = _parse_file(path, source, problems, use_libyaml=use_libyaml)
    positions = {k: str(v) for k, v in source.items()}
    found = [(str(p.pos), p.field, p.message) for p in problems]
    return tree, positions, found


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to itself and bool never equal to int."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def assert_agree(path: Path) -> None:
    c_tree, c_pos, c_problems = read(path, True)
    r_tree, r_pos, r_problems = read(path, False)
    assert _same(c_tree, r_tree), (c_tree, r_tree)
    assert c_pos == r_pos
    # syntax errors are worded by each parser; where and what field must agree (InputError sorts by position)
    assert sorted((p, f) for p, f, _ in c_problems) == sorted((p, f) for p, f, _ in r_problems)
    assert sorted(m for _, _, m in c_problems if "syntax error" not in m) == sorted(
        m for _, _, m in r_problems if "syntax error" not in m
    )


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(ROOT)) for p in CORPUS])
def test_bundled_files_read_the_same(path: Path) -> None:
    assert_agree(path)


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) > 40


# ------------------------------------------------------------------ generated documents

_PLAIN_WORDS = [
    "yes", "no", "on", "off", "y", "n", "true", "True", "FALSE", "null", "Null", "~", "", "0777", "0o17", "0x1F",
    "0b101", "1_000", "+5", "-0", "1:20", "12:30:45", ".inf", "-.Inf", ".nan", "1e5", "1.5e-3", "1.", ".5", "-_",
    "2024-01-02", "2024-01-02 10:00:00", "2024-01-02T10:00:00Z", "2024-1-2 1:00:00 +02:00", "0", "007", "-12",
    "1_0.5", "3.14", "1e400", "-1e400", "00", "0x", "0o8", "Ethernet0", "leaf1:Ethernet4", "400G", "10.0.0.0/24",
    "=", "a b", "x-y", "ŷes", "日本",
]
_KEYS = st.sampled_from(["name", "a", "b", "id", "model", "x_1", "yes", "1", "null", "true", "2024-01-02", "ü"])


def _scalar_text() -> st.SearchStrategy[str]:
    quoted = st.text(alphabet=string.ascii_letters + string.digits + " :-_./ñ", max_size=12).map(
        lambda s: '"' + s + '"'
    )
    single = st.text(alphabet=string.ascii_letters + string.digits + " -_", max_size=8).map(lambda s: f"'{s}'")
    ints = st.integers(min_value=-(10**30), max_value=10**30).map(str)
    floats = st.floats(allow_nan=False, allow_infinity=False).map(repr)
    tagged = st.sampled_from(["!!str 12", "!!int 7", "!!float 3", "!!bool yes", "!!null ''", "!!int 0x10"])
    plain = st.sampled_from(_PLAIN_WORDS).filter(lambda s: s not in ("", "="))
    return st.one_of(plain, quoted, single, ints, floats, tagged)


def _flow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    seq = st.lists(children, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
    mapping = st.dictionaries(_KEYS, children, max_size=4).map(
        lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
    )
    return st.one_of(seq, mapping)


_FLOW_VALUE = st.recursive(_scalar_text(), _flow, max_leaves=12)


def _block(value: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A block mapping of flow values and of nested block lists and maps."""

    def entry(key: str, v: str, nested: list[str] | None) -> str:
        if nested is None:
            return f"{key}: {v}\n"
        body = "".join(f"  - {x}\n" for x in nested)
        return f"{key}:\n{body}" if body else f"{key}: []\n"

    items = st.lists(
        st.tuples(_KEYS, value, st.one_of(st.none(), st.lists(value, max_size=4))), min_size=1, max_size=6,
        unique_by=lambda t: t[0],
    )
    return items.map(lambda es: "".join(entry(k, v, n) for k, v, n in es))


_DOC = _block(_FLOW_VALUE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_DOC)
def test_generated_documents_read_the_same(tmp_path: Path, doc: str) -> None:
    f = tmp_path / "doc.yaml"
    f.write_text(doc, encoding="utf-8")
    assert_agree(f)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    doc=_DOC,
    anchor_at=st.integers(min_value=0, max_value=5),
    extra=st.sampled_from(["", "dup: 1\ndup: 2\n", "t: !custom x\n", "bad: [1, *nowhere]\n", "k: {? [a]: 1}\n"]),
)
def test_generated_documents_with_aliases_and_errors_read_the_same(
    tmp_path: Path, doc: str, anchor_at: int, extra: str
) -> None:
    lines = doc.splitlines(keepends=True)
    i = min(anchor_at, len(lines) - 1)
    key, sep, rest = lines[i].partition(": ")
    if sep and rest.strip():
        lines[i] = f"{key}: &anc {rest}"
        lines.append("copy1: *anc\ncopy2: [*anc, *anc]\n")
    f = tmp_path / "doc.yaml"
    f.write_text("".join(lines) + extra, encoding="utf-8")
    assert_agree(f)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {p: 1, q: [1, 2]}\nb: *x\nc: [*x, *x]\n",
        "a: &s hello\nb: *s\n*s : 3\n",
        "a: !!binary aGVsbG8=\nb: !!set {x, y}\nc: !!omap [{a: 1}]\n",
        "a: !custom {x: 1, y: !other 2}\nb: 1\n",
        "%YAML 1.1\n---\na: yes\n",
        "a: &x {p: 1}\nb:\n  <<: *x\n  q: 2\n",
        "a: =\n",
        "a: 1\n---\nb: 2\n",
        "a: b\n  c: d\n",
        "a: [1, 2\n",
        "? [x]\n: 1\n? {y: 1}\n: 2\n",
        "null: 1\n~: 2\n",
        "1: a\n01: b\n",
        "a: \"\\u0041\\t\"\nb: 'it''s'\nc: |\n  x\n  y\nd: >-\n  p\n  q\n",
        "- a\n- b\n",
        "just a string\n",
        "",
        "# only a comment\n",
        "~\n",
        "a: &x [1, *x]\n",
        "a: " + "[" * 70 + "]" * 70 + "\n",
        "a: &a [1, 2]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\n",
        "a: !!int xyz\nb: " + "9" * 5000 + "\n",
        "x: {a: !!timestamp 2024-01-02}\n",
        "café: ü\nnäme: [ö, 日本]\n",
    ],
)
def test_edge_documents_read_the_same(tmp_path: Path, text: str) -> None:
    f = tmp_path / "edge.yaml"
    f.write_text(text, encoding="utf-8")
    assert_agree(f)


def test_deep_aliases_are_refused_on_both_paths(tmp_path: Path) -> None:
    """Nesting built from aliases (each level 2 deep in text) goes past the cap only once expanded."""
    lines = ["l0: &l0 [x]"] + [f"l{i}: &l{i} [[*l{i - 1}]]" for i in range(1, 40)]
    f = tmp_path / "deep.yaml"
    f.write_text("\n".join(lines) + "\n")
    assert_agree(f)
    _, _, found = read(f, True)
    assert [m for _, _, m in found] == ["nesting deeper than 64 levels; refused"]


def test_without_the_c_extension_ruamel_reads_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    with_c = load_tree(INVENTORIES / "lab")
    monkeypatch.setattr(cyaml, "AVAILABLE", False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        without = load_tree(INVENTORIES / "lab")
    assert without[0] == with_c[0]
    assert dict(without[1].items()) == dict(with_c[1].items())
    # every key and item of the lab's files (base.yaml and switches' base: too)
    assert len(dict(without[1].items())) == 328


def test_merge_keys_and_yaml_directives_are_read_by_ruamel(tmp_path: Path) -> None:
    f = tmp_path / "merge.yaml"
    f.write_text("%YAML 1.1\n---\nbase: &b {speed: 400G, length_m: 3}\nlink:\n  <<: *b\n  a: x\nflag: yes\n")
    tree, positions, _ = load_tree(f)
    assert tree == {"base": {"speed": "400G", "length_m": 3}, "link": {"a": "x", "speed": "400G", "length_m": 3},
                    "flag": True}  # YAML 1.1 as the directive asks
    assert str(positions.find(("link", "a"))) == f"{f}:6:3"


def test_rare_constructs_in_a_large_file_are_refused_not_slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fabricgen.inventory.load as load

    monkeypatch.setattr(load, "RUAMEL_FALLBACK_BYTES", 100)
    f = tmp_path / "big.yaml"
    f.write_text("fabric: {name: lab}\nitems: [" + "1, " * 50 + "2]\nbase: &b {x: 1}\nmore:\n  <<: *b\n")
    problems: list[Problem] = []
    assert _parse_file(f, SourceMap(), problems) is None
    assert [str(p) for p in problems] == [
        f"{f}:5:3: the << key is supported only in files of up to 100 bytes (this one has {f.stat().st_size});"
        " write the keys out, or split the file"
    ]


@st.composite
def _explicit_fabric(draw: st.DrawFn) -> str:
    """An explicit inventory (switches, nodes, cables) in a drawn mix of block and flow style, with comments."""
    spines = draw(st.integers(1, 3))
    leaves = draw(st.integers(1, 4))
    nodes = draw(st.integers(1, 4))
    block = draw(st.booleans())
    lengths = st.one_of(st.integers(1, 300).map(str), st.sampled_from(["2.5", "0.5", "3", '"3"', "1e1"]))
    name = draw(st.sampled_from(["lab", "x-1", "yes", '"no"']))
    out = ["# generated\n", f"fabric:\n  name: {name}\n"]
    out.append(f"  oversubscription: {{leaf: {draw(st.sampled_from(['1.0', '1', '2.5']))}, spine: 1.0}}\n")
    out.append("switches:\n")
    devices = [(f"spine{i + 1}", "spine", i + 1) for i in range(spines)] + [
        (f"leaf{i + 1}", "leaf", i + 1) for i in range(leaves)
    ]
    for name, role, i in devices:
        if block:
            out.append(f"  - name: {name}\n    role: {role}\n    model: sn5600\n    id: {i}  # {role} {i}\n")
        else:
            out.append(f"  - {{name: {name}, role: {role}, model: sn5600, id: {i}}}\n")
    out.append("nodes:\n")
    out.extend(f"  - {{name: gpu{n + 1:02d}, model: dgx-h100, unit: 1}}\n" for n in range(nodes))
    out.append("links:\n")
    for leaf in range(leaves):
        for n in range(nodes):
            length = draw(lengths)
            if block:
                out.append(f"  - a: gpu{n + 1:02d}:enp24s0np0\n    b: leaf{leaf + 1}:Ethernet{n * 4}\n"
                           f"    length_m: {length}\n")
            else:
                out.append(
                    f"  - {{a: gpu{n + 1:02d}:enp24s0np0, b: leaf{leaf + 1}:Ethernet{n * 4}, length_m: {length}}}\n"
                )
        for s in range(spines):
            out.append(
                f"  - {{a: leaf{leaf + 1}:Ethernet{256 + s * 8}, b: spine{s + 1}:Ethernet{leaf * 8}, speed: 800G}}\n"
            )
    return "".join(out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_explicit_fabric())
def test_generated_explicit_fabrics_read_the_same(tmp_path: Path, doc: str) -> None:
    f = tmp_path / "fabric.yaml"
    f.write_text(doc, encoding="utf-8")
    assert_agree(f)


def _split_files(doc: str, cuts: list[int]) -> list[str]:
    """``doc`` as a directory's files: the head, then its items split at the ``cuts``-th item boundaries of each of
    its top-level lists (never before the first: a section stays non-empty), each part under its section's key
    again (the loader concatenates them back)."""
    files: list[list[str]] = [[]]
    section = ""
    items = 0
    for line in doc.splitlines(keepends=True):
        if not line.startswith(" ") and line.rstrip().endswith(":"):
            section, items = line, 0
        elif line.startswith("  - ") and section in ("switches:\n", "nodes:\n", "links:\n"):
            items += 1
            if items in cuts:
                files.append([section])
        files[-1].append(line)
    return ["".join(f) for f in files]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_explicit_fabric(), cuts=st.lists(st.integers(2, 6), max_size=4))
def test_split_fabrics_place_positions_as_the_general_walk(tmp_path: Path, doc: str, cuts: list[int]) -> None:
    """A directory whose files add to top-level lists and sections: the top-level fast path of the position moves
    (load._move_top_positions) gives every path the position the general walk (load._move_any_positions) gives."""
    from fabricgen.inventory import load

    d = tmp_path / "inv"
    d.mkdir(exist_ok=True)
    for old in d.iterdir():
        old.unlink()
    for i, text in enumerate(_split_files(doc, cuts)):
        (d / f"{i:02d}.yaml").write_text(text, encoding="utf-8")
    fast_tree, fast, _ = load_tree(d)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(load, "_move_positions", load._move_any_positions)
        slow_tree, slow, _ = load_tree(d)
    assert _same(fast_tree, slow_tree)
    assert dict(fast.items()) == dict(slow.items())
    assert len(fast_tree["links"]) == doc.count("  - {a:") + doc.count("  - a:")  # every link, once
    last = len(fast_tree["links"]) - 1
    assert fast.find(("links", last, "a")) is not None  # the last file's items, under their merged index
