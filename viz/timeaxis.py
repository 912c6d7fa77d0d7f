"""The time axis the timeline and traffic figures share: the rows, the x-range, the event marks and the
zoom panels.

A hijack spreads within a fraction of a second while a run spans minutes (MRAI rounds, the victim's
answer): drawn on the whole axis, the spread is one vertical step. So a burst of changes too quick for
the main axis gets its own panel below it (`bursts`), at most MAX_ZOOMS, each pointed to from the main
axis.

No word is written over the data. The marks (attack start, mitigation, routing settled) are dashed
lines, each numbered in a circle on a strip above the 100 % line and named in a key under the axis;
events too close to tell apart get their circles pushed aside, each tied to its line. The tags that
point to the zoom panels (and the traffic figure's notes) take rows above the circles. The strip is
laid out once matplotlib has placed the axes (`Strip.place`), in points, so it holds however close
the events are; `canvas.crowding` checks the result.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, MaxNLocator, MultipleLocator

from .canvas import GUIDE, percent_axis, text_width
from .style import duration, plural, secs

if TYPE_CHECKING:
    from bgpsim.sim.result import Mark

MARK_COLOUR = "#333333"
QUIET_COLOUR = "#8c8c8c"  # "routing settled": a lighter, dotted line
ZOOM_COLOUR = "#1f4e8c"
ZOOM_TITLE_CHARS = 44  # a mark's label in a zoom panel's title is shortened to two lines of about this
ZOOM_TITLE_FONT = 8.5
ZOOM_TITLE_WIDTH = 185.0  # points: a third of the figure's width, less the margins
KEY_FONT = 8.5
BADGE_FONT = 8.0
BURST_SHARE = 0.05  # a burst of changes shorter than this share of the x-axis gets a zoom panel
VISIBLE = 0.01  # ... if it moves a share by this much (a point on the panel's 0-100 % axis) or more
_BURST_GAP = 0.01  # changes closer than this share of the x-axis belong to the same burst
MAX_ZOOMS = 3
_ZOOM_LETTERS = "ABC"
_TOP = 102.0  # the top of the data area (the percentage axis ends at -2 and 102)
_LIFT = 4.0  # points between the data area and the circles
_BADGE_ROW = 16.0  # points: the row of numbered circles
_ROW = 16.0  # points: each row of tags and notes above it
_KEY_LINE = 13.0  # points between the lines of the key
_INDENT = 16.0  # points from a key's circle to its text


# ------------------------------------------------------------------------------------------ the data

def columns(timeline: Iterable[Sequence[float]]) -> np.ndarray:
    """Timeline rows as an (n, 6) float array: time, attacker, victim, disconnected, loop, diverted.

    Shorter rows (e.g. result.json's `[t, attacker, victim]`) are padded with NaN, which the figures
    treat as "not recorded" and do not draw.
    """
    rows = [list(r) for r in timeline]
    try:  # rows of six, as a run records them: read at once (an incident's 80,000 in 0.02 s, not 0.15)
        out = np.array(rows, dtype=float)
    except (ValueError, TypeError):  # rows of other lengths
        out = None
    if out is None or out.shape != (len(rows), 6):
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


def mark_groups(marks: Sequence[Mark], end: float | None, x_lo: float, x_hi: float
                ) -> list[tuple[float, list[tuple[float, str]], bool]]:
    """The marks, and "routing settled" at `end` if given, as `(time, [(time, label)], quiet)` in time
    order: marks at (nearly) the same time share one line and one number; a group made only of
    "routing settled" is quiet (a lighter line)."""
    marks = [(m.time, m.label.strip(), False) for m in marks]
    if end is not None and np.isfinite(float(end)):
        marks.append((float(end), "routing settled", True))
    groups: list[tuple[float, list[tuple[float, str]], bool]] = []
    close = (x_hi - x_lo) * 0.004
    for t, label, q in sorted(marks, key=lambda m: m[0]):
        if groups and t - groups[-1][0] <= close:
            t0, labels, q0 = groups[-1]
            groups[-1] = (t0, labels + [(t, label)], q0 and q)
        else:
            groups.append((t, [(t, label)], q))
    return groups


def key_text(labels: Sequence[tuple[float, str]]) -> str:
    """One entry of the key: the labels of a group, with their time once if they share it."""
    labels = [(t, x or "an event") for t, x in labels]
    if len({secs(t) for t, _ in labels}) == 1:
        return "; ".join(x for _, x in labels) + f"  (t = {secs(labels[0][0])} s)"
    return "; ".join(f"{x} (t = {secs(t)} s)" for t, x in labels)


def _badge(ax, n: int, quiet: bool, **kw):
    colour = QUIET_COLOUR if quiet else MARK_COLOUR
    return ax.annotate(str(n), fontsize=BADGE_FONT, fontweight="bold", color=colour, ha="center", va="center",
                       bbox=dict(boxstyle="circle,pad=0.18", facecolor="white", edgecolor=colour, linewidth=0.9),
                       **kw)


# ------------------------------------------------------------------------------------------ the marks

def draw_mark_lines(ax, groups: Sequence[tuple[float, list, bool]]) -> None:
    """Each group a dashed line over the data area (dotted and lighter when quiet)."""
    for t, _, quiet in groups:
        if quiet:
            ax.plot([t, t], [-2, _TOP], color=QUIET_COLOUR, linestyle=(0, (1, 2)), linewidth=1.2, zorder=4, gid=GUIDE)
        else:
            ax.plot([t, t], [-2, _TOP], color=MARK_COLOUR, linestyle=(0, (5, 3)), linewidth=1.1, zorder=4, gid=GUIDE)


def key_entries(groups: Sequence[tuple[float, list, bool]], axes_width_in: float) -> list[tuple]:
    """The key under the axis, what each numbered mark is, as (number, text, quiet, column, line):
    '3  AS64510 originates 198.51.100.0/24 (t = 4800 s)'. Two columns when every entry fits half the
    width, else one, long entries wrapped."""
    texts = [key_text(labels) for _, labels, _ in groups]
    full = axes_width_in * 72.0
    two = len(texts) > 1 and max(text_width(x, KEY_FONT) for x in texts) + _INDENT + 12 <= full / 2
    per_col = -(-len(texts) // 2) if two else len(texts)
    line, out = [0, 0], []
    for k, ((_, _, quiet), text) in enumerate(zip(groups, texts)):
        col = k // per_col if two else 0
        if not two:
            text = _fill(text, KEY_FONT, full - _INDENT - 12)
        out.append((k + 1, text, quiet, col, line[col]))
        line[col] += text.count("\n") + 1
    return out


def key_inches(marks: Sequence[Mark], end: float | None, x_lo: float, x_hi: float, axes_width_in: float) -> float:
    """The height the key takes under the axis: the figures grow by it."""
    entries = key_entries(mark_groups(marks, end, x_lo, x_hi), axes_width_in)
    lines = max((line + text.count("\n") + 1 for _, text, _, _, line in entries), default=0)
    return (8.0 + _KEY_LINE * lines) / 72.0


def draw_key(ax, groups: Sequence[tuple[float, list, bool]], axes_width_in: float) -> None:
    """The key (`key_entries`) under the axis label; constrained layout makes room for it as for any
    label of the axes."""
    for n, text, quiet, col, line in key_entries(groups, axes_width_in):
        y = -(5.0 + _KEY_LINE * (line + 0.5))
        where = dict(xy=(0.5 * col, 0), xycoords=("axes fraction", ax.xaxis.label), textcoords="offset points")
        _badge(ax, n, quiet, xytext=(6, y), **where)
        ax.annotate(text, xytext=(6 + _INDENT, y + _KEY_LINE * 0.5), ha="left", va="top", fontsize=KEY_FONT,
                    color=QUIET_COLOUR if quiet else MARK_COLOUR, linespacing=1.25, **where)


# ---------------------------------------------------------------------------------------- the strip

@dataclass
class Strip:
    """What goes above the data area of the main axes, placed by `place` once the layout is known:
    the numbered circles of the marks, and rows of tags (the zooms) and notes (`add_note`)."""
    ax: object
    groups: list
    x_lo: float
    x_hi: float
    items: list = field(default_factory=list)  # (x, text, side, style): side "right" of x or "left"

    def add_note(self, x: float, text: str, side: str, style: Mapping) -> None:
        self.items.append((x, text, side, dict(style)))

    def place(self, fig: Figure) -> None:
        """Lay the figure out, then set the circles and rows above the data area in points (the axes'
        size known), and raise the y-limit just enough to hold them. The figure's last step."""
        fig.get_layout_engine().execute(fig)
        ax = self.ax
        pos = ax.get_position()
        w = pos.width * fig.get_figwidth() * 72.0
        h = pos.height * fig.get_figheight() * 72.0
        scale = w / (self.x_hi - self.x_lo)
        at = [(t - self.x_lo) * scale for t, _, _ in self.groups]
        sizes = [text_width(str(n), BADGE_FONT, True) + 2 * 0.18 * BADGE_FONT + 5 for n in range(1, len(at) + 1)]
        spots = _spread(at, sizes, w)
        rows: list[list[tuple[float, float]]] = []
        placed = []
        for x, text, side, style in self.items:
            tw = text_width(text, style.get("fontsize", 8.5), style.get("fontweight") == "bold") + 2 * 0.3 * 9 + 2
            u = (x - self.x_lo) * scale
            left, row = _pack(rows, u, tw, side, w)
            placed.append((x, text, style, left - u, row))
        room = _LIFT + (_BADGE_ROW if at else 0.0) + _ROW * len(rows) + 2.0
        top = -2.0 + (_TOP + 2.0) * h / max(h - room, h * 0.5)
        ax.set_ylim(-2.0, top)
        ax.spines["left"].set_bounds(-2.0, _TOP)
        # the strip is not part of the plot: white over the grid lines, under everything else
        ax.add_patch(Rectangle((0, (_TOP + 2.0) / (top + 2.0)), 1, 1, transform=ax.transAxes, facecolor="white",
                               edgecolor="none", zorder=0.8, gid=GUIDE))
        for n, ((t, _, quiet), u, s) in enumerate(zip(self.groups, at, spots), 1):
            colour = QUIET_COLOUR if quiet else MARK_COLOUR
            b = _badge(ax, n, quiet, xy=(t, _TOP), xytext=(s - u, _LIFT + _BADGE_ROW / 2), textcoords="offset points",
                       arrowprops=dict(arrowstyle="-", color=colour, linewidth=0.9, shrinkA=0, shrinkB=0))
            b.set_in_layout(False)
        base = _LIFT + (_BADGE_ROW if at else 0.0)
        for x, text, style, dx, row in placed:
            a = ax.annotate(text, xy=(x, _TOP), xytext=(dx, base + _ROW * (row + 0.5)), textcoords="offset points",
                            ha="left", va="center", zorder=7, annotation_clip=False, **style)
            a.set_in_layout(False)


def _spread(at: Sequence[float], sizes: Sequence[float], width: float, gap: float = 2.0) -> list[float]:
    """Centres for circles wanted at `at` (points, in time order), moved apart just enough not to
    overlap, kept inside 0..width where they fit."""
    pos = list(at)
    for k in range(1, len(pos)):
        pos[k] = max(pos[k], pos[k - 1] + (sizes[k - 1] + sizes[k]) / 2 + gap)
    if pos and pos[-1] > width - sizes[-1] / 2:
        pos[-1] = max(width - sizes[-1] / 2, at[-1])
        for k in range(len(pos) - 2, -1, -1):
            pos[k] = min(pos[k], pos[k + 1] - (sizes[k] + sizes[k + 1]) / 2 - gap)
    return pos


def _pack(rows: list[list[tuple[float, float]]], u: float, w: float, side: str, width: float,
          gap: float = 6.0) -> tuple[float, int]:
    """The left edge and row of a box `w` points wide, next to `u` on its `side` if it can be, in the
    lowest row where it overlaps nothing; a new row if none has room."""
    want = [u + 3, u - 3 - w] if side == "right" else [u - 3 - w, u + 3]
    spots = []
    for s in want + [min(max(s, 0.0), width - w) for s in want]:
        if s not in spots:
            spots.append(s)
    for r, row in enumerate(rows + [[]]):
        for s in spots:
            if s >= -1 and s + w <= width + 1 and all(s + w + gap <= a or s >= b + gap for a, b in row):
                if r == len(rows):
                    rows.append([])
                rows[r].append((s, s + w))
                return s, r
    rows.append([(spots[0], spots[0] + w)])  # wider than the axes: its own row
    return spots[0], len(rows) - 1


# ---------------------------------------------------------------------------------------- the zooms

def bursts(times: np.ndarray, values: np.ndarray, marks: Sequence[Mark], x_lo: float, x_hi: float
           ) -> list[dict]:
    """Windows where the plotted values change step by step faster than the main axis can show.

    A change is a row whose `values` (n, k) differ from the previous row's. Changes less than
    _BURST_GAP of the x-range apart form one burst; a burst of at least two changes lasting less than
    BURST_SHARE of the x-range and moving some value by VISIBLE or more becomes a window `{"lo", "hi", "start", "stop", "changes", "mark",
    "after"}`: at most MAX_ZOOMS, the busiest, in time order. A mark shortly before the burst is its
    `mark`; the window starts at it only when the lull from the mark to the first change is no longer
    than the burst itself (else most of the panel would show nothing happening), and `after` is that
    lull.
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
    for g in [part for g in groups for part in _split(g)]:
        if len(g) < 2:
            continue
        start, stop = g[0], g[-1]
        inside = (times >= start) & (times <= stop)
        inside[max(int(np.argmax(inside)) - 1, 0)] = True  # and the row before: where the burst started from
        if np.ptp(vals[inside], axis=0).max() < VISIBLE:
            continue  # a few ASes of thousands: nothing a panel would show
        before = [m for m in mark_list if start - gap <= m[0] <= start]
        mark = before[-1] if before else None
        after = start - mark[0] if mark else 0.0
        if mark and after <= stop - start:
            start, after = mark[0], 0.0
        width = stop - start
        if width <= 1e-9 or width >= span * BURST_SHARE:
            continue
        found.append({"start": start, "stop": stop, "changes": len(g), "mark": mark, "after": after,
                      "lo": start - 0.06 * width, "hi": stop + 0.14 * width})
    found = sorted(found, key=lambda b: (-b["changes"], b["start"]))[:MAX_ZOOMS]
    return sorted(found, key=lambda b: b["start"])


def _split(g: list[float]) -> list[list[float]]:
    """A burst cut at its longest lull while that lull is over half of it and leaves two changes or
    more on each side: one panel of 0 to 29 s would squash the first 50 ms into a line."""
    if len(g) < 4:
        return [g]
    k = int(np.argmax(np.diff(g)))
    if g[k + 1] - g[k] > 0.5 * (g[-1] - g[0]) and k + 1 >= 2 and len(g) - k - 1 >= 2:
        return _split(g[:k + 1]) + _split(g[k + 1:])
    return [g]


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
        what = (f"the {dur} after “{label}”" if not b["after"] else
                f"{plural(b['changes'], 'change')} within {dur}, {duration(b['after'], '.2g')} after “{label}”")
        head = _fill(f"{letter}: {what}", ZOOM_TITLE_FONT, ZOOM_TITLE_WIDTH)  # three panels share a row
    else:
        head = f"{letter}: {plural(b['changes'], 'change')} within {dur}"
    return f"{head}\n" + _fill(f"t = {b['start']:.2f}–{b['stop']:.2f} s, a dot per change", ZOOM_TITLE_FONT,
                              ZOOM_TITLE_WIDTH)


def _fill(text: str, size: float, width: float) -> str:
    """`text` wrapped at spaces into lines at most `width` points wide (as measured in this font)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(lines[-1] + " " + word, size) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def _zoom_panel(ax, letter: str, b: Mapping, marks: Sequence[Mark], draw, ylabel: str | None) -> None:
    """One zoom panel: `draw(ax, lo, hi)` draws the series; the marks are plain dashed lines here."""
    lo, hi = b["lo"], b["hi"]
    draw(ax, lo, hi)
    for m in marks:
        if lo <= m.time <= hi:
            ax.axvline(m.time, color=MARK_COLOUR, linestyle=(0, (5, 3)), linewidth=1.1, zorder=4, gid=GUIDE)
    ax.set_xlim(lo, hi)
    percent_axis(ax)
    ax.yaxis.set_major_locator(MultipleLocator(50))
    ax.yaxis.set_minor_locator(MultipleLocator(25))
    # three labels at most: long times ("4800.04") in three panels side by side would run together
    ax.xaxis.set_major_locator(MaxNLocator(nbins=3, min_n_ticks=2))
    ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    ax.tick_params(labelsize=8.5)
    ax.set_xlabel("Simulated time (seconds)", fontsize=9)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=9)
    ax.set_title(_zoom_title(letter, b), fontsize=ZOOM_TITLE_FONT, loc="left")
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(True)
        ax.spines[side].set_color(ZOOM_COLOUR)


