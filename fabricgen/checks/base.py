"""Base configuration: every switch that ``apply`` replaces whole keeps the access ``apply`` runs over."""

from __future__ import annotations

from collections.abc import Iterator

from fabricgen.checks import Finding, Severity
from fabricgen.inventory.raw import written_lines
from fabricgen.inventory.releases import NVUE_RADIUS_ACCOUNTING, NVUE_TACACS_COMMAND_AUTHORIZATION, at_least
from fabricgen.topology.base import merged_base, raw_levels
from fabricgen.topology.model import Fabric, Switch

# the API a session of fabricgen's driver uses, where the base's `api: true` is what enables it
_API = {"eos": "eAPI (management api http-commands)", "junos": "NETCONF over SSH (system services netconf ssh)"}


_SHOWN = 5
"""Switch names a FG-BASE-001 finding lists before it says how many more there are."""


def management_access(fabric: Fabric) -> Iterator[Finding]:
    """FG-BASE-001: a switch on EOS, NX-OS, Junos, SONiC or NVUE has a management address in its ``base:`` (and,
    on EOS and Junos, ``api: true``); without them its rendered configuration would remove the access, and
    ``apply``'s pre-push guard refuses to replace it. One finding per platform, role and what is missing, with
    how many switches and the first few names (a base is usually written per fabric or role, not per switch)."""
    groups: dict[tuple[str, str, str], list[Switch]] = {}
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        if sw.platform == "frr":
            continue
        base = merged_base(fabric, name)
        missing = []
        if base.mgmt is None or base.mgmt.address is None:
            missing.append("no management address (base.mgmt.address)")
        if sw.platform in _API and not base.api:
            missing.append(f"no {_API[sw.platform]} (base.api: true)")
        if missing:
            groups.setdefault((sw.platform, sw.role.value, " and ".join(missing)), []).append(sw)
    for (platform, role, missing_text), switches in groups.items():
        n = len(switches)
        shown = ", ".join(sw.name for sw in switches[:_SHOWN])
        more = f" and {n - _SHOWN:,} more" if n > _SHOWN else ""
        yield Finding(
            "FG-BASE-001",
            Severity.INFO,
            f"{platform} {role} switches",
            f"the {platform} configuration has {missing_text}; `apply` would refuse to replace it "
            f"({n:,} {role} switch{'es' if n != 1 else ''}: {shown}{more})",
            "add a base: section (defaults, roles, or on the switch) with mgmt.address and api: true",
            switches[0].src,
        )


def raw_configuration(fabric: Fabric) -> Iterator[Finding]:
    """FG-BASE-002: a switch whose configuration carries raw lines (``base.raw.<platform>``), so that a reviewer
    sees in the pull request which devices get configuration fabricgen does not model, and how much."""
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        written = raw_levels(fabric, name, sw.platform)
        if not written:
            continue
        blocks = tuple(block for _, block in written)
        levels = ["defaults" if field == "base.defaults" else "switch" if field.startswith("switches[")
                  else f"role {sw.role.value}" for field, _ in written]
        n = written_lines(sw.platform, blocks)
        yield Finding(
            "FG-BASE-002",
            Severity.INFO,
            name,
            f"the {sw.platform} configuration carries {n} raw line{'s' if n != 1 else ''} "
            f"(base.raw.{sw.platform} from {', '.join(levels)}), inserted verbatim after what fabricgen renders",
            "review raw lines like code: fabricgen checks their text, secrets and owned sections, not their effect",
            sw.src,
        )


def sonic_gateway(fabric: Fabric) -> Iterator[Finding]:
    """FG-BASE-003: a SONiC switch with a management address but no gateway. SONiC's own model refuses it:
    ``sonic-mgmt_interface.yang`` requires ``MGMT_INTERFACE``'s ``ip_prefix`` and ``gwaddr`` to be of one
    address family (a ``must`` on each leaf), so ``config replace`` would reject the whole config_db."""
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        if sw.platform != "sonic":
            continue
        mgmt = merged_base(fabric, name).mgmt
        if mgmt is not None and mgmt.address is not None and mgmt.gateway is None:
            yield Finding(
                "FG-BASE-003",
                Severity.ERROR,
                name,
                f"management address {mgmt.address} has no gateway (base.mgmt.gateway); SONiC's "
                "MGMT_INTERFACE model requires one, so the switch would reject its config_db.json",
                "set base.mgmt.gateway (defaults, the role, or the switch)",
                sw.src,
            )


