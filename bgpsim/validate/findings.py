"""What looks wrong in a dump besides RPKI status: the findings of `bgpsim validate`.

Per path (each distinct AS_PATH is judged once):
- `loop`: an AS appears twice, apart (prepending is not a loop);
- `private-asn`: a private AS (RFC 6996) in the path, which should have been stripped at the edge;
- `bogon-asn`: a reserved, documentation or AS_TRANS number in the path (bgpsim.bogons);
- `leak`: with CAIDA relationships, a path that is not valley-free (Gao-Rexford): after going down
  (provider to customer) or across (a peering) it goes up or across again. The leaker is the AS that
  sent the route on the wrong way. Links missing from the graph give no verdict.
Per prefix:
- `bogon-prefix`: a special-purpose prefix (bgpsim.bogons).
Over the whole dump (after the pass):
- `moas`: one prefix announced with more than one origin AS (RFC 1930 section 7 allows it, but a
  hijack looks like it);
- `subprefix`: a prefix whose origin is not among the origins of the nearest less specific prefix
  announced in the same dump: what a sub-prefix hijack looks like (and what many legitimate
  customer more-specifics look like too; the finding says which ASes, the reader judges). The
  default route (0.0.0.0/0, ::/0) is never the covering prefix: it covers every prefix and is
  nobody's, and one peer leaking it would make the whole table sub-prefix findings.
  Both come from sorting: each batch's distinct (prefix, origin) rows are kept as a numpy array
  (merged now and then), and `finish` finds the prefixes with several origins, each prefix's
  nearest less specific one (rpki.rov.nest) and the origins missing from it, by arrays. A full
  table gives tens of thousands of sub-prefix findings: they stay columns (`Subprefixes`), dicts
  only when asked for, and findings.json writes them from the columns.

`finish` gives them all (`Found`) by kind, in KINDS order; prefix findings in address order, path
findings in the order of their path text.
"""

from __future__ import annotations

import json
from ipaddress import IPv4Network, IPv6Network
from itertools import chain
from operator import itemgetter
from typing import Callable

import numpy as np

from bgpsim.rpki.rov import nest

from .bogons import asn_kind, asn_kinds, prefix_kind
from bgpsim.sim.policy import CUSTOMER, PEER, PROVIDER
from .rows import prefix_texts

PRIVATE = "private"
KINDS = ("moas", "subprefix", "bogon-prefix", "bogon-asn", "private-asn", "loop", "leak")
PATH_KINDS = ("bogon-asn", "private-asn", "loop", "leak")  # findings about an AS_PATH; the rest about a prefix


