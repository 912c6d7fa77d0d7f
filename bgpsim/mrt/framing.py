"""MRT framing (RFC 6396 section 2): a decompressed stream cut into whole records, a bounded buffer
at a time.

Every record starts with a 12-byte common header: timestamp (4 bytes), type (2), subtype (2) and the
length (4) of the message that follows. `Framer.frames` reads only the lengths, to find where each
record starts; what is inside is for the decoders (bgpsim.mrt.decoder). Memory stays bounded: a
buffer holds whole records and at most one chunk of the stream more (bgpsim.mrt.stream), and no
record longer than MAX_RECORD is held.

Faults of the framing, and what is done (bgpdump's behaviour where it has one):
- the first record's type is none of section 4's (KNOWN_TYPES): `InputError`, the file is not MRT;
- a length of 0: a warning, and reading stops there (bgpdump: "invalid entry length");
- a length over MAX_RECORD: the record is skipped unread with a warning, as bgpdump skips a record it
  cannot parse; if the file ends inside it (a damaged length field, as in some 2000 RIS files),
  reading stops there with a warning, as bgpdump stops;
- the file ends inside a record, or a compressed stream ends without its end marker: every whole
  record, then one warning.
A fault inside a record whose framing is intact is a `Damage`, raised by a decoder: the record is
skipped (or read up to the fault) with a warning, and reading goes on with the next.
"""

from __future__ import annotations

from struct import Struct
from typing import Callable, Iterator

from bgpsim.base.errors import InputError
from .stream import Chunks

MAX_RECORD = 1 << 24  # 16 MiB: far above any real record (a full-table RIB entry is kilobytes)
# section 4 (and 5, the historic types): the types a first record may have
KNOWN_TYPES = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 32, 33, 48, 49}
BGP, TABLE_DUMP, TABLE_DUMP_V2, BGP4MP, BGP4MP_ET = 5, 12, 13, 16, 17  # the types bgpsim reads
HEADER = Struct(">IHHI").unpack_from  # section 2: timestamp, type, subtype, length
LENGTH = Struct(">I").unpack_from  # the header's length alone, at its byte 8

Buffer = tuple  # (bytes, stream offset of its first byte, [where each whole record starts in it])


class Damage(Exception):
    """A fault inside a record whose framing is intact, at `offset` in the record's message;
    `partial` holds the groups read before it (bgpdump prints those)."""

    def __init__(self, message: str, offset: int, partial=()):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.partial = partial


class Framer:
    """Cuts the stream of one file (`path`, for messages) into buffers of whole records; framing
    faults go to `warn`. `records` counts the records framed so far (skipped ones included)."""

    def __init__(self, path, warn: Callable[[str], None]):
        self.path = path
        self.warn = warn
        self.records = 0

    def frames(self, chunks: Chunks, min_bytes: int = 0) -> Iterator[Buffer]:
        """Whole records, a buffer of at least `min_bytes` (while the file lasts) at a time:
        (buffer, stream offset of its first byte, where each record starts in it)."""
        try:
            yield from self._walk(chunks, min_bytes)
        finally:
            chunks.close()

    def _walk(self, chunks: Chunks, min_bytes: int):
        source = iter(chunks)
        buf = b""
        pos = 0
        base = 0  # stream offset of buf[0]
        record_length = LENGTH
        first = True
        while True:
            if len(buf) - pos < min_bytes:
                parts = [buf[pos:]]
                size = len(parts[0])
                while size < min_bytes:
                    more = next(source, b"")
                    if not more:
                        break
                    parts.append(more)
                    size += len(more)
                buf = b"".join(parts)
                base += pos
                pos = 0
            starts = []
            n = len(buf)
            if first and n >= 12:
                rtype = HEADER(buf, 0)[1]
                if rtype not in KNOWN_TYPES:
                    raise InputError(f"not an MRT file: want a record type of RFC 6396 section 4 (such as 13 "
                                     f"TABLE_DUMP_V2 or 16 BGP4MP), got {rtype}", self.path, "byte 0")
                first = False
            while pos + 12 <= n:  # the records wholly in the buffer: their lengths alone are read
                length = record_length(buf, pos + 8)[0]
                if length == 0 or length > MAX_RECORD or pos + 12 + length > n:
                    break
                starts.append(pos)
                pos += 12 + length
            self.records += len(starts)
            if starts:
                yield buf, base, starts
            have = n - pos
            if have < 12 or pos + 12 + length > n and length <= MAX_RECORD and length:
                more = next(source, b"")
                if more:
                    buf = buf[pos:] + more
                    base += pos
                    pos = 0
                    continue
                at = base + pos
                if have >= 12:
                    self._truncated(chunks, at, f"the record there wants {12 + length} bytes, {have} remain")
                elif have:
                    self._truncated(chunks, at, f"{have} bytes of a 12-byte record header")
                elif chunks.truncated:
                    self._truncated(chunks, at, None)
                return
            at = base + pos
            _, rtype, sub, _ = HEADER(buf, pos)
            if length == 0:  # bgpdump stops at a record of length 0
                self.warn(f"{self.path}: byte {at + 8}: MRT record header (RFC 6396 section 2): length 0 "
                          f"(type {rtype}, subtype {sub}); reading stops here, as bgpdump's does")
                return
            # longer than MAX_RECORD: skipped unread, as bgpdump skips a record it cannot parse
            skip = 12 + length - (n - pos)  # bytes of the record past the buffer
            if skip <= 0:
                pos += 12 + length
            else:
                base += n
                buf = b""
                pos = 0
                while skip > 0:
                    more = next(source, b"")
                    if not more:
                        self.warn(f"{self.path}: byte {at + 8}: MRT record header (RFC 6396 section 2): length "
                                  f"{length} (type {rtype}, subtype {sub}) runs past the end of the file; reading "
                                  f"stops here, as bgpdump's does (read {self.records} whole records)")
                        return
                    if len(more) > skip:
                        buf = more[skip:]
                        base += skip
                        skip = 0
                    else:
                        base += len(more)
                        skip -= len(more)
            self.records += 1
            self.warn(f"{self.path}: byte {at}: record of {length} bytes (type {rtype}, subtype {sub}): want at "
                      f"most {MAX_RECORD} (bgpsim's bound on a record); skipped unread")

    def _truncated(self, chunks: Chunks, offset: int, what: str | None) -> None:
        parts = []
        if what:
            parts.append(f"file ends inside a record at byte {offset}: {what}")
        if chunks.truncated:
            parts.append(chunks.truncated)
        self.warn(f"{self.path}: truncated: " + "; ".join(parts) + f" (read {self.records} whole records)")
