"""NLRI: IP prefixes as BGP encodes them.

RFC 4271 section 4.3 (UPDATE "Withdrawn Routes" and "Network Layer Reachability Information"): each
prefix is a length in bits (1 octet) followed by just enough octets to hold those bits; trailing bits
past the length are irrelevant and are cleared here (bgpdump does the same).
RFC 4760 section 5: the same encoding for any address family inside MP_REACH / MP_UNREACH.
RFC 7911 section 3 (ADD-PATH): each prefix is preceded by a 4-octet Path Identifier.
"""

from __future__ import annotations

import socket
from struct import unpack_from

from . import AFI_IPV4, WireError

_inet_ntoa = socket.inet_ntoa
_inet_ntop = socket.inet_ntop
_AF_INET6 = socket.AF_INET6
_PAD4 = (b"\0\0\0\0", b"\0\0\0", b"\0\0", b"\0", b"")
_PAD16 = tuple(b"\0" * (16 - n) for n in range(17))
_MASK = (0xFF, 0x80, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC, 0xFE)


_V6: dict[bytes, str] = {}


def ipv6_text(raw: bytes) -> str:
    """IPv6 text as bgpdump's fmt_ipv6 writes it (RFC 4291 section 2.2): like inet_ntop, except that
    the first longest run of zero groups is written "::" even when it is a single group, and
    IPv4-compatible addresses (::a.b.c.d, RFC 4291 section 2.5.5.1) keep the dotted form."""
    s = _V6.get(raw)
    if s is not None:
        return s
    words = unpack_from(">8H", raw)
    if not any(words[:5]) and (words[5] == 0xFFFF or (words[5] == 0 and (words[6] or words[7] > 1))):
        s = ("::ffff:" if words[5] else "::") + _inet_ntoa(raw[12:16])
    else:
        best, blen, i = -1, 0, 0
        while i < 8:
            if words[i] == 0:
                j = i
                while j < 8 and words[j] == 0:
                    j += 1
                if j - i > blen:
                    best, blen = i, j - i
                i = j
            else:
                i += 1
        if best < 0:
            s = ":".join("%x" % w for w in words)
        else:
            s = ":".join("%x" % w for w in words[:best]) + "::" + ":".join("%x" % w for w in words[best + blen:])
    if len(_V6) >= 1 << 16:
        _V6.clear()
    _V6[raw] = s
    return s


def address_text(raw: bytes) -> str:
    """An IPv4 (4 bytes) or IPv6 (16 bytes) address as text, as bgpdump prints it."""
    if len(raw) == 4:
        return _inet_ntoa(raw)
    if len(raw) == 16:
        return ipv6_text(bytes(raw))
    raise WireError(f"want a 4- or 16-byte address, got {len(raw)} bytes")


def prefix_text(raw: bytes, plen: int, afi: int) -> str:
    """'a.b.c.d/len' or 'x::/len' from the significant octets of a prefix; bits past `plen` cleared."""
    n = len(raw)
    if plen & 7:
        raw = raw[:-1] + bytes((raw[-1] & _MASK[plen & 7],))
    if afi == AFI_IPV4:
        return f"{_inet_ntoa(raw + _PAD4[n])}/{plen}"
    return f"{ipv6_text(raw + _PAD16[n])}/{plen}"


class PrefixError(WireError):
    """A fault in a run of prefixes; `parsed` holds the whole prefixes before it."""

    def __init__(self, message: str, offset: int, parsed: list):
        super().__init__(message, offset)
        self.parsed = parsed


def parse_prefixes(buf: bytes, pos: int, end: int, afi: int, addpath: bool = False) -> list[tuple[str, int | None]]:
    """The prefixes in buf[pos:end] as (text, path id or None). A fault raises `PrefixError`, which
    carries the prefixes read before it."""
    out = []
    append = out.append
    maxbits = 32 if afi == AFI_IPV4 else 128
    pad = _PAD4 if afi == AFI_IPV4 else _PAD16
    pid = None
    while pos < end:
        if addpath:
            # RFC 7911 section 3: Path Identifier (4 octets) before each prefix
            if pos + 5 > end:
                raise PrefixError(f"ADD-PATH NLRI (RFC 7911 section 3): want a 4-byte path id and a length, got {end - pos} bytes", pos, out)
            pid = unpack_from(">I", buf, pos)[0]
            pos += 4
        plen = buf[pos]
        if plen > maxbits:
            raise PrefixError(f"NLRI (RFC 4271 section 4.3): want a prefix length <= {maxbits}, got {plen}", pos, out)
        n = (plen + 7) >> 3
        pos += 1
        if pos + n > end:
            raise PrefixError(f"NLRI (RFC 4271 section 4.3): /{plen} wants {n} address bytes, got {end - pos}", pos, out)
        raw = buf[pos:pos + n]
        pos += n
        if plen & 7:
            raw = raw[:-1] + bytes((raw[-1] & _MASK[plen & 7],))
        if maxbits == 32:
            append((f"{_inet_ntoa(raw + pad[n])}/{plen}", pid))
        else:
            append((f"{ipv6_text(raw + pad[n])}/{plen}", pid))
    return out
