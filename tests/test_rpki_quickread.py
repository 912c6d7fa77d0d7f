"""Every RPKI object has one reader, on cryptography's strict DER decoder (rpki.quickder, quickext,
quickcrl, quickcms): every stored certificate, CRL and signed object, good and malformed, reads or is
rejected with an ObjectError (DERError for what is not DER), never another exception. The counts
are those of the stored data; docs/speed.md ("One DER reader") says where a verdict moved when the
asn1crypto readers went, and why."""

from __future__ import annotations

from rpki_data import CONFORMANCE_TIME, OBJECTS, RPKI_RS, need

from bgpsim.rpki import cms
from bgpsim.rpki.aspa import Aspa
from bgpsim.rpki.cert import ResourceCertificate
from bgpsim.rpki.crl import Crl
from bgpsim.rpki.errors import ObjectError
from bgpsim.rpki.manifest import Manifest
from bgpsim.rpki.roa import Roa

READERS = {".cer": ResourceCertificate.parse, ".crl": Crl.parse, ".roa": Roa.read, ".mft": Manifest.read,
           ".asa": Aspa.read, ".gbr": cms.SignedObject.read}


def _files(suffixes=READERS):
    return [p for p in sorted(need(OBJECTS).rglob("*")) if p.suffix in suffixes and p.is_file()]


def test_one_reader_decides_every_stored_object():
    outcomes: dict[tuple[str, str], int] = {}
    for p in _files():
        try:
            READERS[p.suffix](p.read_bytes(), str(p)).problems(CONFORMANCE_TIME)
            kind = "ok"
        except ObjectError as e:
            kind = type(e).__name__
        outcomes[p.suffix, kind] = outcomes.get((p.suffix, kind), 0) + 1
    assert outcomes == {
        (".cer", "ok"): 192, (".cer", "ObjectError"): 7,
        (".crl", "ok"): 64, (".crl", "DERError"): 2,
        (".roa", "ok"): 128, (".roa", "DERError"): 8, (".roa", "ObjectError"): 22,
        (".mft", "ok"): 56, (".mft", "DERError"): 10, (".mft", "ObjectError"): 1,
        (".asa", "ok"): 7, (".asa", "DERError"): 1,
        (".gbr", "ok"): 9,
    }


def test_a_key_algorithm_of_another_kind_is_read_and_rejected_by_the_profile():
    """badCertPubKeyAlg.cer (an md2WithRSAEncryption key): asn1crypto could not read it (KeyError);
    the one reader reads it, and the profile rejects the key by name."""
    path = need(OBJECTS) / "rpki-commons" / "conformance" / "root" / "badCertPubKeyAlg.cer"
    cert = ResourceCertificate.parse(path.read_bytes(), str(path))
    assert ("subjectPublicKeyInfo", "RFC 7935 section 3", "want rsaEncryption, got 1.2.840.113549.1.1.2") \
        in cert.problems(CONFORMANCE_TIME)


def test_the_three_real_ber_objects_read_only_with_ber_ok():
    """The RIPE NCC objects in BER (indefinite lengths in the wrapper, a chunked eContent): DERError at
    offset 1 by default; with ber_ok their canonical form reads, the signature checks over the
    signed attributes as received, and `der` is what was received."""
    for name, read in (("example-ripe.roa", Roa.read), ("ta.mft", Manifest.read), ("ca1.mft", Manifest.read)):
        data = need(RPKI_RS / name).read_bytes()
        try:
            read(data, name)
            raise AssertionError(f"{name} read without ber_ok")
        except ObjectError as e:
            assert type(e).__name__ == "DERError" and e.offset == 1
        obj = read(data, name, ber_ok=True)
        assert obj.signed.ber and obj.signed.der == data
        assert not [p for p in obj.signed.problems() if p[0] == "SignerInfo.signature"]
