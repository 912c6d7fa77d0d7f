"""The attack plan: a scenario resolved once against its topology, for either engine. Who attacks
whom and who deploys the defence (drawn with the scenario's seed where the scenario leaves it open),
what is announced and whose traffic is followed, every AS the scenario names as an index, and the
traffic weights; then what a run reports of its scenario."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from bgpsim.base.errors import InputError
from bgpsim.base.prefix import halves

from ..graph.topology import Topology, load_topology
from .attacks import victim_roa
from .defences import settings_text
from .result import DefenceInfo, ScenarioInfo, TopologyInfo
from .scenario import Scenario
from .weighting import weights

# collector peers by default: the ASes with the largest customer cones, the kind of large transit
# networks that feed RIS and RouteViews full tables, and far enough from both parties to show the
# hijack arriving
COLLECTOR_PEERS = 5


@dataclass(frozen=True)
class AttackPlan:
    """A scenario on a topology, every choice made. Indices are the topology's (AS i is
    `topo.asns[i]`); `a` is None without an attack."""

    scn: Scenario
    topo: Topology
    attacker: int | None  # ASNs
    victim: int
    a: int | None  # their indices
    v: int
    adopters: list[int]
    attacked: object  # the prefix the attacker announces (None without an attack)
    mitigation: list  # the victim's more-specifics (empty without a mitigation)
    prefixes: list  # every prefix the run announces: the victim's, the attacker's, the mitigation's, the events'
    target: object  # the address whose traffic is followed
    weights: np.ndarray  # traffic of each source AS
    weighting: str  # what the weights are, for reports
    events: list = field(default_factory=list)  # (event, its ASes' indices)
    sessions: list = field(default_factory=list)  # (session setting, the (AS, neighbour) index pairs it sets)
    tap: list[int] | None = None  # ASes whose sessions are recorded (--pcap)
    peers: list[int] | None = None  # collector peers (--publish)
    roas: list = field(default_factory=list)  # the VRPs both engines check against (at the start)

    @property
    def pid(self) -> dict:
        return {p: k for k, p in enumerate(self.prefixes)}

    @property
    def covering(self) -> list[int]:
        """The prefixes (indices) holding the target, most specific first."""
        t = self.target
        return sorted((k for k, p in enumerate(self.prefixes) if p.version == t.version and t in p),
                      key=lambda k: -self.prefixes[k].prefixlen)


def resolve(scn: Scenario, topo: Topology | None = None, *, tap: list[int] | None = None,
            peers: list[int] | None = None, publish: bool = False, where: dict | None = None) -> AttackPlan:
    """`scn` on `topo` (loaded from the scenario without it). `tap`: the ASNs whose sessions are
    recorded (None: none; empty: the attacker's and the victim's). `peers`: the collector peers'
    ASNs; with `publish` and none given, the largest transit networks. `where`: for each ASN given
    on the command line, where it was written, to name in the error when it is not in the graph."""
    topo = topo or load_topology(scn.topology)
    where = where or {}
    rng = random.Random(scn.seed)  # attacker, victim and adopters; the engine has its own stream
    attack = scn.attack
    victim, attacker = scn.victim, attack.attacker if attack else None
    stubs = [int(topo.asns[i]) for i in topo.stubs()] if victim is None or (attack and attacker is None) else []
    if victim is None:
        pool = [s for s in stubs if s != attacker]
        victim = rng.choice(pool) if pool else None
    if attack and attacker is None:
        pool = [s for s in stubs if s != victim]
        attacker = rng.choice(pool) if pool else None
    if victim is None or (attack and attacker is None):
        raise InputError("no stub AS left to draw from")
    if victim == attacker:
        raise InputError(f"attacker and victim are the same AS ({victim})")
    if tap is not None and not tap:
        tap = [x for x in (attacker, victim) if x is not None]
    if publish and not peers:
        peers = topo.largest_cones(COLLECTOR_PEERS, exclude={attacker, victim})

    def index(asn: int, what: str) -> int:  # every AS named, looked up here and nowhere else
        if asn not in topo.index:
            raise InputError(f"{where.get(asn, what)}: AS{asn} is not in the topology {topo.source or topo.name}")
        return topo.index[asn]

    v = index(victim, "victim")
    a = index(attacker, "attacker") if attacker is not None else None
    adopters: list[int] = []
    if scn.defence and scn.defence.adopters is not None:
        adopters = [index(x, "adopter") for x in scn.defence.adopters]
    elif scn.defence:
        others = [i for i in range(topo.n) if i != v and i != a]
        adopters = sorted(rng.sample(others, round(scn.defence.adoption * len(others))) + [v])
    events = [(e, tuple(index(x, "event") for x in (e.link or (e.asn,)) if x is not None)) for e in scn.events]
    sessions = [(x, [(index(x.asn, "session"), s) for s in topo.neighbours(index(x.asn, "session"))]
                 if x.neighbour is None else [(index(x.asn, "session"), index(x.neighbour, "session neighbour"))])
                for x in scn.sessions]
    tap = None if tap is None else [index(x, "--pcap-ases") for x in tap]
    peers = None if peers is None else [index(x, "--publish-ases") for x in peers]

    attacked = attack.announced(scn.prefixes) if attack else None
    mitigation = list(scn.mitigation.prefixes) if scn.mitigation else []
    if scn.mitigation and not mitigation:
        mitigation = halves(attacked if attacked is not None else scn.prefixes[0])
    prefixes = list(dict.fromkeys(scn.prefixes + (attack.announces(attacked) if attack else []) + mitigation
                                  + [e.prefix for e in scn.events if e.prefix is not None]))
    target = scn.target_address()
    w, label = weights(scn.weighting, topo, target.version, scn.pfx2as)
    # a scenario that says nothing of ROAs: the victim's for its first prefix (AS0's if it routes none)
    roas = list(scn.roas) if scn.roas or scn.roa_changes else [victim_roa(scn.prefixes[0], victim, attack)]
    return AttackPlan(scn, topo, attacker, victim, a, v, [i for i in adopters if i != a], attacked, mitigation,
                      prefixes, target, w, label, events, sessions, tap, peers, roas)


def scenario_info(plan: AttackPlan, attack=None, mitigation=None, timing=None) -> ScenarioInfo:
    scn = plan.scn
    return ScenarioInfo(
        name=scn.name, description=scn.description, source=scn.source, attack=attack, mitigation=mitigation,
        defence=DefenceInfo(scn.defence.policy, len(plan.adopters),
                            settings_text(scn.defence.policy, scn.defence.settings))
        if scn.defence else None,
        timing=timing,
        victim_prefixes=[str(p) for p in scn.prefixes], target=str(plan.target), attributes=scn.attributes())


def topology_info(topo: Topology) -> TopologyInfo:
    return TopologyInfo(topo.name, topo.source, topo.n, topo.links)
