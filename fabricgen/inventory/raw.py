"""Raw configuration blocks: the trust rules for what fabricgen does not model.

A ``raw:`` entry of a ``base:`` level maps a platform to a block of that platform's own configuration, which
``render`` inserts after the configuration fabricgen generates (see README, "Raw configuration"). The text
arrives in a pull request like the rest of the inventory, so it is untrusted, and :func:`check_raw` refuses
a block unless all of the following hold:

* **text** — printable ASCII and newlines only (no tab, CR, NUL, escape or non-ASCII character), at most
  :data:`MAX_RAW_BYTES` bytes, no template syntax (``{{``, ``{%``, ``{#``): a block is inserted verbatim,
  never rendered as a template, and the refusal keeps a reviewer from believing otherwise;
* **no secret** — no line carries a password, secret, key or community word (:data:`SECRET_WORDS`), a crypt
  hash, or a ``__FABRICGEN_ENV_…__`` placeholder (``apply`` would resolve it and so copy a secret into any
  place the block chooses): secrets come only through ``base:`` and its ``env:NAME`` references;
* **not owned** — no line touches what fabricgen renders itself (interfaces, BGP, QoS/PFC/ECN/buffers, the
  management interface, VRF, users, API, time, logging hosts, SNMP, banner), so a block cannot override the
  validated lossless policy or cut the management access ``apply`` runs over. How "owned" is decided is a
  per-platform rule, below;
* **syntax** — the block has the shape its platform's configuration has, below.

Per platform (owned sections / syntax):

* ``eos``, ``nxos``: every line's command, after a leading ``no`` or ``default``, is compared with
  :data:`OWNED_CLI` word by word (a word may be an abbreviation: ``int et1`` is ``interface Ethernet1``);
  a match at any depth is refused, since the CLI enters a mode by its command, not by its indentation.
  Syntax: indentation blocks — spaces only, a multiple of 3 (EOS, as ``show running-config`` prints it)
  or 2 (NX-OS), the first line at the top level and every indented line exactly one level below a head;
  ``end``, ``banner``, ``comment`` and ``EOF`` (which end the configuration or open a multi-line text
  mode that would swallow what follows) are refused;
* ``frr``: the vtysh node of each line (``router bgp``, ``interface``, ``line vty``, ``hostname``, ``log``,
  ``frr``, ``service integrated-vtysh-config``, ``end``) is owned; indentation as EOS's with one space
  a level; ``vtysh --dryrun`` (tests) checks the commands;
* ``junos``: only ``set`` lines; the statement path may not start with an owned prefix
  (:data:`JUNOS_OWNED`), and must match a row of :data:`JUNOS_STATEMENTS` (refused otherwise);
* ``nvue``: a YAML mapping of NVUE's object tree (``system: {timezone: …}``), no anchors, aliases or tags;
  owned object paths (:data:`NVUE_OWNED`) are refused; rendered as a second ``- set:`` document of
  startup.yaml, which NVUE merges into the first, and validated with NVIDIA's schema of the release by
  ``validate`` (FG-BASE-006, :mod:`fabricgen.checks.rawschema`) and ``render --check``;
* ``sonic``: a YAML or JSON mapping of config_db tables (``TABLE: {key: {field: "value"}}``), values
  strings; owned tables (:data:`SONIC_OWNED`) are refused; merged into config_db.json and validated with
  SONiC's YANG models by ``validate`` (FG-BASE-006) and ``render --check``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from fabricgen.errors import Problem, SourcePos

if TYPE_CHECKING:
    from fabricgen.inventory.load import LoadedInventory

MAX_RAW_BYTES = 64 * 1024
"""The largest raw block, per platform and level."""

RawPlatform = Literal["eos", "nxos", "junos", "nvue", "sonic", "frr"]
RAW_PLATFORMS: tuple[str, ...] = ("eos", "nxos", "junos", "nvue", "sonic", "frr")
TEXT_PLATFORMS = ("eos", "nxos", "junos", "frr")
"""Platforms whose raw block is configuration text, inserted line by line; nvue and sonic take a mapping."""

SECRET_WORDS = frozenset({
    "secret", "password", "passwd", "passkey", "passphrase", "community", "key", "key-string",
    "authentication-key", "encrypted-password", "hashed-password", "plain-text-password", "pre-shared-key",
    "shared-secret", "psk", "md5", "sha512",
})
"""A line with one of these words (any case) carries a secret: ``username x secret …``, ``snmp-server
community …``, ``tacacs-server host … key …``, Junos ``encrypted-password`` / ``authentication-key``,
NVUE ``password`` / ``hashed-password``, SONiC ``passkey``."""

_HASH = re.compile(r"\$(?:1|2[aby]?|5|6|7|8|9|y)\$")  # crypt(3) hashes, Junos $9$, Cisco type-8/9 markers
_PLACEHOLDER = "__FABRICGEN_ENV_"
_TEMPLATE = re.compile(r"\{[{%#]")
_WORD_SPLIT = re.compile(r"[\s:=\"',{}\[\]()]+")


@dataclass(frozen=True, slots=True)
class RawIssue:
    """One problem of a raw block: the line (0-based, in the block), the column (0-based) and the message."""

    line: int
    col: int
    message: str


def _shown(line: str, limit: int = 60) -> str:
    text = line.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _secret_issue(line: str) -> str | None:
    """Why ``line`` carries a secret, naming the keyword only (never the value), or None."""
    if _PLACEHOLDER in line:
        return "a secret placeholder (__FABRICGEN_ENV_…) is not allowed in a raw block; secrets go in base:"
    words = [w for w in _WORD_SPLIT.split(line.lower()) if w]
    for word in words:
        if word in SECRET_WORDS:
            return (f"the line carries a secret ({word!r}): secrets are not accepted in a raw block; put them in "
                    "base: as env:NAME references")
    if _HASH.search(line):
        return "the line carries a password hash: secrets are not accepted in a raw block; put them in base:"
    return None


# --------------------------------------------------------------------------- owned sections, per platform

OWNED_CLI: dict[str, tuple[tuple[str, ...], ...]] = {
    # Arista EOS: what fabricgen's eos/startup-config.j2 and eos/base.j2 render, and what decides the
    # lossless policy (qos, priority-flow-control, platform/hardware buffer settings) or management access.
    "eos": (
        ("hostname",), ("service", "routing"), ("ip", "routing"), ("lldp",), ("ip", "load-sharing"), ("qos",),
        ("priority-flow-control",), ("platform",), ("hardware",), ("interface", "ethernet"),
        ("interface", "loopback"), ("interface", "management"), ("router", "bgp"), ("vrf", "instance", "mgmt"),
        ("ip", "route", "vrf", "mgmt"), ("username",), ("aaa",), ("enable",), ("role",), ("ntp",),
        ("logging", "host"), ("logging", "vrf"), ("snmp-server",), ("management",), ("banner",), ("comment",),
        ("end",), ("eof",), ("tacacs-server",), ("radius-server",), ("ip", "tacacs"), ("ip", "radius"),
    ),
    # Cisco NX-OS: nxos/startup-config.j2 and nxos/base.j2.
    "nxos": (
        ("hostname",), ("feature", "bgp"), ("feature", "lldp"), ("feature", "ssh"), ("feature", "nxapi"),
        ("nxapi",), ("ip", "load-sharing"), ("interface", "breakout"), ("class-map",), ("policy-map",),
        ("system", "qos"), ("qos",), ("priority-flow-control",), ("hardware",), ("interface", "ethernet"),
        ("interface", "loopback"), ("interface", "mgmt"), ("router", "bgp"), ("vrf", "context", "management"),
        ("username",), ("aaa",), ("role",), ("ssh",), ("ntp",), ("logging", "server"), ("snmp-server",),
        ("banner",), ("end",), ("lldp",), ("feature", "tacacs+"), ("tacacs-server",), ("radius-server",),
    ),
    # FRR (frr.conf): frr/frr.conf.j2 — every interface (FRR names are the kernel's), BGP, vty access.
    "frr": (
        ("frr",), ("hostname",), ("log",), ("service", "integrated-vtysh-config"), ("interface",),
        ("router", "bgp"), ("line", "vty"), ("end",),
    ),
}
"""Per text platform: the command words a line may not start with (lower case; a written word that is a
prefix of the owned word matches, as the CLI accepts abbreviations)."""

JUNOS_OWNED: tuple[tuple[str, ...], ...] = (
    ("system", "host-name"), ("system", "login"), ("system", "services"), ("system", "management-instance"),
    ("system", "ntp"), ("system", "syslog", "host"), ("system", "root-authentication"), ("snmp",),
    ("interfaces",), ("routing-instances", "mgmt_junos"), ("routing-options",), ("protocols", "bgp"),
    ("protocols", "lldp"), ("policy-options",), ("forwarding-options",), ("class-of-service",), ("chassis",),
    ("system", "tacplus-server"), ("system", "radius-server"), ("system", "authentication-order"),
    ("system", "accounting"), ("system", "tacplus-options"), ("system", "radius-options"),
)
"""Junos statement paths fabricgen renders (junos/config.set.j2, junos/base.j2) or that decide the fabric's
forwarding, buffers or management access."""

# Junos statements a raw block may carry: pattern words, with slots <name> <ip> <prefix> <int> <level>
# <facility> <proto> <port> <tz>. Sources: Junos CLI Reference (juniper.net/documentation/us/en/software/
# junos/cli-reference): "time-zone", "domain-name (System)", "name-server (System Services)",
# "file (System Logging)" (file filename { facility severity; archive { files number; } }),
# "ports (System)", and "term (Firewall Filter)", "from (Firewall Filter)", "then (Firewall Filter)" of
# [edit firewall family inet filter filter-name].
JUNOS_STATEMENTS: tuple[str, ...] = (
    "system time-zone <tz>",
    "system domain-name <name>",
    "system name-server <ip>",
    "system syslog file <name> <facility> <level>",
    "system syslog file <name> archive files <int>",
    "system ports console log-out-on-disconnect",
    "firewall family inet filter <name> term <name> from source-address <prefix>",
    "firewall family inet filter <name> term <name> from destination-address <prefix>",
    "firewall family inet filter <name> term <name> from protocol <proto>",
    "firewall family inet filter <name> term <name> from destination-port <port>",
    "firewall family inet filter <name> term <name> then accept",
    "firewall family inet filter <name> term <name> then discard",
    "firewall family inet filter <name> term <name> then count <name>",
)

_JUNOS_SLOTS: dict[str, re.Pattern[str]] = {
    "name": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"),
    "ip": re.compile(r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}"),
    "prefix": re.compile(r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}/(?:3[0-2]|[12]?\d)"),
    "int": re.compile(r"[1-9]\d{0,5}"),
    "level": re.compile(r"any|emergency|alert|critical|error|warning|notice|info|none"),
    "facility": re.compile(r"any|authorization|change-log|conflict-log|daemon|dfc|external|firewall|ftp|"
                           r"interactive-commands|kernel|ntp|pfe|security|user"),
    "proto": re.compile(r"tcp|udp|icmp"),
    "port": re.compile(r"ssh|ntp|snmp|syslog|https|[1-9]\d{0,4}"),
    "tz": re.compile(r"UTC|[A-Z][A-Za-z_]+/[A-Z][A-Za-z_+-]+"),
}

NVUE_OWNED: tuple[tuple[str, ...], ...] = (
    ("interface",), ("router",), ("qos",), ("vrf",), ("bridge",), ("system", "hostname"), ("system", "aaa"),
    ("system", "message"), ("system", "forwarding"), ("system", "lldp"), ("system", "api"),
    ("system", "ssh-server"), ("system", "config"), ("service", "lldp"), ("service", "ntp"),
    ("service", "syslog"), ("service", "snmp-server"), ("service", "dhcp-relay"),
)
"""NVUE object paths (startup.yaml keys under ``set``) fabricgen renders or that carry management access."""

SONIC_OWNED = frozenset({
    "DEVICE_METADATA", "LOOPBACK_INTERFACE", "LLDP", "PORT", "INTERFACE", "DEVICE_NEIGHBOR", "PORTCHANNEL_MEMBER",
    "PORTCHANNEL_INTERFACE", "VLAN_INTERFACE", "VLAN_MEMBER", "MGMT_PORT", "MGMT_INTERFACE", "MGMT_VRF_CONFIG",
    "CABLE_LENGTH", "DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_DSCP_MAP", "TC_TO_QUEUE_MAP",
    "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "PORT_QOS_MAP",
    "QUEUE", "SCHEDULER", "WRED_PROFILE", "PFC_WD", "FLEX_COUNTER_TABLE", "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
    "LOSSLESS_TRAFFIC_PATTERN", "STATIC_ROUTE", "VRF", "NTP", "NTP_SERVER", "SYSLOG_SERVER", "SNMP",
    "SNMP_COMMUNITY", "TACPLUS", "TACPLUS_SERVER", "RADIUS", "RADIUS_SERVER", "AAA", "BREAKOUT_CFG",
})
"""config_db tables fabricgen writes (fabricgen.render.sonic) or that hold its interfaces, QoS or routing;
also every table whose name starts with ``BGP_``, ``BUFFER_`` or ``MGMT_``. STATIC_ROUTE and VRF are owned
because the management route and VRF live there; a raw table may add anything else SONiC's models know."""

