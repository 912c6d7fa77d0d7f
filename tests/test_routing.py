"""The routing model on small graphs whose right answers are worked out here by hand."""

import ipaddress
import math
import random

import pytest

from helpers import FAST, graph, path_asns, timed

from bgpsim.sim.dataplane import ATTACKER, VICTIM, Forwarding
from bgpsim.sim.engine.steady import Seed, propagate
from bgpsim.sim.engine.timed import TimedEngine
from bgpsim.sim.journal import Journal
from bgpsim.sim.defences import ROV
from bgpsim.rpki.rov import VRP, VRPTable

P, SUB = 0, 1  # 10.0.0.0/16 and 10.0.0.0/24 in helpers.timed


def run(topo, origins, **kw):
    """Converge a timed engine (MRAI off) with origins = {asn: path}; return (engine, queue)."""
    e, q = timed(topo, **kw)
    for asn, seed in origins.items():
        q.at(0.0, e.originate, topo.index[asn], P, tuple(topo.index[x] for x in seed))
    q.run()
    return e, q


def test_customer_route_beats_shorter_peer_route():
    # 10 -> 11 -> 12 (customers down), and 10 peers with 12 directly.
    t = graph(p2c=[(10, 11), (11, 12)], p2p=[(10, 12)])
    e, _ = run(t, {12: ()})
    assert path_asns(t, e, P, 10) == (10, 11, 12)


def test_peer_route_beats_shorter_provider_route():
    # 20 buys from 21, which has 23 as a customer: provider route 21 23 (2 hops).
    # 20 peers with 22 -> 24 -> 23: peer route 22 24 23 (3 hops) wins.
    t = graph(p2c=[(21, 20), (21, 23), (22, 24), (24, 23)], p2p=[(20, 22)])
    e, _ = run(t, {23: ()})
    assert path_asns(t, e, P, 20) == (20, 22, 24, 23)


def test_shorter_path_then_lowest_next_hop_asn():
    # 40 has customers 41 (-> 43) and 42 (-> 44 -> 43): the shorter path wins.
    # 30 has customers 32 and 31, both providers of 33: equal length, lowest next hop (31) wins.
    t = graph(p2c=[(40, 41), (40, 42), (41, 43), (42, 44), (44, 43), (30, 32), (30, 31), (31, 33), (32, 33)])
    e, _ = run(t, {43: ()})
    assert path_asns(t, e, P, 40) == (40, 41, 43)
    e, _ = run(t, {33: ()})
    assert path_asns(t, e, P, 30) == (30, 31, 33)


def test_gao_rexford_export():
    # 4 is 1's customer; 1 peers with 2; 2 peers with 3, buys from 5, sells to 6.
    # 2 learns from a peer: it tells its customer 6, but not its peer 3 nor its provider 5.
    # 7 buys from 1 and from 9, and peers with 8: a provider route goes to neither 8 nor 9.
    t = graph(p2c=[(1, 4), (5, 2), (2, 6), (1, 7), (9, 7)], p2p=[(1, 2), (2, 3), (7, 8)])
    e, _ = run(t, {4: ()})
    assert path_asns(t, e, P, 2) == (2, 1, 4)
    assert path_asns(t, e, P, 6) == (6, 2, 1, 4)
    assert path_asns(t, e, P, 7) == (7, 1, 4)
    for asn in (3, 5, 8, 9):
        assert path_asns(t, e, P, asn) is None, asn


def test_loop_is_rejected_on_import():
    # 2 claims the path 2 3 (forged): 3 must not take a path that already holds it, so 3's
    # customer 4 can only hear of the prefix through 1.
    t = graph(p2c=[(1, 2), (1, 3), (3, 4)])
    e, _ = run(t, {2: (3,)})
    assert path_asns(t, e, P, 1) == (1, 2, 3)
    assert path_asns(t, e, P, 3) is None
    assert not e.rib_in[P][t.index[3]]
    assert path_asns(t, e, P, 4) is None


