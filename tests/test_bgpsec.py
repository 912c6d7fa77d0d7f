"""BGPsec signing and validation against the RFC 8208 examples (RFC 8608 Appendix A): our signer, given
the published nonce, reproduces both BGPsec_PATH attributes byte for byte; our verifier accepts both
UPDATEs with the NIST BGP-SRx copies of the example keys, and rejects every change with its reason."""

from __future__ import annotations

import ipaddress
import json
from functools import cache

import pytest
from helpers import shared

from bgpsim.rpki.bgpsec.keys import RouterKeys, signing_keys, ski_of
from bgpsim.rpki.bgpsec.path import BgpsecError, BgpsecPath, Segment, SignatureBlock, decode
from bgpsim.rpki.bgpsec.sign import forward, originate
from bgpsim.rpki.bgpsec.verify import Verifier

ORIGIN, TRANSIT = 64496, 65536
# the examples in ../shared/data/bgpsec/rfc8208_vectors.json, named here so that tests are collected without it
NAMES = ["ipv4_192.0.2.0/24", "ipv6_2001:db8::/32"]


@cache
def vectors() -> dict:
    """The RFC 8208 examples (the test is skipped without the shared data)."""
    data = json.loads(shared("bgpsec", "rfc8208_vectors.json").read_text())
    assert sorted(data["updates"]) == NAMES
    return data


def keys_dir():
    """NIST BGP-SRx's copies of the example keys (the test is skipped without the shared data)."""
    return shared("bgpsec", "nist-bgp-srx_rfc8208_keys")


def example(name: str):
    """(prefix, receiving AS, the whole UPDATE, where the BGPsec_PATH value starts and ends in it)."""
    u = vectors()["updates"][name]
    msg = bytes.fromhex(u["hex"])
    at = msg.index(bytes([0x90, 30]))  # flags, then type 30: the pre-IANA code the examples carry
    length = int.from_bytes(msg[at + 2:at + 4], "big")
    return ipaddress.ip_network(name.split("_", 1)[1]), u["receiver_as"], msg, at + 4, at + 4 + length


@pytest.fixture(scope="module")
def keys():
    return RouterKeys.load([keys_dir()], warn=pytest.fail)


@pytest.mark.parametrize("name", NAMES)
def test_the_signer_reproduces_the_examples(name):
    prefix, receiver, msg, start, end = example(name)
    private = signing_keys([keys_dir()])
    nonce = int(vectors()["rfc6979_sample_k"], 16)
    path = originate(private[ORIGIN], prefix, TRANSIT, nonce=nonce)
    path = forward(path, private[TRANSIT], prefix, receiver, nonce=nonce)
    assert path.encode() == msg[start:end]
    # the whole attribute with the assigned type code: the example's header with 33 for 30
    assert path.attribute() == msg[start - 4:start - 3] + bytes([33]) + msg[start - 2:end]


@pytest.mark.parametrize("name", NAMES)
def test_the_examples_verify(name, keys):
    prefix, receiver, msg, start, end = example(name)
    path = decode(msg[start:end])
    assert path.as_path() == (TRANSIT, ORIGIN)
    assert path.encode() == msg[start:end]
    v = Verifier(keys)
    assert v.verify(path, receiver, prefix, peer_as=TRANSIT).valid
    assert v.verified == 2


def _flip(value: bytes, at: int) -> bytes:
    return value[:at] + bytes([value[at] ^ 0x01]) + value[at + 1:]


@pytest.mark.parametrize("name", NAMES)
def test_every_changed_byte_fails_with_its_reason(name, keys):
    prefix, receiver, msg, start, end = example(name)
    value = msg[start:end]
    v = Verifier(keys)
    # Secure_Path: 2-byte length, then two segments of pCount, flags, AS
    seg_bytes = range(2, 14)
    for at in seg_bytes:
        verdict = v.verify_value(_flip(value, at), receiver, prefix)
        assert not verdict.valid, at
        rel = (at - 2) % 6
        if at == 2:  # the most recent pCount 1 -> 0: withdrawn before any signature is checked
            assert (verdict.reason, verdict.state) == ("pcount-zero", "withdraw"), (at, verdict)
        elif at < 8 and rel > 1:  # the most recent AS: no key is bound to the new AS
            assert (verdict.reason, verdict.hop) == ("no-key", 2), (at, verdict)
        else:  # flags, the origin's pCount or AS: the most recent signature covers them, checked first
            assert (verdict.reason, verdict.hop, verdict.state) == ("bad-signature", 2, "not-valid"), (at, verdict)
    path = decode(value)
    block_at = 14 + 3  # the Signature_Block's length and suite
    sig_at = []
    p = block_at
    for sig in path.blocks[0].signatures:
        sig_at.append((p + 22, p + 22 + len(sig.signature)))
        p += 22 + len(sig.signature)
    for lo, hi in sig_at:
        for at in range(lo, hi):
            verdict = v.verify_value(_flip(value, at), receiver, prefix)
            assert not verdict.valid and verdict.reason in ("bad-signature", "malformed"), (at, verdict)
    # the SKI: no key has the changed SKI
    verdict = v.verify_value(_flip(value, block_at + 5), receiver, prefix)
    assert verdict.reason == "no-key" and verdict.hop == 2
    # the target AS, the NLRI, its length and family: every signature covers them
    other = ipaddress.ip_network((int(prefix.network_address) ^ (1 << (prefix.max_prefixlen - 8)),
                                  prefix.prefixlen))
    for args in ((receiver + 1, prefix), (receiver, other), (receiver, prefix.supernet()),
                 (receiver, next(prefix.subnets()))):
        verdict = v.verify(path, *args)
        assert verdict.reason == "bad-signature" and verdict.hop == 2, args
    assert v.verify(path, receiver, prefix, peer_as=ORIGIN).reason == "peer-as-mismatch"


