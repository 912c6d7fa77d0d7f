"""Bytes of a possibly compressed file, in bounded chunks.

gzip (RFC 1952, magic 1f 8b; several members allowed) and bzip2 (magic "BZh"; several streams
allowed) are recognised by their first bytes, whatever the file is called. Output arrives in chunks
of at most CHUNK bytes however well the input compresses, so memory stays bounded. With more than
one CPU, bzip2 is decompressed by several threads (bgpsim.mrt.bzip2), to the same bytes.
"""

from __future__ import annotations

import bz2
import zlib

from bgpsim.base.datafiles import check_input
from bgpsim.base.errors import InputError
from .bzip2 import THREADS, parallel_chunks

CHUNK = 1 << 20
RAW = 1 << 16


class Chunks:
    """Iterate over the decompressed bytes of `path`, once. After the end, `truncated` holds a message
    when the compressed stream stopped before its end marker. `threads`: whether bzip2 may be
    decompressed by several threads (bgpsim.mrt.bzip2; False: by the bz2 module alone, as a check).
    `head(n)` looks at the start first; the iteration still gives every byte."""

    def __init__(self, path: str, threads: bool = True):
        self.path = path
        self.threads = threads and THREADS > 1
        check_input(path)
        try:
            self.f = open(path, "rb")
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror or e}", str(path)) from None
        head = self.f.read(3)
        self.f.seek(0)
        self.kind = "gzip" if head[:2] == b"\x1f\x8b" else "bzip2" if head == b"BZh" else "raw"
        self.truncated: str | None = None
        self._source = self._chunks()
        self._held: list[bytes] = []  # what head() took from the source, to be given again

    def head(self, n: int) -> bytes:
        """The first `n` decompressed bytes (all, if fewer), decompressed once: the iteration gives
        them again (a file's format is told from its start and the file then read, and a bzip2
        block decompressed twice is 15 ms)."""
        got = sum(map(len, self._held))
        while got < n:
            piece = next(self._source, None)
            if piece is None:
                break
            self._held.append(piece)
            got += len(piece)
        return b"".join(self._held)[:n]

    def close(self) -> None:
        self._source.close()  # bzip2's threads let go (bgpsim.mrt.bzip2)
        self.f.close()

    def __iter__(self):
        held, self._held = self._held, []
        yield from held
        yield from self._source

    def _chunks(self):
        try:
            if self.kind == "raw":
                while True:
                    data = self.f.read(CHUNK)
                    if not data:
                        return
                    yield data
            elif self.kind == "bzip2" and self.threads:
                yield from parallel_chunks(self.f, CHUNK, self._skipping, self._ends)
            else:
                yield from self._inflate()
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror or e}", str(self.path)) from None

    def _skipping(self, skip: int):
        """The sequential decoding, but for its first `skip` bytes."""
        for out in self._inflate():
            if skip >= len(out):
                skip -= len(out)
                continue
            yield out[skip:]
            skip = 0

    def _ends(self, consumed: int) -> None:
        self.truncated = f"the {self.kind} stream ends without its end marker after {consumed} compressed bytes"

    def _new(self):
        return zlib.decompressobj(31) if self.kind == "gzip" else bz2.BZ2Decompressor()

    def _inflate(self):
        d = self._new()
        gz = self.kind == "gzip"
        pending = b""
        consumed = 0
        while True:
            if not pending:
                pending = self.f.read(RAW)
                if not pending:
                    break
            try:
                if gz:
                    out = d.decompress(pending, CHUNK)
                    used = len(pending) - len(d.unconsumed_tail) - len(d.unused_data)
                    pending = d.unconsumed_tail or d.unused_data
                else:
                    out = d.decompress(pending, CHUNK)
                    used = len(pending) - (len(d.unused_data) if d.eof else 0)
                    pending = d.unused_data if d.eof else b""
                    while not d.eof and not d.needs_input:
                        if out:
                            yield out
                        out = d.decompress(b"", CHUNK)
            except (zlib.error, OSError, EOFError, ValueError) as e:
                raise InputError(f"{self.kind} data damaged near compressed byte {consumed}: {e}", str(self.path)) from None
            consumed += used
            if out:
                yield out
            if d.eof:
                rest = pending or self.f.read(RAW)
                if not rest.strip(b"\0"):
                    return  # padding after the last member
                pending = rest
                d = self._new()
        if not d.eof:
            self._ends(consumed)
