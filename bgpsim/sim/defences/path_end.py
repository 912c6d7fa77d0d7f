"""Path-end validation (Cohen, Gilad, Herzberg, Schapira, "Jumpstarting BGP Security with Path-End
Validation", SIGCOMM 2016; draft-ietf-sidrops-pathend).

An adopting origin publishes its neighbours; an adopting receiver drops a route whose origin
published a record and whose AS next to the origin is not one of them. Paths of one AS need no check.
The attributes are the origin and `second`, the AS next to it (-1 while the path is the origin
alone). Like BGPy's `PathEnd`, adopters also drop ROV-invalid routes.
"""

from __future__ import annotations

import numpy as np

from ..policy import Candidate, Policy


class PathEnd(Policy):
    """Drop routes whose last hop before an adopting origin is not its neighbour, plus ROV.
    BGPy: `PathEnd`."""

    name = "path-end"

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "origin": origin, "second": -1}

    def extend(self, c: Candidate) -> dict:
        a = c.a
        return {**super().extend(c), "origin": a["origin"], "second": np.where(c.n == 1, c.T, a["second"])}

    def accept(self, c: Candidate):
        a = c.a
        check = (c.n > 1) & self.adopter[a["origin"]]
        if np.ndim(check):
            ok = ~check
            ok[check] = self.topo.linked(a["origin"][check], a["second"][check])
        else:
            ok = ~check or self.topo.linked(a["origin"], a["second"])
        return (a["invalid"] == 0) & ok
