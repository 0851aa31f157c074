"""The inventory JSON Schema (checked by the real ``jsonschema`` validator) and the containerlab, Nornir
and Ansible exports (exact structures for the small lab, counts for multi-su)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from ruamel.yaml import YAML

from fabricgen.cli import app
from fabricgen.ecosystem import export as ex
from fabricgen.ecosystem.schema import inventory_schema
from fabricgen.inventory.catalog import PLATFORMS, shipped
from tests.conftest import INVENTORIES, load_fabric
from tests.test_render_common import fabric_as

BUNDLED = sorted(INVENTORIES.rglob("*.yaml"))


def _yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = inventory_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(validator: jsonschema.protocols.Validator, doc: Any) -> list[str]:
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


# --------------------------------------------------------------------------- schema


def test_every_bundled_inventory_file_is_valid(validator: jsonschema.protocols.Validator) -> None:
    assert len(BUNDLED) >= 8
    for path in BUNDLED:
        assert _errors(validator, _yaml(path)) == [], path
    # the shipped catalog, as an inventory's own `catalog:` section (headroom tables included)
    shipped_catalog = _yaml(Path(__file__).resolve().parents[1] / "fabricgen" / "data" / "catalog.yaml")
    assert _errors(validator, {"catalog": shipped_catalog}) == []
    table = shipped_catalog["switches"]["sn5600"]["headroom_table"]
    table["xoff_bytes"]["400G"]["5 metres"] = 1
    errors = _errors(validator, {"catalog": shipped_catalog})
    assert len(errors) == 1 and errors[0].startswith("catalog.switches.sn5600.headroom_table: ")


def test_unknown_key_and_wrong_type_are_rejected(validator: jsonschema.protocols.Validator) -> None:
    doc = _yaml(INVENTORIES / "lab" / "devices.yaml")
    doc["switches"][0]["colour"] = "red"
    errors = _errors(validator, doc)
    assert len(errors) == 1 and errors[0].startswith("switches.0: Additional properties are not allowed ('colour'")
    fabric = _yaml(INVENTORIES / "lab" / "fabric.yaml")
    fabric["fabric"]["switch_mtu"] = "jumbo"
    assert _errors(validator, fabric) == ["fabric.switch_mtu: 'jumbo' is not of type 'integer'"]
    assert _errors(validator, {"fabirc": {"name": "x"}}) == [
        ": Additional properties are not allowed ('fabirc' was unexpected)"
    ]
    bad = {"links": [{"a": "leaf1:swp1", "b": "spine1:swp1", "length_m": "far"}]}
    assert [e.split(": ")[0] for e in _errors(validator, bad)] == ["links.0.length_m"]


def test_each_file_may_hold_part_of_the_inventory(validator: jsonschema.protocols.Validator) -> None:
    assert _errors(validator, {}) == []
    assert _errors(validator, {"links": [{"a": "leaf1:swp1", "b": "spine1:swp1"}]}) == []
    assert _errors(validator, {"fabric": {"switch_mtu": 9216}}) == []  # the name may be in another file
    # objects in lists come whole from one file: a switch without its role is incomplete
    assert _errors(validator, {"switches": [{"name": "leaf1", "model": "sn5600"}]}) == [
        "switches.0: 'role' is a required property"
    ]


def test_platforms_are_an_enum_and_models_name_the_catalog(validator: jsonschema.protocols.Validator) -> None:
    sw = {"name": "leaf1", "role": "leaf", "model": "sn5600", "platform": "sonic"}
    assert _errors(validator, {"switches": [sw]}) == []
    assert len(_errors(validator, {"switches": [{**sw, "platform": "ios"}]})) == 1
    # a model of the inventory's own catalog is any valid name; an invalid name is not
    assert _errors(validator, {"switches": [{**sw, "model": "my-box"}]}) == []
    assert len(_errors(validator, {"switches": [{**sw, "model": "my box!"}]})) == 1
    assert len(_errors(validator, {"qos": {"platforms": {"ios": {"cnp_tc": 7}}}})) == 1
    assert _errors(validator, {"qos": {"platforms": {"eos": {"cnp_tc": 7}}}}) == []
    assert _errors(validator, {"qos": {"ecn_by_speed": {"800G": {"min_bytes": 1, "max_bytes": 2,
                                                                 "probability_pct": 5}}}}) == []
    assert len(_errors(validator, {"qos": {"ecn_by_speed": {"fast": {"min_bytes": 1, "max_bytes": 2,
                                                                     "probability_pct": 5}}}})) == 1
    defs = inventory_schema()["$defs"]
    switch_model = defs["Switch"]["properties"]["model"]["anyOf"][0]
    assert switch_model == {"enum": sorted(shipped().switches)}
    assert defs["SwitchModel"]["properties"]["platform"]["enum"] == list(PLATFORMS)
    assert defs["Node"]["properties"]["model"]["anyOf"][0] == {"enum": sorted(shipped().servers)}


def test_every_object_forbids_extra_keys() -> None:
    schema = inventory_schema()
    assert schema["additionalProperties"] is False
    for name, d in schema["$defs"].items():
        if d.get("type") == "object":
            assert d.get("additionalProperties") is False, name


def test_schema_command_writes_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "fabricgen.schema.json"
    result = CliRunner().invoke(app, ["schema", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text()) == inventory_schema()
    printed = CliRunner().invoke(app, ["schema"])
    assert printed.exit_code == 0 and printed.output == out.read_text()


# --------------------------------------------------------------------------- containerlab


LAB_ROLES = {"spine1": "spine", "spine2": "spine", "leaf1": "leaf", "leaf2": "leaf", "leaf3": "leaf", "leaf4": "leaf"}


def test_containerlab_lab_exact() -> None:
    topo = ex.containerlab(fabric_as(INVENTORIES / "lab", "frr"))
    # inventories/lab-frr is the lab's switch-only twin, cabled with the FRR port names by hand
    twin = _yaml(INVENTORIES / "lab-frr" / "fabric.yaml")["links"]
    assert topo == {
        "name": "lab",
        "topology": {
            "kinds": {"linux": {"image": "quay.io/frrouting/frr:8.4.1"}},
            "nodes": {
                name: {
                    "kind": "linux",
                    "labels": {"fabricgen.role": role, "fabricgen.model": "sn5600"},
                    "binds": [f"configs/{name}/frr.conf:/etc/frr/frr.conf", "configs/daemons:/etc/frr/daemons"],
                }
                for name, role in LAB_ROLES.items()
            },
            "links": [{"endpoints": [link["a"], link["b"]]} for link in twin],
        },
    }
    assert len(topo["topology"]["links"]) == 16


def test_containerlab_links_equal_the_switch_cabling() -> None:
    # the lab as written (SONiC port names) against its FRR rendering: same cables, ports renamed by cage
    written = [(link["a"], link["b"]) for link in _yaml(INVENTORIES / "lab" / "cabling.yaml")["links"]
               if link["a"].split(":")[0] in LAB_ROLES and link["b"].split(":")[0] in LAB_ROLES]
    sonic = load_fabric(INVENTORIES / "lab")
    cage = {(p.device, p.name): (p.cage, p.sub) for sw in sonic.switches.values() for p in sw.ports}
    frr = fabric_as(INVENTORIES / "lab", "frr")
    frr_cage = {(p.device, p.cage, p.sub): p.name for sw in frr.switches.values() for p in sw.ports}

    def rename(end: str) -> str:
        device, port = end.split(":")
        return f"{device}:{frr_cage[(device, *cage[(device, port)])]}"

    links = [tuple(link["endpoints"]) for link in ex.containerlab(frr)["topology"]["links"]]
    assert links == [(rename(a), rename(b)) for a, b in written]
    assert all(ex.LINUX_IFNAME.match(end.split(":")[1]) for pair in links for end in pair)


def test_containerlab_multi_su_counts() -> None:
    fabric = fabric_as(INVENTORIES / "multi-su", "frr")
    topo = ex.containerlab(fabric)["topology"]
    # 8 units × 8 rails = 64 leaves, 32 spines; each leaf: 32 × 400G up for 32 × 400G down (1:1)
    assert len(topo["nodes"]) == 96
    assert len(topo["links"]) == 64 * 32
    per_node = Counter(end.split(":")[0] for link in topo["links"] for end in link["endpoints"])
    assert {n for n, c in per_node.items() if c == 32} == {n for n in topo["nodes"] if n.startswith("leaf")}
    assert all(per_node[n] == 64 for n in topo["nodes"] if not n.startswith("leaf"))


def test_containerlab_topology_file_is_valid_against_containerlabs_own_schema(tmp_path: Path) -> None:
    """The written ``lab.clab.yml`` against the JSON Schema containerlab publishes and validates topologies with
    (tests/data/containerlab, see SOURCE.txt; containerlab itself is a Go binary needing Docker, not run here):
    no error, and the schema is strict enough to refuse a kind containerlab has not (sanity of the oracle)."""
    schema = json.loads((Path(__file__).parent / "data" / "containerlab" / "clab.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    out = tmp_path / "clab"
    result = CliRunner().invoke(app, ["export", "containerlab", str(INVENTORIES / "lab"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    topo = _yaml(out / "lab.clab.yml")
    assert [e.message for e in validator.iter_errors(topo)] == []
    nodes = topo["topology"]["nodes"]
    assert all(end.split(":")[0] in nodes for link in topo["topology"]["links"] for end in link["endpoints"])
    assert all(len(link["endpoints"]) == 2 for link in topo["topology"]["links"])  # veth: two ends, as documented
    topo["topology"]["nodes"]["spine1"]["kind"] = "frr"
    assert len(list(validator.iter_errors(topo))) == 1


def test_containerlab_refuses_non_linux_port_names() -> None:
    with pytest.raises(ex.ExportError, match=r"Ethernet1/1 is not a Linux interface name"):
        ex.containerlab(fabric_as(INVENTORIES / "lab", "eos"))


# --------------------------------------------------------------------------- nornir / ansible

LAB_DATA = {
    "spine1": {"role": "spine", "asn": 4200000100, "loopback": "10.0.1.1"},
    "spine2": {"role": "spine", "asn": 4200000100, "loopback": "10.0.1.2"},
    "leaf1": {"role": "leaf", "asn": 4200100001, "loopback": "10.0.0.1", "unit": 1},
    "leaf2": {"role": "leaf", "asn": 4200100002, "loopback": "10.0.0.2", "unit": 1},
    "leaf3": {"role": "leaf", "asn": 4200100003, "loopback": "10.0.0.3", "unit": 1},
    "leaf4": {"role": "leaf", "asn": 4200100004, "loopback": "10.0.0.4", "unit": 1},
}


def _data(name: str) -> dict[str, Any]:
    d = LAB_DATA[name]
    out = {"role": d["role"], "model": "sn5600", "fabricgen_platform": "sonic", "asn": d["asn"],
           "loopback": d["loopback"]}
    return out | ({"unit": 1} if "unit" in d else {})


def test_nornir_lab_exact() -> None:
    mgmt = {"leaf1": ex.Management("192.0.2.11", 2222)}
    made = ex.nornir(load_fabric(INVENTORIES / "lab"), mgmt)
    hosts = {
        name: ({"hostname": "192.0.2.11", "port": 2222} if name == "leaf1" else {})
        | {"platform": "fabricgen_sonic", "groups": [d["role"], "sonic"], "data": _data(name)}
        for name, d in LAB_DATA.items()
    }
    assert made == {
        "hosts.yaml": hosts,
        "groups.yaml": {
            "spine": {"data": {"role": "spine"}},
            "leaf": {"data": {"role": "leaf"}},
            "sonic": {
                "platform": "fabricgen_sonic",
                "connection_options": {"napalm": {"platform": "fabricgen_sonic"}},
                "data": {"fabricgen_platform": "sonic"},
            },
        },
    }


@pytest.mark.parametrize(
    ("platform", "driver"),
    [("sonic", "fabricgen_sonic"), ("eos", "fabricgen_eos"), ("nxos", "nxos_ssh"), ("junos", "fabricgen_junos"),
     ("nvue", "fabricgen_nvue"), ("frr", "fabricgen_frr")],
)  # fmt: skip
def test_nornir_platform_is_the_driver_name_napalm_loads(tmp_path: Path, platform: str, driver: str) -> None:
    """Each host's NAPALM platform, as Nornir's SimpleInventory reads the written files, is a name that
    ``napalm.get_network_driver`` loads, and loads the class fabricgen's own apply/drift use for that platform."""
    from napalm import get_network_driver
    from nornir.plugins.inventory.simple import SimpleInventory

    from fabricgen.deploy.drivers import driver_class

    made = ex.nornir(fabric_as(INVENTORIES / "lab", platform))
    for name, content in made.items():
        (tmp_path / name).write_text(yaml.safe_dump(content))
    inv = SimpleInventory(host_file=str(tmp_path / "hosts.yaml"), group_file=str(tmp_path / "groups.yaml")).load()
    assert sorted(inv.hosts) == sorted(LAB_DATA)
    for host in inv.hosts.values():
        assert host.platform == driver
        loaded = get_network_driver(host.get_connection_parameters("napalm").platform)
        assert loaded is driver_class(platform)


