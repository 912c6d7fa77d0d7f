"""Where each AS of a small graph goes in a picture: tiers top to bottom by customer-to-provider rank,
so every provider sits above its customers; each row ordered by barycentre sweeps to cut link
crossings, and rows wider than ROW_CAP staggered so that the labels fit. Deterministic: ties are
broken by ASN. Used by the topology figure (bgpsim.viz.topology) and by the report's step view
(bgpsim.viz.steps), which draws in the browser and so needs no matplotlib: none is imported here.
"""

from __future__ import annotations

from itertools import combinations
from typing import Mapping

import numpy as np


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
SUB_ROW = 0.5  # vertical distance between sub-rows, in row units


def sub_rows(n: int) -> int:
    """How many sub-rows a row of `n` ASes is drawn as: at most ROW_CAP ASes each."""
    return -(-n // ROW_CAP)


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
        k = sub_rows(n)
        row_y.append(y)
        for j, i in enumerate(row):
            pos[i] = ((j + 0.5) / n, y - SUB_ROW * (j % k))
        y -= 1.0 + SUB_ROW * (k - 1)
    return pos, rows, row_y
