"""ASPA-based AS_PATH verification (draft-ietf-sidrops-aspa-verification-27, sections 5.1 to 5.5;
-28 numbers them 5.2 to 5.6).

Every adopter publishes an ASPA record naming its true providers (the topology's), as BGPy assumes.
`hop(A, B)` (authorized, section 5.2) is "Not Provider+" when A has a record that does not name B.
For a path AS(N) ... AS(1) (the neighbour first, the origin last) the procedure needs:

* max_up_ramp: the largest K such that no hop(AS(i), AS(i+1)) for i < K is "Not Provider+";
* max_down_ramp: the largest L such that no hop(AS(j+1), AS(j)) for j >= N - L + 1 is "Not Provider+".

Both are attributes that grow with the path (`up`, `down`): when T takes S's path, `up` grows by one
while the path is still an unbroken up-ramp and hop(S, T) holds, and `down` grows by one when
hop(T, S) holds or restarts at 1. Verification: a route from a customer or peer is Invalid when
max_up_ramp < N (5.4, upstream); a route from a provider when max_up_ramp + max_down_ramp < N (5.5,
downstream); and any route whose first AS is not the neighbour that sent it (5.4 and 5.5, step 2).
Invalid routes are dropped; Unknown ones are kept.

ASPA checks the path, never the origin (that is ROV's part): `aspa-alone` is the verification alone,
so an AS announcing someone else's prefix as its own passes it. `aspa` is BGPy's `ASPA`: adopters
also drop ROV-invalid routes (tables call it `rov+aspa`).
"""

from __future__ import annotations

import numpy as np

from ..policy import CUSTOMER, PROVIDER, Candidate, Policy


class ASPAAlone(Policy):
    """ASPA upstream and downstream path verification alone, without ROV."""

    name = "aspa-alone"

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "up": 1, "down": 1, "first": origin}

    def extend(self, c: Candidate) -> dict:
        a = c.a
        st_ok = ~self.adopter[c.S] | (c.rel == CUSTOMER)  # hop(S, T): T is S's provider, or S has no record
        ts_ok = ~self.adopter[c.T] | (c.rel == PROVIDER)  # hop(T, S): S is T's provider, or T has no record
        return {**super().extend(c),
                "up": np.where((a["up"] == c.n) & st_ok, a["up"] + 1, a["up"]),
                "down": np.where(ts_ok, a["down"] + 1, 1), "first": c.T}

    def accept(self, c: Candidate):
        a = c.a
        upstream_bad = a["up"] < c.n
        downstream_bad = a["up"] + a["down"] < c.n
        bad = np.where(c.rel == PROVIDER, downstream_bad, upstream_bad)
        return ~bad & (a["first"] == c.S)


class ASPA(ASPAAlone):
    """ASPA upstream and downstream path verification, plus ROV. BGPy: `ASPA`."""

    name = "aspa"
    includes_rov = True

    def accept(self, c: Candidate):
        return (c.a["invalid"] == 0) & super().accept(c)
