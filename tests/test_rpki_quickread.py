"""The two ways of reading an RPKI object give the same thing: rpki.quickder's decode (taken when the
bytes are certainly DER and of the usual shape) and the asn1crypto readers (everything else, and
the only ones that word rejections). Over every stored certificate and signed object, good and
malformed, the object read, or the rejection text, is the same with the fast readers on or off."""

from __future__ import annotations

import pytest

from bgpsim.rpki import asn1, cert, cms, iri
from bgpsim.rpki.cert import ResourceCertificate
from bgpsim.rpki.errors import ObjectError
from bgpsim.rpki.manifest import Manifest
from bgpsim.rpki.roa import Roa
from rpki_data import OBJECTS, need

READERS = {".cer": ResourceCertificate.parse, ".roa": Roa.read, ".mft": Manifest.read,
           ".asa": cms.SignedObject.read, ".gbr": cms.SignedObject.read}


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


def test_fast_and_slow_readers_agree(monkeypatch):
    files = _files()
    fast = [_outcome(p) for p in files]
    with monkeypatch.context() as m:
        _slow(m)
        slow = [_outcome(p) for p in files]
    for path, f, s in zip(files, fast, slow):
        assert f == s, path
    assert sum(not isinstance(f, str) for f in fast) > len(files) // 2


def _read_fast(path) -> bool:
    """The fast certificate reader decided: it read the certificate or worded its rejection."""
    try:
        return cert.read_quick(path.read_bytes(), str(path)) is not None
    except ObjectError:
        return True


# all stored certificates but badCertPubKeyAlg.cer (a key algorithm asn1crypto cannot read: its KeyError
# is the rejection text, left to the asn1crypto path)
CERTS_READ_FAST = 198


def test_fast_readers_take_the_usual_shape():
    """The fast certificate reader decides every stored certificate it can word as the asn1crypto
    path does; the fast signed-object readers most stored objects (so the test above compares both
    paths)."""
    files = _files()
    certs = [p for p in files if p.suffix == ".cer"]
    signed = [p for p in files if p.suffix != ".cer"]
    assert sum(_read_fast(p) for p in certs) >= CERTS_READ_FAST
    objs = [o for o in (cms.read_quick(p.read_bytes(), str(p)) for p in signed) if o is not None]
    assert len(objs) > len(signed) // 2
    roas = [o for o in objs if o.content_type == asn1.OID_CT_ROA]
    assert roas and sum(Roa._read_quick(o) is not None for o in roas) > len(roas) // 2
    mfts = [o for o in objs if o.content_type == asn1.OID_CT_MANIFEST]
    assert mfts and sum(Manifest._read_quick(o) is not None for o in mfts) > len(mfts) // 2


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
