"""The platform registry: what fabricgen renders for each network operating system.

Adding a platform = a template folder under ``fabricgen/templates/<name>/`` + one :class:`Platform`
entry below + its tests. Everything platform-specific that is *data* (not syntax) lives here: the files
produced, which one a driver pushes, the config format, the NAPALM driver and the largest MTU the NOS
accepts on a front-panel port.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Format = Literal["text", "json", "yaml"]


@dataclass(frozen=True, slots=True)
class OutputFile:
    """One file of a device's configuration: its name in the device folder and how it is produced.

    ``template`` is a path under the templates folder (``eos/config.j2``), or ``builder:<name>`` for files
    built as data in Python (SONiC's ``config_db.json``)."""

    name: str
    template: str
    format: Format


@dataclass(frozen=True, slots=True)
class Platform:
    name: str
    description: str
    template_dir: str
    files: tuple[OutputFile, ...]
    main: str  # the file a driver pushes
    max_mtu: int  # largest L2 MTU of a front-panel port
    config_format: Format

    def file(self, name: str) -> OutputFile:
        for f in self.files:
            if f.name == name:
                return f
        raise KeyError(name)


PLATFORMS: dict[str, Platform] = {
    p.name: p
    for p in (
        Platform(
            "sonic",
            "SONiC: config_db.json (ports, addresses, QoS, buffers) + frr.conf (BGP, split mode)",
            "sonic",
            (
                OutputFile("config_db.json", "builder:sonic", "json"),
                OutputFile("frr.conf", "sonic/frr.conf.j2", "text"),
            ),
            "config_db.json",
            9216,
            "json",
        ),
        Platform(
            "eos",
            "Arista EOS: one CLI configuration",
            "eos",
            (OutputFile("startup-config", "eos/startup-config.j2", "text"),),
            "startup-config",
            9214,
            "text",
        ),
        Platform(
            "nvue",
            "NVIDIA Cumulus Linux: NVUE startup.yaml",
            "nvue",
            (OutputFile("startup.yaml", "nvue/startup.yaml.j2", "yaml"),),
            "startup.yaml",
            9216,
            "yaml",
        ),
        Platform(
            "nxos",
            "Cisco NX-OS: one CLI configuration",
            "nxos",
            (OutputFile("startup-config", "nxos/startup-config.j2", "text"),),
            "startup-config",
            9216,
            "text",
        ),
        Platform(
            "junos",
            "Juniper Junos: set-style configuration",
            "junos",
            (OutputFile("config.set", "junos/config.set.j2", "text"),),
            "config.set",
            9216,
            "text",
        ),
        Platform(
            "frr",
            "FRR on Linux: frr.conf exactly as FRR 8.4 prints it, plus interfaces, sysctl, lldpd and dcb/tc QoS files",
            "frr",
            (
                OutputFile("frr.conf", "frr/frr.conf.j2", "text"),
                OutputFile("interfaces", "frr/interfaces.j2", "text"),
                OutputFile("sysctl.conf", "frr/sysctl.conf.j2", "text"),
                OutputFile("lldpd.conf", "frr/lldpd.conf.j2", "text"),
                OutputFile("qos.sh", "frr/qos.sh.j2", "text"),
            ),
            "frr.conf",
            9216,
            "text",
        ),
    )
}


def platform(name: str) -> Platform:
    """The registered platform ``name``; ``KeyError`` with the known names otherwise."""
    try:
        return PLATFORMS[name]
    except KeyError:
        raise KeyError(f"unknown platform {name!r}; known: {', '.join(sorted(PLATFORMS))}") from None


_FRR_OFF = ("ospfd", "ospf6d", "ripd", "ripngd", "isisd", "pimd", "ldpd", "nhrpd", "eigrpd", "babeld", "sharpd", "pbrd")


def frr_daemons(comment: str, bfd: bool) -> str:
    """``/etc/frr/daemons`` for a fabricgen switch running FRR: zebra, bgpd and staticd (and bfdd when ``bfd``),
    every vty on loopback only.

    >>> frr_daemons("lab", bfd=False).splitlines()[:2]
    ['# lab', 'bgpd=yes']
    """
    lines = [f"# {comment}", "bgpd=yes", *(f"{d}=no" for d in _FRR_OFF), f"bfdd={'yes' if bfd else 'no'}",
             "fabricd=no", "vrrpd=no", "pathd=no", "vtysh_enable=yes",
             'zebra_options="  -A 127.0.0.1 -s 90000000"', 'bgpd_options="   -A 127.0.0.1"',
             'staticd_options="-A 127.0.0.1"']
    if bfd:
        lines.append('bfdd_options="   -A 127.0.0.1"')
    return "\n".join(lines) + "\n"