class Findings:
    """Accumulates findings over a pass. Per batch of routes: `prefixes()` records each route's
    prefix and origin as arrays (kept as distinct rows, so memory grows with the distinct prefixes,
    not the routes), `paths()` judges each distinct AS_PATH once and counts its routes,
    `bogon_route()` the rare route in a special-purpose prefix. `finish()` works out MOAS and
    sub-prefix conflicts from the distinct (prefix, origin) rows by sorting."""

    def __init__(self, topo=None):
        self.topo = topo
        self._paths: dict[tuple, tuple[str, ...]] = {}
        self._asn_kinds: dict[int, tuple[str, str] | None] = {}
        self.per_path: dict[tuple[str, tuple], dict] = {}  # (kind, path) -> finding
        self.per_prefix: dict[tuple[int, int, int], dict] = {}
        self._rows = Rows()  # each distinct (prefix, origin)
        self._pending = 0  # rows added since the last merge
        self._merged = 0  # rows after the last merge
        # where in the input each finding was first seen: the unit of work (bgpsim.validate.split),
        # set by whoever feeds the batches, so that findings of two processes merge as one's
        self.unit = 0
        self._first: dict = {}  # (kind, path) or (where, origin) -> unit
        self._kept = 0  # which halves of the address spaces the rows are of (half()): 0 lower or all, 1 upper

    # ---- per batch --------------------------------------------------------------------------------
    def prefixes(self, version: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: np.ndarray,
                 origin: np.ndarray) -> None:
        """Routes announced: IP version (4 or 6), the network address as its upper and lower 64 bits
        (IPv4 in `lo`), prefix length, origin AS (negative: NONE, which counts as no origin)."""
        if not len(version):
            return
        self._rows.add(version, hi, lo, length, np.maximum(np.asarray(origin, dtype=np.int64), -1) + 1)
        self._pending += len(version)  # made distinct when a million more have come, and at the end
        if self._pending > max(1_000_000, self._merged):
            self._merge()

    def _merge(self) -> Rows:
        self._rows.distinct()
        self._merged, self._pending = len(self._rows), 0
        return self._rows

    def paths(self, paths: list[tuple], example: Callable[[int], tuple[str, str]], routes: list[int],
              plain: list[bool]) -> list[tuple[str, ...]]:
        """The finding kinds of each of the distinct AS_PATHs `paths` (ASNs, an AS_SET as a tuple
        inside) taken by routes[i] routes; example(i) is the (prefix, peer IP) of path i's first route,
        a finding's example; plain[i] says whether path i holds no AS_SET. A path is judged
        once: those not seen before are screened by arrays (a special-purpose AS, an AS twice apart),
        and only the ones that show something, hold an AS_SET or need the leak check are judged one
        by one."""
        judged = self._paths
        out = [judged.get(p) for p in paths]
        new = [i for i, k in enumerate(out) if k is None]
        if new:
            suspects = new
            if self.topo is None:
                simple = [i for i in new if plain[i]]
                clean = [simple[j] for j in self._screen([paths[i] for i in simple])]
                judged.update(dict.fromkeys([paths[i] for i in clean], ()))
                for i in clean:
                    out[i] = ()
                suspects = [i for i in new if out[i] is None]
            for i in suspects:
                p = paths[i]
                k = judged.get(p)  # a path twice in `paths`
                if k is None:
                    k = judged[p] = self._judge(p, *example(i))
                out[i] = k
        per_path = self.per_path
        for i in [i for i, kinds in enumerate(out) if kinds]:
            for k in out[i]:
                per_path[(k, paths[i])]["routes"] += routes[i]
        return out

    @staticmethod
    def _screen(paths: list[tuple]) -> list[int]:
        """Of plain AS_SEQUENCEs, those (positions in `paths`) with no special-purpose AS and no AS
        twice apart: nothing to find."""
        lens = np.fromiter(map(len, paths), dtype=np.int64, count=len(paths))
        flat = np.fromiter(chain.from_iterable(paths), dtype=np.int64, count=int(lens.sum()))
        pid = np.repeat(np.arange(len(lens)), lens)
        odd = np.zeros(len(lens), dtype=bool)
        odd[pid[asn_kinds(flat) != 0]] = True
        keep = np.ones(len(flat), dtype=bool)  # prepending collapsed: an AS repeated next to itself
        keep[1:] = (flat[1:] != flat[:-1]) | (pid[1:] != pid[:-1])
        f, p = flat[keep], pid[keep]
        order = np.lexsort((f, p))
        f, p = f[order], p[order]
        odd[p[1:][(f[1:] == f[:-1]) & (p[1:] == p[:-1])]] = True
        return np.flatnonzero(~odd).tolist()

    def bogon_route(self, where: tuple[int, int, int], text: str, origin: int) -> None:
        """A route in a special-purpose prefix (bgpsim.bogons.prefix_mask): `where` is (IP version,
        network as an integer, length), `text` the prefix as text."""
        f = self.per_prefix.get(where)
        if f is None:
            f = self.per_prefix[where] = {"kind": "bogon-prefix", "prefix": text,
                                          "why": prefix_kind(_net(where)), "routes": 0, "origins": []}
        f["routes"] += 1
        if origin >= 0 and origin not in f["origins"]:
            f["origins"].append(origin)
            self._first[(where, origin)] = self.unit

    def _asn_kind(self, asn: int):
        kind = self._asn_kinds.get(asn, False)
        if kind is False:
            kind = self._asn_kinds[asn] = asn_kind(asn)
        return kind

    def _judge(self, path: tuple, prefix: str, peer: str) -> tuple[str, ...]:
        seq = [a for a in path if isinstance(a, int)]
        flat = list(seq)
        if len(seq) < len(path):
            for s in path:
                if not isinstance(s, int):
                    flat.extend(s)
        found = []
        collapsed = [a for i, a in enumerate(seq) if i == 0 or a != seq[i - 1]]  # prepending removed
        if len(set(collapsed)) < len(collapsed):
            repeated = sorted({a for a in collapsed if collapsed.count(a) > 1})
            found.append(("loop", {"asns": repeated}))
        kind = self._asn_kind
        special = {a: k for a in set(flat) if (k := kind(a))}
        if special:
            private = sorted(a for a, k in special.items() if k[0] == PRIVATE)
            if private:
                found.append(("private-asn", {"asns": private}))
            bogon = sorted(a for a, k in special.items() if k[0] != PRIVATE)
            if bogon:
                found.append(("bogon-asn", {"asns": bogon, "why": [f"AS{a}: {special[a][1]}" for a in bogon]}))
        if self.topo is not None and len(seq) == len(path):
            leaker = self._leaker(collapsed)
            if leaker is not None:
                found.append(("leak", {"leaker": leaker}))
        if found:
            text = _path_text(path)
            for kind_, detail in found:
                self._first[(kind_, path)] = self.unit
                self.per_path[(kind_, path)] = {"kind": kind_, "path": text, **detail, "routes": 0,
                                                "example": {"prefix": prefix, "peer": peer}}
        return tuple(k for k, _ in found)

    def _leaker(self, path: list[int]) -> int | None:
        """The AS that broke the valley-free rule on `path` (neighbour first), or None."""
        index = self.topo.index
        up = [index.get(a) for a in reversed(path)]  # the origin first
        if None in up:
            return None
        descending = False  # after a peering or a step down, only steps down are allowed
        for k in range(len(up) - 1):
            rel = self.topo.relationship(up[k], up[k + 1])  # what the next AS is to this one
            if rel is None:
                return None
            if rel in (PROVIDER, PEER) and descending:
                return int(self.topo.asns[up[k]])
            if rel in (PEER, CUSTOMER):
                descending = True
        return None

    def state(self, rows: Rows | None) -> tuple:
        """What merge() needs of these findings, with `rows` (from `half()`, or None when they go
        another way, to `add_rows`), to send to another process."""
        return rows, self.per_path, self.per_prefix, self._first

    def half(self, upper: bool) -> Rows:
        """Gives away the distinct (prefix, origin) rows of the upper halves of the address spaces
        (IPv4 from 128.0.0.0, IPv6 from 8000::) if `upper`, else of the lower ones, and keeps the
        others. No prefix but a default route spans both halves, and a default route is nobody's
        covering prefix: the conflicts of each half can be worked out apart (`conflicts()`), by two
        processes at once."""
        given = self._merge().half(upper)
        self._merged = len(self._rows)
        self._kept = 0 if upper else 1
        return given

    def add_rows(self, rows: Rows) -> None:
        """Distinct rows from `half()` of another process's findings."""
        if len(rows):
            self._rows.add_rows(rows)
            self._pending += len(rows)

    def conflicts(self) -> list[tuple]:
        """The MOAS and sub-prefix findings of the rows held, which are then let go (`finish` works
        out those of the rows still held itself): one part (order, MOAS findings, Subprefixes) per IP
        version, `order` placing the part among those of the other half (finish)."""
        rows = self._merge()
        self._rows, self._merged = Rows(), 0
        parts = []
        for v in (4, 6):
            columns = rows.columns(v)
            if len(columns[1]):
                parts.append(((v, self._kept), *self._conflicts(*columns)))
        return parts

    def merge(self, state: tuple) -> None:
        """Adds the findings of another process over other units of the same input (its `state()`):
        the result is what one process reading every unit would have found. A finding seen by both
        keeps the example of the earlier unit; a bogon prefix's origins stay in first-seen order."""
        rows, per_path, per_prefix, first = state
        if rows is not None:
            self.add_rows(rows)
        mine = self._first
        for key, f in per_path.items():
            have = self.per_path.get(key)
            if have is None or first[key] < mine[key]:
                self.per_path[key], mine[key] = dict(f), first[key]
                if have is not None:
                    self.per_path[key]["routes"] += have["routes"]
            else:
                have["routes"] += f["routes"]
        for where, f in per_prefix.items():
            have = self.per_prefix.get(where)
            if have is None:
                self.per_prefix[where] = have = {**f, "routes": 0, "origins": []}
            have["routes"] += f["routes"]
            # each origin ranked by (unit, place in the list of the process that read that unit)
            rank = {o: (mine[(where, o)], i) for i, o in enumerate(have["origins"])}
            for i, o in enumerate(f["origins"]):
                r = (first[(where, o)], i)
                if o not in rank or r < rank[o]:
                    rank[o] = r
                    mine[(where, o)] = r[0]
            have["origins"] = sorted(rank, key=rank.get)

    # ---- over the whole dump -------------------------------------------------------------------------
    def finish(self, conflicts: list[tuple] = ()) -> Found:
        """Every finding, MOAS and sub-prefix conflicts included (and `conflicts`, the parts of rows
        handed to another process with `half()`)."""
        parts = sorted(self.conflicts() + list(conflicts), key=itemgetter(0))
        by_kind: dict[str, list[dict]] = {k: [] for k in KINDS}
        for _, moas, _ in parts:
            by_kind["moas"] += moas
        by_kind["subprefix"] = Subprefixes.join([sub for _, _, sub in parts])
        by_kind["bogon-prefix"] = [f for _, f in sorted(self.per_prefix.items(), key=itemgetter(0))]
        for f in self.per_path.values():
            by_kind[f["kind"]].append(f)
        for kind in PATH_KINDS:
            by_kind[kind].sort(key=itemgetter("path"))
        return Found(by_kind)

    def _conflicts(self, version: int, hi: np.ndarray, lo: np.ndarray, length: np.ndarray,
                   origin: np.ndarray) -> tuple[list[dict], Subprefixes]:
        """MOAS and sub-prefix findings from the distinct (prefix, origin + 1) rows of one IP
        version as columns, sorted: each kind in address order."""
        n = len(lo)
        new = np.ones(n, dtype=bool)
        new[1:] = (hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1]) | (length[1:] != length[:-1])
        pid = np.cumsum(new) - 1  # each row's prefix
        first = np.flatnonzero(new)
        phi, plo, plen = hi[first], lo[first], length[first]
        pver = np.full(len(first), version, dtype=np.uint8)
        origin = origin.astype(np.int64) - 1
        has = origin >= 0
        count = np.bincount(pid[has], minlength=len(first))  # origins of each prefix
        lead = first + (origin[first] < 0)  # each prefix's first row with an origin

        def origins(p: np.ndarray) -> list[list[int]]:  # of each prefix p: its rows from lead[p]
            c = count[p]
            at = np.repeat(lead[p] - np.concatenate(([0], np.cumsum(c)[:-1])), c) + np.arange(c.sum())
            flat, out, k = origin[at].tolist(), [], 0
            for m in c.tolist():
                out.append(flat[k:k + m])
                k += m
            return out

        moas = np.flatnonzero(count > 1)
        out = [{"kind": "moas", "prefix": t, "origins": o}
               for t, o in zip(prefix_texts(pver[moas], phi[moas], plo[moas], plen[moas]), origins(moas))]
        parent = np.full(len(first), -1, dtype=np.int64)
        # sorted by address then length; a default route covers everything and is nobody's: not a parent
        sel = np.flatnonzero(plen > 0)
        if len(sel) and version == 4:
            start = plo[sel]
            end = start + ((np.uint64(1) << (np.uint64(32) - plen[sel])) - np.uint64(1))
        elif len(sel):
            start = np.array([(h << 64) | x for h, x in zip(phi[sel].tolist(), plo[sel].tolist())], dtype=object)
            end = np.array([s + (1 << (128 - k)) - 1 for s, k in zip(start.tolist(), plen[sel].tolist())], dtype=object)
        if len(sel):
            up = nest(start, end)
            parent[sel] = np.where(up >= 0, sel[np.maximum(up, 0)], -1)
        # a row (prefix, origin) conflicts when the prefix's parent has origins, none of them this one
        key = (pid[has].astype(np.int64) << 32) | origin[has]  # sorted: rows are
        rp = parent[pid[has]]
        cand = np.flatnonzero((rp >= 0) & (count[np.maximum(rp, 0)] > 0))
        q = (rp[cand] << 32) | origin[has][cand]
        at = np.minimum(np.searchsorted(key, q), len(key) - 1)
        cand = cand[key[at] != q]
        p, covers = pid[has][cand], rp[cand]
        named, which = np.unique(covers, return_inverse=True)
        theirs = origins(named)
        sub = Subprefixes.of(prefix_texts(pver[p], phi[p], plo[p], plen[p]), origin[has][cand].tolist(),
                             prefix_texts(pver[named], phi[named], plo[named], plen[named]), theirs,
                             which.reshape(-1).tolist())
        return out, sub


