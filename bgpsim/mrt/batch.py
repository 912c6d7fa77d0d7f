"""Routes as numpy columns, many at once: `RouteBatch`, and `Pieces`, which reads buffers of whole
records (bgpsim.mrt.framing) into one.

A buffer's BGP4MP UPDATE records are read by arrays (bgpsim.mrt.fast); the records it leaves (other
types, ADD-PATH, anything it cannot read exactly as the record decoders do) are decoded one by one
(bgpsim.mrt.decoder) and their groups turned into the same columns; the two are merged back into
file order. So a batch holds the routes `read_routes` gives, in the same order, with the same
warnings. State changes have no prefix and are left out (counted).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from bgpsim.wire.attributes import NO_PATH, scan_attributes
from . import fast
from .fast import NH_ATTRS, NH_MP
from .framing import Buffer
from .record import ANNOUNCE, FROM_ATTRS, RIB, STATE, WITHDRAW, Peers, Route, wire_route

KIND_CODES = {ANNOUNCE: 0, WITHDRAW: 1, RIB: 2}
_COLUMNS = ("kind", "afi", "count", "path", "origin", "peer", "time", "usec", "src", "hi", "lo", "plen", "pid")


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

    def bgpsec_groups(self) -> list[int]:
        """The groups whose routes carry a BGPsec_PATH: only the record parser reads those (bgpsim.mrt.fast
        leaves attribute 33 to it), so only its groups are looked at."""
        return [k for k, g in self._slow.items() if g[10] is not None and g[10].bgpsec is not None]

    def route(self, i: int) -> Route:
        k = int(self.group[i])
        afi = int(self.afi[i])
        net = (int(self.hi[i]) << 64) | int(self.lo[i])
        pid = int(self.path_id[i])
        g = self._slow.get(k)
        if g is not None:  # read by the record decoders: (record, time, usec, kind, peer, peer AS, ..., attrs, nh,
            # local AS)
            return wire_route(g[0], g[1], g[2], g[3], g[4], g[5], afi, net, int(self.plen[i]),
                              None if pid < 0 else pid, g[10], g[11], g[12])
        buf, a0, a1, asn, nh, et, hdr = self._src[k].tolist()  # read by bgpsim.mrt.fast
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
        local_as = int.from_bytes(self._bufs[buf][hdr + asn:hdr + 2 * asn], "big")  # RFC 6396 section 4.4.2
        return wire_route("BGP4MP_ET" if et else "BGP4MP", int(self.time[i]), None if usec < 0 else usec, kind,
                          peer_ip, peer_as, afi, net, int(self.plen[i]), None, attrs, hop, local_as)

    def routes(self) -> Iterator[Route]:
        for i in range(len(self)):
            yield self.route(i)


class Pieces:
    """The pieces (one per buffer) of a batch being read, and the AS_PATHs they share."""

    def __init__(self):
        self.pieces: list[dict] = []
        self.paths: list = []
        self.path_index: tuple[dict, dict] = ({}, {})  # AS_PATH bytes -> (index, origin), per ASN size
        self.seg_index: dict = {}  # AS_PATH segments -> index
        self.routes = 0

    def read(self, buffer: Buffer, decoder, peers: Peers) -> int:
        """Adds the routes of `buffer`: BGP4MP UPDATEs through bgpsim.mrt.fast, the records it leaves
        through `decoder` (a bgpsim.mrt.decoder.Decoder), merged back into file order; `peers`
        numbers the peers. Gives the number of state changes left out."""
        buf, base, starts = buffer
        u = fast.updates(buf, starts, self.paths, self.path_index)
        ip = decoder.ip
        lut = np.array([peers.number(ip(raw), asn) for raw, asn in u.peer_keys] + [0], dtype=np.int32)
        piece = {"rec": u.rec, "kind": u.kind, "afi": u.afi, "count": u.count, "path": u.path, "origin": u.origin,
                 "peer": lut[u.peer], "time": u.time, "usec": u.usec, "hi": u.hi, "lo": u.lo, "plen": u.plen,
                 "pid": np.full(len(u.plen), -1, dtype=np.int64),
                 "src": np.column_stack([np.full(len(u.rec), len(self.pieces), dtype=np.int64), u.a0, u.a1, u.asn,
                                         u.nh, u.et, u.hdr]),
                 "slow": {}, "buf": buf}
        slow = np.flatnonzero(u.slow).tolist()
        states = 0
        if slow:
            other, states = self._decoded(buf, base, starts, slow, decoder, peers)
            piece = _merge(piece, other)
        self.pieces.append(piece)
        self.routes += len(piece["plen"])
        return states

    def _decoded(self, buf, base, starts, which, decoder, peers: Peers) -> tuple[dict, int]:
        """The groups of the records `which` (numbers in `starts`), decoded one by one, as columns;
        and the number of state changes among them."""
        rec, kind, afi, count, path, origin, peer, time, usec = [], [], [], [], [], [], [], [], []
        nets, plens, pids = [], [], []
        slow = {}
        states = 0
        paths, seg_index = self.paths, self.seg_index
        for r in which:
            for g in decoder.handle(buf, base, starts[r]):
                k = g[3]
                if k is STATE:
                    states += 1
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
                peer.append(peers.number(g[4], g[5]))
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
                "pid": np.array(pids, dtype=np.int64), "src": np.full((len(rec), 7), -1, dtype=np.int64),
                "slow": slow, "buf": buf}, states

    def batch(self, peers: Peers) -> RouteBatch:
        """The pieces as one RouteBatch (`peers`: the reader's numbering of them)."""
        b = RouteBatch()
        cat = {k: np.concatenate([p[k] for p in self.pieces]) for k in _COLUMNS}
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
