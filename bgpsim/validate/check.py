"""One streaming pass over route dumps: every announced route (BGP UPDATE announcement or RIB entry)
gets its RFC 6811 status through rpki.rov, its ASPA verdict through rpki.aspa_path when ASPA data
(or relationships standing in for it) is given, and its findings (bgpsim.validate.findings).

Routes come in batches: MRT files through `MRTReader.batches` (numpy columns of what the compiled
core read; the routes of one UPDATE or RIB entry share one group: time, peer, attributes), other
inputs route by route, grouped here.
Each batch goes through two steps. `_prepare` does what needs no VRPs: what depends on the AS_PATH
once per distinct path (its CSV fields, origin and whether it can hold a finding, kept by the
compiled core's `PathTable`; its ASPA verdict and findings in Python, for the few that need them),
what a group's routes share as indexes into those texts (bgpsim.validate.rows.Groups), the
prefixes and origins handed to Findings as arrays. `check_batch` then sends the prefixes and origins to
`VRPTable.validate_arrays` at once, has the core write why each invalid route is invalid
(`VRPTable.reasons`), counts, and has the core write the batch's rows, which are forgotten, so
memory stays flat as the dump grows (what grows is one entry per distinct prefix and per
distinct AS_PATH). The VRPs may still be loading on a thread (bgpsim.validate.load.Loading):
prepared batches wait for them, in order, so the two overlap; and the dumps are read on a thread of
their own (bgpsim.validate.reading).

- Origin AS (RFC 6811 section 2): the last AS of the AS_PATH when its last segment is an
  AS_SEQUENCE; NONE when it is an AS_SET (such a route is never valid: invalid when covered); the
  speaker's own AS, here the peer's, when the path is empty or ends in a confederation segment. The
  same rule for every input (core/aspath.c path_origin, bgpsim.wire.attributes.origin_of).
- ASPA (draft-ietf-sidrops-aspa-verification-28 sections 5.5, 5.6): upstream or downstream by what
  the peer is to the collector (bgpsim.validate.roles); a path whose first AS is not the peer's is
  invalid (but from a route server), and so is an empty one. A path's verdicts both ways are worked
  out once; each route takes its peer's.
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from bgpsim.rpki.aspa_path import INVALID, UNKNOWN, VALID as ASPA_VALID, AspaTable
from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID, VRPTable

from bgpsim import _core
from bgpsim.base.ahead import SharedLock
from bgpsim.base.bogons import ASN_RANGES, prefix_mask
from bgpsim.mrt.record import ANNOUNCE, RIB, STATE, WITHDRAW, Peers, Route
from bgpsim.wire.aspath import path_of_words, path_words
from .findings import Findings, Found
from .paths import flat_path
from .roles import FROM_ROUTE_SERVER, UNPLACED, UPSTREAM, PeerRoles
from .rows import Groups, Prefixes, rows
from .tally import Tally

BATCH = 65_536
MAX_PATHS = 1_000_000  # distinct AS_PATHs held before the table starts again
NONE = -1  # RFC 6811 origin NONE (an AS_SET last)
NO_PATH = -2  # the readers' mark for a route whose origin is the speaker's own (bgpsim.wire.attributes)
COLUMNS = ("time", "peer_ip", "peer_as", "prefix", "as_path", "origin_as", "rpki", "rpki_reason", "aspa",
           "findings")
BGPSEC_COLUMNS = ("bgpsec", "bgpsec_reason")  # after COLUMNS, with a Checker's `bgpsec` (--router-keys)
_BITS = {1: 32, 2: 64}  # AFI -> what VRPTable.validate_arrays compares
_VERSION = {1: 4, 2: 6}
_REASON = {VALID: "a VRP for the origin covers it, within its maxLength", NOT_FOUND: "no VRP covers the prefix"}
_STATE_TEXT = [f'{s},"{_REASON.get(s, "")}"'.encode() for s in STATES]  # the status and reason fields
# the special-purpose AS numbers (bgpsim.base.bogons) and the flags bgpsim._core.PathTable gives a path
_SPECIAL = tuple(np.array([r[k] for r in ASN_RANGES], dtype=np.uint32) for k in (0, 1))
_NOTHING = _core.PathTable.NOTHING
_VERDICTS = ("", ASPA_VALID, INVALID, UNKNOWN)  # ASPA verdicts by code; 0: none
_CODE = {v: k for k, v in enumerate(_VERDICTS)}
_NO_AS = -1  # no first AS to compare: an empty path, or an AS_SET first (invalid anyway)
_JUDGED = _core.PathTable.HAS_SET | _core.PathTable.SUSPECT  # a path that may hold a finding


@dataclass(slots=True)
class _Batch:
    """A batch of announced routes, ready to be checked: Checker._prepare's answer. Route i is in
    group gidx[i], from peer peer[i] (Checker._peers); its CSV line is made of its group's fields
    (`groups`, bgpsim.validate.rows.Groups) and its prefix and status, but for bogons[i], the tail of
    a route in a special-purpose prefix; `aspa` counts the ASPA verdicts. The routes with a
    BGPsec_PATH have their BGPsec fields and the line's end in `signed` (Checker.bgpsec); `origins`
    counts the routes of each origin AS."""

    gidx: np.ndarray
    peer: np.ndarray
    afi: np.ndarray
    hi: np.ndarray
    lo: np.ndarray
    plen: np.ndarray
    origin: np.ndarray
    prefixes: Prefixes  # each route's prefix as text
    groups: Groups
    bogons: dict[int, bytes]  # the tail of a route in a special-purpose prefix
    aspa: Counter
    origins: tuple[np.ndarray, np.ndarray]  # routes per origin AS: (origins, counts), an origin maybe twice
    signed: dict[int, bytes] = field(default_factory=dict)  # route -> ",bgpsec,bgpsec_reason\n"


class Checker:
    """Feed it MRT batches (`feed_batch`) or routes (`feed`), then `finish()`; the CSV lines of the
    announced routes go to `write(lines)` as bytes, a batch at a time.

    With `bgpsec` (a bgpsim.validate.bgpsec.RouteVerdicts) each row ends with the BGPSEC_COLUMNS: the
    routes that carry a BGPsec_PATH are verified as they are fed, every other is `unsigned`, a field
    of its group's like the ASPA verdict. The reader marks the groups with a BGPsec_PATH
    (RouteBatch.bgpsec_groups), so a batch costs a look at those records' attributes; without
    `bgpsec`, nothing."""

    def __init__(self, vrps, write: Callable[[bytes], None], aspa: AspaTable | None = None, topo=None,
                 bgpsec=None, roles: PeerRoles | None = None):
        """`vrps`: a VRPTable, or something that will give one (`poll()`: the table, or None while it
        is not there yet; `wait()`: the table), e.g. a table being read on a thread (load.Loading):
        batches are prepared and put aside until it comes."""
        self.vrps: VRPTable | None = vrps if isinstance(vrps, VRPTable) else None
        self._source = None if self.vrps is not None else vrps
        self.aspa = aspa
        self.roles = roles or PeerRoles()
        self._modes = np.zeros(0, dtype=np.int8)  # by peer (Checker._peers): roles' mode
        self.write = write
        self.tally = Tally()
        self.findings = Findings(topo)
        self._pending: list[Route] = []
        self._waiting: list[_Batch] = []  # batches read before the VRPs came, in order
        # where prepared batches go, if not checked here: a thread of their own (bgpsim.validate.reading)
        self.checks = None
        self._table_lock = SharedLock()  # the path table: grown here, read by the core without the GIL
        self._paths = _core.PathTable(*_SPECIAL)  # every AS_PATH met: its slot, routes.csv fields, origin, flags
        # slot -> (ASPA verdict downstream, upstream, the first AS, path to judge): _decide
        self._decided: dict[int, tuple[int, int, int, tuple | None]] = {}
        self._marked = np.zeros(0, dtype=bool)  # by slot: in _decided
        self._tails: dict[tuple[str, str], bytes] = {}  # (ASPA verdict, finding kinds) -> the line's end
        self._peers = Peers()
        self._fields: list[bytes] = []  # _peer_fields
        self.bgpsec = bgpsec
        self._end = b"\n"  # what ends a line after the findings
        if bgpsec is not None:
            from .bgpsec import UNSIGNED_FIELDS, BgpsecTally

            self.tally.bgpsec = BgpsecTally()
            self._end = UNSIGNED_FIELDS + b"\n"

    def _ready(self, block: bool) -> bool:
        """Whether the VRPs are there (waiting for them if `block`); batches put aside go first."""
        if self.vrps is None:
            self.vrps = self._source.wait() if block else self._source.poll()
            if self.vrps is None:
                return False
        waiting, self._waiting = self._waiting, []
        for batch in waiting:
            self.check_batch(batch)
        return True

    def vrps_or_their_fault(self) -> VRPTable:
        """The VRPs, waited for where they are still being read (which raises their fault if they have one)."""
        if self.vrps is None:
            self.vrps = self._source.wait()
        return self.vrps

    # ---- input ----------------------------------------------------------------------------------------
    def feed_batch(self, b) -> None:
        """A bgpsim.mrt.RouteBatch."""
        self._pending_flush()
        self.tally.withdrawals += int(np.count_nonzero(b.kind == 1))
        sel = np.flatnonzero(b.kind != 1)
        if not len(sel):
            return
        group = b.group[sel]  # the reader numbers groups in route order: a new group where it changes
        cut = np.empty(len(group), dtype=bool)
        cut[0] = True
        np.not_equal(group[1:], group[:-1], out=cut[1:])
        used, gidx = group[cut], np.cumsum(cut) - 1
        first = b.first[used]
        peers = np.array([self._peers.number(*p) for p in b.peers], dtype=np.int64)[b.peer[first]]
        slots, gslot = _distinct(b.gpath[used] + 1, len(b.paths) + 1)  # -1: no path
        slots -= 1
        paths = [b.paths[j] if j >= 0 else b"" for j in slots.tolist()]
        batch = self._prepare(b.time[first], b.gusec[used], peers, gslot.reshape(-1), paths, gidx.reshape(-1),
                              b.afi[sel], b.hi[sel], b.lo[sel], b.plen[sel], b.origin[sel])
        if self.bgpsec is not None:
            batch.signed = self._signed_batch(b, sel)
        self._submit(batch)

    def _submit(self, batch: _Batch) -> None:
        """A prepared batch checked, here or by `checks`, after those before it."""
        if self.checks is not None:
            self.checks.put(batch)
        elif self._ready(block=False):
            self.check_batch(batch)
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

    def drain(self) -> None:
        """Checks whatever was fed and not checked yet (waiting for the VRPs if it must)."""
        self._pending_flush()
        if self.checks is not None:
            self.checks.settle()
        self._ready(block=True)

    def finish(self) -> Found:
        """Every finding, once every route fed is checked. The findings are the prepared batches':
        they are worked out while the last checks run, if `checks` runs them."""
        self._pending_flush()
        found = self.findings.finish()
        self.drain()
        return found

    def _pending_flush(self) -> None:
        routes, self._pending = self._pending, []
        if not routes:
            return
        slot_of: dict[int, int] = {}
        paths, gslot = [], []
        for r in routes:  # the routes of one UPDATE share their attributes
            attrs = r.attrs
            slot = slot_of.get(id(attrs))
            if slot is None:
                slot = slot_of[id(attrs)] = len(paths)
                paths.append(path_words(attrs.as_path) if attrs is not None else b"")
            gslot.append(slot)
        peers = np.array([self._peers.number(r.peer_ip, r.peer_as) for r in routes], dtype=np.int64)
        nets = [r.network for r in routes]
        batch = self._prepare(np.array([r.time for r in routes], dtype=np.int64),
                              np.array([-1 if r.usec is None else r.usec for r in routes], dtype=np.int64), peers,
                              np.array(gslot, dtype=np.int64), paths, np.arange(len(routes)),
                              np.array([r.afi for r in routes], dtype=np.uint8),
                              np.array([n >> 64 for n in nets], dtype=np.uint64),
                              np.array([n & 0xFFFF_FFFF_FFFF_FFFF for n in nets], dtype=np.uint64),
                              np.array([r.plen for r in routes], dtype=np.int64))
        if self.bgpsec is not None:
            batch.signed = self._signed(routes, range(len(routes)))
        self._submit(batch)

    def _signed_batch(self, b, sel: np.ndarray) -> dict[int, bytes]:
        """The BGPsec fields of the routes of RouteBatch `b` (announced ones: `sel`) with a BGPsec_PATH."""
        groups = b.bgpsec_groups()
        if not groups:
            return {}
        at = np.flatnonzero(np.isin(b.group[sel], np.array(groups, dtype=b.group.dtype)))
        return self._signed([b.route(i) for i in sel[at].tolist()], at.tolist())

    def _signed(self, routes, at) -> dict[int, bytes]:
        """{at[j]: the BGPsec fields of routes[j]} for those of the routes that carry a BGPsec_PATH."""
        field, tally = self.bgpsec.field, self.tally.bgpsec
        return {i: field(r, tally) for i, r in zip(at, routes)
                if r.attrs is not None and r.attrs.bgpsec is not None}

    def _peer_fields(self) -> list[bytes]:
        """",peer_ip,peer_as," of each peer (Checker._peers), for the rows."""
        fields = self._fields
        fields += [f",{ip},{asn},".encode() for ip, asn in self._peers[len(fields):]]
        return fields

    def _decide(self, slot: int, words: bytes, flags: int) -> None:
        """What Python makes of a path the table has just added (`flags`: the core's): its ASPA verdicts
        downstream and upstream and its first AS (each route takes its peer's: _verdicts), and the path
        as ASNs (an AS_SET as a tuple inside) if it is to be judged. Kept by slot for
        the few paths that have either: without ASPA data or relationships, only a path the core
        flags is judged, and no other is made Python objects."""
        judge = not flags & _NOTHING and (flags & _JUDGED or self.findings.topo is not None)
        if not judge and (self.aspa is None or (flags & _NOTHING and words)):  # no AS but a confederation's
            return
        flat = flat_path(path_of_words(words))
        down = up = 0
        first = _NO_AS
        if self.aspa is not None:
            down = up = _CODE[INVALID]  # an empty path (eBGP: the collector is not the peer's AS)
            if flat:
                down = _CODE[self.aspa.verify(flat, from_provider=True)]
                up = _CODE[self.aspa.verify(flat, from_provider=False)]
                first = flat[0] if isinstance(flat[0], int) else _NO_AS
        self._decided[slot] = (down, up, first, flat if judge else None)
        self._marked[slot] = True

    def _verdicts(self, slots: np.ndarray, decided: list[int], gslot: np.ndarray, peers: np.ndarray):
        """Each group's ASPA verdict (a code of _VERDICTS) by its path and peer, and which groups'
        peers have no known role (verified downstream)."""
        ng = len(gslot)
        if self.aspa is None:
            return np.zeros(ng, dtype=np.int8), np.zeros(ng, dtype=bool)
        npaths = len(slots)
        down, up = np.zeros(npaths, dtype=np.int8), np.zeros(npaths, dtype=np.int8)
        first = np.full(npaths, _NO_AS, dtype=np.int64)
        for i in decided:
            down[i], up[i], first[i] = self._decided[int(slots[i])][:3]
        if len(self._modes) < len(self._peers):  # peers met since: their modes
            self._modes = np.concatenate([self._modes, np.array(
                [self.roles.mode(asn) for _, asn in self._peers[len(self._modes):]], dtype=np.int8)])
        mode = self._modes[peers]
        peer_as = np.array([asn for _, asn in self._peers], dtype=np.int64)[peers]
        verdict = np.where((mode == UPSTREAM) | (mode == FROM_ROUTE_SERVER), up[gslot], down[gslot])
        stranger = (verdict > 0) & (mode != FROM_ROUTE_SERVER) & (first[gslot] != _NO_AS) & (first[gslot] != peer_as)
        verdict[stranger] = _CODE[INVALID]  # the first AS is not the neighbour's (sections 5.5, 5.6 step 2)
        return verdict.astype(np.int8), (mode == UNPLACED) & (verdict > 0)

    # ---- the checks ---------------------------------------------------------------------------------------
    def _prepare(self, time: np.ndarray, usec: np.ndarray, peers: np.ndarray, gslot: np.ndarray, paths: list[bytes],
                 gidx: np.ndarray, afi: np.ndarray, hi: np.ndarray, lo: np.ndarray, plen: np.ndarray,
                 origin: np.ndarray | None = None) -> _Batch:
        """What a batch's checks need that does not depend on the VRPs (done while they may still be
        loading). Route i is in group gidx[i]; group k's record time is time[k] (usec[k] its
        microseconds, or -1), its peer peers[k] and its AS_PATH paths[gslot[k]] (the core's words);
        the route's network is (hi << 64) | lo (IPv4 in lo), its origin AS origin[i] (the reader's;
        None: the path's). The findings of the batch are recorded here: each path decided on is
        judged with its first route as the example."""
        n = len(gidx)
        table = self._paths
        if len(table) > MAX_PATHS:  # memory stays bounded however many paths the dumps hold
            self.drain()  # the batches in flight name slots of the table: checked first
            with self._table_lock.alone():
                table.clear()
            self._decided.clear()
            self._marked[:] = False
        with self._table_lock.alone():
            slots, flags, porigin, new = table.add(paths)
        slots, flags = np.frombuffer(slots, dtype=np.int64), np.frombuffer(flags, dtype=np.uint8)
        porigin = np.frombuffer(porigin, dtype=np.int64)
        if len(self._marked) < len(table):
            self._marked = np.concatenate([self._marked, np.zeros(len(table) + len(self._marked), dtype=bool)])
        if self.findings.topo is None and self.aspa is None:  # most paths: nothing to judge, nothing to verify
            new = [new[j] for j in np.flatnonzero(flags[new] & _JUDGED).tolist()]
        for i in new:
            self._decide(int(slots[i]), paths[i], int(flags[i]))
        rslot = gslot[gidx]
        origin = (porigin[rslot] if origin is None else origin).astype(np.int64)
        rpeer = peers[gidx]
        empty = np.flatnonzero(origin == NO_PATH)  # no path, or a confederation's: the peer originated it
        if len(empty):
            origin[empty] = np.array([asn for _, asn in self._peers], dtype=np.int64)[rpeer[empty]]
        plen = plen.astype(np.int64)
        version = np.where(afi == 1, 4, 6).astype(np.uint8)
        findings = self.findings
        findings.prefixes(version, hi, lo, plen, origin)
        texts = Prefixes(version, hi, lo, plen)
        routes = np.bincount(rslot, minlength=len(paths))  # each path's routes
        # the paths decided on: their verdicts, findings (the first route the example) and line ends
        decided = np.flatnonzero(self._marked[slots]).tolist()
        judged = [i for i in decided if self._decided[int(slots[i])][3] is not None]
        kinds = {}
        if judged:
            first = np.full(len(paths), n, dtype=np.int64)
            np.minimum.at(first, rslot, np.arange(n))
            found = findings.paths([self._decided[int(slots[i])][3] for i in judged],
                                   lambda j: (texts[int(first[judged[j]])], self._peers[int(rpeer[first[judged[j]]])][0]),
                                   routes[judged].tolist())
            kinds = {i: " ".join(k) for i, k in zip(judged, found)}
        verdict, unplaced = self._verdicts(slots, decided, gslot, peers)  # per group
        kind = np.zeros(len(paths), dtype=np.int64)  # per path: its findings' index in `kinds_of`
        kinds_of = [""] + sorted(set(kinds.values()))
        for i, k in kinds.items():
            kind[i] = kinds_of.index(k)
        key = verdict.astype(np.int64) * len(kinds_of) + kind[gslot]
        keys, gtail = _distinct(key, len(_VERDICTS) * len(kinds_of))
        end, made = self._end, self._tails
        tails = []
        for x in keys.tolist():
            k = (_VERDICTS[x // len(kinds_of)], kinds_of[x % len(kinds_of)])
            tails.append(made.setdefault(k, f",{k[0]},{k[1]}".encode() + end))
        # the routes of a path share its fields around the status, but for routes whose origin is
        # their peer's (an empty path, or one ending in a confederation segment)
        gpost = slots[gslot]
        own = np.flatnonzero(porigin[gslot] == NO_PATH)  # their groups
        if len(own):
            gorigin = np.zeros(len(gslot), dtype=np.int64)
            gorigin[gidx] = origin
            gpost = gpost.copy()
            with self._table_lock.alone():
                gpost[own] = np.frombuffer(table.own(gpost[own], gorigin[own]), dtype=np.int64)
        groups = Groups(time, usec, peers, gpost, gtail.reshape(-1).astype(np.int64), self._peer_fields(), table, tails)
        bogon = np.zeros(n, dtype=bool)
        for a in _BITS:
            sel = np.flatnonzero(afi == a)
            if len(sel):
                bogon[sel] = prefix_mask(_VERSION[a], (lo if a == 1 else hi)[sel].astype(np.uint64), plen[sel])
        bogons = {}
        for i in np.flatnonzero(bogon).tolist():
            v, net = int(version[i]), (int(hi[i]) << 64) | int(lo[i])
            findings.bogon_route((v, net, int(plen[i])), texts[i], int(origin[i]))
            k, g = int(rslot[i]), int(gidx[i])
            bogons[i] = f",{_VERDICTS[verdict[g]]},{kinds[k] + ' ' if kinds.get(k) else ''}bogon-prefix".encode() + end
        aspa = Counter()
        if self.aspa is not None:
            groutes = np.bincount(gidx, minlength=len(gslot))
            for code, count in enumerate(np.bincount(verdict, weights=groutes, minlength=len(_VERDICTS)).tolist()):
                if code and count:
                    aspa[_VERDICTS[code]] += int(count)
            if int(groutes[unplaced].sum()):
                aspa["unplaced"] += int(groutes[unplaced].sum())
        # routes per origin: by path (a path's routes share its origin), but for the peers' own
        by_path = porigin != NO_PATH
        origins = (np.concatenate([porigin[by_path], origin[empty]]),
                   np.concatenate([routes[by_path], np.ones(len(empty), dtype=np.int64)]))
        return _Batch(gidx, rpeer, afi, hi, lo, plen, origin, texts, groups, bogons, aspa, origins)

    def check_batch(self, b: _Batch) -> None:
        """A prepared batch against the VRPs: RFC 6811 status, the counts, each route's CSV line."""
        self.commit(b, *self.checked(b))

    def checked(self, b: _Batch) -> tuple[np.ndarray, np.ndarray, bytes]:
        """A prepared batch's RFC 6811 status, which routes are invalid, and its routes.csv lines:
        what may be worked out for two batches at once (bgpsim.validate.reading.Checks)."""
        status = np.full(len(b.gidx), STATES.index(NOT_FOUND), dtype=np.uint8)
        for a, bits in _BITS.items():
            sel = np.flatnonzero(b.afi == a)
            if len(sel):
                start = (b.lo if a == 1 else b.hi)[sel].astype(np.uint64)
                status[sel] = self.vrps.validate_arrays(_VERSION[a], start, np.minimum(b.plen[sel], bits), b.origin[sel])
        long6 = np.flatnonzero((b.afi == 2) & (b.plen > 64))
        for i in long6.tolist():  # IPv6 routes longer than /64: exactly, one at a time
            net = (int(b.hi[i]) << 64) | int(b.lo[i])
            status[i] = STATES.index(self.vrps.validate(_network((6, net, int(b.plen[i]))), int(b.origin[i])))
        invalid = (status == STATES.index(INVALID_ASN)) | (status == STATES.index(INVALID_LENGTH))
        whys = self._reasons_of(b, np.flatnonzero(invalid), status)
        ends = {}  # a bogon's finding, a BGPsec verdict
        signed, cut, g = b.signed, -len(self._end), b.groups
        for i in b.bogons.keys() | signed.keys():
            tail = b.bogons[i] if i in b.bogons else g.tails[g.tail[b.gidx[i]]]
            ends[i] = tail[:cut] + signed[i] if i in signed else tail
        with self._table_lock.shared():
            lines = rows(b.prefixes, b.gidx, status, g, _STATE_TEXT, whys, ends)
        return status, invalid, lines

    def commit(self, b: _Batch, status: np.ndarray, invalid: np.ndarray, lines: bytes) -> None:
        """A checked batch counted and its lines written: in the order the batches were fed."""
        self._tally(b, status, invalid)
        self.write(lines)

    def _tally(self, b: _Batch, status: np.ndarray, invalid: np.ndarray) -> None:
        """The counts of a batch, by array: states overall and per peer, routes and invalid routes
        per origin, ASPA verdicts (`invalid`: the routes whose status is an invalid one)."""
        t = self.tally
        t.routes += len(status)
        for code, n in enumerate(np.bincount(status, minlength=len(STATES)).tolist()):
            t.rpki[STATES[code]] += n
        counts = np.bincount(b.peer * len(STATES) + status, minlength=len(self._peers) * len(STATES))
        counts = counts.reshape(-1, len(STATES))  # peers are numbered from 0 (Checker._peers)
        used = np.flatnonzero(counts.any(axis=1))
        for p, row in zip(used.tolist(), counts[used].tolist()):
            c = t.by_peer.get(self._peers[p])
            if c is None:
                c = t.by_peer[self._peers[p]] = Counter()
            for code, n in enumerate(row):
                c[STATES[code]] += n
            c["routes"] += sum(row)
        t.routes_by_origin.add(*b.origins)
        bad = b.origin[invalid]
        t.invalid_by_origin.update(dict(zip(*(a.tolist() for a in np.unique(bad, return_counts=True)))))
        t.aspa.update(b.aspa)

    def _reasons_of(self, b: _Batch, idx: np.ndarray, status: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
        """The status and reason fields of each invalid route `idx` (increasing) of a batch (rpki.rov
        VRPTable.reasons), as (routes, fields) in route order; an IPv6 route longer than /64, one at
        a time."""
        at, out = [], []
        for afi, bits in _BITS.items():
            sel = idx[(b.afi[idx] == afi) & (b.plen[idx] <= bits)]
            if len(sel):
                start = (b.lo if afi == 1 else b.hi)[sel].astype(np.uint64)
                at.append(sel)
                out += self.vrps.reasons(_VERSION[afi], start, b.plen[sel], b.origin[sel], status[sel])
        long6 = idx[(b.afi[idx] == 2) & (b.plen[idx] > 64)]
        for i in long6.tolist():
            net = (int(b.hi[i]) << 64) | int(b.lo[i])
            out.append(self.vrps.reason(_network((6, net, int(b.plen[i]))), int(b.origin[i]), int(status[i])))
        at = np.concatenate(at + [long6])
        if len(at) and not (at[1:] > at[:-1]).all():  # IPv4 and IPv6 routes mixed
            order = np.argsort(at, kind="stable")
            at, out = at[order], [out[k] for k in order.tolist()]
        return at, out


def _distinct(values: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_inverse=True) for integers 0 <= v < top, by a table, not a sort."""
    seen = np.zeros(top, dtype=bool)
    seen[values] = True
    return np.flatnonzero(seen), (np.cumsum(seen) - 1)[values]


def _network(w: tuple[int, int, int]):
    return (IPv4Network if w[0] == 4 else IPv6Network)((w[1], w[2]))
