"""The compiled core's AS paths (core/aspath.c, core/pathtable.c: bgpsim._core.PathTable) against the definitions in
Python they stand for: bgpdump's path text (bgpsim.wire.aspath.path_text), the RFC 6811 origin
(bgpsim.wire.attributes.origin_of) and the path findings of `bgpsim validate`
(bgpsim.validate.paths.PathJudge): a path the core leaves unflagged is one the judge finds nothing in."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bgpsim import _core
from bgpsim.base.bogons import ASN_RANGES
from bgpsim.validate.paths import flat_path
from bgpsim.validate.paths import PathJudge
from bgpsim.wire.aspath import AS_SET, path_text, path_words
from bgpsim.wire.attributes import origin_of

SPECIAL = tuple(np.array([r[k] for r in ASN_RANGES], dtype=np.uint32) for k in (0, 1))
HAS_SET, SUSPECT, NOTHING = 1, 2, 4
# ASes to draw from: ordinary ones, each kind of special-purpose one, the ends of the number space
POOL = [1, 2, 3, 174, 3356, 13335, 64496, 64511, 64512, 65534, 65535, 65536, 65551, 65552, 131071, 131072,
        23456, 0, 4199999999, 4200000000, 4294967294, 4294967295]


def random_path(rng: random.Random) -> tuple:
    segments = []
    for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
        kind = rng.choice([2, 2, 2, 1, 3, 4])
        n = rng.choice([0, 1, 2, 3, 5, 8, 40]) if kind == 2 else rng.randint(0, 4)
        asns = []
        for _ in range(n):
            if asns and rng.random() < 0.3:
                asns.append(asns[-1])  # prepending
            else:
                asns.append(rng.choice(POOL[:6]) if rng.random() < 0.8 else rng.choice(POOL))
        segments.append((kind, tuple(asns)))
    return tuple(segments)


def expected(path: tuple) -> tuple[bytes, int, int]:
    text = path_text(path)
    origin = origin_of(path)
    post = f",{text if ',' not in text else chr(34) + text + chr(34)},{origin if origin >= 0 else ''},".encode()
    flat = flat_path(path)
    if not flat:
        flags = NOTHING
    else:
        found = [kind for kind, _ in PathJudge().judge(flat) if kind != "as-set"]
        flags = (HAS_SET if any(kind == AS_SET for kind, _ in path) else 0) | (SUSPECT if found else 0)
    return post, flags, origin


def fields(paths: list[bytes], table=None):
    """(slots, posts, flags, origins, new) of paths added to a PathTable (a new one by default)."""
    table = table if table is not None else _core.PathTable(*SPECIAL)
    slots, flags, origins, new = table.add(paths)
    slots = np.frombuffer(slots, dtype=np.int64).tolist()
    return slots, [table.post(k) for k in slots], flags, np.frombuffer(origins, dtype=np.int64).tolist(), new


def test_path_table_against_the_definitions():
    rng = random.Random(17)
    paths = [random_path(rng) for _ in range(20_000)]
    slots, posts, flags, origins, new = fields([path_words(p) for p in paths])
    distinct = {}
    for i, p in enumerate(paths):
        distinct.setdefault(path_words(p), i)
    assert new == sorted(distinct.values()) and sorted(set(slots)) == list(range(len(distinct)))
    assert all(slots[i] == slots[distinct[path_words(p)]] for i, p in enumerate(paths))  # one slot per path
    for p, post, f, o in zip(paths, posts, flags, origins):
        want_post, want_flags, want_origin = expected(p)
        assert (post, o) == (want_post, want_origin), p
        if want_flags & NOTHING:
            assert f == NOTHING, p
        else:  # SUSPECT: the judge finds something besides the as-set finding
            assert f == want_flags, p


def test_path_table_remembers_and_forgets():
    t = _core.PathTable(*SPECIAL)
    words = [path_words(((2, (k, k + 1)),)) for k in range(5000)]
    assert fields(words[:3000], t)[4] == list(range(3000))
    slots, posts, _, _, new = fields(words[::-1], t)  # the first 3000 known, the rest new, in the order given
    assert new == list(range(2000)) and slots[-3000:] == list(range(3000))[::-1] and len(t) == 5000
    assert posts[-1] == b",0 1,1,"
    t.clear()
    assert len(t) == 0 and fields(words[4999:], t)[0] == [0]


def test_own_fields_give_the_peers_origin():
    """A path whose origin is the speaker's own (empty, or ending in a confederation segment): its
    fields with each origin given, one slot per (path, origin)."""
    t = _core.PathTable(*SPECIAL)
    slots, posts, _, origins, _ = fields([b"", path_words(((2, (1, 2)), (3, (65000,))))], t)
    assert posts == [b",,,", b",1 2 (65000),,"] and origins == [-2, -2]
    own = np.frombuffer(t.own(np.array(slots * 2, dtype=np.int64), np.array([7, 7, 8, 7], dtype=np.int64)), dtype=np.int64)
    assert [t.post(k) for k in own] == [b",,7,", b",1 2 (65000),7,", b",,8,", b",1 2 (65000),7,"]
    assert own[1] == own[3] and len(t) == 5
    with pytest.raises(ValueError, match="want a slot"):
        t.own(np.array([9], dtype=np.int64), np.array([1], dtype=np.int64))


def test_an_empty_as_set_is_judged():
    _, posts, flags, _, _ = fields([path_words(((2, (1, 2)), (1, ())))])
    assert posts == [b',1 2 {},,']  # no comma to quote, but a set all the same
    assert flags == bytes([HAS_SET])


@pytest.mark.parametrize("words, what", [
    (b"\x02\x00\x00\x00", "whole segments"),  # a type without its count
    (path_words(((2, (1, 2)),))[:-4], "whole segments"),  # a count larger than the ASes given
    (path_words(((5, (1,)),)), "whole segments"),  # no segment type 5
    (b"\x02\x00\x00", "uint32 words"),
])
def test_bad_words_are_refused(words, what):
    t = _core.PathTable(*SPECIAL)
    with pytest.raises(ValueError, match=what):
        t.add([path_words(((2, (1,)),)), words])
    assert len(t) == 1  # the paths before it stay


def test_bad_ranges_are_refused():
    lo, hi = SPECIAL
    with pytest.raises(ValueError, match="sorted ranges"):
        _core.PathTable(hi, lo)
    with pytest.raises(ValueError, match="as many"):
        _core.PathTable(lo, hi[:-1])
    with pytest.raises(RuntimeError, match="not made"):
        _core.PathTable.__new__(_core.PathTable).add([])
