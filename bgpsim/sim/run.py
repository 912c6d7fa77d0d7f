"""Run a scenario on the timed engine and collect what happened."""

from __future__ import annotations

import random

from bgpsim.rpki.rov import VRPTable

from .dataplane import OUTCOMES, VICTIM, Forwarding
from .engine.events import EventQueue
from .defences import defence
from .engine.steady import Seed, propagate
from .engine.timed import TimedEngine
from bgpsim.base.errors import InputError
from .policy import ORIGIN
from bgpsim.base.prefix import covers, halves, sub_prefix
from .scenario import TIMED_ATTACKS, Scenario
from bgpsim.graph.topology import CUSTOMER, PEER, PROVIDER, Topology, load_topology
from .result import MAX_DRAWN_ASES, REL_NAMES, Run
from .weighting import weights

def _pick(rng: random.Random, candidates: list[int], avoid: set[int]) -> int:
    pool = [c for c in candidates if c not in avoid]
    if not pool:
        raise InputError("no stub AS left to draw from")
    return rng.choice(pool)


def _who(scn: Scenario, topo: Topology, rng: random.Random):
    """Attacker and victim: ASNs from the scenario, or drawn from the stubs. ASNs and indices."""
    stubs = [int(topo.asns[i]) for i in topo.stubs()]
    attack = scn.attack
    victim = scn.victim
    attacker = attack.attacker if attack else None
    if victim is None:
        victim = _pick(rng, stubs, {attacker} if attacker else set())
    if attack and attacker is None:
        attacker = _pick(rng, stubs, {victim})
    v = topo.idx(victim, "victim AS")
    a = topo.idx(attacker, "attacker AS") if attacker is not None else None
    if a is not None and a == v:
        raise InputError(f"attacker and victim are the same AS ({victim})")
    return attacker, victim, a, v


def _adopters(scn: Scenario, topo: Topology, rng: random.Random, a, v) -> list[int]:
    """Indices of the adopting ASes: the scenario's list, or a seeded share with the victim, never
    the attacker."""
    if scn.defence.adopters is not None:
        adopters = [topo.idx(x, "adopter AS") for x in scn.defence.adopters]
    else:
        others = [i for i in range(topo.n) if i != v and i != a]
        adopters = sorted(rng.sample(others, round(scn.defence.adoption * len(others))) + [v])
    return [i for i in adopters if i != a]


