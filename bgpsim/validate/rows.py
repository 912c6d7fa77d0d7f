"""The text of routes.csv: the prefixes and the joining of a batch's lines by the compiled core
(bgpsim._core.csv_rows, core/rows.c), the fields a group's routes share made here, once per group.

The routes of one UPDATE with one RPKI status share every field but the prefix: a line is the
group's head, the route's prefix, then the group's fields around the status (`rows`). A full table
costs a few Python operations per UPDATE, not per route.
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


def prefix_texts(version: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: np.ndarray) -> list[str]:
    """bgpsim.wire.nlri.network_text of each prefix given as arrays (as Prefixes)."""
    p = Prefixes(version, hi, lo, length)
    return _core.prefix_texts(p.afi, p.hi, p.lo, p.length)


def row_heads(time: np.ndarray, usec: np.ndarray, peer: np.ndarray, peers: list[bytes]) -> list[bytes]:
    """The first fields of routes.csv for each group: "time.usec,peer_ip,peer_as," (bgpdump's time
    with the microseconds of BGP4MP_ET, none where `usec` is negative), the peer's part from
    `peers` (peer[i] indexes it). Times of ten digits (September 2001 to 2286) are written by numpy;
    others one at a time."""
    t = np.asarray(time, dtype=np.int64)
    u = np.asarray(usec, dtype=np.int64)
    if not len(t) or t.min() < 10**9 or t.max() >= 10**10:
        texts = [(f"{a}.{b:06d}" if b >= 0 else f"{a}").encode() for a, b in zip(t.tolist(), u.tolist())]
    else:
        digits = np.zeros((len(t), 17), dtype=np.uint8)  # ten digits, a dot, six digits; zeros dropped
        for k in range(10):
            digits[:, 9 - k] = t // 10**k % 10 + 48
        has = u >= 0
        digits[has, 10] = ord(".")
        for k in range(6):
            digits[has, 16 - k] = u[has] // 10**k % 10 + 48
        texts = digits.view("S17").ravel().tolist()  # numpy drops the trailing zero bytes
    return [x + peers[p] for x, p in zip(texts, np.asarray(peer).tolist())]


def rows(prefixes: Prefixes, group: np.ndarray, status: np.ndarray, head: list[bytes], mid: list[bytes],
         state: list[bytes], tail: list[bytes], own: dict[int, bytes]) -> bytes:
    """The CSV lines of a batch: route i's is head[k] + its prefix + mid[k] + state[status[i]] +
    tail[k] for its group k = group[i], or head[k] + prefix + own[i] for the routes in `own`."""
    alone = sorted(own)
    return _core.csv_rows(np.ascontiguousarray(group, dtype=np.int64), np.ascontiguousarray(status, dtype=np.uint8),
                          prefixes.afi, prefixes.hi, prefixes.lo, prefixes.length, head, mid, state, tail,
                          np.array(alone, dtype=np.int64), [own[i] for i in alone])
