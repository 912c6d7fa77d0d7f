"""The two ways of reading an RPKI object give the same thing: rpki.quickder's decode (taken when the
bytes are certainly DER and of the usual shape) and the asn1crypto readers (everything else, and
the only ones that word DER rejections). Over every stored certificate, CRL and signed object (ROA,
manifest and ASPA eContents included), good and malformed, the object read, or the rejection text,
is the same with the fast readers on or off."""

from __future__ import annotations

import pytest

from bgpsim.rpki import asn1, cert, cms, crl, iri
from bgpsim.rpki.aspa import Aspa
from bgpsim.rpki.cert import ResourceCertificate
from bgpsim.rpki.crl import Crl
from bgpsim.rpki.errors import ObjectError
from bgpsim.rpki.manifest import Manifest
from bgpsim.rpki.roa import Roa
from rpki_data import OBJECTS, need

READERS = {".cer": ResourceCertificate.parse, ".crl": Crl.parse, ".roa": Roa.read, ".mft": Manifest.read,
           ".asa": Aspa.read, ".gbr": cms.SignedObject.read}


def _files():
    return [p for p in sorted(need(OBJECTS).rglob("*")) if p.suffix in READERS and p.is_file()]


def _outcome(path):
    try:
        return READERS[path.suffix](path.read_bytes(), str(path))
    except Exception as e:  # noqa: BLE001 - the rejection is what is compared
        return f"{type(e).__name__}: {e}"


def _slow(monkeypatch):
    monkeypatch.setattr(cert, "read_quick", lambda der, source: None)
    monkeypatch.setattr(cms, "read_quick", lambda data, source: None)
    monkeypatch.setattr(Roa, "_read_quick", classmethod(lambda cls, signed: None))
    monkeypatch.setattr(Manifest, "_read_quick", classmethod(lambda cls, signed: None))
    monkeypatch.setattr(crl, "read_quick", lambda der, source: None)
    monkeypatch.setattr(Aspa, "_read_quick", classmethod(lambda cls, econtent, source: None))


def test_fast_and_slow_readers_agree(monkeypatch):
    files = _files()
    fast = [_outcome(p) for p in files]
    with monkeypatch.context() as m:
        _slow(m)
        slow = [_outcome(p) for p in files]
    for path, f, s in zip(files, fast, slow):
        assert f == s, path
    assert sum(not isinstance(f, str) for f in fast) > len(files) // 2


def _decided(read, *args):
    """What a fast reader decided: the object it read, True for a rejection it worded (as the
    asn1crypto path words it), None when it left the object to the asn1crypto path."""
    try:
        return read(*args)
    except ObjectError:
        return True


# all stored certificates but badCertPubKeyAlg.cer (a key algorithm asn1crypto cannot read: its KeyError
# is the rejection text, left to the asn1crypto path)
CERTS_READ_FAST = 198
# all stored signed objects but 3 in BER (example-ripe.roa, ta.mft, ca1.mft) and 8 not DER whose
# rejection is asn1crypto's own text
SIGNED_READ_FAST = 231
# of the ROAs and manifests whose wrapper the fast path read: all but the eContents that are not
# DER (3 ROAs with an explicit [0] version, 5 manifests), whose rejection is asn1crypto's own text
ROAS_READ_FAST = 140
MFTS_READ_FAST = 56
# all stored CRLs but 2 of Names asn1crypto rejects (badCRLIssuerSeq2SerNums, badCRLIssuerSet2SerNums:
# its own text) and 2 with an issuerAltName or issuingDistributionPoint of an rfc822Name (declined)
CRLS_READ_FAST = 62
# of the ASPAs whose wrapper the fast path read: all but the eContent with an IMPLICIT version
# (not DER of either profile, whose rejection is asn1crypto's own text); both profiles
ASPAS_READ_FAST = 7


def test_fast_readers_take_the_usual_shape():
    """The fast readers decide every stored object they can word as the asn1crypto path does (so
    the test above compares both paths), and a regression in what they take fails here."""
    files = _files()
    certs = [p for p in files if p.suffix == ".cer"]
    signed = [p for p in files if p.suffix not in (".cer", ".crl")]
    assert sum(_decided(cert.read_quick, p.read_bytes(), str(p)) is not None for p in certs) >= CERTS_READ_FAST
    crls = [p for p in files if p.suffix == ".crl"]
    assert sum(_decided(crl.read_quick, p.read_bytes(), str(p)) is not None for p in crls) >= CRLS_READ_FAST
    decided = [_decided(cms.read_quick, p.read_bytes(), str(p)) for p in signed]
    assert sum(d is not None for d in decided) >= SIGNED_READ_FAST
    objs = [o for o in decided if isinstance(o, cms.SignedObject)]
    roas = [o for o in objs if o.content_type == asn1.OID_CT_ROA]
    assert sum(_decided(Roa._read_quick, o) is not None for o in roas) >= ROAS_READ_FAST
    mfts = [o for o in objs if o.content_type == asn1.OID_CT_MANIFEST]
    assert sum(_decided(Manifest._read_quick, o) is not None for o in mfts) >= MFTS_READ_FAST
    aspas = [o for o in objs if o.content_type == asn1.OID_CT_ASPA]
    assert sum(_decided(Aspa._read_quick, o.econtent, o.source) is not None for o in aspas) >= ASPAS_READ_FAST


@pytest.mark.parametrize("uri", [
    "rsync://rpki.example.net/repo/a.roa",
    "rsync://RPKI.Example.net/repo/ca-1/x_y~z.mft",
    "rsync://rpki.example.net:873/repo/",
    "rsync://rpki.example.net/a%20b/c.cer",
    "https://rrdp.example.net/notification.xml",
])
def test_uri_text_as_asn1crypto(uri):
    from asn1crypto import x509
    assert iri.text(uri) == x509.URI.load(b"\x16" + bytes([len(uri)]) + uri.encode()).native
