"""NAPALM driver for Cumulus Linux with NVUE over SSH: native commit-confirm (``nv config apply --confirm``).

* ``load_replace_candidate`` uploads ``candidate.yaml`` and stages it with ``nv config replace``;
* ``compare_config`` is ``nv config diff`` (pending vs applied; empty when nothing changes);
* ``commit_config(revert_in=N)`` runs ``nv config apply --confirm {N}s -y``; NVUE itself reverts unless confirmed;
* ``has_pending_commit`` asks ``nv config apply --confirm-status`` explicitly and parses the time left; an
  answer it does not recognise raises instead of reading as "nothing pending" (a release that changed
  this output once made a driver miss its own timer, napalm#2166);
* ``confirm_commit`` runs :attr:`NvueDriver.confirm_command`; ``rollback`` re-applies the last applied revision;
* getters: Cumulus is Linux with FRR and lldpd, so they are the frr driver's (``vtysh``, ``lldpcli``, ``ip``).

NVUE cannot run on this machine: the parsers are tested against recorded output (``tests/data/deploy/nvue``).
"""

from __future__ import annotations

import re

from napalm.base.exceptions import CommitError, ReplaceConfigException

from fabricgen.deploy.drivers.frr import FrrDriver


class PendingStatusUnknown(CommitError):  # type: ignore[misc]
    pass


def parse_confirm_status(text: str) -> int | None:
    """Seconds left on a pending ``--confirm`` apply, or None when none is pending; raises on unknown output.

    >>> parse_confirm_status("Confirm-status: 347 seconds remaining")
    347
    >>> parse_confirm_status("No pending confirm") is None
    True
    """
    low = text.strip().lower()
    if not low or re.search(r"\bno\b.*\b(pending|confirm)", low) or "nothing to confirm" in low:
        return None
    m = re.search(r"(\d+)\s*(?:s\b|sec|seconds)", low) or re.search(r"(\d+)\s*(?:m\b|min|minutes)", low)
    if m:
        value = int(m.group(1))
        return value * 60 if re.search(r"\d+\s*(?:m\b|min|minutes)", low) and "sec" not in low else value
    m = re.search(r"(\d+):(\d{2}):(\d{2})", low)
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    raise PendingStatusUnknown(f"unrecognised `nv config apply --confirm-status` output: {text.strip()[:200]!r}")


def parse_history_applied(text: str) -> list[str]:
    """Applied revision ids, newest first, from ``nv config history`` (YAML-ish ``- rev_id: N`` blocks)."""
    revs: list[str] = []
    current: dict[str, str] = {}
    for line in [*text.splitlines(), "- end"]:
        s = line.strip()
        if s.startswith("- "):
            if current.get("rev_id") and current.get("state", "applied") == "applied":
                revs.append(current["rev_id"])
            current = {}
            s = s[2:]
        key, sep, value = s.partition(":")
        if sep:
            current[key.strip().replace("-", "_")] = value.strip().strip("'\"")
    return revs


class NvueDriver(FrrDriver):
    platform = "nvue"
    workdir = "/tmp/fabricgen"
    running_command = "nv config show -o yaml"
    startup_path = "/etc/nvue.d/startup.yaml"
    confirm_command = "nv config apply --confirm-yes"

    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        config = self._stage_candidate("candidate.yaml", filename, config)
        rc, out = self._exec(f"nv config replace {self._path('candidate.yaml')}")
        if rc != 0:
            raise ReplaceConfigException(f"nv config replace refused the candidate: {out.strip()[-300:]}")
        self._candidate = config

    def compare_config(self) -> str:
        if self._candidate is None:
            return ""
        return self._run("nv config diff").strip()

    def discard_config(self) -> None:
        self._exec("nv config detach")
        self._exec(f"rm -f {self._path('candidate.yaml')}")
        self._candidate = None

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        self._ready_to_commit()
        cmd = f"nv config apply --confirm {int(revert_in)}s -y" if revert_in else "nv config apply -y"
        rc, out = self._exec(cmd, timeout=300)
        self._exec(f"rm -f {self._path('candidate.yaml')}")  # staged by `nv config replace`; the file is spent
        if rc != 0:
            raise CommitError(f"`{cmd}` failed: {out.strip()[-300:]}")
        self._candidate = None

    def has_pending_commit(self) -> bool:
        return parse_confirm_status(self._exec("nv config apply --confirm-status")[1]) is not None

    def confirm_commit(self) -> None:
        if not self.has_pending_commit():
            raise CommitError("no pending commit-confirm found (NVUE may already have rolled back)")
        self._run(self.confirm_command)
        if self.has_pending_commit():
            raise CommitError("confirm did not clear the pending apply")

    def rollback(self) -> None:
        revs = parse_history_applied(self._run("nv config history"))
        if len(revs) < 2:
            raise CommitError("no earlier applied revision to roll back to")
        self._run(f"nv config apply {revs[1]} -y", timeout=300)

