"""The path simulator against closed forms: balls into bins, one path, spraying; and the header functions
against independent implementations."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricgen.inventory.schema import Role
from fabricgen.perf.paths import Remedy, route, tree_edges
from fabricgen.perf.paths.core import Flows, Graph, roce_source_port
from tests.conftest import INVENTORIES, load_fabric

LAB = load_fabric(INVENTORIES / "lab")


# --------------------------------------------------------------------------- an exact reference


def max_load_distribution(n: int, m: int) -> list[Fraction]:
    """P(max bin = k) for n balls thrown uniformly into m bins, k = 0…n, exactly.

    P(max ≤ k) = n! / mⁿ · [xⁿ] (Σ_{j≤k} xʲ/j!)ᵐ — the number of assignments with every bin ≤ k, counted
    with the exponential generating function of one bin.
    """

    def at_most(k: int) -> Fraction:
        one = [Fraction(1, math.factorial(j)) for j in range(min(k, n) + 1)]
        poly = [Fraction(1)]
        for _ in range(m):
            nxt = [Fraction(0)] * min(len(poly) + len(one) - 1, n + 1)
            for i, a in enumerate(poly):
                if a == 0:
                    continue
                for j, b in enumerate(one):
                    if i + j <= n:
                        nxt[i + j] += a * b
            poly = nxt
        coef = poly[n] if n < len(poly) else Fraction(0)
        return coef * math.factorial(n) / Fraction(m) ** n

    cdf = [at_most(k) for k in range(n + 1)]
    return [cdf[0]] + [cdf[k] - cdf[k - 1] for k in range(1, n + 1)]


def test_reference_on_hand_counted_cases() -> None:
    # 2 balls, 2 bins: max 1 with probability 1/2, max 2 with 1/2; 3 balls, 3 bins: 6/27, 18/27, 3/27
    assert max_load_distribution(2, 2) == [0, Fraction(1, 2), Fraction(1, 2)]
    assert max_load_distribution(3, 3) == [0, Fraction(6, 27), Fraction(18, 27), Fraction(3, 27)]
    assert max_load_distribution(4, 1)[4] == 1


# --------------------------------------------------------------------------- a two-leaf Clos by hand


def two_leaf_graph(m: int) -> Graph:
    """Leaves A (0) and B (1) under ``m`` spines; link k joins A to spine k, link m + k joins B to spine k."""
    names = ["A", "B"] + [f"s{k}" for k in range(m)]
    role = [Role.LEAF, Role.LEAF] + [Role.SPINE] * m
    up: list[list[tuple[int, int]]] = [[(2 * k, 2 + k) for k in range(m)], [(2 * (m + k), 2 + k) for k in range(m)]]
    up += [[] for _ in range(m)]
    down: list[dict[int, list[int]]] = [{}, {}] + [{0: [2 * k + 1], 1: [2 * (m + k) + 1]} for k in range(m)]
    parents = [frozenset(range(2, 2 + m))] * 2 + [frozenset()] * m
    speed = np.ones(4 * m, dtype=np.float64)
    return Graph(LAB, names, {n: i for i, n in enumerate(names)}, role, up, down, parents, speed)


def used(m: int) -> list[int]:
    """The directed links an A → B flow can take: A up to a spine (2k), a spine down to B (2(m+k)+1)."""
    return [2 * k for k in range(m)] + [2 * (m + k) + 1 for k in range(m)]


def flows_a_to_b(n: int) -> Flows:
    """``n`` single-QP connections of rate 1 from distinct NICs under A to distinct NICs under B."""
    return Flows(
        np.zeros(n, dtype=np.int64),
        np.ones(n, dtype=np.int64),
        np.arange(n, dtype=np.uint64) + np.uint64(0x0A400001),
        np.arange(n, dtype=np.uint64) + np.uint64(0x0A410001),
        np.arange(n, dtype=np.int64),
        np.ones(n, dtype=np.float64),
        n,
    )


SEEDS = 600


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 24), m=st.integers(1, 12))
def test_ecmp_mean_max_load_is_balls_into_bins(n: int, m: int) -> None:
    g = two_leaf_graph(m)
    flows = flows_a_to_b(n)
    ecmp = Remedy("ecmp", "ecmp", 1, "5-tuple")
    up_links = np.asarray([2 * k for k in range(m)])
    maxima = []
    for seed in range(SEEDS):
        load, stranded = route(g, flows, ecmp, seed)
        assert stranded == 0
        assert load.sum() == 2 * n  # every flow crosses two links
        maxima.append(load[up_links].max())
    dist = max_load_distribution(n, m)
    mean = sum(k * p for k, p in enumerate(dist))
    var = sum(k * k * p for k, p in enumerate(dist)) - mean * mean
    sd = math.sqrt(float(var))
    # the sample mean of SEEDS independent maxima: within 4.5 standard errors (false alarm ≈ 7e-6)
    tolerance = 4.5 * sd / math.sqrt(SEEDS) + 1e-9
    assert abs(float(np.mean(maxima)) - float(mean)) <= tolerance, (n, m, np.mean(maxima), float(mean))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(1, 16), seed=st.integers(0, 2**31))
def test_spraying_spreads_evenly(n: int, m: int, seed: int) -> None:
    g = two_leaf_graph(m)
    load, _ = route(g, flows_a_to_b(n), Remedy("spray", "spray"), seed)
    assert np.allclose(load[used(m)], n / m)  # every link on the way, up and down, carries n/m
    assert math.isclose(load.sum(), 2 * n)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**31), mode=st.sampled_from(["ecmp", "adaptive", "spray"]))
def test_one_path_loses_nothing(n: int, seed: int, mode: str) -> None:
    g = two_leaf_graph(1)
    remedy = Remedy(mode, mode, 1, "5-tuple")  # type: ignore[arg-type]
    load, _ = route(g, flows_a_to_b(n), remedy, seed)
    spray, _ = route(g, flows_a_to_b(n), Remedy("spray", "spray"), seed)
    assert np.allclose(load, spray) and np.allclose(load[used(1)], n)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(1, 16), seed=st.integers(0, 2**31), flowlets=st.integers(1, 8))
def test_adaptive_routing_balances_the_uplinks_to_one_piece(n: int, m: int, seed: int, flowlets: int) -> None:
    g = two_leaf_graph(m)
    load, _ = route(g, flows_a_to_b(n), Remedy("ar", "adaptive", 1, "5-tuple", flowlets), seed)
    up = load[[2 * k for k in range(m)]]
    pieces = n * flowlets
    # least-loaded placement of equal pieces: every uplink holds ⌊pieces/m⌋ or ⌈pieces/m⌉ pieces
    assert set(np.round(up * flowlets).astype(int).tolist()) <= {pieces // m, -(-pieces // m)}


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 20), m=st.integers(2, 16), qps=st.integers(2, 8), seed=st.integers(0, 2**31))
def test_three_tuple_keeps_a_connections_queue_pairs_together(n: int, m: int, qps: int, seed: int) -> None:
    g = two_leaf_graph(m)
    one = flows_a_to_b(n)
    rep = Flows(
        np.repeat(one.src_leaf, qps), np.repeat(one.dst_leaf, qps), np.repeat(one.src_ip, qps),
        np.repeat(one.dst_ip, qps), np.repeat(one.conn, qps), np.repeat(one.demand / qps, qps), n,
    )
    load, _ = route(g, rep, Remedy("3", "ecmp", qps, "3-tuple"), seed)
    # each connection's queue pairs hash alike, so every link carries whole connections (integer load)
    assert np.allclose(load, np.round(load))


# --------------------------------------------------------------------------- header functions


def kernel_sport(lqpn: int, rqpn: int) -> int:
    """Linux include/rdma/ib_verbs.h, written out in plain integers."""
    fl = lqpn * rqpn
    fl ^= fl >> 20
    fl ^= fl >> 40
    fl &= 0xFFFFF
    low = (fl & 0x03FFF) ^ ((fl & 0xFC000) >> 14)
    return low | 0xC000


@given(st.lists(st.tuples(st.integers(1, 2**24 - 1), st.integers(1, 2**24 - 1)), min_size=1, max_size=50))
def test_source_port_matches_the_kernel_formula(pairs: list[tuple[int, int]]) -> None:
    lq = np.asarray([a for a, _ in pairs], dtype=np.uint64)
    rq = np.asarray([b for _, b in pairs], dtype=np.uint64)
    got = roce_source_port(lq, rq).tolist()
    assert got == [kernel_sport(a, b) for a, b in pairs]
    assert all(0xC000 <= p <= 0xFFFF for p in got)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 300))
def test_double_binary_tree_is_two_spanning_trees(n: int) -> None:
    edges = tree_edges(n)
    assert all(0 <= p < n and 0 <= c < n and p != c for p, c in edges)
    # NCCL's first tree: every rank but 0 has exactly one parent, ≤ 2 children, and all reach rank 0
    first: dict[int, int] = {}
    for r in range(1, n):
        b = r & -r
        first[r] = next(p for p, c in edges if c == r and p in {(r ^ b) | (b << 1), r ^ b})
    children: dict[int, int] = {}
    for p in first.values():
        children[p] = children.get(p, 0) + 1
    assert max(children.values()) <= 2
    for r in range(1, n):
        seen, x = set(), r
        while x != 0:
            assert x not in seen
            seen.add(x)
            x = first[x]
    assert len(edges) <= 2 * (n - 1)
