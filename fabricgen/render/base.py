"""Per-device base configuration: the inventory's ``base:`` section merged for one switch, in platform words.

``apply`` replaces a device's whole configuration, so what keeps the device reachable and administrable
(management address and default route, local users, API access, NTP, syslog, SNMP, banner) must be rendered
with the fabric configuration. The inventory writes it at three levels (see
:class:`fabricgen.inventory.schema.BaseSection`): ``base.defaults``, ``base.roles.<role>`` and the switch's own
``base:``, merged by :func:`fabricgen.topology.base.merged_base` (switch > role > defaults; ``mgmt`` and
``users`` key by key, lists replaced whole).

Secrets: a user's secret is a sha512-crypt hash, rendered as written (every platform takes it as already
hashed), or an ``env:NAME`` reference; an SNMP community is always a reference. A reference is rendered as
the placeholder :func:`placeholder` (``__FABRICGEN_ENV_<NAME>__``), never as its value: rendered files hold no
secret, and ``apply`` substitutes the environment's values in memory just before loading
(:mod:`fabricgen.deploy.secrets`).

Management VRF names are the platforms' own: ``MGMT`` (EOS, by convention), ``management`` (NX-OS, built
in), ``mgmt_junos`` (Junos ``system management-instance``), ``mgmt`` (SONiC and Cumulus/NVUE).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fabricgen.inventory.raw import TEXT_PLATFORMS, parse_structured, raw_lines, written_lines
from fabricgen.inventory.schema import Base
from fabricgen.topology.base import merged_base, raw_blocks

if TYPE_CHECKING:
    from fabricgen.topology.model import Fabric

PLACEHOLDER_PREFIX, PLACEHOLDER_SUFFIX = "__FABRICGEN_ENV_", "__"

MGMT_VRF = {"eos": "MGMT", "nxos": "management", "junos": "mgmt_junos", "sonic": "mgmt", "nvue": "mgmt"}
MGMT_INTERFACE = {"eos": "Management1", "nxos": "mgmt0", "junos": "re0:mgmt-0", "sonic": "eth0", "nvue": "eth0"}

# user role → the platform's role (EOS/NX-OS role, Junos login class, NVUE role)
_ROLES = {
    "eos": {"admin": "network-admin", "operator": "network-operator"},
    "nxos": {"admin": "network-admin", "operator": "network-operator"},
    "junos": {"admin": "super-user", "operator": "read-only"},
    "nvue": {"admin": "system-admin", "operator": "nvue-monitor"},
    "sonic": {"admin": "admin", "operator": "operator"},
}
_PRIVILEGE = {"admin": 15, "operator": 1}


def placeholder(ref: str) -> str:
    """What a secret reference renders as.

    >>> placeholder("env:SNMP_RO")
    '__FABRICGEN_ENV_SNMP_RO__'
    >>> placeholder("$6$salt$hash")
    '$6$salt$hash'
    """
    if ref.startswith("env:"):
        return f"{PLACEHOLDER_PREFIX}{ref[4:]}{PLACEHOLDER_SUFFIX}"
    return ref


@dataclass(frozen=True, slots=True)
class UserData:
    name: str
    role: str  # the platform's role / login class
    privilege: int  # EOS privilege level
    secret: str  # a sha512-crypt hash or a placeholder


@dataclass(frozen=True, slots=True)
class BaseData:
    """The merged base configuration of one switch, ready for its platform's template."""

    vrf: str  # the platform's management VRF
    mgmt_interface: str
    mgmt_address: str | None  # "192.0.2.11/24"
    mgmt_ip: str | None  # "192.0.2.11"
    mgmt_gateway: str | None
    users: tuple[UserData, ...]  # by name
    api: bool
    ntp: tuple[str, ...]
    syslog: tuple[str, ...]
    snmp_community: str | None  # a placeholder
    snmp_location: str | None
    banner: str | None


def build_base(fabric: Fabric, name: str, platform: str) -> BaseData | None:
    """Switch ``name``'s base configuration in ``platform``'s words; None on FRR (the host, not frr.conf,
    holds its management) or when the inventory has no base for it."""
    if platform not in MGMT_VRF:
        return None
    b = merged_base(fabric, name)
    if b == Base():
        return None
    roles = _ROLES[platform]
    users = tuple(
        UserData(user, roles[u.role], _PRIVILEGE[u.role], placeholder(u.secret))
        for user, u in sorted((b.users or {}).items())
    )
    mgmt = b.mgmt
    address = str(mgmt.address) if mgmt is not None and mgmt.address is not None else None
    return BaseData(
        vrf=MGMT_VRF[platform],
        mgmt_interface=MGMT_INTERFACE[platform],
        mgmt_address=address,
        mgmt_ip=address.split("/")[0] if address else None,
        mgmt_gateway=str(mgmt.gateway) if mgmt is not None and mgmt.gateway is not None else None,
        users=users,
        api=bool(b.api),
        ntp=tuple(str(a) for a in b.ntp or ()),
        syslog=tuple(str(a) for a in b.syslog or ()),
        snmp_community=placeholder(b.snmp.community) if b.snmp else None,
        snmp_location=b.snmp.location if b.snmp else None,
        banner=b.banner,
    )


@dataclass(frozen=True, slots=True)
class RawData:
    """A switch's raw blocks for its platform, merged (defaults, role, switch), ready for its renderer.

    ``lines``: on EOS, NX-OS, Junos and FRR the blocks' lines, verbatim and in order; on NVUE the merged
    mapping written as YAML (the renderer indents it under a ``- set:`` document of its own). ``doc``: the
    merged mapping on NVUE and SONiC (config_db tables)."""

    lines: tuple[str, ...]
    doc: dict[str, Any] | None = None
    written: int = 0  # the blocks' non-blank, non-comment lines, as written (the count FG-BASE-002 reports)


def _deep_merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    out = dict(low)
    for key, value in high.items():
        old = out.get(key)
        out[key] = _deep_merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return out


def yaml_lines(doc: dict[str, Any]) -> tuple[str, ...]:
    """``doc`` as block YAML (ruamel.yaml's safe writer, keys sorted), one line per item."""
    from ruamel.yaml import YAML

    def sort(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: sort(node[k]) for k in sorted(node)}
        if isinstance(node, list):
            return [sort(x) for x in node]
        return node

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(sort(doc), out)
    return tuple(out.getvalue().rstrip("\n").split("\n"))


def build_raw(fabric: Fabric, name: str, platform: str) -> RawData | None:
    """Switch ``name``'s raw configuration for ``platform`` (None without any block). The blocks were
    checked when the inventory was resolved (:func:`fabricgen.inventory.raw.raw_problems`)."""
    blocks = raw_blocks(fabric, name, platform)
    if not blocks:
        return None
    written = written_lines(platform, blocks)
    if platform in TEXT_PLATFORMS:
        lines = tuple(line for block in blocks for line in raw_lines(block))
        return RawData(lines, None, written) if lines else None
    doc: dict[str, Any] = {}
    for block in blocks:
        doc = _deep_merge(doc, parse_structured(block))
    return RawData(yaml_lines(doc) if platform == "nvue" else (), doc, written)
