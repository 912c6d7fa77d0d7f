"""Multiprotocol reachability.

RFC 4760 section 3 (MP_REACH_NLRI, type 14): AFI (2), SAFI (1), next-hop length (1), next hop,
reserved (1), NLRI. Section 4 (MP_UNREACH_NLRI, type 15): AFI, SAFI, withdrawn routes.
A next hop of 32 bytes is a global and a link-local IPv6 address (RFC 2545 section 3); the global one
is the next hop reported.
RFC 6396 section 4.3.4: in TABLE_DUMP_V2 RIB entries MP_REACH_NLRI is abbreviated to the next-hop
length and the next hop (the AFI and SAFI are the RIB record's, and there is no NLRI).
"""

from __future__ import annotations

from struct import unpack_from

from . import AFI_IPV4, WireError
from .nlri import address_text

SAFIS = (1, 2, 3)  # unicast, multicast, both (the ones bgpdump reports)


def _next_hop(buf: bytes, pos: int, nhlen: int) -> str | None:
    if nhlen == 4 or nhlen == 16:
        return address_text(buf[pos:pos + nhlen])
    if nhlen == 32:
        return address_text(buf[pos:pos + 16])
    if nhlen == 24 or nhlen == 48:  # RFC 4659 VPN next hop: an 8-byte RD, then the address
        return address_text(buf[pos + 8:pos + 24] if nhlen == 48 else buf[pos + 8:pos + 24])
    if nhlen == 12:
        return address_text(buf[pos + 8:pos + 12])
    return None


def parse_mp_reach(buf: bytes, pos: int, end: int):
    """(afi, safi, next-hop length, next hop text or None, nlri start, nlri end)."""
    if end - pos < 5:
        raise WireError(f"MP_REACH_NLRI (RFC 4760 section 3): want at least 5 bytes, got {end - pos}", pos)
    afi, safi, nhlen = unpack_from(">HBB", buf, pos)
    p = pos + 4
    if p + nhlen + 1 > end:
        raise WireError(f"MP_REACH_NLRI (RFC 4760 section 3): next hop of {nhlen} bytes and the reserved byte "
                        f"want {nhlen + 1} bytes, got {end - p}", p - 1)
    nh = _next_hop(buf, p, nhlen)
    p += nhlen + 1  # next hop, then the reserved octet (RFC 4760 section 3)
    return afi, safi, nhlen, nh, p, end


def parse_mp_reach_rib(buf: bytes, pos: int, end: int, afi: int):
    """RFC 6396 section 4.3.4 abbreviated form; a full RFC 4760 attribute (some writers use it) is
    recognised by its AFI and handled too."""
    if end - pos < 1:
        raise WireError("MP_REACH_NLRI (RFC 6396 section 4.3.4): want a next-hop length, got nothing", pos)
    nhlen = buf[pos]
    if pos + 1 + nhlen == end and nhlen in (4, 12, 16, 24, 32, 48):
        return afi, 1, nhlen, _next_hop(buf, pos + 1, nhlen), end, end
    return parse_mp_reach(buf, pos, end)


def parse_mp_unreach(buf: bytes, pos: int, end: int):
    """(afi, safi, withdrawn start, withdrawn end)."""
    if end - pos < 3:
        raise WireError(f"MP_UNREACH_NLRI (RFC 4760 section 4): want at least 3 bytes, got {end - pos}", pos)
    afi, safi = unpack_from(">HB", buf, pos)
    return afi, safi, pos + 3, end


def afi_ok(afi: int) -> bool:
    return afi == AFI_IPV4 or afi == 2
