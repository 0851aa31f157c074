"""NAPALM community-driver entry point: ``napalm.get_network_driver("fabricgen_frr")`` → fabricgen's FRR driver."""

from fabricgen.deploy.drivers.frr import FrrDriver

__all__ = ["FrrDriver"]
