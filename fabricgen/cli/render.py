"""`fabricgen render`: one native configuration per switch, plus the host files."""

from __future__ import annotations

from pathlib import Path

import click

from fabricgen.cli import EXIT_INPUT, EXIT_OK, guarded, stderr_console, stdout_console


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--platform", "platform_name", default=None, help="Render every switch for this platform instead.")
@click.option("--device", "devices", multiple=True, help="Render only this switch (repeatable).")
@guarded
def render(inventory: str, out_dir: str, platform_name: str | None, devices: tuple[str, ...]) -> None:
    """Render INVENTORY into OUTPUT/<switch>/<files> and OUTPUT/hosts/<node>/{nic-qos.sh,nccl.env}.

    Output is deterministic: a second run writes byte-identical files. Exits 3 on input errors.
    """
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.qos.host import host_files
    from fabricgen.render import render_device
    from fabricgen.render.platforms import PLATFORMS
    from fabricgen.render.retarget import retarget
    from fabricgen.topology.resolve import resolve

    err = stderr_console()
    if platform_name is not None and platform_name not in PLATFORMS:
        err.print(f"fabricgen render: unknown platform {platform_name!r}; one of {', '.join(sorted(PLATFORMS))}",
                  markup=False)
        raise SystemExit(EXIT_INPUT)
    loaded = load_inventory(inventory)
    if platform_name is not None:
        loaded = retarget(loaded, platform_name)
    fabric = resolve(loaded)
    unknown = sorted(set(devices) - set(fabric.switches))
    if unknown:
        err.print(f"fabricgen render: unknown switch(es): {', '.join(unknown)}", markup=False)
        raise SystemExit(EXIT_INPUT)
    qos = compute(fabric)
    root = Path(out_dir)
    written = 0
    for name in sorted(devices or fabric.switches):
        for f in render_device(fabric, name, qos).files:
            _write(root / f.path, f.content)
            written += 1
    hosts = 0
    if not devices:
        for node, files in sorted(host_files(qos.nics, qos.nccl).items()):
            for fname, text in sorted(files.items()):
                _write(root / "hosts" / node / fname, text)
                written += 1
            hosts += 1
    count = len(devices) if devices else len(fabric.switches)
    stdout_console().print(f"rendered {count} switch(es) and {hosts} host(s): {written} files in {root}",
                           markup=False)
    raise SystemExit(EXIT_OK)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.write_text(text, encoding="utf-8")
