"""One self-contained HTML report of a simulation run (`write_report`).

No external CSS, scripts, fonts or images: the figures are embedded as base64 `data:` URIs and the
style sheet is inline, so the page can be mailed or opened offline. The same input gives the same bytes
(no timestamps), written to a temporary file renamed into place, so a reader never sees half a report.

The page is the package data file `report.html`, a `string.Template`: its `$name` fields are filled
here with text already escaped (`_e`: AS names and captions come from input files and are never
trusted as HTML); the repeated parts (table rows, figures) are built here, each from one pattern. The
words of the summary come from `story`. Everything is read from the run's `RunResult`, whose types say
what may be missing (no attack, no mitigation, no defence, no timing on the converged-state engine).
"""

from __future__ import annotations

import base64
import math
import os
from functools import cache
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from bgpsim.base.outdir import write_atomic

from .bgpsec import bgpsec_html
from .steps import steps_html
from .story import KIND_NAMES, summary_text
from .style import COLOURS, COMMUNITY_WORDS, OUTCOME_LABELS, as_label, count, pct, plural, secs, weighting_text
from .style import escape as _e

if TYPE_CHECKING:
    from bgpsim.sim.result import AsRow, RunResult

MAX_TABLE_ROWS = 200

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@cache
def _page() -> Template:
    """The page template, read once from the package (so it is found installed as well as in a checkout)."""
    return Template(files("bgpsim.viz").joinpath("report.html").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------- AS table

def _time_key(t: float | str) -> float:
    """An AS row's time for sorting: "" (never) sorts last."""
    return math.inf if t == "" else t


def select_rows(ases: Sequence[AsRow], limit: int = MAX_TABLE_ROWS) -> list[AsRow]:
    """All ASes (in the given order) if at most `limit`; else the `limit` whose traffic went to the
    attacker earliest, in that order (then, if fewer than `limit` ever did, those at the attacker at the
    end, which on the converged state have no time, then the others by their last change, then by ASN)."""
    if len(ases) <= limit:
        return list(ases)
    return sorted(ases, key=lambda r: (_time_key(r.attacker_at), r.outcome != "attacker", _time_key(r.switched_at),
                                       r.asn))[:limit]


def _fine_secs(t: float | str) -> str:
    """A time in the AS table: milliseconds shown, since a hijack spreads within a fraction of a second."""
    return "" if t == "" else f"{t:.3f}"


# ------------------------------------------------------------------------------------------ sections

def _details(run: RunResult) -> list[tuple[str, str]]:
    """The "Scenario" section as (term, value) pairs: what was attacked, how, with which defence and timing."""
    sc, attack, timing, topo = run.scenario, run.scenario.attack, run.scenario.timing, run.topology
    rows: list[tuple[str, str]] = []
    kind = attack.kind if attack else "—"
    rows.append(("Attack", f"{kind} ({KIND_NAMES[kind]})" if kind in KIND_NAMES else kind))
    verb = "leaked" if kind == "leak" else "announced"
    rows.append((f"Prefixes {verb} by the attacker", ", ".join(attack.prefixes) if attack and attack.prefixes
                 else "—"))
    if sc.victim_prefixes:
        rows.append(("Victim's prefixes", ", ".join(sc.victim_prefixes)))
    rows.append(("Target address (traffic followed)", sc.target))
    if run.engine == "steady":  # no time for the attack to run in: what was computed instead
        rows.append(("Computed", "the converged state: the route each AS settles on once BGP has converged"))
    else:
        start, stop = (attack.start, attack.stop) if attack else (0, None)
        rows.append(("Attack runs", f"from t = {secs(start)} s "
                     + (f"until t = {secs(stop)} s" if stop is not None else "until the end of the simulation")))
    mit = sc.mitigation
    rows.append(("Victim's reaction",
                 f"announces {', '.join(mit.prefixes) or 'more-specific prefixes'} from t = {secs(mit.start)} s"
                 + (f", {COMMUNITY_WORDS[mit.community]}" if mit.community else "") if mit else "none"))
    if sc.attributes:
        rows.append(("Set on routes by operators", "; ".join(sc.attributes)))
    defence = sc.defence
    rows.append(("Defence", f"{defence.policy} deployed by {plural(defence.adopters, 'AS', 'ASes')}"
                 + (f"; {defence.settings}" if defence.settings else "") if defence else "none"))
    if timing:
        rows.append(("MRAI (minimum time between updates)", f"{secs(timing.mrai)} s"))
        rows.append(("Link delay", timing.link_delay))
        rows.append(("Processing delay", timing.processing_delay))
        rows.append(("Warm start", "yes" if timing.warm_start else "no"))
    w = run.traffic.weighting
    rows.append(("Traffic weighting", f"{w} ({weighting_text(w)})"))
    rows.append(("Topology", topo.name + (f" — {topo.source}" if topo.source else "")))
    if sc.source:
        rows.append(("Scenario file", sc.source))
    rows.append(("Random seed", str(run.seed)))
    return rows


def _at_peak(run: RunResult) -> dict[str, float]:
    """The shares at the peak of the attack: the attacker's and the diverted traffic from `run.peak`,
    the victim's, the disconnected and the looping ASes from the timeline row in force then (the last
    at or before it)."""
    peak = run.peak
    out = {"attacker": peak.attacker, "diverted": peak.diverted}
    row = None
    for r in run.rounded_timeline:
        if r[0] <= peak.at + 1e-9:
            row = r
    if row is not None:
        out.update(zip(("victim", "disconnected", "loop"), row[2:5]))
    return out


def key_table(run: RunResult) -> dict:
    """The key numbers that change during the run, at the peak of the attack and at the end (on the
    converged state: once converged, alone), as `{"heads": [...], "rows": [{"label", "cls", "cells"}]}`;
    a share not known at the peak is written "—"."""
    outcome, traffic = run.outcome, run.traffic
    if run.engine == "steady":  # one state, with no peak before it
        heads = [{"text": "Once routing has converged", "cls": "end", "when": "the route each AS settles on"}]
        at_peak = None
    else:
        heads = [{"text": "At the peak of the attack", "cls": "peak", "when": f"t = {secs(round(run.peak.at, 1))} s"},
                 {"text": "At the end", "cls": "end", "when": f"routing settled, t = {secs(run.converged_at)} s"}]
        at_peak = _at_peak(run)
    rows = []
    for key, label in (("attacker", "ASes whose traffic reaches the attacker"),
                       ("victim", "ASes whose traffic reaches the victim"),
                       ("disconnected", "ASes with no route (disconnected)"),
                       ("loop", "ASes caught in forwarding loops"),
                       ("diverted", f"Traffic diverted to the attacker ({traffic.weighting} weighting)")):
        end = traffic.diverted if key == "diverted" else getattr(outcome, key)
        if key == "loop" and not (end > 0 or (at_peak or {}).get("loop", 0.0) > 0):
            continue
        rows.append({"label": label, "cls": "attacker" if key == "diverted" else key,
                     "cells": [pct(end)] if at_peak is None else [pct(at_peak.get(key)), pct(end)]})
    return {"heads": heads, "rows": rows}


# ----------------------------------------------------------------------------------------- fragments
# Each repeated part of the page, one pattern each, every value passed through `_e`.

def _png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == _PNG_SIGNATURE and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def _figures_html(figures: Sequence[tuple[str, str | os.PathLike]]) -> str:
    """The "Figures" section, each PNG embedded as a data URI with its size and caption ('' if none)."""
    out = []
    for k, (caption, png) in enumerate(figures, 1):
        data = Path(png).read_bytes()
        if data[:8] != _PNG_SIGNATURE:
            raise ValueError(f"{png} is not a PNG file")
        size = _png_size(data)
        dims = f' width="{size[0]}" height="{size[1]}"' if size and size[0] else ""
        out.append(f'<figure>\n<img src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}" '
                   f'alt="{_e(caption)}"{dims}>\n<figcaption>Figure {k}. {_e(caption)}</figcaption>\n</figure>\n')
    return "<h2>Figures</h2>\n" + "".join(out) if out else ""


def _no_picture_html(run: RunResult, steps: bool) -> str:
    """Why a large graph has no picture of the topology; `steps`: whether the page has a step view
    (the converged-state engine's has none)."""
    from bgpsim.sim.result import MAX_DRAWN_ASES

    if run.topo.n <= MAX_DRAWN_ASES:
        return ""
    where = ("The step view above shows the ASes by tier, and the table below and <code>ases.csv</code> every AS."
             if steps else "The table below and <code>ases.csv</code> list every AS.")
    return (f'<p class="note">No picture of the topology: it has {count(run.topo.n)} ASes, and pictures are '
            f'drawn for graphs of at most {MAX_DRAWN_ASES}. {where}</p>\n')


def _compare_html(compare: Mapping[str, Any]) -> tuple[str, str]:
    """The key-number table's head cells and body rows (see `key_table`)."""
    heads = "".join(f'<th class="{_e(h["cls"])}">{_e(h["text"])}<span class="when">{_e(h["when"])}</span></th>'
                    for h in compare["heads"])
    rows = "".join(f'<tr class="{_e(r["cls"])}"><th><span class="swatch {_e(r["cls"])}"></span>{_e(r["label"])}</th>'
                   + "".join(f"<td>{_e(v)}</td>" for v in r["cells"]) + "</tr>\n" for r in compare["rows"])
    return heads, rows


def _as_row_html(r: AsRow, attacker: int | None, victim: int) -> str:
    """One AS of the table; the attacker and the victim tagged."""
    out = r.outcome
    tag = "attacker" if r.asn == attacker else ("victim" if r.asn == victim else "")
    cells = [
        f'<td class="asn">AS{_e(r.asn)}' + (f'<span class="tag {tag}">{tag}</span>' if tag else "") + "</td>",
        f"<td>{_e(r.name)}</td>",
        f"<td>{_e(r.role)}</td>",
        f'<td class="outcome" title="{_e(OUTCOME_LABELS[out])}"><span class="swatch {_e(out)}"></span>{_e(out)}</td>',
        f'<td class="num">{_e(_fine_secs(r.attacker_at))}</td>',
        f'<td class="num">{_e(_fine_secs(r.switched_at))}</td>',
        f'<td class="mono">{_e(r.prefix)}</td>',
        f'<td class="path">{_e(r.path)}</td>',
        f"<td>{_e(r.relationship)}</td>",
    ]
    return (f'<tr class="is-{tag}">' if tag else "<tr>") + "".join(cells) + "</tr>\n"


def _coverage_html(shown: int, total: int, steady: bool = False) -> str:
    """The note above the AS table: all ASes, or which of them are shown (see `select_rows`)."""
    if total > shown:
        which = ("first those whose traffic reaches the attacker, then the others, by ASN" if steady
                 else "those whose traffic went to the\nattacker earliest, in that order")
        return (f'<p class="note">Showing {count(shown)} of {count(total)} ASes: {which}. The other '
                f'{count(total - shown)} are omitted here; <code>ases.csv</code> lists all\nof them.</p>\n')
    return f'<p class="note">All {count(total)} ASes.</p>'


# ----------------------------------------------------------------------------------------------- page

def render_report(run: RunResult, figures: Sequence[tuple[str, str | os.PathLike]], incident: str = "",
                  steps: str | None = None, drawn: bool = True) -> str:
    """The report page as a string (see `write_report`); `incident`: the HTML of an incident's facts
    and counterfactuals (bgpsim.viz.incident), placed under the summary; `steps`: `steps_html(run)`,
    when the caller worked it out already (while the figures were drawn); `drawn`: False when the
    command was asked for no figures (--no-figures), which the page then says."""
    sc, topo = run.scenario, run.topology
    names = {r.asn: r.name for r in run.ases if r.name}
    numbers = [("ASes in the topology", count(topo.ases)), ("links between ASes", count(topo.links))]
    if run.engine == "steady":  # what it computed: routes, not messages over time
        routed = sum(1 for r in run.ases if r.relationship != "none")
        numbers.append(("ASes with a route to the target once converged", count(routed)))
    else:
        numbers += [("routing settled at (simulated time)", f"{secs(run.converged_at)} s"),
                    ("BGP update messages sent", count(run.messages)),
                    ("simulation events processed", count(run.events))]
    numbers.append(("random seed", str(run.seed)))
    compare_heads, compare_rows = _compare_html(key_table(run))
    shown = select_rows(run.ases)
    if steps is None:
        steps = steps_html(run)
    return _page().substitute(
        name=_e(sc.name or "Simulation report"),
        **{f"colour_{k}": _e(c) for k, c in COLOURS.items()},
        topo_name=_e(topo.name or "—"),
        n_ases=_e(count(topo.ases)), n_links=_e(count(topo.links)),
        attacker_label=_e(as_label(run.attacker, names)), victim_label=_e(as_label(run.victim, names)),
        summary=_e(summary_text(run, names)),
        description=f'<p class="description">{_e(sc.description)}</p>' if sc.description else "",
        incident=incident,
        steps=steps,
        compare_heads=compare_heads, compare_rows=compare_rows,
        numbers="".join(f'  <li><span class="value">{_e(v)}</span><span class="label">{_e(label)}</span></li>\n'
                        for label, v in numbers),
        details="".join(f"  <dt>{_e(term)}</dt><dd>{_e(value)}</dd>\n" for term, value in _details(run)),
        figures=(_figures_html(figures) + _no_picture_html(run, bool(steps)) if drawn else
                 '<p class="note">No figures: the command was run with <code>--no-figures</code>.</p>\n'),
        bgpsec=bgpsec_html(run, _e),
        legend="".join(f'  <li><span class="swatch {k}"></span><strong>{k}</strong>: {_e(OUTCOME_LABELS[k])}</li>\n'
                       for k in COLOURS),
        coverage=_coverage_html(len(shown), len(run.ases), run.engine == "steady"),
        rows="".join(_as_row_html(r, run.attacker, run.victim) for r in shown),
        seed=_e(run.seed),
    )


def write_report(path: str | os.PathLike, run: RunResult, figures: Sequence[tuple[str, str | os.PathLike]],
                 incident: str = "", steps: str | None = None, drawn: bool = True) -> Path:
    """Write one self-contained HTML report of `run` to `path` (via a temp file renamed into place).

    `figures` is a list of (caption, png_path), embedded as data URIs. The AS table lists `run.ases`
    (at most MAX_TABLE_ROWS of them, see `select_rows`). `incident`, `steps`, `drawn`: see
    `render_report`.
    """
    html = render_report(run, figures, incident, steps, drawn)
    return write_atomic(path, html.encode("utf-8"))
