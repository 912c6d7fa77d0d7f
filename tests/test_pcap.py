"""pcap/pcapng captures of BGP sessions (bgpsim.capture): link types, TCP reassembly, OPEN-derived peer AS
and ASN size, counted against tshark (Debian package `tshark`) on the captures in ../shared/data/pcap and
on captures written here; robustness on mrp_bgp.pcap's 1000 malformed packets and on mutated files."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scapy.layers.inet import IP, TCP
from scapy.layers.inet6 import IPv6

from bgpsim.capture import CaptureReader, read_capture_routes
from bgpsim.cli import main
from bgpsim.base.errors import InputError
from bgpsim.mrt.bgpdump import line
from bgpsim.mrt.record import ANNOUNCE, WITHDRAW

PCAP = Path(__file__).resolve().parents[2] / "shared" / "data" / "pcap"
CAPTURES = sorted(p.name for p in PCAP.iterdir()) if PCAP.is_dir() else []
# UPDATE messages in each capture, as tshark 4.0 counts them (and MANIFEST.md describes the files)
UPDATES = {"eveng_bgp.pcapng": 1, "mrp_bgp.pcap": 0, "ndpi_BGP_Cisco_hdlc_slarp.pcap": 3,
           "ndpi_BGP_redist.pcap": 2, "packetlife_bgp_orf_prefix_advertisement.pcapng": 0}

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None,
                                  reason="tshark not installed (Debian package `tshark`: apt-get install -y tshark)")
needs_data = pytest.mark.skipif(not CAPTURES, reason=f"no captures at {PCAP}")


def _read(path):
    warnings: list[str] = []
    reader = CaptureReader(str(path), warnings.append)
    routes = list(reader.routes())
    return reader, routes, warnings


# --- tshark ----------------------------------------------------------------------------------------------

# tshark 4.0 leaves out-of-order segments unreassembled unless told; the captures written here have one
OUT_OF_ORDER = ("-o", "tcp.reassemble_out_of_order:TRUE")


def tshark_update_count(path, *options) -> int:
    out = subprocess.run(["tshark", "-r", str(path), *options, "-Y", "bgp.type == 2", "-T", "fields", "-e", "bgp.type"],
                         capture_output=True, text=True, check=True).stdout
    return sum(field == "2" for row in out.split() for field in row.split(","))


_PREFIX_FIELDS = {"bgp.nlri_prefix": ANNOUNCE, "bgp.withdrawn_prefix": WITHDRAW,
                  "bgp.mp_reach_nlri_ipv6_prefix": ANNOUNCE, "bgp.mp_unreach_nlri_ipv6_prefix": WITHDRAW}


def tshark_prefixes(path, *options) -> list[tuple[str, str]]:
    """(kind, prefix) of IPv4 unicast NLRI / withdrawn routes and IPv6 MP_(UN)REACH prefixes, in order:
    each prefix field of the PDML follows its `bgp.prefix_length` field."""
    pdml = subprocess.run(["tshark", "-r", str(path), *options, "-Y", "bgp.type == 2", "-T", "pdml"],
                          capture_output=True, text=True, check=True).stdout
    out, plen = [], None
    for field in ET.fromstring(pdml).iter("field"):
        name = field.get("name")
        if name == "bgp.prefix_length":
            plen = field.get("show")
        elif name in _PREFIX_FIELDS:
            out.append((_PREFIX_FIELDS[name], f"{field.get('show')}/{plen}"))
    return out


def _unicast(routes) -> list[tuple[str, str]]:
    return [(r.kind, r.prefix) for r in routes if r.kind in (ANNOUNCE, WITHDRAW)]


@needs_data
@pytest.mark.parametrize("name", CAPTURES)
def test_update_count_known(name):
    reader, _routes, _w = _read(PCAP / name)
    assert reader.updates == UPDATES[name]


@needs_tshark
@needs_data
@pytest.mark.parametrize("name", CAPTURES)
def test_update_count_matches_tshark(name):
    reader, routes, _w = _read(PCAP / name)
    assert reader.updates == tshark_update_count(PCAP / name)
    if name != "ndpi_BGP_redist.pcap":  # its UPDATEs are VPNv4 (SAFI 128): no unicast routes in either
        assert _unicast(routes) == tshark_prefixes(PCAP / name)


@needs_data
def test_real_captures_routes():
    _r, routes, warnings = _read(PCAP / "ndpi_BGP_Cisco_hdlc_slarp.pcap")  # PPP link type, Cisco HDLC frames
    assert not warnings
    assert [line(r) for r in routes] == [
        "BGP4MP_ET|1445156939.195655|A|100.16.1.1|64512|100.16.1.8/30|64512 1|INCOMPLETE|100.16.1.1|0|0||NAG||",
        "BGP4MP_ET|1445156939.195655|A|100.16.1.1|64512|100.16.1.12/30|64512 1|INCOMPLETE|100.16.1.1|0|0||NAG||",
        "BGP4MP_ET|1445156939.195655|A|100.16.1.1|64512|0.0.0.0/0|64512 1|IGP|100.16.1.1|0|0||NAG||"]
    _r, routes, _w = _read(PCAP / "eveng_bgp.pcapng")  # no OPEN in the capture: peer AS 0
    assert len(routes) == 5 and {r.peer_as for r in routes} == {0}
    assert routes[0].peer_ip == "175.254.0.21" and routes[0].communities == ((9964 << 16) | 9611,)


@needs_data
def test_malformed_packets_warn_and_carry_on():
    reader, routes, warnings = _read(PCAP / "mrp_bgp.pcap")
    assert reader.packets == 1000 and routes == []
    assert all(w.startswith(str(PCAP / "mrp_bgp.pcap") + ": ") for w in warnings)


# --- captures written here -------------------------------------------------------------------------------

MARKER = b"\xff" * 16
A, B = "192.0.2.1", "192.0.2.2"
A6, B6 = "2001:db8::1", "2001:db8::2"


def msg(mtype: int, body: bytes = b"") -> bytes:
    return MARKER + struct.pack(">HB", 19 + len(body), mtype) + body


def open_msg(asn: int, as4: bool = True) -> bytes:
    caps = b"\x02\x06\x01\x04\x00\x01\x00\x01"  # multiprotocol IPv4 unicast
    if as4:
        caps += b"\x02\x06\x41\x04" + struct.pack(">I", asn)
    my_as = asn if asn < 65536 else 23456  # AS_TRANS, RFC 6793 section 9
    return msg(1, struct.pack(">BHHIB", 4, my_as, 90, 0x01020304, len(caps)) + caps)


def attr(code: int, value: bytes, flags: int = 0x40) -> bytes:
    return bytes((flags, code, len(value))) + value


def update(path: tuple[int, ...], nlri: bytes = b"", withdrawn: bytes = b"", asn_size: int = 4,
           extra: bytes = b"") -> bytes:
    seg = bytes((2, len(path))) + b"".join(a.to_bytes(asn_size, "big") for a in path)
    attrs = attr(1, b"\x00") + attr(2, seg) + (attr(3, bytes((192, 0, 2, 1))) if nlri else b"") + extra
    return msg(2, struct.pack(">H", len(withdrawn)) + withdrawn + struct.pack(">H", len(attrs)) + attrs + nlri)


def mp_reach_v6(nlri: bytes) -> bytes:
    return attr(14, b"\x00\x02\x01\x10" + bytes(16 - 1) + b"\x01" + b"\x00" + nlri, flags=0x80)


def segment(src, dst, sport, dport, seq, payload=b"", flags="PA"):
    ip = (IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst))
    return bytes(ip / TCP(sport=sport, dport=dport, seq=seq, ack=1, flags=flags) / payload)


def write_pcap(path, frames, linktype=1, link=b""):
    """A pcap file (tcpdump.org format, microseconds); each frame is (seconds, IP packet bytes)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, (t, pkt) in enumerate(frames):
            data = link + pkt
            f.write(struct.pack("<IIII", t, i, len(data), len(data)) + data)
    return str(path)


