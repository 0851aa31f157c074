"""Intended vs running configuration on every device, read-only (only getters are called).

The running configuration is always read sanitized (``get_config(sanitized=True)``: NAPALM's own sanitizer on
EOS/NX-OS/Junos, fabricgen's masking on its drivers), and compared by :func:`fabricgen.deploy.normalize.compare`,
the comparison ``apply`` uses to decide whether a device needs a change.

A device whose commit-confirm is still pending (``has_pending_commit()``, on every platform with a device timer:
an apply was interrupted inside its revert window) is never "in sync", whatever its running configuration says:
that configuration reverts by itself. Its result is a :class:`PendingDiff`, which counts as drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabricgen.deploy.commit import semantics
from fabricgen.deploy.normalize import ConfigDiff, compare


@dataclass(frozen=True)
class PendingDiff(ConfigDiff):
    """The comparison of a device with an armed revert timer: ``pending`` says what will happen; always drift."""

    pending: str = ""

    @property
    def drifted(self) -> bool:
        return True

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "pending": self.pending}


def pending_note(platform: str) -> str:
    """What a pending commit-confirm means for the device, in words."""
    return (f"a commit-confirm is pending (an interrupted apply's revert timer is armed): "
            f"{semantics(platform).lost_session}; the running configuration is not what will stay")


def drift_device(platform: str, intended: str, driver: Any) -> ConfigDiff:
    running = driver.get_config(retrieve="running", sanitized=True)["running"]
    return compare(platform, intended, running)


def drift_or_pending(platform: str, intended: str, driver: Any) -> ConfigDiff:
    """:func:`drift_device`, as a :class:`PendingDiff` when a commit-confirm is pending on the device (asked
    explicitly, on every platform whose device keeps a timer: ``has_pending_commit()`` only reads)."""
    diff = drift_device(platform, intended, driver)
    if semantics(platform).device_timer and driver.has_pending_commit():
        return PendingDiff(diff.missing, diff.unexpected, diff.impact, diff.named_only, pending_note(platform))
    return diff
