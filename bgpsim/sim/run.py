"""A scenario on the timed engine: the plan's announcements and events scheduled on the event
queue, the data plane followed as routes change, and what happened as a RunResult."""

from __future__ import annotations

import gc

from bgpsim.base.errors import InputError
from bgpsim.rpki.rov import VRPTable

from . import rpki_delays
from .attacks import TIMED_KINDS, Leak
from .converged import settle
from .dataplane import OUTCOMES, VICTIM, Forwarding
from .defences import defence
from .engine.events import EventQueue
from .engine.steady import Seed, propagate
from .engine import blackholes
from .engine.timed import TimedEngine
from .engine.warm import warm_start
from .journal import Journal
from .plan import AttackPlan, scenario_info, topology_info
from .result import (MAX_DRAWN_ASES, REL_NAMES, AsRow, AttackInfo, Interception, Mark, MitigationInfo,
                     Peak, RunResult, Shares, TimingInfo, Traffic)


def simulate(plan: AttackPlan, progress=None, observer=None) -> RunResult:
    """The run makes millions of tuples and dicts and no reference cycles: the cyclic collector, left
    on, would walk every RIB again and again (a quarter of an incident's replay), so it waits; refcounting
    frees what goes. See `_simulate`."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _simulate(plan, progress, observer)
    finally:
        if collecting:
            gc.enable()


def _simulate(plan: AttackPlan, progress=None, observer=None) -> RunResult:
    """Run the plan's scenario. `progress(events, now)` is called now and then during the run. With
    `plan.tap`, those ASes' sessions are recorded (the result's `wiretap` then writes them as a
    capture). `observer`: its `attach(engine)` is called once the start is set up and before the
    first event, to watch the run (bgpsim.live.simfeed.CollectorPeers chains `engine.on_change`)."""
    scn, topo, attack = plan.scn, plan.topo, plan.scn.attack
    if attack and not attack.timed:
        raise InputError(f"the {attack.kind} attack needs --engine steady; the timed engine runs {', '.join(TIMED_KINDS)}")
    a, v, prefixes, pid, covering = plan.a, plan.v, plan.prefixes, plan.pid, plan.covering
    if not covering:
        raise InputError(f"target {plan.target} is in none of the scenario's prefixes")

    pol = None
    if scn.defence:
        pol = defence(scn.defence.policy, topo, plan.adopters, VRPTable(plan.roas), **scn.defence.settings)
    policies = {i: pol for i in plan.adopters} if pol is not None else {}
    # Announcements at t = 0: warm-started (their converged routes installed), or simulated from the start.
    start_origins = {pid[p]: {v: ()} for p in scn.prefixes} if attack is None or attack.victim_announces else {}
    for e, (i,) in ((e, ix) for e, ix in plan.events if e.type == "originate" and e.at == 0):
        start_origins.setdefault(pid[e.prefix], {})[i] = ()
    configured = [(x, ends) for x, ends in plan.sessions if x.at == 0]  # from the start; the others are events
    warm = scn.warm_start and not configured  # the converged state knows no LOCAL_PREF: simulate from t = 0
    installed = {p: propagate(topo, prefixes[p], [Seed(i, path) for i, path in origins.items()], pol).entries()
                 for p, origins in start_origins.items()} if warm else {}

    crypto = None
    if scn.defence and scn.defence.crypto:
        from .crypto import CryptoLoop

        given = None
        if scn.defence.router_keys:
            from bgpsim.rpki.bgpsec.keys import signing_keys

            given = signing_keys([scn.defence.router_keys])
        crypto = CryptoLoop(topo, prefixes, plan.adopters, a, scn.seed, given)
    q = EventQueue()
    engine = TimedEngine(topo, prefixes, scn.timing, scn.seed, q, policies, crypto=crypto,
                         local_pref={e: x.local_pref for x, ends in configured if x.local_pref is not None for e in ends},
                         prepend={e: x.prepend for x, ends in configured if x.prepend is not None for e in ends})
    delays = rpki_delays.schedule(plan, engine, q, pol)  # before the warm start too: adopters keep what they hear
    if plan.tap:  # before the warm start, whose routes count as sent at t = 0
        from .wiretap import Wiretap

        engine.tap = Wiretap(topo, prefixes, plan.tap, None if crypto is None else crypto.adopter, engine.tagged,
                             engine.aggregates)
    for p, entries in installed.items():
        warm_start(engine, p, entries)
    blackholes.hold(engine)

    fwd = Forwarding(engine.watch_fib(covering), a, v, plan.weights, snapshot_peak=topo.n <= MAX_DRAWN_ASES)
    engine.on_next_hop = lambda i, nh: fwd.update(i, nh, q.now)
    fwd.start(0.0)
    journal = Journal(detailed=topo.n <= MAX_DRAWN_ASES, tapped=plan.tap or ())
    journal.begin(engine, fwd)
    if observer is not None:
        observer.attach(engine)

    marks = _schedule(plan, engine, q, pol, [] if warm else [(p, i) for p, origins in start_origins.items() for i in origins])
    rpki = None if delays is None else delays.info(topo.asns)
    if rpki is not None:
        marks = sorted(marks + rpki_delays.marks(rpki), key=lambda m: m.time)
    q.run(until=scn.until, tick=progress)
    if progress is not None:
        progress(q.processed, q.now)

    asns = topo.asns.tolist()
    asn_text = [str(a) for a in asns]  # each AS's number and each prefix written once, not once per row
    prefix_text = [str(p) for p in prefixes]
    ases = []
    chosen: list[int | None] = []  # per AS, the prefix (index) whose route it uses for the target
    for i, asn in enumerate(asns):
        entry, k = None, None
        for c in covering:
            if engine.loc[c][i] is not None:
                entry, k = engine.loc[c][i], c
                break
        chosen.append(k)
        path = engine.adv[covering[0] if k is None else k][i]
        ases.append(AsRow(
            asn, topo.names.get(asn, ""), topo.roles.get(asn, ""), OUTCOMES[fwd.outcome[i]],
            "" if fwd.attacker_at[i] is None else round(fwd.attacker_at[i], 6),
            "" if fwd.changed_at[i] is None else round(fwd.changed_at[i], 6),
            "" if k is None else prefix_text[k], "" if path is None else " ".join([asn_text[x] for x in path]),
            "none" if entry is None else REL_NAMES[entry[1]]))

    interception = None
    if attack and attack.kind == "intercept":  # does the attacker still have a route to pass the traffic on?
        rib = engine.rib_in[pid[plan.attacked]][a] or {}
        best = min(rib.values())[2] if rib else None
        interception = Interception(None if best is None else " ".join(str(asns[x]) for x in (a,) + best),
                                    best is not None and (best[0] == v or fwd.outcome[best[0]] == VICTIM))
    t = scn.timing
    info = scenario_info(
        plan,
        attack=AttackInfo(attack.kind, [str(x) for x in attack.announces(plan.attacked)], attack.start, attack.stop) if attack else None,
        mitigation=MitigationInfo(scn.mitigation.start, [str(p) for p in plan.mitigation], scn.mitigation.community)
        if scn.mitigation else None,
        timing=TimingInfo(t.mrai, list(t.jitter), t.mrai_withdrawals, str(t.link_delay), str(t.processing_delay),
                          scn.warm_start))
    shares = [round(x, 6) for x in fwd.fractions()]
    peak = None
    if fwd.peak_outcome is not None:
        peak = {asn: OUTCOMES[o] for asn, o in zip(asns, fwd.peak_outcome)}
    return RunResult(
        engine="timed", scenario=info, seed=scn.seed, topology=topology_info(topo),
        attacker=plan.attacker, victim=plan.victim, events=q.processed, messages=engine.messages,
        converged=not q, converged_at=round(engine.last_change, 6), outcome=Shares(*shares),
        traffic=Traffic(plan.weighting, round(fwd.final_diverted(), 6)),
        peak=Peak(round(fwd.peak[0] / (fwd.sources or 1), 6), round(fwd.peak[1], 6),
                  round(max(0.0, fwd.peak_diverted), 6)),
        marks=marks, timeline=fwd.timeline, ases=ases, topo=topo,
        interception=interception,
        peak_outcomes=peak, crypto=None if crypto is None else crypto.info(), wiretap=engine.tap,
        router_keys=None if crypto is None else crypto.router_keys(),
        signed_routes=None if crypto is None else crypto.signed_routes(engine, chosen),
        journal=journal, prefixes=[str(p) for p in prefixes], adopters=[int(topo.asns[i]) for i in plan.adopters],
        rpki=rpki,
        # with a defence, the share that would reach the attacker without it, for the report to compare
        baseline=round(settle(plan, defended=False).fractions()["attacker"], 6) if scn.defence and attack and attack.steady
        else None)


MITIGATION_MARKS = {
    None: "victim announces more-specifics",
    "no-export": "victim announces more-specifics (NO_EXPORT)",
    "no-advertise": "victim announces more-specifics (NO_ADVERTISE)",
    "blackhole": "victim asks its providers to blackhole the more-specifics (BLACKHOLE, RFC 7999)",
}
TABLE_ARRIVES = 1.0  # seconds from a leak's first UPDATE on a session to a max-prefix limit tripping


def _schedule(plan: AttackPlan, engine: TimedEngine, q: EventQueue, pol, start: list[tuple[int, int]]) -> list[Mark]:
    """The announcements at t = 0 (`start`: (prefix, AS) pairs, none after a warm start), the
    attack, the mitigation, the session changes and the scenario's events on the queue, in that
    order; their marks for the timeline. `pol`: the defence deployed (None without one)."""
    scn, asns, a, v, pid = plan.scn, plan.topo.asns, plan.a, plan.v, plan.pid
    todo = [(0.0, engine.originate, i, p) for p, i in start]  # (time, action, its arguments)
    marks = []
    attack = scn.attack
    if attack:
        k = pid[plan.attacked]
        todo.append((attack.start, attack.start_on, engine, a, v, k))
        marks.append(Mark(attack.start, attack.start_label))
        if attack.stop is not None:
            todo.append((attack.stop, attack.stop_on, engine, a, k, engine.policy[a]))  # its own, before the attack
            marks.append(Mark(attack.stop, attack.stop_label))
        if isinstance(attack, Leak):  # max-prefix: closed once the leaked routes have come in; they stay closed
            for r in sorted(Leak.closing(plan.topo, a, pol)):
                at = attack.start + engine.session(a, r)[0] + TABLE_ARRIVES
                todo.append((at, engine.link_down, a, r))
                marks.append(Mark(at, f"AS{asns[r]} closes its session with AS{asns[a]} (max-prefix)"))
    if scn.mitigation:
        community = scn.mitigation.community
        # RFC 7999 section 3: a customer asks its providers to blackhole; the others are not told
        exclude = set(plan.topo.customers[v] + plan.topo.peers[v]) if community == "blackhole" else ()
        todo += [(scn.mitigation.start, engine.originate, v, pid[p], (), exclude, community) for p in plan.mitigation]
        marks.append(Mark(scn.mitigation.start, MITIGATION_MARKS[community]))
    for x, ends in plan.sessions:
        if x.at > 0:
            todo += [(x.at, engine.configure, r, s, x.local_pref, x.prepend) for r, s in ends]
            marks.append(Mark(x.at, str(x)))
    for e, ix in plan.events:
        if e.type == "originate" and e.at > 0:  # those at t = 0 are announced from the start
            todo.append((e.at, engine.originate, ix[0], pid[e.prefix]))
        elif e.type == "withdraw":
            todo.append((e.at, engine.withdraw, ix[0], pid[e.prefix]))
        elif e.type == "aggregate":
            todo.append((e.at, engine.aggregate, ix[0], pid[e.prefix], e.summary_only))
            marks.append(Mark(e.at, f"AS{e.asn} announces the aggregate {e.prefix} (ATOMIC_AGGREGATE, AGGREGATOR AS{e.asn})"
                                    + (" and stops advertising its more-specifics" if e.summary_only else "")))
        elif e.type in ("link-down", "link-up"):
            engine.session(*ix)  # fail now, not mid-run, if they are not neighbours
            todo.append((e.at, engine.link_down if e.type == "link-down" else engine.link_up, *ix))
            marks.append(Mark(e.at, f"link AS{e.link[0]}-AS{e.link[1]} {'fails' if e.type == 'link-down' else 'restored'}"))
        if e.type == "withdraw" or (e.type == "originate" and e.at > 0):  # (those at 0 are the start)
            marks.append(Mark(e.at, f"AS{e.asn} {e.type}s {e.prefix}"))
    for t, action, *args in todo:
        q.at(t, action, *args)
    return sorted(marks, key=lambda m: m.time)
