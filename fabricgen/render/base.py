"""Per-device base configuration: the inventory's ``base:`` section merged for one switch, in platform words.

``apply`` replaces a device's whole configuration, so what keeps the device reachable and administrable
(management address and default route, local users, remote login through TACACS+/RADIUS, API access, NTP,
syslog, SNMP, banner) must be rendered
with the fabric configuration. The inventory writes it at three levels (see
:class:`fabricgen.inventory.schema.BaseSection`): ``base.defaults``, ``base.roles.<role>`` and the switch's own
``base:``, merged by :func:`fabricgen.topology.base.merged_base` (switch > role > defaults; ``mgmt`` and
``users`` key by key, lists replaced whole).

Secrets: a user's secret is a sha512-crypt hash, rendered as written (every platform takes it as already
hashed), or an ``env:NAME`` reference; an SNMP community and a TACACS+/RADIUS shared key are always
references. A reference is rendered as
the placeholder :func:`placeholder` (``__FABRICGEN_ENV_<NAME>__``), never as its value: rendered files hold no
secret, and ``apply`` substitutes the environment's values in memory just before loading
(:mod:`fabricgen.deploy.secrets`).

Management VRF names are the platforms' own: ``MGMT`` (EOS, by convention), ``management`` (NX-OS, built
in), ``mgmt_junos`` (Junos ``system management-instance``), ``mgmt`` (SONiC and Cumulus/NVUE). They are not
configurable: each is the name the platform's own management plane expects.

AAA: the servers are reached in the management VRF, from the management interface; ``aaa.order`` (default:
the methods with servers, then ``local``) is the login authentication order, and always ends up naming
``local`` so the local users log in when no server answers. ``aaa.authorization.commands`` (TACACS+, then
always ``local``) sends every command to the TACACS+ servers first; ``aaa.accounting`` sends a record of
every session and command to the servers named. Both are rendered only for methods that have servers, and
only where the platform (and release) has the statement: FG-BASE-004 and FG-BASE-005 name what is left out.
FRR (a Linux host) renders no base at all.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
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

# login method → the platform's word in its authentication method list (None: the platform has no word for it;
# NX-OS falls back to the local users by default after its server groups, `aaa authentication login default
# fallback error local`)
_METHODS: dict[str, dict[str, str | None]] = {
    "eos": {"tacacs": "group tacacs+", "radius": "group radius", "local": "local"},
    "nxos": {"tacacs": "TACACS", "radius": "RADIUS", "local": None},
    "junos": {"tacacs": "tacplus", "radius": "radius", "local": "password"},
    "nvue": {"tacacs": "tacacs", "radius": "radius", "local": "local"},
    "sonic": {"tacacs": "tacacs+", "radius": "radius", "local": "local"},
}


# command authorization and accounting methods → the platform's words (None: not rendered on that platform;
# FG-BASE-005 says so). NX-OS names its server groups (`aaa group server tacacs+ TACACS`), Junos its
# accounting destinations (`system accounting destination tacplus|radius`), SONiC the AAA table's methods.
_AUTHZ_WORDS: dict[str, dict[str, str]] = {
    "eos": {"tacacs": "group tacacs+", "local": "local"},
    "nxos": {"tacacs": "group TACACS", "local": "local"},
    "junos": {"tacacs": "tacplus", "local": "local"},
    "nvue": {"tacacs": "tacacs", "local": "local"},
    "sonic": {"tacacs": "tacacs+", "local": "local"},
}
_ACCT_WORDS: dict[str, dict[str, str | None]] = {
    "eos": {"tacacs": "group tacacs+", "radius": "group radius"},
    "nxos": {"tacacs": "TACACS", "radius": "RADIUS"},
    "junos": {"tacacs": "tacplus", "radius": "radius"},
    "nvue": {"tacacs": "tacacs", "radius": "radius"},
    "sonic": {"tacacs": "tacacs+", "radius": None},  # hostcfgd accounts to TACACS+ or syslog only
}


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
class AaaServerData:
    address: str
    port: int  # the protocol's default when the inventory leaves it unset
    key: str  # a placeholder
    priority: int  # 1 = tried first (the order written)
    rank: int = 0  # the same order where the highest number is tried first (n … 1)


TACACS_PORT, RADIUS_PORT = 49, 1812


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
    tacacs: tuple[AaaServerData, ...] = ()
    radius: tuple[AaaServerData, ...] = ()
    aaa_order: tuple[str, ...] = ()  # "tacacs" / "radius" / "local", only methods with servers; empty: no AAA
    login_methods: tuple[str, ...] = ()  # aaa_order in the platform's words ("group tacacs+", "tacplus", …)
    command_authorization: tuple[str, ...] = ()  # ("tacacs", "local") or (): no TACACS+ server or not asked
    authz_methods: tuple[str, ...] = ()  # command_authorization in the platform's words
    accounting: tuple[str, ...] = ()  # "tacacs" / "radius", those with servers, in the order written
    acct_methods: tuple[str, ...] = ()  # accounting in the platform's words (methods it cannot send to left out)
    remote_template: bool = False  # Junos: the `remote` template user exists (no local user is named remote)

    @property
    def remote_aaa(self) -> bool:
        """Whether any login goes to a TACACS+ or RADIUS server."""
        return bool(self.tacacs or self.radius)


def aaa_order(order: Sequence[str] | None, tacacs: bool, radius: bool) -> tuple[str, ...]:
    """The login methods in the order tried: the inventory's ``order`` (methods without servers dropped), or
    the configured protocols then ``local``; empty when no server is configured.

    >>> aaa_order(None, True, True)
    ('tacacs', 'radius', 'local')
    >>> aaa_order(["radius", "local", "tacacs"], True, False)
    ('local', 'tacacs')
    >>> aaa_order(["tacacs", "local"], False, False)
    ()
    """
    have = {"tacacs": tacacs, "radius": radius, "local": True}
    if not (tacacs or radius):
        return ()
    wanted = order if order is not None else ["tacacs", "radius", "local"]
    return tuple(m for m in wanted if have[m])


def command_authorization(commands: Sequence[str] | None, tacacs: bool) -> tuple[str, ...]:
    """The command authorization methods rendered: TACACS+ then ``local``, or nothing when TACACS+ is not asked
    for or has no server (``local`` alone is every platform's default).

    >>> command_authorization(["tacacs", "local"], True), command_authorization(["tacacs", "local"], False)
    (('tacacs', 'local'), ())
    >>> command_authorization(["local"], True)
    ()
    """
    if not commands or "tacacs" not in commands or not tacacs:
        return ()
    return tuple(commands)


def accounting(methods: Sequence[str] | None, tacacs: bool, radius: bool) -> tuple[str, ...]:
    """The accounting methods rendered: those written that have servers, in the order written.

    >>> accounting(["radius", "tacacs"], True, True), accounting(["radius", "tacacs"], True, False)
    (('radius', 'tacacs'), ('tacacs',))
    """
    have = {"tacacs": tacacs, "radius": radius}
    return tuple(m for m in methods or () if have[m])


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
    aaa = b.aaa
    tacacs_in = (aaa.tacacs or []) if aaa else []
    radius_in = (aaa.radius or []) if aaa else []
    tacacs = tuple(AaaServerData(str(s.address), s.port or TACACS_PORT, placeholder(s.key), i, len(tacacs_in) - i + 1)
                   for i, s in enumerate(tacacs_in, 1))
    radius = tuple(AaaServerData(str(s.address), s.port or RADIUS_PORT, placeholder(s.key), i, len(radius_in) - i + 1)
                   for i, s in enumerate(radius_in, 1))
    order = aaa_order(aaa.order if aaa else None, bool(tacacs), bool(radius))
    words = _METHODS[platform]
    authz = command_authorization(aaa.authorization.commands if aaa and aaa.authorization else None,
                                  bool(tacacs))
    acct = accounting(aaa.accounting if aaa else None, bool(tacacs), bool(radius))
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
        tacacs=tacacs,
        radius=radius,
        aaa_order=order,
        login_methods=tuple(w for w in (words[m] for m in order) if w is not None),
        command_authorization=authz,
        authz_methods=tuple(_AUTHZ_WORDS[platform][m] for m in authz),
        accounting=acct,
        acct_methods=tuple(w for w in (_ACCT_WORDS[platform][m] for m in acct) if w is not None),
        remote_template=platform == "junos" and bool(authz) and "remote" not in (b.users or {}),
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
