"""Where each AS's packets to one target address go, kept up to date as routes change.

Forwarding is by longest-prefix match over the prefixes that cover the target: the timed engine keeps
each AS's next hop (`watch_fib`) and says when one moves. Following next hops from an AS ends at the
attacker AS ("attacker": its traffic is hijacked, intercepted or leaked through it), at the victim AS
or another AS originating the prefix ("victim"), at an AS without a route ("disconnected"; also where
a BLACKHOLE route, RFC 7999, or a ROV++ blackhole discards it), or goes round a cycle ("loop").

Next hops form a graph where every AS points to at most one other, so an AS's outcome is the outcome of
its next hop. When AS i's next hop changes, only the ASes whose packets pass through i — its in-tree,
kept as per-AS sets of "who forwards to me" — can change outcome, and all of them take i's new outcome.
So an update walks forward from i to a terminal (a few hops) and, only if i's outcome changed, down
its in-tree. The counts of each outcome are kept as it goes; the timeline gets a row only when they
change. The move is compiled (core/dataplane.c) on this class's lists, the in-trees kept as sets: the
order in which a move's ASes change outcome (the journal's, and the running sum's) is the sets'.
"""

from __future__ import annotations

import numpy as np

from bgpsim import _core

ATTACKER, VICTIM, DISCONNECTED, LOOP = 0, 1, 2, 3
OUTCOMES = ("attacker", "victim", "disconnected", "loop")


class Forwarding:
    """`next_hops`: each AS's next hop toward the target (-1: none, packets dropped; i itself: it
    originates the prefix), as the engine's `watch_fib` gives them. `weights` (one per AS, any scale)
    weight the traffic of source ASes; the attacker and the victim are not sources."""

    def __init__(self, next_hops: list[int], attacker: int | None, victim: int | None, weights: np.ndarray,
                 snapshot_peak: bool = False):
        n = len(next_hops)
        self.attacker = -1 if attacker is None else attacker
        self.victim = -1 if victim is None else victim
        src = np.ones(n, dtype=bool)
        for t in (self.attacker, self.victim):
            if t >= 0:
                src[t] = False
        self.is_source = src.tolist()
        self.sources = int(src.sum())
        w = np.where(src, np.asarray(weights, dtype=float), 0.0)
        total = w.sum()
        self.weight = (w / total if total > 0 else w).tolist()
        self.nh = list(next_hops)
        self.children: list[set | None] = [None] * n
        for i, j in enumerate(self.nh):
            if j >= 0 and j != i and not self._terminal_as(i):
                self._child(j).add(i)
        self.outcome = [-1] * n
        for i in range(n):
            self._resolve_all(i)
        self.counts = [0, 0, 0, 0]
        self.diverted = 0.0
        for i in range(n):
            if self.is_source[i]:
                self.counts[self.outcome[i]] += 1
                if self.outcome[i] == ATTACKER:
                    self.diverted += self.weight[i]
        self.changed_at = [None] * n  # time of each AS's last change of outcome
        self.attacker_at = [None] * n  # first time each AS's traffic reached the attacker
        self.timeline: list[tuple] = []
        # The worst moment: most source ASes at the attacker (first time reached), most traffic diverted.
        self.peak = (self.counts[ATTACKER], 0.0)
        self.peak_diverted = self.diverted
        self.snapshot_peak = snapshot_peak  # keep every AS's outcome at the peak (small graphs: for drawing)
        self.peak_outcome = list(self.outcome) if snapshot_peak else None
        # bgpsim.sim.journal.Journal: told of every change of next hop; the changes of outcome go straight
        # into its `outcomes` list (core/dataplane.c)
        self.journal = None
        self._state = None  # the lists the compiled move works on, from the first move on

    def _child(self, j: int) -> set:
        c = self.children[j]
        if c is None:
            c = self.children[j] = set()
        return c

    def _terminal_as(self, i: int) -> bool:
        return i == self.attacker or i == self.victim

    def _terminal(self, i: int) -> int:
        """The outcome if packets stop at i, else -1."""
        if i == self.attacker:
            return ATTACKER
        if i == self.victim:
            return VICTIM
        j = self.nh[i]
        if j < 0:
            return DISCONNECTED
        if j == i:
            return VICTIM
        return -1

    def _resolve_all(self, i: int) -> None:
        """Initial pass: follow next hops from i, memoising along the way."""
        path = []
        on_path = set()
        j = i
        while self.outcome[j] < 0:
            t = self._terminal(j)
            if t >= 0:
                self.outcome[j] = t
                break
            if j in on_path:
                out = LOOP
                break
            path.append(j)
            on_path.add(j)
            j = self.nh[j]
        out = self.outcome[j] if self.outcome[j] >= 0 else LOOP
        for k in path:
            self.outcome[k] = out

    def update(self, i: int, nh: int, now: float) -> None:
        """AS i's next hop moved to nh: compiled (core/dataplane.c), on this object's lists. Only the
        ASes whose packets pass through i can change outcome; all of them take i's new one."""
        if self._state is None:
            self._state = (self.nh, self.outcome, self.changed_at, self.attacker_at, self.children, self.is_source,
                           self.weight, self.counts, None if self.journal is None else self.journal.outcomes)
        moved, self.diverted = _core.dataplane_move(self._state, i, nh, float(now), self.diverted, self.attacker,
                                                    self.victim)
        if moved >= 0 and self.journal is not None:
            self.journal.next_hop(now, i, nh)
        if moved > 0:
            self._record(now)

    def fractions(self) -> tuple[float, float, float, float]:
        s = self.sources or 1
        return tuple(c / s for c in self.counts)

    def _record(self, now: float) -> None:
        if self.counts[ATTACKER] > self.peak[0]:
            self.peak = (self.counts[ATTACKER], now)
            if self.snapshot_peak:
                self.peak_outcome = list(self.outcome)
        if self.diverted > self.peak_diverted:
            self.peak_diverted = self.diverted
        row = (now, *self.fractions(), max(0.0, self.diverted))
        rows = self.timeline
        if rows and rows[-1][0] == now:
            rows[-1] = row
            if len(rows) > 1 and rows[-2][1:] == row[1:]:
                rows.pop()
        elif not rows or rows[-1][1:] != row[1:]:
            rows.append(row)

    def start(self, now: float) -> None:
        """The first timeline row, before anything happens."""
        self.timeline.append((now, *self.fractions(), max(0.0, self.diverted)))

    def final_diverted(self) -> float:
        """Recomputed exactly from the final outcomes (the running sum accumulates rounding)."""
        return float(sum(w for w, o, s in zip(self.weight, self.outcome, self.is_source) if s and o == ATTACKER))