_SONIC_OWNED_PREFIXES = ("BGP_", "BUFFER_", "MGMT_")


def sonic_owned(table: str) -> bool:
    """Whether config_db ``table`` is fabricgen's (:data:`SONIC_OWNED` or a ``BGP_``/``BUFFER_``/``MGMT_`` table):
    a raw block may not write it, so in a rendered config_db.json it was written by fabricgen.

    >>> sonic_owned("NTP"), sonic_owned("BUFFER_PG"), sonic_owned("PORTCHANNEL")
    (True, True, False)
    """
    return table in SONIC_OWNED or table.startswith(_SONIC_OWNED_PREFIXES)


def _word_match(written: str, owned: str) -> bool:
    """``written`` names ``owned``: the same word, an abbreviation of it, or (for interface names) a name whose
    letters abbreviate it (``et1``, ``Ethernet1/1``, ``lo0``)."""
    w = written.lower()
    if not w:
        return False
    if owned.startswith(w) or w == owned:
        return True
    letters = re.match(r"[a-z-]+", w)
    return letters is not None and letters.end() < len(w) and owned.startswith(letters.group(0))


def _owned_cli(platform: str, words: list[str]) -> tuple[str, ...] | None:
    while words and words[0].lower() in ("no", "default"):
        words = words[1:]
    for owned in OWNED_CLI[platform]:
        if len(words) >= len(owned) and all(_word_match(w, o) for w, o in zip(words, owned, strict=False)):
            return owned
    return None


