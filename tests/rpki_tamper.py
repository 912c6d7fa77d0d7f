"""Repositories our CA builds, and tampering with them for the broken-repository tests: a repository
built once and copied to each test, find a CA's certificate and key, issue EE certificates in its name
(or forge them), publish extra objects and re-sign its manifest over whatever its directory then holds."""

from __future__ import annotations

import hashlib
import ipaddress
import shutil
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from bgpsim.rpki import asn1, build
from bgpsim.rpki.ca import build_repository
from bgpsim.rpki.cert import ResourceCertificate
from bgpsim.rpki.resources import AsResources, IpResources


_BUILT: dict[tuple[str, datetime], Path] = {}  # (spec, time) -> that repository, built once in this process


def repository(folder: Path, text: str, when: datetime, spec: str = "spec.toml", out: str = "out") -> Path:
    """The repository of `text` built at `when`, in folder/out with its spec in folder/spec: a copy of
    one built once per spec and time in this process (its keys take 0.1 s each), so that a test may
    break or rebuild its own. The first build goes beside `folder`, in pytest's folders of the run."""
    if (text, when) not in _BUILT:
        first = Path(tempfile.mkdtemp(prefix="built-repository-", dir=folder.parent))
        (first / "spec.toml").write_text(text)
        build_repository(first / "spec.toml", first / "out", when)
        _BUILT[(text, when)] = first / "out"
    (folder / spec).write_text(text)
    shutil.copytree(_BUILT[(text, when)], folder / out)
    return folder / out


def ca_cert(out: Path, name: str) -> tuple[ResourceCertificate, str]:
    """CA `name`'s certificate and its rsync URI."""
    for p in out.rglob("*.cer"):
        if ".keys" in p.parts:
            continue
        c = ResourceCertificate.parse(p.read_bytes(), str(p))
        if c.is_ca and c.subject.common_name == name:
            return c, "rsync://" + p.relative_to(out).as_posix()
    raise AssertionError(name)


def ca_key(out: Path, name: str):
    return build.load_key_pem((out / ".keys" / f"ca-{name}.pem").read_bytes())


def pub(out: Path, ca: str) -> Path:
    """CA `ca`'s publication point on disk."""
    return out / ca_cert(out, ca)[0].sia[asn1.OID_AD_CA_REPOSITORY][0][len("rsync://"):]


def ee_der(out: Path, ca: str, key, uri: str, not_before: datetime, not_after: datetime, ip=None, asn=None,
           signer=None, serial=10_000) -> bytes:
    """An EE certificate for a signed object at `uri`, issued in the name of CA `ca` and signed by
    `signer` (default: the CA's own key)."""
    cert, cert_uri = ca_cert(out, ca)
    spki = build.spki_der(key)
    repo = cert.sia[asn1.OID_AD_CA_REPOSITORY][0]
    crl = next(pub(out, ca).glob("*.crl")).name
    return build.certificate(build.CertSpec(
        serial=serial, subject=build.name(build.ski_of(spki).hex().upper()), issuer=build.name(ca), spki=spki,
        not_before=not_before, not_after=not_after, kind="ee", issuer_ski=cert.ski, ip=ip, asn=asn,
        crldp=repo + crl, aia=cert_uri, sia=[(asn1.OID_AD_SIGNED_OBJECT, uri)]), signer or ca_key(out, ca))


def add_roa(out: Path, ca: str, asn: int, prefixes: list[str], ee_ip: str, t: datetime,
            not_before: datetime | None = None, not_after: datetime | None = None, signer=None) -> str:
    """Publish one more ROA under `ca` (its EE holding `ee_ip`), re-sign the CA's manifest; the file name."""
    key = build.new_rsa_key()
    fname = build.ski_of(build.spki_der(key)).hex() + ".roa"
    uri = ca_cert(out, ca)[0].sia[asn1.OID_AD_CA_REPOSITORY][0] + fname
    ee = ee_der(out, ca, key, uri, not_before or t, not_after or t + timedelta(days=30),
                ip=IpResources.parse(ee_ip), signer=signer)
    econtent = build.roa_econtent(asn, [(ipaddress.ip_network(p), None) for p in prefixes])
    (pub(out, ca) / fname).write_bytes(build.signed_object(asn1.OID_CT_ROA, econtent, ee, key, t))
    resign_manifest(out, ca, t)
    return fname


def resign_manifest(out: Path, ca: str, t: datetime, this_update: datetime | None = None,
                    next_update: datetime | None = None, ee_not_after: datetime | None = None) -> None:
    """Re-sign CA `ca`'s manifest (number 1000) over the files its directory now holds."""
    cert, _ = ca_cert(out, ca)
    mft_uri = cert.sia[asn1.OID_AD_RPKI_MANIFEST][0]
    d = pub(out, ca)
    mft_name = mft_uri.rsplit("/", 1)[1]
    hashes = {p.name: hashlib.sha256(p.read_bytes()).digest() for p in d.iterdir() if p.name != mft_name}
    this_update = this_update or t
    next_update = next_update or t + timedelta(days=1)
    key = build.new_rsa_key()
    ee = ee_der(out, ca, key, mft_uri, this_update, ee_not_after or next_update,
                ip=IpResources.parse("inherit4, inherit6"), asn=AsResources(inherit=True), serial=20_000)
    econtent = build.manifest_econtent(1000, this_update, next_update, hashes)
    (d / mft_name).write_bytes(build.signed_object(asn1.OID_CT_MANIFEST, econtent, ee, key, this_update))
