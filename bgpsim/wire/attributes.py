"""The path attribute block of an UPDATE (or of an MRT RIB entry).

RFC 4271 section 4.3: each attribute is flags (1 octet; bit 0x10 Extended Length), type code (1),
length (1, or 2 with Extended Length) and value. Types decoded here:
  1 ORIGIN (4.3 a)  2 AS_PATH (4.3 b)  3 NEXT_HOP (4.3 c)  4 MULTI_EXIT_DISC (4.3 d)
  5 LOCAL_PREF (4.3 e)  6 ATOMIC_AGGREGATE (4.3 f)  7 AGGREGATOR (4.3 g; RFC 6793 section 3: 8 bytes
  between 4-byte speakers)  8 COMMUNITIES (RFC 1997)  14/15 MP_REACH/MP_UNREACH (RFC 4760)
  17 AS4_PATH, 18 AS4_AGGREGATOR (RFC 6793 section 3)  32 LARGE_COMMUNITY (RFC 8092).
Others are kept as raw (flags, type, value) triples.

RFC 6793 section 4.2.3: a 2-byte speaker's AS_PATH is merged with AS4_PATH, and an AGGREGATOR of
AS_TRANS is replaced by AS4_AGGREGATOR, as bgpdump does; the raw AS4 attributes stay available.
"""

from __future__ import annotations

from struct import unpack_from

from . import WireError
from .aspath import AS_TRANS, merge_as4_path, parse_as_path, path_text
from .communities import parse_communities, parse_large_communities
from .mp import parse_mp_reach, parse_mp_reach_rib, parse_mp_unreach
from .nlri import address_text

ORIGIN, AS_PATH, NEXT_HOP, MED, LOCAL_PREF, ATOMIC_AGGREGATE, AGGREGATOR, COMMUNITIES = 1, 2, 3, 4, 5, 6, 7, 8
MP_REACH_NLRI, MP_UNREACH_NLRI, AS4_PATH, AS4_AGGREGATOR, LARGE_COMMUNITY = 14, 15, 17, 18, 32
ORIGINS = ("IGP", "EGP", "INCOMPLETE")


class Attrs:
    """Decoded path attributes. Shared by every route announced with the same attribute bytes, so
    treat as read-only. `as_path` is the effective path (AS4_PATH merged in); absent attributes are
    None (communities: empty tuples)."""

    __slots__ = ("origin", "as_path", "next_hop", "med", "local_pref", "atomic_aggregate", "aggregator",
                 "communities", "large_communities", "mp_reach", "mp_unreach", "as4_path", "as4_aggregator",
                 "unknown", "has_as_path", "_text", "_fmt")

    def __init__(self):
        self.origin = None
        self.as_path = ()
        self.has_as_path = False
        self.next_hop = None
        self.med = None
        self.local_pref = None
        self.atomic_aggregate = False
        self.aggregator = None
        self.communities = ()
        self.large_communities = ()
        self.mp_reach = None
        self.mp_unreach = None
        self.as4_path = None
        self.as4_aggregator = None
        self.unknown = ()
        self._text = None
        self._fmt = None

    @property
    def as_path_text(self) -> str:
        if self._text is None:
            self._text = path_text(self.as_path)
        return self._text

    @property
    def origin_text(self) -> str | None:
        return None if self.origin is None else (ORIGINS[self.origin] if self.origin < 3 else str(self.origin))


def _want(name: str, section: str, want: int, got: int, pos: int):
    raise WireError(f"{name} ({section}): want {want} bytes, got {got}", pos)


