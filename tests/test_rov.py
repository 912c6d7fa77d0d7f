"""Route origin validation (RFC 6811): hand-worked cases, and the batch index against the definition."""

from __future__ import annotations

import ipaddress
import random

import numpy as np

from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID, VRP, VRPTable, _validate_slow

net = ipaddress.ip_network


def test_rfc6811_states_by_hand():
    t = VRPTable([VRP(net("192.0.2.0/24"), 24, 64496), VRP(net("198.51.100.0/22"), 24, 64497),
                  VRP(net("203.0.113.0/24"), 24, 0), VRP(net("2001:db8::/32"), 48, 64498),
                  VRP(net("2001:db8:1::/48"), 64, 64499)])
    assert t.validate(net("192.0.2.0/24"), 64496) == VALID
    assert t.validate(net("192.0.2.0/25"), 64496) == INVALID_LENGTH  # longer than maxLength 24
    assert t.validate(net("192.0.2.0/24"), 64500) == INVALID_ASN
    assert t.validate(net("198.51.101.0/24"), 64497) == VALID  # inside the /22, up to /24
    assert t.validate(net("198.51.0.0/16"), 64497) == NOT_FOUND  # less specific than every VRP
    assert t.validate(net("203.0.113.0/24"), 0) == INVALID_ASN  # AS0 covers, never validates
    assert t.validate(net("2001:db8:ff::/48"), 64498) == VALID
    assert t.validate(net("2001:db8:1::/56"), 64498) == INVALID_LENGTH  # the /32's maxLength is 48
    assert t.validate(net("2001:db8:1::/64"), 64499) == VALID
    assert t.validate(net("2001:db8:1::/80"), 64499) == INVALID_LENGTH  # longer than /64: one at a time
    assert t.validate(net("10.0.0.0/8"), 64496) == NOT_FOUND


def _prefix(rnd: random.Random):
    if rnd.random() < 0.6:
        length = rnd.choice([0, 8, 12, 16, 20, 22, 23, 24, 24, 32])
        addr = (rnd.choice([10, 11]) << 24 | rnd.getrandbits(24)) if length >= 8 else rnd.getrandbits(32)
        return ipaddress.ip_network((addr >> (32 - length) << (32 - length), length))
    length = rnd.choice([0, 16, 29, 32, 47, 48, 64, 96, 128])
    addr = 0x20010DB8 << 96 | rnd.getrandbits(96)
    return ipaddress.ip_network((addr >> (128 - length) << (128 - length), length))


def test_batch_index_equals_the_definition():
    rnd = random.Random(6811)
    for _ in range(300):
        vrps = []
        for _ in range(rnd.randint(0, 40)):
            p = _prefix(rnd)
            vrps.append(VRP(p, rnd.randint(p.prefixlen, p.max_prefixlen), rnd.choice([0, 1, 2, 3])))
        t = VRPTable(vrps)
        routes = [(_prefix(rnd), rnd.choice([0, 1, 2, 3])) for _ in range(60)]
        got = t.validate_many([p for p, _ in routes], [o for _, o in routes])
        for (p, o), g in zip(routes, got):
            by_scan = [v for v in vrps if v.prefix.version == p.version and p.subnet_of(v.prefix)]
            assert STATES[g] == _validate_slow(by_scan, p, o), (p, o)
            fast = t.covering(p)  # through the index, most specific first
            assert sorted(fast) == sorted(by_scan), p
            assert [v.prefix.prefixlen for v in fast] == sorted((v.prefix.prefixlen for v in fast), reverse=True)


def test_arrays_entry_point():
    t = VRPTable([VRP(net("192.0.2.0/24"), 24, 64496)])
    start = np.asarray([int(net("192.0.2.0/24").network_address)] * 3, dtype=np.uint64)
    codes = t.validate_arrays(4, start, np.asarray([24, 24, 25]), np.asarray([64496, 1, 64496]))
    assert [STATES[c] for c in codes] == [VALID, INVALID_ASN, INVALID_LENGTH]
