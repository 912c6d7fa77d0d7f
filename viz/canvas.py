"""The matplotlib side every figure shares: the backend, saving, the percentage axis.

Every figure is drawn on its own `Figure` (no pyplot state, nothing left open) with the Agg backend and
saved without the "Software" metadata entry, which names the matplotlib version: so the same input gives
the same bytes (the README promises it for a seed). Files are written to a temporary name next to the
target and renamed, so a reader never sees half a PNG.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MultipleLocator, PercentFormatter  # noqa: E402

from bgpsim.base.outdir import write_atomic  # noqa: E402

DPI = 110


def save(fig: Figure, path: str | os.PathLike) -> Path:
    """Save as PNG, byte-for-byte reproducible (no Software stamp), atomically."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return write_atomic(path, buf.getvalue())


def percent_axis(ax) -> None:
    """A y-axis from 0 to 100 %, with a light grid, and no box on the top and right."""
    ax.set_ylim(-2, 102)
    ax.yaxis.set_major_locator(MultipleLocator(20))
    ax.yaxis.set_minor_locator(MultipleLocator(10))
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.grid(True, which="major", color="#dddddd", linewidth=0.8)
    ax.grid(True, which="minor", axis="y", color="#eeeeee", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
