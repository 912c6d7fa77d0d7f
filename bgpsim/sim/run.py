"""A scenario on the timed engine: the plan's announcements and events scheduled on the event
queue, the data plane followed as routes change, and what happened as a RunResult."""

from __future__ import annotations

from bgpsim.base.errors import InputError
from bgpsim.base.prefix import halves
from bgpsim.rpki.rov import VRPTable

from ..graph.topology import Topology, load_topology
from .attacks import TIMED_KINDS, Leak
from .dataplane import OUTCOMES, VICTIM, Forwarding
from .defences import defence
from .engine.events import EventQueue
from .engine.steady import Seed, propagate
from .engine.timed import TimedEngine
from .journal import Journal
from .plan import parties, scenario_info, topology_info
from .result import (MAX_DRAWN_ASES, REL_NAMES, AsRow, AttackInfo, Interception, Mark, MitigationInfo,
                     Peak, RunResult, Shares, TimingInfo, Traffic)
from .scenario import Scenario
from .weighting import weights


def simulate(scn: Scenario, topo: Topology | None = None, progress=None, tap: list[int] | None = None,
             observer=None) -> RunResult:
    """Run `scn`. `progress(events, now)` is called now and then during the run. `tap`: ASNs whose
    sessions are recorded (the result's `wiretap` then writes them as a capture). `observer`: its
    `attach(engine)` is called once the start is set up and before the first event, to watch the run
    (bgpsim.live.simfeed.CollectorPeers chains `engine.on_change`)."""
    topo = topo or load_topology(scn.topology)
    attack = scn.attack
    if attack and not attack.timed:
        raise InputError(f"the {attack.kind} attack needs --engine steady; the timed engine runs {', '.join(TIMED_KINDS)}")
    who = parties(scn, topo)
    a, v = who.a, who.v

    # What is announced: the victim's prefixes, the attacker's, the mitigation's, the events'.
    attacked = attack.announced(scn.prefixes) if attack else None
    mitigation = list(scn.mitigation.prefixes) if scn.mitigation else []
    if scn.mitigation and not mitigation:
        mitigation = halves(attacked if attacked is not None else scn.prefixes[0])
    prefixes = list(dict.fromkeys(scn.prefixes + ([attacked] if attacked else []) + mitigation
                                  + [e.prefix for e in scn.events if e.prefix is not None]))
    pid = {p: k for k, p in enumerate(prefixes)}

    # Where packets go: a host address in the most specific prefix of the attack.
    target = scn.target_address()
    covering = sorted((k for k, p in enumerate(prefixes) if p.version == target.version and target in p),
                      key=lambda k: -prefixes[k].prefixlen)
    if not covering:
        raise InputError(f"target {target} is in none of the scenario's prefixes")

    pol = None
    if scn.defence:
        pol = defence(scn.defence.policy, topo, who.adopters, VRPTable(scn.roas), **scn.defence.settings)
    policies = {i: pol for i in who.adopters} if pol is not None else {}
    w, weighting_label = weights(scn.weighting, topo, target.version, scn.pfx2as)

    crypto = None
    if scn.defence and scn.defence.crypto:
        from .crypto import CryptoLoop

        given = None
        if scn.defence.router_keys:
            from bgpsim.rpki.bgpsec.keys import signing_keys

            given = signing_keys([scn.defence.router_keys])
        crypto = CryptoLoop(topo, prefixes, who.adopters, a, scn.seed, given)
    q = EventQueue()
    sessions = [(x, _ends(topo, x)) for x in scn.sessions]  # each setting with the sessions it applies to
    configured = [(x, ends) for x, ends in sessions if x.at == 0]  # from the start; the others are events
    engine = TimedEngine(topo, prefixes, scn.timing, scn.seed, q, policies, crypto=crypto,
                         local_pref={e: x.local_pref for x, ends in configured if x.local_pref is not None for e in ends},
                         prepend={e: x.prepend for x, ends in configured if x.prepend is not None for e in ends})
    if tap:
        from .wiretap import Wiretap

        engine.tap = Wiretap(topo, prefixes, [topo.idx(x, "--pcap-ases AS") for x in tap],
                             None if crypto is None else crypto.adopter, engine.tagged, engine.aggregates)
    # Announcements at t = 0: warm-started, or simulated from the start.
    start_origins = {pid[p]: {v: ()} for p in scn.prefixes} if attack is None or attack.victim_announces else {}
    for e in scn.events:
        if e.type == "originate" and e.at == 0:
            start_origins.setdefault(pid[e.prefix], {})[topo.idx(e.asn, "event AS")] = ()
    if scn.warm_start and not configured:  # the converged state knows no LOCAL_PREF: simulate from t = 0
        for p, origins in start_origins.items():
            seeds = [Seed(i, path) for i, path in origins.items()]
            engine.install(p, propagate(topo, prefixes[p], seeds, pol).entries())
    else:
        for p, origins in start_origins.items():
            for i in origins:
                q.at(0.0, engine.originate, i, p)

    fwd = Forwarding(engine.loc, covering, topo.n, a, v, w, snapshot_peak=topo.n <= MAX_DRAWN_ASES,
                     tagged=engine.tagged)
    watched = set(covering)
    engine.on_change = lambda i, p: fwd.update(i, q.now) if p in watched else None
    fwd.start(0.0)
    journal = Journal(detailed=topo.n <= MAX_DRAWN_ASES)
    journal.begin(engine, fwd)
    if observer is not None:
        observer.attach(engine)

    marks = _schedule(scn, topo, engine, q, a, v, pid, attacked, mitigation, pol, sessions)
    q.run(until=scn.until, tick=progress)
    if progress is not None:
        progress(q.processed, q.now)

    asns = topo.asns.tolist()
    ases = []
    chosen: list[int | None] = []  # per AS, the prefix (index) whose route it uses for the target
    for i, asn in enumerate(asns):
        entry, pfx = None, None
        for k in covering:
            if engine.loc[k][i] is not None:
                entry, pfx = engine.loc[k][i], prefixes[k]
                break
        chosen.append(None if pfx is None else pid[pfx])
        path = engine.adv[covering[0] if pfx is None else pid[pfx]][i]
        ases.append(AsRow(
            asn, topo.names.get(asn, ""), topo.roles.get(asn, ""), OUTCOMES[fwd.outcome[i]],
            "" if fwd.attacker_at[i] is None else round(fwd.attacker_at[i], 6),
            "" if fwd.changed_at[i] is None else round(fwd.changed_at[i], 6),
            "" if pfx is None else str(pfx), "" if path is None else " ".join(str(asns[x]) for x in path),
            "none" if entry is None else REL_NAMES[entry[1]]))

    t = scn.timing
    info = scenario_info(
        scn, who, target,
        attack=AttackInfo(attack.kind, [str(attacked)], attack.start, attack.stop) if attack else None,
        mitigation=MitigationInfo(scn.mitigation.start, [str(p) for p in mitigation], scn.mitigation.community)
        if scn.mitigation else None,
        timing=TimingInfo(t.mrai, list(t.jitter), t.mrai_withdrawals, str(t.link_delay), str(t.processing_delay),
                          scn.warm_start))
    shares = [round(x, 6) for x in fwd.fractions()]
    peak = None
    if fwd.peak_outcome is not None:
        peak = {asn: OUTCOMES[o] for asn, o in zip(asns, fwd.peak_outcome)}
    return RunResult(
        engine="timed", scenario=info, seed=scn.seed, topology=topology_info(topo),
        attacker=who.attacker, victim=who.victim, events=q.processed, messages=engine.messages,
        converged=not q, converged_at=round(engine.last_change, 6), outcome=Shares(*shares),
        traffic=Traffic(weighting_label, round(fwd.final_diverted(), 6)),
        peak=Peak(round(fwd.peak[0] / (fwd.sources or 1), 6), round(fwd.peak[1], 6),
                  round(max(0.0, fwd.peak_diverted), 6)),
        marks=marks, timeline=fwd.timeline, ases=ases, topo=topo,
        interception=_interception(engine, fwd, pid[attacked], a, v, asns) if attack and attack.kind == "intercept" else None,
        peak_outcomes=peak, crypto=None if crypto is None else crypto.info(), wiretap=engine.tap,
        router_keys=None if crypto is None else crypto.router_keys(),
        signed_routes=None if crypto is None else crypto.signed_routes(engine, chosen),
        journal=journal, prefixes=[str(p) for p in prefixes], adopters=[int(topo.asns[i]) for i in who.adopters],
        baseline=_baseline(scn, topo, a, v))


