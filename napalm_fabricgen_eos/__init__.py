"""NAPALM community-driver entry point: ``napalm.get_network_driver("fabricgen_eos")`` → NAPALM's EOSDriver with
the switch's certificate verified before any request, and a rollback to the previous running configuration."""

from fabricgen.deploy.drivers.eos import EosDriver

__all__ = ["EosDriver"]
