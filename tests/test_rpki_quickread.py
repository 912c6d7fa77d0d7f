"""Certificates and CMS wrappers have two readers, which give the same thing: rpki.quickder's decode
(taken when the bytes are certainly DER and of the usual shape) and the asn1crypto readers
(everything else, and the only ones that word their DER rejections). Over every stored certificate
and signed object, good and malformed, the object read, or the rejection text, is the same with the
fast readers on or off. CRLs and the ROA, manifest and ASPA eContents have one reader
(rpki.quickder.strict): every stored one is decided by it."""

from __future__ import annotations

import pytest
from rpki_data import OBJECTS, need

from bgpsim.rpki import cert, cms, iri
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


def _outcome(path):
    try:
        return READERS[path.suffix](path.read_bytes(), str(path))
    except Exception as e:  # noqa: BLE001 - the rejection is what is compared
        return f"{type(e).__name__}: {e}"


def _slow(monkeypatch):
    monkeypatch.setattr(cert, "read_quick", lambda der, source: None)
    monkeypatch.setattr(cms, "read_quick", lambda data, source: None)


def test_fast_and_slow_readers_agree(monkeypatch):
    files = _files(set(READERS) - {".crl"})  # a CRL has one reader
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

def test_fast_readers_take_the_usual_shape():
    """The fast readers decide every stored object they can word as the asn1crypto path does (so
    the test above compares both paths), and a regression in what they take fails here."""
    files = _files()
    certs = [p for p in files if p.suffix == ".cer"]
    signed = [p for p in files if p.suffix not in (".cer", ".crl")]
    assert sum(_decided(cert.read_quick, p.read_bytes(), str(p)) is not None for p in certs) >= CERTS_READ_FAST
    decided = [_decided(cms.read_quick, p.read_bytes(), str(p)) for p in signed]
    assert sum(d is not None for d in decided) >= SIGNED_READ_FAST


def test_one_reader_decides_every_stored_crl_and_econtent():
    """CRLs and the ROA, manifest and ASPA eContents have one reader (rpki.quickder.strict): every
    stored one reads, or is rejected with an ObjectError (DERError for what is not DER), never
    another exception; the counts are those of the stored data."""
    outcomes = {}
    for p in _files({".crl", ".roa", ".mft", ".asa"}):
        try:
            READERS[p.suffix](p.read_bytes(), str(p))
            outcomes[p.suffix, "ok"] = outcomes.get((p.suffix, "ok"), 0) + 1
        except ObjectError as e:
            outcomes[p.suffix, type(e).__name__] = outcomes.get((p.suffix, type(e).__name__), 0) + 1
    assert outcomes[".crl", "ok"] == 64 and outcomes[".crl", "DERError"] == 2
    assert outcomes[".asa", "ok"] == 7 and outcomes[".asa", "DERError"] == 1
    assert outcomes[".roa", "ok"] == 128 and outcomes[".mft", "ok"] == 56


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
