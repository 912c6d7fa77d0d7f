"""Communities.

RFC 1997 (COMMUNITIES, type 8): a list of 4-octet values, written "asn:value" (two 16-bit halves); the
well-known values 0xFFFFFF01 NO_EXPORT, 0xFFFFFF02 NO_ADVERTISE and 0xFFFFFF03 NO_EXPORT_SUBCONFED
(bgpdump prints "no-export", "no-advertise" and "local-AS").
RFC 8092 (LARGE_COMMUNITY, type 32): a list of 12-octet values, three 32-bit parts, "a:b:c".
"""

from __future__ import annotations

from struct import unpack_from

from . import WireError

NO_EXPORT, NO_ADVERTISE, NO_EXPORT_SUBCONFED = 0xFFFFFF01, 0xFFFFFF02, 0xFFFFFF03
BLACKHOLE = 0xFFFF029A  # RFC 7999 section 5: 65535:666 (bgpdump prints it so, by number)
_NAMES = {NO_EXPORT: "no-export", NO_ADVERTISE: "no-advertise", NO_EXPORT_SUBCONFED: "local-AS"}


def parse_communities(buf: bytes, pos: int, end: int) -> tuple[int, ...]:
    """RFC 1997: the 32-bit community values."""
    n = end - pos
    if n % 4:
        raise WireError(f"COMMUNITIES (RFC 1997): want a multiple of 4 bytes, got {n}", pos)
    return unpack_from(">%dI" % (n // 4), buf, pos)


def parse_large_communities(buf: bytes, pos: int, end: int) -> tuple[tuple[int, int, int], ...]:
    """RFC 8092 section 3: (global administrator, local data 1, local data 2) triples."""
    n = end - pos
    if n % 12:
        raise WireError(f"LARGE_COMMUNITY (RFC 8092 section 3): want a multiple of 12 bytes, got {n}", pos)
    flat = unpack_from(">%dI" % (n // 4), buf, pos)
    return tuple(zip(flat[0::3], flat[1::3], flat[2::3]))


def community_text(value: int) -> str:
    """bgpdump's text of one RFC 1997 community."""
    return _NAMES.get(value) or f"{value >> 16}:{value & 0xFFFF}"


def large_community_text(value: tuple[int, int, int]) -> str:
    return f"{value[0]}:{value[1]}:{value[2]}"
