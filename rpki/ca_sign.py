"""Signing the CA's objects: each RPKI signed object (RFC 6488) gets a fresh one-time-use EE key and
certificate (RFC 6487), then its CMS; the EE certificates of router keys (RFC 8209) are made here
too. Generating the RSA keys is most of the cost, so many objects are signed in worker processes
(bgpsim.base.pool), each holding the issuing CAs' keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bgpsim.base.pool import auto_workers, process_pool

from . import asn1, build
from .resources import AsResources, IpResources

EE_VALIDITY = timedelta(days=365)
JOBS_PER_WORKER = 32  # fewer jobs than this per worker process do not pay for starting it
CHUNK = 16  # jobs sent to a worker at once


@dataclass(frozen=True)
class Issuer:
    """What an EE certificate needs from the CA that issues it; plain data, so that signing jobs can
    run in worker processes."""

    name: str
    key_pem: bytes
    ski: bytes
    repo_uri: str
    crl_uri: str
    cert_uri: str


@dataclass(frozen=True)
class SignJob:
    """One RPKI signed object (RFC 6488): a fresh one-time-use EE key and certificate, then CMS."""

    ca: str
    serial: int
    content_type: str
    econtent: bytes
    ext: str
    now: datetime
    ip: IpResources | None = None
    asn: AsResources | None = None
    not_after: datetime | None = None
    uri: str | None = None  # the object's rsync URI; default: the CA's repository + EE SKI + ext


_ISSUERS: dict[str, tuple[Issuer, object]] = {}  # per process: CA name -> (issuer, its private key)


def load_issuers(issuers: dict[str, Issuer]) -> None:
    """Make `issuers` (and their private keys) the ones `sign` signs with in this process."""
    _ISSUERS.clear()
    _ISSUERS.update({n: (i, build.load_key_pem(i.key_pem)) for n, i in issuers.items()})


def ee_cert(iss: Issuer, ca_key, serial: int, key, kind: str, now: datetime, not_after: datetime,
            uri: str | None, ip=None, asn=None, subject=None) -> bytes:
    """An end-entity (or router) certificate for `key`, issued by `iss` and signed with `ca_key`."""
    s = build.spki_der(key)
    return build.certificate(build.CertSpec(
        serial=serial, subject=subject or build.name(build.ski_of(s).hex().upper()), issuer=build.name(iss.name),
        spki=s, not_before=now, not_after=not_after, kind=kind, issuer_ski=iss.ski, ip=ip, asn=asn,
        crldp=iss.crl_uri, aia=iss.cert_uri, sia=[(asn1.OID_AD_SIGNED_OBJECT, uri)] if uri else []), ca_key)


def sign(job: SignJob) -> tuple[str, bytes]:
    """Run one signing job with the issuers `load_issuers` gave: (file name, DER)."""
    iss, ca_key = _ISSUERS[job.ca]
    key = build.new_rsa_key()
    fname = build.ski_of(build.spki_der(key)).hex() + job.ext
    ee = ee_cert(iss, ca_key, job.serial, key, "ee", job.now, job.not_after or job.now + EE_VALIDITY,
                 job.uri or iss.repo_uri + fname, ip=job.ip, asn=job.asn)
    return fname, build.signed_object(job.content_type, job.econtent, ee, key, job.now)


def sign_all(jobs: list[SignJob], issuers: dict[str, Issuer], progress=None) -> list[tuple[str, bytes]]:
    """Sign every job, in order, in worker processes when there are many (one per CPU);
    `progress(done, total)` is told as they are made."""
    workers = min(auto_workers(), len(jobs) // JOBS_PER_WORKER)
    if workers < 2:
        load_issuers(issuers)
        out = []
        for i, job in enumerate(jobs):
            out.append(sign(job))
            if progress:
                progress(i + 1, len(jobs))
        return out
    out = []
    with process_pool(workers, initializer=load_issuers, initargs=(issuers,)) as pool:
        for r in pool.map(sign, jobs, chunksize=CHUNK):
            out.append(r)
            if progress and len(out) % CHUNK == 0:
                progress(len(out), len(jobs))
    if progress:
        progress(len(out), len(jobs))
    return out