class Subprefixes:
    """Sub-prefix findings in address order, each kept as its line of findings.json (a full table
    gives tens of thousands: made by one f-string each, in the process that found them, and sent
    on as text). A finding becomes a dict only when asked for (indexing, iteration), the same dict
    each time: a key added to it, such as the scenario made of it, goes into its line."""

    def __init__(self, lines: list[str]):
        self._lines = lines
        self._made: dict[int, dict] = {}

    @classmethod
    def of(cls, prefix: list[str], origin: list[int], covers: list[str], cover_origins: list[list[int]],
           cover: list[int]) -> Subprefixes:
        """From columns: each finding's prefix, origin and covering prefix (an index into `covers`,
        whose origins are in `cover_origins`); prefix texts and numbers have nothing to escape."""
        tails = [f'"covering":"{c}","covering_origins":[{",".join(map(str, o))}]}}' for c, o in zip(covers, cover_origins)]
        return cls([f'{{"kind":"subprefix","prefix":"{p}","origin":{o},{tails[c]}' for p, o, c in zip(prefix, origin, cover)])

    @classmethod
    def join(cls, parts: list[Subprefixes]) -> Subprefixes:
        """One after the other (as found: parts whose findings were not handed out as dicts)."""
        return cls([line for p in parts for line in p._lines])

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, i: int) -> dict:
        f = self._made.get(i)
        if f is None:
            f = self._made[i] = json.loads(self._lines[i])
        return f

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def lines(self, encode: Callable[[dict], str]) -> list[str]:
        """The findings.json lines, those of the dicts handed out written again by `encode`."""
        if not self._made:
            return self._lines
        out = list(self._lines)
        for i, f in self._made.items():
            out[i] = encode(f)
        return out


