"""The frr platform's frr.conf is exactly what FRR 8.4 prints back (``show running-config``).

Runs real FRR (zebra + bgpd) in a private network, mount and UTS namespace with its own /etc/frr and
/run, loads the rendered file and compares. Needs root and ``unshare``; skips otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from fabricgen.render import render_device
from tests.conftest import INVENTORIES
from tests.test_render_common import fabric_as, qos_of
from tests.test_render_frr import vtysh_dryrun

SCRIPT = r"""
set -e
mount --bind "$W/etc" /etc/frr
mount --bind "$W/run" /run
mount --bind "$W/log" /var/log/frr
mkdir -p /run/frr && chown frr:frr /run/frr
hostname "$HOST"
sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip link set lo up
n=0
for i in $IFACES; do n=$((n+1)); ip link add "$i" type veth peer name "peer$n"; ip link set "$i" up; done
/usr/lib/frr/frrinit.sh start >/dev/null 2>&1
sleep 1
vtysh -c 'show running-config'
/usr/lib/frr/frrinit.sh stop >/dev/null 2>&1
"""


def _running_config(tmp_path: Path, host: str, conf: str, ifaces: list[str]) -> str:
    work = tmp_path / host
    for sub in ("etc", "run", "log"):
        (work / sub).mkdir(parents=True)
    shutil.copytree("/etc/frr", work / "etc", dirs_exist_ok=True)
    daemons = (work / "etc" / "daemons").read_text().replace("bgpd=no", "bgpd=yes").replace("bfdd=no", "bfdd=yes")
    (work / "etc" / "daemons").write_text(daemons)
    (work / "etc" / "frr.conf").write_text(conf)
    shutil.chown(work / "etc", "frr", "frr")
    for f in (work / "etc").iterdir():
        shutil.chown(f, "frr", "frr")
    env = {**os.environ, "W": str(work), "HOST": host, "IFACES": " ".join(ifaces)}
    proc = subprocess.run(
        ["unshare", "--net", "--mount", "--uts", "--propagation", "private", "bash", "-c", SCRIPT],
        capture_output=True, text=True, timeout=60, env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _can_run_frr() -> bool:
    return os.geteuid() == 0 and Path("/usr/lib/frr/frrinit.sh").exists() and shutil.which("unshare") is not None


def test_frr_conf_passes_vtysh_dryrun(tmp_path: Path) -> None:
    fabric = fabric_as(INVENTORIES / "lab", "frr")
    qos = qos_of(INVENTORIES / "lab", "frr")
    for name in sorted(fabric.switches):
        vtysh_dryrun(tmp_path, render_device(fabric, name, qos).main)


@pytest.mark.skipif(not _can_run_frr(), reason="needs root, unshare and FRR to start a private FRR instance")
@pytest.mark.parametrize("name", ["leaf1", "spine1"])
def test_frr_conf_is_what_frr_echoes(tmp_path: Path, name: str) -> None:
    fabric = fabric_as(INVENTORIES / "lab", "frr")
    cfg = render_device(fabric, name, qos_of(INVENTORIES / "lab", "frr"))
    ifaces = [p.name for p in fabric.switches[name].ports]
    echoed = _running_config(tmp_path, name, cfg.main, ifaces)
    body = echoed.split("Current configuration:\n", 1)[1].removeprefix("!\n")
    assert body == cfg.main


@pytest.mark.skipif(not _can_run_frr(), reason="needs root, unshare and FRR to start a private FRR instance")
def test_a_drained_switch_with_its_own_bfd_timers_is_what_frr_echoes(tmp_path: Path) -> None:
    """The lines only a drain or non-default BFD timers render (graceful-shutdown on the export, the profile's
    timers) are FRR's own words too."""
    import dataclasses

    from fabricgen.inventory.load import load_inventory
    from fabricgen.inventory.schema import BfdSettings
    from fabricgen.qos import compute
    from fabricgen.render.retarget import retarget
    from fabricgen.topology.resolve import resolve

    loaded = retarget(load_inventory(INVENTORIES / "lab"), "frr")
    settings = loaded.inventory.fabric.model_copy(
        update={"drain": ["spine1"], "bfd": BfdSettings(interval_ms=100, multiplier=4)})
    fabric = resolve(dataclasses.replace(loaded, inventory=loaded.inventory.model_copy(update={"fabric": settings})))
    cfg = render_device(fabric, "spine1", compute(fabric))
    assert "  detect-multiplier 4\n  transmit-interval 100\n  receive-interval 100\n" in cfg.main
    assert "set community 64512:2 graceful-shutdown additive" in cfg.main
    echoed = _running_config(tmp_path, "spine1", cfg.main, [p.name for p in fabric.switches["spine1"].ports])
    assert echoed.split("Current configuration:\n", 1)[1].removeprefix("!\n") == cfg.main
