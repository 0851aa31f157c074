"""Intended vs running configuration on every device, read-only (only getters are called).

The running configuration is always read sanitized (``get_config(sanitized=True)``: NAPALM's own sanitizer on
EOS/NX-OS/Junos, fabricgen's masking on its drivers), and compared by :func:`fabricgen.deploy.normalize.compare`,
the comparison ``apply`` uses to decide whether a device needs a change.
"""

from __future__ import annotations

from typing import Any

from fabricgen.deploy.normalize import ConfigDiff, compare


def drift_device(platform: str, intended: str, driver: Any) -> ConfigDiff:
    running = driver.get_config(retrieve="running", sanitized=True)["running"]
    return compare(platform, intended, running)
