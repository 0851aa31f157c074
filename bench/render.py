"""Render benchmark: every switch of the 16k- and 100k-GPU example intents, for each platform.

Prints switch configs per second per platform and intent — rendering alone (per-device data and
templates, on one core) and with the files written to disk — and the whole pipeline time (load →
resolve → QoS → render everything to disk) for the intent's own platform, plus peak RSS.
Run: ``python bench/render.py [--quick]``.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from intents import intent_yaml  # bench/intents.py

from fabricgen.inventory.load import load_inventory
from fabricgen.qos import compute
from fabricgen.qos.model import FabricQos
from fabricgen.render import DeviceConfig, render_device
from fabricgen.render.platforms import PLATFORMS
from fabricgen.render.retarget import retarget
from fabricgen.runtime import tune_gc
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _render_all(fabric: Fabric, qos: FabricQos) -> list[DeviceConfig]:
    return [render_device(fabric, name, qos) for name in sorted(fabric.switches)]


def _write(configs: list[DeviceConfig], out: Path) -> None:
    for config in configs:
        (out / config.device).mkdir(parents=True, exist_ok=True)
        for f in config.files:
            (out / f.path).write_text(f.content)


def main() -> None:
    tune_gc()  # as the command line does
    quick = "--quick" in sys.argv
    sizes = [("16k", 63)] if quick else [("16k", 63), ("100k", 391)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for label, units in sizes:
            inv = root / f"{label}.yaml"
            inv.write_text(intent_yaml(f"bench{label}", units))
            t0 = time.perf_counter()
            loaded = load_inventory(inv)
            fabric = resolve(loaded)
            qos = compute(fabric)
            configs = _render_all(fabric, qos)
            _write(configs, root / f"out-{label}")
            n = len(configs)
            total = time.perf_counter() - t0
            print(f"{label} GPUs={fabric.gpus} switches={len(fabric.switches)} pipeline load→render→disk "
                  f"(platform {next(iter(fabric.switches.values())).platform}): {total:.1f} s, {n} configs")
            for name in sorted(PLATFORMS):
                fab = resolve(retarget(loaded, name))
                q = compute(fab)
                t1 = time.perf_counter()
                configs = _render_all(fab, q)
                t2 = time.perf_counter()
                _write(configs, root / f"out-{label}-{name}")
                t3 = time.perf_counter()
                n, mb = len(configs), sum(len(f.content) for c in configs for f in c.files) / 1e6
                print(f"  {label} {name:6s} {n} switches: render {n / (t2 - t1):,.0f} configs/s; "
                      f"with writing {mb:,.0f} MB to disk {n / (t3 - t1):,.0f} configs/s")
                del configs, fab, q
    print(f"peak RSS {_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
