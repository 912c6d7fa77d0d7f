"""A declarative RPKI CA: `bgpsim rpki ca build SPEC.toml --out DIR`.

The spec (TOML) names a repository base URI, a tree of CAs with their resources, and the ROAs,
ASPAs and BGPsec router keys each CA issues. `build(spec_path, out)` writes the whole repository:

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
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

from bgpsim.base.errors import InputError
from bgpsim.base.outdir import staged, write_atomic
from bgpsim.base.tomlfile import TomlFile

from . import asn1, build
from .aspa import CURRENT as ASPA_CURRENT
from .aspa import DRAFT13 as ASPA_DRAFT13
from .errors import ObjectError
from .resources import AS_MAX, AsResources, IntervalSet, IpResources

CA_VALIDITY = timedelta(days=365)
EE_VALIDITY = timedelta(days=365)
CRL_VALIDITY = timedelta(days=1)  # CRL nextUpdate, manifest nextUpdate and the manifest EE's notAfter
NAME_RE = re.compile(r"[A-Za-z0-9_-]+")
KEYS_DIR = ".keys"
KEYS = {
    "": {"repository", "ca", "roa", "aspa", "router_key"},
    "repository": {"base_uri"},
    "ca": {"name", "parent", "ip", "asn"},
    "roa": {"ca", "asn", "prefixes"},
    "aspa": {"ca", "customer", "providers", "profile"},
    "router_key": {"ca", "asn"},
}


# ---- the spec -----------------------------------------------------------------------------------------
@dataclass
class CaSpec:
    name: str
    parent: str | None
    ip: IpResources | None
    asn: AsResources | None
    index: int
    children: list[str] = field(default_factory=list)


@dataclass
class Spec:
    path: str
    base_uri: str
    host: str
    cas: dict[str, CaSpec]
    roas: list[tuple[str, int, list]]  # (ca, asn, [(network, maxLength or None)])
    aspas: list[tuple[str, int, list[int], str]]  # (ca, customer, providers, profile)
    router_keys: list[tuple[str, int]]

    def order(self) -> list[str]:
        """CAs parents first."""
        out: list[str] = []

        def walk(n: str) -> None:
            out.append(n)
            for c in self.cas[n].children:
                walk(c)

        for n, ca in self.cas.items():
            if ca.parent is None:
                walk(n)
        return out


def _ip_of(ip: IpResources | None, ver: int) -> IntervalSet:
    f = ip.family(ver) if ip is not None else None
    return f.ranges if f is not None else IntervalSet()


def load_spec(path: str | Path) -> Spec:
    """Read and check a CA spec; any fault is an InputError naming the file and line."""
    t = TomlFile(path)
    d = t.data
    t.check_keys(d, KEYS[""])
    repo = d.get("repository")
    if not isinstance(repo, dict):
        raise t.error("want a [repository] table with base_uri", "repository")
    t.check_keys(repo, KEYS["repository"], "repository")
    base = repo.get("base_uri")
    parts = urlsplit(base) if isinstance(base, str) else None
    if (parts is None or parts.scheme != "rsync" or not parts.hostname or not base.endswith("/")
            or len([p for p in parts.path.split("/") if p]) < 1 or parts.query or parts.fragment
            or ".." in parts.path.split("/")):
        raise t.error(f"want an rsync URI with a host and a module ending in '/', e.g. "
                      f"rsync://rpki.example.net/repo/, got {base!r}", "repository", "base_uri")

    def tables(key: str) -> list[dict]:
        v = d.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise t.error(f"want [[{key}]] tables", key)
        for i, x in enumerate(v):
            t.check_keys(x, KEYS[key], key, i)
        return v

    def need(x: dict, key: str, typ, *where, what: str):
        if key not in x:
            raise t.error(f"want {key} ({what})", *where)
        v = x[key]
        if not isinstance(v, typ) or isinstance(v, bool):
            raise t.error(f"want {what}, got {v!r}", *where, key)
        return v

    def asn_of(x: dict, key: str, what: str, table: str, i: int) -> int:
        if key not in x:
            raise t.error(f"want {key} ({what})", table, i)
        return asn_value(x[key], table, i, key)

    def asn_value(v, *where) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= AS_MAX:
            raise t.error(f"want an AS number 0..{AS_MAX}, got {v!r}", *where)
        return v

    cas: dict[str, CaSpec] = {}
    for i, c in enumerate(tables("ca")):
        n = need(c, "name", str, "ca", i, what="a name of letters, digits, '-' and '_'")
        if not NAME_RE.fullmatch(n):
            raise t.error(f"want a name of letters, digits, '-' and '_', got {n!r}", "ca", i, "name")
        if n in cas:
            raise t.error(f"want each CA name once, got {n!r} again", "ca", i, "name")
        parent = c.get("parent")
        if parent is not None and not isinstance(parent, str):
            raise t.error(f"want the name of another CA, got {parent!r}", "ca", i, "parent")
        res = {}
        for key, cls in (("ip", IpResources), ("asn", AsResources)):
            v = c.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in v):
                raise t.error("want a list of strings", "ca", i, key)
            try:
                r = cls.parse(", ".join(str(x) for x in v)) if v else None
            except ObjectError as e:
                raise t.error(e.reason, "ca", i, key) from None
            if r is not None and r.inherit:
                raise t.error("want explicit resources, got 'inherit'", "ca", i, key)
            if key == "asn" and r is not None and r.ids.ranges[0] == (0, 0):
                # encoded as the single id 0, which rpki-client rejects (RFC 3779 section 3.2.3.10 via
                # RFC 1930: AS 0 is reserved); AS0 ROAs need no AS resources, only the IP space
                raise t.error("want no lone AS0 in a CA's resources (reserved, RFC 7607); AS0 ROAs need "
                              "only the prefixes", "ca", i, key)
            res[key] = r
        if res["ip"] is None and res["asn"] is None:
            raise t.error("want ip or asn resources, got neither", "ca", i)
        cas[n] = CaSpec(n, parent, res["ip"], res["asn"], i)
    if not cas:
        raise t.error("want at least one [[ca]]", "ca")
    for n, ca in cas.items():
        if ca.parent is None:
            continue
        if ca.parent not in cas:
            raise t.error(f"want the name of a CA, got unknown parent {ca.parent!r}", "ca", ca.index, "parent")
        cas[ca.parent].children.append(n)
    for n, ca in cas.items():  # cycles: walking up from each CA must reach a trust anchor
        seen, p = {n}, ca.parent
        while p is not None:
            if p in seen:
                raise t.error(f"want a tree of CAs, got a cycle through {p!r}", "ca", ca.index, "parent")
            seen.add(p)
            p = cas[p].parent
    for n, ca in cas.items():
        if ca.parent is None:
            continue
        par = cas[ca.parent]
        for key, mine, theirs in (("ip", ca.ip, par.ip), ("asn", ca.asn, par.asn)):
            if mine is None:
                continue
            if theirs is None:
                raise t.error(f"CA {n!r} claims {mine}, which its parent {par.name!r} does not hold",
                              "ca", ca.index, key)
            rest = theirs.uncovered(mine)
            if not (rest.is_empty() if key == "ip" else not rest.ids):
                raise t.error(f"CA {n!r} claims {rest}, which its parent {par.name!r} does not hold",
                              "ca", ca.index, key)
    for ca in cas.values():  # siblings must not overlap
        kids = [cas[k] for k in ca.children]
        for a_i, a in enumerate(kids):
            for b in kids[:a_i]:
                if a.ip is not None and b.ip is not None and a.ip.overlaps(b.ip):
                    common = IpResources(*[
                        _fam(v, _ip_of(a.ip, v) & _ip_of(b.ip, v)) for v in (4, 6)])
                    raise t.error(f"CA {a.name!r} overlaps its sibling {b.name!r} in {common}", "ca", a.index, "ip")
                if a.asn is not None and b.asn is not None and a.asn.overlaps(b.asn):
                    raise t.error(f"CA {a.name!r} overlaps its sibling {b.name!r} in "
                                  f"{AsResources(a.asn.ids & b.asn.ids)}", "ca", a.index, "asn")

    def owner(x: dict, key: str, i: int) -> CaSpec:
        n = need(x, "ca", str, key, i, what="the name of a CA")
        if n not in cas:
            raise t.error(f"want the name of a CA, got unknown CA {n!r}", key, i, "ca")
        return cas[n]

    def holds_as(ca: CaSpec, asn: int, *where) -> None:
        if ca.asn is None or not ca.asn.contains(AsResources(IntervalSet(((asn, asn),)))):
            raise t.error(f"AS{asn} is outside the resources of CA {ca.name!r}", *where)

    roas = []
    for i, r in enumerate(tables("roa")):
        ca = owner(r, "roa", i)
        asn = asn_of(r, "asn", "the origin AS", "roa", i)
        prefixes = need(r, "prefixes", list, "roa", i, what="a list of 'prefix' or 'prefix-maxLength'")
        if not prefixes:
            raise t.error("want at least one prefix", "roa", i, "prefixes")
        items = []
        for p in prefixes:
            if not isinstance(p, str):
                raise t.error(f"want 'prefix' or 'prefix-maxLength', got {p!r}", "roa", i, "prefixes")
            text, _, ml = p.partition("-")
            try:
                net = ipaddress.ip_network(text.strip())
            except ValueError as e:
                raise t.error(f"want a prefix, got {p!r}: {e}", "roa", i, "prefixes") from None
            maxlen = None
            if ml:
                width = 32 if net.version == 4 else 128
                if not ml.strip().isdigit() or not net.prefixlen <= int(ml) <= width:
                    raise t.error(f"want a maxLength {net.prefixlen}..{width} in {p!r}", "roa", i, "prefixes")
                maxlen = int(ml)
            fam = ca.ip.family(net.version) if ca.ip is not None else None
            lo, hi = int(net.network_address), int(net.broadcast_address)
            if fam is None or not IntervalSet(((lo, hi),)).issubset(fam.ranges):
                raise t.error(f"prefix {net} is outside the resources of CA {ca.name!r}", "roa", i, "prefixes")
            items.append((net, maxlen))
        roas.append((ca.name, asn, items))
    aspas = []
    for i, a in enumerate(tables("aspa")):
        ca = owner(a, "aspa", i)
        cust = asn_of(a, "customer", "an AS number", "aspa", i)
        holds_as(ca, cust, "aspa", i, "customer")
        provs = need(a, "providers", list, "aspa", i, what="a list of AS numbers")
        provs = [asn_value(p, "aspa", i, "providers") for p in provs]
        if not provs:
            raise t.error("want at least one provider", "aspa", i, "providers")
        if cust in provs:
            raise t.error(f"want the customer AS{cust} not among its providers", "aspa", i, "providers")
        if any(c == ca.name and x == cust for c, x, _, _ in aspas):
            raise t.error(f"want one ASPA per customer, got AS{cust} again in CA {ca.name!r}", "aspa", i, "customer")
        profile = a.get("profile", ASPA_CURRENT)
        if profile not in (ASPA_CURRENT, ASPA_DRAFT13):
            raise t.error(f"want profile {ASPA_CURRENT!r} (draft-ietf-sidrops-aspa-profile, the default) or "
                          f"{ASPA_DRAFT13!r} (the older one rpki-client 8.2 reads), got {profile!r}",
                          "aspa", i, "profile")
        aspas.append((ca.name, cust, sorted(set(provs)), profile))
    routers = []
    for i, k in enumerate(tables("router_key")):
        ca = owner(k, "router_key", i)
        asn = asn_of(k, "asn", "the router's AS", "router_key", i)
        holds_as(ca, asn, "router_key", i, "asn")
        routers.append((ca.name, asn))
    return Spec(t.path, base, parts.hostname, cas, roas, aspas, routers)


def _fam(ver, ranges):
    from .resources import Family

    return Family(ver, ranges) if ranges else None


# ---- keys and state -----------------------------------------------------------------------------------
class Store:
    """DIR/.keys: private keys (PEM, 0600) and state.json (serials, numbers, what was issued)."""

    def __init__(self, out: Path):
        self.dir = out / KEYS_DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        self.state_path = self.dir / "state.json"
        if self.state_path.exists():
            self.state = json.loads(self.state_path.read_text())
        else:
            self.state = {"next_serial": {}, "crl_number": {}, "manifest_number": {}, "revoked": {}, "objects": {}}

    def key(self, label: str, make):
        path = self.dir / f"{label}.pem"
        if path.exists():
            return build.load_key_pem(path.read_bytes())
        key = make()
        write_atomic(path, build.key_pem(key), mode=0o600)
        return key

    def serial(self, ca: str) -> int:
        n = self.state["next_serial"].get(ca, 1)
        self.state["next_serial"][ca] = n + 1
        return n

    def bump(self, table: str, ca: str) -> int:
        n = self.state[table].get(ca, 0) + 1
        self.state[table][ca] = n
        return n

    def revoke(self, ca: str, serial: int, when: datetime) -> None:
        self.state["revoked"].setdefault(ca, {})[str(serial)] = build.utc(when).isoformat()

    def save(self) -> None:
        write_atomic(self.state_path, json.dumps(self.state, indent=1, sort_keys=True), mode=0o600)


# ---- building -------------------------------------------------------------------------------------------
@dataclass
class Result:
    out: Path
    tals: list[Path]
    published: dict[str, dict[str, bytes]]  # CA name -> file name -> its SHA-256
    manifest_numbers: dict[str, int]


def _fingerprint(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class _Issuer:
    """What an EE certificate needs from the CA that issues it; plain data, so that signing jobs can
    run in worker processes."""

    name: str
    key_pem: bytes
    ski: bytes
    repo_uri: str
    crl_uri: str
    cert_uri: str


@dataclass(frozen=True)
class _SignJob:
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


_ISSUERS: dict[str, tuple[_Issuer, object]] = {}  # per process: CA name -> (issuer, its private key)


def _load_issuers(issuers: dict[str, _Issuer]) -> None:
    _ISSUERS.clear()
    _ISSUERS.update({n: (i, build.load_key_pem(i.key_pem)) for n, i in issuers.items()})


def _ee_cert(iss: _Issuer, ca_key, serial: int, key, kind: str, now: datetime, not_after: datetime,
             uri: str | None, ip=None, asn=None, subject=None) -> bytes:
    s = build.spki_der(key)
    return build.certificate(build.CertSpec(
        serial=serial, subject=subject or build.name(build.ski_of(s).hex().upper()), issuer=build.name(iss.name),
        spki=s, not_before=now, not_after=not_after, kind=kind, issuer_ski=iss.ski, ip=ip, asn=asn,
        crldp=iss.crl_uri, aia=iss.cert_uri, sia=[(asn1.OID_AD_SIGNED_OBJECT, uri)] if uri else []), ca_key)


def _sign(job: _SignJob) -> tuple[str, bytes]:
    """Run one signing job: (file name, DER). RSA key generation is most of the cost."""
    iss, ca_key = _ISSUERS[job.ca]
    key = build.new_rsa_key()
    fname = build.ski_of(build.spki_der(key)).hex() + job.ext
    ee = _ee_cert(iss, ca_key, job.serial, key, "ee", job.now, job.not_after or job.now + EE_VALIDITY,
                  job.uri or iss.repo_uri + fname, ip=job.ip, asn=job.asn)
    return fname, build.signed_object(job.content_type, job.econtent, ee, key, job.now)


def _sign_all(jobs: list[_SignJob], issuers: dict[str, _Issuer], progress=None) -> list[tuple[str, bytes]]:
    """Sign every job, in worker processes when there are many (one per CPU)."""
    workers = min(os.cpu_count() or 1, len(jobs) // 32)
    if workers < 2:
        _load_issuers(issuers)
        out = []
        for i, job in enumerate(jobs):
            out.append(_sign(job))
            if progress:
                progress(i + 1, len(jobs))
        return out
    from concurrent.futures import ProcessPoolExecutor

    out = []
    with ProcessPoolExecutor(workers, initializer=_load_issuers, initargs=(issuers,)) as pool:
        for r in pool.map(_sign, jobs, chunksize=16):
            out.append(r)
            if progress and len(out) % 16 == 0:
                progress(len(out), len(jobs))
    if progress:
        progress(len(out), len(jobs))
    return out


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
    issuers = {n: _Issuer(n, build.key_pem(keys[n]), ski[n], repo_uri[n], repo_uri[n] + crl_name[n], cert_uri[n])
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

    # what each CA issues: key -> (fingerprint, make(serial) -> (file name, DER) or a _SignJob)
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
            lambda serial, n=n, e=econtent, ip=ip: _SignJob(n, serial, asn1.OID_CT_ROA, e, ".roa", now, ip=ip))
    for n, cust, provs, profile in spec.aspas:
        ident = ["aspa", cust, provs] + ([profile] if profile != ASPA_CURRENT else [])
        asr = AsResources(IntervalSet(((cust, cust),)))
        econtent = build.aspa_econtent(cust, provs, profile)
        wanted[n][_fingerprint(*ident)] = (
            _fingerprint(base, ident, ski[n].hex()),
            lambda serial, n=n, e=econtent, asr=asr: _SignJob(n, serial, asn1.OID_CT_ASPA, e, ".asa", now, asn=asr))
    counts: dict[tuple, int] = {}
    for n, asn in spec.router_keys:
        i = counts[(n, asn)] = counts.get((n, asn), -1) + 1
        rkey = store.key(f"router-{n}-AS{asn}-{i}", build.new_router_key)

        def make_router(serial, n=n, asn=asn, rkey=rkey):
            der = _ee_cert(issuers[n], keys[n], serial, rkey, "router", now, now + EE_VALIDITY, None,
                           asn=AsResources(IntervalSet(((asn, asn),))),
                           subject=build.name(f"ROUTER-{asn:08X}", build.ski_of(build.spki_der(rkey)).hex().upper()))
            return build.ski_of(build.spki_der(rkey)).hex() + ".cer", der
        wanted[n][f"router:{asn}:{i}"] = (_fingerprint(base, "router", asn, i, ski[n].hex(),
                                                      build.ski_of(build.spki_der(rkey)).hex()), make_router)

    # issue, reuse, revoke. State keeps each object's file name and SHA-256, not its bytes: they are in
    # the published tree, and an object whose file is gone or changed there is issued again.
    objects = st["objects"]
    written: dict[str, bytes] = {}  # local path -> DER, for what is issued now
    jobs: list[tuple[str, str, str, int, _SignJob]] = []
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
            if isinstance(made, _SignJob):
                jobs.append((issuer_name, key, fp, serial, made))
                continue
            fname, data = made
            have[key] = {"fp": fp, "serial": serial, "file": fname, "sha256": hashlib.sha256(data).hexdigest()}
            written[str(where(fname))] = data
    for (issuer_name, key, fp, serial, _), (fname, data) in zip(
            jobs, _sign_all([j[-1] for j in jobs], issuers, progress)):
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
        _load_issuers({n: issuers[n]})
        _, mft = _sign(_SignJob(n, serial, asn1.OID_CT_MANIFEST,
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
    from .resources import Family

    vers = [v for v in (4, 6) if ip is not None and ip.family(v) is not None] or [4]
    return IpResources(*(Family(v, inherit=True) if v in vers else None for v in (4, 6)))

