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

from bgpsim.errors import InputError
from bgpsim.outdir import write_atomic
from bgpsim.tomlfile import TomlFile

from . import asn1, build
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
    "aspa": {"ca", "customer", "providers"},
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
    aspas: list[tuple[str, int, list[int]]]
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
        if "asn" not in r:
            raise t.error("want asn (the origin AS)", "roa", i)
        asn = asn_value(r["asn"], "roa", i, "asn")
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
        if "customer" not in a:
            raise t.error("want customer (an AS number)", "aspa", i)
        cust = asn_value(a["customer"], "aspa", i, "customer")
        holds_as(ca, cust, "aspa", i, "customer")
        provs = need(a, "providers", list, "aspa", i, what="a list of AS numbers")
        provs = [asn_value(p, "aspa", i, "providers") for p in provs]
        if not provs:
            raise t.error("want at least one provider", "aspa", i, "providers")
        if cust in provs:
            raise t.error(f"want the customer AS{cust} not among its providers", "aspa", i, "providers")
        if any(c == ca.name and x == cust for c, x, _ in aspas):
            raise t.error(f"want one ASPA per customer, got AS{cust} again in CA {ca.name!r}", "aspa", i, "customer")
        aspas.append((ca.name, cust, sorted(set(provs))))
    routers = []
    for i, k in enumerate(tables("router_key")):
        ca = owner(k, "router_key", i)
        if "asn" not in k:
            raise t.error("want asn (the router's AS)", "router_key", i)
        asn = asn_value(k["asn"], "router_key", i, "asn")
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
    published: dict[str, dict[str, bytes]]  # CA name -> file name -> bytes
    manifest_numbers: dict[str, int]