def test_every_registered_driver_is_exported_as_a_name_napalm_loads() -> None:
    """Derived from the driver registry, so a platform added there is exported under a loadable name."""
    from napalm import get_network_driver

    from fabricgen.deploy.drivers import NAPALM_DRIVER, driver_class

    for platform in NAPALM_DRIVER:
        assert get_network_driver(ex.napalm_driver(platform)) is driver_class(platform)


def test_ansible_lab_exact() -> None:
    made = ex.ansible(load_fabric(INVENTORIES / "lab"), {"spine1": ex.Management("spine1.oob", 22)})

    def hv(name: str) -> dict[str, Any]:
        base = {"ansible_host": "spine1.oob", "ansible_port": 22} if name == "spine1" else {}
        return base | {k if k.startswith("fabricgen_") else f"fabricgen_{k}": v for k, v in _data(name).items()}

    assert made == {
        "inventory.yaml": {
            "all": {
                "children": {
                    "spine": {"hosts": {n: hv(n) for n in ("spine1", "spine2")}},
                    "leaf": {"hosts": {n: hv(n) for n in ("leaf1", "leaf2", "leaf3", "leaf4")}},
                    "sonic": {
                        "hosts": dict.fromkeys(LAB_DATA),
                        "vars": {
                            "ansible_network_os": "dellemc.enterprise_sonic.sonic",
                            "ansible_connection": "ansible.netcommon.network_cli",
                        },
                    },
                }
            }
        }
    }
    eos = ex.ansible(fabric_as(INVENTORIES / "lab", "eos"))["inventory.yaml"]["all"]["children"]["eos"]["vars"]
    assert eos["ansible_network_os"] == "arista.eos.eos"


