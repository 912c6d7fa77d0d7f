"""The one DER reader of RPKI objects (rpki.quickder, quickext, quickcrl, quickcms on cryptography's
strict decoder): the rules it adds to the decoder's (named bit lists, open types held to DER
framing), its wording of what is not DER, and random changes to stored objects, each read or
rejected with an ObjectError, never another exception."""

from __future__ import annotations

import contextlib
import random

import pytest
from cryptography.hazmat import asn1 as a
from rpki_data import CONFORMANCE_TIME, OBJECTS, need

from bgpsim.rpki import asn1, quickcms, quickder, quickext
from bgpsim.rpki.aspa import Aspa
from bgpsim.rpki.cert import ResourceCertificate
from bgpsim.rpki.cms import SignedObject
from bgpsim.rpki.crl import Crl
from bgpsim.rpki.der import NotDER, framing
from bgpsim.rpki.errors import DERError, ObjectError
from bgpsim.rpki.manifest import Manifest
from bgpsim.rpki.roa import Roa


@pytest.mark.parametrize("hexdata, usage", [
    ("03020780", {"digital_signature"}),
    ("03020106", {"key_cert_sign", "crl_sign"}),
    ("0303060600", NotDER),  # a trailing zero octet: not the DER of a named bit list
    ("03020208", NotDER),  # a trailing zero bit left in (6 bits, the last 0)
    ("0303068040", quickext.Unread),  # bit 9: KeyUsage names nine
])
def test_key_usage_named_bits(hexdata, usage):
    if isinstance(usage, set):
        assert quickext.EXTENSION_VALUES["2.5.29.15"](bytes.fromhex(hexdata)) == usage
    else:
        with pytest.raises(usage):
            quickext.EXTENSION_VALUES["2.5.29.15"](bytes.fromhex(hexdata))


def test_reason_flags_named_bits():
    def bits(hexdata):
        return quickext.named_bits(a.decode_der(a.BitString, bytes.fromhex(hexdata)), quickext.REASON_FLAGS)
    assert bits("030100") == b"" and bits("03020780") and bits("0303070080")
    with pytest.raises(NotDER):
        bits("03020700")  # a trailing zero bit
    with pytest.raises(quickext.Unread):
        bits("0303060040")  # ten bits


@pytest.mark.parametrize("hexdata, ok", [
    ("a0053003020101", True),  # an otherName-like [0] holding a SEQUENCE in DER
    ("a006300402020001", False),  # a redundant INTEGER octet inside
    ("a00730800201010000", False),  # an indefinite length inside
    ("0403010203", True),  # primitive: nothing inside to hold
])
def test_open_types_are_held_to_der_framing(hexdata, ok):
    tlv = a.decode_der(a.TLV, bytes.fromhex(hexdata))
    if ok:
        framing(tlv)
    else:
        with pytest.raises(NotDER):
            framing(tlv)


def test_an_extension_value_not_der_is_a_der_error_with_its_offset():
    """A KeyUsage with a trailing zero bit, in a stored certificate: DERError, the offset in the
    certificate of the byte that differs."""
    data = (need(OBJECTS) / "rpki-rs" / "ta.cer").read_bytes()
    at = data.index(bytes.fromhex("0603551d0f0101ff040403020106"))  # keyUsage, critical: keyCertSign, cRLSign
    mutated = data[:at + 10] + bytes.fromhex("03020208") + data[at + 14:]  # 6 bits, the last one 0
    with pytest.raises(DERError) as err:
        ResourceCertificate.parse(mutated, "x")
    assert err.value.offset == at + 11 and "X.690 section 11.2.2" in str(err.value)


