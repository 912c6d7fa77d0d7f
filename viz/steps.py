"""The part of the report a reader steps through (`steps_html`): a play button and a slider over the
moments where something changed, and what the network looked like at each.

On a graph small enough to draw, every AS is a circle coloured by where its packets to the target go
at that moment, with an arrow to its next hop (so the arrows are the routing tree toward the target);
adopters of the defence wear a ring; a click on an AS lists its Loc-RIB and Adj-RIBs-In at that
moment and their changes. On a larger graph, the shares of ASes per tier (tier-1, transit, stub), the
largest transit ASes and where each sends its traffic, and a searchable table of every AS.
(The tiers: customers and no provider, customers and a provider, no customer.)

The data comes from the run's journal (bgpsim.sim.journal), written into the page as one JSON object
that the page's own script (steps.js, no library, no request to any server) reads.
"""

from __future__ import annotations

import json
from dataclasses import fields
from importlib.resources import files
from itertools import chain

import numpy as np

from bgpsim import _core
from bgpsim.sim.result import MAX_DRAWN_ASES, Shares

from .style import COLOURS, escape, plural, secs

OUTCOMES = tuple(f.name for f in fields(Shares))  # in the order of the journal's outcome codes

MAX_STEPS = 400  # a large graph's moments: enough for the slider to move smoothly, few enough for 5 MB
TOP_TRANSIT = 15  # the largest transit ASes a large graph's view follows
REL_WORDS = {0: "origin", 1: "customer", 2: "peer", 3: "provider"}


def steps_data(run) -> dict | None:
    """The JSON the page reads, or None when the run recorded no journal (the converged-state engine)."""
    j = run.journal
    if j is None:
        return None
    topo = run.topo
    asns = topo.asns.tolist()
    data = {"outcomes": list(OUTCOMES), "colours": [COLOURS[o] for o in OUTCOMES],
            "marks": [[round(m.time, 6), m.label] for m in run.marks],
            "attacker": run.attacker, "victim": run.victim, "target": run.scenario.target,
            "defence": run.scenario.defence is not None}
    if j.detailed:
        data["graph"] = _graph(run, j, asns)
    else:
        data["large"] = _large(run, j, asns)
    return data


def _defence_words(run) -> str:
    d = run.scenario.defence
    if d is None:
        return "No defence is deployed: this is the baseline."
    without = (f" Without it, {run.baseline * 100:.1f} % of ASes would reach the attacker once routing settles "
               f"(the converged-state engine)." if run.baseline is not None else "")
    return (f"Defence: {d.policy}, deployed by {plural(d.adopters, 'AS', 'ASes')}"
            + (f" ({d.settings})" if d.settings else "")
            + ("; adopters wear a ring." if run.topo.n <= MAX_DRAWN_ASES else ".") + without)


def _peak_and_end(run) -> str:
    """The numbers to compare with: where traffic went at the peak and at the end."""
    o, p = run.outcome, run.peak
    return (f"At the peak (t = {secs(round(p.at, 1))} s) {p.attacker * 100:.1f} % of ASes reached the attacker; at the end "
            f"{o.attacker * 100:.1f} %, with {o.victim * 100:.1f} % at the victim.")


def _graph(run, j, asns) -> dict:
    from .layout import layout

    topo = run.topo
    pos, _, _ = layout(topo)
    ys = [y for _, y in pos.values()]
    top, bottom = max(ys), min(ys)
    adopters = set(run.adopters)
    ases = [{"asn": asn, "name": topo.names.get(asn, ""), "x": round(pos[i][0], 4),
             "y": round((top - pos[i][1]) / ((top - bottom) or 1), 4), "adopter": asn in adopters}
            for i, asn in enumerate(asns)]
    links = [[int(a), int(b), 1] for a, b in topo.p2c.tolist()] + [[int(a), int(b), 0] for a, b in topo.p2p.tolist()]
    r6 = lambda t: round(t, 6)
    return {
        "ases": ases, "links": links, "prefixes": run.prefixes,
        "start": {"outcome": j.start["outcome"], "next_hop": j.start["next_hop"],
                  "loc": [[i, p, list(path), rel] for i, p, path, rel in j.start["loc"]],
                  "rib_in": [[r, s, p, list(path)] for r, s, p, path in j.start["rib_in"]]},
        "outcome": [[r6(t), i, o] for t, i, o in j.outcomes],
        "next_hop": [[r6(t), i, nh] for t, i, nh in j.next_hops],
        "loc": [[r6(t), i, p, None if path is None else list(path), rel] for t, i, p, path, rel in j.locs],
        "rib_in": [[r6(t), r, s, p, None if path is None else list(path)] for t, r, s, p, path in j.ribs_in],
        "rel_words": REL_WORDS,
    }


