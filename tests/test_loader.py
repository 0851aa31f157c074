"""Inventory loading: every kind of bad input gives exact ``file:line:col: field: message`` lines, never a traceback."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from fabricgen.errors import InputError
from fabricgen.inventory.load import MAX_DEPTH, load_inventory
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES

BAD = Path(__file__).parent / "data" / "bad"
NICS = "enp24s0np0, enp64s0np0, enp79s0np0, enp94s0np0, enp154s0np0, enp192s0np0, enp206s0np0, enp220s0np0"
SWITCH_MODELS = "arista-7060x6-64pe, cisco-n9364d-gx2a, dell-z9864f-on, juniper-qfx5230-64cd, sn4700, sn5400, sn5600"
SERVER_MODELS = "dgx-b200, dgx-h100, hgx-b300, hgx-h100-thor2, hgx-h200"


def problems(path: Path) -> list[str]:
    """Load and resolve ``path``; the input problems, one line each, as the CLI prints them."""
    with pytest.raises(InputError) as info:
        resolve(load_inventory(path))
    return [str(p) for p in info.value.problems]


def test_yaml_syntax_error() -> None:
    f = BAD / "syntax-error.yaml"
    assert problems(f) == [f"{f}:4:9: YAML syntax error: did not find expected ',' or '}}'"]


def test_unknown_keys_all_reported() -> None:
    f = BAD / "unknown-key.yaml"
    assert problems(f) == [
        f"{f}:3:3: fabric.oversubscripton: unknown key",
        f"{f}:6:70: switches[leaf1].colour: unknown key",
    ]


def test_wrong_types_all_reported() -> None:
    f = BAD / "wrong-type.yaml"
    assert problems(f) == [
        f"{f}:3:22: fabric.oversubscription.leaf: Input should be a valid number (got 'high')",
        f"{f}:5:65: switches[spine1].id: Input should be a valid integer (got 'one')",
        f"{f}:6:19: switches[leaf1].role: Input should be 'leaf', 'spine' or 'core' (got 'leef')",
        f"{f}:8:49: links[leaf1:Ethernet256].speed: 'fast' is not a speed; write e.g. 400G, 800G or 1.6T",
    ]


def test_unknown_model_device_and_port_references() -> None:
    f = BAD / "unknown-reference.yaml"
    assert problems(f) == [
        f"{f}:4:33: switches[spine1].model: unknown switch model 'sn9999'; known: {SWITCH_MODELS}",
        f"{f}:8:19: nodes[gpu02].model: unknown server model 'dgx-h999'; known: {SERVER_MODELS}",
        f"{f}:11:6: links[gpu01:eth0].a: gpu01 (dgx-h100) has no backend NIC 'eth0'; it has {NICS}",
        f"{f}:12:27: links[gpu01:enp79s0np0].b: leaf1: Ethernet3 does not start a 2-way breakout of its 8-lane cage",
        f"{f}:13:27: links[gpu01:enp94s0np0].b: leaf1: 'swp4' is not a valid sonic port name (e.g. Ethernet0)",
        f"{f}:14:28: links[gpu01:enp154s0np0].b: unknown device 'leaf9'",
        # the links to spine1 and gpu02 (unknown models) add nothing: their problem is already reported
    ]  # each problem points at the field it is about, not at the start of its item


def test_duplicate_names_and_ids() -> None:
    f = BAD / "duplicate-name.yaml"
    assert problems(f) == [
        f"{f}:6:5: switches[leaf1].name: duplicate name 'leaf1', first defined at {f}:5:5",
        f"{f}:7:63: switches[leaf2].id: leaf id 1 is already used by leaf1 at {f}:5:5",
        f"{f}:10:5: nodes[spine1].name: duplicate name 'spine1', first defined at {f}:4:5",
    ]


def test_port_used_twice() -> None:
    f = BAD / "port-used-twice.yaml"
    assert problems(f) == [
        f"{f}:10:5: links[gpu01:enp64s0np0]: port leaf1:Ethernet0 is already cabled at {f}:9:5",
        f"{f}:11:5: links[gpu01:enp24s0np0]: port gpu01:enp24s0np0 is already cabled at {f}:9:5",
    ]


def test_python_and_custom_tags_refused_without_running_anything(tmp_path: Path) -> None:
    f = BAD / "python-tag.yaml"
    assert problems(f) == [
        f"{f}:2:3: fabric.name: YAML tag tag:yaml.org,2002:python/object/apply:os.system "
        "is not allowed in an inventory",
        f"{f}:4:5: switches[0]: YAML tag tag:yaml.org,2002:python/object:fabricgen.inventory.schema.Switch "
        "is not allowed in an inventory",
        f"{f}:5:1: nodes: YAML tag !custom is not allowed in an inventory",
    ]
    assert not Path("/tmp/fabricgen-pwned").exists()


def test_yaml_11_types_refused(tmp_path: Path) -> None:
    f = tmp_path / "types.yaml"
    f.write_text("fabric:\n  name: lab\n  x: !!binary aGVsbG8=\n  y: !!set {a, b}\n")
    assert problems(f) == [
        f"{f}:3:3: fabric.x: YAML tag !!binary is not allowed in an inventory",
        f"{f}:4:3: fabric.y: YAML tag !!set is not allowed in an inventory",
    ]


def test_core_str_tag_is_accepted(tmp_path: Path) -> None:
    f = tmp_path / "str.yaml"
    f.write_text("fabric:\n  name: !!str 123\n")
    assert load_inventory(f).inventory.fabric.name == "123"


def test_alias_bomb_fails_fast_and_small() -> None:
    f = BAD / "alias-bomb.yaml"
    tracemalloc.start()
    started = time.perf_counter()
    try:
        lines = problems(f)
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # 9 levels of 9 aliases would expand to 9⁹ ≈ 387 million strings
    assert len(lines) == 1
    assert lines[0].endswith("document expands to far more nodes than its text holds (alias bomb?); refused")
    assert lines[0].startswith(f"{f}:2:")
    assert elapsed < 10
    assert peak < 100 * 1024 * 1024


def test_self_referencing_anchor() -> None:
    f = BAD / "self-anchor.yaml"
    assert problems(f) == [
        f"{f}:3:21: alias *fabric refers to the node its anchor is on (a structure that contains itself); refused"
    ]


def test_self_referencing_sequence(tmp_path: Path) -> None:
    f = tmp_path / "seq.yaml"
    f.write_text("fabric: {name: lab}\nx: &x [1, *x]\n")
    assert problems(f) == [
        f"{f}:2:11: alias *x refers to the node its anchor is on (a structure that contains itself); refused"
    ]


def test_deep_nesting_refused_not_a_recursion_error(tmp_path: Path) -> None:
    f = tmp_path / "deep.yaml"
    f.write_text("fabric: " + "[" * 5000 + "]" * 5000 + "\n")
    lines = problems(f)
    assert len(lines) == 1
    assert lines[0].startswith(f"{f}:1:")
    assert lines[0].endswith(f"nesting deeper than {MAX_DEPTH} levels; refused")


def test_huge_integer_is_an_input_error(tmp_path: Path) -> None:
    f = tmp_path / "int.yaml"
    f.write_text("fabric: {name: lab, host_mtu: " + "9" * 5000 + "}\n")
    lines = problems(f)
    assert lines == [
        f"{f}:1:31: YAML error: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits;"
        " use sys.set_int_max_str_digits() to increase the limit"
    ]


def test_duplicate_key() -> None:
    f = BAD / "duplicate-key.yaml"
    assert problems(f) == [f'{f}:4:3: YAML syntax error: found duplicate key "host_mtu" (first at {f}:3:3)']


def test_empty_file() -> None:
    f = BAD / "empty.yaml"
    assert problems(f) == [f"{f}:1:1: file is empty"]


def test_directory_merge_conflict() -> None:
    d = BAD / "merge-conflict"
    a, b = d / "fabric.yaml", d / "more.yaml"
    assert problems(d) == [
        f"{b}:3:3: fabric.name: already defined at {a}:2:3; define it once",
        f"{b}:4:22: fabric.oversubscription.leaf: already defined at {a}:3:22; define it once",
    ]


def test_missing_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    assert problems(missing) == [f"<inventory>: {missing}: no such file or directory"]


def test_directory_without_yaml(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    assert problems(tmp_path) == [f"{tmp_path}:1:1: directory holds no .yaml/.yml files"]


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    f = tmp_path / "list.yaml"
    f.write_text("- a\n- b\n")
    assert problems(f) == [f"{f}:1:1: the top level of an inventory file must be a mapping"]


def test_missing_required_field(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text("fabric:\n  host_mtu: 9000\n")
    assert problems(f) == [f"{f}:1:1: fabric.name: required field is missing"]


def test_directory_merge_keeps_positions_of_every_file() -> None:
    loaded = load_inventory(INVENTORIES / "lab")
    assert str(loaded.pos("switches", 0)) == f"{INVENTORIES / 'lab' / 'devices.yaml'}:6:5"
    assert str(loaded.pos("links", 0)) == f"{INVENTORIES / 'lab' / 'cabling.yaml'}:4:5"
    assert (
        str(loaded.pos("links", 47, "b")) == f"{INVENTORIES / 'lab' / 'cabling.yaml'}:58:28"
    )  # `b` of `  - {a: leaf4:Ethernet280, b: ...`
    assert str(loaded.pos("fabric", "failure")) == f"{INVENTORIES / 'lab' / 'fabric.yaml'}:14:3"
    assert len(loaded.inventory.links) == 48


def test_every_resolved_object_keeps_its_source(lab: object) -> None:
    from fabricgen.topology.model import Fabric

    assert isinstance(lab, Fabric)
    lab_dir = INVENTORIES / "lab"
    assert str(lab.switches["leaf3"].src) == f"{lab_dir / 'devices.yaml'}:10:5"
    assert str(lab.nodes["gpu04"].src) == f"{lab_dir / 'devices.yaml'}:17:5"
    assert all(link.src is not None and link.src.file == str(lab_dir / "cabling.yaml") for link in lab.links)


def test_directory_merge_moves_positions_of_nested_lists(tmp_path: Path) -> None:
    from fabricgen.inventory.load import load_tree

    (tmp_path / "a.yaml").write_text("fabric: {name: lab}\nextra:\n  items: [a, b]\n  x: 1\n")
    (tmp_path / "b.yaml").write_text("extra:\n  items: [c, d]\n  y: {z: 2}\nmore: [e]\n")
    tree, source, _ = load_tree(tmp_path)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    assert tree["extra"] == {"items": ["a", "b", "c", "d"], "x": 1, "y": {"z": 2}}
    assert [str(source.find(p)) for p in [("extra", "items", 1), ("extra", "items", 2), ("extra", "items", 3),
                                          ("extra", "y", "z"), ("more", 0), ("extra",)]] == [
        f"{a}:3:14", f"{b}:2:11", f"{b}:2:14", f"{b}:3:7", f"{b}:4:8", f"{a}:2:1",
    ]
