"""One self-contained HTML report of a simulation run (`write_report`).

No external CSS, scripts, fonts or images: the figures are embedded as base64 `data:` URIs and the
style sheet is inline, so the page can be mailed or opened offline. The same input gives the same bytes
(no timestamps), written to a temporary file renamed into place, so a reader never sees half a report.

The page is the package data file `report.html`, a `string.Template`: its `$name` fields are filled
here with text already escaped (`_e`: AS names and captions come from input files and are never
trusted as HTML); the repeated parts (table rows, figures) are built here, each from one pattern. The
words of the summary come from `story`.
"""

from __future__ import annotations

import base64
import math
import os
from functools import cache
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any, Mapping, Sequence

from bgpsim.base.outdir import write_atomic

from .story import KIND_NAMES, peak_of, summary_text
from .style import COLOURS, OUTCOME_LABELS, as_label, count, nonzero, num, pct, secs, weighting_text

MAX_TABLE_ROWS = 200

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# quotes as numeric references, the forms markupsafe writes: the page keeps its bytes (docs/viz.md)
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def _e(v: Any) -> str:
    """`v` as text safe inside HTML elements and double-quoted attributes."""
    return str(v).translate(_ESCAPES)


@cache
def _page() -> Template:
    """The page template, read once from the package (so it is found installed as well as in a checkout)."""
    return Template(files("bgpsim.viz").joinpath("report.html").read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------- AS table

def _time_key(v: Any) -> float:
    """A time from ases.csv for sorting: "" (never), missing or not a number sort last."""
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


# ------------------------------------------------------------------------------------------ sections

def _cell(v: Any) -> str:
    return "" if v is None else str(v)


def _details(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The "Scenario" section as (term, value) pairs: what was attacked, how, with which defence and timing."""
    sc = result.get("scenario") or {}
    attack = sc.get("attack") or {}
    timing = sc.get("timing") or {}
    topo = result.get("topology") or {}
    rows: list[tuple[str, str]] = []
    kind = str(attack.get("kind", "—"))
    rows.append(("Attack", f"{kind} ({KIND_NAMES[kind]})" if kind in KIND_NAMES else kind))
    verb = "leaked" if kind == "leak" else "announced"
    rows.append((f"Prefixes {verb} by the attacker", ", ".join(attack.get("prefixes") or []) or "—"))
    if sc.get("victim_prefixes"):
        rows.append(("Victim's prefixes", ", ".join(str(p) for p in sc["victim_prefixes"])))
    if sc.get("target"):
        rows.append(("Target address (traffic followed)", str(sc["target"])))
    stop = attack.get("stop")
    rows.append(("Attack runs", f"from t = {secs(attack.get('start', 0))} s "
                 + (f"until t = {secs(stop)} s" if stop is not None else "until the end of the simulation")))
    mit = sc.get("mitigation")
    rows.append(("Victim's reaction",
                 f"announces {', '.join(mit.get('prefixes') or []) or 'more-specific prefixes'} "
                 f"from t = {secs(mit.get('start'))} s" if mit else "none"))
    defence = sc.get("defence")
    rows.append(("Defence", f"{defence.get('policy', '—')} deployed by {count(defence.get('adopters'))} ASes"
                 if defence else "none"))
    if timing:
        rows.append(("MRAI (minimum time between updates)", f"{secs(timing.get('mrai'))} s"))
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
    conv = num(result.get("converged_at"))
    heads = []
    at_peak: dict[str, Any] = {}
    if peak is not None:
        heads.append({"text": "At the peak of the attack", "cls": "peak",
                      "when": f"t = {secs(round(peak['at'], 1))} s" if peak["at"] is not None else ""})
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
                  "when": f"routing settled, t = {secs(conv)} s" if conv is not None else ""})
    rows = []
    for key, label in (("attacker", "ASes whose traffic reaches the attacker"),
                       ("victim", "ASes whose traffic reaches the victim"),
                       ("disconnected", "ASes with no route (disconnected)"),
                       ("loop", "ASes caught in forwarding loops")):
        if key == "loop" and not (nonzero(outcome.get("loop")) or nonzero(at_peak.get("loop"))):
            continue
        values = ([pct(at_peak.get(key))] if peak is not None else []) + [pct(outcome.get(key))]
        rows.append({"label": label, "cls": key, "cells": values})
    w = traffic.get("weighting", "uniform")
    values = ([pct(at_peak.get("diverted"))] if peak is not None else []) + [pct(traffic.get("diverted"))]
    rows.append({"label": f"Traffic diverted to the attacker ({w} weighting)", "cls": "attacker", "cells": values})
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


def _compare_html(compare: Mapping[str, Any]) -> tuple[str, str]:
    """The key-number table's head cells and body rows (see `key_table`)."""
    heads = "".join(f'<th class="{_e(h["cls"])}">{_e(h["text"])}<span class="when">{_e(h["when"])}</span></th>'
                    for h in compare["heads"])
    rows = "".join(f'<tr class="{_e(r["cls"])}"><th><span class="swatch {_e(r["cls"])}"></span>{_e(r["label"])}</th>'
                   + "".join(f"<td>{_e(v)}</td>" for v in r["cells"]) + "</tr>\n" for r in compare["rows"])
    return heads, rows


def _as_row_html(r: Mapping[str, Any], attacker: Any, victim: Any) -> str:
    """One AS of the table; the attacker and the victim tagged."""
    out = _cell(r.get("outcome"))
    tag = ""
    try:
        asn = int(r.get("asn"))
        tag = "attacker" if asn == attacker else ("victim" if asn == victim else "")
    except (TypeError, ValueError):
        pass
    cells = [
        f'<td class="asn">AS{_e(_cell(r.get("asn")))}'
        + (f'<span class="tag {tag}">{tag}</span>' if tag else "") + "</td>",
        f"<td>{_e(_cell(r.get('name')))}</td>",
        f"<td>{_e(_cell(r.get('role')))}</td>",
        f'<td class="outcome" title="{_e(OUTCOME_LABELS.get(out, out))}">'
        f'<span class="swatch {_e(out if out in COLOURS else "unknown")}"></span>{_e(out)}</td>',
        f'<td class="num">{_e(_fine_secs(attacker_at(r)))}</td>',
        f'<td class="num">{_e(_fine_secs(r.get("switched_at", "")))}</td>',
        f'<td class="mono">{_e(_cell(r.get("prefix")))}</td>',
        f'<td class="path">{_e(_cell(r.get("path")))}</td>',
        f"<td>{_e(_cell(r.get('relationship')))}</td>",
    ]
    return (f'<tr class="is-{tag}">' if tag else "<tr>") + "".join(cells) + "</tr>\n"


def _coverage_html(shown: int, total: int) -> str:
    """The note above the AS table: all ASes, or which of them are shown."""
    if total > shown:
        return (f'<p class="note">Showing {count(shown)} of {count(total)} ASes: those whose traffic went to the\n'
                f'attacker earliest, in that order. The other {count(total - shown)} are omitted here; '
                f'<code>ases.csv</code> lists all\nof them.</p>\n')
    return f'<p class="note">All {count(total)} ASes.</p>'


# ----------------------------------------------------------------------------------------------- page

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
    numbers = [
        ("ASes in the topology", count(topo.get("ases"))),
        ("links between ASes", count(topo.get("links"))),
        ("routing settled at (simulated time)", f"{secs(result.get('converged_at'))} s"),
        ("BGP update messages sent", count(result.get("messages"))),
        ("simulation events processed", count(result.get("events"))),
        ("random seed", str(result.get("seed", "—"))),
    ]
    compare_heads, compare_rows = _compare_html(key_table(result))
    description = sc.get("description") or ""
    shown = select_rows(ases)
    return _page().substitute(
        name=_e(sc.get("name") or "Simulation report"),
        **{f"colour_{k}": _e(c) for k, c in COLOURS.items()},
        topo_name=_e(topo.get("name") or "—"),
        n_ases=_e(count(topo.get("ases"))), n_links=_e(count(topo.get("links"))),
        attacker_label=_e(as_label(attacker, names)), victim_label=_e(as_label(victim, names)),
        summary=_e(summary_text(result, names)),
        description=f'<p class="description">{_e(description)}</p>' if description else "",
        compare_heads=compare_heads, compare_rows=compare_rows,
        numbers="".join(f'  <li><span class="value">{_e(v)}</span><span class="label">{_e(label)}</span></li>\n'
                        for label, v in numbers),
        details="".join(f"  <dt>{_e(term)}</dt><dd>{_e(value)}</dd>\n" for term, value in _details(result)),
        figures=_figures_html(figures),
        legend="".join(f'  <li><span class="swatch {k}"></span><strong>{k}</strong>: {_e(OUTCOME_LABELS[k])}</li>\n'
                       for k in COLOURS),
        coverage=_coverage_html(len(shown), len(ases)),
        rows="".join(_as_row_html(r, attacker, victim) for r in shown),
        seed=_e(result.get("seed", "—")),
    )


def write_report(path: str | os.PathLike, result: Mapping[str, Any], ases: Sequence[Mapping[str, Any]],
                 figures: Sequence[tuple[str, str | os.PathLike]]) -> Path:
    """Write one self-contained HTML report to `path` (via a temp file renamed into place).

    `result` is the run's result.json dict, `ases` one dict per AS (asn, name, role, outcome, attacker_at,
    switched_at, prefix, path, relationship), `figures` a list of (caption, png_path) embedded as data URIs.
    """
    html = render_report(result, ases, figures)
    return write_atomic(path, html.encode("utf-8"))
