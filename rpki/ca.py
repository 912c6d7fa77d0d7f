"""A declarative RPKI CA: `bgpsim rpki ca build SPEC.toml --out DIR`.

The spec (TOML) names a repository base URI, a tree of CAs with their resources, and the ROAs,
ASPAs and BGPsec router keys each CA issues. `build_repository(spec_path, out)` writes the whole
repository:

- every object at DIR/<host>/<path> of its rsync URI (the layout of rpki-client's and FORT's caches);
- CA NAME publishes in BASE/NAME/: its CRL and manifest (named by the CA key's SKI, hex), the
  certificates of its child CAs (named by the child key's SKI), ROAs, ASPAs and router certificates
  (named by the SKI of their EE or router key); the manifest lists every other file there;
- a trust anchor's self-signed certificate at BASE/NAME.cer, and its TAL at DIR/NAME.tal.

Keys and state live in DIR/.keys (directory 0700, files 0600): beside the published tree, never in
it. Running again reuses them: the same CA keys, the same certificates and objects when their part
of the spec did not change, a new CRL and manifest (numbers one higher), re-issued objects for what
changed and revocation (on the CRL) plus removal of what the spec dropped.

Serial numbers count up per issuer from 1; file names come from key SKIs; signatures (RSA PKCS #1
v1.5) are deterministic; times come from `now` so tests can fix them. Only key generation is random.

The work is split in three: the spec (rpki.ca_spec: reading and checking the TOML), the store
(rpki.ca_store: keys and state in DIR/.keys), and the signing of objects (rpki.ca_sign, in worker
processes); this module builds the repository from them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bgpsim.base.outdir import staged, write_atomic

from . import asn1, build
from .aspa import CURRENT as ASPA_CURRENT
from .ca_sign import EE_VALIDITY, Issuer, SignJob, ee_cert, load_issuers, sign, sign_all
from .ca_spec import CaSpec, Spec, load_spec
from .ca_store import KEYS_DIR, Store
from .resources import AsResources, Family, IntervalSet, IpResources

__all__ = ["CA_VALIDITY", "CRL_VALIDITY", "EE_VALIDITY", "KEYS_DIR", "CaSpec", "Result", "Spec", "Store",
           "build_repository", "load_spec"]

CA_VALIDITY = timedelta(days=365)
CRL_VALIDITY = timedelta(days=1)  # CRL nextUpdate, manifest nextUpdate and the manifest EE's notAfter


@dataclass
class Result:
    out: Path
    tals: list[Path]
    published: dict[str, dict[str, bytes]]  # CA name -> file name -> its SHA-256
    manifest_numbers: dict[str, int]


def _fingerprint(*parts) -> str:
    """What an object was made from; an object whose fingerprint changed is issued again."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def build_repository(spec_path: str | Path, out: str | Path, now: datetime | None = None,
                     progress=None) -> Result:
    """Build (or update) the repository of `spec_path` under `out`; `progress(done, total)` is told
    of the signed objects as they are made."""
    spec = load_spec(spec_path)
    out = Path(out)
    # built beside `out` from hard links of the previous build, then swapped in whole
    with staged(out, "rpki ca build", seed=True) as tmp:
        result = _build(spec, tmp, build.utc(now or datetime.now(timezone.utc)), progress)
    return Result(out, [out / t.relative_to(tmp) for t in result.tals], result.published, result.manifest_numbers)


