"""Bogons: prefixes and AS numbers that must not appear in the global routing table, each with the
RFC that sets it aside. Used by the route-dump validator's findings and the simulator's `bogon` filter.

Prefixes (IANA special-purpose registries, RFC 6890): a prefix is a bogon when it lies inside one of
the blocks below (a covering announcement, e.g. 0.0.0.0/0 or ::/0, is not flagged here). IPv6 inside ::/3, 4000::/2
or 8000::/1, outside 2000::/3, the global unicast space (RFC 4291 section 2.4), is a bogon too.
AS numbers (IANA special-purpose AS numbers): `private` (RFC 6996) apart, because a private AS in a
path is its own finding; the rest are `reserved`, `documentation` or `as-trans`.

`asn_kind(asn)` and `prefix_kind(network)` answer for one; `asn_kinds(array)` and `prefix_mask(...)`
for whole numpy arrays at once.
"""

from __future__ import annotations

import ipaddress

import numpy as np

# (first, last, kind, why)
ASN_RANGES = [
    (0, 0, "reserved", "RFC 7607: AS 0 is never an origin or in a path"),
    (23456, 23456, "as-trans", "RFC 6793: AS_TRANS stands in for a 4-byte AS on old sessions"),
    (64496, 64511, "documentation", "RFC 5398"),
    (64512, 65534, "private", "RFC 6996"),
    (65535, 65535, "reserved", "RFC 7300: last 16-bit AS"),
    (65536, 65551, "documentation", "RFC 5398"),
    (65552, 131071, "reserved", "IANA reserved"),
    (4200000000, 4294967294, "private", "RFC 6996"),
    (4294967295, 4294967295, "reserved", "RFC 7300: last 32-bit AS"),
]
KINDS = ("", "reserved", "as-trans", "documentation", "private")

PREFIXES = [(ipaddress.ip_network(p), why) for p, why in [
    ("0.0.0.0/8", "RFC 791: this network"),
    ("10.0.0.0/8", "RFC 1918: private use"),
    ("100.64.0.0/10", "RFC 6598: shared address space (CGN)"),
    ("127.0.0.0/8", "RFC 1122: loopback"),
    ("169.254.0.0/16", "RFC 3927: link local"),
    ("172.16.0.0/12", "RFC 1918: private use"),
    ("192.0.0.0/24", "RFC 6890: IETF protocol assignments"),
    ("192.0.2.0/24", "RFC 5737: documentation (TEST-NET-1)"),
    ("192.168.0.0/16", "RFC 1918: private use"),
    ("198.18.0.0/15", "RFC 2544: benchmarking"),
    ("198.51.100.0/24", "RFC 5737: documentation (TEST-NET-2)"),
    ("203.0.113.0/24", "RFC 5737: documentation (TEST-NET-3)"),
    ("224.0.0.0/4", "RFC 5771: multicast"),
    ("240.0.0.0/4", "RFC 1112 section 4: reserved"),
    ("2001:2::/48", "RFC 5180: benchmarking"),
    ("2001:10::/28", "RFC 4843: ORCHID"),
    ("2001:db8::/32", "RFC 3849: documentation"),
    ("3fff::/20", "RFC 9637: documentation"),
]]
NOT_GLOBAL6 = [ipaddress.ip_network(p) for p in ("::/3", "4000::/2", "8000::/1")]  # all but 2000::/3

_LO = np.array([r[0] for r in ASN_RANGES], dtype=np.int64)
_HI = np.array([r[1] for r in ASN_RANGES], dtype=np.int64)
_CODE = np.array([KINDS.index(r[2]) for r in ASN_RANGES], dtype=np.int8)


def asn_kinds(asns: np.ndarray) -> np.ndarray:
    """For each AS number, the index into KINDS of its kind (0: an ordinary AS)."""
    asns = np.asarray(asns, dtype=np.int64)
    i = np.searchsorted(_LO, asns, side="right") - 1
    inside = (i >= 0) & (asns <= _HI[np.maximum(i, 0)])
    return np.where(inside, _CODE[np.maximum(i, 0)], 0).astype(np.int8)


def asn_kind(asn: int) -> tuple[str, str] | None:
    """(kind, why) for a special-purpose AS number, else None."""
    i = int(np.searchsorted(_LO, asn, side="right")) - 1
    if i >= 0 and asn <= _HI[i]:
        return ASN_RANGES[i][2], ASN_RANGES[i][3]
    return None


def _blocks(version: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First and last address (IPv6: of the top 64 bits) and length of each block of a version."""
    shift = 64 if version == 6 else 0
    blocks = [b for b, _ in PREFIXES if b.version == version]
    if version == 6:
        blocks += NOT_GLOBAL6
    lo = np.array([int(b.network_address) >> shift for b in blocks], dtype=np.uint64)
    hi = np.array([int(b.broadcast_address) >> shift for b in blocks], dtype=np.uint64)
    return lo, hi, np.array([b.prefixlen for b in blocks], dtype=np.int64)


_BLOCKS = {4: _blocks(4), 6: _blocks(6)}


def prefix_mask(version: int, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """For routes of one IP version given as arrays (`start`: the IPv4 address, or the top 64 bits of
    the IPv6 one; every IPv6 block here is /64 or shorter), whether each lies inside a bogon block."""
    lo, hi, blen = _BLOCKS[version]
    start = np.asarray(start, dtype=np.uint64)
    length = np.asarray(length, dtype=np.int64)
    out = np.zeros(len(start), dtype=bool)
    for a, b, n in zip(lo, hi, blen):
        out |= (start >= a) & (start <= b) & (length >= n)
    return out


def _ranges(nets) -> list[tuple[int, int, int, int]]:
    return [(b.version, int(b.network_address), int(b.broadcast_address), b.prefixlen) for b in nets]


_KINDS = [(*r, f"{b} {why}") for r, (b, why) in zip(_ranges(b for b, _ in PREFIXES), PREFIXES)]
_NOT_GLOBAL6 = _ranges(NOT_GLOBAL6)


def prefix_kind(net: ipaddress.IPv4Network | ipaddress.IPv6Network) -> str | None:
    """Why `net` is a bogon (the RFC and what the block is for), else None. (By integers: the
    ipaddress module's subnet_of took 35 us a prefix, and a dump may hold hundreds.)"""
    v, first, length = net.version, int(net.network_address), net.prefixlen
    last = first | ((1 << (net.max_prefixlen - length)) - 1)
    for bv, lo, hi, blen, why in _KINDS:
        if bv == v and length >= blen and lo <= first and last <= hi:
            return why
    if v == 6 and any(lo <= first and last <= hi for _, lo, hi, _ in _NOT_GLOBAL6):
        return "outside 2000::/3, the IPv6 global unicast space (RFC 4291 section 2.4)"
    return None
