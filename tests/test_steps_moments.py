"""A large run's step view, moment by moment (core/moments.c `journal_moments`): held to the plain
definition on random journals (synthetic), and refusing indices out of range."""

from __future__ import annotations

import numpy as np
import pytest

from bgpsim import _core

OUTCOMES = 4


def by_definition(who, what, ends, tier, weight, out, top):
    """Each moment: every AS's last change applied; ASes per (tier, outcome); the traffic each tier
    sends to the attacker (outcome 0), summed in index order as numpy's bincount sums it, again only
    where an AS moved to or from the attacker; the top ASes' outcomes."""
    out = out.copy()
    counts, traffic, tops, row, e = [], [], [], None, 0
    for m, end in enumerate(ends):
        last = {}
        for i, c in zip(who[e:end].tolist(), what[e:end].tolist()):
            last[i] = c
        moved = any((out[i] == 0) != (c == 0) for i, c in last.items())
        for i, c in last.items():
            out[i] = c
        e = end
        counts.append(np.bincount(tier.astype(np.int64) * OUTCOMES + out, minlength=3 * OUTCOMES).tolist())
        if moved or m == 0:
            hit = out == 0
            row = np.bincount(tier[hit], weights=weight[hit], minlength=3).tolist()
        traffic.append(row)
        tops.append(out[top].tolist())
    return counts, traffic, tops, out


def compiled(who, what, ends, tier, weight, out, top):
    out = out.copy()
    k = len(ends)
    counts, traffic = np.empty((k, 3 * OUTCOMES), dtype=np.int64), np.empty((k, 3))
    fresh, tops = np.empty(k, dtype=np.uint8), np.empty((k, len(top)), dtype=np.int8)
    _core.journal_moments(who, what, ends, tier, weight, out, top, OUTCOMES, counts.reshape(-1), traffic.reshape(-1),
                          fresh, tops.reshape(-1))
    return counts.tolist(), traffic.tolist(), tops.tolist(), out


@pytest.mark.parametrize("seed", range(8))
def test_random_journals_as_defined(seed):
    rng = np.random.default_rng(seed)
    n, events = int(rng.integers(1, 300)), int(rng.integers(0, 2000))
    tier = rng.integers(0, 3, n).astype(np.int8)
    weight = rng.random(n) * rng.choice([1.0, 1e-3, 1e6], n)  # sums whose order shows in the last bits
    out = rng.integers(0, OUTCOMES, n).astype(np.int8)
    who = rng.integers(0, n, events).astype(np.int64)
    what = rng.choice(OUTCOMES, events, p=[0.5, 0.3, 0.1, 0.1]).astype(np.int8)
    ends = np.sort(rng.integers(0, events + 1, int(rng.integers(1, 60)))).astype(np.int64)
    top = rng.integers(0, n, min(n, 5)).astype(np.int64)
    want, got = by_definition(who, what, ends, tier, weight, out, top), compiled(who, what, ends, tier, weight, out, top)
    assert got[0] == want[0] and got[1] == want[1] and got[2] == want[2] and np.array_equal(got[3], want[3])


def test_indices_out_of_range_are_refused():
    tier, weight, out = np.zeros(3, np.int8), np.ones(3), np.zeros(3, np.int8)
    good = dict(who=np.array([0, 2]), what=np.array([1, 0], np.int8), ends=np.array([1, 2]), top=np.array([1]))
    assert compiled(good["who"], good["what"], good["ends"], tier, weight, out, good["top"])[0][-1][:2] == [2, 1]  # AS 0 went to 1, AS 2 back to 0
    for key, bad, words in (("who", np.array([0, 3]), "event 1: AS 3"), ("what", np.array([1, 4], np.int8), "outcome 4"),
                            ("ends", np.array([2, 1]), "moment 1 ends at event 1"), ("top", np.array([-1]), "top AS -1")):
        args = {**good, key: bad}
        with pytest.raises(ValueError, match=words):
            compiled(args["who"], args["what"], args["ends"], tier, weight, out, args["top"])
