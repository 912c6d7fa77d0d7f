"""`bgpsim validate --router-keys`: a BGPsec verdict (RFC 8205 section 5) for every route of a dump.

The signed UPDATEs are made here with synthetic router keys (generated for each run, P-256 as RFC 8608
wants; none of them is anybody's real key): AS64496 originates, AS65536 signs on toward the collector
AS65537. An MRT update dump (BGP4MP MESSAGE_AS4, RFC 6396 section 4.4.3) and a pcap of the session
(bgpsim.capture.session) carry one valid route, one whose origin signed toward another AS
(bad-signature), one whose origin's key the validator does not have (no-key), and ordinary unsigned
UPDATEs; a TABLE_DUMP_V2 RIB entry with a BGPsec_PATH has no receiving AS of its own
(--bgpsec-target). Two processes count as one. The RFC 8208 example UPDATEs verify with the NIST
BGP-SRx copies of their keys. Without --router-keys the outputs are those of before: no column, no
object."""

from __future__ import annotations

import csv
import ipaddress
import json
import struct

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from helpers import SHARED

from bgpsim.cli import main
from bgpsim.mrt import read_routes, reader
from bgpsim.rpki.bgpsec.keys import RouterKeys, SigningKey, ski_of
from bgpsim.rpki.bgpsec.sign import forward
from bgpsim.wire.encode import bgpsec_update
from bgpsim.rpki.bgpsec.verify import Verifier
from bgpsim.validate import check

ORIGIN, TRANSIT, COLLECTOR, STRANGER = 64496, 65536, 65537, 64497
PEER_IP, LOCAL_IP = "198.51.100.1", "198.51.100.2"
VALID_P, BAD_P, NOKEY_P = "192.0.2.0/24", "198.18.0.0/24", "2001:db8:1::/48"
PLAIN = [("10.0.0.0/8", (TRANSIT, 3356)), ("203.0.113.0/24", (TRANSIT, ORIGIN))]
VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64496,192.0.2.0/24,24,test\nAS64496,203.0.113.0/24,24,test\n"
BASE_COLUMNS = "time,peer_ip,peer_as,prefix,as_path,origin_as,rpki,rpki_reason,aspa,findings"


def _key(asn: int) -> SigningKey:
    """A synthetic router key for `asn` (generated now)."""
    k = ec.generate_private_key(ec.SECP256R1())
    return SigningKey(asn, ski_of(k.public_key()), k, f"synthetic AS{asn}")


@pytest.fixture(scope="module")
def keys():
    return {asn: _key(asn) for asn in (ORIGIN, TRANSIT, STRANGER)}


@pytest.fixture(scope="module")
def key_dir(tmp_path_factory, keys):
    """The public keys of AS64496 and AS65536 (not AS64497's), one PEM file each, the AS in the name."""
    d = tmp_path_factory.mktemp("router-keys")
    for asn in (ORIGIN, TRANSIT):
        pem = keys[asn].key.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)
        (d / f"synthetic-AS{asn}.pem").write_bytes(pem)
    return d


def _signed(keys, prefix: str, origin: int = ORIGIN, origin_target: int = TRANSIT, target: int = COLLECTOR):
    """The BGPsec_PATH of `prefix`: `origin` signs toward `origin_target`, AS65536 on toward `target`."""
    p = ipaddress.ip_network(prefix)
    return forward(forward(None, keys[origin], p, origin_target), keys[TRANSIT], p, target)


def _message(path, prefix: str) -> bytes:
    p = ipaddress.ip_network(prefix)
    return bgpsec_update(path, p, ipaddress.ip_address("198.51.100.100" if p.version == 4 else "2001:db8::100"))


def signed_updates(keys) -> list[bytes]:
    """The three signed UPDATEs: valid, bad-signature (the origin signed toward AS65999, not AS65536),
    no-key (the origin AS64497's key is not given)."""
    return [_message(_signed(keys, VALID_P), VALID_P),
            _message(_signed(keys, BAD_P, origin_target=65999), BAD_P),
            _message(_signed(keys, NOKEY_P, origin=STRANGER), NOKEY_P)]


