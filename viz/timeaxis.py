"""The time axis the timeline and traffic figures share: the rows, the x-range, the event marks and the
zoom panels.

A hijack spreads within a fraction of a second while a run spans minutes (MRAI rounds, the victim's
answer): drawn on the whole axis, the spread is one vertical step. So a burst of changes too quick for
the main axis gets its own panel below it (`bursts`), at most MAX_ZOOMS, each pointed to from the main
axis. The marks (attack start, mitigation, routing settled) are dashed lines with their labels written
along them, placed so that no two labels overlap.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, MultipleLocator

from .canvas import percent_axis
from .style import duration, secs

if TYPE_CHECKING:
    from bgpsim.sim.result import Mark

MARK_COLOUR = "#333333"
ZOOM_TITLE_CHARS = 44  # the lines of a zoom panel's title are at most this long
MARK_CHARS = 40  # a mark's label is wrapped to lines this long, so it fits the height of the plot
BURST_SHARE = 0.05  # a burst of changes shorter than this share of the x-axis gets a zoom panel
_BURST_GAP = 0.01  # changes closer than this share of the x-axis belong to the same burst
MAX_ZOOMS = 3
_ZOOM_LETTERS = "ABC"


# ------------------------------------------------------------------------------------------ the data

def columns(timeline: Iterable[Sequence[float]]) -> np.ndarray:
    """Timeline rows as an (n, 6) float array: time, attacker, victim, disconnected, loop, diverted.

    Shorter rows (e.g. result.json's `[t, attacker, victim]`) are padded with NaN, which the figures
    treat as "not recorded" and do not draw.
    """
    rows = [list(r) for r in timeline]
    out = np.full((len(rows), 6), np.nan)
    for i, r in enumerate(rows):
        if not r:
            raise ValueError(f"timeline row {i} is empty")
        vals = [np.nan if v is None else float(v) for v in r[:6]]
        out[i, : len(vals)] = vals
    if len(out) and np.isnan(out[:, 0]).any():
        raise ValueError("every timeline row needs a time")
    if len(out) > 1 and np.any(np.diff(out[:, 0]) < 0):
        order = np.argsort(out[:, 0], kind="stable")
        out = out[order]
    return out


def x_range(times: np.ndarray, marks: Sequence[Mark], end: float | None = None) -> tuple[float, float]:
    """From the first row (or 0) to a little past the last row, mark or `end`."""
    points = list(times.tolist()) + [m.time for m in marks]
    if end is not None and np.isfinite(float(end)):
        points.append(float(end))
    if not points:
        return 0.0, 1.0
    lo = min(0.0, min(points))
    hi = max(points)
    span = hi - lo
    pad = span * 0.04 if span > 0 else 1.0
    return lo, hi + pad


def extended(times: np.ndarray, values: np.ndarray, x_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Append a point at x_end holding the last value, so a 'post' step runs to the axis end."""
    return np.append(times, x_end), np.append(values, values[-1])


def with_end(marks: Sequence[Mark], end: float | None) -> list[tuple[float, str, bool]]:
    """The marks as (time, label, quiet), plus a quiet one (a lighter line) where routing settled
    (`end`), if given."""
    out = [(m.time, m.label, False) for m in marks]
    if end is not None and np.isfinite(float(end)):
        out.append((float(end), "routing settled", True))
    return out


# ------------------------------------------------------------------------------------------ the marks

def draw_marks(ax, marks: Sequence[tuple[float, str, bool]], x_lo: float, x_hi: float, axes_width_in: float
               ) -> None:
    """Each mark `(time, label, quiet)` (see `with_end`) a dashed vertical line with its label written
    along it, near the top; a quiet one dotted and lighter.

    Marks at (nearly) the same time share one line, their labels joined. A label goes to the right of
    its line unless the next line is too close, then to the left; when neither side is free the labels
    of the crowded lines are merged into one block, each with its time.
    """
    groups: list[tuple[float, list[str]]] = []
    quiet: list[bool] = []  # a group made only of quiet marks ("routing settled") gets a lighter line
    close = (x_hi - x_lo) * 0.004
    for t, label, q in sorted(marks, key=lambda m: m[0]):
        label = label.strip()
        if groups and t - groups[-1][0] <= close:
            if label:
                groups[-1][1].append(label)
            quiet[-1] = quiet[-1] and q
        else:
            groups.append((t, [label] if label else []))
            quiet.append(q)
    for (t, _), q in zip(groups, quiet):
        if q:
            ax.axvline(t, color="#8c8c8c", linestyle=(0, (1, 2)), linewidth=1.2, zorder=4)
        else:
            ax.axvline(t, color=MARK_COLOUR, linestyle=(0, (5, 3)), linewidth=1.1, zorder=4)
    per_line = (x_hi - x_lo) * 13.0 / (72.0 * axes_width_in)  # one rotated line of text, in data units
    # (time, text, n_lines) blocks; crowded neighbours are merged so no two labels overlap
    blocks: list[list] = []
    for t, labels in groups:
        if not labels:
            continue
        lines = [part for label in labels for part in textwrap.wrap(label, MARK_CHARS)]
        text = "\n".join(lines) + f"  (t = {secs(t)} s)"
        blocks.append([t, text, len(lines)])
    placed: list[tuple[float, str, bool]] = []
    occupied = x_lo  # right edge of the last label placed
    i = 0
    while i < len(blocks):
        t, text, lines = blocks[i]
        w = lines * per_line + per_line * 0.3
        nxt = blocks[i + 1][0] if i + 1 < len(blocks) else x_hi
        right_ok = t >= occupied - 1e-12 and t + w <= nxt
        left_ok = t - w >= occupied - 1e-12
        if right_ok:
            placed.append((t, text, False))
            occupied = t + w
        elif left_ok:
            placed.append((t, text, True))
            occupied = t
        elif i + 1 < len(blocks):  # no room either side: merge with the next block, written at this line
            t2, text2, lines2 = blocks[i + 1]
            blocks[i + 1] = [t, text + "\n" + text2, lines + lines2]
            i += 1
            continue
        else:
            placed.append((t, text, t + w > x_hi))
            occupied = t + w
        i += 1
    for t, text, left in placed:
        ax.annotate(
            text, xy=(t, 0.98), xycoords=("data", "axes fraction"),
            xytext=(-3 if left else 3, 0), textcoords="offset points",
            rotation=90, ha="right" if left else "left", va="top", fontsize=8.5, color=MARK_COLOUR,
            linespacing=1.1,
            bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor="none", alpha=0.7), zorder=6,
        )


