"""The attack plan: who attacks whom and who deploys the defence (drawn with the scenario's seed
where the scenario leaves it open), and what a run reports of its scenario."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bgpsim.base.errors import InputError

from ..graph.topology import Topology
from .defences import settings_text
from .result import DefenceInfo, ScenarioInfo, TopologyInfo
from .scenario import Scenario


@dataclass(frozen=True)
class Parties:
    """Attacker and victim as ASNs and as AS indices (the attacker None without an attack), and
    the indices of the adopters."""

    attacker: int | None
    victim: int
    a: int | None
    v: int
    adopters: list[int]


def parties(scn: Scenario, topo: Topology) -> Parties:
    """Attacker and victim: the scenario's, or drawn from the stubs; then the adopters: the
    scenario's list, or a seeded share with the victim, never the attacker."""
    rng = random.Random(scn.seed)  # attacker, victim and adopters; the engine has its own stream
    stubs = [int(topo.asns[i]) for i in topo.stubs()]
    victim = scn.victim
    attacker = scn.attack.attacker if scn.attack else None
    if victim is None:
        victim = _pick(rng, stubs, {attacker} if attacker else set())
    if scn.attack and attacker is None:
        attacker = _pick(rng, stubs, {victim})
    v = topo.idx(victim, "victim AS")
    a = topo.idx(attacker, "attacker AS") if attacker is not None else None
    if a is not None and a == v:
        raise InputError(f"attacker and victim are the same AS ({victim})")
    adopters: list[int] = []
    if scn.defence:
        if scn.defence.adopters is not None:
            adopters = [topo.idx(x, "adopter AS") for x in scn.defence.adopters]
        else:
            others = [i for i in range(topo.n) if i != v and i != a]
            adopters = sorted(rng.sample(others, round(scn.defence.adoption * len(others))) + [v])
        adopters = [i for i in adopters if i != a]
    return Parties(attacker, victim, a, v, adopters)


def _pick(rng: random.Random, candidates: list[int], avoid: set[int]) -> int:
    pool = [c for c in candidates if c not in avoid]
    if not pool:
        raise InputError("no stub AS left to draw from")
    return rng.choice(pool)


def scenario_info(scn: Scenario, who: Parties, target, attack=None, mitigation=None, timing=None) -> ScenarioInfo:
    return ScenarioInfo(
        name=scn.name, description=scn.description, source=scn.source, attack=attack, mitigation=mitigation,
        defence=DefenceInfo(scn.defence.policy, len(who.adopters),
                            settings_text(scn.defence.policy, scn.defence.settings))
        if scn.defence else None,
        timing=timing,
        victim_prefixes=[str(p) for p in scn.prefixes], target=str(target), attributes=scn.attributes())


def topology_info(topo: Topology) -> TopologyInfo:
    return TopologyInfo(topo.name, topo.source, topo.n, topo.links)
