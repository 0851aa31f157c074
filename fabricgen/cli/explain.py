"""`fabricgen explain INVENTORY DEVICE:PORT`: the computed QoS of one switch port or host NIC, and
where each value came from (default, platform, override, inventory, computed)."""

from __future__ import annotations

from typing import Any

import click

from fabricgen.cli import EXIT_INPUT, EXIT_OK, FORMAT, echo_json, guarded, stdout_console


def _prios(values: frozenset[int]) -> str:
    return ",".join(str(p) for p in sorted(values)) or "none"


def _platform_rows(fabric: Any, qos: Any, device: str, pq: Any) -> list[tuple[str, str, str]]:
    """How the port's platform and release write what the rows above computed, where it differs."""
    from fabricgen.inventory.releases import DEFAULT_RELEASE
    from fabricgen.render.data import cable_class, nvue_watchdog

    sw = fabric.switches[device]
    rows: list[tuple[str, str, str]] = []
    if sw.release:
        if fabric.settings.releases.get(sw.platform) == sw.release:
            source = f"inventory:fabric.releases.{sw.platform}"
        elif sw.release == DEFAULT_RELEASE.get(sw.platform):
            source = "default"
        else:
            source = "inventory:release"
        rows.append(("nos release", f"{sw.platform} {sw.release}", source))
    if sw.platform == "sonic" and pq.headroom:
        head = next(iter(pq.headroom.values()))
        c = cable_class(-(-int(head.cable_m * 1000) // 1000))
        how = (f"standard class for {c.length_m} m (SONiC's lookup has 5/40/300 m); BUFFER_PG profiles computed "
               f"for {c.length_m} m" if c.standard else "longer than SONiC's classes: the real length")
        rows.append(("sonic CABLE_LENGTH", f"{c.written} ({how})", "render:sonic"))
    if sw.platform == "sonic":
        rows += _sonic_buffer_rows(fabric, qos, device)
    if sw.platform == "nvue" and pq.watchdog is not None:
        polling, robustness, detect = nvue_watchdog(pq.watchdog.detection_ms)
        rows.append(("nvue pfc-watchdog", f"polling-interval {polling} ms x robustness {robustness} = {detect} ms; "
                     "NVUE has no restoration time", "render:nvue"))
    return rows


def _sonic_buffer_rows(fabric: Any, qos: Any, device: str) -> list[tuple[str, str, str]]:
    """The switch's SONiC HwSKU and the buffer pools its config_db.json writes, with the layout they follow."""
    from fabricgen.render.data import build_device
    from fabricgen.render.sonic import generic_pools, nvidia_layout, nvidia_pools

    sw = fabric.switches[device]
    d = build_device(fabric, device, qos)
    rows = [("sonic hwsku", sw.hwsku or "(no platform facts: ports laid out by position)",
             "inventory:hwsku" if sw.hwsku and sw.hwsku != _default_sku(sw.model) else "default")]
    if d.qos is not None:
        layout = nvidia_layout(d)
        pools, _ = nvidia_pools(d.qos.buffer, layout) if layout else generic_pools(d.qos.buffer)
        sizes = ", ".join(f"{n} {r['size']} B" + (f" (xoff {r['xoff']} B)" if "xoff" in r else "")
                          for n, r in sorted(pools.items()))
        source = f"render:sonic (NVIDIA {sw.hwsku} buffers_defaults layout)" if layout else "render:sonic"
        rows.append(("sonic buffer pools", f"{layout or 'generic'}: {sizes}", source))
    return rows


def _default_sku(model: str) -> str:
    from fabricgen.inventory.sonic_platform import sonic_platform

    facts = sonic_platform(model)
    return facts.default_sku if facts is not None else ""


def port_rows(fabric: Any, device: str, port: str) -> list[tuple[str, str, str]] | None:
    """``(value name, value, source)`` rows for a switch port or host NIC; ``None`` when unknown."""
    from fabricgen.qos import compute
    from fabricgen.qos.maps import roce_path_mtu

    qos = compute(fabric)
    pq = qos.port(device, port)
    if pq is not None:
        src = pq.sources
        sw = qos.switches[device]
        rows = [
            ("peer", pq.peer, "inventory:links"),
            ("role", pq.role, "computed"),
            ("speed", f"{pq.speed}G", "inventory:links"),
            ("mtu", str(pq.mtu), src["mtu"]),
            ("trust", pq.trust, src["trust"]),
            ("cnp_tc", str(sw.cnp_tc), src["cnp_tc"]),
            ("pfc_priorities", _prios(pq.pfc_priorities), src["pfc_priorities"]),
        ]
        for lane in pq.lanes:
            sched = "strict" if lane.scheduling == "strict" else f"ets {lane.ets_weight}%"
            dscp = ",".join(map(str, lane.dscp)) if len(lane.dscp) <= 8 else f"{len(lane.dscp)} DSCPs (the rest)"
            rows.append(
                (
                    f"lane {lane.name}",
                    f"tc {lane.tc}, DSCP {dscp}, {'lossless' if lane.lossless else 'lossy'}, {sched}"
                    f"{', ecn' if lane.ecn else ''}",
                    src["lanes"] if lane.purpose != "cnp" else src["cnp_tc"],
                )
            )
        for tc, prof in sorted(pq.ecn.items()):
            rows.append(
                (
                    f"ecn queue {tc}",
                    f"min {prof.min_bytes} B, max {prof.max_bytes} B, {prof.probability_pct}%",
                    prof.source,
                )
            )
        for pg, head in sorted(pq.headroom.items()):
            rows += [
                (f"headroom pg {pg} cable_m", f"{head.cable_m:g}", head.cable_source),
                (f"headroom pg {pg} xoff", f"{head.xoff_bytes} B", head.xoff_source),
                (f"headroom pg {pg} xon", f"{head.xon_bytes} B", f"computed ({head.source})"),
                (f"headroom pg {pg} size", f"{head.size_bytes} B", f"computed from xoff, xon ({head.source})"),
                (
                    f"pfc pg {pg} xoff threshold",
                    f"{head.xoff_threshold_bytes} B ({head.threshold}, dynamic_th {head.dynamic_th})",
                    src["pfc_threshold"],
                ),
            ]
        wd = pq.watchdog
        rows.append(
            (
                "pfc_watchdog",
                f"detect {wd.detection_ms} ms, restore {wd.restoration_ms} ms, {wd.action}" if wd else "off",
                src["watchdog"],
            )
        )
        b = sw.buffer
        rows.append(
            (
                "switch buffer",
                f"headroom {b.lossless_headroom_bytes} B of {b.pool_bytes} B ({b.lossless_pgs} lossless PGs)",
                b.source,
            )
        )
        rows += _platform_rows(fabric, qos, device, pq)
        return rows
    nic = qos.nics.get((device, port))
    if nic is None:
        return None
    s = nic.sources
    env = qos.nccl[device]
    rows = [
        ("peer", nic.peer or "not cabled", "inventory:links"),
        ("rdma_dev", nic.rdma_dev, "catalog"),
        ("driver", nic.driver, "catalog"),
        ("gpu", str(nic.gpu), "catalog"),
        ("trust", nic.trust, s["trust"]),
        ("pfc_priorities", _prios(nic.pfc_priorities), s["pfc_priorities"]),
        ("ecn_np", _prios(nic.ecn_np), s["ecn"]),
        ("ecn_rp", _prios(nic.ecn_rp), s["ecn"]),
        ("roce_tos", str(nic.roce_tos), s["roce_tos"]),
        ("cnp", f"DSCP {nic.cnp_dscp}, priority {nic.cnp_priority}", s["cnp"]),
        ("mtu", f"{nic.mtu} (RoCE path MTU {roce_path_mtu(nic.mtu)})", s["mtu"]),
    ]
    rows += [(key, value, env.sources.get(key, "")) for key, value in env.variables.items()]
    return rows


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.argument("target", metavar="DEVICE:PORT")
@FORMAT
@guarded
def explain(inventory: str, target: str, fmt: str) -> None:
    """Print the computed QoS of one switch port or host NIC (DEVICE:PORT) with the source of each value."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    if ":" not in target:
        raise click.UsageError(f"{target!r}: write DEVICE:PORT, e.g. leaf1:Ethernet0 or gpu01:enp24s0np0")
    device, port = target.split(":", 1)
    fabric = resolve(load_inventory(inventory))
    rows = port_rows(fabric, device, port)
    if rows is None:
        click.echo(f"{target}: no such cabled switch port or host NIC", err=True)
        raise SystemExit(EXIT_INPUT)
    if fmt == "json":
        echo_json({"target": target, "values": [{"name": n, "value": v, "source": s} for n, v, s in rows]})
    else:
        out = stdout_console()
        width = max(len(n) for n, _, _ in rows)
        vwidth = max(len(v) for _, v, _ in rows)
        out.print(target, markup=False)
        for name, value, source in rows:
            out.print(f"  {name:<{width}}  {value:<{vwidth}}  [{source}]", markup=False)
    raise SystemExit(EXIT_OK)
