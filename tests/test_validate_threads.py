"""`bgpsim validate` as it runs, its dumps read on a thread (bgpsim.base.ahead) and a big VRP file on
another (bgpsim.validate.load.Loading), against the same command doing both in the thread that
checks: the same bytes in every output file and the same warnings in the same order, with batches
made small so that many cross between the threads, on inputs that exercise the order (MOAS,
sub-prefix and path findings, bogon prefixes, warnings of damaged files, a RIB dump whose peer table
comes first, text and capture files); and the same one-line errors where a file is bad."""

from __future__ import annotations

import bz2
import gzip
import threading

import pytest
from helpers import SHARED

from bgpsim.base import ahead as ahead_module
from bgpsim.base.ahead import ahead
from bgpsim.cli import main
from bgpsim.mrt import read_routes, reader, stream
from bgpsim.validate import check, load

MRT = SHARED / "mrt"
UPDATES = MRT / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
UPDATES2 = MRT / "bgpkit_fixtures" / "ripe_rrc15_2010.02_updates.20100227.1610.gz"
RIB = MRT / "ripe_bgpdump_testdata" / "bview.20020722.2337.gz"
DAMAGED = MRT / "bgpkit_fixtures" / "ripe_rrc00_2000.03_updates.20000325.0345.gz"  # a damaged record
CUT = MRT / "pyasn_data" / "rib6.20151101.0600_firstMB.bz2"
CAPTURE = SHARED / "pcap" / "eveng_bgp.pcapng"
RELATIONSHIPS = SHARED / "caida" / "20250901.as-rel2.txt.bz2"
OUTPUTS = ("summary.json", "routes.csv", "findings.json", "report.html")


# ---- bgpsim.base.ahead ---------------------------------------------------------------------------------
def test_ahead_gives_every_item_in_order_made_by_another_thread():
    made_by = []

    def items():
        for k in range(100):
            made_by.append(threading.current_thread().name)
            yield k

    assert list(ahead(items(), depth=3, name="maker")) == list(range(100))
    assert set(made_by) == {"maker"}


def test_ahead_raises_a_fault_in_its_place():
    def items():
        yield 1
        yield 2
        raise ValueError("the third")

    got = []
    with pytest.raises(ValueError, match="the third"):
        for x in ahead(items()):
            got.append(x)
    assert got == [1, 2]


def test_ahead_stops_and_closes_the_iterable_when_the_caller_stops():
    closed, made = [], []

    def items():
        try:
            k = 0
            while True:
                made.append(k)
                yield k
                k += 1
        finally:
            closed.append(threading.current_thread().name)

    for x in ahead(items(), depth=2, name="maker"):
        if x == 5:
            break
    assert closed == ["maker"]  # closed, in the thread that used it
    assert len(made) <= 6 + 2 + 1  # no further than `depth` past what was taken (and the one in hand)


def test_a_shared_lock_lets_readers_in_together_and_a_writer_alone():
    from bgpsim.base.ahead import SharedLock

    lock, events = SharedLock(), []
    inside, release = threading.Event(), threading.Event()

    def reader(name):
        with lock.shared():
            events.append(f"{name} in")
            inside.set()
            release.wait(5)
            events.append(f"{name} out")

    def writer():
        with lock.alone():
            events.append("writer")

    first = threading.Thread(target=reader, args=("r1",))
    first.start()
    inside.wait(5)
    with lock.shared():  # a second reader gets in while the first holds it
        events.append("r2 in")
    w = threading.Thread(target=writer)
    w.start()
    def late_reader():
        with lock.shared():
            events.append("r3 in")

    late = threading.Thread(target=late_reader)
    while not lock._writers_waiting:  # the writer is waiting for r1
        threading.Event().wait(0.001)
    late.start()
    late.join(0.05)
    assert late.is_alive() and "writer" not in events  # r3 waits behind the waiting writer
    release.set()
    for t in (first, w, late):
        t.join(5)
    assert events == ["r1 in", "r2 in", "r1 out", "writer", "r3 in"]
    with pytest.raises(KeyError), lock.alone():
        raise KeyError
    with lock.alone():  # released by the exception
        pass


