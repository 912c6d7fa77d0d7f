"""The timed run's two figures over simulated time: where the source ASes' traffic goes
(`timeline_figure`) and the share of traffic diverted to the attacker (`traffic_figure`).

Both read the run's timeline rows `(time_s, attacker, victim, disconnected, loop, diverted)`, fractions
0..1 of the source ASes, and share the time axis of `timeaxis` (marks, zoom panels). Each figure has a
`*_plot` function that returns the `Figure` (for tests and reuse) and a `*_figure` one that saves it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np
from matplotlib.figure import Figure

from .canvas import new_figure, save
from .style import COLOURS, OUTCOME_LABELS, secs, weighting_text
from .timeaxis import (Strip, bursts, change_dots, columns, extended, key_inches, no_data, time_axes, x_range,
                       zoom_axes)

if TYPE_CHECKING:
    from bgpsim.sim.result import Mark

_TIMELINE_SERIES = [  # (outcome, column, line width, z-order)
    ("attacker", 1, 2.4, 3),
    ("victim", 2, 2.4, 3),
    ("disconnected", 3, 1.8, 2),
    ("loop", 4, 1.8, 2),
]


def timeline_plot(timeline: Sequence[Sequence[float]], marks: Sequence[Mark], title: str | None = None,
                  end: float | None = None) -> Figure:
    """The figure `timeline_figure` saves."""
    data = columns(timeline)
    x_lo, x_hi = x_range(data[:, 0], marks, end)
    drawn = []
    for key, col, width, z in _TIMELINE_SERIES:
        if not len(data):
            break
        vals = data[:, col]
        if np.isnan(vals).all():
            continue
        vals = np.nan_to_num(vals, nan=0.0)
        if key == "loop" and not np.any(vals > 0):
            continue
        drawn.append((key, col, width, z))
    zooms = bursts(data[:, 0], data[:, [c for _, c, _, _ in drawn]], marks, x_lo, x_hi) if drawn else []
    fig = new_figure(figsize=(10, 5.7 + key_inches(marks, end, x_lo, x_hi, 8.8) + (3.0 if zooms else 0.0)))
    ax, zoomed = zoom_axes(fig, len(zooms), 5.1, 2.6)

    def draw(a, lo, hi, markers=False):
        for key, col, width, z in drawn:
            vals = np.nan_to_num(data[:, col], nan=0.0) * 100.0
            xs, ys = extended(data[:, 0], vals, x_hi)
            a.step(xs, ys, where="post", color=COLOURS[key], linewidth=width, label=OUTCOME_LABELS[key],
                   zorder=z)
            if markers:
                change_dots(a, data[:, 0], vals, lo, hi, COLOURS[key], z + 1)

    if drawn:
        draw(ax, x_lo, x_hi)
    else:
        no_data(ax)
    strip = time_axes(ax, zoomed, zooms, marks, end, x_lo, x_hi, 8.8,
                      lambda a, lo, hi: draw(a, lo, hi, markers=True), "Share of ASes (%)")
    ax.set_ylabel("Share of all source ASes (%)")
    ax.set_title(title or "Where the ASes' traffic for the victim's prefix goes, over time",
                 fontsize=12.5, loc="left")
    if ax.get_legend_handles_labels()[0]:
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=4, frameon=False,
                   fontsize=9.5)
    strip.place(fig)
    return fig


def timeline_figure(timeline: Sequence[Sequence[float]], marks: Sequence[Mark], path: str | os.PathLike,
                    title: str | None = None, end: float | None = None) -> Path:
    """Step plot over simulated time of where the source ASes' traffic goes.

    `timeline` rows are `(time_s, attacker, victim, disconnected, loop, diverted)`, fractions 0..1 of
    the source ASes (`diverted` is not drawn here; see `traffic_figure`). The loop line is drawn only
    if it is ever above zero. `marks` are the run's events (`Mark`: time, label): dashed lines, numbered
    on a strip above the data and named in a key under the axis.
    `end` (simulated seconds, e.g. when routing settled) extends the x-axis so the last state is drawn
    up to it. Bursts of changes too quick to see on the whole axis get zoom panels below (`bursts`).
    """
    return save(timeline_plot(timeline, marks, title, end), path)


def traffic_plot(timeline: Sequence[Sequence[float]], marks: Sequence[Mark], weighting: str,
                 end: float | None = None) -> Figure:
    """The figure `traffic_figure` saves."""
    data = columns(timeline)
    x_lo, x_hi = x_range(data[:, 0], marks, end)
    vals = data[:, 5] if len(data) else np.array([])
    recorded = len(vals) > 0 and not np.isnan(vals).all()
    zooms = bursts(data[:, 0], data[:, [5]], marks, x_lo, x_hi) if recorded else []
    fig = new_figure(figsize=(10, 5.3 + key_inches(marks, end, x_lo, x_hi, 8.6) + (3.0 if zooms else 0.0)))
    ax, zoomed = zoom_axes(fig, len(zooms), 4.7, 2.6)
    draw = None
    if recorded:
        vals = np.nan_to_num(vals, nan=0.0) * 100.0
        xs, ys = extended(data[:, 0], vals, x_hi)

        def draw(a, lo, hi, markers=False):
            a.fill_between(xs, ys, step="post", color=COLOURS["attacker"], alpha=0.3, linewidth=0, zorder=2,
                           label="traffic diverted to the attacker")
            a.step(xs, ys, where="post", color=COLOURS["attacker"], linewidth=2, zorder=3)
            if markers:
                change_dots(a, data[:, 0], vals, lo, hi, COLOURS["attacker"], 4)

        draw(ax, x_lo, x_hi)
    else:
        no_data(ax)
    strip = time_axes(ax, zoomed, zooms, marks, end, x_lo, x_hi, 8.6,
                      lambda a, lo, hi: draw(a, lo, hi, markers=True), "Traffic diverted (%)")
    if recorded:
        _final_and_peak(ax, strip, data[:, 0], vals, x_hi)
    ax.set_ylabel("Traffic reaching the attacker\n(% of all traffic)")
    ax.set_title(f"Share of traffic diverted to the attacker over time\n"
                 f"(weighting: {weighting} — {weighting_text(weighting)})", fontsize=12, loc="left")
    strip.place(fig)
    return fig


def _final_and_peak(ax, strip: Strip, times: np.ndarray, vals: np.ndarray, x_hi: float) -> None:
    """The two numbers a reader looks for first, on the strip above the data: the final share at the
    axis end and, if higher, the peak over its time, ringed on the curve."""
    final = float(vals[-1])
    k_peak = int(np.argmax(vals))
    peak, t_peak = float(vals[k_peak]), float(times[k_peak])
    style = dict(fontsize=10, fontweight="bold", color="#8b1a1a",
                 bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor=COLOURS["attacker"]))
    strip.add_note(x_hi, f"{final:.1f} % of traffic diverted at the end", "left", style)
    if peak > final + 0.5:
        strip.add_note(t_peak, f"peak: {peak:.1f} % at t = {secs(round(t_peak, 1))} s", "right", style)
        ax.plot([t_peak], [peak], "o", markersize=9, markerfacecolor="none", markeredgecolor="#8b1a1a",
                markeredgewidth=1.6, zorder=5, clip_on=False)


def traffic_figure(timeline: Sequence[Sequence[float]], marks: Sequence[Mark], weighting: str,
                   path: str | os.PathLike, end: float | None = None) -> Path:
    """Filled step area over time: the share of traffic (weighted by `weighting`) that reaches the
    attacker, with the same event marks, the final value and the peak written above the data (the peak
    ringed on the curve). `end` and the zoom panels as in `timeline_figure`."""
    return save(traffic_plot(timeline, marks, weighting, end), path)
