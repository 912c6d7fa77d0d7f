"""Bogon prefixes and AS numbers (bgpsim.base.bogons): each block and range at its edges, and the array
form agreeing with the scalar one."""

from __future__ import annotations

import ipaddress

import numpy as np
import pytest

from bgpsim.base.bogons import ASN_RANGES, KINDS, asn_kind, asn_kinds, prefix_kind, prefix_mask


@pytest.mark.parametrize("prefix,bogon", [
    ("10.1.0.0/16", "RFC 1918"), ("11.0.0.0/8", None), ("100.64.0.0/10", "RFC 6598"), ("100.128.0.0/10", None),
    ("192.0.2.0/24", "RFC 5737"), ("192.0.3.0/24", None), ("224.0.0.0/24", "RFC 5771"),
    ("0.0.0.0/0", None),  # a default route covers bogons but is not inside one
    ("2001:db8:1::/48", "RFC 3849"), ("2001:db9::/32", None), ("fe80::/64", "outside 2000::/3"),
    ("fc00::/7", "outside 2000::/3"), ("2a00::/12", None), ("::/0", None), ("::/8", "outside 2000::/3"),
])
def test_prefix(prefix, bogon):
    kind = prefix_kind(ipaddress.ip_network(prefix))
    assert (kind is None) if bogon is None else (bogon in kind), kind


def test_asn_edges_and_arrays():
    probes = []
    for lo, hi, kind, _ in ASN_RANGES:
        assert asn_kind(lo)[0] == kind and asn_kind(hi)[0] == kind
        probes += [lo - 1, lo, hi, hi + 1]
    assert asn_kind(3356) is None and asn_kind(64511)[0] == "documentation" and asn_kind(64512)[0] == "private"
    probes = [p for p in probes if 0 <= p <= 4294967295]
    codes = asn_kinds(np.array(probes))
    assert [KINDS[c] or None for c in codes] == [(asn_kind(p) or (None,))[0] for p in probes]


def test_prefix_mask_equals_prefix_kind():
    import random

    rnd = random.Random(1)
    nets = [ipaddress.ip_network(p) for p in ("10.1.0.0/16", "11.0.0.0/8", "0.0.0.0/0", "192.0.2.128/25",
                                              "2001:db8::/48", "fe80::/64", "2a00::/12", "::/0")]
    for _ in range(3000):
        v6 = rnd.random() < 0.5
        length = rnd.randint(0, 64 if v6 else 32)
        bits = 128 if v6 else 32
        addr = rnd.getrandbits(bits) >> (bits - length) << (bits - length) if length else 0
        nets.append((ipaddress.IPv6Network if v6 else ipaddress.IPv4Network)((addr, length)))
    for version in (4, 6):
        sel = [n for n in nets if n.version == version]
        shift = 64 if version == 6 else 0
        got = prefix_mask(version, np.array([int(n.network_address) >> shift for n in sel], dtype=np.uint64),
                          np.array([n.prefixlen for n in sel]))
        assert got.tolist() == [prefix_kind(n) is not None for n in sel]


def test_prefix_kind_is_the_subnet_of_definition():
    """prefix_kind by integers says what ipaddress's subnet_of says, on random prefixes near every block."""
    import random

    from bgpsim.base.bogons import NOT_GLOBAL6, PREFIXES

    def by_definition(net):
        for block, why in PREFIXES:
            if block.version == net.version and net.subnet_of(block):
                return f"{block} {why}"
        if net.version == 6 and any(net.subnet_of(b) for b in NOT_GLOBAL6):
            return "outside 2000::/3, the IPv6 global unicast space (RFC 4291 section 2.4)"
        return None

    rnd = random.Random(7)
    nets = []
    for block in [b for b, _ in PREFIXES] + NOT_GLOBAL6:
        for _ in range(40):  # inside, around and over each block
            bits = block.max_prefixlen
            length = rnd.randint(max(0, block.prefixlen - 3), bits)
            addr = (int(block.network_address) + rnd.randint(-2**(bits - length), 2**(bits - block.prefixlen))) % 2**bits
            addr = addr >> (bits - length) << (bits - length) if length < bits else addr
            nets.append(ipaddress.ip_network((addr, length)))
    for _ in range(2000):
        bits = rnd.choice((32, 128))
        length = rnd.randint(0, bits)
        nets.append(ipaddress.ip_network((rnd.getrandbits(bits) >> (bits - length) << (bits - length) if length else 0,
                                          length)))
    kinds = [prefix_kind(n) for n in nets]
    assert kinds == [by_definition(n) for n in nets]
    assert sum(k is not None for k in kinds) > 500 and sum(k is None for k in kinds) > 500
