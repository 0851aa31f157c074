"""The trust boundary: no inventory string reaches a switch configuration or host file as code.

Every free-text field reachable from an inventory is either refused at load (exit 3, naming the field)
or rendered, for all six platforms and the host files, without adding, removing or splitting a line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fabricgen.cli import main
from fabricgen.errors import InputError
from fabricgen.inventory.load import LoadedInventory, load_inventory
from fabricgen.inventory.units import format_speed, parse_speed
from fabricgen.qos import compute
from fabricgen.qos.host import UnsafeHostValue, host_files, nccl_assignment, nccl_env
from fabricgen.render import PLATFORMS, render_data, render_device
from fabricgen.render.data import build_device
from fabricgen.render.engine import UnsafeValue, junos_str, yaml_str
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.portnames import canonical_port, parse_port, port_name
from fabricgen.topology.resolve import resolve

ALL = ("sonic", "eos", "nvue", "nxos", "junos", "frr")

# --------------------------------------------------------------------------- a small fabric, as a tree


def base_tree() -> dict[str, Any]:
    """One leaf, one spine, one two-NIC node, every free-text field set to a plain value."""
    return {
        "fabric": {"name": "trust"},
        "catalog": {
            "switches": {
                "sw800": {
                    "vendor": "NVIDIA",
                    "asic": "Tomahawk-5",  # no ASIC-specific features (adaptive routing is Spectrum-4/5 only)
                    "ports": 64,
                    "native_speed": "800G",
                    "lanes": 8,
                    "breakouts": ["1x800G", "2x400G"],
                    "platform": "sonic",
                    "nos": ["sonic", "nvue", "eos", "nxos", "junos"],  # a stand-in for every platform's switch
                    "buffer": {"total_bytes": 167772160, "cell_bytes": 192, "pipeline_latency_bytes": 19456},
                }
            },
            "nics": {"nic400": {"vendor": "NVIDIA", "speed": "400G", "rdma_driver": "mlx5"}},
            "servers": {
                "srv": {
                    "vendor": "Supermicro",
                    "gpu": "H100-SXM5-80GB",
                    "gpus": 2,
                    "nvlink_domain": 2,
                    "nvlink_gbytes_per_s": 450,
                    "backend_nic": "nic400",
                    "backend": [
                        {"ifname": "enp1s0np0", "rdma_dev": "mlx5_0", "gpu": 0, "numa": 0, "pcie": "0000:01:00.0"},
                        {"ifname": "enp2s0np0", "rdma_dev": "mlx5_1", "gpu": 1, "numa": 0, "pcie": "0000:02:00.0"},
                    ],
                }
            },
        },
        "switches": [
            {"name": "leaf1", "role": "leaf", "model": "sw800", "id": 1, "unit": 1, "rails": [0, 1]},
            {"name": "spine1", "role": "spine", "model": "sw800", "id": 1},
        ],
        "nodes": [{"name": "gpu01", "model": "srv", "unit": 1}],
        "links": [
            {"a": "gpu01:enp1s0np0", "b": "leaf1:Ethernet0", "length_m": 3},
            {"a": "gpu01:enp2s0np0", "b": "leaf1:Ethernet4", "length_m": 3},
            {"a": "leaf1:Ethernet256", "b": "spine1:Ethernet0", "length_m": 30, "cable": "AOC-800G"},
        ],
        "qos": {
            "lanes": [
                {
                    "name": "roce",
                    "purpose": "training",
                    "dscp": [26],
                    "tc": 3,
                    "lossless": True,
                    "weight": 50,
                    "ecn": True,
                },
                {"name": "cnp", "purpose": "cnp", "dscp": [48], "scheduling": "strict"},
                {"name": "default", "purpose": "default", "tc": 0, "weight": 50},
            ],
            "nccl": {"socket_ifname": "^lo,docker"},
        },
    }


def _rename(tree: dict[str, Any], old: str, new: str) -> None:
    """Rename a device or NIC wherever the tree names it (definitions and cable ends)."""
    for section in ("switches", "nodes"):
        for item in tree[section]:
            if item["name"] == old:
                item["name"] = new
    for nic in tree["catalog"]["servers"]["srv"]["backend"]:
        if nic["ifname"] == old:
            nic["ifname"] = new
    for link in tree["links"]:
        for end in ("a", "b"):
            device, port = link[end].split(":", 1)
            link[end] = f"{new if device == old else device}:{new if port == old else port}"


def _set(*path: str | int) -> Callable[[dict[str, Any], str], None]:
    def apply(tree: dict[str, Any], value: str) -> None:
        node: Any = tree
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return apply


def _rename_model(tree: dict[str, Any], value: str) -> None:
    models = tree["catalog"]["switches"]
    models[value] = models.pop("sw800")
    for sw in tree["switches"]:
        sw["model"] = value


# (what, how to put the text there, a regex that the field path of the refusal matches)
FIELDS: list[tuple[str, Callable[[dict[str, Any], str], None], str]] = [
    ("fabric name", _set("fabric", "name"), r"^fabric\.name$"),
    ("switch vendor", _set("catalog", "switches", "sw800", "vendor"), r"^catalog\.switches\[sw800\]\.vendor$"),
    ("switch asic", _set("catalog", "switches", "sw800", "asic"), r"^catalog\.switches\[sw800\]\.asic$"),
    ("switch platform", _set("catalog", "switches", "sw800", "platform"), r"^catalog\.switches\[sw800\]\.platform$"),
    ("switch model name", _rename_model, r"^catalog\.switches\b"),
    ("nic vendor", _set("catalog", "nics", "nic400", "vendor"), r"^catalog\.nics\[nic400\]\.vendor$"),
    ("server vendor", _set("catalog", "servers", "srv", "vendor"), r"^catalog\.servers\[srv\]\.vendor$"),
    ("server gpu", _set("catalog", "servers", "srv", "gpu"), r"^catalog\.servers\[srv\]\.gpu$"),
    ("server nic", lambda t, v: _rename(t, "enp1s0np0", v), r"^catalog\.servers\[srv\]\.backend\[0\]\.ifname$"),
    (
        "rdma dev",
        _set("catalog", "servers", "srv", "backend", 0, "rdma_dev"),
        r"^catalog\.servers\[srv\]\.backend\[0\]\.rdma_dev$",
    ),
    ("switch name", lambda t, v: _rename(t, "leaf1", v), r"^switches\[.*\]\.name$"),
    ("node name", lambda t, v: _rename(t, "gpu01", v), r"^nodes\[.*\]\.name$"),
    ("switch platform override", _set("switches", 0, "platform"), r"^switches\[leaf1\]\.platform$"),
    ("switch port", lambda t, v: _set("links", 2, "a")(t, f"leaf1:{v}"), r"^links\[.*\]\.a$"),
    ("cable", _set("links", 2, "cable"), r"^links\[leaf1:Ethernet256\]\.cable$"),
    ("lane name", _set("qos", "lanes", 0, "name"), r"^qos\.lanes\[.*\]\.name$"),
    ("nccl socket_ifname", _set("qos", "nccl", "socket_ifname"), r"^qos\.nccl\.socket_ifname$"),
]

HOSTILE = st.sampled_from(
    [
        "x\nusername backdoor privilege 15 secret 0 x",
        "x\r\nset system login user evil class super-user",
        'x" ; set system root-authentication plaintext-password "',
        "x'\n  evil: {}",
        "eth0; touch PWNED #",
        "$(touch PWNED)",
        "`id`",
        "a!b",
        "a{b}",
        "a#b",
        "a\\b",
        "a\u2028b",
        "a\x00b",
        "a\x85b",
        "\uff14\uff10\uff10G",
        "é",
    ]
)
# Printable text that the identifier types accept, so that the rendering side is exercised too.
LABELISH = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9 ._:/+()-]{0,20}\Z")
TEXT = st.one_of(HOSTILE, LABELISH, st.text(min_size=1, max_size=24))


def write_tree(tree: dict[str, Any], path: Path) -> Path:
    """JSON is YAML: every key on its own line, every string escaped, so any text can be written. JSON writes a
    character beyond U+FFFF as a surrogate pair of ``\\u`` escapes, which YAML refuses; YAML's own ``\\U`` escape
    carries it whole."""

    def whole(m: re.Match[str]) -> str:
        hi, lo = int(m.group(1), 16), int(m.group(2), 16)
        return f"\\U{0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00):08x}"

    text = json.dumps(tree, indent=2, ensure_ascii=True)
    text = re.sub(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", whole, text)
    path.write_text(text + "\n")
    return path


def rendered(loaded: LoadedInventory) -> dict[tuple[str, str, str], str]:
    """Every rendered file of every platform, and the host files: ``{(platform, device, file): text}``."""
    out: dict[tuple[str, str, str], str] = {}
    for platform in ALL:
        fabric = resolve(retarget(loaded, platform))
        qos = compute(fabric)
        for name in fabric.switches:
            for f in render_device(fabric, name, qos).files:
                out[platform, name, f.path.rsplit("/", 1)[-1]] = f.content
        if platform == "sonic":
            for node, files in host_files(qos.nics, qos.nccl).items():
                for fname, text in files.items():
                    out["host", node, fname] = text
    return out


def shape(files: dict[tuple[str, str, str], str]) -> Counter[tuple[str, str, int]]:
    """Which files, and how many lines each (by Python's idea of a line break, the widest there is)."""
    return Counter((platform, fname, len(text.splitlines())) for (platform, _, fname), text in files.items())


_BASE_SHAPE: list[Counter[tuple[str, str, int]]] = []


def base_shape(tmp: Path) -> Counter[tuple[str, str, int]]:
    if not _BASE_SHAPE:
        _BASE_SHAPE.append(shape(rendered(load_inventory(write_tree(base_tree(), tmp / "base.yaml")))))
    return _BASE_SHAPE[0]


_UNESCAPED_QUOTE = re.compile(r'(?<!\\)(?:\\\\)*"')


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), text=TEXT)
def test_any_text_in_any_field_is_refused_or_rendered_inert(
    tmp_path: Path, field: tuple[str, Callable[[dict[str, Any], str], None], str], text: str
) -> None:
    what, put, expected_field = field
    tree = base_tree()
    put(tree, text)
    path = write_tree(tree, tmp_path / "inv.yaml")
    try:
        loaded = load_inventory(path)
        files = rendered(loaded)
    except InputError as exc:
        event("refused at load")
        fields = [p.field for p in exc.problems]
        assert any(re.search(expected_field, f, re.DOTALL) for f in fields), (what, text, exc.problems)
        assert all(len(str(p).splitlines()) == 1 for p in exc.problems), exc.problems  # one line per problem
        return
    # accepted: the text is one of the documented identifier characters, and no file grew or lost a line
    event(f"accepted and rendered ({what})")
    value = text.strip()
    assert value.isascii() and value.isprintable(), (what, text)
    assert not set(value) & set("\"'\\;#!{}$`"), (what, text)
    assert shape(files) == base_shape(tmp_path), (what, text)
    for (platform, device, fname), body in files.items():
        assert body.isascii(), (platform, device, fname)
        if platform == "junos":
            for line in body.splitlines():
                assert len(_UNESCAPED_QUOTE.findall(line)) % 2 == 0, line


