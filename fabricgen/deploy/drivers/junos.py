"""Junos: NAPALM's own ``JunOSDriver`` (PyEZ over NETCONF), with a replace that accepts fabricgen's set form.

fabricgen renders Junos as ``set`` lines. Junos cannot *override* with set-format text (``load override`` takes
text, XML or JSON; PyEZ refuses with "conflicting args, cannot use 'set' with 'overwrite'"). A set-format
replace is loaded as one ``<load-configuration action="set">`` whose first statement is a bare ``delete``:
the candidate is emptied and rebuilt from the set lines in a single RPC, so nothing unmanaged survives, as with
``load override``. (Converting set lines to curly braces instead would need Junos's schema to know which
tokens name a hierarchy level; the set form loads as written.) Commands, per Juniper's
"load-configuration" and "commit-configuration" references:

* ``load_replace_candidate``: ``<lock-configuration/>``; ``<load-configuration action="set" format="text">``
  with ``delete`` + the set lines (curly-brace text still goes through ``action="override"``);
* ``compare_config``: ``<get-configuration compare="rollback" rollback="0" format="text"/>`` (show | compare);
* ``commit_config(revert_in=N)``: ``<commit-configuration><confirmed/><confirm-timeout>M</confirm-timeout>``
  with M = N/60 rounded **up** to whole minutes (Junos counts ``commit confirmed`` in minutes); Junos itself
  rolls back when M minutes pass unconfirmed, with or without fabricgen;
* ``confirm_commit``: a plain ``<commit-configuration/>``; ``rollback``: ``rollback 1`` + commit;
* ``has_pending_commit``: ``<get-commit-revision-information detail>`` and the system clock (NAPALM's parsing);
* ``get_config(sanitized=True)``: NAPALM's sanitizer, then fabricgen's masking of any secret keyword's value
  (the value only: the statement's ``;``/``{`` stay, so the curly text still parses).

**Host key.** NAPALM opens PyEZ without ``hostkey_verify``, whose default is off. This driver opens it with
``hostkey_verify=True`` against the known_hosts file of ``optional_args`` (``alt_key_file`` with
``alt_host_keys``, or ``known_hosts``; as the SSH drivers take it), handed to ncclient as the
``UserKnownHostsFile`` of an ssh_config written for this one connection (ncclient reads known_hosts from nowhere
else), ahead of the ssh_config PyEZ would have read (``ssh_config_file``, else ``~/.ssh/config``). ncclient
compares the key right after the SSH key exchange, before authentication: an unknown or changed key ends the
connection with no password or key offered. ``ssh_strict=False`` (an explicit choice) opens without
the check; strict without a known_hosts file is refused before connecting.

**Lost sessions.** :meth:`JunosDriver.abandon` shuts the SSH transport under ncclient without ``<close-session/>``
or an unlock, and makes ``close()`` (also NAPALM's ``__del__``) send nothing.
"""

from __future__ import annotations

from typing import Any

from napalm.junos.junos import JunOSDriver

from fabricgen.deploy.normalize import mask_junos


class JunosDriver(JunOSDriver):  # type: ignore[misc]
    platform = "junos"

    def __init__(self, hostname: str, username: str, password: str, timeout: int = 60,
                 optional_args: dict[str, Any] | None = None) -> None:
        args = dict(optional_args or {})
        super().__init__(hostname, username, password, timeout=timeout, optional_args=args)
        known = args.get("known_hosts") or (args.get("alt_key_file") if args.get("alt_host_keys") else None)
        self.known_hosts: str | None = str(known) if known else None
        self.ssh_strict = bool(args.get("ssh_strict", True))
        self._abandoned = False

    def open(self) -> None:
        import os
        import tempfile

        from napalm.base.exceptions import ConnectionException

        if not self.ssh_strict:
            super().open()
            return
        if not self.known_hosts or not os.path.isfile(self.known_hosts):
            raise ConnectionException(f"{self.hostname}: no known_hosts file to verify the NETCONF host key against"
                                      f"{f' ({self.known_hosts} does not exist)' if self.known_hosts else ''}")
        user_config = ""  # the ssh_config PyEZ would have read (optional_args' ssh_config_file, else ~/.ssh/config)
        source = os.path.expanduser(self.ssh_config_file or "~/.ssh/config")
        if self.ssh_config_file or os.path.isfile(source):
            with open(source) as f:
                user_config = f.read()
        quoted = self.known_hosts.replace('"', "")
        fd, path = tempfile.mkstemp(prefix="fabricgen-ssh-config-")
        try:
            with os.fdopen(fd, "w") as f:  # the first value of an option wins: ours, then the user's config
                f.write(f'Host *\n    UserKnownHostsFile "{quoted}"\n\n{user_config}')
            self.device._hostkey_verify = True
            self.device._ssh_config = path
            try:
                super().open()
            except Exception as exc:
                from ncclient.transport.errors import SSHUnknownHostError  # type: ignore[import-untyped]

                cause = exc.__context__ or getattr(exc, "_orig", None)
                if isinstance(cause, SSHUnknownHostError):
                    raise ConnectionException(
                        f"cannot connect to {self.hostname}: its NETCONF host key {cause.fingerprint} is not the one "
                        f"{self.known_hosts} has for it (unknown or changed); nothing was sent (no authentication "
                        "was attempted)") from None
                raise
        finally:
            os.unlink(path)

    def abandon(self) -> None:
        """Shut the NETCONF session's SSH transport sending nothing; ``close()`` then sends nothing either."""
        self._abandoned = True
        session = getattr(getattr(self.device, "_conn", None), "_session", None)
        if session is not None:
            session.close()
        self.device.connected = False

    def close(self) -> None:
        if self._abandoned:
            return
        super().close()

    def load_replace_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        if filename is not None:
            with open(filename) as f:
                config = f.read()
        text = config or ""
        if self._detect_config_format(text) != "set":
            super().load_replace_candidate(config=text)
            return
        from jnpr.junos.exception import ConfigLoadError  # type: ignore[import-untyped]
        from napalm.base.exceptions import ReplaceConfigException

        self.config_replace = True
        if not self.lock_disable and not self.session_config_lock:
            self._lock()
        try:
            self.device.cu.load("delete\n" + text.strip() + "\n", format="set", ignore_warning=self.ignore_warning)
        except ConfigLoadError as exc:
            self.discard_config()
            raise ReplaceConfigException(exc.errs) from None

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if revert_in is not None and revert_in % 60:
            revert_in = (revert_in // 60 + 1) * 60
        super().commit_config(message=message, revert_in=revert_in)

    def get_config(
        self, retrieve: str = "all", full: bool = False, sanitized: bool = False, format: str = "text"
    ) -> dict[str, Any]:
        out: dict[str, Any] = super().get_config(retrieve=retrieve, full=full, sanitized=sanitized, format=format)
        if sanitized:
            out = {k: "\n".join(mask_junos(line) for line in str(v).splitlines()) for k, v in out.items()}
        return out