def write_pcapng(path, frames, linktype=1, link=b"", options=b""):
    """A pcapng file: Section Header, one Interface Description (nanosecond resolution), Enhanced Packets
    (each followed by `options`, whole 4-byte words)."""
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", linktype, 0, 0) + struct.pack("<HHB3x", 9, 1, 9) + b"\0\0\0\0")
    for t, pkt in frames:
        data = link + pkt
        ts = t * 10**9 + 123456789
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(data), len(data)) + data
                     + b"\0" * (-len(data) % 4) + options)
    Path(path).write_bytes(out)
    return str(path)


def session(a=A, b=B, as4=True):
    """A session from SYN to two UPDATEs from a, the second split over three segments, the first sharing
    its segment with a KEEPALIVE; one segment retransmitted, one arriving early."""
    u1 = update((65001, 4200000000) if as4 else (65001, 65002), nlri=b"\x18\x0a\x00\x01" + b"\x10\x0a\x02", asn_size=4 if as4 else 2)
    u2 = update((65001,), withdrawn=b"\x08\x0b", asn_size=4 if as4 else 2,
                extra=mp_reach_v6(b"\x30\x20\x01\x0d\xb8\x00\x01"))
    oa, ob = open_msg(65001, as4), open_msg(4200000001 if as4 else 65002, as4)
    s, r = 1000, 5000
    frames = [(1, segment(a, b, 40000, 179, s - 1, flags="S")),
              (1, segment(b, a, 179, 40000, r - 1, flags="SA")),
              (2, segment(a, b, 40000, 179, s, oa)),
              (2, segment(b, a, 179, 40000, r, ob + msg(4))),
              (3, segment(a, b, 40000, 179, s + len(oa), msg(4) + u1)),
              (3, segment(a, b, 40000, 179, s + len(oa), msg(4) + u1))]  # retransmission
    s += len(oa) + 19 + len(u1)
    parts = [u2[:10], u2[10:30], u2[30:]]
    frames += [(4, segment(a, b, 40000, 179, s, parts[0])),
               (4, segment(a, b, 40000, 179, s + 30, parts[2])),  # early
               (5, segment(a, b, 40000, 179, s + 10, parts[1]))]
    return frames


