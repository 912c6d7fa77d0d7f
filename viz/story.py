"""The report's story in words (`summary_text`): what the attacker did, how far it got at the peak,
what happened after, and where traffic goes at the end, read from the run's `RunResult`.

Written for a reader who knows what a prefix is but not the simulator: attacks by their usual names
("a sub-prefix hijack"), the attacker's prefix compared with the victim's (never with the target
address), events in time order, and only the numbers that matter (a disconnected share that is zero is
not mentioned). What a run may lack (an attack, a mitigation, a defence, an interception) is left out
of the story, not invented. A converged-state run (engine "steady") computed routes only: its story
tells where routing settles, with no time, peak or message in it.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Mapping, Sequence

from .style import COMMUNITY_WORDS, as_label, count, duration, join, pct, secs, weighting_text

if TYPE_CHECKING:
    from bgpsim.sim.result import RunResult

KIND_NAMES = {
    "prefix": "an exact-prefix hijack",
    "subprefix": "a sub-prefix hijack",
    "forged-origin": "a forged-origin hijack",
    "forged-origin-subprefix": "a forged-origin sub-prefix hijack",
    "squat": "squatting on unannounced address space",
    "leak": "a route leak",
    "intercept": "an interception attack",
}

POLICY_WORDS = {  # what each defence does, in a sentence a student reads
    "rov": "ROV (Route Origin Validation: drop routes whose origin AS the RPKI does not allow)",
    "rov-deprefer": "ROV that ranks invalid routes below valid ones instead of dropping them",
    "peer-rov": "ROV on routes from peers only",
    "aspa": "ASPA (drop routes whose AS path the ASPA records show to be a valley or forged) and ROV",
    "bgpsec": "BGPsec (prefer paths signed by every AS on them) and ROV",
    "path-end": "path-end validation (drop routes whose AS next to the origin is not its neighbour) and ROV",
    "aspa-alone": "ASPA without ROV (drop routes whose AS path the ASPA records show to be a valley or forged; "
                  "the origin is not checked)",
    "bgpsec-alone": "BGPsec without ROV (prefer paths signed by every AS on them; the origin is not checked)",
    "path-end-alone": "path-end validation without ROV (drop routes whose AS next to the origin is not its "
                      "neighbour; the origin is not checked)",
    "otc": "the Only-to-Customer mark (drop routes leaked against it)",
    "enforce-first-as": "enforce-first-AS (drop paths whose first AS is not the neighbour that sent them)",
    "peerlock-lite": "Peerlock-lite (drop customer routes that hold a tier-1)",
    "maxlen": "a prefix-length filter (drop routes more specific than networks accept)",
    "bogon": "a bogon filter (drop special-purpose prefixes and AS numbers)",
    "prefix-list": "prefix lists on customer sessions (accept only what the customer's cone registered)",
    "max-prefix": "a max-prefix limit (close a session that sends far more prefixes than usual)",
    "edge-filter": "an edge filter (drop routes from edge networks whose path holds any AS but theirs)",
    "rov-edge-filter": "an edge filter (drop routes from edge networks whose path holds any AS but theirs) and ROV",
    "aspa-wn": "ASPA with neighbour records (also drop paths through a link an AS never registered) and ROV",
    "asra": "ASRA (ASPA, and on routes from providers drop paths through a link an AS never registered) and ROV",
    "provider-cone-id": "provider-cone identification (drop routes from customers that leave the origin's "
                        "provider cone) and ROV",
    "bgp-isec-transitive": "BGP-iSec's transitive signatures (drop routes on which an adopting AS did not sign) "
                           "and ROV",
    "bgp-isec-otc": "BGP-iSec's transitive signatures with the Only-to-Customer mark, and ROV",
    "bgp-isec-pcid": "BGP-iSec's transitive signatures with provider-cone identification, and ROV",
    "bgp-isec": "BGP-iSec (transitive signatures, the Only-to-Customer mark, provider-cone identification) and ROV",
    "rovpp-v1": "ROV++ v1 (drop the traffic of an invalid more-specific, or of AS0-ROA space, instead of following "
                "the covering route to the hijacker) and ROV",
    "rovpp-v2": "ROV++ v2 (v1's blackholes, announced to customers when learned from a peer or provider) and ROV",
    "rovpp-v2i": "ROV++ v2 improved (v1's blackholes for more-specifics and AS0-ROA space, announced to customers) and ROV",
    "bgp-full": "BGP with withdrawals (what every AS here does; no filter)",
    "bgp-full-ignore-invalid": "BGP with withdrawals (what every AS here does; no filter)",
    "bgp-full-suppress-withdrawals": "BGP that sends no withdrawals (its neighbours keep routes it has lost: zombies)",
    "rost": "Route Status Transparency (drop a route whose withdrawal a shared repository recorded: zombies)",
}


def _relation(prefixes: Sequence[str], victim_prefixes: Sequence[str]) -> str:
    """How the attacker's prefixes relate to the victim's: ', a more specific prefix inside the
    victim's 198.51.100.0/24', ', the victim's own prefix', ... ('' when the victim has none)."""
    nets = [ipaddress.ip_network(p) for p in prefixes]
    theirs = [ipaddress.ip_network(p) for p in victim_prefixes]
    if not nets or not theirs:
        return ""
    plural = len(nets) > 1
    if all(n in theirs for n in nets):
        return ", the victim's own prefixes" if plural else ", the victim's own prefix"
    covers = []
    for n in nets:
        c = [v for v in theirs if v.version == n.version and n != v and n.subnet_of(v)]
        if not c:
            break
        covers.append(max(c, key=lambda v: v.prefixlen))
    else:
        inside = join(list(dict.fromkeys(str(c) for c in covers)))
        return (", more specific prefixes inside" if plural else ", a more specific prefix inside") + \
            f" the victim's {inside}"
    wider = [v for v in theirs if any(n.version == v.version and n != v and n.supernet_of(v) for n in nets)]
    if wider and all(any(n.version == v.version and n.supernet_of(v) for v in theirs) for n in nets):
        return (", less specific prefixes covering" if plural else ", a less specific prefix covering") + \
            f" the victim's {join([str(v) for v in wider])}"
    return f" (the victim's {'prefixes are' if len(theirs) > 1 else 'prefix is'} {join([str(v) for v in theirs])})"


