"""rpki.quickder, the fast path to the DER gate: whatever it calls certainly DER, the full gate
(asn1crypto decode and re-encode, X.690 section 10) accepts too; what it declines goes to that gate."""

from __future__ import annotations

import contextlib
import random

import pytest
from asn1crypto import algos, crl, parser, x509
from cryptography.hazmat import asn1 as a
from rpki_data import CONF, OBJECTS, need

from bgpsim.rpki import asn1, quickcms, quickcrl, quickder, quickext
from bgpsim.rpki.aspa import Aspa
from bgpsim.rpki.cms import SignedObject, _ContentInfo
from bgpsim.rpki.crl import Crl
from bgpsim.rpki.der import decode
from bgpsim.rpki.errors import DERError, ObjectError
from bgpsim.rpki.manifest import Manifest
from bgpsim.rpki.roa import Roa

CHECKS = {".cer": (x509.Certificate, quickder.certificate), ".crl": (crl.CertificateList, quickcrl.certificate_list),
          ".roa": (_ContentInfo, quickcms.content_info),
          ".mft": (_ContentInfo, quickcms.content_info), ".asa": (_ContentInfo, quickcms.content_info),
          ".gbr": (_ContentInfo, quickcms.content_info)}


def test_fast_yes_implies_gate_yes():
    """Over every stored certificate, CRL and signed object, good and malformed: a fast True is never a
    gate rejection, and the fast path answers for the common shape."""
    files = [p for p in sorted(need(OBJECTS).rglob("*")) if p.suffix in CHECKS and p.is_file()]
    fast_yes = 0
    for path in files:
        spec, fast = CHECKS[path.suffix]
        data = path.read_bytes()
        if fast(data):
            fast_yes += 1
            decode(spec, data, str(path))  # raises DERError if the fast path was wrong
    assert fast_yes > len(files) // 2


@pytest.mark.parametrize("hexdata, ok", [
    ("03020780", True),  # digitalSignature
    ("03020106", True),  # keyCertSign, cRLSign
    ("0303060600", False),  # a trailing zero octet: not the DER of a named bit list
    ("03020208", False),  # a trailing zero bit left in (6 bits, the last 0)
])
def test_key_usage_named_bits(hexdata, ok):
    assert (quickext._key_usage_value(bytes.fromhex(hexdata)) is not None) is ok


@pytest.mark.parametrize("uri, ok", [
    ("rsync://rpki.example.net/repo/a.roa", True),
    ("rsync://RPKI.example.net/repo/a.roa", False),  # asn1crypto lower-cases the host on re-encoding
])
def test_uri_round_trip(uri, ok):
    assert quickext._uri_ok(a.IA5String(uri)) is ok


def test_public_names_for_what_asn1crypto_and_cryptography_give():
    """The fast path's names for OIDs and KeyUsage bits are the ones the slow path gets."""
    from cryptography.x509 import ObjectIdentifier

    from bgpsim.rpki.certoids import KEY_USAGE
    assert quickext.OID is ObjectIdentifier
    for i, name in enumerate(KEY_USAGE):  # a BIT STRING with bit i alone set, as asn1crypto names it
        assert x509.KeyUsage.load(bytes([3, 3, 7]) + (1 << 15 - i).to_bytes(2, "big")).native == {name}


def test_ber_goes_to_the_gate():
    """An indefinite length is declined by the fast path; the gate names it with its offset."""
    data = bytes.fromhex("3080020101 0000".replace(" ", ""))
    assert not quickcms.content_info(data)
    with pytest.raises(DERError):
        decode(_ContentInfo, data, "x", fast=quickcms.content_info)


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


def _fast_yes(files: list[bytes], seed: int, tries: int, where, extra: tuple, fast, spec, also=None) -> int:
    """One byte changed per try in one of `files` (at `where(rnd, data)`: to a random value, with a bit
    flipped, or to one of `extra`); each try `fast` takes must pass the gate (rpki.der.decode as
    `spec`) too, and `also` is run on every try. How many tries `fast` took."""
    rnd = random.Random(seed)
    fast_yes = 0
    for _ in range(tries):
        data = bytearray(rnd.choice(files))
        i = where(rnd, data)
        data[i] = rnd.choice((rnd.randrange(256), data[i] ^ 1, data[i] ^ 0x80, *extra))
        mutated = bytes(data)
        if fast(mutated):
            fast_yes += 1
            decode(spec, mutated, "mutated")
        if also is not None:
            also(mutated)
    return fast_yes


