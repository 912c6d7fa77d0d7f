"""The OPEN message: what a reader of a captured session needs from it.

RFC 4271 section 4.2: Version (1), My Autonomous System (2), Hold Time (2), BGP Identifier (4),
Optional Parameters Length (1), Optional Parameters (type 1, length 1, value).
RFC 9072 section 2: Optional Parameters Length 255 with a first parameter type of 255 means an
extended length (2 octets) follows, and each parameter's length is then 2 octets.
RFC 5492 section 4: optional parameter type 2 holds capabilities (code 1, length 1, value).
RFC 6793 section 3: capability 65 carries the speaker's 4-octet AS (My AS is then AS_TRANS if large).
RFC 7911 section 4: capability 69 (ADD-PATH) lists (AFI 2, SAFI 1, Send/Receive 1) triples.
RFC 8205 section 2.1: capability 7 (BGPsec; bgpsim.rpki.bgpsec.capability) is Version, Direction
(0 receive, 1 send) and AFI, 3 octets; a speaker sends one per address family and direction.
"""

from __future__ import annotations

from ipaddress import IPv4Address
from typing import NamedTuple

from . import WireError

CAP_MULTIPROTOCOL, CAP_ROUTE_REFRESH, CAP_BGPSEC, CAP_AS4, CAP_ADD_PATH = 1, 2, 7, 65, 69


class Open(NamedTuple):
    my_as: int  # the 4-octet AS when the capability gives one, else My Autonomous System
    as4: bool  # the 4-octet AS capability was advertised
    add_path: dict  # (afi, safi) -> send/receive bits (1 receive, 2 send, 3 both)
    bgpsec: frozenset = frozenset()  # (direction, afi) of each BGPsec capability (direction 0 receive, 1 send)
    hold: int = 0  # Hold Time, seconds
    router_id: str = ""  # BGP Identifier
    families: frozenset = frozenset()  # (afi, safi) of each multiprotocol capability (RFC 4760 section 8)
    route_refresh: bool = False  # the route refresh capability (RFC 2918 section 2)


def parse_open(buf: bytes, pos: int, end: int) -> Open:
    """The OPEN body buf[pos:end] (after the 19-byte header)."""
    if end - pos < 10:
        raise WireError(f"OPEN (RFC 4271 section 4.2): want at least 10 bytes, got {end - pos}", pos)
    my_as = (buf[pos + 1] << 8) | buf[pos + 2]
    plen = buf[pos + 9]
    p = pos + 10
    wide = False
    if plen == 255 and p < end and buf[p] == 255:  # RFC 9072 section 2
        if p + 3 > end:
            raise WireError("OPEN (RFC 9072 section 2): want a 2-byte extended parameters length", p)
        plen = (buf[p + 1] << 8) | buf[p + 2]
        p += 3
        wide = True
    if p + plen > end:
        raise WireError(f"OPEN (RFC 4271 section 4.2): Optional Parameters Length {plen} wants {plen} bytes, "
                        f"got {end - p}", pos + 9)
    pend = p + plen
    as4 = None
    add_path: dict = {}
    bgpsec = set()
    families = set()
    refresh = False
    hdr = 3 if wide else 2
    while p < pend:
        if p + hdr > pend:
            raise WireError("OPEN optional parameter (RFC 4271 section 4.2): want a type and a length", p)
        ptype = buf[p]
        vlen = ((buf[p + 1] << 8) | buf[p + 2]) if wide else buf[p + 1]
        v = p + hdr
        if v + vlen > pend:
            raise WireError(f"OPEN optional parameter type {ptype}: wants {vlen} bytes, got {pend - v}", p)
        if ptype == 2:  # capabilities, RFC 5492 section 4
            c = v
            while c < v + vlen:
                if c + 2 > v + vlen:
                    raise WireError("capability (RFC 5492 section 4): want a code and a length", c)
                code, clen = buf[c], buf[c + 1]
                cv = c + 2
                if cv + clen > v + vlen:
                    raise WireError(f"capability {code} (RFC 5492 section 4): wants {clen} bytes, got {v + vlen - cv}", c)
                if code == CAP_AS4:
                    if clen != 4:
                        raise WireError(f"4-octet AS capability (RFC 6793 section 3): want 4 bytes, got {clen}", cv)
                    as4 = int.from_bytes(buf[cv:cv + 4], "big")
                elif code == CAP_ADD_PATH:
                    if clen % 4:
                        raise WireError(f"ADD-PATH capability (RFC 7911 section 4): want a multiple of 4 bytes, "
                                        f"got {clen}", cv)
                    for t in range(cv, cv + clen, 4):
                        add_path[((buf[t] << 8) | buf[t + 1], buf[t + 2])] = buf[t + 3] & 3
                elif code == CAP_BGPSEC:
                    bgpsec.add(_bgpsec_capability(buf, cv, clen))
                elif code == CAP_MULTIPROTOCOL:
                    if clen != 4:
                        raise WireError(f"multiprotocol capability (RFC 4760 section 8): want 4 bytes, got {clen}", cv)
                    families.add(((buf[cv] << 8) | buf[cv + 1], buf[cv + 3]))
                elif code == CAP_ROUTE_REFRESH:
                    refresh = True
                c = cv + clen
        p = v + vlen
    return Open(my_as if as4 is None else as4, as4 is not None, add_path, frozenset(bgpsec),
                (buf[pos + 3] << 8) | buf[pos + 4], str(IPv4Address(bytes(buf[pos + 5:pos + 9]))), frozenset(families),
                refresh)


def _bgpsec_capability(buf: bytes, cv: int, clen: int) -> tuple[int, int]:
    """(direction, afi) of the BGPsec capability value buf[cv:cv + clen] (RFC 8205 section 2.1)."""
    from bgpsim.rpki.bgpsec.capability import decode_capability

    if clen != 3:
        raise WireError(f"BGPsec capability (RFC 8205 section 2.1): want 3 bytes, got {clen}", cv)
    cap = decode_capability(buf[cv:cv + 3])
    return cap.direction, cap.afi
