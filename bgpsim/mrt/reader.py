"""A streaming MRT reader (RFC 6396): one `Route` per prefix per peer, one record at a time.

Record types read:
- TABLE_DUMP (12; RFC 6396 section 4.2), subtypes AFI_IPv4 (1) and AFI_IPv6 (2): 2-byte ASNs.
- TABLE_DUMP_V2 (13; section 4.3): PEER_INDEX_TABLE (1), RIB_IPV4/IPV6_UNICAST/MULTICAST (2-5) and
  the RFC 8050 section 4 ADD-PATH variants (8-11): 4-byte ASNs in attributes.
- BGP4MP (16) and BGP4MP_ET (17; section 3: a 4-byte microsecond field starts the body): STATE_CHANGE
  (0), MESSAGE (1), MESSAGE_AS4 (4), STATE_CHANGE_AS4 (5), MESSAGE_LOCAL (6), MESSAGE_AS4_LOCAL (7)
  and the RFC 8050 section 3 _ADDPATH variants (8-11). Only UPDATE messages carry routes.
Other types are skipped (one warning per type).

Errors. Every fault names the file and a byte offset in the decompressed MRT stream. A file whose
first record is not MRT, a record longer than MAX_RECORD, or a RIB record without a PEER_INDEX_TABLE
is an `InputError`. Damage inside a record whose framing is intact is a warning (the record is
skipped and reading goes on with the next). A file cut short (or a compressed stream without its end
marker) yields every whole record, then one warning.
"""

from __future__ import annotations

import sys
from struct import unpack_from
from typing import Callable, Iterator

from ..errors import InputError
from ..wire import WireError
from ..wire.attributes import parse_attributes
from ..wire.nlri import PrefixError, address_text, parse_prefixes, prefix_text
from ..wire.update import UPDATE, parse_header, split_update
from .record import ANNOUNCE, RIB, STATE, WITHDRAW, Route
from .stream import Chunks

MAX_RECORD = 1 << 24  # 16 MiB: far above any real record (a full-table RIB entry is kilobytes)
CACHE = 1 << 16  # attribute blocks remembered per file

TABLE_DUMP, TABLE_DUMP_V2, BGP4MP, BGP4MP_ET = 12, 13, 16, 17
KNOWN_TYPES = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 32, 33, 48, 49}
_MESSAGE_SUBTYPES = {1: (2, False, False), 4: (4, False, False), 6: (2, True, False), 7: (4, True, False),
                     8: (2, False, True), 9: (4, False, True), 10: (2, True, True), 11: (4, True, True)}


def _stderr_warning(message: str) -> None:
    print(f"bgpsim: warning: {message}", file=sys.stderr)


class _Damage(Exception):
    """Damage inside a record; `partial` holds the routes read before it (bgpdump prints those)."""

    def __init__(self, message: str, offset: int, partial=()):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.partial = partial


def read_routes(path: str, warn: Callable[[str], None] | None = None) -> Iterator[Route]:
    """Routes of the MRT file at `path`, in file order. Warnings go to `warn` (default: stderr)."""
    return MRTReader(path, warn).routes()


