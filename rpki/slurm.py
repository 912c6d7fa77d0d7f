"""Local exceptions to RPKI data: SLURM, RFC 8416, with the ASPA members of SLURM version 2
(draft-ietf-sidrops-aspa-slurm).

A SLURM file is one JSON object (section 3.2) with exactly these members:

    slurmVersion             1 (RFC 8416), or 2 (the ASPA draft)
    validationOutputFilters  prefixFilters, bgpsecFilters, and in version 2 aspaFilters (3.3)
    locallyAddedAssertions   prefixAssertions, bgpsecAssertions, and in version 2 aspaAssertions (3.4)

Every listed member is required and every other member is an error, as are keys repeated within
an object. The elements:

    prefix filter (3.3.1)     prefix?, asn?, comment? -- at least one of prefix and asn
    BGPsec filter (3.3.2)     asn?, SKI?, comment?    -- at least one of asn and SKI
    ASPA filter               customerAsid, comment?
    prefix assertion (3.4.1)  prefix, asn, maxPrefixLength?, comment?
                              -- prefix length <= maxPrefixLength <= 32 or 128
    BGPsec assertion (3.4.2)  asn, SKI, routerPublicKey, comment?
    ASPA assertion            customerAsn, providerAsns, comment?

ASNs are JSON numbers from 0 to 4294967295; prefixes are in slash notation with host bits zero; the
SKI and the public key are base64url without '=' padding (RFC 4648 section 5, as RFC 8416 cites),
and the SKI decodes to the 20 octets of RFC 6487 section 4.8.2. The public key must decode but is
not parsed as DER (rpki-rs, the reference for version 2, accepts any bytes, and so do we). Each
violation is an InputError naming the file and the JSON path of the fault, e.g.
`validationOutputFilters.prefixFilters[2].asn`.

Applying (section 4): every payload that any filter matches is removed (a prefix filter matches a
VRP whose prefix is equal to or more specific than the filter's, with the filter's ASN when it gives
one; a BGPsec filter matches by ASN and/or SKI; an ASPA filter by customer ASN), then the assertions
are added, under the trust anchor name "N/A" (as Routinator names local exceptions). Filters never
remove assertions. Several files may be applied together; section 4.2 then forbids any two of them
to touch the same address space or (for BGPsec) the same ASN, and we extend that to ASPA customers.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from bgpsim.base.errors import InputError

from .rov import VRP
from .vrps import ASPA, NO_TA, Origin, Payloads, Prefix, RouterKey, read_text
from .vrps.fields import decode_base64url, is_int, parse_asn_number, parse_prefix
from .vrps.fields import parse_providers as _providers
from .vrps.strictjson import check_list, check_object, join, load_json

MAX_SLURM_BYTES = 64 * 2**20
VERSIONS = (1, 2)


@dataclass(frozen=True)
class PrefixFilter:
    prefix: Prefix | None
    asn: int | None
    comment: str | None = None
    path: str = ""

    def matches(self, vrp: VRP) -> bool:
        if self.asn is not None and vrp.asn != self.asn:
            return False
        return self.prefix is None or (vrp.prefix.version == self.prefix.version and vrp.prefix.subnet_of(self.prefix))


@dataclass(frozen=True)
class BgpsecFilter:
    asn: int | None
    ski: bytes | None
    comment: str | None = None
    path: str = ""

    def matches(self, key: RouterKey) -> bool:
        return (self.asn is None or key.asn == self.asn) and (self.ski is None or key.ski == self.ski)


@dataclass(frozen=True)
class AspaFilter:
    customer: int
    comment: str | None = None
    path: str = ""

    def matches(self, aspa: ASPA) -> bool:
        return aspa.customer == self.customer


@dataclass(frozen=True)
class PrefixAssertion:
    prefix: Prefix
    asn: int
    max_length: int | None = None
    comment: str | None = None
    path: str = ""

    def vrp(self) -> VRP:
        return VRP(self.prefix, self.prefix.prefixlen if self.max_length is None else self.max_length, self.asn)


@dataclass(frozen=True)
class BgpsecAssertion:
    asn: int
    ski: bytes
    spki: bytes
    comment: str | None = None
    path: str = ""


@dataclass(frozen=True)
class AspaAssertion:
    customer: int
    providers: tuple[int, ...]
    comment: str | None = None
    path: str = ""


@dataclass(frozen=True)
class Slurm:
    """One parsed SLURM file."""

    version: int
    source: str | None
    prefix_filters: tuple[PrefixFilter, ...] = ()
    bgpsec_filters: tuple[BgpsecFilter, ...] = ()
    aspa_filters: tuple[AspaFilter, ...] = ()
    prefix_assertions: tuple[PrefixAssertion, ...] = ()
    bgpsec_assertions: tuple[BgpsecAssertion, ...] = ()
    aspa_assertions: tuple[AspaAssertion, ...] = ()

    def apply(self, payloads: Payloads, ta: str = NO_TA) -> Payloads:
        return apply_slurm(payloads, [self], ta)


# ---------------------------------------------------------------------------------------------
# Parsing


def _comment(e, path, source) -> str | None:
    if "comment" not in e:
        return None
    if not isinstance(e["comment"], str):
        raise InputError("want 'comment' as a string", source, join(path, "comment"))
    return e["comment"]


def _ski(value, source, where) -> bytes:
    ski = decode_base64url(value, "an SKI", source, where)
    if len(ski) != 20:
        raise InputError(f"want an SKI of 20 octets (RFC 8416 section 3.3.2, RFC 6487 section 4.8.2), got {len(ski)}",
                         source, where)
    return ski


def _prefix_filter(e, path, source) -> PrefixFilter:
    # RFC 8416 section 3.3.1
    check_object(e, path, source, optional=("prefix", "asn", "comment"), what="a prefix filter object")
    if "prefix" not in e and "asn" not in e:
        raise InputError("a prefix filter needs 'prefix', 'asn' or both (RFC 8416 section 3.3.1)", source, path)
    prefix = parse_prefix(e["prefix"], source, join(path, "prefix")) if "prefix" in e else None
    asn = parse_asn_number(e["asn"], source, join(path, "asn")) if "asn" in e else None
    return PrefixFilter(prefix, asn, _comment(e, path, source), path)


def _bgpsec_filter(e, path, source) -> BgpsecFilter:
    # RFC 8416 section 3.3.2
    check_object(e, path, source, optional=("asn", "SKI", "comment"), what="a BGPsec filter object")
    if "asn" not in e and "SKI" not in e:
        raise InputError("a BGPsec filter needs 'asn', 'SKI' or both (RFC 8416 section 3.3.2)", source, path)
    asn = parse_asn_number(e["asn"], source, join(path, "asn")) if "asn" in e else None
    ski = _ski(e["SKI"], source, join(path, "SKI")) if "SKI" in e else None
    return BgpsecFilter(asn, ski, _comment(e, path, source), path)


def _aspa_filter(e, path, source) -> AspaFilter:
    # draft-ietf-sidrops-aspa-slurm
    check_object(e, path, source, required=("customerAsid",), optional=("comment",), what="an ASPA filter object")
    return AspaFilter(parse_asn_number(e["customerAsid"], source, join(path, "customerAsid")),
                      _comment(e, path, source), path)


def _prefix_assertion(e, path, source) -> PrefixAssertion:
    # RFC 8416 section 3.4.1
    check_object(e, path, source, required=("prefix", "asn"), optional=("maxPrefixLength", "comment"),
                 what="a prefix assertion object")
    prefix = parse_prefix(e["prefix"], source, join(path, "prefix"))
    asn = parse_asn_number(e["asn"], source, join(path, "asn"))
    max_length = None
    if "maxPrefixLength" in e:
        m = e["maxPrefixLength"]
        if not is_int(m) or not prefix.prefixlen <= m <= prefix.max_prefixlen:
            raise InputError(f"want maxPrefixLength from {prefix.prefixlen} to {prefix.max_prefixlen} for {prefix} "
                             f"(RFC 8416 section 3.4.1), got {m!r}", source, join(path, "maxPrefixLength"))
        max_length = m
    return PrefixAssertion(prefix, asn, max_length, _comment(e, path, source), path)


def _bgpsec_assertion(e, path, source) -> BgpsecAssertion:
    # RFC 8416 section 3.4.2
    check_object(e, path, source, required=("asn", "SKI", "routerPublicKey"), optional=("comment",),
                 what="a BGPsec assertion object")
    asn = parse_asn_number(e["asn"], source, join(path, "asn"))
    ski = _ski(e["SKI"], source, join(path, "SKI"))
    spki = decode_base64url(e["routerPublicKey"], "a router public key", source, join(path, "routerPublicKey"))
    if not spki:
        raise InputError("want a non-empty routerPublicKey (RFC 8416 section 3.4.2)", source, join(path, "routerPublicKey"))
    return BgpsecAssertion(asn, ski, spki, _comment(e, path, source), path)


def _aspa_assertion(e, path, source) -> AspaAssertion:
    # draft-ietf-sidrops-aspa-slurm
    check_object(e, path, source, required=("customerAsn", "providerAsns"), optional=("comment",),
                 what="an ASPA assertion object")
    customer = parse_asn_number(e["customerAsn"], source, join(path, "customerAsn"))
    providers = _providers(e["providerAsns"], customer, source, join(path, "providerAsns"))
    return AspaAssertion(customer, providers, _comment(e, path, source), path)


def _section(parent, name, path, source, parse) -> tuple:
    where = join(path, name)
    return tuple(parse(e, join(where, i), source) for i, e in enumerate(check_list(parent[name], where, source)))


def parse_slurm(text: str, source: str | None = None) -> Slurm:
    """Parse one SLURM file's text strictly (see the module's docstring)."""
    doc = load_json(text, source)
    check_object(doc, "", source, required=("slurmVersion", "validationOutputFilters", "locallyAddedAssertions"),
                 what="a SLURM object (RFC 8416 section 3.2)")
    version = doc["slurmVersion"]
    if not is_int(version) or version not in VERSIONS:
        raise InputError(f"want slurmVersion 1 (RFC 8416) or 2 (draft-ietf-sidrops-aspa-slurm), got {version!r}",
                         source, "slurmVersion")
    filters, assertions = doc["validationOutputFilters"], doc["locallyAddedAssertions"]
    aspa_f, aspa_a = ("aspaFilters",), ("aspaAssertions",)
    if version == 1:
        for obj, name, key in ((filters, "validationOutputFilters", "aspaFilters"),
                               (assertions, "locallyAddedAssertions", "aspaAssertions")):
            if isinstance(obj, dict) and key in obj:
                raise InputError(f"'{key}' needs slurmVersion 2 (draft-ietf-sidrops-aspa-slurm)", source, join(name, key))
        aspa_f = aspa_a = ()
    check_object(filters, "validationOutputFilters", source, required=("prefixFilters", "bgpsecFilters") + aspa_f,
                 what="an object (RFC 8416 section 3.3)")
    check_object(assertions, "locallyAddedAssertions", source,
                 required=("prefixAssertions", "bgpsecAssertions") + aspa_a, what="an object (RFC 8416 section 3.4)")
    f, a = "validationOutputFilters", "locallyAddedAssertions"
    return Slurm(
        version, source,
        prefix_filters=_section(filters, "prefixFilters", f, source, _prefix_filter),
        bgpsec_filters=_section(filters, "bgpsecFilters", f, source, _bgpsec_filter),
        aspa_filters=_section(filters, "aspaFilters", f, source, _aspa_filter) if version == 2 else (),
        prefix_assertions=_section(assertions, "prefixAssertions", a, source, _prefix_assertion),
        bgpsec_assertions=_section(assertions, "bgpsecAssertions", a, source, _bgpsec_assertion),
        aspa_assertions=_section(assertions, "aspaAssertions", a, source, _aspa_assertion) if version == 2 else (),
    )


def load_slurm(path: str | Path) -> Slurm:
    return parse_slurm(read_text(path, MAX_SLURM_BYTES, "--slurm"), str(path))


# ---------------------------------------------------------------------------------------------
# Several files: RFC 8416 section 4.2


def _prefixes(s: Slurm) -> dict:
    out = {}
    for x in (*s.prefix_filters, *s.prefix_assertions):
        if x.prefix is not None:
            out.setdefault(x.prefix, x.path)
    return out


def _covering(prefixes: dict, p: Prefix):
    """The first of `prefixes` that holds `p` (p itself or a less specific), or None."""
    for length in range(p.prefixlen, -1, -1):
        q = p if length == p.prefixlen else p.supernet(new_prefix=length)
        if q in prefixes:
            return q
    return None


def check_overlaps(slurms: list[Slurm]) -> None:
    """RFC 8416 section 4.2: when several SLURM files are used, no address may lie in a prefix of
    the prefixFilters or prefixAssertions of two files, and no ASN may appear in the bgpsecFilters or
    bgpsecAssertions of two files; we add the same rule for the customer ASNs of ASPA filters and
    assertions. An overlap is an error naming both places (the RFC says to use none of the files)."""
    seen = []  # (slurm, prefixes, bgpsec asns, aspa customers) of the files checked so far
    for s in slurms:
        mine = _prefixes(s)
        asns = {}
        for x in (*s.bgpsec_filters, *s.bgpsec_assertions):
            if x.asn is not None:
                asns.setdefault(x.asn, x.path)
        customers = {}
        for x in (*s.aspa_filters, *s.aspa_assertions):
            customers.setdefault(x.customer, x.path)
        for other, theirs, their_asns, their_customers in seen:
            for p, path in mine.items():
                q = _covering(theirs, p)
                if q is not None:
                    raise InputError(f"{p} overlaps {q} of {other.source} at {theirs[q]}; RFC 8416 section 4.2 forbids "
                                     "two SLURM files to touch the same addresses", s.source, path)
            for q, their_path in theirs.items():
                p = _covering(mine, q)
                if p is not None:
                    raise InputError(f"{p} overlaps {q} of {other.source} at {their_path}; RFC 8416 section 4.2 "
                                     "forbids two SLURM files to touch the same addresses", s.source, mine[p])
            for asn, path in asns.items():
                if asn in their_asns:
                    raise InputError(f"AS{asn} also appears in {other.source} at {their_asns[asn]}; RFC 8416 section "
                                     "4.2 forbids two SLURM files to touch the same ASN's BGPsec keys", s.source, path)
            for asn, path in customers.items():
                if asn in their_customers:
                    raise InputError(f"customer AS{asn} also appears in {other.source} at {their_customers[asn]}; "
                                     "two SLURM files may not touch the same ASPA (as RFC 8416 section 4.2 for BGPsec)",
                                     s.source, path)
        seen.append((s, mine, asns, customers))


# ---------------------------------------------------------------------------------------------
# Applying: RFC 8416 section 4


def _filter_origins(origins: list[Origin], filters) -> list[Origin]:
    """The origins no filter matches. A prefix filter's VRPs are found by binary search among the
    VRPs sorted by start address: a VRP lies in the filter's prefix when its start does and it is
    at least as long."""
    if not filters:
        return list(origins)
    asn_only = {f.asn for f in filters if f.prefix is None}
    drop = [o.vrp.asn in asn_only for o in origins]
    with_prefix = [f for f in filters if f.prefix is not None]
    if with_prefix:
        keys = [(o.vrp.prefix.version, int(o.vrp.prefix.network_address)) for o in origins]
        order = sorted(range(len(origins)), key=keys.__getitem__)
        ordered = [keys[i] for i in order]
        for f in with_prefix:
            v, lo_addr = f.prefix.version, int(f.prefix.network_address)
            lo = bisect.bisect_left(ordered, (v, lo_addr))
            hi = bisect.bisect_right(ordered, (v, int(f.prefix.broadcast_address)))
            for k in range(lo, hi):
                i = order[k]
                vrp = origins[i].vrp
                if vrp.prefix.prefixlen >= f.prefix.prefixlen and (f.asn is None or vrp.asn == f.asn):
                    drop[i] = True
    return [o for o, d in zip(origins, drop) if not d]


def apply_slurm(payloads: Payloads, slurms: list[Slurm], ta: str = NO_TA) -> Payloads:
    """The payloads with every file's filters applied, then every file's assertions added
    (RFC 8416 section 4); the files must not overlap (section 4.2). Assertions carry trust anchor `ta`."""
    check_overlaps(slurms)
    bgpsec_filters = [f for s in slurms for f in s.bgpsec_filters]
    aspa_filters = [f for s in slurms for f in s.aspa_filters]
    origins = _filter_origins(payloads.origins, [f for s in slurms for f in s.prefix_filters])
    keys = [k for k in payloads.router_keys if not any(f.matches(k) for f in bgpsec_filters)]
    aspas = [a for a in payloads.aspas if not any(f.matches(a) for f in aspa_filters)]
    for s in slurms:
        origins += [Origin(a.vrp(), ta) for a in s.prefix_assertions]
        keys += [RouterKey(a.asn, a.ski, a.spki, ta) for a in s.bgpsec_assertions]
        aspas += [ASPA(a.customer, a.providers, ta) for a in s.aspa_assertions]
    return Payloads(origins, keys, aspas, payloads.generated)
