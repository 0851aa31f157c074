"""Explicit inventories (every switch, node and cable listed) for the parse benchmark.

* :func:`expanded_yaml`: the rail-optimized intent of bench/intents.py expanded by fabricgen itself and
  written out item by item, so the file is exactly what a user of the explicit style would keep;
* :func:`two_tier_yaml`: ``spines`` × ``leaves`` in two tiers, ``hosts_per_leaf`` RoCE host ports per leaf
  (400G breakouts of SN5600 cages) and one 800G uplink from every leaf to every spine — the shape of
  the 16 × 512 fabric whose load time the README quotes (a parse benchmark: spine port counts are not
  meant to fit a real SN5600);
* :func:`explicit_files`: any intent inventory (its ``fabric:`` and ``catalog:`` kept) expanded by fabricgen and
  written out as an explicit inventory, in one file or split into a directory of files (the loader caps a file
  at 8 MiB; a directory's lists concatenate), so an intent and its explicit twin can be timed side by side;
* :func:`short_items_yaml`: a long list of short items, the cheapest bytes for a parser to receive.
"""

from __future__ import annotations

from pathlib import Path

from fabricgen.inventory.catalog import merged
from fabricgen.inventory.load import load_inventory
from fabricgen.inventory.schema import Catalog, Oversubscription, RailOptimized
from fabricgen.inventory.units import format_speed
from fabricgen.topology.intent import Expansion, expand

NICS = ["enp24s0np0", "enp64s0np0", "enp79s0np0", "enp94s0np0", "enp154s0np0", "enp192s0np0", "enp206s0np0",
        "enp220s0np0"]


def _opt(key: str, value: object) -> str:
    return "" if value is None else f", {key}: {value}"


def expanded_yaml(name: str, units: int) -> str:
    """The intent of ``units`` × 256 GPUs (DGX H100 on SN5600, see bench/intents.py), written out explicitly."""
    intent = RailOptimized.model_validate(
        {
            "server": "dgx-h100",
            "nodes_per_unit": 32,
            "units": units,
            "leaf": {"model": "sn5600", "uplink_speed": "400G"},
            "spine": {"model": "sn5600"},
            "core": {"model": "sn5600"},
        }
    )
    exp = expand(intent, merged(Catalog()), Oversubscription(), None)
    out = [f"fabric: {{name: {name}}}\n", "switches:\n"]
    for s in exp.switches:
        rails = f", rails: [{', '.join(map(str, s.rails))}]" if s.rails else ""
        out.append(
            f"  - {{name: {s.name}, role: {s.role.value}, model: {s.model}{_opt('id', s.id)}{_opt('unit', s.unit)}"
            f"{rails}{_opt('pod', s.pod)}}}\n"
        )
    out.append("nodes:\n")
    out.extend(f"  - {{name: {n.name}, model: {n.model}{_opt('unit', n.unit)}}}\n" for n in exp.nodes)
    out.append("links:\n")
    for lk in exp.links:
        b = f", b: {lk.b_device}:{lk.b_port}" if lk.b_device else ""
        speed = _opt("speed", format_speed(lk.speed) if lk.speed else None)
        out.append(f"  - {{a: {lk.a_device}:{lk.a_port}{b}{speed}{_opt('length_m', lk.length_m)}}}\n")
    return "".join(out)


def _items(exp: Expansion) -> tuple[list[str], list[str], list[str]]:
    """The expansion's switches, nodes and links as one flow-style list item (a line) each."""
    switches = []
    for s in exp.switches:
        rails = f", rails: [{', '.join(map(str, s.rails))}]" if s.rails else ""
        switches.append(
            f"  - {{name: {s.name}, role: {s.role.value}, model: {s.model}{_opt('id', s.id)}{_opt('unit', s.unit)}"
            f"{rails}{_opt('pod', s.pod)}}}\n"
        )
    nodes = [f"  - {{name: {n.name}, model: {n.model}{_opt('unit', n.unit)}}}\n" for n in exp.nodes]
    links = []
    for lk in exp.links:
        b = f", b: {lk.b_device}:{lk.b_port}" if lk.b_device else ""
        speed = _opt("speed", format_speed(lk.speed) if lk.speed else None)
        links.append(f"  - {{a: {lk.a_device}:{lk.a_port}{b}{speed}{_opt('length_m', lk.length_m)}}}\n")
    return switches, nodes, links


