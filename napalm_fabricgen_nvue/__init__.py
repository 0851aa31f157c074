"""NAPALM community-driver entry point: ``napalm.get_network_driver("fabricgen_nvue")`` → fabricgen's NVUE driver."""

from fabricgen.deploy.drivers.nvue import NvueDriver

__all__ = ["NvueDriver"]
