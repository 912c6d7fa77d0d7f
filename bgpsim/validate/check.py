"""One streaming pass over route dumps: every announced route (BGP UPDATE announcement or RIB entry)
gets its RFC 6811 status through rpki.rov, its ASPA verdict through rpki.aspa_path when ASPA data
(or relationships standing in for it) is given, and its findings (bgpsim.validate.findings).

Routes come in batches: MRT files through `read_batches` (numpy columns; the routes of one UPDATE
or RIB entry share one group: time, peer, attributes), other inputs route by route, grouped here.
Each batch goes through two steps. `_prepare` does what needs no VRPs: what depends on the AS_PATH
(its text, ASPA verdict, path findings) once per group and once per distinct path, the prefixes and
origins handed to Findings as arrays, each route's CSV line up to its RPKI status. `_check` then
sends the prefixes and origins to `VRPTable.validate_arrays` at once, counts, and writes each
route's row, which is forgotten, so memory stays flat as the dump grows (what grows is one entry
per distinct prefix and per distinct AS_PATH). The VRPs may still be loading in a second process
(bgpsim.validate.load): prepared batches wait for them, in order, so the two overlap.

- Origin AS (RFC 6811 section 2): the last AS of the AS_PATH when its last segment is an
  AS_SEQUENCE; NONE when it is an AS_SET (such a route is never valid: invalid when covered); the
  peer's own AS when the path is empty.
- ASPA: collectors take full tables from their peers as a customer takes them from a provider, so
  paths are verified downstream (draft-ietf-sidrops-aspa-verification section 6.2).
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from rpki.aspa_path import AspaTable
from rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID, VRPTable

from ..bogons import prefix_mask
from ..mrt.record import ANNOUNCE, RIB, STATE, WITHDRAW, Route
from ..wire.aspath import AS_SEQUENCE, AS_SET
from .findings import Findings, prefix_texts

BATCH = 65_536
NONE = -1  # RFC 6811 origin NONE (an AS_SET last)
NO_PATH = -2  # the reader's mark for a route without an AS_PATH
COLUMNS = ("time", "peer_ip", "peer_as", "prefix", "as_path", "origin_as", "rpki", "rpki_reason", "aspa",
           "findings")
_BITS = {1: 32, 2: 64}  # AFI -> what VRPTable.validate_arrays compares
_VERSION = {1: 4, 2: 6}
_REASON = {VALID: "a VRP for the origin covers it, within its maxLength", NOT_FOUND: "no VRP covers the prefix"}
_STATE_TEXT = [f'{s},"{_REASON.get(s, "")}"' for s in STATES]  # the status and reason fields


@dataclass
class Tally:
    """Counts over the pass, for summary.json and the report."""

    routes: int = 0
    withdrawals: int = 0
    state_changes: int = 0
    rpki: Counter = field(default_factory=lambda: Counter({s: 0 for s in STATES}))
    aspa: Counter = field(default_factory=Counter)
    by_peer: dict[tuple[str, int], Counter] = field(default_factory=dict)
    invalid_by_origin: Counter = field(default_factory=Counter)
    routes_by_origin: Counter = field(default_factory=Counter)


@dataclass(slots=True)
class _Group:
    """What the routes of one group share: their CSV fields before the prefix, and the AS_PATH."""

    head: str  # "time,peer_ip,peer_as"
    peer: tuple[str, int]
    path: tuple  # ASNs, an AS_SET as a tuple inside
    path_csv: str
    aspa: str


@dataclass(slots=True)
class _Batch:
    """A batch of announced routes, ready to be checked: Checker._prepare's answer. `starts` and
    `ends` are each route's CSV line before the RPKI status and after its reason."""

    groups: list[_Group]
    gidx: np.ndarray
    afi: np.ndarray
    hi: np.ndarray
    lo: np.ndarray
    nets: list[int]
    plen: np.ndarray
    origin: np.ndarray
    starts: list[str]
    ends: list[str]


