"""BGPsec UPDATEs (RFC 8205) in route data: the RFC 8208 example UPDATEs (attribute type rewritten from
the pre-IANA 30 to 33) in an MRT file written by hand (RFC 6396 section 4.4) and in a pcap written with
scapy. The readers decode BGPsec_PATH: its Secure_Path is the AS path (section 4.4), the JSON output
carries it and the signers' SKIs, `Route.local_as` is the receiving AS, the OPENs' BGPsec capabilities
(section 2.1) are read; tshark (Debian package `tshark`) decodes the same ASes, pCounts and SKIs from
the pcap. bgpdump skips attribute 33 and prints an empty path: that difference is intended.
A damaged BGPsec_PATH is a warning naming its byte offset, like any damaged attribute."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from functools import cache

import pytest
from helpers import shared

from bgpsim.capture import CaptureReader
from bgpsim.mrt import read_batches, read_routes
from bgpsim.mrt.bgpdump import line
from bgpsim.wire import WireError
from bgpsim.wire.aspath import AS_CONFED_SEQUENCE, AS_SEQUENCE
from bgpsim.wire.attributes import NO_PATH, parse_attributes
from bgpsim.wire.open import parse_open

ORIGIN, TRANSIT, RECEIVER = 64496, 65536, 65537
# the signers' Subject Key Identifiers, most recent (AS 65536's) first
SKIS = ["47F23BF1AB2F8A9D26864EBBD8DF2711C74406EC", "AB4D910F55CAE71A215EF3CAFE3ACC45B5EEC154"]
PREFIXES = ["192.0.2.0/24", "2001:db8::/32"]
PEER_IP, LOCAL_IP = "198.51.100.1", "198.51.100.2"
AS_TRANS = 23456

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None,
                                  reason="tshark not installed (Debian package `tshark`: apt-get install -y tshark)")


@cache
def updates() -> list[bytes]:
    """The two example UPDATEs of ../shared/data/bgpsec/rfc8208_vectors.json (IPv4, then IPv6), BGPsec_PATH
    with its assigned type code 33 (the test is skipped without the shared data)."""
    vectors = json.loads(shared("bgpsec", "rfc8208_vectors.json").read_text())
    out = []
    for name in sorted(vectors["updates"], key=lambda n: not n.startswith("ipv4")):
        msg = bytes.fromhex(vectors["updates"][name]["hex"])
        assert msg.count(b"\x90\x1e") == 1
        out.append(msg.replace(b"\x90\x1e", b"\x90\x21"))
    return out


def _value_at(msg: bytes) -> int:
    """Where the BGPsec_PATH value starts in `msg` (after flags, type and the 2-byte length)."""
    return msg.index(b"\x90\x21") + 4


def _with_value(msg: bytes, value: bytes) -> bytes:
    """`msg` with its BGPsec_PATH value replaced (lengths fixed up)."""
    at = _value_at(msg)
    old = int.from_bytes(msg[at - 2:at], "big")
    body = msg[19:]
    a_len_at = 2 + int.from_bytes(body[:2], "big")
    a_len = int.from_bytes(body[a_len_at:a_len_at + 2], "big") - old + len(value)
    new = msg[:at - 2] + struct.pack(">H", len(value)) + value + msg[at + old:]
    new_body = new[19:]
    new_body = new_body[:a_len_at] + struct.pack(">H", a_len) + new_body[a_len_at + 2:]
    return new[:16] + struct.pack(">HB", 19 + len(new_body), 2) + new_body


# --- MRT, RFC 6396 section 4.4: BGP4MP (16) / BGP4MP_ET (17), subtype MESSAGE_AS4 (4) ----------------------

def bgp4mp_as4(msg: bytes, ts: int, et_usec: int | None = None, peer_as: int = TRANSIT, local_as: int = RECEIVER,
               sub: int = 4) -> bytes:
    body = struct.pack(">IIHH", peer_as, local_as, 0, 1) + bytes(map(int, PEER_IP.split("."))) + \
        bytes(map(int, LOCAL_IP.split("."))) + msg
    rtype = 16
    if et_usec is not None:
        body = struct.pack(">I", et_usec) + body
        rtype = 17
    return struct.pack(">IHHI", ts, rtype, sub, len(body)) + body


def _plain_update() -> bytes:
    """An ordinary UPDATE (AS_PATH 65536 3356, 10.0.0.0/8): read by the array reader."""
    attrs = (b"\x40\x01\x01\x00" + b"\x40\x02\x0a\x02\x02" + struct.pack(">II", TRANSIT, 3356) +
             b"\x40\x03\x04\xc6\x33\x64\x01")
    body = b"\x00\x00" + struct.pack(">H", len(attrs)) + attrs + b"\x08\x0a"
    return b"\xff" * 16 + struct.pack(">HB", 19 + len(body), 2) + body


def _mrt(tmp_path, records, name="bgpsec.mrt") -> str:
    p = tmp_path / name
    p.write_bytes(b"".join(records))
    return str(p)


@pytest.fixture
def mrt_file(tmp_path):
    return _mrt(tmp_path, [bgp4mp_as4(updates()[0], 1700000000, et_usec=250), bgp4mp_as4(updates()[1], 1700000001),
                           bgp4mp_as4(_plain_update(), 1700000002)])


def _dump(*args) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "bgpsim", "dump", *map(str, args)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def _check_bgpsec_json(rows):
    assert [r["prefix"] for r in rows] == PREFIXES
    for r in rows:
        assert r["as_path"] == f"{TRANSIT} {ORIGIN}"
        assert r["bgpsec"] == {"segments": [{"asn": TRANSIT, "pcount": 1, "confed": False},
                                            {"asn": ORIGIN, "pcount": 1, "confed": False}],
                               "blocks": [{"suite": 1, "skis": SKIS}]}


def test_mrt_routes_take_the_secure_path(mrt_file):
    warnings = []
    routes = list(read_routes(mrt_file, warnings.append))
    assert not warnings
    assert [r.prefix for r in routes] == PREFIXES + ["10.0.0.0/8"]
    for r in routes[:2]:
        assert r.as_path == ((AS_SEQUENCE, (TRANSIT, ORIGIN)),) and r.origin_as == ORIGIN
        assert r.peer_as == TRANSIT and r.local_as == RECEIVER and r.kind == "announce"
        assert r.attrs.bgpsec.as_path() == (TRANSIT, ORIGIN)
        assert [b.suite for b in r.attrs.bgpsec.blocks] == [1]
        assert [s.ski.hex().upper() for s in r.attrs.bgpsec.blocks[0].signatures] == SKIS
    assert [r.next_hop for r in routes[:2]] == ["198.51.100.100", "2001:10::c633:6464"]
    plain = routes[2]
    assert plain.attrs.bgpsec is None and plain.local_as == RECEIVER and plain.origin_as == 3356
    # the columns: the same routes, the BGPsec groups marked (RouteBatch.bgpsec_groups)
    (batch,) = list(read_batches(mrt_file, warn=warnings.append))
    assert not warnings
    assert batch.origin.tolist() == [ORIGIN, ORIGIN, 3356]
    signed = set(batch.bgpsec_groups())
    assert [int(g) in signed for g in batch.group] == [True, True, False]
    assert [(r.prefix, r.as_path_text, r.local_as, line(r)) for r in batch.routes()] == \
        [(r.prefix, r.as_path_text, r.local_as, line(r)) for r in routes]


def test_mrt_dump_bgpdump_json_csv(mrt_file):
    code, out, err = _dump(mrt_file)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[:2] == [
        f"BGP4MP_ET|1700000000.000250|A|{PEER_IP}|{TRANSIT}|192.0.2.0/24|{TRANSIT} {ORIGIN}|INCOMPLETE|"
        "198.51.100.100|0|0||NAG||",
        f"BGP4MP|1700000001|A|{PEER_IP}|{TRANSIT}|2001:db8::/32|{TRANSIT} {ORIGIN}|INCOMPLETE|2001:10::c633:6464|"
        "0|0||NAG||"]
    code, out, err = _dump("--format", "json", mrt_file)
    assert code == 0 and err == ""
    rows = [json.loads(x) for x in out.splitlines()]
    _check_bgpsec_json(rows[:2])
    assert "bgpsec" not in rows[2]
    code, out, err = _dump("--format", "csv", mrt_file)
    head, *body = out.splitlines()
    assert code == 0 and "bgpsec" not in head and len(body) == 3
    assert all(f",{TRANSIT} {ORIGIN}," in row for row in body[:2])


@pytest.mark.skipif(shutil.which("bgpdump") is None,
                    reason="bgpdump not installed (Debian package `bgpdump`: apt-get install -y bgpdump)")
def test_bgpdump_differs_only_in_the_path(mrt_file):
    """bgpdump 1.6 skips attribute 33: an empty AS path where we print the Secure_Path's; the rest alike."""
    theirs = subprocess.run(["bgpdump", "-m", mrt_file], capture_output=True, text=True).stdout.splitlines()
    ours = [line(r) for r in read_routes(mrt_file)]
    assert len(theirs) == len(ours) == 3
    for a, b in zip(ours[:2], theirs[:2]):
        fa, fb = a.split("|"), b.split("|")
        assert fa[6] == f"{TRANSIT} {ORIGIN}" and fb[6] == ""
        assert fa[:6] + fa[7:] == fb[:6] + fb[7:]
    assert ours[2] == theirs[2]


