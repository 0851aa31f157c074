"""Follow packets through the rendered SONiC and NVUE configurations, as the switch would.

Each rendered file is parsed and a RoCE packet (DSCP 26), a CNP (DSCP 48) and a storage packet (DSCP 18,
the built-in storage lane) are walked through the device's own tables on every port: DSCP → TC → egress
queue → priority group / PFC priority → PFC enabled? headroom? → ECN marking on the queue → scheduler.
The outcome must equal what the QoS policy intends (:func:`fabricgen.qos.compute`). Nothing here reads
fabricgen's render data: only the files and the policy.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from fabricgen.inventory.load import load_inventory
from fabricgen.qos import compute
from fabricgen.qos.model import PortQos
from fabricgen.qos.policy import BUILTIN_LANES
from fabricgen.render import render_device
from fabricgen.render.check import _yaml12_loader
from fabricgen.render.retarget import retarget
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve
from tests.conftest import INVENTORIES
from tests.test_render_common import fabric_as

PACKETS = {"roce": 26, "cnp": 48, "storage": 18}


@dataclass(frozen=True)
class Outcome:
    tc: int
    queue: int
    pg: int | None  # SONiC's ingress priority group (NVUE has no PG object: None)
    pfc: bool  # PFC enabled on the packet's priority on this port
    headroom: bool  # a lossless buffer (xoff) reserved for it
    ecn: tuple[int, int, int] | None  # (min, max, probability) of the egress queue's ECN marking
    scheduler: tuple[str, int | None]  # ("strict", None) or ("dwrr", weight)


def intended(pq: PortQos, dscp: int, with_pg: bool) -> Outcome:
    tc = pq.dscp_to_tc[dscp]
    (lane,) = [lane for lane in pq.lanes if lane.tc == tc]
    lossless = tc in pq.pfc_priorities
    e = pq.ecn.get(tc) if lane.ecn else None
    return Outcome(
        tc=tc,
        queue=tc,
        pg=(tc if lossless else 0) if with_pg else None,
        pfc=lossless,
        headroom=tc in pq.headroom,
        ecn=(e.min_bytes, e.max_bytes, e.probability_pct) if e else None,
        scheduler=("strict", None) if lane.scheduling == "strict" else ("dwrr", lane.ets_weight),
    )


# --------------------------------------------------------------------------- SONiC


def sonic_walk(db: dict[str, Any], port: str, dscp: int) -> Outcome:
    pqm = {**db["PORT_QOS_MAP"].get("global", {}), **db["PORT_QOS_MAP"][port]}
    tc = int(db["DSCP_TO_TC_MAP"][pqm["dscp_to_tc_map"]][str(dscp)])
    queue = int(db["TC_TO_QUEUE_MAP"][pqm["tc_to_queue_map"]][str(tc)])
    pg = int(db["TC_TO_PRIORITY_GROUP_MAP"][pqm["tc_to_pg_map"]][str(tc)])
    pfc = str(tc) in pqm.get("pfc_enable", "").split(",")
    if pfc:  # a paused priority must stop the queue it is mapped to
        assert int(db["MAP_PFC_PRIORITY_TO_QUEUE"][pqm["pfc_to_queue_map"]][str(tc)]) == queue
    pg_profile = db["BUFFER_PROFILE"][db["BUFFER_PG"][f"{port}|{pg}"]["profile"]]  # KeyError: PG without profile
    q = db["QUEUE"].get(f"{port}|{queue}", {})  # no row: the queue runs on SONiC's defaults
    ecn = None
    if "wred_profile" in q:
        w = db["WRED_PROFILE"][q["wred_profile"]]
        assert w["ecn"] == "ecn_all" and w["wred_green_enable"] == "true"
        ecn = (int(w["green_min_threshold"]), int(w["green_max_threshold"]), int(w["green_drop_probability"]))
    s = db["SCHEDULER"][q["scheduler"]] if "scheduler" in q else {"type": "unconfigured"}
    sched = (s["type"].lower(), None) if s["type"] != "DWRR" else ("dwrr", int(s["weight"]))
    return Outcome(tc, queue, pg, pfc, "xoff" in pg_profile, ecn, sched)


def lossless_storage(platform: str) -> Fabric:
    """The lab with the storage lane made lossless with ECN (a second lossless priority, 4)."""
    loaded = retarget(load_inventory(INVENTORIES / "lab"), platform)
    lanes = [lane.model_copy(update={"lossless": True, "ecn": True}) if lane.purpose == "storage" else lane
             for lane in BUILTIN_LANES]
    inv = loaded.inventory
    inv = inv.model_copy(update={"qos": inv.qos.model_copy(update={"lanes": lanes})})
    return resolve(dataclasses.replace(loaded, inventory=inv))


@pytest.mark.parametrize("inventory", ["lab", "su1", "lab, lossless storage"])
def test_sonic_packets_follow_the_policy(inventory: str) -> None:
    fabric = lossless_storage("sonic") if "storage" in inventory else fabric_as(INVENTORIES / inventory, "sonic")
    qos = compute(fabric)
    if "storage" in inventory:
        assert qos.port("leaf1", "Ethernet0").pfc_priorities == frozenset({3, 4})  # type: ignore[union-attr]
    walked = 0
    for name in sorted(fabric.switches):
        db = json.loads(render_device(fabric, name, qos).main)
        for port in (p for p, row in db["PORT"].items() if row["admin_status"] == "up"):  # down: empty cages
            pq = qos.port(name, port)
            assert pq is not None
            for dscp in PACKETS.values():
                assert sonic_walk(db, port, dscp) == intended(pq, dscp, with_pg=True), (name, port, dscp)
                walked += 1
    assert walked == 3 * sum(len(s.ports) for s in fabric.switches.values())


def test_sonic_every_used_pg_has_a_profile() -> None:
    fabric = fabric_as(INVENTORIES / "lab", "sonic")
    qos = compute(fabric)
    for name in sorted(fabric.switches):
        db = json.loads(render_device(fabric, name, qos).main)
        for port, pqm in db["PORT_QOS_MAP"].items():
            if port == "global":
                continue
            used = set(db["TC_TO_PRIORITY_GROUP_MAP"][pqm["tc_to_pg_map"]].values())
            for pg in used:
                assert db["BUFFER_PG"][f"{port}|{pg}"]["profile"] in db["BUFFER_PROFILE"]


def test_the_walk_notices_a_wrong_map() -> None:
    """The simulation is not a tautology: RoCE mapped into a lossy TC changes the outcome."""
    fabric = fabric_as(INVENTORIES / "lab", "sonic")
    qos = compute(fabric)
    db = json.loads(render_device(fabric, "leaf1", qos).main)
    for m in db["DSCP_TO_TC_MAP"].values():
        m["26"] = "1"  # stock SONiC's mapping
    pq = qos.port("leaf1", "Ethernet0")
    assert pq is not None
    got = sonic_walk(db, "Ethernet0", 26)
    assert got != intended(pq, 26, with_pg=True) and not got.pfc and got.pg == 0


# --------------------------------------------------------------------------- NVUE


def nvue_walk(cfg: dict[str, Any], port: str, dscp: int) -> Outcome:
    q = cfg["qos"]
    iq = cfg["interface"][port]["qos"]
    mapping = q["mapping"][iq["mapping"]["profile"]]
    assert mapping["trust"] == "l3"
    sp = int(mapping["dscp"][str(dscp)]["switch-priority"])
    (eqm,) = q["egress-queue-mapping"].values()
    queue = int(eqm["switch-priority"][str(sp)]["traffic-class"])
    pfc_profile = q["pfc"][iq["pfc"]["profile"]] if "pfc" in iq else None
    pfc = pfc_profile is not None and str(sp) in pfc_profile["switch-priority"] \
        and pfc_profile["rx"] == pfc_profile["tx"] == "enable"
    headroom = pfc and int(pfc_profile["xoff-threshold"]) > 0 if pfc_profile else False
    if pfc:  # the priority's buffer comes from the lossless pool
        assert str(sp) in q["traffic-pool"]["default-lossless"]["switch-priority"]
    cc = q["congestion-control"][iq["congestion-control"]["profile"]]["traffic-class"].get(str(queue))
    ecn = (cc["min-threshold"], cc["max-threshold"], cc["probability"]) if cc and cc["ecn"] == "enable" else None
    ets = q["egress-scheduler"][iq["egress-scheduler"]["profile"]]["traffic-class"][str(queue)]
    sched = ("strict", None) if ets["mode"] == "strict" else ("dwrr", int(ets["bw-percent"]))
    return Outcome(sp, queue, None, pfc, bool(headroom), ecn, sched)


@pytest.mark.parametrize("release", ["5.14", "5.15", "lossless storage"])
def test_nvue_packets_follow_the_policy(release: str) -> None:
    from tests.test_render_nvue import nvue_fabric

    fabric = lossless_storage("nvue") if "storage" in release else nvue_fabric("lab", release)
    qos = compute(fabric)
    walked = 0
    for name in sorted(fabric.switches):
        (doc,) = yaml.load(render_device(fabric, name, qos).main, Loader=_yaml12_loader())  # safe loader
        cfg = doc["set"]
        for port in (p.name for p in fabric.switches[name].ports):
            pq = qos.port(name, port)
            assert pq is not None
            for dscp in PACKETS.values():
                assert nvue_walk(cfg, port, dscp) == intended(pq, dscp, with_pg=False), (name, port, dscp)
                walked += 1
    assert walked == 3 * sum(len(s.ports) for s in fabric.switches.values())


def test_packets_take_the_lanes_the_policy_names() -> None:
    """The three packets land in three different lanes: RoCE lossless with ECN, CNP strict, storage its own."""
    fabric = fabric_as(INVENTORIES / "lab", "sonic")
    pq = compute(fabric).port("leaf1", "Ethernet0")
    assert pq is not None
    roce, cnp, storage = (intended(pq, d, with_pg=True) for d in PACKETS.values())
    assert roce.pfc and roce.headroom and roce.ecn is not None and roce.pg == roce.tc == 3
    assert cnp.scheduler == ("strict", None) and not cnp.pfc and cnp.ecn is None
    assert len({roce.tc, cnp.tc, storage.tc}) == 3


def test_lossless_storage_renders_valid_files() -> None:
    """The two-lossless-priority variant passes both vendor schemas too (PG 4 and its profile, the pool)."""
    from fabricgen.render.check import nvue_oracle, nvue_releases, sonic_oracle
    from tests.conftest import LAB_UNVALIDATED, require

    sonic = sonic_oracle()
    require(sonic is not None and bool(nvue_releases()), "libyang or nvueschema not installed")
    assert sonic is not None
    for platform in ("sonic", "nvue"):
        fabric = lossless_storage(platform)
        qos = compute(fabric)
        for name in sorted(fabric.switches):
            text = render_device(fabric, name, qos).main
            if platform == "sonic":  # every table validates but the lab's base tables the shared models lack
                assert sonic.judge(text) == ([], LAB_UNVALIDATED), name
                continue
            oracle = nvue_oracle(fabric.switches[name].release)
            assert oracle is not None
            assert oracle.problems(text) == [], (platform, name)
