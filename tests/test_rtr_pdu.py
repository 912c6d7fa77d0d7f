"""RTR PDUs, octet by octet as RFC 6810 section 5, RFC 8210 section 5 and draft-ietf-sidrops-8210bis
section 5 lay them out (each expected value below worked by hand from the layout diagrams), and the
decoder's refusals: each malformed PDU raises PduError with the Error Report code the RFC names."""

from __future__ import annotations

import ipaddress
import random

import pytest

from bgpsim.rtr import pdu


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


SKI = bytes(range(1, 21))
CASES = [
    # version, type, session/zero, length | body
    (pdu.SerialNotify(1, 0x1234, 7), "01 00 1234 0000000c | 00000007"),
    (pdu.SerialQuery(0, 0xBEEF, 0xFFFFFFFF), "00 01 beef 0000000c | ffffffff"),
    (pdu.ResetQuery(2), "02 02 0000 00000008"),
    (pdu.CacheResponse(1, 42), "01 03 002a 00000008"),
    # flags, prefix length, max length, zero, prefix, AS
    (pdu.Prefix(1, True, ipaddress.ip_network("192.0.2.0/24"), 24, 64496),
     "01 04 0000 00000014 | 01 18 18 00 | c0000200 | 0000fbf0"),
    (pdu.Prefix(0, False, ipaddress.ip_network("10.0.0.0/8"), 16, 4200000000),
     "00 04 0000 00000014 | 00 08 10 00 | 0a000000 | fa56ea00"),
    (pdu.Prefix(2, True, ipaddress.ip_network("2001:db8::/32"), 48, 65536),
     "02 06 0000 00000020 | 01 20 30 00 | 20010db8 00000000 00000000 00000000 | 00010000"),
    # version 0: the serial only; version 1: serial, refresh, retry, expire
    (pdu.EndOfData(0, 5, 9), "00 07 0005 0000000c | 00000009"),
    (pdu.EndOfData(1, 5, 9, 3600, 600, 7200), "01 07 0005 00000018 | 00000009 00000e10 00000258 00001c20"),
    (pdu.CacheReset(1), "01 08 0000 00000008"),
    # flags, zero | SKI (20) | AS | SPKI
    (pdu.RouterKey(1, True, SKI, 64496, b"\x30\x59\x01\x02"),
     "01 09 01 00 00000024 | 0102030405060708090a0b0c0d0e0f1011121314 | 0000fbf0 | 30590102"),
    # error code | length of the PDU, the PDU | length of the text, the text
    (pdu.ErrorReport(1, pdu.NO_DATA, h("01020000 00000008"), "no"),
     "01 0a 0002 0000001a | 00000008 0102000000000008 | 00000002 6e6f"),
    (pdu.ErrorReport(1, pdu.CORRUPT_DATA, b"", ""), "01 0a 0000 00000010 | 00000000 | 00000000"),
    # ASPA (draft-ietf-sidrops-8210bis section 5.12): flags, zero | customer | providers ascending
    (pdu.Aspa(2, True, 64496, (64497, 64500)), "02 0b 01 00 00000014 | 0000fbf0 | 0000fbf1 0000fbf4"),
    (pdu.Aspa(2, False, 64496), "02 0b 00 00 0000000c | 0000fbf0"),
    (pdu.Aspa(2, True, 64496, (0,)), "02 0b 01 00 00000010 | 0000fbf0 | 00000000"),
]


@pytest.mark.parametrize("p, octets", CASES, ids=[type(p).__name__ + str(p.version) for p, _ in CASES])
def test_each_pdu_octet_for_octet(p, octets):
    raw = h(octets.replace("|", ""))
    assert pdu.encode(p) == raw
    assert pdu.decode(raw) == (p, len(raw))
    assert pdu.decode(raw[:-1]) is None and pdu.decode(raw[:7]) is None  # wait for the rest
    assert pdu.decode(raw + raw, len(raw)) == (p, len(raw))