def test_local_subtype_names_the_receiving_peer(tmp_path):
    """MESSAGE_AS4_LOCAL (RFC 6396 section 4.4.6): sent by the local speaker, so received by the peer."""
    f = _mrt(tmp_path, [bgp4mp_as4(updates()[0], 1, peer_as=RECEIVER, local_as=TRANSIT, sub=7)])
    (r,) = read_routes(f)
    assert r.record == "BGP4MP_LOCAL" and r.peer_as == TRANSIT and r.local_as == RECEIVER
    assert r.as_path_text == f"{TRANSIT} {ORIGIN}"


# --- damaged BGPsec_PATH values: a warning with the offset, the routes withdrawn (RFC 8205 section 5.2,
# RFC 7606 section 2), never a traceback -------------------------------------------------------------------

@pytest.mark.parametrize("cut,reason", [
    (lambda v: struct.pack(">H", 9) + v[2:], "Secure_Path Length: want 2 + 6 N with N >= 1, got 9"),
    (lambda v: v[:14], "want at least one Signature_Block"),
    (lambda v: v[:-1], "Signature_Block Length: want 3 to"),
])
def test_damaged_bgpsec_path_is_a_warning_with_its_offset(tmp_path, cut, reason):
    good = bgp4mp_as4(_plain_update(), 5)
    msg = updates()[0]
    value = msg[_value_at(msg):]
    bad_msg = _with_value(msg, cut(value))
    bad = bgp4mp_as4(bad_msg, 6)
    f = _mrt(tmp_path, [good, bad, good])
    warnings = []
    routes = list(read_routes(f, warnings.append))
    assert [r.kind for r in routes] == ["announce", "withdraw", "announce"] and len(warnings) == 1
    (w,) = warnings
    assert w.endswith("its routes treated as withdrawn (RFC 7606 section 2)")
    assert "BGPsec_PATH (RFC 8205 section 3)" in w and reason in w
    # the offset: in the file, inside the BGPsec_PATH value
    at = int(w.split("byte ", 1)[1].split(":", 1)[0])
    start = len(good) + len(bad) - len(bad_msg) + _value_at(bad_msg)
    assert start <= at <= len(good) + len(bad)  # at the end: where a Signature_Block was wanted
    if reason.startswith("Secure_Path Length"):
        assert at == start
    # the column reader and the command line say the same, and carry on
    w2 = []
    assert sum(len(b) for b in read_batches(f, warn=w2.append)) == 3 and w2 == warnings
    code, out, err = _dump(f)
    assert code == 0 and len(out.splitlines()) == 3 and out.splitlines()[1].split("|")[2] == "W"
    assert err.count("\n") == 1 and "warning" in err and f"byte {at}:" in err and "Traceback" not in err


