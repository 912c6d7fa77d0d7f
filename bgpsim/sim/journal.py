"""What a timed run records for a report a reader steps through (bgpsim.viz.steps).

Every change of where an AS's packets to the target go (its outcome), on any graph; and, on graphs
small enough to draw, every change of its next hop, of its Loc-RIB and of its Adj-RIBs-In, with the
state at the start; on larger graphs, the Loc-RIBs of the ASes whose sessions are tapped alone (what
`bgpsim lab` compares). Times are simulated seconds; ASes and prefixes are indices.
"""

from __future__ import annotations


class Journal:
    def __init__(self, detailed: bool, tapped=()):
        self.detailed = detailed
        self.tapped = frozenset(tapped)  # on a graph too large for every RIB: these ASes' Loc-RIBs (the lab's)
        self.start: dict = {}  # the state before the first event: outcome, next_hop (, loc, rib_in)
        self.outcomes: list[tuple[float, int, int]] = []  # (t, AS, outcome code of bgpsim.sim.dataplane)
        self.next_hops: list[tuple[float, int, int]] = []  # (t, AS, next hop: -1 none, itself: origin)
        self.locs: list[tuple] = []  # (t, AS, prefix, path or None, relationship class)
        self.ribs_in: list[tuple] = []  # (t, AS, neighbour, prefix, path or None)

    def begin(self, engine, fwd) -> None:
        """The state at the start (after a warm start's routes): outcomes, next hops, RIBs."""
        self.start = {"outcome": list(fwd.outcome), "next_hop": list(fwd.nh)}
        self.weight = fwd.weight  # each source AS's share of the traffic (the run's weighting)
        if self.detailed:
            self.start["loc"] = [(i, p, e[2], e[1]) for p, loc in enumerate(engine.loc)
                                 for i, e in enumerate(loc) if e is not None]
            self.start["rib_in"] = [(r, s, p, e[2]) for p, ribs in enumerate(engine.rib_in)
                                    for r, rib in enumerate(ribs) if rib for s, e in sorted(rib.items())]
            engine.journal = self
        elif self.tapped:
            self.start["loc"] = [(i, p, loc[i][2], loc[i][1]) for p, loc in enumerate(engine.loc) for i in sorted(self.tapped)
                                 if loc[i] is not None]
            engine.journal = self
        fwd.journal = self

    def outcome(self, t: float, i: int, out: int) -> None:
        self.outcomes.append((t, i, out))

    def next_hop(self, t: float, i: int, nh: int) -> None:
        if self.detailed:
            self.next_hops.append((t, i, nh))

    def loc_rib(self, t: float, i: int, p: int, entry) -> None:
        if not self.detailed and i not in self.tapped:
            return
        self.locs.append((t, i, p, None if entry is None else entry[2], None if entry is None else entry[1]))

    def rib_in(self, t: float, r: int, s: int, p: int, entry) -> None:
        self.ribs_in.append((t, r, s, p, None if entry is None else entry[2]))

