"""Shared fixtures: paths to the bundled inventories and a loader that resolves them."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricgen.inventory.load import load_inventory
from fabricgen.topology.model import Fabric
from fabricgen.topology.resolve import resolve

ROOT = Path(__file__).resolve().parent.parent
INVENTORIES = ROOT / "inventories"


def load_fabric(path: str | Path) -> Fabric:
    return resolve(load_inventory(path))


@pytest.fixture(scope="session")
def lab() -> Fabric:
    return load_fabric(INVENTORIES / "lab")


@pytest.fixture(scope="session")
def su1() -> Fabric:
    return load_fabric(INVENTORIES / "su1")
