"""bzip2 decompressed by threads (bgpsim.mrt.bzip2) gives what the sequential decoder gives (libbz2,
through Python's bz2, one thread): the same bytes, the same truncation note, the same fault, on
real dumps and on synthetic files made here (several blocks and streams, cut short, damaged)."""

from __future__ import annotations

import bz2
import glob
import random

import pytest
from helpers import shared

from bgpsim import _core
from bgpsim.base.errors import InputError
from bgpsim.mrt import bzip2, stream


def _read(path, threads: bool, monkeypatch) -> tuple:
    """(bytes, truncation note, fault) of decompressing `path`, with threads or by the sequential decoder."""
    with monkeypatch.context() as m:
        m.setattr(stream, "THREADS", 4 if threads else 1)
        c = stream.Chunks(str(path))
        out, fault, sizes = [], None, []
        try:
            for piece in c:
                out.append(piece)
                sizes.append(len(piece))
        except InputError as e:
            fault = str(e)
        finally:
            c.close()
    assert all(0 < n <= stream.CHUNK for n in sizes)
    return b"".join(out), c.truncated, fault


def _same(path, monkeypatch) -> tuple:
    """The threads' answer, checked against the sequential decoder's. Where a fault ends it, the
    same fault, and the same output but that the threads may give more whole blocks before it: the
    sequential decoder loses the output of the call that meets the fault (libbz2 takes the file in
    64 KiB pieces)."""
    threaded = _read(path, True, monkeypatch)
    sequential = _read(path, False, monkeypatch)
    if threaded[2] is None:
        assert threaded == sequential
    else:
        assert threaded[1:] == sequential[1:] and threaded[0].startswith(sequential[0])
    return threaded


def _text(n: int, seed: int) -> bytes:
    """Synthetic, compressible: lines of words drawn by a seeded random generator."""
    rng = random.Random(seed)
    words = [bytes(rng.choices(b"abcdefghijklmnopqrstuvwxyz0123456789|/.:", k=rng.randint(2, 12))) for _ in range(5000)]
    out = bytearray()
    while len(out) < n:
        out += b" ".join(rng.choices(words, k=12)) + b"\n"
    return bytes(out[:n])


@pytest.fixture(scope="module")
def blocks_file(tmp_path_factory):
    """A synthetic file of two bzip2 streams, level 1 (blocks of 100 kB): 13 blocks in all."""
    path = tmp_path_factory.mktemp("bz") / "multi.bz2"
    path.write_bytes(bz2.compress(_text(700_000, 1), 1) + bz2.compress(_text(450_000, 2), 1))
    return path


def test_real_bzip2_files_decompress_the_same(monkeypatch):
    files = sorted(glob.glob(str(shared() / "**" / "*.bz2"), recursive=True))
    assert files, "../shared/data holds bzip2 dumps"
    truncated = 0
    for path in files:
        data, note, fault = _same(path, monkeypatch)
        assert fault is None and data
        truncated += note is not None
    assert truncated == 3  # pyasn_data's RIBs: the first megabyte of each


def test_threads_decode_a_well_made_file_alone(blocks_file, monkeypatch):
    """No fallback to the sequential decoder on a good file: its blocks and CRCs are all read."""
    def refuse(self):
        raise AssertionError("the sequential decoder was used")
        yield

    expected = bz2.decompress(blocks_file.read_bytes())
    monkeypatch.setattr(stream.Chunks, "_inflate", refuse)
    data, note, fault = _read(blocks_file, True, monkeypatch)
    assert (data, note, fault) == (expected, None, None)
    marks = _core.bz2_marks(blocks_file.read_bytes(), 0)
    assert [kind for _, kind in marks].count(1) == 2 and len(marks) == 15