MITIGATION_MARKS = {
    None: "victim announces more-specifics",
    "no-export": "victim announces more-specifics (NO_EXPORT)",
    "no-advertise": "victim announces more-specifics (NO_ADVERTISE)",
    "blackhole": "victim asks its providers to blackhole the more-specifics (BLACKHOLE, RFC 7999)",
}
TABLE_ARRIVES = 1.0  # seconds from a leak's first UPDATE on a session to a max-prefix limit tripping


def _schedule(scn: Scenario, topo: Topology, engine: TimedEngine, q: EventQueue, a, v, pid, attacked, mitigation,
              pol, sessions) -> list[Mark]:
    """The attack, the mitigation, the session changes and the scenario's events on the queue; their
    marks for the timeline. `pol`: the defence deployed (None without one); `sessions`: each session
    setting with the (AS, neighbour) index pairs it applies to."""
    marks = []
    attack = scn.attack
    if attack:
        k = pid[attacked]
        q.at(attack.start, attack.start_on, engine, a, v, k)
        marks.append(Mark(attack.start, attack.start_label))
        if attack.stop is not None:
            q.at(attack.stop, attack.stop_on, engine, a, k, engine.policy[a])  # its own, before the attack
            marks.append(Mark(attack.stop, attack.stop_label))
        if isinstance(attack, Leak):  # max-prefix: closed once the leaked routes have come in; they stay closed
            for r in sorted(Leak.closing(topo, a, pol)):
                at = attack.start + engine.session(a, r)[0] + TABLE_ARRIVES
                q.at(at, engine.link_down, a, r)
                marks.append(Mark(at, f"AS{topo.asns[r]} closes its session with AS{topo.asns[a]} (max-prefix)"))
    if scn.mitigation:
        community = scn.mitigation.community
        # RFC 7999 section 3: a customer asks its providers to blackhole; the others are not told
        exclude = set(topo.customers[v] + topo.peers[v]) if community == "blackhole" else ()
        for p in mitigation:
            q.at(scn.mitigation.start, engine.originate, v, pid[p], (), exclude, community)
        marks.append(Mark(scn.mitigation.start, MITIGATION_MARKS[community]))
    for x, ends in sessions:
        if x.at > 0:
            for r, s in ends:
                q.at(x.at, engine.configure, r, s, x.local_pref, x.prepend)
            marks.append(Mark(x.at, str(x)))
    for e in scn.events:
        if e.type == "originate" and e.at > 0:  # those at t = 0 are announced from the start
            q.at(e.at, engine.originate, topo.idx(e.asn, "event AS"), pid[e.prefix])
        elif e.type == "withdraw":
            q.at(e.at, engine.withdraw, topo.idx(e.asn, "event AS"), pid[e.prefix])
        elif e.type == "aggregate":
            q.at(e.at, engine.aggregate, topo.idx(e.asn, "event AS"), pid[e.prefix], e.summary_only)
            marks.append(Mark(e.at, f"AS{e.asn} announces the aggregate {e.prefix} (ATOMIC_AGGREGATE, AGGREGATOR AS{e.asn})"
                                    + (" and stops advertising its more-specifics" if e.summary_only else "")))
        elif e.type in ("link-down", "link-up"):
            x, y = (topo.idx(s, "event AS") for s in e.link)
            engine.session(x, y)  # fail now, not mid-run, if they are not neighbours
            q.at(e.at, engine.link_down if e.type == "link-down" else engine.link_up, x, y)
            marks.append(Mark(e.at, f"link AS{e.link[0]}-AS{e.link[1]} {'fails' if e.type == 'link-down' else 'restored'}"))
        if e.type == "withdraw" or (e.type == "originate" and e.at > 0):  # (those at 0 are the start)
            marks.append(Mark(e.at, f"AS{e.asn} {e.type}s {e.prefix}"))
    return sorted(marks, key=lambda m: m.time)


