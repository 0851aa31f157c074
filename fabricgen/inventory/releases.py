"""NOS releases fabricgen renders for, per platform, and the default of each.

A platform listed here renders release-specific syntax (templates branch on ``d.release``); the
inventory chooses with ``fabric.releases`` (per platform) and ``release:`` on a switch or an intent tier.
A platform not listed has one syntax for every release fabricgen supports.

- ``nvue``: Cumulus Linux 5.x as NVIDIA's NVUE OpenAPI schema describes each release (the ``nvueschema``
  models of every listed release validate the rendered ``startup.yaml`` in the tests). Default 5.14.
  From 5.15 on, NVUE's on/off switches are written ``enabled``/``disabled``.
- ``sonic``: community SONiC branches. Default 202411. The rendered config_db is validated against the
  SONiC YANG models of the directory ``FABRICGEN_SONIC_YANG_DIR`` names (``render --check``; fabricgen ships
  none), whatever release is named; no table fabricgen writes differs between these branches.
- ``eos``: Arista EOS release trains 4.28–4.34. Default 4.32. Every statement fabricgen renders for EOS
  predates 4.28 (the PFC watchdog and its per-port arming: EOS 4.21.1F, Arista TOI "PFC Watchdog"), so
  the output is the same for every listed train; Arista's own generator (pyavd's ``eos_cli_config_gen``)
  is the oracle and takes no release.
- ``junos``: Junos OS / Junos OS Evolved 22.4, 23.2, 23.4, 24.2. Default 23.4, the Junos OS Evolved
  release of the QFX5230/QFX5240 AI/ML data-center design (23.4R2 release notes, "Additional Features
  Optimized for AI-ML Fabrics"). DSCP-based PFC (``pfc-priority``, ``input dscp code-point ... pfc``) is
  from 17.4R1 ("pfc-priority", Junos CLI reference), older than every listed release.
- ``nxos``: Cisco NX-OS 9.3 and 10.2–10.5 on Nexus 9000. Default 10.5, the release of the configuration
  guides the NX-OS checker is written from. The PFC watchdog is documented from 10.2(x) ("Configuring
  Priority Flow Control", Nexus 9000 QoS configuration guide 10.2(x)); for 9.3 the stored documents
  (NX-API REST SDK 9.3(x), "Configuring Priority Flow Control") show the watchdog's restore multiplier
  from 9.3(3) but not the CLI of every watchdog line fabricgen renders.
"""

from __future__ import annotations

RELEASES: dict[str, tuple[str, ...]] = {
    "nvue": ("5.9", "5.10", "5.11", "5.12", "5.13", "5.14", "5.15", "5.16", "5.17", "5.18"),
    "sonic": ("202311", "202405", "202411", "202505"),
    "eos": ("4.28", "4.29", "4.30", "4.31", "4.32", "4.33", "4.34"),
    "junos": ("22.4", "23.2", "23.4", "24.2"),
    "nxos": ("9.3", "10.2", "10.3", "10.4", "10.5"),
}
"""Supported releases per platform, oldest first."""

DEFAULT_RELEASE: dict[str, str] = {"nvue": "5.14", "sonic": "202411", "eos": "4.32", "junos": "23.4", "nxos": "10.5"}
"""The release assumed when the inventory names none."""


def release_problem(platform: str, release: str) -> str | None:
    """Why ``release`` is not a release of ``platform`` fabricgen renders for, or None when it is.

    >>> release_problem("nvue", "5.14") is None, release_problem("nvue", "4.3")
    (True, "unknown nvue release '4.3'; one of 5.9, 5.10, 5.11, 5.12, 5.13, 5.14, 5.15, 5.16, 5.17, 5.18")
    >>> release_problem("eos", "4.32") is None, release_problem("junos", "21.4")
    (True, "unknown junos release '21.4'; one of 22.4, 23.2, 23.4, 24.2")
    >>> release_problem("frr", "8.4")
    'platform frr has no release setting (releases are set for: nvue, sonic, eos, junos, nxos)'
    """
    known = RELEASES.get(platform)
    if known is None:
        return f"platform {platform} has no release setting (releases are set for: {', '.join(RELEASES)})"
    if release not in known:
        return f"unknown {platform} release {release!r}; one of {', '.join(known)}"
    return None


def resolve_release(platform: str, own: str | None, fabric: dict[str, str]) -> str:
    """The release of a switch: its own setting, else the fabric's for its platform, else the default
    ("" for a platform without releases).

    >>> resolve_release("nvue", None, {}), resolve_release("nvue", "5.16", {"nvue": "5.15"})
    ('5.14', '5.16')
    >>> resolve_release("nvue", None, {"nvue": "5.15"}), resolve_release("eos", None, {})
    ('5.15', '4.32')
    >>> resolve_release("frr", None, {})
    ''
    """
    return own or fabric.get(platform) or DEFAULT_RELEASE.get(platform, "")


def at_least(release: str, minimum: str) -> bool:
    """Whether dotted ``release`` is ``minimum`` or newer (numeric parts compared as numbers).

    >>> at_least("5.15", "5.15"), at_least("5.9", "5.15"), at_least("5.18", "5.15"), at_least("", "5.15")
    (True, False, True, False)
    """
    if not release:
        return False
    return tuple(int(p) for p in release.split(".")) >= tuple(int(p) for p in minimum.split("."))


NVUE_TACACS_COMMAND_AUTHORIZATION = "5.17"
"""The first NVUE release whose schema has ``system aaa tacacs authorization <level> all-commands`` (server-side
per-command authorization; Cumulus Linux 5.17/5.18 user guide, "TACACS", "Server-side Per-command
Authorization"); before it NVUE only lists, per privilege level, commands authorized locally."""

NVUE_RADIUS_ACCOUNTING = "5.11"
"""The first NVUE release whose schema has ``system aaa radius accounting`` (the nvueschema models: absent in
5.10 and earlier)."""