# --------------------------------------------------------------------------- the reported examples, via the CLI


def validate(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, list[str]]:
    with pytest.raises(SystemExit) as info:
        main(["validate", str(path), "--no-summary"])
    _, err = capsys.readouterr()
    assert isinstance(info.value.code, int)
    return info.value.code, err.splitlines()


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


ASIC_PAYLOAD = "Tomahawk-5)\nusername backdoor privilege 15 secret 0 x\n!("


@pytest.mark.parametrize(
    ("key", "where"),
    [
        ("asic", ("catalog", "switches", "sw800")),
        ("vendor", ("catalog", "switches", "sw800")),
        ("gpu", ("catalog", "servers", "srv")),
        ("vendor", ("catalog", "nics", "nic400")),
    ],
)
def test_config_injection_through_catalog_text_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key: str, where: tuple[str, ...]
) -> None:
    tree = base_tree()
    node: Any = tree
    for part in where:
        node = node[part]
    node[key] = ASIC_PAYLOAD
    path = write_tree(tree, tmp_path / "inv.yaml")
    code, err = validate(capsys, path)
    line = line_of(path, "username backdoor")
    col = path.read_text().splitlines()[line - 1].index(f'"{key}"') + 1
    assert code == 3
    assert err[0] == (
        f"{path}:{line}:{col}: {where[0]}.{where[1]}[{where[2]}].{key}: a product name: ASCII letters, digits, "
        "space and '._-:/+()' (first a letter or digit); '\\n' is not allowed"
    )


