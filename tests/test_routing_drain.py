"""The pure parts of a drain: with_drain, the route parser of the FRR/SONiC drivers (properties, and FRR 8.4's
real output recorded in the lab) and the drain check of `fabricgen verify`."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricgen.deploy.drivers.frr import parse_show_ip_bgp, select_routes
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.verify import check_drain
from fabricgen.topology.model import Fabric
from fabricgen.topology.routing import UnknownSwitch, drain_changes, routing_facts, with_drain
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).parent / "data" / "routing"


def recorded(name: str) -> dict[str, Any]:
    """A recorded ``show ip bgp json`` (its first line says where it came from)."""
    text = (DATA / name).read_text()
    assert text.startswith("# vtysh -c 'show ip bgp json' on leaf1 of the namespace lab")
    return json.loads(text.split("\n", 1)[1])


@pytest.fixture(scope="module")
def fabric() -> Fabric:
    return load_fabric(INVENTORIES / "lab-frr")


# ----------------------------------------------------------------------------------------------- with_drain


def test_with_drain_changes_only_the_named_switches_and_their_configs(fabric: Fabric) -> None:
    drained = with_drain(fabric, {"spine1"}, set())
    assert drained is not fabric and not fabric.switches["spine1"].drained
    assert {n for n, s in drained.switches.items() if s.drained} == {"spine1"}
    assert routing_facts(drained).drained == {"spine1"} and routing_facts(fabric).drained == frozenset()
    assert drain_changes(fabric, drained) == {"spine1": True}
    before, after = intended_configs(fabric), intended_configs(drained)
    assert [n for n in before if before[n] != after[n]] == ["spine1"]
    assert " set community 64512:2 graceful-shutdown additive" in after["spine1"].splitlines()
    back = with_drain(drained, set(), {"spine1"})
    assert drain_changes(drained, back) == {"spine1": False} and intended_configs(back) == before


def test_with_drain_refuses_an_unknown_name_or_one_named_twice(fabric: Fabric) -> None:
    with pytest.raises(UnknownSwitch, match="no such switch in fabric lab-frr: 'nosuch', 'spine9'"):
        with_drain(fabric, {"spine9"}, {"nosuch"})
    with pytest.raises(UnknownSwitch, match="both drained and undrained: 'leaf1'"):
        with_drain(fabric, {"leaf1"}, {"leaf1"})


# ------------------------------------------------------------------------------------------------ the parser


def test_recorded_drained_output_parses_to_best_paths_via_spine2_with_local_preference_0_via_spine1() -> None:
    routes = parse_show_ip_bgp(recorded("leaf1-show-ip-bgp-spine1-drained.txt"))
    assert set(routes) == {"10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/32", "10.0.0.4/32", "10.0.1.1/32", "10.0.1.2/32"}
    (own,) = routes["10.0.0.1/32"]
    assert (own["next_hop"], own["protocol_attributes"]["peer_id"], own["current_active"]) == ("", "", True)
    assert own["protocol_attributes"]["remote_as"] == own["protocol_attributes"]["local_as"] == 4200100001
    paths = routes["10.0.0.2/32"]
    selected = {p["next_hop"] for p in paths if p["selected_next_hop"]}
    assert selected == {"10.128.6.16", "10.128.6.48"}  # spine2's two links
    assert {p["next_hop"]: p["protocol_attributes"]["local_preference"] for p in paths} == {
        "10.128.6.0": 0, "10.128.6.32": 0, "10.128.6.16": 100, "10.128.6.48": 100}
    assert [p["next_hop"] for p in paths if p["current_active"]] == ["10.128.6.16"]
    assert all(p["protocol_attributes"]["as_path"] == "4200000100 4200100002" for p in paths)
    assert all(p["preference"] == 20 and p["protocol_attributes"]["remote_as"] == 4200000100 for p in paths)


def test_recorded_undrained_output_has_ecmp_over_all_four_uplinks() -> None:
    routes = parse_show_ip_bgp(recorded("leaf1-show-ip-bgp-undrained.txt"))
    for other in ("10.0.0.2/32", "10.0.0.3/32", "10.0.0.4/32"):
        assert {p["next_hop"] for p in routes[other] if p["selected_next_hop"]} == {
            "10.128.6.0", "10.128.6.16", "10.128.6.32", "10.128.6.48"}
        assert sum(p["current_active"] for p in routes[other]) == 1


HOP = st.ip_addresses(v=4).map(str)
NET = st.builds(lambda a, n: ipaddress.IPv4Network(f"{a}/{n}", strict=False), st.ip_addresses(v=4), st.integers(8, 32))
PATH = st.fixed_dictionaries({
    "valid": st.booleans(), "bestpath": st.booleans(), "multipath": st.booleans(),
    "pathFrom": st.sampled_from(["external", "internal"]), "peerId": HOP,
    "path": st.lists(st.integers(1, 4_294_967_295), max_size=4).map(lambda a: " ".join(map(str, a))),
    "nexthops": st.lists(st.fixed_dictionaries({"ip": HOP, "used": st.booleans()}), min_size=1, max_size=2),
}, optional={"locPrf": st.integers(0, 4_294_967_295), "metric": st.integers(0, 1000)})
TABLE = st.fixed_dictionaries({
    "localAS": st.integers(1, 4_294_967_295), "defaultLocPrf": st.integers(1, 1000),
    "routes": st.dictionaries(NET.map(str), st.lists(PATH, max_size=4), max_size=6),
})


@given(TABLE)
@settings(max_examples=150, deadline=None)
def test_every_path_is_one_entry_and_its_fields_come_from_that_path(doc: dict[str, Any]) -> None:
    routes = parse_show_ip_bgp(doc)
    assert set(routes) == set(doc["routes"])
    for prefix, paths in doc["routes"].items():
        assert len(routes[prefix]) == len(paths)
        for raw, got in zip(paths, routes[prefix], strict=True):
            attrs = got["protocol_attributes"]
            assert got["selected_next_hop"] == (raw["valid"] and (raw["bestpath"] or raw["multipath"]))
            assert got["current_active"] == raw["bestpath"]
            assert attrs["local_preference"] == raw.get("locPrf", doc["defaultLocPrf"])
            assert attrs["as_path"] == raw["path"] and attrs["local_as"] == doc["localAS"]
            first = raw["path"].split()[0] if raw["path"] else None
            assert attrs["remote_as"] == (int(first) if first else doc["localAS"])
            used = [h["ip"] for h in raw["nexthops"] if h["used"]] or [raw["nexthops"][0]["ip"]]
            assert got["next_hop"] == ("" if used[0] == "0.0.0.0" else used[0])
            assert got["preference"] == {"external": 20, "internal": 200}[raw["pathFrom"]]


@given(TABLE, NET, st.booleans())
@settings(max_examples=100, deadline=None)
def test_select_routes_keeps_exactly_the_asked_prefix_and_with_longer_its_subnets(
    doc: dict[str, Any], want: Any, longer: bool
) -> None:
    routes = parse_show_ip_bgp(doc)
    got = select_routes(routes, str(want), longer)
    for prefix in routes:
        net = ipaddress.IPv4Network(prefix)
        assert (prefix in got) == (net == want or (longer and net.subnet_of(want)))
    assert select_routes(routes, "", False) == routes


# -------------------------------------------------------------------------------------------- the drain check


def test_the_drain_check_passes_on_the_recorded_drained_table_and_names_what_it_did_not_hold_against(
    fabric: Fabric,
) -> None:
    drained = with_drain(fabric, {"spine1"}, set())
    checks = check_drain(drained, "leaf1", parse_show_ip_bgp(recorded("leaf1-show-ip-bgp-spine1-drained.txt")))
    assert [(c.ok, c.detail) for c in checks] == [
        (True, "4 prefix(es) avoid drained spine1; 1 originated by a drained switch (10.0.1.1/32 of spine1)")]


def test_the_drain_check_fails_every_prefix_still_routed_through_the_drained_spine(fabric: Fabric) -> None:
    drained = with_drain(fabric, {"spine1"}, set())
    checks = check_drain(drained, "leaf1", parse_show_ip_bgp(recorded("leaf1-show-ip-bgp-undrained.txt")))
    failed = {c.subject: c.detail for c in checks if not c.ok}
    assert set(failed) == {"best paths", "10.0.0.2/32", "10.0.0.3/32", "10.0.0.4/32"}
    assert failed["10.0.0.3/32"] == "best path via spine1 (drained) although spine2 (not drained) has a path"
    assert failed["best paths"].startswith("1 prefix(es) avoid drained spine1")  # spine2's loopback


def test_only_drained_paths_are_fine_and_said_so_a_drained_switch_is_not_held_and_no_getter_never_passes(
    fabric: Fabric,
) -> None:
    both = with_drain(fabric, {"spine1", "spine2"}, set())
    (check,) = check_drain(both, "leaf1", parse_show_ip_bgp(recorded("leaf1-show-ip-bgp-undrained.txt")))
    assert check.ok and check.detail == ("0 prefix(es) avoid drained spine1, spine2; 2 originated by a drained switch "
                                         "(10.0.1.1/32 of spine1, 10.0.1.2/32 of spine2); 3 reachable only via "
                                         "drained switches (10.0.0.2/32, 10.0.0.3/32, 10.0.0.4/32)")
    (itself,) = check_drain(both, "spine1", {})
    assert itself.ok and itself.detail == "drained itself: its own best paths are not checked"
    (unread,) = check_drain(both, "leaf1", None, "eos")
    assert not unread.ok and unread.detail.startswith("not available: the eos driver")


def test_the_platforms_that_read_their_whole_bgp_table_are_those_running_frr() -> None:
    """The drain check reads every route through ``get_route_to(destination="")``: the FRR, SONiC and NVUE
    drivers (all three run FRR's ``show ip bgp json``) can; EOS and Junos (NAPALM's drivers ask for a
    destination) cannot, so their drain check is "not available" rather than a pass."""
    from types import SimpleNamespace

    from fabricgen.deploy.drivers import driver_class
    from fabricgen.deploy.verify import read_routes

    can = {p for p in ("frr", "sonic", "nvue", "eos", "junos") if getattr(driver_class(p), "full_route_table", False)}
    assert can == {"frr", "sonic", "nvue"}
    assert read_routes(SimpleNamespace()) is None  # a driver that does not say so is never asked


def test_a_drain_name_with_a_newline_stays_on_its_one_line(fabric: Fabric) -> None:
    with pytest.raises(UnknownSwitch) as info:
        with_drain(fabric, {"spine1\nrouter bgp 1"}, set())
    assert "\n" not in str(info.value) and "'spine1\\nrouter bgp 1'" in str(info.value)


@pytest.mark.parametrize("mangled", [[], "routes", 7])
def test_a_show_ip_bgp_that_is_no_object_is_one_clear_error(mangled: Any) -> None:
    from fabricgen.deploy.drivers.frr import parse_show_ip_bgp

    with pytest.raises(ValueError, match="show ip bgp json: expected an object"):
        parse_show_ip_bgp(mangled)
