"""`bgpsim validate` in two processes (bgpsim.validate.split) against one process reading every unit
in order: the same bytes in every output file and the same warnings, with units made small so that
both processes take many, on inputs that exercise the merge (MOAS, sub-prefix and path findings
seen by both, bogon prefixes, warnings from damaged files, a RIB dump whose peer table is in the
first unit only, text and capture files whole)."""

from __future__ import annotations

import bz2
import gzip

import pytest
from helpers import SHARED

from bgpsim.cli import main
from bgpsim.mrt import read_routes, reader, stream
from bgpsim.validate import load, split

MRT = SHARED / "mrt"
UPDATES = MRT / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"
UPDATES2 = MRT / "bgpkit_fixtures" / "ripe_rrc15_2010.02_updates.20100227.1610.gz"
RIB = MRT / "ripe_bgpdump_testdata" / "bview.20020722.2337.gz"
DAMAGED = MRT / "bgpkit_fixtures" / "ripe_rrc00_2000.03_updates.20000325.0345.gz"  # a damaged record
CUT = MRT / "pyasn_data" / "rib6.20151101.0600_firstMB.bz2"
CAPTURE = SHARED / "pcap" / "eveng_bgp.pcapng"
RELATIONSHIPS = SHARED / "caida" / "20250901.as-rel2.txt.bz2"
OUTPUTS = ("summary.json", "routes.csv", "findings.json", "report.html")

pytestmark = pytest.mark.skipif(not UPDATES.exists() or not split.possible(),
                                reason="shared data not found, or no fork / a single CPU")


@pytest.fixture(scope="module")
def vrps(tmp_path_factory):
    """VRPs made from the routes of two dumps (synthetic): a third with the route's origin, a third
    with another, a third too short for the route, so that every RFC 6811 status occurs."""
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


@pytest.mark.parametrize("case, vrps_in_child", [("updates", False), ("mixed", False), ("mixed", True),
                                                ("text first", False), ("text first", True)])
def test_two_processes_write_what_one_writes(case, vrps_in_child, vrps, tmp_path, monkeypatch, capsys):
    files = {"updates": [UPDATES, UPDATES2, "--relationships", RELATIONSHIPS],
             "mixed": [DAMAGED, RIB, _text_dump(tmp_path), CAPTURE, CUT, UPDATES2],
             "text first": [_text_dump(tmp_path), CAPTURE, UPDATES2]}[case]
    args = [*files, "--vrps", vrps]
    monkeypatch.setattr(reader, "BUFFER", 16_384)  # many units, taken by both processes
    monkeypatch.setattr(load, "MIN_BYTES", 0 if vrps_in_child else 1 << 40)
    two = _run(args, tmp_path / "two", capsys)
    monkeypatch.setattr(split, "possible", lambda: False)
    one = _run(args, tmp_path / "one", capsys)
    assert one == two and one[0] == 0
    if case == "mixed":
        assert "truncated" in one[1] and "ripe_rrc00_2000.03" in one[1]  # warnings, in the same order
    for name in OUTPUTS:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name
    if case == "updates":
        scenarios = sorted(p.name for p in (tmp_path / "one" / "scenarios").iterdir())
        assert scenarios and scenarios == sorted(p.name for p in (tmp_path / "two" / "scenarios").iterdir())


def test_a_fault_found_by_the_second_process(tmp_path, vrps, monkeypatch, capsys):
    """A RIB record before any PEER_INDEX_TABLE, in a unit the second process may take: the same
    one-line error as one process gives, exit status 2, no output."""
    data = bz2.BZ2Decompressor().decompress(CUT.read_bytes())  # TABLE_DUMP_V2, PEER_INDEX_TABLE first (cut short)
    # drop the PEER_INDEX_TABLE: every RIB record after it is a fault
    length = int.from_bytes(data[8:12], "big")
    bad = tmp_path / "nopeers.mrt"
    bad.write_bytes(data[12 + length:])
    assert "PEER_INDEX_TABLE" in _one_error([UPDATES2, bad, "--vrps", vrps], tmp_path / "out", monkeypatch, capsys)


def _one_error(args, out, monkeypatch, capsys) -> str:
    """The error of a run in two processes, checked to be one line, exit status 2, no output, and
    the same as in one process."""
    monkeypatch.setattr(reader, "BUFFER", 16_384)
    errors = []
    for possible in (True, False):
        monkeypatch.setattr(split, "possible", lambda possible=possible: possible)
        code, err = _run(args, out, capsys)
        assert code == 2 and not out.exists()
        errors.append(err)
    assert errors[0] == errors[1] and errors[0].count("\n") == 1
    return errors[0]


def test_a_stream_damaged_midway(tmp_path, vrps, monkeypatch, capsys):
    """gzip data damaged in the middle of a file (decompressed once, by the first process, for both:
    bgpsim.validate.tee): the same one-line error as one process gives, at the same place."""
    raw = bytearray(UPDATES.read_bytes())
    for k in range(len(raw) // 2, len(raw) // 2 + 64):  # a run of the compressed stream made nonsense
        raw[k] ^= 0x5A
    bad = tmp_path / "damaged.gz"
    bad.write_bytes(bytes(raw))
    assert "gzip data damaged" in _one_error([UPDATES2, bad, "--vrps", vrps], tmp_path / "out", monkeypatch, capsys)


def test_a_file_whose_reading_stops_early(tmp_path, vrps, monkeypatch, capsys):
    """A record of length 0 midway stops the reading of its file (as bgpdump stops); the next file is
    read whole. The second process reads what is left of the stopped file's chunks, so the next one
    starts in step: the outputs are what one process writes."""
    data = gzip.decompress(UPDATES2.read_bytes())
    at = 0
    while at < len(data) // 2:  # a record boundary past the middle
        at += 12 + int.from_bytes(data[at + 8:at + 12], "big")
    stop = tmp_path / "stops.mrt"
    stop.write_bytes(data[:at] + data[at:at + 8] + bytes(4) + data[at:])
    args = [stop, UPDATES, "--vrps", vrps]
    monkeypatch.setattr(reader, "BUFFER", 16_384)
    monkeypatch.setattr(stream, "CHUNK", 16_384)  # chunks past the stop, for the second to read and pass over
    two = _run(args, tmp_path / "two", capsys)
    monkeypatch.setattr(split, "possible", lambda: False)
    one = _run(args, tmp_path / "one", capsys)
    assert one == two and one[0] == 0 and "length 0" in one[1] and "reading stops here" in one[1]
    for name in OUTPUTS:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


@pytest.mark.parametrize("start", ["missing", "damaged"])
def test_a_first_file_unreadable_from_its_start(start, tmp_path, vrps, monkeypatch, capsys):
    """The first file is decompressed from the fork on, and its first bytes tell both processes its
    format (bgpsim.validate.tee): a file that cannot be opened, or whose compressed stream is bad
    from its first bytes, gives the same one-line error as in one process."""
    bad = tmp_path / "first.gz"
    if start == "damaged":
        raw = bytearray(UPDATES.read_bytes())
        for k in range(10, 80):  # the deflate stream after the gzip header made nonsense
            raw[k] ^= 0x5A
        bad.write_bytes(bytes(raw))
    error = _one_error([bad, UPDATES2, "--vrps", vrps], tmp_path / "out", monkeypatch, capsys)
    assert "first.gz" in error and ("gzip data damaged" if start == "damaged" else "no such file") in error
