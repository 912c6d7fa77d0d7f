"""An MRT file's stream decompressed once for the two processes of bgpsim.validate.split.

Both processes read every MRT file (what a record means may hang on earlier ones), but only the
first decompresses it: `Tee` hands it the chunks (bgpsim.mrt.stream.Chunks) and sends each down a
pipe, and `Piped` reads them in the second. Decompressing a RouteViews RIB (bzip2) takes five times
as long as the core takes to read it (0.25 s against 0.05 s on the RIB of bench/bench_validate.py),
so each process decompressing it spent more than a core reading it twice (docs/validate.md).

Neither process waits for the other to be done with a unit: in the first, one thread decompresses
ahead of both readers and another writes the pipe, each by at most AHEAD chunks (so a few tens of
megabytes at most wait in memory, while the second process loads the VRPs or either checks a unit).
On the pipe each file is first a head frame, its first bytes, which tell both processes its
format (bgpsim.routedata.reader_of: the second never decompresses the file, not even its start to
tell its format); an MRT file's then its chunks, then one end frame (with the text of a truncated
stream). An error frame (the InputError the first met, which the second then meets at the same
place) may come in place of any of them. The first file is decompressed from the fork on, while
the first process imports the checks.
The second reads to the end frame of a file even when it stops reading it early, so the next file
starts in step; a closed pipe ends every file (the first process has gone, or given up after a
fault, which it reports itself).
"""

from __future__ import annotations

import itertools
import os
import pickle
import queue
import struct
import threading

from bgpsim.base.errors import InputError
from bgpsim.mrt.stream import Chunks
from bgpsim.routedata import HEAD, reader_of

_FRAME = struct.Struct("<BQ")  # kind, length of what follows
_DATA, _END, _ERROR, _HEAD = range(4)
AHEAD = 32  # chunks (of at most bgpsim.mrt.stream.CHUNK bytes) decompressed ahead of a reader


class Sender:
    """The first process's end of the pipe: frames queued here (at most AHEAD), written by a thread."""

    def __init__(self, fd: int):
        self.fd = fd
        self._queue: queue.Queue = queue.Queue(AHEAD)
        self._thread = threading.Thread(target=self._write, name="bgpsim-validate-pipe", daemon=True)
        self._thread.start()

    def send(self, kind: int, payload: bytes) -> None:
        self._queue.put((kind, payload))

    def _write(self) -> None:
        try:
            while True:
                item = self._queue.get()
                if item is None:
                    return
                kind, payload = item
                _write_all(self.fd, _FRAME.pack(kind, len(payload)))
                _write_all(self.fd, payload)
        except OSError:  # the second process has gone (a fault of its own, which it reports)
            while self._queue.get() is not None:  # whoever still sends must not wait
                pass
        finally:
            os.close(self.fd)

    def close(self) -> None:
        """No more frames: the pipe closes once the queued ones are written."""
        self._queue.put(None)


class Tee:
    """The chunks of the file at `path` for this process (a Chunks in the MRTReader's hands: iterable
    once, `truncated`, `close()`), decompressed by a thread that also sends each to the other process.
    The thread runs ahead of both readers, by at most AHEAD chunks: the other process must never wait
    for this one to be done with a unit. It starts at once; `reader()` tells the file's format."""

    def __init__(self, path: str, sender: Sender):
        self.path, self.sender, self.truncated, self.chunks = path, sender, None, None
        self._mine: queue.Queue = queue.Queue(AHEAD)
        self._stop, self._ended = threading.Event(), False
        self._thread = threading.Thread(target=self._read, name="bgpsim-validate-read", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        from bgpsim.mrt.reader import read_routes

        send, mine = self.sender.send, self._mine.put
        try:
            self.chunks = Chunks(self.path, threads=False)  # the second CPU has the other process
            chunks = iter(self.chunks)
            first = next(chunks, b"")
            reader = reader_of(first[:HEAD])
            send(_HEAD, first[:HEAD])
            mine((_HEAD, reader))
            if reader is not read_routes:  # not MRT: each process reads it itself
                mine((_END, None))
                return
            for data in itertools.chain((first,) if first else (), chunks):
                if self._stop.is_set():
                    break
                send(_DATA, data)
                mine((_DATA, data))
            else:
                self.truncated = self.chunks.truncated
            send(_END, (self.truncated or "").encode())
            mine((_END, None))
        except InputError as e:
            send(_ERROR, _error(e))
            mine((_ERROR, e))

    def reader(self):
        """The file's route reader (bgpsim.routedata.reader_of its first bytes); its fault, if the
        start of it cannot be read."""
        kind, value = self._mine.get()
        if kind == _ERROR:
            self._ended = True
            raise value
        return value

    def __iter__(self):
        while True:
            kind, value = self._mine.get()
            if kind != _DATA:
                self._ended = True
                if kind == _ERROR:
                    raise value
                return
            yield value

    def close(self) -> None:
        """Ends the file for the other process too, where this one stopped reading it."""
        self._stop.set()
        while not self._ended:  # the thread may wait for room to put a chunk; it ends with END or ERROR
            self._ended = self._mine.get()[0] not in (_DATA, _HEAD)
        self._thread.join()
        if self.chunks is not None:
            self.chunks.close()


def _error(e: InputError) -> bytes:
    return pickle.dumps((e.message, e.source, e.where))


class Piped:
    """The chunks of one file as the other process's Tee sent them, read from the pipe `fd`."""

    def __init__(self, fd: int):
        self.fd, self.truncated, self._ended = fd, None, False

    def reader(self):
        """The file's route reader, told by the head frame (its fault, if the first met one)."""
        from bgpsim.mrt.reader import read_routes

        kind, payload = self._frame()
        reader = reader_of(payload)
        if kind == _HEAD and reader is not read_routes:  # not MRT: nothing more of it comes
            self._ended = True
        return reader

    def __iter__(self):
        while not self._ended:
            kind, payload = self._frame()
            if kind == _DATA:
                yield payload

    def _frame(self) -> tuple[int, bytes]:
        head = _read_all(self.fd, _FRAME.size)
        if head is None:  # the first process has gone, or given up after a fault it reports
            self._ended = True
            return _END, b""
        kind, n = _FRAME.unpack(head)
        payload = _read_all(self.fd, n) if n else b""
        if payload is None or kind not in (_DATA, _END, _ERROR, _HEAD):
            self._ended = True
            return _END, b""
        if kind == _END:
            self._ended = True
            self.truncated = payload.decode() or None
        elif kind == _ERROR:
            self._ended = True
            raise InputError(*pickle.loads(payload))
        return kind, payload

    def close(self) -> None:
        """Reads what is left of this file, so that the next one starts in step (a fault past where
        this process stopped reading is not its to meet)."""
        try:
            while not self._ended:
                self._frame()
        except InputError:
            pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int, n: int) -> bytes | None:
    """n bytes from fd; None if the pipe ends first."""
    parts, need = [], n
    while need:
        part = os.read(fd, min(need, 1 << 20))
        if not part:
            return None
        parts.append(part)
        need -= len(part)
    return b"".join(parts)
