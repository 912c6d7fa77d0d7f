"""The path attribute block of an UPDATE (or of an MRT RIB entry).

RFC 4271 section 4.3: each attribute is flags (1 octet; bit 0x10 Extended Length), type code (1),
length (1, or 2 with Extended Length) and value. Types decoded here:
  1 ORIGIN (4.3 a)  2 AS_PATH (4.3 b)  3 NEXT_HOP (4.3 c)  4 MULTI_EXIT_DISC (4.3 d)
  5 LOCAL_PREF (4.3 e)  6 ATOMIC_AGGREGATE (4.3 f)  7 AGGREGATOR (4.3 g; RFC 6793 section 3: 8 bytes
  between 4-byte speakers)  8 COMMUNITIES (RFC 1997)  14/15 MP_REACH/MP_UNREACH (RFC 4760)
  17 AS4_PATH, 18 AS4_AGGREGATOR (RFC 6793 section 3)  32 LARGE_COMMUNITY (RFC 8092)
  33 BGPsec_PATH (RFC 8205 section 3; bgpsim.wire.bgpsec).
Others are kept as raw (flags, type, value) triples.

RFC 6793 section 4.2.3: a 2-byte speaker's AS_PATH is merged with AS4_PATH, and an AGGREGATOR of
AS_TRANS is replaced by AS4_AGGREGATOR, as bgpdump does; the raw AS4 attributes stay available.

RFC 8205: a BGPsec UPDATE carries BGPsec_PATH instead of AS_PATH (section 3: never both; an UPDATE
with both is rejected like any other malformed attribute block). Its Secure_Path gives the effective
AS path (section 4.4: each AS pCount times, Confed_Segment ASes as AS_CONFED_SEQUENCE) and so the
origin AS; the decoded attribute is `Attrs.bgpsec`. bgpdump skips type 33 and prints an empty path.

Decoding is lazy where it can be (`scan_attributes`): one pass over the attribute headers checks every
length the RFCs fix and decodes what a reader of routes needs at once (ORIGIN, AS_PATH, MP_REACH and
MP_UNREACH, which carry prefixes); NEXT_HOP, MED, LOCAL_PREF, the communities and the aggregators are
decoded when first read. AS_PATH values repeat across UPDATEs, so their decoding (and the origin AS)
is cached by their bytes.
"""

from __future__ import annotations

from struct import Struct, unpack_from

from . import WireError
from .aspath import AS_CONFED_SEQUENCE, AS_CONFED_SET, AS_SEQUENCE, AS_TRANS, merge_as4_path, parse_as_path, path_text
from .bgpsec import BGPSEC_PATH, parse_bgpsec_path, path_of
from .communities import parse_communities, parse_large_communities
from .mp import parse_mp_reach, parse_mp_reach_rib, parse_mp_unreach
from .nlri import address_text

ORIGIN, AS_PATH, NEXT_HOP, MED, LOCAL_PREF, ATOMIC_AGGREGATE, AGGREGATOR, COMMUNITIES = 1, 2, 3, 4, 5, 6, 7, 8
MP_REACH_NLRI, MP_UNREACH_NLRI, AS4_PATH, AS4_AGGREGATOR, LARGE_COMMUNITY = 14, 15, 17, 18, 32
ORIGINS = ("IGP", "EGP", "INCOMPLETE")

# origin_as when no origin AS can be named (RFC 6811 section 2): NONE when the path ends in an AS_SET;
# NO_PATH, the speaker's own AS (for a dump, the peer's), when there is no AS_PATH, it is empty, or it
# ends in a confederation segment
ORIGIN_NONE, NO_PATH = -1, -2

_LAZY = object()  # a backing slot whose attribute is present but not decoded yet
_KNOWN = {ORIGIN, AS_PATH, NEXT_HOP, MED, LOCAL_PREF, ATOMIC_AGGREGATE, AGGREGATOR, COMMUNITIES, MP_REACH_NLRI,
          MP_UNREACH_NLRI, AS4_PATH, AS4_AGGREGATOR, LARGE_COMMUNITY, BGPSEC_PATH}
_PATH_CACHE = 1 << 16
_paths: tuple[dict, dict] = ({}, {})  # AS_PATH bytes -> (path, origin AS); one dict per ASN size (2, 4)


