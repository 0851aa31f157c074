"""Render benchmark: every switch of the 16k- and 100k-GPU example intents, for each platform.

Prints switch configs per second (render only: per-device data + templates + writing the files) per
platform and intent, and the whole 100k-GPU pipeline time (load → resolve → QoS → render everything to
disk) for the intent's own platform, plus peak RSS. Run: ``python bench/render.py [--quick]``.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from fabricgen.inventory.load import load_inventory
from fabricgen.qos import compute
from fabricgen.render import render_device
from fabricgen.render.platforms import PLATFORMS
from fabricgen.render.retarget import retarget
from fabricgen.topology.resolve import resolve

INTENT = """\
fabric: {{name: {name}}}
intent:
  rail_optimized:
    server: dgx-h100
    nodes_per_unit: 32
    units: {units}
    leaf: {{model: sn5600, uplink_speed: 400G}}
    spine: {{model: sn5600}}
    core: {{model: sn5600}}
"""


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _write_all(fabric: object, qos: object, out: Path) -> int:
    from fabricgen.topology.model import Fabric

    assert isinstance(fabric, Fabric)
    count = 0
    for name in sorted(fabric.switches):
        for f in render_device(fabric, name, qos).files:  # type: ignore[arg-type]
            path = out / f.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f.content)
        count += 1
    return count


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [("16k", 63)] if quick else [("16k", 63), ("100k", 391)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for label, units in sizes:
            inv = root / f"{label}.yaml"
            inv.write_text(INTENT.format(name=f"bench{label}", units=units))
            t0 = time.perf_counter()
            loaded = load_inventory(inv)
            fabric = resolve(loaded)
            qos = compute(fabric)
            n = _write_all(fabric, qos, root / f"out-{label}")
            total = time.perf_counter() - t0
            print(f"{label} GPUs={fabric.gpus} switches={len(fabric.switches)} pipeline load→render→disk "
                  f"(platform {next(iter(fabric.switches.values())).platform}): {total:.1f} s, {n} configs")
            for name in sorted(PLATFORMS):
                fab = resolve(retarget(loaded, name))
                q = compute(fab)
                t1 = time.perf_counter()
                n = _write_all(fab, q, root / f"out-{label}-{name}")
                dt = time.perf_counter() - t1
                print(f"  {label} {name:6s} {n} switches in {dt:.2f} s: {n / dt:,.0f} configs/s")
    print(f"peak RSS {_rss_mib():,.0f} MiB")


if __name__ == "__main__":
    main()
