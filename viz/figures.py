"""PNG figures of a hijack simulation: outcome timeline, diverted traffic, and a small-graph picture.

Every figure is drawn on its own `Figure` (no pyplot state, nothing left open) with the Agg backend and
saved without the "Software" metadata entry, so the same input gives the same bytes. Files are written
to a temporary name next to the target and renamed, so a reader never sees half a PNG.

Colours are the same in every figure and in the HTML report (`COLOURS`): attacker red, victim green,
disconnected grey, forwarding loop orange.
"""

from __future__ import annotations

import io
import os
import textwrap
from itertools import combinations
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Patch  # noqa: E402
from matplotlib.ticker import MaxNLocator, MultipleLocator, PercentFormatter  # noqa: E402

from bgpsim.sim.result import MAX_DRAWN_ASES  # noqa: E402

from . import write_atomic  # noqa: E402  (one limit for the drawing and the peak snapshot)

COLOURS = {
    "attacker": "#d62728",
    "victim": "#2ca02c",
    "disconnected": "#7f7f7f",
    "loop": "#ff7f0e",
}
UNKNOWN_COLOUR = "#ffffff"  # an AS missing from `outcomes` (drawn white)

# What each outcome means, in words a student understands without the code.
OUTCOME_LABELS = {
    "attacker": "traffic reaches the attacker",
    "victim": "traffic reaches the victim",
    "disconnected": "no route (disconnected)",
    "loop": "caught in a forwarding loop",
}

WEIGHTING_LABELS = {
    "uniform": "every source AS counts equally",
    "cone": "each source AS weighted by its customer-cone size",
    "space": "each source AS weighted by its announced address space",
}

DPI = 110
# behind AS labels in the topology picture, so links passing under a label do not strike through it
_LABEL_BOX = dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8)
_MARK_COLOUR = "#333333"


# --------------------------------------------------------------------------------------------- helpers

def _save(fig: Figure, path: str | os.PathLike) -> Path:
    """Save as PNG, byte-for-byte reproducible (no Software stamp)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return write_atomic(path, buf.getvalue())


def _columns(timeline: Iterable[Sequence[float]]) -> np.ndarray:
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


def _x_range(times: np.ndarray, marks: Sequence[Mapping], end: float | None = None) -> tuple[float, float]:
    """From the first row (or 0) to a little past the last row, mark or `end`."""
    mark_times = [float(m["time"]) for m in marks if m.get("time") is not None]
    points = list(times.tolist()) + mark_times
    if end is not None and np.isfinite(float(end)):
        points.append(float(end))
    if not points:
        return 0.0, 1.0
    lo = min(0.0, min(points))
    hi = max(points)
    span = hi - lo
    pad = span * 0.04 if span > 0 else 1.0
    return lo, hi + pad


def _extended(times: np.ndarray, values: np.ndarray, x_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Append a point at x_end holding the last value, so a 'post' step runs to the axis end."""
    return np.append(times, x_end), np.append(values, values[-1])


def _draw_marks(ax, marks: Sequence[Mapping], x_lo: float, x_hi: float, axes_width_in: float) -> None:
    """Each mark a dashed vertical line with its label written along it, near the top.

    Marks at (nearly) the same time share one line, their labels joined. A label goes to the right of
    its line unless the next line is too close, then to the left; when neither side is free the labels
    of the crowded lines are merged into one block, each with its time.
    """
    groups: list[tuple[float, list[str]]] = []
    quiet: list[bool] = []  # a group made only of quiet marks ("routing settled") gets a lighter line
    close = (x_hi - x_lo) * 0.004
    for m in sorted((m for m in marks if m.get("time") is not None), key=lambda m: float(m["time"])):
        t = float(m["time"])
        label = str(m.get("label", "")).strip()
        if groups and t - groups[-1][0] <= close:
            if label:
                groups[-1][1].append(label)
            quiet[-1] = quiet[-1] and bool(m.get("quiet"))
        else:
            groups.append((t, [label] if label else []))
            quiet.append(bool(m.get("quiet")))
    for (t, _), q in zip(groups, quiet):
        if q:
            ax.axvline(t, color="#8c8c8c", linestyle=(0, (1, 2)), linewidth=1.2, zorder=4)
        else:
            ax.axvline(t, color=_MARK_COLOUR, linestyle=(0, (5, 3)), linewidth=1.1, zorder=4)
    per_line = (x_hi - x_lo) * 13.0 / (72.0 * axes_width_in)  # one rotated line of text, in data units
    # (time, text, n_lines) blocks; crowded neighbours are merged so no two labels overlap
    blocks: list[list] = []
    for t, labels in groups:
        if not labels:
            continue
        text = "\n".join(labels) + f"  (t = {_fmt_time(t)} s)"
        blocks.append([t, text, len(labels)])
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
            rotation=90, ha="right" if left else "left", va="top", fontsize=8.5, color=_MARK_COLOUR,
            linespacing=1.1,
            bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor="none", alpha=0.7), zorder=6,
        )


