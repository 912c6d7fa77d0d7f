"""The BGP message header and the UPDATE message.

RFC 4271 section 4.1: Marker (16 octets, all ones), Length (2; 19 to 4096, RFC 8654 allows up to
65535), Type (1: 1 OPEN, 2 UPDATE, 3 NOTIFICATION, 4 KEEPALIVE, 5 ROUTE-REFRESH).
RFC 4271 section 4.3: UPDATE = Withdrawn Routes Length (2), Withdrawn Routes, Total Path Attribute
Length (2), Path Attributes, NLRI (the rest of the message).
"""

from __future__ import annotations

from typing import NamedTuple

from . import WireError

HEADER = 19
OPEN, UPDATE, NOTIFICATION, KEEPALIVE, ROUTE_REFRESH = 1, 2, 3, 4, 5


def parse_header(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """(message type, message end) of the message at buf[pos:end]; RFC 4271 section 4.1."""
    if end - pos < HEADER:
        raise WireError(f"BGP message header (RFC 4271 section 4.1): want 19 bytes, got {end - pos}", pos)
    length = (buf[pos + 16] << 8) | buf[pos + 17]
    if length < HEADER or pos + length > end:
        raise WireError(f"BGP message header (RFC 4271 section 4.1): length field says {length}, want 19 to "
                        f"{end - pos}", pos + 16)
    return buf[pos + 18], pos + length


class Update(NamedTuple):
    """Offsets into the message bytes of the three parts of an UPDATE (RFC 4271 section 4.3)."""

    withdrawn: tuple[int, int]
    attributes: tuple[int, int]
    nlri: tuple[int, int]


def split_update(buf: bytes, pos: int, end: int) -> Update:
    """Split the UPDATE body buf[pos:end] (after the 19-byte header)."""
    if end - pos < 4:
        raise WireError(f"UPDATE (RFC 4271 section 4.3): want at least 4 bytes, got {end - pos}", pos)
    wlen = (buf[pos] << 8) | buf[pos + 1]
    w = pos + 2
    if w + wlen + 2 > end:
        raise WireError(f"UPDATE (RFC 4271 section 4.3): Withdrawn Routes Length {wlen} wants {wlen + 2} more bytes, "
                        f"got {end - w}", pos)
    a = w + wlen
    alen = (buf[a] << 8) | buf[a + 1]
    a += 2
    if a + alen > end:
        raise WireError(f"UPDATE (RFC 4271 section 4.3): Total Path Attribute Length {alen} wants {alen} bytes, "
                        f"got {end - a}", a - 2)
    return Update((w, w + wlen), (a, a + alen), (a + alen, end))
