"""A streaming MRT reader (RFC 6396): one `Route` per prefix per peer, one record at a time.

Record types read:
- BGP (5), the deprecated type of 1999-2000 RIS dumps (RFC 6396 appendix B): BGP_UPDATE (1), whose body
  is the peer AS and address, the local AS and address and an UPDATE without its 19-byte header
  (2-byte ASNs), and BGP_STATE_CHANGE (3). Other subtypes carry no routes.
- TABLE_DUMP (12; RFC 6396 section 4.2), subtypes AFI_IPv4 (1) and AFI_IPv6 (2): 2-byte ASNs.
- TABLE_DUMP_V2 (13; section 4.3): PEER_INDEX_TABLE (1), RIB_IPV4/IPV6_UNICAST/MULTICAST (2-5) and
  the RFC 8050 section 4 ADD-PATH variants (8-11): 4-byte ASNs in attributes.
- BGP4MP (16) and BGP4MP_ET (17; section 3: a 4-byte microsecond field starts the body): STATE_CHANGE
  (0), MESSAGE (1), MESSAGE_AS4 (4), STATE_CHANGE_AS4 (5), MESSAGE_LOCAL (6), MESSAGE_AS4_LOCAL (7)
  and the RFC 8050 section 3 _ADDPATH variants (8-11). Only UPDATE messages carry routes.
Other types are skipped (one warning per type).

Two ways to read: `read_routes` gives `Route` objects; `read_batches` gives numpy columns of many
routes at once (what a validator of millions of routes wants), with the Route records behind them.
Both share one parser, which turns each record into groups of prefixes sharing everything else.

Errors. Every fault names the file and a byte offset in the decompressed MRT stream. A file whose
first record is not MRT, or a RIB record without a PEER_INDEX_TABLE, is an `InputError`. Damage inside
a record whose framing is intact is a warning (the record is skipped and reading goes on with the
next). A record longer than MAX_RECORD is skipped unread, as bgpdump skips a record it cannot parse;
if the file ends inside it (a damaged length field, as in some 2000 RIS files), reading stops there
with a warning, as bgpdump stops. A record of length 0 stops reading too (bgpdump: "invalid entry
length"). A file cut short (or a compressed stream without its end marker) yields every whole record,
then one warning.
"""

from __future__ import annotations

import gc
from struct import Struct, unpack_from
from typing import Callable, Iterator

import numpy as np

from bgpsim.base.errors import InputError, stderr_warning
from bgpsim.wire import WireError
from bgpsim.wire.attributes import NO_PATH, scan_attributes
from bgpsim.wire.nlri import MASK4, MASK6, PrefixError, address_text, parse_prefix_ints
from bgpsim.wire.update import UPDATE, parse_header, split_update
from . import fast
from .fast import NH_ATTRS, NH_MP
from .record import ANNOUNCE, FROM_ATTRS, RIB, STATE, WITHDRAW, Peers, Route, wire_route
from .stream import Chunks

_ADDRESS_BYTES = {1: 4, 2: 16}  # AFI -> address length
MAX_RECORD = 1 << 24  # 16 MiB: far above any real record (a full-table RIB entry is kilobytes)
BUFFER = 1 << 20  # bytes of records read as arrays at once (bgpsim.mrt.fast)
CACHE = 1 << 16  # attribute blocks remembered per file (RIB dumps repeat them across prefixes)

BGP, TABLE_DUMP, TABLE_DUMP_V2, BGP4MP, BGP4MP_ET = 5, 12, 13, 16, 17
KNOWN_TYPES = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 32, 33, 48, 49}
_MESSAGE_SUBTYPES = {1: (2, False, False), 4: (4, False, False), 6: (2, True, False), 7: (4, True, False),
                     8: (2, False, True), 9: (4, False, True), 10: (2, True, True), 11: (4, True, True)}
KIND_CODES = {ANNOUNCE: 0, WITHDRAW: 1, RIB: 2}
_HEADER = Struct(">IHHI").unpack_from  # RFC 6396 section 2: timestamp, type, subtype, length
_LENGTH = Struct(">I").unpack_from  # the header's length alone, at its byte 8

# A group: prefixes of one record that share everything but the prefix (and the ADD-PATH id).
# (record, time, usec, kind, peer_ip, peer_as, afi, nets, plens, pids, attrs, next_hop[, old, new])


class _Damage(Exception):
    """Damage inside a record; `partial` holds the groups read before it (bgpdump prints those)."""

    def __init__(self, message: str, offset: int, partial=()):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.partial = partial


