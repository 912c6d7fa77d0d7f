"""One converged-state attack trial: who announces what, the routes that result, where packets go.

Conventions are BGPy's, so results compare: the victim announces 1.2.0.0/16 and holds a ROA for it
(maxLength 16); a sub-prefix attack announces 1.2.3.0/24. Every AS forwards on the most specific
prefix it has a route for, hop by hop; the attacker and the victim are their own outcome, and the
fractions count every other AS.
"""

from __future__ import annotations

import ipaddress
from collections import deque
from dataclasses import dataclass

import numpy as np

from bgpsim.rpki.rov import VRP, VRPTable

from .dataplane import ATTACKER, DISCONNECTED, LOOP, OUTCOMES, VICTIM
from .defences import defence
from .engine.steady import NONE, Plan, Ribs, Seed, plan_for, propagate
from bgpsim.base.errors import InputError
from .policy import Policy
from bgpsim.base.prefix import sub_prefix

PREFIX = ipaddress.ip_network("1.2.0.0/16")
SUBPREFIX = ipaddress.ip_network("1.2.3.0/24")
MAX_HOPS = 64  # BGPy's data plane gives up (a loop) after this many ASes

ATTACKS = {
    "prefix": "the attacker originates the victim's prefix",
    "subprefix": "the attacker originates a more-specific prefix inside the victim's",
    "forged-origin": "the attacker announces the victim's prefix with path [attacker, victim]",
    "forged-origin-subprefix": "a more-specific prefix with path [attacker, victim]",
    "squat": "the attacker originates space the victim holds but does not announce",
    "first-asn-strip": "the attacker relays the victim's prefix with its own ASN removed: path [victim]",
    "shortest-path": "the shortest path the defence still accepts: plain origin against no defence, "
                     "forged origin against ROV, a real neighbour of the victim against path-end, "
                     "an up-ramp of ASPA-less providers against ASPA",
    "leak": "the attacker, a multihomed customer, re-exports its route to the victim to its other "
            "providers and peers",
    "intercept": "forged-origin announcement to every neighbour but the one the attacker keeps for "
                 "forwarding to the victim",
}


def vrps_for(topo, victim: int, prefix=PREFIX) -> VRPTable:
    """The victim's ROA: its prefix (1.2.0.0/16), maxLength its length."""
    return VRPTable([VRP(prefix, prefix.prefixlen, int(topo.asns[victim]))])


@dataclass
class Result:
    """Outcome of every AS (codes of bgpsim.dataplane) and the routes behind it."""

    outcome: np.ndarray  # int8 per AS
    ribs: list[Ribs]  # per announced prefix, most specific first
    attacker: int
    victim: int

    def fractions(self) -> dict[str, float]:
        """Share of ASes (attacker and victim aside) with each outcome."""
        mask = np.ones(len(self.outcome), dtype=bool)
        mask[[self.attacker, self.victim]] = False
        counts = np.bincount(self.outcome[mask], minlength=len(OUTCOMES))
        total = max(int(mask.sum()), 1)
        return {name: float(counts[k]) / total for k, name in enumerate(OUTCOMES)}

    def diverted(self, weights: np.ndarray) -> float:
        """Share of the traffic of the other ASes, each weighing `weights[i]`, that reaches the attacker."""
        w = np.asarray(weights, dtype=float).copy()
        w[[self.attacker, self.victim]] = 0
        total = w.sum()
        return float(w[self.outcome == ATTACKER].sum() / total) if total else 0.0


def _shortest_path_claim(topo, victim: int, pol: Policy | None) -> tuple[int, ...] | None:
    """The path (after the attacker) of the shortest announcement `pol` accepts; None: plain origin."""
    name = pol.name if pol is not None else "bgp"
    adopts = pol.adopter if pol is not None else np.zeros(topo.n, dtype=bool)
    if name == "path-end" and adopts[victim]:
        nbrs = sorted(topo.customers[victim] + topo.peers[victim] + topo.providers[victim])
        return (nbrs[0], victim) if nbrs else (victim,)
    if name == "aspa":
        # Up-ramp: a chain of providers from the victim ending at an AS without an ASPA record, which
        # may then name the attacker as its provider. Breadth first, lowest ASN first.
        prev = {victim: None}
        todo = deque([victim])
        while todo:
            x = todo.popleft()
            if not adopts[x]:
                chain = []
                while x is not None:
                    chain.append(x)
                    x = prev[x]
                return tuple(chain)
            for p in sorted(topo.providers[x]):
                if p not in prev:
                    prev[p] = x
                    todo.append(p)
        return (victim,)  # every AS up the chain has a record: nothing passes; forge the origin
    if name in ("rov", "rov-deprefer", "peer-rov", "bgpsec", "path-end"):
        return (victim,)
    return None


