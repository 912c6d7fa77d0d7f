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
  customer more-specifics look like too; the finding says which ASes, the reader judges).
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network

import numpy as np

from rpki.rov import nest

from ..bogons import asn_kind, prefix_kind
from ..policy import CUSTOMER, PEER, PROVIDER

PRIVATE = "private"
KINDS = ("moas", "subprefix", "bogon-prefix", "bogon-asn", "private-asn", "loop", "leak")


class Findings:
    """Accumulates findings over a pass; `path()` and `prefix()` answer per route (cached)."""

    def __init__(self, topo=None):
        self.topo = topo
        self._paths: dict[tuple, tuple[str, ...]] = {}
        self.origins: dict[tuple[int, int, int], set[int]] = {}  # (version, network, length) -> origins
        self.text: dict[tuple[int, int, int], str] = {}  # the same -> the prefix as text
        self.per_path: dict[tuple[str, tuple], dict] = {}  # (kind, path) -> finding
        self.per_prefix: dict[tuple[int, int, int], dict] = {}

    # ---- per route --------------------------------------------------------------------------------
    def route(self, where: tuple[int, int, int], text: str, origin: int, path: tuple, peer: str,
              bogon: bool) -> tuple[str, ...]:
        """The finding kinds of one announced route: `where` (IP version, network as an integer,
        length) and its `text`, `path` ASNs with an AS_SET as a tuple inside, `bogon` from
        bgpsim.bogons.prefix_mask."""
        seen = self.origins.get(where)
        if seen is None:
            seen = self.origins[where] = set()
            self.text[where] = text
        if origin >= 0:
            seen.add(origin)
        kinds = self._path_kinds(path, text, peer) if path else ()
        if bogon:
            f = self.per_prefix.get(where)
            if f is None:
                f = self.per_prefix[where] = {"kind": "bogon-prefix", "prefix": text,
                                              "why": prefix_kind(_net(where)), "routes": 0, "origins": []}
            f["routes"] += 1
            if origin >= 0 and origin not in f["origins"]:
                f["origins"].append(origin)
            kinds += ("bogon-prefix",)
        return kinds

    def _path_kinds(self, path: tuple, prefix: str, peer: str) -> tuple[str, ...]:
        kinds = self._paths.get(path)
        if kinds is None:
            kinds = self._paths[path] = self._judge(path, prefix, peer)
        for k in kinds:
            self.per_path[(k, path)]["routes"] += 1
        return kinds

    def _judge(self, path: tuple, prefix: str, peer: str) -> tuple[str, ...]:
        flat = [a for a in path if isinstance(a, int)]
        for s in path:
            if not isinstance(s, int):
                flat.extend(s)
        text = _path_text(path)
        found = []
        seq = [a for a in path if isinstance(a, int)]
        collapsed = [a for i, a in enumerate(seq) if i == 0 or a != seq[i - 1]]  # prepending removed
        if len(set(collapsed)) < len(collapsed):
            repeated = sorted({a for a in collapsed if collapsed.count(a) > 1})
            found.append(("loop", {"asns": repeated}))
        special = {a: asn_kind(a) for a in set(flat)}
        private = sorted(a for a, k in special.items() if k and k[0] == PRIVATE)
        if private:
            found.append(("private-asn", {"asns": private}))
        bogon = sorted(a for a, k in special.items() if k and k[0] != PRIVATE)
        if bogon:
            found.append(("bogon-asn", {"asns": bogon, "why": [f"AS{a}: {special[a][1]}" for a in bogon]}))
        if self.topo is not None and all(isinstance(a, int) for a in path):
            leaker = self._leaker(collapsed)
            if leaker is not None:
                found.append(("leak", {"leaker": leaker}))
        for kind, detail in found:
            self.per_path[(kind, path)] = {"kind": kind, "path": text, **detail, "routes": 0,
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

    # ---- over the whole dump -------------------------------------------------------------------------
    def finish(self) -> list[dict]:
        """Every finding, MOAS and sub-prefix conflicts included, in a stable order."""
        out = []
        for where, origins in self.origins.items():
            if len(origins) > 1:
                out.append({"kind": "moas", "prefix": self.text[where], "origins": sorted(origins)})
        out += self._subprefix()
        out += list(self.per_prefix.values())
        for f in self.per_path.values():
            out.append(f)
        order = {k: i for i, k in enumerate(KINDS)}
        return sorted(out, key=lambda f: (order[f["kind"]], f.get("prefix") or f.get("path") or ""))

    def _subprefix(self) -> list[dict]:
        out = []
        for version in (4, 6):
            items = sorted((w[1], w[2], w) for w in self.origins if w[0] == version)
            if not items:
                continue
            width = 32 if version == 4 else 128
            start = np.array([s for s, _, _ in items], dtype=object)
            end = np.array([s + (1 << (width - n)) - 1 for s, n, _ in items], dtype=object)
            parent = nest(start, end)
            for i, (_, _, where) in enumerate(items):
                j = int(parent[i])
                if j < 0:
                    continue
                cover = items[j][2]
                theirs = self.origins[cover]
                for o in sorted(self.origins[where] - theirs):
                    if theirs:
                        out.append({"kind": "subprefix", "prefix": self.text[where], "origin": o,
                                    "covering": self.text[cover], "covering_origins": sorted(theirs)})
        return out


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
