"""Driver registry: platform → a NAPALM ``NetworkDriver`` class.

fabricgen's own drivers (``frr``, ``sonic``, ``nvue``) live beside this file; ``nxos_ssh`` is NAPALM's own
(``napalm.get_network_driver``); ``eos`` is NAPALM's ``EOSDriver`` with the switch's certificate verified and a
rollback to the previous running configuration (:mod:`fabricgen.deploy.drivers.eos`); ``junos`` is NAPALM's
``JunOSDriver`` with a set-format replace and the NETCONF host key verified (:mod:`fabricgen.deploy.drivers.junos`).
Each platform's commit/confirm/rollback sequence and what a lost session leaves behind:
:mod:`fabricgen.deploy.commit`.
"""

from __future__ import annotations

from typing import Any

NAPALM_DRIVER = {
    "frr": "fabricgen.frr",
    "sonic": "fabricgen.sonic",
    "nvue": "fabricgen.nvue",
    "eos": "fabricgen.eos",
    "nxos": "nxos_ssh",
    "junos": "fabricgen.junos",
}
"""Platform → driver name (``fabricgen.*`` are ours; the rest are NAPALM's own)."""


class DriverError(Exception):
    pass


def driver_class(platform: str) -> Any:
    """The NetworkDriver subclass for a platform."""
    name = NAPALM_DRIVER.get(platform)
    if name is None:
        raise DriverError(f"no driver for platform {platform!r} (known: {', '.join(sorted(NAPALM_DRIVER))})")
    if name == "fabricgen.frr":
        from fabricgen.deploy.drivers.frr import FrrDriver

        return FrrDriver
    if name == "fabricgen.sonic":
        from fabricgen.deploy.drivers.sonic import SonicDriver

        return SonicDriver
    if name == "fabricgen.nvue":
        from fabricgen.deploy.drivers.nvue import NvueDriver

        return NvueDriver
    if name == "fabricgen.eos":
        from fabricgen.deploy.drivers.eos import EosDriver

        return EosDriver
    if name == "fabricgen.junos":
        from fabricgen.deploy.drivers.junos import JunosDriver

        return JunosDriver
    try:
        from napalm import get_network_driver
    except ImportError:  # pragma: no cover - napalm is a dependency
        raise DriverError(f"platform {platform!r} needs NAPALM (pip install napalm)") from None
    return get_network_driver(name)
