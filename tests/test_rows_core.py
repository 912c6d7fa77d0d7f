"""The lines of routes.csv as the compiled core writes them (core/rows.c, bgpsim.validate.rows.rows):
each route's fields from its group's and its own columns, against the same lines made in Python."""

from __future__ import annotations

import numpy as np
import pytest

from bgpsim import _core
from bgpsim.validate.check import _SPECIAL
from bgpsim.validate.rows import Groups, Prefixes, rows
from bgpsim.wire.aspath import path_words

PEERS = [b",192.0.2.1,64500,", b",2001:db8::1,4200000000,"]


def table(*paths) -> _core.PathTable:
    """A PathTable holding `paths` (slots 0, 1, ...): a path ((2, (k,)),) has the fields b",k,k,"."""
    t = _core.PathTable(*_SPECIAL)
    t.add([path_words(p) for p in paths])
    return t


def python_head(t: int, u: int, peer: int) -> bytes:
    return (f"{t}.{u:06d}" if u >= 0 else f"{t}").encode() + PEERS[peer]


def test_rows_by_groups():
    """Each route's line: its group's time, peer, path and tail, its prefix and status; routes with
    status fields of their own (an invalid route's reason), a line end of their own (a bogon's
    finding) or both, each in its place; a group's time written once for its routes and again for
    the next."""
    n = 7
    p = Prefixes(np.full(n, 4), np.zeros(n, dtype=np.uint64), np.arange(n, dtype=np.uint64) << np.uint64(8),
                 np.full(n, 24))
    group = np.array([0, 0, 0, 1, 1, 2, 2])
    status = np.array([0, 0, 1, 1, 1, 0, 0], dtype=np.uint8)
    times = [1439308800, 10**10, 999999999]  # ten digits, eleven, nine
    usecs = [42, -1, 999999]
    g = Groups(np.array(times), np.array(usecs), np.array([0, 1, 0]), np.array([0, 1, 1]), np.array([1, 0, 1]),
               PEERS, table(((2, (10,)),), ((2, (11,)),)), [b",t0\n", b",t1\n"])
    why = (np.array([2, 4, 6]), [b"w2", b"w4", b"w6"])
    ends = {6: b",last\n", 1: b",own\n"}
    got = rows(p, group, status, g, [b"s0", b"s1"], why, ends).splitlines()
    heads = [python_head(t, u, k) for t, u, k in zip(times, usecs, [0, 1, 0])]
    assert got == [heads[0] + b"0.0.0.0/24,10,10,s0,t1", heads[0] + b"0.0.1.0/24,10,10,s0,own",
                   heads[0] + b"0.0.2.0/24,10,10,w2,t1", heads[1] + b"0.0.3.0/24,11,11,s1,t0",
                   heads[1] + b"0.0.4.0/24,11,11,w4,t0", heads[2] + b"0.0.5.0/24,11,11,s0,t1",
                   heads[2] + b"0.0.6.0/24,11,11,w6,last"]


def test_times_as_python_writes_them():
    """Every width of time and microseconds, none, more than six digits of them, before 1970."""
    rng = np.random.default_rng(5)
    times = [0, 1, 9, 10, 999999999, 10**9, 1439308800, 2**32 - 1, 2**63 - 1, -1, -(2**63)]
    times += rng.integers(0, 2**40, 200).tolist()
    usecs = [-1, 0, 7, 999999, 10**6, 2**32 - 1] + rng.integers(-1, 10**7, 200).tolist()
    pairs = [(t, u) for t in times for u in usecs[:8]] + list(zip(times, usecs))
    n = len(pairs)
    g = Groups(np.array([t for t, _ in pairs], dtype=np.int64), np.array([u for _, u in pairs], dtype=np.int64),
               np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), PEERS, table(()),
               [b"\n"])
    p = Prefixes(np.full(n, 4), np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint64), np.zeros(n))
    got = rows(p, np.arange(n), np.zeros(n, dtype=np.uint8), g, [b"s"], (np.zeros(0), []), {}).splitlines()
    assert got == [python_head(t, u, 0) + b"0.0.0.0/0,,,s" for t, u in pairs]


def _call(**change):
    """csv_rows with one route of one group, `change` replacing some of its arguments."""
    i8 = lambda *x: np.array(x, dtype=np.int64)  # noqa: E731
    args = dict(group=i8(0), status=np.zeros(1, dtype=np.uint8), afi=np.ones(1, dtype=np.uint8),
                hi=np.zeros(1, dtype=np.uint64), lo=np.zeros(1, dtype=np.uint64), plen=np.zeros(1, dtype=np.uint8),
                time=i8(1), usec=i8(-1), peer=i8(0), post=i8(0), tail=i8(0), peers=[b","], paths=table(((2, (7,)),)),
                states=[b"s"], tails=[b"\n"], why_index=i8(), why=[], end_index=i8(), end=[])
    args.update(change)
    return _core.csv_rows(*args.values())


def test_a_good_call():
    assert _call() == b"1,0.0.0.0/0,7,7,s\n"


@pytest.mark.parametrize("change, words", [
    (dict(group=np.array([1], dtype=np.int64)), "route 0"),
    (dict(status=np.array([1], dtype=np.uint8)), "route 0"),
    (dict(afi=np.array([3], dtype=np.uint8)), "route 0"),
    (dict(plen=np.array([33], dtype=np.uint8)), "route 0"),
    (dict(peer=np.array([1], dtype=np.int64)), "group 0"),
    (dict(post=np.array([-1], dtype=np.int64)), "group 0"),
    (dict(post=np.array([1], dtype=np.int64)), "group 0"),  # no such slot
    (dict(tail=np.array([5], dtype=np.int64)), "group 0"),
    (dict(usec=np.array([1, 2], dtype=np.int64)), "usec"),
    (dict(why_index=np.array([0, 0], dtype=np.int64), why=[b"a", b"b"]), "why_index: want increasing"),
    (dict(why_index=np.array([1], dtype=np.int64), why=[b"a"]), "why_index: want increasing"),
    (dict(end_index=np.array([0, 0], dtype=np.int64), end=[b"a", b"b"]), "end_index: want increasing"),
    (dict(end_index=np.array([-1], dtype=np.int64), end=[b"a"]), "end_index: want increasing"),
    (dict(why_index=np.array([0], dtype=np.int64), why=[]), "why_index"),  # a list shorter than its index
])
def test_bad_columns_are_refused(change, words):
    with pytest.raises(ValueError, match=words):
        _call(**change)


def test_lists_must_hold_bytes():
    with pytest.raises(TypeError, match="list of bytes"):
        _call(peers=[","])
    with pytest.raises(TypeError, match="PathTable"):
        _call(paths=[b","])
