"""Route origin validation, RFC 6811.

A route is *covered* by a VRP when the VRP's prefix contains the route's prefix (section 2). A covered
route is *valid* when some covering VRP has the route's origin ASN and a maxLength at least the route's
length; otherwise it is *invalid*, and we say why: `invalid-asn` when no covering VRP names the origin,
`invalid-length` when one does but the route is longer than its maxLength. An uncovered route is
`not-found`. A VRP for AS0 (RFC 7607) covers but never validates.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network

VALID = "valid"
INVALID_ASN = "invalid-asn"
INVALID_LENGTH = "invalid-length"
NOT_FOUND = "not-found"


@dataclass(frozen=True, order=True)
class VRP:
    """Validated ROA Payload: (prefix, maxLength, origin ASN)."""

    prefix: IPv4Network | IPv6Network
    max_length: int
    asn: int

    def __post_init__(self):
        if not self.prefix.prefixlen <= self.max_length <= self.prefix.max_prefixlen:
            raise ValueError(f"maxLength {self.max_length} outside {self.prefix.prefixlen}..{self.prefix.max_prefixlen} for {self.prefix}")


class VRPTable:
    """VRPs indexed by (address family, prefix length) for covering lookups."""

    def __init__(self, vrps=()):
        self._by_len: dict[tuple[int, int], dict[int, list[VRP]]] = {}
        for v in vrps:
            self.add(v)

    def add(self, vrp: VRP) -> None:
        key = (vrp.prefix.version, vrp.prefix.prefixlen)
        self._by_len.setdefault(key, {}).setdefault(int(vrp.prefix.network_address), []).append(vrp)

    def covering(self, prefix: IPv4Network | IPv6Network) -> list[VRP]:
        out = []
        addr = int(prefix.network_address)
        bits = prefix.max_prefixlen
        for (version, length), table in self._by_len.items():
            if version != prefix.version or length > prefix.prefixlen:
                continue
            net = addr >> (bits - length) << (bits - length) if length else 0
            out.extend(table.get(net, ()))
        return out

    def validate(self, prefix: IPv4Network | IPv6Network, origin: int) -> str:
        covering = self.covering(prefix)
        if not covering:
            return NOT_FOUND
        asn_match = False
        for v in covering:
            if v.asn == origin and v.asn != 0:
                if prefix.prefixlen <= v.max_length:
                    return VALID
                asn_match = True
        return INVALID_LENGTH if asn_match else INVALID_ASN

    def __len__(self) -> int:
        return sum(len(lst) for t in self._by_len.values() for lst in t.values())
