"""Every capacity, cabling and addressing check: a passing case and a failing case with its exact findings.

The failing inventories live in ``tests/data/checks/<code>.yaml``: each is ``inventories/lab`` in one file with
a few lines changed, as a user would write it. The expected numbers are worked out by hand from the lab:
4 DGX H100 (8 × 400G NICs each), 4 SONiC SN5600 leaves with 8 host ports (3.2T) and 4 × 800G uplinks
(3.2T, two per spine), 2 spines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricgen.checks import Finding, Severity, addressing, cabling, capacity, run_checks
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).parent / "data" / "checks"

# Only the checks under test here (other modules may register more checks in all_checks()).
FOUNDATION = (*capacity.CHECKS, *cabling.CHECKS, *addressing.CHECKS)

Row = tuple[str, str, str, str]  # severity, code, subject, message


def rows(findings: Iterable[Finding]) -> list[Row]:
    return [(f.severity.value, f.code, f.subject, f.message) for f in findings]


def findings_of(name: str) -> list[Finding]:
    return run_checks(load_fabric(DATA / f"{name}.yaml"), FOUNDATION)


MODES = "native 800G; modes 1x800G, 2x400G, 4x200G, 8x100G"

EXPECTED: dict[str, list[Row]] = {
    # leaf1 keeps 2 of 4 uplinks: 3.2T / 1.6T = 2:1; leaf tier 12.8T / (3 × 3.2T + 1.6T) = 12.8 / 11.2 = 1.14:1;
    # with one spine down leaf1 keeps one 800G uplink: 3.2T / 0.8T = 4:1, above the lab's 2:1 failure target
    "FG-CAP-001": [
        ("error", "FG-CAP-001", "leaf1", "oversubscribed 2.00:1 (3.2T down / 1.6T up), target 1.00:1"),
        (
            "error",
            "FG-CAP-002",
            "leaf tier",
            "oversubscribed 1.14:1 (12.8T down / 11.2T up over 4 switches), target 1.00:1",
        ),
        ("warning", "FG-CAP-003", "leaf1", "with one spine down the ratio is 4.00:1, above the failure target 2.00:1"),
    ],
    "FG-CAP-003-error": [
        ("error", "FG-CAP-003", "leaf1", "all uplinks go to one spine (spine1): losing it isolates the 3.2T below"),
        ("error", "FG-TOPO-002", "leaf1", "reaches 1 of 2 spines (missing spine2)"),
    ],
    # two spines: one down halves the uplinks, 3.2T / 1.6T = 2:1 > 1.5:1, on every leaf
    "FG-CAP-003-warning": [
        ("warning", "FG-CAP-003", leaf, "with one spine down the ratio is 2.00:1, above the failure target 1.50:1")
        for leaf in ("leaf1", "leaf2", "leaf3", "leaf4")
    ],
    # one of four 800G uplinks down: 3.2T / 2.4T = 1.33:1 > 1.2:1
    "FG-CAP-004": [
        ("warning", "FG-CAP-004", leaf, "with one uplink down the ratio is 1.33:1, above the failure target 1.20:1")
        for leaf in ("leaf1", "leaf2", "leaf3", "leaf4")
    ],
    # leaf4 has no uplink; the tier has 12.8T down over 3 × 3.2T up = 1.33:1
    "FG-CAP-005": [
        (
            "error",
            "FG-CAP-002",
            "leaf tier",
            "oversubscribed 1.33:1 (12.8T down / 9.6T up over 4 switches), target 1.00:1",
        ),
        ("error", "FG-CAP-005", "leaf4", "leaf has 3.2T down and no uplink"),
    ],
    # Ethernet512 = lane 512 = cage 65; leaf1 uses host cages 1-4 (2x) and uplink cages 33, 34, 35, 65 (1x)
    "FG-PORT-001": [
        (
            "error",
            "FG-PORT-001",
            "leaf1",
            "uses 8 cages (4 at 1x, 4 at 2x) of the 64 a sn5600 has; beyond the front panel: Ethernet512",
        ),
    ],
    # Ethernet32 (800G, whole cage 5) and Ethernet36 (400G, second half of cage 5)
    "FG-PORT-002": [
        ("error", "FG-PORT-002", "leaf1:cage5", "cage 5 is used with different breakouts (1x, 2x)"),
    ],
    "FG-PORT-003": [
        ("error", "FG-PORT-003", port, f"1.6T is not a mode of sn5600 ({MODES})")
        for port in ("leaf1:Ethernet256", "leaf1:Ethernet264", "spine1:Ethernet0", "spine2:Ethernet0")
    ],
    # a 6-cage spine: 4 leaves × 2 links = 8 ports; the spines' cages 7 and 8 are beyond the panel as well
    "FG-TOPO-001": [
        *(
            (
                "error",
                "FG-PORT-001",
                spine,
                "uses 8 cages (8 at 1x) of the 6 a mini6 has; beyond the front panel: Ethernet48, Ethernet56",
            )
            for spine in ("spine1", "spine2")
        ),
        *(
            ("error", "FG-TOPO-001", spine, "4 leaves × 2 links = 8 ports at 800G, but a mini6 has 6")
            for spine in ("spine1", "spine2")
        ),
    ],
    "FG-TOPO-002": [
        ("error", "FG-TOPO-002", leaf, "reaches 2 of 3 spines (missing spine3)")
        for leaf in ("leaf1", "leaf2", "leaf3", "leaf4")
    ],
    "FG-CBL-001": [
        ("error", "FG-CBL-001", f"{gpu}:enp24s0np0", f"runs 400G but its peer leaf1:{port} runs 200G")
        for gpu, port in (("gpu01", "Ethernet0"), ("gpu02", "Ethernet4"))
    ],
    # spine1 gets 3 × 800G, spine2 1 × 800G; losing spine1 leaves 3.2T / 0.8T = 4:1
    "FG-CBL-002": [
        ("error", "FG-CBL-002", "leaf1", "uplinks are uneven over its upper tier: spine1 2.4T, spine2 800G"),
        ("warning", "FG-CAP-003", "leaf1", "with one spine down the ratio is 4.00:1, above the failure target 2.00:1"),
    ],
    "FG-CBL-003": [
        ("error", "FG-CBL-003", "gpu01:enp24s0np0", "rail 0 NIC lands on leaf2, which serves rail 2, 3"),
        ("error", "FG-CBL-003", "gpu01:enp79s0np0", "rail 2 NIC lands on leaf1, which serves rail 0, 1"),
    ],
    "FG-CBL-004": [
        ("error", "FG-CBL-004", "gpu04", "1 of 8 backend NICs are not cabled: enp220s0np0 (rail 7)"),
    ],
    "FG-CBL-005": [
        ("warning", "FG-CBL-005", "leaf1:Ethernet288", "cable (MMF-SR, 30 m) has no far end"),
    ],
    "FG-CBL-006": [
        ("info", "FG-CBL-006", "leaf5", "has uplinks but no servers yet"),
    ],
    "FG-ADDR-001": [
        ("error", "FG-ADDR-001", "leaf2", "loopback 10.0.0.1 is also leaf1's"),
    ],
    # leaf5 id 5, lane 256 (cage 33): 10.128.0.0 + 2 × (5 × 512 + 256) = 10.128.0.0 + 5632 = 10.128.22.0
    "FG-ADDR-002": [
        ("error", "FG-ADDR-002", "leaf5:swp33s0", "/31 10.128.22.0/31 is also used by leaf5:swp33"),
        ("error", "FG-PORT-002", "leaf5:cage33", "cage 33 is used with different breakouts (1x, 2x)"),
        ("info", "FG-CBL-006", "leaf5", "has uplinks but no servers yet"),
    ],
    "FG-ADDR-003": [
        (
            "error",
            "FG-ADDR-003",
            "fabric.addressing",
            "pool host_p2p 10.64.0.0/16 overlaps leaf_spine_p2p 10.64.0.0/16",
        ),
    ],
    "FG-ASN-001": [
        ("error", "FG-ASN-001", "AS4200100001", "shared by leaves leaf1, leaf2 under the unique-per-leaf scheme"),
    ],
}


def test_every_broken_inventory_has_expectations() -> None:
    assert sorted(p.stem for p in DATA.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_inventory_findings(name: str) -> None:
    assert rows(findings_of(name)) == EXPECTED[name]


@pytest.mark.parametrize("name", ["lab", "su1", "multi-su"])
def test_bundled_inventories_pass_every_check(name: str) -> None:
    assert rows(run_checks(load_fabric(INVENTORIES / name), FOUNDATION)) == []


def test_findings_point_at_the_line_that_defines_the_subject() -> None:
    text = (DATA / "FG-CAP-001.yaml").read_text().splitlines()
    by_code = {f.code: f for f in findings_of("FG-CAP-001")}
    src = by_code["FG-CAP-001"].src
    assert src is not None and src.file.endswith("FG-CAP-001.yaml")
    assert text[src.line - 1].lstrip().startswith("- {name: leaf1,")
    assert str(by_code["FG-CAP-001"]).startswith(f"{src.file}:{src.line}:5: error FG-CAP-001 leaf1: oversubscribed")


def test_rail_finding_points_at_the_cable() -> None:
    text = (DATA / "FG-CBL-003.yaml").read_text().splitlines()
    finding = next(f for f in findings_of("FG-CBL-003") if f.subject == "gpu01:enp24s0np0")
    assert finding.src is not None
    assert text[finding.src.line - 1].strip() == "- {a: gpu01:enp24s0np0, b: leaf2:Ethernet0, length_m: 3}"


def test_warnings_and_infos_alone_do_not_fail() -> None:
    for name in ("FG-CAP-003-warning", "FG-CAP-004", "FG-CBL-005", "FG-CBL-006"):
        assert all(f.severity is not Severity.ERROR for f in findings_of(name)), name


# ----------------------------------------------------------------------------- variants built in the test


def _lab_text() -> str:
    return "\n".join((INVENTORIES / "lab" / f).read_text() for f in ("fabric.yaml", "devices.yaml", "cabling.yaml"))


def _variant(tmp_path: Path, *edits: tuple[str, str]) -> Fabric:
    text = _lab_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "inventory.yaml"
    path.write_text(text)
    return load_fabric(path)


def test_rail_alignment_unit_mismatch(tmp_path: Path) -> None:
    fabric = _variant(tmp_path, ("{name: gpu04, model: dgx-h100, unit: 1}", "{name: gpu04, model: dgx-h100, unit: 2}"))
    got = rows(cabling.rail_alignment(fabric))
    leaves = ["leaf1", "leaf1", "leaf2", "leaf2", "leaf3", "leaf3", "leaf4", "leaf4"]
    nics = [
        "enp24s0np0",
        "enp64s0np0",
        "enp79s0np0",
        "enp94s0np0",
        "enp154s0np0",
        "enp192s0np0",
        "enp206s0np0",
        "enp220s0np0",
    ]
    assert got == [
        ("error", "FG-CBL-003", f"gpu04:{nic}", f"node of unit 2 lands on {leaf} of unit 1")
        for nic, leaf in zip(nics, leaves, strict=True)
    ]


def test_rail_alignment_without_declared_rails_uses_the_majority(tmp_path: Path) -> None:
    fabric = _variant(
        tmp_path,
        ("id: 1, unit: 1, rails: [0, 1]}", "id: 1, unit: 1}"),
        (
            "{a: gpu01:enp64s0np0, b: leaf1:Ethernet16, length_m: 3}",
            "{a: gpu01:enp79s0np0, b: leaf1:Ethernet16, length_m: 3}",
        ),
        (
            "{a: gpu01:enp79s0np0, b: leaf2:Ethernet0, length_m: 3}",
            "{a: gpu01:enp64s0np0, b: leaf2:Ethernet0, length_m: 3}",
        ),
    )
    # leaf1 declares no rails: 4 rail-0 and 3 rail-1 NICs plus gpu01's rail-2 NIC; rail 0 is the majority.
    # Findings come leaf by leaf (leaf1, then leaf2), nodes in order.
    assert rows(cabling.rail_alignment(fabric)) == [
        ("error", "FG-CBL-003", "gpu01:enp79s0np0", "rail 2 NIC lands on leaf1, which mostly carries rail 0"),
        ("error", "FG-CBL-003", "gpu02:enp64s0np0", "rail 1 NIC lands on leaf1, which mostly carries rail 0"),
        ("error", "FG-CBL-003", "gpu03:enp64s0np0", "rail 1 NIC lands on leaf1, which mostly carries rail 0"),
        ("error", "FG-CBL-003", "gpu04:enp64s0np0", "rail 1 NIC lands on leaf1, which mostly carries rail 0"),
        ("error", "FG-CBL-003", "gpu01:enp64s0np0", "rail 1 NIC lands on leaf2, which serves rail 2, 3"),
    ]


def test_loopback_inside_a_p2p_pool(tmp_path: Path) -> None:
    fabric = _variant(tmp_path, ("rails: [0, 1]}", "rails: [0, 1], loopback: 10.64.255.1}"))
    assert rows(addressing.pools_disjoint(fabric)) == [
        ("error", "FG-ADDR-003", "leaf1", "loopback 10.64.255.1 lies inside the host_p2p pool 10.64.0.0/16"),
    ]


def test_asn_shared_across_tiers(tmp_path: Path) -> None:
    fabric = _variant(tmp_path, ("platform: sonic, id: 1}", "platform: sonic, id: 1, asn: 4200100003}"))
    assert rows(addressing.asns(fabric)) == [
        (
            "error",
            "FG-ASN-001",
            "AS4200100003",
            "shared by different tiers (leaf3, spine1); eBGP between them would not come up",
        ),
    ]


def test_shared_leaf_asn_scheme_allows_one_asn_for_all_leaves(tmp_path: Path) -> None:
    fabric = _variant(tmp_path, ("    leaf_base: 4200100000\n", "    leaf_base: 4200100000\n    leaf: shared\n"))
    assert {s.asn for s in fabric.switches.values() if s.role.value == "leaf"} == {4200100000}
    assert rows(addressing.asns(fabric)) == []


def test_duplicate_subnet_built_directly(lab: Fabric) -> None:
    """FG-ADDR-002 on a fabric whose second link reuses the first link's /31 (whatever the cause)."""
    links = list(lab.links)
    links[1] = dataclasses.replace(links[1], subnet=links[0].subnet)
    broken = dataclasses.replace(lab, links=tuple(links))
    first, second = links[0], links[1]
    assert rows(addressing.unique_subnets(broken)) == [
        (
            "error",
            "FG-ADDR-002",
            f"{second.a.device}:{second.a.port}",
            f"/31 {first.subnet} is also used by {first.a.device}:{first.a.port}",
        ),
    ]
    assert first.subnet == "10.64.4.0/31"  # leaf1 (id 1) lane 0: 10.64.0.0 + 2 × 512


