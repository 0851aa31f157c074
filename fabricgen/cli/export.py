"""`fabricgen export containerlab|nornir|ansible|nautobot|netbox INVENTORY [-o DIR] [--dry-run]`: the fabric as another
tool's inventory (see :mod:`fabricgen.ecosystem.export`). Files are YAML written by a YAML emitter;
a second run writes byte-identical files."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import click
from ruamel.yaml import YAML

from fabricgen.cli import EXIT_INPUT, EXIT_OK, FORMAT, echo_json, guarded, stdout_console


def dump_yaml(data: Any) -> str:
    """Block-style YAML of plain data, keys in their given order."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]  # keep the given key order
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def read_hosts(path: str, platforms: dict[str, str]) -> dict[str, Any]:
    """The management hosts file `apply`/`drift` take (``device: host``, ``host:port`` or a mapping), each
    entry checked as they check it for the device's platform (:func:`fabricgen.deploy.targets.host_port`: EOS
    defaults to eAPI's port 443, the others to SSH's 22)."""
    from ruamel.yaml.error import YAMLError

    from fabricgen.deploy.targets import TargetError, host_port
    from fabricgen.ecosystem.export import ExportError, Management

    try:
        with warnings.catch_warnings():  # a reused anchor is valid YAML: no multi-line warning on stderr
            warnings.simplefilter("ignore")
            data = YAML(typ="safe").load(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ExportError(f"{path}: not UTF-8 text") from None
    except (OSError, YAMLError) as exc:
        raise ExportError(f"{path}: {exc}".replace("\n", " ")) from None
    if not isinstance(data, dict):
        raise ExportError(f"{path}: expected a mapping device → host or {{host, port}}")
    out: dict[str, Management] = {}
    for name, entry in data.items():
        try:
            host, number = host_port(path, str(name), entry, platforms.get(str(name), "frr"))
        except TargetError as exc:
            raise ExportError(str(exc)) from None
        out[str(name)] = Management(host, number)
    return out


def export_files(kind: str, inventory: str, hosts_file: str | None, image: str) -> dict[str, str]:
    """``{relative path: text}`` of one export of the inventory."""
    from fabricgen.ecosystem import export as ex
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    loaded = load_inventory(inventory)
    if kind == "containerlab":
        from fabricgen.qos import compute
        from fabricgen.render import render_device
        from fabricgen.render.retarget import retarget

        fabric = resolve(retarget(loaded, "frr"))
        files = {f"{fabric.name}.clab.yml": dump_yaml(ex.containerlab(fabric, image=image))}
        qos = compute(fabric)
        for name in fabric.switches:
            conf = next(f for f in render_device(fabric, name, qos).files if f.path.endswith("frr.conf"))
            files[f"configs/{name}/frr.conf"] = conf.content
        files["configs/daemons"] = ex.DAEMONS
        return files
    fabric = resolve(loaded)
    mgmt = read_hosts(hosts_file, {n: s.platform for n, s in fabric.switches.items()}) if hosts_file else None
    made = ex.nornir(fabric, mgmt) if kind == "nornir" else ex.ansible(fabric, mgmt)
    return {name: dump_yaml(data) for name, data in made.items()}


@click.command()
@click.argument("kind", type=click.Choice(["containerlab", "nornir", "ansible", "nautobot", "netbox"]))
@click.argument("inventory", type=click.Path(exists=False))
@click.option("-o", "--output", "output", default=".", show_default=True, type=click.Path(file_okay=False),
              help="Output directory.")
@click.option("--dry-run", is_flag=True, help="List the files and print them; write nothing.")
@click.option("--hosts", "hosts_file", default=None, type=click.Path(dir_okay=False, exists=True),
              help="Management addresses (device: host[:port]), as for apply; nornir and ansible.")
@click.option("--image", default=None, help="Container image of the FRR nodes (containerlab).")
@FORMAT
@guarded
def export(kind: str, inventory: str, output: str, dry_run: bool, hosts_file: str | None, image: str | None,
           fmt: str) -> None:
    """Export the fabric as a containerlab topology, a Nornir SimpleInventory, an Ansible inventory, or the
    objects of a Nautobot/NetBox source of truth (nautobot: created through its API unless --dry-run)."""
    from fabricgen.ecosystem.export import FRR_IMAGE, ExportError

    if kind in ("nautobot", "netbox"):
        from fabricgen.cli.sot import export_sot

        export_sot(kind, inventory, dry_run, fmt)

    try:
        files = export_files(kind, inventory, hosts_file, image or FRR_IMAGE)
    except ExportError as exc:
        click.echo(f"fabricgen export {kind}: {exc}", err=True)
        raise SystemExit(EXIT_INPUT) from None
    out = Path(output)
    if not dry_run:
        for rel, text in files.items():
            path = out / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    if fmt == "json":
        echo_json({"dry_run": dry_run, "files": [str(out / rel) for rel in files]})
    else:
        console = stdout_console()
        for rel, text in files.items():
            console.print(f"{'would write' if dry_run else 'wrote'} {out / rel}", markup=False)
            if dry_run and rel.endswith((".yaml", ".yml")):
                console.print(text, markup=False, end="")
    raise SystemExit(EXIT_OK)
