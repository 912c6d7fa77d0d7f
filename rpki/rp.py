"""A relying party, first step: `bgpsim rpki validate --tal FILE --repo DIR`.

`validate(tal, repo, at)` walks one trust anchor's repository, already on disk in the layout of
FORT's and our CA's output (every object at DIR/<host>/<path of its rsync URI>), top-down:

1. the TA certificate at the path of the TAL's first rsync URI: it carries the TAL's key, is a
   self-signed CA certificate (its signature verifies with its own key), its profile is fine at
   `at`, and its resources are explicit (no 'inherit');
2. for each CA: its manifest (SIA id-ad-rpkiManifest): not stale at `at`, profile, CMS signature by
   its EE certificate, that EE issued by the CA and not on the CA's CRL; the one CRL the manifest
   lists (present, hash as listed, issued by the CA, profile, not stale);
3. every other file the manifest lists, present and with the SHA-256 it lists, by extension:
   `.cer` a child CA certificate (recursed into) or an RFC 8209 router certificate, `.roa`,
   `.asa` (ASPA); unknown extensions are skipped. Each certificate and each signed object's EE is
   checked: issued (signed) by the CA, not revoked on the CA's CRL, profile and validity at `at`,
   resources (with 'inherit' resolved against the CA's) within the CA's.

Decisions:
- A broken manifest or CRL (missing, stale, bad signature, not issued by the CA, more or fewer
  than one CRL listed) drops the CA's whole publication point and so the whole subtree under it,
  as rpki-client does: one rejection names the manifest or CRL and the check.
- So does a file listed on the manifest that is missing or does not match its hash (RFC 9286
  section 6.4; rpki-client 8.2 says "bad message digest for X" and drops the publication point:
  tests/test_rp.py checks it agrees).
- Files in the directory that the manifest does not list are ignored.
- ASPAs of both profiles are accepted: the current one, and the older one (draft 13) that
  rpki-client 8.2 reads and pre-0.14 Krill published.
- The walk is bounded: at most `max_depth` CAs below the TA, `max_objects` objects in all, and a
  CA whose key (SKI) or manifest was already visited is rejected as a cycle.

Worker processes: the ROAs and ASPAs of a publication point depend on nothing but its CA, CRL and
resources, so with at least PARALLEL_MIN of them they go, CHUNK at a time, to a pool of forked
processes (`workers`, by default one per CPU) while the walk goes on; what no worker has started by
the walk's end, this process checks itself. Everything the walk adds to the result waits behind the
outcomes still out (`Validator.put`), so the result is the single-process one exactly.

Every rejection is a `Rejection(uri, reason)`, the reason being the ObjectError text
("URI: [RFC ...] check: want ..."). The payloads carry the trust anchor name (the TAL file's stem)
and `expires`: the earliest notAfter / nextUpdate along the chain, as rpki-client computes it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from bgpsim.base.collector import growing
from bgpsim.base.errors import InputError
from bgpsim.base.pool import auto_workers, process_pool

from . import asn1
from .aspa import Aspa
from .cert import Kind, ResourceCertificate
from .crl import Crl
from .errors import ObjectError
from .manifest import Manifest
from .resources import AsResources, IpResources
from .roa import Roa
from .tal import Tal
from .vrps import ASPA, Origin, Payloads, RouterKey, write_json

MAX_DEPTH = 32
MAX_OBJECTS = 1_000_000
MAX_FILE_BYTES = 64 * 2**20
MAX_ROUTER_ASES = 1024  # router keys emitted per router certificate (one per AS it holds)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_~+=,@-][A-Za-z0-9._~+=,@-]*")  # a last path segment urlsplit leaves alone
PARALLEL_MIN = 32  # ROAs and ASPAs in one publication point worth checking in worker processes
CHUNK = 256  # ROAs and ASPAs a worker takes at once (at 50,000 ROAs: 8.6 s, against 9.1 s at 64)
MAX_AUTO_WORKERS = 8  # processes chosen by default (each is forked and costs a little)


@dataclass
class Rejection:
    uri: str
    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass
class Result:
    payloads: Payloads
    rejected: list[Rejection] = field(default_factory=list)
    cas: int = 0  # CAs whose publication point was used (the TA included)
    objects: int = 0  # files looked at
    ta_failed: str | None = None  # why the trust anchor itself was rejected (then nothing else was read)


def _ts(dt: datetime) -> int:
    return int(dt.timestamp())


class Validator:
    def __init__(self, tal_path: str | Path, repo: str | Path, at: datetime | None = None, *,
                 max_depth: int = MAX_DEPTH, max_objects: int = MAX_OBJECTS, workers: int | None = None,
                 progress=None):
        self.tal_path = Path(tal_path)
        self.repo = Path(repo)
        self.at = at or datetime.now(timezone.utc)
        self.ta_name = self.tal_path.stem
        self.max_depth = max_depth
        self.max_objects = max_objects
        self.result = Result(Payloads(generated=self.at))
        self.seen_keys: set[bytes] = set()
        self.seen_manifests: set[str] = set()
        self.stopped = False  # the object limit was reached: nothing more is read
        # worker processes for the ROAs and ASPAs of a publication point with at least PARALLEL_MIN
        self.workers = auto_workers(MAX_AUTO_WORKERS, needs_fork=True) if workers is None else max(1, workers)
        self.pool = None
        self.held: list = []  # additions to the result behind an outcome still out, in the walk's order
        self.chunks: list[_Chunk] = []  # the leaves sent to the workers, in the walk's order
        self.dirs: dict[str, Path] = {}  # URI up to its last "/" -> the directory `local` gave for it
        self.progress = progress  # progress(objects looked at, None) now and then

    # ---- helpers --------------------------------------------------------------------------------
    def put(self, add, *args) -> None:
        """`add(*args)`, an addition to the result, now, or behind the outcomes still out (the walk's order)."""
        if self.held:
            self.held.append((add, args))
        else:
            add(*args)

    def reject(self, uri: str, e: Exception) -> None:
        self.put(self.result.rejected.append, Rejection(uri, _rejection_text(uri, e)))

    def local(self, uri: str) -> Path:
        head, _, name = uri.rpartition("/")
        parent = self.dirs.get(head)
        if parent is not None and _PLAIN_NAME.fullmatch(name):  # what the parse below gives, sooner
            return parent / name
        parts = urlsplit(uri)
        segs = [s for s in parts.path.split("/") if s]
        if parts.scheme != "rsync" or not parts.hostname or not segs or any(s in (".", "..") for s in segs):
            raise ObjectError(f"want an rsync URI with a host and a path, got {uri!r}", uri, check="URI",
                              rfc="RFC 6487 section 4.8.8")
        path = self.repo.joinpath(parts.hostname, *segs)
        if _PLAIN_NAME.fullmatch(name) and not parts.query and not parts.fragment and parts.path.endswith("/" + name):
            self.dirs[head] = path.parent
        return path

    def read(self, uri: str) -> bytes:
        path = self.local(uri)
        try:  # a file object for each of 50,000 small files costs more than the read
            fd = os.open(path, os.O_RDONLY)
            try:
                size = os.fstat(fd).st_size
                if size > MAX_FILE_BYTES:
                    raise ObjectError(f"want at most {MAX_FILE_BYTES} bytes, got {size}", uri, check="size")
                data = os.read(fd, size + 1)
                while len(data) <= MAX_FILE_BYTES and (more := os.read(fd, 1 << 16)):  # short, or grown
                    data += more
            finally:
                os.close(fd)
        except OSError as e:
            raise ObjectError(f"want the file in the repository at {path}, {e.strerror or e}", uri,
                              check="file", rfc="RFC 9286 section 6.4") from None
        if len(data) > MAX_FILE_BYTES:
            raise ObjectError(f"want at most {MAX_FILE_BYTES} bytes, got more (the file grew)", uri, check="size")
        return data

    def count(self, uri: str) -> None:
        self.result.objects += 1
        if self.progress is not None and not self.result.objects % 256:
            self.progress(self.result.objects, None)
        if self.result.objects > self.max_objects:
            self.stopped = True
            raise ObjectError(f"want at most {self.max_objects} objects in one validation run, stopping here",
                              uri, check="object limit")

    @staticmethod
    def contained(cert: ResourceCertificate, ip: IpResources, asr: AsResources, uri: str):
        """The certificate's resources, 'inherit' resolved, when they lie within (ip, asr)."""
        mine_ip = (cert.ip_resources or IpResources()).resolve(ip)
        mine_as = (cert.as_resources or AsResources()).resolve(asr)
        for ver in (4, 6):
            f = (cert.ip_resources or IpResources()).family(ver)
            if f is not None and f.inherit and ip.family(ver) is None:
                raise ObjectError(f"want an issuer holding IPv{ver} for 'inherit', it holds none", uri,
                                  check="ipAddrBlocks", rfc="RFC 3779 section 2.2.3.5")
        if cert.as_resources is not None and cert.as_resources.inherit and not asr.ids:
            raise ObjectError("want an issuer holding AS numbers for 'inherit', it holds none", uri,
                              check="autonomousSysIds", rfc="RFC 3779 section 3.2.3.3")
        rest = ip.uncovered(mine_ip)
        if not rest.is_empty():
            raise ObjectError(f"want resources within the issuer's, uncovered IP: {rest}", uri,
                              check="ipAddrBlocks", rfc="RFC 6487 section 7.2")
        rest_as = asr.uncovered(mine_as)
        if rest_as.ids:
            raise ObjectError(f"want resources within the issuer's, uncovered AS: {rest_as}", uri,
                              check="autonomousSysIds", rfc="RFC 6487 section 7.2")
        return mine_ip, mine_as

    @staticmethod
    def not_revoked(cert: ResourceCertificate, crl: Crl, uri: str) -> None:
        if crl.is_revoked(cert.serial):
            raise ObjectError(f"want a certificate not revoked, serial {cert.serial} is on the CRL {crl.source}",
                              uri, check="revocation", rfc="RFC 6487 section 5, RFC 5280 section 6.3")

    # ---- the walk -------------------------------------------------------------------------------
    def run(self) -> Result:
        tal = Tal.load(self.tal_path)  # an unreadable or malformed TAL is the caller's error (exit 2)
        if not self.repo.is_dir():
            raise InputError(f"--repo: want a directory, got {str(self.repo)!r}")
        uris = [u for u in tal.uris if u.startswith("rsync://")]
        if not uris:
            raise ObjectError("want an rsync:// URI for the trust anchor certificate", str(self.tal_path),
                              check="URI", rfc="RFC 8630 section 2.2")
        uri = uris[0]
        try:
            ta = ResourceCertificate.parse(self.read(uri), uri)
            if not tal.matches(ta):
                raise ObjectError("want the TAL's subjectPublicKeyInfo, the certificate carries another key", uri,
                                  check="subjectPublicKeyInfo", rfc="RFC 8630 section 3")
            if ta.kind is not Kind.TA:
                raise ObjectError(f"want a self-signed CA certificate, got a {ta.kind.value}", uri,
                                  check="trust anchor", rfc="RFC 6487 section 4, RFC 8630 section 3")
            ta.check_issued_by(ta)
            ta.check_profile(self.at)
            ip, asr = ta.ip_resources or IpResources(), ta.as_resources or AsResources()
            if ip.inherit or asr.inherit:
                raise ObjectError("want explicit resources in a trust anchor, got 'inherit'", uri,
                                  check="resources", rfc="RFC 6487 section 7.2")
        except Exception as e:  # noqa: BLE001 - ObjectError, or an odd object the parsers did not foresee
            self.reject(uri, e)
            self.result.ta_failed = self.result.rejected[-1].reason
            return self.result
        self.seen_keys.add(ta.ski)
        try:
            with growing():  # the result grows by some 450,000 objects at 50,000 ROAs
                self.walk(ta, uri, ip, asr, 0, _ts(ta.not_after))
                for chunk in reversed(self.chunks):  # what no worker has started: here, from the end
                    chunk.steal()
                for add, args in self.held:
                    add(*args)
        finally:
            if self.pool is not None:
                self.pool.shutdown(cancel_futures=True)
                self.pool = None
        return self.result

    def walk(self, ca: ResourceCertificate, ca_uri: str, ip: IpResources, asr: AsResources, depth: int,
             expires: int) -> None:
        if self.stopped:
            return
        mft_uris = ca.sia.get(asn1.OID_AD_RPKI_MANIFEST) or []
        repo_uris = ca.sia.get(asn1.OID_AD_CA_REPOSITORY) or []
        mft_uri = next((u for u in mft_uris if u.startswith("rsync://")), None)
        base = next((u for u in repo_uris if u.startswith("rsync://")), None)
        try:
            if mft_uri is None or base is None:
                raise ObjectError("want rsync URIs for id-ad-rpkiManifest and id-ad-caRepository", ca_uri,
                                  check="subjectInfoAccess", rfc="RFC 6487 section 4.8.8.1")
            if not base.endswith("/"):
                base += "/"
            if mft_uri in self.seen_manifests:
                raise ObjectError(f"want each manifest once, {mft_uri} was already visited (cycle)", ca_uri,
                                  check="cycle")
            self.seen_manifests.add(mft_uri)
            self.count(mft_uri)
            mft = self.manifest(ca, mft_uri)
            crl, _ = self.crl(ca, mft, mft_uri, base)
            self.not_revoked(mft.signed.ee, crl, mft_uri)
            files = {}
            for name in sorted(mft.files):  # RFC 9286 section 6.4: all listed files, all matching, or none
                if name.endswith(".crl"):
                    continue
                self.count(base + name)
                try:
                    files[name] = self.read(base + name)
                    mft.check_file(name, files[name])
                except ObjectError as e:
                    raise ObjectError(f"publication point dropped, {name}: {e.reason}", mft_uri,
                                      check=e.check or "fileList", rfc=e.rfc) from None
        except Exception as e:  # noqa: BLE001 - ObjectError, or an odd object the parsers did not foresee
            self.reject(mft_uri or ca_uri, e)
            return
        self.result.cas += 1
        expires = min(expires, _ts(mft.next_update), _ts(mft.signed.ee.not_after),
                      _ts(crl.next_update) if crl.next_update else expires)
        # ROAs and ASPAs depend on nothing but this CA: with enough of them they are checked in worker
        # processes first; their outcomes are then taken in the same order as the single-process walk
        leaves = [(base + name, data) for name, data in files.items() if name.endswith((".roa", ".asa"))]
        done = iter(self.send(ca, crl, leaves, ip, asr, expires) if self.workers > 1 and len(leaves) >= PARALLEL_MIN else ())
        for name, data in files.items():
            if self.stopped:
                return
            uri = base + name
            if name.endswith(".cer"):
                try:
                    self.certificate(ca, crl, uri, data, ip, asr, depth, expires)
                except Exception as e:  # noqa: BLE001 - ObjectError, or one odd object that must not stop the run
                    self.reject(uri, e)
            elif name.endswith((".roa", ".asa")):
                sent = next(done, None)
                if sent is None:
                    self.put(self.take, uri, _leaf(ca, crl, uri, data, ip, asr, expires, self.at, self.ta_name))
                else:  # behind it, everything the walk adds waits for its outcome
                    self.held.append((self.take_sent, (uri, *sent)))

    def take_sent(self, uri: str, chunk: _Chunk, k: int) -> None:
        self.take(uri, chunk.outcomes()[k])

    def take(self, uri: str, outcome: tuple[str, object]) -> None:
        kind, value = outcome
        if kind == "rejected":
            self.result.rejected.append(Rejection(uri, value))
        elif kind == "origins":
            self.result.payloads.origins += value
        else:
            self.result.payloads.aspas.append(value)

    def send(self, ca, crl, leaves: list[tuple[str, bytes]], ip, asr, expires) -> list[tuple[_Chunk, int]]:
        """Each (uri, data) sent to the workers, CHUNK at a time: its chunk and place in it."""
        rest = (ip, asr, expires, self.at, self.ta_name)
        out = []
        for i in range(0, len(leaves), CHUNK):
            args = (ca, crl, leaves[i:i + CHUNK], *rest)
            try:
                if self.pool is None:
                    self.pool = process_pool(self.workers - 1)
                future = self.pool.submit(_leaves, *args)
            except Exception:  # noqa: BLE001 - no pool to be had: checked here when wanted
                future = None
            chunk = _Chunk(future, args)
            self.chunks.append(chunk)
            out += [(chunk, k) for k in range(len(args[2]))]
        return out

    def manifest(self, ca: ResourceCertificate, uri: str) -> Manifest:
        mft = Manifest.read(self.read(uri), uri)
        if mft.stale(self.at):
            raise ObjectError(f"want a current manifest, it is stale since {mft.next_update:%Y-%m-%d %H:%M:%S}",
                              uri, check="nextUpdate", rfc="RFC 9286 section 6.3")
        mft.check(self.at)
        mft.signed.check_issued_by(ca)
        return mft

    def crl(self, ca: ResourceCertificate, mft: Manifest, mft_uri: str, base: str) -> tuple[Crl, str]:
        names = [n for n in mft.files if n.endswith(".crl")]
        if len(names) != 1:
            raise ObjectError(f"want exactly one CRL on the manifest, got {len(names)}", mft_uri,
                              check="fileList", rfc="RFC 9286 section 6.4")
        uri = base + names[0]
        try:
            data = self.read(uri)
            mft.check_file(names[0], data)
            crl = Crl.parse(data, uri)
            crl.check_issued_by(ca)
            crl.check_profile(self.at)
        except ObjectError as e:
            raise ObjectError(f"publication point dropped, its CRL is unusable: {e}", mft_uri, check="CRL") from None
        return crl, uri

    def certificate(self, ca, crl, uri, data, ip, asr, depth, expires) -> None:
        cert = ResourceCertificate.parse(data, uri)
        cert.check_issued_by(ca)
        self.not_revoked(cert, crl, uri)
        cert.check_profile(self.at)
        kind = cert.kind
        if kind is Kind.ROUTER:
            _, mine_as = self.contained(cert, ip, asr, uri)
            if cert.ip_resources is not None:
                raise ObjectError("want no IP resources in a router certificate", uri, check="ipAddrBlocks",
                                  rfc="RFC 8209 section 3.1.3.4")
            ases = [a for lo, hi in mine_as.ids.ranges for a in range(lo, min(hi, lo + MAX_ROUTER_ASES) + 1)]
            if not ases or len(ases) > MAX_ROUTER_ASES:
                raise ObjectError(f"want 1..{MAX_ROUTER_ASES} AS numbers in a router certificate", uri,
                                  check="autonomousSysIds", rfc="RFC 8209 section 3.1.3.5")
            exp = min(expires, _ts(cert.not_after))
            for a in ases:
                self.put(self.result.payloads.router_keys.append,
                         RouterKey(a, cert.ski, cert.public_key_info, self.ta_name, exp))
            return
        if kind is not Kind.CA:
            raise ObjectError(f"want a CA or router certificate, got a {kind.value} certificate", uri,
                              check="certificate kind", rfc="RFC 6487 section 4.8.1")
        mine_ip, mine_as = self.contained(cert, ip, asr, uri)
        if depth + 1 > self.max_depth:
            raise ObjectError(f"want at most {self.max_depth} CAs below the trust anchor", uri, check="depth limit")
        if cert.ski in self.seen_keys:
            raise ObjectError(f"want each CA key once, SKI {cert.ski.hex()} was already visited (cycle)", uri,
                              check="cycle")
        self.seen_keys.add(cert.ski)
        self.walk(cert, uri, mine_ip, mine_as, depth + 1, min(expires, _ts(cert.not_after)))


def _rejection_text(uri: str, e: Exception) -> str:
    if isinstance(e, ObjectError):
        text = str(e)
        if not text.startswith(uri) and uri not in text:
            text = f"{uri}: {text}"
        return text
    return f"{uri}: want a readable object, got {type(e).__name__}: {e}"


def _ee(ca, crl, ee: ResourceCertificate, uri, ip, asr) -> None:
    ee.check_issued_by(ca)
    Validator.not_revoked(ee, crl, uri)
    Validator.contained(ee, ip, asr, uri)


def _leaf(ca, crl, uri: str, data: bytes, ip, asr, expires: int, at: datetime, ta_name: str) -> tuple[str, object]:
    """A ROA or an ASPA of the publication point of `ca`: ("origins", [Origin]), ("aspa", ASPA) or
    ("rejected", the rejection text)."""
    try:
        if uri.endswith(".roa"):
            roa = Roa.read(data, uri).check(at)
            _ee(ca, crl, roa.signed.ee, uri, ip, asr)
            exp = min(expires, _ts(roa.signed.ee.not_after))
            return "origins", [Origin(v, ta_name, exp) for v in roa.vrps()]
        # both profiles: the older one is what rpki-client 8.2 and pre-0.14 Krill publish and read;
        # its providers are kept whatever their afiLimit (payloads are not split by address family)
        aspa = Aspa.read(data, uri).check(at, old_profile_ok=True)
        _ee(ca, crl, aspa.signed.ee, uri, ip, asr)
        exp = min(expires, _ts(aspa.signed.ee.not_after))
        return "aspa", ASPA(aspa.customer, tuple(aspa.providers), ta_name, exp)
    except Exception as e:  # noqa: BLE001 - ObjectError, or one odd object that must not stop the run
        return "rejected", _rejection_text(uri, e)


def _leaves(ca, crl, leaves, ip, asr, expires, at, ta_name) -> list[tuple[str, object]]:
    """`_leaf` of each (uri, data): one task of a worker process."""
    return [_leaf(ca, crl, uri, data, ip, asr, expires, at, ta_name) for uri, data in leaves]


class _Chunk:
    """Some leaves of one publication point, sent to a worker (`future`, None if none could be had):
    checked there, or here if no worker has started them when this process is free (`steal`), or if
    the worker failed."""

    def __init__(self, future, args: tuple):
        self.future, self.args, self.done = future, args, None
        if future is not None:  # the files' bytes let go once a worker has checked them
            future.add_done_callback(self._checked)

    def _checked(self, future) -> None:
        if not future.cancelled() and future.exception() is None:
            self.args = None

    def steal(self) -> None:
        if self.done is None and (self.future is None or self.future.cancel()):
            self.done, self.args = _leaves(*self.args), None

    def outcomes(self) -> list[tuple[str, object]]:
        if self.done is None:
            try:
                self.done = self.future.result()
            except Exception:  # noqa: BLE001 - a worker that failed (killed, out of memory): here instead
                self.done = _leaves(*self.args)
            self.args = None
        return self.done


def validate(tal: str | Path, repo: str | Path, at: datetime | None = None, *, max_depth: int = MAX_DEPTH,
             max_objects: int = MAX_OBJECTS, workers: int | None = None, progress=None) -> Result:
    """Validate the repository at `repo` from the TAL at `tal` at time `at` (default now).

    `workers`: processes that check the ROAs and ASPAs of a large publication point (1: all in
    this process; None: one per CPU, as rpki-client and FORT spread their work, at most
    MAX_AUTO_WORKERS, and 1 where processes cannot be forked). The result is the same whatever
    the number. `progress(objects, None)` is told now and then how many objects were looked at.
    Raises InputError (ObjectError) only for an unusable TAL or repository directory; everything
    wrong inside the repository becomes a Rejection in the result."""
    return Validator(tal, repo, at, max_depth=max_depth, max_objects=max_objects, workers=workers,
                     progress=progress).run()


def write_json_with_rejections(result: Result) -> str:
    """rpki-client 8.2's JSON (rpki.vrps.write_json) with one more metadata count: `rejected`."""
    text = write_json(result.payloads, result.payloads.generated)
    head, sep, rest = text.partition("\n\t},\n")
    return f"{head},\n\t\t\"rejected\": {len(result.rejected)}{sep}{rest}"