def parse_attributes(buf: bytes, asn_size: int = 4, rib_afi: int | None = None, merge_as4: bool = True) -> Attrs:
    """Decode the attribute block `buf`. `asn_size`: 2 or 4 (RFC 6793); `rib_afi`: set for TABLE_DUMP_V2
    RIB entries, whose MP_REACH_NLRI is abbreviated (RFC 6396 section 4.3.4)."""
    a = Attrs()
    pos = 0
    end = len(buf)
    unknown = None
    while pos < end:
        if pos + 3 > end:
            raise WireError(f"path attribute (RFC 4271 section 4.3): want a 3-byte header, got {end - pos} bytes", pos)
        flags = buf[pos]
        code = buf[pos + 1]
        if flags & 0x10:  # Extended Length
            if pos + 4 > end:
                raise WireError(f"path attribute (RFC 4271 section 4.3): want a 4-byte extended-length header, "
                                f"got {end - pos} bytes", pos)
            alen = (buf[pos + 2] << 8) | buf[pos + 3]
            v = pos + 4
        else:
            alen = buf[pos + 2]
            v = pos + 3
        e = v + alen
        if e > end:
            raise WireError(f"path attribute type {code} (RFC 4271 section 4.3): want {alen} bytes, got {end - v}", v)
        if code == AS_PATH:
            a.as_path = parse_as_path(buf, v, e, asn_size)
            a.has_as_path = True
        elif code == ORIGIN:
            if alen != 1:
                _want("ORIGIN", "RFC 4271 section 4.3 a", 1, alen, v)
            a.origin = buf[v]
        elif code == NEXT_HOP:
            if alen != 4:
                _want("NEXT_HOP", "RFC 4271 section 4.3 c", 4, alen, v)
            a.next_hop = address_text(buf[v:e])
        elif code == MED:
            if alen != 4:
                _want("MULTI_EXIT_DISC", "RFC 4271 section 4.3 d", 4, alen, v)
            a.med = unpack_from(">I", buf, v)[0]
        elif code == LOCAL_PREF:
            if alen != 4:
                _want("LOCAL_PREF", "RFC 4271 section 4.3 e", 4, alen, v)
            a.local_pref = unpack_from(">I", buf, v)[0]
        elif code == COMMUNITIES:
            a.communities = parse_communities(buf, v, e)
        elif code == ATOMIC_AGGREGATE:
            if alen != 0:
                _want("ATOMIC_AGGREGATE", "RFC 4271 section 4.3 f", 0, alen, v)
            a.atomic_aggregate = True
        elif code == AGGREGATOR:
            # RFC 4271 section 4.3 g: 2-byte AS + IPv4; RFC 6793 section 3: 4-byte AS between 4-byte speakers
            if alen == 6:
                a.aggregator = ((buf[v] << 8) | buf[v + 1], address_text(buf[v + 2:e]))
            elif alen == 8:
                a.aggregator = (unpack_from(">I", buf, v)[0], address_text(buf[v + 4:e]))
            else:
                raise WireError(f"AGGREGATOR (RFC 4271 section 4.3 g, RFC 6793 section 3): want 6 or 8 bytes, got {alen}", v)
        elif code == MP_REACH_NLRI:
            a.mp_reach = parse_mp_reach(buf, v, e) if rib_afi is None else parse_mp_reach_rib(buf, v, e, rib_afi)
        elif code == MP_UNREACH_NLRI:
            a.mp_unreach = parse_mp_unreach(buf, v, e)
        elif code == AS4_PATH:
            a.as4_path = parse_as_path(buf, v, e, 4)
        elif code == AS4_AGGREGATOR:
            if alen != 8:
                _want("AS4_AGGREGATOR", "RFC 6793 section 3", 8, alen, v)
            a.as4_aggregator = (unpack_from(">I", buf, v)[0], address_text(buf[v + 4:e]))
        elif code == LARGE_COMMUNITY:
            a.large_communities = parse_large_communities(buf, v, e)
        else:
            if unknown is None:
                unknown = []
            unknown.append((flags, code, buf[v:e]))
        pos = e
    if unknown:
        a.unknown = tuple(unknown)
    if merge_as4 and asn_size == 2:
        # RFC 6793 section 4.2.3
        if a.as4_path is not None and a.has_as_path:
            a.as_path = merge_as4_path(a.as_path, a.as4_path)
        if a.as4_aggregator is not None and a.aggregator is not None and a.aggregator[0] == AS_TRANS:
            a.aggregator = a.as4_aggregator
    return a
