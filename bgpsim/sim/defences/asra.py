"""ASPA with neighbour records: an AS also registers who its neighbours are, so a link in a path that
the AS at one end never registered is fake (draft-sriram-sidrops-asra-verification-04, ASRA, as
BGPy 13.0 models its algorithm B with records that name neighbours of any kind).

Both include ASPA's verification and ROV, as BGPy's do; every adopter publishes both records from
the topology. A fake link is a hop of the path between two ASes that are not neighbours; in the
model only a forged announcement has one (the attributes mark it: `rel` is NOT_LINKED there).

* `aspa-wn` (BGPy's ASPAwN): a route is dropped when an adopter on its path has a path neighbour it
  does not list: any fake link with an adopter at either end.
* `asra` (BGPy's ASRA): only routes from a provider get the further check, and only past the
  attested up-ramp (hops from the origin up where each AS adopts and the next is its provider): a
  fake link whose lower end (nearer the origin) adopts drops the route.
"""

from __future__ import annotations

from ..policy import CUSTOMER, NOT_LINKED, PROVIDER, Candidate
from .aspa import ASPA


class ASPAwN(ASPA):
    """ASPA and ROV, and no fake link at an adopter. BGPy: `ASPAwN`."""

    name = "aspa-wn"

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "fake": False}

    def extend(self, c: Candidate) -> dict:
        fake = (c.rel == NOT_LINKED) & (self.adopter[c.S] | self.adopter[c.T])
        return {**super().extend(c), "fake": c.a["fake"] | fake}

    def accept(self, c: Candidate):
        return super().accept(c) & ~c.a["fake"]


class ASRA(ASPA):
    """ASPA and ROV; from a provider, no fake link at an adopter past the attested up-ramp. BGPy: `ASRA`."""

    name = "asra"

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "ramp": True, "fake": False}

    def extend(self, c: Candidate) -> dict:
        a = c.a
        ramp = a["ramp"] & self.adopter[c.S] & (c.rel == CUSTOMER)  # T is S's provider, and S says so
        fake = ~ramp & self.adopter[c.S] & (c.rel == NOT_LINKED)
        return {**super().extend(c), "ramp": ramp, "fake": a["fake"] | fake}

    def accept(self, c: Candidate):
        return super().accept(c) & ~((c.rel == PROVIDER) & c.a["fake"])


__all__ = ["ASPAwN", "ASRA"]