def _fmt_time(t: float) -> str:
    return f"{t:.0f}" if float(t).is_integer() else f"{t:.1f}"


def _percent_axis(ax) -> None:
    ax.set_ylim(-2, 102)
    ax.yaxis.set_major_locator(MultipleLocator(20))
    ax.yaxis.set_minor_locator(MultipleLocator(10))
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.grid(True, which="major", color="#dddddd", linewidth=0.8)
    ax.grid(True, which="minor", axis="y", color="#eeeeee", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _no_data(ax) -> None:
    ax.text(0.5, 0.5, "no timeline recorded", transform=ax.transAxes, ha="center", va="center",
            fontsize=12, color="#777777")


# ------------------------------------------------------------------------------------------- timeline

BURST_SHARE = 0.05  # a burst of changes shorter than this share of the x-axis gets a zoom panel
_BURST_GAP = 0.01  # changes closer than this share of the x-axis belong to the same burst
MAX_ZOOMS = 3
_ZOOM_LETTERS = "ABC"


def _fmt_dur(d: float) -> str:
    """A duration for a reader: '0.26 s', '1.3 s', '40 ms'."""
    if d < 0.1:
        return f"{d * 1000:.0f} ms" if d >= 0.0015 else f"{d * 1000:.1f} ms"
    return f"{d:.2g} s" if d < 10 else f"{d:.0f} s"


def bursts(times: np.ndarray, values: np.ndarray, marks: Sequence[Mapping], x_lo: float, x_hi: float
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
    mark_list = sorted(((float(m["time"]), str(m.get("label", "")).strip()) for m in marks
                        if m.get("time") is not None), key=lambda m: m[0])
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


def _zoom_title(letter: str, b: Mapping) -> str:
    dur = _fmt_dur(b["stop"] - b["start"])
    if b["mark"] is not None and b["mark"][1]:
        head = f"{letter}: the {dur} after “{b['mark'][1]}”"
    else:
        head = f"{letter}: {b['changes']} changes within {dur}"
    return f"{head}\nt = {b['start']:.2f} to {b['stop']:.2f} s, each dot one change"


def _zoom_axes(fig: Figure, n_zooms: int, main_h: float, zoom_h: float):
    """The main axes and, below it, one axes per zoom panel side by side."""
    if not n_zooms:
        return fig.add_subplot(), []
    gs = fig.add_gridspec(2, n_zooms, height_ratios=[main_h, zoom_h])
    main = fig.add_subplot(gs[0, :])
    return main, [fig.add_subplot(gs[1, k]) for k in range(n_zooms)]


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


def _zoom_panel(ax, letter: str, b: Mapping, marks: Sequence[Mapping], draw, ylabel: str | None) -> None:
    """One zoom panel: `draw(ax, lo, hi)` draws the series; the marks are plain dashed lines here."""
    lo, hi = b["lo"], b["hi"]
    draw(ax, lo, hi)
    for m in marks:
        t = m.get("time")
        if t is not None and lo <= float(t) <= hi:
            ax.axvline(float(t), color=_MARK_COLOUR, linestyle=(0, (5, 3)), linewidth=1.1, zorder=4)
    ax.set_xlim(lo, hi)
    _percent_axis(ax)
    ax.yaxis.set_major_locator(MultipleLocator(50))
    ax.yaxis.set_minor_locator(MultipleLocator(25))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, min_n_ticks=3))
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.tick_params(labelsize=8.5)
    ax.set_xlabel("Simulated time (seconds)", fontsize=9)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=9)
    ax.set_title(_zoom_title(letter, b), fontsize=9.5, loc="left")
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(True)
        ax.spines[side].set_color("#1f4e8c")


