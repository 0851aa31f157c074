"""`fabricgen render`: one native configuration per switch, plus the host files."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from fabricgen.checks import Finding
from fabricgen.cli import (
    EXIT_FINDINGS,
    EXIT_INPUT,
    EXIT_OK,
    FORMAT,
    background,
    echo_json,
    guarded,
    stderr_console,
    stdout_console,
    writing,
)
from fabricgen.cli.gate import allow_findings_option, blocking, summary
from fabricgen.inventory.catalog import PLATFORMS
from fabricgen.render.check import SONIC_YANG_HOWTO, Checked, ToCheck, check_files


@click.command()
@click.argument("inventory", type=click.Path(exists=False))
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--platform", "platform_name", type=click.Choice(sorted(PLATFORMS)), default=None,
              help="Render every switch for this platform instead.")
@click.option("--device", "devices", multiple=True, help="Render only this switch (repeatable).")
@click.option("--check", "check", is_flag=True,
              help="Validate what was written with the NOS vendor's schema: SONiC config_db.json with libyang and "
                   "SONiC's YANG models (the yang extra; FABRICGEN_SONIC_YANG_DIR names the models' directory, "
                   "e.g. sonic-buildimage's src/sonic-yang-models/yang-models), NVUE startup.yaml with NVIDIA's "
                   "NVUE schema of the switch's release (the oracles extra). Exits 1 if a file fails, 3 if a "
                   "schema the files need is not installed or not given, or has no model for a table written "
                   "(naming what to install or set).")
@allow_findings_option
@FORMAT
@guarded
def render(inventory: str, out_dir: str, platform_name: str | None, devices: tuple[str, ...], check: bool,
           allow_findings: frozenset[str], fmt: str) -> None:
    """Render INVENTORY into OUTPUT/<switch>/<files> and OUTPUT/hosts/<node>/{nic-qos.sh,nccl.env}.

    Output is deterministic: a second run writes byte-identical files (unchanged files are not rewritten).
    Every check runs too: with error findings the files are still written, the findings are counted on
    stderr and the exit code is 1 (unless --allow-findings names each failing rule), so a pipeline never
    ships what `fabricgen validate` rejects. With --check, 1 also when a written file fails its platform's
    schema, and 3 when a schema the written files need could not run (libyang or nvueschema not installed, no
    FABRICGEN_SONIC_YANG_DIR) or has no model for a table written (reported as not validated):
    a check that was asked for and did not run never passes. Exits 3 on input errors or an output path that
    cannot be written. With --format json the same outcome is one document on stdout (docs/json.md).
    """
    from fabricgen.inventory.load import load_inventory
    from fabricgen.qos import compute
    from fabricgen.qos.host import host_files
    from fabricgen.render import render_device
    from fabricgen.render.retarget import retarget_what_if
    from fabricgen.topology.resolve import resolve

    err = stderr_console()
    loaded = load_inventory(inventory)
    if platform_name is not None:
        loaded, what_if = retarget_what_if(loaded, platform_name)
        for model in what_if:
            err.print(f"warning: {model} does not run {platform_name}; rendered as if it did (render --platform)",
                      markup=False)
    fabric = resolve(loaded)
    unknown = sorted(set(devices) - set(fabric.switches))
    if unknown:
        err.print(f"fabricgen render: unknown switch(es): {', '.join(unknown)}", markup=False)
        raise SystemExit(EXIT_INPUT)
    qos = compute(fabric)
    root = Path(out_dir)

    def checks_and_hosts() -> tuple[tuple[list[Finding], list[Finding]], int, int]:
        """The gate's findings, and the host files written (hosts, files): what a child can do meanwhile."""
        hosts = files = 0
        if not devices:
            host_writer = _Writer(root)
            for node, node_files in sorted(host_files(qos.nics, qos.nccl).items()):
                for fname, text in sorted(node_files.items()):
                    host_writer.write(f"hosts/{node}/{fname}", text)
                    files += 1
                hosts += 1
        return blocking(fabric, allow_findings), hosts, files

    written = 0
    writer = _Writer(root)
    to_check: list[ToCheck] = []
    with writing(root):
        # a large fabric: checks and host files in a child on the other core while the switches are written
        collect = background.start(checks_and_hosts, fork=not devices and len(fabric.switches) >= FORK_SWITCHES)
        try:
            for name in sorted(devices or fabric.switches):
                sw = fabric.switches[name]
                for f in render_device(fabric, name, qos).files:
                    writer.write(f.path, f.content)
                    oracle_file = ORACLE_FILES.get(sw.platform)
                    if oracle_file is not None and f.path.endswith(oracle_file):
                        to_check.append(ToCheck(str(root / f.path), sw.platform, sw.release, f.content))
                    written += 1
        except BaseException:
            with contextlib.suppress(BaseException):  # reap the child; the parent's own error is reported
                collect()
            raise
        (refused, waived), hosts, host_count = collect()
        written += host_count
    count = len(devices) if devices else len(fabric.switches)
    text = fmt == "text"
    if text:
        stdout_console().print(f"rendered {count} switch(es) and {hosts} host(s): {written} files in {root}",
                               markup=False)
    code = EXIT_OK
    results: list[Checked] = []
    without: set[str] = set()
    if check:
        platforms = {fabric.switches[n].platform for n in (devices or fabric.switches)}
        results, without = check_files(to_check), platforms - set(ORACLE_FILES)
        code = _report_checks(results, without, text)
    if waived:
        err.print(f"render: {summary(waived)} allowed by --allow-findings", markup=False)
    if refused:
        err.print(f"render: {summary(refused)}: the files were written, but `fabricgen validate {inventory}` "
                  "rejects this fabric", markup=False)
        code = max(code, EXIT_FINDINGS)  # a check that could not run (3) stays the answer
    if not text:
        echo_json({
            "ok": code == EXIT_OK, "exit_code": code, "directory": str(root), "switches": count, "hosts": hosts,
            "files": written, "check": check, "checks": [_check_dict(r) for r in results],
            "without_oracle": sorted(without), "refused": [f.as_dict() for f in refused],
            "allowed": [f.as_dict() for f in waived],
        })
    raise SystemExit(code)