def origin_of(path) -> int:
    """The origin AS of a decoded path (RFC 6811 section 2): its rightmost AS when it ends in an
    AS_SEQUENCE; NO_PATH (the speaker's own AS) when it is empty or ends in a confederation segment;
    ORIGIN_NONE when it ends in an AS_SET."""
    if not path:
        return NO_PATH
    stype, asns = path[-1]
    if stype == AS_SEQUENCE and asns:
        return asns[-1]
    return NO_PATH if stype in (AS_CONFED_SEQUENCE, AS_CONFED_SET) else ORIGIN_NONE


_SEQ2 = [Struct(">%dH" % n).unpack_from for n in range(256)]
_SEQ4 = [Struct(">%dI" % n).unpack_from for n in range(256)]


def _path(buf: bytes, v: int, e: int, asn_size: int):
    """(path, origin AS) of the AS_PATH value buf[v:e], cached by its bytes."""
    cache = _paths[asn_size == 4]
    raw = buf[v:e]
    hit = cache.get(raw)
    if hit is None:
        if e - v > 2 and buf[v] == AS_SEQUENCE and v + 2 + buf[v + 1] * asn_size == e:  # one sequence: most paths
            count = buf[v + 1]
            asns = (_SEQ4 if asn_size == 4 else _SEQ2)[count](buf, v + 2)
            hit = (((AS_SEQUENCE, asns),), asns[-1])
        else:
            path = parse_as_path(buf, v, e, asn_size)
            hit = (path, origin_of(path))
        if len(cache) >= _PATH_CACHE:
            cache.clear()
        cache[raw] = hit
    return hit


