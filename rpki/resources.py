"""IP address and AS number resource sets (RFC 3779) and their certificate extensions.

A set is held in canonical form: sorted, merged intervals of integers. `IpResources` has one
`Family` per address family (IPv4 = AFI 0001, IPv6 = AFI 0002, RFC 6487 section 4.8.10 allows no
other and no SAFI); `AsResources` has the asnum family only (RFC 6487 section 4.8.11: no rdi). A
family is either a set or `inherit` (RFC 3779 sections 2.2.3.5 and 3.2.3.5).

Text forms: "192.0.2.0/24", "10.0.0.0-10.0.0.255", "2001:db8::/32", "64496", "AS64496",
"0-4294967295", and comma separated lists of these.

`decode_ip_extension` / `decode_as_extension` take the extnValue octets, decode them (strict DER, rpki.quickext) and check
the canonical-encoding rules of RFC 3779 sections 2.2.3 and 3.2.3 (sorted, non-overlapping,
non-adjacent, prefixes where a range is a prefix, minimal bit strings); a rejection names the rule.
`encode_ip_extension` / `encode_as_extension` produce exactly that canonical DER. The encoding and
its rules are rpki.rfc3779's; here are the sets, their arithmetic and their text.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Iterable

from . import quickext, rfc3779
from .certoids import EXT_AS, EXT_IP
from .errors import ObjectError
from .rfc3779 import AS_MAX, _bits, _ip_address, bits_from_quick  # noqa: F401 - others import them from here


# ---- interval sets --------------------------------------------------------------------------------
@dataclass(frozen=True)
class IntervalSet:
    """A set of integers as sorted, non-overlapping, non-adjacent closed intervals."""

    ranges: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, ranges: Iterable[tuple[int, int]]) -> IntervalSet:
        out: list[list[int]] = []
        for lo, hi in sorted((int(a), int(b)) for a, b in ranges):
            if lo > hi:
                raise ValueError(f"want low <= high, got {lo}-{hi}")
            if out and lo <= out[-1][1] + 1:
                out[-1][1] = max(out[-1][1], hi)
            else:
                out.append([lo, hi])
        return cls(tuple((a, b) for a, b in out))

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __or__(self, other: IntervalSet) -> IntervalSet:
        return IntervalSet.of(self.ranges + other.ranges)

    def __and__(self, other: IntervalSet) -> IntervalSet:
        out, i, j = [], 0, 0
        a, b = self.ranges, other.ranges
        while i < len(a) and j < len(b):
            lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
            if lo <= hi:
                out.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        return IntervalSet(tuple(out))

    def __sub__(self, other: IntervalSet) -> IntervalSet:
        out = []
        for lo, hi in self.ranges:
            cur = lo
            for olo, ohi in other.ranges:
                if ohi < cur or olo > hi:
                    continue
                if olo > cur:
                    out.append((cur, olo - 1))
                cur = max(cur, ohi + 1)
                if cur > hi:
                    break
            if cur <= hi:
                out.append((cur, hi))
        return IntervalSet(tuple(out))

    def issubset(self, other: IntervalSet) -> bool:
        return not (self - other)

    def overlaps(self, other: IntervalSet) -> bool:
        return bool(self & other)


def _inherit_error(what: str) -> ObjectError:
    return ObjectError(f"{what}: the set is 'inherit'; resolve it against the issuer first",
                       rfc="RFC 3779 section 2.2.3.5")


# ---- AS numbers -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class AsResources:
    """AS identifiers (RFC 3779 section 3): a canonical set, or inherit."""

    ids: IntervalSet = field(default_factory=IntervalSet)
    inherit: bool = False

    @classmethod
    def parse(cls, text: str, source: str | None = None) -> AsResources:
        text = text.strip()
        if text.lower() == "inherit":
            return cls(inherit=True)
        ranges = []
        for item in filter(None, (t.strip() for t in text.split(","))):
            lo, sep, hi = item.partition("-")
            try:
                a, b = _asn(lo), _asn(hi) if sep else _asn(lo)
            except ValueError:
                raise ObjectError(f"want an AS number 0..{AS_MAX} or a range A-B, got {item!r}", source) from None
            if a > b:
                raise ObjectError(f"want low <= high in an AS range, got {item!r}", source)
            ranges.append((a, b))
        return cls(IntervalSet.of(ranges))

    def __str__(self) -> str:
        if self.inherit:
            return "inherit"
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ids.ranges)

    def _need(self, other: AsResources) -> None:
        if self.inherit or other.inherit:
            raise _inherit_error("AS resources")

    def contains(self, other: AsResources) -> bool:
        self._need(other)
        return other.ids.issubset(self.ids)

    def overlaps(self, other: AsResources) -> bool:
        self._need(other)
        return self.ids.overlaps(other.ids)

    def uncovered(self, other: AsResources) -> AsResources:
        """The part of `other` not in self ("uncovered AS: 64496")."""
        self._need(other)
        return AsResources(other.ids - self.ids)

    def resolve(self, issuer: AsResources) -> AsResources:
        return issuer if self.inherit else self


def _asn(text: str) -> int:
    t = text.strip()
    if t[:2].upper() == "AS":
        t = t[2:]
    if not t.isdigit():
        raise ValueError(text)
    v = int(t)
    if v > AS_MAX:
        raise ValueError(text)
    return v


# ---- IP addresses ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Family:
    """One address family of an IP resource set: a canonical interval set, or inherit."""

    version: int
    ranges: IntervalSet = field(default_factory=IntervalSet)
    inherit: bool = False

    def items(self) -> list[str]:
        """Text items, each range split into the fewest prefixes when it is not one prefix."""
        out = []
        for lo, hi in self.ranges.ranges:
            p = rfc3779.prefix(self.version, lo, hi)
            out.append(p if p else f"{rfc3779.address(self.version, lo)}-{rfc3779.address(self.version, hi)}")
        return out


@dataclass(frozen=True)
class IpResources:
    """IP address blocks (RFC 3779 section 2). A family that is absent is None."""

    v4: Family | None = None
    v6: Family | None = None

    @classmethod
    def parse(cls, text: str, source: str | None = None) -> IpResources:
        fams: dict[int, list[tuple[int, int]]] = {}
        inherit: set[int] = set()
        for item in filter(None, (t.strip() for t in text.split(","))):
            if item.lower() in ("inherit4", "ipv4:inherit"):
                inherit.add(4)
                continue
            if item.lower() in ("inherit6", "ipv6:inherit"):
                inherit.add(6)
                continue
            ver, lo, hi = _parse_ip_item(item, source)
            fams.setdefault(ver, []).append((lo, hi))
        out = {}
        for ver in (4, 6):
            if ver in inherit:
                out[ver] = Family(ver, inherit=True)
            elif ver in fams:
                out[ver] = Family(ver, IntervalSet.of(fams[ver]))
        return cls(out.get(4), out.get(6))

    def family(self, version: int) -> Family | None:
        return self.v4 if version == 4 else self.v6

    @property
    def inherit(self) -> bool:
        return any(f is not None and f.inherit for f in (self.v4, self.v6))

    def __str__(self) -> str:
        parts = []
        for f in (self.v4, self.v6):
            if f is not None:
                parts += [f"inherit{f.version}"] if f.inherit else f.items()
        return ", ".join(parts)

    def _sets(self, other: IpResources):
        for ver in (4, 6):
            a, b = self.family(ver), other.family(ver)
            if (a is not None and a.inherit) or (b is not None and b.inherit):
                raise _inherit_error("IP resources")
            yield ver, (a.ranges if a else IntervalSet()), (b.ranges if b else IntervalSet())

    def contains(self, other: IpResources) -> bool:
        return all(b.issubset(a) for _, a, b in self._sets(other))

    def overlaps(self, other: IpResources) -> bool:
        return any(a.overlaps(b) for _, a, b in self._sets(other))

    def uncovered(self, other: IpResources) -> IpResources:
        """The part of `other` not in self ("uncovered IP: 10.0.0.0/8")."""
        fams = {}
        for ver, a, b in self._sets(other):
            rest = b - a
            if rest:
                fams[ver] = Family(ver, rest)
        return IpResources(fams.get(4), fams.get(6))

    def resolve(self, issuer: IpResources) -> IpResources:
        fams = {}
        for ver in (4, 6):
            f = self.family(ver)
            fams[ver] = issuer.family(ver) if f is not None and f.inherit else f
        return IpResources(fams[4], fams[6])

    def is_empty(self) -> bool:
        return self.v4 is None and self.v6 is None


def _parse_ip_item(item: str, source: str | None) -> tuple[int, int, int]:
    try:
        if "-" in item:
            a, b = (ipaddress.ip_address(x.strip()) for x in item.split("-", 1))
            if a.version != b.version:
                raise ValueError("mixed families")
            lo, hi = int(a), int(b)
            if lo > hi:
                raise ValueError("low > high")
            return a.version, lo, hi
        net = ipaddress.ip_network(item, strict=True)
        return net.version, int(net.network_address), int(net.broadcast_address)
    except ValueError as e:
        raise ObjectError(
            f"want an IP prefix (192.0.2.0/24, no host bits) or range (10.0.0.0-10.0.0.255), got {item!r} ({e})",
            source,
        ) from None


# ---- the certificate extensions (rpki.rfc3779) -----------------------------------------------------
def decode_ip_extension(octets: bytes, source: str | None = None) -> IpResources:
    """sbgp-ipAddrBlock extnValue -> IpResources, enforcing RFC 3779 section 2.2.3 and RFC 6487 section 4.8.10."""
    return ip_resources_from_quick(_value(EXT_IP, octets, source), source)


def ip_resources_from_quick(families, source: str | None = None) -> IpResources:
    """IpResources from rpki.quickext's decode of the value: [(addressFamily octets, "inherit" or
    [BitString | IPAddressRange])]."""
    fams = {ver: Family(ver, inherit=True) if ranges is None else Family(ver, IntervalSet(ranges))
            for ver, ranges in rfc3779.ip_families(rfc3779.quick_families(families), source)}
    return IpResources(fams.get(4), fams.get(6))


def decode_as_extension(octets: bytes, source: str | None = None) -> AsResources:
    """sbgp-autonomousSysNum extnValue -> AsResources, enforcing RFC 3779 section 3.2.3 and RFC 6487 section 4.8.11."""
    return as_resources_from_quick(_value(EXT_AS, octets, source), source)


def as_resources_from_quick(value, source: str | None = None) -> AsResources:
    """AsResources from rpki.quickext's decode of the value: (asnum: "inherit", [int | ASRange] or
    None when absent; whether an rdi is there). RFC 6487 section 4.8.11: asnum only, no rdi."""
    asnum, rdi = value
    if rdi:
        raise ObjectError("want no rdi element", source, check="ASIdentifiers", rfc="RFC 6487 section 4.8.11")
    if asnum is None:
        raise ObjectError("want an asnum element, got none", source, check="ASIdentifiers",
                          rfc="RFC 6487 section 4.8.11")
    ranges = rfc3779.as_ranges(rfc3779.quick_asnum_items(asnum), source)
    return AsResources(inherit=True) if ranges is None else AsResources(IntervalSet(ranges))


def _value(oid: str, octets: bytes, source):
    return quickext.extension_value(quickext.EXTENSION_VALUES, oid, bytes(octets), source, "extensions",
                                    "RFC 5280 section 4.2")


def encode_ip_extension(res: IpResources) -> bytes:
    """The canonical DER of the sbgp-ipAddrBlock extnValue."""
    return rfc3779.encode_ip_families([(f.version, None if f.inherit else f.ranges.ranges)
                                       for f in (res.v4, res.v6) if f is not None])


def encode_as_extension(res: AsResources) -> bytes:
    """The canonical DER of the sbgp-autonomousSysNum extnValue."""
    return rfc3779.encode_as_ranges(None if res.inherit else res.ids.ranges)
