"""The report's story in words (`summary_text`): what the attacker did, how far it got at the peak,
what happened after, and where traffic goes at the end, built from the numbers of result.json.

Written for a reader who knows what a prefix is but not the simulator: attacks by their usual names
("a sub-prefix hijack"), the attacker's prefix compared with the victim's (never with the target
address), events in time order, and only the numbers that matter (a disconnected share that is zero is
not mentioned). Anything missing from an older result.json is left out of the story, not invented.
"""

from __future__ import annotations

import ipaddress
import math
from typing import Any, Mapping, Sequence

from .style import as_label, count, duration, join, nonzero, num, pct, secs, weighting_text

KIND_NAMES = {
    "prefix": "an exact-prefix hijack",
    "subprefix": "a sub-prefix hijack",
    "forged-origin": "a forged-origin hijack",
    "forged-origin-subprefix": "a forged-origin sub-prefix hijack",
    "squat": "squatting on unannounced address space",
    "leak": "a route leak",
    "intercept": "an interception attack",
}

_POLICY_NAMES = {"rov": "ROV (Route Origin Validation: drop routes whose origin AS the RPKI does not allow)"}


def _nets(prefixes: Sequence[Any]) -> list:
    out = []
    for p in prefixes:
        try:
            out.append(ipaddress.ip_network(str(p), strict=False))
        except ValueError:
            pass
    return out


def _relation(prefixes: Sequence[str], victim_prefixes: Sequence[str]) -> str:
    """How the attacker's prefixes relate to the victim's: ', a more specific prefix inside the
    victim's 198.51.100.0/24', ', the victim's own prefix', ... ('' when it cannot be told)."""
    nets, theirs = _nets(prefixes), _nets(victim_prefixes)
    if not nets or not theirs or len(nets) != len(prefixes):
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


def _asn_text(asn: Any) -> str:
    try:
        return str(int(asn))
    except (TypeError, ValueError):
        return "?"


