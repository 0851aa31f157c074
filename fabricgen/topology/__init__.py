"""Topology stage: intent expansion, cabling, addressing and ASNs → an immutable :class:`Fabric`."""
