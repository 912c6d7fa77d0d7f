"""Route Origin Authorizations, RFC 9582 (obsoletes RFC 6482), in the RFC 6488 wrapper (rpki.cms).

`Roa.parse(data, source, at=...)` reads and checks the signed object and the eContent and raises
ObjectError naming the first failure; `Roa.read` reads only (raising for what cannot be decoded) and
`problems(at)` lists every failure. `vrps()` yields the rpki.rov.VRP of each ROAIPAddress.

Rules (section numbers of RFC 9582):
- 4: version 0 (the DEFAULT, so absent in DER), asID 0..4294967295.
- 4.3.1: one or two ROAIPAddressFamily, addressFamily exactly two octets 0001 or 0002, each AFI once;
  at least one ROAIPAddress per family.
- 4.3.2: an address no longer than the AFI allows; maxLength, when present, from the prefix length up
  to the AFI maximum.
- 4.3.3 (canonical form: IPv4 before IPv6, addresses sorted, no duplicates) is demanded of the
  issuer. A relying party does not reject on it (rpki-client only warns; the BBN suite labels
  duplicate prefixes "good"): `noncanonical` lists what is out of form, and `check(strict=True)`
  (what a CA builder runs on its own output) rejects it.
- 5: the EE certificate has IP resources, no "inherit", and they cover every ROA prefix (the
  rejection names the uncovered prefix, "uncovered IP: 10.0.0.0/8"); it carries no AS resources
  (rpki-client: "superfluous AS Resources extension present").
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from datetime import datetime
from ipaddress import IPv4Network, IPv6Network

from . import asn1, quickcms, quickder
from .cms import SignedObject, SignedPayload
from .errors import ObjectError
from .resources import AS_MAX, IntervalSet, IpResources, _bits, bits_from_quick
from .rov import VRP

AFIS = {b"\x00\x01": 4, b"\x00\x02": 6}
WIDTH = {4: 32, 6: 128}
SEC = "RFC 9582 section"


@dataclass(frozen=True, order=True)
class RoaPrefix:
    """One ROAIPAddress: a prefix and its optional maxLength."""

    prefix: IPv4Network | IPv6Network
    max_length: int | None = None

    @property
    def effective_max_length(self) -> int:
        return self.prefix.prefixlen if self.max_length is None else self.max_length

    def __str__(self) -> str:
        return f"{self.prefix}" + (f"-{self.max_length}" if self.max_length is not None else "")


def read_prefix(bs: asn1.IPAddress, version: int, source) -> IPv4Network | IPv6Network:
    """An RFC 3779 section 2.2.3.8 prefix BIT STRING of one AFI."""
    width = WIDTH[version]
    value, nbits = _bits(bs)
    octets = len(bytes(bs.contents)) - 1
    if nbits > width or octets * 8 > width + 7:
        raise ObjectError(f"want at most {width} bits for an IPv{version} prefix, got {nbits}", source,
                          check="ROAIPAddress.address", rfc=f"{SEC} 4.3.2")
    addr = value << (width - octets * 8) if octets * 8 <= width else value >> (octets * 8 - width)
    try:
        return ipaddress.ip_network((addr, nbits)) if version == 4 else IPv6Network((addr, nbits))
    except ValueError as e:
        raise ObjectError(f"want a prefix without host bits, got {e}", source,
                          check="ROAIPAddress.address", rfc="RFC 3779 section 2.2.3.8") from None


@dataclass
class Roa(SignedPayload):
    """An RFC 9582 ROA: an AS and the prefixes it may originate, signed by an EE certificate."""

    asn: int
    prefixes: list[RoaPrefix]
    signed: SignedObject | None = None  # None for a ROA being built
    version: int = 0
    noncanonical: list[str] = field(default_factory=list)
    source: str | None = None
    _problems: list[tuple[str, str, str]] = field(default_factory=list, repr=False)

    # ---- parsing ----------------------------------------------------------------------------------
    @classmethod
    def read(cls, data: bytes, source: str | None = None, *, ber_ok: bool = False) -> Roa:
        signed = SignedObject.read(data, source, ber_ok=ber_ok)
        signed.expect(asn1.OID_CT_ROA, "id-ct-routeOriginAuthz", f"{SEC} 3")
        return cls.from_signed(signed)

    @classmethod
    def from_signed(cls, signed: SignedObject):
        """Read the eContent of `signed` with the one reader (rpki.quickder.strict)."""
        source = signed.source
        value = quickder.strict(quickcms.RouteOriginAttestation, signed.econtent, source,
                                "RouteOriginAttestation (RFC 9582 section 4)")
        blocks = [(fam.address_family, [(bits_from_quick(a.address), a.max_length) for a in fam.addresses])
                  for fam in value.ip_addr_blocks]
        return cls._build(value.version, value.as_id, blocks, signed, source)

    @classmethod
    def _build(cls, version: int, asn: int, blocks: list, signed: SignedObject, source) -> Roa:
        """The checks of the eContent: `blocks` holds (addressFamily octets, [(address BIT STRING
        with its `contents`, maxLength or None)]) per ROAIPAddressFamily."""
        p: list[tuple[str, str, str]] = []
        if version != 0:
            p.append(("version", f"{SEC} 4.1", f"want version 0, got {version}"))
        if not 0 <= asn <= AS_MAX:
            raise ObjectError(f"want an AS number 0..{AS_MAX}, got {asn}", source, check="asID", rfc=f"{SEC} 4.2")
        if not 1 <= len(blocks) <= 2:
            p.append(("ipAddrBlocks", f"{SEC} 4.3.1", f"want one or two address families, got {len(blocks)}"))
        prefixes: list[RoaPrefix] = []
        noncanonical: list[str] = []
        seen_afi: list[int] = []
        for afi, addrs in blocks:
            if afi not in AFIS:
                raise ObjectError(f"want addressFamily 0001 (IPv4) or 0002 (IPv6), got {afi.hex() or 'empty'}",
                                  source, check="ROAIPAddressFamily.addressFamily", rfc=f"{SEC} 4.3.1")
            ver = AFIS[afi]
            if ver in seen_afi:
                p.append(("ipAddrBlocks", f"{SEC} 4.3.1", f"want each address family once, got IPv{ver} twice"))
            seen_afi.append(ver)
            if not addrs:
                p.append(("ROAIPAddressFamily.addresses", f"{SEC} 4.3.1", f"want at least one IPv{ver} address"))
            fam_prefixes = []
            for address, ml in addrs:
                net = read_prefix(address, ver, source)
                if ml is not None and not net.prefixlen <= ml <= WIDTH[ver]:
                    raise ObjectError(f"want maxLength {net.prefixlen}..{WIDTH[ver]} for {net}, got {ml}", source,
                                      check="ROAIPAddress.maxLength", rfc=f"{SEC} 4.3.2")
                fam_prefixes.append(RoaPrefix(net, ml))
            keys = [(int(r.prefix.network_address), r.prefix.prefixlen, r.effective_max_length) for r in fam_prefixes]
            if keys != sorted(keys):
                noncanonical.append(f"IPv{ver} addresses not sorted")
            if len(set(keys)) != len(keys):
                noncanonical.append(f"IPv{ver} addresses have duplicates")
            prefixes += fam_prefixes
        if seen_afi == [6, 4]:
            noncanonical.append("IPv6 before IPv4")
        return cls(asn=asn, prefixes=prefixes, signed=signed, version=version, noncanonical=noncanonical,
                   source=source, _problems=p)

    # ---- checks -----------------------------------------------------------------------------------
    def problems(self, at: datetime | None = None, strict: bool = False,
                 as_resources_ok: bool = False) -> list[tuple[str, str, str]]:
        """Every failure. `as_resources_ok`: tolerate AS resources in the EE certificate, as RFC 6482
        (2011) did; the BBN conformance suite, written then, puts them in every ROA's EE."""
        p = list(self._problems)
        if self.signed is not None:
            p += self.signed.problems(at)
            p += self._ee_problems(as_resources_ok)
        if strict:
            p += [("ipAddrBlocks", f"{SEC} 4.3.3", f"want the canonical form, got {n}") for n in self.noncanonical]
        return p

    def _ee_problems(self, as_resources_ok: bool) -> list[tuple[str, str, str]]:
        ee = self.signed.ee
        out = []
        if ee.as_resources is not None and not as_resources_ok:
            out.append(("EE autonomousSysIds", f"{SEC} 5",
                        "want no AS resources in a ROA's EE certificate (superfluous AS Resources extension)"))
        res = ee.ip_resources
        if res is None:
            out.append(("EE ipAddrBlocks", f"{SEC} 5", "want IP resources in the EE certificate, got none"))
            return out
        if res.inherit:
            out.append(("EE ipAddrBlocks", f"{SEC} 5", "want explicit IP resources in the EE certificate, got 'inherit'"))
            return out
        for r in self.prefixes:
            p = r.prefix
            fam = res.family(p.version)
            lo = int(p.network_address)
            hi = lo | ((1 << (p.max_prefixlen - p.prefixlen)) - 1)  # its last address
            if fam is None or not IntervalSet(((lo, hi),)).issubset(fam.ranges):
                out.append(("ipAddrBlocks", f"{SEC} 5, RFC 6487 section 4.8.10",
                            f"want every prefix within the EE certificate's resources, uncovered IP: {r.prefix}"))
        return out

    # ---- output -----------------------------------------------------------------------------------
    def vrps(self) -> list[VRP]:
        """One VRP per ROAIPAddress (duplicates collapse), sorted."""
        return sorted({VRP(r.prefix, r.effective_max_length, self.asn) for r in self.prefixes},
                      key=lambda v: (v.prefix.version, v.prefix, v.max_length))

    def ip_resources(self) -> IpResources:
        """The prefixes as an RFC 3779 set: what a CA puts in the EE certificate it signs this with."""
        return IpResources.parse(", ".join(str(r.prefix) for r in self.prefixes))