_TIMELINE_SERIES = [  # (outcome, column, line width, z-order)
    ("attacker", 1, 2.4, 3),
    ("victim", 2, 2.4, 3),
    ("disconnected", 3, 1.8, 2),
    ("loop", 4, 1.8, 2),
]


def _with_end(marks: Sequence[Mapping], end: float | None) -> list[Mapping]:
    """The marks plus a lighter one where routing settled (`end`), if given."""
    out = list(marks)
    if end is not None and np.isfinite(float(end)):
        out.append({"time": float(end), "label": "routing settled", "quiet": True})
    return out


def timeline_plot(timeline: Sequence[Sequence[float]], marks: Sequence[Mapping], title: str | None = None,
                  end: float | None = None) -> Figure:
    """The figure `timeline_figure` saves (for tests and reuse)."""
    data = _columns(timeline)
    x_lo, x_hi = _x_range(data[:, 0], marks, end)
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
    fig = Figure(figsize=(10, 5.2 + (3.0 if zooms else 0.0)), layout="constrained")
    ax, zoom_axes = _zoom_axes(fig, len(zooms), 4.6, 2.6)

    def draw(a, lo, hi, markers=False):
        for key, col, width, z in drawn:
            vals = np.nan_to_num(data[:, col], nan=0.0) * 100.0
            xs, ys = _extended(data[:, 0], vals, x_hi)
            a.step(xs, ys, where="post", color=COLOURS[key], linewidth=width, label=OUTCOME_LABELS[key],
                   zorder=z)
            if markers:
                inside = (data[1:, 0] >= lo) & (data[1:, 0] <= hi) & (np.abs(np.diff(vals)) > 1e-9)
                a.plot(data[1:, 0][inside], vals[1:][inside], "o", color=COLOURS[key], markersize=4.6,
                       markeredgecolor="white", markeredgewidth=0.5, zorder=z + 1)

    if drawn:
        draw(ax, x_lo, x_hi)
    else:
        _no_data(ax)
    ax.set_xlim(x_lo, x_hi)
    _percent_axis(ax)
    _draw_marks(ax, _with_end(marks, end), x_lo, x_hi, 8.8)
    _point_to_zooms(ax, zooms, x_lo, x_hi, 8.8)
    ax.set_xlabel("Simulated time since the start of the scenario (seconds)")
    ax.set_ylabel("Share of all source ASes (%)")
    ax.set_title(title or "Where the ASes' traffic for the victim's prefix goes, over time",
                 fontsize=12.5, loc="left")
    for k, (za, b) in enumerate(zip(zoom_axes, zooms)):
        _zoom_panel(za, _ZOOM_LETTERS[k], b, marks, lambda a, lo, hi: draw(a, lo, hi, markers=True),
                    "Share of ASes (%)" if k == 0 else None)
    if ax.get_legend_handles_labels()[0]:
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=4, frameon=False,
                   fontsize=9.5)
    return fig


def timeline_figure(timeline: Sequence[Sequence[float]], marks: Sequence[Mapping], path: str | os.PathLike,
                    title: str | None = None, end: float | None = None) -> Path:
    """Step plot over simulated time of where the source ASes' traffic goes.

    `timeline` rows are `(time_s, attacker, victim, disconnected, loop, diverted)`, fractions 0..1 of
    the source ASes (`diverted` is not drawn here; see `traffic_figure`). The loop line is drawn only
    if it is ever above zero. `marks` are `{"time": s, "label": str}` events drawn as dashed lines.
    `end` (simulated seconds, e.g. when routing settled) extends the x-axis so the last state is drawn
    up to it. Bursts of changes too quick to see on the whole axis get zoom panels below (`bursts`).
    """
    return _save(timeline_plot(timeline, marks, title, end), path)


# -------------------------------------------------------------------------------------------- traffic

def weighting_text(weighting: str) -> str:
    """A plain-language description of a traffic weighting name (or weight file)."""
    w = str(weighting)
    return WEIGHTING_LABELS.get(w, f"each source AS weighted by the file {Path(w).name}" if w else "uniform")


