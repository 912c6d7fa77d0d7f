"""Only-to-Customer (RFC 9234 section 5): route-leak prevention with the OTC attribute.

The OTC attribute (`otc`, -1 when absent) is set by an adopter to its own ASN when it sends a route
to a customer or a peer (egress, 5.2), and by an adopter to its neighbour's ASN when it receives one
from a provider or a peer (ingress, 5.1) — in both cases the provider's or peer's ASN. Non-adopters
carry it unchanged (it is optional transitive). An adopter drops a route from a customer that carries
OTC, and from a peer that carries an OTC other than that peer's ASN (5.1). BGPy's `OnlyToCustomers`
does not apply ROV, and neither does this.
"""

from __future__ import annotations

import numpy as np

from ..policy import CUSTOMER, PEER, PROVIDER, Candidate, Policy


class OnlyToCustomers(Policy):
    """RFC 9234 OTC marking and leak filtering. BGPy: `OnlyToCustomers`."""

    name = "otc"

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "otc": -1}

    def originate(self, prefix, at: int, path: tuple[int, ...]) -> dict:
        return {**super().originate(prefix, at, path), "otc": -1}  # a made-up path carries no mark

    def _received(self, c: Candidate):
        """OTC as T receives it: S marks routes it sends to customers and peers."""
        down_or_across = (c.rel == PROVIDER) | (c.rel == PEER)
        return np.where(c.a["otc"] >= 0, c.a["otc"], np.where(self.adopter[c.S] & down_or_across, c.S, -1))

    def extend(self, c: Candidate) -> dict:
        got = self._received(c)
        down_or_across = (c.rel == PROVIDER) | (c.rel == PEER)
        return {**super().extend(c), "otc": np.where(got >= 0, got, np.where(self.adopter[c.T] & down_or_across, c.S, -1))}

    def accept(self, c: Candidate):
        got = self._received(c)
        leak_from_customer = (c.rel == CUSTOMER) & (got >= 0)
        leak_from_peer = (c.rel == PEER) & (got >= 0) & (got != c.S)
        return ~(leak_from_customer | leak_from_peer) & super().accept(c)  # (BGP-iSec joins it to others)
