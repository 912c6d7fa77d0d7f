"""The steady engine's figure (`outcome_figure`): where the source ASes' traffic goes in the converged
state, one bar per outcome, and the share of traffic diverted under the run's weighting.

The converged-state solver has no time, so this one picture stands where a timed run has the timeline
and traffic figures.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, PercentFormatter

from .canvas import save
from .style import COLOURS, OUTCOME_LABELS

if TYPE_CHECKING:
    from bgpsim.sim.result import Shares, Traffic


def outcome_plot(outcome: Shares, traffic: Traffic, title: str = "") -> Figure:
    """The figure `outcome_figure` saves."""
    fig = Figure(figsize=(6.4, 2.9), layout="constrained")
    ax = fig.subplots()
    names = list(OUTCOME_LABELS)
    vals = [100 * getattr(outcome, k) for k in names]
    bars = ax.barh(range(len(names)), vals, color=[COLOURS[k] for k in names], height=0.6)
    for b, v in zip(bars, vals):  # after the bar's end: room is kept past 100 % for a full bar's number
        ax.text(v + 1.5, b.get_y() + b.get_height() / 2, f"{v:.1f} %", va="center", fontsize=9)
    ax.set_yticks(range(len(names)), [OUTCOME_LABELS[k] for k in names], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 116)
    ax.xaxis.set_major_locator(FixedLocator(range(0, 101, 20)))
    ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.spines["bottom"].set_bounds(0, 100)
    ax.set_xlabel("source ASes (attacker and victim aside)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    # over the whole figure, not the axes (which the long outcome names push right), and wrapped to its
    # width (about 11 characters an inch at this size), so no end is cut off
    fig.suptitle((textwrap.fill(title, 66) + "\n" if title else "") + f"traffic diverted to the attacker: "
                 f"{100 * traffic.diverted:.1f} % ({traffic.weighting})", fontsize=10)
    return fig


def outcome_figure(outcome: Shares, traffic: Traffic, path: str | os.PathLike, title: str = "") -> Path:
    """Converged state: where the traffic of the source ASes goes (`outcome`), one bar per outcome, and
    the share of traffic diverted under the run's weighting (`traffic`)."""
    return save(outcome_plot(outcome, traffic, title), path)