def json_timeline(run: RunResult) -> list[tuple[float, float, float]]:
    """The timeline as result.json has it: (time, attacker, victim) per change, rounded to 6 decimals.
    The report's numbers are result.json's, so that the page and the file agree."""
    return [(r[0], r[1], r[2]) for r in run.rounded_timeline]


def attack_sentence(run: RunResult, names: Mapping[int, str] | None = None) -> str:
    """What the attacker did, in one sentence ending with the victim (the run has an attack). `names`
    maps ASNs to AS names (ASes without a name left out)."""
    names = names or {}
    sc = run.scenario
    attack = sc.attack
    attacker = as_label(run.attacker, names)
    victim = as_label(run.victim, names)
    prefixes = attack.prefixes
    kind = attack.kind
    at = "" if run.engine == "steady" else f"At t = {secs(attack.start)} s, "  # the converged state has no time
    what = join(prefixes) if prefixes else "a route"
    rel = _relation(prefixes, sc.victim_prefixes)
    forged = f"the forged AS path “{run.attacker} {run.victim}” (attacker, then victim)"
    name = KIND_NAMES.get(kind)
    if kind == "leak":
        route = f" for {what}" if prefixes else ""
        return (f"{at}{attacker} leaked the victim's route{route}: it passed the route it had learned from "
                f"one provider or peer on to its other providers and peers, which it should never do "
                f"(a route leak). The victim is {victim}. Traffic that passes through the leaker counts as "
                f"reaching the attacker.")
    if kind == "squat":
        return (f"{at}{attacker} announced {what}, address space of {victim} that is not announced by "
                f"its holder, so nobody competes with the attacker's route (squatting).")
    if kind in ("forged-origin", "forged-origin-subprefix"):
        return (f"{at}{attacker} announced {what}{rel}, with {forged}, so the route looks as if the "
                f"victim originated it ({name}). The victim is {victim}.")
    if kind == "intercept":
        return (f"{at}{attacker} announced {what}{rel}, with {forged}, while keeping its own route to "
                f"the victim, so that it can forward the traffic it attracts on to the victim ({name}). The "
                f"victim is {victim}.")
    kind_note = f" ({name})" if name else f" (a {kind} attack)"
    return f"{at}{attacker} announced {what}{rel}{kind_note}. The victim is {victim}."


