"""Converged state of one prefix without simulating time, on whole arrays.

With Gao-Rexford preferences and export, a deterministic tie-break and policies that rank right after
the relationship class, the stable state is unique (Gao & Rexford 2001) and three sweeps build it,
as BGPy does:

1. up: rank by rank from the bottom of the customer-to-provider order, each AS without a route takes
   the best route its customers export (their own or customer routes) — customers are final first;
2. across: an AS still without a route takes the best route its peers learned from customers
   (decided on the state after sweep 1: one hop only);
3. down: rank by rank from the top, an AS still without a route takes the best of its providers'.

Each rank is one batch of links: the offers on every link of the batch are scored at once (a policy
answers for all of them, see `bgpsim.policy`), and a segmented minimum over the links grouped by
receiver picks each receiver's route. The score packs the preference key in one int64 —
policy preference, path length, next-hop index — so the minimum is the routing decision. An AS's
state is its relationship class, next hop, the length of the path it announces, the seed (which
announcement) the route descends from, and the policy's route attributes.

A loop can only come from a seed's own path (every AS on a learned path already has a route and
takes no more), so import drops an offer when the receiver is on its seed's announced path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..policy import CUSTOMER, ORIGIN, PEER, PROVIDER, Candidate, Policy

NONE = 9  # relationship class of an AS without a route
_NH_BITS, _LEN_SHIFT, _PREF_SHIFT = 24, 24, 40  # score = pref << 40 | length << 24 | next hop
_NH_MASK = (1 << _NH_BITS) - 1
_NO_OFFER = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Seed:
    """AS `at` originates the prefix claiming `path` behind it: it announces (at,) + path, or `path`
    alone when `strip` (an attacker hiding its own ASN). `exclude`: neighbours it does not tell."""

    at: int
    path: tuple[int, ...] = ()
    strip: bool = False
    exclude: frozenset = frozenset()

    @property
    def announced(self) -> tuple[int, ...]:
        return self.path if self.strip else (self.at,) + self.path


class _Batch:
    """Links that deliver offers to receivers T from senders S, sorted by receiver, then sender."""

    __slots__ = ("T", "S")

    def __init__(self, T: np.ndarray, S: np.ndarray):
        order = np.lexsort((S, T))
        self.T = np.ascontiguousarray(T[order], dtype=np.int64)
        self.S = np.ascontiguousarray(S[order], dtype=np.int64)


class Plan:
    """A topology cut into the solver's batches; built once, used for every propagation."""

    def __init__(self, topo):
        if topo.n > _NH_MASK:
            raise ValueError(f"{topo.n} ASes: the solver packs indices in {_NH_BITS} bits")
        self.topo = topo
        self.n = topo.n
        ranks = topo.ranks
        prov, cust = topo.p2c[:, 0].astype(np.int64), topo.p2c[:, 1].astype(np.int64)
        rp, rc = ranks[prov], ranks[cust]
        self.up = [_Batch(prov[rp == r], cust[rp == r]) for r in np.unique(rp)]
        a, b = topo.p2p[:, 0].astype(np.int64), topo.p2p[:, 1].astype(np.int64)
        self.across = _Batch(np.concatenate([a, b]), np.concatenate([b, a]))
        self.down = [_Batch(cust[rc == r], prov[rc == r]) for r in np.unique(rc)[::-1]]


def plan_for(topo) -> Plan:
    """The topology's plan, built on first use and kept on it."""
    plan = topo.__dict__.get("_steady_plan")
    if plan is None:
        plan = topo.__dict__["_steady_plan"] = Plan(topo)
    return plan


