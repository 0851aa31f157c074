"""Shared plumbing of fabricgen's SSH drivers: a netmiko session (``device_type="linux"``, as NAPALM's own SSH
drivers open theirs), exec channels on the same SSH transport for commands whose exit status matters, and
SFTP for files. Host keys are checked against a known_hosts file unless explicitly turned off.

``optional_args`` are NAPALM's: every netmiko ``ConnectHandler`` argument NAPALM's own SSH drivers pass on
(``port``, ``alt_host_keys``, ``alt_key_file``, ``ssh_config_file``, ``key_file``, ``use_keys``,
``allow_agent``, ``ssh_strict``, ``conn_timeout``, ``keepalive``, ``sock``, …; picked with NAPALM's
``netmiko_args``), plus fabricgen's ``known_hosts`` (shorthand for ``alt_host_keys``/``alt_key_file``),
``sock_factory`` (a callable opening the TCP connection, used for lab namespaces) and ``workdir``. The drivers
are importable by NAPALM as ``napalm.get_network_driver("fabricgen_frr" | "fabricgen_sonic" |
"fabricgen_nvue")`` (packages ``napalm_fabricgen_*``), so Nornir and other NAPALM users can load them.
"""

from __future__ import annotations

import shlex
from typing import Any

from napalm.base import NetworkDriver
from napalm.base.exceptions import CommitError, ConnectionException, MergeConfigException, ReplaceConfigException

from fabricgen.deploy.credentials import error_line, redact

TIMER_MARKER = "fabricgen-revert-timer"

TIMER_SCAN = (
    "me=$(readlink /proc/self/ns/mnt); "
    "for f in $(grep -la 'fabricgen-revert-time[r]' /proc/[0-9]*/cmdline 2>/dev/null); do d=${f%/cmdline}; "
    "[ \"$(readlink $d/ns/mnt 2>/dev/null)\" = \"$me\" ] && echo ${d#/proc/}; done; true"
)
"""Prints the pid of every process whose command line carries :data:`TIMER_MARKER`, in the asking shell's mount
namespace (the pattern's ``[r]`` keeps the scan from finding its own command line)."""


class CommandError(Exception):
    def __init__(self, command: str, rc: int, output: str) -> None:
        super().__init__(f"`{command}` exited {rc}: {output.strip()[-500:]}")
        self.command, self.rc, self.output = command, rc, output


