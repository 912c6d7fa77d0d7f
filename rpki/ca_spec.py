"""The CA's spec: a TOML file naming a repository base URI, a tree of CAs with their resources, and
the ROAs, ASPAs and BGPsec router keys each CA issues (`bgpsim rpki ca build SPEC.toml`).

`load_spec` reads and checks it whole before anything is built: each CA's resources explicit
(RFC 3779, no 'inherit') and within its parent's (RFC 6487 section 7.2), siblings not overlapping,
the CAs a tree; each ROA's prefixes and maxLengths within its CA's resources (RFC 9582), each
ASPA's customer (draft-ietf-sidrops-aspa-profile) and each router key's AS (RFC 8209) held by its
CA. Any fault is an InputError naming the file and line.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bgpsim.base.tomlfile import TomlFile

from .aspa import CURRENT as ASPA_CURRENT
from .aspa import DRAFT13 as ASPA_DRAFT13
from .errors import ObjectError
from .resources import AS_MAX, AsResources, Family, IntervalSet, IpResources

NAME_RE = re.compile(r"[A-Za-z0-9_-]+")
KEYS = {
    "": {"repository", "ca", "roa", "aspa", "router_key"},
    "repository": {"base_uri"},
    "ca": {"name", "parent", "ip", "asn"},
    "roa": {"ca", "asn", "prefixes"},
    "aspa": {"ca", "customer", "providers", "profile"},
    "router_key": {"ca", "asn"},
}


@dataclass
class CaSpec:
    """One [[ca]] table: its resources (None: none of that kind), its place in the file and the tree."""

    name: str
    parent: str | None
    ip: IpResources | None
    asn: AsResources | None
    index: int
    children: list[str] = field(default_factory=list)


@dataclass
class Spec:
    """A checked spec: the repository's base URI and host, the CAs by name, and what they issue."""

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
    return Family(ver, ranges) if ranges else None
