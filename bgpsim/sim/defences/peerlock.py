"""Peerlock-lite (NTT's Peerlock, as NANOG 67 "Peerlock: Flexsealing BGP" describes the lite form):
a customer never sends a route whose path holds a tier-1 AS, so an adopter drops such routes from
customers. Tier-1 ASes are the topology's clique (CAIDA's "input clique" header). The attribute
`tier1` says whether the path holds one.
"""

from __future__ import annotations

import numpy as np

from ..policy import CUSTOMER, Candidate, PathBit, Policy


class PeerlockLite(Policy):
    """Drop customer routes whose path holds a tier-1 AS."""

    name = "peerlock-lite"
    honest_inert = False  # a tier-1 with a provider of its own makes honest customer routes hold one

    def __init__(self, topo, adopters=(), vrps=None):
        super().__init__(topo, adopters, vrps)
        self.tier1 = np.zeros(topo.n, dtype=bool)
        self.tier1[[topo.index[a] for a in topo.clique if a in topo.index]] = True

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "tier1": self.tier1[origin]}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "tier1": c.a["tier1"] | self.tier1[c.T]}

    def accept(self, c: Candidate):
        return ~((c.rel == CUSTOMER) & c.a["tier1"])

    def path_bit(self, prefix) -> PathBit:
        return PathBit("tier1", np.ones_like(self.tier1), self.tier1, {CUSTOMER: self.adopter})