# ------------------------------------------------------------------------------------- the whole axis

def time_axes(ax, zooms_axes: Sequence, zooms: Sequence[Mapping], marks: Sequence[Mark], end: float | None,
              x_lo: float, x_hi: float, axes_width_in: float, draw_zoom: Callable | None, zoom_ylabel: str
              ) -> Strip:
    """What the timeline and traffic figures do alike once their series are drawn on `ax`: the x-range,
    the percentage axis (ticks to 100 %, the strip above), the mark lines and their key (with "routing
    settled" at `end`), the x label, and each zoom panel, drawn by `draw_zoom(ax, lo, hi)` (`zoom_ylabel`
    on the first). Returns the strip, with a tag for each zoom; the figure calls its `place` last."""
    ax.set_xlim(x_lo, x_hi)
    percent_axis(ax)
    ax.yaxis.set_major_locator(FixedLocator(np.arange(0, 101, 20)))  # none in the strip above 100 %
    ax.yaxis.set_minor_locator(FixedLocator(np.arange(10, 100, 20)))
    groups = mark_groups(marks, end, x_lo, x_hi)
    draw_mark_lines(ax, groups)
    ax.set_xlabel("Simulated time since the start of the scenario (seconds)")
    draw_key(ax, groups, axes_width_in)
    strip = Strip(ax, groups, x_lo, x_hi)
    tag = dict(fontsize=8.5, fontweight="bold", color=ZOOM_COLOUR,
               bbox=dict(boxstyle="round,pad=0.2", facecolor="#eef3fb", edgecolor=ZOOM_COLOUR, linewidth=0.7))
    for k, (za, b) in enumerate(zip(zooms_axes, zooms)):
        _zoom_panel(za, _ZOOM_LETTERS[k], b, marks, draw_zoom, zoom_ylabel if k == 0 else None)
        strip.add_note(b["start"], f"zoom {_ZOOM_LETTERS[k]} ↓", "right", tag)
    return strip