def test_cut_anywhere_the_same(blocks_file, tmp_path, monkeypatch):
    raw = blocks_file.read_bytes()
    cut = tmp_path / "cut.bz2"
    for n in [3, 4, 5, 10, 11, 13, 20, 50] + list(range(60, len(raw), len(raw) // 19)) + [len(raw) - k for k in range(1, 12)]:
        cut.write_bytes(raw[:n])
        _same(cut, monkeypatch)


def test_damage_anywhere_the_same(blocks_file, tmp_path, monkeypatch):
    raw = blocks_file.read_bytes()
    bad = tmp_path / "bad.bz2"
    rng = random.Random(7)
    faults = 0
    whole = bz2.decompress(raw)
    for at in [4, 5, 9, 10, 14] + rng.sample(range(len(raw)), 15) + [len(raw) - k for k in range(1, 11)]:
        damaged = bytearray(raw)
        damaged[at] ^= 1 << rng.randrange(8)
        bad.write_bytes(bytes(damaged))
        data, _, fault = _same(bad, monkeypatch)
        faults += fault is not None
        assert fault is None or whole.startswith(data)  # whole blocks before the damage, nothing made up
        bad.write_bytes(bytes(damaged[:len(raw) * 3 // 4]))  # damaged, and cut short after: one fault, no note
        _same(bad, monkeypatch)
    assert faults > 12


@pytest.mark.parametrize("after", [b"\0" * 100, b"garbage", b"BZh", b"BZh9", b"BZh0" + b"x" * 20])
def test_what_follows_a_stream_the_same(blocks_file, tmp_path, monkeypatch, after):
    path = tmp_path / "after.bz2"
    path.write_bytes(blocks_file.read_bytes() + after)
    _same(path, monkeypatch)


def test_a_block_of_runs_is_decoded_in_chunks(tmp_path, monkeypatch):
    """Runs of one byte: a 100 kB block comes to megabytes; past BIG it is decoded chunk by chunk."""
    path = tmp_path / "runs.bz2"
    path.write_bytes(bz2.compress(b"\0" * 3_000_000 + _text(300_000, 3) + b"\xff" * 3_000_000, 1))
    monkeypatch.setattr(bzip2, "BIG", 1 << 20)
    data, note, fault = _same(path, monkeypatch)
    assert len(data) == 6_300_000 and note is None and fault is None


def test_the_first_chunk_alone_decodes_one_block(blocks_file, monkeypatch):
    """Telling the format reads one chunk: one block is decompressed, not a pool's worth."""
    decoded = []
    real = bzip2._decode
    monkeypatch.setattr(bzip2, "_decode", lambda block, chunk: decoded.append(block) or real(block, chunk))
    c = stream.Chunks(str(blocks_file))
    it = iter(c)
    first = next(it)
    assert first and bz2.decompress(blocks_file.read_bytes()).startswith(first)
    it.close()
    c.close()
    assert len(decoded) == 1


@pytest.mark.parametrize("kind", ["bzip2", "gzip", "raw"])
def test_head_then_every_byte_once(blocks_file, tmp_path, kind):
    """A file's start looked at (routedata.sniffed tells the format so), then every byte of it in the
    iteration, the start included, for each kind of file: what the reader of the same file gives."""
    import gzip

    data = bz2.decompress(blocks_file.read_bytes())
    path = {"bzip2": blocks_file, "gzip": tmp_path / "f.gz", "raw": tmp_path / "f"}[kind]
    if kind == "gzip":
        path.write_bytes(gzip.compress(data, 1))
    elif kind == "raw":
        path.write_bytes(data)
    for n in (0, 1, 64, stream.CHUNK + 5, len(data) + 10):
        c = stream.Chunks(str(path))
        try:
            assert c.head(n) == data[:n]
            assert c.head(3) == data[:3]  # again: from what it holds
            assert b"".join(c) == data
        finally:
            c.close()


def test_sniffed_chunks_go_on_in_the_reader(monkeypatch):
    """The MRT reader handed the chunks that told the format reads the same routes as one that opens
    the file itself, and starts no more bzip2 decoders: the file is decompressed once."""
    from bgpsim.mrt.reader import MRTReader, read_routes
    from bgpsim.routedata import sniffed

    path = str(shared() / "mrt" / "pyasn_data" / "rib.20140523.0600_firstMB.bz2")
    started = []
    real = bz2.BZ2Decompressor
    monkeypatch.setattr(bzip2.bz2, "BZ2Decompressor", lambda: started.append(1) or real())

    def routes(reader):
        return [(r.peer_ip, r.prefix, r.attrs.as_path if r.attrs else None) for r in reader.routes()]

    expected = routes(MRTReader(path, lambda w: None))
    alone, started[:] = len(started), []
    reader, chunks = sniffed(path)
    assert reader is read_routes
    assert routes(MRTReader(path, lambda w: None, chunks=chunks)) == expected and len(expected) == 270_005
    assert len(started) == alone  # telling the format decompressed nothing twice
