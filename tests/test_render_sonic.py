"""SONiC: config_db.json validated against SONiC's YANG models with libyang; frr.conf with vtysh --dryrun.

The models are ``../shared/sonic-yang`` (a sonic-buildimage snapshot, :data:`tests.conftest.SONIC_YANG`);
fabricgen ships none. The config_db → YANG instance translation is :class:`fabricgen.render.check.SonicYang`, the
same oracle ``fabricgen render --check`` runs. That snapshot has no model for the management VRF, NTP, syslog and
SNMP tables the lab writes: those are asserted, exactly, as not validated (:data:`LAB_UNVALIDATED`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.qos import compute
from fabricgen.render import render_device
from fabricgen.render.check import SonicYang
from fabricgen.render.data import build_device
from fabricgen.render.sonic import config_db, dumps_config_db, index_ranges
from tests.conftest import INVENTORIES, LAB_UNVALIDATED, PORTS_UNVALIDATED, ROOT, SONIC_YANG, load_fabric, require
from tests.test_render_frr import vtysh_dryrun

YANG_DIR = SONIC_YANG
UNVALIDATED = {"lab": LAB_UNVALIDATED, "su1": PORTS_UNVALIDATED, "expansion/before": PORTS_UNVALIDATED,
               "expansion/after": PORTS_UNVALIDATED}
"""Per bundled inventory, the tables not validated; every other inventory's switches validate in full (multi-su's
Arista 7060X6 has no SONiC platform facts here: its PORT table is laid out by position, without BREAKOUT_CFG)."""


def _libyang() -> Any:
    try:
        import libyang
    except ImportError:
        require(False, "python libyang binding not installed (apt-get install libyang2-dev; pip install -e '.[yang]')")
    require((YANG_DIR / "sonic-port.yang").is_file(), f"SONiC YANG models not found at {YANG_DIR}")
    return libyang


@pytest.fixture(scope="module")
def sonic_yang() -> SonicYang:
    return SonicYang(_libyang(), YANG_DIR)


@pytest.fixture(scope="module")
def lab_qos() -> Any:
    fabric = load_fabric(INVENTORIES / "lab")
    return fabric, compute(fabric)


def test_no_yang_model_is_package_data() -> None:
    """SONiC's models are another repository's files: the package holds none and does not list any as package
    data; the oracle reads the directory the user names (FABRICGEN_SONIC_YANG_DIR)."""
    assert [p.name for p in (ROOT / "fabricgen" / "data").iterdir() if p.suffix != ".yaml"] == []
    assert not list((ROOT / "fabricgen").rglob("*.yang"))
    assert "sonic-yang" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_models_are_the_shared_snapshot(sonic_yang: SonicYang) -> None:
    """The tests' models are ../shared/sonic-yang, cited by its SOURCE.txt, with the QoS and buffer tables."""
    assert sonic_yang.models == SONIC_YANG
    assert sonic_yang.source == "sonic-buildimage 086b03b"
    assert {"PORT_QOS_MAP", "BUFFER_PG", "TC_TO_PRIORITY_GROUP_MAP", "CABLE_LENGTH"} <= set(sonic_yang.tables)


def test_every_lab_config_db_validates(sonic_yang: SonicYang, lab_qos: Any) -> None:
    """Every lab switch validates but for exactly the tables the shared models lack, which are named."""
    fabric, qos = lab_qos
    for name in sorted(fabric.switches):
        text = render_device(fabric, name, qos).main
        sonic_yang.validate(json.loads(text))
        assert sonic_yang.judge(text) == ([], LAB_UNVALIDATED), name
        assert set(json.loads(text)) - set(LAB_UNVALIDATED) <= set(sonic_yang.tables), name


def test_validator_catches_a_dangling_profile(sonic_yang: SonicYang, lab_qos: Any) -> None:
    """The validation is real: a BUFFER_PG naming a profile that is not defined must fail."""
    fabric, qos = lab_qos
    db = config_db(build_device(fabric, "leaf1", qos))
    db["BUFFER_PG"]["Ethernet0|3"] = {"profile": "pg_lossless_missing_profile"}
    with pytest.raises(sonic_yang.ly.LibyangError):
        sonic_yang.validate(db)


def test_validator_catches_a_string_speed(sonic_yang: SonicYang, lab_qos: Any) -> None:
    fabric, qos = lab_qos
    db = config_db(build_device(fabric, "leaf1", qos))
    db["PORT"]["Ethernet0"]["speed"] = "fast"
    with pytest.raises(sonic_yang.ly.LibyangError):
        sonic_yang.validate(db)


BUNDLED = ("lab", "su1", "multi-su", "expansion/before", "expansion/after")