# ---------------------------------------------------------------------------------------- the zooms

def bursts(times: np.ndarray, values: np.ndarray, marks: Sequence[Mark], x_lo: float, x_hi: float
           ) -> list[dict]:
    """Windows where the plotted values change step by step faster than the main axis can show.

    A change is a row whose `values` (n, k) differ from the previous row's. Changes less than
    _BURST_GAP of the x-range apart form one burst; a burst of at least two changes lasting less than
    BURST_SHARE of the x-range (counted from the mark just before it, if that mark is close) becomes a
    window `{"lo", "hi", "start", "stop", "changes", "mark"}`: at most MAX_ZOOMS, the busiest, in time
    order.
    """
    span = x_hi - x_lo
    if len(times) < 3 or span <= 0:
        return []
    vals = np.nan_to_num(values, nan=0.0)
    changed = np.any(np.abs(np.diff(vals, axis=0)) > 1e-12, axis=1)
    ct = times[1:][changed]
    if len(ct) < 2:
        return []
    gap = span * _BURST_GAP
    groups: list[list[float]] = [[float(ct[0])]]
    for t in ct[1:].tolist():
        if t - groups[-1][-1] <= gap:
            groups[-1].append(t)
        else:
            groups.append([t])
    mark_list = sorted(((m.time, m.label.strip()) for m in marks), key=lambda m: m[0])
    found = []
    for g in groups:
        if len(g) < 2:
            continue
        start, stop = g[0], g[-1]
        mark = None
        before = [m for m in mark_list if start - gap <= m[0] <= start]
        if before:
            mark = before[-1]
            start = mark[0]
        width = stop - start
        if width <= 1e-9 or width >= span * BURST_SHARE:
            continue
        found.append({"start": start, "stop": stop, "changes": len(g), "mark": mark,
                      "lo": start - 0.06 * width, "hi": stop + 0.14 * width})
    found = sorted(found, key=lambda b: (-b["changes"], b["start"]))[:MAX_ZOOMS]
    return sorted(found, key=lambda b: b["start"])


def zoom_axes(fig: Figure, n_zooms: int, main_h: float, zoom_h: float):
    """The main axes and, below it, one axes per zoom panel side by side."""
    if not n_zooms:
        return fig.add_subplot(), []
    gs = fig.add_gridspec(2, n_zooms, height_ratios=[main_h, zoom_h])
    main = fig.add_subplot(gs[0, :])
    return main, [fig.add_subplot(gs[1, k]) for k in range(n_zooms)]


