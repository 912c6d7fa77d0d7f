"""The dumps of `bgpsim validate` read on a thread of their own, a few batches ahead of the checks:
decompressing (zlib, bz2) and the compiled core's reading let go of the GIL, so they take the other
CPU while this thread checks (bgpsim.validate.check)."""

from __future__ import annotations

from typing import Callable, Iterable

from bgpsim.base import ahead as _ahead
from bgpsim.base.errors import InputError
from . import check
from .check import Checker


def check_files(checker: Checker, paths: Iterable[str], progress: Callable[[int], None] | None = None) -> None:
    """Feed every route of every file: MRT in batches, `bgpdump -m` text and pcap/pcapng route by
    route (told by content). The files are read on a thread of their own (bgpsim.base.ahead), a few
    batches ahead of the checks: decompressing and the core's reading let go of the GIL, so they
    take the other CPU. `progress(routes so far)` after each batch."""
    done = 0
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
    except InputError:
        checker.vrps_or_their_fault()  # a fault in the VRPs is told first, however soon the dumps' came
        raise


_BATCH, _ROUTES, _STATES = "batch", "routes", "states"


def _read(paths: Iterable[str]):
    """(_BATCH, a RouteBatch of an MRT file), (_ROUTES, up to BATCH Routes of another file), and
    (_STATES, the state changes an MRT file held) after each MRT file."""
    from ..routedata import reader_for
    from bgpsim.mrt.reader import MRTReader, read_routes

    for p in paths:
        reader = reader_for(p)
        if reader is read_routes:
            mrt = MRTReader(p)
            for b in mrt.batches(check.BATCH):
                yield _BATCH, b
            yield _STATES, mrt.state_changes
        else:
            routes = []
            for r in reader(p):
                routes.append(r)
                if len(routes) == check.BATCH:
                    yield _ROUTES, routes
                    routes = []
            if routes:
                yield _ROUTES, routes
