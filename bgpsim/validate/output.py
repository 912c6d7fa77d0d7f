"""What `bgpsim validate` writes into its output directory (all of it appears at once, or nothing):

- summary.json: `routes`, a count for each RFC 6811 status under `rpki` (and for each ASPA verdict
  under `aspa` when paths were verified), `withdrawals`, `state_changes`, counts of findings by kind,
  `by_peer` (every peer's counts) and `top_invalid_origins`;
- routes.csv: one row per announced route, its status and the reason (columns in check.COLUMNS);
- findings.json: every finding (bgpsim.validate.findings), in a stable order, one per line;
- report.html: one self-contained page with the figures (status shares, top invalid origins,
  per-peer breakdown) embedded, rendered by jinja2 with autoescaping.
The same input gives the same bytes.
"""

from __future__ import annotations

import base64
import io
import json
from json.encoder import c_make_encoder, encode_basestring_ascii
from collections import Counter

from rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID

from .check import NONE, Tally
from .findings import KINDS

COLOURS = {VALID: "#2ca02c", INVALID_ASN: "#d62728", INVALID_LENGTH: "#ff7f0e", NOT_FOUND: "#c7c7c7",
           "valid": "#2ca02c", "invalid": "#d62728", "unknown": "#c7c7c7"}
TOP = 20


def summary(tally: Tally, findings: list[dict], files: list[str], vrps: int, aspas: int | None) -> dict:
    peers = sorted(tally.by_peer.items(), key=lambda kv: (-kv[1]["routes"], kv[0]))
    invalid = sorted(tally.invalid_by_origin.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]
    kinds = Counter(f["kind"] for f in findings)
    return {
        "files": files,
        "vrps": vrps,
        "aspas": aspas,
        "routes": tally.routes,
        "withdrawals": tally.withdrawals,
        "state_changes": tally.state_changes,
        "rpki": {s: tally.rpki[s] for s in STATES},
        "aspa": {k: tally.aspa[k] for k in ("valid", "invalid", "unknown")} if aspas is not None else None,
        "findings": {k: kinds[k] for k in KINDS},
        "by_peer": [{"peer_ip": ip, "peer_as": asn, "routes": c["routes"], **{s: c[s] for s in STATES}}
                    for (ip, asn), c in peers],
        "top_invalid_origins": [{"origin_as": None if o == NONE else o, "invalid": n,
                                 "routes": tally.routes_by_origin[o]} for o, n in invalid],
    }