def test_the_octets_of_the_origin_are_the_published_ones():
    from bgpsim.rpki.bgpsec.octets import Octets
    octets = Octets(TRANSIT, (Segment(ORIGIN),), (), 1, ipaddress.ip_network("192.0.2.0/24"))
    assert octets.of(0).hex() == "00010000" "0100" "0000fbf0" "01" "0001" "01" "18c00002"


def test_keys_carry_their_ski_and_as():
    private = signing_keys([keys_dir()])
    assert {k: v.ski.hex().upper() for k, v in private.items() if k in (ORIGIN, TRANSIT)} == {
        ORIGIN: "AB4D910F55CAE71A215EF3CAFE3ACC45B5EEC154", TRANSIT: "47F23BF1AB2F8A9D26864EBBD8DF2711C74406EC"}
    for asn, key in private.items():
        assert ski_of(key.key.public_key()) == key.ski


@pytest.mark.parametrize("value, reason", [
    (b"", "Secure_Path Length: want 2 bytes"),
    (bytes.fromhex("0002"), "want 2 + 6 N with N >= 1, got 2"),
    (bytes.fromhex("0009") + bytes(7), "got 9"),
    (bytes.fromhex("0008 0100 0000fbf0"), "want at least one Signature_Block"),
    (bytes.fromhex("0008 0100 0000fbf0 0003"), "Signature_Block header: want 3 bytes"),
    (bytes.fromhex("0008 0100 0000fbf0 0002 01"), "Signature_Block Length: want 3"),
    (bytes.fromhex("0008 0100 0000fbf0 0003 01"), "want one Signature Segment per Secure_Path Segment (1), got 0"),
    (bytes.fromhex("0008 0100 0000fbf0 0010 01") + bytes(13), "Signature Segment: want a 22-byte header"),
    (bytes.fromhex("0008 0100 0000fbf0 0019 01") + bytes(20) + bytes.fromhex("0000"), "Signature Length: want 1"),
    (bytes.fromhex("0008 0100 0000fbf0 001a 01") + bytes(20) + bytes.fromhex("0002 30"), "Signature Length"),
])
def test_malformed_attributes_are_refused_with_the_fault(value, reason):
    with pytest.raises(BgpsecError, match=reason.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        decode(value)


def test_a_signature_block_shorter_than_its_secure_path_is_malformed(keys):
    prefix, receiver, msg, start, end = example(NAMES[0])
    path = decode(msg[start:end])
    short = BgpsecPath(path.segments + (Segment(65000),), path.blocks)
    verdict = Verifier(keys).verify_value(short.encode(), receiver, prefix)
    assert verdict.reason == "malformed" and "want one Signature Segment per Secure_Path Segment (3), got 2" in verdict.detail


def test_an_unknown_suite_alone_makes_the_route_unsigned(keys):
    prefix, receiver, msg, start, end = example(NAMES[0])
    value = bytearray(msg[start:end])
    value[14 + 2] = 2  # the Algorithm Suite Identifier
    verdict = Verifier(keys).verify_value(bytes(value), receiver, prefix)
    assert (verdict.reason, verdict.state) == ("unsupported-suite", "unsigned")


def test_a_second_block_of_another_suite_is_passed_over(keys):
    prefix, receiver, msg, start, end = example(NAMES[0])
    path = decode(msg[start:end])
    other = SignatureBlock(2, path.blocks[0].signatures)
    for blocks in ((other,) + path.blocks, path.blocks + (other,)):
        assert Verifier(keys).verify(BgpsecPath(path.segments, blocks), receiver, prefix).valid


def test_a_confed_segment_from_outside_is_withdrawn(keys):
    prefix, receiver, msg, start, end = example(NAMES[0])
    value = bytearray(msg[start:end])
    value[9] = 0x80  # the origin's Confed_Segment flag
    verdict = Verifier(keys).verify_value(bytes(value), receiver, prefix)
    assert (verdict.reason, verdict.state, verdict.hop) == ("confed-segment", "withdraw", 1)


def test_answers_are_reused_for_identical_octets(keys):
    prefix, receiver, msg, start, end = example(NAMES[0])
    path = decode(msg[start:end])
    v = Verifier(keys)
    for _ in range(3):
        assert v.verify(path, receiver, prefix).valid
    assert (v.verified, v.reused) == (2, 4)


@pytest.mark.parametrize("path, ski, ases", [
    ("rpki-rs/router.cer", "F5F3C2DD2B91BF154552EDC0179B58DFF3676B23", ((3000, 9001), (199664, 199664))),
    ("rpki-commons/router/router_certificate.cer", "7FD90706E7C3FC71168C2338569148C1422BBF74", ((42, 42),)),
])
def test_router_certificates_of_others_give_their_key_and_ases(path, ski, ases):
    keys = RouterKeys.load([shared("rpki", "objects", path)])
    assert keys.ases(bytes.fromhex(ski)) == [ases]
    lo, hi = ases[0]
    assert keys.find(bytes.fromhex(ski), hi) and not keys.find(bytes.fromhex(ski), hi + 1)
