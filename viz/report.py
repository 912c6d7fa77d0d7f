"""One self-contained HTML report of a simulation run.

No external CSS, scripts, fonts or images: the figures are embedded as base64 `data:` URIs, the style
sheet is inline. The page is rendered by jinja2 with autoescaping on (AS names come from input files and
are never trusted as HTML) and written to a temporary file that is renamed into place, so a reader never
sees half a report. The same input gives the same bytes (no timestamps).
"""

from __future__ import annotations

import base64
import ipaddress
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2

from . import write_atomic
from .figures import COLOURS, OUTCOME_LABELS, weighting_text

MAX_TABLE_ROWS = 200

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------------------ formatting

def _pct(frac: Any) -> str:
    """A fraction 0..1 as a percentage with one decimal, '—' when missing."""
    try:
        v = float(frac)
    except (TypeError, ValueError):
        return "—"
    if math.isnan(v):
        return "—"
    return f"{v * 100:.1f} %"


def _secs(t: Any) -> str:
    """Seconds: whole numbers without decimals, else one decimal."""
    try:
        v = float(t)
    except (TypeError, ValueError):
        return "—"
    if math.isnan(v):
        return "—"
    return f"{v:.0f}" if v.is_integer() else f"{v:.1f}"


def _count(n: Any) -> str:
    try:
        return f"{int(n):,}"
    except (TypeError, ValueError):
        return "—"


def _join(items: Sequence[str]) -> str:
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f" and {items[-1]}"


def _as_label(asn: Any, names: Mapping[int, str]) -> str:
    try:
        asn = int(asn)
    except (TypeError, ValueError):
        return str(asn)
    name = names.get(asn)
    return f"AS{asn} ({name})" if name else f"AS{asn}"


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
        inside = _join(list(dict.fromkeys(str(c) for c in covers)))
        return (", more specific prefixes inside" if plural else ", a more specific prefix inside") + \
            f" the victim's {inside}"
    wider = [v for v in theirs if any(n.version == v.version and n != v and n.supernet_of(v) for n in nets)]
    if wider and all(any(n.version == v.version and n.supernet_of(v) for v in theirs) for n in nets):
        return (", less specific prefixes covering" if plural else ", a less specific prefix covering") + \
            f" the victim's {_join([str(v) for v in wider])}"
    return f" (the victim's {'prefixes are' if len(theirs) > 1 else 'prefix is'} {_join([str(v) for v in theirs])})"


_KIND_NAMES = {
    "prefix": "an exact-prefix hijack",
    "subprefix": "a sub-prefix hijack",
    "forged-origin": "a forged-origin hijack",
    "forged-origin-subprefix": "a forged-origin sub-prefix hijack",
    "squat": "squatting on unannounced address space",
    "leak": "a route leak",
    "intercept": "an interception attack",
}


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
    attacker = _as_label(result.get("attacker"), names)
    victim = _as_label(result.get("victim"), names)
    prefixes = [str(p) for p in (attack.get("prefixes") or [])]
    theirs = [str(p) for p in (sc.get("victim_prefixes") or [])]
    kind = str(attack.get("kind") or "")
    at = f"At t = {_secs(attack.get('start', 0))} s, "
    what = _join(prefixes) if prefixes else "a route"
    rel = _relation(prefixes, theirs) if prefixes else ""
    forged = f"the forged AS path “{_asn_text(result.get('attacker'))} {_asn_text(result.get('victim'))}” " \
             f"(attacker, then victim)"
    name = _KIND_NAMES.get(kind)
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


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def peak_of(result: Mapping[str, Any]) -> dict | None:
    """result["peak"] with numbers checked ({"attacker", "at", "diverted"}, values may be None), or None
    when the input has no peak (older result.json files)."""
    peak = result.get("peak")
    if not isinstance(peak, Mapping):
        return None
    out = {k: _num(peak.get(k)) for k in ("attacker", "at", "diverted")}
    return out if out["attacker"] is not None else None


