"""MRT reading (RFC 6396) and the `bgpdump -m` formatter, against bgpdump's own reference output and,
when it is installed, against bgpdump 1.6 itself (Debian package `bgpdump`)."""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from bgpsim.cli import main
from bgpsim.base.errors import InputError
from bgpsim.mrt import read_batches, read_routes
from bgpsim.mrt.bgpdump import line
from bgpsim.wire import WireError
from bgpsim.wire.aspath import merge_as4_path, path_text
from bgpsim.wire.attributes import parse_attributes
from bgpsim.wire.nlri import ipv6_text, parse_prefixes

MRT = Path(__file__).resolve().parents[2] / "shared" / "data" / "mrt"
RIPE = MRT / "ripe_bgpdump_testdata"
EXPECTED = RIPE / "expected_bgpdump_output"
# updates.et-header.2015.gz has 577,744 lines; its first 20,000 keep the suite quick (the whole file
# matches too: see the README's MRT section)
PREFIX_ONLY = {"updates.et-header.2015.gz": 20_000}
LIMIT = 30_000  # routes of a file read both ways by test_batches_hold_the_routes_read_routes_gives

needs_data = pytest.mark.skipif(not RIPE.is_dir(), reason=f"shared data not found at {MRT}")
needs_bgpdump = pytest.mark.skipif(shutil.which("bgpdump") is None,
                                   reason="bgpdump not installed (Debian package `bgpdump`: apt-get install -y bgpdump)")


def _compare(ours, theirs, limit=None):
    pairs = itertools.zip_longest(ours, theirs)
    if limit:
        pairs = itertools.islice(pairs, limit)
    n = 0
    for n, (a, b) in enumerate(pairs, start=1):
        assert a == b, f"line {n}:\n ours:     {a}\n bgpdump:  {b}"
    return n


def _expected_cases():
    if not EXPECTED.is_dir():
        return []
    return sorted(p.name[:-len(".bgp.gz")] for p in EXPECTED.glob("*.bgp.gz") if (RIPE / p.name[:-len(".bgp.gz")]).is_file())


@needs_data
@pytest.mark.parametrize("name", _expected_cases())
def test_matches_bgpdump_reference_output(name):
    warnings = []
    limit = PREFIX_ONLY.get(name)
    if name == "updates.nlri_mask_trailing_bits.gz":
        # its one UPDATE ends inside a prefix: bgpdump prints the prefix it cut; an UPDATE found
        # broken gives no routes here (RFC 7606 section 5.3: an NLRI field that does not parse is an
        # error of the whole UPDATE)
        assert [line(r) for r in read_routes(str(RIPE / name), warnings.append)] == []
        assert len(warnings) == 1 and "byte 88" in warnings[0] and warnings[0].endswith("skipped")
        return
    with gzip.open(EXPECTED / f"{name}.bgp.gz", "rt") as f:
        expected = (x.rstrip("\n") for x in f)
        ours = (line(r) for r in read_routes(str(RIPE / name), warnings.append))
        n = _compare(ours, expected, limit)
    assert n > 0
    if not limit:
        assert warnings == []


BGPDUMP_FILES = ["mrtparse_samples/quagga_bgp", "mrtparse_samples/quagga_rib", "mrtparse_samples/openbgpd_bgp",
                 "mrtparse_samples/openbgpd_rib_table-v2", "mrtparse_samples/bird-mrtdump_rib",
                 "mrtparse_samples/bird6-mrtdump_bgp", "libbgpstream_test/ris.rrc06.updates.1427846400.gz",
                 "libbgpstream_test/routeviews.route-views.jinx.updates.1427846400.bz2",
                 "bgpkit_fixtures/examples_local_only_updates.bz2",
                 "bgpkit_fixtures/ripe_rrc03_2010.02_updates.20100227.1600.first-796-records.gz"]


@needs_data
@needs_bgpdump
@pytest.mark.parametrize("name", BGPDUMP_FILES)
def test_matches_bgpdump(name):
    path = MRT / name
    out = subprocess.run(["bgpdump", "-m", "-q", str(path)], capture_output=True, text=True, check=True).stdout
    assert _compare((line(r) for r in read_routes(str(path), lambda w: None)), out.splitlines()) > 0


