"""The event core: a priority queue of (time, sequence, action, arguments).

The sequence number breaks ties between events at the same time in the order they were scheduled,
which makes every run with the same seed replay identically. The protocol lives outside this module.
"""

from __future__ import annotations

import heapq
import math
from typing import Callable


class EventQueue:
    def __init__(self) -> None:
        self._heap: list = []
        self._seq = 0
        self.now = 0.0
        self.processed = 0

    def at(self, time: float, action: Callable, *args) -> None:
        """Run `action(*args)` at simulated `time` (never before now)."""
        if time < self.now:
            time = self.now
        self._seq += 1
        heapq.heappush(self._heap, (time, self._seq, action, args))

    def __len__(self) -> int:
        return len(self._heap)

    def run(self, until: float = math.inf, tick: Callable[[int, float], None] | None = None,
            tick_every: int = 20_000) -> None:
        """Process events in time order until the queue empties or the next event is after `until`.
        `tick(processed, now)` is called every `tick_every` events (for progress bars)."""
        heap, pop = self._heap, heapq.heappop
        countdown = tick_every
        while heap and heap[0][0] <= until:
            time, _, action, args = pop(heap)
            self.now = time
            action(*args)
            self.processed += 1
            if tick is not None:
                countdown -= 1
                if countdown == 0:
                    countdown = tick_every
                    tick(self.processed, time)
