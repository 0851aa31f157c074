"""Device identity before a load: the chassis MAC in the inventory, each platform's chassis ID on recorded output
in its vendor's shape, and the identity rule (serial, chassis MAC, hostname, LLDP neighbours)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fabricgen.cli import main
from fabricgen.deploy.identity import (
    ChassisId,
    check_identity,
    identity,
    parse_eos_local_info,
    parse_junos_local_info,
    parse_lldpcli_chassis,
    parse_nxos_sprom,
    read_chassis_id,
)
from fabricgen.inventory.schema import mac_address
from fabricgen.topology.model import Fabric
from tests.conftest import INVENTORIES, load_fabric

DATA = Path(__file__).parent / "data" / "deploy"
LEAF1 = "{name: leaf1, role: leaf, model: sn5600, platform: frr, id: 1, unit: 1"


def _inventory(tmp_path: Path, leaf1_extra: str) -> Path:
    text = (INVENTORIES / "lab-frr" / "fabric.yaml").read_text()
    assert LEAF1 + "}" in text
    (tmp_path / "fabric.yaml").write_text(text.replace(LEAF1 + "}", LEAF1 + leaf1_extra + "}"))
    return tmp_path


# ------------------------------------------------------------------------------------------ the inventory


@pytest.mark.parametrize("written", ["00-1C-73-A0-FC-18", "001c.73a0.fc18", "00:1c:73:a0:fc:18", '"001C73A0FC18"'])
def test_chassis_mac_is_normalised_at_load(tmp_path: Path, written: str) -> None:
    fabric = load_fabric(_inventory(tmp_path, f", chassis_mac: {written}"))
    assert fabric.switches["leaf1"].chassis_mac == "00:1c:73:a0:fc:18"
    assert fabric.switches["leaf2"].chassis_mac == ""


@pytest.mark.parametrize(("written", "why"), [
    ("00:1c:73:a0:fc", "not a MAC address: write it as aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or aabb.ccdd.eeff "
                       "(got '00:1c:73:a0:fc')"),
    ("00:1c:73:a0:fc:1g", "not a MAC address: write it as aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or aabb.ccdd.eeff "
                          "(got '00:1c:73:a0:fc:1g')"),
    ("001122334455", "a MAC address such as aa:bb:cc:dd:ee:ff is required (quote it in YAML) (got 1122334455)"),
])
def test_a_bad_chassis_mac_is_one_line_at_its_position_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str, why: str
) -> None:
    inv = _inventory(tmp_path, f", chassis_mac: {written}")
    line = next(i for i, t in enumerate((inv / "fabric.yaml").read_text().splitlines(), 1) if "chassis_mac" in t)
    col = (inv / "fabric.yaml").read_text().splitlines()[line - 1].index("chassis_mac") + 1  # the key
    with pytest.raises(SystemExit) as info:
        main(["validate", str(inv)])
    out, err = capsys.readouterr()
    assert info.value.code == 3 and out == ""
    assert err.splitlines()[0] == f"{inv / 'fabric.yaml'}:{line}:{col}: switches[leaf1].chassis_mac: {why}"
    assert "Traceback" not in err


_BYTES = st.lists(st.integers(0, 255), min_size=6, max_size=6)


@given(_BYTES, st.sampled_from([(":", 2), ("-", 2), (".", 4), ("-", 4), (".", 2), ("", 12)]), st.booleans())
def test_every_written_form_of_a_mac_normalises_to_one_colon_form(
    octets: list[int], form: tuple[str, int], upper: bool
) -> None:
    digits = "".join(f"{o:02x}" for o in octets)
    sep, width = form
    written = sep.join(digits[i : i + width] for i in range(0, 12, width))
    want = ":".join(f"{o:02x}" for o in octets)
    assert mac_address(written.upper() if upper else written) == want
    assert mac_address(f"  {written} ") == want


@given(st.text(max_size=20))
def test_anything_else_is_refused_as_a_mac(text: str) -> None:
    compact = text.strip().replace(":", "").replace("-", "").replace(".", "")
    looks_like = len(compact) == 12 and all(c in "0123456789abcdefABCDEF" for c in compact)
    if looks_like:
        return  # covered above (or a mixed form netutils refuses: either way no garbage gets through)
    with pytest.raises(ValueError, match="not a MAC address"):
        mac_address(text)


# ----------------------------------------------------------------- each platform's chassis ID, recorded shapes


def test_lldpcli_json0_show_chassis_as_lldpd_prints_it() -> None:
    """Recorded from lldpd 1.0.16 (``lldpcli -f json0 show chassis``): subtype ``mac``, then ``local`` after
    ``configure system chassisid``."""
    mac = json.loads((DATA / "lldpd/show_chassis_json0.json").read_text())
    assert parse_lldpcli_chassis(mac) == ChassisId("1c:34:da:5e:0f:02")
    local = json.loads((DATA / "lldpd/show_chassis_json0_local.json").read_text())
    assert parse_lldpcli_chassis(local) == ChassisId(
        "", "the chassis id is of subtype local ('leaf1-local-id'), not a MAC address")
    assert parse_lldpcli_chassis({}) == ChassisId("", "lldpd reported no local chassis id")


def test_eos_show_lldp_local_info() -> None:
    doc = json.loads((DATA / "eos/show_lldp_local_info.json").read_text())
    assert parse_eos_local_info(doc) == ChassisId("00:1c:73:a0:fc:18")
    assert parse_eos_local_info({**doc, "chassisIdType": "interfaceName", "chassisId": "Management1"}).detail == (
        "the chassis id is of subtype interfaceName ('Management1'), not a MAC address")
    assert parse_eos_local_info({"chassisId": "02-34-56-78-90-12"}) == ChassisId("02:34:56:78:90:12")
    assert parse_eos_local_info({"systemName": "leaf1"}).mac == ""


def test_junos_get_lldp_local_info() -> None:
    reply = ET.fromstring((DATA / "junos/get_lldp_local_info.xml").read_text())
    assert parse_junos_local_info(reply) == ChassisId("2c:6b:f5:3a:10:c0")
    assert parse_junos_local_info(reply.find("lldp-local-info")) == ChassisId("2c:6b:f5:3a:10:c0")
    local = ET.fromstring("<lldp-local-info><lldp-local-chassis-id-subtype>Locally assigned"
                          "</lldp-local-chassis-id-subtype><lldp-local-chassis-id>sw-7</lldp-local-chassis-id>"
                          "</lldp-local-info>")
    assert parse_junos_local_info(local).detail == (
        "the chassis id is of subtype Locally assigned ('sw-7'), not a MAC address")
    assert parse_junos_local_info(ET.fromstring("<lldp-local-info/>")).mac == ""


def test_nxos_show_sprom_backplane_base_mac() -> None:
    assert parse_nxos_sprom((DATA / "nxos/show_sprom_backplane_1.txt").read_text()) == ChassisId("00:fe:c8:a1:00:00")
    assert parse_nxos_sprom("% Invalid command at '^' marker.\n").detail == (
        "show sprom backplane 1 printed no 'MAC Addresses' line")


class _Shell:
    """A driver whose lowest-level call (``_run``) fails as lldpcli does without a running lldpd."""

    def _run(self, command: str) -> str:
        raise RuntimeError(f"`{command}` exited 1: [WARN/lldpctl] could not connect to socket /run/lldpd.socket")


def test_a_chassis_id_that_cannot_be_read_says_why_and_never_raises() -> None:
    got = read_chassis_id("frr", _Shell())
    assert got.mac == "" and got.detail.startswith("the LLDP agent did not answer (`lldpcli -f json0 show chassis`")
    assert read_chassis_id("dell", _Shell()) == ChassisId("", "fabricgen cannot read a chassis id on platform dell")


# ------------------------------------------------------------------------------------------ the rule


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Fabric:
    """lab-frr with leaf1's chassis MAC recorded, leaf2's serial and chassis MAC, leaf3 with nothing."""
    d = tmp_path_factory.mktemp("inv")
    text = (INVENTORIES / "lab-frr" / "fabric.yaml").read_text()
    leaf2 = "{name: leaf2, role: leaf, model: sn5600, platform: frr, id: 2, unit: 1"
    text = text.replace(LEAF1 + "}", LEAF1 + ", chassis_mac: 001c.73a0.fc18}").replace(
        leaf2 + "}", leaf2 + ", serial: MT2330X02, chassis_mac: 00:1c:73:a0:fc:28}")
    (d / "fabric.yaml").write_text(text)
    return load_fabric(d)


MAC1 = ChassisId("00:1c:73:a0:fc:18")


def test_a_recorded_chassis_mac_decides(recorded: Fabric) -> None:
    assert identity(recorded, "leaf1", {"hostname": "leaf1"}, MAC1) == (
        True, "identified as leaf1 by its chassis MAC 00:1c:73:a0:fc:18")
    assert check_identity(recorded, "leaf1", {"hostname": "leaf1"}, ChassisId("00:1c:73:a0:fc:28")) == (
        "the device at this address has chassis MAC 00:1c:73:a0:fc:28, the inventory says leaf1 has "
        "00:1c:73:a0:fc:18")
    # first provisioning: a factory hostname, the recorded chassis MAC
    assert identity(recorded, "leaf1", {"hostname": "sonic"}, MAC1)[0]
    assert check_identity(recorded, "leaf1", {"hostname": "leaf4"}, MAC1) == (
        "the device with leaf1's chassis MAC 00:1c:73:a0:fc:18 calls itself leaf4, another switch of this fabric")


def test_a_recorded_chassis_mac_refuses_a_chassis_id_it_cannot_read(recorded: Fabric) -> None:
    why = "the chassis id is of subtype local ('leaf1-local-id'), not a MAC address"
    assert check_identity(recorded, "leaf1", {"hostname": "leaf1"}, ChassisId("", why)) == (
        f"could not read the device's chassis id ({why}); the inventory records leaf1's chassis MAC "
        "00:1c:73:a0:fc:18, so the device is not taken for leaf1")
    assert check_identity(recorded, "leaf1", {"hostname": "leaf1"}).startswith(
        "could not read the device's chassis id (it was not read)")


def test_serial_and_chassis_mac_both_recorded_must_both_match(recorded: Fabric) -> None:
    mac2 = ChassisId("00:1c:73:a0:fc:28")
    assert identity(recorded, "leaf2", {"hostname": "localhost", "serial_number": "MT2330X02"}, mac2) == (
        True, "identified as leaf2 by its serial MT2330X02 and chassis MAC 00:1c:73:a0:fc:28")
    assert check_identity(recorded, "leaf2", {"hostname": "leaf2", "serial_number": "MT2330X99"}, mac2) == (
        "the device at this address has serial MT2330X99, the inventory says leaf2 has MT2330X02")
    assert check_identity(recorded, "leaf2", {"hostname": "leaf2", "serial_number": "MT2330X02"}, MAC1) == (
        "the device at this address has chassis MAC 00:1c:73:a0:fc:18, the inventory says leaf2 has "
        "00:1c:73:a0:fc:28")


def _as_cabled(fabric: Fabric, name: str) -> dict[str, list[dict[str, str]]]:
    """The LLDP neighbours ``name`` hears when it is cabled as the inventory says."""
    return {p.name: [{"hostname": p.peer_device or "", "port": p.peer_port or ""}]
            for p in fabric.switches[name].ports if p.peer_device in fabric.switches}


def test_lldp_neighbours_place_a_device_with_a_factory_hostname(recorded: Fabric) -> None:
    lldp = _as_cabled(recorded, "leaf3")
    ok, why = identity(recorded, "leaf3", {"hostname": "sonic"}, lldp=lldp)
    assert ok and why.startswith("identified as leaf3 although it calls itself sonic: its LLDP neighbours place it "
                                 "as leaf3: 4 of 4 cabled port(s) see their peer (swp33 → spine1:swp5, ")
    # a port that hears nothing neither proves nor disproves; one that hears its peer is enough
    first = next(iter(lldp))
    assert identity(recorded, "leaf3", {"hostname": "sonic"}, lldp={first: lldp[first]})[0]


def test_lldp_neighbours_refuse_a_device_cabled_as_another_switch(recorded: Fabric) -> None:
    as_leaf4 = _as_cabled(recorded, "leaf4")  # leaf4's hardware at leaf3's address: same ports, other peer ports
    got = check_identity(recorded, "leaf3", {"hostname": "sonic"}, lldp=as_leaf4)
    assert got.startswith("the device at this address is sonic (hostname), not leaf3, and its LLDP neighbours are "
                          "not leaf3's: swp33 sees spine1:swp7 (cabled: spine1:swp5)")
    assert got.endswith("; record its serial: or chassis_mac: in the inventory to configure a device that does "
                        "not carry its name yet")
    # one port as cabled, another not: refused (every neighbour on a cabled port must be the cabled peer)
    mixed = {**_as_cabled(recorded, "leaf3"), "swp35": as_leaf4["swp35"]}
    assert not identity(recorded, "leaf3", {"hostname": "sonic"}, lldp=mixed)[0]
    assert check_identity(recorded, "leaf3", {"hostname": "sonic"}, lldp={}) == (
        "the device at this address is sonic (hostname), not leaf3, and it hears no LLDP neighbour of leaf3 on any "
        "of its 4 cabled port(s); record its serial: or chassis_mac: in the inventory to configure a device that "
        "does not carry its name yet")


def test_lldp_never_overrides_a_hostname_naming_another_fabric_switch(recorded: Fabric) -> None:
    lldp = _as_cabled(recorded, "leaf3")
    assert check_identity(recorded, "leaf3", {"hostname": "leaf4"}, lldp=lldp) == (
        "the device at this address is leaf4 (hostname), not leaf3; record its serial: or chassis_mac: in the "
        "inventory to configure a device that does not carry its name yet")
    assert check_identity(recorded, "leaf3", {"hostname": "sonic"}).startswith(
        "the device at this address is sonic (hostname), not leaf3; ")  # neighbours not read: refused


def test_sonic_peers_advertising_port_aliases_match_by_alias(recorded: Fabric) -> None:
    ports = [p for p in recorded.switches["leaf3"].ports if p.peer_device in recorded.switches]
    aliases = {(p.peer_device or "", p.peer_port or ""): f"etp{i + 1}a" for i, p in enumerate(ports)}
    lldp = {p.name: [{"hostname": p.peer_device or "", "port": aliases[(p.peer_device or "", p.peer_port or "")]}]
            for p in ports}
    assert not identity(recorded, "leaf3", {"hostname": "sonic"}, lldp=lldp)[0]  # aliases unknown: not the peers
    assert identity(recorded, "leaf3", {"hostname": "sonic"}, lldp=lldp, aliases=aliases)[0]


def test_identify_device_reads_only_what_decides() -> None:
    """The chassis ID only with a chassis MAC recorded; the neighbours only when nothing else can decide."""
    from fabricgen.deploy.identity import identify_device

    fabric = load_fabric(INVENTORIES / "lab-frr")
    calls: list[str] = []

    class Driver:
        def __init__(self, hostname: str) -> None:
            self.hostname = hostname

        def get_facts(self) -> dict[str, Any]:
            calls.append("facts")
            return {"hostname": self.hostname, "serial_number": ""}

        def get_lldp_neighbors(self) -> dict[str, list[dict[str, str]]]:
            calls.append("lldp")
            return _as_cabled(fabric, "leaf1")

        def _run(self, command: str) -> str:
            calls.append(command)
            return "{}"

    assert identify_device(fabric, "leaf1", "frr", Driver("leaf1")) == (True, "identified as leaf1 by its hostname")
    assert calls == ["facts"]
    calls.clear()
    assert not identify_device(fabric, "leaf1", "frr", Driver("leaf2"))[0]
    assert calls == ["facts"]
    calls.clear()
    assert identify_device(fabric, "leaf1", "frr", Driver("localhost"))[0]
    assert calls == ["facts", "lldp"]


def test_docstring_examples_hold() -> None:
    import doctest

    from fabricgen.deploy import identity as module

    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted >= 10, result