class Attrs:
    """Decoded path attributes. Shared by every route announced with the same attribute bytes, so
    treat as read-only. `as_path` is the effective path (AS4_PATH merged in, or the Secure_Path of a
    BGPsec_PATH) and `origin_as` its origin AS (see `origin_of`); `bgpsec` the decoded BGPsec_PATH
    (bgpsim.rpki.bgpsec.path.BgpsecPath); absent attributes are None (communities: empty tuples).
    `Attrs()` is an empty block whose fields may be set (a reader of text output builds them so)."""

    __slots__ = ("origin", "as_path", "origin_as", "has_as_path", "atomic_aggregate", "mp_reach", "mp_unreach",
                 "as4_path", "bgpsec", "_unknown", "_next_hop", "_med", "_local_pref", "_communities", "_large",
                 "_aggregator", "_as4_aggregator", "_buf", "_spans", "_asn_size", "_text", "_fmt")

    def __init__(self):
        self.origin = None
        self.as_path = ()
        self.origin_as = NO_PATH
        self.has_as_path = False
        self.atomic_aggregate = False
        self.mp_reach = self.mp_unreach = self.as4_path = self.bgpsec = None
        self._unknown = ()
        self._next_hop = self._med = self._local_pref = self._aggregator = self._as4_aggregator = None
        self._communities = self._large = ()
        self._buf = self._spans = None
        self._asn_size = 4
        self._text = self._fmt = None

    @property
    def as_path_text(self) -> str:
        if self._text is None:
            self._text = path_text(self.as_path)
        return self._text

    @property
    def origin_text(self) -> str | None:
        return None if self.origin is None else (ORIGINS[self.origin] if self.origin < 3 else str(self.origin))

    def _span(self, code: int) -> tuple[bytes, int, int]:
        spans = self._spans
        if spans is None:  # the scan kept no offsets: walk the headers again (the scan checked them;
            # inline, not shared with `unknown`, which a generator would serve: this is every formatted line's path)
            spans = self._spans = {}
            buf = self._buf
            pos, end = 0, len(buf)
            while pos < end:
                c = buf[pos + 1]
                if buf[pos] & 0x10:
                    v = pos + 4
                    pos = v + ((buf[pos + 2] << 8) | buf[pos + 3])
                else:
                    v = pos + 3
                    pos = v + buf[pos + 2]
                spans.setdefault(c, (v, pos))  # the first of a type counts (RFC 7606 section 3 g)
        v, e = spans[code]
        return self._buf, v, e

    @property
    def unknown(self) -> tuple[tuple[int, int, bytes], ...]:
        """(flags, type, value) of each attribute not decoded here, in block order."""
        u = self._unknown
        if u is None:
            out = []
            seen = set()
            buf = self._buf
            pos, end = 0, len(buf)
            while pos < end:
                flags, c = buf[pos], buf[pos + 1]
                if flags & 0x10:
                    v = pos + 4
                    pos = v + ((buf[pos + 2] << 8) | buf[pos + 3])
                else:
                    v = pos + 3
                    pos = v + buf[pos + 2]
                if c not in _KNOWN and c not in seen:
                    out.append((flags, c, buf[v:pos]))
                seen.add(c)
            u = self._unknown = tuple(out)
        return u

    # the lazily decoded attributes: each getter decodes its bytes once (lengths were checked by the scan)
    @property
    def next_hop(self) -> str | None:
        nh = self._next_hop
        if nh is _LAZY:
            buf, v, e = self._span(NEXT_HOP)
            nh = self._next_hop = address_text(buf[v:e])
        return nh

    @next_hop.setter
    def next_hop(self, value):
        self._next_hop = value

    @property
    def med(self) -> int | None:
        m = self._med
        if m is _LAZY:
            buf, v, _ = self._span(MED)
            m = self._med = unpack_from(">I", buf, v)[0]
        return m

    @med.setter
    def med(self, value):
        self._med = value

    @property
    def local_pref(self) -> int | None:
        lp = self._local_pref
        if lp is _LAZY:
            buf, v, _ = self._span(LOCAL_PREF)
            lp = self._local_pref = unpack_from(">I", buf, v)[0]
        return lp

    @local_pref.setter
    def local_pref(self, value):
        self._local_pref = value

    @property
    def communities(self) -> tuple[int, ...]:
        c = self._communities
        if c is _LAZY:
            c = self._communities = parse_communities(*self._span(COMMUNITIES))
        return c

    @communities.setter
    def communities(self, value):
        self._communities = value

    @property
    def large_communities(self) -> tuple[tuple[int, int, int], ...]:
        c = self._large
        if c is _LAZY:
            c = self._large = parse_large_communities(*self._span(LARGE_COMMUNITY))
        return c

    @property
    def as4_aggregator(self) -> tuple[int, str] | None:
        a = self._as4_aggregator
        if a is _LAZY:
            buf, v, e = self._span(AS4_AGGREGATOR)
            a = self._as4_aggregator = (unpack_from(">I", buf, v)[0], address_text(buf[v + 4:e]))
        return a

    @property
    def aggregator(self) -> tuple[int, str] | None:
        a = self._aggregator
        if a is _LAZY:
            buf, v, e = self._span(AGGREGATOR)
            if e - v == 6:
                a = ((buf[v] << 8) | buf[v + 1], address_text(buf[v + 2:e]))
            else:
                a = (unpack_from(">I", buf, v)[0], address_text(buf[v + 4:e]))
            if self._asn_size == 2 and a[0] == AS_TRANS and self.as4_aggregator is not None:
                a = self.as4_aggregator  # RFC 6793 section 4.2.3
            self._aggregator = a
        return a

    @aggregator.setter
    def aggregator(self, value):
        self._aggregator = value


_new = object.__new__


# the types decoded here: name, the section saying what a fault costs, their flags (RFC 4271 section 4.3:
# well-known, optional transitive, optional non-transitive) and that cost (RFC 7606 section 2: the
# attribute discarded, the UPDATE's routes withdrawn, the session reset)
DISCARD, WITHDRAW, RESET = 1, 2, 3
_WK, _OT, _ON = 0x40, 0xC0, 0x80
_TYPES = {ORIGIN: ("ORIGIN", "RFC 7606 section 7.1", _WK, WITHDRAW),
          AS_PATH: ("AS_PATH", "RFC 7606 section 7.2", _WK, WITHDRAW),
          NEXT_HOP: ("NEXT_HOP", "RFC 7606 section 7.3", _WK, WITHDRAW),
          MED: ("MULTI_EXIT_DISC", "RFC 7606 section 7.4", _ON, WITHDRAW),
          LOCAL_PREF: ("LOCAL_PREF", "RFC 7606 section 7.5", _WK, DISCARD),  # as from an external peer
          ATOMIC_AGGREGATE: ("ATOMIC_AGGREGATE", "RFC 7606 section 7.6", _WK, DISCARD),
          AGGREGATOR: ("AGGREGATOR", "RFC 7606 section 7.7", _OT, DISCARD),
          COMMUNITIES: ("COMMUNITIES", "RFC 7606 section 7.8", _OT, WITHDRAW),
          MP_REACH_NLRI: ("MP_REACH_NLRI", "RFC 7606 section 7.11", _ON, RESET),
          MP_UNREACH_NLRI: ("MP_UNREACH_NLRI", "RFC 7606 section 7.11", _ON, RESET),
          AS4_PATH: ("AS4_PATH", "RFC 6793 section 6", _OT, DISCARD),
          AS4_AGGREGATOR: ("AS4_AGGREGATOR", "RFC 6793 section 6", _OT, DISCARD),
          LARGE_COMMUNITY: ("LARGE_COMMUNITY", "RFC 8092 section 6", _OT, WITHDRAW),
          BGPSEC_PATH: ("BGPsec_PATH", "RFC 8205 section 5.2", _ON, WITHDRAW)}
