"""Edge filtering, as BGPy's EdgeFilter models it: an AS at the edge of the graph (a stub with one
neighbour, or an AS with no customers and several neighbours) has only its own routes to announce,
so an adopter drops any route from such a neighbour whose path holds another AS. That stops forged
origins, forged paths and leaks sent by edge ASes, never an edge AS announcing someone else's prefix
as its own: `edge-filter` is the check alone (BGPy's EdgeFilter, without ROV), `rov-edge-filter`
adds ROV (BGPy's ROVEdgeFilter). It is the AS-level form of the filters RFC 7454 asks a provider to
put on what its customers send.

A route from an edge neighbour S passes when S's path is S alone (prepending is collapsed before
defences look).
"""

from __future__ import annotations

from ..policy import Candidate
from .first_as import EnforceFirstAS


class EdgeFilter(EnforceFirstAS):
    """Drop routes from edge neighbours whose path is not the neighbour alone: one AS, and that AS
    the sender (enforce-first-as's check, which gives the attribute `first`). BGPy: `EdgeFilter`."""

    name = "edge-filter"

    def accept(self, c: Candidate):
        return ~self.topo.edge_ases[c.S] | ((c.n == 1) & super().accept(c))


class ROVEdgeFilter(EdgeFilter):
    """Edge filtering plus ROV. BGPy: `ROVEdgeFilter`."""

    name = "rov-edge-filter"
    checks_roas = True
    includes_rov = True

    def accept(self, c: Candidate):
        return (c.a["invalid"] == 0) & super().accept(c)