@needs_data
@pytest.mark.parametrize("name,lines", [("rib.20140523.0600_firstMB.bz2", 270_005),
                                        ("rib6.20151101.0600_firstMB.bz2", 149_578),
                                        ("rib.20080501.0644_firstMB.bz2", 139_291)])
def test_truncated_file_gives_whole_records_then_one_warning(name, lines):
    """Counted as batches (a third of the time Route records take; both are the one reader's)."""
    warnings = []
    path = MRT / "pyasn_data" / name
    assert sum(len(b) for b in read_batches(str(path), warn=warnings.append)) == lines  # bgpdump -m's count
    assert len(warnings) == 1
    assert str(path) in warnings[0] and "truncated" in warnings[0] and "byte " in warnings[0]


@needs_data
def test_rib_without_peer_index_table_is_an_input_error():
    with pytest.raises(InputError, match="PEER_INDEX_TABLE"):
        list(read_routes(str(MRT / "pyasn_data" / "bview.20140112.1600_3samples.bz2")))


# --- hand-made records --------------------------------------------------------------------------

def _attr(code, value, flags=0x40):
    if len(value) > 255:
        return bytes((flags | 0x10, code)) + struct.pack(">H", len(value)) + value
    return bytes((flags, code, len(value))) + value


def _update(attrs=b"", nlri=b"", withdrawn=b""):
    body = struct.pack(">H", len(withdrawn)) + withdrawn + struct.pack(">H", len(attrs)) + attrs + nlri
    return b"\xff" * 16 + struct.pack(">HB", 19 + len(body), 2) + body


def _bgp4mp(msg, ts=1000, sub=4, et_usec=None):
    head = struct.pack(">IIHH", 64500, 64501, 0, 1) + bytes([192, 0, 2, 1, 192, 0, 2, 2])
    body = head + msg
    rtype = 16
    if et_usec is not None:
        body = struct.pack(">I", et_usec) + body
        rtype = 17
    return struct.pack(">IHHI", ts, rtype, sub, len(body)) + body


def _bgp4mp2(msg, ts=1000):
    """A BGP4MP MESSAGE record (subtype 1: 2-byte ASNs)."""
    body = struct.pack(">HHHH", 64500, 64501, 0, 1) + bytes([192, 0, 2, 1, 192, 0, 2, 2]) + msg
    return struct.pack(">IHHI", ts, 16, 1, len(body)) + body


def _path4(*segments):
    out = b""
    for stype, asns in segments:
        out += bytes((stype, len(asns))) + b"".join(struct.pack(">I", a) for a in asns)
    return out


BASIC = (_attr(1, b"\x00") + _attr(2, _path4((2, [64500, 3356]), (1, [65001, 65002]))) +
         _attr(3, bytes([192, 0, 2, 1])) + _attr(8, struct.pack(">III", (3356 << 16) | 100, 0xFFFFFF01, 0xFFFFFF03), 0xC0) +
         _attr(32, struct.pack(">III", 64500, 1, 2), 0xC0) + _attr(6, b""))


def _write(tmp_path, data, name="x.mrt"):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def test_update_line_as_bgpdump_prints_it(tmp_path):
    f = _write(tmp_path, _bgp4mp(_update(BASIC, b"\x18\xc6\x33\x64"), et_usec=42))
    (r,) = read_routes(f)
    assert r.kind == "announce" and r.prefix == "198.51.100.0/24" and r.usec == 42
    assert r.as_path == ((2, (64500, 3356)), (1, (65001, 65002)))
    assert r.large_communities == ((64500, 1, 2),) and r.atomic_aggregate
    assert line(r) == ("BGP4MP_ET|1000.000042|A|192.0.2.1|64500|198.51.100.0/24|64500 3356 {65001,65002}|IGP|"
                       "192.0.2.1|0|0|3356:100 no-export local-AS|AG||")


