"""One direction of a captured TCP connection, put back in order and cut into BGP messages.

TCP (RFC 9293 section 3.4): each segment's sequence number is the stream offset of its first byte
(modulo 2**32); a SYN takes one number. Retransmitted and overlapping bytes are dropped, segments
that arrive early wait (at most MAX_PENDING bytes per direction), and when that bound or a segment
cut short by the capture's snap length leaves a hole, the hole is skipped and a note says so.
BGP (RFC 4271 section 4.1): the stream is a run of messages, each starting with a 16-byte marker of
all ones and a 2-byte length (19 to 4096, or 65535 with RFC 8654), so one segment may hold several
messages and one message may span several segments. After a hole, or when the capture starts in the
middle of a session, reading resumes at the next marker.
"""

from __future__ import annotations

MARKER = b"\xff" * 16
HEADER = 19
MAX_PENDING = 1 << 20  # bytes of early segments kept per direction
_MOD = 1 << 32
_HALF = 1 << 31


class Stream:
    """Feed segments with `segment`; each call returns (whole BGP messages, notes about damage)."""

    def __init__(self) -> None:
        self.next: int | None = None  # sequence number of the next byte wanted
        self.pending: dict[int, bytes] = {}  # early segments by sequence number
        self.pending_bytes = 0
        self.buf = bytearray()  # in-order bytes not yet cut into messages

    def syn(self, seq: int) -> None:
        """A SYN starts the stream afresh (a new connection on the same addresses and ports)."""
        self.next = (seq + 1) % _MOD
        self.pending.clear()
        self.pending_bytes = 0
        self.buf.clear()

    def segment(self, seq: int, data: bytes, missing: int = 0) -> tuple[list[bytes], list[str]]:
        """A segment's payload; `missing` bytes of it past `data` were not captured (snap length)."""
        notes: list[str] = []
        if self.next is None:  # capture started mid-connection: take the first data as the start
            self.next = seq
        if missing:
            self._append(seq, data)
            if (seq + len(data) - self.next) % _MOD == 0:
                self._hole(notes, missing, "the capture cut this segment short")
                self.next = (seq + len(data) + missing) % _MOD
        elif data:
            rel = (seq - self.next) % _MOD
            if rel == 0 or rel >= _HALF:
                self._append(seq, data)
            else:
                if len(data) > len(self.pending.get(seq, b"")):
                    self.pending_bytes += len(data) - len(self.pending.get(seq, b""))
                    self.pending[seq] = data
                if self.pending_bytes > MAX_PENDING:
                    first = min(self.pending, key=lambda s: (s - self.next) % _MOD)
                    self._hole(notes, (first - self.next) % _MOD, f"more than {MAX_PENDING} bytes arrived after it")
                    self.next = first
        self._drain()
        return self._messages(notes), notes

    def finish(self) -> list[str]:
        """Notes about bytes left over at the end of the capture."""
        notes = []
        if self.pending:
            notes.append(f"{self.pending_bytes} bytes after a gap in the stream never became readable")
        if self.buf:
            notes.append(f"the capture ends inside a BGP message ({len(self.buf)} bytes of it)")
        return notes

    def _append(self, seq: int, data: bytes) -> None:
        over = (self.next - seq) % _MOD  # bytes already received (retransmission or overlap)
        if over >= _HALF or over >= len(data):
            return
        self.buf += data[over:]
        self.next = (seq + len(data)) % _MOD

    def _drain(self) -> None:
        progressed = True
        while progressed and self.pending:
            progressed = False
            for seq in list(self.pending):
                rel = (seq - self.next) % _MOD
                if rel == 0 or rel >= _HALF:
                    data = self.pending.pop(seq)
                    self.pending_bytes -= len(data)
                    self._append(seq, data)
                    progressed = True

    def _hole(self, notes: list[str], size: int, why: str) -> None:
        notes.append(f"{size} bytes of the TCP stream are missing ({why}); "
                     f"{len(self.buf)} bytes before the gap dropped, reading resumes at the next BGP marker")
        self.buf.clear()

    def _messages(self, notes: list[str]) -> list[bytes]:
        buf = self.buf
        out = []
        p = 0
        n = len(buf)
        while n - p >= HEADER:
            if buf[p:p + 16] != MARKER:
                i = buf.find(MARKER, p + 1)
                skip = (i if i >= 0 else n - 15) - p
                notes.append(f"{skip} bytes without a BGP marker (RFC 4271 section 4.1) skipped")
                p += skip
                continue
            length = (buf[p + 16] << 8) | buf[p + 17]
            if length < HEADER:
                notes.append(f"BGP message header (RFC 4271 section 4.1): want a length of at least 19, "
                             f"got {length}; skipped to the next marker")
                p += 16
                continue
            if n - p < length:
                break
            out.append(bytes(buf[p:p + length]))
            p += length
        del buf[:p]
        return out
