"""ROV++ blackholes on the timed engine (which ones: `bgpsim.sim.defences.rovpp`).

An adopter's blackhole for a prefix is a route it makes itself. It is kept in the adopter's own
Adj-RIB-In, under its own index, so the decision process weighs it against the valid routes as
BGPy's ROV++ does: a valid route learned over the same relationship as the blackhole, or a better
one, wins; one learned over a worse relationship loses. An AS0-ROA blackhole is the adopter's own
route and beats every learned one (but see `hole`). The adopter drops the traffic (`bgpsim.sim.dataplane`), and it
announces the blackhole to its customers only when its version says so.

It is made again whenever what it depends on changes: the adopter's route for a covering prefix,
or what that route's neighbour sends for this one.
"""

from __future__ import annotations

from ..policy import CUSTOMER, ORIGIN, PEER, PROVIDER

HOLE_KEPT, HOLE_TOLD = 1 << 30, (1 << 30) + 1  # a blackhole's preference: after every policy's


def is_hole(entry) -> bool:
    return entry is not None and entry[0][1] >= HOLE_KEPT


def announced_to(entry, j_is: int) -> bool:
    """Whether the blackhole `entry` goes to a neighbour that is `j_is` to its holder."""
    return entry[0][1] == HOLE_TOLD and j_is == CUSTOMER


def hole(engine, r: int, q: int):
    """The blackhole adopter r holds for prefix q (an index), as an Adj-RIB-In entry, or None."""
    pol = engine.policy[r]
    prefix = engine.prefixes[q]
    if pol.non_routed(prefix):
        # BGPy remakes this one at each step of its routing and a learned one after it, so the one
        # learned in the AS's last step stands: from a provider, or from a peer at the top
        last = PEER if engine.topo.ranks[r] == engine.top_rank else PROVIDER
        got = _learned(engine, pol, r, q, prefix, last)
        if got is not None:
            return got
        told = pol.announces_hole(ORIGIN, prefix, r)
        return ((ORIGIN, HOLE_TOLD if told else HOLE_KEPT, 0, -1), ORIGIN, ())
    return _learned(engine, pol, r, q, prefix)


def _learned(engine, pol, r: int, q: int, prefix, over: int | None = None):
    """A blackhole r makes from what the neighbour of its route for a covering prefix (learned
    `over` that relationship, if given) sent for q: an invalid origin."""
    heard = engine.heard.get((q, r))
    if not heard:
        return None
    for p in _covering(engine, q):
        cur = engine.loc[p][r]
        if cur is None or cur[1] == ORIGIN or is_hole(cur) or (over is not None and cur[1] != over):
            continue
        got = heard.get(cur[2][0])  # what the covering route's neighbour sent for q
        if got is None or r in got[0] or not pol.invalid(prefix, got[0][-1]):
            continue
        told = pol.announces_hole(cur[1], prefix, got[0][-1])
        return ((cur[0][0], HOLE_TOLD if told else HOLE_KEPT, 0, cur[2][0]), cur[1], got[0])
    return None


def _covering(engine, q: int) -> list[int]:
    """The prefixes (indices) that cover prefix q, q aside."""
    cache = engine.__dict__.setdefault("_covering", {})
    got = cache.get(q)
    if got is None:
        got = cache[q] = [p for p in range(len(engine.prefixes)) if q in engine._inside(p)]
    return got


def hold(engine) -> None:
    """ROV++ adopters take the blackholes they hold from the start (those for AS0-ROA space)."""
    for r in sorted(engine.rovpp):
        for q in range(len(engine.prefixes)):
            refresh(engine, r, q)


def refresh(engine, r: int, q: int) -> None:
    """Make adopter r's blackhole for prefix q agree with its routes now."""
    entry = hole(engine, r, q)
    rib = engine.rib_in[q][r]
    if (rib or {}).get(r) != entry:
        engine._take(r, r, q, entry)


__all__ = ["HOLE_KEPT", "HOLE_TOLD", "announced_to", "hold", "hole", "is_hole", "refresh"]
