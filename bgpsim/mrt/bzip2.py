"""bzip2 decompressed by several threads at once: RouteViews publishes its RIBs and updates so, and
one thread decompressing a RIB takes longer than the core takes to read it.

The blocks of a bzip2 stream do not depend on each other. The core finds where each begins and
ends (its 48-bit magic, to the bit) and copies it into a stream of its own (bgpsim._core.bz2_marks,
bz2_block); threads decompress those with the bz2 module, which lets go of the GIL while it works,
and their output comes back in order. The stream's combined CRC (its blocks' CRCs rotated and
XORed, as bzip2 computes it) is checked at its end marker.

The answer is the sequential decoder's in every case, to the byte and the message: where anything
is not as a well-made stream has it (a block that fails to decode, as one cut at a chance match of
the magic inside compressed data would; a CRC that does not match; bytes after a stream that do not
start another), the sequential decoder (bgpsim.mrt.stream.Chunks) takes over from the file's start,
passing over what was handed out already. A file that ends inside a block (a dump cut short) ends
as the sequential decoder ends it: its blocks, then no end marker. Before a fault, the output may
run a little further: to the last whole block before the damage, where the sequential decoder
loses the blocks it finished in the call that met it.
"""

from __future__ import annotations

import bz2
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

from bgpsim import _core

THREADS = min(4, os.cpu_count() or 1)
READ = 1 << 20  # compressed bytes read at a time
BIG = 8 << 20  # a block that decompresses to more (runs of one byte) is decompressed in the caller's thread
_STREAM_HEAD = 32  # bits: "BZh" and the level
_END_TAIL = 80  # bits: a magic and a CRC (a block is longer, an end marker this long)


class Fallback(Exception):
    """The stream is not as a well-made one has it here: the sequential decoder takes over."""


def parallel_chunks(f, chunk: int, sequential: Callable[[int], Iterator[bytes]], ends: Callable[[int], None]):
    """The decompressed bytes of the bzip2 file `f` (open, at its start), in chunks of at most
    `chunk` bytes. `sequential(skip)` decodes the file from its start, passing over its first `skip`
    output bytes; `ends(size)` is called when the file (`size` compressed bytes) ends inside a stream."""
    done = 0
    cut: list[int] = []  # the file's size, when it ends inside a stream
    pool = ThreadPoolExecutor(THREADS, thread_name_prefix="bgpsim-bzip2")
    try:
        for piece in _decoded(_blocks(f, cut), pool, chunk):
            done += len(piece)
            yield piece
        if cut:  # said once every block before the cut has decoded
            ends(cut[0])
    except Fallback:
        pool.shutdown(wait=False, cancel_futures=True)
        f.seek(0)
        yield from sequential(done)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _decoded(blocks: Iterator[bytes], pool: ThreadPoolExecutor, chunk: int) -> Iterator[bytes]:
    """The output of each block stream, in order. Blocks in flight grow from one by one as output
    is taken, up to twice the threads: a caller that reads only the first chunk (to tell the
    format) has one block decompressed, not a pool's worth."""
    flight: deque = deque()
    ahead = 1
    for block in blocks:
        flight.append((block, pool.submit(_decode, block, chunk)))
        while len(flight) >= ahead:
            yield from _result(*flight.popleft(), chunk)
            ahead = min(ahead + 1, 2 * THREADS)
    while flight:
        yield from _result(*flight.popleft(), chunk)


def _result(block: bytes, future, chunk: int) -> Iterator[bytes]:
    pieces = future.result()
    if pieces is None:  # too big to hold: decoded here, chunk by chunk
        pieces = _stream(block, chunk)
    yield from pieces


def _decode(block: bytes, chunk: int) -> list[bytes] | None:
    """A block stream's output in chunks (None when it comes to more than BIG bytes). Fallback when
    it fails to decode or is not exactly one whole stream."""
    pieces, size = [], 0
    for piece in _stream(block, chunk):
        pieces.append(piece)
        size += len(piece)
        if size > BIG:
            return None
    return pieces


