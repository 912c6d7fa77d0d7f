"""One streaming pass over route dumps: every announced route (BGP UPDATE announcement or RIB entry)
gets its RFC 6811 status through rpki.rov, its ASPA verdict through rpki.aspa_path when ASPA data
(or relationships standing in for it) is given, and its findings (bgpsim.validate.findings).

Routes go through in batches of BATCH: the prefixes and origins of a batch become arrays for
`VRPTable.validate_arrays`, then each route's row is written and forgotten, so memory stays flat as
the dump grows (what grows is one entry per distinct prefix and per distinct AS_PATH).

- Origin AS (RFC 6811 section 2): the last AS of the AS_PATH when its last segment is an
  AS_SEQUENCE; NONE when it is an AS_SET (such a route is never valid: invalid when covered); the
  peer's own AS when the path is empty.
- ASPA: collectors take full tables from their peers as a customer takes them from a provider, so
  paths are verified downstream (draft-ietf-sidrops-aspa-verification section 6.2).
"""

from __future__ import annotations

import socket
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from rpki.aspa_path import AspaTable
from rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID, VRPTable

from ..mrt.record import ANNOUNCE, RIB, STATE, WITHDRAW, Route
from ..wire.aspath import AS_SEQUENCE, AS_SET
from .findings import Findings

BATCH = 50_000
NONE = -1  # RFC 6811 origin NONE (an AS_SET last)
COLUMNS = ("time", "peer_ip", "peer_as", "prefix", "as_path", "origin_as", "rpki", "rpki_reason", "aspa",
           "findings")
_BITS = {4: 32, 6: 64}  # what VRPTable.validate_arrays compares


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