def test_withdrawal_and_reconvergence_on_link_failure():
    # 1 sells to 2 and 3; both sell to 4 (the origin). 1 prefers 2 (lower ASN). When the 2-4 link
    # fails, 1 and 2 move to paths through 3; when it comes back, they return.
    t = graph(p2c=[(1, 2), (1, 3), (2, 4), (3, 4)])
    e, q = run(t, {4: ()})
    assert path_asns(t, e, P, 1) == (1, 2, 4)
    i2, i4 = t.index[2], t.index[4]
    q.at(1.0, e.link_down, i2, i4)
    q.run()
    assert path_asns(t, e, P, 1) == (1, 3, 4)
    assert path_asns(t, e, P, 2) == (2, 1, 3, 4)
    q.at(2.0, e.link_up, i2, i4)
    q.run()
    assert path_asns(t, e, P, 1) == (1, 2, 4)
    assert path_asns(t, e, P, 2) == (2, 4)
    # The origin withdraws: every route goes.
    q.at(3.0, e.withdraw, i4, P)
    q.run()
    assert all(x is None for x in e.loc[P])
    assert all(not r for r in e.rib_in[P] if r is not None)


class Sends(list):
    """Every UPDATE sent, as the engine tells its wiretap: (time, sender, receiver, path)."""

    def sent(self, now, r, j, p, val, signed):
        self.append((now, r, j, val))


def _mrai_case(mrai):
    # X (7) sells to the origin O (9) three ways: through 5 -> 6 -> 9, through 8 -> 9 (link 8-9 down
    # until t=1) and directly (link 7-9 down until t=2). Y (1) is X's provider.
    import ipaddress as ip
    from bgpsim.sim.engine.events import EventQueue
    from bgpsim.sim.engine.timing import Timing

    t = graph(p2c=[(1, 7), (7, 5), (5, 6), (6, 9), (7, 8), (8, 9), (7, 9)])
    q = EventQueue()
    e = TimedEngine(t, [ip.ip_network("10.0.0.0/16")], Timing(mrai=mrai, **FAST), 1, q)
    e.tap = e.sends = Sends()
    ix = t.index
    e.link_down(ix[8], ix[9])
    e.link_down(ix[7], ix[9])
    q.at(0.0, e.originate, ix[9], 0)
    q.at(1.0, e.link_up, ix[8], ix[9])
    q.at(2.0, e.link_up, ix[7], ix[9])
    q.run()
    x_to_y = [(round(now, 3), tuple(int(t.asns[k]) for k in val)) for now, r, j, val in e.sends if (r, j) == (ix[7], ix[1])]
    return e, x_to_y


def test_mrai_batches_announcements():
    e0, no_mrai = _mrai_case(0.0)
    e30, mrai = _mrai_case(30.0)
    # Without MRAI, X tells Y of each better path at once: three announcements.
    assert [path for _, path in no_mrai] == [(7, 5, 6, 9), (7, 8, 9), (7, 9)]
    # With MRAI, the first goes at once; the two changes inside the timer go as one, the latest, when
    # it expires (30 s x jitter 0.75..1 after the first).
    assert [path for _, path in mrai] == [(7, 5, 6, 9), (7, 9)]
    assert 0.75 * 30 <= mrai[1][0] - mrai[0][0] <= 30.0
    assert e30.messages < e0.messages
    assert e30.adv == e0.adv  # the same converged routes


def test_withdrawals_are_not_held_by_mrai():
    t = graph(p2c=[(1, 2), (2, 3)])
    e, q = timed(t, mrai=30.0, **FAST)
    i3 = t.index[3]
    q.at(0.0, e.originate, i3, P)
    q.at(1.0, e.withdraw, i3, P)
    q.run(until=2.0)  # well inside every MRAI timer
    assert all(x is None for x in e.loc[P])


def _forwarding(t, e, attacker, victim, covering=(SUB, P)):
    """The data plane toward a target in `covering`, told by the engine whenever a next hop moves."""
    f = Forwarding(e.watch_fib(list(covering)), t.index[attacker], t.index[victim], [1.0] * t.n)
    e.on_next_hop = lambda i, nh: f.update(i, nh, e.q.now)
    return f


