"""The attacks, one class per kind: what the attacker announces and when, for both engines.

As in BGPy's scenario classes, each attack says who announces what: on the converged state, the
seeds (origins and forged paths) of each prefix (`seeds`); on the timed engine, what the attacker
does when the attack starts and when it stops (`start`, `stop`). An attack in a scenario carries its
attacker, its start and stop times and, optionally, the prefix it announces (`announced` derives and
checks it). Leaks and interceptions look at the routes the attacker has before they act.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bgpsim.base.errors import InputError
from bgpsim.base.prefix import Prefix, covers, sub_prefix, super_prefix
from bgpsim.rpki.rov import VRP

from .engine.steady import Plan, Seed, propagate
from .policy import Policy


@dataclass
class Attack:
    """One attack of a scenario; the subclasses are the kinds."""

    attacker: int | None = None  # ASN; drawn among the stubs when None
    start: float = 0.0  # simulated seconds (the timed engine)
    stop: float | None = None  # withdrawn (a leak: stopped) then; None: never
    prefix: Prefix | None = None  # what the attacker announces; derived from the victim's when None
    # a leak: the neighbour (ASN) whose routes the leaker prefers and leaks; with `prefix`, a
    # more-specific of the victim's that this neighbour sends the leaker alone (a BGP optimizer's)
    via: int | None = None

    kind: ClassVar[str]
    help: ClassVar[str]
    timed: ClassVar[bool] = True  # the timed engine runs it (else: --engine steady only)
    steady: ClassVar[bool] = True  # the converged-state engine runs it (else: the timed engine only)
    more_specific: ClassVar[bool] = False  # announces a prefix inside the victim's
    exact: ClassVar[bool] = False  # announces one of the victim's own prefixes
    victim_announces: ClassVar[bool] = True  # a squatter's victim announces nothing
    routed: ClassVar[bool] = True  # False: the victim's space is held under an AS0 ROA (BGPy's non-routed kinds)
    superprefix: ClassVar[bool] = False  # the attacker also announces the prefix 8 bits shorter
    start_label: ClassVar[str] = "attack starts"
    stop_label: ClassVar[str] = "attack stops"

    def announced(self, victim_prefixes: list[Prefix]) -> Prefix:
        """The prefix the attacker announces, on both engines (the one place of this default): the
        scenario's, checked, or the victim's first (its first /24 or /48 for a sub-prefix attack)."""
        p = self.prefix
        if p is None:
            return sub_prefix(victim_prefixes[0]) if self.more_specific else victim_prefixes[0]
        if self.exact and p not in victim_prefixes:
            raise InputError(f"a {self.kind} attack announces one of the victim's prefixes; {p} is not")
        if self.more_specific and not any(covers(v, p) and v != p for v in victim_prefixes):
            raise InputError(f"{p} is not more specific than a prefix of the victim")
        return p

    def announces(self, attacked: Prefix) -> list[Prefix]:
        """Every prefix the attacker announces, `attacked` being the one whose traffic is followed."""
        return [attacked, super_prefix(attacked)] if self.superprefix else [attacked]

    # ---- the converged state -------------------------------------------------------------------
    def seeds(self, topo, attacker: int, victim: int, pol: Policy | None, plan: Plan | None,
              prefix: Prefix, subprefix: Prefix) -> dict[Prefix, list[Seed]]:
        """{prefix: [Seed, ...]}: who originates what, with which path, on the converged state."""
        raise NotImplementedError

    # ---- the timed engine ----------------------------------------------------------------------
    def start_on(self, engine, a: int, v: int, k: int) -> None:
        """At `start`: the attacker (index a) announces prefix k (the victim is index v)."""
        engine.originate(a, k)

    def stop_on(self, engine, a: int, k: int, policy) -> None:
        """At `stop`: the announcement is withdrawn; `policy` is the attacker's own defence."""
        engine.withdraw(a, k)


class PrefixHijack(Attack):
    kind = "prefix"
    help = "the attacker originates the victim's prefix"
    exact = True

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(victim), Seed(attacker)]}


class SubprefixHijack(Attack):
    kind = "subprefix"
    help = "the attacker originates a more-specific prefix inside the victim's"
    more_specific = True

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(victim)], subprefix: [Seed(attacker)]}


class ForgedOrigin(Attack):
    kind = "forged-origin"
    help = "the attacker announces the victim's prefix with path [attacker, victim]"
    exact = True

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(victim), Seed(attacker, (victim,))]}

    def start_on(self, engine, a, v, k):
        engine.originate(a, k, (v,))


class ForgedOriginSubprefix(ForgedOrigin):
    kind = "forged-origin-subprefix"
    help = "a more-specific prefix with path [attacker, victim]"
    exact = False
    more_specific = True

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(victim)], subprefix: [Seed(attacker, (victim,))]}