def explicit_files(intent_text: str, workdir: Path, max_bytes: int = 6_000_000) -> dict[str, str]:
    """The explicit twin of the intent inventory ``intent_text``: file name → text, each under ``max_bytes``.

    The first file holds everything before ``intent:`` (``fabric:``, ``catalog:``), the switches and the nodes;
    the links follow, in as many files as keep each under ``max_bytes``. ``workdir`` holds the intent while it
    is expanded (with the fabric's own catalog and oversubscription)."""
    head, sep, _ = intent_text.partition("\nintent:")
    if not sep:
        raise ValueError("not an intent inventory: no top-level intent:")
    probe = workdir / "intent-probe.yaml"
    probe.write_text(intent_text)
    loaded = load_inventory(probe)
    inv = loaded.inventory
    assert inv.intent is not None
    exp = expand(inv.intent.rail_optimized, merged(inv.catalog), inv.fabric.oversubscription, None)
    switches, nodes, links = _items(exp)
    first = "".join([head.rstrip("\n") + "\n", "switches:\n", *switches, "nodes:\n", *nodes])
    text = first + "links:\n" + "".join(links)
    if len(text) <= max_bytes:
        return {"fabric.yaml": text}
    files = {"00-devices.yaml": first}
    chunk, size, part = ["links:\n"], 7, 1
    for line in links:
        if size + len(line) > max_bytes:
            files[f"{part:02d}-links.yaml"] = "".join(chunk)
            chunk, size, part = ["links:\n"], 7, part + 1
        chunk.append(line)
        size += len(line)
    files[f"{part:02d}-links.yaml"] = "".join(chunk)
    return files


def two_tier_yaml(spines: int = 16, leaves: int = 512, hosts_per_leaf: int = 32) -> str:
    """``spines`` × ``leaves`` written out, block style, with comments (see the module docstring)."""
    nodes = leaves * hosts_per_leaf // len(NICS)
    out = [
        "# Generated by bench/explicit.py: a two-tier fabric written out switch by switch and cable by cable.\n",
        "fabric:\n  name: explicit\n  oversubscription: {leaf: 1.0, spine: 1.0}\n\nswitches:\n",
    ]
    out.extend(f"  - name: spine{s + 1}\n    role: spine\n    model: sn5600\n    id: {s + 1}\n" for s in range(spines))
    out.extend(
        f"  - name: leaf{i + 1}\n    role: leaf\n    model: sn5600\n    id: {i + 1}\n    unit: {i // 8 + 1}\n"
        f"    rails: [{i % 8}]\n"
        for i in range(leaves)
    )
    out.append("\nnodes:\n")
    out.extend(f"  - {{name: gpu{n + 1:05d}, model: dgx-h100, unit: {n // 32 + 1}}}\n" for n in range(nodes))
    out.append("\nlinks:\n")
    for i in range(leaves):
        out.append(f"  # leaf{i + 1}: {hosts_per_leaf} host ports, then one uplink to each spine\n")
        unit, rail = i // 8, i % 8
        for h in range(hosts_per_leaf):
            node = unit * 32 + h % 32 + 1
            out.append(
                f"  - {{a: gpu{node:05d}:{NICS[rail]}, b: leaf{i + 1}:Ethernet{h * 4}, speed: 400G, length_m: 3}}\n"
            )
        for s in range(spines):
            out.append(
                f"  - {{a: leaf{i + 1}:Ethernet{256 + s * 8}, b: spine{s + 1}:Ethernet{i * 8}, speed: 800G,"
                f" length_m: 30, cable: 'AOC-{i + 1:03d}-{s + 1:02d}'}}\n"
            )
    return "".join(out)


def short_items_yaml(megabytes: float) -> str:
    """A list of short items (``- a00001``) about ``megabytes`` MB long."""
    count = int(megabytes * 1_000_000 / 9)
    return "fabric: {name: lists}\nitems:\n" + "".join(f"- a{i % 100_000:05d}\n" for i in range(count))


def tiny_items_yaml(megabytes: float) -> str:
    """The most positions per byte: a list of one-letter items (``- a``), about ``megabytes`` MB long."""
    return "fabric: {name: lists}\nitems:\n" + "- a\n" * int(megabytes * 1_000_000 / 4)


def deep_maps_yaml(megabytes: float, depth: int = 12) -> str:
    """Repeated blocks of maps nested ``depth`` levels deep, about ``megabytes`` MB long."""
    block = "".join("  " * d + f"k{d}:\n" for d in range(depth)) + "  " * depth + "leaf: value\n"
    count = int(megabytes * 1_000_000 / len(block))
    return "fabric: {name: deep}\n" + "".join(f"b{i}:\n" + "".join("  " + line + "\n" for line in
                                              block.splitlines()) for i in range(count))


def long_strings_yaml(megabytes: float, length: int = 100_000) -> str:
    """Plain scalars of ``length`` characters, about ``megabytes`` MB in all."""
    count = max(1, int(megabytes * 1_000_000 / (length + 8)))
    return "fabric: {name: strings}\nitems:\n" + "".join(f"- {'x' * length}\n" for _ in range(count))