def test_the_data_plane_after_random_moves_is_a_fresh_one():
    """Random moves of next hops, cycles and ASes without a route among them (the compiled move,
    core/dataplane.c): after each, every AS's outcome, the counts and the traffic at the attacker are
    those of a data plane built afresh from the same next hops, and each AS's change was journaled."""
    rnd = random.Random(3)
    n = 40
    weights = [rnd.random() for _ in range(n)]
    f = Forwarding([rnd.randrange(-1, n) for _ in range(n)], 0, 1, weights)
    f.journal = Journal(detailed=False)
    loops = 0
    for step in range(600):
        i = rnd.randrange(n)
        before = list(f.outcome)
        f.update(i, rnd.choice([-1, i, rnd.randrange(n), rnd.randrange(n)]), float(step))
        fresh = Forwarding(f.nh, 0, 1, weights)
        assert f.outcome == fresh.outcome and f.counts == fresh.counts, step
        assert math.isclose(f.diverted, fresh.diverted, abs_tol=1e-9)
        changed = {k for t, k, _ in f.journal.outcomes if t == float(step)}
        assert changed == {k for k in range(n) if before[k] != f.outcome[k]}
        loops += f.outcome.count(3)
    assert loops  # cycles were met
    with pytest.raises(ValueError, match="want 0 to 39"):
        f.update(n + 1, 0, 1.0)


def test_the_fib_tells_only_of_next_hops_that_move():
    # 1 sells to 2, 2 to 3, which originates P. A more-specific from 3 changes every Loc-RIB for SUB
    # but no next hop; withdrawing SUB then P leaves each AS without one, P's withdrawal alone moving them.
    t = graph(p2c=[(1, 2), (2, 3)])
    e, q = run(t, {3: ()})
    i1, i2, i3 = t.index[1], t.index[2], t.index[3]
    moved = []
    nhs = e.watch_fib([SUB, P])
    e.on_next_hop = lambda i, nh: moved.append((i, nh))
    assert (nhs[i1], nhs[i2], nhs[i3]) == (i2, i3, i3)
    q.at(1.0, e.originate, i3, SUB)
    q.run()
    assert path_asns(t, e, SUB, 1) == (1, 2, 3) and moved == []
    q.at(q.now + 1, e.withdraw, i3, SUB)
    q.run()
    assert path_asns(t, e, SUB, 1) is None and moved == []
    q.at(q.now + 1, e.withdraw, i3, P)
    q.run()
    assert sorted(moved) == sorted([(i1, -1), (i2, -1), (i3, -1)])
    with pytest.raises(RuntimeError, match="watched already"):
        e.watch_fib([P])


def test_the_fib_wants_prefixes_the_engine_has():
    t = graph(p2c=[(1, 2)])
    e, _ = run(t, {2: ()})
    with pytest.raises(IndexError, match="no prefix with index 9"):
        e.watch_fib([P, 9])
    assert e.watch_fib([P]) == [t.index[2], t.index[2]]


def test_exact_prefix_hijack_splits_the_graph():
    # Tier-1s 1 and 2 peer. 1 sells to 3 and 4, 2 sells to 5. Victim 6 buys from 3, attacker 7 from 5.
    # 1 prefers its customer route 3 6 over the peer route 2 5 7; 2 prefers its customer route.
    t = graph(p2c=[(1, 3), (1, 4), (2, 5), (3, 6), (5, 7)], p2p=[(1, 2)])
    e, _ = run(t, {6: (), 7: ()})
    f = _forwarding(t, e, 7, 6, covering=(P,))
    got = {int(t.asns[i]): f.outcome[i] for i in range(t.n)}
    assert got == {1: VICTIM, 2: ATTACKER, 3: VICTIM, 4: VICTIM, 5: ATTACKER, 6: VICTIM, 7: ATTACKER}


