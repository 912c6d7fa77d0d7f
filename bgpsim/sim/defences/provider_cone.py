"""Provider-cone identification (ProConID), from BGP-iSec ("BGP-iSec: Improved Security of Internet
Routing Against Post-ROV Attacks", NDSS 2024), as BGPy 13.0 models it:
a route coming up from a customer has climbed from its origin through providers only, so every AS on
it but the origin, and the receiver, is in the origin's provider cone (its providers, theirs, and so
on). An adopter drops a route from a customer on which an adopting AS, itself included, is outside
that cone: a forged path of an attacker outside the cone. ROV is included, as BGPy's is.

The attributes are the origin and `outside`: whether an adopting AS on the path after the origin is
outside the origin's provider cone. The cones are worked out per origin, once (a walk up the
providers).
"""

from __future__ import annotations

import numpy as np

from ..policy import CUSTOMER, Candidate, Policy


class ProviderConeID(Policy):
    """ROV, and no adopter outside the origin's provider cone on a route from a customer. BGPy:
    `ProviderConeID`."""

    name = "provider-cone-id"
    checks_roas = True
    includes_rov = True

    def __init__(self, topo, adopters=(), vrps=None):
        super().__init__(topo, adopters, vrps)
        self._cones: dict[int, np.ndarray] = {}

    def cone(self, origin: int) -> np.ndarray:
        """Which ASes are in the provider cone of `origin` (not itself)."""
        cone = self._cones.get(origin)
        if cone is None:
            cone = np.zeros(self.topo.n, dtype=bool)
            todo = list(self.topo.providers[origin])
            while todo:
                x = todo.pop()
                if not cone[x]:
                    cone[x] = True
                    todo.extend(self.topo.providers[x])
            self._cones[origin] = cone
        return cone

    def outside(self, x, origin):
        """Whether AS x adopts and is outside the provider cone of `origin` (arrays or scalars)."""
        if not np.ndim(x):
            return bool(self.adopter[x] and not self.cone(int(origin))[x])
        out = np.zeros(np.shape(x), dtype=bool)
        for o in np.unique(origin):
            m = origin == o
            out[m] = self.adopter[x[m]] & ~self.cone(int(o))[x[m]]
        return out

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "origin": origin, "outside": False}

    def extend(self, c: Candidate) -> dict:
        a = c.a
        return {**super().extend(c), "origin": a["origin"], "outside": a["outside"] | self.outside(c.T, a["origin"])}

    def accept(self, c: Candidate):
        a = c.a
        bad = (c.rel == CUSTOMER) & (a["outside"] | self.outside(c.T, a["origin"]))
        return (a["invalid"] == 0) & ~bad & super().accept(c)


__all__ = ["ProviderConeID"]