def test_as_path_and_bgpsec_path_together_are_refused(tmp_path):
    msg = updates()[0]
    attrs_at = 19 + 2 + 2
    aspath = b"\x40\x02\x06\x02\x01" + struct.pack(">I", TRANSIT)
    body = msg[19:]
    a_len = int.from_bytes(body[2:4], "big") + len(aspath)
    both = msg[:16] + struct.pack(">HB", len(msg) + len(aspath), 2) + b"\x00\x00" + struct.pack(">H", a_len) + \
        aspath + msg[attrs_at:]
    warnings = []
    assert [r.kind for r in read_routes(_mrt(tmp_path, [bgp4mp_as4(both, 1)]), warnings.append)] == ["withdraw"]
    assert len(warnings) == 1 and "BGPsec_PATH (RFC 8205 section 5.2): want AS_PATH or BGPsec_PATH, not both" in warnings[0]


def test_path_reconstruction_pcount_and_confed():
    """RFC 8205 section 4.4: each AS pCount times; Confed_Segment ASes in AS_CONFED_SEQUENCE segments."""
    from bgpsim.rpki.bgpsec.path import BgpsecPath, Segment, Signature, SignatureBlock

    segs = (Segment(65010, 1, 0x80), Segment(65011, 2, 0x80), Segment(TRANSIT, 2, 0), Segment(65020, 0, 0),
            Segment(ORIGIN, 3, 0))
    sigs = SignatureBlock(1, tuple(Signature(bytes([k]) * 20, b"\x30\x00") for k in range(len(segs))))
    a = parse_attributes(BgpsecPath(segs, (sigs,)).attribute())
    assert a.as_path == ((AS_CONFED_SEQUENCE, (65010, 65011, 65011)),
                         (AS_SEQUENCE, (TRANSIT, TRANSIT, ORIGIN, ORIGIN, ORIGIN)))
    assert a.as_path_text == f"(65010 65011 65011) {TRANSIT} {TRANSIT} {ORIGIN} {ORIGIN} {ORIGIN}"
    assert a.origin_as == ORIGIN and a.has_as_path and a.bgpsec.segments == segs
    # a path of confederation ASes only: the origin is the speaker's own AS (RFC 6811 section 2)
    a = parse_attributes(BgpsecPath(segs[:1], (SignatureBlock(1, sigs.signatures[:1]),)).attribute())
    assert a.origin_as == NO_PATH
    with pytest.raises(WireError, match=r"BGPsec_PATH \(RFC 8205 section 3\): Secure_Path Length"):
        parse_attributes(b"\x90\x21\x00\x02\x00\x09")


