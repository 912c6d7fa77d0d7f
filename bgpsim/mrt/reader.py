"""A streaming MRT reader (RFC 6396): one `Route` per prefix per peer, one buffer of records at a time.

Two ways to read: `read_routes` gives `Route` objects; `read_batches` gives numpy columns of many
routes at once (`RouteBatch`: what a validator of millions of routes wants), with the Route records
behind them. Both give the same routes in file order, with the same warnings.

`MRTReader` puts the parts together, each in its own module:
- bgpsim.mrt.framing: the stream cut into whole records (section 2), bounded, with the faults of
  the framing (truncation, impossible lengths);
- bgpsim.mrt.decoder: each record decoded by its type (bgpsim.mrt.tables: TABLE_DUMP and
  TABLE_DUMP_V2, sections 4.2 and 4.3; bgpsim.mrt.bgp4mp: BGP4MP and BGP4MP_ET, sections 4.4 and 3;
  bgpsim.mrt.legacy: the historic BGP type, appendix B), damage inside a record a warning;
- bgpsim.mrt.batch: the columns, BGP4MP UPDATEs read by arrays (bgpsim.mrt.fast).

Errors. Every fault names the file and a byte offset in the decompressed MRT stream. A file whose
first record is not MRT, or a RIB record without a PEER_INDEX_TABLE, is an `InputError`; everything
else is a warning, and reading goes on as far as bgpdump goes.
"""

from __future__ import annotations

import gc
from typing import Callable, Iterator

from bgpsim.base.errors import stderr_warning
from .batch import Pieces, RouteBatch
from .decoder import Decoder, expand
from .framing import MAX_RECORD, Buffer, Framer
from .record import STATE, Peers, Route
from .stream import Chunks

__all__ = ["read_routes", "read_batches", "MRTReader", "RouteBatch", "MAX_RECORD", "BUFFER"]

BUFFER = 1 << 20  # bytes of records framed, and read as arrays, at once (MRTReader.buffers)


def read_routes(path: str, warn: Callable[[str], None] | None = None) -> Iterator[Route]:
    """Routes of the MRT file at `path`, in file order. Warnings go to `warn` (default: stderr)."""
    return MRTReader(path, warn).routes()


def read_batches(path: str, size: int = 65536, warn: Callable[[str], None] | None = None) -> Iterator[RouteBatch]:
    """The routes of the MRT file at `path` as `RouteBatch`es, in file order: each holds the routes of
    whole buffers of records (MRTReader.buffers), at least `size` records' worth but at the end of
    the file. State changes are left out: they have no prefix."""
    return MRTReader(path, warn).batches(size)


class MRTReader:
    """One MRT file (`path`: a str, or cli.Stdin, opened by its fspath and named <stdin>), read
    once: as Routes (`routes`), as RouteBatches (`batches`), or buffer by buffer (`buffers`, then
    `read` or `skip` for each, in order: how two processes share a file, bgpsim.validate.split)."""

    def __init__(self, path: str, warn: Callable[[str], None] | None = None):
        self.path = path
        self.warn = warn or stderr_warning
        self.framer = Framer(path, self.warn)
        self.decoder = Decoder(path, self.warn)
        self.peers_seen = Peers()  # RouteBatch.peers: every peer of the file so far
        self.state_changes = 0  # left out of batches: counted here

    @property
    def records(self) -> int:
        """Records framed so far."""
        return self.framer.records

    def routes(self) -> Iterator[Route]:
        for buf, base, starts in self.framer.frames(Chunks(self.path)):
            handle = self.decoder.handle
            for pos in starts:
                for g in handle(buf, base, pos):
                    if g[3] is STATE:
                        yield Route(g[0], g[1], g[2], STATE, g[4], g[5], None, None, None, None, g[13], g[14], g[12])
                        continue
                    yield from expand(g)

    def batches(self, size: int = 65536) -> Iterator[RouteBatch]:
        # the decoders make many short-lived containers and no cycles: the cyclic collector, left on,
        # would walk the attribute caches again and again; it runs while the consumer has a batch
        # (if it was on)
        gc_was = gc.isenabled()
        gc.disable()
        try:
            for batch in self._fill(size):
                if gc_was:
                    gc.enable()
                yield batch
                gc.disable()
        finally:
            if gc_was:
                gc.enable()

    def _fill(self, size):
        # each buffer is read as soon as it is framed, so that warnings come in file order
        pieces, n = Pieces(), 0
        for buffer in self.buffers():
            self.state_changes += pieces.read(buffer, self.decoder, self.peers_seen)
            n += len(buffer[2])  # records: a batch holds about as many routes, or more
            if n >= size:
                if pieces.routes:
                    yield pieces.batch(self.peers_seen)
                pieces, n = Pieces(), 0
        if pieces.routes:
            yield pieces.batch(self.peers_seen)

    def buffers(self) -> Iterator[Buffer]:
        """The file's whole records, about BUFFER bytes at a time: (buffer, stream offset of its first
        byte, where each record starts in it). Framing faults are warnings here."""
        return self.framer.frames(Chunks(self.path), BUFFER)

    def read(self, buffers: list[Buffer]) -> RouteBatch:
        """The routes of `buffers` (from `buffers()`, in order) as one batch."""
        pieces = Pieces()
        for buffer in buffers:
            self.state_changes += pieces.read(buffer, self.decoder, self.peers_seen)
        return pieces.batch(self.peers_seen)

    def skip(self, buffer: Buffer) -> None:
        """A buffer that another process reads: what the records after it need is kept
        (Decoder.skip)."""
        self.decoder.skip(buffer)

    def update_routes(self, msg: bytes, record: str, ts: int, usec: int | None, peer: str, peer_as: int,
                      asn_size: int, addpath: bool = False,
                      local_as: int | None = None) -> tuple[list[Route], str | None]:
        """Routes of one whole UPDATE message (Decoder.update_routes), for readers of other containers
        (pcap)."""
        return self.decoder.update_routes(msg, record, ts, usec, peer, peer_as, asn_size, addpath, local_as)