def aaa_methods(fabric: Fabric) -> Iterator[Finding]:
    """FG-BASE-004: ``aaa.order``, ``aaa.authorization.commands`` or ``aaa.accounting`` names a method (tacacs,
    radius) that has no server after the levels merge; what is rendered leaves it out, so what a reviewer reads
    is not what the switch does."""
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        aaa = merged_base(fabric, name).aaa if sw.platform != "frr" else None
        if aaa is None:
            continue
        authz = aaa.authorization.commands if aaa.authorization else []
        if "tacacs" in authz and not aaa.tacacs:
            yield Finding(
                "FG-BASE-004",
                Severity.WARNING,
                name,
                "aaa.authorization.commands names tacacs but no tacacs server is configured; command "
                "authorization is not rendered (the local roles apply)",
                "add the servers (aaa.tacacs) or take aaa.authorization out",
                sw.src,
            )
        lost = [m for m in aaa.accounting or () if not getattr(aaa, m)]
        if lost:
            kept = [m for m in aaa.accounting or () if m not in lost]
            yield Finding(
                "FG-BASE-004",
                Severity.WARNING,
                name,
                f"aaa.accounting names {', '.join(lost)} but no {' or '.join(lost)} server is configured; "
                + (f"accounting is rendered to {', '.join(kept)} only" if kept else "no accounting is rendered"),
                "add the servers (aaa.tacacs / aaa.radius) or take the method out of aaa.accounting",
                sw.src,
            )
        if aaa.order is None:
            continue
        empty = [m for m in aaa.order if m != "local" and not getattr(aaa, m)]
        if empty:
            yield Finding(
                "FG-BASE-004",
                Severity.WARNING,
                name,
                f"aaa.order names {', '.join(empty)} but no {' or '.join(empty)} server is configured; the login "
                f"order rendered is {', '.join(m for m in aaa.order if m not in empty)}",
                "add the servers (aaa.tacacs / aaa.radius) or take the method out of aaa.order",
                sw.src,
            )


def aaa_unrendered(fabric: Fabric) -> Iterator[Finding]:
    """FG-BASE-005: AAA the inventory asks for that the switch's platform or release has no statement for, so it
    is not rendered: server-side command authorization on NVUE before 5.17 (``all-commands``), RADIUS
    accounting on NVUE before 5.11 and on SONiC (hostcfgd accounts to TACACS+ or syslog only), and Junos's
    ``remote`` template user when a local user already has that name."""
    for name in sorted(fabric.switches):
        sw = fabric.switches[name]
        base = merged_base(fabric, name)
        aaa = base.aaa
        if aaa is None or sw.platform == "frr":
            continue
        authz = bool(aaa.tacacs) and aaa.authorization is not None and "tacacs" in aaa.authorization.commands
        radius_acct = bool(aaa.radius) and "radius" in (aaa.accounting or ())
        problems = []
        if authz and sw.platform == "nvue" and not at_least(sw.release, NVUE_TACACS_COMMAND_AUTHORIZATION):
            problems.append(
                f"aaa.authorization.commands is not rendered: NVUE {sw.release} has no server-side command "
                f"authorization (tacacs authorization <level> all-commands, from {NVUE_TACACS_COMMAND_AUTHORIZATION})"
                "; TACACS+ users keep the rights of their privilege level")
        if authz and sw.platform == "junos" and "remote" in (base.users or {}):
            problems.append("the Junos template user remote (the login class of TACACS+ users) is not rendered: a "
                            "local user is named remote and keeps its own class")
        if radius_acct and sw.platform == "nvue" and not at_least(sw.release, NVUE_RADIUS_ACCOUNTING):
            problems.append(f"RADIUS accounting is not rendered: NVUE {sw.release} has no radius accounting "
                            f"(from {NVUE_RADIUS_ACCOUNTING})")
        if radius_acct and sw.platform == "sonic":
            problems.append("RADIUS accounting is not rendered: SONiC accounts to TACACS+ or syslog only "
                            "(AAA|accounting)")
        for problem in problems:
            yield Finding(
                "FG-BASE-005",
                Severity.WARNING,
                name,
                problem,
                "choose a release that has it, or take it out of the switch's base (role or switch level)",
                sw.src,
            )


CHECKS = (management_access, raw_configuration, sonic_gateway, aaa_methods, aaa_unrendered)