# Juniper's link type 178: its header, then Ethernet; with an extension TLV (interface index 7); with no
# layer 2 but a payload type, IPv4 (2), or IPv4 after MPLS (3)
JUNIPER = (b"MGC\x00" + bytes(12) + b"\x08\x00", b"MGC\x81\x00\x06\x01\x04\x00\x00\x00\x07" + bytes(12) + b"\x08\x00",
           b"MGC\x02" + struct.pack("<I", 2), b"MGC\x03" + struct.pack("<I", 3))

EXPECTED = [(ANNOUNCE, "10.0.1.0/24"), (ANNOUNCE, "10.2.0.0/16"), (WITHDRAW, "11.0.0.0/8"),
            (ANNOUNCE, "2001:db8:1::/48")]


@pytest.mark.parametrize("linktype,link", [
    (1, bytes(12) + b"\x08\x00"),  # Ethernet
    (1, bytes(12) + b"\x81\x00\x00\x05\x08\x00"),  # Ethernet, 802.1Q
    (101, b""),  # raw IP
    (113, bytes(14) + b"\x08\x00"),  # Linux cooked
    (276, b"\x08\x00" + bytes(18)),  # Linux cooked v2
    (9, b"\xff\x03\x00\x21"),  # PPP
    (9, b"\x21"),  # PPP, no address/control, compressed protocol field
    (104, b"\x0f\x00\x08\x00"),  # Cisco HDLC
    (104, b"\x0f\x00\x88\x47\x00\x01\x21\xfe"),  # Cisco HDLC, MPLS label 18 bottom of stack
    (0, b"\x02\x00\x00\x00"),  # BSD loopback
    *[(178, j) for j in JUNIPER],
])
def test_link_types_and_reassembly(tmp_path, linktype, link):
    f = write_pcap(tmp_path / "s.pcap", session(), linktype, link)
    reader, routes, warnings = _read(f)
    assert not warnings
    assert reader.updates == 2
    assert _unicast(routes) == EXPECTED
    r = routes[0]
    assert (r.record, r.time, r.peer_ip, r.peer_as) == ("BGP4MP_ET", 3, A, 65001)
    assert r.as_path_text == "65001 4200000000"  # both OPENs with the 4-octet AS capability: 4-byte ASNs
    assert routes[-1].next_hop == "::1" and routes[-1].time == 5


