"""Open a driver for one target (NAPALM's or ours) with credentials, the device authenticated and the right
socket; drop a lost one sending nothing.

Every transport authenticates the device before a credential leaves: SSH and NETCONF check the host key
against the target's known_hosts file (strict unless the caller says otherwise; strict without a known_hosts
file is refused before connecting), eAPI over HTTPS checks the certificate against its pin or CA bundle
(:mod:`fabricgen.deploy.drivers.eos`). Only an explicit ``--insecure`` (per device, with
:meth:`~fabricgen.deploy.transport.Target.warning`) or a hosts entry's ``transport: http`` skips that for eAPI.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fabricgen.deploy.credentials import Credentials
from fabricgen.deploy.drivers import driver_class
from fabricgen.deploy.transport import Target, TransportError, socket_factory


def make_driver(target: Target, creds: Credentials, timeout: int = 30, strict_host_keys: bool = True) -> Any:
    cls = driver_class(target.platform)
    optional: dict[str, Any] = {"port": target.port}
    from fabricgen.deploy.drivers.base import SSHDriver

    if issubclass(cls, SSHDriver):
        optional.update(
            key_file=creds.ssh_key,
            known_hosts=target.known_hosts,
            ssh_strict=strict_host_keys,
            sock_factory=socket_factory(target, timeout),
        )
    elif target.platform == "eos":  # eAPI: no SSH host key; the certificate is the switch's identity
        optional.update(transport=target.transport or "https", sock_factory=socket_factory(target, timeout))
        if (target.transport or "https") == "https":
            optional.update(tls_pin=target.tls_pin, ca_file=target.ca_file, insecure=target.insecure)
    else:  # NAPALM's nxos_ssh (netmiko) and fabricgen's junos (PyEZ/ncclient): their optional_args
        socket_factory(target, timeout)  # refuses lab addresses outside a lab
        if strict_host_keys and not target.known_hosts:
            raise TransportError(f"{target.name}: no known_hosts file to verify the host key against")
        if creds.ssh_key:
            optional["key_file"] = creds.ssh_key
        optional["ssh_strict"] = strict_host_keys
        if target.known_hosts:
            optional.update(alt_host_keys=True, alt_key_file=target.known_hosts)
        if target.platform != "junos":
            return _says_why(cls(target.host, creds.username, creds.password, timeout=timeout,
                                 optional_args=optional))
    return cls(target.host, creds.username, creds.password, timeout=timeout, optional_args=optional)


def _says_why(driver: Any) -> Any:
    """NAPALM's netmiko drivers answer every failed connection "Cannot connect to HOST", dropping netmiko's
    reason (a host key that does not match, a refused port): keep it in the message."""
    from napalm.base.exceptions import ConnectionException

    inner = driver.open

    def open_() -> None:
        try:
            inner()
        except ConnectionException as exc:
            cause = exc.__cause__ or exc.__context__
            if cause is None:
                raise
            from fabricgen.deploy.credentials import error_line

            raise ConnectionException(f"{exc}: {error_line(cause)}") from None

    driver.open = open_
    return driver


def abandon(driver: Any) -> None:
    """Drop ``driver``'s connection sending nothing more to the device, now or later: for a device whose state
    is unknown (its session broke during the commit), where NAPALM's ``close()`` — also called by its
    ``__del__`` — would send an abort (EOS: ``configure session … abort``, a rollback of a commit the device may
    have taken), ``<close-session/>`` (Junos) or ``exit`` (netmiko).

    The driver's own ``abandon()`` when it has one (fabricgen's EOS, Junos and SSH drivers); for NAPALM's netmiko
    drivers the SSH transport under netmiko is shut. Either way ``close`` becomes a no-op on this instance."""
    own = getattr(driver, "abandon", None)
    with contextlib.suppress(Exception):
        if callable(own):
            own()
        else:
            conn = getattr(driver, "device", None)
            for attr in ("remote_conn", "remote_conn_pre"):
                obj: Any = getattr(conn, attr, None)
                transport: Any = getattr(obj, "transport", None)
                if hasattr(obj, "get_transport"):
                    transport = obj.get_transport()
                if transport is not None:
                    transport.close()
    with contextlib.suppress(Exception):
        driver.close = lambda: None  # NAPALM's __del__ calls self.close(): the instance attribute wins
