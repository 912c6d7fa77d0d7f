"""The DER form of RFC 3779 resources: IPAddrBlocks (section 2.2.3) and ASIdentifiers (section 3.2.3),
as RFC 6487 sections 4.8.10 and 4.8.11 restrict them for the RPKI.

Decoding checks the canonical-encoding rules (sorted, non-overlapping, non-adjacent entries; a range
that is a prefix encoded as the prefix; minimal bit strings) and names the rule a rejection breaks;
encoding writes exactly that canonical form. Both work on plain values, each address family as its
IP version and sorted (low, high) integer ranges, or None for `inherit`; rpki.resources makes its
sets of them. The values read here come from rpki.quickext, adapted to the shape the checks take
(`quick_families`, `quick_asnum_items`); encoding writes with asn1crypto.
"""

from __future__ import annotations

import ipaddress

from asn1crypto import parser

from . import asn1
from .errors import ObjectError

AFI_IPV4 = b"\x00\x01"
AFI_IPV6 = b"\x00\x02"
WIDTH = {4: 32, 6: 128}
AFI = {4: AFI_IPV4, 6: AFI_IPV6}
AS_MAX = 2**32 - 1

Ranges = tuple[tuple[int, int], ...]  # sorted, disjoint, non-adjacent closed intervals


# ---- addresses as text (RFC 3779 section 2.1.2: a range or a prefix) ----------------------------------
def address(version: int, value: int) -> str:
    return str(ipaddress.IPv4Address(value) if version == 4 else ipaddress.IPv6Address(value))


def prefix(version: int, lo: int, hi: int) -> str | None:
    """lo..hi as a prefix ("192.0.2.0/24"), or None when the range is not one prefix."""
    width = WIDTH[version]
    size = hi - lo + 1
    if size & (size - 1) or lo % size:
        return None
    return f"{address(version, lo)}/{width - size.bit_length() + 1}"


# ---- bit strings (RFC 3779 sections 2.1.1 and 2.2.3.8) ---------------------------------------------------
def _bits(bs: asn1.IPAddress) -> tuple[int, int]:
    """(value left-aligned in the octets, number of bits) of a DER BIT STRING."""
    c = bytes(bs.contents)
    if not c:
        raise ValueError("empty BIT STRING")
    unused = c[0]
    return int.from_bytes(c[1:], "big") if len(c) > 1 else 0, (len(c) - 1) * 8 - unused


def _bit_value(bs: asn1.IPAddress, width: int, fill_ones: bool, what: str, source) -> tuple[int, int]:
    """(the address, number of bits) of an address bit string, the bits it leaves out 0 or 1 (`fill_ones`)."""
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
    """The IPAddress BIT STRING of the top `nbits` bits of a width-bit address."""
    return asn1.IPAddress.load(parser.emit(0, 0, 3, _encode_bits(value, nbits, width)))


def _trailing(value: int, width: int, bit: int) -> int:
    """How many least significant bits of value equal `bit` (0 or 1)."""
    n = 0
    while n < width and ((value >> n) & 1) == bit:
        n += 1
    return n


# ---- decoding: IPAddrBlocks -------------------------------------------------------------------------------
def ip_families(families: list, source) -> list[tuple[int, Ranges | None]]:
    """[(addressFamily octets, "inherit" or the IPAddressOrRange items)] -> [(IP version, its ranges
    or None for inherit)], checked."""
    if len(families) == 0:
        raise ObjectError("want at least one IPAddressFamily, got none", source, check="IPAddrBlocks",
                          rfc="RFC 6487 section 4.8.10")
    out = []
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
        out.append((ver, None if isinstance(choice, str) else _family_ranges(ver, choice, source)))
    return out


