"""The text of routes.csv: the lines of a batch written by the compiled core (bgpsim._core.csv_rows,
core/rows.c) from columns, and the texts many routes share made here once: per peer, per AS path,
per ASPA verdict and findings (`Groups`).

The routes of one UPDATE with one RPKI status share every field but the prefix: a line is the
group's time and peer, the route's prefix, then the group's fields around the status (`rows`).
"""

from __future__ import annotations

import numpy as np

from bgpsim import _core
from bgpsim.wire.nlri import network_text


def _afi(version: np.ndarray) -> np.ndarray:
    return np.where(np.asarray(version) == 4, 1, 2).astype(np.uint8)


class Prefixes:
    """The prefixes of a batch (IP version 4 or 6, the network address as its upper and lower 64
    bits, IPv4 in `lo`; length), each made text when asked for (bgpsim.wire.nlri.network_text): the
    examples of findings."""

    def __init__(self, version: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: np.ndarray):
        self.afi = _afi(version)
        self.hi = np.ascontiguousarray(hi, dtype=np.uint64)
        self.lo = np.ascontiguousarray(lo, dtype=np.uint64)
        self.length = np.ascontiguousarray(length, dtype=np.uint8)

    def __getitem__(self, i: int) -> str:
        return network_text(int(self.afi[i]), int(self.hi[i]) << 64 | int(self.lo[i]), int(self.length[i]))


def rows(prefixes: Prefixes, group: np.ndarray, status: np.ndarray, groups: "Groups", states: list[bytes],
         why: tuple[np.ndarray, list[bytes]], ends: dict[int, bytes]) -> bytes:
    """The CSV lines of a batch: route i of group k = group[i] is the group's time and peer fields, its
    prefix, then the group's fields around the status with states[status[i]] between; but the routes
    why[0] (increasing) have the status fields why[1], and the routes in `ends` their own line end
    (core/rows.c says how)."""
    at = sorted(ends)
    g = groups
    return _core.csv_rows(_i8(group), np.ascontiguousarray(status, dtype=np.uint8), prefixes.afi, prefixes.hi,
                          prefixes.lo, prefixes.length, _i8(g.time), _i8(g.usec), _i8(g.peer), _i8(g.post),
                          _i8(g.tail), g.peers, g.paths, states, g.tails, _i8(why[0]), why[1],
                          np.array(at, dtype=np.int64), [ends[i] for i in at])


def _i8(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


class Groups:
    """What the routes of each group of a batch share in their lines: the record's time and
    microseconds (-1: none), and indexes into the texts shared by many groups: `peers` (",peer_ip,peer_as,"
    of each peer), `paths` (a bgpsim._core.PathTable: ",as_path,origin_as," of each AS path, by slot)
    and `tails` (",aspa,findings\n")."""

    __slots__ = ("time", "usec", "peer", "post", "tail", "peers", "paths", "tails")

    def __init__(self, time, usec, peer, post, tail, peers: list[bytes], paths, tails: list[bytes]):
        self.time, self.usec, self.peer, self.post, self.tail = time, usec, peer, post, tail
        self.peers, self.paths, self.tails = peers, paths, tails