class Found:
    """Every finding of a pass, by kind (in KINDS order); sub-prefix findings as Subprefixes. It
    reads as a sequence of dicts (len, iteration, comparison with a list)."""

    def __init__(self, by_kind: dict[str, list[dict] | Subprefixes]):
        self.by_kind = by_kind

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_kind.values())

    def __iter__(self):
        return chain.from_iterable(self.by_kind.values())

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def count(self, kind: str) -> int:
        return len(self.by_kind[kind])


_NO_WORDS = np.zeros(0, dtype=np.uint64)
_NO_ROWS = np.zeros((0, 5), dtype=np.uint64)


class Rows:
    """Distinct (prefix, origin + 1) rows, origin + 1 being 0 for NONE. An IPv4 route whose origin
    + 1 fits in 26 bits (every ASN handed out so far, and more) is one word, address << 32 | length
    << 26 | origin + 1, which sorts as the row does: a full table is a few megabytes, sorted in a
    few milliseconds. The others (IPv6, private 4-byte origins) are (version, hi, lo, length,
    origin + 1) rows."""

    def __init__(self, packed: list[np.ndarray] | None = None, wide: list[np.ndarray] | None = None,
                 distinct: bool = False):
        """`distinct`: the rows are known to be (one array of each form, sorted, no row twice)."""
        self.packed = packed or []
        self.wide = wide or []
        self._distinct = distinct

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

    def add_rows(self, other: Rows) -> None:
        self.packed += other.packed
        self.wide += other.wide
        self._distinct = False

    def distinct(self) -> None:
        """Sorted, each row once: one array of each form (either may be empty)."""
        if self._distinct:
            return
        p = np.sort(np.concatenate(self.packed + [_NO_WORDS]), kind="stable")  # parts often sorted already
        w = np.concatenate(self.wide + [_NO_ROWS])  # (the halves of two processes): timsort merges runs
        w = w[np.lexsort(w.T[::-1])]
        keep_p, keep_w = np.ones(len(p), dtype=bool), np.ones(len(w), dtype=bool)
        keep_p[1:] = p[1:] != p[:-1]
        keep_w[1:] = (w[1:] != w[:-1]).any(axis=1)
        self.packed, self.wide, self._distinct = [p[keep_p]], [w[keep_w]], True

    def half(self, upper: bool) -> Rows:
        """Gives away (returns) the rows of the upper halves of the address spaces if `upper`, else
        of the lower ones (distinct rows, sorted); keeps the others."""
        p, w = self.arrays()
        cut = int(np.searchsorted(p, np.uint64(2**63)))  # 128.0.0.0 and up
        top = np.where(w[:, 0] == 4, w[:, 2] >= np.uint64(2**31), w[:, 1] >= np.uint64(2**63))
        if upper:
            self.packed, self.wide = [p[:cut]], [w[~top]]
            return Rows([p[cut:]], [w[top]], distinct=True)
        self.packed, self.wide = [p[cut:]], [w[top]]
        return Rows([p[:cut]], [w[~top]], distinct=True)

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


