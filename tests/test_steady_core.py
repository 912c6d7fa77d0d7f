"""The converged-state solver's compiled sweeps (core/steady.c) against its array path: a policy that
reads what each route carries runs on numpy arrays, batch by batch; the standard model and ROV-like
policies (a mask per sweep) run compiled. Made to take the array path, the same model must give the
same Loc-RIBs, AS for AS, on synthetic Internet-like graphs."""

from __future__ import annotations

import ipaddress
import random

import numpy as np
import pytest

from bgpsim import _core
from bgpsim.graph.generate import internet_like
from bgpsim.rpki.rov import VRP, VRPTable
from bgpsim.sim import trial
from bgpsim.sim.defences import DEFENCES, defence
from bgpsim.sim.defences.rov import ROV
from bgpsim.sim.engine.steady import NONE, Seed, plan_for, propagate
from bgpsim.sim.policy import Policy

PREFIX = ipaddress.ip_network("1.2.0.0/16")


class Plain(Policy):
    """The standard model, but not known to be: the solver asks it of every offer (array path)."""

    honest_inert = False


class SlowROV(ROV):
    """ROV, its verdict asked of every offer instead of set as a mask (array path)."""

    path_constant = False
    honest_inert = False


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("rel", "nh", "length", "seed"))


@pytest.mark.parametrize("n,seed", [(80, 1), (600, 2), (3000, 3)])
def test_compiled_sweeps_equal_the_array_path(n, seed):
    topo = internet_like(n, seed=seed)
    rnd = random.Random(seed)
    everyone = np.arange(topo.n)
    checked = 0
    for _ in range(12):
        seeds = [Seed(a) for a in rnd.sample(range(topo.n), rnd.choice([1, 2, 3]))]
        compiled = propagate(topo, PREFIX, seeds)
        arrays = propagate(topo, PREFIX, seeds, Plain(topo, everyone))
        assert same(compiled, arrays)
        # ROV at a random share: the origins all invalid but the first, so the mask holds
        vrps = VRPTable([VRP(PREFIX, 16, int(topo.asns[seeds[0].at]))])
        adopters = rnd.sample(range(topo.n), rnd.randrange(topo.n))
        compiled = propagate(topo, PREFIX, seeds[1:] or seeds, ROV(topo, adopters, vrps))
        arrays = propagate(topo, PREFIX, seeds[1:] or seeds, SlowROV(topo, adopters, vrps))
        assert same(compiled, arrays)
        checked += int((compiled.rel != NONE).sum())
        # a forged path (the attacker claims a link to the first seed's AS), or one stripped of the
        # attacker: the ASes on a seed's announced path refuse its routes (the loop check), a mask each
        first, *others = seeds
        forged = [first] + [Seed(s.at, (first.at,), strip=bool(k % 2)) for k, s in enumerate(others)] if others else \
            [Seed(first.at, tuple(rnd.sample(range(topo.n), 2)))]
        forged = [s for s in forged if s.at not in s.path]
        assert same(propagate(topo, PREFIX, forged), propagate(topo, PREFIX, forged, Plain(topo, everyone)))
        compiled = propagate(topo, PREFIX, forged, ROV(topo, adopters, vrps))
        assert same(compiled, propagate(topo, PREFIX, forged, SlowROV(topo, adopters, vrps)))
        assert np.array_equal(compiled.attrs["invalid"], propagate(topo, PREFIX, forged, SlowROV(topo, adopters, vrps)).attrs["invalid"])
    assert checked > 0


def test_a_trial_traced_on_the_compiled_walks_agrees_with_a_walk_by_hand():
    """Every AS's outcome is where its packets end, following its own most specific route hop by hop."""
    topo = internet_like(400, seed=5)
    rnd = random.Random(5)
    for _ in range(10):
        a, v = rnd.sample(range(topo.n), 2)
        res = trial.run(topo, "subprefix", a, v, "rov", rnd.sample(range(topo.n), 100))
        for i in range(topo.n):
            if i in (a, v):
                continue
            at, hops = i, 0
            while True:
                rib = next((r for r in res.ribs if r.rel[at] != NONE), None)
                if rib is None or at in (a, v) or rib.nh[at] < 0 or hops > trial.MAX_HOPS:
                    break
                at, hops = int(rib.nh[at]), hops + 1
            want = "loop" if hops > trial.MAX_HOPS else {a: "attacker", v: "victim"}.get(at, "disconnected")
            assert trial.OUTCOMES[res.outcome[i]] == want, (a, v, i)