# lengths a type fixes: (what is wanted, whether n fits)
_LENGTHS = {ORIGIN: ("1 byte", lambda n: n == 1), NEXT_HOP: ("4 bytes", lambda n: n == 4),
            MED: ("4 bytes", lambda n: n == 4), LOCAL_PREF: ("4 bytes", lambda n: n == 4),
            ATOMIC_AGGREGATE: ("0 bytes", lambda n: n == 0), AGGREGATOR: ("6 or 8 bytes", lambda n: n in (6, 8)),
            AS4_AGGREGATOR: ("8 bytes", lambda n: n == 8),
            COMMUNITIES: ("a non-zero multiple of 4 bytes", lambda n: n > 0 and n % 4 == 0),
            LARGE_COMMUNITY: ("a non-zero multiple of 12 bytes", lambda n: n > 0 and n % 12 == 0)}
_KINDS = {_WK: "well-known", _OT: "optional transitive", _ON: "optional non-transitive"}


def attribute_fault(flags: int, code: int, n: int, v: int) -> WireError | None:
    """What is wrong with the flags or the length of an attribute of a type decoded here (RFC 7606
    sections 3 c and 7, RFC 6793 section 6, RFC 8092 section 6), its value at offset v; None if nothing.
    The error's `cost` says what RFC 7606 makes of it."""
    t = _TYPES.get(code)
    if t is None:
        return None
    name, section, kind, cost = t
    mask = 0xC0 if kind == _OT else 0xE0  # Partial only on optional transitive attributes
    if flags & mask != kind:
        e = WireError(f"{name} (RFC 7606 section 3 c): want flags {_KINDS[kind]} (0x{kind:02x}), got "
                      f"0x{flags & 0xF0:02x}", v - (4 if flags & 0x10 else 3))
    else:
        want = _LENGTHS.get(code)
        if want is None or want[1](n):
            return None
        e = WireError(f"{name} ({section}): want {want[0]}, got {n}", v)
    e.cost = cost
    return e