def test_subprefix_wins_in_the_data_plane_and_timeline_is_incremental():
    t = graph(p2c=[(1, 3), (1, 4), (2, 5), (3, 6), (5, 7)], p2p=[(1, 2)])
    e, q = timed(t, **FAST)
    i6, i7 = t.index[6], t.index[7]
    e.originate(i6, P)
    q.run()
    f = _forwarding(t, e, 7, 6)
    f.start(q.now)
    assert f.counts == [0, 5, 0, 0]
    q.at(5.0, e.originate, i7, SUB)
    q.run()
    # Everyone has both routes now; longest match sends all traffic to the attacker, even 3,
    # a direct provider of the victim.
    assert path_asns(t, e, P, 3) == (3, 6)
    assert path_asns(t, e, SUB, 3) == (3, 1, 2, 5, 7)
    assert f.counts == [5, 0, 0, 0]
    # One timeline row per change of the counts, each a step of one AS or of a whole in-tree.
    assert f.timeline[0][1:3] == (0.0, 1.0)
    assert f.timeline[-1][1:3] == (1.0, 0.0)
    fracs = [row[1] for row in f.timeline]
    assert fracs == sorted(fracs) and len(set(fracs)) == len(fracs)


def test_route_leak_spreads_where_valley_free_is_broken():
    # T sells to P1 and P2. P1 sells to the victim V and to L; P2 sells to L and S and peers with Q.
    # Before the leak, P2 reaches V through its provider T; Q hears nothing (P2 may not tell a peer a
    # provider route). L leaks its provider route (P1 V) to P2: to P2 it is a customer route, preferred;
    # P2 now tells its peer Q and its customer S. T keeps its shorter customer route through P1.
    T, P1, P2, V, L, S, Q = 10, 11, 12, 13, 14, 15, 16
    t = graph(p2c=[(T, P1), (T, P2), (P1, V), (P1, L), (P2, L), (P2, S)], p2p=[(P2, Q)])
    e, q = timed(t, **FAST)
    e.originate(t.index[V], P)
    q.run()
    assert path_asns(t, e, P, P2) == (P2, T, P1, V)
    assert path_asns(t, e, P, Q) is None
    f = _forwarding(t, e, L, V, covering=(P,))
    q.at(1.0, e.start_leak, t.index[L])
    q.run()
    assert path_asns(t, e, P, P2) == (P2, L, P1, V)
    assert path_asns(t, e, P, S) == (S, P2, L, P1, V)
    assert path_asns(t, e, P, Q) == (Q, P2, L, P1, V)
    assert path_asns(t, e, P, T) == (T, P1, V)
    leaked = {int(t.asns[i]) for i in range(t.n) if f.outcome[i] == ATTACKER} - {L}
    assert leaked == {P2, S, Q}


def test_rov_drops_invalid_origin_and_keeps_valid():
    # 1 sells to 2 and 3; 2 sells to the victim 4, 3 to the attacker 5, who originates the victim's
    # prefix. 1 prefers 2 4 by ASN anyway, so make the attacker look better: 3 is the lower... use ROV on 6,
    # which buys from both 2 and 3's... simpler: 6 buys from 3 only and from 2 only through 1.
    t = graph(p2c=[(1, 2), (1, 3), (2, 4), (3, 5), (3, 6)])
    vrps = VRPTable([VRP(ipaddress.ip_network("10.0.0.0/16"), 16, 4)])
    rov = ROV(t, [t.index[3]], vrps)
    # Without ROV, 6 takes its provider 3's customer route to the attacker.
    e, _ = run(t, {4: (), 5: ()})
    assert path_asns(t, e, P, 6) == (6, 3, 5)
    # With ROV at 3, 3 drops the invalid route and takes 1's route to the victim, and so does 6.
    e, _ = run(t, {4: (), 5: ()}, policies={t.index[3]: rov})
    assert path_asns(t, e, P, 3) == (3, 1, 2, 4)
    assert path_asns(t, e, P, 6) == (6, 3, 1, 2, 4)
    # The converged-state solver, asked the same, agrees.
    ribs = propagate(t, ipaddress.ip_network("10.0.0.0/16"), [Seed(t.index[4]), Seed(t.index[5])], rov)
    assert ribs.entries() == e.loc[P]


