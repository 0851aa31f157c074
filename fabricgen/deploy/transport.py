"""Where each device is reached and how: targets, and SSH sockets opened inside a lab's client namespace.

A lab's management addresses exist only inside its own namespaces. fabricgen opens the TCP connection of
each lab session from the lab's client namespace (``setns(2)`` on the calling thread, ``socket()``, back),
and hands the connected socket to paramiko/netmiko. The root namespace never routes to a lab address, so
nothing is sent outside the machine while the lab runs — nor after it is gone: connecting to a lab address
without its namespace is refused here, before any packet.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fabricgen.lab.plan import DEFAULT_MGMT_SUBNET, in_lab_subnet

CLONE_NEWNET = 0x40000000


class TransportError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Target:
    """One device to talk to."""

    name: str
    platform: str
    host: str
    port: int = 22
    netns: str | None = None  # open the TCP connection inside this network namespace (a lab's client namespace)
    known_hosts: str | None = None
    transport: str = ""  # eAPI: "https" (default) or "http"; empty on SSH platforms
    tls_pin: str | None = None  # eAPI over HTTPS: the certificate's "sha256:<hex>" (deploy/certs.py)
    ca_file: str | None = None  # eAPI over HTTPS: CA bundle the certificate must chain to (for this address)
    insecure: bool = False  # eAPI over HTTPS: verify nothing (explicit --insecure only)

    def warning(self) -> str | None:
        """The line to print for this device when its switch is not authenticated, or None."""
        if self.transport == "http":
            return (f"warning: {self.name}: eAPI over plain HTTP ({self.host}:{self.port}): the switch is not "
                    "authenticated and the password and configuration cross the network unencrypted")
        if self.transport == "https" and self.insecure:
            return (f"warning: {self.name}: --insecure: the TLS certificate of {self.host}:{self.port} is NOT "
                    "verified; whoever answers at that address receives the password (and, from apply, the "
                    "configuration) and can answer with anything")
        return None


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def connect_in_netns(netns: str, host: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection to ``host:port`` made from inside network namespace ``netns`` (root only).

    Only the calling thread switches namespace, and it switches back before returning; the socket keeps the
    namespace it was created in.
    """
    path = Path("/run/netns") / netns
    if not path.exists():
        raise TransportError(f"network namespace {netns} does not exist (is the lab up?)")
    libc = _libc()
    with open("/proc/thread-self/ns/net", "rb") as home, open(path, "rb") as target:
        if libc.setns(target.fileno(), CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise TransportError(f"setns({netns}): {os.strerror(err)}")
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        finally:
            if libc.setns(home.fileno(), CLONE_NEWNET) != 0:  # pragma: no cover - would leave the thread stranded
                os._exit(70)
    sock.settimeout(timeout)
    try:
        sock.connect((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def socket_factory(target: Target, timeout: float) -> Callable[[], socket.socket] | None:
    """How to open the TCP connection for ``target``: None for the default (root namespace, as ssh does)."""
    if target.netns:
        ns = target.netns
        return lambda: connect_in_netns(ns, target.host, target.port, timeout)
    if in_lab_subnet(target.host, DEFAULT_MGMT_SUBNET):
        raise TransportError(
            f"{target.name}: {target.host} is in the lab management range {DEFAULT_MGMT_SUBNET}, which is reachable "
            "only through a running lab; refusing to send it anywhere else"
        )
    return None
