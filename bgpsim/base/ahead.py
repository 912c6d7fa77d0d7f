"""An iterable's items made by a thread of their own, a few ahead of the caller.

For a producer whose work is mostly done without the GIL (decompression by zlib or bz2, the
compiled core's reading): the caller works on one item while the thread makes the next ones on
the other CPU. The items come in order; an exception raised making one is raised to the caller in
its place, after the items before it. A caller that stops early (break, an exception of its own)
stops the thread at its next item, and the iterable is closed in the thread that used it.
"""

from __future__ import annotations

import queue
import threading
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
