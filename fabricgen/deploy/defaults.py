"""Lines that state a platform default: equivalent to their absence, on either side of a comparison.

A device hides some defaults that fabricgen renders (EOS never shows ``lldp run``), and shows some that
fabricgen does not render (EOS always shows ``transceiver qsfp default-mode 4x10G``). Neither is a difference:
a replace that lacks the line leaves the device at that default, and a candidate that states it changes
nothing. :func:`fabricgen.deploy.normalize.compare` drops every path listed here from both sides before
comparing; a line that sets a *non*-default value (``no lldp run``, ``spanning-tree mode none``) is never
listed, so it stays a difference.

Each entry is a whole path (one configuration line per element, each an :mod:`fnmatch` pattern of the whole
line) and cites its evidence. FRR's profile defaults live with its driver
(:data:`fabricgen.deploy.drivers.frr.DATACENTER_DEFAULTS`, applied while FRR paths are read); its ``frr version``
banner is skipped while reading. FRR 8.4 echoes every other line fabricgen renders and adds none: a lab leaf's
``show running-config`` after an apply is the rendered frr.conf line for line (``tests/test_lab_live.py``
proves a fresh lab in sync), so FRR has no entry here.

Platforms with no hidden-default entry, and why: Junos and NVUE show every statement a commit or ``nv config
apply`` was given, defaults included (``show configuration`` and ``nv config show`` print the configuration, not
the resolved state; defaults appear only with ``| display inheritance defaults`` / ``nv show``); SONiC's
``show runningconfiguration all`` prints config_db as written. NX-OS hides defaults in ``show running-config``
(``show running-config all`` shows them), but no stored source says which of the lines fabricgen renders are
defaults there, so none is listed: a rendered NX-OS line equal to its default would show as missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from fabricgen.deploy.drivers.frr import DATACENTER_DEFAULTS

REAL_EOS = "recorded EOS running-configurations in ../shared/real-configs/eos (SOURCES.md)"


@dataclass(frozen=True)
class Default:
    path: tuple[str, ...]
    source: str

    def matches(self, path: tuple[str, ...]) -> bool:
        return len(path) == len(self.path) and all(
            fnmatchcase(have, want) for want, have in zip(self.path, path, strict=True))


EOS: tuple[Default, ...] = (
    # hidden: rendered by fabricgen, never shown by EOS at its default
    Default(("lldp run",), "LLDP runs by default on EOS: pyavd's eos/lldp.j2 renders only 'no lldp run', never "
            "'lldp run', and none of the " + REAL_EOS + " shows either line"),
    Default(("management api http-commands", "protocol https"),
            "HTTPS is the eAPI server's default protocol (Arista Command API guide: 'HTTPS server: running' "
            "once the API is enabled, HTTP shut down); a cEOS 4.32.5M running-config shows 'management api "
            "http-commands / no shutdown / vrf MGMT / no shutdown' without it (" + REAL_EOS + ")"),
    # shown: not rendered by fabricgen, always shown by EOS
    Default(("transceiver qsfp default-mode 4x10G",),
            "shown at its default by every one of the " + REAL_EOS + " (vEOS 4.15, 7280SR2K 4.25, cEOS 4.30)"),
    Default(("spanning-tree mode mstp",),
            "MSTP is EOS's default spanning-tree mode, shown by every one of the " + REAL_EOS),
)
"""Arista EOS. ``no shutdown`` under ``management api http-commands`` is *not* a default (eAPI is disabled by
default; every recorded configuration shows the line), so it is not listed."""

JUNOS: tuple[Default, ...] = (
    Default(("version", "*"), "Junos writes the 'version' statement itself on every commit (Junos CLI User "
            "Guide: the software version is recorded at the top of the configuration); no replace removes it"),
)

NXOS: tuple[Default, ...] = (
    Default(("version * Bios:version*",), "NX-OS prints its software and BIOS version as the first statement of "
            "'show running-config' (Cisco Nexus 9000 NX-OS Fundamentals Configuration Guide, 'Managing the "
            "Configuration Files'); it is written by the system, never by a configuration"),
)

TABLES: dict[str, tuple[Default, ...]] = {"eos": EOS, "nxos": NXOS, "junos": JUNOS}


def is_platform_default(platform: str, path: tuple[str, ...]) -> bool:
    """Whether ``path`` states a default of ``platform`` (dropped from both sides of a comparison).

    >>> is_platform_default("eos", ("lldp run",)), is_platform_default("eos", ("no lldp run",))
    (True, False)
    >>> is_platform_default("eos", ("management api http-commands", "protocol https"))
    True
    >>> is_platform_default("eos", ("management api http-commands", "protocol http"))
    False
    """
    return any(d.matches(path) for d in TABLES.get(platform, ()))


def drop_defaults(platform: str, paths: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """``paths`` without the platform's defaults, and without a block opener that held only defaults (its
    block is the default too)."""
    table = TABLES.get(platform)
    if not table:
        return paths
    kept = [p for p in paths if not is_platform_default(platform, p)]
    if len(kept) == len(paths):
        return kept
    parents_before = {p[:i] for p in paths for i in range(1, len(p))}
    parents_after = {p[:i] for p in kept for i in range(1, len(p))}
    return [p for p in kept if not (p in parents_before and p not in parents_after)]


__all__ = ["DATACENTER_DEFAULTS", "Default", "drop_defaults", "is_platform_default"]