def _tiers(topo) -> np.ndarray:
    """0 at the top (customers, no provider: the tier-1 clique and the like), 1 other transit (some
    customers), 2 stub."""
    has_customer = np.zeros(topo.n, dtype=bool)
    has_provider = np.zeros(topo.n, dtype=bool)
    has_customer[topo.p2c[:, 0]] = True
    has_provider[topo.p2c[:, 1]] = True
    return np.where(has_customer, np.where(has_provider, 1, 0), 2).astype(np.int8)


def _large(run, j, asns) -> dict:
    """Per moment: counts of ASes per tier and outcome, and the outcome of the largest transit ASes."""
    topo = run.topo
    tier = _tiers(topo)
    out = np.asarray(j.start["outcome"], dtype=np.int8)
    events = j.outcomes
    # (time, AS, outcome), the ints exact; read as one stream of numbers (a third of np.array's time)
    table = np.fromiter(chain.from_iterable(events), dtype=float, count=3 * len(events)).reshape(len(events), 3)
    when, who, what = table[:, 0], table[:, 1].astype(np.int64), table[:, 2].astype(np.int8)
    times = np.unique(when).tolist()
    if len(times) > MAX_STEPS:  # thin evenly by change count, keeping every mark's moment
        keep = {times[int(k)] for k in np.linspace(0, len(times) - 1, MAX_STEPS - len(run.marks))}
        keep |= {min((t for t in times if t >= m.time), default=times[-1]) for m in run.marks}
        times = sorted(keep)
    cones = topo.cone_sizes
    top = np.argsort(-cones, kind="stable")[:TOP_TRANSIT].astype(np.int64)
    adopters = set(run.adopters)
    weight = np.asarray(j.weight, dtype=float)
    ends = np.searchsorted(when, [0.0] + times, side="right").astype(np.int64, copy=False)  # the events up to each moment
    k = len(ends)
    counts = np.empty((k, 3, len(OUTCOMES)), dtype=np.int64)  # ASes per tier and outcome
    sums, fresh = np.empty((k, 3)), np.empty(k, dtype=np.uint8)  # the traffic each tier sends to the attacker
    top_out = np.empty((k, len(top)), dtype=np.int8)
    _core.journal_moments(who, what, ends, tier, weight, out, top, len(OUTCOMES), counts.reshape(-1), sums.reshape(-1),
                          fresh, top_out.reshape(-1))
    traffic, row = [], None
    for s, new in zip(sums.tolist(), fresh.tolist()):
        if new:  # summed again after this moment (someone moved to or from the attacker)
            row = [round(x, 6) for x in s]
        traffic.append(row)
    return {
        "steps": [0.0] + [round(t, 6) for t in times], "tiers": ["top (no provider)", "transit", "stub"],
        "tier_sizes": np.bincount(tier, minlength=3).tolist(), "counts": counts.tolist(), "traffic": traffic,
        "tier_traffic": [round(float(weight[tier == r].sum()), 6) for r in range(3)],
        "top": [{"asn": asns[i], "name": topo.names.get(asns[i], ""), "cone": int(cones[i]), "adopter": asns[i] in adopters}
                for i in top.tolist()],
        "top_outcome": top_out.tolist(),
        # every AS: ASN, outcome code at the end, first time at the attacker, last change ("" never), adopts
        "table": [[a.asn, OUTCOMES.index(a.outcome), a.attacker_at, a.switched_at, int(a.asn in adopters)]
                  for a in run.ases],
    }


def steps_html(run) -> str:
    """The section, with its data and script inline; "" without a journal."""
    data = steps_data(run)
    if data is None:
        return ""
    # "</" cannot end the script element early when escaped; JSON reads "\/" as "/"
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    script = files("bgpsim.viz").joinpath("steps.js").read_text(encoding="utf-8")
    view = ('<svg id="graph" viewBox="0 0 1000 560" role="img" aria-label="the AS graph"></svg>\n'
            '<div id="panel" class="panel"><p class="note">Click an AS to see its routes.</p></div>\n'
            if "graph" in data else
            '<div id="tiers"></div>\n<h3>The largest transit ASes</h3>\n<div id="top"></div>\n'
            '<h3>Every AS</h3>\n<p><input id="search" type="search" placeholder="ASN or name" '
            'aria-label="search the ASes"> <span id="found" class="note"></span></p>\n<div id="table"></div>\n')
    return (
        '<h2>Step through the run</h2>\n'
        f'<p class="note">{escape(_defence_words(run))} {escape(_peak_and_end(run))}</p>\n'
        '<div class="steps">\n'
        '<p class="controls"><button id="play" type="button">&#9654; play</button> '
        '<input id="slider" type="range" min="0" value="0" aria-label="moment"> '
        '<span id="clock" class="clock"></span></p>\n'
        '<p id="shares" class="shares"></p>\n'
        '<p id="mark" class="note"></p>\n'
        + view +
        '</div>\n'
        f'<script id="steps-data" type="application/json">{blob}</script>\n'
        f'<script>\n{script}</script>\n')
