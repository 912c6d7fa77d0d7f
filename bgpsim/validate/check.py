"""One streaming pass over route dumps: every announced route (BGP UPDATE announcement or RIB entry)
gets its RFC 6811 status through rpki.rov, its ASPA verdict through rpki.aspa_path when ASPA data
(or relationships standing in for it) is given, and its findings (bgpsim.validate.findings).

Routes come in batches: MRT files through `read_batches` (numpy columns; the routes of one UPDATE
or RIB entry share one group: time, peer, attributes), other inputs route by route, grouped here.
The prefixes and origins of a batch go to `VRPTable.validate_arrays` at once; what depends on the
AS_PATH (its text, ASPA verdict, path findings) is worked out once per group and once per distinct
path; then each route's row is written and forgotten, so memory stays flat as the dump grows (what
grows is one entry per distinct prefix and per distinct AS_PATH).

- Origin AS (RFC 6811 section 2): the last AS of the AS_PATH when its last segment is an
  AS_SEQUENCE; NONE when it is an AS_SET (such a route is never valid: invalid when covered); the
  peer's own AS when the path is empty.
- ASPA: collectors take full tables from their peers as a customer takes them from a provider, so
  paths are verified downstream (draft-ietf-sidrops-aspa-verification section 6.2).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from rpki.aspa_path import AspaTable
from rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID, VRPTable

from ..bogons import prefix_mask
from ..mrt.record import ANNOUNCE, RIB, STATE, WITHDRAW, Route
from ..wire.aspath import AS_SEQUENCE, AS_SET
from ..wire.nlri import network_text
from .findings import Findings

BATCH = 65_536
NONE = -1  # RFC 6811 origin NONE (an AS_SET last)
NO_PATH = -2  # the reader's mark for a route without an AS_PATH
COLUMNS = ("time", "peer_ip", "peer_as", "prefix", "as_path", "origin_as", "rpki", "rpki_reason", "aspa",
           "findings")
_BITS = {1: 32, 2: 64}  # AFI -> what VRPTable.validate_arrays compares
_VERSION = {1: 4, 2: 6}
_REASON = {VALID: "a VRP for the origin covers it, within its maxLength", NOT_FOUND: "no VRP covers the prefix"}


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


class Checker:
    """Feed it MRT batches (`feed_batch`) or routes (`feed`), then `finish()`; each announced route's
    CSV line (no newline) goes to `emit`."""

    def __init__(self, vrps: VRPTable, emit: Callable[[str], None], aspa: AspaTable | None = None,
                 topo=None):
        self.vrps = vrps
        self.aspa = aspa
        self.emit = emit
        self.tally = Tally()
        self.findings = Findings(topo)
        self._pending: list[Route] = []
        self._reasons: dict[tuple, str] = {}
        self._aspa_cache: dict[tuple, str] = {}
        self._path_cache: dict[int, tuple[tuple, str]] = {}  # id(attrs) -> (path, CSV text), per batch

    # ---- input ----------------------------------------------------------------------------------------
    def feed_batch(self, b) -> None:
        """A bgpsim.mrt.RouteBatch."""
        self._pending_flush()
        self.tally.withdrawals += int(np.count_nonzero(b.kind == 1))
        sel = np.flatnonzero(b.kind != 1)
        if not len(sel):
            return
        self._path_cache.clear()
        groups = [self._group_of(g[1], g[2], g[4], g[5], g[10]) for g in b.groups]
        nets = b.networks()
        self._check([groups[k] for k in b.group[sel].tolist()], b.afi[sel], [nets[i] for i in sel.tolist()],
                    b.plen[sel], b.origin[sel])

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
        return self.findings.finish()

    def _pending_flush(self) -> None:
        routes, self._pending = self._pending, []
        if not routes:
            return
        self._path_cache.clear()
        groups = [self._group_of(r.time, r.usec, r.peer_ip, r.peer_as, r.attrs) for r in routes]
        self._check(groups, np.array([r.afi for r in routes], dtype=np.uint8), [r.network for r in routes],
                    np.array([r.plen for r in routes], dtype=np.int64),
                    np.array([_origin(g.path) for g in groups], dtype=np.int64))

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
    def _check(self, groups: list[_Group], afi: np.ndarray, nets: list[int], plen: np.ndarray,
               origin: np.ndarray) -> None:
        n = len(groups)
        origin = origin.astype(np.int64)
        empty = np.flatnonzero(origin == NO_PATH)  # no path: the peer originated it
        if len(empty):
            origin[empty] = [groups[i].peer[1] for i in empty.tolist()]
        plen = plen.astype(np.int64)
        status = np.full(n, STATES.index(NOT_FOUND), dtype=np.uint8)
        bogon = np.zeros(n, dtype=bool)
        for a, bits in _BITS.items():
            sel = np.flatnonzero(afi == a)
            if not len(sel):
                continue
            if a == 1:
                start = np.array([nets[i] for i in sel.tolist()], dtype=np.uint64)
            else:
                start = np.array([nets[i] >> 64 for i in sel.tolist()], dtype=np.uint64)
            status[sel] = self.vrps.validate_arrays(_VERSION[a], start, np.minimum(plen[sel], bits), origin[sel])
            bogon[sel] = prefix_mask(_VERSION[a], start, plen[sel])
        long6 = np.flatnonzero((afi == 2) & (plen > 64))
        for i in long6.tolist():  # IPv6 routes longer than /64: exactly, one at a time
            status[i] = STATES.index(self.vrps.validate(_network((6, nets[i], int(plen[i]))), int(origin[i])))
        self._tally(groups, origin, status)
        self._rows(groups, afi.tolist(), nets, plen.tolist(), origin.tolist(), status.tolist(), bogon.tolist())
        if len(self._aspa_cache) > 2_000_000:
            self._aspa_cache.clear()

    def _tally(self, groups: list[_Group], origin: np.ndarray, status: np.ndarray) -> None:
        """The counts of a batch, by array: states overall and per peer, routes and invalid routes
        per origin, ASPA verdicts."""
        t = self.tally
        t.routes += len(groups)
        for code, n in enumerate(np.bincount(status, minlength=len(STATES)).tolist()):
            t.rpki[STATES[code]] += n
        peers = {g.peer for g in groups}
        index = {p: i for i, p in enumerate(peers)}
        key = np.array([index[g.peer] for g in groups], dtype=np.int64) * len(STATES) + status
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
            t.aspa.update(Counter(g.aspa for g in groups if g.aspa))

    def _rows(self, groups, afis, nets, plens, origins, codes, bogons) -> None:
        emit, route_findings, reason = self.emit, self.findings.route, self._reason
        for g, a, net, pl, o, code, bogon in zip(groups, afis, nets, plens, origins, codes, bogons):
            state = STATES[code]
            where = (4 if a == 1 else 6, net, pl)
            why = reason(where, o, state) if state in (INVALID_ASN, INVALID_LENGTH) else _REASON[state]
            text = network_text(a, net, pl)
            kinds = route_findings(where, text, o, g.path, g.peer[0], bogon)
            emit(f'{g.head},{text},{g.path_csv},{"" if o == NONE else o},{state},"{why}",{g.aspa},{" ".join(kinds)}')

    def _reason(self, where: tuple[int, int, int], origin: int, state: str) -> str:
        key = (where, origin, state)
        text = self._reasons.get(key)
        if text is None:
            cover = self.vrps.covering(_network(where))
            who = "origin NONE (an AS_SET)" if origin == NONE else f"AS{origin}"
            if state == INVALID_LENGTH:
                best = max((v for v in cover if v.asn == origin), key=lambda v: v.max_length)
                text = f"/{where[2]} is longer than maxLength {best.max_length} of the VRP {best.prefix} AS{best.asn}"
            else:
                names = sorted({f"AS{v.asn}" for v in cover})
                shown = " ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                text = f"covered by VRPs of {shown} ({cover[0].prefix} the most specific); none for {who}"
            self._reasons[key] = text
            if len(self._reasons) > 1_000_000:
                self._reasons.clear()
        return text


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
    from ipaddress import IPv4Network, IPv6Network

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


def routes_of(paths: Iterable[str]) -> Iterator[Route]:
    """Every route of every file, in order: MRT, `bgpdump -m` text or pcap/pcapng, told by content."""
    from ..mrt.cli import reader_for

    for p in paths:
        yield from reader_for(p)(p)