# --- pcap: a session with OPENs (4-octet AS and BGPsec capabilities), then the UPDATEs -----------------------

def _open(asn: int) -> bytes:
    caps = b""
    for afi in (1, 2):
        caps += bytes((1, 4)) + struct.pack(">HBB", afi, 0, 1)  # multiprotocol, RFC 4760 section 8
    caps += bytes((65, 4)) + struct.pack(">I", asn)  # 4-octet AS, RFC 6793 section 3
    for afi in (1, 2):
        for direction in (0, 1):  # BGPsec, RFC 8205 section 2.1: version 0, receive / send
            caps += bytes((7, 3, direction << 3)) + struct.pack(">H", afi)
    params = bytes((2, len(caps))) + caps
    body = struct.pack(">BHHIB", 4, AS_TRANS, 90, 0x0A000001 if asn == TRANSIT else 0x0A000002, len(params)) + params
    return b"\xff" * 16 + struct.pack(">HB", 19 + len(body), 1) + body


def write_session(path) -> str:
    from scapy.all import IP, TCP, Ether, Raw, wrpcap

    a, b, sport = PEER_IP, LOCAL_IP, 40123
    seq = {a: 1000, b: 5000}
    pkts = []

    def send(src, dst, payload=b"", flags="PA", t=1.0):
        s, d = (sport, 179) if src == a else (179, sport)
        p = Ether() / IP(src=src, dst=dst) / TCP(sport=s, dport=d, seq=seq[src], ack=seq[dst], flags=flags)
        if payload:
            p = p / Raw(payload)
        p.time = t
        pkts.append(p)
        seq[src] += len(payload) + (1 if "S" in flags else 0)

    send(a, b, flags="S")
    send(b, a, flags="SA")
    send(a, b, _open(TRANSIT), t=2.0)
    send(b, a, _open(RECEIVER), t=2.0)
    keepalive = b"\xff" * 16 + b"\x00\x13\x04"
    send(a, b, keepalive, t=3.0)
    send(b, a, keepalive, t=3.0)
    send(a, b, updates()[0], t=4.0)
    send(a, b, updates()[1], t=5.0)
    wrpcap(str(path), pkts)
    return str(path)


@pytest.fixture
def pcap_file(tmp_path):
    return write_session(tmp_path / "bgpsec.pcap")


def test_pcap_routes_opens_and_dump(pcap_file):
    warnings = []
    reader = CaptureReader(pcap_file, warnings.append)
    routes = list(reader.routes())
    assert not warnings and reader.updates == 2
    assert [r.prefix for r in routes] == PREFIXES
    for r in routes:
        assert (r.record, r.peer_ip, r.peer_as, r.local_as) == ("BGP4MP_ET", PEER_IP, TRANSIT, RECEIVER)
        assert r.as_path == ((AS_SEQUENCE, (TRANSIT, ORIGIN)),) and r.origin_as == ORIGIN
    opens = _opens(reader)
    want = frozenset((d, afi) for d in (0, 1) for afi in (1, 2))
    assert opens[PEER_IP].bgpsec == want and opens[PEER_IP].my_as == TRANSIT
    assert opens[LOCAL_IP].bgpsec == want and opens[LOCAL_IP].my_as == RECEIVER
    code, out, err = _dump(pcap_file)
    assert code == 0 and err == ""
    assert [x.split("|")[5:7] for x in out.splitlines()] == [[p, f"{TRANSIT} {ORIGIN}"] for p in PREFIXES]
    code, out, err = _dump("--format", "json", pcap_file)
    assert code == 0 and err == ""
    _check_bgpsec_json([json.loads(x) for x in out.splitlines()])