def test_ipv6_session_pcapng(tmp_path):
    f = write_pcapng(tmp_path / "s.pcapng", session(A6, B6), 1, bytes(12) + b"\x86\xdd")
    _r, routes, warnings = _read(f)
    assert not warnings and _unicast(routes) == EXPECTED
    assert routes[0].peer_ip == A6 and (routes[0].time, routes[0].usec) == (3, 123456)


def test_two_octet_session_and_guess(tmp_path):
    # OPENs without the 4-octet AS capability: 2-byte ASNs
    _r, routes, _w = _read(write_pcap(tmp_path / "a.pcap", session(as4=False), 101))
    assert routes[0].as_path_text == "65001 65002"
    assert routes[0].peer_as == 65001
    # no OPENs in the capture: the ASN size is guessed from the AS_PATH bytes
    for as4 in (True, False):
        frames = [fr for i, fr in enumerate(session(as4=as4)) if i not in (0, 1, 2, 3)]
        _r, routes, warnings = _read(write_pcap(tmp_path / "b.pcap", frames, 101))
        assert routes[0].peer_as == 0
        assert routes[0].as_path_text == ("65001 4200000000" if as4 else "65001 65002")
        assert _unicast(routes) == EXPECTED


@needs_tshark
def test_written_captures_match_tshark(tmp_path):
    for f in (write_pcap(tmp_path / "s.pcap", session(), 1, bytes(12) + b"\x08\x00"),
              write_pcapng(tmp_path / "s.pcapng", session(A6, B6), 1, bytes(12) + b"\x86\xdd")):
        reader, routes, _w = _read(f)
        assert reader.updates == tshark_update_count(f, *OUT_OF_ORDER) == 2
        assert _unicast(routes) == tshark_prefixes(f, *OUT_OF_ORDER) == EXPECTED


def test_gap_and_damage_are_warnings(tmp_path):
    frames = session()
    del frames[-1]  # a hole in the middle of the second UPDATE
    frames.append((6, segment(A, B, 40000, 179, 10**6, update((1,), nlri=b"\x08\x0c"))))  # far ahead
    bad = update((1,), nlri=b"\x21\x0d")  # /33 in IPv4 NLRI
    frames.append((7, segment(B, A, 179, 40000, 5000 + len(open_msg(1)) + 19, bad)))
    _r, routes, warnings = _read(write_pcap(tmp_path / "g.pcap", frames, 101))
    assert _unicast(routes)[:2] == EXPECTED[:2]
    assert any("packet 10: UPDATE from 192.0.2.2" in w and "prefix length" in w for w in warnings)
    assert any("end of capture" in w for w in warnings)


def test_update_without_attributes_withdraws_its_routes(tmp_path):
    # NLRI with no path attributes: ORIGIN, AS_PATH and NEXT_HOP are missing, so its route is withdrawn
    # (RFC 7606 section 3 d), with a warning; bgpdump 1.6 prints it as an announcement with its defaults
    bare = msg(2, b"\x00\x00\x00\x00\x08\x0a")
    _r, routes, warnings = _read(write_pcap(tmp_path / "n.pcap", [(9, segment(A, B, 40000, 179, 1, bare))], 101))
    assert [line(r) for r in routes] == ["BGP4MP_ET|9.000000|W|192.0.2.1|0|10.0.0.0/8"]
    assert len(warnings) == 1 and "packet 1: UPDATE from 192.0.2.1: byte 21: UPDATE (RFC 7606 section 3 d): " \
        "announces routes without ORIGIN; its routes treated as withdrawn (RFC 7606 section 2)" in warnings[0]


