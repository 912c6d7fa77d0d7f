"""The picture of a small AS graph (`topology_figure`): each AS a dot coloured by where its traffic goes,
placed by bgpsim.viz.layout (tiers by rank, rows ordered to cut crossings; the same graph gives the
same picture). Only graphs of at most MAX_DRAWN_ASES ASes are drawn (one limit shared with the run's
peak snapshot).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Patch

from bgpsim.sim.result import MAX_DRAWN_ASES

from .canvas import UNDER_LABELS, save
from .layout import SUB_ROW, layout, sub_rows
from .style import COLOURS, OUTCOME_LABELS, UNKNOWN_COLOUR, plural, secs

ADOPTER_RING = "#0969da"  # the ring around an AS that deploys the defence
# behind AS labels, so links passing under a label do not strike through it
_LABEL_BOX = dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8)
# an AS's labels, placed in points from its circle; out of the constrained layout, which measured them
# to change nothing (the axes' limits hold them) at a third of the figure's time
_ON_AS = dict(textcoords="offset points", annotation_clip=False, in_layout=False)


# ------------------------------------------------------------------------------------------- captions

def _plural_role(role: str) -> str:
    return {"stub": "stubs", "tier1": "tier-1", "tier 1": "tier-1"}.get(role.lower(), role)


def row_captions(topo, rows: list[list[int]]) -> list[str]:
    """The caption of each drawn row, top first.

    When the topology gives roles and most ASes of a row share one, the row is named after it ("tier-1",
    "transit", "regional", "stubs"); otherwise by its place: "top tier (no providers)", "stubs (no
    customers)", "transit". Rows that would end up with the same caption are told apart ("upper",
    "lower", or numbered)."""
    nrows = len(rows)
    roles = getattr(topo, "roles", None) or {}
    caps: list[str] = []
    for r, row in enumerate(rows):
        if nrows == 1:
            cap = "all ASes"
        elif r == 0:
            cap = "top tier\n(no providers)"
        elif r == nrows - 1:
            cap = "stubs\n(no customers)"
        else:
            cap = "transit"
        named = [str(roles[int(topo.asns[i])]).strip() for i in row if roles.get(int(topo.asns[i]))]
        if named:
            counts: dict[str, int] = {}
            for v in named:
                counts[v] = counts.get(v, 0) + 1
            best, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            if 2 * n > len(row):
                cap = _plural_role(best)
                if cap == "stubs" and r == nrows - 1:
                    cap = "stubs\n(no customers)"
                else:
                    cap = "\n".join(textwrap.wrap(cap, width=14)) or cap
        caps.append(cap)
    seen: dict[str, list[int]] = {}
    for r, cap in enumerate(caps):
        seen.setdefault(cap, []).append(r)
    for cap, where in seen.items():
        if len(where) < 2:
            continue
        words = ["upper", "lower"] if len(where) == 2 else [f"level {k + 1}" for k in range(len(where))]
        head, _, rest = cap.partition("\n")
        for r, w in zip(where, words):
            caps[r] = f"{head}, {w}" + (f"\n{rest}" if rest else "")
    return caps


# ------------------------------------------------------------------------------------------- drawing

def _count_line(topo, outcomes: Mapping[int, str], attacker: int | None, victim: int) -> str:
    others = [a for a in topo.asns.tolist() if a not in (attacker, victim)]
    hit = sum(1 for a in others if outcomes.get(a) == "attacker")
    return (f"{hit} of the {plural(len(others), 'other AS', 'other ASes')} "
            f"{'sends its' if hit == 1 else 'send their'} traffic to the attacker, "
            f"{sum(1 for a in others if outcomes.get(a) == 'victim')} to the victim")


def _int_keys(outcomes: Mapping) -> dict[int, str]:
    out = {}
    for k, v in (outcomes or {}).items():
        try:
            out[int(k)] = str(v)
        except (TypeError, ValueError):
            pass
    return out


def _draw_graph(ax, topo, pos, rows, row_y, arcs, outcomes: Mapping[int, str], attacker: int | None, victim: int,
                captions: list[str], y_lo: float, y_hi: float, adopters: frozenset = frozenset()) -> None:
    """One picture of the graph on `ax`, each AS coloured by its outcome, adopters (ASNs) ringed."""
    ax.set_axis_off()
    for p, c in topo.p2c.tolist():
        (x1, y1), (x2, y2) = pos[p], pos[c]
        ax.plot([x1, x2], [y1, y2], color="#9a9a9a", linewidth=1.2, solid_capstyle="round", zorder=1, gid=UNDER_LABELS)
    arc_of = {(a, b): rad for a, b, rad in arcs}
    for a, b in topo.p2p.tolist():
        (x1, y1), (x2, y2) = pos[a], pos[b]
        if (a, b) in arc_of:
            if x1 > x2:
                (x1, y1), (x2, y2) = (x2, y2), (x1, y1)
            ax.add_patch(FancyArrowPatch((x1, y1), (x2, y2), connectionstyle=f"arc3,rad={-arc_of[(a, b)]:.4f}",
                                         arrowstyle="-", linestyle=(0, (4, 3)), linewidth=1.3, color="#5a5a5a",
                                         zorder=1, shrinkA=0, shrinkB=0))
        else:
            ax.plot([x1, x2], [y1, y2], color="#5a5a5a", linewidth=1.3, linestyle=(0, (4, 3)), zorder=1,
                    gid=UNDER_LABELS)

    size = 420
    special = {victim: "victim"} if attacker is None else {attacker: "attacker", victim: "victim"}
    lower = {i for r, row in enumerate(rows) for i in row if pos[i][1] < row_y[r] - 1e-9}
    # the ASes' circles: one collection per kind of circle (plain, attacker or victim, adopter's ring),
    # drawn in the order of the ASes, as many collections of one would be, but an artist each and not 30
    circles: dict[bool, tuple[list, list]] = {}
    rings: list = []  # where the adopters are
    for i in range(topo.n):
        asn = int(topo.asns[i])
        where, colours = circles.setdefault(asn in special, ([], []))
        where.append(pos[i])
        colours.append(COLOURS.get(outcomes.get(asn, ""), UNKNOWN_COLOUR))
        if asn in adopters:
            rings.append(pos[i])
    for tagged, (where, colours) in circles.items():
        x, y = zip(*where)
        ax.scatter(x, y, s=size * (1.4 if tagged else 1.0), c=colours, edgecolors="black",
                   linewidths=3.2 if tagged else 0.9, zorder=3)
    if rings:
        x, y = zip(*rings)
        ax.scatter(x, y, s=size * 2.3, facecolors="none", edgecolors=ADOPTER_RING, linewidths=2.2, zorder=2)
    for i in range(topo.n):
        asn = int(topo.asns[i])
        x, y = pos[i]
        tag = special.get(asn)
        # under the AS, clear of its circle, or of the ring every AS wears when some do (so rows stay level)
        drop = 19.5 if adopters else 15 if not tag else 17
        ax.annotate(f"AS{asn}", (x, y), xytext=(0, -drop), ha="center", va="top", fontsize=8.5, fontweight="bold",
                    zorder=5, bbox=_LABEL_BOX, **_ON_AS)
        name = topo.names.get(asn)
        name_lines = 0
        if name:
            short = textwrap.shorten(name, width=30, placeholder="…")
            wrapped = "\n".join(textwrap.wrap(short, width=14)) or short
            name_lines = wrapped.count("\n") + 1
            ax.annotate(wrapped, (x, y), xytext=(0, -drop - 12), ha="center", va="top", fontsize=7, color="#333333",
                        linespacing=1.0, zorder=4, bbox=_LABEL_BOX, **_ON_AS)
        if tag:
            # above the AS, unless it sits on a lower sub-row of a staggered row: there the tag would cover
            # the names of the sub-row above, so it goes under the AS's own labels
            below = i in lower
            ax.annotate(tag.upper(), (x, y), xytext=(0, -drop - 14 - 8.5 * name_lines if below else drop - 1),
                        ha="center", va="top" if below else "bottom", fontsize=9, fontweight="bold", color="black",
                        zorder=6, **_ON_AS,
                        bbox=dict(boxstyle="round,pad=0.2", facecolor="#fff6c8", edgecolor="black",
                                  linewidth=0.8))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(y_lo, y_hi)
    for r, caption in enumerate(captions):
        k = sub_rows(len(rows[r]))
        ax.text(-0.025, row_y[r] - SUB_ROW * (k - 1) / 2, caption, ha="right", va="center", fontsize=8.5,
                color="#666666", style="italic")


def topology_plot(topo, outcomes: Mapping[int, str], attacker: int | None, victim: int, title: str | None = None,
                  peak: tuple[float, Mapping[int, str]] | None = None, adopters=()) -> Figure:
    """The figure `topology_figure` saves (for tests and reuse)."""
    if topo.n > MAX_DRAWN_ASES:
        raise ValueError(f"topology has {topo.n} ASes; topology_figure draws at most {MAX_DRAWN_ASES}")
    outcomes = _int_keys(outcomes)
    adopters = frozenset(int(a) for a in adopters)
    pos, rows, row_y = layout(topo)
    per_sub_row = max((-(-len(r) // sub_rows(len(r))) for r in rows), default=1)
    y_bottom = min((p[1] for p in pos.values()), default=0.0)
    width = float(np.clip(1.2 * per_sub_row + 2.2, 9.0, 19.0))
    axes_w = width - 1.8  # about: the row captions and margins take the rest
    slots = {i: j for row in rows for j, i in enumerate(row)}
    row_len = {i: len(row) for row in rows for i in row}

    # peer links inside a row arc over the ASes between them; the arc's peak grows with the distance
    arcs = []
    peak_max = 0.0
    for a, b in topo.p2p.tolist():
        if row_len[a] == row_len[b] and pos[a][1] == pos[b][1] and abs(slots[a] - slots[b]) > 1 and \
                any(a in r and b in r for r in rows):
            chord = abs(pos[a][0] - pos[b][0]) * axes_w
            arc_peak = min(0.16 * abs(slots[a] - slots[b]) ** 0.7, 0.75)  # inches
            arcs.append((a, b, 2.0 * arc_peak / chord))
            peak_max = max(peak_max, arc_peak)
    captions = row_captions(topo, rows)
    panels: list[tuple[Mapping[int, str], str]] = []
    if peak is not None:
        t_peak, peak_out = peak
        panels.append((_int_keys(peak_out), f"At the peak of the attack (t = {secs(round(t_peak, 1))} s)"))
        panels.append((outcomes, title or "At the end, once routing has settled"))
        heading = "Where each AS sends its traffic for the target address: at the peak of the attack and at the end"
    else:
        panels.append((outcomes, ""))
        heading = title or "Where each AS sends traffic for the victim's prefix once routing has settled"

    row_in = 1.6 if len(panels) == 1 else 1.4  # inches per row unit
    top = 0.45 + peak_max / row_in  # room for tags and arcs above the top row
    bottom = 0.75  # room for the labels under the lowest row
    panel_h = row_in * (top + bottom - y_bottom)
    height = float(np.clip((panel_h + 0.5) * len(panels) + 1.6, 5.0, 30.0))
    fig = Figure(figsize=(width, height), layout="constrained")
    if len(panels) == 1:
        axes = [fig.add_subplot()]
    else:
        gs = fig.add_gridspec(len(panels), 1)
        axes = [fig.add_subplot(gs[k, 0]) for k in range(len(panels))]
    for ax, (outs, head) in zip(axes, panels):
        _draw_graph(ax, topo, pos, rows, row_y, arcs, outs, attacker, victim, captions, y_bottom - bottom, top, adopters)
        counts = _count_line(topo, outs, attacker, victim)
        if head:
            ax.set_title(head, fontsize=12, fontweight="bold", loc="left", pad=4)
            ax.text(0.0, 1.0, counts, transform=ax.transAxes, ha="left", va="top", fontsize=9.5,
                    color="#444444")
        else:
            ax.set_title(counts, fontsize=9.5, loc="left", color="#444444", pad=2)
    all_outcomes = [outs for outs, _ in panels]
    handles = [Patch(facecolor=COLOURS[k], edgecolor="black", label=OUTCOME_LABELS[k]) for k in COLOURS]
    if any(int(a) not in outs for a in topo.asns.tolist() for outs in all_outcomes):
        handles.append(Patch(facecolor=UNKNOWN_COLOUR, edgecolor="black", label="no outcome recorded"))
    handles += [
        Line2D([], [], color="#9a9a9a", linewidth=1.6, label="provider–customer link (provider above)"),
        Line2D([], [], color="#5a5a5a", linewidth=1.6, linestyle=(0, (4, 3)), label="peer link"),
        Line2D([], [], marker="o", linestyle="none", markersize=11, markerfacecolor="white",
               markeredgecolor="black", markeredgewidth=3, label="attacker / victim (thick outline)"),
    ]
    if adopters:
        handles.append(Line2D([], [], marker="o", linestyle="none", markersize=16, markerfacecolor="none",
                              markeredgecolor=ADOPTER_RING, markeredgewidth=2.2, label="deploys the defence (ring)"))
    fig.legend(handles=handles, loc="outside lower center", ncol=4 if width >= 13 else 3, frameon=False,
               fontsize=9)
    fig.suptitle("\n".join(textwrap.wrap(heading, width=int(width * 9))), fontsize=12.5, x=0.02,
                 ha="left")
    return fig


def topology_figure(topo, outcomes: Mapping[int, str], attacker: int | None, victim: int, path: str | os.PathLike,
                    title: str | None = None, peak: tuple[float, Mapping[int, str]] | None = None,
                    adopters=()) -> Path:
    """Picture of a small AS graph (at most MAX_DRAWN_ASES ASes), each AS coloured by its outcome.

    Tiers top to bottom by customer-to-provider rank, each row captioned by its most common role when
    the topology has roles; provider-customer links solid grey, peer links dashed; attacker and victim
    with a thick outline and a text tag (no attacker: None). `outcomes` maps ASN -> one of "attacker",
    "victim", "disconnected", "loop" (ASes missing from it are drawn white; JSON's string ASNs work too).

    `peak` is None or `(time, {asn: outcome})` (the run's `peak.at` and `peak_outcomes`): then two
    pictures stacked, "at the peak of the attack" above and "at the end" (`title`, if given, heads that
    one) below. `adopters`: the ASNs deploying the defence, drawn with a ring.
    """
    return save(topology_plot(topo, outcomes, attacker, victim, title, peak, adopters), path)
