"""A streaming MRT reader (RFC 6396): one `Route` per prefix per peer, one buffer at a time.

The compiled core (bgpsim._core.MRTCore, core/mrt*.c) frames the decompressed stream into records
(section 2) and decodes every record type bgpsim reads, without the GIL: BGP (5, appendix B),
TABLE_DUMP (12, section 4.2), TABLE_DUMP_V2 (13, section 4.3; RFC 8050), BGP4MP and BGP4MP_ET (16
and 17, sections 4.4 and 3; their UPDATEs by RFC 4271 section 4.3, RFC 4760, RFC 6793 and RFC
7911). Its columns become Route records or RouteBatches here (bgpsim.mrt.batch).

Two ways to read: `read_routes` gives `Route` objects; `read_batches` gives numpy columns of many
routes at once (`RouteBatch`), with the Route records behind them. Both give the same routes in
file order, with the same warnings.

Errors. Every fault names the file and a byte offset in the decompressed MRT stream. A file whose
first record is not MRT, or a RIB record without a PEER_INDEX_TABLE, is an `InputError`; everything
else is a warning, and reading goes on as far as bgpdump goes:
- a record of length 0 stops the reading (bgpdump: "invalid entry length");
- a record longer than MAX_RECORD is skipped unread (if the file ends inside it, reading stops);
- the file ends inside a record, or a compressed stream ends without its end marker: every whole
  record, then one warning;
- damage inside a record: the record gives no routes (an UPDATE whose fields do not parse is an
  error of the whole message, RFC 7606 section 5.3), with a warning naming the byte and what was
  wanted;
- a record type bgpsim does not read: one warning per type.
ADD-PATH (RFC 7911) is known from the subtype (RFC 8050), from the OPENs of the session dumped
earlier (BIRD writes its ADD-PATH sessions in plain BGP4MP_MESSAGE_AS4 records), or, where no OPEN
says, from the NLRI itself, as tshark and mrtparse tell it.
"""

from __future__ import annotations

from typing import Callable, Iterator

from bgpsim import _core
from bgpsim.base.errors import InputError, stderr_warning
from .batch import Decoded, Piece, RouteBatch
from .record import Route
from .stream import Chunks

__all__ = ["read_routes", "read_batches", "MRTReader", "RouteBatch", "MAX_RECORD"]

MAX_RECORD = 1 << 24  # 16 MiB (core/mrt.h): far above any real record (a full-table RIB entry is kilobytes)
BUFFER = 1 << 20  # bytes of the stream handed to the core at once (a Piece)


def read_routes(path: str, warn: Callable[[str], None] | None = None) -> Iterator[Route]:
    """Routes of the MRT file at `path`, in file order. Warnings go to `warn` (default: stderr)."""
    return MRTReader(path, warn).routes()


def read_batches(path: str, size: int = 65536, warn: Callable[[str], None] | None = None) -> Iterator[RouteBatch]:
    """The routes of the MRT file at `path` as `RouteBatch`es of at least `size` routes (but the
    last), in file order. State changes are left out: they have no prefix."""
    return MRTReader(path, warn).batches(size)


class MRTReader:
    """One MRT file (`path`: a str, or routedata.Stdin, opened by its fspath and named <stdin>),
    read once: as Routes (`routes`) or as RouteBatches (`batches`)."""

    def __init__(self, path: str, warn: Callable[[str], None] | None = None, chunks: Chunks | None = None):
        """`chunks`: the file already opened (routedata.sniffed), its start perhaps looked at."""
        self.path = path
        self._chunks = chunks
        self.warn = warn or stderr_warning
        self.core = _core.MRTCore()
        self.decoded = Decoded(_core.MRTCore.RECORD_NAMES)
        self.state_changes = 0  # left out of batches: counted here

    @property
    def records(self) -> int:
        """Records framed so far."""
        return self.core.records

    def routes(self) -> Iterator[Route]:
        for piece in self.pieces():
            yield from self.decoded.routes(piece)

    def bgpdump_text(self) -> Iterator[bytes]:
        """`bgpdump -m`'s lines of the file (bgpsim.mrt.bgpdump), written by the core, a buffer at a time."""
        for piece in self.pieces():
            yield self.core.bgpdump(piece.buf, *piece.raw)

    def batches(self, size: int = 65536) -> Iterator[RouteBatch]:
        pieces, n = [], 0
        for piece in self.pieces():
            self.state_changes += int((piece.g["kind"] == 3).sum())
            pieces.append(piece)
            n += len(piece.r["plen"])
            if n >= size:
                yield RouteBatch.of(pieces, self.decoded)
                pieces, n = [], 0
        if n:
            yield RouteBatch.of(pieces, self.decoded)

    def pieces(self) -> Iterator[Piece]:
        """What the core read of each buffer of the stream (about a chunk of it at a time), the
        warnings given as they come."""
        chunks, self._chunks = self._chunks or Chunks(self.path), None
        source = _cut(chunks, BUFFER)
        buf, base = b"", 0
        try:
            while True:
                more = next(source, b"")
                final = not more
                buf = buf + more if buf else more
                try:
                    consumed, stopped, g, r, peers, paths, warnings, records, truncated, error = \
                        self.core.read(buf, base, final)
                except ValueError as e:  # the first record is not MRT
                    raise InputError(e.args[0], self.path, e.args[1]) from None
                for w in warnings:
                    self.warn(f"{self.path}: {w}")
                self.decoded.add_peers(peers)
                piece = Piece(buf, (g, r, paths))
                if g["kind"]:
                    yield piece
                if final and not base and not buf:  # not a byte: an empty file (or /dev/null) says nothing else
                    self.warn(f"{self.path}: holds no records: it is empty")
                if final and truncated is not None:
                    parts = ([truncated] if truncated else []) + ([chunks.truncated] if chunks.truncated else [])
                    if parts:
                        self.warn(f"{self.path}: truncated: " + "; ".join(parts) + f" (read {records} whole records)")
                if error is not None:
                    raise InputError(error[0], self.path, error[1])
                if stopped or final:
                    return
                buf = buf[consumed:]
                base += consumed
        finally:
            chunks.close()

    def update_routes(self, msg: bytes, record: str, ts: int, usec: int | None, peer: str, peer_as: int,
                      asn_size: int, addpath: bool | frozenset = False,
                      local_as: int | None = None) -> tuple[list[Route], str | None, list[str]]:
        """Routes of one whole UPDATE message `msg` (19-byte header included) that `local_as` (or None)
        received, for readers of other containers (pcap) and the speaker (`addpath`: every prefix has a
        path identifier, or those of the families (AFI, SAFI) named do): (routes, None, notes), or
        ([], "byte N: what was wanted", []) for an UPDATE found broken; notes say what RFC 7606 made of
        a faulty attribute (discarded, or the UPDATE's routes withdrawn)."""
        if isinstance(addpath, frozenset):  # the core's mask: families, IPv4 unicast, IPv6 unicast
            addpath = (4 | 8 * ((1, 1) in addpath) | 16 * ((2, 1) in addpath)) if addpath else 0
        g, r, paths, damage, notes = self.core.update(msg, asn_size, int(addpath), peer_as == local_as)
        piece = Piece(msg, (g, r, paths))
        routes = list(self.decoded.routes(piece, record=record, ts=ts, usec=usec, peer=(peer, peer_as),
                                          local_as=local_as))
        return routes, damage, notes


def _cut(chunks: Chunks, size: int) -> Iterator[bytes]:
    """The stream in pieces of at most `size` bytes."""
    for data in chunks:
        for at in range(0, len(data), size):
            yield data[at:at + size]