def test_add_path_ids_and_withdrawals(tmp_path):
    nlri = struct.pack(">I", 7) + b"\x10\x0a\x00"
    f = _write(tmp_path, _bgp4mp(_update(BASIC, nlri, withdrawn=struct.pack(">I", 9) + b"\x08\x0b"), sub=9))
    w, a = read_routes(f)
    assert (w.kind, w.prefix, w.path_id) == ("withdraw", "11.0.0.0/8", 9)
    assert line(w) == "BGP4MP_AP|1000|W|192.0.2.1|64500|11.0.0.0/8|9"
    assert (a.prefix, a.path_id) == ("10.0.0.0/16", 7)


def test_as4_path_merge_and_as_trans_aggregator():
    # a 2-byte speaker: AS_PATH 64500 23456 23456, AS4_PATH 4200000000 4200000001
    path2 = bytes((2, 3)) + struct.pack(">HHH", 64500, 23456, 23456)
    attrs = (_attr(2, path2) + _attr(7, struct.pack(">H", 23456) + bytes([10, 0, 0, 1]), 0xC0) +
             _attr(17, _path4((2, [4200000000, 4200000001])), 0xC0) +
             _attr(18, struct.pack(">I", 4200000001) + bytes([10, 0, 0, 1]), 0xC0))
    a = parse_attributes(attrs, asn_size=2)
    assert path_text(a.as_path) == "64500 4200000000 4200000001"
    assert a.aggregator == (4200000001, "10.0.0.1")
    # RFC 6793 section 4.2.3: a longer AS4_PATH is ignored
    assert merge_as4_path(((2, (1,)),), ((2, (5, 6)),)) == ((2, (1,)),)


def test_confederation_segments_text():
    assert path_text(((3, (1, 2)), (4, (3, 4)), (2, (5,)))) == "(1 2) [3,4] 5"


@pytest.mark.parametrize("attrs,message", [
    (_attr(1, b"\x00\x00"), "ORIGIN (RFC 7606 section 7.1): want 1 byte, got 2"),
    (_attr(1, b"\x03"), "ORIGIN (RFC 7606 section 7.1): want 0 (IGP), 1 (EGP) or 2 (INCOMPLETE), got 3"),
    (_attr(3, b"\x01\x02"), "NEXT_HOP (RFC 7606 section 7.3): want 4 bytes, got 2"),
    (_attr(8, b"\x00\x00\x01", 0xC0), "COMMUNITIES (RFC 7606 section 7.8): want a non-zero multiple of 4 bytes, got 3"),
    (_attr(8, b"", 0xC0), "COMMUNITIES (RFC 7606 section 7.8): want a non-zero multiple of 4 bytes, got 0"),
    (_attr(32, b"\x00" * 8, 0xC0), "LARGE_COMMUNITY (RFC 8092 section 6): want a non-zero multiple of 12 bytes, got 8"),
    (_attr(8, b"\x00" * 4), "COMMUNITIES (RFC 7606 section 3 c): want flags optional transitive (0xc0), got 0x40"),
    (_attr(4, b"\x00" * 4, 0xA0), "MULTI_EXIT_DISC (RFC 7606 section 3 c): want flags optional non-transitive (0x80), "
                                  "got 0xa0"),
    (_attr(14, b"\x00" * 5, 0x80) * 2, "MP_REACH_NLRI (RFC 7606 section 3 g): want it once, got it again"),
    (_attr(2, bytes((2, 3, 0, 1))), "AS_PATH (RFC 4271 section 4.3): segment of 3 4-byte ASNs wants 12 bytes, got 2"),
    (_attr(2, bytes((9, 1, 0, 0, 0, 1))), "want segment type 1 to 4, got 9"),
    (b"\x40\x01\x05\x00", "path attribute type 1 (RFC 4271 section 4.3): want 5 bytes, got 1"),
    (b"\x40\x01", "want a 3-byte header, got 2 bytes"),
])
def test_attribute_rejections_say_what_was_wanted(attrs, message):
    with pytest.raises(WireError) as e:
        parse_attributes(attrs)
    assert message in e.value.message
    assert 0 <= e.value.offset <= len(attrs)


