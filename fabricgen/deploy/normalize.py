"""Semantic configuration comparison: no false drift from ordering, whitespace, comments or echoed defaults.

FRR-style text (``frr``, and the FRR part of ``sonic``) is parsed into context paths — ``("router bgp 65001",
"address-family ipv4 unicast", "network 10.0.0.1/32")`` — so the order of blocks and lines, indentation,
``!``/``exit`` markers, banners and ``frr version`` lines do not matter, and profile defaults FRR never echoes
are dropped. JSON and YAML documents (SONiC ``config_db.json``, NVUE ``startup.yaml``) are compared as data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fabricgen.deploy.drivers.frr import is_default

_SKIP_PREFIXES = ("!", "Building configuration", "Current configuration", "frr version", "end")
_CLOSERS = {"exit", "exit-address-family", "exit-vrf", "exit-vni", "end"}
_CONTEXT_OPENERS = (
    "interface ", "router ", "address-family ", "vrf ", "route-map ", "line ", "bfd", "peer ", "segment-routing",
    "key chain", "key ", "evpn", "srv6", "vni ",
)

ROUTING_KEYWORDS = (
    "router bgp", "neighbor", "network", "ip address", "maximum-paths", "redistribute", "route-map", "ip route",
    "bgp router-id", "remote-as",
)
ROCE_KEYWORDS = ("pfc", "ecn", "dscp", "qos", "buffer", "traffic-class", "mtu", "wred", "tc_to", "pfc_enable")


@dataclass(frozen=True)
class ConfigDiff:
    """Lines present only in the intended (``missing`` on the device) or only in the running config (``unexpected``)."""

    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()
    impact: dict[str, list[str]] = field(default_factory=dict)

    @property
    def drifted(self) -> bool:
        return bool(self.missing or self.unexpected)

    def as_dict(self) -> dict[str, Any]:
        return {"missing": list(self.missing), "unexpected": list(self.unexpected), "impact": self.impact}


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


def _flatten(doc: Any, prefix: str = "") -> list[str]:
    if isinstance(doc, dict):
        items: list[str] = []
        for k in sorted(doc, key=str):
            items += _flatten(doc[k], f"{prefix}/{k}" if prefix else str(k))
        return items or [f"{prefix} = {{}}"]
    if isinstance(doc, list):
        scalars = all(not isinstance(x, (dict, list)) for x in doc)
        return [f"{prefix} = {json.dumps(sorted(doc, key=json.dumps) if scalars else doc, sort_keys=True)}"]
    return [f"{prefix} = {json.dumps(doc)}"]


def structured_lines(text: str) -> list[str]:
    """A JSON or YAML document as sorted ``path = value`` lines."""
    try:
        doc = json.loads(text)
    except ValueError:
        from ruamel.yaml import YAML

        doc = YAML(typ="safe").load(text)
    return _flatten(doc)


def impact_of(line: str) -> list[str]:
    low = line.lower()
    tags = []
    if any(k in low for k in ROUTING_KEYWORDS):
        tags.append("routing")
    if any(k in low for k in ROCE_KEYWORDS):
        tags.append("roce")
    return tags or ["other"]


def compare(platform: str, intended: str, running: str) -> ConfigDiff:
    if platform in ("frr",) or (not intended.lstrip().startswith(("{", "[")) and platform not in ("nvue",)):
        want = [" / ".join(p) for p in frr_paths(intended)]
        have = [" / ".join(p) for p in frr_paths(running)]
    else:
        want, have = structured_lines(intended), structured_lines(running)
    have_set, want_set = set(have), set(want)
    missing = tuple(dict.fromkeys(x for x in want if x not in have_set))
    unexpected = tuple(dict.fromkeys(x for x in have if x not in want_set))
    impact: dict[str, list[str]] = {}
    for line in (*missing, *unexpected):
        for tag in impact_of(line):
            impact.setdefault(tag, []).append(line)
    return ConfigDiff(missing, unexpected, impact)
