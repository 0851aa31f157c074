"""A real switch lab on one Linux machine: FRR, lldpd and sshd per switch in network namespaces.

Built from a :class:`~fabricgen.topology.model.Fabric` (or a slice of it): one namespace per switch
(plus a private mount and UTS namespace with per-switch ``/etc/frr``, ``/etc/ssh``, … bind-mounted over
the stock paths), one veth pair per cable named as the cabling plan names the ports, a management bridge
in a namespace of its own, and a client namespace on that bridge from which fabricgen's SSH sessions
start. Nothing in the lab has a default route and the root namespace never holds a lab address, so lab
traffic cannot leave the machine — not while the lab runs, and not after it is torn down.

Linux and root only. Everything created is recorded (names, pids) in a state file under the run
directory and torn down by those records, never by pattern.
"""