class Checker:
    """Feed it MRT batches (`feed_batch`) or routes (`feed`), then `finish()`; each announced route's
    CSV line (no newline) goes to `emit`."""

    def __init__(self, vrps, emit: Callable[[str], None], aspa: AspaTable | None = None, topo=None):
        """`vrps`: a VRPTable, or something that will give one (`poll()`: the table, or None while it
        is not there yet; `wait()`: the table), e.g. a table being loaded by another process:
        batches are read and put aside until it comes."""
        self.vrps: VRPTable | None = vrps if isinstance(vrps, VRPTable) else None
        self._source = None if self.vrps is not None else vrps
        self.aspa = aspa
        self.emit = emit
        self.tally = Tally()
        self.findings = Findings(topo)
        self._pending: list[Route] = []
        self._waiting: list[_Batch] = []  # batches read before the VRPs came, in order
        self._reasons: dict[tuple, str] = {}
        self._aspa_cache: dict[tuple, str] = {}
        self._path_cache: dict[int, tuple[tuple, str]] = {}  # id(attrs) -> (path, CSV text), per batch

    def _ready(self, block: bool) -> bool:
        """Whether the VRPs are there (waiting for them if `block`); batches put aside go first."""
        if self.vrps is None:
            self.vrps = self._source.wait() if block else self._source.poll()
            if self.vrps is None:
                return False
        waiting, self._waiting = self._waiting, []
        for batch in waiting:
            self._check(batch)
        return True

    # ---- input ----------------------------------------------------------------------------------------
    def feed_batch(self, b) -> None:
        """A bgpsim.mrt.RouteBatch."""
        self._pending_flush()
        self.tally.withdrawals += int(np.count_nonzero(b.kind == 1))
        sel = np.flatnonzero(b.kind != 1)
        if not len(sel):
            return
        self._path_cache.clear()
        used, gidx = np.unique(b.group[sel], return_inverse=True)
        groups = [self._group_of(g[1], g[2], g[4], g[5], g[10]) for g in (b.groups[k] for k in used.tolist())]
        hi, lo = b.hi[sel], b.lo[sel]
        nets = [(h << 64) | x for h, x in zip(hi.tolist(), lo.tolist())]
        batch = self._prepare(groups, gidx.reshape(-1), b.afi[sel], hi, lo, nets, b.plen[sel], b.origin[sel])
        if self._ready(block=False):
            self._check(batch)
        else:
            self._waiting.append(batch)

    def feed(self, r: Route) -> None:
        if r.kind == ANNOUNCE or r.kind == RIB:
            self._pending.append(r)
            if len(self._pending) >= BATCH:
                self._pending_flush()
        elif r.kind == WITHDRAW:
            self.tally.withdrawals += 1
        elif r.kind == STATE:
            self.tally.state_changes += 1

    def finish(self) -> list[dict]:
        self._pending_flush()
        self._ready(block=True)
        return self.findings.finish()

    def _pending_flush(self) -> None:
        routes, self._pending = self._pending, []
        if not routes:
            return
        self._ready(block=True)
        self._path_cache.clear()
        groups = [self._group_of(r.time, r.usec, r.peer_ip, r.peer_as, r.attrs) for r in routes]
        nets = [r.network for r in routes]
        self._check(self._prepare(groups, np.arange(len(routes)), np.array([r.afi for r in routes], dtype=np.uint8),
                    np.array([n >> 64 for n in nets], dtype=np.uint64),
                    np.array([n & 0xFFFF_FFFF_FFFF_FFFF for n in nets], dtype=np.uint64), nets,
                    np.array([r.plen for r in routes], dtype=np.int64),
                    np.array([_origin(g.path) for g in groups], dtype=np.int64)))

    def _group_of(self, time: int, usec: int | None, peer_ip: str, peer_as: int, attrs) -> _Group:
        cached = self._path_cache.get(id(attrs))
        if cached is None:
            path = _path(attrs.as_path) if attrs is not None else ()
            text = attrs.as_path_text if attrs is not None else ""
            cached = self._path_cache[id(attrs)] = (path, f'"{text}"' if "," in text else text)
        path, path_csv = cached
        verdict = ""
        if self.aspa is not None and path:
            verdict = self._aspa_cache.get(path)
            if verdict is None:
                verdict = self._aspa_cache[path] = self.aspa.verify(path, from_provider=True)
        when = f"{time}.{usec:06d}" if usec is not None else str(time)
        return _Group(f"{when},{peer_ip},{peer_as}", (peer_ip, peer_as), path, path_csv, verdict)

    # ---- the checks ---------------------------------------------------------------------------------------
    def _prepare(self, groups: list[_Group], gidx: np.ndarray, afi: np.ndarray, hi: np.ndarray, lo: np.ndarray,
                 nets: list[int], plen: np.ndarray, origin: np.ndarray) -> _Batch:
        """What a batch's checks need that does not depend on the VRPs (done while they may still be
        loading): route i belongs to groups[gidx[i]]; its network is (hi << 64) | lo = nets[i] (IPv4
        in lo). The findings of the batch are recorded here; each group's path is judged (once per
        distinct path) with the group's first route as the example, groups in route order."""
        n = len(gidx)
        origin = origin.astype(np.int64)
        empty = np.flatnonzero(origin == NO_PATH)  # no path: the peer originated it
        if len(empty):
            peer_as = np.array([g.peer[1] for g in groups], dtype=np.int64)
            origin[empty] = peer_as[gidx[empty]]
        plen = plen.astype(np.int64)
        version = np.where(afi == 1, 4, 6).astype(np.uint8)
        bogon = np.zeros(n, dtype=bool)
        for a in _BITS:
            sel = np.flatnonzero(afi == a)
            if len(sel):
                bogon[sel] = prefix_mask(_VERSION[a], (lo if a == 1 else hi)[sel].astype(np.uint64), plen[sel])
        findings = self.findings
        findings.prefixes(version, hi, lo, plen, origin)
        routes = np.bincount(gidx, minlength=len(groups)).tolist()
        first = np.full(len(groups), n, dtype=np.int64)
        np.minimum.at(first, gidx, np.arange(n))
        first_list = first.tolist()
        texts = prefix_texts(version, hi, lo, plen)
        # what the routes of a group share before and after their own fields
        heads, tails, kinds_of = [""] * len(groups), [""] * len(groups), [""] * len(groups)
        for k in np.argsort(first, kind="stable").tolist():
            g = groups[k]
            kinds = findings.path_kinds(g.path, texts[first_list[k]], g.peer[0], routes[k]) if g.path else ()
            kinds_of[k] = " ".join(kinds)
            heads[k] = f"{g.head},"
            tails[k] = f"{g.aspa},{kinds_of[k]}"
        mids = [f",{g.path_csv}," for g in groups]
        gl = gidx.tolist()
        origins = origin.tolist()
        starts = [f"{heads[k]}{text}{mids[k]}{'' if o == NONE else o}" for k, text, o in zip(gl, texts, origins)]
        ends = [tails[k] for k in gl]
        vers, plens = version.tolist(), plen.tolist()
        for i in np.flatnonzero(bogon).tolist():
            findings.bogon_route((vers[i], nets[i], plens[i]), texts[i], origins[i])
            k = gl[i]
            ends[i] = f"{groups[k].aspa},{kinds_of[k] + ' ' if kinds_of[k] else ''}bogon-prefix"
        return _Batch(groups, gidx, afi, hi, lo, nets, plen, origin, starts, ends)

    def _check(self, b: _Batch) -> None:
        """A prepared batch against the VRPs: RFC 6811 status, the counts, each route's CSV line."""
        status = np.full(len(b.gidx), STATES.index(NOT_FOUND), dtype=np.uint8)
        for a, bits in _BITS.items():
            sel = np.flatnonzero(b.afi == a)
            if len(sel):
                start = (b.lo if a == 1 else b.hi)[sel].astype(np.uint64)
                status[sel] = self.vrps.validate_arrays(_VERSION[a], start, np.minimum(b.plen[sel], bits), b.origin[sel])
        long6 = np.flatnonzero((b.afi == 2) & (b.plen > 64))
        for i in long6.tolist():  # IPv6 routes longer than /64: exactly, one at a time
            status[i] = STATES.index(self.vrps.validate(_network((6, b.nets[i], int(b.plen[i]))), int(b.origin[i])))
        self._tally(b.groups, b.gidx, b.origin, status)
        whys = [_STATE_TEXT[c] for c in status.tolist()]
        invalid = (status == STATES.index(INVALID_ASN)) | (status == STATES.index(INVALID_LENGTH))
        for i in np.flatnonzero(invalid).tolist():
            state = STATES[int(status[i])]
            where = (4 if b.afi[i] == 1 else 6, b.nets[i], int(b.plen[i]))
            whys[i] = f'{state},"{self._reason(where, int(b.origin[i]), state)}"'
        emit = self.emit
        for start, why, end in zip(b.starts, whys, b.ends):
            emit(f"{start},{why},{end}")
        if len(self._aspa_cache) > 2_000_000:
            self._aspa_cache.clear()

    def _tally(self, groups: list[_Group], gidx: np.ndarray, origin: np.ndarray, status: np.ndarray) -> None:
        """The counts of a batch, by array: states overall and per peer, routes and invalid routes
        per origin, ASPA verdicts."""
        t = self.tally
        t.routes += len(gidx)
        for code, n in enumerate(np.bincount(status, minlength=len(STATES)).tolist()):
            t.rpki[STATES[code]] += n
        index: dict[tuple[str, int], int] = {}
        of_group = np.array([index.setdefault(g.peer, len(index)) for g in groups], dtype=np.int64)
        key = of_group[gidx] * len(STATES) + status
        counts = np.bincount(key, minlength=len(index) * len(STATES)).reshape(len(index), len(STATES))
        for p, row in zip(index, counts.tolist()):
            c = t.by_peer.get(p)
            if c is None:
                c = t.by_peer[p] = Counter()
            for code, n in enumerate(row):
                c[STATES[code]] += n
            c["routes"] += sum(row)
        t.routes_by_origin.update(dict(zip(*(a.tolist() for a in np.unique(origin, return_counts=True)))))
        bad = origin[(status == STATES.index(INVALID_ASN)) | (status == STATES.index(INVALID_LENGTH))]
        t.invalid_by_origin.update(dict(zip(*(a.tolist() for a in np.unique(bad, return_counts=True)))))
        if self.aspa is not None:
            per_group = np.bincount(gidx, minlength=len(groups)).tolist()
            for g, k in zip(groups, per_group):
                if g.aspa and k:
                    t.aspa[g.aspa] += k

    def _reason(self, where: tuple[int, int, int], origin: int, state: str) -> str:
        """Why a route is invalid, naming the VRPs that hold it (cached: many peers send one route)."""
        key = (where, origin, state)
        text = self._reasons.get(key)
        if text is None:
            version, network, length = where
            rows = self.vrps.covering_rows(version, network, length)  # most specific first
            if state == INVALID_LENGTH:
                best = None
                for row in rows:  # the first with the longest maxLength
                    if row[3] == origin and (best is None or row[2] > best[2]):
                        best = row
                text = (f"/{length} is longer than maxLength {best[2]} of the VRP "
                        f"{_prefix_text(version, best[0], best[1])} AS{best[3]}")
            else:
                who = "origin NONE (an AS_SET)" if origin == NONE else f"AS{origin}"
                names = sorted({f"AS{row[3]}" for row in rows})
                shown = " ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                text = (f"covered by VRPs of {shown} ({_prefix_text(version, rows[0][0], rows[0][1])} the most "
                        f"specific); none for {who}")
            self._reasons[key] = text
            if len(self._reasons) > 1_000_000:
                self._reasons.clear()
        return text