def idle_zooms(fig: Figure) -> list[str]:
    """The zoom panels (every axes below the first) of a time figure that do not show a burst: fewer than
    two changes (dots), dots spread over less than a third of the panel (a lull with the changes at one
    end, as a panel drawn from a mark long before them would be), or changes too small to see (no
    series moving by a percentage point). For tests and bench/."""
    out = []
    for ax in fig.axes[1:]:
        dots = [x for line in ax.lines if line.get_linestyle() == "None" for x in line.get_xdata()]
        steps = [line for line in ax.lines if line.get_linestyle() != "None" and line.get_gid() != GUIDE]
        lo, hi = ax.get_xlim()
        spread = max(dots) - min(dots) if dots else 0.0
        if len(dots) < 2 or spread < (hi - lo) / 3:
            out.append(f"zoom panel {_name(ax)} shows {plural(len(dots), 'change')} over {spread:.3g} s of its "
                       f"{hi - lo:.3g} s")
        elif max((_moves(line, lo, hi) for line in steps), default=0.0) < 100 * VISIBLE:
            out.append(f"zoom panel {_name(ax)}: its changes move no share by a percentage point")
    return out


def _moves(line, lo: float, hi: float) -> float:
    """How far a step line ('post') moves between lo and hi: the values it holds there, highest less lowest."""
    x, y = np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)
    held = (x <= hi) & (np.append(x[1:], np.inf) >= lo)
    return float(np.ptp(y[held])) if held.any() else 0.0


def _name(ax) -> str:
    return "“" + ax.get_title(loc="left").split(":")[0] + "”"


def no_data(ax) -> None:
    ax.text(0.5, 0.5, "no timeline recorded", transform=ax.transAxes, ha="center", va="center",
            fontsize=12, color="#777777")