def test_mutations_fast_yes_implies_gate_yes():
    """Bytes changed at random in the TBSCertificate of stored certificates of the wider shapes (AKI
    issuer and serial, CRLDP reasons and cRLIssuer, userNotice, UTF8String names, unique IDs, other
    algorithms, non-URI general names, EC keys): a fast True is never a gate rejection."""
    names = ("AKIHas", "CRLDP", "Unotice", "UID", "OID", "Utf", "UnkExt", "Version", "NonURI", "SigAlg", "router")
    files = [p.read_bytes() for p in sorted(need(OBJECTS).rglob("*.cer")) if any(n in p.name for n in names)]
    fast_yes = _fast_yes(files, 7, 600, lambda rnd, data: rnd.randrange(len(data) - 270), (0x0C, 0x13, 0x16),
                         quickder.certificate, x509.Certificate)
    assert fast_yes > 100


def _assert_written_back(oid: str, params: dict) -> None:
    """asn1crypto re-encodes the signature AlgorithmIdentifier of `oid` (and `params`) byte for byte."""
    der = algos.SignedDigestAlgorithm({"algorithm": oid, **params}).dump()
    again = algos.SignedDigestAlgorithm.load(der)
    assert again.native["algorithm"]  # asn1crypto parses lazily: read it all, as the gate does
    assert again.dump(force=True) == der


def test_signature_algorithms_asn1crypto_keeps():
    """asn1crypto writes back each signature algorithm the fast path takes as the same OID; not
    1.3.14.3.2.29, which shares the name sha1_rsa with another OID, so the fast path leaves it to the gate."""
    for oid in quickder.SIGNATURE_ALGORITHMS:
        _assert_written_back(oid, {})
    cer = x509.Certificate.load((need(CONF) / "root" / "badCertBothSigAlg.cer").read_bytes())
    alg = bytes.fromhex("300906052b0e03021d0500")  # 1.3.14.3.2.29, NULL
    data = parser.emit(0, 1, 16, cer["tbs_certificate"].dump() + alg + cer["signature_value"].dump())
    assert not quickder.certificate(data)
    with pytest.raises(DERError):
        decode(x509.Certificate, data, "x")


def test_directory_string_types_as_asn1crypto():
    """The attribute types whose PrintableString or UTF8String values the fast path takes are those
    asn1crypto reads as a DirectoryString."""
    for oid in quickext.DIRECTORY_STRING_TYPES:
        assert x509.NameTypeAndValue._oid_specs[x509.NameType.map(oid)] is x509.DirectoryString


def test_reason_flags_named_bits():
    assert quickext.REASON_FLAGS == len(x509.ReasonFlags._map)

    def ok(hexdata):
        return quickext.named_bits_ok(a.decode_der(a.BitString, bytes.fromhex(hexdata)), quickext.REASON_FLAGS)
    assert ok("030100") and ok("03020780") and ok("0303070080")
    assert not ok("03020700") and not ok("0303060040")  # a trailing zero bit; ten bits


def test_signed_object_mutations_fast_yes_implies_gate_yes():
    """Bytes changed at random in the SignerInfo end and the SignedData head of stored signed
    objects of the wider CMS shapes (SignedData or SignerInfo version 2 or 4, other digests, two
    certificates or SignerInfos, an issuerAndSerialNumber sid, binary-signing-time, smimeCapabilities,
    unsigned attributes, no signed attributes, a CRL): a fast True is never a gate rejection."""
    names = ("badCMS", "6C76EDB2225D11E286C4BD8F7A2F2747")
    files = [p for p in sorted(need(OBJECTS).rglob("*.roa")) if any(n in p.name for n in names)]
    files = [d for d in (p.read_bytes() for p in files) if quickcms.content_info(d)]
    assert len(files) >= 22

    def where(rnd, data):  # the SignerInfo lies at the end (before the signature's 256 octets, unless
        # unsigned attributes follow it); the SignedData's version and digestAlgorithms at the start
        return rnd.randrange(len(data) - 700, len(data)) if rnd.random() < 0.8 else rnd.randrange(40)

    fast_yes = _fast_yes(files, 11, 800, where, (0x02, 0x04, 0x05, 0x06, 0x17, 0x31), quickcms.content_info,
                         _ContentInfo)
    assert fast_yes > 400


