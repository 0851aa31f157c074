"""`fabricgen trust INVENTORY`: record the TLS certificate each EOS switch presents (trust on first contact)."""

from __future__ import annotations

import click

from fabricgen.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, FORMAT, echo_json, guarded, stderr_console, stdout_console


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("--hosts", type=click.Path(exists=True, dir_okay=False), help="YAML/JSON: device → host[:port] or entry.")
@click.option("--known-certs", type=click.Path(dir_okay=False),
              help="File to record into (default $FABRICGEN_KNOWN_CERTS or ~/.config/fabricgen/known_certs).")
@click.option("--only", help="Comma-separated device names or globs.")
@click.option("--timeout", type=click.IntRange(1, 600), default=10, show_default=True, help="Seconds per device.")
@FORMAT
@guarded
def trust(inventory: str, hosts: str | None, known_certs: str | None, only: str | None, timeout: int,
          fmt: str) -> None:
    """Record the TLS certificate every EOS switch of INVENTORY presents now (eAPI over HTTPS) in the
    known-certificates file, as `HOST[:PORT] sha256:<hex>`: trust on first contact, made explicit.

    Only a TLS handshake is made: no HTTP request, no credential. Nothing proves the answering device is the
    switch, so compare each printed fingerprint with the switch's own before the first apply: on its console, in
    `bash`, `openssl s_client -connect 127.0.0.1:443 </dev/null 2>/dev/null | openssl x509 -outform der |
    sha256sum` prints the hex after `sha256:` (eAPI in a VRF: `sudo ip netns exec ns-VRF` before it). A
    certificate that differs from a recorded one is refused and never replaced (exit 1); delete its line to record
    a new one. apply/drift/verify never record anything. Exits 0
    when every certificate is recorded, 1 when one differs or a switch did not answer, 3 on input errors.
    """
    from fabricgen.deploy import certs
    from fabricgen.deploy.drivers.eos import peer_fingerprint
    from fabricgen.deploy.targets import TargetError, host_targets
    from fabricgen.deploy.transport import TransportError, socket_factory
    from fabricgen.inventory.load import load_inventory
    from fabricgen.lab.plan import select
    from fabricgen.topology.resolve import resolve

    fabric = resolve(load_inventory(inventory))
    path = certs.default_path(known_certs)
    try:
        targets = host_targets(fabric, hosts, known_certs=known_certs)
    except TargetError as exc:
        stderr_console().print(f"fabricgen: {exc}", markup=False)
        raise SystemExit(EXIT_INPUT) from None
    names = [n for n in (select(fabric, only) if only else targets)
             if n in targets and targets[n].platform == "eos" and targets[n].transport == "https"]
    results: dict[str, dict[str, str]] = {}
    for n in names:
        t = targets[n]
        try:
            fp = peer_fingerprint(t.host, t.port, timeout, socket_factory(t, timeout))
            added = certs.record(path, t.host, t.port, fp)
            results[n] = {"address": f"{t.host}:{t.port}", "fingerprint": fp,
                          "status": "recorded" if added else "already recorded"}
        except certs.CertsError as exc:
            results[n] = {"address": f"{t.host}:{t.port}", "status": "differs", "error": str(exc)}
        except (OSError, TransportError) as exc:
            results[n] = {"address": f"{t.host}:{t.port}", "status": "unreachable",
                          "error": str(exc) or type(exc).__name__}
    failed = [n for n, r in results.items() if r["status"] in ("differs", "unreachable")]
    if fmt == "json":
        echo_json({"known_certs": path, "devices": results, "failed": failed})
    else:
        out = stdout_console()
        out.print(f"trust: {len(names)} EOS switch(es) over HTTPS → {path}", markup=False)
        for n, r in results.items():
            detail = r.get("fingerprint") or r.get("error", "")
            out.print(f"  {n} {r['address']}: {r['status']}: {detail}", markup=False)
        recorded = [targets[n].port for n, r in results.items() if r["status"] == "recorded"]
        if recorded:
            out.print("compare each recorded fingerprint with the switch's own before trusting it: on its console, "
                      f"in `bash`, `{certs.on_switch_command(recorded[0])}` prints the hex after sha256: (the eAPI "
                      "port the switch listens on; in a VRF, `sudo ip netns exec ns-VRF` before it)", markup=False,
                      soft_wrap=True)  # one line, whatever the width: the command is copied from it
    raise SystemExit(EXIT_FINDINGS if failed else EXIT_OK)