def _told(mark, attack, mit, attributes) -> bool:
    """Whether another sentence of the story tells `mark` already: the attack starting or stopping,
    the victim's more-specifics, a setting on routes, the end of an RPKI window."""
    if any(a.startswith(mark.label) for a in attributes) or mark.label.startswith("every adopter's routers have"):
        return True
    if attack and mark.time in (attack.start, attack.stop) and mark.label.startswith(("attack", "leak", "interception")):
        return True
    return bool(mit) and mark.time == mit.start and mark.label.startswith("victim ")


def _peak_sentence(run: RunResult) -> str:
    attack, peak = run.scenario.attack, run.peak
    if peak.attacker <= 0:
        return "At no time did any AS send its traffic for the target address to the attacker."
    what = "leak" if attack.kind == "leak" else "attack"
    lead = f"Within {duration(peak.at - attack.start)} of the {what}, " if peak.at >= attack.start \
        else "At the worst moment, "
    return (f"{lead}{pct(peak.attacker)} of ASes sent their traffic to the attacker "
            f"(peak at t = {secs(round(peak.at, 1))} s).")


def _no_route_episode(rows: Sequence[tuple[float, float, float]]) -> tuple[float, float, float | None] | None:
    """The worst moment, during the run, of ASes without a working route (no route or a loop) above the
    final share: (share, start, duration or None if it lasts to the end). None when there is none.
    `rows` are `json_timeline`'s."""
    rows = [(t, max(0.0, 1.0 - a - v)) for t, a, v in rows]
    if len(rows) < 2:
        return None
    final = rows[-1][1]
    k = max(range(len(rows)), key=lambda i: (rows[i][1], -i))
    worst = rows[k][1]
    if worst <= final + 0.005:
        return None
    start = k
    while start > 0 and rows[start - 1][1] > final + 1e-9:
        start -= 1
    end = next((rows[i][0] for i in range(k + 1, len(rows)) if rows[i][1] <= final + 1e-9), None)
    return worst, rows[start][0], None if end is None else end - rows[start][0]


def _rpki_windows(run: RunResult) -> list[tuple[float, int, str]]:
    """For each ROA published or revoked during the run, the window in which not every adopter acted
    on it yet, and why (bgpsim.sim.rpki_delays)."""
    if run.rpki is None:
        return []
    out = []
    heard = sum(s.notify for s in run.rpki.schedules.values())
    n = len(run.rpki.schedules)
    for c in run.rpki.changes:
        if c.last is None or c.last <= c.at:
            continue
        act = "drop routes it makes invalid" if c.change.endswith("published") else "stop dropping routes for it"
        out.append((c.last, 3, f"For {duration(c.last - c.at)} after the ROA change (t = {secs(round(c.at, 1))} s to "
                               f"{secs(round(c.last, 1))} s) not every ROV adopter could {act}: each waited for its "
                               f"relying party's next run, and {count(n - heard)} of the {count(n)} for their "
                               f"routers' next RTR poll, having no Serial Notify from their cache. Only at "
                               f"t = {secs(round(c.last, 1))} s did every adopter's routers have it."))
    return out