# --------------------------------------------------------------------------- the export command


def test_export_writes_deterministic_yaml_and_dry_run_writes_nothing(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "clab"
    dry = runner.invoke(app, ["export", "containerlab", str(INVENTORIES / "lab"), "-o", str(out), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would write" in dry.output and not out.exists()
    first = runner.invoke(app, ["export", "containerlab", str(INVENTORIES / "lab"), "-o", str(out)])
    assert first.exit_code == 0, first.output
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert sorted(files) == ["configs/daemons", *[f"configs/{n}/frr.conf" for n in sorted(LAB_ROLES)], "lab.clab.yml"]
    topo = _yaml(out / "lab.clab.yml")
    assert topo == ex.containerlab(fabric_as(INVENTORIES / "lab", "frr"))
    assert b"router bgp 4200100001" in files["configs/leaf1/frr.conf"]
    assert b"bgpd=yes" in files["configs/daemons"]
    again = runner.invoke(app, ["export", "containerlab", str(INVENTORIES / "lab"), "-o", str(out)])
    assert again.exit_code == 0
    assert {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()} == files


def test_export_nornir_and_ansible_files_round_trip(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("leaf1: 192.0.2.11:2222\nspine1: {host: spine1.oob}\n")
    runner = CliRunner()
    for kind, names in (("nornir", ["groups.yaml", "hosts.yaml"]), ("ansible", ["inventory.yaml"])):
        out = tmp_path / kind
        result = runner.invoke(app, ["export", kind, str(INVENTORIES / "lab"), "-o", str(out), "--hosts", str(hosts)])
        assert result.exit_code == 0, result.output
        assert sorted(p.name for p in out.iterdir()) == names
        mgmt = {"leaf1": ex.Management("192.0.2.11", 2222), "spine1": ex.Management("spine1.oob", 22)}
        made = getattr(ex, kind)(load_fabric(INVENTORIES / "lab"), mgmt)
        assert {n: _yaml(out / n) for n in names} == made


def test_nornir_loads_the_export_with_its_simple_inventory(tmp_path: Path) -> None:
    from nornir.plugins.inventory.simple import SimpleInventory

    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("leaf1: 192.0.2.11:2222\n")
    out = tmp_path / "nornir"
    args = ["export", "nornir", str(INVENTORIES / "lab"), "-o", str(out), "--hosts", str(hosts)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    inv = SimpleInventory(host_file=str(out / "hosts.yaml"), group_file=str(out / "groups.yaml")).load()
    assert sorted(inv.hosts) == sorted(LAB_DATA)
    leaf1 = inv.hosts["leaf1"]
    assert (leaf1.hostname, leaf1.port, leaf1.platform) == ("192.0.2.11", 2222, "fabricgen_sonic")
    assert [g.name for g in leaf1.groups] == ["leaf", "sonic"]
    assert leaf1["asn"] == 4200100001 and leaf1["loopback"] == "10.0.0.1"
    assert leaf1.get_connection_parameters("napalm").platform == "fabricgen_sonic"
    assert sorted(h.name for h in inv.children_of_group("spine")) == ["spine1", "spine2"]


def test_ansible_reads_the_export_with_ansible_inventory(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "ansible"
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("spine1: {host: spine1.oob, port: 830}\n")
    result = CliRunner().invoke(app, ["export", "ansible", str(INVENTORIES / "lab"), "-o", str(out),
                                      "--hosts", str(hosts)])
    assert result.exit_code == 0, result.output
    env = {"ANSIBLE_LOCAL_TEMP": str(tmp_path), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    run = subprocess.run(
        [sys.executable, "-m", "ansible.cli.inventory", "-i", str(out / "inventory.yaml"), "--list"],
        capture_output=True, text=True, check=True, cwd=tmp_path, env=env,
    )
    listed = json.loads(run.stdout)
    assert sorted(listed["leaf"]["hosts"]) == ["leaf1", "leaf2", "leaf3", "leaf4"]
    assert sorted(listed["spine"]["hosts"]) == ["spine1", "spine2"]
    assert sorted(listed["sonic"]["hosts"]) == sorted(LAB_DATA)
    spine1 = listed["_meta"]["hostvars"]["spine1"]
    assert spine1 == {
        "ansible_host": "spine1.oob",
        "ansible_port": 830,
        "ansible_network_os": "dellemc.enterprise_sonic.sonic",
        "ansible_connection": "ansible.netcommon.network_cli",
        "fabricgen_role": "spine",
        "fabricgen_model": "sn5600",
        "fabricgen_platform": "sonic",
        "fabricgen_asn": 4200000100,
        "fabricgen_loopback": "10.0.1.1",
    }


@pytest.mark.parametrize("entry", ["'evil\\n- x: y'", "'a b'", "{host: 'x#y'}", "'host:99999'"])
def test_export_refuses_unsafe_management_hosts(tmp_path: Path, entry: str) -> None:
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(f"leaf1: {entry}\n")
    result = CliRunner().invoke(app, ["export", "nornir", str(INVENTORIES / "lab"), "-o", str(tmp_path / "o"),
                                      "--hosts", str(hosts)])
    assert result.exit_code == 3
    assert "leaf1" in result.output and not (tmp_path / "o").exists()
