"""Filters an operator configures by hand, without the RPKI (MANRS action 1; RFC 7454, BGP
Operations and Security; NIST SP 800-189 on prefix filtering).

* `maxlen`: drop IPv4 routes longer than /24 and IPv6 routes longer than /48 — the longest prefixes
  most networks accept (RFC 7454, BCP 194, on prefixes that are too specific), so a hijack of a more-specific /25 goes
  nowhere, while one of a /24 inside a /23 passes.
* `bogon`: drop routes for special-purpose prefixes (RFC 6890 registries) and routes whose AS_PATH
  holds a special-purpose AS number: reserved, AS_TRANS, documentation, private (RFC 7607, 6793,
  5398, 6996, 7300), as RFC 7454 and NIST SP 800-189 advise.

* `prefix-list`: on a customer session, accept only prefixes registered to an AS in the customer's
  cone, as the prefix lists operators build from IRR registrations for each customer (RFC 7454's
  filters on customer sessions; MANRS action 1). The registrations the simulation knows are the route origins it was
  given as ROAs (VRPs: each registers its prefix and everything inside it for its AS); a prefix no
  one registered is refused from every customer. It stops what comes up a customer session with
  the wrong origin, forged or not, and leaks of routes the customer's cone does not own.

* `max-prefix`: a session from a customer or a peer that carries more prefixes than the neighbour
  usually sends (one per AS of its customer cone) plus a headroom (default 1,000) goes down, as a
  router's maximum-prefix limit closes it (RFC 7454 on maximum prefixes; the NOTIFICATION is RFC
  4486's Cease subcode 1, Maximum Number of Prefixes Reached). It acts on leaks: a leaker re-exports every route it has from its providers and
  peers, one per AS outside its cone, which trips the limit of every adopting provider and peer.

maxlen and bogon do not look at the RPKI: an adopter drops what the rule says and nothing else
(compose with `rov` for both: `rov+maxlen`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bgpsim.base.bogons import prefix_kind

from ..policy import CUSTOMER, PEER, Candidate, PathBit, Policy

LONGEST = (24, 48)  # the longest IPv4 and IPv6 prefix `maxlen` accepts, by default
HEADROOM = 1000  # the prefixes `max-prefix` allows beyond a neighbour's usual, by default


def longest_limits(value) -> tuple[int, int]:
    """maxlen's limits from [24, 48] (a scenario) or "24,48" (the command line); a ValueError says
    what was wanted."""
    parts = value.split(",") if isinstance(value, str) else value
    try:
        v4, v6 = (int(x) if not isinstance(x, bool) and float(x) == int(x) else None for x in parts)
    except (TypeError, ValueError):
        v4 = v6 = None
    if v4 is None or v6 is None or not (8 <= v4 <= 32 and 16 <= v6 <= 128):
        raise ValueError(f"want the longest IPv4 and IPv6 prefix lengths accepted, such as 24,48 "
                         f"(IPv4 8 to 32, IPv6 16 to 128); got {value!r}")
    return v4, v6


class MaxLength(Policy):
    """Drop routes for prefixes longer than the limits (IPv4, IPv6)."""

    name = "maxlen"
    path_constant = True

    def __init__(self, topo, adopters=(), vrps=None, longest: tuple[int, int] = LONGEST):
        super().__init__(topo, adopters, vrps)
        self.longest = longest

    def too_long(self, prefix) -> int:
        return int(prefix.prefixlen > self.longest[prefix.version == 6])

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "long": self.too_long(prefix)}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "long": c.a["long"]}

    def accept(self, c: Candidate):
        return c.a["long"] == 0

    def flagged(self, prefix, origin: int) -> bool:
        return super().flagged(prefix, origin) or bool(self.too_long(prefix))


@lru_cache(maxsize=4096)
def bogon_prefix(prefix) -> bool:
    return prefix_kind(prefix) is not None


class Bogon(Policy):
    """Drop routes for bogon prefixes and routes whose path holds a bogon AS number."""

    name = "bogon"

    def __init__(self, topo, adopters=(), vrps=None):
        super().__init__(topo, adopters, vrps)
        self.bogon_as = topo.bogon_ases if topo is not None else np.zeros(0, dtype=bool)
        # honest routes are never dropped when no AS of the graph has a bogon number
        self.honest_inert = not self.bogon_as.any()

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "bogon": self.bogon_as[origin] | bogon_prefix(prefix)}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "bogon": c.a["bogon"] | self.bogon_as[c.T]}

    def accept(self, c: Candidate):
        return ~c.a["bogon"]

    def flagged(self, prefix, origin: int) -> bool:
        return super().flagged(prefix, origin) or bool(self.bogon_as[origin]) or bogon_prefix(prefix)


class PrefixList(Policy):
    """Accept from a customer only prefixes registered to an AS in its customer cone (the VRPs stand
    for the registrations)."""

    name = "prefix-list"

    def __init__(self, topo, adopters=(), vrps=None):
        super().__init__(topo, adopters, vrps)
        self._rows: dict = {}  # prefix -> row of `_allowed`
        self._allowed = np.zeros((0, topo.n if topo is not None else 0), dtype=bool)

    def row(self, prefix) -> int:
        """The row of `_allowed` for `prefix`: which ASes have one of its registered owners in their
        customer cone (themselves included), i.e. may send it to a provider."""
        k = self._rows.get(prefix)
        if k is None:
            owners = {v.asn for v in self.vrps.covering(prefix)} if self.vrps is not None else set()
            ok = np.zeros(self.topo.n, dtype=bool)
            ok[[self.topo.index[a] for a in owners if a in self.topo.index]] = True
            provider, customer = self.topo.p2c[:, 0], self.topo.p2c[:, 1]
            new = ok
            while new.any():  # up the provider links, a level at a time: every AS above an owner has it in its cone
                up = np.zeros_like(ok)
                up[provider[new[customer]]] = True
                new = up & ~ok
                ok = ok | new
            k = self._rows[prefix] = len(self._allowed)
            self._allowed = np.vstack([self._allowed, ok])
        return k

    def start(self, prefix, origin: int) -> dict:
        k = self.row(prefix)
        return {**super().start(prefix, origin), "plist": k, "unlisted": ~self._allowed[k, origin]}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "plist": c.a["plist"], "unlisted": ~self._allowed[c.a["plist"], c.T]}

    def accept(self, c: Candidate):
        return (c.rel != CUSTOMER) | ~c.a["unlisted"]  # `unlisted`: no owner in the sender's cone

    def flagged(self, prefix, origin: int) -> bool:
        k = self.row(prefix)  # first: it may grow the table
        return super().flagged(prefix, origin) or not self._allowed[k, origin]

    def path_bit(self, prefix) -> PathBit:
        # whether the AS that sends the route has no owner of the prefix in its cone: its own, not the path's
        unlisted = ~self._allowed[self.row(prefix)]
        return PathBit("unlisted", np.zeros_like(unlisted), unlisted, {CUSTOMER: self.adopter})

    def honest_accept(self, prefix, origin: int, cls: int):
        return True  # all it checks is in its bit


def positive(value) -> int:
    """A positive whole number (a limit), from TOML or the command line; a ValueError otherwise."""
    try:
        n = int(value) if not isinstance(value, bool) and float(value) == int(value) else 0
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise ValueError(f"want a positive whole number, got {value!r}")
    return n


class MaxPrefix(Policy):
    """Close a customer's or peer's session that exceeds its usual prefixes plus `headroom`."""

    name = "max-prefix"
    path_constant = True

    def __init__(self, topo, adopters=(), vrps=None, max_prefix: int = HEADROOM):
        super().__init__(topo, adopters, vrps)
        self.headroom = max_prefix

    def drops_session(self, sender: int, receiver: int, sent: int) -> bool:
        if not self.adopter[receiver] or self.topo.relationship(receiver, sender) not in (CUSTOMER, PEER):
            return False
        return sent > int(self.topo.cone_sizes[sender]) + self.headroom  # its cone's prefixes are its usual
