"""`fabricgen paths` on the bundled fabrics: the flows a collective makes, where they land, the command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricgen.cli import app
from fabricgen.errors import InputError
from fabricgen.perf import parse_failures, predict
from fabricgen.perf.paths import (
    Job,
    Remedy,
    build_graph,
    collision_efficiency,
    job_flows,
    packed_nodes,
    parse_job,
    route,
    simulate,
    standard_remedies,
)
from tests.conftest import INVENTORIES, load_fabric

MULTI = load_fabric(INVENTORIES / "multi-su")
LAB = load_fabric(INVENTORIES / "lab")
THREE = load_fabric(Path(__file__).parent / "data" / "paths" / "three-tier")
SPRAY = Remedy("spray", "spray")
ECMP = Remedy("ecmp", "ecmp", 1, "5-tuple")


def test_packed_cross_unit_ring_crosses_the_spines_twice_per_rail() -> None:
    job = parse_job(MULTI, "512")
    assert len(job.nodes) == 64 and {MULTI.nodes[n].unit for n in job.nodes} == {1, 2}
    g = build_graph(MULTI)
    flows = job_flows(MULTI, g, job.nodes, 1)
    # per rail the ring leaves unit 1 once and comes back once: 8 rails × 2 flows of a full 400G NIC
    assert len(flows) == 16 and np.all(flows.demand == 400)
    # one flow per leaf cannot collide with anything: ECMP is as good as spraying, on every seed
    r = simulate(MULTI, job, standard_remedies(), seeds=4)
    assert all(e == 1.0 for x in r.results for e in x.efficiency)
    assert r.results[0].median == pytest.approx(predict(MULTI, dict.fromkeys(job.nodes)).best)


def test_scattered_job_collides_and_the_remedies_rank_as_expected() -> None:
    job = parse_job(MULTI, "512:scattered", seed=3)
    r = simulate(MULTI, job, standard_remedies(), seeds=8)
    ecmp1, ecmp4, adaptive, spray = r.results
    assert spray.efficiency == (1.0,) and r.spray_max_load <= 1.0  # non-blocking: spraying fits
    assert ecmp1.median_efficiency < 0.6  # a hashed uplink carries 2-4 full-rate flows on a median seed
    assert ecmp1.median_efficiency < ecmp4.median_efficiency < 1.0
    assert adaptive.median_efficiency >= ecmp4.median_efficiency
    # busbw is the scaling model's figure with the NICs' payload scaled by the efficiency (ring-bound here)
    assert ecmp1.median == pytest.approx(r.fluid * ecmp1.median_efficiency, rel=1e-6)
    # the worst link of the median seed is named, and its load is the efficiency's inverse
    worst = ecmp1.worst_links[0]
    assert "→" in worst.link and worst.load == pytest.approx(sorted(ecmp1.max_load)[len(ecmp1.max_load) // 2])


def test_seeds_are_reproducible() -> None:
    job = parse_job(MULTI, "256:scattered", seed=1)
    a = simulate(MULTI, job, [ECMP], seeds=3)
    b = simulate(MULTI, job, [ECMP], seeds=3)
    assert a.results[0].max_load == b.results[0].max_load


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_spraying_never_loses_on_a_non_blocking_fabric(data: st.DataObject) -> None:
    names = sorted(MULTI.nodes)
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=2, max_size=48, unique=True))
    pattern = data.draw(st.sampled_from(["ring", "tree"]))
    r = simulate(MULTI, Job("x", tuple(chosen)), [SPRAY, ECMP], seeds=2, pattern=pattern)
    assert r.spray_max_load <= 1.0 + 1e-9
    assert r.results[0].efficiency == (1.0,)
    assert all(0 < e <= 1.0 for e in r.results[1].efficiency)


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_one_spine_left_means_one_path_and_no_collision_loss(data: st.DataObject) -> None:
    chosen = data.draw(st.permutations(sorted(LAB.nodes)))
    qps = data.draw(st.integers(1, 4))
    # without spine2 and the second cable of each leaf to spine1, every leaf has exactly one way up
    failures = parse_failures(LAB, ["spine2", *_second_uplinks(LAB)])
    eff = collision_efficiency(LAB, chosen, qps=qps, seeds=3, failures=failures)
    assert eff == 1.0


def _second_uplinks(fabric: object) -> list[str]:
    from fabricgen.topology.model import Fabric

    assert isinstance(fabric, Fabric)
    out = []
    for sw in fabric.switches.values():
        ups = [p for p in sw.uplinks() if p.peer_device == "spine1"]
        out.extend(f"{sw.name}:{p.name}" for p in ups[1:])
    return out


def test_failed_spine_and_uplink_carry_nothing() -> None:
    failures = parse_failures(MULTI, ["spine-01", "leaf-su001-r0:Ethernet18/1"])
    g = build_graph(MULTI, failures)
    job = parse_job(MULTI, "2048:scattered", seed=2, failures=failures)
    flows = job_flows(MULTI, g, job.nodes, 2, failures=failures)
    port = MULTI.port("leaf-su001-r0", "Ethernet18/1")
    assert port is not None
    dead = {2 * port.link, 2 * port.link + 1}
    for sw in MULTI.switches.values():
        for p in sw.ports:
            if p.peer_device == "spine-01" or sw.name == "spine-01":
                dead |= {2 * p.link, 2 * p.link + 1}
    for remedy in (ECMP, SPRAY, Remedy("ar", "adaptive", 2, "5-tuple", 4)):
        load, stranded = route(g, flows, remedy, 0)
        assert stranded == 0
        assert load[sorted(dead)].sum() == 0
        assert load.sum() > 0


def test_spraying_in_batches_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from fabricgen.perf.paths import core

    job = parse_job(THREE, "288:scattered", seed=4)
    g = build_graph(THREE)
    flows = job_flows(THREE, g, job.nodes, 1)
    whole, _ = route(g, flows, SPRAY, 0)
    monkeypatch.setattr(core, "SPRAY_ROWS", 1)  # one destination leaf per batch
    batched, _ = route(g, flows, SPRAY, 0)
    assert np.allclose(whole, batched) and whole.sum() > 0


def test_three_tiers_route_through_the_cores() -> None:
    job = parse_job(THREE, "288:scattered", seed=0)
    g = build_graph(THREE)
    flows = job_flows(THREE, g, job.nodes, 1)
    load, stranded = route(g, flows, SPRAY, 0)
    assert stranded == 0
    pod_of = {n: THREE.switches[n].pod for n in THREE.switches}
    src = [g.names[i] for i in flows.src_leaf.tolist()]
    dst = [g.names[i] for i in flows.dst_leaf.tolist()]
    # conservation: a flow inside its pod crosses two links, one between pods four
    hops = [2 if _pod(THREE, a) == _pod(THREE, b) else 4 for a, b in zip(src, dst, strict=True)]
    assert load.sum() == pytest.approx(float(np.dot(flows.demand, hops)))
    core_links = [2 * p.link + d for sw in THREE.switches.values() if sw.role.value == "core"
                  for p in sw.ports for d in (0, 1)]
    assert load[core_links].sum() > 0 and any(h == 4 for h in hops)
    assert len({p for p in pod_of.values() if p is not None}) == 3  # the fixture really has three pods
    assert simulate(THREE, job, [SPRAY], seeds=1).spray_max_load <= 1.0 + 1e-9


def _pod(fabric: object, leaf: str) -> int | None:
    from fabricgen.topology.model import Fabric

    assert isinstance(fabric, Fabric)
    sw = fabric.switches[leaf]
    return next(fabric.switches[p.peer_device].pod for p in sw.uplinks())


def test_tree_uses_more_spine_crossings_than_a_packed_ring() -> None:
    job = parse_job(MULTI, "512")
    g = build_graph(MULTI)
    ring = job_flows(MULTI, g, job.nodes, 1, "ring")
    tree = job_flows(MULTI, g, job.nodes, 1, "tree")
    assert len(tree) > len(ring)


def test_parse_job_errors_are_input_errors() -> None:
    with pytest.raises(InputError, match="not a node"):
        parse_job(MULTI, "gpu-su001-n01,gpu-nope")
    with pytest.raises(InputError, match="usable GPUs"):
        parse_job(MULTI, "4096")
    with pytest.raises(InputError, match="listed twice"):
        parse_job(MULTI, "gpu-su001-n01,gpu-su001-n01")
    assert parse_job(MULTI, "9").nodes == tuple(packed_nodes(MULTI)[:2])  # rounded up to whole nodes


# --------------------------------------------------------------------------- the command


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, ["paths", *args])
    return res.exit_code, res.stdout, res.stderr


def test_cli_json() -> None:
    code, out, _ = run(str(INVENTORIES / "multi-su"), "--job", "512", "--job", "512:scattered", "--seeds", "4",
                       "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["format"] == 1 and doc["fabric"] == "multi-su" and doc["seeds"] == 4
    packed, scattered = doc["jobs"]
    assert [r["remedy"]["name"] for r in packed["remedies"]] == [
        "ECMP 5-tuple, 1 QP", "ECMP 5-tuple, 4 QPs", "adaptive (8 flowlets)", "packet spraying",
    ]
    assert all(r["efficiency"]["median"] == 1.0 for r in packed["remedies"])
    assert scattered["remedies"][0]["efficiency"]["median"] < 1.0
    assert scattered["remedies"][0]["worst_links"]


def test_cli_text_and_markdown() -> None:
    code, out, _ = run(str(INVENTORIES / "multi-su"), "--job", "512:scattered", "--seeds", "2", "--remedy", "ecmp",
                       "--remedy", "3-tuple", "--format", "markdown")
    assert code == 0
    assert "| job | GPUs | remedy |" in out and "ECMP 3-tuple, 4 QPs" in out and "worst links" in out
    code, out, _ = run(str(INVENTORIES / "lab"), "--seeds", "2")
    assert code == 0 and "32 GPUs (whole fabric)" in out and "packet spraying" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--job", "gpu01,gpu99"], "'gpu99': not a node of lab"),
        (["--fail", "spine9"], "'spine9' is not a switch or node of lab"),
        (["--fail", "leaf1:Ethernet999"], "leaf1 has no cabled port"),
        (["--algorithm", "tree", "--collective", "all_gather"], "tree is NCCL's all_reduce algorithm only"),
    ],
)
def test_cli_bad_input_exits_3_with_one_line(args: list[str], message: str) -> None:
    code, _, err = run(str(INVENTORIES / "lab"), *args)
    assert code == 3
    lines = err.strip().splitlines()
    assert message in lines[0] and len(lines) == 2 and "Traceback" not in err


def test_collision_efficiency_for_scaling_and_plan() -> None:
    nodes = parse_job(MULTI, "512:scattered", seed=3).nodes
    one = collision_efficiency(MULTI, nodes, qps=1, seeds=8)
    four = collision_efficiency(MULTI, nodes, qps=4, seeds=8)
    assert one == simulate(MULTI, Job("x", nodes), [ECMP], seeds=8).results[0].median_efficiency
    assert 0 < one < four <= 1.0
    assert collision_efficiency(MULTI, nodes, remedy=SPRAY) == 1.0
