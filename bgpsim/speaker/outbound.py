"""What our speaker sends: routes read from a file turned into UPDATEs, and the Adj-RIB-Out they leave.

Each route is exported as an AS does to a neighbour (RFC 4271 section 5.1): to an external peer
our AS is prepended to the AS_PATH (section 5.1.2), NEXT_HOP is our address (5.1.3), MED and
LOCAL_PREF stay behind (5.1.4, 5.1.5); to an internal peer the path goes as it is, with LOCAL_PREF
100. ORIGIN, ATOMIC_AGGREGATE, AGGREGATOR and the communities go along. Routes that share their
attributes share UPDATEs, as many prefixes to a message as fit (RFC 4271 section 4.1). The
Adj-RIB-Out (section 3.2) is what the peer has from us, so that a ROUTE-REFRESH (RFC 2918) is
answered with all of it.

With signing keys, toward a peer that can receive BGPsec, a route whose every AS (ours prepended)
has a key goes as a BGPsec UPDATE of its own (RFC 8205 section 4: one prefix, no AS_PATH, each AS
signing toward the next, ours toward the peer); the others go unsigned, with AS_PATH.
"""

from __future__ import annotations

import ipaddress

from bgpsim.mrt.record import ANNOUNCE, RIB, WITHDRAW
from bgpsim.rpki.bgpsec.sign import forward
from bgpsim.wire.encode import (
    announcements,
    bgpsec_update,
    path_attributes,
    withdrawals,
)

AS_SEQUENCE = 2


def nlri(route) -> bytes:
    """The route's prefix as NLRI encodes it (RFC 4271 section 4.3, RFC 4760 section 5)."""
    plen = route.plen
    width = 4 if route.afi == 1 else 16
    return bytes([plen]) + route.network.to_bytes(width, "big")[:(plen + 7) // 8]


def _origin(attrs) -> int:
    """ORIGIN as it goes on: the route's, INCOMPLETE where it had none (RFC 4271 section 5.1.1)."""
    return attrs.origin if attrs.origin is not None and attrs.origin <= 2 else 2


class AdjRibOut:
    """The routes announced to one peer, as `local_as` with next hops `next_hop4` and `next_hop6`;
    `ebgp` when the peer is of another AS."""

    def __init__(self, local_as: int, ebgp: bool, next_hop4: str | None, next_hop6: str | None,
                 signing_keys: dict | None = None, peer_as: int | None = None):
        self.local_as, self.ebgp = local_as, ebgp
        self.next_hop = {1: next_hop4, 2: next_hop6}
        self.keys, self.peer_as = signing_keys or {}, peer_as  # keys: AS -> SigningKey, for BGPsec
        self.signed = 0  # BGPsec UPDATEs sent
        self.routes: dict[tuple[int, bytes], bytes] = {}  # (AFI, NLRI) -> the attribute block sent with it
        self._exported: dict[int, tuple[object, dict[int, bytes]]] = {}  # id(Attrs) -> (Attrs, AFI -> block)
        self.sent = 0  # prefixes announced or withdrawn so far
        self.no_next_hop = 0  # routes left out: no next hop of their family

    def _block(self, attrs, afi: int) -> bytes:
        """Our attribute block for routes read with `attrs`, cached per Attrs object (routes share them)."""
        hit = self._exported.get(id(attrs))
        if hit is None or hit[0] is not attrs:
            hit = self._exported[id(attrs)] = (attrs, {})
            if len(self._exported) > 1 << 16:
                self._exported.clear()
                self._exported[id(attrs)] = hit
        block = hit[1].get(afi)
        if block is None:
            segments = [(t, list(asns)) for t, asns in attrs.as_path]
            if self.ebgp:  # RFC 4271 section 5.1.2: prepend to the leading AS_SEQUENCE, or begin one
                if segments and segments[0][0] == AS_SEQUENCE and len(segments[0][1]) < 255:
                    segments[0] = (AS_SEQUENCE, [self.local_as, *segments[0][1]])
                else:
                    segments.insert(0, (AS_SEQUENCE, [self.local_as]))
            block = hit[1][afi] = path_attributes(
                _origin(attrs), segments, self.next_hop[1] if afi == 1 else None,
                local_pref=None if self.ebgp else 100, atomic=attrs.atomic_aggregate, aggregator=attrs.aggregator,
                communities=attrs.communities, large=attrs.large_communities)
        return block

    def updates(self, routes) -> list[bytes]:
        """The UPDATEs that bring the peer from what it has to `routes` applied in order (announcements,
        RIB entries and withdrawals; a route whose family has no next hop here is left out). Only each
        prefix's last state is sent, so messages in any order give it."""
        last: dict[tuple[int, bytes], bytes | tuple | None] = {}  # a tuple: (a BGPsec UPDATE,)
        for r in routes:
            afi = r.afi
            if afi is None:
                continue
            if self.next_hop[afi] is None:
                self.no_next_hop += 1
                continue
            if r.kind == WITHDRAW:
                last[(afi, nlri(r))] = None
            elif r.kind in (ANNOUNCE, RIB) and r.attrs is not None:
                last[(afi, nlri(r))] = self._signed(r) or self._block(r.attrs, afi)
        plan: dict[tuple[int, bytes | None], list[bytes]] = {}  # (AFI, block or None: withdrawn) -> NLRI
        for key, block in last.items():
            if block is None:
                if self.routes.pop(key, None) is None:
                    continue
            elif self.routes.get(key) == block:
                continue
            else:
                self.routes[key] = block
            plan.setdefault((key[0], block), []).append(key[1])
            self.sent += 1
        return self._messages(plan)

    def _signed(self, route) -> tuple | None:
        """(the BGPsec UPDATE of `route`,) if every AS of its path, ours in front, can sign it."""
        if not self.keys or not self.ebgp:
            return None
        asns = [self.local_as]
        for stype, seq in route.attrs.as_path:
            if stype != AS_SEQUENCE:
                return None  # RFC 8205 section 4.1: no AS_SET in a BGPsec path
            asns.extend(seq)
        if any(a not in self.keys for a in asns):
            return None
        runs: list[list[int]] = []  # (AS, pCount): repeats of an AS as one Secure_Path Segment
        for a in asns:
            if runs and runs[-1][0] == a:
                runs[-1][1] += 1
            else:
                runs.append([a, 1])
        prefix = ipaddress.ip_network(route.prefix)
        path = None
        for i in range(len(runs) - 1, -1, -1):  # the origin first, each toward the more recent AS
            toward = runs[i - 1][0] if i else self.peer_as
            path = forward(path, self.keys[runs[i][0]], prefix, toward, runs[i][1])
        self.signed += 1
        return (bgpsec_update(path, prefix, ipaddress.ip_address(self.next_hop[route.afi]), _origin(route.attrs)),)

    def refresh(self, afi: int) -> list[bytes]:
        """Everything the peer has from us in `afi`, again (RFC 2918 section 4)."""
        plan: dict[tuple[int, bytes | None], list[bytes]] = {}
        for (a, n), block in self.routes.items():
            if a == afi:
                plan.setdefault((afi, block), []).append(n)
        return self._messages(plan)

    def _messages(self, plan) -> list[bytes]:
        out = []
        for (afi, block), prefixes in plan.items():
            if isinstance(block, tuple):
                out.extend(block)
            elif block is None:
                out.extend(withdrawals(afi, prefixes))
            else:
                out.extend(announcements(block, afi, prefixes, self.next_hop[2]))
        return out
