"""Path-end validation (Cohen, Gilad, Herzberg, Schapira, "Jumpstarting BGP Security with Path-End
Validation", SIGCOMM 2016; draft-ietf-sidrops-pathend).

An adopting origin publishes its neighbours; an adopting receiver drops a route whose origin
published a record and whose AS next to the origin is not one of them. Paths of one AS need no check.
The attributes are the origin and `second`, the AS next to it (-1 while the path is the origin
alone). Path-end checks the last hop, not the origin (the paper deploys it beside ROV):
`path-end-alone` is the check alone, which passes an AS announcing someone else's prefix as its own.
`path-end` is BGPy's `PathEnd`: adopters also drop ROV-invalid routes (tables call it `rov+path-end`).
"""

from __future__ import annotations

import numpy as np

from ..policy import Candidate, Policy


class PathEndAlone(Policy):
    """Drop routes whose last hop before an adopting origin is not its neighbour; no ROV."""

    name = "path-end-alone"

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
        return ok


class PathEnd(PathEndAlone):
    """Drop routes whose last hop before an adopting origin is not its neighbour, plus ROV.
    BGPy: `PathEnd`."""

    name = "path-end"
    includes_rov = True

    def accept(self, c: Candidate):
        return (c.a["invalid"] == 0) & super().accept(c)