def _prefix_text(version: int, network: int, length: int) -> str:
    """A VRP's prefix as ipaddress writes it."""
    if version == 4:
        return f"{network >> 24}.{(network >> 16) & 255}.{(network >> 8) & 255}.{network & 255}/{length}"
    return str(IPv6Network((network, length)))


def _path(segments) -> tuple:
    """The AS_PATH as a flat tuple of ASNs, an AS_SET as a tuple inside it. Confederation segments
    are left out: they never leave the confederation (RFC 5065 section 5)."""
    out: list = []
    for kind, asns in segments:
        if kind == AS_SEQUENCE:
            out.extend(asns)
        elif kind == AS_SET:
            out.append(tuple(asns))
    return tuple(out)


def _origin(path: tuple) -> int:
    """RFC 6811 section 2: the last AS, NONE after an AS_SET, NO_PATH for an empty path."""
    if not path:
        return NO_PATH
    return path[-1] if isinstance(path[-1], int) else NONE


def _network(w: tuple[int, int, int]):
    return (IPv4Network if w[0] == 4 else IPv6Network)((w[1], w[2]))


def check_files(checker: Checker, paths: Iterable[str], progress: Callable[[int], None] | None = None) -> None:
    """Feed every route of every file: MRT in batches, `bgpdump -m` text and pcap/pcapng route by
    route (told by content). `progress(routes so far)` after each batch."""
    from ..mrt.cli import reader_for
    from ..mrt.reader import MRTReader, read_routes

    done = 0
    for p in paths:
        reader = reader_for(p)
        if reader is read_routes:
            mrt = MRTReader(p)
            for b in mrt.batches(BATCH):
                checker.feed_batch(b)
                done += len(b)
                if progress:
                    progress(done)
            checker.tally.state_changes += mrt.state_changes
        else:
            for r in reader(p):
                checker.feed(r)
                done += 1
                if progress and done % BATCH == 0:
                    progress(done)