def test_attributes_whose_fault_costs_only_themselves_are_discarded():
    """RFC 7606 sections 7.5 to 7.7, RFC 6793 section 6: a bad AGGREGATOR, ATOMIC_AGGREGATE, AS4_PATH,
    AS4_AGGREGATOR or LOCAL_PREF is left out, the rest read; of a repeated attribute the first counts
    (section 3 g)."""
    a = parse_attributes(BASIC + _attr(7, b"\x00" * 5, 0xC0) + _attr(17, bytes((9, 1, 0, 0, 0, 1)), 0xC0) +
                         _attr(18, b"\x00" * 4, 0xC0) + _attr(5, b"\x00\x01") + _attr(2, _path4((2, [1, 2]))))
    assert (a.aggregator, a.as4_path, a.as4_aggregator, a.local_pref) == (None, None, None, None)
    assert a.as_path_text == "64500 3356 {65001,65002}" and a.atomic_aggregate and a.communities
    assert parse_attributes(_attr(6, b"\x00") + _attr(7, b"\x00" * 6)).atomic_aggregate is False
    assert parse_attributes(_attr(7, b"\x00" * 6, 0xC0) + _attr(7, b"\x00\x01" + bytes(4), 0xC0)).aggregator == (0, "0.0.0.0")


def test_nlri_trailing_bits_cleared_and_bad_length_rejected():
    assert parse_prefixes(b"\x0d\x0b\x0f", 0, 3, 1) == [("11.8.0.0/13", None)]
    with pytest.raises(WireError, match="want a prefix length <= 32, got 33"):
        parse_prefixes(b"\x21\x00\x00\x00\x00\x00", 0, 6, 1)


def test_ipv6_text_as_bgpdump():
    assert ipv6_text(bytes.fromhex("200107f8003000000001000100001853")) == "2001:7f8:30::1:1:0:1853"
    assert ipv6_text(bytes.fromhex("00000000000000000000ffffc1000038")) == "::ffff:193.0.0.56"
    assert ipv6_text(bytes(16)) == "::"
    assert ipv6_text(bytes.fromhex("fe800000000000000000000000000000")) == "fe80::"


def test_damaged_record_is_skipped_with_its_offset(tmp_path):
    good = _bgp4mp(_update(BASIC, b"\x08\x0a"))
    bad = _bgp4mp(_update(BASIC, b"\x08\x0a\x21\x0a"))  # a prefix of /33
    warnings = []
    routes = list(read_routes(_write(tmp_path, good + bad + good), warnings.append))
    assert len(routes) == 2 and len(warnings) == 1
    assert f"record at byte {len(good)}" in warnings[0] and "want a prefix length <= 32, got 33" in warnings[0]


def test_attribute_overrunning_its_block_withdraws_the_routes(tmp_path):
    """RFC 7606 section 4: an attribute longer than the block leaves the routes without readable
    attributes: they are withdrawn (a W line each), with one warning naming the byte; before any
    MP_REACH_NLRI, which goes first (section 5.1), the routes it may hide cannot be found, and the
    record is skipped (section 5.3)."""
    good = _bgp4mp(_update(BASIC, b"\x08\x0a"))
    mp = _attr(14, struct.pack(">HBB", 2, 1, 16) + bytes(16) + b"\x00" + b"\x20\x20\x01\x0d\xb8", 0x80)
    bad = _bgp4mp(_update(mp + BASIC[:-3] + b"\x40\x06\x09", b"\x08\x0a\x08\x0b"))
    hiding = _bgp4mp(_update(BASIC[:-3] + b"\x40\x06\x09", b"\x08\x0a"))
    warnings = []
    routes = list(read_routes(_write(tmp_path, good + bad + hiding + good), warnings.append))
    assert [r.kind for r in routes] == ["announce", "withdraw", "withdraw", "withdraw", "announce"]
    assert [r.prefix for r in routes[1:4]] == ["10.0.0.0/8", "11.0.0.0/8", "2001:db8::/32"] and len(warnings) == 2
    at = len(good) + len(bad) - 4  # where the attribute's value starts: 9 bytes wanted, 0 remain before the NLRI
    assert f"byte {at}: path attribute type 6 (RFC 7606 section 4): want 9 bytes, got 0; its routes treated as " \
        "withdrawn (RFC 7606 section 2)" in warnings[0]
    assert "before any MP_REACH_NLRI (RFC 7606 section 5.3)" in warnings[1]
    assert f"record at byte {len(good) + len(bad)} " in warnings[1]