@pytest.mark.parametrize("inventory", BUNDLED)
def test_every_bundled_switch_validates_as_sonic(sonic_yang: SonicYang, inventory: str) -> None:
    """Every switch of every bundled inventory, moved to SONiC, passes libyang with all leafrefs resolved, but for
    exactly the tables of :data:`UNVALIDATED`."""
    from tests.test_render_common import fabric_as

    fabric = fabric_as(INVENTORIES / inventory, "sonic")
    qos = compute(fabric)
    checked = 0
    for name in sorted(fabric.switches):
        problems, unvalidated = sonic_yang.judge(render_device(fabric, name, qos).main)
        assert problems == [], f"{inventory}/{name}: {problems}"
        assert unvalidated == UNVALIDATED.get(inventory, []), f"{inventory}/{name}"
        checked += 1
    assert checked == len(fabric.switches) > 0


def test_sonic_tables_carry_the_roce_policy(lab_qos: Any) -> None:
    fabric, qos = lab_qos
    db = json.loads(render_device(fabric, "leaf1", qos).main)
    meta = db["DEVICE_METADATA"]["localhost"]
    assert meta["type"] == "ToRRouter" and meta["docker_routing_config_mode"] == "split"
    assert meta["bgp_asn"] == "4200100001" and meta["hostname"] == "leaf1"
    port = db["PORT"]["Ethernet0"]
    assert port["speed"] == "400000" and port["mtu"] == "9216" and port["lanes"] == "0,1,2,3"
    assert port["description"] == "gpu01:enp24s0np0"
    assert db["PORT"]["Ethernet256"]["speed"] == "800000"
    assert "Ethernet0|10.64.4.0/31" in db["INTERFACE"]
    # our own DSCP map, all 64 values, RoCE 26 → TC3 (stock SONiC puts 26 in lossy TC1)
    (dmap,) = db["DSCP_TO_TC_MAP"].values()
    assert len(dmap) == 64 and dmap["26"] == "3" and dmap["48"] == "6"
    pqm = db["PORT_QOS_MAP"]["Ethernet0"]
    assert pqm["pfc_enable"] == "3" and pqm["dscp_to_tc_map"] in db["DSCP_TO_TC_MAP"]
    # ECN on the lossless queue, marking (ecn_all), never on the CNP queue
    q3 = db["QUEUE"]["Ethernet0|3"]
    assert db["WRED_PROFILE"][q3["wred_profile"]]["ecn"] == "ecn_all"
    assert "wred_profile" not in db["QUEUE"]["Ethernet0|6"]
    assert db["SCHEDULER"][db["QUEUE"]["Ethernet0|6"]["scheduler"]]["type"] == "STRICT"
    # headroom on PG3 of every RoCE port, from the computed QoS
    pq = qos.port("leaf1", "Ethernet0")
    profile = db["BUFFER_PROFILE"][db["BUFFER_PG"]["Ethernet0|3"]["profile"]]
    assert profile["xoff"] == str(pq.headroom[3].xoff_bytes) and profile["size"] == str(pq.headroom[3].size_bytes)
    # 3 m host cables and 30 m uplinks are not in SONiC's lookup table: the next longer class is written
    lengths = {fabric.links[p.link].length_m for p in fabric.switches["leaf1"].ports}
    assert lengths == {3.0, 30.0}
    assert db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] == "5m"
    assert set(db["CABLE_LENGTH"]["AZURE"].values()) == {"5m", "40m"}
    # the switch-wide DSCP map newer SONiC reads, next to the per-port bindings
    assert db["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": pqm["dscp_to_tc_map"]}
    # lossy TCs share PG0, the lossless TC keeps its own PG (SONiC's RoCE default)
    assert db["TC_TO_PRIORITY_GROUP_MAP"]["AI_RDMA"] == {"0": "0", "1": "0", "2": "0", "3": "3", "4": "0",
                                                         "5": "0", "6": "0", "7": "0"}
    assert db["PFC_WD"]["Ethernet0"]["action"] == "drop"
    cabled = [i for i, row in db["PORT"].items() if row["admin_status"] == "up"]
    assert len(cabled) == len(fabric.switches["leaf1"].ports)
    for i in cabled:  # the cages the fabric leaves empty are in PORT too, admin down, without QoS
        assert i in db["PORT_QOS_MAP"] and f"{i}|3" in db["BUFFER_PG"]


def test_cable_class_rounds_up_to_sonic_lookup_lengths() -> None:
    from fabricgen.render.data import cable_class

    assert [cable_class(m).written for m in (1, 5, 6, 40, 41, 300)] == ["5m", "5m", "40m", "40m", "300m", "300m"]
    assert cable_class(301).written == "301m" and not cable_class(301).standard


