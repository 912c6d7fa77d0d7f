"""ROV++ ("ROV++: Improved Deployable Defense against BGP Hijacking", Morillo et al., NDSS 2021), as
BGPy 13.0 models its "Lite" versions. ROV drops an invalid sub-prefix, but the adopter's traffic
then follows the covering prefix to the very neighbour that sent the hijack: ROV++ holds a blackhole
for the sub-prefix instead, so that traffic is dropped, not hijacked (paper section 4).

An adopter X holds a blackhole for prefix Q when it has no valid route for Q and
* (routed, section 4.1) its route for a prefix covering Q came from neighbour N, and N sent it Q with
  an invalid origin, in the same round of routing (BGPy looks only at what arrived together); or
* (non-routed, section 4.4) an AS0 ROA holds exactly Q (RFC 6483 section 4): every adopter holds a
  blackhole for Q, so a superprefix cannot carry its traffic.

What the adopter does with a blackhole is the version:
* `rovpp-v1` (ROVPPV1Lite): keeps it, announcing it to no one;
* `rovpp-v2` (ROVPPV2Lite): announces it to its customers when it learned it from a peer or a
  provider, or made it for an AS0 ROA, so they may take it over the hijack (section 4.2); BGPy's
  third test, "not a sub-prefix of an AS0 ROA", is kept as coded;
* `rovpp-v2i` (ROVPPV2ImprovedLite): announces it to its customers whatever it learned it from, when
  it is for a sub-prefix (too long for every ROA) or an AS0 ROA (section 4.3). BGPy 13.0.13 fails
  (AttributeError) as soon as such an adopter has a customer, so this is the paper's reading.

A blackhole travels as a route with its announcer's path (the hijacker's origin, or the adopter as
origin for an AS0 ROA); an AS that takes it forwards to the adopter, where the traffic stops
(`disconnected`). The engines place blackholes (`bgpsim.sim.engine.steady`, `.timed`); this class
answers which ones are announced. All three include ROV, as BGPy's do.
"""

from __future__ import annotations

import numpy as np

from ..policy import ORIGIN, PEER, PROVIDER
from .rov import ROV

_VALID, _UNKNOWN, _LENGTH, _ORIGIN, _BOTH = range(5)  # BGPy's ROA outcomes, best first


class ROVPPV1(ROV):
    """ROV, and blackholes for invalid sub-prefixes and AS0-ROA space, kept to itself. BGPy:
    `ROVPPV1Lite`."""

    name = "rovpp-v1"
    includes_rov = True
    blackholes = True

    def __init__(self, topo, adopters=(), vrps=None):
        super().__init__(topo, adopters, vrps)
        self._outcomes: dict = {}

    def non_routed(self, prefix) -> bool:
        """Whether an AS0 ROA holds exactly `prefix`: every adopter blackholes it."""
        return self.vrps is not None and any(v.asn == 0 and v.prefix == prefix for v in self.vrps.covering(prefix))

    def _outcome(self, prefix, origin_asn: int) -> tuple[int, bool]:
        """BGPy's ROA outcome of (prefix, origin) — the best over the covering ROAs — and whether an
        AS0 ROA covers it. Every origin no covering ROA names has the same (an AS0 ROA's blackholes
        have thousands of origins: the adopters)."""
        got = self._outcomes.get(prefix)
        if got is None:
            vrps = self.vrps.covering(prefix) if self.vrps is not None else []
            got = self._outcomes[prefix] = ({v.asn for v in vrps}, self._judge(prefix, vrps, -1), vrps)
        named, foreign, vrps = got
        return self._judge(prefix, vrps, origin_asn) if origin_asn in named else foreign

    @staticmethod
    def _judge(prefix, vrps, origin_asn: int) -> tuple[int, bool]:
        best = None
        for v in vrps:
            long_, other = prefix.prefixlen > v.max_length, v.asn != origin_asn
            best = min(_BOTH if best is None else best, _BOTH if long_ and other else _LENGTH if long_ else _ORIGIN if other else _VALID)
        return (_UNKNOWN if best is None else best), any(v.asn == 0 for v in vrps)

    def announces_hole(self, rel: int, prefix, origin: int) -> bool:
        """Whether an adopter announces to its customers the blackhole for `prefix` it learned over
        `rel` (ORIGIN: made for an AS0 ROA), whose path ends in `origin` (an AS index)."""
        return self._told(rel, *self._outcome(prefix, int(self.topo.asns[origin])))

    def announces_holes(self, rel: int, prefix, origins: np.ndarray) -> np.ndarray:
        """`announces_hole` for many origins at once (an AS0 ROA's blackholes: one per adopter)."""
        self._outcome(prefix, -1)
        named, foreign, _ = self._outcomes[prefix]
        out = np.full(len(origins), self._told(rel, *foreign), dtype=bool)
        for j in np.flatnonzero(np.isin(self.topo.asns[origins], list(named))).tolist():
            out[j] = self.announces_hole(rel, prefix, int(origins[j]))
        return out

    @staticmethod
    def _told(rel: int, outcome: int, zero: bool) -> bool:
        """The version's rule, from the blackhole's relationship and ROA outcome (see the module)."""
        return False


class ROVPPV2(ROVPPV1):
    """ROV++ v1, and blackholes from peers, providers and AS0 ROAs announced to customers. BGPy:
    `ROVPPV2Lite`."""

    name = "rovpp-v2"

    @staticmethod
    def _told(rel, outcome, zero):
        non_routed = zero and outcome >= _LENGTH
        return rel in (PEER, PROVIDER, ORIGIN) and (outcome not in (_LENGTH, _BOTH) or not non_routed)


class ROVPPV2i(ROVPPV1):
    """ROV++ v1, and blackholes for sub-prefixes and AS0-ROA space announced to customers whatever
    they were learned from. BGPy: `ROVPPV2ImprovedLite` (which fails; see the module)."""

    name = "rovpp-v2i"

    @staticmethod
    def _told(rel, outcome, zero):
        return outcome in (_LENGTH, _BOTH) or (zero and outcome >= _LENGTH)


__all__ = ["ROVPPV1", "ROVPPV2", "ROVPPV2i"]
