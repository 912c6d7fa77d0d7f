"""What `bgpsim validate` writes into its output directory (all of it appears at once, or nothing):

- summary.json: `routes`, a count for each RFC 6811 status under `rpki` (and for each ASPA verdict
  under `aspa` when paths were verified, with `aspa_unplaced`, the routes from peers whose role was
  not known, verified downstream), `withdrawals`, `state_changes`, counts of findings by kind,
  `by_peer` (every peer's counts) and `top_invalid_origins`; with --router-keys a `bgpsec` object
  (bgpsim.validate.bgpsec.BgpsecTally.summary: the router keys, the signed routes, the routes per
  verdict and per reason, the signatures verified and the answers reused) and a count of
  `bgpsec-not-valid` findings;
- routes.csv: one row per announced route, its status and the reason (columns in check.COLUMNS, and
  check.BGPSEC_COLUMNS with --router-keys);
- findings.json: every finding (bgpsim.validate.findings), by kind, in a stable order, one per line;
- report.html: one self-contained page with the figures (status shares, top invalid origins,
  per-peer breakdown) as inline SVG, all written here (no template engine to import).
The same input gives the same bytes.
"""

from __future__ import annotations

import json
from html import escape

from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID

from .check import NONE
from .tally import Tally
from .conflicts import Subprefixes
from .findings import KINDS, Found

COLOURS = {VALID: "#2ca02c", INVALID_ASN: "#d62728", INVALID_LENGTH: "#ff7f0e", NOT_FOUND: "#c7c7c7",
           "valid": "#2ca02c", "invalid": "#d62728", "unknown": "#c7c7c7"}
TOP = 20


