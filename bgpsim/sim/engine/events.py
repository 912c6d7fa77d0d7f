"""The event core: a priority queue of (time, sequence, event), compiled (core/events.c).

The sequence number breaks ties between events at the same time in the order they were scheduled,
which makes every run with the same seed replay identically. `at(time, action, *args)` schedules a
Python call; the timed engine's speakers schedule their UPDATEs and MRAI expiries on the same queue
without Python. The protocol lives outside this module.
"""

from __future__ import annotations

from bgpsim._core import EventQueue

__all__ = ["EventQueue"]
