"""The threads of `bgpsim validate`'s pass: the dumps read on one, a few batches ahead; each batch
prepared (paths, groups, findings: Python) on the thread that feeds the Checker; and checked on two
more, counted and written in order (`Checks`: the RFC 6811 walks and the rows of routes.csv, the
compiled core's without the GIL). Decompressing (zlib, bz2) and the core's reading let go of the GIL too, so the threads share
the CPUs. The outputs are what one thread doing all of it in turn writes."""

from __future__ import annotations

import queue
import threading
from typing import Callable, Iterable

from bgpsim.base import ahead as _ahead
from bgpsim.base.errors import InputError
from . import check
from .check import Checker
from .findings import Found


def check_files(checker: Checker, paths: Iterable[str], progress: Callable[[int], None] | None = None) -> Found:
    """Feed every route of every file: MRT in batches, `bgpdump -m` text and pcap/pcapng route by
    route (told by content), read on a thread of their own (bgpsim.base.ahead), checked on another
    (`Checks`); then the Checker's findings (`finish`). `progress(routes so far)` after each batch."""
    done = 0
    checker.checks = checks = Checks(checker)
    try:
        for kind, item in _ahead.ahead(_read(paths), name="bgpsim-read"):
            if kind is _BATCH:
                checker.feed_batch(item)
                done += len(item)
            elif kind is _ROUTES:
                for r in item:
                    checker.feed(r)
                done += len(item)
            else:
                checker.tally.state_changes += item
                continue
            if progress:
                progress(done)
        return checker.finish()
    except InputError:
        checker.vrps_or_their_fault()  # a fault in the VRPs is told first, however soon the dumps' came
        raise
    finally:
        checks.close()
        checker.checks = None


class Checks:
    """Prepared batches of a Checker checked on threads of their own (THREADS), the VRPs waited for
    there: two batches are worked out at once (`Checker.checked`: the core's, mostly without the
    GIL), and counted and written in the order given (`Checker.commit`, batch by batch). A fault met
    there is raised by the next `put` or `settle`; after it, or after `close`, the batches still
    queued are let go unchecked."""

    THREADS = 2
    DEPTH = 8  # batches prepared and not yet checked: what waits for the VRPs, and memory's bound

    def __init__(self, checker: Checker):
        self.checker = checker
        self.queue: queue.Queue = queue.Queue(self.DEPTH)
        self.error: BaseException | None = None
        self.stopped = False
        self._given = 0  # batches put
        self._turn = 0  # the next batch to commit
        self._order = threading.Condition()
        self.threads = [threading.Thread(target=self._run, name=f"bgpsim-checks-{k}", daemon=True)
                        for k in range(self.THREADS)]
        for t in self.threads:
            t.start()

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            seq, batch = item
            result = self._guarded(self._checked, batch)
            with self._order:  # its turn, even after a fault: the others wait for it
                while self._turn != seq:
                    self._order.wait()
            if result is not None:
                self._guarded(self.checker.commit, batch, *result)
            with self._order:
                self._turn += 1
                self._order.notify_all()
            self.queue.task_done()
        self.queue.task_done()

    def _checked(self, batch):
        self.checker.vrps_or_their_fault()
        return self.checker.checked(batch)

    def _guarded(self, work, *args):
        """work(*args), unless a fault was met or the checks were closed (then None); a fault is kept
        for the feeding thread to raise."""
        if self.error is not None or self.stopped:
            return None
        try:
            return work(*args)
        except BaseException as e:  # noqa: BLE001 - raised in the feeding thread
            self.error = self.error or e
            return None

    def put(self, batch) -> None:
        self._raise()
        self.queue.put((self._given, batch))
        self._given += 1

    def settle(self) -> None:
        """Returns once every batch given is checked (raising a fault met)."""
        self.queue.join()
        self._raise()

    def close(self) -> None:
        self.stopped = True
        for _ in self.threads:
            self.queue.put(None)
        for t in self.threads:
            t.join()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error


_BATCH, _ROUTES, _STATES = "batch", "routes", "states"


def _read(paths: Iterable[str]):
    """(_BATCH, a RouteBatch of an MRT file), (_ROUTES, up to BATCH Routes of another file), and
    (_STATES, the state changes an MRT file held) after each MRT file."""
    from ..routedata import sniffed
    from bgpsim.mrt.reader import MRTReader, read_routes

    for p in paths:
        reader, chunks = sniffed(p)
        if reader is read_routes:
            mrt = MRTReader(p, chunks=chunks)
            for b in mrt.batches(check.BATCH):
                yield _BATCH, b
            yield _STATES, mrt.state_changes
        else:
            chunks.close()
            routes = []
            for r in reader(p):
                routes.append(r)
                if len(routes) == check.BATCH:
                    yield _ROUTES, routes
                    routes = []
            if routes:
                yield _ROUTES, routes
