"""A BGPsec UPDATE message as a BGPsec speaker sends it (RFC 8205 section 3; RFC 4271 section 4.3).

The prefix travels in MP_REACH_NLRI for IPv4 as for IPv6 (RFC 4760 section 3), one prefix per UPDATE,
because each signature covers exactly one prefix (RFC 8205 section 4.1); there is no AS_PATH, the
BGPsec_PATH stands for it. Attributes in type order: ORIGIN, MP_REACH_NLRI, BGPsec_PATH.
"""

from __future__ import annotations

import ipaddress
from struct import pack

from .octets import AFI, SAFI_UNICAST, Prefix, prefix_bytes
from .path import BgpsecPath

MARKER = b"\xff" * 16
UPDATE = 2
MAX_MESSAGE = 4096  # RFC 4271 section 4.1 (RFC 8654 raises it to 65535 after an Extended Message capability)
ORIGIN_IGP = 0


def message(kind: int, body: bytes) -> bytes:
    """A BGP message: marker, length, type (RFC 4271 section 4.1), then `body`."""
    return MARKER + pack(">HB", 19 + len(body), kind) + body


def attribute(flags: int, code: int, value: bytes) -> bytes:
    """A path attribute (RFC 4271 section 4.3): Extended Length when the value needs it."""
    if len(value) > 255:
        return pack(">BBH", flags | 0x10, code, len(value)) + value
    return pack(">BBB", flags, code, len(value)) + value


def mp_reach(prefix: Prefix, next_hop: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bytes:
    """MP_REACH_NLRI (RFC 4760 section 3) for one prefix."""
    nh = next_hop.packed
    value = pack(">HBB", AFI[prefix.version], SAFI_UNICAST, len(nh)) + nh + b"\x00" + prefix_bytes(prefix)
    return attribute(0x80, 14, value)


def update_message(path: BgpsecPath, prefix: Prefix, next_hop, origin: int = ORIGIN_IGP) -> bytes:
    """The whole UPDATE (header included) announcing `prefix` with `path`."""
    attrs = attribute(0x40, 1, bytes([origin])) + mp_reach(prefix, next_hop) + path.attribute()
    body = pack(">HH", 0, len(attrs)) + attrs
    if 19 + len(body) > MAX_MESSAGE:
        raise ValueError(f"the UPDATE would be {19 + len(body)} bytes; BGP allows {MAX_MESSAGE} (RFC 4271 section 4.1)")
    return message(UPDATE, body)
