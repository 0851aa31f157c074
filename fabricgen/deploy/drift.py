"""Intended vs running configuration on every device, read-only (only getters are called)."""

from __future__ import annotations

from typing import Any

from fabricgen.deploy.normalize import ConfigDiff, compare


def drift_device(platform: str, intended: str, driver: Any) -> ConfigDiff:
    running = driver.get_config(retrieve="running")["running"]
    return compare(platform, intended, running)