def traffic_plot(timeline: Sequence[Sequence[float]], marks: Sequence[Mapping], weighting: str,
                 end: float | None = None) -> Figure:
    """The figure `traffic_figure` saves (for tests and reuse)."""
    data = _columns(timeline)
    x_lo, x_hi = _x_range(data[:, 0], marks, end)
    vals = data[:, 5] if len(data) else np.array([])
    recorded = len(vals) > 0 and not np.isnan(vals).all()
    zooms = bursts(data[:, 0], data[:, [5]], marks, x_lo, x_hi) if recorded else []
    fig = Figure(figsize=(10, 4.6 + (3.0 if zooms else 0.0)), layout="constrained")
    ax, zoom_axes = _zoom_axes(fig, len(zooms), 4.0, 2.6)
    if recorded:
        vals = np.nan_to_num(vals, nan=0.0) * 100.0
        xs, ys = _extended(data[:, 0], vals, x_hi)

        def draw(a, lo, hi, markers=False):
            a.fill_between(xs, ys, step="post", color=COLOURS["attacker"], alpha=0.3, linewidth=0, zorder=2,
                           label="traffic diverted to the attacker")
            a.step(xs, ys, where="post", color=COLOURS["attacker"], linewidth=2, zorder=3)
            if markers:
                inside = (data[1:, 0] >= lo) & (data[1:, 0] <= hi) & (np.abs(np.diff(vals)) > 1e-9)
                a.plot(data[1:, 0][inside], vals[1:][inside], "o", color=COLOURS["attacker"], markersize=4.6,
                       markeredgecolor="white", markeredgewidth=0.5, zorder=4)

        draw(ax, x_lo, x_hi)
        final = float(ys[-1])
        k_peak = int(np.argmax(vals))
        peak, t_peak = float(vals[k_peak]), float(data[k_peak, 0])
        notes = [(x_hi, final, f"{final:.1f} % of traffic diverted at the end", "right")]
        if peak > final + 0.5:
            notes.append((t_peak, peak, f"peak: {peak:.1f} % at t = {_fmt_time(round(t_peak, 1))} s", "left"))
        for x, y, text, side in notes:
            above = y < 55
            ax.annotate(
                text, xy=(x, y), xycoords="data",
                xytext=(-12 if side == "right" else 34, 28 if above else -28), textcoords="offset points",
                ha=side, va="bottom" if above else "top", fontsize=10.5, fontweight="bold",
                color="#8b1a1a",
                bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor=COLOURS["attacker"],
                          alpha=0.95),
                arrowprops=dict(arrowstyle="->", color="#8b1a1a", shrinkA=0, shrinkB=2), zorder=7,
            )
    else:
        _no_data(ax)
    ax.set_xlim(x_lo, x_hi)
    _percent_axis(ax)
    _draw_marks(ax, _with_end(marks, end), x_lo, x_hi, 8.6)
    _point_to_zooms(ax, zooms, x_lo, x_hi, 8.6)
    ax.set_xlabel("Simulated time since the start of the scenario (seconds)")
    ax.set_ylabel("Traffic reaching the attacker\n(% of all traffic)")
    ax.set_title(f"Share of traffic diverted to the attacker over time\n"
                 f"(weighting: {weighting} — {weighting_text(weighting)})", fontsize=12, loc="left")
    for k, (za, b) in enumerate(zip(zoom_axes, zooms)):
        _zoom_panel(za, _ZOOM_LETTERS[k], b, marks, lambda a, lo, hi: draw(a, lo, hi, markers=True),
                    "Traffic diverted (%)" if k == 0 else None)
    return fig


def traffic_figure(timeline: Sequence[Sequence[float]], marks: Sequence[Mapping], weighting: str,
                   path: str | os.PathLike, end: float | None = None) -> Path:
    """Filled step area over time: the share of traffic (weighted by `weighting`) that reaches the
    attacker, with the same event marks, the final value and the peak written on the plot. `end` and
    the zoom panels as in `timeline_figure`."""
    return _save(traffic_plot(timeline, marks, weighting, end), path)


# ------------------------------------------------------------------------------------------- topology

def _rows(topo) -> list[list[int]]:
    """AS indices grouped into rows, top row first.

    Row = customer-to-provider rank (higher at the top). ASes without providers but with customers
    (the tier-1 clique) are lifted to the top row, which keeps every provider above its customers.
    """
    rank = np.asarray(topo.ranks, dtype=np.int64).copy()
    if topo.n and len(topo.p2c):
        top = int(rank.max())
        for i in range(topo.n):
            if not topo.providers[i] and topo.customers[i]:
                rank[i] = top
    levels = sorted(set(rank.tolist()), reverse=True)
    return [[i for i in range(topo.n) if rank[i] == lv] for lv in levels]


def _edges(topo) -> list[tuple[int, int]]:
    return [tuple(e) for e in topo.p2c.tolist()] + [tuple(e) for e in topo.p2p.tolist()]


