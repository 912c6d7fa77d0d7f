"""What a converged-state run reports: the same files as a timed run, without time."""

from __future__ import annotations

from .dataplane import OUTCOMES
from .engine.steady import NONE
from .result import REL_NAMES, Run
from .weighting import weights


def steady_result(scn, topo, res, attacker: int, victim: int, adopters: int) -> Run:
    asns = topo.asns.tolist()
    target_ribs = res.ribs  # most specific first
    ases, outcomes = [], {}
    for i, asn in enumerate(asns):
        out = OUTCOMES[res.outcome[i]]
        outcomes[asn] = out
        ribs = next((r for r in target_ribs if r.rel[i] != NONE), None)
        path = ribs.path(i) if ribs is not None else None
        ases.append({
            "asn": asn, "name": topo.names.get(asn, ""), "role": topo.roles.get(asn, ""), "outcome": out,
            "attacker_at": "", "switched_at": "",
            "prefix": "" if ribs is None else str(ribs.prefix),
            "path": "" if path is None else " ".join(str(asns[x]) for x in (i,) + path),
            "relationship": "none" if ribs is None else REL_NAMES[int(ribs.rel[i])],
        })
    fr = res.fractions()
    w, label = weights(scn.weighting, topo, target_ribs[0].prefix.version, scn.pfx2as)
    diverted = res.diverted(w)
    attack = scn.attack
    result = {
        "engine": "steady",
        "scenario": {
            "name": scn.name, "description": scn.description, "source": scn.source,
            "attack": {"kind": attack.kind, "prefixes": [str(r.prefix) for r in target_ribs if any(s.at == res.attacker for s in r.seeds)],
                       "start": 0.0, "stop": None},
            "mitigation": None,
            "defence": None if not scn.defence else {"policy": scn.defence.policy, "adopters": adopters},
            "victim_prefixes": [str(p) for p in scn.prefixes],
            "target": str(target_ribs[0].prefix.network_address),
        },
        "seed": scn.seed,
        "topology": {"name": topo.name, "source": topo.source, "ases": topo.n, "links": topo.links},
        "attacker": attacker, "victim": victim,
        "events": 0, "messages": 0, "converged": True, "converged_at": 0.0,
        "outcome": {k: round(x, 6) for k, x in fr.items()},
        "traffic": {"weighting": label, "diverted": round(diverted, 6)},
        "peak": {"attacker": round(fr["attacker"], 6), "at": 0.0, "diverted": round(diverted, 6)},
        "marks": [],
        "timeline": [[0.0, round(fr["attacker"], 6), round(fr["victim"], 6)]],
    }
    row = (0.0, fr["attacker"], fr["victim"], fr["disconnected"], fr["loop"], diverted)
    return Run(scn, topo, result, ases, [row], outcomes, None)
