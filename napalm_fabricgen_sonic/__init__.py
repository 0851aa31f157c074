"""NAPALM community-driver entry point: ``napalm.get_network_driver("fabricgen_sonic")`` → fabricgen's SONiC driver."""

from fabricgen.deploy.drivers.sonic import SonicDriver

__all__ = ["SonicDriver"]
