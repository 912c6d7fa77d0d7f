"""A scenario's attack on the converged-state engine: no time, the routes it settles to, reported
as a RunResult with the same files as a timed run."""

from __future__ import annotations

from bgpsim.base.errors import InputError
from bgpsim.rpki.rov import VRPTable

from . import trial
from .dataplane import OUTCOMES
from .engine.steady import NONE, ORIGIN
from .plan import AttackPlan, scenario_info, topology_info
from .result import REL_NAMES, AsRow, AttackInfo, Peak, RunResult, Shares, Traffic


def converged(plan: AttackPlan) -> RunResult:
    scn, topo = plan.scn, plan.topo
    if scn.attack is None:
        raise InputError("the steady engine runs an attack: give --attack KIND (or a scenario with [attack])")
    crypto = scn.defence is not None and scn.defence.crypto
    for what, given in (("events", scn.events), ("mitigation", scn.mitigation), ("crypto (real BGPsec signatures)", crypto),
                        ("sessions (LOCAL_PREF, prepending)", scn.sessions),
                        ("ROAs published or revoked (roa-publish, roa-revoke)", scn.roa_changes)):
        if given:
            raise InputError(f"the steady engine computes one converged state; the scenario's {what} needs the timed engine")
    att, target = scn.attack, plan.target
    res = settle(plan)

    asns = topo.asns.tolist()
    ribs = res.ribs  # most specific first
    names = [str(a) for a in asns]
    rels = [r.rel.tolist() for r in ribs]
    texts = [_path_texts(r, rel, names) for r, rel in zip(ribs, rels)]
    prefixes = [str(r.prefix) for r in ribs]  # once, not once per AS
    outcome = res.outcome.tolist()
    ases = []
    for i, asn in enumerate(asns):
        k = next((k for k, rel in enumerate(rels) if rel[i] != NONE), None)
        ases.append(AsRow(asn, topo.names.get(asn, ""), topo.roles.get(asn, ""), OUTCOMES[outcome[i]], "", "",
                          "" if k is None else prefixes[k], "" if k is None else texts[k](i),
                          "none" if k is None else REL_NAMES[rels[k][i]]))
    # Every AS is traced on its most specific route, so the outcomes are those of an address inside
    # the most specific prefix announced; a target elsewhere would be reported for traffic not followed.
    if target.version != ribs[0].prefix.version or target not in ribs[0].prefix:
        raise InputError(f"target {target}: the steady engine follows an address inside {ribs[0].prefix}, "
                         "the most specific prefix announced")
    fr = res.fractions()
    diverted = res.diverted(plan.weights)
    announced = [str(r.prefix) for r in ribs if any(s.at == res.attacker for s in r.seeds)]
    info = scenario_info(plan, attack=AttackInfo(att.kind, announced, 0.0, None))
    shares = Shares(*(round(fr[k], 6) for k in OUTCOMES))
    return RunResult(
        engine="steady", scenario=info, seed=scn.seed, topology=topology_info(topo),
        attacker=plan.attacker, victim=plan.victim, events=0, messages=0, converged=True, converged_at=0.0,
        outcome=shares, traffic=Traffic(plan.weighting, round(diverted, 6)),
        peak=Peak(shares.attacker, 0.0, round(diverted, 6)), marks=[],
        timeline=[(0.0, fr["attacker"], fr["victim"], fr["disconnected"], fr["loop"], diverted)],
        ases=ases, topo=topo, adopters=[int(topo.asns[i]) for i in plan.adopters])


def _path_texts(r, rel: list, names: list[str]):
    """AS i's row of the AS path for the routes `r` (rel: `r.rel` as a list): its ASN, then those of
    its Loc-RIB path (`Ribs.path`), as text. Each AS's part is made once and shared by the ASes
    routing through it: the 78,643 paths of the 2025 graph in one pass, not one walk each."""
    nh, seed = r.nh.tolist(), r.seed.tolist()
    memo: dict[int, str] = {}

    def heard(j: int) -> str:  # the path an AS with next hop j has: j's announced path, as text
        stack = []
        while j not in memo and rel[j] != ORIGIN:
            stack.append(j)
            j = nh[j]
        if j not in memo:
            memo[j] = " ".join(names[x] for x in r.seeds[seed[j]].announced)
        text = memo[j]
        while stack:
            k = stack.pop()
            text = memo[k] = f"{names[k]} {text}" if text else names[k]
        return text

    def text(i: int) -> str:
        if rel[i] == ORIGIN:
            return " ".join(names[x] for x in (i,) + r.seeds[seed[i]].path)
        tail = heard(nh[i])
        return f"{names[i]} {tail}" if tail else names[i]
    return text


def settle(plan: AttackPlan, defended: bool = True) -> trial.Result:
    """The routes the plan's attack settles to, with its defence (`defended`) or without it. What
    the attacker announces is the scenario's, as on the timed engine (trial's own default
    sub-prefix is BGPy's, which `bgpsim run` does not take)."""
    scn, att, attacked = plan.scn, plan.scn.attack, plan.attacked
    d = scn.defence if defended else None
    return trial.run(plan.topo, att.kind, plan.a, plan.v, d.policy if d else None, plan.adopters if d else (),
                     prefix=scn.prefixes[0] if att.victim_announces else attacked,
                     vrps=VRPTable(plan.roas),
                     attack_prefix=attacked if att.more_specific else att.prefix, via=att.via, **(d.settings if d else {}))