@pytest.mark.parametrize("hexdata, kind, offset", [
    ("3080020101300030000000", "InvalidLength", 1),  # an indefinite length: the first length octet
    ("30820009020101300030003000", "InvalidLength", 1),  # a long form where the short one does: from its length
    ("300a02020001300030003000", "InvalidValue", 1),  # a redundant INTEGER octet: the outer length differs first
    ("3009020101300030003000ff", "ExtraData", 11),  # a trailing octet
    ("30088001010201013000", "UnexpectedTag", None),  # an IMPLICIT version: DER, of another type
    ("", None, 0),
])
def test_one_reader_words_not_der(hexdata, kind, offset):
    """The one reader of an eContent (rpki.quickder.strict) rejects what is not DER of its type with
    our wording, cryptography's ParseError kind and the offset rpki.der.locate finds."""
    with pytest.raises(DERError) as err:
        quickder.strict(quickcms.RouteOriginAttestation, bytes.fromhex(hexdata), "x", "RouteOriginAttestation")
    assert err.value.offset == offset
    if kind:
        assert str(err.value).endswith(f"want DER (X.690 section 10) for RouteOriginAttestation: {kind}")


def test_locate_is_total():
    """rpki.der.locate never raises on garbage and gives an offset inside the input or None."""
    from bgpsim.rpki.der import locate
    rnd = random.Random(3)
    for _ in range(5000):
        data = bytes(rnd.choice((0x30, 0x31, 0x80, 0x00, 0x02, 0x04, 0x24, rnd.randrange(256))) for _ in range(rnd.randrange(48)))
        at = locate(data)
        assert at is None or 0 <= at <= len(data)
    assert locate(b"\x30\x80" * 5000) is None


def _mutations(files: list[bytes], seed: int, tries: int, where, extra: tuple, read) -> int:
    """One byte changed per try in one of `files` (at `where(rnd, data)`: to a random value, with a
    bit flipped, or to one of `extra`); `read` reads each or raises ObjectError, never another
    exception. How many tries read."""
    rnd = random.Random(seed)
    read_ok = 0
    for _ in range(tries):
        data = bytearray(rnd.choice(files))
        i = where(rnd, data)
        data[i] = rnd.choice((rnd.randrange(256), data[i] ^ 1, data[i] ^ 0x80, *extra))
        with contextlib.suppress(ObjectError):
            read(bytes(data))
            read_ok += 1
    return read_ok


def test_certificate_mutations_one_reader_is_total():
    """Bytes changed at random in the TBSCertificate of stored certificates of the wider shapes (AKI
    issuer and serial, CRLDP reasons and cRLIssuer, userNotice, UTF8String names, unique IDs, other
    algorithms, non-URI general names, EC keys)."""
    names = ("AKIHas", "CRLDP", "Unotice", "UID", "OID", "Utf", "UnkExt", "Version", "NonURI", "SigAlg", "router")
    files = [p.read_bytes() for p in sorted(need(OBJECTS).rglob("*.cer")) if any(n in p.name for n in names)]
    read = _mutations(files, 7, 600, lambda rnd, data: rnd.randrange(len(data) - 270), (0x0C, 0x13, 0x16),
                      lambda d: ResourceCertificate.parse(d, "mutated").problems(CONFORMANCE_TIME))
    assert read > 100


def test_signed_object_mutations_one_reader_is_total():
    """Bytes changed at random in the SignerInfo end and the SignedData head of stored signed
    objects of the wider CMS shapes (SignedData or SignerInfo version 2 or 4, other digests, two
    certificates or SignerInfos, an issuerAndSerialNumber sid, binary-signing-time, smimeCapabilities,
    unsigned attributes, no signed attributes, a CRL), with and without ber_ok."""
    names = ("badCMS", "6C76EDB2225D11E286C4BD8F7A2F2747")
    files = [p.read_bytes() for p in sorted(need(OBJECTS).rglob("*.roa")) if any(n in p.name for n in names)]
    assert len(files) >= 22

    def where(rnd, data):  # the SignerInfo lies at the end (before the signature's 256 octets, unless
        # unsigned attributes follow it); the SignedData's version and digestAlgorithms at the start
        return rnd.randrange(len(data) - 700, len(data)) if rnd.random() < 0.8 else rnd.randrange(40)

    def read(data):
        for ber_ok in (False, True):
            SignedObject.read(data, "mutated", ber_ok=ber_ok).problems(CONFORMANCE_TIME)

    assert _mutations(files, 11, 800, where, (0x02, 0x04, 0x05, 0x06, 0x17, 0x31, 0x80), read) > 300


