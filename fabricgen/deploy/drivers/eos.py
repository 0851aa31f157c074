"""EOS: NAPALM's own ``EOSDriver`` over eAPI, with the switch authenticated before a credential leaves, a
rollback to the previous *running* configuration, and a way to drop a lost session sending nothing.

**Who answers.** pyeapi's HTTPS transport never checks the certificate (``ssl._create_unverified_context()``
unless told otherwise). This driver's transport (:class:`TrustedHttpsEapi`) makes every eAPI connection itself:
TCP, the TLS handshake, then — before one byte of HTTP, so before the ``Authorization`` header — the switch's
certificate must be

* the pinned one: ``tls_pin="sha256:<hex>"``, the SHA-256 of the DER certificate (what ``fabricgen trust``
  records in the known-certificates file, :mod:`fabricgen.deploy.certs`); and/or
* signed by a CA of ``ca_file`` for the address the hosts file names (Python's ``ssl`` chain and hostname check).

With neither the connection is refused before it is made. ``insecure=True`` skips every check (the caller warns,
per device). ``transport="http"`` is pyeapi's plain HTTP connection: nothing is authenticated or encrypted (the
caller warns). ``optional_args`` are NAPALM's, plus ``tls_pin``, ``ca_file``, ``insecure`` and ``sock_factory``.

**Commit and rollback** (``deploy/commit.py`` SEMANTICS["eos"]). Before any commit the running and startup
configurations are checkpointed: ``dir flash:`` says whether the switch has a startup configuration, then ``copy
running-config flash:fabricgen-rollback-0`` and, when it has one, ``copy startup-config flash:fabricgen-startup-0``
(NAPALM copies *startup* to ``flash:rollback-0`` and rolls back to that, losing any unsaved running change). Then
``configure session <s> commit timer HH:MM:SS`` (with a revert timer) or ``configure session <s> commit`` + ``write
memory`` (without). Rollback: a session still pending its timer is aborted (EOS restores the running configuration
the session replaced; startup was never written); otherwise ``configure replace flash:fabricgen-rollback-0`` and
``copy flash:fabricgen-startup-0 startup-config`` put both back as they were.

**A switch without a startup configuration** (factory-fresh, or ZTP cancelled: "if the flash memory does not
contain a startup-config or zerotouch-config file, the switch enters ZTP mode when it boots", Arista EOS User
Manual, Initial Switch Access) has no ``flash:startup-config`` in ``dir flash:``, and a command that reads the
startup configuration is an eAPI error there (Arista's rbeapi client reads an error of ``show startup-config`` as
"no startup-config"), so ``copy startup-config …`` would fail the apply. So nothing is copied, and the rollback
restores that state: with ``configure replace``, in the same request, the startup configuration this connection's
``write memory`` created (the commit's without a timer, or the confirm's) is deleted (``delete
flash:startup-config``), so the switch boots as before the apply — into ZTP again unless ``flash:zerotouch-config``
disables it — never into the configuration that was rolled back. Confirm: ``configure session <s> commit`` +
``write memory`` (NAPALM's).

**Lost sessions.** :meth:`EosDriver.abandon` forgets the configuration session and makes ``close()`` (also the
one NAPALM's ``__del__`` calls) send nothing: NAPALM's ``close()`` aborts the session, which on a device that did
take a commit-with-timer *is* a rollback.
"""

from __future__ import annotations

import hashlib
import logging
import socket
import ssl
import time
from collections.abc import Callable
from http.client import HTTPSConnection
from typing import Any

from napalm.base.exceptions import CommitError, ConnectionException
from napalm.eos.eos import EOSDriver
from pyeapi.eapilib import EapiConnection, HttpEapiConnection  # type: ignore[import-untyped]

# pyeapi logs every socket error with its traceback (``_LOGGER.exception``), which Python's last-resort handler
# prints on stderr; the error itself reaches the report as one line
logging.getLogger("pyeapi.eapilib").addHandler(logging.NullHandler())

ROLLBACK_FILE = "flash:fabricgen-rollback-0"  # the running configuration before the commit
STARTUP_FILE = "flash:fabricgen-startup-0"  # the startup configuration before the commit
STARTUP_CONFIG = "flash:startup-config"  # the file ``startup-config`` names (absent on a factory-fresh switch)


