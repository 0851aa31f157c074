"""Live operations: apply (waves, commit-confirm, verify, rollback), drift and verify over NAPALM drivers.

The only package that opens a socket. Drivers follow NAPALM's ``NetworkDriver`` contract, so NAPALM's own
drivers (eos, nxos, nxos_ssh, junos) and fabricgen's (frr, sonic, nvue) are interchangeable.
"""
