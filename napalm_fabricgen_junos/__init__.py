"""NAPALM community-driver entry point: ``napalm.get_network_driver("fabricgen_junos")`` → NAPALM's JunOSDriver
with fabricgen's set-format replace."""

from fabricgen.deploy.drivers.junos import JunosDriver

__all__ = ["JunosDriver"]
