"""SONiC: config_db.json validated against SONiC's YANG models with libyang; frr.conf with vtysh --dryrun.

The models are read from ``FABRICGEN_SONIC_YANG`` (default ``../shared/sonic-yang`` next to the repo).
Each config_db table is translated into YANG instance data the way SONiC's ``sonic_yang_ext.py`` does
(table → container of the module that defines it; ``key1|key2`` → list keys; map tables such as
DSCP_TO_TC_MAP → their inner key/value list; values typed as the model says, since stock libyang does
not accept numbers as strings) and validated with leafrefs resolved (BUFFER_PG → BUFFER_PROFILE,
PORT_QOS_MAP → DSCP_TO_TC_MAP, QUEUE → WRED_PROFILE/SCHEDULER, INTERFACE → PORT …).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.qos import compute
from fabricgen.render import render_device
from fabricgen.render.data import build_device
from fabricgen.render.sonic import config_db, dumps_config_db, index_ranges
from tests.conftest import INVENTORIES, ROOT, load_fabric, require
from tests.test_render_frr import vtysh_dryrun

YANG_DIR = Path(os.environ.get("FABRICGEN_SONIC_YANG", str(ROOT.parent / "shared" / "sonic-yang")))


def _libyang() -> Any:
    try:
        import libyang
    except ImportError:
        require(False, "python libyang binding not installed (apt-get install libyang2-dev; pip install -e '.[yang]')")
    require(YANG_DIR.is_dir(), f"SONiC YANG models not found at {YANG_DIR} (set FABRICGEN_SONIC_YANG)")
    return libyang


class SonicYang:
    """SONiC's models loaded into one libyang context, plus the config_db → instance-data translation."""

    def __init__(self, libyang: Any, models: Path) -> None:
        self.ly = libyang
        self.ctx = libyang.Context(str(models))
        self.tables: dict[str, tuple[str, Any]] = {}  # table → (module name, container schema node)
        names = sorted({path.stem.split("@")[0] for path in models.glob("*.yang")})
        for name in names:
            self.ctx.load_module(name)
        # walk the schema only once everything is loaded (loading a module recompiles the context)
        for name in names:
            for top in self.ctx.get_module(name).children():
                if not isinstance(top, libyang.SContainer):
                    continue
                for table in top.children():
                    if isinstance(table, libyang.SContainer):
                        self.tables[table.name()] = (name, table)

    # --- values
    def _value(self, node: Any, raw: Any) -> Any:
        ly = self.ly
        base = node.type().base()
        types = [node.type()]
        if base == ly.Type.UNION:
            types = list(node.type().union_types())
        if isinstance(raw, list):
            return [self._scalar(types, r) for r in raw]
        return self._scalar(types, raw)

    def _scalar(self, types: list[Any], raw: Any) -> Any:
        ly = self.ly
        ints = (ly.Type.INT8, ly.Type.INT16, ly.Type.INT32, ly.Type.UINT8, ly.Type.UINT16, ly.Type.UINT32)
        for t in types:
            b = t.base()
            if b == ly.Type.LEAFREF:
                b = t.leafref_type().base()
            if b in ints:
                try:
                    return int(raw)
                except ValueError:
                    continue
            if b == ly.Type.BOOL and str(raw).lower() in ("true", "false"):
                return str(raw).lower() == "true"
        return str(raw)

    # --- tables
    def instance(self, db: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, dict[str, Any]] = {}
        for table, rows in db.items():
            assert table in self.tables, f"table {table} is not in any loaded SONiC model"
            module, container = self.tables[table]
            out.setdefault(f"{module}:{module}", {})[f"{module}:{table}"] = self._table(container, rows)
        return out

    def _table(self, container: Any, rows: dict[str, Any]) -> dict[str, Any]:
        ly = self.ly
        children = list(container.children())
        sub_containers = {c.name(): c for c in children if isinstance(c, ly.SContainer)}
        lists = [c for c in children if isinstance(c, ly.SList)]
        result: dict[str, Any] = {}
        for key, fields in rows.items():
            if key in sub_containers:
                result[key] = self._fields(sub_containers[key], fields)
                continue
            parts = key.split("|")
            matches = [lst for lst in lists if len(list(lst.keys())) == len(parts)]
            assert matches, f"{container.name()}: no list takes key {key!r}"
            lst = matches[0]
            entry = {k.name(): self._value(k, v) for k, v in zip(lst.keys(), parts, strict=True)}
            entry.update(self._fields(lst, fields))
            result.setdefault(lst.name(), []).append(entry)
        return result

    def _fields(self, node: Any, fields: dict[str, Any]) -> dict[str, Any]:
        ly = self.ly
        is_list = isinstance(node, ly.SList)
        keys = {k.name() for k in node.keys()} if is_list else set()  # noqa: SIM118 (libyang, not a dict)
        by_name = {c.name(): c for c in node.children() if c.name() not in keys}
        inner = [c for c in by_name.values() if isinstance(c, ly.SList)]
        out: dict[str, Any] = {}
        for name, raw in fields.items():
            if name in by_name and not isinstance(by_name[name], ly.SList):
                child = by_name[name]
                if isinstance(child, ly.SLeafList) and isinstance(raw, str):
                    raw = raw.split(",")
                out[name] = self._value(child, raw)
            else:
                # a map table (DSCP_TO_TC_MAP name → {dscp: tc}): one inner list of key + value
                assert len(inner) == 1, f"{node.name()}: unknown field {name!r}"
                lst = inner[0]
                (key_node,) = list(lst.keys())
                (val_node,) = [c for c in lst.children() if c.name() != key_node.name()]
                out.setdefault(lst.name(), []).append(
                    {key_node.name(): self._value(key_node, name), val_node.name(): self._value(val_node, raw)}
                )
        return out

    def validate(self, db: dict[str, Any]) -> None:
        text = json.dumps(self.instance(db))
        tree = self.ctx.parse_data_mem(text, "json", strict=True, validate_present=True)
        assert tree is not None
        tree.free()


