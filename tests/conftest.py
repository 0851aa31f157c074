"""Shared fixtures: paths to the bundled inventories and a loader that resolves them, and the SONiC YANG models
of ``../shared/sonic-yang`` for every test (``FABRICGEN_SONIC_YANG_DIR``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricgen.inventory.load import load_inventory
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve

ROOT = Path(__file__).resolve().parent.parent
INVENTORIES = ROOT / "inventories"
SHARED = ROOT.parent / "shared"
"""The domain data beside the repository (its checkout's parent holds ``shared/``, on CI too)."""
SONIC_YANG = SHARED / "sonic-yang"
"""SONiC's YANG models the tests validate config_db.json with (a sonic-buildimage snapshot, see its SOURCE.txt)."""
PORTS_UNVALIDATED = ["BREAKOUT_CFG"]
"""The table every SONiC switch with platform facts (fabricgen.inventory.sonic_platform) writes that
:data:`SONIC_YANG` has no model for (it lacks sonic-breakout_cfg): not validated by YANG, and said so; its every
entry is held against the platform's own platform.json and hwsku.json by tests/test_sonic_platform.py instead."""
LAB_UNVALIDATED = ["BREAKOUT_CFG", "MGMT_VRF_CONFIG", "NTP", "NTP_SERVER", "SNMP", "SNMP_COMMUNITY", "SYSLOG_SERVER"]
"""The tables of the lab's SONiC config_db.json that :data:`SONIC_YANG` has no model for (it lacks
sonic-breakout_cfg, sonic-mgmt_vrf, sonic-ntp, sonic-snmp and sonic-syslog): not validated, and said so. A new gap,
or a model added, changes it."""


def require(condition: bool, reason: str) -> None:
    """Skip a test whose real tool (FRR, libyang, cairo, the lab) is missing here — but fail under CI,
    where ``.ci/run`` installs every one of them, so a green CI proves the real validators ran."""
    if not condition:
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set: this test must run)", pytrace=False)
        pytest.skip(reason)


def load_fabric(path: str | Path) -> Fabric:
    return resolve(load_inventory(path))


@pytest.fixture(scope="session")
def lab() -> Fabric:
    return load_fabric(INVENTORIES / "lab")


@pytest.fixture(scope="session")
def su1() -> Fabric:
    return load_fabric(INVENTORIES / "su1")


@pytest.fixture(scope="session", autouse=True)
def sonic_yang_dir() -> Iterator[Path]:
    """``FABRICGEN_SONIC_YANG_DIR`` set to :data:`SONIC_YANG` for the whole run (child processes too), so the SONiC
    oracle of every test, and of ``render --check`` run by a test, is the same directory of models."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FABRICGEN_SONIC_YANG_DIR", str(SONIC_YANG))
        yield SONIC_YANG
