"""One converged-state attack trial: who announces what, the routes that result, where packets go.

Conventions are BGPy's, so results compare: the victim announces 1.2.0.0/16 and holds a ROA for it
(maxLength 16); a sub-prefix attack announces 1.2.3.0/24. Every AS forwards on the most specific
prefix it has a route for, hop by hop; the attacker and the victim are their own outcome, and the
fractions count every other AS.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

import numpy as np

from bgpsim.rpki.rov import VRPTable

from bgpsim import _core

from .dataplane import ATTACKER, DISCONNECTED, OUTCOMES, VICTIM
from .defences import defence
from .attacks import attack, victim_roa
from .engine.steady import Plan, Ribs, plan_for, propagate
from bgpsim.base.errors import InputError
from bgpsim.base.prefix import sub_prefix

PREFIX = ipaddress.ip_network("1.2.0.0/16")
SUBPREFIX = ipaddress.ip_network("1.2.3.0/24")
MAX_HOPS = 64  # BGPy's data plane gives up (a loop) after this many ASes


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


def trace(ribs: list[Ribs], n: int, attacker: int, victim: int) -> np.ndarray:
    """Data-plane outcome of every AS: follow next hops, each AS on its own most specific route; the
    attacker and the victim are their own outcome, and so end every walk that reaches them; an
    origin other than those two ends it "disconnected" (BGPy's rule). The walks are compiled
    (core/steady_trace.c), a prefix at a time, most specific first."""
    out = np.full(n, -1, dtype=np.int8)
    out[attacker], out[victim] = ATTACKER, VICTIM
    for k, r in enumerate(ribs):
        role = np.asarray([ATTACKER if s.at == attacker else VICTIM if s.at == victim else DISCONNECTED
                           for s in r.seeds], dtype=np.int8)
        seed_at = np.asarray([s.at for s in r.seeds], dtype=np.int64)
        _core.steady_trace(out, r.rel, r.nh, r.seed, role, seed_at, r.hole, k == 0, MAX_HOPS, attacker, victim)
    out[out < 0] = DISCONNECTED
    return out


def run(topo, kind: str, attacker: int, victim: int, policy: str | None = None, adopters=(),
        plan: Plan | None = None, prefix=PREFIX, vrps: VRPTable | None = None, attack_prefix=None,
        via: int | None = None, **settings) -> Result:
    """One trial on the converged state. `adopters` are AS indices deploying `policy` (with
    `settings`, see bgpsim.sim.defences.defence); `vrps` default to the victim's ROA for `prefix`; a
    sub-prefix attack takes `attack_prefix`, by default the first /24 (/48) of `prefix`; a leak, `via`
    (an ASN: the neighbour whose route the leaker leaks; default its best)."""
    if attacker == victim:
        raise InputError(f"attacker and victim are the same AS ({topo.asns[victim]})")
    att = attack(kind, via=via, prefix=attack_prefix if via is not None else None)
    if not att.steady:
        raise InputError(f"the {kind} attack needs the timed engine (--engine timed): routing at rest has no "
                         "withdrawal in flight")
    if vrps is None:
        vrps = VRPTable([victim_roa(prefix, int(topo.asns[victim]), att)])
    sub = attack_prefix or (SUBPREFIX if prefix == PREFIX else sub_prefix(prefix))
    pol = defence(policy, topo, adopters, vrps, **settings) if policy not in (None, "none", "bgp") else None
    plan = plan or plan_for(topo)
    ann = att.seeds(topo, attacker, victim, pol, plan, prefix, sub)
    if getattr(pol, "blackholes", False):  # ROV++ blackholes AS0-ROA space covering the victim's, announced or not
        for v in vrps.covering(prefix):
            if v.asn == 0:
                ann.setdefault(v.prefix, [])
    done: dict = {}
    for p, seeds in sorted(ann.items(), key=lambda kv: kv[0].prefixlen):  # a covering prefix first
        done[p] = propagate(plan, p, seeds, pol, [r for q, r in done.items() if q.version == p.version and p.subnet_of(q)])
    ribs = sorted(done.values(), key=lambda r: -r.prefix.prefixlen)
    return Result(trace(ribs, topo.n, attacker, victim), ribs, attacker, victim)