def test_not_a_capture_and_cli(tmp_path, capsys):
    bad = tmp_path / "x.pcap"
    bad.write_bytes(b"\xd4\xc3\xb2\xa1" + b"\x00" * 3)
    with pytest.raises(InputError, match="not a pcap"):
        list(read_capture_routes(str(bad)))
    f = write_pcap(tmp_path / "s.pcap", session(), 101)
    assert main(["dump", f]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "BGP4MP_ET|3.000004|A|192.0.2.1|65001|10.0.1.0/24|65001 4200000000|IGP|192.0.2.1|0|0||NAG||"
    assert len(out) == 4
    assert main(["dump", "--format", "json", write_pcapng(tmp_path / "s.pcapng", session(), 101)]) == 0
    assert capsys.readouterr().out.count("\n") == 4


def test_cut_gzip_capture_gives_the_packets_before_and_a_warning(tmp_path):
    # found by bench/fuzz_readers.py: gzip's EOFError at the end of a cut stream escaped the reader
    import gzip
    whole = Path(write_pcap(tmp_path / "s.pcap", session(), 101)).read_bytes()
    cut = tmp_path / "cut.pcap.gz"
    cut.write_bytes(gzip.compress(whole)[:-6])  # the gzip trailer (CRC, size) missing
    _r, routes, warnings = _read(cut)
    assert _unicast(routes) == EXPECTED
    assert len(warnings) == 1 and "compressed data damaged or cut short" in warnings[0]


def test_pcapng_simple_packet_block_has_no_timestamp(tmp_path):
    # found by bench/fuzz_readers.py: a Simple Packet Block (pcapng block type 3) has no timestamp; scapy
    # gives None for it and the reader raised TypeError
    f = Path(write_pcapng(tmp_path / "s.pcapng", [(9, segment(A, B, 40000, 179, 1, update((64500,), b"\x08\x0a")))],
                          101))
    data = bytearray(f.read_bytes())
    shb_len = struct.unpack_from("<I", data, 4)[0]
    struct.pack_into("<I", data, shb_len + 12, 65535)  # the interface's snap length (scapy cuts SPBs to it)
    epb = data.index(struct.pack("<I", 6))  # the Enhanced Packet Block, rewritten as a Simple Packet Block
    blen, caplen = struct.unpack_from("<I", data, epb + 4)[0], struct.unpack_from("<I", data, epb + 20)[0]
    body = struct.pack("<I", caplen) + data[epb + 28:epb + blen - 4]
    spb = struct.pack("<II", 3, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    f.write_bytes(bytes(data[:epb]) + spb)
    _r, routes, warnings = _read(f)
    assert [(r.prefix, r.time, r.usec) for r in routes] == [("10.0.0.0/8", 0, 0)] and not warnings


# --- robustness ----------------------------------------------------------------------------------------
# The suite runs a few hundred mutated files; the 100,000-input run is separate (set max_examples).

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _seeds(tmp_path_factory):
    d = tmp_path_factory.mktemp("seeds")
    seeds = [Path(write_pcap(d / "s.pcap", session(), 1, bytes(12) + b"\x08\x00")).read_bytes(),
             Path(write_pcapng(d / "s.pcapng", session(A6, B6), 113, bytes(14) + b"\x86\xdd")).read_bytes()]
    if CAPTURES:
        seeds += [(PCAP / n).read_bytes() for n in ("ndpi_BGP_Cisco_hdlc_slarp.pcap", "eveng_bgp.pcapng")]
    return seeds


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return _seeds(tmp_path_factory)


@FUZZ
@given(data=st.data())
def test_mutated_captures_only_input_errors(tmp_path, seeds, data):
    raw = bytearray(data.draw(st.sampled_from(seeds)))
    for _ in range(data.draw(st.integers(1, 8))):
        op = data.draw(st.sampled_from(("flip", "cut", "insert")))
        i = data.draw(st.integers(0, len(raw)))
        if op == "flip" and i < len(raw):
            raw[i] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del raw[i:i + data.draw(st.integers(1, 64))]
        else:
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=32))
    f = tmp_path / "m.pcap"
    f.write_bytes(bytes(raw))
    try:
        for r in read_capture_routes(str(f), lambda m: None):
            line(r)
    except InputError:
        pass


# --- scapy's own messages (issue 12) ----------------------------------------------------------------------
# scapy logs what it gets past in a damaged capture ("WARNING: PcapNg: ...") to standard error, without the
# file's name; the reader turns it into bgpsim warnings naming the file and the packet being read.

VRPS_CSV = PCAP.parent / "rpki" / "vrp_format_examples" / "routinator_test_output" / "111.csv"
# damaged copies of the shared captures: (file, cut at byte or None, byte to flip or None,
# what scapy says, the packet it says it at (the one being read; tshark reads the ones before it whole))
DAMAGE = [
    ("eveng_bgp.pcapng", 3230, None, "PcapNg: Invalid Block body length (too short)", 22),
    ("eveng_bgp.pcapng", -3, None, "PcapNg: Could not read blocklen after block body", 48),
    ("ndpi_BGP_Cisco_hdlc_slarp.pcap", 200, None, "Pcap: packet has been truncated", 3),
    ("ndpi_BGP_redist.pcap", 100, None, "Pcap: packet has been truncated", 1),
    ("packetlife_bgp_orf_prefix_advertisement.pcapng", 168, None, "PcapNg: Invalid Block body length (too short)", 1),
]