BAD = [
    ("03 02 0000 00000008", pdu.UNSUPPORTED_VERSION, "protocol version 3"),
    ("01 05 0000 00000008", pdu.UNSUPPORTED_PDU, "PDU type 5"),  # 5 was never assigned
    ("01 0c 0000 00000008", pdu.UNSUPPORTED_PDU, "PDU type 12"),
    ("00 09 0100 00000024" + "00" * 28, pdu.UNSUPPORTED_PDU, "PDU type 9 in protocol version 0"),  # no keys in v0
    ("01 0b 0100 0000000c 0000fbf0", pdu.UNSUPPORTED_PDU, "PDU type 11 in protocol version 1"),  # no ASPA in v1
    ("01 02 0000 fffffff0", pdu.CORRUPT_DATA, "length of 4294967280"),  # gigabytes: refused from the header
    ("01 02 0000 00000004", pdu.CORRUPT_DATA, "length of 4"),
    ("01 02 0000 0000000c 00000000", pdu.CORRUPT_DATA, "Reset Query PDU of 12 octets"),
    ("01 04 0000 00000014 01 19 18 00 c0000200 0000fbf0", pdu.CORRUPT_DATA, "prefix length 25 and max length 24"),
    ("01 04 0000 00000014 01 18 21 00 c0000200 0000fbf0", pdu.CORRUPT_DATA, "max length 33"),
    ("01 04 0000 00000014 01 10 18 00 c0000200 0000fbf0", pdu.CORRUPT_DATA, "host bits set"),
    ("01 06 0000 00000014 01 18 18 00 c0000200 0000fbf0", pdu.CORRUPT_DATA, "IPv6 Prefix PDU of 20 octets"),
    ("01 07 0005 0000000c 00000009", pdu.CORRUPT_DATA, "End of Data PDU of 12 octets (want 24)"),
    ("01 09 0100 00000020" + "00" * 24, pdu.CORRUPT_DATA, "want more than 32"),
    ("01 0a 0000 00000010 00000009 00000000", pdu.CORRUPT_DATA, "overruns"),
    ("01 0a 0000 00000011 00000000 00000000 41", pdu.CORRUPT_DATA, "do not fill"),
    ("02 0b 0100 00000012 0000fbf0 0000fbf1 0000", pdu.CORRUPT_DATA, "12 + 4 per provider"),
    ("02 0b 0000 00000010 0000fbf0 0000fbf1", pdu.ASPA_PROVIDER_LIST_ERROR, "withdrawal for AS64496 with 1"),
    ("02 0b 0100 0000000c 0000fbf0", pdu.ASPA_PROVIDER_LIST_ERROR, "with no provider"),
    ("02 0b 0100 00000014 0000fbf0 0000fbf4 0000fbf1", pdu.ASPA_PROVIDER_LIST_ERROR, "not in ascending order"),
    ("02 0b 0100 00000014 0000fbf0 0000fbf1 0000fbf1", pdu.ASPA_PROVIDER_LIST_ERROR, "not in ascending order"),
    ("02 0b 0100 00000014 0000fbf0 00000000 0000fbf1", pdu.ASPA_PROVIDER_LIST_ERROR, "AS0 beside"),
]


@pytest.mark.parametrize("octets, code, words", BAD, ids=[w for _, _, w in BAD])
def test_each_malformed_pdu_gets_its_error_code(octets, code, words):
    raw = h(octets)
    with pytest.raises(pdu.PduError) as e:
        pdu.decode(raw)
    assert e.value.code == code and words in str(e.value), str(e.value)
    assert raw.startswith(e.value.pdu[:8])  # the report carries the offending octets
    report = pdu.error_report(1, e.value)
    back, n = pdu.decode(report)
    assert n == len(report) and back.code == code and back.pdu == e.value.pdu


def test_reserved_fields_and_flag_bits_are_ignored_on_receipt():
    """draft-ietf-sidrops-8210bis-27 section 5: "zero" fields "MUST be ignored on receipt", and the
    flags' bits other than the lowest are reserved."""
    assert pdu.decode(h("01 02 0001 00000008"))[0] == pdu.ResetQuery(1)
    p = pdu.decode(h("01 04 0000 00000014 fe 18 18 07 c0000200 0000fbf0"))[0]
    assert p == pdu.Prefix(1, False, ipaddress.ip_network("192.0.2.0/24"), 24, 64496)
    assert pdu.decode(h("02 0b 0301 00000010 0000fbf0 0000fbf1"))[0] == pdu.Aspa(2, True, 64496, (64497,))


def test_an_error_report_stays_within_the_largest_pdu():
    e = pdu.PduError(pdu.CORRUPT_DATA, "x" * 5000, b"\x01" * 70000)
    report = pdu.error_report(1, e)
    assert len(report) <= pdu.MAX_PDU and pdu.decode(report)[0].text == "x" * 1000


def test_random_octets_never_raise_anything_but_pdu_errors():
    """A small fuzz (bench/fuzz_readers.py --reader rtr runs 100,000): random headers with
    plausible types and lengths, random bodies, and mutations of the good PDUs above."""
    rng = random.Random(8210)
    good = [h(o.replace("|", "")) for _, o in CASES]
    for _ in range(5000):
        if rng.random() < 0.5:
            raw = bytearray(rng.choice(good))
            for _ in range(rng.randint(1, 4)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        else:
            body = rng.randbytes(rng.randint(0, 40))
            raw = bytearray(bytes((rng.randint(0, 3), rng.randint(0, 12))) + rng.randbytes(2)
                            + (8 + len(body)).to_bytes(4, "big") + body)
        try:
            got = pdu.decode(bytes(raw))
        except pdu.PduError as e:
            assert e.code in pdu.ERROR_NAMES and str(e)
            continue
        if got is not None:
            assert pdu.decode(pdu.encode(got[0]))[0] == got[0]


def test_the_load_test_clients_framing_agrees_with_the_reader():
    """bgpsim._core.rtr_frames (bench/bench_rtr.py's client) frames a stream where pdu.decode does."""
    from bgpsim import _core

    rng = random.Random(5)
    good = [h(o.replace("|", "")) for _, o in CASES]
    for _ in range(200):
        stream = b"".join(rng.choice(good) for _ in range(rng.randint(0, 30)))
        cut = rng.randint(0, len(stream))
        at, count, eod, notify = 0, 0, -1, -1
        while (got := pdu.decode(stream[:cut], at)) is not None:
            kind = stream[at + 1]
            eod = at if kind == pdu.END_OF_DATA and eod < 0 else eod
            notify = at if kind == pdu.SERIAL_NOTIFY and notify < 0 else notify
            at, count = at + got[1], count + 1
        assert _core.rtr_frames(stream[:cut], 0) == (at, count, eod, notify)
    with pytest.raises(ValueError, match="a PDU length of 4294967280 octets at offset 8"):
        _core.rtr_frames(h("01020000 00000008 01020000 fffffff0"), 0)