def test_crl_mutations_one_reader_is_total():
    """Bytes changed at random in stored CRLs of the wider shapes (no version, version 0 or 2, entry
    extensions, deltaCRLIndicator, two cRLNumbers, UTF8String issuers, serial numbers of every size)."""
    names = ("Entry", "Version", "Delta", "2CRLNums", "IssuerUTF", "Number", "root.crl", "ca1.crl")
    files = [p.read_bytes() for p in sorted(need(OBJECTS).rglob("*.crl")) if any(n in p.name for n in names)]
    assert len(files) >= 15
    read = _mutations(files, 13, 600, lambda rnd, data: rnd.randrange(len(data) - 256),  # before the signature
                      (0x00, 0x02, 0x0A, 0x17, 0x18, 0x30),
                      lambda d: Crl.parse(d, "mutated").problems(CONFORMANCE_TIME))
    assert read > 100


def test_econtent_mutations_one_reader_is_total():
    """Bytes changed at random in the stored ROA, manifest and ASPA eContents (both ASPA profiles): the
    one reader reads each or raises DERError or ObjectError, never another exception, and what
    rpki.quickder.strict decodes is the input itself once encoded again (DER: one encoding)."""
    kinds = {asn1.OID_CT_ROA: (quickcms.RouteOriginAttestation,), asn1.OID_CT_MANIFEST: (quickcms.Manifest,),
             asn1.OID_CT_ASPA: (quickcms.ASProviderAttestation, quickcms.ASProviderAttestationV0)}
    contents = []
    for p in sorted(need(OBJECTS).rglob("*")):
        if p.suffix not in (".roa", ".mft", ".asa") or not p.is_file():
            continue
        try:
            signed = SignedObject.read(p.read_bytes(), str(p))
        except ObjectError:
            continue
        if signed.content_type in (asn1.OID_CT_ROA, asn1.OID_CT_MANIFEST, asn1.OID_CT_ASPA):
            contents.append((signed, signed.econtent))
    assert sum(s.content_type == asn1.OID_CT_ASPA for s, _ in contents) >= 7
    readers = {asn1.OID_CT_ROA: Roa.from_signed, asn1.OID_CT_MANIFEST: Manifest.from_signed,
               asn1.OID_CT_ASPA: lambda signed: Aspa.from_econtent(signed.econtent, signed.source)}
    rnd = random.Random(17)
    read = 0
    for _ in range(3000):
        signed, econtent = rnd.choice(contents)
        data = bytearray(econtent)
        i = rnd.randrange(len(data))
        data[i] = rnd.choice((rnd.randrange(256), data[i] ^ 1, data[i] ^ 0x80, 0x00, 0x02, 0x04, 0x30, 0xA0, 0x80))
        signed.econtent = bytes(data)
        try:
            readers[signed.content_type](signed)
            read += 1
        except ObjectError:
            pass
        for cls in kinds[signed.content_type]:
            try:
                value = quickder.strict(cls, bytes(data), "x", cls.__name__)
            except DERError:
                continue
            try:
                again = a.encode_der(value)
            except OverflowError:  # cryptography's encoder (not its decoder) takes no INTEGER past a C long here
                continue
            assert again == bytes(data)
        signed.econtent = econtent
    assert read > 300


def test_a_der_error_in_the_ee_certificate_has_its_offset_in_the_object():
    """A KeyUsage with a trailing zero bit in the EE certificate of a stored ROA: the offset is the
    byte's in the file, as for a certificate of its own."""
    data = (need(OBJECTS) / "rpki-rs" / "maxlen-overflow.roa").read_bytes()
    at = data.index(bytes.fromhex("0603551d0f0101ff0404030207"))  # keyUsage, critical: digitalSignature
    mutated = data[:at + 10] + bytes.fromhex("03020700") + data[at + 14:]  # 1 bit, a 0
    with pytest.raises(DERError) as err:
        SignedObject.read(mutated, "x")
    assert err.value.offset == at + 11