class Checker:
    """Feed it routes (`feed`), then `finish()`; each announced route's row goes to `emit`."""

    def __init__(self, vrps: VRPTable, emit: Callable[[tuple], None], aspa: AspaTable | None = None,
                 topo=None):
        self.vrps = vrps
        self.aspa = aspa
        self.emit = emit
        self.tally = Tally()
        self.findings = Findings(topo)
        self._batch: list[tuple] = []
        self._where: dict[str, tuple[int, int, int]] = {}
        self._reasons: dict[tuple[str, int, int], str] = {}
        self._aspa_cache: dict[tuple, str] = {}

    def feed_all(self, routes: Iterable[Route]) -> None:
        for r in routes:
            self.feed(r)

    def feed(self, r: Route) -> None:
        if r.kind == ANNOUNCE or r.kind == RIB:
            self._batch.append((r, self._prefix(r.prefix), _path(r)))
            if len(self._batch) >= BATCH:
                self._flush()
        elif r.kind == WITHDRAW:
            self.tally.withdrawals += 1
        elif r.kind == STATE:
            self.tally.state_changes += 1

    def finish(self) -> list[dict]:
        self._flush()
        return self.findings.finish()

    # ---- internals --------------------------------------------------------------------------------------
    def _prefix(self, text: str) -> tuple[int, int, int]:
        w = self._where.get(text)
        if w is None:
            addr, _, length = text.partition("/")
            v6 = ":" in addr
            start = int.from_bytes(socket.inet_pton(socket.AF_INET6 if v6 else socket.AF_INET, addr), "big")
            w = self._where[text] = (6 if v6 else 4, start, int(length))
            if len(self._where) > 4_000_000:  # bounded: a pathological dump of only distinct prefixes
                self._where.clear()
        return w

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        n = len(batch)
        origin = np.array([_origin(path, r.peer_as) for r, _, path in batch], dtype=np.int64)
        version = np.array([w[0] for _, w, _ in batch], dtype=np.int8)
        status = np.full(n, STATES.index(NOT_FOUND), dtype=np.uint8)
        for v, bits in _BITS.items():
            sel = np.flatnonzero(version == v)
            if not len(sel):
                continue
            shift = 128 - bits if v == 6 else 0
            start = np.array([batch[i][1][1] >> shift for i in sel.tolist()], dtype=np.uint64)
            length = np.array([min(batch[i][1][2], bits) for i in sel.tolist()], dtype=np.int64)
            status[sel] = self.vrps.validate_arrays(v, start, length, origin[sel])
        long6 = [i for i, (_, w, _) in enumerate(batch) if w[0] == 6 and w[2] > 64]
        for i in long6:  # IPv6 routes longer than /64: exactly, one at a time
            status[i] = STATES.index(self.vrps.validate(_network(batch[i][1]), int(origin[i])))
        t = self.tally
        for (r, w, path), o, s in zip(batch, origin.tolist(), status.tolist()):
            state = STATES[s]
            t.routes += 1
            t.rpki[state] += 1
            peer = t.by_peer.get((r.peer_ip, r.peer_as))
            if peer is None:
                peer = t.by_peer[(r.peer_ip, r.peer_as)] = Counter()
            peer[state] += 1
            peer["routes"] += 1
            t.routes_by_origin[o] += 1
            if state in (INVALID_ASN, INVALID_LENGTH):
                t.invalid_by_origin[o] += 1
            verdict = ""
            if self.aspa is not None:
                verdict = self._aspa_cache.get(path)
                if verdict is None:
                    verdict = self._aspa_cache[path] = self.aspa.verify(path, from_provider=True)
                t.aspa[verdict] += 1
            kinds = self.findings.route(r.prefix, w, o, path, r.peer_ip)
            self.emit((_time(r), r.peer_ip, r.peer_as, r.prefix, r.as_path_text, "" if o == NONE else o, state,
                       self._reason(r.prefix, w, o, state), verdict, " ".join(kinds)))
        if len(self._aspa_cache) > 2_000_000:
            self._aspa_cache.clear()

    def _reason(self, prefix: str, w: tuple[int, int, int], origin: int, state: str) -> str:
        if state == NOT_FOUND:
            return "no VRP covers the prefix"
        if state == VALID:
            return f"a VRP for AS{origin} covers it, within its maxLength"
        key = (prefix, origin, STATES.index(state))
        text = self._reasons.get(key)
        if text is None:
            cover = self.vrps.covering(_network(w))
            who = "origin NONE (an AS_SET)" if origin == NONE else f"AS{origin}"
            if state == INVALID_LENGTH:
                mine = [v for v in cover if v.asn == origin]
                best = max(mine, key=lambda v: v.max_length)
                text = (f"/{w[2]} is longer than maxLength {best.max_length} of the VRP "
                        f"{best.prefix} AS{best.asn}")
            else:
                names = sorted({f"AS{v.asn}" for v in cover})
                shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                text = f"covered by VRPs of {shown} ({cover[0].prefix} the most specific), none for {who}"
            self._reasons[key] = text
            if len(self._reasons) > 1_000_000:
                self._reasons.clear()
        return text


def _path(r: Route) -> tuple:
    """The AS_PATH as a flat tuple of ASNs, an AS_SET as a tuple inside it. Confederation segments
    are left out: they never leave the confederation (RFC 5065 section 5)."""
    out: list = []
    for kind, asns in r.as_path:
        if kind == AS_SEQUENCE:
            out.extend(asns)
        elif kind == AS_SET:
            out.append(tuple(asns))
    return tuple(out)


def _origin(path: tuple, peer_as: int) -> int:
    if not path:
        return peer_as
    last = path[-1]
    return last if isinstance(last, int) else NONE


def _network(w: tuple[int, int, int]):
    from ipaddress import IPv4Network, IPv6Network

    return (IPv4Network if w[0] == 4 else IPv6Network)((w[1], w[2]))


def _time(r: Route) -> str:
    return f"{r.time}.{r.usec:06d}" if r.usec is not None else str(r.time)


def routes_of(paths: Iterable[str]) -> Iterator[Route]:
    """Every route of every file, in order: MRT, `bgpdump -m` text or pcap/pcapng, told by content."""
    from ..mrt.cli import reader_for

    for p in paths:
        yield from reader_for(p)(p)
