"""The underlay policy on real FRR 8.4 (the namespace lab, 2 spines and 4 leaves): BFD takes a silently dropping
link out of ECMP within its detection time, a prefix outside the fabric's pools never leaves the leaf that
originates it, a drain moves every best path off a spine without a session going down, and maximum-prefix
tears a session down.

Needs root and frr, frr-pythontools, lldpd, openssh-server (skipped with the reason otherwise, failed under
``CI``). One lab for the module; every test leaves it converged at intent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fabricgen.deploy.apply import ApplyOptions, apply
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.ops import Live, load_live
from fabricgen.deploy.verify import expected_sessions
from fabricgen.lab import lab as labmod
from fabricgen.lab.plan import LabError
from fabricgen.topology.routing import own_prefix_count
from tests.labkit import isolated_state, lab_inventory, lab_up, skip_module_without_lab

skip_module_without_lab()

FABRIC = "fgtest-routing"
BFD_DETECT_S = 0.3 * 3  # the lab inventory's BFD: fabric.bfd defaults, 300 ms x 3
BFD_POLL_S = 0.3  # reading spine1's BFD state through vtysh (~0.1 s a read) and bfdd's timer granularity
HOLD_S = 9.0  # FRR's datacenter profile: timers bgp 3 9


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lab_inventory(tmp_path_factory.mktemp("inv"), FABRIC)


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    state = tmp_path_factory.mktemp("state")
    for _ in isolated_state(state):
        yield state


@pytest.fixture(scope="module")
def lab(inventory: Path, state_dir: Path) -> Iterator[labmod.LabState]:
    yield from lab_up(inventory)


def opts(**kw: Any) -> ApplyOptions:
    return ApplyOptions(**{"revert_in": 60, "settle": 20.0, "wave_size": 5, "workers": 8, **kw})


@pytest.fixture(scope="module")
def live(lab: labmod.LabState, inventory: Path, state_dir: Path) -> Live:
    live = load_live(str(inventory))
    report = apply(live.fabric, intended_configs(live.fabric), live.targets, opts(), state_dir)
    assert report.ok, report.as_dict()
    _wait(lambda: all(_established(lab, n) for n in lab.switches), 30, "every session Established")
    return live


def vtysh(state: labmod.LabState, switch: str, *commands: str) -> str:
    argv = ["vtysh"]
    for c in commands:
        argv += ["-c", c]
    return labmod.switch_exec(state, switch, argv)


def vjson(state: labmod.LabState, switch: str, command: str) -> Any:
    return json.loads(vtysh(state, switch, command) or "{}")


def fabricgen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricgen", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=240, check=False)


def _wait(cond: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, f"not within {seconds:g}s: {what}"
        time.sleep(0.5)


def _established(state: labmod.LabState, switch: str) -> bool:
    peers = vjson(state, switch, "show bgp summary json").get("ipv4Unicast", {}).get("peers", {})
    return bool(peers) and all(p.get("state") == "Established" for p in peers.values())


def _zebra_hops(state: labmod.LabState, switch: str, prefix: str) -> set[str]:
    """The next hops zebra has active for ``prefix`` (what it installs: the ECMP set)."""
    routes = vjson(state, switch, f"show ip route {prefix} json").get(prefix) or [{}]
    return {h["ip"] for h in routes[0].get("nexthops", []) if h.get("active") and "ip" in h}


def _best_hops(state: labmod.LabState, switch: str) -> dict[str, set[str]]:
    """Prefix → the BGP next hops of its best path and multipaths."""
    routes = vjson(state, switch, "show ip bgp json").get("routes", {})
    return {prefix: {h["ip"] for p in paths if p.get("bestpath") or p.get("multipath")
                     for h in p.get("nexthops", []) if h.get("ip") != "0.0.0.0"}
            for prefix, paths in routes.items()}


def _sessions(state: labmod.LabState, switch: str) -> dict[str, tuple[str, int]]:
    """Peer → (state, connections established so far): a session that went down and up again counts one more."""
    data = vjson(state, switch, "show bgp neighbors json")
    return {a: (n.get("bgpState", ""), int(n.get("connectionsEstablished", 0))) for a, n in data.items()
            if isinstance(n, dict) and "bgpState" in n}


def _loopback(live: Live, switch: str) -> str:
    return f"{live.fabric.switches[switch].loopback}/32"


def _addresses(live: Live, switch: str, peer: str) -> list[str]:
    """``switch``'s neighbour addresses on its links to ``peer``."""
    return sorted(a for a, (p, _) in expected_sessions(live.fabric, switch, {peer}).items() if p == peer)