class Squat(Attack):
    kind = "squat"
    help = "the attacker originates space the victim holds, does not announce, and covers with an AS0 ROA"
    victim_announces = False
    routed = False

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(attacker)]}


class SuperprefixPrefix(Attack):
    kind = "superprefix-prefix"
    help = ("the attacker originates the victim's prefix and the prefix 8 bits shorter around it, which no "
            "ROA covers: where ROV drops the first, traffic follows the second")
    exact = True
    superprefix = True

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {p: [Seed(victim)] * (p == prefix and self.victim_announces) + [Seed(attacker)]
                for p in self.announces(prefix)}

    def start_on(self, engine, a, v, k):
        for p in self.announces(engine.prefixes[k]):
            engine.originate(a, engine.prefixes.index(p))

    def stop_on(self, engine, a, k, policy):
        for p in self.announces(engine.prefixes[k]):
            engine.withdraw(a, engine.prefixes.index(p))


class NonRoutedSuperprefixPrefix(SuperprefixPrefix):
    kind = "non-routed-superprefix-prefix"
    help = ("the victim announces nothing and holds its space under an AS0 ROA; the attacker originates its "
            "prefix and the prefix 8 bits shorter around it")
    victim_announces = False
    routed = False


class NonRoutedSuperprefix(NonRoutedSuperprefixPrefix):
    kind = "non-routed-superprefix"
    help = ("the victim announces nothing and holds its space under an AS0 ROA; the attacker originates the "
            "prefix 8 bits shorter around it")

    def announces(self, attacked):
        return [super_prefix(attacked)]


class FirstAsnStrip(Attack):
    kind = "first-asn-strip"
    help = "the attacker relays the victim's prefix with its own ASN removed: path [victim]"
    timed = False

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(victim), Seed(attacker, (victim,), strip=True)]}


class ShortestPath(Attack):
    kind = "shortest-path"
    help = ("the shortest path the defence still accepts: plain origin against no defence, forged origin "
            "against ROV, a real neighbour of the victim against path-end, an up-ramp of ASPA-less providers "
            "against ASPA")
    timed = False

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        return {prefix: [Seed(victim), Seed(attacker, self.claim(topo, victim, pol) or ())]}

    @staticmethod
    def claim(topo, victim: int, pol: Policy | None) -> tuple[int, ...] | None:
        """The path (after the attacker) of the shortest announcement `pol` accepts; None: plain origin."""
        name = pol.name if pol is not None else "bgp"
        adopts = pol.adopter if pol is not None else np.zeros(topo.n, dtype=bool)
        if name == "path-end" and adopts[victim]:
            nbrs = sorted(topo.neighbours(victim))
            return (nbrs[0], victim) if nbrs else (victim,)
        if name == "aspa":
            # Up-ramp: a chain of providers from the victim ending at an AS without an ASPA record,
            # which may then name the attacker as its provider. Breadth first, lowest ASN first.
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


PREFERRED = 1000  # a LOCAL_PREF above every relationship's: the leaker's routes from `via` win


class Leak(Attack):
    kind = "leak"
    help = ("the attacker, a multihomed customer, re-exports its route to the victim to its other providers "
            "and peers")
    start_label = "leak starts"
    stop_label = "leak stops"

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        ribs = propagate(plan or topo, prefix, [Seed(victim)], pol)
        if self.via is None:
            path = ribs.path(attacker)
        else:  # the route `via` gives it, if `via` has one that does not go through the leaker
            s = self.neighbour(topo, attacker)
            theirs = ribs.path(s)  # () when `via` is the victim itself
            path = (s,) + theirs if theirs is not None and attacker not in theirs else None
        if path is None:
            return {prefix: [Seed(victim)]}  # nothing to leak
        # Sessions closed by a max-prefix limit carry none of the leak. (The leaker's own route is the
        # one it had with every session up: on the timed engine a closed session can change it.)
        leaked = Seed(attacker, path, relay=True, exclude=self.closing(topo, attacker, pol))
        if self.via is None or self.prefix is None:
            return {prefix: [Seed(victim), leaked]}
        s = path[0]  # `via` announces the more-specific to the leaker alone, with its own route's path
        others = frozenset(topo.neighbours(s)) - {attacker}
        return {prefix: [Seed(victim)], self.prefix: [Seed(s, path[1:], exclude=others), leaked]}

    @staticmethod
    def closing(topo, attacker: int, pol) -> frozenset:
        """The neighbours that close their session with the leaker: it re-exports a route for every
        AS outside its cone on top of its cone's own, one prefix per AS, the whole table."""
        if pol is None:
            return frozenset()
        return frozenset(r for r in topo.providers[attacker] + topo.peers[attacker] if pol.drops_session(attacker, r, topo.n))

    def neighbour(self, topo, attacker: int) -> int:
        """`via` as an index, checked to be the leaker's neighbour."""
        s = topo.idx(self.via, "via AS")
        if topo.relationship(attacker, s) is None:
            raise InputError(f"AS{self.via} (via) is not a neighbour of the leaker AS{topo.asns[attacker]}")
        return s

    def start_on(self, engine, a, v, k):
        if self.via is not None:
            s = self.neighbour(engine.topo, a)
            if self.prefix is not None:  # `via` sends the leaker alone a more-specific, with its own path
                outer = next(q for q, x in enumerate(engine.prefixes)
                             if q != k and x.version == self.prefix.version and self.prefix.subnet_of(x))
                cur = engine.loc[outer][s]
                if cur is not None:
                    engine.originate(s, k, cur[2], exclude=set(engine.topo.neighbours(s)) - {a})
            else:  # the leaker takes what `via` sends it over everything else
                engine.configure(a, s, local_pref=PREFERRED)
        engine.start_leak(a)

    def stop_on(self, engine, a, k, policy):
        if self.via is not None:
            s = self.neighbour(engine.topo, a)
            if self.prefix is not None:
                engine.withdraw(s, k)
            else:
                engine.configure(a, s, reset=True)
        engine.set_policy(a, policy)