# --------------------------------------------------------------------------- checks


def check_raw(platform: str, text: str) -> list[RawIssue]:
    """Every problem of the raw block ``text`` for ``platform``, one per offending line (empty: accepted).

    >>> [(i.line, i.message[:50]) for i in check_raw("eos", "logging buffered 10000\\nrouter bgp 65000\\n")]
    [(1, "'router bgp 65000' changes a section fabricgen own")]
    """
    size = len(text.encode("utf-8"))
    if size > MAX_RAW_BYTES:
        return [RawIssue(0, 0, f"the raw block is {size} bytes, above the {MAX_RAW_BYTES}-byte limit")]
    issues: list[RawIssue] = []
    lines = text.split("\n")
    clean: list[bool] = []
    for n, line in enumerate(lines):
        issue = _text_issue(line)
        if issue is not None:
            issues.append(RawIssue(n, issue[0], issue[1]))
        clean.append(issue is None)
    if issues and platform in ("nvue", "sonic"):
        return issues  # a structured block is parsed whole: nothing more to say about a broken text
    if platform in ("eos", "nxos", "frr"):
        issues += _check_cli(platform, lines, clean)
    elif platform == "junos":
        issues += _check_junos(lines, clean)
    elif platform in ("nvue", "sonic"):
        issues += _check_structured(platform, text)
    else:
        issues.append(RawIssue(0, 0, f"unknown platform {platform!r}; one of {', '.join(RAW_PLATFORMS)}"))
    return sorted(issues, key=lambda i: (i.line, i.col))