def lists_startup_config(dir_output: str) -> bool:
    """Whether ``dir flash:`` lists a ``startup-config`` file (a line ``-rw-  5797  May 10 09:10  startup-config``).

    >>> lists_startup_config("       -rw-        5797           May 10 09:10  startup-config")
    True
    >>> lists_startup_config("       -rw-           0           Apr 12 09:54  zerotouch-config")
    False
    >>> lists_startup_config("Directory of flash:/startup-config")  # a header, not a file
    False
    """
    return any(line.split()[-1:] == ["startup-config"] and line.lstrip().startswith("-")
               for line in dir_output.splitlines())


class CertificateRefused(OSError):
    """The switch's certificate is not the one trusted for it; the connection was closed before any request."""


def fingerprint(der: bytes) -> str:
    """``sha256:<hex>`` of a DER certificate, as the known-certificates file records it.

    >>> fingerprint(b"x")
    'sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881'
    """
    return "sha256:" + hashlib.sha256(der).hexdigest()


def _context(ca_file: str | None, insecure: bool) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname by default
    if ca_file and not insecure:
        ctx.load_verify_locations(cafile=ca_file)
    else:  # a pin is checked after the handshake; insecure checks nothing
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def open_tls(host: str, port: int, timeout: float, ctx: ssl.SSLContext,
             sock_factory: Callable[[], socket.socket] | None = None) -> ssl.SSLSocket:
    """A TCP connection to ``host:port`` (or ``sock_factory()``) with the TLS handshake done."""
    raw = sock_factory() if sock_factory is not None else socket.create_connection((host, port), timeout)
    try:
        return ctx.wrap_socket(raw, server_hostname=host)
    except BaseException:
        raw.close()
        raise


def peer_fingerprint(host: str, port: int, timeout: float = 10,
                     sock_factory: Callable[[], socket.socket] | None = None) -> str:
    """The fingerprint of the certificate ``host:port`` presents: a TLS handshake and nothing else (no HTTP
    request, no credential)."""
    with open_tls(host, port, timeout, _context(None, True), sock_factory) as tls:
        der = tls.getpeercert(binary_form=True)
    if not der:
        raise CertificateRefused(f"{host}:{port} presented no certificate")
    return fingerprint(der)


class _TrustedHTTPS(HTTPSConnection):
    """http.client's HTTPS connection whose ``connect`` refuses a switch that is not the trusted one."""

    def __init__(self, host: str, port: int, timeout: float, pin: str | None, ca_file: str | None, insecure: bool,
                 sock_factory: Callable[[], socket.socket] | None) -> None:
        super().__init__(host, port, timeout=timeout, context=_context(ca_file, insecure))
        self.pin, self.insecure, self.sock_factory = pin, insecure, sock_factory
        self.path = "/command-api"

    def connect(self) -> None:
        tls = open_tls(self.host, self.port, self.timeout or 30, self._context, self.sock_factory)  # type: ignore[attr-defined]
        if self.pin and not self.insecure:
            got = fingerprint(tls.getpeercert(binary_form=True) or b"")
            if got != self.pin:
                tls.close()
                raise CertificateRefused(
                    f"the TLS certificate of {self.host}:{self.port} is {got}, not the recorded {self.pin}; nothing "
                    "was sent: another device answers there, or the certificate changed (then delete its line in "
                    "the known-certificates file and run `fabricgen trust` again)")
        self.sock = tls

    def __str__(self) -> str:
        return f"https://{self.host}:{self.port}/command-api"


class TrustedHttpsEapi(EapiConnection):  # type: ignore[misc]
    """pyeapi's eAPI connection over :class:`_TrustedHTTPS` (a pinned certificate and/or a CA bundle)."""

    def __init__(self, host: str, port: int | None = None, path: str | None = None, username: str | None = None,
                 password: str | None = None, timeout: float = 60, tls_pin: str | None = None,
                 ca_file: str | None = None, insecure: bool = False,
                 sock_factory: Callable[[], socket.socket] | None = None, **kwargs: Any) -> None:
        super().__init__()
        if not (tls_pin or ca_file or insecure):
            raise ConnectionException(
                f"{host}: no pinned certificate and no CA bundle to verify the eAPI certificate against; record it "
                "with `fabricgen trust INVENTORY --hosts FILE`, or give `ca_file:` / --ca-file; nothing was sent")
        self.transport = _TrustedHTTPS(host, int(port or 443), timeout, tls_pin, ca_file, insecure, sock_factory)
        self.authentication(username, password)


