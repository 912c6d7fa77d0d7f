"""scapy's own messages while a capture is read, handed to the reader instead of standard error.

scapy reports damage it gets past (a cut packet record, a bad pcapng block length) with
`scapy.error.warning`, a record of the logger "scapy.runtime", which scapy's own handler prints as
"WARNING: PcapNg: ..." without the file's name; a few things it says with `warnings.warn`. While a
`CaptureReader` reads, such messages go to it instead (`catching`), and it turns them into warnings
naming the file and the packet.

The cost is per file, not per packet: a `logging.Filter` put in front of the filters of each
"scapy" logger (in front of scapy's rate limit on "scapy.runtime", so that nothing is dropped or
reworded before it is seen) and on the handlers of "scapy", and a `warnings.showwarning` wrapper,
all installed at the first capture and left in place; they pass everything on as before when no
capture is being read. The readers being read are kept per thread, innermost last: a message goes
to the one that started last (a reader's generator suspended between routes keeps its place, so
two captures read interleaved in one thread share the later one's). A forked process inherits all
of it, and its readers catch there as here.
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from contextlib import contextmanager
from typing import Callable, Iterator

_local = threading.local()  # .sinks: the callables of the captures being read in this thread, innermost last


def _sinks() -> list:
    sinks = getattr(_local, "sinks", None)
    if sinks is None:
        sinks = _local.sinks = []
    return sinks


class _Divert(logging.Filter):
    """On a scapy logger: a record made while a capture is read goes to the reader, not on.

    On a handler of "scapy" it sees every handler's call, and those handlers may be shared with other
    loggers (pytest >= 9.2 puts its capture handlers on every logger that does not propagate, as
    "scapy" does, and on the root): only records of scapy's loggers are taken, each once."""

    def __init__(self) -> None:
        super().__init__("scapy")

    def filter(self, record: logging.LogRecord) -> bool:
        sinks = getattr(_local, "sinks", None)
        if not sinks or not super().filter(record):  # not in a capture, or not scapy's: passed on
            return True
        if getattr(record, "_bgpsim_diverted", False):  # already taken at an earlier handler
            return False
        record._bgpsim_diverted = True
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string in scapy: its raw text
            text = str(record.msg)
        sinks[-1](text)
        return False


_DIVERT = _Divert()
_scapy_dir: str | None = None
_shown: Callable | None = None  # the showwarning our wrapper passes other warnings on to


def _showwarning(message, category, filename, lineno, file=None, line=None):
    sinks = getattr(_local, "sinks", None)
    if sinks and _scapy_dir and str(filename).startswith(_scapy_dir):
        sinks[-1](f"{category.__name__}: {message}")
    elif _shown is not None:
        _shown(message, category, filename, lineno, file, line)


def _install() -> None:
    """Puts the filter in front on every scapy logger there is and on the handlers of "scapy" (for
    records of loggers made later, which propagate there), and the showwarning wrapper in place
    (again, when a test harness or the like has put its own there since). Then imports what the
    reader uses of scapy, so that what scapy says while loading is caught too."""
    global _scapy_dir, _shown
    import scapy.error  # makes scapy's loggers and its handler

    if _scapy_dir is None:
        _scapy_dir = os.path.dirname(os.path.abspath(scapy.__file__)) + os.sep
    for name in ["scapy", *(n for n in list(logging.Logger.manager.loggerDict) if n.startswith("scapy."))]:
        logger = logging.getLogger(name)
        if logger.filters[:1] != [_DIVERT]:
            if _DIVERT in logger.filters:
                logger.removeFilter(_DIVERT)
            logger.filters.insert(0, _DIVERT)
    for handler in logging.getLogger("scapy").handlers:
        if _DIVERT not in handler.filters:
            handler.addFilter(_DIVERT)
    if warnings.showwarning is not _showwarning:
        _shown = warnings.showwarning
        warnings.showwarning = _showwarning
    import scapy.layers.inet  # noqa: F401
    import scapy.layers.inet6  # noqa: F401
    import scapy.utils  # noqa: F401


@contextmanager
def catching(sink: Callable[[str], None]) -> Iterator[None]:
    """scapy's log records and warnings, as text, go to `sink` inside the block (in this thread)."""
    sinks = _sinks()
    sinks.append(sink)
    try:
        _install()
        yield
    finally:
        # normally the last; a reader closed out of order (its generator dropped early) is taken out wherever it is
        for i in range(len(sinks) - 1, -1, -1):
            if sinks[i] is sink:
                del sinks[i]
                break
