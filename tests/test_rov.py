"""Route origin validation (RFC 6811): hand-worked cases, the batch index against the definition, and
the compiled walks (core/rov.c): nest against its definition, bad index arrays refused."""

from __future__ import annotations

import ipaddress
import random

import numpy as np
import pytest
from helpers import parents_by_definition

from bgpsim import _core
from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH, NOT_FOUND, STATES, VALID, VRP, VRPTable, _validate_slow, nest

net = ipaddress.ip_network


@pytest.mark.parametrize("indexed", [False, True])  # a table this small checks one route by a scan until indexed
def test_rfc6811_states_by_hand(indexed):
    t = VRPTable([VRP(net("192.0.2.0/24"), 24, 64496), VRP(net("198.51.100.0/22"), 24, 64497),
                  VRP(net("203.0.113.0/24"), 24, 0), VRP(net("2001:db8::/32"), 48, 64498),
                  VRP(net("2001:db8:1::/48"), 64, 64499)])
    if indexed:
        t.validate_many([net("10.0.0.0/8")], [1])
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
        one_by_one = [t.validate(p, o) for p, o in routes]  # a table of eight or fewer: by a scan, unindexed
        got = t.validate_many([p for p, _ in routes], [o for _, o in routes])
        assert [STATES[g] for g in got] == one_by_one == [t.validate(p, o) for p, o in routes]
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


# ---------------------------------------------------------------------------------------------
# The walks of the compiled core (core/rov.c)


def test_nest_is_the_definition():
    """rov.nest against the definition at 32, 64 and 128 bits; at 128 bits half the sets share one
    upper half, so that their prefixes differ in the lower 64 bits only."""
    rnd = random.Random(8)
    for trial in range(150):
        bits = (32, 64, 128)[trial % 3]
        base = rnd.getrandbits(bits)
        low = bits == 128 and trial % 2  # flips in the lower 64 bits only
        pairs = set()
        for _ in range(rnd.randint(0, 150)):
            length = rnd.randint(0, bits)
            addr = base ^ (rnd.getrandbits(6) << rnd.randint(0, (64 if low else bits) - 6))
            pairs.add((addr >> (bits - length) << (bits - length), length))
        pairs = sorted(pairs)
        start, length = [s for s, _ in pairs], [k for _, k in pairs]
        hi = np.array([s >> 64 for s in start], dtype=np.uint64)
        lo = np.array([s & (2**64 - 1) for s in start], dtype=np.uint64)
        got = nest(lo, np.array(length), bits, hi if bits == 128 else None).tolist()
        assert got == parents_by_definition(start, [s + (1 << (bits - k)) - 1 for s, k in pairs])


def test_nest_at_128_bits_by_hand():
    a = 0x20010DB8 << 96
    start = [a, a | 1 << 32, a | 1 << 32 | 1 << 16, a | 2 << 32, a | 2**64 - 1]
    length = [64, 96, 112, 96, 128]
    hi = np.array([s >> 64 for s in start], dtype=np.uint64)
    lo = np.array([s & (2**64 - 1) for s in start], dtype=np.uint64)
    assert nest(lo, np.array(length), 128, hi).tolist() == [-1, 0, 1, 0, 0]
    assert nest(lo[:0], np.array([], dtype=np.uint8), 128, hi[:0]).tolist() == []


def test_core_refuses_bad_index_arrays():
    """An index array of the wrong type or length, or an index in one pointing out of range, is a
    ValueError (never a read outside the arrays, never an endless climb)."""
    t = VRPTable([VRP(net("10.0.0.0/8"), 24, 1), VRP(net("10.1.0.0/16"), 16, 2), VRP(net("10.1.2.0/24"), 24, 3)])
    f = t._families()[4]
    route = (np.array([int(net("10.1.2.0").network_address)], dtype=np.uint64), np.array([24]), np.array([1]))
    assert [STATES[c] for c in f.validate(*route)] == [VALID]

    def validate(**swap):
        cols = dict(start=f.start, length=f.length, parent=f.parent, pair_first=f.pair_first, pair=f.pair,
                    pair_max=f.pair_max, q_start=route[0], q_length=route[1], q_origin=route[2])
        cols.update(swap)
        return _core.rov_validate(32, *cols.values())

    def holding(**swap):
        cols = dict(start=f.start, length=f.length, parent=f.parent, first=f.first, q_start=route[0], q_length=route[1])
        cols.update(swap)
        return _core.rov_holding(32, *cols.values())

    with pytest.raises(ValueError, match="parent: want a one-dimensional array of 3 items of 4 bytes"):
        validate(parent=f.parent.astype(np.int64))
    with pytest.raises(ValueError, match="pair_first: want .* of 4 items"):
        validate(pair_first=f.pair_first[:-1])
    with pytest.raises(ValueError, match="route origin: want"):
        validate(q_origin=route[2][:0])
    with pytest.raises(TypeError):
        validate(pair=[1, 2, 3])
    for parent in ([-1, 0, 2], [-1, 0, 5], [-1, -2, 1]):  # itself (a loop), after it, below -1
        with pytest.raises(ValueError, match=r"parent\[[12]\]: want -1 or an earlier prefix"):
            validate(parent=np.array(parent, dtype=np.int32))
        with pytest.raises(ValueError, match=r"parent\[[12]\]"):
            holding(parent=np.array(parent, dtype=np.int32))
    for first in ([0, 1, 2, 9], [0, 2, 1, 3], [-1, 1, 2, 3]):
        with pytest.raises(ValueError, match=r"first\[\d\]"):
            validate(pair_first=np.array(first, dtype=np.int32))
    with pytest.raises(ValueError, match=r"first\[\d\]"):
        holding(first=np.array([0, 2, 1, 3], dtype=np.int32))
    with pytest.raises(ValueError, match=r"length\[2\]: want at most 32"):
        validate(length=np.array([8, 16, 33], dtype=np.uint8))
    for length in (33, -1):
        with pytest.raises(ValueError, match="route 0: want a length of 0 to 32"):
            validate(q_length=np.array([length]))
        with pytest.raises(ValueError, match="route 0: want a length of 0 to 32"):
            holding(q_length=np.array([length]))
    with pytest.raises(ValueError, match="route 0: want a length of 0 to 32"):
        t.validate_arrays(4, route[0], [33], [1])
    with pytest.raises(ValueError, match="bits: want 32 or 64"):
        _core.rov_validate(128, *[np.zeros(0)] * 9)
    with pytest.raises(ValueError, match=r"length\[0\]: want at most 32"):
        nest(np.zeros(1, dtype=np.uint64), np.array([33]), 32)
    with pytest.raises(ValueError, match="hi: want the upper 64 bits"):
        nest(np.zeros(1, dtype=np.uint64), np.array([8]), 128)