class SSHDriver(NetworkDriver):  # type: ignore[misc]
    """Base for drivers that manage a Linux-based NOS over SSH."""

    netmiko_device_type = "linux"
    platform = ""  # fabricgen's platform name, for messages
    workdir = "/var/lib/fabricgen"
    running_command = ""  # prints the running configuration (get_config)
    startup_path = ""  # the startup configuration file (get_config)

    def __init__(
        self,
        hostname: str,
        username: str,
        password: str,
        timeout: int = 60,
        optional_args: dict[str, Any] | None = None,
    ) -> None:
        from napalm.base.netmiko_helpers import netmiko_args

        args = dict(optional_args or {})
        self.hostname = hostname
        self.username = username
        self.password = password
        self.timeout = timeout
        self.sock_factory = args.pop("sock_factory", None)
        self.workdir = str(args.pop("workdir", self.workdir))
        known_hosts = args.pop("known_hosts", None)
        if known_hosts and "alt_key_file" not in args:
            args.update(alt_host_keys=True, alt_key_file=known_hosts)
        self.netmiko_optional_args: dict[str, Any] = netmiko_args(args)
        self.port = int(args.get("port", 22))
        self.key_file: str | None = args.get("key_file")
        self.known_hosts: str | None = args.get("alt_key_file") if args.get("alt_host_keys") else None
        self.ssh_strict: bool = bool(args.get("ssh_strict", True))
        self.force_no_enable = True
        self.use_canonical_interface = False
        self.device: Any = None
        self._candidate: str | None = None

    # ------------------------------------------------------------------ connection
    def open(self) -> None:
        from netmiko import ConnectHandler
        from netmiko.exceptions import NetmikoAuthenticationException, NetmikoTimeoutException

        if self.ssh_strict and not self.known_hosts and not self.netmiko_optional_args.get("ssh_config_file"):
            raise ConnectionException(f"{self.hostname}: no known_hosts file to verify the host key against")
        kwargs: dict[str, Any] = {
            "device_type": self.netmiko_device_type,
            "host": self.hostname,
            "port": self.port,
            "username": self.username,
            "password": self.password or None,
            "use_keys": bool(self.key_file),
            "key_file": self.key_file,
            "allow_agent": False,
            "ssh_strict": self.ssh_strict,
            "alt_host_keys": bool(self.known_hosts),
            "alt_key_file": self.known_hosts or "",
            "timeout": self.timeout,
            "conn_timeout": min(self.timeout, 10),
            "fast_cli": True,
        }
        kwargs.update(self.netmiko_optional_args)  # NAPALM's optional_args win over the defaults above
        try:
            if self.sock_factory is not None:
                kwargs["sock"] = self.sock_factory()
            self.device = ConnectHandler(**kwargs)
        except (NetmikoTimeoutException, NetmikoAuthenticationException, OSError) as exc:
            msg = redact(error_line(exc), [self.password])
            raise ConnectionException(f"cannot connect to {self.hostname}: {msg}") from None
        except Exception as exc:  # paramiko's BadHostKeyException / SSHException for a rejected key
            msg = redact(str(exc), [self.password])
            raise ConnectionException(f"cannot connect to {self.hostname}: {type(exc).__name__}: {msg}") from None

    def close(self) -> None:
        if self.device is not None:
            try:
                self.device.disconnect()
            finally:
                self.device = None

    def abandon(self) -> None:
        """Shut the SSH transport under netmiko without its ``exit`` (netmiko's ``disconnect`` sends one); later
        ``close()`` calls, NAPALM's ``__del__`` included, send nothing."""
        conn, self.device = self.device, None
        transport = self._transport_of(conn)
        if transport is not None:
            transport.close()

    @staticmethod
    def _transport_of(conn: Any) -> Any:
        pre = getattr(conn, "remote_conn_pre", None)
        return pre.get_transport() if pre is not None else None

    def is_alive(self) -> dict[str, bool]:
        transport = self._transport(required=False)
        return {"is_alive": bool(transport is not None and transport.is_active())}

    def _transport(self, required: bool = True) -> Any:
        conn = getattr(self.device, "remote_conn_pre", None)
        transport = conn.get_transport() if conn is not None else None
        if transport is None and required:
            raise ConnectionException(f"{self.hostname}: not connected")
        return transport

    # ------------------------------------------------------------------ primitives (recorded output replaces these)
    def _exec(self, command: str, timeout: float | None = None) -> tuple[int, str]:
        """Run ``command`` in an exec channel; return (exit status, stdout+stderr)."""
        chan = self._transport().open_session()
        try:
            chan.settimeout(timeout or self.timeout)
            chan.set_combine_stderr(True)
            chan.exec_command(command)
            chunks = []
            while True:
                data = chan.recv(65536)
                if not data:
                    break
                chunks.append(data)
            rc = chan.recv_exit_status()
        finally:
            chan.close()
        return rc, b"".join(chunks).decode("utf-8", errors="replace")

    def _run(self, command: str, timeout: float | None = None) -> str:
        rc, out = self._exec(command, timeout)
        if rc != 0:
            raise CommandError(command, rc, out)
        return out

    def _put(self, path: str, text: str, mode: int = 0o600) -> None:
        sftp = self.device.remote_conn_pre.open_sftp()
        try:
            with sftp.open(path, "w") as f:
                f.write(text.encode())
            sftp.chmod(path, mode)
        finally:
            sftp.close()

    def _path(self, name: str) -> str:
        return shlex.quote(f"{self.workdir}/{name}")

    def _stage_candidate(self, name: str, filename: str | None, config: str | None) -> str:
        """NAPALM's ``load_replace_candidate`` arguments → the candidate text, copied to ``workdir/name``."""
        if filename is not None:
            with open(filename) as f:
                config = f.read()
        if config is None:
            raise ReplaceConfigException("load_replace_candidate needs a filename or a config")
        self._check_candidate(config)
        self._run(f"mkdir -p {shlex.quote(self.workdir)} && chmod 700 {shlex.quote(self.workdir)}")
        self._put(f"{self.workdir}/{name}", config)
        return config

    def load_merge_candidate(self, filename: str | None = None, config: str | None = None) -> None:
        raise MergeConfigException(
            f"the {self.platform} driver replaces the whole configuration; use load_replace_candidate"
        )

    def _ready_to_commit(self) -> None:
        """Refuse a commit with nothing loaded, or while an earlier commit-confirm still waits."""
        if self._candidate is None:
            raise CommitError("no candidate loaded")
        if self.has_pending_commit():
            raise CommitError("a commit-confirm is already pending on this device")

    def _check_candidate(self, config: str) -> None:
        """Refuse a malformed candidate before it is uploaded (raise ReplaceConfigException)."""

    def get_config(
        self, retrieve: str = "all", full: bool = False, sanitized: bool = False, format: str = "text"
    ) -> dict[str, str]:
        """NAPALM's get_config; ``sanitized=True`` masks secret values (:func:`fabricgen.deploy.normalize.sanitize`)."""
        out = {"running": "", "candidate": "", "startup": ""}
        if retrieve in ("all", "running"):
            out["running"] = self._run(self.running_command)
        if retrieve in ("all", "candidate"):
            out["candidate"] = self._candidate or ""
        if retrieve in ("all", "startup"):
            out["startup"] = self._exec(f"cat {shlex.quote(self.startup_path)} 2>/dev/null")[1]
        if sanitized:
            from fabricgen.deploy.normalize import sanitize

            out = {k: sanitize(v) if v else v for k, v in out.items()}
        return out

    def cli(self, commands: list[str], encoding: str = "text") -> dict[str, str]:
        return {c: self._exec(c)[1] for c in commands}

    # ------------------------------------------------------------------ commit-confirm emulation (detached timer)
    def _timer_script(self, revert_command: str, revert_in: int) -> str:
        """The detached timer's ``sh`` script: its own record first, then the sleep, the revert, the record's end.

        The record (``pending.json``: the timer's own pid ``$$``, its deadline on the device's clock) is written
        by the timer itself, atomically (a temporary file renamed over the old one), *before* it sleeps; it is
        removed only after the revert ran. So no moment exists at which the timer sleeps without its marker on its
        command line, and none at which a record names a timer that will not revert."""
        wd = shlex.quote(self.workdir)
        n = int(revert_in)
        record = f"{wd}/pending.json"
        write = (f"printf '{{\"pid\": %d, \"deadline\": %d, \"revert_in\": {n}}}\\n' \"$$\" "
                 f"\"$(( $(date +%s) + {n} ))\" > {record}.tmp && mv -f {record}.tmp {record}")
        return f"{write}; sleep {n}; ({revert_command}) > {wd}/revert.log 2>&1; rm -f {record}"

    def _start_timer(self, revert_command: str, revert_in: int) -> None:
        """Start the detached timer (:meth:`_timer_script`, ``sleep revert_in`` then ``revert_command``) in a
        session of its own; its command line ends with :data:`TIMER_MARKER`, which is how it is found."""
        wd = shlex.quote(self.workdir)
        script = self._timer_script(revert_command, revert_in)
        self._run(
            f"rm -f {wd}/revert.log; setsid nohup sh -c {shlex.quote(script)} {TIMER_MARKER} "
            "</dev/null >/dev/null 2>&1 & echo $!"
        )

    def _timer_pids(self) -> list[int]:
        """Pids of every revert timer on this device, found by the marker on their command line, record or not.

        Only processes in the mount namespace of the shell that asks count (``/proc/PID/ns/mnt``): a switch of the
        lab shares the PID namespace with the other switches, never its mount namespace; a real switch has one."""
        _rc, out = self._exec(TIMER_SCAN)
        return sorted({int(x) for x in out.split() if x.isdigit()})

    def has_pending_commit(self) -> bool:
        """True whenever a revert timer is armed on the device, whatever moment an apply was interrupted at."""
        return bool(self._timer_pids())

    def _cancel_timer(self) -> bool:
        """End every armed timer (its whole process group: the sleep too), then remove its record; whether one
        was armed."""
        pids = self._timer_pids()
        if pids:
            # the timer is `sh` in its own session (setsid): end that session's process group
            self._exec("; ".join(f"kill -TERM -- -{p} 2>/dev/null || kill -TERM {p} 2>/dev/null" for p in pids)
                       + "; true")
        self._exec(f"rm -f {self._path('pending.json')}")
        return bool(pids)
