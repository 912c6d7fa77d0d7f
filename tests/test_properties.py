"""Properties of converged routing on random Internet-like graphs (synthetic, from bgpsim.generate)."""

import ipaddress
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgpsim.sim.defences import DEFENCES, defence
from bgpsim.sim.engine.events import EventQueue
from bgpsim.sim.engine.steady import Seed, propagate
from bgpsim.sim.engine.timed import TimedEngine
from bgpsim.sim.engine.timing import Delay, Timing
from bgpsim.graph.generate import internet_like
from bgpsim.sim.policy import CUSTOMER, ORIGIN, PEER, PROVIDER
from bgpsim.rpki.rov import VRP, VRPTable

PREFIX = ipaddress.ip_network("10.0.0.0/16")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def scenario(n, seed, origins_count, mrai, policy, forged=False):
    """Random graph; 1-3 origins (the lowest holds the ROA); optionally the last one forges the path
    [itself, first origin]; `policy` deployed by a random 30% of the ASes."""
    topo = internet_like(n, seed)
    rnd = random.Random(seed)
    chosen = rnd.sample(range(topo.n), origins_count)
    legit = min(chosen)
    origins = {i: () for i in chosen}
    if forged and origins_count > 1:
        origins[max(chosen)] = (legit,)
    pol = None
    if policy:
        pol = defence(policy, topo, rnd.sample(range(topo.n), int(0.3 * topo.n)),
                      VRPTable([VRP(PREFIX, 16, int(topo.asns[legit]))]))
    policies = {i: pol for i in range(topo.n) if pol is not None and pol.adopter[i]}
    timing = Timing(mrai=mrai, link_delay=Delay("uniform", 0.001, 0.2), processing_delay=Delay("exponential", 0.01))
    q = EventQueue()
    engine = TimedEngine(topo, [PREFIX], timing, seed, q, policies)
    for i, path in origins.items():
        q.at(rnd.uniform(0, 5), engine.originate, i, 0, path)
    q.run()
    return topo, engine, origins, pol


def relation(topo, i, j):
    return topo.relationship(i, j)


# Every defence but one that sends no withdrawals: its neighbours keep routes it left (zombies), which
# no stable state holds (tests/test_withdrawals.py).
STABLE = [p for p, cls in DEFENCES.items() if not getattr(cls, "suppresses_withdrawals", False)]
graphs = dict(n=st.integers(5, 120), seed=st.integers(0, 10_000), origins_count=st.integers(1, 3),
              mrai=st.sampled_from([0.0, 5.0, 30.0]), policy=st.sampled_from([None, *STABLE, "rov+peerlock-lite", "aspa+bogon+maxlen", "bgpsec+otc", "prefix-list+path-end"]),
              forged=st.booleans())


@SETTINGS
@given(**graphs)
def test_timed_engine_converges_to_the_unique_stable_state(n, seed, origins_count, mrai, policy, forged):
    topo, engine, origins, pol = scenario(n, seed, origins_count, mrai, policy, forged)
    ribs = propagate(topo, PREFIX, [Seed(i, path) for i, path in origins.items()], pol)
    assert engine.loc[0] == ribs.entries()


@SETTINGS
@given(**graphs)
def test_converged_routes_are_loop_free_and_valley_free(n, seed, origins_count, mrai, policy, forged):
    topo, engine, origins, pol = scenario(n, seed, origins_count, mrai, policy, forged)
    for i, path in enumerate(engine.adv[0]):
        if path is None:
            continue
        assert len(set(path)) == len(path), f"loop in {path}"
        # Check the links the route really crossed: up to the AS that announced it (a forged
        # path goes on past it).
        path = path[:next(k for k, x in enumerate(path) if x in origins) + 1]
        # Valley-free: zero or more customer->provider hops, at most one peer hop, then only
        # provider->customer hops. Walk from the origin end toward i.
        hops = [relation(topo, path[k + 1], path[k]) for k in range(len(path) - 1)]  # what path[k] is to path[k+1]
        # hops[k] is the relationship of path[k] as seen from path[k+1] (the sender of the route to path[k]).
        phase = 0  # 0: still going up, 1: crossed a peer link or started going down
        for rel in reversed(hops):  # origin side first
            assert rel is not None, f"{path} uses a non-link"
            if rel == PROVIDER:  # path[k] is the sender's provider: the route went up
                assert phase == 0, f"valley in {path}"
            elif rel == PEER:
                assert phase == 0, f"second peer hop or peer after down in {path}"
                phase = 1
            else:
                phase = 1


@SETTINGS
@given(**graphs)
def test_converged_state_is_stable(n, seed, origins_count, mrai, policy, forged):
    """No AS would change its mind given what its neighbours export to it now."""
    topo, engine, origins, pol = scenario(n, seed, origins_count, mrai, policy, forged)
    loc = engine.loc[0]
    for i in range(topo.n):
        if i in origins:
            assert loc[i][1] == ORIGIN
            continue
        best = None
        pol = engine.policy[i]
        for j, rel in ([(c, CUSTOMER) for c in topo.customers[i]] + [(q, PEER) for q in topo.peers[i]]
                       + [(p, PROVIDER) for p in topo.providers[i]]):
            e = loc[j]
            if e is None or not (e[1] <= CUSTOMER or rel == PROVIDER):
                continue  # j exports only own and customer routes to non-customers
            path = (j,) + e[2]
            if i in path:
                continue
            pref = 0 if pol is None else pol.check(PREFIX, j, i, rel, path)
            if pref is None:
                continue
            key = (rel, 0, len(path), j) if pol is None else pol.key(rel, pref, len(path), j)
            if best is None or key < best[0]:
                best = (key, rel, path)
        assert loc[i] == best, f"AS index {i}: has {loc[i]}, best offered {best}"


@SETTINGS
@given(n=st.integers(8, 150), seed=st.integers(0, 10_000), kind=st.sampled_from(
    ["prefix", "subprefix", "forged-origin", "forged-origin-subprefix", "leak", "intercept", "first-asn-strip"]),
    policy=st.sampled_from([None, "rov", "aspa", "bgpsec"]))
def test_data_plane_follows_each_hops_most_specific_route(n, seed, kind, policy):
    """trace() against the plain definition: from each AS, hop by hop on the hop's own most specific
    route, until the attacker, the victim, another origin, no route, or 64 hops."""
    from bgpsim.sim import trial

    topo = internet_like(n, seed)
    rnd = random.Random(seed)
    a, v = rnd.sample(range(topo.n), 2)
    res = trial.run(topo, kind, a, v, policy, rnd.sample(range(topo.n), topo.n // 3))
    for x in range(topo.n):
        hop, want = x, None
        for _ in range(trial.MAX_HOPS + 1):
            if hop == a or hop == v:
                want = "attacker" if hop == a else "victim"
                break
            r = next((r for r in res.ribs if r.rel[hop] != 9), None)
            if r is None or r.nh[hop] < 0:
                want = "disconnected"
                break
            hop = int(r.nh[hop])
        assert trial.OUTCOMES[res.outcome[x]] == (want or "loop"), (x, kind)
