"""`fabricgen hosts INVENTORY -o DIR`: write DIR/<node>/nic-qos.sh and DIR/<node>/nccl.env for every node.

The text comes from :mod:`fabricgen.qos.host` (pure functions over the computed QoS), so the host files
agree with the switch side by construction. Writing is deterministic: a second run is byte-identical.
"""

from __future__ import annotations

from pathlib import Path

import click

from fabricgen.cli import EXIT_OK, FORMAT, echo_json, guarded, stdout_console, writing


def write_host_files(files: dict[str, dict[str, str]], out_dir: Path) -> list[Path]:
    """Write ``{node: {filename: text}}`` under ``out_dir``; the script is made executable. Returns paths."""
    written: list[Path] = []
    for node, by_name in sorted(files.items()):
        node_dir = out_dir / node
        node_dir.mkdir(parents=True, exist_ok=True)
        for name, text in sorted(by_name.items()):
            path = node_dir / name
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            path.chmod(0o755 if name.endswith(".sh") else 0o644)
            written.append(path)
    return written


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False), help="Output directory.")
@FORMAT
@guarded
def hosts(inventory: str, output: str, fmt: str) -> None:
    """Write each node's NIC QoS script and NCCL environment file, from the fabric's QoS policy."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.qos.host import host_files
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    qos = compute(fabric)
    with writing(output):
        written = write_host_files(host_files(qos.nics, qos.nccl), Path(output))
    if fmt == "json":
        echo_json({"written": [str(p) for p in written]})
    else:
        stdout_console().print(f"wrote {len(written)} files for {len(written) // 2} nodes under {output}", markup=False)
    raise SystemExit(EXIT_OK)