def _text_issue(line: str) -> tuple[int, str] | None:
    for col, ch in enumerate(line):
        if not " " <= ch <= "~":
            what = f"U+{ord(ch):04X}"
            return col, f"character {what} is not allowed: a raw block is printable ASCII and newlines only"
    m = _TEMPLATE.search(line)
    if m is not None:
        return m.start(), (f"template syntax {m.group(0)!r} is not allowed: a raw block is inserted verbatim, "
                           "never rendered as a template")
    secret = _secret_issue(line)
    if secret is not None:
        return 0, secret
    return None


def _check_cli(platform: str, lines: list[str], clean: list[bool]) -> Iterator[RawIssue]:
    step = {"eos": 3, "nxos": 2, "frr": 1}[platform]
    depth = -1  # depth of the last command line; -1 before the first
    for n, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("!") or not clean[n]:
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent % step:
            yield RawIssue(n, 0, f"indentation of {indent} spaces is not a multiple of {step} "
                                 f"({platform} blocks indent {step} space{'s' if step > 1 else ''} a level)")
            continue
        level = indent // step
        if level > depth + 1:
            yield RawIssue(n, indent, "indented under nothing: an indented line belongs under a command one "
                                      "level above it" if depth < 0 else
                           f"indented {level - depth} levels below the line above; one level at a time")
            continue
        depth = level
        words = stripped.split()
        if words[0].lower() in ("end", "eof") or (platform in ("eos", "nxos") and words[0].lower() in
                                                  ("banner", "comment")):
            yield RawIssue(n, indent, f"{_shown(stripped)!r} ends the configuration or opens a multi-line text "
                                      "mode; not allowed in a raw block")
            continue
        owned = _owned_cli(platform, words)
        if owned is not None:
            yield RawIssue(n, indent, f"{_shown(stripped)!r} changes a section fabricgen owns "
                                      f"({' '.join(owned)!r}); raw blocks may only add what fabricgen does not model")


