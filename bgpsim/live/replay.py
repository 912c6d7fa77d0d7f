"""Archived route data as a feed: `bgpsim monitor --replay FILE...` and `bgpsim stream publish`.

Every UPDATE of the files (MRT, `bgpdump -m` text, captures: what `bgpsim validate` reads) becomes the
RIS Live message a collector would have sent, and the monitor reads it as it reads one from RIS Live
or MQTT: the same checks, the same alerts, in the dump's own time. So yesterday's incident can be
checked with today's watch list. Paced by the dump's timestamps (`pace` times as fast), or flat out.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time

from orjson import dumps as _dumps

from .monitor import FLUSH_EVERY
from .rislive import update_messages


def messages_of(files):
    """The RIS Live messages of the files; ids unique to this run (a persistent monitor remembers ids)."""
    from bgpsim.routedata import file_of, reader_for

    run = os.urandom(4).hex()
    for k, f in enumerate(files):
        src = file_of(f)
        yield from update_messages(reader_for(src)(src), host=str(f).rsplit("/", 1)[-1], ids=f"{run}.{k}")


class Replay:
    """The files' UPDATEs fed to a Monitor (bgpsim.live.monitor); `pace` None: flat out."""

    def __init__(self, files, pace: float | None = None):
        self.files = list(files)
        self.pace = pace
        self._messages = None

    def prepare(self) -> None:
        """Before any connection or output: the first message read, so a file that is not route data is
        its own error (and an empty one a warning, from its reader)."""
        self._messages = messages_of(self.files)
        self._first = list(itertools.islice(self._messages, 1))

    def __str__(self) -> str:
        return "replay of " + ", ".join(str(f) for f in self.files)

    async def run(self, monitor, until_idle: float | None = None, on_flush=None, stop: asyncio.Event | None = None,
                  on_connected=None) -> None:
        """Feed every message (until `stop` is set); `until_idle` is not used: the replay ends with the
        files. `on_connected` is called before the first message is fed (prepare has read it)."""
        if self._messages is None:
            self.prepare()
        messages, first = self._messages, self._first
        if on_connected is not None:
            on_connected()
        start = time.perf_counter()
        first_ts = None
        flushed = time.monotonic()
        for n, data in enumerate(itertools.chain(first, messages), 1):
            if self.pace is not None:
                first_ts = data["timestamp"] if first_ts is None else first_ts
                wait = (data["timestamp"] - first_ts) / self.pace - (time.perf_counter() - start)
                if wait > 0:
                    await asyncio.sleep(wait)
            monitor.feed_message(_dumps(data), f"{self.files[0] if len(self.files) == 1 else 'replay'} update {n}")
            now = time.monotonic()
            if now - flushed >= FLUSH_EVERY:
                flushed = now
                monitor.flush()
                if on_flush is not None:
                    on_flush()
                await asyncio.sleep(0)  # a stop signal's turn
                if stop is not None and stop.is_set():
                    break
        monitor.flush()
        if on_flush is not None:
            on_flush()