def summary(tally: Tally, findings: Found, files: list[str], vrps: int, aspas: int | None,
            bgpsec: tuple[int, int | None] | None = None) -> dict:
    """The document of summary.json; `bgpsec`: (router keys, --bgpsec-target) when routes got a BGPsec
    verdict."""
    peers = sorted(tally.by_peer.items(), key=lambda kv: (-kv[1]["routes"], kv[0]))
    invalid = sorted(tally.invalid_by_origin.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    kinds = {k: findings.count(k) for k in (*KINDS, *(k for k in findings.by_kind if k not in KINDS))}
    return {
        "files": files,
        "vrps": vrps,
        "aspas": aspas,
        "routes": tally.routes,
        "withdrawals": tally.withdrawals,
        "state_changes": tally.state_changes,
        "rpki": {s: tally.rpki[s] for s in STATES},
        # routes from peers whose role is not known: verified downstream
        "aspa_unplaced": tally.aspa["unplaced"] if aspas is not None else None,
        "aspa": {k: tally.aspa[k] for k in ("valid", "invalid", "unknown")} if aspas is not None else None,
        **({"bgpsec": tally.bgpsec.summary(tally.routes, *bgpsec)} if bgpsec is not None else {}),
        "findings": kinds,
        "by_peer": [{"peer_ip": ip, "peer_as": asn, "routes": c["routes"], **{s: c[s] for s in STATES}}
                    for (ip, asn), c in peers],
        "top_invalid_origins": [{"origin_as": None if o == NONE else o, "invalid": n,
                                 "routes": tally.routes_by_origin[o]} for o, n in invalid],
    }


def summary_json(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def findings_json(findings: Found | list[dict]) -> str:
    """A JSON array, one finding per line: a full table gives hundreds of thousands (grep-able).
    Sub-prefix findings, most of them, come as the text they were found as (Subprefixes.lines); the
    rest go through the json module, in the same layout."""
    if not len(findings):
        return "[]\n"
    # one encoder for every finding (json.dumps would make one per call); findings are trees of dicts,
    # lists, strings and numbers made here, with no cycle to look for
    encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
    lines: list[str] = []
    for group in findings.by_kind.values() if isinstance(findings, Found) else [findings]:
        lines += group.lines(encode) if isinstance(group, Subprefixes) else map(encode, group)
    return "".join(("[\n", ",\n".join(lines), "\n]\n"))  # megabytes: copied once more, not twice


# ---- figures -------------------------------------------------------------------------------------------
# Inline SVG written here: no plotting library to import.
# Every text (peer IPs and file names come from outside) goes through html.escape, text nodes and
# attributes alike; coordinates are printed with one decimal, so the same doc gives the same bytes.
# The SVGs scale with the page (viewBox, width 100%) and say what they show (role="img", aria-label,
# <title>); each bar segment has a <title> with its count and share, formatted like the tables.
W = 750  # viewBox width: a 7.5-inch figure at 100 dpi, what the PNGs were
_FONT = 12  # a character is taken to be 0.6 of the font size wide, for margins and the legend
_AXIS, _GRID, _INK = "#555", "#e5e5e5", "#222"


def _esc(text) -> str:
    return escape(str(text), quote=True)


def _n(x: float) -> str:
    """A coordinate: one decimal at most, never '-0'."""
    s = f"{round(x, 1) + 0.0:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _text(x: float, y: float, text: str, anchor: str = "start", size: int = _FONT, fill: str = _INK) -> str:
    return (f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" dominant-baseline="central" '
            f'font-size="{size}" fill="{fill}">{_esc(text)}</text>')


def _rect(x: float, y: float, w: float, h: float, colour: str, tip: str = "", extra: str = "") -> str:
    head = f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{colour}"{extra}'
    return f"{head}><title>{_esc(tip)}</title></rect>" if tip else head + "/>"


def _svg(height: float, label: str, parts: list[str]) -> str:
    return (f'<svg class="fig" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {_n(height)}" width="100%" '
            f'role="img" aria-label="{_esc(label)}" font-family="system-ui, sans-serif">'
            f"<title>{_esc(label)}</title>\n" + "\n".join(parts) + "\n</svg>")


def _left_margin(labels: list[str], size: int = _FONT) -> float:
    """Room for the row labels (right-aligned before the bars): at least 80, at most 45% of the width."""
    return min(max(80.0, 0.6 * size * max((len(s) for s in labels), default=0) + 16), 0.45 * W)


def _x_axis(x0: float, x1: float, y: float, ticks: list[tuple[float, str]], label: str, grid_top: float) -> list[str]:
    """The axis line at height y from x0 to x1, `ticks` (position in 0..1, text), gridlines up to grid_top."""
    parts = [f'<line x1="{_n(x0)}" y1="{_n(y)}" x2="{_n(x1)}" y2="{_n(y)}" stroke="{_AXIS}"/>']
    for pos, text in ticks:
        x = x0 + pos * (x1 - x0)
        parts.append(f'<line x1="{_n(x)}" y1="{_n(grid_top)}" x2="{_n(x)}" y2="{_n(y)}" stroke="{_GRID}"/>')
        parts.append(f'<line x1="{_n(x)}" y1="{_n(y)}" x2="{_n(x)}" y2="{_n(y + 4)}" stroke="{_AXIS}"/>')
        parts.append(_text(x, y + 13, text, "middle", 10, _AXIS))
    parts.append(_text((x0 + x1) / 2, y + 32, label, "middle"))
    return parts


def _legend(items: list[tuple[str, str]], y: float) -> list[str]:
    """Swatches with their labels in one centred row at height y."""
    widths = [14 + 6 + len(label) * 0.6 * 11 + 18 for label, _ in items]
    x = max((W - sum(widths)) / 2, 4)
    parts = []
    for (label, colour), w in zip(items, widths):
        parts.append(_rect(x, y - 6, 14, 12, colour))
        parts.append(_text(x + 20, y, label, size=11))
        x += w
    return parts


def _pct(n: int, total: int) -> str:
    return f"{n / (total or 1):.2%}"


_SHARE_TICKS = [(i / 5, f"{20 * i}%") for i in range(6)]


def _stacked_rows(rows: list[tuple[str, dict, int]], x0: float, x1: float, top: float, pitch: float,
                  bar: float, size: int, labels_inside: bool, stroke: bool) -> list[str]:
    """One 100% stacked bar per (label, counts by state, total) row; the row labels right-aligned at x0."""
    parts = []
    span = x1 - x0
    for i, (label, counts, total) in enumerate(rows):
        y = top + i * pitch + (pitch - bar) / 2
        parts.append(_text(x0 - 8, y + bar / 2, label, "end", size))
        parts.append(_rect(x0, y, span, bar, "#f4f4f4"))
        left = 0.0
        for state, n in counts.items():
            share = n / (total or 1)
            if n:
                parts.append(_rect(x0 + left * span, y, share * span, bar, COLOURS[state],
                                   f"{label}: {state} {n:,} of {total:,} ({_pct(n, total)})",
                                   ' stroke="#fff" stroke-width="1"' if stroke else ""))
                if labels_inside and share > 0.06:
                    parts.append(_text(x0 + (left + share / 2) * span, y + bar / 2, f"{share:.1%}", "middle", 11,
                                       "#000"))
            left += share
    return parts


def status_figure(doc: dict) -> str:
    """Status shares: one 100% stacked bar for RFC 6811 and, when paths were verified, one for ASPA."""
    rows = [("RPKI (RFC 6811)", doc["rpki"])] + ([("ASPA", doc["aspa"])] if doc["aspa"] else [])
    rows = [(label, counts, sum(counts.values())) for label, counts in rows]
    x0, x1, top, pitch = _left_margin([r[0] for r in rows]), W - 20, 10, 40
    axis_y = top + pitch * len(rows) + 4
    parts = _x_axis(x0, x1, axis_y, _SHARE_TICKS, "share of announced routes", top)
    parts += _stacked_rows(rows, x0, x1, top, pitch, 28, _FONT, True, True)
    legend = [(state, COLOURS[state]) for state in doc["rpki"]]
    if doc["aspa"]:
        legend += [(f"ASPA {verdict}", COLOURS[verdict]) for verdict in doc["aspa"]]
    parts += _legend(legend, axis_y + 56)
    summary_text = "; ".join(f"{label}: " + ", ".join(f"{s} {_pct(n, total)}" for s, n in counts.items())
                             for label, counts, total in rows)
    return _svg(axis_y + 70, f"Status shares of announced routes. {summary_text}", parts)


def _round_ticks(top: int, most: int = 6) -> list[int]:
    """Round tick values from 0 to at least `top`: a step of 1, 2 or 5 times a power of ten, at most `most`."""
    top = max(top, 1)
    step, scale = 1, 1
    while True:
        for m in (1, 2, 5):
            step = m * scale
            if -(-top // step) + 1 <= most:
                return list(range(0, step * -(-top // step) + 1, step))
        scale *= 10


def origins_figure(doc: dict) -> str:
    """Up to 15 origin ASes with the most RPKI-invalid routes, one horizontal bar each."""
    top = doc["top_invalid_origins"][:15]
    if not top:
        return _svg(60, "Top RPKI-invalid origins: no RPKI-invalid routes",
                    [_text(W / 2, 30, "no RPKI-invalid routes", "middle", 14, _AXIS)])
    labels = ["AS_SET" if t["origin_as"] is None else f"AS{t['origin_as']}" for t in top]
    ticks = _round_ticks(max(t["invalid"] for t in top))
    x0, x1, y0, pitch, bar = _left_margin(labels), W - 60, 10, 22, 16
    span, axis_max = x1 - x0, ticks[-1]
    parts = []
    for i, (label, t) in enumerate(zip(labels, top)):
        y = y0 + i * pitch + (pitch - bar) / 2
        w = t["invalid"] / axis_max * span
        parts.append(_text(x0 - 8, y + bar / 2, label, "end"))
        parts.append(_rect(x0, y, w, bar, COLOURS[INVALID_ASN],
                           f"{label}: {t['invalid']:,} RPKI-invalid of {t['routes']:,} routes "
                           f"({_pct(t['invalid'], t['routes'])})"))
        parts.append(_text(x0 + w + 4, y + bar / 2, f"{t['invalid']:,}", size=10, fill=_AXIS))
    axis_y = y0 + pitch * len(top) + 2
    parts = _x_axis(x0, x1, axis_y, [(v / axis_max, f"{v:,}") for v in ticks], "RPKI-invalid routes", y0) + parts
    label = "Top RPKI-invalid origins: " + ", ".join(f"{lab} {t['invalid']:,}" for lab, t in zip(labels, top))
    return _svg(axis_y + 44, label, parts)


def peers_figure(doc: dict) -> str:
    """The RFC 6811 status shares of each of the TOP peers with the most routes: a 100% stacked bar each."""
    peers = doc["by_peer"][:TOP]
    if not peers:
        return _svg(60, "Per-peer status shares: no announced routes",
                    [_text(W / 2, 30, "no announced routes", "middle", 14, _AXIS)])
    rows = [(f"AS{p['peer_as']} {p['peer_ip']}", {s: p[s] for s in STATES}, p["routes"]) for p in peers]
    x0, x1, top, pitch = _left_margin([r[0] for r in rows], 11), W - 20, 10, 22
    axis_y = top + pitch * len(rows) + 2
    parts = _x_axis(x0, x1, axis_y, _SHARE_TICKS, "share of the peer's routes", top)
    parts += _stacked_rows(rows, x0, x1, top, pitch, 16, 11, False, False)
    parts += _legend([(s, COLOURS[s]) for s in STATES], axis_y + 56)
    more = f" (the {TOP} with the most routes of {len(doc['by_peer'])})" if len(doc["by_peer"]) > TOP else ""
    return _svg(axis_y + 70, f"RFC 6811 status shares of each peer's routes, {len(rows)} peers{more}", parts)


_STYLE = """body { font-family: system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222 }
table { border-collapse: collapse; margin: 1em 0 } td, th { padding: .2em .8em; border-bottom: 1px solid #ddd;
text-align: right } th:first-child, td:first-child { text-align: left }
svg.fig { display: block; width: 100%; height: auto; margin: 1em 0 }
.note { color: #555; font-size: .9em }"""


def _table(head: tuple[str, ...], rows: list[tuple], sep: str = "\n") -> str:
    cells = "".join(f"<th>{_esc(h)}</th>" for h in head)
    return (f"<table><tr>{cells}</tr>\n"
            + "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>" + sep for row in rows) + "</table>")


def _shares(what: str, counts: dict, total: int) -> str:
    return _table((what, "routes", "share"), [(s, f"{n:,}", _pct(n, total)) for s, n in counts.items()])


def _bgpsec_html(doc: dict) -> str:
    """The BGPsec section (with --router-keys): routes per verdict and per reason."""
    b = doc.get("bgpsec")
    if b is None:
        return ""
    reasons = _table(("reason", "routes"), [(r, f"{n:,}") for r, n in b["reasons"].items()]) if b["reasons"] else ""
    return f"""<h2>BGPsec</h2>
<p>{b['signed']:,} routes carry a BGPsec_PATH (RFC 8205); {b['router_keys']:,} router keys;
{b['verified']:,} signatures verified, {b['reused']:,} answers reused.</p>
{_shares("BGPsec verdict", b["states"], doc["routes"])}
{reasons}
<p class="note">Routes not valid or treated as withdrawn are bgpsec-not-valid findings in findings.json;
every route's verdict and its reason are in routes.csv.</p>
"""


def report_html(doc: dict) -> str:
    """The page: the counts as tables and the three figures, every text escaped where it is written."""
    files = _esc(", ".join(doc["files"]))
    aspas = f" and {doc['aspas']:,} ASPA records" if doc["aspas"] is not None else ""
    aspa = _shares("ASPA verdict", doc["aspa"], doc["routes"]) if doc["aspa"] else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bgpsim validate: {files}</title>
<style>
{_STYLE}
</style></head><body>
<h1>Route dump validation</h1>
<p>{files}: <b>{doc['routes']:,}</b> announced routes, {doc['withdrawals']:,}
withdrawals, {doc['state_changes']:,} session state changes; checked against {doc['vrps']:,}
VRPs{aspas}.</p>
<h2>Status</h2>
{_shares("RFC 6811 status", doc["rpki"], doc["routes"])}
{aspa}
{status_figure(doc)}
{_bgpsec_html(doc)}<h2>Top RPKI-invalid origins</h2>
{origins_figure(doc)}
<h2>Per peer</h2>
{peers_figure(doc)}
<h2>Findings</h2>
{_table(("finding", "count"), [(k, f"{n:,}") for k, n in doc["findings"].items()], sep="")}
<p class="note">Every route with its status and the reason is in routes.csv; every finding in findings.json.
MOAS and sub-prefix findings flag what a hijack looks like; many have innocent reasons.</p>
</body></html>"""
