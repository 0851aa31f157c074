"""`fabricgen lab up|down|status`: a real FRR/lldpd/sshd lab of (a slice of) the fabric in network namespaces."""

from __future__ import annotations

from ipaddress import IPv4Network

import click

from fabricgen.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, FORMAT, echo_json, guarded, stderr_console, stdout_console


def _fabric(inventory: str):  # type: ignore[no-untyped-def]
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    return resolve(load_inventory(inventory))


@click.group()
def lab() -> None:
    """Rehearse apply/drift/verify on a lab built from the inventory (Linux, root)."""


@lab.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("--slice", "slice_", help="Comma-separated switch names or globs (default: every switch).")
@click.option("--mgmt-subnet", default="198.18.0.0/24", show_default=True,
              help="Management subnet, used only inside the lab's namespaces.")
@FORMAT
@guarded
def up(inventory: str, slice_: str | None, mgmt_subnet: str, fmt: str) -> None:
    """Build the lab: one namespace per switch with FRR, lldpd and sshd, cabled as INVENTORY says."""
    from fabricgen.lab.lab import up as lab_up
    from fabricgen.lab.machine import missing_prerequisites
    from fabricgen.lab.plan import LabError

    why = missing_prerequisites()
    if why:
        stderr_console().print("fabricgen lab: " + "; ".join(why), markup=False)
        raise SystemExit(EXIT_INPUT)
    fabric = _fabric(inventory)
    try:
        state = lab_up(fabric, slice_, IPv4Network(mgmt_subnet))
    except (LabError, ValueError) as exc:
        stderr_console().print(f"fabricgen lab: {exc}", markup=False)
        raise SystemExit(EXIT_FINDINGS) from None
    if fmt == "json":
        echo_json({"fabric": state.fabric, "switches": state.switches, "cables": len(state.cables),
                   "client_netns": state.client_netns, "dir": str(state.dir)})
    else:
        out = stdout_console()
        out.print(f"lab {state.fabric}: {len(state.switches)} switches, {len(state.cables)} cables, "
                  f"management {state.subnet} (namespaces {state.prefix}-*)", markup=False)
        for name, info in state.switches.items():
            out.print(f"  {name:<12} {info['mgmt_ip']:<15} netns {info['netns']}", markup=False)
        out.print(f"apply/drift/verify on {inventory} now use this lab; `fabricgen lab down {inventory}` removes it",
                  markup=False)
    raise SystemExit(EXIT_OK)


@lab.command()
@click.argument("inventory", type=click.Path(exists=False))
@FORMAT
@guarded
def down(inventory: str, fmt: str) -> None:
    """Tear the lab down by its recorded names and pids."""
    from fabricgen.lab.lab import down as lab_down
    from fabricgen.lab.plan import LabError

    fabric = _fabric(inventory)
    try:
        state = lab_down(fabric.name)
    except LabError as exc:
        stderr_console().print(f"fabricgen lab: {exc}", markup=False)
        raise SystemExit(EXIT_FINDINGS) from None
    msg = f"lab {fabric.name}: " + ("torn down" if state else "no lab recorded; nothing to do")
    if fmt == "json":
        echo_json({"fabric": fabric.name, "torn_down": state is not None}, indent=None)
    else:
        stdout_console().print(msg, markup=False)
    raise SystemExit(EXIT_OK)


@lab.command()
@click.argument("inventory", type=click.Path(exists=False))
@FORMAT
@guarded
def status(inventory: str, fmt: str) -> None:
    """Per switch: running, daemons alive, BGP sessions Established. Exits 1 when no lab or a switch is down."""
    from fabricgen.lab.lab import load_state
    from fabricgen.lab.lab import status as lab_status

    fabric = _fabric(inventory)
    state = load_state(fabric.name)
    if state is None:
        if fmt == "json":
            echo_json({"fabric": fabric.name, "status": "down"}, indent=None)
        else:
            stdout_console().print(f"lab {fabric.name}: down", markup=False)
        raise SystemExit(EXIT_FINDINGS)
    doc = lab_status(state)
    healthy = all(r["running"] and all(r.get("daemons", {}).values()) for r in doc["switches"].values())
    if fmt == "json":
        echo_json(doc)
    else:
        out = stdout_console()
        out.print(f"lab {state.fabric}: {doc['status']}, {len(doc['switches'])} switches, {doc['cables']} cables",
                  markup=False)
        for name, r in doc["switches"].items():
            daemons = " ".join(f"{d}{'' if ok else '(DOWN)'}" for d, ok in r.get("daemons", {}).items())
            bgp = r.get("bgp") or {}
            out.print(f"  {name:<12} {'running' if r['running'] else 'NOT RUNNING':<12} {daemons}  "
                      f"bgp {bgp.get('established', '?')}/{bgp.get('configured', '?')} Established", markup=False)
    raise SystemExit(EXIT_OK if healthy else EXIT_FINDINGS)


@lab.command(name="exec", context_settings={"ignore_unknown_options": True})
@click.argument("inventory", type=click.Path(exists=False))
@click.argument("switch")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@guarded
def exec_(inventory: str, switch: str, command: tuple[str, ...]) -> None:
    """Run COMMAND on a lab switch, as at its console: `fabricgen lab exec INV leaf2 -- vtysh -c '…'`."""
    from fabricgen.lab.lab import load_state, switch_exec
    from fabricgen.lab.plan import LabError

    state = load_state(_fabric(inventory).name)
    if state is None:
        stderr_console().print("fabricgen lab: no lab is up for this inventory", markup=False)
        raise SystemExit(EXIT_FINDINGS)
    try:
        click.echo(switch_exec(state, switch, list(command)), nl=False)
    except LabError as exc:
        stderr_console().print(f"fabricgen lab: {exc}", markup=False)
        raise SystemExit(EXIT_FINDINGS) from None
    raise SystemExit(EXIT_OK)