def _dur(d: float) -> str:
    if d < 0.1:
        return f"{d * 1000:.0f} ms" if d >= 0.0015 else f"{d * 1000:.1f} ms"
    return f"{d:.1f} s" if d < 10 else f"{d:.0f} s"


def _peak_sentence(result: Mapping[str, Any], peak: Mapping[str, Any]) -> str:
    attack = (result.get("scenario") or {}).get("attack") or {}
    share, at = peak["attacker"], peak["at"]
    if share <= 0:
        return "At no time did any AS send its traffic for the target address to the attacker."
    start = _num(attack.get("start"))
    when = f"peak at t = {_secs(round(at, 1))} s" if at is not None else ""
    what = "leak" if attack.get("kind") == "leak" else "attack"
    if at is not None and start is not None and at >= start:
        lead = f"Within {_dur(at - start)} of the {what}, "
    else:
        lead = "At the worst moment, "
    return f"{lead}{_pct(share)} of ASes sent their traffic to the attacker" + (f" ({when})." if at is not None else ".")


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


_POLICY_NAMES = {"rov": "ROV (Route Origin Validation: drop routes whose origin AS the RPKI does not allow)"}


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
        f"No attack in this scenario; the victim is {_as_label(result.get('victim'), names)}."]
    if sc.get("target"):
        parts.append(f"The report follows the traffic sent to the address {sc['target']}.")
    defence = sc.get("defence")
    if defence:
        n = defence.get("adopters")
        policy = str(defence.get("policy") or "a defence policy")
        policy = _POLICY_NAMES.get(policy.lower(), policy)
        parts.append(f"{_count(n)} AS{' filters' if n == 1 else 'es filter'} the routes they receive with {policy}.")
    # events in time order: the peak, the victim's reaction, the attack stopping
    events: list[tuple[float, int, str]] = []
    if peak is not None and attack:
        events.append((peak["at"] if peak["at"] is not None else -math.inf, 0, _peak_sentence(result, peak)))
    mit = sc.get("mitigation")
    if mit:
        mp = list(mit.get("prefixes") or [])
        events.append((_num(mit.get("start")) or 0.0, 1,
                       f"At t = {_secs(mit.get('start'))} s the victim started announcing "
                       f"{'the more-specific prefixes ' + _join(mp) if mp else 'more-specific prefixes'} "
                       f"to win its traffic back."))
    if attack.get("stop") is not None:
        events.append((_num(attack.get("stop")) or 0.0, 2,
                       "The attacker "
                       f"{'stopped leaking' if attack.get('kind') == 'leak' else 'withdrew its announcement'}"
                       f" at t = {_secs(attack.get('stop'))} s."))
    episode = _no_route_episode(result)
    if episode is not None:
        share, start, dur = episode
        lasting = f"for {_dur(dur)}" if dur is not None else "until the end"
        events.append((start, 3, f"While routes were changing, from t = {_secs(round(start, 1))} s {lasting}, "
                                 f"up to {_pct(share)} of ASes had no working route to the target address "
                                 f"(no route at all, or a forwarding loop)."))
    parts += [text for _, _, text in sorted(events, key=lambda e: (e[0], e[1]))]
    conv = _num(result.get("converged_at"))
    settle = f"At the end, once routing had settled at t = {_secs(conv)} s, " if conv is not None else "At the end, "
    tail = [f"{_pct(outcome.get('attacker'))} of ASes sent their traffic to the attacker",
            f"{_pct(outcome.get('victim'))} reached the victim"]
    if _nonzero(outcome.get("disconnected")):
        tail.append(f"{_pct(outcome.get('disconnected'))} had no route at all")
    if _nonzero(outcome.get("loop")):
        tail.append(f"{_pct(outcome.get('loop'))} were caught in forwarding loops")
    parts.append(f"{settle}{_join(tail)}.")
    last = _last_change(result)
    if conv is not None and last is not None and conv - last >= 1.0:
        parts.append(f"(The BGP updates after t = {_secs(round(last, 1))} s no longer changed where any AS's "
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
            at_peak = f"at the peak {_pct(peak['diverted'])} of all traffic was diverted to the attacker, and "
            parts.append(f"Weighting the traffic ({weighting_text(w)}), {at_peak}{_pct(traffic.get('diverted'))} "
                         f"at the end.")
        else:
            parts.append(f"Weighting the traffic ({weighting_text(w)}), {_pct(traffic.get('diverted'))} of all "
                         f"traffic was diverted to the attacker at the end.")
    return " ".join(parts)


def _nonzero(x: Any) -> bool:
    try:
        return float(x) > 0
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------------------------------- AS table

def _time_key(v: Any) -> float:
    if v == "" or v is None:
        return math.inf
    try:
        t = float(v)
    except (TypeError, ValueError):
        return math.inf
    return math.inf if math.isnan(t) else t


def _switch_key(row: Mapping[str, Any]) -> float:
    return _time_key(row.get("switched_at", ""))


def attacker_at(row: Mapping[str, Any]) -> Any:
    """When the AS's traffic first went to the attacker ("" if never). Rows without the `attacker_at`
    key (older ases.csv) fall back to the last switch time of ASes that end at the attacker."""
    if "attacker_at" in row:
        return row.get("attacker_at")
    return row.get("switched_at", "") if row.get("outcome") == "attacker" else ""


def _asn_key(row: Mapping[str, Any]) -> int:
    try:
        return int(row.get("asn"))
    except (TypeError, ValueError):
        return 0


def select_rows(ases: Sequence[Mapping[str, Any]], limit: int = MAX_TABLE_ROWS) -> list[Mapping[str, Any]]:
    """All ASes (in the given order) if at most `limit`; else the `limit` whose traffic went to the
    attacker earliest, in that order (then, if fewer than `limit` ever did, the others by their last
    change, then by ASN)."""
    if len(ases) <= limit:
        return list(ases)
    return sorted(ases, key=lambda r: (_time_key(attacker_at(r)), _switch_key(r), _asn_key(r)))[:limit]


def _fine_secs(t: Any) -> str:
    """A time in the AS table: milliseconds shown, since a hijack spreads within a fraction of a second."""
    v = _time_key(t)
    return "" if v == math.inf else f"{v:.3f}"


# ----------------------------------------------------------------------------------------------- page

_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ name }} — BGP hijack simulation report</title>
<style>
:root { --attacker: {{ colours.attacker }}; --victim: {{ colours.victim }};
        --disconnected: {{ colours.disconnected }}; --loop: {{ colours.loop }}; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f7f9; color: #1f2328;
       font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
                    "Liberation Sans", sans-serif;
       font-size: 16px; line-height: 1.55; }
