"""Reading a payload file: bounded in size, standard input as '-', UTF-8 (RFC 3629) checked with
the line of the first bad byte."""

from __future__ import annotations

import mmap
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from bgpsim.base.errors import InputError

MAX_INPUT_BYTES = 512 * 2**20  # far above the largest real file (docs/vrps.md)


def read_bytes(path: str | Path, limit: int = MAX_INPUT_BYTES, what: str = "") -> bytes:
    """A file (or '-' for standard input) as bytes, at most `limit` of them."""
    name = str(path)
    label = f"{what}: " if what else ""
    try:
        if name == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(name, "rb") as f:
                data = f.read(limit + 1)
    except OSError as e:
        raise InputError(f"{label}cannot read {name}: {e.strerror or e}") from None
    if len(data) > limit:
        raise InputError(f"larger than {limit // 2**20} MiB; not a file of this kind", name)
    return data


@contextmanager
def mapped_bytes(path: str | Path, limit: int = MAX_INPUT_BYTES, what: str = ""):
    """A file's bytes for a reader that only looks at them: a read-only mapping of a regular file
    (no copy: a hundred megabytes of VRPs are read a fifth faster), else what read_bytes gives."""
    name = str(path)
    try:
        fh = open(name, "rb") if name != "-" else None
    except OSError:
        fh = None  # read_bytes says why
    if fh is None:
        yield read_bytes(path, limit, what)
        return
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if not size or size > limit or not os.path.isfile(name):
            yield read_bytes(path, limit, what)
            return
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            yield view


def decode_text(data: bytes, source: str | None) -> str:
    """UTF-8 bytes as text; an InputError naming the line of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"not UTF-8 (byte {e.start})", source, line) from None


def read_text(path: str | Path, limit: int = MAX_INPUT_BYTES, what: str = "") -> str:
    """A file (or '-' for standard input) as UTF-8 text, at most `limit` bytes."""
    return decode_text(read_bytes(path, limit, what), str(path))