def test_lossy_queues_fold_into_ranges_as_sonic_writes_them(lab_qos: Any) -> None:
    fabric, qos = lab_qos
    db = json.loads(render_device(fabric, "leaf1", qos).main)
    keys = sorted(k.split("|", 1)[1] for k in db["BUFFER_QUEUE"] if k.startswith("Ethernet0|"))
    assert keys == ["0-2", "3", "4-7"]
    assert db["BUFFER_QUEUE"]["Ethernet0|3"]["profile"] == "egress_lossless_profile"
    assert db["BUFFER_QUEUE"]["Ethernet0|4-7"]["profile"] == "q_lossy_profile"  # NVIDIA's lossy queue profile


@given(st.sets(st.integers(min_value=0, max_value=15)))
def test_index_ranges_cover_exactly_the_indexes(indexes: set[int]) -> None:
    ranges = index_ranges(indexes)
    covered = []
    for r in ranges:
        lo, _, hi = r.partition("-")
        assert not hi or int(hi) > int(lo)
        covered.extend(range(int(lo), int(hi or lo) + 1))
    assert covered == sorted(indexes)
    assert len(ranges) == len({i for i in indexes if i - 1 not in indexes})  # one range per run


def test_config_db_serialiser_matches_json_module(lab_qos: Any) -> None:
    fabric, qos = lab_qos
    for name in sorted(fabric.switches):
        db = config_db(build_device(fabric, name, qos))
        assert dumps_config_db(db) == json.dumps(db, sort_keys=True, indent=4)
    odd = {"A": {"k": {"n": {"deep": "1"}, "s": "x"}}, "B": {}, "C": {"k": {}}}
    assert dumps_config_db(odd) == json.dumps(odd, sort_keys=True, indent=4)


def test_sonic_frr_conf_passes_vtysh(tmp_path: Path, lab_qos: Any) -> None:
    fabric, qos = lab_qos
    for name in sorted(fabric.switches):
        vtysh_dryrun(tmp_path, render_device(fabric, name, qos).file("frr.conf").content)


def test_explain_shows_the_cable_class_and_release() -> None:
    from click.testing import CliRunner

    from fabricgen.cli import app

    result = CliRunner().invoke(app, ["explain", str(INVENTORIES / "lab"), "leaf1:Ethernet0", "--format", "json"])
    assert result.exit_code == 0, result.output
    values = {v["name"]: (v["value"], v["source"]) for v in json.loads(result.output)["values"]}
    assert values["nos release"] == ("sonic 202411", "default")
    assert values["sonic CABLE_LENGTH"][0].startswith("5m (standard class for 3 m")


NVIDIA_BUFFERS = Path(__file__).resolve().parents[1].parent / "shared" / "sonic-platform" / "nvidia_buffers.json"
TOPOLOGY = {"ToRRouter": "t0", "LeafRouter": "t1", "SpineRouter": "t2", "UpperSpineRouter": "t2"}
"""sonic-buildimage files/build_templates/buffers_config.j2: the buffers_defaults_<topo>.j2 each type selects."""


@pytest.mark.parametrize("inventory", BUNDLED)
def test_sonic_buffer_names_are_buffermgrd_s_and_the_type_has_nvidia_s_template(inventory: str) -> None:
    """Every lossless PG's profile is named ``pg_lossless_<port speed>_<the port's CABLE_LENGTH>_profile`` (the
    name buffermgrd looks up, so it keeps the profile instead of writing its own), and the device type selects a
    buffers_defaults_<topo>.j2 that NVIDIA's templates for the rendered SKU have (nvidia_buffers.json)."""
    from tests.test_render_common import fabric_as

    templates = json.loads(NVIDIA_BUFFERS.read_text(encoding="utf-8"))["skus"]
    fabric = fabric_as(INVENTORIES / inventory, "sonic")
    qos = compute(fabric)
    lossless = typed = 0
    for name in sorted(fabric.switches):
        db = json.loads(render_device(fabric, name, qos).main)
        meta = db["DEVICE_METADATA"]["localhost"]
        if meta["hwsku"] in templates:  # NVIDIA's SKUs (the others have no buffers_defaults_* of NVIDIA's)
            assert TOPOLOGY[meta["type"]] in templates[meta["hwsku"]], (name, meta["type"], meta["hwsku"])
            typed += 1
        cables = db.get("CABLE_LENGTH", {}).get("AZURE", {})
        for key, row in db.get("BUFFER_PG", {}).items():
            port = key.split("|")[0]
            if row["profile"].startswith("pg_lossless_"):
                speed = db["PORT"][port]["speed"]
                assert row["profile"] == f"pg_lossless_{speed}_{cables[port]}_profile", (name, key)
                assert row["profile"] in db["BUFFER_PROFILE"]
                lossless += 1
    assert lossless > 0
    assert typed == sum(sw.model in {"sn5600", "sn5400", "sn4700"} for sw in fabric.switches.values())