def test_cms_oid_names_one_to_one():
    """The OIDs the CMS fast path takes in any value (digest algorithms, content types, attribute
    types, S/MIME capabilities) are of asn1crypto types that name each OID by a name of its own, so
    asn1crypto writes each back as the same OID."""
    from asn1crypto import cms
    for cls in (algos.DigestAlgorithmId, cms.ContentType, cms.CMSAttributeType, algos.EncryptionAlgorithmId):
        assert len(set(cls._map.values())) == len(cls._map), cls.__name__
    assert cms.SignerInfo._fields[2][1] is algos.DigestAlgorithm
    assert cms.SMIMECapabilityIdentifier._fields[0][1] is algos.EncryptionAlgorithmId


def test_signer_signature_algorithms_asn1crypto_keeps():
    for oid in quickcms.SIGNER_SIGNATURE_ALGORITHMS:
        for params in ({}, {"parameters": None}):
            _assert_written_back(oid, params)


def test_crl_names_one_to_one():
    """asn1crypto names each CRL and CRL entry extension OID by a name of its own (so it writes each
    back as the same OID), and the reasonCode values the fast path takes are those it names."""
    for cls in (crl.TBSCertListExtensionId, crl.CRLEntryExtensionId, crl.Version):
        assert len(set(cls._map.values())) == len(cls._map), cls.__name__
    assert quickcrl.CRL_REASONS == set(crl.CRLReason._map)
    assert set(quickcrl.CRL_VERSIONS) - {None} == set(crl.Version._map)


def test_crl_mutations_fast_yes_implies_gate_yes():
    """Bytes changed at random in stored CRLs of the wider shapes (no version, version 0 or 2, entry
    extensions, deltaCRLIndicator, two cRLNumbers, UTF8String issuers, serial numbers of every
    size): a fast True is never a gate rejection."""
    names = ("Entry", "Version", "Delta", "2CRLNums", "IssuerUTF", "Number", "root.crl", "ca1.crl")
    files = [p.read_bytes() for p in sorted(need(OBJECTS).rglob("*.crl")) if any(n in p.name for n in names)]
    files = [d for d in files if quickcrl.certificate_list(d)]
    assert len(files) >= 15

    def total(data):  # the one reader of a CRL file (rpki.crl) reads it or raises ObjectError
        with contextlib.suppress(ObjectError):
            Crl.parse(data, "mutated")

    fast_yes = _fast_yes(files, 13, 600, lambda rnd, data: rnd.randrange(len(data) - 256),  # before the signature
                         (0x00, 0x02, 0x0A, 0x17, 0x18, 0x30), quickcrl.certificate_list, crl.CertificateList, total)
    assert fast_yes > 100


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


@pytest.mark.parametrize("text, ok", [
    ("20110411185728Z", True),
    ("20110411185728.5Z", True),
    ("00110411185728Z", False),  # asn1crypto writes the year back as "11"
    ("09990411185728Z", False),
])
def test_generalized_time_as_asn1crypto_writes_it(text, ok):
    """A GeneralizedTime (a certificate's validity, a CRL's or a manifest's times, signing-time) is
    taken only where asn1crypto writes it back unchanged."""
    from asn1crypto import core
    der = b"\x18" + bytes([len(text)]) + text.encode()
    assert quickder.time_ok(a.decode_der(a.GeneralizedTime, der)) is ok
    value = core.GeneralizedTime.load(der)
    assert value.native
    assert (value.dump(force=True) == der) is ok