def attack_sentence(result: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """What the attacker did, in one sentence ending with the victim, from result["scenario"]."""
    names = names or {}
    sc = result.get("scenario") or {}
    attack = sc.get("attack") or {}
    attacker = as_label(result.get("attacker"), names)
    victim = as_label(result.get("victim"), names)
    prefixes = [str(p) for p in (attack.get("prefixes") or [])]
    theirs = [str(p) for p in (sc.get("victim_prefixes") or [])]
    kind = str(attack.get("kind") or "")
    at = f"At t = {secs(attack.get('start', 0))} s, "
    what = join(prefixes) if prefixes else "a route"
    rel = _relation(prefixes, theirs) if prefixes else ""
    forged = f"the forged AS path “{_asn_text(result.get('attacker'))} {_asn_text(result.get('victim'))}” " \
             f"(attacker, then victim)"
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
    kind_note = f" ({name})" if name else (f" (a {kind} attack)" if kind else "")
    return f"{at}{attacker} announced {what}{rel}{kind_note}. The victim is {victim}."


def peak_of(result: Mapping[str, Any]) -> dict | None:
    """result["peak"] with numbers checked ({"attacker", "at", "diverted"}, values may be None), or None
    when the input has no peak (older result.json files)."""
    peak = result.get("peak")
    if not isinstance(peak, Mapping):
        return None
    out = {k: num(peak.get(k)) for k in ("attacker", "at", "diverted")}
    return out if out["attacker"] is not None else None


def _peak_sentence(result: Mapping[str, Any], peak: Mapping[str, Any]) -> str:
    attack = (result.get("scenario") or {}).get("attack") or {}
    share, at = peak["attacker"], peak["at"]
    if share <= 0:
        return "At no time did any AS send its traffic for the target address to the attacker."
    start = num(attack.get("start"))
    when = f"peak at t = {secs(round(at, 1))} s" if at is not None else ""
    what = "leak" if attack.get("kind") == "leak" else "attack"
    if at is not None and start is not None and at >= start:
        lead = f"Within {duration(at - start)} of the {what}, "
    else:
        lead = "At the worst moment, "
    return f"{lead}{pct(share)} of ASes sent their traffic to the attacker" + (f" ({when})." if at is not None else ".")


def _no_route_episode(result: Mapping[str, Any]) -> tuple[float, float, float | None] | None:
    """The worst moment, during the run, of ASes without a working route (no route or a loop) above the
    final share: (share, start, duration or None if it lasts to the end). None when there is none."""
    rows = []
    for row in result.get("timeline") or []:
        try:
            t, a, v = float(row[0]), float(row[1]), float(row[2])
        except (TypeError, ValueError, IndexError):
            return None
        rows.append((t, max(0.0, 1.0 - a - v)))
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


def _last_change(result: Mapping[str, Any]) -> float | None:
    """Time of the last row of result["timeline"] (the last change in where traffic goes)."""
    tl = result.get("timeline") or []
    try:
        return float(tl[-1][0]) if tl else None
    except (TypeError, ValueError, IndexError):
        return None


def summary_text(result: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """The report's one-paragraph plain-language summary, built from the numbers in `result`: what the
    attacker did, how far it got at the peak, what happened after, and where traffic goes at the end."""
    names = names or {}
    sc = result.get("scenario") or {}
    attack = sc.get("attack") or {}
    outcome = result.get("outcome") or {}
    traffic = result.get("traffic") or {}
    peak = peak_of(result)

    parts = [attack_sentence(result, names)] if attack else [
        f"No attack in this scenario; the victim is {as_label(result.get('victim'), names)}."]
    if sc.get("target"):
        parts.append(f"The report follows the traffic sent to the address {sc['target']}.")
    defence = sc.get("defence")
    if defence:
        n = defence.get("adopters")
        policy = str(defence.get("policy") or "a defence policy")
        policy = _POLICY_NAMES.get(policy.lower(), policy)
        parts.append(f"{count(n)} AS{' filters' if n == 1 else 'es filter'} the routes they receive with {policy}.")
    # events in time order: the peak, the victim's reaction, the attack stopping
    events: list[tuple[float, int, str]] = []
    if peak is not None and attack:
        events.append((peak["at"] if peak["at"] is not None else -math.inf, 0, _peak_sentence(result, peak)))
    mit = sc.get("mitigation")
    if mit:
        mp = list(mit.get("prefixes") or [])
        events.append((num(mit.get("start")) or 0.0, 1,
                       f"At t = {secs(mit.get('start'))} s the victim started announcing "
                       f"{'the more-specific prefixes ' + join(mp) if mp else 'more-specific prefixes'} "
                       f"to win its traffic back."))
    if attack.get("stop") is not None:
        events.append((num(attack.get("stop")) or 0.0, 2,
                       "The attacker "
                       f"{'stopped leaking' if attack.get('kind') == 'leak' else 'withdrew its announcement'}"
                       f" at t = {secs(attack.get('stop'))} s."))
    episode = _no_route_episode(result)
    if episode is not None:
        share, start, dur = episode
        lasting = f"for {duration(dur)}" if dur is not None else "until the end"
        events.append((start, 3, f"While routes were changing, from t = {secs(round(start, 1))} s {lasting}, "
                                 f"up to {pct(share)} of ASes had no working route to the target address "
                                 f"(no route at all, or a forwarding loop)."))
    parts += [text for _, _, text in sorted(events, key=lambda e: (e[0], e[1]))]
    conv = num(result.get("converged_at"))
    settle = f"At the end, once routing had settled at t = {secs(conv)} s, " if conv is not None else "At the end, "
    tail = [f"{pct(outcome.get('attacker'))} of ASes sent their traffic to the attacker",
            f"{pct(outcome.get('victim'))} reached the victim"]
    if nonzero(outcome.get("disconnected")):
        tail.append(f"{pct(outcome.get('disconnected'))} had no route at all")
    if nonzero(outcome.get("loop")):
        tail.append(f"{pct(outcome.get('loop'))} were caught in forwarding loops")
    parts.append(f"{settle}{join(tail)}.")
    last = _last_change(result)
    if conv is not None and last is not None and conv - last >= 1.0:
        parts.append(f"(The BGP updates after t = {secs(round(last, 1))} s no longer changed where any AS's "
                     f"traffic goes.)")
    icp = result.get("interception")
    if isinstance(icp, Mapping) and attack.get("kind") == "intercept":
        if icp.get("delivered"):
            parts.append("The attacker kept a working route to the victim"
                         + (f" ({icp['route_to_victim']})" if icp.get("route_to_victim") else "")
                         + ", so the traffic it intercepts still arrives, and the hijack is hard to notice.")
        else:
            parts.append("The attacker has no working route left to the victim, so the traffic it attracts is "
                         "dropped instead of passed on.")
    if traffic and traffic.get("weighting", "uniform") != "uniform":  # uniform: the same as the AS shares
        w = traffic.get("weighting", "uniform")
        at_peak = ""
        if peak is not None and peak["diverted"] is not None:
            at_peak = f"at the peak {pct(peak['diverted'])} of all traffic was diverted to the attacker, and "
            parts.append(f"Weighting the traffic ({weighting_text(w)}), {at_peak}{pct(traffic.get('diverted'))} "
                         f"at the end.")
        else:
            parts.append(f"Weighting the traffic ({weighting_text(w)}), {pct(traffic.get('diverted'))} of all "
                         f"traffic was diverted to the attacker at the end.")
    return " ".join(parts)