def test_a_bad_route_in_the_walks_is_a_value_error_not_a_crash():
    """Each next hop and seed the walks use is checked as it is used: on the first prefix's quick path
    (every AS takes its route's origin), and on the walks hop by hop."""
    topo = internet_like(200, seed=3)
    res = trial.run(topo, "subprefix", 5, 9, "rov", list(range(0, 200, 3)))
    sub, wide = res.ribs

    def walk(rib, first, out=None, **bad):
        arrays = {k: getattr(rib, k).copy() for k in ("rel", "nh", "seed")}
        for k, (i, x) in bad.items():
            arrays[k][i] = x
        role = np.asarray([0 if s.at == 5 else 1 if s.at == 9 else 2 for s in rib.seeds], dtype=np.int8)
        out = np.full(topo.n, -1, np.int8) if out is None else out.copy()
        _core.steady_trace(out, arrays["rel"], arrays["nh"], arrays["seed"], role,
                           np.asarray([s.at for s in rib.seeds], dtype=np.int64), None, first, 64, 5, 9)
        return out

    routed = [int(i) for i in np.flatnonzero((sub.rel != NONE) & (sub.nh >= 0))]
    after_first = walk(sub, True)
    assert np.array_equal(after_first[routed], np.zeros(len(routed)))  # the attacker's, every one
    i = routed[len(routed) // 2]
    for x in (len(sub.seeds), -1, -7):  # the quick path reads every routed AS's seed
        with pytest.raises(ValueError, match=f"AS {i}: next hop .* out of range"):
            walk(sub, True, seed=(i, x))
    left = [int(i) for i in np.flatnonzero((wide.rel != NONE) & (wide.nh >= 0) & (after_first < 0))]
    for rib, out, origin, j in ((sub, None, 5, i), (wide, after_first, 9, left[len(left) // 2])):
        for x in (topo.n + 5, -3):  # a walk follows the next hops of the ASes it walks
            with pytest.raises(ValueError, match=f"AS {j}: next hop .* out of range"):
                walk(rib, False, out, nh=(j, x))
        for x in (len(rib.seeds), -1):  # and reads the seed where it ends
            with pytest.raises(ValueError, match=f"AS {origin}: next hop .* out of range"):
                walk(rib, False, out, seed=(origin, x))
        assert walk(rib, False, out, seed=(j, len(rib.seeds)))[j] >= 0  # a seed not read: the walk's own


def test_a_bad_plan_is_a_value_error_not_a_crash():
    topo = internet_like(50, seed=1)
    qs, q, ps, p, *rest = plan_for(topo).core
    n = topo.n

    def sweep(qs=qs, q=q, ps=ps, p=p, blocked=None, *bit):
        rel, length = np.full(n, 0, np.int8), np.ones(n, np.int64)  # every AS an origin offers to its providers
        _core.steady_sweeps(qs, q, ps, p, *rest, rel, np.full(n, -1, np.int64), length, np.zeros(n, np.int64),
                            np.arange(n, dtype=np.int32), blocked, *bit)

    sweep()
    bad = p.copy()
    bad[0] = n + 5
    with pytest.raises(ValueError, match="out of range"):
        sweep(p=bad)
    starts = ps.copy()
    starts[3] = -7
    with pytest.raises(ValueError, match="out of range"):
        sweep(ps=starts)
    with pytest.raises(ValueError, match="want a one-dimensional array"):
        sweep(q=q.astype(np.int64))
    # the masks per kind of seed and the path's bit, malformed: errors that say what was wanted
    m = np.zeros(n, np.uint8)
    sweep(q=q, blocked=((m, m, m), np.zeros(n, np.int32)))
    with pytest.raises(ValueError, match="kind: seed 0 has kind 1, want 0 to 0"):
        sweep(q=q, blocked=((m, m, m), np.ones(n, np.int32)))
    with pytest.raises(TypeError, match="three masks per kind"):
        sweep(q=q, blocked=((m, m), np.zeros(n, np.int32)))
    with pytest.raises(ValueError, match="blocked: want a one-dimensional array"):
        sweep(q=q, blocked=((m, m, m[:-1]), np.zeros(n, np.int32)))
    with pytest.raises(TypeError, match="bit: want None or"):
        sweep(qs, q, ps, p, None, (m, m))
    with pytest.raises(ValueError, match="bit: want a one-dimensional array"):
        sweep(qs, q, ps, p, None, (m, m[:-1], m, (None, None, None), None))


def test_descendants_count_the_ases_routing_through_each():
    """Transit centrality toward one origin: AS 1 carries AS 2's route, AS 4 carries 5's and 6's; the
    origin (0, announcing a path of two ASes) counts for nothing, nor does AS 3 (no route)."""
    nh = np.array([-1, 0, 1, -1, 0, 4, 4], dtype=np.int64)
    length = np.array([2, 3, 4, 0, 3, 4, 4], dtype=np.int64)
    desc = np.full(7, -9, dtype=np.int64)
    _core.steady_descendants(nh, length, 0, desc)
    assert desc.tolist() == [0, 1, 0, 0, 2, 0, 0]
    with pytest.raises(ValueError, match="AS 2: next hop 9"):
        _core.steady_descendants(np.array([-1, 0, 9], dtype=np.int64), np.array([1, 2, 3], dtype=np.int64), 0,
                                 np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="origin 7"):
        _core.steady_descendants(nh, length, 5 + 2, desc)


NO_ROV_STATE = sorted(name for name, cls in DEFENCES.items()
                      if cls.honest_inert and not (cls.checks_roas or cls.includes_rov))


@pytest.mark.parametrize("name", NO_ROV_STATE)
def test_a_policy_that_reads_no_rov_state_is_skipped_only_where_it_changes_nothing(name):
    """A policy that neither checks ROAs nor includes ROV does not find an RPKI-invalid origin's own
    announcement `flagged`, so the solver skips its rules there (the compiled sweeps, as for a valid
    origin): what every offer asked of its rules gives must be the same."""
    topo = internet_like(600, seed=7)
    rnd = random.Random(7)
    vrps = VRPTable([VRP(PREFIX, 16, 4_200_000_000)])  # no AS of the graph: every origin invalid
    for _ in range(6):
        seeds = [Seed(a) for a in rnd.sample(range(topo.n), rnd.choice([1, 2]))]
        adopters = rnd.sample(range(topo.n), rnd.randrange(1, topo.n))
        skipped = defence(name, topo, adopters, vrps)
        assert skipped.invalid(PREFIX, seeds[0].at) == 1  # flagged, if at all, for its own rules only:
        assert skipped.flagged(PREFIX, seeds[0].at) == defence(name, topo, adopters).flagged(PREFIX, seeds[0].at)
        asked = defence(name, topo, adopters, vrps)
        asked.honest_inert = False  # every offer put to its rules (the array path)
        assert same(propagate(topo, PREFIX, seeds, skipped), propagate(topo, PREFIX, seeds, asked)), name


ROV_STATE = sorted([name for name, cls in DEFENCES.items() if cls.honest_inert and (cls.checks_roas or cls.includes_rov)]
                   + ["rov+otc", "rov+aspa-alone", "peer-rov+enforce-first-as", "maxlen+path-end", "rov-deprefer+otc"])
# the policies that one bit of the path keeps from being inert (BGPsec's `secure`, Peerlock's `tier1`)
PATH_BIT = ["bgpsec", "bgpsec-alone", "peerlock-lite", "rov+peerlock-lite", "bgpsec-alone+aspa-alone",
            "peerlock-lite+otc", "prefix-list", "rov+prefix-list", "prefix-list+aspa"]


def slow(policy):
    """`policy`, every offer put to its rules (the array path)."""
    for p in [policy, *getattr(policy, "parts", ())]:
        p.honest_inert = p.path_constant = False
        p.path_bit = lambda prefix: None
    return policy


def tiers(policy, tier1):
    """`policy`, the ASes `tier1` made tier-1 for its Peerlock part, if any."""
    for p in [policy, *getattr(policy, "parts", ())]:
        if hasattr(p, "tier1"):
            p.tier1[tier1] = True
    return policy


@pytest.mark.parametrize("name", ROV_STATE + PATH_BIT)
def test_a_policy_on_valid_and_invalid_origins_is_a_mask_per_seed(name):
    """An origin announcing itself, valid or not: a policy that reads the ROV state but nothing else
    such a route can fail (ROV, and ASPA, path-end, BGP-iSec... which include it) refuses all of one
    seed's routes or none, so the compiled sweeps check each offer against its seed's mask; those that
    read one bit of the path besides (BGPsec, Peerlock) have the sweeps carry it. What every offer put
    to its rules gives must be the same, preferences and that bit too, on random graphs where each
    origin is valid or invalid at random."""
    topo = internet_like(600, seed=11)
    rnd = random.Random(name)
    compiled = 0
    for _ in range(8):
        ats = rnd.sample(range(topo.n), rnd.choice([2, 3]))
        valid = [a for a in ats if rnd.random() < 0.5] or ats[:1]
        vrps = VRPTable([VRP(PREFIX, 16, int(topo.asns[a])) for a in valid])
        seeds = [Seed(a) for a in ats]
        adopters = rnd.sample(range(topo.n), rnd.randrange(1, topo.n))
        tier1 = rnd.sample(range(topo.n), topo.n // 10)  # Peerlock's, many with providers of their own
        fast = propagate(topo, PREFIX, seeds, tiers(defence(name, topo, adopters, vrps), tier1))
        asked = propagate(topo, PREFIX, seeds, slow(tiers(defence(name, topo, adopters, vrps), tier1)))
        assert same(fast, asked), name
        assert np.array_equal(fast.pref, asked.pref), name
        mixed = len(valid) < len(ats)  # then the policy is asked, and the ROV state carried
        assert not mixed or np.array_equal(fast.attrs["invalid"], asked.attrs["invalid"]), name
        for k in {"secure", "tier1", "unlisted"} & fast.attrs.keys():
            assert np.array_equal(fast.attrs[k], asked.attrs[k]), (name, k)
        compiled += (mixed or name in PATH_BIT) and not fast.attrs.keys() - {"invalid", "long", "secure", "tier1", "unlisted"}
    if name not in ("rov-deprefer", "rov-deprefer+otc"):
        assert compiled, f"{name}: never on the compiled sweeps"