def test_rendering_refuses_a_control_character_even_past_the_schema() -> None:
    """The second line of defence: a value that skipped the schema still cannot start a line of its own."""
    loaded = load_inventory(write_tree_tmp(base_tree()))
    data = build_device(resolve(loaded), "leaf1")
    hostile_port = replace(data.interfaces[0], description=ASIC_PAYLOAD)
    for platform in ("eos", "junos", "nxos", "nvue", "frr"):
        data = build_device(resolve(retarget(loaded, platform)), "leaf1")  # the platform's own data (NVUE syntax)
        hostile_port = replace(data.interfaces[0], description=ASIC_PAYLOAD)
        with pytest.raises(UnsafeValue, match=r"control character '\\n'"):
            render_data(replace(data, platform=platform, interfaces=(hostile_port, *data.interfaces[1:])))
        if platform in ("eos", "junos", "nxos"):  # the templates that print the ASIC
            with pytest.raises(UnsafeValue, match=r"control character '\\n'"):
                render_data(replace(data, platform=platform, asic=ASIC_PAYLOAD))
    # SONiC's config_db.json is built as data and JSON-escaped: the value survives as one JSON string
    data = build_device(resolve(loaded), "leaf1")
    hostile_port = replace(data.interfaces[0], description=ASIC_PAYLOAD)
    sonic = render_data(replace(data, platform="sonic", interfaces=(hostile_port, *data.interfaces[1:])))
    doc = json.loads(sonic.main)
    assert ASIC_PAYLOAD in [row.get("description") for row in doc["PORT"].values()]
    assert not any(line.startswith("username") for line in sonic.main.splitlines())


