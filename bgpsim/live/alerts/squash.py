"""Alerts gathered over a window, as BGPalerter squashes them: what one alert stands for (its key) is
raised once enough collector peers have seen it (`min_peers`); its repeats within `window` seconds of
the feed's time (from the first) add to it (count, last seen, the peers), and one after the window
opens a new alert. The newest MAX_OPEN are kept: a long-running monitor's memory stays bounded."""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass, field

MAX_OPEN = 100_000
MAX_PEERS = 64  # peers named on one alert


@dataclass(slots=True)
class Open:
    """An alert being gathered: raised once `peers` are enough."""

    kind: str
    first_seen: float
    last_seen: float
    count: int = 1
    peers: set = field(default_factory=set)
    raised: bool = False


class Squasher:
    def __init__(self, min_peers: int = 1, window: float = 3600.0):
        self.min_peers = min_peers
        self.window = window
        self.open: OrderedDict[tuple, Open] = OrderedDict()
        self.raised: Counter = Counter()  # alerts raised, by kind
        self.routes = 0  # sightings gathered on raised alerts

    def see(self, key: tuple, kind: str, peer: str, when: float, at_once: bool = False) -> Open | None:
        """One sighting of `key` by `peer`; the record when its alert is to be raised now. `at_once`:
        raised whatever the peers (a finding that already counts peers, as visibility does)."""
        rec = self.open.get(key)
        if rec is None or when - rec.first_seen > self.window:
            rec = self.open[key] = Open(kind, when, when)
            self.open.move_to_end(key)
            if len(self.open) > MAX_OPEN:
                self.open.popitem(last=False)
        else:
            rec.last_seen = max(rec.last_seen, when)
            rec.count += 1
        if len(rec.peers) < MAX_PEERS:
            rec.peers.add(peer)
        if rec.raised:
            self.routes += 1
        elif at_once or len(rec.peers) >= self.min_peers:
            rec.raised = True
            self.raised[kind] += 1
            self.routes += rec.count
            return rec
        return None