def _stream(block: bytes, chunk: int) -> Iterator[bytes]:
    d = bz2.BZ2Decompressor()
    try:
        piece = d.decompress(block, chunk)
        while True:
            if piece:
                yield piece
            if d.eof or d.needs_input:
                break
            piece = d.decompress(b"", chunk)
    except (OSError, EOFError, ValueError):
        raise Fallback from None
    if not d.eof or d.unused_data:
        raise Fallback


def _blocks(f, cut: list[int]) -> Iterator[bytes]:
    """Each block of every stream of `f`, cut out as a stream of its own, in order; when the file ends
    inside a stream, its size goes into `cut`."""
    buf = f.read(READ)
    size = len(buf)  # compressed bytes read
    at = 0  # the bit where the next stream, block or end marker starts in buf
    marks: deque = deque()  # (bit, end marker?) from `at` on, found so far, in order
    scanned = 0  # bits of buf searched for marks

    def refill() -> bool:
        """Reads more of the file, dropping what is behind `at`: whether there was more."""
        nonlocal buf, at, scanned, size
        data = f.read(READ)
        if not data:
            return False
        size += len(data)
        cut = at // 8 * 8
        buf = buf[cut // 8:] + data
        at -= cut
        scanned -= cut
        for i, (bit, kind) in enumerate(marks):
            marks[i] = (bit - cut, kind)
        return True

    def next_mark():
        """The mark after marks[0] (None: the file ends first)."""
        nonlocal scanned
        while len(marks) < 2:
            low = max(at, scanned - 47)  # a magic may straddle the end of the last read
            marks.extend(m for m in _core.bz2_marks(buf, low) if not marks or m[0] > marks[-1][0])
            scanned = len(buf) * 8
            if len(marks) < 2 and not refill():
                return None
        return marks[1]

    def reach(bit: int) -> bool:
        """Whether buf holds the file up to `bit`, reading as far as that takes."""
        while len(buf) * 8 < bit:
            if not refill():
                return False
        return True

    while True:
        reach(at + _STREAM_HEAD)  # a stream's header, on a byte
        head = buf[at // 8:at // 8 + 4]
        if not head:
            return  # the file ends after a stream
        if len(head) < 4 or head[:3] != b"BZh" or not b"1" <= head[3:] <= b"9":
            raise Fallback  # padding or damage: the sequential decoder says what it says of it
        level, crc = head[3] - 48, 0
        at += _STREAM_HEAD
        marks.clear()
        scanned = at
        nxt = next_mark()
        if not marks or marks[0][0] != at:
            raise Fallback
        while not marks[0][1]:  # a block, up to the next mark
            if nxt is None:
                _tail(buf, at, level)  # the file ends inside this block
                cut.append(size)
                return
            if nxt[0] - at < _END_TAIL:
                raise Fallback
            yield _core.bz2_block(buf, at, nxt[0], level)
            crc = ((crc << 1 | crc >> 31) & 0xFFFF_FFFF) ^ _bits(buf, at + 48, 32)
            marks.popleft()
            at = nxt[0]
            nxt = next_mark()
        if not reach(at + _END_TAIL) or _bits(buf, at + 48, 32) != crc:
            raise Fallback  # cut inside the end marker, or a CRC that does not match
        at = (at + _END_TAIL + 7) // 8 * 8


def _bits(buf: bytes, at: int, n: int) -> int:
    """The n bits of buf from bit `at` on, as a number."""
    first, last = at // 8, (at + n + 7) // 8
    return int.from_bytes(buf[first:last], "big") >> (last * 8 - at - n) & ((1 << n) - 1)


def _tail(buf: bytes, at: int, level: int) -> None:
    """The block at bit `at`, which the file ends inside: the sequential decoder reads it without
    a word and without output (any fault it finds there, it finds in these bits too: they are
    the file's, and a few zero bits to fill the last byte), or else takes over."""
    data = buf[at // 8:]
    bits = len(data) * 8 - at % 8
    pad = -bits % 8
    block = ((int.from_bytes(data, "big") & ((1 << bits) - 1)) << pad).to_bytes((bits + pad) // 8, "big")
    d = bz2.BZ2Decompressor()
    try:
        out = d.decompress(b"BZh%d" % level + block)
    except (OSError, EOFError, ValueError):
        raise Fallback from None
    if out or d.eof:
        raise Fallback
