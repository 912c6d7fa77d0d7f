"""The sweep's figure (`sweep_figure`): attacker success against the share of ASes deploying a defence.

One panel per attack, one line per policy, with the 90 % confidence band of the mean over trials, read
from the sweep's summary.json dict. Policies keep the tab10 colours in the order they first appear, so
the same sweep gives the same picture.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Mapping

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from .canvas import percent_axis, save


def sweep_plot(summary: Mapping) -> Figure:
    """The figure `sweep_figure` saves."""
    cells = summary["cells"]
    attacks = list(dict.fromkeys(c["attack"] for c in cells))
    policies = list(dict.fromkeys(c["policy"] for c in cells))
    fig = Figure(figsize=(5.2 * len(attacks), 4.0), layout="constrained")
    axes = fig.subplots(1, len(attacks), squeeze=False)[0]
    colours = matplotlib.colormaps["tab10"]
    for ax, attack in zip(axes, attacks):
        for k, policy in enumerate(policies):
            pts = sorted((c["adoption"], c["attacker_frac"]) for c in cells
                         if c["attack"] == attack and c["policy"] == policy)
            if not pts:
                continue
            x = np.asarray([p[0] for p in pts], dtype=float)
            mean = np.asarray([100 * p[1]["mean"] for p in pts])
            lo = np.asarray([100 * p[1]["ci90"][0] for p in pts])
            hi = np.asarray([100 * p[1]["ci90"][1] for p in pts])
            colour = colours(k % 10)
            ax.plot(x, mean, marker="o", markersize=3.5, color=colour, label=policy)
            ax.fill_between(x, np.clip(lo, 0, 100), np.clip(hi, 0, 100), color=colour, alpha=0.18, linewidth=0)
        percent_axis(ax)
        ax.set_xlim(-2, 102)
        ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        ax.set_xlabel("ASes deploying the defence")
        ax.set_ylabel("ASes whose traffic reaches the attacker")
        ax.set_title(f"{attack} attack", fontsize=10)
        ax.legend(fontsize=8, title="defence (band: 90 % CI)", title_fontsize=8, frameon=False)
    sw = summary.get("sweep", {})
    title = (f"Attacker success vs adoption — {sw.get('topology', '')}, {sw.get('trials', '?')} trials per "
             f"point, adoption: {sw.get('adopt', '')}")
    # wrapped to the figure's width (about 13 characters an inch at this size), so no end is cut off
    fig.suptitle(textwrap.fill(title, int(13 * 5.2 * len(attacks))), fontsize=10)
    return fig


def sweep_figure(summary: Mapping, path: str | os.PathLike) -> Path:
    """Attacker success against adoption, one panel per attack, one line per policy, with the 90 %
    confidence band of the mean over trials."""
    return save(sweep_plot(summary), path)