def change_dots(ax, times: np.ndarray, vals: np.ndarray, lo: float, hi: float, colour: str, zorder: int) -> None:
    """A dot on each change of `vals` between lo and hi: in a zoom panel, one dot per BGP-driven change."""
    inside = (times[1:] >= lo) & (times[1:] <= hi) & (np.abs(np.diff(vals)) > 1e-9)
    ax.plot(times[1:][inside], vals[1:][inside], "o", color=colour, markersize=4.6,
            markeredgecolor="white", markeredgewidth=0.5, zorder=zorder)


def _zoom_title(letter: str, b: Mapping) -> str:
    dur = duration(b["stop"] - b["start"], ".2g")
    if b["mark"] is not None and b["mark"][1]:
        label = textwrap.shorten(b["mark"][1], 2 * ZOOM_TITLE_CHARS - 24, placeholder="…")
        head = textwrap.fill(f"{letter}: the {dur} after “{label}”", ZOOM_TITLE_CHARS,  # three panels share a row
                             break_on_hyphens=False)
    else:
        head = f"{letter}: {b['changes']} changes within {dur}"
    return f"{head}\nt = {b['start']:.2f}–{b['stop']:.2f} s, a dot per change"


def _point_to_zooms(ax, zooms: Sequence[Mapping], x_lo: float, x_hi: float, axes_width_in: float) -> None:
    """On the main axes, a small 'zoom A' tag beside each burst, so the panels below can be found: left
    of the burst when there is room (the mark labels are on the right of their lines), else right."""
    tag_w = (x_hi - x_lo) * 62.0 / (72.0 * axes_width_in)  # about the tag's width, in data units
    for k, b in enumerate(zooms):
        left = b["lo"] - tag_w > x_lo
        ax.annotate(f"zoom {_ZOOM_LETTERS[k]} ↓", xy=(b["lo"] if left else b["hi"], 0.1),
                    xycoords=("data", "axes fraction"), xytext=(-4 if left else 4, 0), textcoords="offset points",
                    ha="right" if left else "left", va="center", fontsize=8.5,
                    fontweight="bold", color="#1f4e8c",
                    bbox=dict(boxstyle="round,pad=0.2", facecolor="#eef3fb", edgecolor="#1f4e8c",
                              linewidth=0.7), zorder=7)


def _zoom_panel(ax, letter: str, b: Mapping, marks: Sequence[Mark], draw, ylabel: str | None) -> None:
    """One zoom panel: `draw(ax, lo, hi)` draws the series; the marks are plain dashed lines here."""
    lo, hi = b["lo"], b["hi"]
    draw(ax, lo, hi)
    for m in marks:
        if lo <= m.time <= hi:
            ax.axvline(m.time, color=MARK_COLOUR, linestyle=(0, (5, 3)), linewidth=1.1, zorder=4)
    ax.set_xlim(lo, hi)
    percent_axis(ax)
    ax.yaxis.set_major_locator(MultipleLocator(50))
    ax.yaxis.set_minor_locator(MultipleLocator(25))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, min_n_ticks=3))
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.tick_params(labelsize=8.5)
    ax.set_xlabel("Simulated time (seconds)", fontsize=9)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=9)
    ax.set_title(_zoom_title(letter, b), fontsize=8.5, loc="left")
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(True)
        ax.spines[side].set_color("#1f4e8c")


# ------------------------------------------------------------------------------------- the whole axis

def time_axes(ax, zooms_axes: Sequence, zooms: Sequence[Mapping], marks: Sequence[Mark], end: float | None,
              x_lo: float, x_hi: float, axes_width_in: float, draw_zoom: Callable | None, zoom_ylabel: str
              ) -> None:
    """What the timeline and traffic figures do alike once their series are drawn on `ax`: the x-range,
    the percentage axis, the marks (and "routing settled" at `end`), the tags pointing to the zooms, the
    x label, and each zoom panel, drawn by `draw_zoom(ax, lo, hi)` (`zoom_ylabel` on the first)."""
    ax.set_xlim(x_lo, x_hi)
    percent_axis(ax)
    draw_marks(ax, with_end(marks, end), x_lo, x_hi, axes_width_in)
    _point_to_zooms(ax, zooms, x_lo, x_hi, axes_width_in)
    ax.set_xlabel("Simulated time since the start of the scenario (seconds)")
    for k, (za, b) in enumerate(zip(zooms_axes, zooms)):
        _zoom_panel(za, _ZOOM_LETTERS[k], b, marks, draw_zoom, zoom_ylabel if k == 0 else None)


def no_data(ax) -> None:
    ax.text(0.5, 0.5, "no timeline recorded", transform=ax.transAxes, ha="center", va="center",
            fontsize=12, color="#777777")