class MRTReader:
    def __init__(self, path: str, warn: Callable[[str], None] | None = None):
        self.path = str(path)
        self.warn = warn or _stderr_warning
        self.peers: list[tuple[str, int]] | None = None
        self._attr_cache: dict = {}
        self._skipped_types: set[int] = set()
        self.records = 0
        self.at = 0

    def _attrs(self, buf: bytes, asn_size: int, rib_afi: int | None = None):
        key = (buf, asn_size, rib_afi)
        a = self._attr_cache.get(key)
        if a is None:
            a = parse_attributes(buf, asn_size, rib_afi)
            if len(self._attr_cache) >= CACHE:
                self._attr_cache.clear()
            self._attr_cache[key] = a
        return a

    def routes(self) -> Iterator[Route]:
        chunks = Chunks(self.path)
        try:
            yield from self._routes(chunks)
        finally:
            chunks.close()

    def _routes(self, chunks: Chunks) -> Iterator[Route]:
        source = iter(chunks)
        buf = b""
        pos = 0
        base = 0  # stream offset of buf[0]
        handlers = {TABLE_DUMP: self._table_dump, TABLE_DUMP_V2: self._table_dump_v2,
                    BGP4MP: self._bgp4mp, BGP4MP_ET: self._bgp4mp}
        first = True
        while True:
            have = len(buf) - pos
            if have < 12:
                more = next(source, b"")
                if more:
                    buf = buf[pos:] + more
                    base += pos
                    pos = 0
                    continue
                if have:
                    self._truncated(chunks, base + pos, f"{have} bytes of a 12-byte record header")
                elif chunks.truncated:
                    self._truncated(chunks, base + pos, None)
                return
            ts, rtype, sub, length = unpack_from(">IHHI", buf, pos)
            if first and rtype not in KNOWN_TYPES:
                raise InputError(f"not an MRT file: want a record type of RFC 6396 section 4 (such as 13 "
                                 f"TABLE_DUMP_V2 or 16 BGP4MP), got {rtype}", self.path, "byte 0")
            if length > MAX_RECORD:
                raise InputError(f"MRT record header (RFC 6396 section 2): want a length <= {MAX_RECORD}, got "
                                 f"{length} (type {rtype}, subtype {sub})", self.path, f"byte {base + pos + 8}")
            end = pos + 12 + length
            while end > len(buf):
                more = next(source, b"")
                if not more:
                    break
                buf = buf[pos:] + more
                base += pos
                end -= pos
                pos = 0
            if end > len(buf):
                self._truncated(chunks, base + pos, f"the record there wants {12 + length} bytes, "
                                                    f"{len(buf) - pos} remain")
                return
            first = False
            self.records += 1
            at = self.at = base + pos
            body = buf[pos + 12:end]
            pos = end
            handler = handlers.get(rtype)
            if handler is None:
                if rtype not in self._skipped_types:
                    self._skipped_types.add(rtype)
                    self.warn(f"{self.path}: byte {at}: skipping MRT type {rtype} records (not read by bgpsim)")
                continue
            try:
                out = handler(ts, rtype, sub, body)
            except (_Damage, WireError) as e:
                partial = getattr(e, "partial", ())
                if partial:
                    yield from partial
                self.warn(f"{self.path}: byte {at + 12 + e.offset}: {e.message}; record at byte {at} "
                          f"(type {rtype}, subtype {sub}){' partly read' if partial else ' skipped'}")
                continue
            except IndexError:
                self.warn(f"{self.path}: byte {at}: record (type {rtype}, subtype {sub}) shorter than its "
                          f"fields; skipped")
                continue
            if out:
                yield from out

    def _truncated(self, chunks: Chunks, offset: int, what: str | None) -> None:
        parts = []
        if what:
            parts.append(f"file ends inside a record at byte {offset}: {what}")
        if chunks.truncated:
            parts.append(chunks.truncated)
        self.warn(f"{self.path}: truncated: " + "; ".join(parts) + f" (read {self.records} whole records)")

    # RFC 6396 section 4.2
    def _table_dump(self, ts, rtype, sub, body):
        if sub == 1:
            alen, fmt = 4, ">HH4sBBI4sHH"
        elif sub == 2:
            alen, fmt = 16, ">HH16sBBI16sHH"
        else:
            raise _Damage(f"TABLE_DUMP (RFC 6396 section 4.2): want subtype 1 (AFI_IPv4) or 2 (AFI_IPv6), got {sub}", 0)
        fixed = 2 + 2 + alen + 1 + 1 + 4 + alen + 2 + 2
        if len(body) < fixed:
            raise _Damage(f"TABLE_DUMP (RFC 6396 section 4.2): want at least {fixed} bytes, got {len(body)}", 0)
        _view, _seq, pfx, plen, _status, _orig, peer, peer_as, attr_len = unpack_from(fmt, body, 0)
        if plen > alen * 8:
            raise _Damage(f"TABLE_DUMP (RFC 6396 section 4.2): want a prefix length <= {alen * 8}, got {plen}", 2 + 2 + alen)
        if fixed + attr_len > len(body):
            raise _Damage(f"TABLE_DUMP (RFC 6396 section 4.2): attribute length {attr_len} wants {attr_len} bytes, "
                          f"got {len(body) - fixed}", fixed - 2)
        try:
            attrs = self._attrs(body[fixed:fixed + attr_len], 2)
        except WireError as e:
            raise _Damage(e.message, fixed + e.offset) from None
        nh = attrs.next_hop
        if attrs.mp_reach is not None and attrs.mp_reach[0] == 2:
            nh = attrs.mp_reach[3]
        prefix = f"{address_text(pfx)}/{plen}"
        return (Route("TABLE_DUMP", ts, None, RIB, address_text(peer), peer_as, prefix, None, attrs, nh),)

    # RFC 6396 section 4.3
    def _table_dump_v2(self, ts, rtype, sub, body):
        if sub == 1:
            self._peer_index(body)
            return ()
        if 2 <= sub <= 5 or 8 <= sub <= 11:
            afi = 1 if sub in (2, 3, 8, 9) else 2
            addpath = sub >= 8
        else:
            return ()  # RIB_GENERIC (6), GEO_PEER_TABLE (7): no routes we model
        if self.peers is None:
            raise InputError("TABLE_DUMP_V2 RIB record (RFC 6396 section 4.3.2) before any PEER_INDEX_TABLE "
                             "(section 4.3.1): want the peer table first", self.path, f"byte {self.at}")
        n = len(body)
        if n < 5:
            raise _Damage(f"RIB record (RFC 6396 section 4.3.2): want at least 5 bytes, got {n}", 0)
        plen = body[4]
        if plen > (32 if afi == 1 else 128):
            raise _Damage(f"RIB record (RFC 6396 section 4.3.2): want a prefix length <= {32 if afi == 1 else 128}, got {plen}", 4)
        pb = (plen + 7) >> 3
        p = 5 + pb
        if p + 2 > n:
            raise _Damage(f"RIB record (RFC 6396 section 4.3.2): /{plen} and the entry count want {pb + 2} bytes, got {n - 5}", 5)
        prefix = prefix_text(body[5:p], plen, afi) if pb else ("0.0.0.0/0" if afi == 1 else "::/0")
        count = (body[p] << 8) | body[p + 1]
        p += 2
        record = "TABLE_DUMP2_AP" if addpath else "TABLE_DUMP2"
        peers = self.peers
        npeers = len(peers)
        attrs_of = self._attrs
        out = []
        hdr = 10 if addpath else 6
        for _ in range(count):
            if p + hdr + 2 > n:
                raise _Damage(f"RIB entry (RFC 6396 section 4.3.4): want {hdr + 2} header bytes, got {n - p}", p)
            idx = (body[p] << 8) | body[p + 1]
            if addpath:
                pid = unpack_from(">I", body, p + 6)[0]
            else:
                pid = None
            alen = (body[p + hdr] << 8) | body[p + hdr + 1]
            a = p + hdr + 2
            if a + alen > n:
                raise _Damage(f"RIB entry (RFC 6396 section 4.3.4): attribute length {alen} wants {alen} bytes, got {n - a}", p + hdr)
            if idx >= npeers:
                raise _Damage(f"RIB entry (RFC 6396 section 4.3.4): want a peer index < {npeers}, got {idx}", p)
            try:
                attrs = attrs_of(body[a:a + alen], 4, afi)
            except WireError as e:
                raise _Damage(e.message, a + e.offset) from None
            mp = attrs.mp_reach
            nh = mp[3] if mp is not None else attrs.next_hop
            peer_ip, peer_as = peers[idx]
            out.append(Route(record, ts, None, RIB, peer_ip, peer_as, prefix, pid, attrs, nh))
            p = a + alen
        return out

    def _peer_index(self, body: bytes) -> None:
        # RFC 6396 section 4.3.1
        n = len(body)
        if n < 8:
            raise _Damage(f"PEER_INDEX_TABLE (RFC 6396 section 4.3.1): want at least 8 bytes, got {n}", 0)
        vlen = (body[4] << 8) | body[5]
        p = 6 + vlen
        if p + 2 > n:
            raise _Damage(f"PEER_INDEX_TABLE (RFC 6396 section 4.3.1): view name of {vlen} bytes and the peer count "
                          f"want {vlen + 2} bytes, got {n - 6}", 4)
        count = (body[p] << 8) | body[p + 1]
        p += 2
        peers = []
        for _ in range(count):
            if p + 1 > n:
                raise _Damage("PEER_INDEX_TABLE (RFC 6396 section 4.3.1): want a peer entry, got the end", p)
            ptype = body[p]
            ilen = 16 if ptype & 1 else 4
            aslen = 4 if ptype & 2 else 2
            need = 1 + 4 + ilen + aslen
            if p + need > n:
                raise _Damage(f"PEER_INDEX_TABLE (RFC 6396 section 4.3.1): peer entry of type {ptype} wants {need} bytes, "
                              f"got {n - p}", p)
            ip = address_text(body[p + 5:p + 5 + ilen])
            asn = unpack_from(">I" if aslen == 4 else ">H", body, p + 5 + ilen)[0]
            peers.append((ip, asn))
            p += need
        self.peers = peers

    # RFC 6396 sections 4.4 and 3 (_ET)
    def _bgp4mp(self, ts, rtype, sub, body):
        p = 0
        usec = None
        et = rtype == BGP4MP_ET
        if et:
            if len(body) < 4:
                raise _Damage(f"BGP4MP_ET (RFC 6396 section 3): want a 4-byte microsecond field, got {len(body)} bytes", 0)
            usec = unpack_from(">I", body, 0)[0]
            p = 4
        msg = _MESSAGE_SUBTYPES.get(sub)
        if msg is not None:
            asn_size, local, addpath = msg
        elif sub == 0 or sub == 5:
            asn_size, local, addpath = (2 if sub == 0 else 4), False, False
        else:
            return ()  # BGP4MP_ENTRY, SNAPSHOT and the like: no routes bgpdump prints
        n = len(body)
        fixed = 2 * asn_size + 4
        if p + fixed > n:
            raise _Damage(f"BGP4MP (RFC 6396 section 4.4): want {fixed} header bytes, got {n - p}", p)
        if asn_size == 2:
            peer_as, local_as, _ifindex, afi = unpack_from(">HHHH", body, p)
        else:
            peer_as, local_as, _ifindex, afi = unpack_from(">IIHH", body, p)
        p += fixed
        if afi == 1:
            alen = 4
        elif afi == 2:
            alen = 16
        else:
            raise _Damage(f"BGP4MP (RFC 6396 section 4.4): want address family 1 or 2, got {afi}", p - 2)
        if p + 2 * alen > n:
            raise _Damage(f"BGP4MP (RFC 6396 section 4.4): want two {alen}-byte addresses, got {n - p} bytes", p)
        peer_ip = body[p:p + alen]
        local_ip = body[p + alen:p + 2 * alen]
        p += 2 * alen
        if et:
            record = "BGP4MP_ET"
        else:
            record = "BGP4MP"
        if msg is None:  # state change, RFC 6396 section 4.4.1
            if p + 4 > n:
                raise _Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want 4 state bytes, got {n - p}", p)
            old, new = unpack_from(">HH", body, p)
            return (Route(record, ts, usec, STATE, address_text(peer_ip), peer_as, None, None, None, None, old, new),)
        if local:
            record += "_LOCAL"
            peer_ip, peer_as = local_ip, local_as
        if addpath:
            record += "_AP"
        mtype, mend = parse_header(body, p, n)
        if mtype != UPDATE:
            return ()
        return self._update(body, p + 19, mend, record, ts, usec, address_text(peer_ip), peer_as, asn_size, addpath)

    def _update(self, body, p, end, record, ts, usec, peer, peer_as, asn_size, addpath):
        (w0, w1), (a0, a1), (n0, n1) = split_update(body, p, end)
        out = []
        damage = None

        def prefixes(start, stop, afi):
            nonlocal damage
            try:
                return parse_prefixes(body, start, stop, afi, addpath)
            except PrefixError as e:  # keep the whole prefixes before the fault, as bgpdump does
                if damage is None:
                    damage = _Damage(e.message, e.offset)
                return e.parsed

        if w1 > w0:
            for prefix, pid in prefixes(w0, w1, 1):
                out.append(Route(record, ts, usec, WITHDRAW, peer, peer_as, prefix, pid))
        attrs = None
        if a1 > a0:
            try:
                attrs = self._attrs(body[a0:a1], asn_size)
            except WireError as e:
                raise _Damage(e.message, a0 + e.offset, out) from None
            mu = attrs.mp_unreach
            if mu is not None and mu[0] in (1, 2) and mu[1] in (1, 2, 3):
                for prefix, pid in prefixes(a0 + mu[2], a0 + mu[3], mu[0]):
                    out.append(Route(record, ts, usec, WITHDRAW, peer, peer_as, prefix, pid))
        if n1 > n0:
            nh = attrs.next_hop if attrs is not None else None
            for prefix, pid in prefixes(n0, n1, 1):
                out.append(Route(record, ts, usec, ANNOUNCE, peer, peer_as, prefix, pid, attrs, nh))
        if attrs is not None:
            mr = attrs.mp_reach
            if mr is not None and mr[0] in (1, 2) and mr[1] in (1, 2, 3):
                nh = mr[3] if mr[2] in (4, 16, 32) else ""
                for prefix, pid in prefixes(a0 + mr[4], a0 + mr[5], mr[0]):
                    out.append(Route(record, ts, usec, ANNOUNCE, peer, peer_as, prefix, pid, attrs, nh))
        if damage is not None:
            damage.partial = out
            raise damage
        return out
