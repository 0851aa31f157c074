"""The `Examples:` and `Environment:` blocks of every command's ``--help``, kept in one place.

They are attached as click epilogs when the commands are registered (:func:`attach`), so a command module holds
only its options and logic, and one test checks that every command has both blocks.
"""

from __future__ import annotations

import click

_COMMON = {
    "FABRICGEN_MAX_YAML_BYTES": "largest inventory file accepted, in bytes",
    "FABRICGEN_MAX_OBJECTS": "largest fabric built (switches + servers + links; default 600000)",
    "FABRICGEN_DEBUG": "1: show the traceback of an internal error (exit 4)",
}
_LIVE = {
    "FABRICGEN_USERNAME": "device login (with FABRICGEN_PASSWORD or FABRICGEN_SSH_KEY)",
    "FABRICGEN_PASSWORD": "device password (never printed; prefer FABRICGEN_SSH_KEY)",
    "FABRICGEN_SSH_KEY": "path of the private key for device logins",
    "FABRICGEN_CREDENTIALS": "credentials file (JSON or YAML, mode 0600) when the variables are unset",
    "FABRICGEN_STATE_DIR": "where apply keeps its lock and last report (share it between CI runners)",
    "FABRICGEN_LAB_DIR": "run directory of the namespace lab (default /run/fabricgen/lab)",
    "FABRICGEN_KNOWN_CERTS": "EOS eAPI: pinned certificates file (default ~/.config/fabricgen/known_certs)",
    "FABRICGEN_CA_FILE": "EOS eAPI: CA bundle the switches' certificates must chain to",
}

_SOT = {
    "FABRICGEN_NAUTOBOT_URL": "Nautobot's base URL (https://nautobot.example.com)",
    "FABRICGEN_NAUTOBOT_TOKEN": "Nautobot API token (never printed)",
    "FABRICGEN_NETBOX_URL": "NetBox's base URL",
    "FABRICGEN_NETBOX_TOKEN": "NetBox API token (never printed)",
}

EXAMPLES: dict[str, list[str]] = {
    "validate": [
        "fabricgen validate inventories/lab",
        "fabricgen validate inventories/prod --format github      # annotations on the PR's lines",
        "fabricgen validate inventories/prod --format junit > validate.xml",
    ],
    "explain": [
        "fabricgen explain inventories/lab leaf1:Ethernet0",
        "fabricgen explain inventories/lab gpu01:enp24s0np0 --format json",
    ],
    "hosts": ["fabricgen hosts inventories/lab -o build/hosts"],
    "render": [
        "fabricgen render inventories/lab -o build",
        "fabricgen render inventories/multi-su -o build --platform eos --device leaf-su001-r0",
    ],
    "plan": [
        "fabricgen plan --base main inventories/prod",
        "fabricgen plan --base origin/main inventories/prod --format markdown -o plan.json > plan.md",
    ],
    "diagram": ["fabricgen diagram inventories/multi-su -o fabric.svg"],
    "apply": [
        "fabricgen apply plan.json --hosts hosts.yaml --known-hosts known_hosts",
        "fabricgen apply inventories/lab-frr --dry-run",
        "fabricgen apply inventories/prod --rerun-failed --state-dir /shared/fabricgen",
    ],
    "drift": [
        "fabricgen drift inventories/prod --hosts hosts.yaml --known-hosts known_hosts",
        "fabricgen drift inventories/prod --hosts hosts.yaml --format junit > drift.xml",
    ],
    "verify": [
        "fabricgen verify inventories/prod --hosts hosts.yaml --only leaf1",
        "fabricgen verify inventories/prod --hosts hosts.yaml --format github",
    ],
    "trust": [
        "fabricgen trust inventories/prod --hosts hosts.yaml --known-certs known_certs",
        "fabricgen trust inventories/prod --hosts hosts.yaml --only 'leaf*' --format json",
    ],
    "lab": [
        "sudo fabricgen lab up inventories/lab-frr",
        "sudo fabricgen lab status inventories/lab-frr",
        "sudo fabricgen lab down inventories/lab-frr",
    ],
    "scaling": [
        "fabricgen scaling inventories/su1",
        "fabricgen scaling inventories/multi-su --collective all_gather --fail spine-01",
    ],
    "nccl": ["fabricgen nccl analyze inventories/su1 all_reduce_perf.log"],
    "schema": ["fabricgen schema -o fabricgen.schema.json"],
    "export": [
        "fabricgen export containerlab inventories/lab-frr -o clab",
        "fabricgen export nornir inventories/prod --hosts hosts.yaml -o nornir",
        "fabricgen export ansible inventories/prod --dry-run",
        "fabricgen export nautobot inventories/lab --dry-run",
    ],
    "import": [
        "fabricgen import nautobot --fabric inventories/lab/fabric.yaml --fabric inventories/lab/base.yaml"
        " -o imported --dry-run",
        "fabricgen import netbox --fabric inventories/lab/fabric.yaml --location lab -o imported",
    ],
    "paths": [
        "fabricgen paths inventories/multi-su --job 512 --job 512:scattered",
        "fabricgen paths inventories/multi-su --job 512:scattered --qps 4 --fail spine-01 --format markdown",
    ],
}

ENVIRONMENT: dict[str, dict[str, str]] = {
    "validate": _COMMON,
    "explain": _COMMON,
    "hosts": _COMMON,
    "render": _COMMON,
    "plan": {**_COMMON, **_LIVE},
    "diagram": _COMMON,
    "apply": {**_COMMON, **_LIVE},
    "drift": {**_COMMON, **_LIVE},
    "verify": {**_COMMON, **_LIVE},
    "trust": {**_COMMON, "FABRICGEN_KNOWN_CERTS": _LIVE["FABRICGEN_KNOWN_CERTS"]},
    "lab": {"FABRICGEN_LAB_DIR": _LIVE["FABRICGEN_LAB_DIR"], "FABRICGEN_DEBUG": _COMMON["FABRICGEN_DEBUG"]},
    "scaling": _COMMON,
    "nccl": _COMMON,
    "schema": {"FABRICGEN_DEBUG": _COMMON["FABRICGEN_DEBUG"]},
    "export": {**_COMMON, **_SOT},
    "import": {**_SOT, "FABRICGEN_DEBUG": _COMMON["FABRICGEN_DEBUG"]},
    "paths": _COMMON,
}


def epilog(name: str) -> str | None:
    """The help epilog of command ``name``: its examples and the environment variables it reads."""
    examples = EXAMPLES.get(name)
    env = ENVIRONMENT.get(name)
    if not examples and not env:
        return None
    width = max((len(k) for k in env), default=0) if env else 0
    parts = []
    if examples:
        parts.append("\b\nExamples:\n" + "\n".join(f"  {e}" for e in examples))
    if env:
        parts.append("\b\nEnvironment:\n" + "\n".join(f"  {k:<{width}}  {v}" for k, v in env.items()))
    return "\n\n".join(parts)


def attach(group: click.Group) -> None:
    """Set the epilog of every command of ``group`` that has examples or environment variables."""
    for name, command in group.commands.items():
        text = epilog(name)
        if text is not None:
            command.epilog = text
