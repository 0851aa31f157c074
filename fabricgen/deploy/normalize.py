"""Semantic configuration comparison on each platform's own hierarchy; ``apply`` and ``drift`` both use it.

Every configuration becomes a set of *paths* (one per leaf statement, with every enclosing block), so order,
whitespace, comments and markers never matter, and a statement moved to another block is a difference:

* ``frr`` (and SONiC's frr.conf): FRR context paths — ``("router bgp 65001", "address-family ipv4 unicast",
  "network 10.0.0.1/32")``; profile defaults FRR never echoes are dropped;
* ``eos`` / ``nxos``: indentation blocks, whatever their keyword (``interface``, ``tx-queue 3``,
  ``policy-map type network-qos X`` / ``class type network-qos Y``), so ECN moved to another tx-queue or
  ``pause pfc-cos 3`` moved to another class is drift;
* ``junos``: the ``set`` form and the curly-brace form both become ``set`` token paths (``[ a b ]`` lists
  expanded, as ``show configuration | display set`` prints them), so a curly-brace running configuration
  against the intended set form is not drift;
* ``sonic``: config_db ``TABLE / key / field = value``; ``nvue``: the object tree's key paths.

Every path is compared, whatever its section: ``apply`` replaces the whole configuration, so a running line
the intended configuration lacks (a hand-added prefix-list, a user, an SNMP community) is removed or changed by
the next apply and is a difference. Each difference is tagged ``routing``/``roce``/``other`` by what it is in
the platform's grammar (:mod:`fabricgen.deploy.sections`); a path in a secret-bearing section (users, keys,
SNMP communities, TACACS+/RADIUS) is reported by its section's name only, never its line. A line that states
a platform default the device hides or always shows is dropped on both sides (:mod:`fabricgen.deploy.defaults`).
Values after secret keywords (``secret``, ``password``, ``community``, ``key``…) and hash-like tokens are
masked in every line a report shows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from fabricgen.deploy.defaults import drop_defaults
from fabricgen.deploy.drivers.frr import is_default
from fabricgen.deploy.sections import secret_name, tag_of

_SKIP_PREFIXES = ("!", "Building configuration", "Current configuration", "frr version", "end")
_CLOSERS = {"exit", "exit-address-family", "exit-vrf", "exit-vni", "end"}
_CONTEXT_OPENERS = (
    "interface ", "router ", "address-family ", "vrf ", "route-map ", "line ", "bfd", "peer ", "segment-routing",
    "key chain", "key ", "evpn", "srv6", "vni ",
)

@dataclass(frozen=True)
class ConfigDiff:
    """Paths present only in the intended (``missing`` on the device) or only in the running configuration
    (``unexpected``: what the next ``apply``, a full replace, removes or changes), each masked; ``impact``: tag →
    those lines; ``named_only``: the entries of ``missing``/``unexpected`` that name a secret-bearing section
    (users, keys, SNMP communities, …) instead of showing its line."""

    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()
    impact: dict[str, list[str]] = field(default_factory=dict)
    named_only: tuple[str, ...] = ()

    @property
    def drifted(self) -> bool:
        return bool(self.missing or self.unexpected)

    def as_dict(self) -> dict[str, Any]:
        return {"missing": list(self.missing), "unexpected": list(self.unexpected), "impact": self.impact,
                "named_only": list(self.named_only)}


def frr_paths(text: str) -> list[tuple[str, ...]]:
    """Context paths of an FRR configuration, in order of appearance, defaults dropped.

    >>> text = "router bgp 1\\n bgp log-neighbor-changes\\n address-family ipv4 unicast\\n  network 10.0.0.1/32\\n"
    >>> for p in frr_paths(text): print(" / ".join(p))
    router bgp 1
    router bgp 1 / address-family ipv4 unicast
    router bgp 1 / address-family ipv4 unicast / network 10.0.0.1/32
    """
    out: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        stripped = raw.strip()
        if stripped.startswith(_SKIP_PREFIXES):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        line = " ".join(stripped.split())
        if line in _CLOSERS:
            if line == "exit-address-family" or line == "exit-vni":
                while stack and not stack[-1][1].startswith(("address-family", "vni")):
                    stack.pop()
                if stack:
                    stack.pop()
            else:
                stack = [s for s in stack if s[0] < indent]
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        ctx = tuple(s[1] for s in stack)
        if is_default(ctx, line):
            continue
        out.append((*ctx, line))
        if line.startswith(_CONTEXT_OPENERS) and not (indent == 0 and line.startswith("ip ")):
            stack.append((indent, line))
    return out


# --------------------------------------------------------------------------------------------- EOS / NX-OS


_CLI_SKIP = ("!", "Building configuration", "Current configuration", "end")


def indent_paths(text: str) -> list[tuple[str, ...]]:
    """Paths of an indentation-structured configuration (EOS, NX-OS): every line under every line it is
    indented below, whatever its keyword.

    >>> text = "interface Ethernet1\\n   tx-queue 3\\n      random-detect ecn\\n   tx-queue 4\\n"
    >>> for p in indent_paths(text): print(" / ".join(p))
    interface Ethernet1
    interface Ethernet1 / tx-queue 3
    interface Ethernet1 / tx-queue 3 / random-detect ecn
    interface Ethernet1 / tx-queue 4
    """
    out: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for raw in text.expandtabs(8).splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith(_CLI_SKIP):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        line = " ".join(stripped.split())
        out.append((*(s[1] for s in stack), line))
        stack.append((indent, line))
    return out


# --------------------------------------------------------------------------------------------- Junos


def _junos_tokens(text: str) -> list[str]:
    """Junos curly-brace text → tokens: words, quoted strings (unquoted), ``{ } ; [ ]``; comments dropped."""
    tokens: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                buf.append(text[j])
                j += 1
            tokens.append("".join(buf))
            i = j + 1
        elif c in "{};[]":
            tokens.append(c)
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '{};[]"':
                j += 1
            tokens.append(text[i:j])
            i = j
    return tokens


def _expand(tokens: list[str]) -> list[list[str]]:
    """One statement per list element, as ``display set`` prints lists.

    ``a k [ x y ]`` → ``a k x``, ``a k y``; several lists in one statement (``a f [ 1 2 ] d [ 0 100 ]``) are
    separate leaves under ``a``: ``a f 1``, ``a f 2``, ``a d 0``, ``a d 100``.
    """
    if "[" not in tokens:
        return [tokens]
    first = tokens.index("[")
    if tokens.count("[") == 1:
        j = tokens.index("]", first) if "]" in tokens[first:] else len(tokens)
        return [[*tokens[:first], item, *tokens[j + 1 :]] for item in tokens[first + 1 : j]]
    base, rest, out = tokens[: first - 1], tokens[first - 1 :], []
    i = 0
    while i < len(rest):
        kw = rest[i]
        if i + 1 < len(rest) and rest[i + 1] == "[":
            j = rest.index("]", i + 1) if "]" in rest[i + 1 :] else len(rest)
            out += [[*base, kw, item] for item in rest[i + 2 : j]]
            i = j + 1
        else:
            out.append([*base, *rest[i : i + 2]])
            i += 2
    return out


def _set_tokens(line: str) -> list[str]:
    """``set a "b c" [ d e ]`` → ``["a", "b c", "[", "d", "e", "]"]`` (quotes removed)."""
    return _junos_tokens(line)[1:]


def _show(tokens: list[str]) -> str:
    return " ".join(f'"{t}"' if (not t or any(ch.isspace() for ch in t)) else t for t in tokens)


def junos_set_lines(text: str) -> list[str]:
    """Junos configuration in either form (``set`` lines, or curly braces as ``show configuration`` prints it)
    as ``set`` lines, lists expanded, quotes only where a value has spaces.

    >>> junos_set_lines('system {\\n  host-name leaf1;\\n  name-server [ 192.0.2.1 192.0.2.2 ];\\n}\\n')
    ['set system host-name leaf1', 'set system name-server 192.0.2.1', 'set system name-server 192.0.2.2']
    >>> junos_set_lines('set system host-name leaf1\\nset system name-server [ 192.0.2.1 192.0.2.2 ]')
    ['set system host-name leaf1', 'set system name-server 192.0.2.1', 'set system name-server 192.0.2.2']
    """
    body = [ln for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    out: list[list[str]] = []
    if body and all(ln.strip().startswith(("set ", "delete ", "deactivate ", "activate ")) for ln in body):
        for ln in body:
            if ln.strip().startswith("set "):
                out += _expand(_set_tokens(ln.strip()))
    else:
        path: list[list[str]] = []
        statement: list[str] = []
        for tok in _junos_tokens(text):
            if tok == "{":
                path.append(statement)
                statement = []
            elif tok == ";":
                if statement:
                    out += _expand([t for part in path for t in part] + statement)
                statement = []
            elif tok == "}":
                if path:
                    path.pop()
                statement = []
            else:
                statement.append(tok)
    return [f"set {_show(t)}" for t in out]


def junos_paths(text: str) -> list[tuple[str, ...]]:
    """Junos configuration → token paths (``("system", "host-name", "leaf1")``), from either form."""
    return [tuple(_junos_tokens(line)[1:]) for line in junos_set_lines(text)]


# --------------------------------------------------------------------------------------------- JSON / YAML


class UnreadableConfig(ValueError):
    """A configuration that is not in its platform's format (a config_db or NVUE text that neither JSON nor YAML
    reads). The one exception :func:`compare` raises: the device is not checked, and nothing is loaded on it."""


def _load_doc(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        try:
            return YAML(typ="safe").load(text)
        except YAMLError as exc:
            first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            raise UnreadableConfig(f"the configuration is neither JSON nor YAML ({first})") from None


def tree_paths(doc: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """A JSON/YAML document → key paths ending in ``key = value`` (scalar lists sorted).

    >>> tree_paths({"PORT": {"Ethernet0": {"mtu": "9100"}}})
    [('PORT', 'Ethernet0', 'mtu = "9100"')]
    """
    if isinstance(doc, dict):
        items: list[tuple[str, ...]] = []
        for k in sorted(doc, key=str):
            v = doc[k]
            if isinstance(v, (dict, list)) and v:
                items += tree_paths(v, (*prefix, str(k)))
            else:
                items.append((*prefix, f"{k} = {json.dumps(v, sort_keys=True)}"))
        return items
    if isinstance(doc, list):
        scalars = all(not isinstance(x, (dict, list)) for x in doc)
        value = sorted(doc, key=json.dumps) if scalars else doc
        if not prefix:
            return [("=" + json.dumps(value, sort_keys=True),)]
        return [(*prefix[:-1], f"{prefix[-1]} = {json.dumps(value, sort_keys=True)}")]
    return [(*prefix[:-1], f"{prefix[-1] if prefix else ''} = {json.dumps(doc)}")]


def nvue_tree(text: str) -> Any:
    """NVUE ``startup.yaml`` / ``nv config show -o yaml`` (``- header:`` / ``- set:`` documents) → the set tree."""
    doc = _load_doc(text)
    if isinstance(doc, list):
        merged: dict[str, Any] = {}
        for part in doc:
            if isinstance(part, dict) and isinstance(part.get("set"), dict):
                merged = _merge_set(merged, part["set"])
        return merged
    return doc


def _merge_set(tree: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """NVUE applies each ``set`` document of a file over the tree the ones before it built, object by object
    (a second ``- set: {system: {timezone: …}}`` keeps the first's ``system: {hostname: …}``).

    >>> _merge_set({"system": {"hostname": "a"}}, {"system": {"timezone": "UTC"}})
    {'system': {'hostname': 'a', 'timezone': 'UTC'}}
    """
    out = dict(tree)
    for key, value in patch.items():
        old = out.get(key)
        out[key] = _merge_set(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return out


def structured_lines(text: str) -> list[str]:
    """A JSON or YAML document as sorted ``a / b / key = value`` lines."""
    return [" / ".join(p) for p in tree_paths(_load_doc(text))]


# --------------------------------------------------------------------------------------------- masking


_SECRET_WORDS = (
    "secret", "password", "passwd", "passphrase", "encrypted-password", "authentication-key", "pre-shared-key",
    "key", "key-string", "community", "passkey", "auth-password", "priv-password", "md5", "ciphertext",
    "plain-text-password", "shared-secret", "bgp-password", "auth_key", "auth-key", "hashed-password",
)
_SECRET_RE = re.compile(
    r"(?i)(?<![\w-])(" + "|".join(re.escape(w) for w in sorted(_SECRET_WORDS, key=len, reverse=True))
    + r")(?![\w-])(\"?\s*[=:]\s*|\s+)\S.*$"
)
# hash-like tokens, and the placeholders of the inventory's secret references (fabricgen.render.base)
_HASH_RE = re.compile(
    r"__FABRICGEN_ENV_[A-Z0-9_]+__|\$\d+\$[^\s'\"]+|\$9\$[^\s'\"]+|(?<![\w:])[A-Fa-f0-9]{24,}(?![\w:])"
)


def mask(text: str) -> str:
    """``text`` with everything after a secret keyword, and hash-like tokens, replaced by ``***``.

    >>> mask("username admin privilege 15 secret sha512 $6$abc$def")
    'username admin privilege 15 secret ***'
    >>> mask('TACPLUS_SERVER / 10.0.0.5 / passkey = "hunter2"')
    'TACPLUS_SERVER / 10.0.0.5 / passkey = ***'
    >>> mask("hashed-password: '$6$salt$hash'")  # a quoted value stays quoted: the YAML still parses
    "hashed-password: '***'"
    >>> mask("interface Ethernet1 / mtu 9214")
    'interface Ethernet1 / mtu 9214'
    """
    text = _SECRET_RE.sub(_masked, text)
    return _HASH_RE.sub("***", text)


_JUNOS_SECRET_RE = re.compile(
    r"(?i)(?<![\w-])(" + "|".join(re.escape(w) for w in sorted(_SECRET_WORDS, key=len, reverse=True))
    + r")(\s+)(\"(?:[^\"\\]|\\.)*\"|[^\s;{}\[\]]+)"
)


def mask_junos(line: str) -> str:
    """A line of Junos configuration (curly or ``set`` form) with only the *value* after a secret keyword masked:
    the statement's terminator (``;``, ``{``) and what follows the value stay, so the text still parses.

    >>> mask_junos('encrypted-password "$6$salt$hash"; ## SECRET-DATA')
    'encrypted-password ***; ## SECRET-DATA'
    >>> mask_junos("community c0mm {")
    'community *** {'
    >>> mask_junos("community c0mm authorization read-only;")
    'community *** authorization read-only;'
    >>> mask_junos("set system authentication-order [ tacplus radius password ]")  # a method, not a secret
    'set system authentication-order [ tacplus radius password ]'
    """
    return _HASH_RE.sub("***", _JUNOS_SECRET_RE.sub(lambda m: f"{m.group(1)}{m.group(2)}***", line))


def _masked(m: re.Match[str]) -> str:
    """The keyword and separator of a secret, its value replaced; a quoted YAML ``key: 'value'`` keeps its quote.

    >>> mask("  password: hunter2")
    '  password: ***'
    """
    sep, value = m.group(2), m.group(0)[m.end(2) - m.start(0):]
    quote = value[0] if sep.strip() == ":" and value[0] in "'\"" else ""
    return f"{m.group(1)}{sep}{quote}***{quote}"


def _mask_path(path: tuple[str, ...]) -> tuple[str, ...]:
    """A path with each element masked, and the element after a lone secret keyword too (Junos paths split
    ``snmp community NAME`` into words).

    >>> _mask_path(("snmp", "community", "c0mm", "authorization", "read-only"))
    ('snmp', 'community', '***', 'authorization', 'read-only')
    >>> _mask_path(("SNMP_COMMUNITY", "c0mm", 'TYPE = "RO"'))
    ('SNMP_COMMUNITY', '***', 'TYPE = "RO"')
    """
    out = [mask(e) for e in path]
    for i, e in enumerate(path[:-1]):
        if e.lower() in _SECRET_WORDS or e.lower() in _SECRET_KEYED:
            out[i + 1] = "***"
    return tuple(out)


def _is_secret_key(key: str) -> bool:
    return bool(_SECRET_RE.match(f"{key} x")) and not key.lower().endswith(("_id", "-id", "chain"))


# containers whose *keys* are secrets: an SNMP community names its own entry (SONiC SNMP_COMMUNITY|<community>,
# NVUE snmp-server/readonly-community/<community>)
_SECRET_KEYED = ("snmp_community", "readonly-community", "readonly-community-v6")


def _mask_doc(doc: Any) -> Any:
    """A JSON/YAML document with its secret values masked, and the keys of :data:`_SECRET_KEYED` containers.

    >>> _mask_doc({"SNMP_COMMUNITY": {"c0mm": {"TYPE": "RO"}}, "TACPLUS": {"global": {"passkey": "k"}}})
    {'SNMP_COMMUNITY': {'***': {'TYPE': 'RO'}}, 'TACPLUS': {'global': {'passkey': '***'}}}
    """
    if isinstance(doc, dict):
        out: dict[Any, Any] = {}
        for k, v in doc.items():
            if str(k).lower() in _SECRET_KEYED and isinstance(v, dict):
                out[k] = {("***" if i == 0 else f"***{i + 1}"): _mask_doc(x) for i, x in enumerate(v.values())}
            else:
                out[k] = "***" if _is_secret_key(str(k)) and not isinstance(v, (dict, list)) else _mask_doc(v)
        return out
    if isinstance(doc, list):
        return [_mask_doc(x) for x in doc]
    return doc


def sanitize(text: str) -> str:
    """A configuration with its secret values masked, still parseable: JSON documents (SONiC config_db) are
    masked by key and re-serialised; any other text line by line (:func:`mask`).

    >>> sanitize('{"TACPLUS": {"global": {"passkey": "hunter2", "timeout": "5"}}}')
    '{"TACPLUS": {"global": {"passkey": "***", "timeout": "5"}}}'
    >>> sanitize("system:\\n  password: hunter2\\n  hostname: leaf1\\n")
    'system:\\n  password: ***\\n  hostname: leaf1'
    """
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return json.dumps(_mask_doc(json.loads(text)))
        except ValueError:
            pass
    masked = "\n".join(mask(line) for line in text.splitlines())
    if stripped.startswith("- "):  # a YAML document (NVUE): a bare ``key: ***`` would read as an alias
        try:
            _load_doc(masked)
            if any(f"{k}:" in text for k in _SECRET_KEYED):
                raise ValueError("an SNMP community is a key: masked by key")
        except Exception:
            try:
                # masked by key, re-serialised (values quoted where YAML needs it), then line by line as above
                return "\n".join(mask(line) for line in _dump_yaml(_mask_doc(_load_doc(text))).splitlines())
            except Exception:
                pass
    return masked


def _dump_yaml(doc: Any) -> str:
    """A YAML document as text (the form NVUE's ``nv config show -o yaml`` prints).

    >>> print(sanitize("- set:\\n    user:\\n      a:\\n        hashed-password: $6$s$h"))
    - set:
        user:
          a:
            hashed-password: '***'
    """
    from io import StringIO

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")
    yaml.default_flow_style = False
    buf = StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------- compare


def impact_of(platform: str, path: tuple[str, ...]) -> list[str]:
    """``routing``, ``roce`` (lossless QoS: PFC, ECN, buffers, queues, MTU) or ``other``: what the path *is* in the
    platform's grammar (:mod:`fabricgen.deploy.sections`).

    >>> impact_of("eos", ("interface Ethernet1", "tx-queue 3", "random-detect ecn minimum-threshold 150000 bytes"))
    ['roce']
    >>> impact_of("junos", ("protocols", "bgp", "group", "SPINES", "neighbor", "10.128.6.0", "peer-as", "4200000100"))
    ['routing']
    """
    return [tag_of(platform, path)]


def platform_paths(platform: str, text: str) -> tuple[list[tuple[str, ...]], int, str]:
    """(paths, how many leading elements name a section, separator for display)."""
    stripped = text.lstrip()
    if platform == "junos":
        return junos_paths(text), 2, " "
    if platform == "nvue" or (platform == "sonic" and stripped.startswith(("{", "["))) or (
        platform not in ("frr", "eos", "nxos", "sonic") and stripped.startswith(("{", "["))
    ):
        doc = nvue_tree(text) if platform == "nvue" else _load_doc(text)
        return tree_paths(doc), 2 if platform == "nvue" else 1, " / "
    if platform in ("eos", "nxos"):
        return indent_paths(text), 1, " / "
    return frr_paths(text), 1, " / "


def compare(platform: str, intended: str, running: str) -> ConfigDiff:
    """Intended vs running on the platform's hierarchy: every path only one side has, masked and tagged.
    Raises :class:`UnreadableConfig` (and nothing else) for a text that is not in the platform's format.

    A SONiC bundle (config_db.json + frr.conf, :mod:`fabricgen.deploy.intended`) compares each part on its own
    hierarchy; frr.conf paths are shown with a ``frr.conf:`` prefix."""
    if platform == "sonic":
        from fabricgen.deploy.intended import split_sonic

        want = split_sonic(intended)
        if want is not None:
            have = split_sonic(running)
            db = _compare(platform, want[0], have[0] if have else running)
            frr = _compare("frr", want[1], have[1] if have else "")

            def tagged(lines: tuple[str, ...]) -> tuple[str, ...]:
                return tuple(f"frr.conf: {x}" for x in lines)

            impact = {k: list(v) for k, v in db.impact.items()}
            for tag, lines in frr.impact.items():
                impact.setdefault(tag, []).extend(tagged(tuple(lines)))
            return ConfigDiff(db.missing + tagged(frr.missing), db.unexpected + tagged(frr.unexpected), impact,
                              db.named_only + tagged(frr.named_only))
    return _compare(platform, intended, running)


def _counts(paths: list[tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """Path → how many times it counts, in order of appearance: a masked path each time it appears, any other
    once.

    >>> _counts([("snmp-server community ***",), ("snmp-server community ***",), ("a",), ("a",)])
    {('snmp-server community ***',): 2, ('a',): 1}
    """
    out: dict[tuple[str, ...], int] = {}
    for p in paths:
        out[p] = out.get(p, 0) + 1 if any("***" in e for e in p) else 1
    return out


def _compare(platform: str, intended: str, running: str) -> ConfigDiff:
    want_paths, _, sep = platform_paths(platform, intended)
    have_paths, _, _ = platform_paths(platform, running)
    # both sides masked: a running configuration is read sanitized, so a secret compares as its mask; a line
    # that states a platform default is its absence (fabricgen.deploy.defaults)
    want_paths = drop_defaults(platform, [_mask_path(p) for p in want_paths])
    have_paths = drop_defaults(platform, [_mask_path(p) for p in have_paths])
    # a masked path counts: two SNMP communities are two ``snmp-server community ***`` paths, so a second one
    # added by hand is a difference although its value is never compared; any other path is a set member (a
    # block written twice is one block)
    want_n, have_n = _counts(want_paths), _counts(have_paths)
    missing_p = [p for p, n in want_n.items() if n > have_n.get(p, 0)]
    unexpected_p = [p for p, n in have_n.items() if n > want_n.get(p, 0)]
    named: dict[str, None] = {}

    def show(p: tuple[str, ...]) -> str:
        """A secret-bearing path by its section's name only; any other path as its masked line."""
        name = secret_name(platform, p)
        if name is not None:  # made of the path's masked elements: never a value
            named[name] = None
            return name
        return mask(("set " if platform == "junos" else "") + sep.join(p))

    shown = {p: show(p) for p in (*missing_p, *unexpected_p)}
    missing = tuple(dict.fromkeys(shown[p] for p in missing_p))
    unexpected = tuple(dict.fromkeys(shown[p] for p in unexpected_p))
    impact: dict[str, dict[str, None]] = {}
    for p in (*missing_p, *unexpected_p):
        for tag in impact_of(platform, p):
            impact.setdefault(tag, {})[shown[p]] = None
    return ConfigDiff(missing, unexpected, {tag: list(lines) for tag, lines in impact.items()}, tuple(named))