def simulate(scn: Scenario, topo: Topology | None = None, progress=None) -> Run:
    """Run `scn`. `progress(events, now)` is called now and then during the run."""
    topo = topo or load_topology(scn.topology)
    rng = random.Random(scn.seed)  # attacker, victim and adopters; the engine has its own stream
    attack = scn.attack

    if attack and attack.kind not in TIMED_ATTACKS:
        raise InputError(f"the {attack.kind} attack needs --engine steady; the timed engine runs {', '.join(TIMED_ATTACKS)}")
    attacker, victim, a, v = _who(scn, topo, rng)

    # What is announced: the victim's prefixes, the attacker's, the mitigation's, the events'.
    kind = attack.kind if attack else None
    attacked = None
    if attack:
        attacked = attack.prefix
        if attacked is None:
            attacked = sub_prefix(scn.prefixes[0]) if "subprefix" in kind else scn.prefixes[0]
        elif kind in ("prefix", "forged-origin", "intercept") and attacked not in scn.prefixes:
            raise InputError(f"a {kind} attack announces one of the victim's prefixes; {attacked} is not")
        elif "subprefix" in kind and not any(covers(p, attacked) and p != attacked for p in scn.prefixes):
            raise InputError(f"{attacked} is not more specific than a prefix of the victim")
    mitigation = list(scn.mitigation.prefixes) if scn.mitigation else []
    if scn.mitigation and not mitigation:
        mitigation = halves(attacked if attacked is not None else scn.prefixes[0])
    prefixes = list(dict.fromkeys(scn.prefixes + ([attacked] if attacked else []) + mitigation
                                  + [e.prefix for e in scn.events if e.prefix is not None]))
    pid = {p: k for k, p in enumerate(prefixes)}

    # Where packets go: a host address in the most specific prefix of the attack.
    target = scn.target
    if target is None:
        focus = attacked if attacked is not None else scn.prefixes[0]
        target = focus.network_address + (1 if focus.num_addresses > 1 else 0)
    covering = sorted((k for k, p in enumerate(prefixes) if p.version == target.version and target in p),
                      key=lambda k: -prefixes[k].prefixlen)
    if not covering:
        raise InputError(f"target {target} is in none of the scenario's prefixes")

    # Defence.
    policies = {}
    pol = None
    adopters: list[int] = []
    if scn.defence:
        adopters = _adopters(scn, topo, rng, a, v)
        pol = defence(scn.defence.policy, topo, adopters, VRPTable(scn.roas))
        policies = {i: pol for i in adopters}

    w, weighting_label = weights(scn.weighting, topo, target.version, scn.pfx2as)

    q = EventQueue()
    engine = TimedEngine(topo, prefixes, scn.timing, scn.seed, q, policies)
    # Announcements at t = 0: warm-started, or simulated from the start. (A squatter's victim announces nothing.)
    start_origins = {pid[p]: {v: ()} for p in scn.prefixes} if kind != "squat" else {}
    for e in scn.events:
        if e.type == "originate" and e.at == 0:
            start_origins.setdefault(pid[e.prefix], {})[topo.idx(e.asn, "event AS")] = ()
    if scn.warm_start:
        for p, origins in start_origins.items():
            seeds = [Seed(i, path) for i, path in origins.items()]
            engine.install(p, propagate(topo, prefixes[p], seeds, pol).entries())
    else:
        for p, origins in start_origins.items():
            for i in origins:
                q.at(0.0, engine.originate, i, p)

    fwd = Forwarding(engine.loc, covering, topo.n, a, v, w, snapshot_peak=topo.n <= MAX_DRAWN_ASES)
    watched = set(covering)
    engine.on_change = lambda i, p: fwd.update(i, q.now) if p in watched else None
    fwd.start(0.0)

    marks: list[dict] = []
    label = {"leak": "leak starts", "intercept": "interception starts"}.get(kind, "attack starts")
    if attack:
        k_att = pid[attacked]
        if kind == "leak":
            q.at(attack.start, engine.start_leak, a)
        elif kind in ("forged-origin", "forged-origin-subprefix"):
            q.at(attack.start, engine.originate, a, k_att, (v,))
        elif kind == "intercept":
            def intercept():
                # Keep the route toward the victim: do not tell the neighbour it goes through.
                cur = engine.loc[k_att][a]
                keep = [cur[2][0]] if cur is not None and cur[2] else []
                engine.originate(a, k_att, (v,), exclude=keep)
            q.at(attack.start, intercept)
        else:
            q.at(attack.start, engine.originate, a, k_att)
        marks.append({"time": attack.start, "label": label})
        if attack.stop is not None:
            if kind == "leak":
                q.at(attack.stop, engine.set_policy, a, policies.get(a))
            else:
                q.at(attack.stop, engine.withdraw, a, k_att)
            marks.append({"time": attack.stop, "label": "leak stops" if kind == "leak" else "attack stops"})
    if scn.mitigation:
        for p in mitigation:
            q.at(scn.mitigation.start, engine.originate, v, pid[p])
        marks.append({"time": scn.mitigation.start, "label": "victim announces more-specifics"})
    for e in scn.events:
        if e.type == "originate" and e.at > 0:  # those at t = 0 are in start_origins
            q.at(e.at, engine.originate, topo.idx(e.asn, "event AS"), pid[e.prefix])
        elif e.type == "withdraw":
            q.at(e.at, engine.withdraw, topo.idx(e.asn, "event AS"), pid[e.prefix])
        elif e.type in ("link-down", "link-up"):
            x, y = (topo.idx(s, "event AS") for s in e.link)
            engine.session(x, y)  # fail now, not mid-run, if they are not neighbours
            q.at(e.at, engine.link_down if e.type == "link-down" else engine.link_up, x, y)
            marks.append({"time": e.at, "label": f"link AS{e.link[0]}-AS{e.link[1]} {'fails' if e.type == 'link-down' else 'restored'}"})
        if e.type in ("originate", "withdraw") and e.at > 0:
            marks.append({"time": e.at, "label": f"AS{e.asn} {e.type}s {e.prefix}"})

    q.run(until=scn.until, tick=progress)
    if progress is not None:
        progress(q.processed, q.now)

    outcome = dict(zip(OUTCOMES, fwd.fractions()))
    diverted = fwd.final_diverted()
    asns = topo.asns.tolist()
    ases = []
    outcomes = {}
    for i, asn in enumerate(asns):
        entry, pfx = None, None
        for k in covering:
            if engine.loc[k][i] is not None:
                entry, pfx = engine.loc[k][i], prefixes[k]
                break
        path = engine.adv[covering[0] if pfx is None else pid[pfx]][i]
        out = OUTCOMES[fwd.outcome[i]]
        outcomes[asn] = out
        ases.append({
            "asn": asn, "name": topo.names.get(asn, ""), "role": topo.roles.get(asn, ""), "outcome": out,
            "switched_at": "" if fwd.changed_at[i] is None else round(fwd.changed_at[i], 6),
            "attacker_at": "" if fwd.attacker_at[i] is None else round(fwd.attacker_at[i], 6),
            "prefix": "" if pfx is None else str(pfx),
            "path": "" if path is None else " ".join(str(asns[x]) for x in path),
            "relationship": "none" if entry is None else REL_NAMES[entry[1]],
        })

    result = {
        "scenario": {
            "name": scn.name, "description": scn.description, "source": scn.source,
            "attack": None if not attack else {"kind": kind, "prefixes": [str(attacked)], "start": attack.start, "stop": attack.stop},
            "mitigation": None if not scn.mitigation else {"start": scn.mitigation.start, "prefixes": [str(p) for p in mitigation]},
            "defence": None if not scn.defence else {"policy": scn.defence.policy, "adopters": len(adopters)},
            "timing": {"mrai": scn.timing.mrai, "mrai_jitter": list(scn.timing.jitter),
                       "mrai_withdrawals": scn.timing.mrai_withdrawals, "link_delay": str(scn.timing.link_delay),
                       "processing_delay": str(scn.timing.processing_delay), "warm_start": scn.warm_start},
            "victim_prefixes": [str(p) for p in scn.prefixes],
            "target": str(target),
        },
        "seed": scn.seed,
        "topology": {"name": topo.name, "source": topo.source, "ases": topo.n, "links": topo.links},
        "attacker": attacker, "victim": victim,
        "events": q.processed, "messages": engine.messages,
        "converged": not q,  # false when the run stopped at timing.until with events still queued
        "converged_at": round(engine.last_change, 6),
        "outcome": {k: round(x, 6) for k, x in outcome.items()},
        "traffic": {"weighting": weighting_label, "diverted": round(diverted, 6)},
        "peak": {"attacker": round(fwd.peak[0] / (fwd.sources or 1), 6), "at": round(fwd.peak[1], 6),
                 "diverted": round(max(0.0, fwd.peak_diverted), 6)},
        "marks": marks,
        "timeline": [[round(r[0], 6), round(r[1], 6), round(r[2], 6)] for r in fwd.timeline],
    }
    if kind == "intercept":
        result["interception"] = _interception(engine, fwd, pid[attacked], a, v, asns)
    peak = None
    if fwd.peak_outcome is not None:
        peak = {asn: OUTCOMES[o] for asn, o in zip(asns, fwd.peak_outcome)}
    return Run(scn, topo, result, ases, fwd.timeline, outcomes, peak)