def _damaged(tmp_path, name, cut, flip) -> Path:
    data = bytearray((PCAP / name).read_bytes())
    if flip is not None:
        data[flip] ^= 0xFF
    if cut is not None:
        data = data[:cut]
    out = tmp_path / f"{'cut' if cut is not None else 'flip'}{cut if cut is not None else flip}_{name}"
    out.write_bytes(bytes(data))
    return out


def _bgpsim(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "bgpsim", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def _only_bgpsim_lines(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert all(ln.startswith("bgpsim:") for ln in lines), stderr
    return lines


@needs_data
@pytest.mark.parametrize("name,cut,flip,said,number", DAMAGE)
def test_scapy_messages_are_bgpsim_warnings_in_dump(tmp_path, name, cut, flip, said, number):
    f = _damaged(tmp_path, name, cut, flip)
    p = _bgpsim("dump", f)
    assert p.returncode == 0, p.stderr
    lines = _only_bgpsim_lines(p.stderr)
    assert f"bgpsim: warning: {f}: packet {number}: scapy: {said}" in lines
    assert sum(": scapy: " in ln for ln in lines) == 1


@needs_data
def test_scapy_messages_are_bgpsim_warnings_in_validate(tmp_path):
    # several files: where fork is and there are two CPUs, both processes of `validate` read captures
    files = [_damaged(tmp_path, name, cut, flip) for name, cut, flip, _s, _n in DAMAGE]
    p = _bgpsim("validate", *files, "--vrps", VRPS_CSV, "--out", tmp_path / "out", "--quiet")
    assert p.returncode == 0, p.stderr
    lines = _only_bgpsim_lines(p.stderr)
    for f, (_n, _c, _f, said, number) in zip(files, DAMAGE):
        assert f"bgpsim: warning: {f}: packet {number}: scapy: {said}" in lines


@needs_data
def test_scapy_messages_in_a_forked_process(tmp_path):
    # the filter is installed in the parent by its first capture; the forked child reads another
    a, b = (_damaged(tmp_path, name, cut, flip) for name, cut, flip, _s, _n in DAMAGE[:2])
    code = f"""if True:
        import multiprocessing
        from bgpsim.capture import read_capture_routes

        def child():
            list(read_capture_routes({str(b)!r}))

        list(read_capture_routes({str(a)!r}))
        p = multiprocessing.get_context("fork").Process(target=child)
        p.start()
        p.join()
        assert p.exitcode == 0
    """
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = _only_bgpsim_lines(p.stderr)
    assert lines == [f"bgpsim: warning: {a}: packet {DAMAGE[0][4]}: scapy: {DAMAGE[0][3]}",
                     f"bgpsim: warning: {b}: packet {DAMAGE[1][4]}: scapy: {DAMAGE[1][3]}"]


@needs_data
def test_damaged_file_header_scapy_message_joins_the_error(tmp_path):
    f = _damaged(tmp_path, "eveng_bgp.pcapng", None, 8)  # the Section Header Block's byte-order magic
    p = _bgpsim("dump", f)
    assert p.returncode == 2
    assert _only_bgpsim_lines(p.stderr) == [
        f"bgpsim: error: {f}: not a pcap or pcapng capture: Not a supported capture file "
        f"(scapy: PcapNg: Bad magic in Section Header Block (not a pcapng file?))"]


def test_scapy_message_on_every_packet_told_once_then_counted(tmp_path, capsys):
    # an end-of-options option with a length (pcapng section 3.5): scapy says so for each packet, and
    # reads on
    f = write_pcapng(tmp_path / "o.pcapng", session(), 101, options=struct.pack("<HH", 0, 4) + bytes(4))
    reader, routes, warnings = _read(f)
    assert _unicast(routes) == EXPECTED and reader.packets == 9
    said = "scapy: PcapNg: invalid option length 4 for end-of-option"
    assert warnings == [f"{f}: packet 1: {said}", f"{f}: packet 9: {said} (said 8 more times since packet 1; "
                                                   f"this was the last)"]
    assert capsys.readouterr().err == ""
    # the command line: the same, as bgpsim warnings
    p = _bgpsim("dump", f)
    assert p.returncode == 0 and p.stdout.count("\n") == 4
    assert _only_bgpsim_lines(p.stderr) == [f"bgpsim: warning: {w}" for w in warnings]


def test_scapy_log_and_warnings_diverted_only_while_reading(capsys):
    """Each scapy message is taken once, and nothing else is. A handler on both the root and "scapy"
    (which does not propagate) stands for one put there by the application or the test runner
    (pytest >= 9.2 does so with its own), so that the test sees the same on every version."""
    import logging
    import os
    import warnings

    import scapy

    from bgpsim.capture.scapylog import catching

    class Seen(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.texts: list[str] = []

        def emit(self, record):
            self.texts.append(record.getMessage())

    seen = Seen()
    both = [logging.getLogger(), logging.getLogger("scapy")]
    for logger in both:
        logger.addHandler(seen)
    got: list[str] = []
    scapy_file = os.path.join(os.path.dirname(os.path.abspath(scapy.__file__)), "utils.py")
    try:
        with catching(got.append):
            logging.getLogger("scapy.runtime").warning("PcapNg: %s", "one")
            logging.getLogger("scapy.bgpsim_test_child").warning("two")  # a logger made after the filter
            warnings.warn_explicit("three", UserWarning, scapy_file, 1)
            with pytest.warns(UserWarning, match="not scapy's"):
                warnings.warn("not scapy's", UserWarning)
            logging.getLogger("bgpsim_test_other").warning("not scapy's either")
        assert got == ["PcapNg: one", "two", "UserWarning: three"]
        assert seen.texts == ["not scapy's either"]
        assert capsys.readouterr().err == ""
        with pytest.warns(UserWarning, match="four"):  # outside a capture: as before
            warnings.warn_explicit("four", UserWarning, scapy_file, 1)
        logging.getLogger("scapy.bgpsim_test_child").warning("five")
        assert got == ["PcapNg: one", "two", "UserWarning: three"]
        # "five" reaches the handler through "scapy", and again through the root where "scapy" propagates
        assert seen.texts == ["not scapy's either"] + ["five"] * (1 + logging.getLogger("scapy").propagate)
    finally:
        for logger in both:
            logger.removeHandler(seen)


@needs_tshark
@pytest.mark.parametrize("link", JUNIPER)
def test_juniper_link_type_as_tshark_reads_it(tmp_path, link):
    """Link type 178 (JUNIPER_ETHER, synthetic captures of a made-up session): the prefixes we find are
    those tshark finds."""
    f = write_pcap(tmp_path / "j.pcap", session(), 178, link)
    _r, routes, warnings = _read(f)
    assert not warnings and _unicast(routes) == tshark_prefixes(f, *OUT_OF_ORDER) == EXPECTED


@needs_tshark
def test_an_open_in_the_syn(tmp_path):
    """TCP Fast Open (RFC 7413): the client's SYN carries its OPEN. A SYN takes one sequence number, so
    its data starts after it: the OPEN is read (as tshark reads it) and its AS names the peer."""
    oa, ob = open_msg(65001), open_msg(4200000001)
    u = update((65001,), nlri=b"\x18\x0a\x00\x01")
    s, r = 1000, 5000
    frames = [(1, segment(A, B, 40000, 179, s - 1, oa, flags="S")),
              (1, segment(B, A, 179, 40000, r - 1, flags="SA")),
              (2, segment(B, A, 179, 40000, r, ob)),
              (3, segment(A, B, 40000, 179, s + len(oa), u))]
    f = write_pcap(tmp_path / "tfo.pcap", frames, 101)
    _r, routes, warnings = _read(f)
    assert not warnings
    assert [(x.peer_as, x.prefix) for x in routes if x.kind == ANNOUNCE] == [(65001, "10.0.1.0/24")]
    out = subprocess.run(["tshark", "-r", f, "-Y", "bgp.type == 1", "-T", "fields", "-e", "bgp.open.myas"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert sorted(out) == ["23456", "65001"]  # tshark finds both OPENs, the one in the SYN too