def _positions(rows: list[list[int]]) -> dict[int, tuple[float, float]]:
    nrows = len(rows)
    pos = {}
    for r, row in enumerate(rows):
        n = len(row)
        for k, i in enumerate(row):
            pos[i] = ((k + 0.5) / n, float(nrows - 1 - r))
    return pos


def _crossings(pos: Mapping[int, tuple[float, float]], edges: list[tuple[int, int]]) -> int:
    """Edge crossings among straight links between different rows (same-row links are drawn as arcs)."""
    segs = []
    for a, b in edges:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        if ya == yb:
            continue
        if ya < yb:
            (xa, ya), (xb, yb), a, b = (xb, yb), (xa, ya), b, a
        segs.append((a, b, xa, ya, xb, yb))
    count = 0
    for s, t in combinations(segs, 2):
        if len({s[0], s[1], t[0], t[1]}) < 4:
            continue  # links sharing an AS meet there, they do not cross
        if _intersect(s[2:], t[2:]):
            count += 1
    return count


def _intersect(p, q) -> bool:
    (x1, y1, x2, y2), (x3, y3, x4, y4) = p, q

    def orient(ax, ay, bx, by, cx, cy):
        v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        return 0 if abs(v) < 1e-12 else (1 if v > 0 else -1)

    o1, o2 = orient(x1, y1, x2, y2, x3, y3), orient(x1, y1, x2, y2, x4, y4)
    o3, o4 = orient(x3, y3, x4, y4, x1, y1), orient(x3, y3, x4, y4, x2, y2)
    return o1 * o2 < 0 and o3 * o4 < 0