@pytest.mark.parametrize("compress", [None, gzip.compress, bz2.compress])
def test_truncated_stream_one_warning(tmp_path, compress):
    rec = _bgp4mp(_update(BASIC, b"\x08\x0a"))
    data = rec * 3 + rec[:20]
    if compress:
        data = compress(data)[:-6] if compress is gzip.compress else compress(data)
    warnings = []
    routes = list(read_routes(_write(tmp_path, data), warnings.append))
    assert len(routes) == 3 and len(warnings) == 1
    assert "truncated" in warnings[0] and f"byte {3 * len(rec)}" in warnings[0]


def test_overlong_record_is_skipped_unread_and_a_damaged_length_stops_reading(tmp_path):
    good = _bgp4mp(_update(BASIC, b"\x08\x0a"))
    huge = struct.pack(">IHHI", 0, 16, 4, 0xFFFFFFF0)  # as bgpdump: read on if the file holds it, else stop
    warnings = []
    assert len(list(read_routes(_write(tmp_path, good + huge + good), warnings.append))) == 1
    assert len(warnings) == 1 and f"byte {len(good) + 8}: " in warnings[0] and "4294967280" in warnings[0]
    warnings.clear()
    big = struct.pack(">IHHI", 0, 99, 0, (1 << 24) + 1) + bytes((1 << 24) + 1)
    assert len(list(read_routes(_write(tmp_path, good + big + good, "big.mrt"), warnings.append))) == 2
    assert len(warnings) == 1 and f"byte {len(good)}: record of 16777217 bytes" in warnings[0]


def test_not_mrt_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not an MRT file"):
        list(read_routes(_write(tmp_path, b"hello, this is not an MRT file\n")))


