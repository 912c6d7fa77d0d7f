"""A BGPsec UPDATE message as a BGPsec speaker sends it (RFC 8205 section 3; RFC 4271 section 4.3).

The prefix travels in MP_REACH_NLRI for IPv4 as for IPv6 (RFC 4760 section 3), one prefix per UPDATE,
because each signature covers exactly one prefix (RFC 8205 section 4.1); there is no AS_PATH, the
BGPsec_PATH stands for it. Attributes in type order: ORIGIN, MP_REACH_NLRI, BGPsec_PATH.
"""

from __future__ import annotations

import ipaddress
from struct import pack

from .octets import AFI, SAFI_UNICAST, Prefix
from .path import BgpsecPath

MARKER = b"\xff" * 16
UPDATE = 2
MAX_MESSAGE = 4096  # RFC 4271 section 4.1 (RFC 8654 raises it to 65535 after an Extended Message capability)
ORIGIN_IGP = 0


def _attribute(flags: int, code: int, value: bytes) -> bytes:
    if len(value) > 255:
        return pack(">BBH", flags | 0x10, code, len(value)) + value
    return pack(">BBB", flags, code, len(value)) + value


def mp_reach(prefix: Prefix, next_hop: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bytes:
    """MP_REACH_NLRI (RFC 4760 section 3) for one prefix."""
    n = prefix.prefixlen
    nh = next_hop.packed
    value = (pack(">HBB", AFI[prefix.version], SAFI_UNICAST, len(nh)) + nh + b"\x00"
             + bytes([n]) + prefix.network_address.packed[:(n + 7) // 8])
    return _attribute(0x80, 14, value)


def update_message(path: BgpsecPath, prefix: Prefix, next_hop, origin: int = ORIGIN_IGP) -> bytes:
    """The whole UPDATE (header included) announcing `prefix` with `path`."""
    attrs = _attribute(0x40, 1, bytes([origin])) + mp_reach(prefix, next_hop) + path.attribute()
    body = pack(">H", 0) + pack(">H", len(attrs)) + attrs
    length = 19 + len(body)
    if length > MAX_MESSAGE:
        raise ValueError(f"the UPDATE would be {length} bytes; BGP allows {MAX_MESSAGE} (RFC 4271 section 4.1)")
    return MARKER + pack(">HB", length, UPDATE) + body