def _check_dict(r: Checked) -> dict[str, Any]:
    return {"platform": r.platform, "release": r.release, "oracle": r.oracle, "ran": r.ran, "files": r.files,
            "invalid": len({path for path, _ in r.problems}),
            "problems": [{"file": path, "problem": problem} for path, problem in r.problems], "install": r.install,
            "unvalidated": list(r.unvalidated)}


FORK_SWITCHES = 256
"""From this many switches on, ``render`` runs the checks and writes the host files in a forked child
(:mod:`fabricgen.cli.background`) beside the switch configurations; below it, a fork costs more than it saves."""

ORACLE_FILES = {"sonic": "/config_db.json", "nvue": "/startup.yaml"}
"""The file of each platform that has an oracle (:mod:`fabricgen.render.check`)."""


def _report_checks(results: list[Checked], without: set[str], text: bool = True) -> int:
    """One line per platform and release saying which oracle ran over how many files (stdout, ``text`` only), then
    one line per problem (stderr); the exit code: 3 if an oracle that files needed could not run or left tables
    of them unvalidated (one line on stderr each, naming what to install or set), else 1 if any file failed."""
    out, err = stdout_console() if text else Console(file=io.StringIO()), stderr_console()
    failed = False
    not_run: list[Checked] = []
    partial: list[Checked] = []
    for r in results:
        if not r.ran:
            out.print(f"check {r.platform} {r.release}: {r.oracle} ({r.files} file(s) unchecked)", markup=False,
                      soft_wrap=True)
            not_run.append(r)
            continue
        bad = len({path for path, _ in r.problems})
        verdict = f"{bad} of {r.files} file(s) invalid" if bad else f"{r.files} file(s) valid"
        if r.unvalidated:
            verdict += f" but for {len(r.unvalidated)} table(s) not validated: {_unvalidated(r)}"
            partial.append(r)
        out.print(f"check {r.platform} {r.release}: {r.oracle}: {verdict}", markup=False, soft_wrap=True)
        for path, problem in r.problems:
            err.print(f"{path}: {problem}", markup=False, soft_wrap=True)
        failed = failed or bad > 0
    for plat in sorted(without):
        out.print(f"check {plat}: no schema oracle for this platform", markup=False, soft_wrap=True)
    for r in not_run:
        err.print(f"render: --check did not run for {r.platform} {r.release} ({r.files} file(s) unchecked): "
                  f"{r.install}", markup=False, soft_wrap=True)
    for r in partial:
        err.print(f"render: --check did not validate every table for {r.platform} {r.release}: {_unvalidated(r)}; "
                  f"{SONIC_YANG_HOWTO} that has them", markup=False, soft_wrap=True)
    if not_run or partial:
        return EXIT_INPUT
    return EXIT_FINDINGS if failed else EXIT_OK


def _unvalidated(r: Checked) -> str:
    """``no SONiC YANG model for table(s) AAA, NTP in DIR``: the tables of ``r``'s files its models lack."""
    return f"no SONiC YANG model for table(s) {', '.join(r.unvalidated)} in {r.models}"


class _Writer:
    """Writes files under a root, creating each directory once and leaving unchanged files untouched.

    Plain ``os`` calls on bytes: a 100k-GPU fabric writes some 30,000 files, and ``pathlib``'s text layer
    (a ``Path`` per file, a text wrapper per read and write) cost more user time than the writing itself.
    A directory this writer created itself (``mkdir`` succeeded) held nothing before, so a file in it is
    written without first reading what was there: into an empty output directory, one ``mkdir`` per
    directory and one ``open``/``write``/``close`` per file, no failed ``open`` and no exception per file.
    (Handing the system calls to writer threads was tried: on two shared cores the hand-off cost more user
    time than the overlap saved.)
    """

    def __init__(self, root: Path) -> None:
        self.root = os.fspath(root)
        self.made: dict[str, bool] = {}  # directory → created by this writer (so empty when it was made)

    def _directory(self, path: str) -> bool:
        """Make sure directory ``path`` exists; whether this call created it."""
        try:
            os.mkdir(path)
        except FileExistsError:
            if not os.path.isdir(path):
                raise
            return False
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            return self._directory(path)
        return True

    def write(self, relative: str, text: str) -> None:
        path = os.path.join(self.root, relative)
        parent = os.path.dirname(path)
        fresh = self.made.get(parent)
        if fresh is None:
            fresh = self.made[parent] = self._directory(parent)
        data = text.encode("utf-8")
        if not fresh:
            try:
                with open(path, "rb") as old:
                    if old.read(len(data) + 1) == data:
                        return
            except (FileNotFoundError, IsADirectoryError):
                pass
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