def _interception(engine, fwd, p, a, v, asns) -> dict:
    """Does the attacker still have a working route to forward intercepted traffic to the victim?"""
    rib = engine.rib_in[p][a] or {}
    best = min(rib.values()) if rib else None
    if best is None:
        return {"route_to_victim": None, "delivered": False}
    first = best[2][0]
    return {"route_to_victim": " ".join(str(asns[x]) for x in (a,) + best[2]),
            "delivered": first == v or fwd.outcome[first] == VICTIM}


def converged(scn: Scenario, topo: Topology | None = None) -> Run:
    """The scenario's attack on the converged-state engine: no time, the routes it settles to."""
    from . import trial
    from .steady_report import steady_result

    topo = topo or load_topology(scn.topology)
    rng = random.Random(scn.seed)
    if scn.attack is None:
        raise InputError("the steady engine runs an attack: give --attack KIND (or a scenario with [attack])")
    for what, given in (("events", scn.events), ("mitigation", scn.mitigation)):
        if given:
            raise InputError(f"the steady engine computes one converged state; the scenario's {what} needs the timed engine")
    attacker, victim, a, v = _who(scn, topo, rng)
    prefix = scn.prefixes[0]
    policy, adopters = None, []
    if scn.defence:
        policy = scn.defence.policy
        adopters = _adopters(scn, topo, rng, a, v)
    vrps = VRPTable(scn.roas) if scn.roas else None
    res = trial.run(topo, scn.attack.kind, a, v, policy, adopters, prefix=prefix, vrps=vrps)
    return steady_result(scn, topo, res, attacker, victim, len(adopters))
