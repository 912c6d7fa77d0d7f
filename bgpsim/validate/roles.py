"""Which way ASPA verifies the routes a collector heard (draft-ietf-sidrops-aspa-verification-28
sections 5.5 and 5.6, the roles of RFC 9234): by what each peer is to the collector.

* from a customer or a lateral peer: upstream, the first AS of the path the peer's;
* from a route server, the collector being its client: upstream, and the first AS is the route
  server's client, not the route server (a transparent one adds no AS): no neighbour check;
* from a provider: downstream, the first AS the peer's;
* from a peer whose role is not known: downstream, as a collector takes full tables as a customer
  takes them from a provider, the first AS the peer's; these routes are counted as unplaced.

Roles are named (`--peer-role provider:3356,174`) or come from the CAIDA relationships between the
collector's own AS (`--collector-as`) and each peer.
"""

from __future__ import annotations

from bgpsim.base.asn import parse_asn
from bgpsim.base.errors import InputError

UNPLACED, DOWNSTREAM, UPSTREAM, FROM_ROUTE_SERVER = range(4)
ROLES = {"customer": UPSTREAM, "peer": UPSTREAM, "route-server": FROM_ROUTE_SERVER, "provider": DOWNSTREAM}


def named_roles(values: list[str] | None) -> dict[int, int]:
    """`--peer-role ROLE:ASN,ASN,...` (repeatable) as {peer AS: mode}; a bad one is an InputError."""
    out: dict[int, int] = {}
    for v in values or ():
        role, sep, asns = v.partition(":")
        if not sep or role not in ROLES:
            raise InputError(f"--peer-role {v!r}: want ROLE:ASN,ASN,... with ROLE one of {', '.join(ROLES)}")
        for given in asns.split(","):
            try:
                a = parse_asn(given)
            except ValueError:
                raise InputError(f"--peer-role {v!r}: {given!r} is not an AS number") from None
            if out.setdefault(a, ROLES[role]) != ROLES[role]:
                raise InputError(f"--peer-role: AS{a} is given two roles")
    return out


class PeerRoles:
    """The verification mode of each collector peer, by its AS number."""

    def __init__(self, named: dict[int, int] | None = None, topo=None, collector_as: int | None = None):
        self.named = dict(named or {})
        self.topo = topo if collector_as is not None else None
        self.collector = None
        if self.topo is not None and collector_as in self.topo.index:
            self.collector = self.topo.index[collector_as]

    def mode(self, peer_as: int) -> int:
        got = self.named.get(peer_as)
        if got is not None:
            return got
        if self.collector is None or peer_as not in self.topo.index:
            return UNPLACED
        from bgpsim.graph.topology import CUSTOMER, PEER, PROVIDER

        rel = self.topo.relationship(self.collector, self.topo.index[peer_as])  # what the peer is to the collector
        return {CUSTOMER: UPSTREAM, PEER: UPSTREAM, PROVIDER: DOWNSTREAM}.get(rel, UNPLACED)


def verify_route(aspa, path: tuple, peer_as: int, mode: int) -> str:
    """One route's ASPA verdict: `path` flat (an AS_SET a tuple in it), from peer `peer_as` of mode
    `mode`. (bgpsim.validate.check gives whole batches the same verdicts, array by array.)"""
    from bgpsim.rpki.aspa_path import INVALID

    if not path or (mode != FROM_ROUTE_SERVER and path[0] != peer_as):
        return INVALID  # sections 5.5 and 5.6, steps 1 and 2
    return aspa.verify(path, from_provider=mode in (DOWNSTREAM, UNPLACED))


__all__ = ["DOWNSTREAM", "FROM_ROUTE_SERVER", "PeerRoles", "ROLES", "UNPLACED", "UPSTREAM", "named_roles",
           "verify_route"]
