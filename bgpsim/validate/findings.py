"""What looks wrong in a dump besides RPKI status: the findings of `bgpsim validate`.

Per path (each distinct AS_PATH is judged once; bgpsim.validate.paths): `loop`, `private-asn`,
`bogon-asn`, `as-set` and, with CAIDA relationships, `leak`.
Per prefix:
- `bogon-prefix`: a special-purpose prefix (bgpsim.base.bogons).
Over the whole dump (after the pass):
- `moas`: one prefix announced with more than one origin AS (RFC 1930 section 7 allows it, but a
  hijack looks like it);
- `subprefix`: a prefix whose origin is not among the origins of the nearest less specific prefix
  announced in the same dump: what a sub-prefix hijack looks like (and what many legitimate
  customer more-specifics look like too; the finding says which ASes, the reader judges). The
  default route (0.0.0.0/0, ::/0) is never the covering prefix: it covers every prefix and is
  nobody's, and one peer leaking it would make the whole table sub-prefix findings.
  Both come from the distinct (prefix, origin) rows of the routes, by sorting
  (bgpsim.validate.conflicts).

`finish` gives them all (`Found`) by kind, in KINDS order; prefix findings in address order, path
findings in the order of their path text.
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network
from itertools import chain
from operator import itemgetter
from typing import Callable

import numpy as np

from bgpsim.base.bogons import prefix_kind
from .conflicts import Rows, Subprefixes, find_conflicts
from .paths import PathJudge, path_text

KINDS = ("moas", "subprefix", "bogon-prefix", "bogon-asn", "private-asn", "loop", "leak", "as-set")
MERGE_MIN = 1 << 16  # routes added before the rows are made distinct (and more once there are more)
PATH_KINDS = ("bogon-asn", "private-asn", "loop", "leak", "as-set")  # findings about an AS_PATH; the rest about a prefix


class Findings:
    """Accumulates findings over a pass. Per batch of routes: `prefixes()` records each route's
    prefix and origin as arrays (kept as distinct rows, so memory grows with the distinct prefixes,
    not the routes), `paths()` judges each distinct AS_PATH once and counts its routes,
    `bogon_route()` the rare route in a special-purpose prefix. `finish()` works out MOAS and
    sub-prefix conflicts from the distinct (prefix, origin) rows by sorting."""

    def __init__(self, topo=None):
        self.topo = topo
        self._judge_path = PathJudge(topo).judge
        self._paths: dict[tuple, tuple[str, ...]] = {}  # each path judged: its finding kinds
        self.per_path: dict[tuple[str, tuple], dict] = {}  # (kind, path) -> finding
        self.per_prefix: dict[tuple[int, int, int], dict] = {}
        self._rows = Rows()  # each distinct (prefix, origin)
        self._pending = 0  # rows added since they were last made distinct
        self._merged = 0  # distinct rows then

    # ---- per batch --------------------------------------------------------------------------------
    def prefixes(self, version: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: np.ndarray,
                 origin: np.ndarray) -> None:
        """Routes announced: IP version (4 or 6), the network address as its upper and lower 64 bits
        (IPv4 in `lo`), prefix length, origin AS (negative: NONE, which counts as no origin)."""
        if not len(version):
            return
        self._rows.add(version, hi, lo, length, np.maximum(np.asarray(origin, dtype=np.int64), -1) + 1)
        # made distinct when as many more have come as there were (a geometric series: the sorts cost
        # little more than one at the end), at least MERGE_MIN: a live monitor's memory stays flat
        self._pending += len(version)
        if self._pending > max(MERGE_MIN, self._merged):
            self._merge()

    def _merge(self) -> Rows:
        self._rows.distinct()
        self._merged, self._pending = len(self._rows), 0
        return self._rows

    def paths(self, paths: list[tuple], example: Callable[[int], tuple[str, str]],
              routes: list[int]) -> list[tuple[str, ...]]:
        """The finding kinds of each of the distinct AS_PATHs `paths` (ASNs, an AS_SET as a tuple
        inside) taken by routes[i] routes; example(i) is the (prefix, peer IP) of path i's first route,
        a finding's example. Each path is judged once. The caller hands over only the paths that may
        hold a finding: the compiled core clears most at once (bgpsim._core.PathTable)."""
        judged = self._paths
        out = []
        for i, p in enumerate(paths):
            k = judged.get(p)
            if k is None:
                k = judged[p] = self._judge(p, *example(i))
            out.append(k)
        per_path = self.per_path
        for i in [i for i, kinds in enumerate(out) if kinds]:
            for k in out[i]:
                per_path[(k, paths[i])]["routes"] += routes[i]
        return out

    def bogon_route(self, where: tuple[int, int, int], text: str, origin: int) -> None:
        """A route in a special-purpose prefix (bgpsim.base.bogons.prefix_mask): `where` is (IP version,
        network as an integer, length), `text` the prefix as text."""
        f = self.per_prefix.get(where)
        if f is None:
            f = self.per_prefix[where] = {"kind": "bogon-prefix", "prefix": text,
                                          "why": prefix_kind(_net(where)), "routes": 0, "origins": []}
        f["routes"] += 1
        if origin >= 0 and origin not in f["origins"]:
            f["origins"].append(origin)

    def _judge(self, path: tuple, prefix: str, peer: str) -> tuple[str, ...]:
        """The kinds of the findings of a path not judged before, each recorded with its example."""
        found = self._judge_path(path)
        if found:
            text = path_text(path)
            for kind, detail in found:
                self.per_path[(kind, path)] = {"kind": kind, "path": text, **detail, "routes": 0,
                                               "example": {"prefix": prefix, "peer": peer}}
        return tuple(k for k, _ in found)

    # ---- over the whole dump -------------------------------------------------------------------------
    def finish(self) -> Found:
        """Every finding, MOAS and sub-prefix conflicts included (worked out from the distinct rows,
        IPv4 then IPv6)."""
        rows = self._merge()
        by_kind: dict[str, list[dict]] = {k: [] for k in KINDS}
        subprefixes = []
        for v in (4, 6):
            columns = rows.columns(v)
            if len(columns[1]):
                moas, sub = find_conflicts(*columns)
                by_kind["moas"] += moas
                subprefixes.append(sub)
        by_kind["subprefix"] = Subprefixes.join(subprefixes)
        by_kind["bogon-prefix"] = [f for _, f in sorted(self.per_prefix.items(), key=itemgetter(0))]
        for f in self.per_path.values():
            by_kind[f["kind"]].append(f)
        for kind in PATH_KINDS:
            by_kind[kind].sort(key=itemgetter("path"))
        return Found(by_kind)


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


def _net(where: tuple[int, int, int]):
    version, start, length = where
    return (IPv4Network if version == 4 else IPv6Network)((start, length))


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
