"""tshark agrees with our BGPsec_PATH, field for field: a capture of 120 UPDATEs we sign (IPv4 and IPv6,
1 to 6 hops, with prepending; synthetic keys made here) and a capture of the RFC 8208 example UPDATEs
as NIST made them (type code 30 rewritten to 33). For each UPDATE every field tshark decodes under
`bgp.update.path_attribute.bgpsec.*` equals ours."""

from __future__ import annotations

import ipaddress
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from bgpsim.capture.session import Session, capture_bytes
from bgpsim.rpki.bgpsec.keys import signing_keys
from bgpsim.rpki.bgpsec.path import BgpsecPath, decode
from bgpsim.rpki.bgpsec.sign import forward
from bgpsim.wire.encode import bgpsec_update

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None,
                                reason="tshark not installed (Debian package `tshark`: apt-get install -y tshark)")

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "bgpsec"
F = "bgp.update.path_attribute.bgpsec."
FIELDS = ("sp.length", "sps.pcount", "sps.flags", "sps.as", "sb.length", "sb.algo_id", "ss.ski", "ss.length", "ss.sig")
TARGET = 64999


def tshark_fields(pcap: Path) -> list[dict[str, list[str]]]:
    """Each UPDATE's BGPsec fields as tshark decodes them: field -> the values, in packet order."""
    cmd = ["tshark", "-r", str(pcap), "-Y", "bgp.type == 2", "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=;"] + [x for f in FIELDS for x in ("-e", F + f)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, (c.split(";") if c else [] for c in line.split("\t")))) for line in out.splitlines()]


def ours(path: BgpsecPath) -> dict[str, list[str]]:
    """The same fields from our decoding, written as tshark writes them."""
    sigs = [s for b in path.blocks for s in b.signatures]
    hexsp = lambda b: ":".join(f"{x:02x}" for x in b)  # noqa: E731
    return {"sp.length": [str(2 + 6 * len(path.segments))],
            "sps.pcount": [str(s.pcount) for s in path.segments],
            "sps.flags": [str(s.flags) for s in path.segments],
            "sps.as": [str(s.asn) for s in path.segments],
            "sb.length": [str(len(b.encode())) for b in path.blocks],
            "sb.algo_id": [str(b.suite) for b in path.blocks],
            "ss.ski": [" ".join(f"{x:02x}" for x in s.ski) for s in sigs],
            "ss.length": [str(len(s.signature)) for s in sigs],
            "ss.sig": [hexsp(s.signature) for s in sigs]}


def _normalise(row: dict[str, list[str]]) -> dict[str, list[str]]:
    """tshark writes bytes as "aa:bb" or "aa bb" depending on the field's display, numbers in decimal or
    hex: compare the digits and the values."""
    return {k: [v.replace(":", "").replace(" ", "").lower() if k in ("ss.ski", "ss.sig") else str(int(v, 0))
                for v in vs] for k, vs in row.items()}


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """120 signed UPDATEs, a millisecond apart, in one session per sending AS; the paths we signed."""
    d = tmp_path_factory.mktemp("keys")
    ases = list(range(64496, 64511))
    for a in ases:  # synthetic router keys, one per AS
        key = ec.generate_private_key(ec.SECP256R1())
        (d / f"AS{a}.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    keys = signing_keys([d])
    rng = random.Random(8205)
    sessions: dict[int, Session] = {}
    paths: list[BgpsecPath] = []  # in the order sent: the capture is in time order
    for i in range(120):
        hops = 1 + i % 6
        chain = rng.sample(ases, hops)  # origin first
        if i % 2:
            prefix = ipaddress.ip_network((0x20010DB8 << 96 | rng.getrandbits(16) << 80, rng.choice((32, 40, 48))), strict=False)
        else:
            prefix = ipaddress.ip_network((0xC6120000 | rng.getrandbits(8) << 8, rng.choice((16, 20, 24))), strict=False)
        path = None
        for k, a in enumerate(chain):
            confed = 0x80 if i % 15 == 14 and k == hops - 1 else 0  # now and then a Confed_Segment
            path = forward(path, keys[a], prefix, chain[k + 1] if k + 1 < hops else TARGET,
                           pcount=rng.choice((1, 1, 1, 2, 3)), flags=confed)
        sender = chain[-1]
        sessions.setdefault(sender, Session(sender, TARGET, f"192.0.2.{len(sessions) + 1}", "192.0.2.200"))
        sessions[sender].messages.append((i * 0.001, True, bgpsec_update(path, prefix, ipaddress.ip_address(
            "198.51.100.1" if prefix.version == 4 else "2001:db8::1"))))
        paths.append(path)
    pcap = d / "signed.pcap"
    pcap.write_bytes(capture_bytes(list(sessions.values())))
    return pcap, paths


def test_tshark_decodes_our_updates_as_we_do(signed):
    pcap, paths = signed
    theirs = tshark_fields(pcap)
    assert len(theirs) == len(paths) == 120
    assert {len(p.segments) for p in paths} == set(range(1, 7))
    assert any(s.confed for p in paths for s in p.segments) and any(s.pcount > 1 for p in paths for s in p.segments)
    for i, (t, p) in enumerate(zip(theirs, paths)):
        assert _normalise(t) == _normalise(ours(p)), i


def test_tshark_decodes_the_rfc8208_updates_as_we_do(tmp_path):
    vectors = json.loads((DATA / "rfc8208_vectors.json").read_text())
    msgs, want = [], []
    for u in vectors["updates"].values():
        msg = bytearray.fromhex(u["hex"])
        at = msg.index(bytes([0x90, 30]))
        msg[at + 1] = 33
        msgs.append(bytes(msg))
        want.append(decode(bytes(msg[at + 4:at + 4 + int.from_bytes(msg[at + 2:at + 4], "big")])))
    pcap = tmp_path / "rfc8208.pcap"
    pcap.write_bytes(capture_bytes([Session(65536, 65537, "192.0.2.1", "192.0.2.2",
                                            [(k * 0.001, True, m) for k, m in enumerate(msgs)])]))
    theirs = tshark_fields(pcap)
    assert [_normalise(t) for t in theirs] == [_normalise(ours(p)) for p in want]
    assert theirs[0]["sps.as"] == ["65536", "64496"]
