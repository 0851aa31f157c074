"""What every lab test module shares: the lab inventory under a fabric name of its own, and one lab up at a time.

A module names its fabric (so a user's lab of ``lab-frr`` is never touched) and brings its lab up with
:func:`lab_up`, which holds ``/tmp/fabricgen-test-lab.lock`` for as long as the lab runs: checkouts or modules
that run side by side on one machine take turns, and every namespace is gone when the module ends, also on
failure.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricgen.lab import lab as labmod
from fabricgen.lab.machine import missing_prerequisites, netns_exists
from tests.conftest import INVENTORIES, require

LOCK = "/tmp/fabricgen-test-lab.lock"
WHY = missing_prerequisites()
"""Why the lab cannot run on this machine (empty when it can)."""


def skip_module_without_lab() -> None:
    """Called at a lab module's top: skip the whole module where the lab cannot run — but not under ``CI``,
    where :func:`lab_up` fails instead, so a green CI proves the lab tests ran."""
    if WHY and not os.environ.get("CI"):
        pytest.skip("lab tests need: " + "; ".join(WHY), allow_module_level=True)


def lab_inventory(directory: Path, fabric: str) -> Path:
    """``inventories/lab-frr`` written to ``directory`` under the fabric name ``fabric``."""
    text = (INVENTORIES / "lab-frr" / "fabric.yaml").read_text().replace("name: lab-frr", f"name: {fabric}")
    (directory / "fabric.yaml").write_text(text)
    return directory


def isolated_state(state: Path) -> Iterator[dict[str, str]]:
    """For a test module: fabricgen's state directory at ``state`` and no credentials from the environment (the
    lab's own key is used); what was there before is restored after."""
    saved = {k: os.environ.get(k) for k in ("FABRICGEN_STATE_DIR", "FABRICGEN_USERNAME", "FABRICGEN_PASSWORD")}
    os.environ["FABRICGEN_STATE_DIR"] = str(state)
    os.environ.pop("FABRICGEN_USERNAME", None)
    os.environ.pop("FABRICGEN_PASSWORD", None)
    yield {"FABRICGEN_STATE_DIR": str(state)}
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def lab_up(inventory: Path) -> Iterator[labmod.LabState]:
    """The lab of ``inventory``, up while the generator is suspended (a module-scoped fixture yields from it);
    one left behind by an earlier run of the same fabric is taken down first."""
    from fabricgen.inventory.load import load_inventory
    from fabricgen.topology.resolve import resolve

    require(not WHY, "lab tests need: " + "; ".join(WHY))
    fabric = resolve(load_inventory(inventory))
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        leftover = labmod.load_state(fabric.name)
        if leftover is not None:
            labmod.down_state(leftover)
        state = labmod.up(fabric)
        try:
            yield state
        finally:
            labmod.down_state(state)
            assert not any(netns_exists(ns) for ns in state.netns_created), "namespaces left behind"
            assert not state.dir.exists()
