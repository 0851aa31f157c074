"""Stable address and ASN allocation.

Everything is keyed by a device's stable ``id`` and a port's position on its cage — never by where an
object appears in a list — so adding a unit, a node or a spine leaves every existing device's loopback,
ASN and point-to-point subnets exactly as they were.

* loopback  = role pool + id
* /31 of a link = link-role pool + 2 × (anchor id × PORT_STRIDE + first SerDes lane of the anchor port),
  where the anchor is the leaf of a host or leaf–spine link and the spine of a spine–core link
* ASN       = leaf_base + id (unique leaves) or leaf_base (shared); spine_base + pod; core ASN
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from functools import cache

from fabricgen.inventory.schema import AsnScheme, Role

PORT_STRIDE = 512
"""SerDes lanes reserved per device in a /31 pool (64 cages × 8 lanes covers every catalog model)."""


def int_to_ip(value: int) -> str:
    """``167772161`` → ``"10.0.0.1"``.

    >>> int_to_ip(167772161)
    '10.0.0.1'
    """
    return socket.inet_ntoa(struct.pack("!I", value))


class PoolExhausted(ValueError):
    pass


def loopback(pool: ipaddress.IPv4Network, ident: int) -> str:
    """Loopback of the device with ``ident`` in a role pool: the pool's ``ident``-th address.

    >>> loopback(ipaddress.IPv4Network("10.0.0.0/24"), 7)
    '10.0.0.7'
    """
    if ident >= pool.num_addresses - 1:
        raise PoolExhausted(f"id {ident} does not fit loopback pool {pool} ({pool.num_addresses - 2} ids)")
    return int_to_ip(int(pool.network_address) + ident)


def p2p_pair(base: int, size: int, pool: ipaddress.IPv4Network, lower_id: int, lane_index: int) -> tuple[str, str]:
    """The two ends of a link's /31 in ``pool`` (whose first address is ``base`` and whose size is ``size``,
    taken out once by callers that allocate many): the even address, the upper end's, which also names the
    /31; and the odd one, the lower end's. The /31 is at 2 × (``lower_id`` × PORT_STRIDE + ``lane_index``).

    >>> p2p_pair(0x0A800000, 1 << 22, ipaddress.IPv4Network("10.128.0.0/10"), 1, 8)
    ('10.128.4.16/31', '10.128.4.17/31')
    """
    offset = 2 * (lower_id * PORT_STRIDE + lane_index)
    if offset + 2 > size:
        raise PoolExhausted(
            f"device id {lower_id} needs addresses up to offset {offset + 1} but pool {pool} "
            f"has {pool.num_addresses}; widen the pool"
        )
    net = base + offset
    head, last = _dotted_24(net >> 8), net & 255  # an even address: its odd neighbour is in the same /24
    return f"{head}{last}/31", f"{head}{last + 1}/31"


@cache
def _dotted_24(prefix: int) -> str:
    """The first three octets of the addresses in /24 number ``prefix``, with the trailing dot.

    >>> _dotted_24(0x0A8004)
    '10.128.4.'
    """
    return int_to_ip(prefix << 8)[:-1]


def odd_address(subnet: str) -> str:
    """The upper address of a /31 written as its (even) network address: only the last octet changes.

    >>> odd_address("10.128.4.16/31")
    '10.128.4.17/31'
    """
    head, _, last = subnet[:-3].rpartition(".")
    return f"{head}.{int(last) + 1}/31"


def asn_for(scheme: AsnScheme, role: Role, ident: int, pod: int | None) -> int:
    """ASN of a device under the fabric's scheme.

    >>> asn_for(AsnScheme(), Role.LEAF, 3, None), asn_for(AsnScheme(), Role.SPINE, 1, 2)
    (4200100003, 4200000102)
    """
    if role is Role.LEAF:
        asn = scheme.leaf_base + ident if scheme.leaf == "unique" else scheme.leaf_base
    elif role is Role.SPINE:
        asn = scheme.spine_base + (pod or 0)
    else:
        asn = scheme.core
    if asn > 4_294_967_294:
        raise PoolExhausted(f"ASN {asn} is beyond the 4-byte range")
    return asn