def write_tree_tmp(tree: dict[str, Any]) -> Path:
    import tempfile

    fd, name = tempfile.mkstemp(suffix=".yaml")
    os.close(fd)
    return write_tree(tree, Path(name))


def test_quoted_contexts_escape_their_own_quotes() -> None:
    assert junos_str('a "b" \\c') == '"a \\"b\\" \\\\c"'
    assert yaml_str("it's") == "'it''s'"
    with pytest.raises(UnsafeValue):
        junos_str("a\nb")


def test_shell_injection_through_nccl_socket_ifname_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tree = base_tree()
    tree["qos"]["nccl"]["socket_ifname"] = "eth0; touch PWNED #"
    path = write_tree(tree, tmp_path / "inv.yaml")
    code, err = validate(capsys, path)
    line = line_of(path, "touch PWNED")
    assert code == 3
    assert err[0].startswith(f"{path}:{line}:7: qos.nccl.socket_ifname: interface-name prefixes of ")
    assert err[0].endswith("; ';' is not allowed (got 'eth0; touch PWNED #')")
    assert not (tmp_path / "PWNED").exists()


def test_host_files_refuse_values_invalid_for_their_variable() -> None:
    for key, value in [
        ("NCCL_SOCKET_IFNAME", "eth0; touch PWNED #"),
        ("NCCL_SOCKET_IFNAME", "eth0\nNCCL_DEBUG=INFO"),
        ("NCCL_IB_HCA", "mlx5_0 mlx5_1"),
        ("NCCL_IB_TC", "106; id"),
        ("NCCL_IB_GID_INDEX", "true"),
        ("NCCL_X; id", "1"),
    ]:
        with pytest.raises(UnsafeHostValue):
            nccl_assignment(key, value)


ENV_BASE = {"PATH": "/usr/bin:/bin"}