def _cut_silently(state: labmod.LabState, switch: str, port: str, peer_ip: str) -> tuple[str, list[str]]:
    """Make ``port`` drop what ``switch`` sends on it, link up: netem loss 100% where the kernel has sch_netem;
    where it has not, a permanent neighbour entry giving the peer a MAC nobody has (the peer drops every frame
    not addressed to it, silently; no interface or route event on either end). Returns (how, the undo)."""
    try:
        labmod.switch_exec(state, switch, ["tc", "qdisc", "add", "dev", port, "root", "netem", "loss", "100%"])
        return "netem loss 100%", ["tc", "qdisc", "del", "dev", port, "root"]
    except LabError as exc:
        if "qdisc kind is unknown" not in str(exc):
            raise
    labmod.switch_exec(state, switch, ["ip", "neigh", "replace", peer_ip, "lladdr", "02:00:5e:00:53:ff", "dev", port,
                                       "nud", "permanent"])
    return "unicast to a MAC nobody has (no sch_netem here)", ["ip", "neigh", "del", peer_ip, "dev", port]


def test_bfd_takes_a_silently_dropping_link_out_of_ecmp_within_its_detection_time(
    live: Live, lab: labmod.LabState
) -> None:
    port = next(p for p in live.fabric.switches["leaf1"].ports if p.peer_device == "spine1")
    peer_ip = _addresses(live, "leaf1", "spine1")[0]
    assert peer_ip in {a for a, (p, _) in expected_sessions(live.fabric, "leaf1", {"spine1"}).items()}
    target = _loopback(live, "leaf2")
    # ECMP over both links to both spines; sessions Established before zebra has every next hop installed
    _wait(lambda: len(_zebra_hops(lab, "leaf1", target)) == 4, 30, "leaf1's ECMP to leaf2 over 4 next hops")
    before = _zebra_hops(lab, "leaf1", target)
    assert peer_ip in before
    assert vjson(lab, "leaf1", f"show bfd peer {peer_ip} json").get("status") == "up"
    assert port.address is not None
    mine = port.address.split("/")[0]  # leaf1's address, spine1's neighbour on this link
    how, undo = _cut_silently(lab, "leaf1", port.name, peer_ip)
    t0 = time.monotonic()
    try:
        # spine1 no longer hears leaf1 on this link: its BFD session goes down after the detection time ...
        while vjson(lab, "spine1", f"show bfd peer {mine} json").get("status") == "up":
            assert time.monotonic() - t0 < HOLD_S, "spine1's BFD session outlived the BGP hold time"
            time.sleep(0.01)
        detected = time.monotonic() - t0
        # ... and the next hop leaves leaf1's ECMP (spine1's Cease or BFD Down reaching leaf1, bgpd, zebra)
        while peer_ip in _zebra_hops(lab, "leaf1", target):
            assert time.monotonic() - t0 < HOLD_S, "the next hop outlived the BGP hold time: BFD did not act"
            time.sleep(0.01)
        took = time.monotonic() - t0
        after = _zebra_hops(lab, "leaf1", target)
        _wait(lambda: vjson(lab, "spine1", f"show bgp neighbors {mine} json")[mine].get("bgpState") != "Established",
              HOLD_S, "spine1's end down too")
        bfd = vjson(lab, "spine1", f"show bfd peer {mine} json")
        link = json.loads(labmod.switch_exec(lab, "leaf1", ["ip", "-j", "link", "show", port.name]))[0]
    finally:
        labmod.switch_exec(lab, "leaf1", undo)
    print(f"\nBFD: {port.name} of leaf1 ({how}): spine1's BFD down after {detected * 1000:.0f} ms (detection "
          f"{BFD_DETECT_S * 1000:.0f} ms), out of leaf1's ECMP to {target} after {took * 1000:.0f} ms "
          f"(BGP hold time {HOLD_S:g} s)")
    assert detected < BFD_DETECT_S + BFD_POLL_S, detected
    assert took < HOLD_S / 3, took  # BFD, not the hold timer, took the path out
    assert after == before - {peer_ip}  # only that next hop left
    # BFD, not the hold timer (9 s), took the session down: spine1, which no longer hears leaf1, has its BFD
    # session down ("control detection time expired") and sent leaf1 a Cease
    assert bfd.get("status") == "down", bfd
    assert "LOWER_UP" in link["flags"]  # the link never went down
    _wait(lambda: _zebra_hops(lab, "leaf1", target) == before, 30, "ECMP restored")