# ---- the command ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vrps(tmp_path_factory):
    """VRPs made from the routes of two dumps (synthetic): a third with the route's origin, a third
    with another, a third too short for the route, so that every RFC 6811 status occurs."""
    if not UPDATES.exists():
        pytest.skip("shared data not found")
    lines, seen = ["ASN,IP Prefix,Max Length,Trust Anchor\n"], set()
    for dump in (UPDATES, RIB):
        for k, r in enumerate(read_routes(str(dump), lambda m: None)):
            if r.kind == "withdraw" or r.prefix in seen or r.attrs is None or r.attrs.origin_as < 0:
                continue
            seen.add(r.prefix)
            length = int(r.prefix.split("/")[1])
            origin = r.attrs.origin_as + (k % 3 == 1)
            if k % 3 == 2 and length > 8:
                parent = __import__("ipaddress").ip_network(r.prefix).supernet()
                lines.append(f"AS{origin},{parent},{parent.prefixlen},synthetic\n")
            else:
                lines.append(f"AS{origin},{r.prefix},{length},synthetic\n")
            if len(seen) > 60_000:
                break
    path = tmp_path_factory.mktemp("vrps") / "vrps.csv"
    path.write_text("".join(lines))
    return path


def _text_dump(tmp_path):
    """A `bgpdump -m` text file: bgpdump's own output for one of the reference dumps."""
    expected = MRT / "ripe_bgpdump_testdata" / "expected_bgpdump_output" / "updates.20070211.0141.gz.bgp.gz"
    path = tmp_path / "text.bgp"
    with gzip.open(expected, "rt") as f:
        path.write_text("".join(line for _, line in zip(range(3000), f)))
    return path