def sourced(tmp_path: Path, text: str) -> dict[str, str]:
    """The variables that ``. ./nccl.env`` adds to a clean POSIX sh, and what it printed (must be nothing)."""
    (tmp_path / "nccl.env").write_text(text)
    script = "set -a; . ./nccl.env; set +a; env -0"
    before = subprocess.run(["sh", "-c", "env -0"], cwd=tmp_path, env=ENV_BASE, capture_output=True, check=True)
    after = subprocess.run(["sh", "-c", script], cwd=tmp_path, env=ENV_BASE, capture_output=True, check=True)
    assert after.stderr == b""

    def parse(out: bytes) -> dict[str, str]:
        return dict(item.split("=", 1) for item in out.decode().split("\0") if item)

    old, new = parse(before.stdout), parse(after.stdout)
    return {k: v for k, v in new.items() if old.get(k) != v and k not in ("_", "SHLVL", "PWD", "OLDPWD")}


def test_sourcing_nccl_env_sets_exactly_the_intended_variables(lab: Fabric, tmp_path: Path) -> None:
    env = compute(lab).nccl["gpu01"]
    assert sourced(tmp_path, nccl_env(env)) == {
        "NCCL_IB_HCA": "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11",
        "NCCL_IB_TC": "106",
        "NCCL_IB_GID_INDEX": "3",
        "NCCL_SOCKET_IFNAME": "^lo,docker",
    }
    assert "NCCL_SOCKET_IFNAME='^lo,docker'" in nccl_env(env).splitlines()
    assert not list(tmp_path.glob("PWNED*"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.one_of(HOSTILE, st.from_regex(r"\A\^?=?[a-z0-9._-]{1,15}(,[a-z0-9._-]{1,15}){0,3}\Z"), st.text()))
def test_a_socket_ifname_is_refused_or_sourced_as_exactly_itself(tmp_path: Path, value: str) -> None:
    try:
        line = nccl_assignment("NCCL_SOCKET_IFNAME", value)
    except UnsafeHostValue:
        assert not re.fullmatch(r"\^?=?[A-Za-z0-9._-]{1,15}(,[A-Za-z0-9._-]{1,15})*", value, re.ASCII)
        return
    assert sourced(tmp_path, line + "\n") == {"NCCL_SOCKET_IFNAME": value}
    assert not list(tmp_path.glob("PWNED*"))


# --------------------------------------------------------------------------- one port, one name


@pytest.mark.parametrize(
    ("platform", "written", "canonical", "breakout"),
    [
        ("nvue", "swp1s00", "swp1s0", 2),
        ("nvue", "swp01s0", "swp1s0", 2),
        ("nvue", "SWP1s0", "swp1s0", 2),
        ("junos", "et-0/0/0:00", "et-0/0/0:0", 2),
        ("sonic", "ethernet0", "Ethernet0", 2),
        ("sonic", "Ethernet04", "Ethernet4", 2),
        ("eos", "ethernet1/01", "Ethernet1/1", 2),
        ("nxos", "Ethernet1/1/01", "Ethernet1/1/1", 2),
    ],
)
def test_a_non_canonical_port_spelling_is_refused_naming_the_canonical_one(
    platform: str, written: str, canonical: str, breakout: int
) -> None:
    assert canonical_port(platform, written) == canonical
    parse_port(platform, canonical, breakout, 8)
    with pytest.raises(ValueError, match=f"write '{re.escape(canonical)}'"):
        parse_port(platform, written, breakout, 8)


def test_second_spelling_of_a_cabled_port_is_an_input_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = base_tree()
    for sw in tree["switches"]:
        sw["platform"] = "nvue"
    tree["links"] = [
        {"a": "gpu01:enp1s0np0", "b": "leaf1:swp1s0", "length_m": 3},
        {"a": "gpu01:enp2s0np0", "b": "leaf1:swp1s00", "length_m": 3},
        {"a": "leaf1:swp33", "b": "spine1:swp1", "length_m": 30},
    ]
    path = write_tree(tree, tmp_path / "inv.yaml")
    code, err = validate(capsys, path)
    line = line_of(path, "leaf1:swp1s00")  # the link's `b:` key
    assert code == 3
    assert err == [
        f"{path}:{line}:7: links[gpu01:enp2s0np0].b: leaf1: 'swp1s00' is not the canonical nvue spelling "
        "of this port; write 'swp1s0'",
        "1 input problem(s); nothing was checked further",
    ]
    # spelled the same way, the second use names the first place
    tree["links"][1]["b"] = "leaf1:swp1s0"
    path = write_tree(tree, tmp_path / "inv2.yaml")
    code, err = validate(capsys, path)
    first, second = line_of(path, "gpu01:enp1s0np0") - 1, line_of(path, "gpu01:enp2s0np0") - 1
    assert code == 3
    assert err[0] == (
        f"{path}:{second}:5: links[gpu01:enp2s0np0]: port leaf1:swp1s0 is already cabled at {path}:{first}:5"
    )


@given(
    platform=st.sampled_from(ALL),
    cage=st.integers(1, 64),
    split=st.sampled_from([(1, 0), (2, 0), (2, 1), (4, 0), (4, 3), (8, 5)]),
    noise=st.text(alphabet="0sSeE:/-tTh", max_size=3),
)
def test_every_port_has_exactly_one_spelling(platform: str, cage: int, split: tuple[int, int], noise: str) -> None:
    breakout, sub = split
    name = port_name(platform, cage, sub, breakout, 8)
    pos = parse_port(platform, name, breakout, 8)
    assert (pos.cage, pos.sub, pos.breakout) == (cage, sub, breakout)
    assert canonical_port(platform, name) == name
    for variant in (name.upper(), name.lower(), re.sub(r"(\d+)", r"0\1", name), name + noise, noise + name):
        if variant == name:
            continue
        try:
            other = parse_port(platform, variant, breakout, 8)
        except ValueError:
            continue
        assert other != pos, (name, variant)  # another spelling may only ever name another port


# --------------------------------------------------------------------------- strict numbers, ASCII digits, ASN


def _only_problem(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, err = validate(capsys, path)
    assert code == 3
    assert err[-1] == "1 input problem(s); nothing was checked further"
    return err[0]


@pytest.mark.parametrize(
    ("edit", "needle", "expected"),
    [
        (
            lambda t: t["switches"][0].update(unit=True),
            '"unit": true',
            "switches[leaf1].unit: Input should be a valid integer (got True)",
        ),
        (
            lambda t: t["links"][2].update(length_m=True),
            '"length_m": true',
            "links[leaf1:Ethernet256].length_m: Input should be a valid number (got True)",
        ),
        (
            lambda t: t["qos"]["lanes"][0].update(lossless=1),
            '"lossless": 1',
            "qos.lanes[roce].lossless: Input should be a valid boolean (got 1)",
        ),
        (
            lambda t: t["catalog"]["nics"]["nic400"].update(speed="\uff14\uff10\uff10G"),
            '"speed": "\\uff14',
            "catalog.nics[nic400].speed: '\uff14\uff10\uff10G' is not a speed; write e.g. 400G, 800G or 1.6T",
        ),
    ],
)
def test_booleans_are_not_numbers_and_digits_are_ascii(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    edit: Callable[[dict[str, Any]], None],
    needle: str,
    expected: str,
) -> None:
    tree = base_tree()
    edit(tree)
    path = write_tree(tree, tmp_path / "inv.yaml")
    line = line_of(path, needle)
    col = path.read_text().splitlines()[line - 1].index(needle.split(":")[0]) + 1
    assert _only_problem(capsys, path) == f"{path}:{line}:{col}: {expected}"


def test_whole_number_lengths_still_load(tmp_path: Path) -> None:
    tree = base_tree()
    tree["links"][2]["length_m"] = 30.0
    assert load_inventory(write_tree(tree, tmp_path / "inv.yaml")).inventory.links[2].length_m == 30.0
    tree["links"][2]["length_m"] = 30
    assert load_inventory(write_tree(tree, tmp_path / "inv.yaml")).inventory.links[2].length_m == 30.0


def test_asn_overflow_is_reported_at_the_asn_base(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tree = base_tree()
    tree["fabric"]["asn"] = {"leaf_base": 4_294_967_294}
    path = write_tree(tree, tmp_path / "inv.yaml")
    line = line_of(path, '"leaf_base"')
    assert _only_problem(capsys, path) == (
        f"{path}:{line}:7: fabric.asn.leaf_base: leaf1: ASN 4294967295 is beyond the 4-byte range"
    )


def test_every_platform_renders_the_plain_fabric(tmp_path: Path) -> None:
    """The fabric the property test perturbs renders on all six platforms (so acceptance is exercised)."""
    files = rendered(load_inventory(write_tree(base_tree(), tmp_path / "inv.yaml")))
    assert {p for p, _, _ in files} == {*ALL, "host"}
    assert set(PLATFORMS) == set(ALL)
    eos = files["eos", "leaf1", "startup-config"]
    assert eos.splitlines()[0] == "! leaf1: leaf of fabric trust (sw800, Tomahawk-5)"
    junos = files["junos", "leaf1", "config.set"]
    assert 'set system description "leaf of fabric trust (sw800, Tomahawk-5)"' in junos.splitlines()


@given(
    text=st.one_of(st.text(max_size=8), st.from_regex(r"\A[0-9\uff10-\uff19\u0660-\u0669]{1,4}(\.[0-9]{1,2})?[GT]\Z"))
)
def test_a_speed_is_read_from_ascii_digits_only(text: str) -> None:
    try:
        gbps = parse_speed(text)
    except ValueError:
        return
    assert text.isascii(), text
    assert parse_speed(format_speed(gbps)) == gbps


@given(gbps=st.integers(1, 100_000))
def test_speeds_round_trip(gbps: int) -> None:
    assert parse_speed(format_speed(gbps)) == gbps


def test_each_node_gets_the_nccl_ib_hca_of_its_own_rdma_devices(tmp_path: Path) -> None:
    """NCCL_IB_HCA is built once per distinct list of RDMA devices: server models whose lists share their first
    device, or differ only in a prefix-sharing name (mlx5_1 / mlx5_10, which needs NCCL's exact-match ``=``),
    each keep their own list."""
    import copy

    tree = base_tree()
    servers = tree["catalog"]["servers"]
    for model, devs in (("srv2", ("mlx5_0", "mlx5_7")), ("srv3", ("mlx5_1", "mlx5_10"))):
        servers[model] = copy.deepcopy(servers["srv"])
        for nic, dev in zip(servers[model]["backend"], devs, strict=True):
            nic["rdma_dev"] = dev
    tree["nodes"] += [{"name": "gpu02", "model": "srv2", "unit": 1}, {"name": "gpu03", "model": "srv3", "unit": 1}]
    tree["links"] += [
        {"a": "gpu02:enp1s0np0", "b": "leaf1:Ethernet8", "length_m": 3},
        {"a": "gpu02:enp2s0np0", "b": "leaf1:Ethernet12", "length_m": 3},
        {"a": "gpu03:enp1s0np0", "b": "leaf1:Ethernet16", "length_m": 3},
        {"a": "gpu03:enp2s0np0", "b": "leaf1:Ethernet20", "length_m": 3},
    ]
    fabric = resolve(load_inventory(write_tree(tree, tmp_path / "inv.yaml")))
    nccl = compute(fabric).nccl
    got = {node: sourced(tmp_path, nccl_env(nccl[node]))["NCCL_IB_HCA"] for node in ("gpu01", "gpu02", "gpu03")}
    assert got == {"gpu01": "mlx5_0,mlx5_1", "gpu02": "mlx5_0,mlx5_7", "gpu03": "=mlx5_1,mlx5_10"}


def test_gid_index_auto_leaves_the_variable_unset(tmp_path: Path) -> None:
    tree = base_tree()
    tree["qos"]["nccl"] = {"gid_index": "auto", "socket_ifname": "=eth0,eth1"}
    fabric = resolve(load_inventory(write_tree(tree, tmp_path / "inv.yaml")))
    text = nccl_env(compute(fabric).nccl["gpu01"])
    assert "# NCCL_IB_GID_INDEX unset: NCCL chooses the GID index" in text.splitlines()
    assert sourced(tmp_path, text) == {
        "NCCL_IB_HCA": "mlx5_0,mlx5_1",
        "NCCL_IB_TC": "106",
        "NCCL_SOCKET_IFNAME": "=eth0,eth1",
    }