def test_open_bgpsec_capability():
    o = parse_open(_open(TRANSIT), 19, len(_open(TRANSIT)))
    assert o.bgpsec == frozenset({(0, 1), (1, 1), (0, 2), (1, 2)}) and o.as4 and o.my_as == TRANSIT
    # a capability of 4 bytes: a WireError naming RFC 8205 section 2.1, like the other capabilities
    caps = bytes((7, 4, 8, 0, 1, 0))
    body = struct.pack(">BHHIB", 4, 64496, 90, 1, 2 + len(caps)) + bytes((2, len(caps))) + caps
    with pytest.raises(WireError, match=r"BGPsec capability \(RFC 8205 section 2.1\): want 3 bytes, got 4"):
        parse_open(body, 0, len(body))


def _opens(reader: CaptureReader) -> dict:
    """The OPENs the reader saw, by the sender's address."""
    return {sender[0]: o for s in reader._sessions.values() for sender, o in s.opens.items()}


def _tshark_fields(path, *fields, where="bgp.type == 2") -> list[list[str]]:
    out = subprocess.run(["tshark", "-r", str(path), "-Y", where, "-T", "fields",
                          *[x for f in fields for x in ("-e", f)]], capture_output=True, text=True, check=True).stdout
    return [row.split("\t") for row in out.splitlines()]


@needs_tshark
def test_tshark_decodes_what_we_decode(pcap_file):
    prefix = "bgp.update.path_attribute.bgpsec."
    rows = _tshark_fields(pcap_file, prefix + "sps.as", prefix + "sps.pcount", prefix + "sps.flags",
                          prefix + "sb.algo_id", prefix + "ss.ski")
    reader = CaptureReader(pcap_file, pytest.fail)
    routes = list(reader.routes())
    assert len(rows) == len(routes) == 2
    for row, r in zip(rows, routes):
        asns, pcounts, flags, suites, skis = (x.split(",") for x in row)
        bp = r.attrs.bgpsec
        assert [int(x) for x in asns] == [s.asn for s in bp.segments] == [TRANSIT, ORIGIN]
        assert [int(x) for x in pcounts] == [s.pcount for s in bp.segments]
        assert [int(x, 0) for x in flags] == [s.flags for s in bp.segments]
        assert [int(x) for x in suites] == [b.suite for b in bp.blocks]
        assert [x.replace(":", "").replace(" ", "").upper() for x in skis] == [s.ski.hex().upper() for s in bp.blocks[0].signatures]
    # and the OPENs' BGPsec capabilities: (direction, AFI) pairs
    rows = _tshark_fields(pcap_file, "ip.src", "bgp.cap.bgpsec.sendreceive", "bgp.cap.bgpsec.afi", where="bgp.type == 1")
    theirs = {src: set(zip(map(int, dirs.split(",")), map(int, afis.split(",")))) for src, dirs, afis in rows}
    assert theirs == {src: o.bgpsec for src, o in _opens(reader).items()} and len(theirs) == 2


@pytest.mark.parametrize("which", ["mrt", "pcap", "stdin"])
def test_bgpsec_verify_reads_the_dumps(which, mrt_file, pcap_file, capsys, monkeypatch):
    """`bgpsim bgpsec verify` on the RFC 8208 UPDATEs in an MRT dump and in a capture (and the capture
    on standard input, FILE '-'): the target AS comes from the BGP4MP header or the receiver's OPEN,
    the keys from NIST BGP-SRx's folder."""
    import io
    import sys

    from bgpsim.cli import main

    keys = shared("bgpsec", "nist-bgp-srx_rfc8208_keys")
    capsys.readouterr()
    source = {"mrt": mrt_file, "pcap": pcap_file, "stdin": "-"}[which]
    if which == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(open(pcap_file, "rb").read())))
    status = main(["bgpsec", "verify", source, "--router-keys", str(keys), "--format", "json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    assert [(r["prefix"], r["state"], r["target_as"], r["peer_as"]) for r in rows] == [
        ("192.0.2.0/24", "valid", RECEIVER, TRANSIT), ("2001:db8::/32", "valid", RECEIVER, TRANSIT)]
    assert {r["file"] for r in rows} == {"<stdin>" if which == "stdin" else str(source)}
