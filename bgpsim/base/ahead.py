"""Work on threads: an iterable's items made by a thread of their own, a few ahead of the caller
(`ahead`); a lock many may hold at once, or one alone (`SharedLock`).

For a producer whose work is mostly done without the GIL (decompression by zlib or bz2, the
compiled core's reading): the caller works on one item while the thread makes the next ones on
the other CPU. The items come in order; an exception raised making one is raised to the caller in
its place, after the items before it. A caller that stops early (break, an exception of its own)
stops the thread at its next item, and the iterable is closed in the thread that used it.
"""

from __future__ import annotations

import queue
import threading
from contextlib import contextmanager
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")
_END = object()


def ahead(items: Iterable[T], depth: int = 2, name: str = "bgpsim-ahead") -> Iterator[T]:
    """The items of `items`, at most `depth` made and not yet taken."""
    made: queue.Queue = queue.Queue(depth)
    stop = threading.Event()

    def put(entry) -> bool:
        """Queued, unless the caller stopped taking (then False)."""
        while not stop.is_set():
            try:
                made.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        it = iter(items)
        try:
            for item in it:
                if not put((item, None)):
                    return
            put((_END, None))
        except BaseException as e:  # noqa: BLE001 - the caller's to raise, in its place
            put((_END, e))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name=name, daemon=True)
    thread.start()
    try:
        while True:
            item, error = made.get()
            if item is _END:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
        thread.join()


class SharedLock:
    """Held by many at once (`shared()`: readers) or by one alone (`alone()`: a writer), for what C code
    reads without the GIL while another thread may change it. A writer waiting goes before readers
    not yet in, so that a stream of readers cannot keep it out."""

    def __init__(self):
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextmanager
    def shared(self):
        with self._cond:
            while self._writing or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def alone(self):
        with self._cond:
            self._writers_waiting += 1
            while self._writing or self._readers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