def test_a_prefix_outside_the_fabric_pools_never_leaves_its_leaf_and_drift_names_it(
    live: Live, lab: labmod.LabState, inventory: Path, state_dir: Path
) -> None:
    asn = live.fabric.switches["leaf2"].asn
    vtysh(lab, "leaf2", "configure terminal", "ip route 192.0.2.0/24 Null0", f"router bgp {asn}",
          "address-family ipv4 unicast", "redistribute static")
    try:
        _wait(lambda: "192.0.2.0/24" in vjson(lab, "leaf2", "show ip bgp json").get("routes", {}), 10,
              "leaf2 has the static route in BGP")
        time.sleep(2.0)  # updates go out at once (advertisement-interval 0); give them time to arrive anyway
        for spine in ("spine1", "spine2"):
            assert vjson(lab, spine, "show ip bgp 192.0.2.0/24 json") == {}, spine  # not present
            for addr in _addresses(live, "leaf2", spine):  # FABRIC-OUT-V4 denies it on the leaf's every session
                sent = vjson(lab, "leaf2", f"show ip bgp neighbors {addr} advertised-routes json")
                assert "192.0.2.0/24" not in sent.get("advertisedRoutes", {}) and sent.get("advertisedRoutes")
        for leaf in ("leaf1", "leaf3", "leaf4"):
            assert "192.0.2.0/24" not in vjson(lab, leaf, "show ip bgp json").get("routes", {}), leaf
            assert _zebra_hops(lab, leaf, "192.0.2.0/24") == set()
        proc = fabricgen("drift", str(inventory))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = proc.stdout.splitlines()
        assert "  leaf2: DRIFT (routing)" in lines
        assert "    + ip route 192.0.2.0/24 Null0    (on the device, removed by the next apply; routing)" in lines
        assert (f"    + router bgp {asn} / address-family ipv4 unicast / redistribute static    (on the device, "
                "removed by the next apply; routing)") in lines
        for other in ("leaf1", "leaf3", "leaf4", "spine1", "spine2"):
            assert f"  {other}: in sync" in lines
    finally:
        report = apply(live.fabric, intended_configs(live.fabric), live.targets, opts(), state_dir, only=["leaf2"])
        assert report.by_status() == {"applied": ["leaf2"]}, report.as_dict()
    assert "192.0.2.0/24" not in vjson(lab, "leaf2", "show ip bgp json").get("routes", {})


