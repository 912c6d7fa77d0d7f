"""NLRI: IP prefixes as BGP encodes them.

RFC 4271 section 4.3 (UPDATE "Withdrawn Routes" and "Network Layer Reachability Information"): each
prefix is a length in bits (1 octet) followed by just enough octets to hold those bits; trailing bits
past the length are irrelevant and are cleared here (bgpdump does the same).
RFC 4760 section 5: the same encoding for any address family inside MP_REACH / MP_UNREACH.
RFC 7911 section 3 (ADD-PATH): each prefix is preceded by a 4-octet Path Identifier.
"""

from __future__ import annotations

import socket
from struct import Struct, unpack_from

from . import AFI_IPV4, WireError

_inet_ntoa = socket.inet_ntoa
_inet_ntop = socket.inet_ntop
_AF_INET6 = socket.AF_INET6


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


class PrefixError(WireError):
    """A fault in a run of prefixes; `parsed` holds what was read before it, in the form the parser
    returns (`parse_prefixes`: a list of (text, path id); `parse_prefix_ints`: the three lists)."""

    def __init__(self, message: str, offset: int, parsed):
        super().__init__(message, offset)
        self.parsed = parsed


_U32 = Struct(">I").unpack_from
MASK4 = tuple((0xFFFFFFFF << (32 - n)) & 0xFFFFFFFF for n in range(33))
MASK6 = tuple(((1 << 128) - 1) ^ ((1 << (128 - n)) - 1) for n in range(129))


def parse_prefix_ints(buf: bytes, pos: int, end: int, afi: int, addpath: bool = False):
    """The prefixes in buf[pos:end] as three lists: networks (the address as an integer, bits past
    the length cleared), lengths, and path ids (None without ADD-PATH). A fault raises `PrefixError`
    carrying the lists of the whole prefixes before it."""
    nets: list[int] = []
    plens: list[int] = []
    pids: list[int] | None = [] if addpath else None
    blen = len(buf)
    if afi == AFI_IPV4 and not addpath:  # the common case, kept tight
        while pos < end:
            plen = buf[pos]
            if plen > 32:
                raise PrefixError(f"NLRI (RFC 4271 section 4.3): want a prefix length <= 32, got {plen}", pos,
                                  (nets, plens, pids))
            q = pos + 1
            pos = q + ((plen + 7) >> 3)
            if pos > end:
                raise PrefixError(f"NLRI (RFC 4271 section 4.3): /{plen} wants {pos - q} address bytes, got {end - q}",
                                  q, (nets, plens, pids))
            if q + 4 <= blen:  # read 4 bytes whatever the length and mask: no slice
                nets.append(_U32(buf, q)[0] & MASK4[plen])
            else:
                nets.append((int.from_bytes(buf[q:pos], "big") << (8 * (4 - pos + q))) & MASK4[plen])
            plens.append(plen)
        return nets, plens, pids
    maxbits, width, masks = (32, 4, MASK4) if afi == AFI_IPV4 else (128, 16, MASK6)
    while pos < end:
        if addpath:
            # RFC 7911 section 3: Path Identifier (4 octets) before each prefix
            if pos + 5 > end:
                raise PrefixError(f"ADD-PATH NLRI (RFC 7911 section 3): want a 4-byte path id and a length, got "
                                  f"{end - pos} bytes", pos, (nets, plens, pids))
            pid = _U32(buf, pos)[0]
            pos += 4
        plen = buf[pos]
        if plen > maxbits:
            raise PrefixError(f"NLRI (RFC 4271 section 4.3): want a prefix length <= {maxbits}, got {plen}", pos,
                              (nets, plens, pids))
        q = pos + 1
        pos = q + ((plen + 7) >> 3)
        if pos > end:
            raise PrefixError(f"NLRI (RFC 4271 section 4.3): /{plen} wants {pos - q} address bytes, got {end - q}",
                              q, (nets, plens, pids))
        if addpath:
            pids.append(pid)
        nets.append((int.from_bytes(buf[q:pos], "big") << (8 * (width - pos + q))) & masks[plen])
        plens.append(plen)
    return nets, plens, pids


def network_text(afi: int, network: int, plen: int) -> str:
    """'a.b.c.d/len' or 'x::/len' (bgpdump's IPv6 text) of an integer network."""
    if afi == AFI_IPV4:
        return f"{_inet_ntoa(network.to_bytes(4, 'big'))}/{plen}"
    return f"{ipv6_text(network.to_bytes(16, 'big'))}/{plen}"


def parse_prefixes(buf: bytes, pos: int, end: int, afi: int, addpath: bool = False) -> list[tuple[str, int | None]]:
    """The prefixes in buf[pos:end] as (text, path id or None). A fault raises `PrefixError`, which
    carries the prefixes read before it."""
    try:
        nets, plens, pids = parse_prefix_ints(buf, pos, end, afi, addpath)
    except PrefixError as e:
        raise PrefixError(e.message, e.offset, _texts(afi, *e.parsed)) from None
    return _texts(afi, nets, plens, pids)


def _texts(afi, nets, plens, pids):
    return [(network_text(afi, n, p), None if pids is None else pids[i]) for i, (n, p) in enumerate(zip(nets, plens))]