def _build(spec: Spec, out: Path, now: datetime, progress=None) -> Result:
    """build_repository's work in the staged directory `out` (seeded with the previous build)."""
    store = Store(out)
    st = store.state
    base = spec.base_uri
    keys = {n: store.key(f"ca-{n}", build.new_rsa_key) for n in spec.cas}
    spki = {n: build.spki_der(k) for n, k in keys.items()}
    ski = {n: build.ski_of(s) for n, s in spki.items()}
    names = {n: build.name(n) for n in spec.cas}
    repo_uri = {n: f"{base}{n}/" for n in spec.cas}
    crl_name = {n: f"{ski[n].hex()}.crl" for n in spec.cas}
    mft_name = {n: f"{ski[n].hex()}.mft" for n in spec.cas}
    cert_uri: dict[str, str] = {}
    for n, ca in spec.cas.items():
        cert_uri[n] = f"{base}{n}.cer" if ca.parent is None else f"{repo_uri[ca.parent]}{ski[n].hex()}.cer"
    issuers = {n: Issuer(n, build.key_pem(keys[n]), ski[n], repo_uri[n], repo_uri[n] + crl_name[n], cert_uri[n])
               for n in spec.cas}

    def local(uri: str) -> Path:
        return out / spec.host / uri[len("rsync://") + len(spec.host) + 1:]

    def ca_cert_spec(n: str) -> build.CertSpec:
        ca = spec.cas[n]
        parent = ca.parent or n
        return build.CertSpec(
            serial=0, subject=names[n], issuer=names[parent], spki=spki[n],
            not_before=now, not_after=now + CA_VALIDITY, kind="ta" if ca.parent is None else "ca",
            issuer_ski=ski[parent], ip=ca.ip, asn=ca.asn,
            crldp=None if ca.parent is None else repo_uri[ca.parent] + crl_name[ca.parent],
            aia=None if ca.parent is None else cert_uri[ca.parent],
            sia=[(asn1.OID_AD_CA_REPOSITORY, repo_uri[n]), (asn1.OID_AD_RPKI_MANIFEST, repo_uri[n] + mft_name[n])])

    # what each CA issues: key -> (fingerprint, make(serial) -> (file name, DER) or a SignJob)
    wanted: dict[str, dict[str, tuple[str, object]]] = {n: {} for n in spec.cas}
    tals = []
    for n in spec.order():
        ca = spec.cas[n]
        fp = _fingerprint("ca", base, n, ca.parent, str(ca.ip), str(ca.asn), ski[n].hex(),
                          ski[ca.parent or n].hex())
        issuer = ca.parent or n

        def make_ca(serial, n=n, issuer=issuer):
            cs = ca_cert_spec(n)
            cs.serial = serial
            return cert_uri[n].rsplit("/", 1)[1], build.certificate(cs, keys[issuer])
        wanted.setdefault("" if ca.parent is None else ca.parent, {})[f"{'ta' if ca.parent is None else 'ca'}:{n}"] = (
            fp, make_ca)

    for n, asn, items in spec.roas:
        ident = ["roa", asn, sorted((str(p), m) for p, m in items)]
        ip = IpResources.parse(", ".join(str(p) for p, _ in items))
        econtent = build.roa_econtent(asn, items)
        wanted[n][_fingerprint(*ident)] = (
            _fingerprint(base, ident, ski[n].hex()),
            lambda serial, n=n, e=econtent, ip=ip: SignJob(n, serial, asn1.OID_CT_ROA, e, ".roa", now, ip=ip))
    for n, cust, provs, profile in spec.aspas:
        ident = ["aspa", cust, provs] + ([profile] if profile != ASPA_CURRENT else [])
        asr = AsResources(IntervalSet(((cust, cust),)))
        econtent = build.aspa_econtent(cust, provs, profile)
        wanted[n][_fingerprint(*ident)] = (
            _fingerprint(base, ident, ski[n].hex()),
            lambda serial, n=n, e=econtent, asr=asr: SignJob(n, serial, asn1.OID_CT_ASPA, e, ".asa", now, asn=asr))
    counts: dict[tuple, int] = {}
    for n, asn in spec.router_keys:
        i = counts[(n, asn)] = counts.get((n, asn), -1) + 1
        rkey = store.key(f"router-{n}-AS{asn}-{i}", build.new_router_key)

        def make_router(serial, n=n, asn=asn, rkey=rkey):
            der = ee_cert(issuers[n], keys[n], serial, rkey, "router", now, now + EE_VALIDITY, None,
                           asn=AsResources(IntervalSet(((asn, asn),))),
                           subject=build.name(f"ROUTER-{asn:08X}", build.ski_of(build.spki_der(rkey)).hex().upper()))
            return build.ski_of(build.spki_der(rkey)).hex() + ".cer", der
        wanted[n][f"router:{asn}:{i}"] = (_fingerprint(base, "router", asn, i, ski[n].hex(),
                                                      build.ski_of(build.spki_der(rkey)).hex()), make_router)

    # issue, reuse, revoke. State keeps each object's file name and SHA-256, not its bytes: they are in
    # the published tree, and an object whose file is gone or changed there is issued again.
    objects = st["objects"]
    written: dict[str, bytes] = {}  # local path -> DER, for what is issued now
    jobs: list[tuple[str, str, str, int, SignJob]] = []
    for issuer_name in list(objects) + [k for k in wanted if k not in objects]:
        have = objects.setdefault(issuer_name, {})
        want = wanted.get(issuer_name, {})
        where = (lambda f: local(base) / f) if issuer_name == "" else (lambda f, d=local(repo_uri[issuer_name]): d / f)
        for key in list(have):
            rec = have[key]
            intact = rec.get("sha256") and _sha256_of(where(rec["file"])) == rec["sha256"]
            if key not in want or rec["fp"] != want[key][0] or not intact:
                old = have.pop(key)
                if issuer_name in spec.cas:
                    store.revoke(issuer_name, old["serial"], now)
        for key, (fp, make) in want.items():
            if key in have:
                continue
            serial = store.serial(issuer_name or key.split(":", 1)[1])
            made = make(serial)
            if isinstance(made, SignJob):
                jobs.append((issuer_name, key, fp, serial, made))
                continue
            fname, data = made
            have[key] = {"fp": fp, "serial": serial, "file": fname, "sha256": hashlib.sha256(data).hexdigest()}
            written[str(where(fname))] = data
    for (issuer_name, key, fp, serial, _), (fname, data) in zip(
            jobs, sign_all([j[-1] for j in jobs], issuers, progress)):
        objects[issuer_name][key] = {"fp": fp, "serial": serial, "file": fname,
                                     "sha256": hashlib.sha256(data).hexdigest()}
        written[str(local(repo_uri[issuer_name]) / fname)] = data
    for issuer_name in [k for k, v in objects.items() if not v]:
        del objects[issuer_name]

    # write: trust anchors and TALs
    published: dict[str, dict[str, bytes]] = {}
    for key, rec in objects.get("", {}).items():
        n = key.split(":", 1)[1]
        path = local(cert_uri[n])
        if str(path) in written:
            write_atomic(path, written[str(path)])
        tal = out / f"{n}.tal"
        write_atomic(tal, build.tal_text(cert_uri[n], spki[n]).encode())
        tals.append(tal)
    numbers = {}
    for n in spec.order():
        d = local(repo_uri[n])
        d.mkdir(parents=True, exist_ok=True)
        hashes = {rec["file"]: bytes.fromhex(rec["sha256"]) for rec in objects.get(n, {}).values()}
        prev = st.setdefault("manifest_ee", {}).get(n)
        if prev is not None:
            store.revoke(n, prev, now)  # the previous manifest's one-time-use EE (RFC 9286 section 5.1)
        crl_no = store.bump("crl_number", n)
        revoked = {int(s): datetime.fromisoformat(t) for s, t in st["revoked"].get(n, {}).items()}
        crl = build.crl_der(names[n], ski[n], crl_no, now, now + CRL_VALIDITY, revoked, keys[n])
        written[str(d / crl_name[n])] = crl
        hashes[crl_name[n]] = hashlib.sha256(crl).digest()
        number = store.bump("manifest_number", n)
        numbers[n] = number
        serial = store.serial(n)
        st["manifest_ee"][n] = serial
        load_issuers({n: issuers[n]})
        _, mft = sign(SignJob(n, serial, asn1.OID_CT_MANIFEST,
                                build.manifest_econtent(number, now, now + CRL_VALIDITY, hashes), ".mft", now,
                                ip=_inherit_ip(spec.cas[n].ip), asn=AsResources(inherit=True),
                                not_after=now + CRL_VALIDITY, uri=repo_uri[n] + mft_name[n]))
        for old in d.iterdir():
            if old.is_file() and old.name not in hashes and old.name != mft_name[n]:
                old.unlink()
        for fname in hashes:
            if str(d / fname) in written:
                write_atomic(d / fname, written[str(d / fname)])
        write_atomic(d / mft_name[n], mft)
        hashes[mft_name[n]] = hashlib.sha256(mft).digest()
        published[n] = hashes
    # CAs the spec dropped: their publication points go
    for gone in set(st.get("published_cas", [])) - set(spec.cas):
        shutil.rmtree(local(f"{base}{gone}/"), ignore_errors=True)
        for k in ("crl_number", "manifest_number", "revoked", "manifest_ee"):
            st.get(k, {}).pop(gone, None)
        (out / f"{gone}.tal").unlink(missing_ok=True)
        local(f"{base}{gone}.cer").unlink(missing_ok=True)
    st["published_cas"] = sorted(spec.cas)
    store.save()
    return Result(out, tals, published, numbers)


def _sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _inherit_ip(ip: IpResources | None) -> IpResources:
    """A manifest EE's IP resources (RFC 9286 section 5.1): 'inherit' for each family the CA holds."""
    vers = [v for v in (4, 6) if ip is not None and ip.family(v) is not None] or [4]
    return IpResources(*(Family(v, inherit=True) if v in vers else None for v in (4, 6)))