@pytest.fixture(scope="module")
def sonic_yang() -> SonicYang:
    return SonicYang(_libyang(), YANG_DIR)


@pytest.fixture(scope="module")
def lab_qos() -> Any:
    fabric = load_fabric(INVENTORIES / "lab")
    return fabric, compute(fabric)


def test_models_present_in_ci() -> None:
    """The shared YANG directory is part of CI: there, its absence is a failure, not a skip."""
    require(YANG_DIR.is_dir(), f"SONiC YANG models not found at {YANG_DIR}")
    assert (YANG_DIR / "sonic-port.yang").is_file()


def test_every_lab_config_db_validates(sonic_yang: SonicYang, lab_qos: Any) -> None:
    fabric, qos = lab_qos
    for name in sorted(fabric.switches):
        db = json.loads(render_device(fabric, name, qos).main)
        sonic_yang.validate(db)


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


def test_multi_unit_sonic_validates(sonic_yang: SonicYang) -> None:
    """The multi-unit example rendered as SONiC (platform overridden) validates too (a sample of switches)."""
    from tests.test_render_common import fabric_as

    fabric = fabric_as(INVENTORIES / "multi-su", "sonic")
    qos = compute(fabric)
    names = sorted(fabric.switches)
    for name in names[:: max(1, len(names) // 12)]:
        sonic_yang.validate(json.loads(render_device(fabric, name, qos).main))


def test_sonic_tables_carry_the_roce_policy(lab_qos: Any) -> None:
    fabric, qos = lab_qos
    db = json.loads(render_device(fabric, "leaf1", qos).main)
    meta = db["DEVICE_METADATA"]["localhost"]
    assert meta["type"] == "LeafRouter" and meta["docker_routing_config_mode"] == "split"
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
    assert db["CABLE_LENGTH"]["AZURE"]["Ethernet0"] == "3m"
    assert db["PFC_WD"]["Ethernet0"]["action"] == "drop"
    for i in db["PORT"]:
        assert i in db["PORT_QOS_MAP"] and f"{i}|3" in db["BUFFER_PG"]


def test_lossy_queues_fold_into_ranges_as_sonic_writes_them(lab_qos: Any) -> None:
    fabric, qos = lab_qos
    db = json.loads(render_device(fabric, "leaf1", qos).main)
    keys = sorted(k.split("|", 1)[1] for k in db["BUFFER_QUEUE"] if k.startswith("Ethernet0|"))
    assert keys == ["0-2", "3", "4-7"]
    assert db["BUFFER_QUEUE"]["Ethernet0|3"]["profile"] == "egress_lossless_profile"
    assert db["BUFFER_QUEUE"]["Ethernet0|4-7"]["profile"] == "egress_lossy_profile"


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
