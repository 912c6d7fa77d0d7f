"""IP address and AS number resource sets (RFC 3779) and their certificate extensions.

A set is held in canonical form: sorted, merged intervals of integers. `IpResources` has one
`Family` per address family (IPv4 = AFI 0001, IPv6 = AFI 0002, RFC 6487 section 4.8.10 allows no
other and no SAFI); `AsResources` has the asnum family only (RFC 6487 section 4.8.11: no rdi). A
family is either a set or `inherit` (RFC 3779 sections 2.2.3.5 and 3.2.3.5).

Text forms: "192.0.2.0/24", "10.0.0.0-10.0.0.255", "2001:db8::/32", "64496", "AS64496",
"0-4294967295", and comma separated lists of these.

`decode_ip_extension` / `decode_as_extension` take the extnValue octets, run the DER gate and check
the canonical-encoding rules of RFC 3779 sections 2.2.3 and 3.2.3 (sorted, non-overlapping,
non-adjacent, prefixes where a range is a prefix, minimal bit strings); a rejection names the rule.
`encode_ip_extension` / `encode_as_extension` produce exactly that canonical DER.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Iterable

from . import asn1
from .der import decode
from .errors import ObjectError

AFI_IPV4 = b"\x00\x01"
AFI_IPV6 = b"\x00\x02"
_WIDTH = {4: 32, 6: 128}
_AFI = {4: AFI_IPV4, 6: AFI_IPV6}
AS_MAX = 2**32 - 1


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
            p = _as_prefix(self.version, lo, hi)
            out.append(p if p else f"{_addr(self.version, lo)}-{_addr(self.version, hi)}")
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


def _addr(version: int, value: int) -> str:
    return str(ipaddress.IPv4Address(value) if version == 4 else ipaddress.IPv6Address(value))


def _as_prefix(version: int, lo: int, hi: int) -> str | None:
    width = _WIDTH[version]
    size = hi - lo + 1
    if size & (size - 1) or lo % size:
        return None
    return f"{_addr(version, lo)}/{width - size.bit_length() + 1}"


# ---- RFC 3779 bit strings -------------------------------------------------------------------------
def _bits(bs: asn1.IPAddress) -> tuple[int, int]:
    """(value left-aligned in the octets, number of bits) of a DER BIT STRING."""
    c = bytes(bs.contents)
    if not c:
        raise ValueError("empty BIT STRING")
    unused = c[0]
    return int.from_bytes(c[1:], "big") if len(c) > 1 else 0, (len(c) - 1) * 8 - unused


def _bit_value(bs: asn1.IPAddress, width: int, fill_ones: bool, what: str, source) -> tuple[int, int]:
    try:
        value, nbits = _bits(bs)
    except ValueError:
        raise ObjectError(f"{what}: want a BIT STRING with an unused-bits octet", source,
                          rfc="RFC 3779 section 2.2.3.8") from None
    octets = len(bs.contents) - 1
    if nbits > width or octets > width // 8:
        raise ObjectError(f"{what}: want at most {width} bits, got {nbits}", source, rfc="RFC 3779 section 2.2.3.8")
    value >>= (octets * 8 - nbits)  # drop the unused (zero, DER) bits
    host = width - nbits
    value <<= host
    if fill_ones:
        value |= (1 << host) - 1
    return value, nbits


def _encode_bits(value: int, nbits: int, width: int) -> bytes:
    """DER BIT STRING contents (unused-bits octet first) of the top `nbits` bits of a width-bit value."""
    top = value >> (width - nbits) if nbits else 0
    octets = (nbits + 7) // 8
    unused = octets * 8 - nbits
    return bytes([unused]) + (top << unused).to_bytes(octets, "big") if octets else b"\x00"


def _ip_address(value: int, nbits: int, width: int) -> asn1.IPAddress:
    return asn1.IPAddress.load(b"\x03" + _len(_encode_bits(value, nbits, width)) + _encode_bits(value, nbits, width))


def _len(contents: bytes) -> bytes:
    n = len(contents)
    if n < 128:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def _trailing(value: int, width: int, bit: int) -> int:
    """How many least significant bits of value equal `bit` (0 or 1)."""
    n = 0
    while n < width and ((value >> n) & 1) == bit:
        n += 1
    return n


# ---- decoding the extensions ----------------------------------------------------------------------
def decode_ip_extension(octets: bytes, source: str | None = None, *, checked: bool = False) -> IpResources:
    """sbgp-ipAddrBlock extnValue -> IpResources, enforcing RFC 3779 section 2.2.3 and RFC 6487 section 4.8.10.
    `checked`: the octets already passed the DER gate inside their certificate."""
    blocks = decode(asn1.IPAddrBlocks, octets, source, "IPAddrBlocks (RFC 3779 section 2.2.3.1)", checked=checked)
    return _ip_resources([(bytes(fam["addressFamily"].native),
                           "inherit" if fam["ipAddressChoice"].name == "inherit" else fam["ipAddressChoice"].chosen)
                          for fam in blocks], source)


class _Bits:
    """An RFC 3779 BIT STRING as read here: `contents`, the unused-bits octet first (as asn1crypto has it)."""

    __slots__ = ("contents",)

    def __init__(self, contents: bytes):
        self.contents = contents


class _Choice:
    """An IPAddressOrRange as read here (asn1crypto's `name` and `chosen`)."""

    __slots__ = ("name", "chosen")

    def __init__(self, name: str, chosen):
        self.name, self.chosen = name, chosen


def bits_from_quick(bits) -> _Bits:
    return _Bits(bytes((bits.padding_bits(),)) + bits.as_bytes())


def ip_resources_from_quick(families, source: str | None = None) -> IpResources:
    """The same as `decode_ip_extension`, from rpki.quickder's decode of the value (certainly DER):
    [(addressFamily octets, "inherit" or [BitString | IPAddressRange])]."""
    out = []
    for afi, choice in families:
        if choice != "inherit":
            choice = [_Choice("addressPrefix", bits_from_quick(x)) if hasattr(x, "padding_bits")
                      else _Choice("addressRange", {"min": bits_from_quick(x.min), "max": bits_from_quick(x.max)})
                      for x in choice]
        out.append((afi, choice))
    return _ip_resources(out, source)


def _ip_resources(families: list, source) -> IpResources:
    """[(addressFamily octets, "inherit" or the IPAddressOrRange items)] -> IpResources, checked."""
    if len(families) == 0:
        raise ObjectError("want at least one IPAddressFamily, got none", source, check="IPAddrBlocks",
                          rfc="RFC 6487 section 4.8.10")
    fams: dict[int, Family] = {}
    prev_afi = b""
    for afi, choice in families:
        # RFC 6487 section 4.8.10: AFI 0001 or 0002 and no SAFI
        if len(afi) != 2:
            raise ObjectError(f"want a 2-octet addressFamily (no SAFI), got {afi.hex()}", source,
                              check="addressFamily", rfc="RFC 6487 section 4.8.10")
        if afi not in (AFI_IPV4, AFI_IPV6):
            raise ObjectError(f"want AFI 0001 (IPv4) or 0002 (IPv6), got {afi.hex()}", source,
                              check="addressFamily", rfc="RFC 6487 section 4.8.10")
        # RFC 3779 section 2.2.3.2: one entry per AFI, sorted by addressFamily
        if afi == prev_afi:
            raise ObjectError(f"want one IPAddressFamily per AFI, got {afi.hex()} twice", source,
                              check="addressFamily", rfc="RFC 3779 section 2.2.3.2")
        if afi < prev_afi:
            raise ObjectError(f"want IPAddressFamily sorted by addressFamily, got {afi.hex()} after {prev_afi.hex()}",
                              source, check="addressFamily", rfc="RFC 3779 section 2.2.3.2")
        prev_afi = afi
        ver = 4 if afi == AFI_IPV4 else 6
        if isinstance(choice, str):  # "inherit"
            fams[ver] = Family(ver, inherit=True)
            continue
        fams[ver] = Family(ver, _decode_family(ver, choice, source))
    return IpResources(fams.get(4), fams.get(6))


def _decode_family(ver: int, items: asn1.IPAddressesOrRanges, source) -> IntervalSet:
    width = _WIDTH[ver]
    rule = "RFC 3779 section 2.2.3.6"
    if len(items) == 0:
        raise ObjectError(f"IPv{ver}: want at least one prefix or range, got an empty addressesOrRanges",
                          source, check="addressesOrRanges", rfc="RFC 6487 section 4.8.10")
    ranges: list[tuple[int, int]] = []
    for aor in items:
        if aor.name == "addressPrefix":
            lo, n = _bit_value(aor.chosen, width, False, f"IPv{ver} prefix", source)
            hi = lo | ((1 << (width - n)) - 1)
            text = None  # written out only for a rejection below
        else:
            rmin, rmax = aor.chosen["min"], aor.chosen["max"]
            lo, nmin = _bit_value(rmin, width, False, f"IPv{ver} range min", source)
            hi, nmax = _bit_value(rmax, width, True, f"IPv{ver} range max", source)
            text = f"{_addr(ver, lo)}-{_addr(ver, hi)}"
            # RFC 3779 section 2.2.3.9: trailing zero bits of min and trailing one bits of max removed
            if nmin and (lo >> (width - nmin)) & 1 == 0:
                raise ObjectError(f"IPv{ver} range {text}: want min without trailing zero bits", source,
                                  check="addressRange", rfc="RFC 3779 section 2.2.3.9")
            if nmax and (hi >> (width - nmax)) & 1 == 1:
                raise ObjectError(f"IPv{ver} range {text}: want max without trailing one bits", source,
                                  check="addressRange", rfc="RFC 3779 section 2.2.3.9")
            if lo > hi:
                raise ObjectError(f"IPv{ver} range {text}: want min <= max", source,
                                  check="addressRange", rfc="RFC 3779 section 2.2.3.9")
            # RFC 3779 section 2.2.3.7: a range that is a prefix is encoded as a prefix
            if _as_prefix(ver, lo, hi):
                raise ObjectError(f"IPv{ver} range {text}: want it encoded as the prefix {_as_prefix(ver, lo, hi)}",
                                  source, check="addressRange", rfc="RFC 3779 section 2.2.3.7")
        if ranges:
            plo, phi = ranges[-1]
            if text is None and lo <= phi + 1:
                text = f"{_addr(ver, lo)}/{n}"
            if lo < plo:
                raise ObjectError(f"IPv{ver} {text}: want addresses sorted ascending, it follows a higher one",
                                  source, check="addressesOrRanges", rfc=rule)
            if lo <= phi:
                raise ObjectError(f"IPv{ver} {text}: want no overlap, it overlaps the previous entry",
                                  source, check="addressesOrRanges", rfc=rule)
            if lo == phi + 1:
                raise ObjectError(f"IPv{ver} {text}: want adjacent entries combined, it touches the previous one",
                                  source, check="addressesOrRanges", rfc=rule)
        ranges.append((lo, hi))
    return IntervalSet(tuple(ranges))


def decode_as_extension(octets: bytes, source: str | None = None, *, checked: bool = False) -> AsResources:
    """sbgp-autonomousSysNum extnValue -> AsResources, enforcing RFC 3779 section 3.2.3 and RFC 6487 section 4.8.11.
    `checked`: the octets already passed the DER gate inside their certificate."""
    ids = decode(asn1.ASIdentifiers, octets, source, "ASIdentifiers (RFC 3779 section 3.2.3.1)", checked=checked)
    if ids["rdi"].native is not None or not isinstance(ids["rdi"], asn1.core.Void):
        raise ObjectError("want no rdi element", source, check="ASIdentifiers", rfc="RFC 6487 section 4.8.11")
    asnum = ids["asnum"]
    if isinstance(asnum, asn1.core.Void):
        raise ObjectError("want an asnum element, got none", source, check="ASIdentifiers",
                          rfc="RFC 6487 section 4.8.11")
    if asnum.name == "inherit":
        return AsResources(inherit=True)
    return _as_resources([(x.chosen.native,) if x.name == "id" else (x.chosen["min"].native, x.chosen["max"].native)
                          for x in asnum.chosen], source)


def as_resources_from_quick(value, source: str | None = None) -> AsResources:
    """The same as `decode_as_extension`, from rpki.quickder's decode of the value (certainly DER):
    "inherit" or [int | ASRange]."""
    if isinstance(value, str):  # "inherit"
        return AsResources(inherit=True)
    return _as_resources([(x,) if isinstance(x, int) else (x.min, x.max) for x in value], source)


def _as_resources(items: list[tuple[int] | tuple[int, int]], source) -> AsResources:
    """asIdsOrRanges, each (id,) or (min, max) -> AsResources, checked."""
    if len(items) == 0:
        raise ObjectError("want at least one AS number or range, got an empty asIdsOrRanges", source,
                          check="asIdsOrRanges", rfc="RFC 6487 section 4.8.11")
    rule = "RFC 3779 section 3.2.3.6"
    out: list[tuple[int, int]] = []
    for x in items:
        if len(x) == 1:
            lo = hi = x[0]
            text = str(lo)
        else:
            lo, hi = x
            text = f"{lo}-{hi}"
            if lo >= hi:
                raise ObjectError(f"AS range {text}: want min < max (a single AS is an id)", source,
                                  check="ASRange", rfc="RFC 3779 section 3.2.3.8")
        if lo < 0 or hi > AS_MAX:
            raise ObjectError(f"AS {text}: want AS numbers 0..{AS_MAX}", source, check="ASId",
                              rfc="RFC 3779 section 3.2.3.10")
        if out:
            plo, phi = out[-1]
            if lo < plo:
                raise ObjectError(f"AS {text}: want AS numbers sorted ascending", source,
                                  check="asIdsOrRanges", rfc=rule)
            if lo <= phi:
                raise ObjectError(f"AS {text}: want no overlap with the previous entry", source,
                                  check="asIdsOrRanges", rfc=rule)
            if lo == phi + 1:
                raise ObjectError(f"AS {text}: want adjacent entries combined into one range", source,
                                  check="asIdsOrRanges", rfc=rule)
        out.append((lo, hi))
    return AsResources(IntervalSet(tuple(out)))


# ---- encoding the extensions (canonical, RFC 3779 sections 2.2.3 and 3.2.3) -----------------------
def _range_items(ver: int, lo: int, hi: int) -> list[asn1.IPAddressOrRange]:
    width = _WIDTH[ver]
    if _as_prefix(ver, lo, hi):
        n = width - (hi - lo + 1).bit_length() + 1
        return [asn1.IPAddressOrRange(name="addressPrefix", value=_ip_address(lo, n, width))]
    nmin = width - _trailing(lo, width, 0)
    nmax = width - _trailing(hi, width, 1)
    rng = asn1.IPAddressRange({"min": _ip_address(lo, nmin, width), "max": _ip_address(hi, nmax, width)})
    return [asn1.IPAddressOrRange(name="addressRange", value=rng)]


def encode_ip_extension(res: IpResources) -> bytes:
    fams = []
    for f in (res.v4, res.v6):
        if f is None:
            continue
        if f.inherit:
            choice = asn1.IPAddressChoice(name="inherit", value=asn1.core.Null())
        else:
            items = [it for lo, hi in f.ranges.ranges for it in _range_items(f.version, lo, hi)]
            choice = asn1.IPAddressChoice(name="addressesOrRanges", value=asn1.IPAddressesOrRanges(items))
        fams.append(asn1.IPAddressFamily({"addressFamily": _AFI[f.version], "ipAddressChoice": choice}))
    return asn1.IPAddrBlocks(fams).dump(force=True)


def encode_as_extension(res: AsResources) -> bytes:
    if res.inherit:
        choice = asn1.ASIdentifierChoice(name="inherit", value=asn1.core.Null())
    else:
        items = [
            asn1.ASIdOrRange(name="id", value=lo) if lo == hi
            else asn1.ASIdOrRange(name="range", value=asn1.ASRange({"min": lo, "max": hi}))
            for lo, hi in res.ids.ranges
        ]
        choice = asn1.ASIdentifierChoice(name="asIdsOrRanges", value=asn1.ASIdsOrRanges(items))
    return asn1.ASIdentifiers({"asnum": choice}).dump(force=True)