def _ordered_rows(topo, sweeps: int = 6) -> list[list[int]]:
    """Rows (top first) with each row ordered by barycentre sweeps, keeping the ordering with the fewest
    crossings. Deterministic (ties broken by ASN)."""
    rows = _rows(topo)
    edges = _edges(topo)
    nbrs: list[list[int]] = [[] for _ in range(topo.n)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    row_of = {i: r for r, row in enumerate(rows) for i in row}
    pos = _positions(rows)
    best = ([list(r) for r in rows], _crossings(pos, edges))
    order = list(range(1, len(rows))) + list(range(len(rows) - 2, -1, -1))  # down, then up
    for _ in range(sweeps):
        if best[1] == 0:
            break
        for r in order:
            row = rows[r]

            def key(i, row=row, r=r):
                xs = [pos[j][0] for j in nbrs[i] if row_of[j] != r]
                return (sum(xs) / len(xs) if xs else pos[i][0], pos[i][0], int(topo.asns[i]))

            rows[r] = sorted(row, key=key)
            pos = _positions(rows)
        c = _crossings(pos, edges)
        if c < best[1]:
            best = ([list(r) for r in rows], c)
    return best[0]


ROW_CAP = 14  # a row with more ASes is drawn as staggered sub-rows so the labels do not collide
_SUB_ROW = 0.5  # vertical distance between sub-rows, in row units


def layout(topo) -> tuple[dict[int, tuple[float, float]], list[list[int]], list[float]]:
    """Positions for `topology_figure`: (index -> (x in 0..1, y in row units, top row highest), the
    ordered rows, the y of each row's first sub-row). A row wider than ROW_CAP is split into k
    interleaved sub-rows (AS j of the row goes to sub-row j mod k) that keep the row's left-to-right
    order, so each sub-row has room for the labels."""
    rows = _ordered_rows(topo)
    pos: dict[int, tuple[float, float]] = {}
    row_y: list[float] = []
    y = 0.0
    for row in rows:
        n = len(row)
        k = -(-n // ROW_CAP)
        row_y.append(y)
        for j, i in enumerate(row):
            pos[i] = ((j + 0.5) / n, y - _SUB_ROW * (j % k))
        y -= 1.0 + _SUB_ROW * (k - 1)
    return pos, rows, row_y


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


def _count_line(topo, outcomes: Mapping[int, str], attacker: int, victim: int) -> str:
    others = [int(a) for a in topo.asns.tolist() if int(a) not in (int(attacker), int(victim))]
    hit = sum(1 for a in others if outcomes.get(a) == "attacker")
    return (f"{hit} of the {len(others)} other ASes send their traffic to the attacker, "
            f"{sum(1 for a in others if outcomes.get(a) == 'victim')} to the victim")


def _int_keys(outcomes: Mapping) -> dict[int, str]:
    out = {}
    for k, v in (outcomes or {}).items():
        try:
            out[int(k)] = str(v)
        except (TypeError, ValueError):
            pass
    return out


def _draw_graph(ax, topo, pos, rows, row_y, arcs, outcomes: Mapping[int, str], attacker: int, victim: int,
                captions: list[str], y_lo: float, y_hi: float) -> None:
    """One picture of the graph on `ax`, each AS coloured by its outcome."""
    ax.set_axis_off()
    for p, c in topo.p2c.tolist():
        (x1, y1), (x2, y2) = pos[p], pos[c]
        ax.plot([x1, x2], [y1, y2], color="#9a9a9a", linewidth=1.2, solid_capstyle="round", zorder=1)
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
            ax.plot([x1, x2], [y1, y2], color="#5a5a5a", linewidth=1.3, linestyle=(0, (4, 3)), zorder=1)

    size = 420
    special = {int(attacker): "attacker", int(victim): "victim"}
    lower = {i for r, row in enumerate(rows) for i in row if pos[i][1] < row_y[r] - 1e-9}
    for i in range(topo.n):
        asn = int(topo.asns[i])
        x, y = pos[i]
        colour = COLOURS.get(outcomes.get(asn, ""), UNKNOWN_COLOUR)
        tag = special.get(asn)
        ax.scatter([x], [y], s=size * (1.4 if tag else 1.0), c=[colour], edgecolors="black",
                   linewidths=3.2 if tag else 0.9, zorder=3)
        drop = 15 if not tag else 17
        ax.annotate(f"AS{asn}", (x, y), xytext=(0, -drop), textcoords="offset points",
                    ha="center", va="top", fontsize=8.5, fontweight="bold", zorder=5, bbox=_LABEL_BOX)
        name = topo.names.get(asn)
        name_lines = 0
        if name:
            short = textwrap.shorten(name, width=30, placeholder="…")
            wrapped = "\n".join(textwrap.wrap(short, width=14)) or short
            name_lines = wrapped.count("\n") + 1
            ax.annotate(wrapped, (x, y), xytext=(0, -drop - 12), textcoords="offset points",
                        ha="center", va="top", fontsize=7, color="#333333", linespacing=1.0, zorder=4,
                        bbox=_LABEL_BOX)
        if tag:
            # above the AS, unless it sits on a lower sub-row of a staggered row: there the tag would cover
            # the names of the sub-row above, so it goes under the AS's own labels
            below = i in lower
            ax.annotate(tag.upper(), (x, y), xytext=(0, -drop - 14 - 8.5 * name_lines if below else 14),
                        textcoords="offset points", ha="center", va="top" if below else "bottom", fontsize=9,
                        fontweight="bold", color="black", zorder=6,
                        bbox=dict(boxstyle="round,pad=0.2", facecolor="#fff6c8", edgecolor="black",
                                  linewidth=0.8))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(y_lo, y_hi)
    for r, caption in enumerate(captions):
        k = -(-len(rows[r]) // ROW_CAP)
        ax.text(-0.025, row_y[r] - _SUB_ROW * (k - 1) / 2, caption, ha="right", va="center", fontsize=8.5,
                color="#666666", style="italic")


def topology_plot(topo, outcomes: Mapping[int, str], attacker: int, victim: int, title: str | None = None,
                  peak: Mapping | None = None) -> Figure:
    """The figure `topology_figure` saves (for tests and reuse)."""
    if topo.n > MAX_DRAWN_ASES:
        raise ValueError(f"topology has {topo.n} ASes; topology_figure draws at most {MAX_DRAWN_ASES}")
    outcomes = _int_keys(outcomes)
    pos, rows, row_y = layout(topo)
    per_sub_row = max((-(-len(r) // -(-len(r) // ROW_CAP)) for r in rows), default=1)
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
        t_peak = peak.get("time")
        when = f" (t = {_fmt_time(round(float(t_peak), 1))} s)" if t_peak is not None else ""
        peak_out = _int_keys(peak.get("outcomes") or {})
        panels.append((peak_out, f"At the peak of the attack{when}"))
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
        _draw_graph(ax, topo, pos, rows, row_y, arcs, outs, attacker, victim, captions, y_bottom - bottom, top)
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
    fig.legend(handles=handles, loc="outside lower center", ncol=4 if width >= 13 else 3, frameon=False,
               fontsize=9)
    fig.suptitle("\n".join(textwrap.wrap(heading, width=int(width * 9))), fontsize=12.5, x=0.02,
                 ha="left")
    return fig


def topology_figure(topo, outcomes: Mapping[int, str], attacker: int, victim: int, path: str | os.PathLike,
                    title: str | None = None, peak: Mapping | None = None) -> Path:
    """Picture of a small AS graph (at most MAX_DRAWN_ASES ASes), each AS coloured by its outcome.

    Tiers top to bottom by customer-to-provider rank, each row captioned by its most common role when
    the topology has roles; provider-customer links solid grey, peer links dashed; attacker and victim
    with a thick outline and a text tag. `outcomes` maps ASN -> one of "attacker", "victim",
    "disconnected", "loop" (ASes missing from it are drawn white).

    `peak` is None or `{"time": t, "outcomes": {asn: outcome}}`: then two pictures stacked, "at the peak
    of the attack" above and "at the end" (`title`, if given, heads that one) below.
    """
    return _save(topology_plot(topo, outcomes, attacker, victim, title, peak), path)


# --------------------------------------------------------------------------------------------- sweeps

def sweep_figure(summary: Mapping, path: str | os.PathLike) -> Path:
    """Attacker success against adoption, one panel per attack, one line per policy, with the 90 %
    confidence band of the mean over trials."""
    cells = summary["cells"]
    attacks = list(dict.fromkeys(c["attack"] for c in cells))
    policies = list(dict.fromkeys(c["policy"] for c in cells))
    fig = Figure(figsize=(5.2 * len(attacks), 4.0), layout="constrained")
    axes = fig.subplots(1, len(attacks), squeeze=False)[0]
    colours = matplotlib.colormaps["tab10"]
    for ax, attack in zip(axes, attacks):
        for k, policy in enumerate(policies):
            pts = sorted((c["adoption"], c["attacker_frac"]) for c in cells if c["attack"] == attack and c["policy"] == policy)
            if not pts:
                continue
            x = np.asarray([p[0] for p in pts], dtype=float)
            mean = np.asarray([100 * p[1]["mean"] for p in pts])
            lo = np.asarray([100 * p[1]["ci90"][0] for p in pts])
            hi = np.asarray([100 * p[1]["ci90"][1] for p in pts])
            colour = colours(k % 10)
            ax.plot(x, mean, marker="o", markersize=3.5, color=colour, label=policy)
            ax.fill_between(x, np.clip(lo, 0, 100), np.clip(hi, 0, 100), color=colour, alpha=0.18, linewidth=0)
        _percent_axis(ax)
        ax.set_xlim(-2, 102)
        ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
        ax.set_xlabel("ASes deploying the defence")
        ax.set_ylabel("ASes whose traffic reaches the attacker")
        ax.set_title(f"{attack} attack", fontsize=10)
        ax.legend(fontsize=8, title="defence (band: 90 % CI)", title_fontsize=8, frameon=False)
    sw = summary.get("sweep", {})
    fig.suptitle(f"Attacker success vs adoption — {sw.get('topology', '')}, {sw.get('trials', '?')} trials per point, "
                 f"adoption: {sw.get('adopt', '')}", fontsize=10)
    return _save(fig, path)


def outcome_figure(outcome: Mapping[str, float], diverted: float, weighting: str, path: str | os.PathLike,
                   title: str = "") -> Path:
    """Converged state: where the traffic of the source ASes goes, one bar per outcome, and the
    share of traffic diverted under the weighting."""
    fig = Figure(figsize=(6.4, 2.9), layout="constrained")
    ax = fig.subplots()
    names = list(OUTCOME_LABELS)
    vals = [100 * outcome.get(k, 0.0) for k in names]
    bars = ax.barh(range(len(names)), vals, color=[COLOURS[k] for k in names], height=0.6)
    for b, v in zip(bars, vals):
        ax.text(min(v + 1.5, 88), b.get_y() + b.get_height() / 2, f"{v:.1f} %", va="center", fontsize=9)
    ax.set_yticks(range(len(names)), [OUTCOME_LABELS[k] for k in names], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.set_xlabel("source ASes (attacker and victim aside)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_title((title + "\n" if title else "") + f"traffic diverted to the attacker: {100 * diverted:.1f} % "
                 f"({weighting})", fontsize=10)
    return _save(fig, path)