def summary_json(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def findings_json(findings: list[dict]) -> str:
    """A JSON array, one finding per line: a full table gives hundreds of thousands (grep-able)."""
    if not findings:
        return "[]\n"
    if c_make_encoder is not None:  # CPython's encoder made once: json.dumps would make it per finding
        encoder = c_make_encoder(None, None, encode_basestring_ascii, None, ":", ",", False, False, True)
        lines = ["".join(encoder(f, 0)) for f in findings]
    else:
        lines = list(map(json.JSONEncoder(separators=(",", ":")).encode, findings))
    return "[\n" + ",\n".join(lines) + "\n]\n"


# ---- figures -------------------------------------------------------------------------------------------
# matplotlib and jinja2 are imported when the first figure is drawn: half a second that the process
# writing the other files need not spend (bgpsim.validate.load renders the page in its second process)
def _figure(**kw):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(**kw)


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode()


def status_figure(doc: dict) -> str:
    rows = [("RPKI (RFC 6811)", doc["rpki"])] + ([("ASPA", doc["aspa"])] if doc["aspa"] else [])
    fig = _figure(figsize=(7.5, 1.2 + 0.6 * len(rows)))
    ax = fig.subplots()
    for y, (label, counts) in enumerate(rows):
        total = sum(counts.values()) or 1
        left = 0.0
        for state, n in counts.items():
            share = n / total
            ax.barh(y, share, left=left, color=COLOURS[state], edgecolor="white",
                    label=state if y == 0 or label == "ASPA" else None)
            if share > 0.06:
                ax.text(left + share / 2, y, f"{share:.1%}", ha="center", va="center", fontsize=8)
            left += share
    ax.set_yticks(range(len(rows)), [r[0] for r in rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of announced routes")
    ax.legend(ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.45), frameon=False)
    ax.invert_yaxis()
    return _png(fig)


def origins_figure(doc: dict) -> str:
    top = doc["top_invalid_origins"][:15]
    fig = _figure(figsize=(7.5, 0.8 + 0.28 * max(len(top), 1)))
    ax = fig.subplots()
    if not top:
        ax.text(0.5, 0.5, "no RPKI-invalid routes", ha="center", va="center")
        ax.set_axis_off()
        return _png(fig)
    labels = ["AS_SET" if t["origin_as"] is None else f"AS{t['origin_as']}" for t in top]
    ax.barh(range(len(top)), [t["invalid"] for t in top], color=COLOURS[INVALID_ASN])
    ax.set_yticks(range(len(top)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("RPKI-invalid routes")
    return _png(fig)


def peers_figure(doc: dict) -> str:
    peers = doc["by_peer"][:TOP]
    fig = _figure(figsize=(7.5, 0.8 + 0.3 * max(len(peers), 1)))
    ax = fig.subplots()
    for y, p in enumerate(peers):
        left = 0.0
        for state in STATES:
            share = p[state] / (p["routes"] or 1)
            ax.barh(y, share, left=left, color=COLOURS[state], label=state if y == 0 else None)
            left += share
    ax.set_yticks(range(len(peers)), [f"AS{p['peer_as']} {p['peer_ip']}" for p in peers], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the peer's routes")
    ax.legend(ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08 - 0.6 / max(len(peers), 1)),
              frameon=False)
    return _png(fig)


_PAGE_TEXT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bgpsim validate: {{ files|join(", ") }}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222 }
table { border-collapse: collapse; margin: 1em 0 } td, th { padding: .2em .8em; border-bottom: 1px solid #ddd;
text-align: right } th:first-child, td:first-child { text-align: left } img { max-width: 100% }
.note { color: #555; font-size: .9em }
</style></head><body>
<h1>Route dump validation</h1>
<p>{{ files|join(", ") }}: <b>{{ "{:,}".format(doc.routes) }}</b> announced routes, {{ "{:,}".format(doc.withdrawals) }}
withdrawals, {{ "{:,}".format(doc.state_changes) }} session state changes; checked against {{ "{:,}".format(doc.vrps) }}
VRPs{% if doc.aspas is not none %} and {{ "{:,}".format(doc.aspas) }} ASPA records{% endif %}.</p>
<h2>Status</h2>
<table><tr><th>RFC 6811 status</th><th>routes</th><th>share</th></tr>
{% for s, n in doc.rpki.items() %}<tr><td>{{ s }}</td><td>{{ "{:,}".format(n) }}</td><td>{{ pct(n) }}</td></tr>
{% endfor %}</table>
{% if doc.aspa %}<table><tr><th>ASPA verdict</th><th>routes</th><th>share</th></tr>
{% for s, n in doc.aspa.items() %}<tr><td>{{ s }}</td><td>{{ "{:,}".format(n) }}</td><td>{{ pct(n) }}</td></tr>
{% endfor %}</table>{% endif %}
<img alt="status shares" src="data:image/png;base64,{{ status_png }}">
<h2>Top RPKI-invalid origins</h2>
<img alt="top invalid origins" src="data:image/png;base64,{{ origins_png }}">
<h2>Per peer</h2>
<img alt="per-peer breakdown" src="data:image/png;base64,{{ peers_png }}">
<h2>Findings</h2>
<table><tr><th>finding</th><th>count</th></tr>
{% for k, n in doc.findings.items() %}<tr><td>{{ k }}</td><td>{{ "{:,}".format(n) }}</td></tr>{% endfor %}</table>
<p class="note">Every route with its status and the reason is in routes.csv; every finding in findings.json.
MOAS and sub-prefix findings flag what a hijack looks like; many have innocent reasons.</p>
</body></html>
"""
_PAGE = []  # the compiled template, once




def report_html(doc: dict) -> str:
    total = doc["routes"] or 1
    if not _PAGE:
        import jinja2

        _PAGE.append(jinja2.Environment(autoescape=True).from_string(_PAGE_TEXT))
    return _PAGE[0].render(doc=doc, files=doc["files"], pct=lambda n: f"{n / total:.2%}",
                        status_png=status_figure(doc), origins_png=origins_figure(doc),
                        peers_png=peers_figure(doc))
