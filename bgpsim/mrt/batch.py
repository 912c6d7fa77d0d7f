"""What the compiled core read of an MRT file (bgpsim._core.MRTCore, core/mrt*.c), as Route records
or as numpy columns of many routes at once (`RouteBatch`: what a validator of millions of routes
wants).

The core reads a buffer of the decompressed stream at a time into a `Piece`: columns of groups
(the prefixes of one record that share everything but the prefix: record, time, peer, attributes)
and of routes (one per prefix), the distinct AS_PATHs, and the attribute blocks as spans of the
buffer. `Decoded` turns them into Route records, decoding each distinct attribute block once
(bgpsim.wire.attributes.scan_attributes: per-record work, for callers that want objects).
"""

from __future__ import annotations

from typing import Iterator

from bgpsim import _core
from bgpsim.wire.attributes import scan_attributes
from bgpsim.wire.nlri import address_text
from .record import ANNOUNCE, FROM_ATTRS, RIB, STATE, WITHDRAW, Peers, Route, wire_route

KINDS = (ANNOUNCE, WITHDRAW, RIB, STATE)  # the core's kind codes
STATE_CODE = 3
NH_NONE, NH_ATTRS, NH_EMPTY, NH_ADDR = range(4)  # where a group's next hop is (core/mrt.h)
CACHE = 1 << 16  # attribute blocks remembered per file


class Piece:
    """One read of the core: `buf` (the group columns' spans point into it), `raw` (the core's own
    answer: group and route columns as bytes, the AS_PATHs the groups' `path` indexes as the core's
    words (bgpsim.wire.aspath.path_of_words); what MRTCore.bgpdump takes), `g` and `r` (the columns
    as numpy arrays by name, MRTCore.GROUP_COLUMNS and ROUTE_COLUMNS, made when first asked for: the
    bgpdump text needs none)."""

    __slots__ = ("buf", "raw", "_g", "_r")

    def __init__(self, buf, raw: tuple):
        self.buf, self.raw, self._g, self._r = buf, raw, None, None

    @property
    def g(self) -> dict:
        if self._g is None:
            self._g = columns(self.raw[0], _core.MRTCore.GROUP_COLUMNS)
        return self._g

    @property
    def r(self) -> dict:
        if self._r is None:
            self._r = columns(self.raw[1], _core.MRTCore.ROUTE_COLUMNS)
        return self._r


def columns(raw: dict, spec) -> dict:
    import numpy as np  # here, not above: the bgpdump text of a dump needs no numpy (a tenth of a second)

    return {name: np.frombuffer(raw[name], dtype=dtype) for name, dtype in spec}


class Decoded:
    """What the Route records of one file share: the record names, the peers (address text, AS) in
    the order the core numbers them, and a cache of decoded attribute blocks."""

    def __init__(self, names):
        self.names = names
        self.peers = Peers()
        self._attrs: dict = {}

    def add_peers(self, found) -> None:
        for raw, asn in found:
            self.peers.number(address_text(raw), asn)

    def attrs(self, buf, start: int, end: int, asn_size: int, rib_afi: int):
        key = (bytes(buf[start:end]), asn_size, rib_afi)
        a = self._attrs.get(key)
        if a is None:
            if len(self._attrs) >= CACHE:
                self._attrs.clear()
            a = self._attrs[key] = scan_attributes(key[0], asn_size, rib_afi or None)
        return a

    def group(self, p: Piece, i: int, record: str | None = None, ts=None, usec=None, peer=None,
              local_as=None) -> tuple:
        """What the routes of group i of piece p share: (record, time, usec, kind, peer ip, peer AS,
        afi, attrs, next hop, local AS); a reader of another container (pcap) gives its own record,
        time, peer and local AS."""
        g = p.g
        kind = KINDS[g["kind"][i]]
        if record is None:
            record = self.names[g["record"][i]]
            ts, u = int(g["time"][i]), int(g["usec"][i])
            usec = None if u < 0 else u
            peer = self.peers[g["peer"][i]]
            la = int(g["local_as"][i])
            local_as = None if la < 0 else la
        s = int(g["attr_start"][i])
        attrs = None
        if s >= 0 and kind is not STATE:
            attrs = self.attrs(p.buf, s, int(g["attr_end"][i]), int(g["asn_size"][i]), int(g["rib_afi"][i]))
        nk = g["nh_kind"][i]
        if nk == NH_ATTRS:
            nh = FROM_ATTRS
        elif nk == NH_ADDR:
            a = int(g["nh_start"][i])
            nh = address_text(bytes(p.buf[a:a + int(g["nh_len"][i])]))
        else:
            nh = "" if nk == NH_EMPTY else None
        return record, ts, usec, kind, peer[0], peer[1], int(g["afi"][i]), attrs, nh, local_as

    def routes(self, p: Piece, **given) -> Iterator[Route]:
        """The Route records of a piece, state changes included, in file order."""
        g, r = p.g, p.r
        hi, lo, plen, pid = (r[k].tolist() for k in ("hi", "lo", "plen", "path_id"))
        first, count = g["first"].tolist(), g["count"].tolist()
        for i in range(len(first)):
            record, ts, usec, kind, ip, asn, afi, attrs, nh, local_as = self.group(p, i, **given)
            if kind is STATE:
                yield Route(record, ts, usec, STATE, ip, asn, None, None, None, None, int(g["old_state"][i]),
                            int(g["new_state"][i]), local_as)
                continue
            for k in range(first[i], first[i] + count[i]):
                yield wire_route(record, ts, usec, kind, ip, asn, afi, lo[k] if afi == 1 else hi[k] << 64 | lo[k],
                                 plen[k], None if pid[k] < 0 else pid[k], attrs, nh, local_as)