def _fingerprint(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def build_repository(spec_path: str | Path, out: str | Path, now: datetime | None = None) -> Result:
    """Build (or update) the repository of `spec_path` under `out`."""
    spec = load_spec(spec_path)
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        return _build(spec, out, build.utc(now or datetime.now(timezone.utc)))
    except OSError as e:
        raise InputError(f"--out: cannot write {e.filename or out}: {e.strerror or e}") from None


def _build(spec: Spec, out: Path, now: datetime) -> Result:
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

    # what each CA issues: key -> (fingerprint, make(serial) -> (file name, bytes))
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
        if ca.parent is None:
            wanted.setdefault("", {})[f"ta:{n}"] = (fp, make_ca, n)
        else:
            wanted[ca.parent][f"ca:{n}"] = (fp, make_ca, n)

    def ee_spec(n: str, serial: int, key, kind: str, uri_of, ip=None, asn=None, subject=None, sia=True):
        s = build.spki_der(key)
        return build.CertSpec(
            serial=serial, subject=subject or build.name(build.ski_of(s).hex().upper()), issuer=names[n],
            spki=s, not_before=now, not_after=now + EE_VALIDITY, kind=kind, issuer_ski=ski[n], ip=ip, asn=asn,
            crldp=repo_uri[n] + crl_name[n], aia=cert_uri[n],
            sia=[(asn1.OID_AD_SIGNED_OBJECT, uri_of(build.ski_of(s)))] if sia else [])

    def signed(n, serial, ctype, econtent, ext, ip=None, asn=None):
        key = build.new_rsa_key()
        fname = build.ski_of(build.spki_der(key)).hex() + ext
        cs = ee_spec(n, serial, key, "ee", lambda s: repo_uri[n] + s.hex() + ext, ip=ip, asn=asn)
        ee = build.certificate(cs, keys[n])
        return fname, build.signed_object(ctype, econtent, ee, key, now)

    for n, asn, items in spec.roas:
        ident = ["roa", asn, sorted((str(p), m) for p, m in items)]
        ip = IpResources.parse(", ".join(str(p) for p, _ in items))
        wanted[n][_fingerprint(*ident)] = (
            _fingerprint(base, ident, ski[n].hex()),
            lambda serial, n=n, asn=asn, items=items, ip=ip: signed(
                n, serial, asn1.OID_CT_ROA, build.roa_econtent(asn, items), ".roa", ip=ip),
            None)
    for n, cust, provs in spec.aspas:
        ident = ["aspa", cust, provs]
        asr = AsResources(IntervalSet(((cust, cust),)))
        wanted[n][_fingerprint(*ident)] = (
            _fingerprint(base, ident, ski[n].hex()),
            lambda serial, n=n, cust=cust, provs=provs, asr=asr: signed(
                n, serial, asn1.OID_CT_ASPA, build.aspa_econtent(cust, provs), ".asa", asn=asr),
            None)
    counts: dict[tuple, int] = {}
    for n, asn in spec.router_keys:
        i = counts[(n, asn)] = counts.get((n, asn), -1) + 1
        rkey = store.key(f"router-{n}-AS{asn}-{i}", build.new_router_key)

        def make_router(serial, n=n, asn=asn, rkey=rkey):
            cs = ee_spec(n, serial, rkey, "router", None, asn=AsResources(IntervalSet(((asn, asn),))),
                         subject=build.name(f"ROUTER-{asn:08X}", build.ski_of(build.spki_der(rkey)).hex().upper()),
                         sia=False)
            return build.ski_of(cs.spki).hex() + ".cer", build.certificate(cs, keys[n])
        wanted[n][f"router:{asn}:{i}"] = (_fingerprint(base, "router", asn, i, ski[n].hex(),
                                                      build.ski_of(build.spki_der(rkey)).hex()), make_router, None)

    # issue, reuse, revoke
    objects = st["objects"]
    for issuer_name in list(objects) + [k for k in wanted if k not in objects]:
        have = objects.setdefault(issuer_name, {})
        want = wanted.get(issuer_name, {})
        for key in list(have):
            if key not in want or have[key]["fp"] != want[key][0]:
                old = have.pop(key)
                if issuer_name in spec.cas:
                    store.revoke(issuer_name, old["serial"], now)
        for key, (fp, make, _) in want.items():
            rec = have.get(key)
            if rec is not None and rec["fp"] == fp:
                continue
            signer = issuer_name or key.split(":", 1)[1]
            serial = store.serial(signer)
            fname, data = make(serial)
            have[key] = {"fp": fp, "serial": serial, "file": fname, "der": data.hex()}
        if not have:
            del objects[issuer_name]

    # write: trust anchors and TALs
    published: dict[str, dict[str, bytes]] = {}
    live_dirs = set()
    for key, rec in objects.get("", {}).items():
        n = key.split(":", 1)[1]
        path = local(cert_uri[n])
        write_atomic(path, bytes.fromhex(rec["der"]))
        tal = out / f"{n}.tal"
        write_atomic(tal, build.tal_text(cert_uri[n], spki[n]).encode())
        tals.append(tal)
    numbers = {}
    for n in spec.order():
        files: dict[str, bytes] = {rec["file"]: bytes.fromhex(rec["der"]) for rec in objects.get(n, {}).values()}
        prev = st.setdefault("manifest_ee", {}).get(n)
        if prev is not None:
            store.revoke(n, prev, now)  # the previous manifest's one-time-use EE (RFC 9286 section 5.1)
        crl_no = store.bump("crl_number", n)
        revoked = {int(s): datetime.fromisoformat(t) for s, t in st["revoked"].get(n, {}).items()}
        files[crl_name[n]] = build.crl_der(names[n], ski[n], crl_no, now, now + CRL_VALIDITY, revoked, keys[n])
        number = store.bump("manifest_number", n)
        numbers[n] = number
        mkey = build.new_rsa_key()
        serial = store.serial(n)
        cs = ee_spec(n, serial, mkey, "ee", lambda s, n=n: repo_uri[n] + mft_name[n],
                     ip=_inherit_ip(spec.cas[n].ip), asn=AsResources(inherit=True))
        cs.not_after = now + CRL_VALIDITY
        ee = build.certificate(cs, keys[n])
        econtent = build.manifest_econtent(number, now, now + CRL_VALIDITY, files)
        st["manifest_ee"][n] = serial
        mft = build.signed_object(asn1.OID_CT_MANIFEST, econtent, ee, mkey, now)
        d = local(repo_uri[n])
        d.mkdir(parents=True, exist_ok=True)
        live_dirs.add(d)
        for old in d.iterdir():
            if old.is_file() and old.name not in files and old.name != mft_name[n]:
                old.unlink()
        for fname, data in files.items():
            write_atomic(d / fname, data)
        write_atomic(d / mft_name[n], mft)
        files[mft_name[n]] = mft
        published[n] = files
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


def _inherit_ip(ip: IpResources | None) -> IpResources:
    """A manifest EE's IP resources (RFC 9286 section 5.1): 'inherit' for each family the CA holds."""
    from .resources import Family

    vers = [v for v in (4, 6) if ip is not None and ip.family(v) is not None] or [4]
    return IpResources(*(Family(v, inherit=True) if v in vers else None for v in (4, 6)))