def _junos_match(pattern: str, words: list[str]) -> bool:
    parts = pattern.split()
    if len(parts) != len(words):
        return False
    for part, word in zip(parts, words, strict=True):
        if part.startswith("<"):
            if _JUNOS_SLOTS[part[1:-1]].fullmatch(word) is None:
                return False
        elif part != word:
            return False
    return True


def _check_junos(lines: list[str], clean: list[bool]) -> Iterator[RawIssue]:
    for n, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or not clean[n]:
            continue
        try:
            words = shlex.split(stripped)
        except ValueError as exc:
            yield RawIssue(n, 0, f"not a Junos statement ({exc})")
            continue
        if words[0] != "set":
            yield RawIssue(n, 0, f"only `set` statements are accepted in a Junos raw block (got {words[0]!r})")
            continue
        path = words[1:]
        owned = next((o for o in JUNOS_OWNED if tuple(path[: len(o)]) == o), None)
        if owned is not None:
            yield RawIssue(n, 0, f"{_shown(stripped)!r} changes a section fabricgen owns ({' '.join(owned)!r}); "
                                 "raw blocks may only add what fabricgen does not model")
        elif not any(_junos_match(p, path) for p in JUNOS_STATEMENTS):
            yield RawIssue(n, 0, f"{_shown(stripped)!r} is not a statement a Junos raw block may carry (see "
                                 "fabricgen.inventory.raw.JUNOS_STATEMENTS)")


# --------------------------------------------------------------------------- structured blocks (nvue, sonic)


class _Refused(Exception):
    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


def parse_structured(text: str) -> dict[str, Any]:
    """A raw NVUE or SONiC block as plain data: a mapping of string keys whose leaves are strings, numbers,
    booleans or lists of them. Anchors, aliases, explicit tags and duplicate keys are refused; scalars are
    resolved by YAML 1.2 as the inventory is. Raises :class:`ValueError` ("line:col: message", 0-based)."""
    try:
        return _parse(text)
    except _Refused as exc:
        raise ValueError(f"{exc.line}:{exc.col}: {exc.message}") from None


