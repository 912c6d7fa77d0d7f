"""Path monitors: BGPalerter's path matching (a watched prefix's rules on its AS paths) and path
neighbours (monitorPathNeighbors: an AS next to a watched AS that its lists do not name), and route
leaks by relationships (a path that is not valley-free, the leaker named)."""

from __future__ import annotations

from .base import Check, Finding, Seen, watched_fields


def path_words(path: tuple) -> str:
    """The path as BGPalerter's rules read it: ASN,ASN,... (an AS_SET as [ASN,ASN])."""
    return ",".join(str(a) if isinstance(a, int) else "[" + ",".join(map(str, a)) + "]" for a in path)


class PathRules(Check):
    name = "path"

    def announce(self, s: Seen) -> list[Finding]:
        w = s.watched
        if w is None or w.ignore or not w.paths:
            return []
        text = path_words(s.path)
        return [Finding("path-match", ("path-match", s.prefix, k), s.prefix,
                        {**watched_fields(w), "detail": {"rule": rule.description}}, w.group)
                for k, rule in enumerate(w.paths) if rule.holds(text, len(s.path))]


class Neighbours(Check):
    """For each watched AS with `upstreams` or `downstreams`: the AS before it in the path (toward the
    collector: its upstream) and the one after it (toward the origin: its downstream); prepending is
    collapsed first."""
    name = "neighbours"

    def __init__(self, ases):
        self.ases = {a.asn: a for a in ases if a.upstreams is not None or a.downstreams is not None}

    def announce(self, s: Seen) -> list[Finding]:
        if not self.ases:
            return []
        seq = [a for i, a in enumerate(s.path) if isinstance(a, int) and (i == 0 or a != s.path[i - 1])]
        found = []
        for i, asn in enumerate(seq):
            w = self.ases.get(asn)
            if w is None:
                continue
            for side, j, known in (("upstream", i - 1, w.upstreams), ("downstream", i + 1, w.downstreams)):
                if known is None or not 0 <= j < len(seq) or seq[j] in known:
                    continue
                kind = f"new-{side}"
                found.append(Finding(kind, (kind, asn, seq[j]), s.prefix,
                                     {"watched": f"AS{asn}", "description": w.description, "expected_origins": [],
                                      "detail": {"asn": asn, "neighbour": seq[j], "known": sorted(known)}}, w.group))
        return found


class Leak(Check):
    """Routes of watched prefixes whose path breaks valley-freeness (bgpsim.validate.paths.PathJudge,
    from CAIDA relationships)."""
    name = "leak"

    def __init__(self, judge):
        self.judge = judge

    def announce(self, s: Seen) -> list[Finding]:
        w = s.watched
        if w is None or w.ignore or not s.path:
            return []
        return [Finding("leak", ("leak", s.prefix, s.origin, d["leaker"]), s.prefix,
                        {**watched_fields(w), "leaker": d["leaker"]}, w.group)
                for kind, d in self.judge.judge(s.path) if kind == "leak"]
