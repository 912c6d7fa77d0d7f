"""Route origin validation policies (RFC 6811 states; RFC 8481 on what to do with them).

The ROV state of a route is the attribute `invalid`, set at the origin from the VRPs (see
`bgpsim.policy.Policy.invalid`) and carried unchanged along the path.
"""

from __future__ import annotations

from ..policy import PEER, Candidate, Policy


class ROV(Policy):
    """Drop invalid routes (RFC 6811 section 2; RFC 8481 section 4 "drop invalid").
    Not-found routes are kept. BGPy: `ROV`."""

    name = "rov"
    path_constant = True
    checks_roas = True

    def accept(self, c: Candidate):
        return c.a["invalid"] == 0


class ROVDeprefer(Policy):
    """Keep invalid routes but prefer any valid or not-found route of the same relationship class
    (RFC 8481 section 4 leaves the action to the operator; lowering the preference of invalid routes
    is the common alternative to dropping them). Ranked right after the relationship, as Gao-Rexford
    needs for a unique stable state; an invalid customer route still beats a valid provider route."""

    name = "rov-deprefer"
    path_constant = True
    checks_roas = True

    def prefer(self, c: Candidate):
        return c.a["invalid"]


class PeerROV(Policy):
    """Drop invalid routes learned from peers only, as networks that filter at their peering edge do.
    BGPy: `PeerROV`."""

    name = "peer-rov"
    path_constant = True
    checks_roas = True

    def accept(self, c: Candidate):
        return (c.a["invalid"] == 0) | (c.rel != PEER)