def test_local_pref_set_on_a_session_ranks_its_routes(tmp_path, capsys):
    """RFC 4271 section 9.1.1: the highest LOCAL_PREF wins before the path length. 3 is a customer of 1
    and 2 and the provider of 777. Its routes to 777: [777] from its customer (LOCAL_PREF 300 by the
    relationship) and [1 777], [2 777] from its providers (100 each; 1 wins the tie, the lower ASN).
    4, a customer of 1 and 2, hears [1 777] and [2 777] too. With LOCAL_PREF 50 on 3's session with
    777, 3 prefers a provider's route; with 150 on 4's session with 2, 4 takes 2's."""
    from bgpsim.cli import main

    (tmp_path / "topo.toml").write_text('name = "lp"\n' + "".join(
        f"[[as]]\nasn = {a}\ncustomers = {cs}\n" for a, cs in ((1, [3, 4, 777]), (2, [3, 4, 777]), (3, [777]), (4, []), (777, []))))
    base = 'name = "lp"\ntopology = "topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
    sessions = ('[[session]]\nasn = 3\nneighbour = 777\nlocal_pref = 50\n'
                '[[session]]\nasn = 4\nneighbour = 2\nlocal_pref = 150\n')

    def paths(name, text):
        (tmp_path / f"{name}.toml").write_text(text)
        assert main(["run", str(tmp_path / f"{name}.toml"), "--out", str(tmp_path / name), "--quiet", "--no-figures"]) == 0
        rows = (tmp_path / name / "ases.csv").read_text().splitlines()[1:]
        return {r.split(",")[0]: r.split(",")[7] for r in rows}

    plain = paths("plain", base)
    assert plain["3"] == "3 777" and plain["4"] == "4 1 777"
    set_ = paths("set", base + sessions)
    assert set_["3"] == "3 1 777" and set_["4"] == "4 2 777"
    (tmp_path / "attacked.toml").write_text(base + sessions + '[attack]\nkind = "prefix"\nattacker = 4\n')
    capsys.readouterr()
    assert main(["run", str(tmp_path / "attacked.toml"), "--engine", "steady", "--out", str(tmp_path / "s"), "--quiet"]) == 2
    assert "sessions (LOCAL_PREF, prepending) needs the timed engine" in capsys.readouterr().err


@pytest.mark.parametrize("community", ["no-export", "no-advertise"])
def test_no_export_keeps_the_victims_answer_to_its_neighbours(tmp_path, community):
    """RFC 1997 NO_EXPORT on the victim's more-specifics: 777's provider 4 keeps them to itself (and so
    with NO_ADVERTISE: an AS is one node here, so the two scopes are the same). A chain
    1 > 2 > 4 > 777 and 1 > 3 > 666; 666 hijacks 192.0.2.0/25 at t = 10 and 777 answers with the two /26s
    at t = 100. Untagged, every AS takes the /26s back to 777; tagged, only 4 does (and 777 itself): 1, 2
    and 3 never hear them and keep following the /25 to 666."""
    from bgpsim.cli import main

    (tmp_path / "topo.toml").write_text('name = "chain"\n' + "".join(
        f"[[as]]\nasn = {a}\ncustomers = {cs}\n" for a, cs in ((1, [2, 3]), (2, [4]), (3, [666]), (4, [777]), (666, []), (777, []))))
    base = ('name = "ne"\ntopology = "topo.toml"\n[victim]\nasn = 777\nprefixes = ["192.0.2.0/24"]\n'
            '[attack]\nkind = "subprefix"\nattacker = 666\nstart = 10.0\nprefix = "192.0.2.0/25"\n'
            '[mitigation]\nstart = 100.0\n')

    def outcomes(name, text):
        (tmp_path / f"{name}.toml").write_text(text)
        assert main(["run", str(tmp_path / f"{name}.toml"), "--out", str(tmp_path / name), "--quiet", "--no-figures"]) == 0
        return {r.split(",")[0]: r.split(",")[3] for r in (tmp_path / name / "ases.csv").read_text().splitlines()[1:]}

    o = outcomes("plain", base)
    assert {o[a] for a in ("1", "2", "3", "4", "777")} == {"victim"}  # (the attacker counts as itself)
    o = outcomes("tagged", base + f"community = \"{community}\"\n")
    assert (o["4"], o["777"]) == ("victim", "victim")
    assert (o["1"], o["2"], o["3"]) == ("attacker",) * 3