CheckFn = Callable[[Fabric], Iterable[Finding]]


@pytest.mark.parametrize("check", FOUNDATION, ids=lambda c: c.__name__)
def test_each_check_is_quiet_on_the_lab(check: CheckFn, lab: Fabric) -> None:
    assert list(check(lab)) == []


def test_checks_sort_errors_first() -> None:
    severities = [f.severity for f in findings_of("FG-CBL-002")]
    assert severities == [Severity.ERROR, Severity.WARNING]


def _speed_match_by_every_link(fabric: Fabric) -> list[Row]:
    """FG-CBL-001 as a walk over every link, looking both ends up (what speed_match finds without the lookups)."""
    out: list[Row] = []
    for link in fabric.links:
        if link.b is None:
            continue
        a, b = cabling._end_speed(fabric, link.a), cabling._end_speed(fabric, link.b)
        if a is not None and b is not None and a != b:
            out.append(("error", "FG-CBL-001", f"{link.a.device}:{link.a.port}", f"runs {a}G but its peer "
                        f"{link.b.device}:{link.b.port} runs {b}G"))
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_speed_match_finds_what_a_walk_over_every_link_finds(data: st.DataObject) -> None:
    """Any switch ports and NICs of the lab set to another speed: speed_match reports exactly the links whose two
    ends differ, in link order (a mismatch on a leaf–spine link, a NIC–leaf link, or several)."""
    lab = load_fabric(INVENTORIES / "lab")
    speeds = st.sampled_from([100, 200, 400, 800])
    switches = {}
    for name, sw in lab.switches.items():
        changed = data.draw(st.dictionaries(st.sampled_from([p.name for p in sw.ports]), speeds, max_size=2))
        ports = tuple(dataclasses.replace(p, speed=changed.get(p.name, p.speed)) for p in sw.ports)
        switches[name] = dataclasses.replace(sw, ports=ports)
    nodes = {}
    for name, node in lab.nodes.items():
        changed = data.draw(st.dictionaries(st.sampled_from([n.ifname for n in node.nics]), speeds, max_size=2))
        nics = tuple(dataclasses.replace(n, speed=changed.get(n.ifname, n.speed)) for n in node.nics)
        nodes[name] = dataclasses.replace(node, nics=nics)
    fabric = dataclasses.replace(lab, switches=switches, nodes=nodes)
    expected = _speed_match_by_every_link(fabric)
    assert rows(cabling.speed_match(fabric)) == expected
    assert rows(cabling.speed_match(lab)) == _speed_match_by_every_link(lab) == []  # the lab's links all match
