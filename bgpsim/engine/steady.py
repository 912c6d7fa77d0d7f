"""Converged state of one prefix without simulating time.

With Gao-Rexford preferences and export and a deterministic tie-break the stable state is unique
(Gao & Rexford 2001), and it can be built in three sweeps, as BGPy does:

1. up: in customer-to-provider rank order, each AS takes the best route its customers export
   (their own or customer routes), so every customer is final before its providers look at it;
2. across: an AS without a customer route takes the best route its peers learned from customers;
3. down: in reverse rank order, an AS still without a customer or peer route takes the best route of
   its providers (providers export everything to customers).

Import policies (ROV) and loop rejection apply at every step. Entries are `(key, rel, path)` as in the
timed engine, so its warm start can install them directly.
"""

from __future__ import annotations

import numpy as np

from ..policy import CUSTOMER, ORIGIN, ORIGIN_KEY, PEER, PROVIDER, Policy


def converge(topo, prefix, origins: dict[int, tuple], policy: list) -> list:
    """Loc-RIB of every AS for one prefix. `origins` maps an AS index to the path it claims (() for a
    plain origination); `policy[i]` is AS i's Policy or None."""
    for pol in policy:
        if pol is not None and type(pol).exports is not Policy.exports:
            raise ValueError(f"policy {pol.name!r} changes export rules; the three-sweep solver cannot converge it")
    n = topo.n
    loc: list = [None] * n
    for i, seed in origins.items():
        loc[i] = (ORIGIN_KEY, ORIGIN, tuple(seed))
    order = np.argsort(topo.ranks, kind="stable").tolist()

    def offer(i: int, j: int, rel: int, best):
        e = loc[j]
        path = (j,) + e[2]
        if i in path:
            return best
        pol = policy[i]
        if pol is None:
            cand = ((rel, len(path), j), rel, path)
        elif not pol.accept(prefix, path):
            return best
        else:
            cand = (pol.key(rel, path), rel, path)
        return cand if best is None or cand < best else best

    for i in order:  # 1: up from customers
        if loc[i] is not None:
            continue
        best = None
        for c in topo.customers[i]:
            if loc[c] is not None and loc[c][1] <= CUSTOMER:
                best = offer(i, c, CUSTOMER, best)
        loc[i] = best
    across = []
    for i in range(n):  # 2: one hop across peers (decided on the state after sweep 1)
        if loc[i] is not None:
            continue
        best = None
        for q in topo.peers[i]:
            if loc[q] is not None and loc[q][1] <= CUSTOMER:
                best = offer(i, q, PEER, best)
        if best is not None:
            across.append((i, best))
    for i, best in across:
        loc[i] = best
    for i in reversed(order):  # 3: down from providers
        if loc[i] is not None:
            continue
        best = None
        for p in topo.providers[i]:
            if loc[p] is not None:
                best = offer(i, p, PROVIDER, best)
        loc[i] = best
    return loc
