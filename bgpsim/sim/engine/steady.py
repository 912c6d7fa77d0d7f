"""Converged state of one prefix without simulating time, on whole arrays.

With Gao-Rexford preferences and export, a deterministic tie-break and policies that rank right after
the relationship class, the stable state is unique (Gao & Rexford 2001) and three sweeps build it,
as BGPy does:

1. up: rank by rank from the bottom of the customer-to-provider order, each AS without a route takes
   the best route its customers export (their own or customer routes) — customers are final first;
2. across: an AS still without a route takes the best route its peers learned from customers
   (decided on the state after sweep 1: one hop only);
3. down: rank by rank from the top, an AS still without a route takes the best of its providers'.

The standard model (no policy, or one whose verdict is the same for every offer of one seed's routes,
such as ROV, or ASPA on an origin's announcement of itself: per seed, a mask of the ASes that refuse
them) runs compiled, in core/steady.c: an AS offers
its route to its providers as it gets one, and each AS takes the best offer when its rank comes. A
policy that reads what each route carries runs here on whole arrays: each rank is one batch of
links, the offers on every link of the batch are scored at once (a policy answers for all of them,
see `bgpsim.policy`), and a segmented minimum over the links grouped by receiver picks each
receiver's route. The score packs the preference key in one int64 —
policy preference, path length, next-hop index — so the minimum is the routing decision. An AS's
state is its relationship class, next hop, the length of the path it announces, the seed (which
announcement) the route descends from, and the policy's route attributes.

A loop can only come from a seed's own path (every AS on a learned path already has a route and
takes no more), so import drops an offer when the receiver is on its seed's announced path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bgpsim import _core

from ..policy import CUSTOMER, ORIGIN, PEER, PROVIDER, Candidate, PathBit, Policy
from bgpsim.graph.topology import Adjacency

NONE = 9  # relationship class of an AS without a route
_BLOCKED = 8  # during one sweep: an AS the policy keeps from taking any offer (it has no route)
_NH_BITS = 24  # score = pref << 40 | length << 24 | next hop, or length << 32 | pref << 24 | next hop
_NH_MASK = (1 << _NH_BITS) - 1
_NO_OFFER = np.iinfo(np.int64).max
_MAX_KINDS = 8  # kinds of seed the compiled sweeps' masks tell apart (core/steady.c)


@dataclass(frozen=True)
class Seed:
    """AS `at` originates the prefix claiming `path` behind it: it announces (at,) + path, or `path`
    alone when `strip` (an attacker hiding its own ASN). `exclude`: neighbours it does not tell.
    `relay`: the path is a route `at` really learned (a leak), so it keeps the attributes it earned
    on the way; otherwise the announcement carries only what its announcer can attach."""

    at: int
    path: tuple[int, ...] = ()
    strip: bool = False
    exclude: frozenset = frozenset()
    relay: bool = False

    @property
    def announced(self) -> tuple[int, ...]:
        return self.path if self.strip else (self.at,) + self.path


class _Batch:
    """Links that deliver offers to receivers T from senders S, sorted by receiver, then sender."""

    __slots__ = ("T", "S", "starts", "Tu", "rank")

    def __init__(self, T: np.ndarray, S: np.ndarray, rank: int):
        order = np.lexsort((S, T))
        self.T = np.ascontiguousarray(T[order], dtype=np.int64)
        self.S = np.ascontiguousarray(S[order], dtype=np.int64)
        self.starts = np.flatnonzero(np.concatenate(([True], self.T[1:] != self.T[:-1])))
        self.Tu = self.T[self.starts]  # the receivers, once each
        self.rank = rank


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
        self.ranks = ranks
        self.top = int(ranks.max())  # the top rank, whose ASes have no providers
        self.up = [_Batch(prov[rp == r], cust[rp == r], int(r)) for r in np.unique(rp)]
        # Providers: which up batches an AS that just got a route offers to. Peers: few ASes have
        # customer routes to offer across, so the across sweep starts from them.
        self.providers = Adjacency(self.n, cust, prov)
        a, b = topo.p2p[:, 0].astype(np.int64), topo.p2p[:, 1].astype(np.int64)
        self.peers = Adjacency(self.n, np.concatenate([a, b]), np.concatenate([b, a]))
        self.down = [_Batch(cust[rc == r], prov[rc == r], int(r)) for r in np.unique(rc)[::-1]]
        # The lists of the compiled sweeps (core/steady.c), int32: the peers of each AS; the ASes by
        # ascending rank and each one's place in that order; the providers of each place.
        order = np.argsort(ranks, kind="stable")
        pos = np.empty(self.n, dtype=np.int64)
        pos[order] = np.arange(self.n)
        i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)
        csr = lambda adj: (i32(adj.start), i32(adj.to))
        self.core = (*csr(self.peers), *csr(Adjacency(self.n, pos[cust], prov)),
                     i32(order), i32(pos), i32(ranks), self.top)


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
    policy: Policy | None = None
    hole: np.ndarray | None = None  # int8, ROV++: 1 a blackhole kept, 2 one announced to customers

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

    def entries(self) -> list:
        """Every AS's route as the timed engine keeps it: (key, rel, path), or None. Each path is made
        once: an AS's is its next hop's with the next hop in front (the announcement, next to an
        origin), so next hops go first, by the length of what they announce."""
        rel, nh, seed = self.rel.tolist(), self.nh.tolist(), self.seed.tolist()
        paths: list = [None] * len(rel)
        for i in np.argsort(self.length, kind="stable").tolist():
            r = rel[i]
            if r == NONE:
                continue
            if r == ORIGIN:
                paths[i] = self.seeds[seed[i]].path
            else:
                j = nh[i]
                paths[i] = self.seeds[seed[j]].announced if rel[j] == ORIGIN else (j,) + paths[j]
        pol = self.policy
        out: list = [None] * len(rel)
        for i, path in enumerate(paths):
            if path is None:
                continue
            r = rel[i]
            if r == ORIGIN:
                out[i] = ((ORIGIN, 0, 0, -1), ORIGIN, path)
            elif pol is None or not pol.adopter[i]:
                out[i] = ((r, 0, len(path), path[0]), r, path)
            else:
                out[i] = (pol.key(r, int(self.pref[i]), len(path), path[0]), r, path)
        return out


def _verdicts(policy: Policy, prefix, seeds: list[Seed], attrs: dict, bit: PathBit | None) -> list | None:
    """Per seed, what `policy` says of every offer of its routes, `bit` aside: (whether an adopter takes
    it over CUSTOMER, PEER and PROVIDER, each a bool or one per AS; the preference), or None when that
    depends on the offer, or when the seeds' preferences differ (they would reorder the sweeps)."""
    ranked_by_bit = bit is not None and bit.demote is not None and policy.prefer_after_length
    out = []
    for s in seeds:
        if policy.path_constant:
            const = {k: v[s.at] for k, v in attrs.items()}
            oks = [policy.accept(Candidate(None, None, cls, None, const)) for cls in (CUSTOMER, PEER, PROVIDER)]
            pref = int(policy.prefer(Candidate(None, None, PROVIDER, None, const))) if policy.ranks else 0
        elif ((policy.honest_inert or bit is not None) and (not policy.ranks or ranked_by_bit)
              and len(s.announced) == 1 and not (s.strip or s.relay)):
            oks = [policy.honest_accept(prefix, s.at, cls) for cls in (CUSTOMER, PEER, PROVIDER)]
            if any(ok is None for ok in oks):
                return None
            pref = 0
        else:
            return None
        out.append((oks, pref))
    return out if len({pref for _, pref in out}) == 1 else None


