"""Open a driver for one target (NAPALM's or ours) with credentials, host-key checking and the right socket."""

from __future__ import annotations

from typing import Any

from fabricgen.deploy.credentials import Credentials
from fabricgen.deploy.drivers import driver_class
from fabricgen.deploy.transport import Target, socket_factory


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
    else:  # NAPALM's own drivers (and fabricgen's junos, which is NAPALM's): their optional_args
        socket_factory(target, timeout)  # refuses lab addresses outside a lab
        if creds.ssh_key:
            optional["key_file"] = creds.ssh_key
        if target.known_hosts:
            optional.update(ssh_strict=strict_host_keys, alt_host_keys=True, alt_key_file=target.known_hosts)
    return cls(target.host, creds.username, creds.password, timeout=timeout, optional_args=optional)
