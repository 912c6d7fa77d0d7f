"""Route data files: which reader a file needs, told by its content; standard input as a file."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

HEAD = 64  # bytes of a file's decompressed start that tell its format


class Stdin(os.PathLike):
    """Standard input, spooled to an unnamed temporary file so that the readers can tell its
    format and read it as they read any file; it is called <stdin> in messages."""

    def __init__(self):
        self.spool = tempfile.TemporaryFile()
        shutil.copyfileobj(sys.stdin.buffer, self.spool, 1 << 20)
        self.spool.flush()

    def __fspath__(self) -> str:
        return f"/proc/self/fd/{self.spool.fileno()}"  # each open() of it starts at byte 0

    def __str__(self) -> str:
        return "<stdin>"


def file_of(name: str):
    """A file named on the command line as the readers take it: '-' is standard input, spooled (Stdin)."""
    return Stdin() if name == "-" else name


def reader_for(path: str):
    """The route reader for `path`, chosen by its first (decompressed) bytes (reader_of)."""
    reader, chunks = sniffed(path)
    chunks.close()
    return reader


def sniffed(path: str):
    """(the route reader for `path`, the file opened: a bgpsim.mrt.stream.Chunks that has decompressed
    its start, for an MRTReader to go on with; close it if unused)."""
    from bgpsim.mrt.stream import Chunks

    chunks = Chunks(path)
    try:
        return reader_of(chunks.head(HEAD)), chunks
    except BaseException:
        chunks.close()
        raise


def reader_of(head: bytes):
    """The route reader for a file whose first (decompressed) bytes are `head` (HEAD of them, or all
    if fewer): pcap/pcapng magic numbers, a `bgpdump -m` line, or else MRT."""
    from bgpsim.capture import is_capture, read_capture_routes
    from bgpsim.mrt.reader import read_routes
    from bgpsim.mrt.text import LINE_START, read_text_routes

    if is_capture(head):
        return read_capture_routes
    if LINE_START.match(head):
        return read_text_routes
    return read_routes