def announcements(topo, kind: str, attacker: int, victim: int, pol: Policy | None,
                  plan: Plan | None = None, prefix=PREFIX, subprefix=SUBPREFIX) -> dict:
    """{prefix: [Seed, ...]} for one attack; the leak and the interception look at the routes first."""
    if kind not in ATTACKS:
        raise InputError(f"unknown attack {kind!r}; want one of {', '.join(ATTACKS)}")
    legit = [Seed(victim)]
    if kind == "prefix":
        return {prefix: legit + [Seed(attacker)]}
    if kind == "subprefix":
        return {prefix: legit, subprefix: [Seed(attacker)]}
    if kind == "forged-origin":
        return {prefix: legit + [Seed(attacker, (victim,))]}
    if kind == "forged-origin-subprefix":
        return {prefix: legit, subprefix: [Seed(attacker, (victim,))]}
    if kind == "squat":
        return {prefix: [Seed(attacker)]}
    if kind == "first-asn-strip":
        return {prefix: legit + [Seed(attacker, (victim,), strip=True)]}
    if kind == "shortest-path":
        claim = _shortest_path_claim(topo, victim, pol)
        return {prefix: legit + [Seed(attacker, claim or ())]}
    # leak, intercept: what the attacker does depends on the route it has.
    before = propagate(plan or topo, prefix, legit, pol)
    path = before.path(attacker)
    if path is None:
        return {prefix: legit}  # nothing to leak or to forward on
    if kind == "leak":
        return {prefix: legit + [Seed(attacker, path, relay=True)]}
    return {prefix: legit + [Seed(attacker, (victim,), exclude=frozenset({path[0]}))]}


def trace(ribs: list[Ribs], n: int, attacker: int, victim: int) -> np.ndarray:
    """Data-plane outcome of every AS: follow next hops, each AS on its own most specific route; the
    attacker and the victim are their own outcome, and so end every walk that reaches them; an
    origin other than those two ends it "disconnected" (BGPy's rule)."""
    out = np.full(n, -1, dtype=np.int8)
    out[attacker], out[victim] = ATTACKER, VICTIM
    for k, r in enumerate(ribs):  # most specific first
        role = np.asarray([ATTACKER if s.at == attacker else VICTIM if s.at == victim else DISCONNECTED
                           for s in r.seeds], dtype=np.int8)
        x = np.flatnonzero((out < 0) & (r.rel != NONE))
        if not x.size:
            continue
        seed_at = np.asarray([s.at for s in r.seeds])
        through = ((r.nh == attacker) | (r.nh == victim)) & (r.nh != seed_at[r.seed])
        if k == 0 and not through.any():
            out[x] = role[r.seed[x]]  # every hop takes this prefix too: the route's announcer it is
            continue
        cur = r.nh[x]
        for _ in range(MAX_HOPS + 1):
            own = cur < 0  # x is an origin of this prefix
            out[x[own]] = role[r.seed[x[own]]]
            x, cur = x[~own], cur[~own]
            if not x.size:
                break
            o = out[cur]
            done = o >= 0  # a hop with a known outcome (a more specific route, or the walk's end)
            out[x[done]] = o[done]
            x, cur = x[~done], cur[~done]
            end = r.nh[cur] < 0  # the hop originates this prefix
            out[x[end]] = role[r.seed[cur[end]]]
            x, cur = x[~end], r.nh[cur[~end]]
        out[x] = LOOP
    out[out < 0] = DISCONNECTED
    return out


def run(topo, kind: str, attacker: int, victim: int, policy: str | None = None, adopters=(),
        plan: Plan | None = None, prefix=PREFIX, vrps: VRPTable | None = None) -> Result:
    """One trial on the converged state. `adopters` are AS indices deploying `policy`; `vrps`
    default to the victim's ROA for `prefix`; a sub-prefix attack takes its first /24 (/48)."""
    if attacker == victim:
        raise InputError(f"attacker and victim are the same AS ({topo.asns[victim]})")
    plan = plan or plan_for(topo)
    if vrps is None:
        vrps = vrps_for(topo, victim, prefix)
    pol = defence(policy, topo, adopters, vrps) if policy not in (None, "none", "bgp") else None
    sub = SUBPREFIX if prefix == PREFIX else sub_prefix(prefix)
    ann = announcements(topo, kind, attacker, victim, pol, plan, prefix, sub)
    ribs = [propagate(plan, p, seeds, pol) for p, seeds in sorted(ann.items(), key=lambda kv: -kv[0].prefixlen)]
    return Result(trace(ribs, topo.n, attacker, victim), ribs, attacker, victim)