class Zombie(Attack):
    """Withdrawal suppression (RFC 4271 section 9.1.3 unmet): from `start` the attacker sends no
    withdrawals; at `stop` the victim withdraws its prefix, and the attacker's neighbours keep the
    route: a zombie, whose traffic ends at the attacker. RoST (`--policy rost`) finds it. Routing at
    rest has no withdrawal in flight: the timed engine only."""

    kind = "zombie"
    help = ("the attacker sends no withdrawals; the victim withdraws its prefix at the attack's stop, and the "
            "attacker's neighbours keep the route (a zombie)")
    exact = True
    steady = False
    start_label = "the attacker stops sending withdrawals"
    stop_label = "the victim withdraws its prefix"

    def announced(self, victim_prefixes):
        if self.stop is None:
            raise InputError("a zombie attack needs stop (in the scenario's [attack] table): when the victim "
                             "withdraws its prefix")
        return super().announced(victim_prefixes)

    def start_on(self, engine, a, v, k):
        engine.suppress(a)
        engine.q.at(self.stop, engine.withdraw, v, k)  # the victim, at the attack's stop

    def stop_on(self, engine, a, k, policy):
        pass  # what stops is the victim's route (start_on scheduled it); the attacker stays silent


class Intercept(Attack):
    kind = "intercept"
    help = "forged-origin announcement to every neighbour but the one the attacker keeps for forwarding to the victim"
    exact = True
    start_label = "interception starts"

    def seeds(self, topo, attacker, victim, pol, plan, prefix, subprefix):
        path = propagate(plan or topo, prefix, [Seed(victim)], pol).path(attacker)
        if path is None:
            return {prefix: [Seed(victim)]}  # no route to forward on
        return {prefix: [Seed(victim), Seed(attacker, (victim,), exclude=frozenset({path[0]}))]}

    def start_on(self, engine, a, v, k):
        # Keep the route toward the victim: do not tell the neighbour it goes through.
        cur = engine.loc[k][a]
        keep = [cur[2][0]] if cur is not None and cur[2] else []
        engine.originate(a, k, (v,), exclude=keep)


KINDS: dict[str, type[Attack]] = {c.kind: c for c in (
    PrefixHijack, SubprefixHijack, ForgedOrigin, ForgedOriginSubprefix, Squat, SuperprefixPrefix,
    NonRoutedSuperprefix, NonRoutedSuperprefixPrefix, FirstAsnStrip, ShortestPath, Leak, Intercept, Zombie)}
TIMED_KINDS = tuple(k for k, c in KINDS.items() if c.timed)
STEADY_KINDS = tuple(k for k, c in KINDS.items() if c.steady)


def victim_roa(prefix: Prefix, victim: int, att: Attack | None = None) -> VRP:
    """The ROA of a scenario that names none, as BGPy has it: the victim's for its prefix, maxLength
    its length; AS0's for space the victim does not route (a non-routed attack)."""
    return VRP(prefix, prefix.prefixlen, victim if att is None or att.routed else 0)


def attack(kind: str, **fields) -> Attack:
    """The attack of kind `kind` (an InputError naming the kinds otherwise)."""
    try:
        return KINDS[kind](**fields)
    except KeyError:
        raise InputError(f"unknown attack {kind!r}; want one of {', '.join(KINDS)}") from None