class RouteBatch:
    """Columns of a run of routes (numpy arrays, one entry per route; state changes left out):

    kind     uint8   0 announce, 1 withdraw, 2 RIB entry
    afi      uint8   1 IPv4, 2 IPv6
    hi, lo   uint64  the network address: IPv4 in `lo` (hi 0); IPv6 as its upper and lower 64 bits
    plen     uint8   prefix length
    origin   int64   origin AS (RFC 6811 section 2): -1 when the path ends in an AS_SET (origin NONE),
                     -2 the speaker's own (a withdrawal; no AS_PATH, an empty one, or one ending in a
                     confederation segment)
    peer     int32   index into `peers`, the (peer address, peer AS) pairs of the file so far
    time     int64   record time (seconds)
    path_id  int64   ADD-PATH id (RFC 7911), -1 without
    group    int32   the route's group: the routes of one group share record, peer and attributes

    and one entry per group: `first` (its first route), `gpath` (its AS_PATH: an index into `paths`,
    the distinct AS_PATHs of the batch in the core's words; -1 without one), `gusec` (microseconds of a
    BGP4MP_ET record, else -1). `route(i)` and `routes()` give the Route records themselves."""

    __slots__ = ("kind", "afi", "hi", "lo", "plen", "origin", "peer", "time", "path_id", "group", "first", "gpath",
                 "gusec", "paths", "peers", "_pieces", "_gpiece", "_gindex", "_bgpsec", "_decoded")

    @classmethod
    def of(cls, pieces: list[Piece], decoded: Decoded) -> RouteBatch:
        import numpy as np

        b = cls()
        gsel, gpath = [], []
        b.paths = []
        for p in pieces:
            sel = np.flatnonzero(p.g["kind"] != STATE_CODE)
            gsel.append(sel)
            path = p.g["path"][sel].astype(np.int64)
            gpath.append(np.where(path >= 0, path + len(b.paths), -1))
            b.paths += p.raw[2]
        g = {k: np.concatenate([p.g[k][s] for p, s in zip(pieces, gsel)])
             for k in ("kind", "afi", "peer", "time", "usec", "origin", "count", "first", "bgpsec")}
        # the routes: each piece's, in group order; a piece's `first` counts from its own start
        offsets = np.cumsum([0] + [len(p.r["plen"]) for p in pieces[:-1]])
        b.first = np.concatenate([p.g["first"][s].astype(np.int64) + o for p, s, o in zip(pieces, gsel, offsets)])
        counts = g["count"].astype(np.int64)
        b.gpath = np.concatenate(gpath)
        b.gusec = g["usec"].astype(np.int64)
        b.group = np.repeat(np.arange(len(counts), dtype=np.int32), counts)
        b.kind = np.repeat(g["kind"], counts)
        b.afi = np.repeat(g["afi"], counts)
        b.origin = np.repeat(g["origin"].astype(np.int64), counts)
        b.peer = np.repeat(g["peer"].astype(np.int32), counts)
        b.time = np.repeat(g["time"].astype(np.int64), counts)
        for k, name in (("hi", "hi"), ("lo", "lo"), ("plen", "plen"), ("path_id", "path_id")):
            setattr(b, k, np.concatenate([p.r[name] for p in pieces]))
        b.peers = decoded.peers
        b._pieces = pieces
        b._gpiece = np.concatenate([np.full(len(s), j, dtype=np.int32) for j, s in enumerate(gsel)])
        b._gindex = np.concatenate(gsel)
        b._bgpsec = g["bgpsec"]
        b._decoded = decoded
        return b

    def __len__(self) -> int:
        return len(self.plen)

    def networks(self) -> list[int]:
        """The network addresses as Python integers."""
        return [(h << 64) | lo for h, lo in zip(self.hi.tolist(), self.lo.tolist())]

    def bgpsec_groups(self) -> list[int]:
        """The groups whose routes carry a BGPsec_PATH."""
        return self._bgpsec.nonzero()[0].tolist()

    def route(self, i: int) -> Route:
        k = int(self.group[i])
        p = self._pieces[int(self._gpiece[k])]
        record, ts, usec, kind, ip, asn, afi, attrs, nh, local_as = self._decoded.group(p, int(self._gindex[k]))
        pid = int(self.path_id[i])
        return wire_route(record, ts, usec, kind, ip, asn, afi, (int(self.hi[i]) << 64) | int(self.lo[i]),
                          int(self.plen[i]), None if pid < 0 else pid, attrs, nh, local_as)

    def routes(self) -> Iterator[Route]:
        for i in range(len(self)):
            yield self.route(i)
