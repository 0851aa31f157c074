"""`fabricgen render`: one native configuration per switch, plus the host files."""

from __future__ import annotations

from pathlib import Path

import click

from fabricgen.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, guarded, stderr_console, stdout_console, writing
from fabricgen.cli.gate import allow_findings_option, blocking, summary
from fabricgen.inventory.catalog import PLATFORMS


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--platform", "platform_name", type=click.Choice(sorted(PLATFORMS)), default=None,
              help="Render every switch for this platform instead.")
@click.option("--device", "devices", multiple=True, help="Render only this switch (repeatable).")
@allow_findings_option
@guarded
def render(inventory: str, out_dir: str, platform_name: str | None, devices: tuple[str, ...],
           allow_findings: frozenset[str]) -> None:
    """Render INVENTORY into OUTPUT/<switch>/<files> and OUTPUT/hosts/<node>/{nic-qos.sh,nccl.env}.

    Output is deterministic: a second run writes byte-identical files (unchanged files are not rewritten).
    Every check runs too: with error findings the files are still written, the findings are counted on
    stderr and the exit code is 1 (unless --allow-findings names each failing rule), so a pipeline never
    ships what `fabricgen validate` rejects. Exits 3 on input errors or an output path that cannot be written.
    """
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.qos.host import host_files
    from fabricgen.render import render_device
    from fabricgen.render.retarget import retarget
    from fabricgen.topology.resolve import resolve

    err = stderr_console()
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
    writer = _Writer(root)
    with writing(root):
        for name in sorted(devices or fabric.switches):
            for f in render_device(fabric, name, qos).files:
                writer.write(f.path, f.content)
                written += 1
        hosts = 0
        if not devices:
            for node, files in sorted(host_files(qos.nics, qos.nccl).items()):
                for fname, text in sorted(files.items()):
                    writer.write(f"hosts/{node}/{fname}", text)
                    written += 1
                hosts += 1
    count = len(devices) if devices else len(fabric.switches)
    stdout_console().print(f"rendered {count} switch(es) and {hosts} host(s): {written} files in {root}",
                           markup=False)
    refused, waived = blocking(fabric, allow_findings)
    if waived:
        err.print(f"render: {summary(waived)} allowed by --allow-findings", markup=False)
    if refused:
        err.print(f"render: {summary(refused)}: the files were written, but `fabricgen validate {inventory}` "
                  "rejects this fabric", markup=False)
        raise SystemExit(EXIT_FINDINGS)
    raise SystemExit(EXIT_OK)


class _Writer:
    """Writes files under a root, creating each directory once and leaving unchanged files untouched."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.made: set[Path] = set()

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        parent = path.parent
        if parent not in self.made:
            parent.mkdir(parents=True, exist_ok=True)
            self.made.add(parent)
        try:
            if path.read_text(encoding="utf-8") == text:
                return
        except FileNotFoundError:
            pass
        except (UnicodeDecodeError, IsADirectoryError):
            pass
        path.write_text(text, encoding="utf-8")
