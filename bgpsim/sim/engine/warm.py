"""The timed engine's warm start: a converged Loc-RIB installed in every speaker as if every UPDATE
that led to it had been sent, so a run starts from routing at rest."""

from __future__ import annotations

from ..policy import CUSTOMER, ORIGIN
from .timed import TimedEngine


def warm_start(engine: TimedEngine, p: int, loc: list) -> None:
    """Warm start: take a converged Loc-RIB for prefix p (one entry per AS, from the
    converged-state solver) and fill the Adj-RIBs-In and -Out as if every update had been sent."""
    engine.loc[p] = list(loc)
    adv = engine.adv[p] = [None if e is None else (i,) + e[2] for i, e in enumerate(loc)]
    rib_in, rib_out = engine.rib_in[p], engine.rib_out[p]
    crypto = engine.crypto
    # under crypto an AS signs what it received: nearer the origin first
    order = range(len(adv)) if crypto is None else sorted(
        (i for i, out in enumerate(adv) if out is not None), key=lambda i: len(adv[i]))
    for i in order:
        out = adv[i]
        if out is None:
            continue
        e = loc[i]
        first_hop = e[2][0] if e[2] else -1
        pol_i = engine.policy[i]
        sent = rib_out[i] = {}
        for nbrs, _, rel_at_j, j_is in engine._groups[i]:
            if not (e[1] <= CUSTOMER or j_is == CUSTOMER if pol_i is None else pol_i.exports(e[1], j_is)):
                continue
            for j in nbrs:
                if j == first_hop or (i, j) in engine.down:
                    continue
                sent[j] = out
                signed = None if crypto is None else crypto.outgoing(engine, p, i, j)
                if engine.tap is not None:
                    engine.tap.sent(0.0, i, j, p, out, signed)
                if j in engine.revalidating:
                    engine.heard.setdefault((p, j), {})[i] = (out, rel_at_j, signed)
                entry = engine._judge(i, j, p, out, rel_at_j, signed)  # as j would judge the UPDATE
                if entry is not None:
                    if rib_in[j] is None:
                        rib_in[j] = {}
                    rib_in[j][i] = entry
    # The solver's entries must be the very objects in the Adj-RIBs-In (selection compares identity).
    for j, e in enumerate(loc):
        if e is not None and e[1] != ORIGIN:
            chosen = rib_in[j].get(e[2][0])
            if chosen != e:
                raise AssertionError(f"warm start disagrees with the Adj-RIB-In at AS{engine.topo.asns[j]}")
            engine.loc[p][j] = chosen


__all__ = ["warm_start"]