def _baseline(scn: Scenario, topo: Topology, a, v) -> float | None:
    """With a defence: the share of ASes that would reach the attacker without it, once routing has
    settled (the converged-state engine), for the report to compare."""
    if scn.defence is None or scn.attack is None:
        return None
    from . import trial

    res = trial.run(topo, scn.attack.kind, a, v, None, (), prefix=scn.prefixes[0], attack_prefix=scn.attack.prefix,
                    via=scn.attack.via)
    return round(res.fractions()["attacker"], 6)


def _ends(topo: Topology, x) -> list[tuple[int, int]]:
    """The sessions (AS, neighbour) a [[session]] setting applies to, as indices."""
    r = topo.idx(x.asn, "session AS")
    if x.neighbour is None:
        return [(r, s) for s in topo.neighbours(r)]
    return [(r, topo.idx(x.neighbour, "session neighbour"))]


def _interception(engine, fwd, p, a, v, asns) -> Interception:
    """Does the attacker still have a working route to forward intercepted traffic to the victim?"""
    rib = engine.rib_in[p][a] or {}
    best = min(rib.values()) if rib else None
    if best is None:
        return Interception(None, False)
    first = best[2][0]
    return Interception(" ".join(str(asns[x]) for x in (a,) + best[2]), first == v or fwd.outcome[first] == VICTIM)
