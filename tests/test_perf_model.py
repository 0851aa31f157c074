"""The bandwidth model against closed-form values written from its formulas (GB/s, nccl-tests busbw)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricgen.errors import InputError
from fabricgen.perf import (
    Algorithm,
    Assumptions,
    Collective,
    bus_factor,
    parse_failures,
    predict,
    predict_nonblocking,
)
from fabricgen.topology.model import Fabric
from tests.conftest import load_fabric

DATA = Path(__file__).parent / "data" / "perf"
NIC = 400 / 8 * 0.92  # one 400G ConnectX-7 rail: 46 GB/s of payload
NVLINK = 450 * 0.80  # H100 NVLink per GPU, one direction, at the default efficiency: 360 GB/s
RING, HIER = Algorithm.RING, Algorithm.HIERARCHICAL
NVLS_ALGBW = 450 * 0.69 * 8 / 9  # NVLS on 8 H100: NVLink × Hopper NVLS efficiency × g/(g+1) = 276 GB/s


@pytest.fixture(scope="module")
def oversub() -> Fabric:
    return load_fabric(DATA / "oversub")


def test_bus_factors_are_those_of_nccl_tests() -> None:
    assert bus_factor(Collective.ALL_REDUCE, 16) == pytest.approx(2 * 15 / 16)
    assert bus_factor(Collective.ALL_GATHER, 8) == pytest.approx(7 / 8)
    assert bus_factor(Collective.REDUCE_SCATTER, 8) == pytest.approx(7 / 8)
    assert bus_factor(Collective.ALL_TO_ALL, 4) == pytest.approx(3 / 4)
    assert bus_factor(Collective.ALL_REDUCE, 1) == 0.0


def test_assumptions_are_checked() -> None:
    with pytest.raises(ValueError, match="nic_efficiency"):
        Assumptions(nic_efficiency=1.5)


@pytest.mark.parametrize("collective", list(Collective))
def test_single_node_is_nvlink_only(lab: Fabric, collective: Collective) -> None:
    p = predict(lab, {"gpu01": None}, collective)
    assert p.gpus == 8 and p.nodes == 1
    assert p.network is None and p.tiers == ("nvlink",)
    assert p.busbw[RING] == pytest.approx(NVLINK)
    assert p.busbw[HIER] == pytest.approx(NVLINK)
    assert p.limit == "nvlink"


def test_single_node_follows_nvlink_efficiency(lab: Fabric) -> None:
    p = predict(lab, {"gpu01": None}, assumptions=Assumptions(nvlink_efficiency=1.0))
    assert p.busbw[RING] == pytest.approx(450.0)


def test_single_h100_node_defaults_to_nvls(lab: Fabric) -> None:
    p = predict(lab, {"gpu01": None})
    assert p.algorithm is Algorithm.NVLS
    # NCCL's maintainers: ~480 GB/s busbw (algbw ~275) on 8 H100 with NVLS (nccl-tests #212)
    assert p.best == pytest.approx(NVLS_ALGBW * 2 * 7 / 8) and 470 < p.best < 490
    assert p.busbw[RING] == pytest.approx(NVLINK)  # NCCL_ALGO=Ring: ~370 GB/s
    assert p.ideal == pytest.approx(p.best)  # one node is its own reference


def test_two_nodes_on_one_leaf(lab: Fabric) -> None:
    p = predict(lab, {"gpu01": None, "gpu02": None})
    assert p.network == pytest.approx(8 * NIC)  # 8 rails × 46 GB/s, no uplink crossed
    assert p.nic == pytest.approx(NIC) and p.derate == 1.0
    assert p.tiers == ("nvlink", "leaf")
    # ring: the slower of NVLink per GPU and the node's NICs
    assert p.busbw[RING] == pytest.approx(min(NVLINK, 8 * NIC))
    # hierarchical: busbw = 2(n−1)/n ÷ max(2(g−1)/g ÷ B_nvlink, 2(M−1)/M ÷ B_node) with n=16, g=8, M=2
    expected = (2 * 15 / 16) / max(2 * 7 / 8 / NVLINK, 2 * 1 / 2 / (8 * NIC))
    assert p.busbw[HIER] == pytest.approx(expected)
    # NCCL's default on two NVLS nodes is NVLS-tree: 0.83 × NVLS algbw, under the node's 8 × 46 GB/s
    assert p.algorithm is Algorithm.NVLS_TREE
    assert p.best == pytest.approx(2 * 15 / 16 * 0.83 * NVLS_ALGBW)
    assert p.busbw[Algorithm.TREE] == pytest.approx(2 * 15 / 16 * min(0.46 * NVLINK, 8 * NIC))


def test_two_nodes_network_term_without_nvlink_limit(lab: Fabric) -> None:
    fast_nvlink = Assumptions(nvlink_efficiency=1.0)
    p = predict(lab, {"gpu01": None, "gpu02": None}, assumptions=fast_nvlink)
    assert p.busbw[RING] == pytest.approx(8 * NIC)


def test_one_gpu_per_node_uses_one_rail(lab: Fabric) -> None:
    p = predict(lab, {"gpu01": [5], "gpu02": [5]})
    assert p.nvlink is None
    assert p.busbw[RING] == pytest.approx(NIC)
    assert p.busbw[HIER] == pytest.approx(NIC)


def test_all_gather_and_all_to_all_two_nodes(lab: Fabric) -> None:
    ag = predict(lab, {"gpu01": None, "gpu02": None}, Collective.ALL_GATHER)
    assert ag.busbw[RING] == pytest.approx(min(NVLINK, 8 * NIC))
    assert ag.busbw[HIER] == pytest.approx((15 / 16) / max(7 / 8 / NVLINK, 1 / 2 / (8 * NIC)))
    a2a = predict(lab, {"gpu01": None, "gpu02": None}, Collective.ALL_TO_ALL)
    # g(n−g)/n of the buffer leaves each node over its 8 NICs
    assert a2a.best == pytest.approx((15 / 16) / max(7 / 16 / NVLINK, 8 * 8 / 16 / (8 * NIC)))


def test_crossing_a_two_to_one_leaf_halves_the_inter_node_term(oversub: Fabric) -> None:
    inside = predict(oversub, {"gpu05": None, "gpu06": None})  # both under the 2:1 leaves: no uplink used
    across = predict(oversub, {"gpu01": None, "gpu05": None})  # gpu05's traffic leaves its 2:1 leaves
    assert inside.nic == pytest.approx(NIC) and inside.derate == 1.0
    assert across.nic == pytest.approx(NIC / 2)
    assert across.network == pytest.approx(inside.network / 2)  # type: ignore[operator]
    assert across.derate == pytest.approx(0.5)
    assert across.tiers == ("nvlink", "leaf", "spine")
    assert across.busbw[RING] == pytest.approx(8 * NIC / 2)
    assert across.switch in {"leaf5", "leaf6", "leaf7", "leaf8"}


def test_full_units_across_a_two_to_one_tier(oversub: Fabric) -> None:
    every = {name: None for name in oversub.nodes}
    p = predict(oversub, every)
    assert p.nic == pytest.approx(NIC / 2)
    ideal = predict_nonblocking(oversub, every)
    assert ideal.nic == pytest.approx(NIC)


def test_the_one_to_one_unit_alone_is_not_derated(oversub: Fabric) -> None:
    p = predict(oversub, {n: None for n in ("gpu01", "gpu02", "gpu03", "gpu04")})
    assert p.derate == 1.0 and "spine" not in p.tiers


def test_failed_spine_only_bites_when_crossed(lab: Fabric, oversub: Fabric) -> None:
    lab_fail = parse_failures(lab, ["spine1"])
    healthy = predict(lab, {"gpu01": None, "gpu02": None})
    assert predict(lab, {"gpu01": None, "gpu02": None}, failures=lab_fail).busbw == healthy.busbw
    fail = parse_failures(oversub, ["spine1"])
    p = predict(oversub, {"gpu01": None, "gpu05": None}, failures=fail)
    # leaf5 keeps one 800G uplink for 3.2T of hosts; the job's share is 200G for 800G of demand
    assert p.derate == pytest.approx(0.25)
    assert p.nic == pytest.approx(NIC / 4)


def test_failed_host_link_leaves_the_node_seven_nics(lab: Fabric) -> None:
    fail = parse_failures(lab, ["leaf1:Ethernet0"])  # gpu01's rail-0 NIC
    p = predict(lab, {"gpu01": None, "gpu02": None}, failures=fail)
    assert p.network == pytest.approx(7 * NIC)
    assert p.busbw[RING] == pytest.approx(7 * NIC)


def test_failed_nic_by_interface_name(lab: Fabric) -> None:
    fail = parse_failures(lab, ["gpu02:enp24s0np0"])
    assert predict(lab, {"gpu01": None, "gpu02": None}, failures=fail).network == pytest.approx(7 * NIC)


def test_node_without_live_nics_cannot_reach_others(lab: Fabric) -> None:
    fail = parse_failures(lab, ["gpu02"])
    p = predict(lab, {"gpu01": None, "gpu02": None}, failures=fail)
    assert p.best == 0.0 and p.limit == "node"


def test_unknown_failures_are_input_errors(lab: Fabric) -> None:
    with pytest.raises(InputError) as exc:
        parse_failures(lab, ["spine9", "leaf1:Ethernet999", "gpu01:eth7"])
    assert len(exc.value.problems) == 3


def test_scaling_efficiency_reference_is_one_node(lab: Fabric) -> None:
    p = predict(lab, {"gpu01": None, "gpu02": None})
    one = predict(lab, {"gpu01": None})
    assert p.ideal == pytest.approx(one.best)  # busbw(job) ÷ busbw(one node), as users compute it
    assert p.best / p.ideal == pytest.approx(0.83 * 15 / 16 / (7 / 8))


def test_all_to_all_efficiency_is_against_one_node(lab: Fabric) -> None:
    four = predict(lab, {n: None for n in ("gpu01", "gpu02", "gpu03", "gpu04")}, Collective.ALL_TO_ALL)
    one = predict(lab, {"gpu01": None}, Collective.ALL_TO_ALL)
    assert one.best == pytest.approx(NVLINK)  # (n−1)/n × S over each GPU's NVLink: busbw = NVLink
    # 4 nodes: g(n−g)/n = 8·24/32 of the buffer leaves each node over 8 NICs
    assert four.best == pytest.approx((31 / 32) / (8 * 24 / 32 / (8 * NIC)))
    assert four.ideal == pytest.approx(NVLINK)
    assert four.best / four.ideal == pytest.approx(0.165, abs=1e-3)  # not 0.0036: no infinitely fast network


def test_docstring_examples_hold() -> None:
    import doctest

    from fabricgen.perf import model, nccl

    for module in (model, nccl):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, module.__name__