def _family_ranges(ver: int, items, source) -> Ranges:
    """The IPAddressOrRange items of one family -> its ranges, checked (RFC 3779 sections 2.2.3.6 to 2.2.3.9)."""
    width = WIDTH[ver]
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
            text = f"{address(ver, lo)}-{address(ver, hi)}"
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
            if prefix(ver, lo, hi):
                raise ObjectError(f"IPv{ver} range {text}: want it encoded as the prefix {prefix(ver, lo, hi)}",
                                  source, check="addressRange", rfc="RFC 3779 section 2.2.3.7")
        if ranges:
            plo, phi = ranges[-1]
            if text is None and lo <= phi + 1:
                text = f"{address(ver, lo)}/{n}"
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
    return tuple(ranges)


# ---- decoding: ASIdentifiers ------------------------------------------------------------------------------
def as_ranges(items, source) -> Ranges | None:
    """asIdsOrRanges, each (id,) or (min, max), or "inherit" -> the ranges, or None for inherit; checked."""
    if isinstance(items, str):  # "inherit"
        return None
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
    return tuple(out)


# ---- rpki.quickext's decode in the shape the checks take -------------------------------------------------------
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


def quick_families(families) -> list:
    """rpki.quickext's IPAddrBlocks, [(addressFamily octets, "inherit" or [BitString | IPAddressRange])],
    as `ip_families` takes them."""
    out = []
    for afi, choice in families:
        if choice != "inherit":
            choice = [_Choice("addressPrefix", bits_from_quick(x)) if hasattr(x, "padding_bits")
                      else _Choice("addressRange", {"min": bits_from_quick(x.min), "max": bits_from_quick(x.max)})
                      for x in choice]
        out.append((afi, choice))
    return out


def quick_asnum_items(value):
    """rpki.quickext's asnum, "inherit" or [int | ASRange], as `as_ranges` takes it."""
    if isinstance(value, str):  # "inherit"
        return value
    return [(x,) if isinstance(x, int) else (x.min, x.max) for x in value]


# ---- encoding (canonical: RFC 3779 sections 2.2.3 and 3.2.3) --------------------------------------------
def _range_item(ver: int, lo: int, hi: int) -> asn1.IPAddressOrRange:
    width = WIDTH[ver]
    if prefix(ver, lo, hi):
        n = width - (hi - lo + 1).bit_length() + 1
        return asn1.IPAddressOrRange(name="addressPrefix", value=_ip_address(lo, n, width))
    nmin = width - _trailing(lo, width, 0)
    nmax = width - _trailing(hi, width, 1)
    rng = asn1.IPAddressRange({"min": _ip_address(lo, nmin, width), "max": _ip_address(hi, nmax, width)})
    return asn1.IPAddressOrRange(name="addressRange", value=rng)


def encode_ip_families(families: list[tuple[int, Ranges | None]]) -> bytes:
    """[(IP version, its ranges or None for inherit)], in AFI order -> the DER of IPAddrBlocks."""
    fams = []
    for ver, ranges in families:
        if ranges is None:
            choice = asn1.IPAddressChoice(name="inherit", value=asn1.core.Null())
        else:
            items = [_range_item(ver, lo, hi) for lo, hi in ranges]
            choice = asn1.IPAddressChoice(name="addressesOrRanges", value=asn1.IPAddressesOrRanges(items))
        fams.append(asn1.IPAddressFamily({"addressFamily": AFI[ver], "ipAddressChoice": choice}))
    return asn1.IPAddrBlocks(fams).dump(force=True)


def encode_as_ranges(ranges: Ranges | None) -> bytes:
    """The ranges of AS numbers, or None for inherit -> the DER of ASIdentifiers (asnum only)."""
    if ranges is None:
        choice = asn1.ASIdentifierChoice(name="inherit", value=asn1.core.Null())
    else:
        items = [
            asn1.ASIdOrRange(name="id", value=lo) if lo == hi
            else asn1.ASIdOrRange(name="range", value=asn1.ASRange({"min": lo, "max": hi}))
            for lo, hi in ranges
        ]
        choice = asn1.ASIdentifierChoice(name="asIdsOrRanges", value=asn1.ASIdsOrRanges(items))
    return asn1.ASIdentifiers({"asnum": choice}).dump(force=True)