def _parse(text: str) -> dict[str, Any]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        node = YAML(typ="safe", pure=True).compose(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line, mark.column) if mark is not None else (0, 0)
        raise _Refused(line, col, f"not YAML: {exc.problem or exc.context}") from None
    except YAMLError as exc:
        raise _Refused(0, 0, f"not YAML: {' '.join(str(exc).split())[:80]}") from None
    if node is None:
        raise _Refused(0, 0, "the raw block is empty")
    value = _build(node, set(), 0)
    if not isinstance(value, dict):
        raise _Refused(node.start_mark.line, node.start_mark.column, "the raw block must be a mapping")
    return value


def _build(node: Any, seen: set[int], depth: int) -> Any:
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    from fabricgen.inventory import scalars

    line, col = node.start_mark.line, node.start_mark.column
    if id(node) in seen or getattr(node, "anchor", None):
        raise _Refused(line, col, "YAML anchors and aliases are not allowed in a raw block")
    seen.add(id(node))
    if depth > 16:
        raise _Refused(line, col, "nesting deeper than 16 levels")
    tag = str(node.tag) if node.tag is not None else ""
    if isinstance(node, ScalarNode):
        if node.style is None and tag.startswith("tag:yaml.org,2002:"):
            return scalars.construct_plain(node.value)[1]
        if tag not in ("tag:yaml.org,2002:str", ""):
            raise _Refused(line, col, f"YAML tag {tag} is not allowed in a raw block")
        return node.value
    if tag not in ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"):
        raise _Refused(line, col, f"YAML tag {tag} is not allowed in a raw block")
    if isinstance(node, SequenceNode):
        return [_build(item, seen, depth + 1) for item in node.value]
    assert isinstance(node, MappingNode)
    out: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = _build(key_node, seen, depth + 1)
        if not isinstance(key, str | int) or isinstance(key, bool):
            raise _Refused(key_node.start_mark.line, key_node.start_mark.column, "mapping keys must be strings")
        key = str(key)
        if key in out:
            raise _Refused(key_node.start_mark.line, key_node.start_mark.column, f"duplicate key {key!r}")
        out[key] = _build(value_node, seen, depth + 1)
    return out


