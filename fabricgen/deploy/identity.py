"""Who is the device at this address? Checked before anything is loaded anywhere.

Evidence, strongest first, each only when the inventory gives something to compare it with:

* ``serial:`` — NAPALM ``get_facts`` ``serial_number``;
* ``chassis_mac:`` — the chassis ID the device's own LLDP agent advertises, when its subtype is a MAC address
  (:func:`read_chassis_id`, per platform, with the driver's lowest-level call);
* the hostname (``get_facts``) — the inventory's name;
* without a recorded serial or chassis MAC and with a hostname that is not the inventory's (a factory name such
  as ``sonic``), the device's LLDP neighbours (:func:`lldp_evidence`): at least one cabled peer is seen, and
  every neighbour seen on a cabled port is that port's peer and peer port (matched as ``verify`` matches LLDP,
  SONiC aliases included).

A recorded serial or chassis MAC that does not match, or a chassis ID that cannot be read while one is recorded,
is ``wrong-device``: fabricgen refuses rather than assumes. A device that calls itself *another* switch of the
fabric is refused whatever else matches.

Where each platform's own chassis ID comes from:

================  ===========================================================================================
frr, nvue         ``lldpcli -f json0 show chassis`` (lldpd; keys checked against lldpd 1.0.16 in a namespace:
                  ``local-chassis[0].chassis[0].id[0].{type,value}``, ``type`` ``mac`` for a MAC address)
sonic             ``sudo docker exec lldp lldpcli -f json0 show chassis`` (lldpd in SONiC's ``lldp`` container,
                  as sonic-mgmt's test plans run ``docker exec lldp lldpcli show chassis``)
eos               eAPI ``show lldp local-info``: ``chassisIdType`` / ``chassisId`` (``macAddress``,
                  ``001c.73a0.fc18`` — the field names and values EOS uses for chassis IDs in ``show lldp
                  neighbors detail``, as ANTA's VerifyLLDPNeighbors test data records them; ``chassisId`` and
                  ``systemName`` of ``local-info`` as networking-arista's eAPI test double and pyeapi users read it)
junos             RPC ``get-lldp-local-info``: ``lldp-local-chassis-id`` (Juniper, "show lldp
                  local-information": "Chassis ID — MAC address associated with the switch"); a
                  ``lldp-local-chassis-id-subtype`` naming another subtype is refused
nxos (nxos_ssh)   ``show sprom backplane 1``: ``MAC Addresses : 50-00-00-02-00-00`` — the chassis *base* MAC
                  (a Nexus 9000v primer, "Know your Chassis"; the NOC project's Cisco.NXOS.get_chassis_id). No
                  stored source documents an NX-OS command that prints the LLDP agent's own chassis ID, nor that
                  NX-OS advertises the base MAC as it: on NX-OS ``chassis_mac:`` is compared with this chassis
                  base MAC, so record the sprom value there.
================  ===========================================================================================
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from fabricgen.deploy.verify import check_lldp, normalize_host
from fabricgen.inventory.schema import mac_address
from fabricgen.topology.model import Fabric


@dataclass(frozen=True)
class ChassisId:
    """The device's own chassis ID: ``mac`` (lower-case colon form) when it is a MAC address, else ``""`` and
    ``detail`` says what was read instead (another subtype, no answer)."""

    mac: str
    detail: str = ""

    @classmethod
    def unreadable(cls, why: str) -> ChassisId:
        return cls("", why)


def _mac_or_none(value: str) -> str | None:
    try:
        return mac_address(value)
    except ValueError:
        return None


def _subtype_mac(subtype: str, value: str, mac_subtypes: tuple[str, ...]) -> ChassisId:
    if subtype.strip().lower() not in mac_subtypes:
        return ChassisId.unreadable(f"the chassis id is of subtype {subtype or '(none)'} ({value!r}), not a MAC "
                                    "address")
    mac = _mac_or_none(value)
    if mac is None:
        return ChassisId.unreadable(f"the chassis id {value!r} of subtype {subtype} is not a MAC address")
    return ChassisId(mac)


# ------------------------------------------------------------------------------------------------ parsers


def parse_lldpcli_chassis(data: dict[str, Any]) -> ChassisId:
    """``lldpcli -f json0 show chassis`` → the local chassis ID (only subtype ``mac`` is a MAC).

    >>> doc = {"local-chassis": [{"chassis": [{"id": [{"type": "mac", "value": "46:AD:5C:90:5E:32"}]}]}]}
    >>> parse_lldpcli_chassis(doc)
    ChassisId(mac='46:ad:5c:90:5e:32', detail='')
    >>> doc["local-chassis"][0]["chassis"][0]["id"] = [{"type": "local", "value": "my-box-1"}]
    >>> parse_lldpcli_chassis(doc).detail
    "the chassis id is of subtype local ('my-box-1'), not a MAC address"
    """
    for local in data.get("local-chassis") or []:
        for chassis in local.get("chassis") or []:
            for ident in chassis.get("id") or []:
                return _subtype_mac(str(ident.get("type", "")), str(ident.get("value", "")), ("mac",))
    return ChassisId.unreadable("lldpd reported no local chassis id")


def parse_eos_local_info(data: dict[str, Any]) -> ChassisId:
    """eAPI ``show lldp local-info`` (JSON) → the local chassis ID (only ``macAddress`` is a MAC).

    >>> parse_eos_local_info({"chassisIdType": "macAddress", "chassisId": "001c.73a0.fc18", "systemName": "leaf1"})
    ChassisId(mac='00:1c:73:a0:fc:18', detail='')
    """
    if "chassisId" not in data:
        return ChassisId.unreadable("show lldp local-info reported no chassisId")
    value = str(data["chassisId"])
    if "chassisIdType" in data:
        return _subtype_mac(str(data["chassisIdType"]), value, ("macaddress",))
    mac = _mac_or_none(value)  # networking-arista's recorded form carries chassisId alone
    return ChassisId(mac) if mac else ChassisId.unreadable(f"the chassis id {value!r} is not a MAC address")


def parse_junos_local_info(reply: Any) -> ChassisId:
    """The ``get-lldp-local-info`` reply (an XML element) → the local chassis ID.

    >>> import xml.etree.ElementTree as ET
    >>> parse_junos_local_info(ET.fromstring("<lldp-local-info><lldp-local-chassis-id>2c:6b:f5:00:00:01"
    ...                                      "</lldp-local-chassis-id></lldp-local-info>"))
    ChassisId(mac='2c:6b:f5:00:00:01', detail='')
    """
    def text(tag: str) -> str:
        found = reply.find(f".//{tag}") if reply.tag != tag else reply
        return (found.text or "").strip() if found is not None else ""

    value = text("lldp-local-chassis-id")
    if not value:
        return ChassisId.unreadable("get-lldp-local-info reported no lldp-local-chassis-id")
    subtype = text("lldp-local-chassis-id-subtype")
    if subtype:
        return _subtype_mac(subtype, value, ("mac address", "mac-address", "macaddress", "4"))
    mac = _mac_or_none(value)
    return ChassisId(mac) if mac else ChassisId.unreadable(f"the chassis id {value!r} is not a MAC address")


def parse_nxos_sprom(text: str) -> ChassisId:
    """``show sprom backplane 1`` → the chassis base MAC (``MAC Addresses : 50-00-00-02-00-00``).

    >>> parse_nxos_sprom(" Stackmib OID    : 0\\n MAC Addresses   : 50-00-00-02-00-00\\n Number of MACs  : 128\\n")
    ChassisId(mac='50:00:00:02:00:00', detail='')
    """
    m = re.search(r"^\s*MAC Addresses\s*:\s*(\S+)\s*$", text, re.MULTILINE)
    if m is None:
        return ChassisId.unreadable("show sprom backplane 1 printed no 'MAC Addresses' line")
    mac = _mac_or_none(m.group(1))
    return ChassisId(mac) if mac else ChassisId.unreadable(f"the chassis base MAC {m.group(1)!r} is not a MAC address")


LLDPCLI_CHASSIS = {
    "frr": "lldpcli -f json0 show chassis",
    "nvue": "lldpcli -f json0 show chassis",
    "sonic": "sudo docker exec lldp lldpcli -f json0 show chassis",
}
"""Platform → the command fabricgen's own SSH drivers run (their ``_run``) for the LLDP agent's chassis ID."""


def read_chassis_id(platform: str, driver: Any) -> ChassisId:
    """The device's own chassis ID, read with the driver's lowest-level call; never raises (what could not be
    read is said in ``detail``)."""
    try:
        if platform in LLDPCLI_CHASSIS:
            return parse_lldpcli_chassis(json.loads(driver._run(LLDPCLI_CHASSIS[platform]) or "{}"))
        if platform == "eos":
            return parse_eos_local_info(driver._run_commands(["show lldp local-info"])[0])
        if platform == "junos":
            return parse_junos_local_info(driver.device.rpc.get_lldp_local_info())
        if platform == "nxos":
            return parse_nxos_sprom(driver._send_command("show sprom backplane 1"))
    except Exception as exc:  # LLDP disabled, lldpd not running, an RPC error: not readable, said so
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return ChassisId.unreadable(f"the LLDP agent did not answer ({first[:200]})")
    return ChassisId.unreadable(f"fabricgen cannot read a chassis id on platform {platform}")


# ------------------------------------------------------------------------------------------------ the rule


def lldp_evidence(
    fabric: Fabric, name: str, lldp: dict[str, list[dict[str, str]]],
    aliases: dict[tuple[str, str], str] | None = None,
) -> tuple[bool, str]:
    """Do the device's LLDP neighbours place it as ``name``? (verdict, the evidence in words).

    Every cabled switch port of ``name`` is checked as ``verify`` checks LLDP
    (:func:`fabricgen.deploy.verify.check_lldp`): yes when at least one port sees its cabled peer and peer port
    and no port sees anything else; a port that hears nothing neither proves nor disproves."""
    checks = check_lldp(fabric, name, set(fabric.switches), lldp, aliases)
    seen = [c for c in checks if c.ok]
    wrong = [c for c in checks if not c.ok and c.detail.startswith("sees ")]
    if wrong:
        return False, "its LLDP neighbours are not " + name + "'s: " + "; ".join(
            f"{c.subject.split(' → ')[0]} {c.detail} (cabled: {c.subject.split(' → ')[1]})" for c in wrong[:4])
    if not seen:
        return False, f"it hears no LLDP neighbour of {name} on any of its {len(checks)} cabled port(s)"
    return True, (f"its LLDP neighbours place it as {name}: {len(seen)} of {len(checks)} cabled port(s) see "
                  f"their peer ({', '.join(c.subject for c in seen[:3])}{', …' if len(seen) > 3 else ''})")


def check_identity(
    fabric: Fabric, name: str, facts: dict[str, Any], chassis: ChassisId | None = None,
    lldp: dict[str, list[dict[str, str]]] | None = None, aliases: dict[tuple[str, str], str] | None = None,
) -> str:
    """Why the device answering for ``name`` is not ``name`` ("" when it is); :func:`identity` says why it is.

    >>> from types import SimpleNamespace as N
    >>> f = N(switches={"spine1": N(serial="", chassis_mac=""), "spine2": N(serial="X2", chassis_mac="")})
    >>> check_identity(f, "spine1", {"hostname": "spine2.dc1", "serial_number": "X1"}).split(";")[0]
    'the device at this address is spine2.dc1 (hostname), not spine1'
    >>> check_identity(f, "spine1", {"hostname": "Spine1", "serial_number": "X1"})
    ''
    >>> check_identity(f, "spine2", {"hostname": "sonic", "serial_number": "x2"})
    ''
    >>> g = N(switches={"leaf1": N(serial="", chassis_mac="00:1c:73:a0:fc:18")})
    >>> check_identity(g, "leaf1", {"hostname": "leaf1"}, ChassisId("00:1c:73:a0:fc:19"))
    'the device at this address has chassis MAC 00:1c:73:a0:fc:19, the inventory says leaf1 has 00:1c:73:a0:fc:18'
    """
    ok, why = identity(fabric, name, facts, chassis, lldp, aliases)
    return "" if ok else why


def identity(
    fabric: Fabric, name: str, facts: dict[str, Any], chassis: ChassisId | None = None,
    lldp: dict[str, list[dict[str, str]]] | None = None, aliases: dict[tuple[str, str], str] | None = None,
) -> tuple[bool, str]:
    """(is the device ``name``, the evidence that decided, in words).

    A recorded ``serial:`` must match; a recorded ``chassis_mac:`` must match ``chassis`` (a chassis ID that
    could not be read, or was not read, refuses); either one matching lets a device with a factory hostname
    be ``name`` unless it calls itself another switch of the fabric. With neither recorded: the hostname
    ``name``, or — for a hostname that names no switch of the fabric — the LLDP neighbours ``lldp``
    (:func:`lldp_evidence`; not read: refused)."""
    sw = fabric.switches[name]
    host = str(facts.get("hostname") or facts.get("fqdn") or "")
    other = next((n for n in fabric.switches if n != name and normalize_host(n) == normalize_host(host)), None)
    proofs = []
    if sw.serial:
        got = str(facts.get("serial_number") or "")
        if got.strip().lower() != sw.serial.lower():
            return False, (f"the device at this address has serial {got or '(none reported)'}, the inventory says "
                           f"{name} has {sw.serial}")
        proofs.append(f"serial {sw.serial}")
    if sw.chassis_mac:
        if chassis is None or not chassis.mac:
            why = chassis.detail if chassis is not None else "it was not read"
            return False, (f"could not read the device's chassis id ({why}); the inventory records {name}'s "
                           f"chassis MAC {sw.chassis_mac}, so the device is not taken for {name}")
        if chassis.mac != sw.chassis_mac:
            return False, (f"the device at this address has chassis MAC {chassis.mac}, the inventory says {name} "
                           f"has {sw.chassis_mac}")
        proofs.append(f"chassis MAC {sw.chassis_mac}")
    if proofs:
        if other is not None:
            return False, f"the device with {name}'s {' and '.join(proofs)} calls itself {other}, another switch " \
                          "of this fabric"
        return True, f"identified as {name} by its {' and '.join(proofs)}"
    if normalize_host(host) == normalize_host(name):
        return True, by_hostname(name)
    hint = "record its serial: or chassis_mac: in the inventory to configure a device that does not carry its " \
           "name yet"
    if other is not None or lldp is None:
        return False, f"the device at this address is {host or '(no hostname)'} (hostname), not {name}; {hint}"
    placed, evidence = lldp_evidence(fabric, name, lldp, aliases)
    if not placed:
        return False, f"the device at this address is {host or '(no hostname)'} (hostname), not {name}, and " \
                      f"{evidence}; {hint}"
    return True, f"identified as {name} although it calls itself {host or '(no hostname)'}: {evidence}"


def by_hostname(name: str) -> str:
    """The evidence of a device identified as ``name`` by its hostname alone (the usual case, left out of the
    apply report)."""
    return f"identified as {name} by its hostname"


def needs_lldp(fabric: Fabric, name: str, facts: dict[str, Any]) -> bool:
    """Whether only the LLDP neighbours can still say who the device is: nothing recorded to compare, and a
    hostname that is neither ``name`` nor another switch of the fabric."""
    sw = fabric.switches[name]
    host = normalize_host(str(facts.get("hostname") or facts.get("fqdn") or ""))
    return not sw.serial and not sw.chassis_mac and host != normalize_host(name) and not any(
        normalize_host(n) == host for n in fabric.switches)


def identify_device(
    fabric: Fabric, name: str, platform: str, driver: Any, aliases: dict[tuple[str, str], str] | None = None,
) -> tuple[bool, str]:
    """Read what :func:`identity` needs from an open driver (facts; the chassis ID only when a chassis MAC is
    recorded; the LLDP neighbours only when nothing else can decide) and judge."""
    ok, why, _host = identify_device_named(fabric, name, platform, driver, aliases)
    return ok, why


def identify_device_named(
    fabric: Fabric, name: str, platform: str, driver: Any, aliases: dict[tuple[str, str], str] | None = None,
) -> tuple[bool, str, str]:
    """:func:`identify_device`, and the hostname the device answered with (what its LLDP agent advertises to
    its neighbours: the name they see it by until it is configured)."""
    facts = driver.get_facts()
    chassis = read_chassis_id(platform, driver) if fabric.switches[name].chassis_mac else None
    lldp = driver.get_lldp_neighbors() if needs_lldp(fabric, name, facts) else None
    ok, why = identity(fabric, name, facts, chassis, lldp, aliases)
    return ok, why, str(facts.get("hostname") or facts.get("fqdn") or "")