def test_maximum_prefix_tears_the_session_down(
    live: Live, lab: labmod.LabState, inventory: Path, state_dir: Path, tmp_path: Path
) -> None:
    """fabric.routing.maximum_prefix set to what a spine receives from leaf1 (its own prefixes: the spines'
    loopbacks it passes on are refused by their AS path), pushed to spine1: leaf1 announcing one more in-pool
    prefix exceeds the limit, and spine1 tears the session down: Idle (PfxCt), Cease/Maximum Number of Prefixes
    Reached. FRR 8.4 compares the count before it adds the prefix of an UPDATE (so the limit + 1st prefix is
    accepted and the next UPDATE, here leaf1's re-advertisement, trips it): that is measured here too."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    limit = own_prefix_count(live.fabric, "leaf1")
    text = (inventory / "fabric.yaml").read_text()
    (tmp_path / "fabric.yaml").write_text(text.replace("  switch_mtu: 9216\n",
                                                       f"  switch_mtu: 9216\n  routing: {{maximum_prefix: {limit}}}\n"))
    from fabricgen.deploy.targets import as_lab_fabric

    limited = as_lab_fabric(resolve(load_inventory(tmp_path)))
    report = apply(limited, intended_configs(limited), live.targets, opts(), state_dir, only=["spine1"])
    assert report.by_status() == {"applied": ["spine1"]}, report.as_dict()
    (addr, *_), (leaf_side, *_) = _addresses(live, "spine1", "leaf1"), _addresses(live, "leaf1", "spine1")
    extra = str(next(h for h in live.fabric.settings.addressing.loopbacks.leaf.hosts()
                     if f"{h}/32" not in {f"{s.loopback}/32" for s in live.fabric.switches.values()}))
    asn = live.fabric.switches["leaf1"].asn
    try:
        nbr = vjson(lab, "spine1", f"show bgp neighbors {addr} json")[addr]
        assert nbr["bgpState"] == "Established"
        assert nbr["addressFamilyInfo"]["ipv4Unicast"]["prefixAllowedMax"] == limit
        assert nbr["addressFamilyInfo"]["ipv4Unicast"]["acceptedPrefixCounter"] == limit
        vtysh(lab, "leaf1", "configure terminal", f"router bgp {asn}", "address-family ipv4 unicast",
              f"network {extra}/32")

        def counted() -> bool:
            n = vjson(lab, "spine1", f"show bgp neighbors {addr} json")[addr]
            return n.get("bgpState") != "Established" or \
                n["addressFamilyInfo"]["ipv4Unicast"]["acceptedPrefixCounter"] == limit + 1

        _wait(counted, 10, "spine1 received the extra prefix")
        vtysh(lab, "leaf1", f"clear bgp {leaf_side} soft out")  # leaf1 advertises again: the next UPDATE

        def down() -> bool:
            return vjson(lab, "spine1", f"show bgp neighbors {addr} json")[addr].get("bgpState") == "Idle"

        _wait(down, 10, "spine1's session with leaf1 torn down")
        nbr = vjson(lab, "spine1", f"show bgp neighbors {addr} json")[addr]
        assert nbr["lastNotificationReason"] == "Cease/Maximum Number of Prefixes Reached", nbr
        assert nbr["lastErrorCodeSubcode"] == "0601"  # RFC 4486: Cease (6), Maximum Number of Prefixes Reached (1)
        summary = vtysh(lab, "spine1", "show bgp summary")
        assert any(addr in line and "Idle (PfxCt)" in line for line in summary.splitlines()), summary
        time.sleep(3.0)
        assert down()  # the default: no restart, it stays down
    finally:
        vtysh(lab, "leaf1", "configure terminal", f"router bgp {asn}", "address-family ipv4 unicast",
              f"no network {extra}/32")
        report = apply(live.fabric, intended_configs(live.fabric), live.targets, opts(), state_dir, only=["spine1"])
        assert set(report.by_status()) <= {"applied"}, report.as_dict()
        for a in _addresses(live, "spine1", "leaf1"):  # FRR 8.4 keeps an overflowed peer down until cleared
            vtysh(lab, "spine1", f"clear bgp {a}")
    _wait(lambda: all(_established(lab, n) for n in lab.switches), 30, "every session Established again")


def test_drain_moves_every_best_path_off_the_spine_and_keeps_every_session(
    live: Live, lab: labmod.LabState, inventory: Path
) -> None:
    leaves = sorted(n for n in live.fabric.switches if n.startswith("leaf"))
    via = {leaf: {s: set(_addresses(live, leaf, s)) for s in ("spine1", "spine2")} for leaf in leaves}
    def ecmp() -> bool:
        return all(_best_hops(lab, leaf).get(_loopback(live, other)) == via[leaf]["spine1"] | via[leaf]["spine2"]
                   for leaf in leaves for other in leaves if other != leaf)

    _wait(ecmp, 30, "ECMP over both spines (an earlier test may have just restored a session)")
    before = {n: _sessions(lab, n) for n in lab.switches}
    routes_before = {leaf: _best_hops(lab, leaf) for leaf in leaves}
    for leaf in leaves:  # ECMP over both spines to every other leaf
        for other in leaves:
            if other != leaf:
                assert routes_before[leaf][_loopback(live, other)] == via[leaf]["spine1"] | via[leaf]["spine2"]
    proc = fabricgen("apply", str(inventory), "--drain", "spine1", "--revert-in", "60", "--settle", "20")
    try:
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert ("spine1: drained by --drain, in service in the inventory: the next apply of the inventory as written "
                "undrains it unless `maintenance: drain` (or fabric.drain) is recorded") in proc.stderr
        assert "  spine1           applied" in proc.stdout
        for other in ("spine2", *leaves):
            assert any(line.startswith(f"  {other} ") and " unchanged " in line for line in proc.stdout.splitlines())
        assert "drain of spine1: verified" in proc.stdout
        for leaf in leaves:
            best = _best_hops(lab, leaf)
            assert set(best) == set(routes_before[leaf]), leaf  # no prefix lost
            for other in leaves:
                if other != leaf:
                    assert best[_loopback(live, other)] == via[leaf]["spine2"], (leaf, other)
        after = {n: _sessions(lab, n) for n in lab.switches}
        assert after == before  # every session Established, none went down and up again
        assert all(s == "Established" for sessions in after.values() for s, _ in sessions.values())
        doc = json.loads(fabricgen("verify", str(inventory), "--format", "json").stdout)  # as written: no drain
        assert all(c["kind"] != "drain" for d in doc["devices"].values() for c in d["checks"])
        from fabricgen.deploy.ops import run_verify
        from fabricgen.topology.routing import with_drain

        drained = Live(with_drain(live.fabric, {"spine1"}, set()), live.targets, live.everything)
        results = run_verify(drained)
        for name, r in results.by_device.items():
            assert r.value is not None and r.value.ok, (name, r.error, r.value and r.value.failures)
            (check,) = [c for c in r.value.checks if c.kind == "drain"]
            if name in leaves:
                assert check.detail.startswith("4 prefix(es) avoid drained spine1; 1 originated by a drained switch "
                                               "(10.0.1.1/32 of spine1)"), check.detail
    finally:
        undo = fabricgen("apply", str(inventory), "--revert-in", "60", "--settle", "20")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert "drain of" not in undo.stdout  # nothing drained: no drain check
    _wait(lambda: all(_best_hops(lab, leaf) == routes_before[leaf] for leaf in leaves), 20, "ECMP over both spines")
    assert {n: _sessions(lab, n) for n in lab.switches} == before