def _run(args, out, capsys):
    code = main(["validate", *map(str, args), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    return code, err


def _in_order(monkeypatch):
    """The dumps read, and a big VRP file read first, in the thread that checks."""
    monkeypatch.setattr(ahead_module, "ahead", lambda items, depth=2, name="": iter(items))
    monkeypatch.setattr(load, "big", lambda path: False)


def _small(monkeypatch, vrps_on_thread=True):
    monkeypatch.setattr(check, "BATCH", 997)  # many batches cross between the threads
    monkeypatch.setattr(reader, "BUFFER", 16_384)
    monkeypatch.setattr(load, "MIN_BYTES", 0 if vrps_on_thread else 1 << 40)


@pytest.mark.parametrize("case, vrps_on_thread", [("updates", True), ("mixed", False), ("mixed", True),
                                                  ("text first", True)])
def test_threads_write_what_one_thread_writes(case, vrps_on_thread, vrps, tmp_path, monkeypatch, capsys):
    files = {"updates": [UPDATES, UPDATES2, "--relationships", RELATIONSHIPS],
             "mixed": [DAMAGED, RIB, _text_dump(tmp_path), CAPTURE, CUT, UPDATES2],
             "text first": [_text_dump(tmp_path), CAPTURE, UPDATES2]}[case]
    args = [*files, "--vrps", vrps]
    _small(monkeypatch, vrps_on_thread)
    threads = _run(args, tmp_path / "threads", capsys)
    _in_order(monkeypatch)
    one = _run(args, tmp_path / "one", capsys)
    assert one == threads and one[0] == 0
    if case == "mixed":
        assert "truncated" in one[1] and "ripe_rrc00_2000.03" in one[1]  # warnings, in the same order
    for name in OUTPUTS:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "threads" / name).read_bytes(), name
    if case == "updates":
        scenarios = sorted(p.name for p in (tmp_path / "one" / "scenarios").iterdir())
        assert scenarios and scenarios == sorted(p.name for p in (tmp_path / "threads" / "scenarios").iterdir())


def test_the_path_table_started_again_while_batches_are_in_flight(vrps, tmp_path, monkeypatch, capsys):
    """The path table starts again past MAX_PATHS distinct paths; batches prepared and not yet checked
    name slots of the old one, so they are checked first: the bytes of a run that never starts again."""
    args = [UPDATES, RIB, UPDATES2, "--vrps", vrps]
    _small(monkeypatch)
    _run(args, tmp_path / "whole", capsys)
    monkeypatch.setattr(check, "MAX_PATHS", 2_000)
    again = _run(args, tmp_path / "again", capsys)
    assert again[0] == 0
    for name in OUTPUTS:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def _one_error(args, out, monkeypatch, capsys) -> str:
    """The error of a run with its threads, checked to be one line, exit status 2, no output, and the
    same as in one thread."""
    _small(monkeypatch)
    errors = []
    for threads in (True, False):
        if not threads:
            _in_order(monkeypatch)
        code, err = _run(args, out, capsys)
        assert code == 2 and not out.exists()
        errors.append(err)
    assert errors[0] == errors[1] and errors[0].count("\n") == 1
    return errors[0]


def test_a_fault_midway(tmp_path, vrps, monkeypatch, capsys):
    """A RIB record before any PEER_INDEX_TABLE, after batches already checked."""
    data = bz2.BZ2Decompressor().decompress(CUT.read_bytes())  # TABLE_DUMP_V2, PEER_INDEX_TABLE first (cut short)
    length = int.from_bytes(data[8:12], "big")  # drop the PEER_INDEX_TABLE: every RIB record after it is a fault
    bad = tmp_path / "nopeers.mrt"
    bad.write_bytes(data[12 + length:])
    assert "PEER_INDEX_TABLE" in _one_error([UPDATES2, bad, "--vrps", vrps], tmp_path / "out", monkeypatch, capsys)


def test_a_stream_damaged_midway(tmp_path, vrps, monkeypatch, capsys):
    raw = bytearray(UPDATES.read_bytes())
    for k in range(len(raw) // 2, len(raw) // 2 + 64):  # a run of the compressed stream made nonsense
        raw[k] ^= 0x5A
    bad = tmp_path / "damaged.gz"
    bad.write_bytes(bytes(raw))
    assert "gzip data damaged" in _one_error([UPDATES2, bad, "--vrps", vrps], tmp_path / "out", monkeypatch, capsys)


def test_a_bad_vrp_file_read_on_its_thread(tmp_path, vrps, monkeypatch, capsys):
    """A fault in the VRPs, found by their thread while the dumps are read: the same one line."""
    bad = tmp_path / "vrps.csv"
    text = vrps.read_text().splitlines(keepends=True)
    bad.write_text("".join(text[:5000] + ["AS65000,10.0.0.0/33,33,synthetic\n"] + text[5000:]))
    error = _one_error([UPDATES2, "--vrps", bad], tmp_path / "out", monkeypatch, capsys)
    assert "vrps.csv" in error and "5001" in error


def test_a_file_whose_reading_stops_early(tmp_path, vrps, monkeypatch, capsys):
    """A record of length 0 midway stops the reading of its file (as bgpdump stops); the next file is
    read whole."""
    data = gzip.decompress(UPDATES2.read_bytes())
    at = 0
    while at < len(data) // 2:  # a record boundary past the middle
        at += 12 + int.from_bytes(data[at + 8:at + 12], "big")
    stop = tmp_path / "stops.mrt"
    stop.write_bytes(data[:at] + data[at:at + 8] + bytes(4) + data[at:])
    args = [stop, UPDATES, "--vrps", vrps]
    _small(monkeypatch)
    monkeypatch.setattr(stream, "CHUNK", 16_384)
    threads = _run(args, tmp_path / "threads", capsys)
    _in_order(monkeypatch)
    one = _run(args, tmp_path / "one", capsys)
    assert one == threads and one[0] == 0 and "length 0" in one[1] and "reading stops here" in one[1]
    for name in OUTPUTS:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "threads" / name).read_bytes(), name


@pytest.mark.parametrize("start", ["missing", "damaged"])
def test_a_first_file_unreadable_from_its_start(start, tmp_path, vrps, monkeypatch, capsys):
    bad = tmp_path / "first.gz"
    if start == "damaged":
        raw = bytearray(UPDATES.read_bytes())
        for k in range(10, 80):  # the deflate stream after the gzip header made nonsense
            raw[k] ^= 0x5A
        bad.write_bytes(bytes(raw))
    error = _one_error([bad, UPDATES2, "--vrps", vrps], tmp_path / "out", monkeypatch, capsys)
    assert "first.gz" in error and ("gzip data damaged" if start == "damaged" else "no such file") in error


def test_freed_memory_is_held_where_the_c_library_is_glibc():
    """`bgpsim validate` asks glibc to keep freed blocks for the next batch (bgpsim._core); elsewhere
    nothing is done and it says so (nor under AddressSanitizer, whose allocator stands in for glibc's:
    bench/asan_tests.sh)."""
    import os
    import platform

    from bgpsim import _core

    glibc = platform.libc_ver()[0] == "glibc" and "libasan" not in os.environ.get("LD_PRELOAD", "")
    assert _core.hold_freed_memory() is glibc


def test_interrupted_midway_leaves_nothing(vrps, tmp_path):
    """Ctrl-C while the threads work: `bgpsim: interrupted`, exit status 130, soon, and neither the
    output nor its temporary directory left (the threads stop; the staged output is removed)."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "bgpsim.cli", "validate", *map(str, [UPDATES] * 6), "--vrps",
                             str(vrps), "--out", str(out), "--quiet"], stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".out.") and (p / "routes.csv").exists() for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it was interrupted"
        time.sleep(0.01)
    time.sleep(0.05)  # the pass under way: routes.csv being written
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err.decode().strip().endswith("bgpsim: interrupted")
    assert [p.name for p in tmp_path.iterdir()] == []