def test_the_walk_takes_routes_in_any_order():
    """The core's walk gallops from the previous route's place when routes come in address order
    (as VRPTable sorts them) and searches from scratch when one comes before it: the states are the
    same in any order, the route's own ones."""
    rnd = random.Random(7)
    vrps = []
    for _ in range(3000):
        p = _prefix(rnd)
        if p.version == 4 and p.prefixlen >= 8:  # some address space left uncovered
            vrps.append(VRP(p, rnd.randint(p.prefixlen, 32), rnd.choice([0, 1, 2, 3])))
    f = VRPTable(vrps)._families()[4]
    prefixes = [p for p in (_prefix(rnd) for _ in range(6000)) if p.version == 4]
    start = np.array([int(p.network_address) for p in prefixes], dtype=np.uint64)
    length = np.array([p.prefixlen for p in prefixes], dtype=np.int64)
    origin = np.array([rnd.choice([0, 1, 2, 3]) for _ in prefixes], dtype=np.int64)
    want = f.validate(start, length, origin)  # in address order
    for order in (np.arange(len(start)), np.arange(len(start))[::-1], np.array(rnd.sample(range(len(start)), len(start)))):
        got = _core.rov_validate(32, f.start, f.length, f.parent, f.pair_first, f.pair, f.pair_max, start[order],
                                 length[order], origin[order])
        assert np.array_equal(np.frombuffer(got, dtype=np.uint8), want[order])
    assert set(want.tolist()) == {0, 1, 2, 3}


def test_the_index_pass_is_the_definition():
    """_core.rov_index over sorted VRPs: each prefix's first VRP, and its pairs, one per ASN but AS0,
    with the highest maxLength any of its VRPs gives that ASN, in ASN order; prefixes with more VRPs
    than a few (sorted another way) and none but AS0 among them."""
    rng = random.Random(7)
    rows = []
    for k in range(400):
        start, length = k * 256, rng.choice([8, 16, 24])
        many = rng.choice([1, 1, 2, 3, 17, 40])  # 17 and 40: more than the sort by insertion takes
        rows += [(start, length, rng.randint(length, 32), rng.choice([0, 0, 1, 2, 3, 2**32 - 1, rng.randint(1, 9)]))
                 for _ in range(many)]
    rows.sort(key=lambda r: r[:2])
    cols = [np.array([r[j] for r in rows], dtype=t) for j, t in enumerate((np.uint64, np.uint8, np.uint8, np.uint32))]
    first, start, length, pair, best, pair_first = (np.frombuffer(c, dtype=t) for c, t in zip(
        _core.rov_index(*cols), (np.int32, np.uint64, np.uint8, np.uint64, np.uint8, np.int32)))
    prefixes = sorted({r[:2] for r in rows})
    want_first = [next(i for i, r in enumerate(rows) if r[:2] == p) for p in prefixes] + [len(rows)]
    want_pairs = []
    for k, p in enumerate(prefixes):
        tops = {}
        for s, n, m, a in rows:
            if (s, n) == p and a:
                tops[a] = max(tops.get(a, 0), m)
        want_pairs.append(sorted(((k << 32 | a), m) for a, m in tops.items()))
    assert first.tolist() == want_first
    assert list(zip(start.tolist(), length.tolist())) == prefixes
    assert list(zip(pair.tolist(), best.tolist())) == [x for ps in want_pairs for x in ps]
    assert pair_first.tolist() == [0] + np.cumsum([len(ps) for ps in want_pairs]).tolist()
    assert any(len(ps) == 0 for ps in want_pairs) and max(len(ps) for ps in want_pairs) > 5
    for s, n in (([5, 4], [8, 8]), ([4, 4], [16, 8])):  # start, then length, going down
        with pytest.raises(ValueError, match="VRP 1: want VRPs sorted by start and length"):
            _core.rov_index(np.array(s, dtype=np.uint64), np.array(n, dtype=np.uint8), np.full(2, 24, dtype=np.uint8),
                            np.ones(2, dtype=np.uint32))
    empty = _core.rov_index(*(c[:0] for c in cols))
    assert [len(c) for c in empty] == [4, 0, 0, 0, 0, 4]