class EosDriver(EOSDriver):  # type: ignore[misc]
    """NAPALM's EOSDriver with :class:`TrustedHttpsEapi` for ``transport="https"`` (the default), a running
    checkpoint for rollback, and :meth:`abandon`."""

    platform = "eos"

    def __init__(self, hostname: str, username: str, password: str, timeout: int = 60,
                 optional_args: dict[str, Any] | None = None) -> None:
        args = dict(optional_args or {})
        kind = args.pop("transport", args.pop("eos_transport", "https"))
        if kind == "https":
            kind = TrustedHttpsEapi
        elif kind == "http":
            kind = HttpEapiConnection
        elif not (isinstance(kind, type) and issubclass(kind, EapiConnection)):
            # NAPALM's "ssh" transport (netmiko) checks no host key, pyeapi's others run on the switch itself
            raise ConnectionException(f"{hostname}: eAPI transport {kind!r}: expected https or http")
        args["transport"] = kind
        super().__init__(hostname, username, password, timeout=timeout, optional_args=args)
        self._abandoned = False
        self._checkpointed = False
        self._had_startup = True  # whether the switch had a startup configuration before the commit
        self._saved = False  # whether this connection has written the startup configuration since (write memory)

    # ------------------------------------------------------------------ commit / rollback
    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if message:
            raise NotImplementedError("Commit message not implemented for this platform")
        if revert_in is not None and self.has_pending_commit():
            raise CommitError("Pending commit confirm already in process!")
        session = getattr(self, "config_session", None)
        self._had_startup = self._has_startup_config()
        checkpoint = [f"copy running-config {ROLLBACK_FILE}"]
        if self._had_startup:
            checkpoint.append(f"copy startup-config {STARTUP_FILE}")
        self._run_commands(checkpoint, encoding="text")
        self._checkpointed = True
        if revert_in is not None:
            timer = time.strftime("%H:%M:%S", time.gmtime(revert_in))
            self._run_commands([f"configure session {session} commit timer {timer}"], encoding="text")
        else:
            self._run_commands([f"configure session {session} commit", "write memory"], encoding="text")
            self._saved = True
            self.config_session = None

    def confirm_commit(self) -> None:
        super().confirm_commit()  # configure session <s> commit; write memory
        self._saved = True

    def rollback(self) -> None:
        pending = self._get_pending_commits()
        if pending:
            if not pending.get(self.config_session):
                raise CommitError("Current config session not found as pending commit-confirm")
            # EOS restores the running configuration the session replaced; startup was not written by the commit
            commands = [f"configure session {self.config_session} abort"]
        elif self._checkpointed and self._had_startup:
            commands = [f"configure replace {ROLLBACK_FILE}", f"copy {STARTUP_FILE} startup-config"]
        elif self._checkpointed:  # back to no startup configuration: delete the one write memory created
            commands = [f"configure replace {ROLLBACK_FILE}", *([f"delete {STARTUP_CONFIG}"] if self._saved else [])]
        else:
            raise CommitError("nothing to roll back to: no commit was made through this connection")
        self._run_commands(commands, encoding="text")
        self.config_session = None

    def _has_startup_config(self) -> bool:
        out = self._run_commands(["dir flash:"], encoding="text")[0]
        return lists_startup_config(str(out.get("output", "")) if isinstance(out, dict) else str(out))

    # ------------------------------------------------------------------ connection
    def abandon(self) -> None:
        """Drop the connection sending nothing more, now or from ``close()``/``__del__`` later (eAPI holds no
        connection between requests: there is nothing to shut)."""
        self._abandoned = True
        self.config_session = None

    def close(self) -> None:
        if self._abandoned or self.device is None:
            return
        super().close()
