"""What can be wrong with an AS_PATH: the path findings of `bgpsim validate`.

- `loop`: an AS appears twice, apart (prepending, an AS repeated next to itself, is not a loop);
- `private-asn`: a private AS (RFC 6996) in the path, which should have been stripped at the edge;
- `bogon-asn`: a reserved (RFC 7607, RFC 7300), documentation (RFC 5398) or AS_TRANS (RFC 6793)
  number in the path (bgpsim.base.bogons);
- `leak`: with CAIDA relationships, a path that is not valley-free (Gao-Rexford): after going down
  (provider to customer) or across (a peering) it goes up or across again. The leaker is the AS that
  sent the route on the wrong way. Links missing from the graph give no verdict, nor does a path
  holding an AS_SET;
- `as-set`: the path holds an AS_SET, which RFC 9774 forbids originating and asks a receiver to treat
  as a withdrawal (RFC 7606); its origin is NONE for RFC 6811, so the route is never valid.

A path is given as its ASNs, an AS_SET as a tuple inside (`flat_path` makes it). `PathJudge.judge`
looks at one path and says what it found; bgpsim._core.PathTable (core/pathtable.c) clears the many
paths that can hold no finding at once, without relationships.
"""

from __future__ import annotations

from bgpsim.graph.topology import CUSTOMER, PEER, PROVIDER

from bgpsim.base.bogons import asn_kind
from bgpsim.wire.aspath import AS_SEQUENCE, AS_SET

PRIVATE = "private"


class PathJudge:
    """Judges AS_PATHs one at a time; `topo` (a bgpsim.graph Topology, or None) gives the
    relationships of the leak check."""

    def __init__(self, topo=None):
        self.topo = topo
        self._asn_kinds: dict[int, tuple[str, str] | None] = {}

    def _asn_kind(self, asn: int):
        kind = self._asn_kinds.get(asn, False)
        if kind is False:
            kind = self._asn_kinds[asn] = asn_kind(asn)
        return kind

    def judge(self, path: tuple) -> list[tuple[str, dict]]:
        """The findings of `path`, in the order loop, private-asn, bogon-asn, leak, as-set: (kind, its
        details)."""
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
        if len(seq) < len(path):
            found.append(("as-set", {"asns": sorted(set(flat) - set(seq))}))
        return found

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


def flat_path(segments) -> tuple:
    """The AS_PATH as a flat tuple of ASNs, an AS_SET as a tuple inside it. Confederation segments
    are left out: they never leave the confederation (RFC 5065 section 5)."""
    out: list = []
    for kind, asns in segments:
        if kind == AS_SEQUENCE:
            out.extend(asns)
        elif kind == AS_SET:
            out.append(tuple(asns))
    return tuple(out)


def path_text(path: tuple) -> str:
    """The path as findings.json writes it: ASNs apart, an AS_SET as {a,b}."""
    return " ".join(str(a) if isinstance(a, int) else "{" + ",".join(map(str, a)) + "}" for a in path)
