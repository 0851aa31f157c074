"""`fabricgen render`: one native configuration per switch, plus the host files."""

from __future__ import annotations

from pathlib import Path

import click

from fabricgen.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, guarded, stderr_console, stdout_console
from fabricgen.render.check import Checked, ToCheck, check_files


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--platform", "platform_name", default=None, help="Render every switch for this platform instead.")
@click.option("--device", "devices", multiple=True, help="Render only this switch (repeatable).")
@click.option("--check", "check", is_flag=True,
              help="Validate what was written with the NOS vendor's schema: SONiC config_db.json with libyang and "
                   "SONiC's YANG models (the yang extra), NVUE startup.yaml with NVIDIA's NVUE schema of the "
                   "switch's release (the oracles extra). Exits 1 if a file fails.")
@guarded
def render(inventory: str, out_dir: str, platform_name: str | None, devices: tuple[str, ...], check: bool) -> None:
    """Render INVENTORY into OUTPUT/<switch>/<files> and OUTPUT/hosts/<node>/{nic-qos.sh,nccl.env}.

    Output is deterministic: a second run writes byte-identical files. Exits 3 on input errors; with
    --check, 1 when a written file fails its platform's schema.
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
    to_check: list[ToCheck] = []
    for name in sorted(devices or fabric.switches):
        sw = fabric.switches[name]
        for f in render_device(fabric, name, qos).files:
            _write(root / f.path, f.content)
            written += 1
            oracle_file = ORACLE_FILES.get(sw.platform)
            if oracle_file is not None and f.path.endswith(oracle_file):
                to_check.append(ToCheck(str(root / f.path), sw.platform, sw.release, f.content))
    hosts = 0
    if not devices:
        for node, files in sorted(host_files(qos.nics, qos.nccl).items()):
            for fname, text in sorted(files.items()):
                _write(root / "hosts" / node / fname, text)
                written += 1
            hosts += 1
    count = len(devices) if devices else len(fabric.switches)
    out = stdout_console()
    out.print(f"rendered {count} switch(es) and {hosts} host(s): {written} files in {root}", markup=False)
    if check:
        platforms = {fabric.switches[n].platform for n in (devices or fabric.switches)}
        raise SystemExit(_report_checks(check_files(to_check), platforms - set(ORACLE_FILES)))
    raise SystemExit(EXIT_OK)


ORACLE_FILES = {"sonic": "/config_db.json", "nvue": "/startup.yaml"}
"""The file of each platform that has an oracle (:mod:`fabricgen.render.check`)."""


def _report_checks(results: list[Checked], without: set[str]) -> int:
    """One line per platform and release saying which oracle ran over how many files, then one line per
    problem (stderr); the exit code: 1 if any file failed."""
    out, err = stdout_console(), stderr_console()
    failed = False
    for r in results:
        if not r.ran:
            out.print(f"check {r.platform} {r.release}: {r.oracle} ({r.files} file(s) unchecked)", markup=False)
            continue
        bad = len({path for path, _ in r.problems})
        verdict = f"{bad} of {r.files} file(s) invalid" if bad else f"{r.files} file(s) valid"
        out.print(f"check {r.platform} {r.release}: {r.oracle}: {verdict}", markup=False)
        for path, problem in r.problems:
            err.print(f"{path}: {problem}", markup=False, soft_wrap=True)
        failed = failed or bad > 0
    for plat in sorted(without):
        out.print(f"check {plat}: no schema oracle for this platform", markup=False)
    return EXIT_FINDINGS if failed else EXIT_OK


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.write_text(text, encoding="utf-8")
