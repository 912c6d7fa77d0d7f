"""The routing model and the policies that change it.

The standard AS-level model of the literature (Gao & Rexford 2001; BGPy's conventions):

* a route is a path of AS indices, the neighbour it came from first, the origin last;
* import drops a path that holds the receiver (loop);
* preference: the AS's own route, then routes from customers, then peers, then providers; then the
  shorter AS path; then the lowest next-hop ASN (indices are in ASN order, so the index compares);
* export (Gao-Rexford): own and customer routes to every neighbour; peer and provider routes to
  customers only.

A `Policy` answers the three questions an AS asks of a route — accept it? how much do I prefer it?
export it to this class of neighbour? — and both engines (timed and converged-state) ask the same
objects, so a defence is written once. ASes with no policy follow the standard model, which the
engines inline for speed; `Policy` itself is that model.
"""

from __future__ import annotations

from .topology import CUSTOMER, PEER, PROVIDER

ORIGIN = 0  # the relationship class of an AS's own route: preferred over everything it learns
ORIGIN_KEY = (ORIGIN, 0, -1)  # the preference key of an AS's own route: below every learned route's

__all__ = ["ORIGIN", "ORIGIN_KEY", "CUSTOMER", "PEER", "PROVIDER", "Policy", "ROV", "Leaker", "standard_key", "exportable"]


def standard_key(rel: int, path: tuple[int, ...]) -> tuple[int, int, int]:
    """Preference key, smaller is better: relationship, path length, next-hop ASN (index)."""
    return (rel, len(path), path[0] if path else -1)


def exportable(route_rel: int, neighbour_rel: int) -> bool:
    """Gao-Rexford: own and customer routes go to everyone; others only to customers."""
    return route_rel <= CUSTOMER or neighbour_rel == CUSTOMER


class Policy:
    """The standard model. Subclasses change one answer each."""

    name = "bgp"

    def accept(self, prefix, path: tuple[int, ...]) -> bool:
        """Import filter, after the loop check."""
        return True

    def key(self, rel: int, path: tuple[int, ...]) -> tuple:
        return standard_key(rel, path)

    def exports(self, route_rel: int, neighbour_rel: int) -> bool:
        return exportable(route_rel, neighbour_rel)


class ROV(Policy):
    """Route origin validation (RFC 6811) with the RFC 8481 drop-invalid policy: a route whose origin
    is invalid for the declared VRPs is not imported. Not-found routes are kept."""

    name = "rov"

    def __init__(self, vrps, asns):
        self.vrps = vrps  # rpki.rov.VRPTable
        self.asns = asns  # index -> ASN, to name the origin
        self._cache: dict = {}

    def accept(self, prefix, path) -> bool:
        origin = path[-1]
        ok = self._cache.get((prefix, origin))
        if ok is None:
            from rpki.rov import INVALID_ASN, INVALID_LENGTH

            ok = self.vrps.validate(prefix, self.asns[origin]) not in (INVALID_ASN, INVALID_LENGTH)
            self._cache[(prefix, origin)] = ok
        return ok


class Leaker(Policy):
    """A route leak (RFC 7908 type 1 and 4): re-export routes learned from a provider or peer to the
    other providers and peers, as a misconfigured multihomed AS does."""

    name = "leak"

    def exports(self, route_rel: int, neighbour_rel: int) -> bool:
        return True