def test_cli_dump_formats_and_errors(tmp_path, capsys):
    f = _write(tmp_path, _bgp4mp(_update(BASIC, b"\x08\x0a")))
    assert main(["dump", f]) == 0
    assert capsys.readouterr().out.startswith("BGP4MP|1000|A|192.0.2.1|64500|10.0.0.0/8|")
    assert main(["dump", "--format", "json", f]) == 0
    assert '"prefix":"10.0.0.0/8"' in capsys.readouterr().out
    assert main(["dump", "--format", "csv", f]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("record,time,kind,") and len(out) == 2
    assert main(["dump", _write(tmp_path, b"garbage" * 3, "g.mrt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an MRT file" in err


# --- 1999-2000 RIS files: the deprecated BGP type, Zebra's short state changes, damaged framing ---

HISTORIC = MRT / "bgpkit_fixtures"


def _bgpdump_lines(path):
    return subprocess.run(["bgpdump", "-m", "-q", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()


@needs_data
@needs_bgpdump
@pytest.mark.parametrize("name", ["ripe_rrc00_1999.09_updates.19990903.1041.gz", "ripe_rrc00_1999.12_updates.19991214.1621.gz",
                                  "ripe_rrc00_2000.01_updates.20000102.2014.gz",
                                  "ripe_rrc01_2000.11_updates.20001104.0124.gz",
                                  "ripe_rrc00_2000.01_bview.20000111.0032.gz"])
def test_historic_ris_files_match_bgpdump(name):
    warnings = []
    ours = (line(r) for r in read_routes(str(HISTORIC / name), warnings.append))
    assert _compare(ours, _bgpdump_lines(HISTORIC / name)) > 0
    if name.startswith("ripe_rrc00_2000.01_bview"):  # records 4 bytes short: bgpdump reads one entry, then
        assert "byte 794185: " in warnings[-1] and "stops" in warnings[-1]  # garbage, then a length past the end


@needs_data
@needs_bgpdump
def test_damaged_length_skips_the_record_and_stops_where_bgpdump_stops():
    # the record at byte 188 claims a withdrawn-routes length past its end: bgpdump prints 2042 made-up
    # withdrawals from its bytes (peer 0.5.0.3, lengths such as /117); we skip it with a warning
    path = HISTORIC / "ripe_rrc00_2000.03_updates.20000325.0345.gz"
    warnings = []
    ours = [line(r) for r in read_routes(str(path), warnings.append)]
    theirs = [x for x in _bgpdump_lines(path) if "|0.5.0.3|13937|" not in x]
    assert ours == theirs and len(ours) == 4
    assert "record at byte 188 (type 5, subtype 1) skipped" in warnings[0]
    assert "byte 15032: " in warnings[-1] and "runs past the end of the file" in warnings[-1]


def test_bgp_type_5_update_and_state_change(tmp_path):
    peer = struct.pack(">H4sH4s", 3333, bytes([193, 0, 0, 56]), 12654, bytes([193, 0, 0, 1]))
    path2 = bytes((2, 2)) + struct.pack(">HH", 3333, 286)
    attrs = _attr(1, b"\x00") + _attr(2, path2) + _attr(3, bytes([193, 0, 0, 56]))
    upd = peer + struct.pack(">H", 2) + b"\x08\x0b" + struct.pack(">H", len(attrs)) + attrs + b"\x10\x0a\x01"
    state = struct.pack(">H4sHH", 3333, bytes([193, 0, 0, 56]), 1, 2)
    data = (struct.pack(">IHHI", 7, 5, 1, len(upd)) + upd + struct.pack(">IHHI", 8, 5, 3, len(state)) + state)
    w, a, s = read_routes(_write(tmp_path, data))
    assert (w.prefix, a.prefix, a.origin_as) == ("11.0.0.0/8", "10.1.0.0/16", 286)
    assert line(w) == "BGP|7|W|193.0.0.56|3333|193.0.0.56/8"  # bgpdump's inet_ntoa quirk
    assert line(a) == "BGP|7|A|193.0.0.56|3333|10.1.0.0/16|3333 286|IGP|193.0.0.56|0|0|NAG||"
    assert line(s) == "BGP|8|STATE|193.0.0.56|3333|1|2"


def test_batches_carry_the_routes_in_columns(tmp_path):
    rec = _bgp4mp(_update(BASIC, b"\x18\xc6\x33\x64\x08\x0a", withdrawn=b"\x08\x0b"))
    (b,) = read_batches(_write(tmp_path, rec * 3), size=100)
    assert len(b) == 9
    assert b.kind.tolist()[:3] == [1, 0, 0] and b.plen.tolist()[:3] == [8, 24, 8]
    assert b.lo.tolist()[:3] == [11 << 24, 0xC6336400, 10 << 24] and not b.hi.any()
    assert b.origin.tolist()[:3] == [-2, -1, -1]  # a withdrawal has no path; this path ends in an AS_SET
    assert [r.prefix for r in b.routes()] == [r.prefix for r in read_routes(_write(tmp_path, rec * 3, "y.mrt"))]
    assert b.route(4).prefix == "198.51.100.0/24" and b.peers[b.peer[4]] == ("192.0.2.1", 64500)


def test_bgp4mp_entry_read():
    """BGP4MP_ENTRY, which bgpdump does not read: OpenBGPD's dump of its RIB in that type holds the
    same routes as its TABLE_DUMP_V2 dump of the same RIB (expected from bgpdump's own lines, here
    written out, so the test needs no bgpdump)."""
    mp, v2 = MRT / "mrtparse_samples" / "openbgpd_rib_table-mp", MRT / "mrtparse_samples" / "openbgpd_rib_table-v2"
    if not mp.exists():
        pytest.skip(f"shared data not found: {mp}")
    ours = sorted(line(r).split("|", 3)[3] for r in read_routes(str(mp)))
    assert len(ours) == 31 and all(r.record == "BGP4MP_ENTRY" and r.kind == "rib" for r in read_routes(str(mp)))
    assert ours == sorted(line(r).split("|", 3)[3] for r in read_routes(str(v2)))
    assert "192.168.1.10|65000|192.168.0.0/16|65015|IGP|192.168.0.15|100|0||NAG|65000 192.168.0.15|" in ours


def _batch_lines(path, warnings, limit=None):
    """Lines of the routes of `path` by way of read_batches: all, or the batches holding the first `limit`."""
    out = []
    for b in read_batches(path, 1000, warnings.append):
        routes = list(b.routes())
        assert [r.attrs.origin_as if r.attrs is not None and r.kind != "withdraw" else -2 for r in routes] == \
            b.origin.tolist()
        out += [line(r) for r in routes]
        if limit is not None and len(out) >= limit:
            break
    return out


def _mrt_files():
    if not MRT.is_dir():
        return []
    return sorted(str(p.relative_to(MRT)) for p in MRT.rglob("*") if p.is_file() and p.suffix not in (".md", ".rst", ".txt")
                  and "expected" not in p.parts[-2] and "3samples" not in p.name)


@needs_data
@pytest.mark.parametrize("name", _mrt_files())
def test_batches_hold_the_routes_read_routes_gives(name):
    """read_batches gives the routes (and the warnings) read_routes gives, on every MRT file of the
    shared data: the same reading of the core, as columns and as Route records. Of a large file, the
    batches holding its first LIMIT routes, to keep the suite quick."""
    w1, w2 = [], []
    got = _batch_lines(str(MRT / name), w2, LIMIT)
    routes = (line(r) for r in read_routes(str(MRT / name), w1.append) if r.kind != "state")
    want = list(itertools.islice(routes, len(got) if len(got) >= LIMIT else None))
    assert got == want
    if len(got) < LIMIT:
        assert w1 == w2


def test_unusual_records(tmp_path):
    """Records of every shape the core must read exactly (synthetic): plain UPDATEs, IPv6 by
    MP_REACH/MP_UNREACH, AS4_PATH merged for a 2-byte session, attributes repeated or of the wrong
    length, another address family, a _LOCAL subtype, no attributes, a long NLRI; and a damaged
    prefix. Every route in file order, the damaged UPDATE giving none, those RFC 7606 withdraws
    withdrawn, each with its warning; the same whatever the size of the buffers the stream is cut into."""
    v6 = bytes.fromhex("20010db8000000000000000000000001")
    mp_reach = _attr(14, struct.pack(">HBB", 2, 1, 16) + v6 + b"\x00" + b"\x20\x20\x01\x0d\xb8" + b"\x30\x20\x01\x0d\xb8\x00\x01", 0x80)
    mp_unreach = _attr(15, struct.pack(">HB", 2, 1) + b"\x20\x20\x01\x0d\xb9", 0x80)
    odd_family = _attr(15, struct.pack(">HB", 25, 70) + b"\x01\x02", 0x80)
    as4 = _attr(17, _path4((2, [70000, 3356])), 0xC0)
    two_byte_path = _attr(2, bytes((2, 2)) + struct.pack(">HH", 23456, 3356))
    plain = _attr(1, b"\x00") + _attr(3, bytes([192, 0, 2, 1]))
    records = [
        _bgp4mp(_update(BASIC, b"\x18\xc6\x33\x64\x08\x0a", withdrawn=b"\x08\x0b")),  # 3 routes
        _bgp4mp(_update(BASIC + mp_reach + mp_unreach, b"\x10\x0a\x01"), et_usec=7),  # 4, IPv6 too
        _bgp4mp(_update(BASIC, b"\x18\xc6\x33\x64\x21\x0a"), ts=1001),  # a prefix of /33: damaged, none
        _bgp4mp2(_update(plain + two_byte_path + as4, b"\x08\x0c")),  # AS4_PATH merged (RFC 6793)
        _bgp4mp(_update(BASIC + _attr(2, _path4((2, [1, 2]))), b"\x08\x0d")),  # AS_PATH twice: the first
        _bgp4mp(_update(BASIC + odd_family, b"\x08\x0e")),  # MP_UNREACH of another family
        _bgp4mp(_update(BASIC + _attr(4, b"\x00\x00\x01", 0x80), b"\x08\x0f")),  # MED of 3 bytes: withdrawn
        _bgp4mp(_update(BASIC, b"\x08\x14"), sub=7),  # MESSAGE_AS4_LOCAL
        _bgp4mp2(_update(plain + two_byte_path, b"\x08\x15")),  # 2-byte ASNs
        _bgp4mp(_update(b"", b"\x08\x10")),  # no attributes at all: withdrawn
        _bgp4mp(_update(plain, b"\x08\x11")),  # attributes without an AS_PATH: withdrawn
        _bgp4mp(_update(BASIC, b"".join(bytes((24, 10, k >> 8, k & 255)) for k in range(300)))),  # long NLRI
        _bgp4mp(_update(plain + _attr(2, b""), b"\x08\x16")),  # an empty AS_PATH (iBGP)
    ]
    path = _write(tmp_path, b"".join(records))
    warnings = []
    want = [line(r) for r in read_routes(path, warnings.append)]
    assert len(want) == 3 + 4 + 0 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 300 + 1
    assert want[-1] == "BGP4MP|1000|A|192.0.2.1|64500|22.0.0.0/8||IGP|192.0.2.1|0|0||NAG||"
    assert len(warnings) == 5 and "got 33" in warnings[0] and warnings[0].endswith("skipped")
    assert "path attribute type 2 (RFC 7606 section 3 g)" in warnings[1] and "attribute discarded" in warnings[1]
    assert "MULTI_EXIT_DISC (RFC 7606 section 7.4): want 4 bytes, got 3" in warnings[2]
    assert "without ORIGIN" in warnings[3] and "without AS_PATH" in warnings[4]
    assert all(w.endswith("treated as withdrawn (RFC 7606 section 2)") for w in warnings[2:])
    assert "|70000 3356|" in want[7] and "|64500 3356 {65001,65002}|" in want[8] and want[10].startswith("BGP4MP|1000|W|")
    assert want[11].startswith("BGP4MP_LOCAL|") and want[13:15] == ["BGP4MP|1000|W|192.0.2.1|64500|16.0.0.0/8",
                                                                    "BGP4MP|1000|W|192.0.2.1|64500|17.0.0.0/8"]
    from bgpsim.mrt import reader

    for size in (13, 100, 200):  # the stream cut into the core's buffers at every kind of place
        old, reader.BUFFER = reader.BUFFER, size
        try:
            w = []
            assert [line(r) for r in read_routes(path, w.append)] == want and w == warnings
            assert _batch_lines(path, []) == [x for x in want]
        finally:
            reader.BUFFER = old


@pytest.mark.parametrize("source", ["updates.20160811.1600.gz", "expected_bgpdump_output/updates.20160811.1600.gz.bgp.gz"],
                         ids=["mrt-gzip", "bgpdump-text-gzip"])
def test_dump_reads_standard_input(source):
    """`bgpsim dump -`: the real command with the file on standard input prints bgpdump's own lines."""
    path = RIPE / source
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared MRT data set is not here)")
    root = Path(__file__).resolve().parent.parent
    with path.open("rb") as stdin:
        p = subprocess.run([sys.executable, "-m", "bgpsim", "dump", "-"], stdin=stdin, capture_output=True,
                           cwd=root, check=True)
    with gzip.open(EXPECTED / "updates.20160811.1600.gz.bgp.gz") as f:
        assert p.stdout == f.read() and p.stderr == b""


def test_dump_names_standard_input_in_its_messages(capsys, monkeypatch):
    """A cut stream on standard input: the warning calls it <stdin>; '-' given twice is an error."""
    cut = gzip.compress(b"BGP4MP|1|A|192.0.2.1|64500|198.51.100.0/24|64500|IGP|192.0.2.1|0|0||NAG||\n")[:-8]  # no end marker
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(cut)))
    assert main(["dump", "-"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("BGP4MP|1|A|192.0.2.1|64500|198.51.100.0/24|")
    assert cap.err.startswith("bgpsim: warning: <stdin>: truncated: ")
    assert main(["dump", "-", "-"]) == 2
    assert "standard input" in capsys.readouterr().err