@dataclass
class Ribs:
    """The converged Loc-RIB of every AS for one prefix, as arrays."""

    prefix: object
    seeds: list[Seed]
    rel: np.ndarray  # int8: ORIGIN, CUSTOMER, PEER, PROVIDER or NONE
    nh: np.ndarray  # int64: next hop; -1 for origins and ASes without a route
    length: np.ndarray  # int64: length of the path the AS announces (0: no route)
    seed: np.ndarray  # int64: index into seeds of the announcement the route descends from; -1: none
    pref: np.ndarray  # int64: the policy's preference value of the route (0 without a policy)
    attrs: dict = field(default_factory=dict)  # the policy's route attributes, one array each

    def has_route(self) -> np.ndarray:
        return self.rel != NONE

    def path(self, i: int) -> tuple[int, ...] | None:
        """AS i's Loc-RIB path (next hop first), or None."""
        if self.rel[i] == NONE:
            return None
        out = []
        j = i
        while self.rel[j] != ORIGIN:
            j = int(self.nh[j])
            out.append(j)
        s = self.seeds[int(self.seed[j])]
        return tuple(out[:-1]) + s.announced if out else s.path

    def entry(self, i: int):
        """AS i's route as the timed engine keeps it: (key, rel, path), or None."""
        path = self.path(i)
        if path is None:
            return None
        rel = int(self.rel[i])
        if rel == ORIGIN:
            return ((ORIGIN, 0, 0, -1), ORIGIN, path)
        return ((rel, int(self.pref[i]), len(path), path[0]), rel, path)

    def entries(self) -> list:
        return [self.entry(i) for i in range(len(self.rel))]


def propagate(topo_or_plan, prefix, seeds: list[Seed], policy: Policy | None = None) -> Ribs:
    """Converged routes for `prefix` announced by `seeds`, with `policy` deployed by its adopters."""
    plan = topo_or_plan if isinstance(topo_or_plan, Plan) else plan_for(topo_or_plan)
    n = plan.n
    rel = np.full(n, NONE, dtype=np.int8)
    nh = np.full(n, -1, dtype=np.int64)
    length = np.zeros(n, dtype=np.int64)
    sd = np.full(n, -1, dtype=np.int64)
    pref = np.zeros(n, dtype=np.int64)
    attrs: dict[str, np.ndarray] = {}
    onpath = None
    excluded = [(s.at, np.fromiter(s.exclude, dtype=np.int64)) for s in seeds if s.exclude]
    for k, s in enumerate(seeds):
        if rel[s.at] != NONE:
            raise ValueError(f"two seeds at AS index {s.at}")
        ann = s.announced
        rel[s.at], length[s.at], sd[s.at] = ORIGIN, len(ann), k
        if policy is not None:
            for name, v in policy.attributes(prefix, ann).items():
                v = np.asarray(v)
                if name not in attrs:
                    attrs[name] = np.zeros(n, dtype=v.dtype)
                attrs[name][s.at] = v
        if len(ann) > 1 or s.strip:
            if onpath is None:
                onpath = np.zeros((len(seeds), n), dtype=bool)
            onpath[k, list(ann)] = True
    adopter = policy.adopter if policy is not None else None

    def offer(b: _Batch, cls: int, from_customers: bool) -> None:
        S, T = b.S, b.T
        r = rel[S]
        ok = (r <= CUSTOMER) if from_customers else (r != NONE)
        ok &= rel[T] == NONE
        idx = np.flatnonzero(ok)
        if not idx.size:
            return
        S, T = S[idx], T[idx]
        if onpath is not None:
            keep = ~onpath[sd[S], T]
            S, T = S[keep], T[keep]
        for at, ex in excluded:
            keep = ~((S == at) & np.isin(T, ex))
            S, T = S[keep], T[keep]
        score = (length[S] << _LEN_SHIFT) | S
        if policy is not None:
            c = Candidate(S, T, cls, length[S], {name: v[S] for name, v in attrs.items()})
            adopt = adopter[T]
            bad = adopt & ~policy.accept(c)
            score |= np.where(adopt, policy.prefer(c), 0).astype(np.int64) << _PREF_SHIFT
            score[bad] = _NO_OFFER
        if not T.size:
            return
        starts = np.flatnonzero(np.concatenate(([True], T[1:] != T[:-1])))
        best = np.minimum.reduceat(score, starts)
        win = best != _NO_OFFER
        Tw, best = T[starts][win], best[win]
        Sw = best & _NH_MASK
        rel[Tw] = cls
        nh[Tw] = Sw
        length[Tw] = length[Sw] + 1
        sd[Tw] = sd[Sw]
        pref[Tw] = best >> _PREF_SHIFT
        if policy is not None:
            c = Candidate(Sw, Tw, cls, length[Sw], {name: v[Sw] for name, v in attrs.items()})
            for name, v in policy.extend(c).items():
                attrs[name][Tw] = v

    for b in plan.up:
        offer(b, CUSTOMER, True)
    offer(plan.across, PEER, True)
    for b in plan.down:
        offer(b, PROVIDER, False)
    return Ribs(prefix, list(seeds), rel, nh, length, sd, pref, attrs)