def propagate(topo_or_plan, prefix, seeds: list[Seed], policy: Policy | None = None, covering: list[Ribs] = ()) -> Ribs:
    """Converged routes for `prefix` announced by `seeds`, with `policy` deployed by its adopters.
    `covering`: the routes of the prefixes that cover this one, for a policy that holds blackholes
    (ROV++, `bgpsim.sim.defences.rovpp`)."""
    plan = topo_or_plan if isinstance(topo_or_plan, Plan) else plan_for(topo_or_plan)
    n = plan.n
    seeds = list(seeds)  # ROV++ adds its AS0-ROA blackholes as seeds
    rovpp = getattr(policy, "blackholes", False)
    non_routed = rovpp and policy.non_routed(prefix)
    holes = non_routed or (rovpp and bool(covering))
    hole = np.zeros(n, dtype=np.int8) if holes else None
    rules = policy  # what the sweeps ask: None when the policy cannot change their outcome
    if (policy is not None and policy.honest_inert and not holes
            and all(len(s.announced) == 1 and not (s.strip or s.relay) for s in seeds)
            and not any(policy.flagged(prefix, s.at) for s in seeds)):
        rules = None  # it would change nothing here
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
        if rules is not None:
            got = rules.attributes(prefix, ann) if s.relay else rules.announce(prefix, s.at, ann)
            for name, v in got.items():
                v = np.asarray(v)
                if name not in attrs:
                    attrs[name] = np.zeros(n, dtype=v.dtype)
                attrs[name][s.at] = v
        if len(ann) > 1 or s.strip:
            if onpath is None:
                onpath = np.zeros((len(seeds), n), dtype=bool)
            onpath[k, list(ann)] = True
    # Where the policy's verdict on a seed's routes is the same for every offer of them (a policy whose
    # rules read only attributes that never change along a path, such as ROV's state; or any
    # `honest_inert` one on an origin's announcement of itself), it is a mask per seed and sweep: the
    # ASes that refuse that seed's routes; the ASes on a seed's own announced path (the loop check) are
    # in its masks too. The sweeps then run as for the standard model, carrying the one-bit attribute of
    # a policy whose rules are so but for that bit (BGPsec's `secure`).
    bit = None if rules is None or holes or rules.path_constant else rules.path_bit(prefix)
    verdicts = None if rules is None or holes else _verdicts(rules, prefix, seeds, attrs, bit)
    blocked = kinds = per_seed = None
    if verdicts is not None:
        masks: dict = {}  # one per distinct verdict: ROV's is the same for every relationship

        def mask(ok):
            key = bool(ok) if np.ndim(ok) == 0 else ok.tobytes()
            if key not in masks:  # read only
                if np.ndim(ok):
                    masks[key] = policy.adopter & ~ok
                else:  # one verdict for all: no adopter refuses, or every one does (its own mask)
                    masks[key] = np.zeros(n, dtype=bool) if key else policy.adopter
            return masks[key]

        per_seed = [tuple(mask(ok) for ok in oks) for oks, _ in verdicts]
    in_masks = onpath is not None and not excluded and len(seeds) <= _MAX_KINDS  # the loop check, that is
    if per_seed is None and rules is None and in_masks:
        per_seed = [(np.zeros(n, dtype=bool),) * 3] * len(seeds)
    if per_seed is not None and in_masks:
        per_seed = [tuple(m | onpath[k] for m in ms) if onpath[k].any() else ms for k, ms in enumerate(per_seed)]
        onpath = None
    if per_seed is not None:
        index = {tuple(map(id, ms)): ms for ms in per_seed}  # the distinct kinds of seed, in order
        if onpath is None and not excluded and len(index) <= _MAX_KINDS:  # the compiled sweeps
            kind = {key: k for k, key in enumerate(index)}
            kinds = (tuple(m.view(np.uint8) for ms in index.values() for m in ms),
                     np.asarray([kind[tuple(map(id, ms))] for ms in per_seed], dtype=np.int32))
        elif len(index) == 1 and bit is None:  # the array path, the receivers it refuses set aside
            blocked = dict(zip((CUSTOMER, PEER, PROVIDER), per_seed[0]))
    masked = verdicts is not None and (blocked is not None or kinds is not None)  # the policy's part
    if masked:
        const_pref = verdicts[0][1]
        if not rules.path_constant:  # attributes that change along a path are not carried, but the bit
            attrs = {k: v for k, v in attrs.items() if k == "invalid" or bit is not None and k == bit.name}
        rules = None
    adopter = rules.adopter if rules is not None else None
    prefers = rules is not None and rules.ranks  # else every score's pref is 0
    len_shift, pref_shift = (32, _NH_BITS) if rules is not None and rules.prefer_after_length else (_NH_BITS, 40)

    def offer(S: np.ndarray, T: np.ndarray, cls: int, sorted_by_receiver: bool = True) -> None:
        """Every receiver in T without a route takes the best of the senders' offers, if any."""
        if onpath is not None:
            keep = ~onpath[sd[S] if len(seeds) > 1 else 0, T]
            S, T = S[keep], T[keep]
        for at, ex in excluded:
            keep = ~((S == at) & np.isin(T, ex))
            S, T = S[keep], T[keep]
        score = (length[S] << len_shift) | S
        if rules is not None:
            c = Candidate(S, T, cls, length[S], {name: v[S] for name, v in attrs.items()})
            adopt = adopter[T]
            bad = adopt & ~rules.accept(c)
            if prefers:
                score |= np.where(adopt, rules.prefer(c), 0).astype(np.int64) << pref_shift
            score[bad] = _NO_OFFER
        if not T.size:
            return
        if sorted_by_receiver:
            starts = np.flatnonzero(np.concatenate(([True], T[1:] != T[:-1])))
            best = np.minimum.reduceat(score, starts)
            win = best != _NO_OFFER
            Tw, best = T[starts][win], best[win]
        else:
            best = np.full(n, _NO_OFFER, dtype=np.int64)
            np.minimum.at(best, T, score)
            Tw = np.flatnonzero(best != _NO_OFFER)
            best = best[Tw]
        settle(Tw, best, cls)

    def settle(Tw: np.ndarray, best: np.ndarray, cls: int) -> None:
        """Receivers Tw take the routes their best scores name."""
        Sw = best & _NH_MASK
        rel[Tw] = cls
        nh[Tw] = Sw
        length[Tw] = length[Sw] + 1
        if track:
            sd[Tw] = sd[Sw]
        if prefers:
            pref[Tw] = (best >> pref_shift) & 0xFF
        if rules is not None:
            c = Candidate(Sw, Tw, cls, length[Sw], {name: v[Sw] for name, v in attrs.items()})
            for name, v in rules.extend(c).items():
                attrs[name][Tw] = v
        if cls == CUSTOMER:
            wake(Tw)

    def wake(new: np.ndarray) -> None:
        """Mark the up batches (ranks) of the providers of ASes that now have routes to offer."""
        pending[plan.ranks[plan.providers.of(new)[1]]] = True

    def block(cls: int, mark):
        """Set aside the receivers the policy refuses in this sweep; the mask to lift after it."""
        if blocked is None:
            return None
        if same_everywhere and cls != CUSTOMER:
            return mark  # set aside since the up sweep
        mark = blocked[cls] & (rel == NONE)
        rel[mark] = _BLOCKED
        return mark

    def unblock(mark, cls: int) -> None:
        if mark is not None and (not same_everywhere or cls == PROVIDER):
            rel[mark] = NONE

    def place(cls: int, X: np.ndarray) -> None:
        """ROV++ (BGPy's ROVPPV1Lite._get_routed_blackholes_to_add): adopters among X with no valid
        route whose route for a covering prefix came over `cls` from N, where N sent this prefix
        with an invalid origin, hold a blackhole: N's route with themselves before it."""
        X = X[policy.adopter[X]]
        X = X[(rel[X] >= _BLOCKED) | ((rel[X] == ORIGIN) & (hole[X] > 0))]  # none, or an AS0-ROA one
        if non_routed and cls == PEER:
            X = X[plan.ranks[X] == plan.top]  # below the top, BGPy remakes the AS0 one before the providers'
        for c in covering:
            if not X.size:
                return
            on = c.rel[X] == cls
            T, S = X[on], c.nh[X[on]]
            if cls == PROVIDER:  # a provider sends every route, and a blackhole if it announces it
                sent = (rel[S] < _BLOCKED) & (hole[S] != 1)
            else:  # customers and peers send their own and customer routes, never a blackhole
                sent = (rel[S] <= CUSTOMER) & (hole[S] == 0)
            sent &= attrs["invalid"][S] == 1
            for at, ex in excluded:
                sent &= ~((S == at) & np.isin(T, ex))
            T, S = T[sent], S[sent]
            rel[T], nh[T], length[T], sd[T] = cls, S, length[S] + 1, sd[S]
            for v in attrs.values():
                v[T] = v[S]
            ks = np.unique(sd[T])
            told = np.zeros(len(seeds), dtype=bool)
            told[ks] = policy.announces_holes(cls, prefix, np.asarray([seeds[k].announced[-1] for k in ks.tolist()],
                                                                       dtype=np.int64))
            hole[T] = np.where(told[sd[T]], 2, 1)
            X = X[~np.isin(X, T)]

    track = len(seeds) > 1 or holes  # each route's seed
    if rules is None and onpath is None and not excluded:  # the standard model: compiled (core/steady.c)
        carried = None
        if bit is not None:
            on = np.zeros(n, dtype=np.uint8)
            at = [s.at for s in seeds]
            on[at] = attrs[bit.name][at]
            u8 = lambda m: None if m is None else m.view(np.uint8)
            carried = (on, u8(bit.keep), u8(bit.set), tuple(u8(bit.refuse.get(c)) for c in (CUSTOMER, PEER, PROVIDER)),
                       u8(bit.demote))
        _core.steady_sweeps(*plan.core, rel, nh, length, sd, np.asarray([s.at for s in seeds], dtype=np.int32),
                            kinds, carried)
    else:
        same_everywhere = blocked is not None and all(m is blocked[CUSTOMER] or np.array_equal(blocked[CUSTOMER], m)
                                                      for m in blocked.values())
        pending = np.zeros(int(plan.ranks.max()) + 2, dtype=bool)
        wake(np.asarray([s.at for s in seeds], dtype=np.int64))
        mark = block(CUSTOMER, None)
        for b in plan.up:
            if not pending[b.rank]:
                continue  # no AS below this rank has a route to offer up to it
            r = rel[b.S]
            idx = np.flatnonzero((r <= CUSTOMER) & (rel[b.T] == NONE))
            if idx.size:
                offer(b.S[idx], b.T[idx], CUSTOMER)
        unblock(mark, CUSTOMER)
        if non_routed:  # every adopter without a route holds the AS0 ROA's blackhole, as its own
            X = np.flatnonzero(policy.adopter & (rel == NONE))
            k = len(seeds)
            seeds += [Seed(int(x)) for x in X]
            rel[X], length[X], sd[X] = ORIGIN, 1, np.arange(k, len(seeds))
            attrs.setdefault("invalid", np.zeros(n, dtype=np.int64))[X] = 1
            hole[X] = np.where(policy.announces_holes(ORIGIN, prefix, X), 2, 1)
            if onpath is not None:
                onpath = np.vstack([onpath, np.zeros((len(X), n), dtype=bool)])
        elif holes:
            place(CUSTOMER, np.flatnonzero(rel == NONE))
        # Across: the peers of every AS with its own or a customer route, decided all at once.
        mark = block(PEER, mark)
        S, T = plan.peers.of(np.flatnonzero((rel <= CUSTOMER) & (hole == 0) if holes else rel <= CUSTOMER))
        keep = rel[T] == NONE
        offer(S[keep], T[keep], PEER, sorted_by_receiver=False)
        unblock(mark, PEER)
        if holes:
            place(PEER, np.flatnonzero((rel == NONE) | (hole > 0)))
        mark = block(PROVIDER, mark)
        for b in plan.down:
            sends = rel[b.S] < _BLOCKED
            if holes:
                sends &= hole[b.S] != 1
            idx = np.flatnonzero((rel[b.T] == NONE) & sends)
            if idx.size:
                offer(b.S[idx], b.T[idx], PROVIDER)
            if holes:
                place(PROVIDER, b.Tu)
        unblock(mark, PROVIDER)
        if not track:
            sd[rel != NONE] = 0
    if masked:  # each route's attributes are its seed's; the same preference
        routed = rel != NONE
        at = [s.at for s in seeds]
        for k, v in attrs.items():
            if bit is None or k != bit.name:
                got = v[at]
                if (got == got[0]).all():  # v is 0 but at the seeds, which are routed: one pass, not a masked write
                    np.multiply(routed, got[0], out=v, casting="unsafe")
                else:
                    v[routed] = got[sd[routed]]
        if const_pref and policy.ranks:
            pref[routed & policy.adopter & (rel != ORIGIN)] = const_pref
        if bit is not None:
            attrs[bit.name][:] = on
            if bit.demote is not None:  # ranked down: a route whose sender's bit is clear
                learned = np.flatnonzero(routed & (rel != ORIGIN))
                pref[learned] = bit.demote[learned] & (on[nh[learned]] == 0)
    return Ribs(prefix, seeds, rel, nh, length, sd, pref, attrs, policy, hole)