def plain_update(prefix: str, path: tuple[int, ...]) -> bytes:
    """An ordinary UPDATE (4-byte AS_PATH, NEXT_HOP, one IPv4 prefix)."""
    net = ipaddress.ip_network(prefix)
    attrs = (b"\x40\x01\x01\x00" + bytes((0x40, 2, 2 + 4 * len(path), 2, len(path))) +
             b"".join(struct.pack(">I", a) for a in path) + b"\x40\x03\x04" + bytes((198, 51, 100, 1)))
    nlri = bytes((net.prefixlen,)) + net.network_address.packed[:(net.prefixlen + 7) // 8]
    body = b"\x00\x00" + struct.pack(">H", len(attrs)) + attrs + nlri
    return b"\xff" * 16 + struct.pack(">HB", 19 + len(body), 2) + body


def bgp4mp(msg: bytes, ts: int) -> bytes:
    """A BGP4MP MESSAGE_AS4 record (RFC 6396 section 4.4.3): from AS65536 at PEER_IP to AS65537."""
    body = struct.pack(">IIHH", TRANSIT, COLLECTOR, 0, 1) + ipaddress.IPv4Address(PEER_IP).packed + \
        ipaddress.IPv4Address(LOCAL_IP).packed + msg
    return struct.pack(">IHHI", ts, 16, 4, len(body)) + body


def dump_records(keys) -> list[bytes]:
    msgs = [plain_update(*PLAIN[0])] + signed_updates(keys) + [plain_update(*PLAIN[1])]
    return [bgp4mp(m, 1_700_000_000 + i) for i, m in enumerate(msgs)]


@pytest.fixture(scope="module")
def files(tmp_path_factory, keys):
    d = tmp_path_factory.mktemp("dumps")
    (d / "updates.mrt").write_bytes(b"".join(dump_records(keys)))
    (d / "vrps.csv").write_text(VRPS)
    return d


def _run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["validate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _outputs(out):
    with open(out / "routes.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return (rows, json.loads((out / "summary.json").read_text()), json.loads((out / "findings.json").read_text()),
            (out / "routes.csv").read_text().splitlines()[0])


def test_the_dump_as_the_readers_see_it(files):
    routes = list(read_routes(str(files / "updates.mrt")))
    assert [r.prefix for r in routes] == [PLAIN[0][0], VALID_P, BAD_P, NOKEY_P, PLAIN[1][0]]
    assert [r.attrs.bgpsec is not None for r in routes] == [False, True, True, True, False]
    assert {r.local_as for r in routes} == {COLLECTOR}


def test_every_route_gets_a_verdict(files, key_dir, tmp_path, capsys):
    code, out, err = _run(capsys, files / "updates.mrt", "--vrps", files / "vrps.csv", "--router-keys", key_dir,
                          "--out", tmp_path / "out")
    assert code == 0 and err == ""
    rows, doc, found, header = _outputs(tmp_path / "out")
    assert header == BASE_COLUMNS + ",bgpsec,bgpsec_reason"
    by = {r["prefix"]: r for r in rows}
    assert [r["prefix"] for r in rows] == [PLAIN[0][0], VALID_P, BAD_P, NOKEY_P, PLAIN[1][0]]
    assert {p: (r["bgpsec"], r["bgpsec_reason"].split(":")[0]) for p, r in by.items()} == {
        PLAIN[0][0]: ("unsigned", ""), PLAIN[1][0]: ("unsigned", ""),
        VALID_P: ("valid", "every signature verifies with a router key bound to its AS"),
        BAD_P: ("not-valid", "bad-signature"), NOKEY_P: ("not-valid", "no-key")}
    assert f"AS{ORIGIN}" in by[BAD_P]["bgpsec_reason"] and f"AS{STRANGER}" in by[NOKEY_P]["bgpsec_reason"]
    # the other columns as without BGPsec: the Secure_Path is the AS path, RFC 6811 on its origin
    assert by[VALID_P]["as_path"] == f"{TRANSIT} {ORIGIN}" and by[VALID_P]["rpki"] == "valid"
    assert by[NOKEY_P]["origin_as"] == str(STRANGER) and by[NOKEY_P]["rpki"] == "not-found"
    b = doc["bgpsec"]
    assert list(doc)[list(doc).index("aspa") + 1] == "bgpsec"
    assert b == {"router_keys": 2, "target_as": None, "signed": 3,
                 "states": {"valid": 1, "not-valid": 2, "withdraw": 0, "unsigned": 2, "unknown": 0},
                 "reasons": {"bad-signature": 1, "no-key": 1},
                 # valid: both signatures; bad-signature: AS65536's verifies, the origin's not; no-key: AS65536's
                 "verified": 5, "reused": 0}
    assert doc["findings"]["bgpsec-not-valid"] == 2
    bad = [f for f in found if f["kind"] == "bgpsec-not-valid"]
    assert [(f["prefix"], f["state"], f["reason"], f["hop"], f["target_as"], f["routes"]) for f in bad] == [
        (BAD_P, "not-valid", "bad-signature", 1, COLLECTOR, 1), (NOKEY_P, "not-valid", "no-key", 1, COLLECTOR, 1)]
    assert bad[0]["example"] == {"peer": PEER_IP, "peer_as": TRANSIT, "time": 1_700_000_002}
    assert bad[0]["as_path"] == f"{TRANSIT} {ORIGIN}"
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<h2>BGPsec</h2>" in html and "bad-signature" in html


def test_the_table_lists_what_is_not_valid(files, key_dir, tmp_path, capsys):
    code, out, err = _run(capsys, files / "updates.mrt", "--vrps", files / "vrps.csv", "--router-keys", key_dir,
                          "--out", tmp_path / "out")
    assert code == 0
    assert "BGPsec: 3 signed routes, 2 router keys, 5 signatures verified, 0 answers reused" in out
    assert f"not-valid: {BAD_P} path {TRANSIT} {ORIGIN} to AS{COLLECTOR} (1 route): bad-signature:" in out
    assert f"not-valid: {NOKEY_P} path {TRANSIT} {STRANGER}" in out
    assert "bgpsec-not-valid 2" in out


def test_without_router_keys_nothing_changes(files, key_dir, tmp_path, capsys):
    code, out, err = _run(capsys, files / "updates.mrt", "--vrps", files / "vrps.csv", "--out", tmp_path / "out")
    assert code == 0 and "BGPsec" not in out
    rows, doc, found, header = _outputs(tmp_path / "out")
    assert header == BASE_COLUMNS and "bgpsec" not in rows[0]
    assert "bgpsec" not in doc and "bgpsec-not-valid" not in doc["findings"]
    assert not any(f["kind"].startswith("bgpsec") for f in found)
    assert "BGPsec" not in (tmp_path / "out" / "report.html").read_text()
    # with them, the base columns and the other files' other parts are the same bytes
    code, *_ = _run(capsys, files / "updates.mrt", "--vrps", files / "vrps.csv", "--router-keys", key_dir,
                    "--out", tmp_path / "with")
    plain = (tmp_path / "out" / "routes.csv").read_text().splitlines()
    signed = (tmp_path / "with" / "routes.csv").read_text().splitlines()
    assert [line.rsplit(",", 2)[0] for line in signed[1:] if ",unsigned," in line] == \
        [line for line in plain[1:] if line.split(",")[3] in dict(PLAIN)]
    doc2 = json.loads((tmp_path / "with" / "summary.json").read_text())
    del doc2["bgpsec"], doc2["findings"]["bgpsec-not-valid"]
    assert doc2 == doc


def test_a_capture_of_the_session(keys, key_dir, files, tmp_path, capsys):
    """The same UPDATEs in a pcap: the receiving AS from the OPEN. A path whose most recent AS is not the
    peer's (AS64496's own signature, sent by AS65536) is treated as withdrawn (section 5.2)."""
    from bgpsim.capture.session import Session, capture_bytes

    p = ipaddress.ip_network("192.0.2.128/25")
    foreign = _message(forward(None, keys[ORIGIN], p, COLLECTOR), str(p))
    msgs = [plain_update(*PLAIN[0])] + signed_updates(keys) + [foreign]
    msgs = [(1.0 + i, True, m) for i, m in enumerate(msgs)]  # (seconds, sent by local, message)
    pcap = tmp_path / "session.pcap"
    pcap.write_bytes(capture_bytes([Session(TRANSIT, COLLECTOR, PEER_IP, LOCAL_IP, msgs)]))
    code, out, err = _run(capsys, pcap, "--vrps", files / "vrps.csv", "--router-keys", key_dir, "--out",
                          tmp_path / "out", "--quiet")
    assert code == 0 and err == ""
    rows, doc, found, _ = _outputs(tmp_path / "out")
    assert [(r["prefix"], r["bgpsec"], r["bgpsec_reason"].split(":")[0]) for r in rows] == [
        (PLAIN[0][0], "unsigned", ""), (VALID_P, "valid", "every signature verifies with a router key bound to its AS"),
        (BAD_P, "not-valid", "bad-signature"), (NOKEY_P, "not-valid", "no-key"),
        (str(p), "withdraw", "peer-as-mismatch")]
    assert doc["bgpsec"]["states"] == {"valid": 1, "not-valid": 2, "withdraw": 1, "unsigned": 1, "unknown": 0}
    assert doc["bgpsec"]["reasons"] == {"bad-signature": 1, "no-key": 1, "peer-as-mismatch": 1}
    assert [(f["prefix"], f["state"]) for f in found if f["kind"] == "bgpsec-not-valid"] == [
        (str(p), "withdraw"), (BAD_P, "not-valid"), (NOKEY_P, "not-valid")]


# --- a RIB dump (TABLE_DUMP_V2, RFC 6396 section 4.3): no receiving AS but --bgpsec-target ---------------------

def rib_dump(keys) -> bytes:
    """A PEER_INDEX_TABLE (one peer, AS65536, 4-byte AS) and a RIB_IPV4_UNICAST entry for VALID_P whose
    attributes are ORIGIN, NEXT_HOP and the BGPsec_PATH signed toward AS65537."""
    peers = struct.pack(">IH", 0x0A000001, 0) + struct.pack(">H", 1) + bytes((2,)) + struct.pack(">I", 0x0A000002) + \
        ipaddress.IPv4Address(PEER_IP).packed + struct.pack(">I", TRANSIT)
    net = ipaddress.ip_network(VALID_P)
    attrs = b"\x40\x01\x01\x00" + b"\x40\x03\x04" + ipaddress.IPv4Address(PEER_IP).packed + \
        _signed(keys, VALID_P).attribute()
    entry = struct.pack(">HIH", 0, 1_700_000_000, len(attrs)) + attrs
    rib = struct.pack(">IB", 0, net.prefixlen) + net.network_address.packed[:3] + struct.pack(">H", 1) + entry
    return b"".join(struct.pack(">IHHI", 1_700_000_000, 13, sub, len(body)) + body
                    for sub, body in ((1, peers), (2, rib)))


def test_a_rib_entry_wants_the_target(keys, key_dir, files, tmp_path, capsys):
    rib = tmp_path / "rib.mrt"
    rib.write_bytes(rib_dump(keys))
    code, out, err = _run(capsys, rib, "--vrps", files / "vrps.csv", "--router-keys", key_dir, "--out", tmp_path / "a")
    assert code == 0
    rows, doc, found, _ = _outputs(tmp_path / "a")
    assert [(r["prefix"], r["bgpsec"]) for r in rows] == [(VALID_P, "unknown")]
    assert "give --target-as" in rows[0]["bgpsec_reason"] and "give --target-as" in out
    assert doc["bgpsec"]["reasons"] == {"no-target": 1} and doc["findings"]["bgpsec-not-valid"] == 0
    code, out, err = _run(capsys, rib, "--vrps", files / "vrps.csv", "--router-keys", key_dir, "--target-as",
                          f"AS{COLLECTOR}", "--out", tmp_path / "b", "--quiet")
    rows, doc, found, _ = _outputs(tmp_path / "b")
    assert code == 0 and [(r["prefix"], r["bgpsec"]) for r in rows] == [(VALID_P, "valid")]
    assert doc["bgpsec"]["target_as"] == COLLECTOR and doc["bgpsec"]["verified"] == 2
    # the wrong receiving AS: the most recent signature was not made for it
    code, *_ = _run(capsys, rib, "--vrps", files / "vrps.csv", "--router-keys", key_dir, "--target-as", "65538",
                    "--out", tmp_path / "c", "--quiet")
    rows, *_ = _outputs(tmp_path / "c")
    assert code == 0 and rows[0]["bgpsec"] == "not-valid" and f"AS{TRANSIT}" in rows[0]["bgpsec_reason"]


# --- many batches: the checks counted once over the whole pass, as the Verifier counts them --------------------

def test_many_batches_count_as_one_pass(keys, key_dir, files, tmp_path, monkeypatch, capsys):
    records = dump_records(keys) * 400  # each signature met in many batches
    dump = tmp_path / "many.mrt"
    dump.write_bytes(b"".join(records))
    monkeypatch.setattr(reader, "BUFFER", 2048)
    monkeypatch.setattr(check, "BATCH", 50)
    args = [dump, "--vrps", files / "vrps.csv", "--router-keys", key_dir, "--quiet"]
    assert _run(capsys, *args, "--out", tmp_path / "one")[0] == 0
    doc = json.loads((tmp_path / "one" / "summary.json").read_text())
    # what the Verifier itself counts, checking every route in order with one cache
    v = Verifier(RouterKeys.load([key_dir]))
    for r in read_routes(str(dump)):
        if r.attrs.bgpsec is not None:
            v.verify(r.attrs.bgpsec, r.local_as, ipaddress.ip_network(r.prefix), r.peer_as)
    assert (doc["bgpsec"]["verified"], doc["bgpsec"]["reused"]) == (v.verified, v.reused) == (5, 5 * 399)
    assert doc["bgpsec"]["states"]["valid"] == 400
    found = [f for f in json.loads((tmp_path / "one" / "findings.json").read_text()) if f["kind"] == "bgpsec-not-valid"]
    assert [f["routes"] for f in found] == [400, 400]
    assert found[0]["example"]["time"] == 1_700_000_002  # the first of them


# --- bad input: one line, exit status 2, nothing written -------------------------------------------------------

@pytest.mark.parametrize("extra,message", [
    (["--router-keys", "/nonexistent/keys"], "/nonexistent/keys: no such file or directory"),
    (["--target-as", "65537"], "--target-as: want --router-keys too"),
])
def test_bad_key_input(files, tmp_path, capsys, extra, message):
    code, out, err = _run(capsys, files / "updates.mrt", "--vrps", files / "vrps.csv", *extra,
                          "--out", tmp_path / "out")
    assert code == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_file_that_is_no_key(files, tmp_path, capsys):
    bad = tmp_path / "AS64496.pem"
    bad.write_text("not a key\n")
    code, out, err = _run(capsys, files / "updates.mrt", "--vrps", files / "vrps.csv", "--router-keys", bad,
                          "--out", tmp_path / "out")
    assert code == 2 and err.count("\n") == 1 and str(bad) in err and not (tmp_path / "out").exists()


# --- the RFC 8208 examples with the NIST BGP-SRx copies of their keys -----------------------------------------

VECTORS = SHARED / "bgpsec" / "rfc8208_vectors.json"
NIST_KEYS = SHARED / "bgpsec" / "nist-bgp-srx_rfc8208_keys"


@pytest.mark.skipif(not VECTORS.exists(), reason="shared data not found")
def test_the_rfc8208_examples_are_valid(files, tmp_path, capsys):
    """Both example UPDATEs (RFC 8208 appendix; RFC 8608 appendix A), the BGPsec_PATH type rewritten from
    the pre-IANA 30 to 33, as AS65537 received them from AS65536."""
    updates = json.loads(VECTORS.read_text())["updates"]
    records = []
    for name in sorted(updates):
        msg = bytes.fromhex(updates[name]["hex"])
        assert msg.count(b"\x90\x1e") == 1 and updates[name]["receiver_as"] == COLLECTOR
        records.append(bgp4mp(msg.replace(b"\x90\x1e", b"\x90\x21"), 1_700_000_000))
    dump = tmp_path / "rfc8208.mrt"
    dump.write_bytes(b"".join(records))
    code, out, err = _run(capsys, dump, "--vrps", files / "vrps.csv", "--router-keys", NIST_KEYS,
                          "--out", tmp_path / "out", "--quiet")
    assert code == 0 and err == ""
    rows, doc, found, _ = _outputs(tmp_path / "out")
    assert sorted((r["prefix"], r["as_path"], r["bgpsec"]) for r in rows) == [
        ("192.0.2.0/24", f"{TRANSIT} {ORIGIN}", "valid"), ("2001:db8::/32", f"{TRANSIT} {ORIGIN}", "valid")]
    assert doc["bgpsec"]["states"]["valid"] == 2 and doc["bgpsec"]["verified"] == 4