def scan_attributes(buf: bytes, asn_size: int = 4, rib_afi: int | None = None, merge_as4: bool = True) -> Attrs:
    """Scan the attribute block `buf`: check its framing and every fixed length, decode ORIGIN, AS_PATH
    (and AS4_PATH), MP_REACH_NLRI, MP_UNREACH_NLRI and BGPsec_PATH, leave the rest to be decoded when read.
    `asn_size`: 2 or 4 (RFC 6793); `rib_afi`: set for TABLE_DUMP_V2 RIB entries, whose MP_REACH_NLRI is
    abbreviated (RFC 6396 section 4.3.4).

    RFC 7606 as the core's scan (core/mrt_attrs.c) applies it: the first of a type counts (section 3 g;
    MP_REACH_NLRI or MP_UNREACH_NLRI twice raises); an attribute whose fault costs only itself is left
    out; any other fault raises WireError."""
    a = _new(Attrs)
    origin = mp_reach = mp_unreach = as4_path = path = bgpsec = None
    nh = med = lp = comm = large = agg = agg4 = None
    atomic = False
    pos = 0
    end = len(buf)
    seen = set()
    while pos < end:
        if pos + 3 > end:
            raise WireError(f"path attribute (RFC 4271 section 4.3): want a 3-byte header, got {end - pos} bytes", pos)
        flags, code = buf[pos], buf[pos + 1]
        if flags & 0x10:  # Extended Length
            if pos + 4 > end:
                raise WireError(f"path attribute (RFC 4271 section 4.3): want a 4-byte extended-length header, "
                                f"got {end - pos} bytes", pos)
            v = pos + 4
            pos = v + ((buf[pos + 2] << 8) | buf[pos + 3])
        else:
            v = pos + 3
            pos = v + buf[pos + 2]
        n = pos - v
        if pos > end:
            raise WireError(f"path attribute type {code} (RFC 4271 section 4.3): want {n} bytes, got {end - v}", v)
        if code in seen:
            if code == MP_REACH_NLRI or code == MP_UNREACH_NLRI:
                raise WireError(f"{_TYPES[code][0]} (RFC 7606 section 3 g): want it once, got it again", v)
            continue
        seen.add(code)
        fault = attribute_fault(flags, code, n, v)
        if fault is not None:
            if fault.cost == DISCARD:
                continue
            raise fault
        # most frequent first
        if code == AS_PATH:
            path = _path(buf, v, pos, asn_size)
        elif code == ORIGIN:
            origin = buf[v]
            if origin > 2:
                raise WireError(f"ORIGIN (RFC 7606 section 7.1): want 0 (IGP), 1 (EGP) or 2 (INCOMPLETE), got {origin}", v)
        elif code == NEXT_HOP:
            nh = _LAZY
        elif code == MED:
            med = _LAZY
        elif code == LOCAL_PREF:
            lp = _LAZY
        elif code == COMMUNITIES:
            comm = _LAZY
        elif code == MP_REACH_NLRI:
            mp_reach = parse_mp_reach(buf, v, pos) if rib_afi is None else parse_mp_reach_rib(buf, v, pos, rib_afi)
        elif code == MP_UNREACH_NLRI:
            mp_unreach = parse_mp_unreach(buf, v, pos)
        elif code == AGGREGATOR:  # RFC 4271 section 4.3 g: 2-byte AS + IPv4; RFC 6793 section 3: 4-byte AS
            agg = _LAZY
        elif code == ATOMIC_AGGREGATE:
            atomic = True
        elif code == LARGE_COMMUNITY:
            large = _LAZY
        elif code == AS4_PATH:
            try:
                as4_path = parse_as_path(buf, v, pos, 4)
            except WireError:  # RFC 6793 section 6: discarded
                pass
        elif code == AS4_AGGREGATOR:
            agg4 = _LAZY
        elif code == BGPSEC_PATH:
            bgpsec = parse_bgpsec_path(buf, v, pos)
            bgpsec_at = v
    a.origin = origin
    if bgpsec is not None:
        if path is not None:
            raise WireError("BGPsec_PATH (RFC 8205 section 5.2): want AS_PATH or BGPsec_PATH, not both", bgpsec_at)
        a.as_path = bp = path_of(bgpsec)  # RFC 8205 section 4.4
        a.origin_as = origin_of(bp)
        a.has_as_path = True
    elif path is None:
        a.as_path = ()
        a.origin_as = NO_PATH
        a.has_as_path = False
    else:
        a.as_path, a.origin_as = path
        a.has_as_path = True
        if as4_path is not None and merge_as4 and asn_size == 2:  # RFC 6793 section 4.2.3
            a.as_path = merge_as4_path(a.as_path, as4_path)
            a.origin_as = origin_of(a.as_path)
    a.atomic_aggregate = atomic
    a.mp_reach = mp_reach
    a.mp_unreach = mp_unreach
    a.as4_path = as4_path
    a.bgpsec = bgpsec
    a._next_hop = nh
    a._med = med
    a._local_pref = lp
    a._communities = () if comm is None else comm
    a._large = () if large is None else large
    a._aggregator = agg
    a._as4_aggregator = agg4
    a._unknown = None
    a._buf = buf
    a._spans = None
    a._asn_size = asn_size if merge_as4 else 4
    a._text = a._fmt = None
    return a


def parse_attributes(buf: bytes, asn_size: int = 4, rib_afi: int | None = None, merge_as4: bool = True) -> Attrs:
    """Decode the attribute block `buf` in full (every fault raised now, none left for a later read)."""
    a = scan_attributes(buf, asn_size, rib_afi, merge_as4)
    for name in ("next_hop", "med", "local_pref", "communities", "large_communities", "aggregator"):
        getattr(a, name)
    return a