def key_lines(text: str) -> dict[tuple[str, ...], tuple[int, int]]:
    """Where each key path of an already parsed block was written (0-based line, column)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import MappingNode

    out: dict[tuple[str, ...], tuple[int, int]] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, MappingNode):
            for k, v in node.value:
                child = (*path, str(k.value))
                out.setdefault(child, (k.start_mark.line, k.start_mark.column))
                walk(v, child)

    walk(YAML(typ="safe", pure=True).compose(text), ())
    return out


def _check_structured(platform: str, text: str) -> Iterator[RawIssue]:
    try:
        doc = _parse(text)
    except _Refused as exc:
        yield RawIssue(exc.line, exc.col, exc.message)
        return
    where = key_lines(text)
    if platform == "nvue":
        for owned in NVUE_OWNED:
            node: Any = doc
            for part in owned:
                node = node.get(part) if isinstance(node, dict) else None
            if node is not None:
                line, col = where.get(owned, (0, 0))
                yield RawIssue(line, col, f"NVUE path {' '.join(owned)!r} is a section fabricgen owns; raw blocks "
                                          "may only add what fabricgen does not model")
        return
    for table, rows in doc.items():
        line, col = where.get((table,), (0, 0))
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", table) is None:
            yield RawIssue(line, col, f"{table!r} is not a config_db table name (upper-case letters, digits, '_')")
        elif sonic_owned(table):
            yield RawIssue(line, col, f"config_db table {table!r} is one fabricgen owns; raw blocks may only add "
                                      "what fabricgen does not model")
        elif not isinstance(rows, dict) or not all(isinstance(r, dict) for r in rows.values()):
            yield RawIssue(line, col, f"table {table!r} must map keys to rows of fields (TABLE: {{key: {{field: "
                                      "value}}}})")
        else:
            for key, row in rows.items():
                for field, value in row.items():
                    ok = isinstance(value, str) or (
                        isinstance(value, list) and all(isinstance(v, str) for v in value))
                    if not ok:
                        fl, fc = where.get((table, key, field), (line, col))
                        yield RawIssue(fl, fc, f"{table}|{key}.{field}: config_db values are strings (write "
                                               f"\"{value}\")")


def written_lines(platform: str, blocks: tuple[str, ...] | list[str]) -> int:
    """How many configuration lines ``blocks`` hold: non-blank lines that are not comments (``!`` on EOS,
    NX-OS and FRR; ``#`` on Junos, NVUE and SONiC).

    >>> written_lines("eos", ["! mgmt ACL\\nip access-list standard MGMT\\n   10 permit 192.0.2.0/24\\n"])
    2
    """
    comment = "!" if platform in ("eos", "nxos", "frr") else "#"
    return sum(1 for block in blocks for line in block.split("\n")
               if line.strip() and not line.strip().startswith(comment))


def raw_lines(text: str) -> list[str]:
    """The lines a text block contributes: trailing blank lines dropped.

    >>> raw_lines("a\\n b\\n\\n")
    ['a', ' b']
    """
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


# --------------------------------------------------------------------------- positions in the inventory

_LITERAL = re.compile(r":[ \t]+\|[-+1-9]{0,2}[ \t]*(?:#.*)?$")


def raw_problems(loaded: LoadedInventory) -> list[Problem]:
    """Every problem of every raw block of an inventory, each at the file line of the offending block line.

    A block written as a literal block scalar (``eos: |``) starts on the line after its key, so block line
    *i* is file line ``key line + 1 + i`` and the column is that line's; a block written in any other style
    (quoted, plain) is reported at its key, the message naming the block's line."""
    from fabricgen.inventory.load import field_path

    inv = loaded.inventory
    levels: list[tuple[tuple[str | int, ...], Mapping[RawPlatform, str] | None]] = [
        (("base", "defaults"), inv.base.defaults.raw),
    ]
    for role, b in inv.base.roles.items():
        levels.append((("base", "roles", str(role)), b.raw))
    for i, sw in enumerate(inv.switches):
        original = loaded.kept["switches"][i] if loaded.kept and "switches" in loaded.kept else i
        where: tuple[str | int, ...] = ("switches", original, "base")
        levels.append((where, sw.base.raw if sw.base is not None else None))
    files: dict[str, list[str]] = {}
    problems: list[Problem] = []
    for prefix, raw in levels:
        for plat, text in sorted((raw or {}).items()):
            path = (*prefix, "raw", plat)
            issues = check_raw(plat, text)
            if not issues:
                continue
            key = loaded.source.find(path)
            field = field_path(loaded.tree, path)
            for issue in issues:
                pos, lead = block_position(key, text, issue.line, issue.col, files)
                problems.append(Problem(pos, field, f"{lead}{issue.message}"))
    return problems


def block_position(key: SourcePos | None, text: str, line: int, col: int,
                   files: dict[str, list[str]]) -> tuple[SourcePos | None, str]:
    """Where line ``line``, column ``col`` (0-based) of the block ``text`` written at ``key`` is in its file, and
    what a message about it says first: for a literal block scalar its own file line and column and nothing;
    for a block in any other style the key's position and ``"line N of the block: "``. ``files`` caches the
    files' lines between calls."""
    start = _literal_start(key, files) if key is not None else None
    if key is None or start is None:
        return key, f"line {line + 1} of the block: "
    indent = _block_indent(key, start, text.split("\n"), files)
    return SourcePos(key.file, start + line, indent + col + 1), ""


def _lines(file: str, files: dict[str, list[str]]) -> list[str]:
    if file not in files:
        try:
            with open(file, encoding="utf-8") as f:
                files[file] = f.read().split("\n")
        except OSError:
            files[file] = []
    return files[file]


def _literal_start(key: SourcePos, files: dict[str, list[str]]) -> int | None:
    """The file line where the block written at ``key`` starts, when it is a literal block scalar."""
    lines = _lines(key.file, files)
    if not 0 < key.line <= len(lines):
        return None
    return key.line + 1 if _LITERAL.search(lines[key.line - 1][key.col - 1:]) else None


def _block_indent(key: SourcePos, start: int, block: list[str], files: dict[str, list[str]]) -> int:
    """The columns before the block's text on its file lines (the YAML block's indentation)."""
    lines = _lines(key.file, files)
    for i, text in enumerate(block):
        n = start - 1 + i
        if text and n < len(lines) and lines[n].endswith(text):
            return len(lines[n]) - len(text)
    return 0