def read_routes(path: str, warn: Callable[[str], None] | None = None) -> Iterator[Route]:
    """Routes of the MRT file at `path`, in file order. Warnings go to `warn` (default: stderr)."""
    return MRTReader(path, warn).routes()


def read_batches(path: str, size: int = 65536, warn: Callable[[str], None] | None = None) -> Iterator["RouteBatch"]:
    """The routes of the MRT file at `path` as `RouteBatch`es, in file order: each holds the routes of
    whole buffers of records (MRTReader.buffers), at least `size` records' worth but at the end of
    the file. State changes are left out: they have no prefix."""
    return MRTReader(path, warn).batches(size)


class RouteBatch:
    """Columns of a run of routes (numpy arrays, one entry per route):

    kind     uint8   0 announce, 1 withdraw, 2 RIB entry (KIND_CODES)
    afi      uint8   1 IPv4, 2 IPv6
    hi, lo   uint64  the network address: IPv4 in `lo` (hi 0); IPv6 as its upper and lower 64 bits
    plen     uint8   prefix length
    origin   int64   origin AS (RFC 6811 section 2): -1 when the path ends in an AS_SET (origin NONE),
                     -2 without a path (a withdrawal, or no or an empty AS_PATH)
    peer     int32   index into `peers`, the (peer address, peer AS) pairs of the file so far
    time     int64   record time (seconds)
    path_id  int64   ADD-PATH id (RFC 7911), -1 without
    group    int32   the route's group: the routes of one group share record, peer and attributes

    and one entry per group: `first` (its first route), `gpath` (its AS_PATH: an index into `paths`,
    the distinct AS_PATHs of the batch as Attrs.as_path segments; -1 without attributes), `gusec`
    (microseconds of a BGP4MP_ET record, else -1). `route(i)` and `routes()` give the `Route`
    records themselves."""

    __slots__ = ("kind", "afi", "hi", "lo", "plen", "origin", "peer", "time", "path_id", "group", "first", "gpath",
                 "gusec", "paths", "peers", "_slow", "_src", "_bufs", "_attrs")

    def __len__(self) -> int:
        return len(self.plen)

    def networks(self) -> list[int]:
        """The network addresses as Python integers."""
        return [(h << 64) | lo for h, lo in zip(self.hi.tolist(), self.lo.tolist())]

    def route(self, i: int) -> Route:
        k = int(self.group[i])
        afi = int(self.afi[i])
        net = (int(self.hi[i]) << 64) | int(self.lo[i])
        pid = int(self.path_id[i])
        g = self._slow.get(k)
        if g is not None:  # read by the record parser: (record, time, usec, kind, peer, peer AS, ..., attrs, nh)
            return wire_route(g[0], g[1], g[2], g[3], g[4], g[5], afi, net, int(self.plen[i]),
                              None if pid < 0 else pid, g[10], g[11])
        buf, a0, a1, asn, nh, et = self._src[k].tolist()  # read by bgpsim.mrt.fast
        attrs = None
        if a1 > a0:
            attrs = self._attrs.get(k)
            if attrs is None:
                attrs = self._attrs[k] = scan_attributes(self._bufs[buf][a0:a1], asn)
        if nh == NH_ATTRS:
            hop = FROM_ATTRS
        elif nh == NH_MP:
            mp = attrs.mp_reach
            hop = mp[3] if mp[2] in (4, 16, 32) else ""
        else:
            hop = None
        kind = (ANNOUNCE, WITHDRAW)[int(self.kind[i])]
        peer_ip, peer_as = self.peers[int(self.peer[i])]
        usec = int(self.gusec[k])
        return wire_route("BGP4MP_ET" if et else "BGP4MP", int(self.time[i]), None if usec < 0 else usec, kind,
                          peer_ip, peer_as, afi, net, int(self.plen[i]), None, attrs, hop)

    def routes(self) -> Iterator[Route]:
        for i in range(len(self)):
            yield self.route(i)


def _expand(g) -> Iterator[Route]:
    record, ts, usec, kind, peer_ip, peer_as, afi, nets, plens, pids, attrs, nh = g
    if pids is None:
        for net, plen in zip(nets, plens):
            yield wire_route(record, ts, usec, kind, peer_ip, peer_as, afi, net, plen, None, attrs, nh)
    else:
        for net, plen, pid in zip(nets, plens, pids):
            yield wire_route(record, ts, usec, kind, peer_ip, peer_as, afi, net, plen, pid, attrs, nh)


