"""The routing model and the policies that change it.

The standard AS-level model of the literature (Gao & Rexford 2001; BGPy's conventions):

* a route is a path of AS indices, the neighbour it came from first, the origin last;
* import drops a path that holds the receiver (loop);
* preference: the AS's own route, then routes from customers, then peers, then providers; then the
  shorter AS path; then the lowest next-hop ASN (indices are in ASN order, so the index compares);
* export (Gao-Rexford): own and customer routes to every neighbour; peer and provider routes to
  customers only.

A `Policy` is a defence deployed by a set of adopting ASes. It answers the questions an adopter asks
of a route offered by a neighbour — accept it? how much do I prefer it? — from *route attributes*
that travel with the path (its ROV state, the ASPA up- and down-ramps, the BGPsec signature chain,
the OTC mark...). A policy says how an attribute starts at the origin (`start`) and how it changes
when one more AS takes the route (`extend`); its rules (`accept`, `prefer`) read the attributes of
the path as the neighbour sent it. Every method works on numpy arrays — the converged-state solver
asks for thousands of offers at once — and on numpy scalars: the timed engine folds `extend` along a
path it received (`check`). So each defence is written once and both engines use it.

An offer is a `Candidate`: sender `S`, receiver `T`, `rel` (what S is to T: CUSTOMER, PEER, PROVIDER,
or NOT_LINKED for the invented hops of a forged path), `n` (the length of the path S sends, S first)
and `a` (that path's attributes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgpsim.graph.topology import CUSTOMER, PEER, PROVIDER

ORIGIN = 0  # the relationship class of an AS's own route: preferred over everything it learns
NOT_LINKED = -1  # "rel" of a hop that is no link of the graph: a forged part of an announced path
ORIGIN_KEY = (ORIGIN, 0, 0, -1)  # the preference key of an AS's own route: below every learned route's

__all__ = ["ORIGIN", "ORIGIN_KEY", "NOT_LINKED", "CUSTOMER", "PEER", "PROVIDER", "Candidate", "PathBit", "Policy",
           "Leaker", "standard_key", "exportable"]


def standard_key(rel: int, path: tuple[int, ...], pref: int = 0) -> tuple[int, int, int, int]:
    """Preference key, smaller is better: relationship, the policy's preference (0 without one),
    path length, next-hop ASN (index)."""
    return (rel, pref, len(path), path[0] if path else -1)


def exportable(route_rel: int, neighbour_rel: int) -> bool:
    """Gao-Rexford: own and customer routes go to everyone; others only to customers."""
    return route_rel <= CUSTOMER or neighbour_rel == CUSTOMER


@dataclass(frozen=True)
class PathBit:
    """A one-bit route attribute that changes along a path as `bit & keep[T] | set[T]` when T takes
    S's route (BGPsec's `secure`, Peerlock's `tier1`), arrays over the ASes: `refuse` gives, per
    relationship class, the adopters that refuse a route with the bit set; `demote`, those that rank a
    route without it below one with it, right after the path length. The compiled sweeps carry it."""

    name: str
    keep: np.ndarray
    set: np.ndarray
    refuse: dict
    demote: np.ndarray | None = None


@dataclass(slots=True)
class Candidate:
    """Routes offered: S sends T the path it announces (length n, attributes a); arrays or scalars."""

    S: object
    T: object
    rel: object
    n: object
    a: dict


class Policy:
    """The standard model, deployed by `adopters`; subclasses change `accept` or `prefer` and add
    the attributes they need. `vrps` (an rpki.rov.VRPTable) gives every route its ROV state, the
    attribute `invalid` (1 when RFC 6811 says invalid), which every policy carries."""

    name = "bgp"
    prefer_after_length = False  # rank `prefer` after the path length instead of before it
    # True when the policy never rejects nor ranks down a route that a valid origin announced as
    # itself and that travelled by the routing model's rules: the solver then skips it for such
    # announcements (the victim's own prefix, mostly).
    honest_inert = True
    # True when accept and prefer read only the receiver, the relationship and attributes that
    # `extend` passes on unchanged (so they are the same all along a path).
    path_constant = False
    # Whether the policy checks routes against ROAs (ROV, or a check that uses ROAs), and whether it
    # includes ROV itself (BGPy's ASPA, PathEnd, ...); accept and prefer read a route's ROV state
    # (`invalid`) only then.
    checks_roas = False
    includes_rov = False

    def __init__(self, topo, adopters=(), vrps=None):
        self.topo = topo
        self.adopter = np.zeros(topo.n if topo is not None else 0, dtype=bool)
        self.adopter[np.asarray(adopters if isinstance(adopters, np.ndarray) else list(adopters), dtype=np.int64)] = True
        self.vrps = vrps
        self._invalid: dict = {}
        self._folds: dict = {}
        self._announced: dict = {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}: {int(self.adopter.sum())} adopters>"

    # ---- route attributes -------------------------------------------------------------------

    def invalid(self, prefix, origin: int) -> int:
        """1 when the route (prefix, origin index) is RPKI-invalid (RFC 6811), else 0."""
        key = (prefix, origin)
        bad = self._invalid.get(key)
        if bad is None:
            bad = 0
            if self.vrps is not None:
                from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH

                bad = int(self.vrps.validate(prefix, int(self.topo.asns[origin])) in (INVALID_ASN, INVALID_LENGTH))
            self._invalid[key] = bad
        return bad

    def start(self, prefix, origin: int) -> dict:
        """Attributes of the path (origin,)."""
        return {"invalid": self.invalid(prefix, origin)}

    def extend(self, c: Candidate) -> dict:
        """Attributes of the path T announces after taking S's: (T,) + S's path."""
        return {"invalid": c.a["invalid"]}

    # ---- rules (asked only for adopting receivers) --------------------------------------------

    def accept(self, c: Candidate):
        """Import filter, after the loop check."""
        return np.ones(np.shape(c.S), dtype=bool) if np.ndim(c.S) else np.True_

    def prefer(self, c: Candidate):
        """Preference right after the relationship class: 0 best. The standard model has none."""
        return np.zeros(np.shape(c.S), dtype=np.int64) if np.ndim(c.S) else 0

    @property
    def ranks(self) -> bool:
        """Whether `prefer` ranks routes (else it is 0 for every one)."""
        return type(self).prefer is not Policy.prefer

    def drops_session(self, sender: int, receiver: int, sent: int) -> bool:
        """Whether adopter `receiver` takes down its session with `sender` when it sends `sent`
        prefixes (a max-prefix limit); no policy but max-prefix does."""
        return False

    def flagged(self, prefix, origin: int) -> bool:
        """Whether an honest announcement of `prefix` by `origin` carries something the rules look at:
        an `honest_inert` policy changes nothing for the others. Its ROV state only where the rules
        read it: an RPKI-invalid origin's own announcement is all the same to `aspa-alone`."""
        return (self.checks_roas or self.includes_rov) and bool(self.invalid(prefix, origin))

    def path_bit(self, prefix) -> PathBit | None:
        """The one attribute, for `prefix`, that keeps this policy from being `honest_inert` or from
        taking every route an origin announces of itself, when it is one bit the compiled sweeps can
        carry (`PathBit`): then its rules for such an announcement are that bit's and `honest_accept`'s."""
        return None

    def honest_accept(self, prefix, origin: int, cls: int):
        """For an `honest_inert` policy (or one whose rules are so but for its `path_bit`): whether an
        adopter takes, over `cls`, every route of `origin`'s announcement of `prefix` as itself that
        travelled by the model's rules (a bool, or one per AS); None when that depends on the route.
        Unflagged, it takes them; a `path_constant` policy's rules read the origin's attributes; one
        that includes ROV checks nothing else such a route can fail (the test of each holds it to
        that), so takes them when the origin is valid."""
        if self.path_constant:
            return self.accept(Candidate(None, None, cls, None, self.start(prefix, origin)))
        if not self.flagged(prefix, origin):
            return True
        if self.includes_rov and type(self).flagged is Policy.flagged:
            return not self.invalid(prefix, origin)
        return None

    def exports(self, route_rel: int, neighbour_rel: int) -> bool:
        return exportable(route_rel, neighbour_rel)

    def key(self, rel: int, pref: int, length: int, sender: int) -> tuple[int, int, int, int]:
        """An adopter's preference key, smaller is better (see `standard_key`)."""
        return (rel, length, pref, sender) if self.prefer_after_length else (rel, pref, length, sender)

    def originate(self, prefix, at: int, path: tuple[int, ...]) -> dict:
        """Attributes of the announcement `path` that AS `at` makes up: (at,) when it originates the
        prefix, anything when it lies. What depends only on the path's content (origin, ramps,
        neighbours) is folded from it; a policy whose attributes are earned hop by hop (signatures,
        marks) overrides this to give what the announcer can really attach."""
        return self._fold(prefix, path, len(path) - 1, self.start(prefix, path[-1]))

    def announce(self, prefix, at: int, path: tuple[int, ...]) -> dict:
        """Register an origination (engines call this), so later paths ending in it fold from it."""
        a = self._announced[(prefix, path)] = self.originate(prefix, at, path)
        self._folds.clear()  # a path folded before may end in this announcement
        return a

    def _fold(self, prefix, path: tuple[int, ...], k: int, a: dict) -> dict:
        """Attributes of path[0:] from those of path[k:], one `extend` per hop."""
        rel_of = self.topo.relationship
        for j in range(k - 1, -1, -1):
            s, t = path[j + 1], path[j]
            rel = rel_of(t, s)
            a = self.extend(Candidate(np.int64(s), np.int64(t), np.int64(NOT_LINKED if rel is None else rel),
                                      np.int64(len(path) - 1 - j), a))
        return a

    # ---- one route at a time (the timed engine) -------------------------------------------------

    def attributes(self, prefix, path: tuple[int, ...]) -> dict:
        """Attributes of a received path (sender first): from the announcement it ends in, one
        `extend` per hop after it."""
        key = (prefix, path)
        a = self._folds.get(key)
        if a is None:
            for k in range(len(path)):
                a = self._announced.get((prefix, path[k:]))
                if a is not None:
                    break
            else:  # announced by no one we were told of: its origin, plainly
                k = len(path) - 1
                a = self.originate(prefix, path[-1], path[-1:])
            a = self._folds[key] = self._fold(prefix, path, k, a)
        return a

    def check(self, prefix, s: int, r: int, rel: int, path: tuple[int, ...]) -> int | None:
        """Adopter r is offered `path` by s over `rel`: None to reject, else its `prefer` value."""
        c = Candidate(np.int64(s), np.int64(r), np.int64(rel), np.int64(len(path)), self.attributes(prefix, path))
        if not self.accept(c):
            return None
        return int(self.prefer(c))


class Leaker(Policy):
    """A route leak (RFC 7908 type 1 and 4): re-export routes learned from a provider or peer to the
    other providers and peers, as a misconfigured multihomed AS does. Not a defence: it imports as
    the standard model does."""

    name = "leak"

    def __init__(self):
        super().__init__(None)

    def announce(self, prefix, at, path) -> dict:
        return {}

    def check(self, prefix, s, r, rel, path) -> int:
        return 0

    def exports(self, route_rel: int, neighbour_rel: int) -> bool:
        return True