def _net(where: tuple[int, int, int]):
    version, start, length = where
    return (IPv4Network if version == 4 else IPv6Network)((start, length))


def _path_text(path: tuple) -> str:
    return " ".join(str(a) if isinstance(a, int) else "{" + ",".join(map(str, a)) + "}" for a in path)


def scenario_toml(f: dict, topology: str, topo, name: str) -> str | None:
    """A scenario file replaying a `moas` or `subprefix` finding on the AS graph (bgpsim run): the
    covering prefix's (or, for MOAS, the first) origin as the victim, the other origin as the
    attacker announcing at t = 10 s. None when either AS is not in the graph."""
    if f["kind"] == "subprefix":
        victim, attacker, prefix, attack, kind = f["covering_origins"][0], f["origin"], f["covering"], f["prefix"], "subprefix"
        what = f"AS{attacker} announced {attack} inside AS{victim}'s {prefix}"
    elif f["kind"] == "moas":
        victim, attacker, prefix, attack, kind = f["origins"][0], f["origins"][1], f["prefix"], f["prefix"], "prefix"
        what = f"{prefix} was announced by AS{victim} and AS{attacker}"
    else:
        return None
    if victim not in topo.index or attacker not in topo.index:
        return None
    lines = [
        f"# Replay of a {f['kind']} finding of `bgpsim validate`: {what}.",
        "# Which of them is the rightful origin the dump cannot say; here the first is the victim.",
        f'name = "{name}"',
        f'description = "{what}"',
        f"topology = {_toml_string(topology)}",
        "seed = 1",
        "",
        "[victim]",
        f"asn = {victim}",
        f'prefixes = ["{prefix}"]',
        "",
        "[attack]",
        f'kind = "{kind}"',
        f"attacker = {attacker}",
        "start = 10.0",
    ]
    if kind == "subprefix":
        lines.append(f'prefix = "{attack}"')
    return "\n".join(lines) + "\n"


def _toml_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