class MRTReader:
    def __init__(self, path: str, warn: Callable[[str], None] | None = None):
        self.path = path  # a str, or cli.Stdin (opened by its fspath, named <stdin>)
        self.warn = warn or stderr_warning
        self.peers: list[tuple[str, int]] | None = None
        self._attr_cache: dict = {}
        self._update_attrs: tuple[dict, dict] = ({}, {})  # UPDATE attribute bytes -> Attrs, per ASN size
        self._ip_text: dict = {}
        self._skipped_types: set[int] = set()
        self.records = 0
        self.state_changes = 0  # left out of batches: counted here
        self.at = 0
        self.peers_seen = Peers()  # RouteBatch.peers: every peer of the file so far
        self._handlers = {BGP: self._bgp, TABLE_DUMP: self._table_dump, TABLE_DUMP_V2: self._table_dump_v2,
                          BGP4MP: self._bgp4mp, BGP4MP_ET: self._bgp4mp}

    def _attrs(self, buf: bytes, asn_size: int, rib_afi: int | None = None):
        key = (buf, asn_size, rib_afi)
        a = self._attr_cache.get(key)
        if a is None:
            a = scan_attributes(buf, asn_size, rib_afi)
            if len(self._attr_cache) >= CACHE:
                self._attr_cache.clear()
            self._attr_cache[key] = a
        return a

    def _ip(self, raw: bytes) -> str:
        t = self._ip_text.get(raw)
        if t is None:
            t = self._ip_text[raw] = address_text(raw)
        return t

    def routes(self) -> Iterator[Route]:
        for groups in self._records():
            for g in groups:
                if g[3] is STATE:
                    yield Route(g[0], g[1], g[2], STATE, g[4], g[5], None, None, None, None, g[12], g[13])
                    continue
                yield from _expand(g[:12])

    def batches(self, size: int = 65536) -> Iterator[RouteBatch]:
        # the parser makes many short-lived containers and no cycles: the cyclic collector, left on,
        # would walk the attribute caches again and again (a fifth of the time); it runs while the
        # consumer has a batch (if it was on)
        gc_was = gc.isenabled()
        gc.disable()
        try:
            for batch in self._fill(size):
                if gc_was:
                    gc.enable()
                yield batch
                gc.disable()
        finally:
            if gc_was:
                gc.enable()

    def _fill(self, size):
        # each buffer is read as soon as it is framed, so that warnings come in file order
        batch, n = _Pieces(), 0
        for buffer in self.buffers():
            self._read(buffer, batch)
            n += len(buffer[2])  # records: a batch holds about as many routes, or more
            if n >= size:
                if batch.routes:
                    yield batch.batch(self.peers_seen)
                batch, n = _Pieces(), 0
        if batch.routes:
            yield batch.batch(self.peers_seen)

    def buffers(self) -> Iterator[tuple[bytes, int, list[int]]]:
        """The file's whole records, about BUFFER bytes at a time: (buffer, stream offset of its first
        byte, where each record starts in it). Framing faults are warnings here."""
        return self._frames(Chunks(self.path), BUFFER)

    def read(self, buffers: list[tuple[bytes, int, list[int]]]) -> RouteBatch:
        """The routes of `buffers` (from `buffers()`, in order) as one batch."""
        batch = _Pieces()
        for buffer in buffers:
            self._read(buffer, batch)
        return batch.batch(self.peers_seen)

    def _read(self, buffer: tuple[bytes, int, list[int]], batch: "_Pieces") -> None:
        """BGP4MP UPDATEs through bgpsim.mrt.fast, the records it leaves through the parser, merged
        back into file order."""
        buf, base, starts = buffer
        u = fast.updates(buf, starts, batch.paths, batch.path_index)
        lut = np.array([self.peers_seen.number(self._ip(raw), asn) for raw, asn in u.peer_keys] + [0], dtype=np.int32)
        piece = {"rec": u.rec, "kind": u.kind, "afi": u.afi, "count": u.count, "path": u.path, "origin": u.origin,
                 "peer": lut[u.peer], "time": u.time, "usec": u.usec, "hi": u.hi, "lo": u.lo, "plen": u.plen,
                 "pid": np.full(len(u.plen), -1, dtype=np.int64),
                 "src": np.column_stack([np.full(len(u.rec), len(batch.pieces), dtype=np.int64), u.a0, u.a1, u.asn,
                                         u.nh, u.et]),
                 "slow": {}, "buf": buf}
        slow = np.flatnonzero(u.slow).tolist()
        if slow:
            piece = _merge(piece, self._slow_piece(buf, base, starts, slow, batch.paths, batch.seg_index))
        batch.pieces.append(piece)
        batch.routes += len(piece["plen"])

    def skip(self, buffer: tuple[bytes, int, list[int]]) -> None:
        """A buffer that another process reads: what the records after it need from it (a
        PEER_INDEX_TABLE, RFC 6396 section 4.3.1) is kept, and the record types it holds that are
        not read are noted as warned about (the other process warns)."""
        buf, base, starts = buffer
        a = np.frombuffer(buf, dtype=np.uint8)
        s = np.asarray(starts, dtype=np.int64)
        rtype, sub = fast._gather(a, s + 4, 2), fast._gather(a, s + 6, 2)
        for t in set(rtype.tolist()) - set(self._handlers):
            self._skipped_types.add(t)
        for i in np.flatnonzero((rtype == TABLE_DUMP_V2) & (sub == 1)).tolist():
            pos = starts[i]
            self.at = base + pos
            try:
                self._peer_index(buf[pos + 12:pos + 12 + _HEADER(buf, pos)[3]])
            except _Damage:
                pass  # the reading process says so

    def _slow_piece(self, buf, base, starts, which, paths, seg_index) -> dict:
        """The groups of the records `which` (numbers in `starts`), read by the parser, as columns."""
        rec, kind, afi, count, path, origin, peer, time, usec = [], [], [], [], [], [], [], [], []
        nets, plens, pids = [], [], []
        slow = {}
        for r in which:
            for g in self._handle(buf, base, starts[r]):
                k = g[3]
                if k is STATE:
                    self.state_changes += 1
                    continue
                if not g[7]:
                    continue
                attrs = g[10]
                slow[len(rec)] = g
                rec.append(r)
                kind.append(KIND_CODES[k])
                afi.append(g[6])
                count.append(len(g[7]))
                if attrs is None:
                    path.append(-1)
                else:
                    segs = attrs.as_path
                    j = seg_index.get(segs)
                    if j is None:
                        j = seg_index[segs] = len(paths)
                        paths.append(segs)
                    path.append(j)
                origin.append(attrs.origin_as if attrs is not None and k is not WITHDRAW else NO_PATH)
                peer.append(self.peers_seen.number(g[4], g[5]))
                time.append(g[1])
                usec.append(-1 if g[2] is None else g[2])
                nets += g[7]
                plens += g[8]
                pids += [-1] * len(g[7]) if g[9] is None else g[9]
        m = (1 << 64) - 1
        return {"rec": np.array(rec, dtype=np.int64), "kind": np.array(kind, dtype=np.uint8),
                "afi": np.array(afi, dtype=np.uint8), "count": np.array(count, dtype=np.int64),
                "path": np.array(path, dtype=np.int64), "origin": np.array(origin, dtype=np.int64),
                "peer": np.array(peer, dtype=np.int32), "time": np.array(time, dtype=np.int64),
                "usec": np.array(usec, dtype=np.int64), "hi": np.array([x >> 64 for x in nets], dtype=np.uint64),
                "lo": np.array([x & m for x in nets], dtype=np.uint64), "plen": np.array(plens, dtype=np.uint8),
                "pid": np.array(pids, dtype=np.int64), "src": np.full((len(rec), 6), -1, dtype=np.int64),
                "slow": slow, "buf": buf}

    def _records(self) -> Iterator[list]:
        """The groups of each record, one list per record."""
        for buf, base, starts in self._frames(Chunks(self.path)):
            for pos in starts:
                out = self._handle(buf, base, pos)
                if out:
                    yield out

    def _frames(self, chunks: Chunks, min_bytes: int = 0) -> Iterator[tuple[bytes, int, list[int]]]:
        """Whole records, a buffer of at least `min_bytes` (while the file lasts) at a time: (buffer,
        stream offset of its first byte, where each record starts in it). The framing faults are
        dealt with here (RFC 6396 section 2 headers)."""
        try:
            yield from self._walk(chunks, min_bytes)
        finally:
            chunks.close()

    def _walk(self, chunks: Chunks, min_bytes: int):
        source = iter(chunks)
        buf = b""
        pos = 0
        base = 0  # stream offset of buf[0]
        header = _HEADER
        record_length = _LENGTH
        first = True
        while True:
            if len(buf) - pos < min_bytes:
                parts = [buf[pos:]]
                size = len(parts[0])
                while size < min_bytes:
                    more = next(source, b"")
                    if not more:
                        break
                    parts.append(more)
                    size += len(more)
                buf = b"".join(parts)
                base += pos
                pos = 0
            starts = []
            n = len(buf)
            if first and n >= 12:
                rtype = header(buf, 0)[1]
                if rtype not in KNOWN_TYPES:
                    raise InputError(f"not an MRT file: want a record type of RFC 6396 section 4 (such as 13 "
                                     f"TABLE_DUMP_V2 or 16 BGP4MP), got {rtype}", self.path, "byte 0")
                first = False
            while pos + 12 <= n:  # the records wholly in the buffer: their lengths alone are read
                length = record_length(buf, pos + 8)[0]
                if length == 0 or length > MAX_RECORD or pos + 12 + length > n:
                    break
                starts.append(pos)
                pos += 12 + length
            self.records += len(starts)
            if starts:
                yield buf, base, starts
            have = n - pos
            if have < 12 or pos + 12 + length > n and length <= MAX_RECORD and length:
                more = next(source, b"")
                if more:
                    buf = buf[pos:] + more
                    base += pos
                    pos = 0
                    continue
                at = base + pos
                if have >= 12:
                    self._truncated(chunks, at, f"the record there wants {12 + length} bytes, {have} remain")
                elif have:
                    self._truncated(chunks, at, f"{have} bytes of a 12-byte record header")
                elif chunks.truncated:
                    self._truncated(chunks, at, None)
                return
            at = self.at = base + pos
            _, rtype, sub, _ = header(buf, pos)
            if length == 0:  # bgpdump stops at a record of length 0
                self.warn(f"{self.path}: byte {at + 8}: MRT record header (RFC 6396 section 2): length 0 "
                          f"(type {rtype}, subtype {sub}); reading stops here, as bgpdump's does")
                return
            # longer than MAX_RECORD: skipped unread, as bgpdump skips a record it cannot parse
            skip = 12 + length - (n - pos)  # bytes of the record past the buffer
            if skip <= 0:
                pos += 12 + length
            else:
                base += n
                buf = b""
                pos = 0
                while skip > 0:
                    more = next(source, b"")
                    if not more:
                        self.warn(f"{self.path}: byte {at + 8}: MRT record header (RFC 6396 section 2): length "
                                  f"{length} (type {rtype}, subtype {sub}) runs past the end of the file; reading "
                                  f"stops here, as bgpdump's does (read {self.records} whole records)")
                        return
                    if len(more) > skip:
                        buf = more[skip:]
                        base += skip
                        skip = 0
                    else:
                        base += len(more)
                        skip -= len(more)
            self.records += 1
            self.warn(f"{self.path}: byte {at}: record of {length} bytes (type {rtype}, subtype {sub}) longer "
                      f"than {MAX_RECORD}: skipped unread")

    def _handle(self, buf: bytes, base: int, pos: int) -> list:
        """The groups of the whole record at buf[pos:], read by the parser; a fault is a warning."""
        ts, rtype, sub, length = _HEADER(buf, pos)
        at = self.at = base + pos
        handler = self._handlers.get(rtype)
        if handler is None:
            if rtype not in self._skipped_types:
                self._skipped_types.add(rtype)
                self.warn(f"{self.path}: byte {at}: skipping MRT type {rtype} records (not read by bgpsim)")
            return []
        try:
            return handler(ts, rtype, sub, buf[pos + 12:pos + 12 + length])
        except (_Damage, WireError) as e:
            self.warn(f"{self.path}: byte {at + 12 + e.offset}: {e.message}; record at byte {at} "
                      f"(type {rtype}, subtype {sub}){' partly read' if getattr(e, 'partial', ()) else ' skipped'}")
            return getattr(e, "partial", ())
        except IndexError:
            self.warn(f"{self.path}: byte {at}: record (type {rtype}, subtype {sub}) shorter than its fields; skipped")
            return []

    def _truncated(self, chunks: Chunks, offset: int, what: str | None) -> None:
        parts = []
        if what:
            parts.append(f"file ends inside a record at byte {offset}: {what}")
        if chunks.truncated:
            parts.append(chunks.truncated)
        self.warn(f"{self.path}: truncated: " + "; ".join(parts) + f" (read {self.records} whole records)")

    # RFC 6396 appendix B: the deprecated BGP type, as bgpdump reads it
    def _bgp(self, ts, rtype, sub, body):
        n = len(body)
        if sub == 3:  # BGP_STATE_CHANGE: peer AS, peer address, old and new state
            if n < 10:
                raise _Damage(f"BGP_STATE_CHANGE (RFC 6396 appendix B): want 10 bytes, got {n}", 0)
            peer_as, old, new = unpack_from(">H4xHH", body, 0)
            return [("BGP", ts, None, STATE, self._ip(body[2:6]), peer_as, 0, (), (), None, None, None, old, new)]
        if sub != 1:
            return ()  # OPEN, NOTIFY, KEEPALIVE and the like: no routes
        if n < 12:
            raise _Damage(f"BGP_UPDATE (RFC 6396 appendix B): want 12 bytes of peer and local AS and address, "
                          f"got {n}", 0)
        return self._update(body, 12, n, "BGP", ts, None, self._ip(body[2:6]), (body[0] << 8) | body[1], 2, False)

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
        nh = FROM_ATTRS
        if attrs.mp_reach is not None and attrs.mp_reach[0] == 2:
            nh = attrs.mp_reach[3]
        net = int.from_bytes(pfx, "big") & (MASK4 if sub == 1 else MASK6)[plen]
        return [("TABLE_DUMP", ts, None, RIB, self._ip(peer), peer_as, sub, (net,), (plen,), None, attrs, nh)]

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
        width = 4 if afi == 1 else 16
        net = ((int.from_bytes(body[5:p], "big") << (8 * (width - pb))) & (MASK4 if afi == 1 else MASK6)[plen],)
        plens = (plen,)
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
            pid = unpack_from(">I", body, p + 6) if addpath else None
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
            peer_ip, peer_as = peers[idx]
            out.append((record, ts, None, RIB, peer_ip, peer_as, afi, net, plens, pid, attrs,
                        mp[3] if mp is not None else FROM_ATTRS))
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

    def _entry(self, body, p, ts, usec):
        """BGP4MP_ENTRY (subtype 2): one RIB entry, from draft-ietf-grow-mrt before RFC 6396 dropped
        it; OpenBGPD still writes it and bgpdump does not read it. Peer AS, local AS, interface
        index, AFI (2 each), two addresses, view and status (2 each), time last changed (4), AFI (2),
        SAFI (1), next-hop length (1), next hop, prefix length (1), prefix, attribute length (2),
        attributes (2-byte ASNs). The draft puts the peer's address first; OpenBGPD, its one writer,
        puts its own first (the same router's TABLE_DUMP_V2 dump names the second as the peer), and
        so we read the second as the peer's."""
        n = len(body)
        if p + 8 > n:
            raise _Damage(f"BGP4MP_ENTRY: want an 8-byte header, got {n - p} bytes", p)
        peer_as, _local_as, _ifindex, afi = unpack_from(">HHHH", body, p)
        alen = _ADDRESS_BYTES.get(afi)
        if alen is None:
            raise _Damage(f"BGP4MP_ENTRY: want address family 1 or 2, got {afi}", p + 6)
        q = p + 8 + 2 * alen + 8
        if q + 4 > n:
            raise _Damage(f"BGP4MP_ENTRY: want {q + 4 - p} bytes before the next hop, got {n - p}", p)
        peer = body[p + 8 + alen:p + 8 + 2 * alen]
        afi2, _safi, nh_len = unpack_from(">HBB", body, q)
        plen_max = 8 * _ADDRESS_BYTES.get(afi2, 0)
        if not plen_max:
            raise _Damage(f"BGP4MP_ENTRY: want prefix address family 1 or 2, got {afi2}", q)
        q += 4
        if q + nh_len + 1 > n or nh_len not in (0, plen_max // 8, 2 * plen_max // 8):
            raise _Damage(f"BGP4MP_ENTRY: want a next hop of 0, {plen_max // 8} or {plen_max // 4} bytes within "
                          f"the record, got {nh_len}", q - 1)
        nh = self._ip(body[q:q + plen_max // 8]) if nh_len else FROM_ATTRS  # a global IPv6 one comes first
        q += nh_len
        plen = body[q]
        size = (plen + 7) // 8
        if plen > plen_max or q + 1 + size + 2 > n:
            raise _Damage(f"BGP4MP_ENTRY: want a prefix length <= {plen_max} within the record, got {plen}", q)
        net = int.from_bytes(body[q + 1:q + 1 + size].ljust(plen_max // 8, b"\0"), "big")
        net &= (MASK4 if afi2 == 1 else MASK6)[plen]
        q += 1 + size
        attr_len = unpack_from(">H", body, q)[0]
        q += 2
        if q + attr_len > n:
            raise _Damage(f"BGP4MP_ENTRY: attribute length {attr_len} wants {attr_len} bytes, got {n - q}", q - 2)
        try:
            attrs = self._attrs(body[q:q + attr_len], 2)
        except WireError as e:
            raise _Damage(e.message, q + e.offset) from None
        return [("BGP4MP_ENTRY", ts, usec, RIB, self._ip(peer), peer_as, afi2, (net,), (plen,), None, attrs, nh)]

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
        record = "BGP4MP_ET" if et else "BGP4MP"
        msg = _MESSAGE_SUBTYPES.get(sub)
        if msg is not None:
            asn_size, local, addpath = msg
        elif sub == 0 or sub == 5:
            return self._state_change(body, p, record, ts, usec, 2 if sub == 0 else 4)
        elif sub == 2:
            return self._entry(body, p, ts, usec)
        else:
            return ()  # SNAPSHOT and the like: no routes
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
        elif afi == 0xFFFF and _ifindex == 0xFFFF:
            return ()  # Zebra wrote OPEN messages without interface, family or addresses: no routes
        else:
            raise _Damage(f"BGP4MP (RFC 6396 section 4.4): want address family 1 or 2, got {afi}", p - 2)
        if p + 2 * alen > n:
            raise _Damage(f"BGP4MP (RFC 6396 section 4.4): want two {alen}-byte addresses, got {n - p} bytes", p)
        if local:
            record += "_LOCAL"
            peer_ip, peer_as = body[p + alen:p + 2 * alen], local_as
        else:
            peer_ip = body[p:p + alen]
        if addpath:
            record += "_AP"
        p += 2 * alen
        # RFC 4271 section 4.1 header; parse_header's checks, inline on this hot path
        mend = p + ((body[p + 16] << 8) | body[p + 17]) if n - p >= 19 else 0
        if mend < p + 19 or mend > n:
            parse_header(body, p, n)  # raises its error
        if body[p + 18] != UPDATE:
            return ()
        return self._update(body, p + 19, mend, record, ts, usec, self._ip(peer_ip), peer_as, asn_size, addpath)

    def _state_change(self, body, p, record, ts, usec, asn_size):
        # RFC 6396 section 4.4.1
        n = len(body) - p
        if n == 8 and asn_size == 2:
            # Zebra once wrote state changes of 8 bytes: the two ASNs and the states, no interface,
            # family or addresses; bgpdump reads them so and prints 0.0.0.0 as the peer address
            peer_as, _local_as, old, new = unpack_from(">HHHH", body, p)
            return [(record, ts, usec, STATE, "0.0.0.0", peer_as, 0, (), (), None, None, None, old, new)]
        fixed = 2 * asn_size + 4
        if n < fixed:
            raise _Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want {fixed} header bytes, got {n}", p)
        peer_as = unpack_from(">H" if asn_size == 2 else ">I", body, p)[0]
        afi = unpack_from(">H", body, p + fixed - 2)[0]
        if afi != 1 and afi != 2:
            raise _Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want address family 1 or 2, got {afi}",
                          p + fixed - 2)
        alen = 4 if afi == 1 else 16
        if n != fixed + 2 * alen + 4:  # bgpdump takes no other length
            raise _Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want {fixed + 2 * alen + 4} bytes for "
                          f"address family {afi}, got {n}", p)
        q = p + fixed
        old, new = unpack_from(">HH", body, q + 2 * alen)
        return [(record, ts, usec, STATE, self._ip(body[q:q + alen]), peer_as, 0, (), (), None, None, None, old, new)]

    def update_routes(self, msg: bytes, record: str, ts: int, usec: int | None, peer: str, peer_as: int,
                      asn_size: int, addpath: bool = False) -> tuple[list[Route], str | None]:
        """Routes of one whole UPDATE message `msg` (19-byte header included), for readers of other
        containers (pcap): (routes, None), or (the routes before a fault, "byte N: what was wanted")."""
        try:
            groups, damage = self._update(msg, 19, len(msg), record, ts, usec, peer, peer_as, asn_size, addpath), None
        except (_Damage, WireError) as e:
            groups, damage = getattr(e, "partial", ()), f"byte {e.offset}: {e.message}"
        except IndexError:
            groups, damage = (), "UPDATE shorter than its fields"
        return [r for g in groups for r in _expand(g)], damage

    def _update(self, body, p, end, record, ts, usec, peer, peer_as, asn_size, addpath):
        # RFC 4271 section 4.3; split_update's checks, inline on this hot path
        if end - p < 4:
            split_update(body, p, end)  # raises its error
        w0 = p + 2
        w1 = w0 + ((body[p] << 8) | body[p + 1])
        if w1 + 2 > end:
            split_update(body, p, end)
        a0 = w1 + 2
        a1 = a0 + ((body[w1] << 8) | body[w1 + 1])
        if a1 > end:
            split_update(body, p, end)
        out = []
        damage = None

        def prefixes(pos, stop, afi):
            nonlocal damage
            try:
                return parse_prefix_ints(body, pos, stop, afi, addpath)
            except PrefixError as e:  # keep the whole prefixes before the fault, as bgpdump does
                damage = damage or _Damage(e.message, e.offset)
                return e.parsed

        if w1 > w0:
            nets, plens, pids = prefixes(w0, w1, 1)
            if nets:
                out.append((record, ts, usec, WITHDRAW, peer, peer_as, 1, nets, plens, pids, None, None))
        attrs = None
        if a1 > a0:
            raw = body[a0:a1]
            cache = self._update_attrs[asn_size == 4]
            attrs = cache.get(raw)
            if attrs is None:
                try:
                    attrs = scan_attributes(raw, asn_size)
                except WireError as e:
                    raise _Damage(e.message, a0 + e.offset, out) from None
                if len(cache) >= CACHE:
                    cache.clear()
                cache[raw] = attrs
            mu = attrs.mp_unreach
            if mu is not None and mu[0] in (1, 2) and mu[1] in (1, 2, 3) and record != "BGP":
                nets, plens, pids = prefixes(a0 + mu[2], a0 + mu[3], mu[0])
                if nets:
                    out.append((record, ts, usec, WITHDRAW, peer, peer_as, mu[0], nets, plens, pids, None, None))
        if end > a1:
            nets, plens, pids = prefixes(a1, end, 1)
            if nets:
                out.append((record, ts, usec, ANNOUNCE, peer, peer_as, 1, nets, plens, pids, attrs,
                            FROM_ATTRS if attrs is not None else None))
        if attrs is not None and attrs.mp_reach is not None and record != "BGP":
            mr = attrs.mp_reach
            if mr[0] in (1, 2) and mr[1] in (1, 2, 3):
                nets, plens, pids = prefixes(a0 + mr[4], a0 + mr[5], mr[0])
                if nets:
                    out.append((record, ts, usec, ANNOUNCE, peer, peer_as, mr[0], nets, plens, pids, attrs,
                                mr[3] if mr[2] in (4, 16, 32) else ""))
        if damage is not None:
            damage.partial = out
            raise damage
        return out


class _Pieces:
    """The pieces (one per buffer) of a batch being read, and the AS_PATHs they share."""

    def __init__(self):
        self.pieces: list[dict] = []
        self.paths: list = []
        self.path_index: tuple[dict, dict] = ({}, {})  # AS_PATH bytes -> (index, origin), per ASN size
        self.seg_index: dict = {}  # AS_PATH segments -> index
        self.routes = 0

    def batch(self, peers: list) -> RouteBatch:
        """The pieces as one RouteBatch (`peers`: the reader's numbering of them)."""
        b = RouteBatch()
        cat = {k: np.concatenate([p[k] for p in self.pieces])
               for k in ("kind", "afi", "count", "path", "origin", "peer", "time", "usec", "src", "hi", "lo", "plen", "pid")}
        counts = cat["count"]
        b.paths = self.paths
        b.peers = peers
        b.first = _starts(counts)
        b.gpath = cat["path"]
        b.gusec = cat["usec"]
        b.group = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        for k in ("kind", "afi", "origin", "peer", "time"):
            setattr(b, k, np.repeat(cat[k], counts))
        b.hi, b.lo, b.plen, b.path_id = cat["hi"], cat["lo"], cat["plen"], cat["pid"]
        b._src = cat["src"]
        b._bufs = [p["buf"] for p in self.pieces]
        b._slow = {}
        at = 0
        for p in self.pieces:
            b._slow.update((at + j, g) for j, g in p["slow"].items())
            at += len(p["count"])
        b._attrs = {}
        return b


def _merge(a: dict, b: dict) -> dict:
    """Two pieces of one buffer (different records) in record order."""
    order = np.argsort(np.concatenate([a["rec"], b["rec"]]), kind="stable")
    out = {k: np.concatenate([a[k], b[k]])[order] for k in ("rec", "kind", "afi", "count", "path", "origin", "peer",
                                                              "time", "usec", "src")}
    first = np.concatenate([_starts(a["count"]), len(a["plen"]) + _starts(b["count"])])[order]
    take = _ranges(first, out["count"])
    for k in ("hi", "lo", "plen", "pid"):
        out[k] = np.concatenate([a[k], b[k]])[take]
    where = np.empty(len(order), dtype=np.int64)
    where[order] = np.arange(len(order))
    out["slow"] = {int(where[len(a["rec"]) + j]): g for j, g in b["slow"].items()}
    out["buf"] = a["buf"]
    return out


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64) if len(counts) else np.zeros(0, np.int64)


def _ranges(first: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices first[0] .. first[0]+counts[0]-1, then first[1] ..., as one array."""
    total = int(counts.sum())
    return np.repeat(first - _starts(counts), counts) + np.arange(total)