main { max-width: 1000px; margin: 0 auto; padding: 28px 24px 48px; background: #fff;
       min-height: 100vh; box-shadow: 0 0 0 1px #e4e7eb; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 36px 0 12px; padding-bottom: 4px; border-bottom: 2px solid #e4e7eb; }
.subtitle { color: #57606a; margin: 0 0 18px; }
.summary { font-size: 1.05rem; background: #f3f6fa; border-left: 4px solid #4a6fa5; padding: 14px 18px;
           margin: 0 0 8px; border-radius: 0 6px 6px 0; }
.description { color: #3d444d; }
.numbers { display: grid; grid-template-columns: repeat(auto-fill, minmax(175px, 1fr)); gap: 10px;
           margin: 0; padding: 0; list-style: none; }
.numbers li { border: 1px solid #e4e7eb; border-radius: 8px; padding: 10px 14px; background: #fbfcfd; }
.numbers .value { display: block; font-size: 1.45rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.numbers .label { display: block; font-size: 0.85rem; color: #57606a; }
.numbers li.attacker { border-left: 5px solid var(--attacker); }
.numbers li.victim { border-left: 5px solid var(--victim); }
.numbers li.disconnected { border-left: 5px solid var(--disconnected); }
.numbers li.loop { border-left: 5px solid var(--loop); }
table.compare { border-collapse: collapse; margin: 0 0 14px; font-variant-numeric: tabular-nums; }
table.compare th, table.compare td { padding: 7px 14px; border-bottom: 1px solid #e4e7eb; text-align: right; }
table.compare thead th { font-size: 0.9rem; color: #3d444d; vertical-align: bottom; }
table.compare thead th .when { display: block; font-weight: 400; color: #57606a; font-size: 0.85rem; }
table.compare thead th.peak { background: #fdecec; }
table.compare tbody th { text-align: left; font-weight: 500; }
table.compare td { font-size: 1.2rem; font-weight: 650; min-width: 9.5em; }
table.compare tr.attacker td { color: #8b1a1a; }
dl.details { display: grid; grid-template-columns: max-content 1fr; gap: 6px 20px; margin: 0; }
dl.details dt { font-weight: 600; color: #3d444d; }
dl.details dd { margin: 0; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
              font-size: 0.9em; }
figure { margin: 0 0 28px; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid #e4e7eb; border-radius: 6px; }
figcaption { color: #57606a; font-size: 0.92rem; margin-top: 6px; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 50%; margin-right: 6px;
          vertical-align: -0.05em; border: 1px solid rgba(0,0,0,0.35); }
.swatch.attacker { background: var(--attacker); }
.swatch.victim { background: var(--victim); }
.swatch.disconnected { background: var(--disconnected); }
.swatch.loop { background: var(--loop); }
.swatch.unknown { background: #fff; }
.legend { margin: 0 0 10px; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 4px 18px;
          font-size: 0.9rem; color: #3d444d; }
.table-wrap { overflow-x: auto; border: 1px solid #e4e7eb; border-radius: 6px; }
table.ases { border-collapse: collapse; width: 100%; font-size: 0.86rem; }
table.ases th, table.ases td { padding: 5px 8px; text-align: left; vertical-align: top;
                              border-bottom: 1px solid #eef0f2; }
table.ases th { background: #f3f4f6; font-weight: 600; }
table.ases tbody tr:nth-child(even) { background: #fafbfc; }
table.ases td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.ases td.asn, table.ases td.outcome { white-space: nowrap; }
table.ases td.path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
                     font-size: 0.85em; word-break: break-word; min-width: 9em; }
table.ases tr.is-attacker td:first-child, table.ases tr.is-victim td:first-child { font-weight: 700; }
.tag { display: inline-block; font-size: 0.72rem; font-weight: 700; padding: 0 5px; border-radius: 4px;
       margin-left: 4px; color: #fff; vertical-align: 0.1em; }
.tag.attacker { background: var(--attacker); }
.tag.victim { background: var(--victim); }
.note { color: #57606a; font-size: 0.92rem; }
footer { margin-top: 36px; color: #8c959f; font-size: 0.85rem; }
</style>
</head>
<body>
<main>
<h1>{{ name }}</h1>
<p class="subtitle">BGP hijack simulation on the topology <strong>{{ topo_name }}</strong>
({{ n_ases }} ASes, {{ n_links }} links) — attacker {{ attacker_label }}, victim {{ victim_label }}</p>

<p class="summary">{{ summary }}</p>
{% if description %}<p class="description">{{ description }}</p>{% endif %}

<h2>Key numbers</h2>
<table class="compare">
<thead><tr><th></th>{% for head in compare.heads %}<th class="{{ head.cls }}">{{ head.text }}<span class="when">{{ head.when }}</span></th>{% endfor %}</tr></thead>
<tbody>
{% for row in compare.rows %}<tr class="{{ row.cls }}"><th><span class="swatch {{ row.cls }}"></span>{{ row.label }}</th>{% for v in row.cells %}<td>{{ v }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
<ul class="numbers">
{% for item in numbers %}  <li{% if item.cls %} class="{{ item.cls }}"{% endif %}><span class="value">{{ item.value }}</span><span class="label">{{ item.label }}</span></li>
{% endfor %}</ul>

<h2>Scenario</h2>
<dl class="details">
{% for term, value in details %}  <dt>{{ term }}</dt><dd>{{ value }}</dd>
{% endfor %}</dl>

{% if figures %}<h2>Figures</h2>
{% for fig in figures %}<figure>
<img src="data:image/png;base64,{{ fig.data }}" alt="{{ fig.caption }}"{% if fig.width %} width="{{ fig.width }}" height="{{ fig.height }}"{% endif %}>
<figcaption>Figure {{ loop.index }}. {{ fig.caption }}</figcaption>
</figure>
{% endfor %}{% endif %}

<h2>Autonomous systems</h2>
<ul class="legend">
{% for key, text in outcome_labels %}  <li><span class="swatch {{ key }}"></span><strong>{{ key }}</strong>: {{ text }}</li>
{% endfor %}</ul>
{% if omitted %}<p class="note">Showing {{ shown }} of {{ total }} ASes: those whose traffic went to the
attacker earliest, in that order. The other {{ omitted }} are omitted here; <code>ases.csv</code> lists all
of them.</p>
{% else %}<p class="note">All {{ total }} ASes.</p>{% endif %}
<p class="note">“To attacker at” is when the AS's traffic for the target address first went to the attacker
(empty if it never did); “Last change at” is when the AS last changed where that traffic goes (empty if it
never changed). The other columns describe the end of the simulation.</p>
<div class="table-wrap">
<table class="ases">
<thead><tr><th>ASN</th><th>Name</th><th>Role</th><th>Outcome at the end</th><th>To attacker at (s)</th>
<th>Last change at (s)</th><th>Prefix used</th>
<th>AS path</th><th>Learned from</th></tr></thead>
<tbody>
{% for r in rows %}<tr{% if r.cls %} class="{{ r.cls }}"{% endif %}><td class="asn">AS{{ r.asn }}{% if r.tag %}<span class="tag {{ r.tag }}">{{ r.tag }}</span>{% endif %}</td><td>{{ r.name }}</td><td>{{ r.role }}</td><td class="outcome" title="{{ r.outcome_long }}"><span class="swatch {{ r.swatch }}"></span>{{ r.outcome }}</td><td class="num">{{ r.attacker_at }}</td><td class="num">{{ r.switched }}</td><td class="mono">{{ r.prefix }}</td><td class="path">{{ r.path }}</td><td>{{ r.relationship }}</td></tr>
{% endfor %}</tbody>
</table>
</div>

<footer>Generated by bgpsim from seed {{ seed }}. The full results are in <code>result.json</code> and
<code>ases.csv</code>.</footer>
</main>
</body>
</html>
"""

_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
_PAGE = _ENV.from_string(_TEMPLATE)


def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == _PNG_SIGNATURE and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def _embed(figures: Sequence[tuple[str, str | os.PathLike]]) -> list[dict]:
    out = []
    for caption, png in figures:
        data = Path(png).read_bytes()
        if data[:8] != _PNG_SIGNATURE:
            raise ValueError(f"{png} is not a PNG file")
        size = _png_size(data)
        out.append({"caption": caption, "data": base64.b64encode(data).decode("ascii"),
                    "width": size[0] if size else None, "height": size[1] if size else None})
    return out


def _cell(v: Any) -> str:
    return "" if v is None else str(v)


def _details(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    sc = result.get("scenario") or {}
    attack = sc.get("attack") or {}
    timing = sc.get("timing") or {}
    topo = result.get("topology") or {}
    rows: list[tuple[str, str]] = []
    kind = str(attack.get("kind", "—"))
    rows.append(("Attack", f"{kind} ({_KIND_NAMES[kind]})" if kind in _KIND_NAMES else kind))
    verb = "leaked" if kind == "leak" else "announced"
    rows.append((f"Prefixes {verb} by the attacker", ", ".join(attack.get("prefixes") or []) or "—"))
    if sc.get("victim_prefixes"):
        rows.append(("Victim's prefixes", ", ".join(str(p) for p in sc["victim_prefixes"])))
    if sc.get("target"):
        rows.append(("Target address (traffic followed)", str(sc["target"])))
    stop = attack.get("stop")
    rows.append(("Attack runs", f"from t = {_secs(attack.get('start', 0))} s "
                 + (f"until t = {_secs(stop)} s" if stop is not None else "until the end of the simulation")))
    mit = sc.get("mitigation")
    rows.append(("Victim's reaction",
                 f"announces {', '.join(mit.get('prefixes') or []) or 'more-specific prefixes'} "
                 f"from t = {_secs(mit.get('start'))} s" if mit else "none"))
    defence = sc.get("defence")
    rows.append(("Defence", f"{defence.get('policy', '—')} deployed by {_count(defence.get('adopters'))} ASes"
                 if defence else "none"))
    if timing:
        rows.append(("MRAI (minimum time between updates)", f"{_secs(timing.get('mrai'))} s"))
        rows.append(("Link delay", str(timing.get("link_delay", "—"))))
        rows.append(("Processing delay", str(timing.get("processing_delay", "—"))))
        warm = timing.get("warm_start")
        rows.append(("Warm start", "yes" if warm else ("no" if warm is not None else "—")))
    traffic = result.get("traffic") or {}
    if traffic:
        w = traffic.get("weighting", "uniform")
        rows.append(("Traffic weighting", f"{w} ({weighting_text(w)})"))
    rows.append(("Topology", f"{topo.get('name', '—')}" + (f" — {topo['source']}" if topo.get("source") else "")))
    if sc.get("source"):
        rows.append(("Scenario file", str(sc["source"])))
    rows.append(("Random seed", str(result.get("seed", "—"))))
    return rows


def _timeline_at(result: Mapping[str, Any], t: float | None) -> list[float] | None:
    """The result["timeline"] row in force at time t (the last row at or before t)."""
    if t is None:
        return None
    found = None
    for row in result.get("timeline") or []:
        try:
            if float(row[0]) <= t + 1e-9:
                found = [float(x) for x in row]
        except (TypeError, ValueError, IndexError):
            return None
    return found


def key_table(result: Mapping[str, Any]) -> dict:
    """The key numbers that change during the run, at the peak of the attack (when result has a peak)
    and at the end, as `{"heads": [...], "rows": [{"label", "cls", "cells"}]}`."""
    outcome = result.get("outcome") or {}
    traffic = result.get("traffic") or {}
    peak = peak_of(result)
    conv = _num(result.get("converged_at"))
    heads = []
    at_peak: dict[str, Any] = {}
    if peak is not None:
        heads.append({"text": "At the peak of the attack", "cls": "peak",
                      "when": f"t = {_secs(round(peak['at'], 1))} s" if peak["at"] is not None else ""})
        row = _timeline_at(result, peak["at"])
        at_peak["attacker"] = peak["attacker"]
        if row is not None and len(row) >= 3:
            at_peak["victim"] = row[2]
            rest = 1.0 - row[1] - row[2]
            if len(row) >= 5:
                at_peak["disconnected"], at_peak["loop"] = row[3], row[4]
            elif abs(rest) < 1e-6:
                at_peak["disconnected"] = at_peak["loop"] = 0.0
        at_peak["diverted"] = peak["diverted"]
    heads.append({"text": "At the end", "cls": "end",
                  "when": f"routing settled, t = {_secs(conv)} s" if conv is not None else ""})
    rows = []
    for key, label in (("attacker", "ASes whose traffic reaches the attacker"),
                       ("victim", "ASes whose traffic reaches the victim"),
                       ("disconnected", "ASes with no route (disconnected)"),
                       ("loop", "ASes caught in forwarding loops")):
        if key == "loop" and not (_nonzero(outcome.get("loop")) or _nonzero(at_peak.get("loop"))):
            continue
        values = ([_pct(at_peak.get(key))] if peak is not None else []) + [_pct(outcome.get(key))]
        rows.append({"label": label, "cls": key, "cells": values})
    w = traffic.get("weighting", "uniform")
    values = ([_pct(at_peak.get("diverted"))] if peak is not None else []) + [_pct(traffic.get("diverted"))]
    rows.append({"label": f"Traffic diverted to the attacker ({w} weighting)", "cls": "attacker", "cells": values})
    return {"heads": heads, "rows": rows}


def render_report(result: Mapping[str, Any], ases: Sequence[Mapping[str, Any]],
                  figures: Sequence[tuple[str, str | os.PathLike]]) -> str:
    """The report page as a string (see `write_report`)."""
    sc = result.get("scenario") or {}
    topo = result.get("topology") or {}
    names = {}
    for r in ases:
        try:
            if r.get("name"):
                names[int(r["asn"])] = str(r["name"])
        except (TypeError, ValueError, KeyError):
            pass
    attacker, victim = result.get("attacker"), result.get("victim")

    conv = result.get("converged_at")
    compare = key_table(result)
    numbers = [
        {"label": "ASes in the topology", "value": _count(topo.get("ases")), "cls": ""},
        {"label": "links between ASes", "value": _count(topo.get("links")), "cls": ""},
        {"label": "routing settled at (simulated time)", "value": f"{_secs(conv)} s", "cls": ""},
        {"label": "BGP update messages sent", "value": _count(result.get("messages")), "cls": ""},
        {"label": "simulation events processed", "value": _count(result.get("events")), "cls": ""},
        {"label": "random seed", "value": str(result.get("seed", "—")), "cls": ""},
    ]

    shown = select_rows(ases)
    rows = []
    for r in shown:
        out = _cell(r.get("outcome"))
        tag = ""
        try:
            asn = int(r.get("asn"))
            tag = "attacker" if asn == attacker else ("victim" if asn == victim else "")
        except (TypeError, ValueError):
            pass
        sw = r.get("switched_at", "")
        rows.append({
            "asn": _cell(r.get("asn")), "name": _cell(r.get("name")), "role": _cell(r.get("role")),
            "outcome": out, "outcome_long": OUTCOME_LABELS.get(out, out),
            "swatch": out if out in COLOURS else "unknown",
            "switched": _fine_secs(sw), "attacker_at": _fine_secs(attacker_at(r)), "prefix": _cell(r.get("prefix")),
            "path": _cell(r.get("path")), "relationship": _cell(r.get("relationship")),
            "tag": tag, "cls": f"is-{tag}" if tag else "",
        })

    return _PAGE.render(
        name=sc.get("name") or "Simulation report",
        description=sc.get("description") or "",
        topo_name=topo.get("name") or "—",
        n_ases=_count(topo.get("ases")), n_links=_count(topo.get("links")),
        attacker_label=_as_label(attacker, names), victim_label=_as_label(victim, names),
        summary=summary_text(result, names),
        numbers=numbers, compare=compare,
        details=_details(result),
        figures=_embed(figures),
        outcome_labels=[(k, OUTCOME_LABELS[k]) for k in COLOURS],
        colours=COLOURS,
        rows=rows, shown=_count(len(rows)), total=_count(len(ases)),
        omitted=_count(len(ases) - len(rows)) if len(ases) > len(rows) else "",
        seed=result.get("seed", "—"),
    )


def write_report(path: str | os.PathLike, result: Mapping[str, Any], ases: Sequence[Mapping[str, Any]],
                 figures: Sequence[tuple[str, str | os.PathLike]]) -> Path:
    """Write one self-contained HTML report to `path` (via a temp file renamed into place).

    `result` is the run's result.json dict, `ases` one dict per AS (asn, name, role, outcome, attacker_at,
    switched_at, prefix, path, relationship), `figures` a list of (caption, png_path) embedded as data URIs.
    """
    html = render_report(result, ases, figures)
    return write_atomic(path, html.encode("utf-8"))
