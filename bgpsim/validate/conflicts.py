"""MOAS and sub-prefix conflicts over a whole dump, worked out by sorting the distinct (prefix, origin)
rows of the routes.

- `Rows` keeps the distinct (prefix, origin + 1) rows as numpy arrays: each batch's rows are added,
  and made distinct (sorted, each row once) now and then and at the end. Memory follows the
  distinct prefixes and origins, not the routes.
- `find_conflicts` takes the sorted rows of one IP version: prefixes with several origins are MOAS
  (RFC 1930 section 7 allows it, but a hijack looks like it); a prefix whose origin is not among the
  origins of its nearest less specific prefix is a sub-prefix conflict. The default route
  (0.0.0.0/0, ::/0) is never the covering prefix: it covers every prefix and is nobody's. One pass of
  the compiled core over the rows (core/conflicts.c).
- `Subprefixes` keeps the sub-prefix findings, tens of thousands for a full table, as the
  findings.json lines the core wrote, dicts only when asked for.
"""

from __future__ import annotations

import json
from typing import Callable

import numpy as np

from bgpsim import _core


_NO_WORDS = np.zeros(0, dtype=np.uint64)
_NO_ROWS = np.zeros((0, 5), dtype=np.uint64)


class Rows:
    """Distinct (prefix, origin + 1) rows, origin + 1 being 0 for NONE. An IPv4 route whose origin
    + 1 fits in 26 bits (every ASN handed out so far, and more) is one word, address << 32 | length
    << 26 | origin + 1, which sorts as the row does: one 8-byte word per IPv4 row, sorted by numpy
    as plain integers. The others (IPv6, private 4-byte origins) are (version, hi, lo, length,
    origin + 1) rows."""

    def __init__(self):
        self.packed: list[np.ndarray] = []
        self.wide: list[np.ndarray] = []
        self._distinct = False  # one array of each form, sorted, no row twice

    def __len__(self) -> int:
        return sum(map(len, self.packed)) + sum(map(len, self.wide))

    def add(self, version, hi, lo, length, origin1) -> None:
        """Rows as columns: IP version, network address (upper and lower 64 bits; IPv4 in the lower),
        length, origin + 1."""
        version, origin1 = np.asarray(version), np.asarray(origin1, dtype=np.uint64)
        self._distinct = False
        short = (version == 4) & (origin1 < np.uint64(2**26))
        if short.all():
            self.packed.append((np.asarray(lo, dtype=np.uint64) << np.uint64(32))
                               | (np.asarray(length, dtype=np.uint64) << np.uint64(26)) | origin1)
            return
        sel = np.flatnonzero(short)
        if len(sel):
            self.add(version[sel], np.asarray(hi)[sel], np.asarray(lo)[sel], np.asarray(length)[sel], origin1[sel])
        sel = np.flatnonzero(~short)
        self.wide.append(np.column_stack([np.asarray(c, dtype=np.uint64)[sel] for c in (version, hi, lo, length, origin1)]))

    def distinct(self) -> None:
        """Sorted, each row once: one array of each form (either may be empty)."""
        if self._distinct:
            return
        p = np.sort(np.concatenate(self.packed + [_NO_WORDS]), kind="stable")  # parts often sorted already
        w = np.concatenate(self.wide + [_NO_ROWS])
        w = w[np.lexsort(w.T[::-1])]
        keep_p, keep_w = np.ones(len(p), dtype=bool), np.ones(len(w), dtype=bool)
        keep_p[1:] = p[1:] != p[:-1]
        keep_w[1:] = (w[1:] != w[:-1]).any(axis=1)
        self.packed, self.wide, self._distinct = [p[keep_p]], [w[keep_w]], True

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct rows: the packed words and the wide rows, each as one array."""
        self.distinct()
        return self.packed[0], self.wide[0]

    def columns(self, version: int) -> tuple:
        """(version, hi, lo, length, origin + 1) of the distinct rows of one IP version, sorted."""
        p, w = self.arrays()
        w = w[w[:, 0] == version]
        if version == 4:
            lo, length, origin1 = p >> np.uint64(32), (p >> np.uint64(26)) & np.uint64(63), p & np.uint64(2**26 - 1)
            if len(w):  # a wide row goes after the packed ones of its prefix: its origin is larger
                at = np.searchsorted(p, (w[:, 2] << np.uint64(32)) | (w[:, 3] << np.uint64(26)) | np.uint64(2**26 - 1),
                                     side="right")
                lo, length, origin1 = (np.insert(c, at, w[:, j]) for c, j in ((lo, 2), (length, 3), (origin1, 4)))
            return version, np.zeros(len(lo), dtype=np.uint64), lo, length, origin1
        return version, w[:, 1], w[:, 2], w[:, 3], w[:, 4]


def find_conflicts(version: int, hi: np.ndarray, lo: np.ndarray, length: np.ndarray,
                   origin: np.ndarray) -> tuple[list[dict], Subprefixes]:
    """MOAS and sub-prefix findings from the distinct (prefix, origin + 1) rows of one IP
    version as columns, sorted: each kind in address order (bgpsim._core.conflicts, core/conflicts.c)."""
    columns = (np.ascontiguousarray(c, dtype=np.uint64) for c in (hi, lo, length, origin))
    moas, text, n = _core.conflicts(version, *columns)
    return [{"kind": "moas", "prefix": t, "origins": o} for t, o in moas], Subprefixes(text, n)


class Subprefixes:
    """Sub-prefix findings in address order, kept as their lines of findings.json joined by ",\n"
    (a full table gives tens of thousands: written by the compiled core as texts of many lines, one
    per IP version, not joined until findings.json is). A finding becomes a dict only when asked for (indexing, iteration), the same
    dict each time: a key added to it, such as the scenario made of it, goes into its line."""

    SEPARATOR = ",\n"  # between two lines (a line of compact JSON holds no newline)

    def __init__(self, text: str = "", count: int = 0):
        self._texts = [text] if count else []  # each of `count` lines, joined by SEPARATOR
        self._count = count
        self._lines: list[str] | None = None  # the lines, once a finding is asked for
        self._made: dict[int, dict] = {}

    @classmethod
    def join(cls, parts: list[Subprefixes]) -> Subprefixes:
        """One after the other (parts whose findings were not handed out as dicts)."""
        out = cls()
        for p in parts:
            out._texts += p._texts
            out._count += p._count
        return out

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> dict:
        f = self._made.get(i)
        if f is None:
            if self._lines is None:
                self._lines = [line for t in self._texts for line in t.split(self.SEPARATOR)]
            f = self._made[i] = json.loads(self._lines[i])
        return f

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def lines(self, encode: Callable[[dict], str]) -> list[str]:
        """The findings.json lines, those of the dicts handed out written again by `encode`: as texts
        of many lines (joined by SEPARATOR) when none was."""
        if not self._made:
            return list(self._texts)
        out = list(self._lines)
        for i, f in self._made.items():
            out[i] = encode(f)
        return out
