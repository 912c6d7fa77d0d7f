"""The sweep's figure (`sweep_figure`): attacker success against the share of ASes deploying a defence.

One panel per attack, one line per policy, with the 90 % confidence band of the mean over trials, read
from the sweep's summary.json dict. Policies keep the tab10 colours and a marker shape each, in the
order they first appear, so the same sweep gives the same picture.

Defences often give the same numbers (ROV, ASPA, BGPsec and path-end all drop a sub-prefix hijack the
ROA covers), and a line drawn over another hides it. So where curves coincide, each is drawn dashed
in turn with the others (a striped line that shows every colour), their markers drawn as rings inside
rings (the first largest), and the panel's title names the curves that coincide all along.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Mapping

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import PercentFormatter

from .canvas import new_figure, percent_axis, save, text_width
from .style import join, plural

MARKERS = "osD^vP*Xph"
SAME = 0.4  # percentage points: closer means look the same on the figure
_DASH = 5.0  # points: each colour's share of a striped line
_WIDTH = 1.8


def _curves(cells, attack: str, policies: list[str]) -> dict[str, tuple]:
    """policy -> (adoption, mean, ci low, ci high) in percent, for one attack."""
    out = {}
    for policy in policies:
        pts = sorted((c["adoption"], c["attacker_frac"]) for c in cells
                     if c["attack"] == attack and c["policy"] == policy)
        if pts:
            out[policy] = tuple(np.asarray(v, dtype=float) for v in (
                [p[0] for p in pts], [100 * p[1]["mean"] for p in pts],
                [100 * p[1]["ci90"][0] for p in pts], [100 * p[1]["ci90"][1] for p in pts]))
    return out


def _same(a: tuple, b: tuple, k: slice) -> bool:
    return len(a[0][k]) == len(b[0][k]) and np.array_equal(a[0][k], b[0][k]) and \
        bool(np.all(np.abs(a[1][k] - b[1][k]) <= SAME))


def _panel(ax, curves: dict[str, tuple], colour: dict, marker: dict) -> list[list[str]]:
    """One attack's curves on `ax`; returns the groups of policies whose curves coincide all along."""
    names = list(curves)
    whole: list[list[str]] = []
    for p in names:
        x, mean, lo, hi = curves[p]
        group = next((g for g in whole if _same(curves[g[0]], curves[p], slice(None))), None)
        if group is None:
            whole.append([p])
            # one band per look-alike group: the same band drawn twice would only darken
            ax.fill_between(x, np.clip(lo, 0, 100), np.clip(hi, 0, 100), color=colour[p], alpha=0.16, linewidth=0)
        else:
            group.append(p)
        for i in range(len(x) - 1):  # segment by segment: which curves share it
            share = [q for q in names if len(curves[q][0]) == len(x) and _same(curves[q], curves[p], slice(i, i + 2))]
            m, r = len(share), share.index(p)
            style = "-" if m == 1 else (((m - r) % m) * _DASH, (_DASH, (m - 1) * _DASH))
            ax.plot(x[i:i + 2], mean[i:i + 2], color=colour[p], linestyle=style, linewidth=_WIDTH,
                    solid_capstyle="butt", dash_capstyle="butt", zorder=3)
        for i in range(len(x)):  # where points coincide, rings inside rings: the first drawn largest
            share = [q for q in names if i < len(curves[q][0]) and curves[q][0][i] == x[i]
                     and abs(curves[q][1][i] - mean[i]) <= SAME]
            m, r = len(share), share.index(p)
            step = min(3.5, 12.0 / max(m - 1, 1))  # points between rings; the outermost at most 16.5
            ring = dict(markerfacecolor="white", markeredgecolor=colour[p], markeredgewidth=min(1.5, step / 2)) \
                if m > 1 else dict(markeredgecolor="white", markeredgewidth=0.6)
            ax.plot([x[i]], [mean[i]], linestyle="none", marker=marker[p], color=colour[p],
                    markersize=4.5 + step * (m - 1 - r), zorder=4 + r, **ring)
    return [g for g in whole if len(g) > 1]


def sweep_plot(summary: Mapping) -> Figure:
    """The figure `sweep_figure` saves."""
    cells = summary["cells"]
    attacks = list(dict.fromkeys(c["attack"] for c in cells))
    policies = list(dict.fromkeys(c["policy"] for c in cells))
    label = {c["policy"]: c["label"] for c in cells}  # what a composite deploys: rov+aspa, not aspa
    tab = matplotlib.colormaps["tab10"]
    colour = {p: tab(k % 10) for k, p in enumerate(policies)}
    marker = {p: MARKERS[k % len(MARKERS)] for k, p in enumerate(policies)}
    fig = new_figure(figsize=(5.2 * len(attacks), 4.6))
    axes = fig.subplots(1, len(attacks), squeeze=False)[0]
    for ax, attack in zip(axes, attacks):
        alike = _panel(ax, _curves(cells, attack, policies), colour, marker)
        percent_axis(ax)
        ax.set_xlim(-2, 102)
        ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        ax.set_xlabel("ASes deploying the defence")
        ax.set_ylabel("ASes whose traffic reaches the attacker")
        note = "; ".join(f"{join([label[x] for x in g])} coincide (striped)" for g in alike)
        ax.set_title(f"{attack} attack" + ("\n" + textwrap.fill(note, 62) if note else ""), fontsize=10)
    handles = [Line2D([], [], color=colour[p], marker=marker[p], markersize=5, linewidth=_WIDTH, label=label[p])
               for p in policies]
    # under the panels, not in one: a legend inside would cover curves or bands; as many columns as fit
    entry = max(text_width(label[p], 8.5) for p in policies) + 4.5 * 8.5  # the line, the gaps
    ncol = max(1, min(len(policies), int((5.2 * len(attacks) * 72 - 20) // entry)))
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol, fontsize=8.5,
               title="defence (band: 90 % confidence interval of the mean)", title_fontsize=8.5, frameon=False)
    sw = summary.get("sweep", {})
    trials = sw.get("trials")
    title = (f"Attacker success vs adoption — {sw.get('topology', '')}, "
             f"{plural(trials, 'trial') if isinstance(trials, int) else '? trials'} per point, "
             f"adoption: {sw.get('adopt', '')}")
    # wrapped to the figure's width (about 13 characters an inch at this size), so no end is cut off
    fig.suptitle(textwrap.fill(title, int(13 * 5.2 * len(attacks))), fontsize=10)
    return fig


def sweep_figure(summary: Mapping, path: str | os.PathLike) -> Path:
    """Attacker success against adoption, one panel per attack, one line per policy, with the 90 %
    confidence band of the mean over trials; curves that coincide striped and named."""
    return save(sweep_plot(summary), path)