def summary_text(run: RunResult, names: Mapping[int, str] | None = None) -> str:
    """The report's one-paragraph plain-language summary of the run: what the attacker did, how far it
    got at the peak, what happened after, and where traffic goes at the end (on the converged state:
    what was computed and where traffic goes). `names` as in `attack_sentence`."""
    names = names or {}
    sc = run.scenario
    attack, outcome, traffic, peak = sc.attack, run.outcome, run.traffic, run.peak

    parts = [attack_sentence(run, names)] if attack else [
        f"No attack in this scenario; the victim is {as_label(run.victim, names)}."]
    parts.append(f"The report follows the traffic sent to the address {sc.target}.")
    steady = run.engine == "steady"
    if steady:
        parts.append("This run computed the converged state: the route each AS settles on once BGP has "
                     "converged, not how it got there.")
    defence = sc.defence
    if defence:
        n = defence.adopters
        parts_of = defence.policy.lower().split("+")
        if "rov" in parts_of and any(POLICY_WORDS.get(p, "").endswith("and ROV") for p in parts_of):
            parts_of.remove("rov")  # rov+aspa is aspa, whose sentence says ROV already
        policy = " and ".join(POLICY_WORDS.get(p, p) for p in parts_of)
        parts.append(f"{count(n)} AS{' filters' if n == 1 else 'es filter'} the routes they receive with {policy}.")
        if defence.settings:
            parts.append(defence.settings[0].upper() + defence.settings[1:] + ".")
    # events in time order: the peak, the victim's reaction, the attack stopping
    events: list[tuple[float, int, str]] = []
    if attack and not steady:
        events.append((peak.at, 0, _peak_sentence(run)))
    mit = sc.mitigation
    if mit:
        which = f"the more-specific prefixes {join(mit.prefixes)}" if mit.prefixes else "more-specific prefixes"
        events.append((mit.start, 1, f"At t = {secs(mit.start)} s the victim started announcing {which} "
                                     + (f"{COMMUNITY_WORDS[mit.community]}." if mit.community else
                                        "to win its traffic back.")))
    if sc.attributes:
        parts.append("Set on routes by operators: " + "; ".join(sc.attributes) + ".")
    # the scenario's own events (announcements, withdrawals, links, sessions closing) in time order
    events += [(m.time, 2, f"At t = {secs(round(m.time, 1))} s: {m.label}.") for m in run.marks
               if not _told(m, attack, mit, sc.attributes)]
    events += _rpki_windows(run)
    if attack and attack.stop is not None:
        events.append((attack.stop, 2,
                       "The attacker "
                       f"{'stopped leaking' if attack.kind == 'leak' else 'withdrew its announcement'}"
                       f" at t = {secs(attack.stop)} s."))
    rows = json_timeline(run)
    episode = None if steady else _no_route_episode(rows)
    if episode is not None:
        share, start, dur = episode
        lasting = f"for {duration(dur)}" if dur is not None else "until the end"
        events.append((start, 3, f"While routes were changing, from t = {secs(round(start, 1))} s {lasting}, "
                                 f"up to {pct(share)} of ASes had no working route to the target address "
                                 f"(no route at all, or a forwarding loop)."))
    parts += [text for _, _, text in sorted(events, key=lambda e: (e[0], e[1]))]
    conv = run.converged_at
    # the converged state is how routing stays, told in the present; a timed run's end, in the past
    send, reach, have, are = ("send", "reach", "have", "are") if steady else ("sent", "reached", "had", "were")
    tail = [f"{pct(outcome.attacker)} of ASes {send} their traffic to the attacker",
            f"{pct(outcome.victim)} {reach} the victim"]
    if outcome.disconnected > 0:
        blackholed = mit is not None and mit.community == "blackhole"
        tail.append(f"{pct(outcome.disconnected)} {have} no route at all"
                    + (" or had their traffic dropped by a blackhole" if blackholed else ""))
    if outcome.loop > 0:
        tail.append(f"{pct(outcome.loop)} {are} caught in forwarding loops")
    if steady:
        parts.append(f"Once routing has converged, {join(tail)}.")
    else:
        parts.append(f"At the end, once routing had settled at t = {secs(conv)} s, {join(tail)}.")
    if not steady and rows and conv - rows[-1][0] >= 1.0:  # the time of the last change in where traffic goes
        parts.append(f"(The BGP updates after t = {secs(round(rows[-1][0], 1))} s no longer changed where any "
                     f"AS's traffic goes.)")
    icp = run.interception
    if icp is not None and attack and attack.kind == "intercept":
        if icp.delivered:
            parts.append("The attacker kept a working route to the victim"
                         + (f" ({icp.route_to_victim})" if icp.route_to_victim else "")
                         + ", so the traffic it intercepts still arrives, and the hijack is hard to notice.")
        else:
            parts.append("The attacker has no working route left to the victim, so the traffic it attracts is "
                         "dropped instead of passed on.")
    if traffic.weighting != "uniform" and steady:  # uniform: the same as the AS shares
        parts.append(f"Weighting the traffic ({weighting_text(traffic.weighting)}), {pct(traffic.diverted)} of all "
                     f"traffic goes to the attacker.")
    elif traffic.weighting != "uniform":
        parts.append(f"Weighting the traffic ({weighting_text(traffic.weighting)}), at the peak "
                     f"{pct(peak.diverted)} of all traffic was diverted to the attacker, and "
                     f"{pct(traffic.diverted)} at the end.")
    return " ".join(parts)
