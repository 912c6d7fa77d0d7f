"""Each attack kind on the bundled teaching topology, with what must hold for it."""

import ipaddress

import pytest
from helpers import ROOT

from bgpsim.sim.plan import resolve
from bgpsim.sim.run import simulate
from bgpsim.sim.engine.timing import Timing
from bgpsim.sim.attacks import attack
from bgpsim.sim.result import Interception
from bgpsim.sim.scenario import Defence, Mitigation, Scenario
from bgpsim.rpki.rov import VRP

TEACHING = str(ROOT / "scenarios" / "topologies" / "teaching.toml")
VIDEOTUBE, ROGUE, KEYSTONE = 64510, 64511, 65537
PFX = ipaddress.ip_network("198.51.100.0/24")
ADOPTERS = [64496, 64497, 64498, 64501, 64503]


def run(kind, attacker=ROGUE, defence=None, **kw):
    scn = Scenario(name=kind, topology=TEACHING, victim=VIDEOTUBE, prefixes=[PFX],
                   attack=attack(kind, attacker=attacker, start=10.0, stop=kw.pop("stop", None)), **kw)
    if defence:
        scn.defence = Defence("rov", adopters=ADOPTERS)
        scn.roas = [VRP(PFX, 24, VIDEOTUBE)]
    return simulate(resolve(scn))


def test_squat_takes_space_nobody_announced():
    r = run("squat")
    first, last = r.timeline[0], r.timeline[-1]
    assert first[1:5] == (0.0, 0.0, 1.0, 0.0)  # before: no route anywhere
    assert last[1:5] == (1.0, 0.0, 0.0, 0.0)  # after: everyone reaches the squatter


def test_rov_stops_some_of_a_prefix_hijack_but_not_a_forged_origin():
    plain, rov = run("prefix"), run("prefix", defence=True)
    assert 0 < rov.outcome.attacker < plain.outcome.attacker
    forged, forged_rov = run("forged-origin"), run("forged-origin", defence=True)
    assert forged_rov.outcome == forged.outcome and forged.outcome.attacker > 0


def test_forged_origin_path_and_subprefix():
    r = run("forged-origin-subprefix")
    assert r.scenario.attack.prefixes == ["198.51.100.0/25"]
    assert r.outcome.attacker == 1.0
    paths = {row.asn: row.path.split() for row in r.ases}
    # Every path to the /25 ends "... 64511 64510": the attacker claims to be VideoTube's neighbour.
    assert all(p[-2:] == ["64511", "64510"] for asn, p in paths.items() if asn not in (ROGUE, VIDEOTUBE))


def test_interception_keeps_or_loses_its_way_to_the_victim():
    ok = run("intercept", attacker=64504)  # Lighthouse IP keeps Atlas, whose customer route holds
    assert ok.interception.delivered and ok.interception.route_to_victim.startswith("64504 64496")
    assert ok.outcome.attacker > 0.5
    # Highland Regional keeps Redwood, but Redwood then prefers the forged route it hears from its peer
    # Fjord over its provider route, and hands Highland back its own path: the interception blackholes.
    bad = run("intercept", attacker=64508)
    assert bad.interception == Interception(route_to_victim=None, delivered=False)


def test_leak_spreads_then_heals():
    r = run("leak", attacker=KEYSTONE, stop=200.0)
    before, peak, end = r.timeline[0], r.peak, r.outcome
    assert peak.attacker > before[1]  # the leak pulls traffic through Keystone Steel
    assert end.attacker == pytest.approx(before[1])  # fixing the filter restores the old routes
    assert peak.at > 10.0
    # Fixing the leak withdraws routes the leaker's providers had adopted: for a moment some ASes
    # have nothing (transient blackholing), until the legitimate routes come back.
    assert max(row[3] for row in r.timeline) > 0


def test_mitigation_with_more_specifics_wins_back_a_prefix_hijack():
    r = run("prefix", mitigation=Mitigation(start=100.0))
    assert r.scenario.mitigation.prefixes == ["198.51.100.0/25", "198.51.100.128/25"]
    assert r.peak.attacker > 0 and r.outcome.victim == 1.0


def test_ipv6_subprefix(tmp_path):
    scn = Scenario(name="v6", topology=TEACHING, victim=VIDEOTUBE, prefixes=[ipaddress.ip_network("2001:db8::/32")],
                   attack=attack("subprefix", attacker=ROGUE))
    r = simulate(resolve(scn))
    assert r.scenario.attack.prefixes == ["2001:db8::/48"] and r.scenario.target == "2001:db8::1"
    assert r.outcome.attacker == 1.0


def test_mrai_withdrawals_option_holds_withdrawals():
    # A sub-prefix hijack from t = 10 s, withdrawn at t = 12 s: announcements started MRAI timers.
    fast = run("subprefix", stop=12.0)
    assert 12 < fast.converged_at < 13  # withdrawals go at once
    held = run("subprefix", stop=12.0, timing=Timing(mrai_withdrawals=True))
    assert held.converged_at > 10 + 0.75 * 30  # they wait for the timers started at t = 10 s
    assert held.outcome == fast.outcome


@pytest.mark.parametrize("engine", ["timed", "steady"])
def test_a_leak_via_one_neighbour_and_an_optimizers_more_specific(tmp_path, engine):
    """6 and 8 are customers of 3, 6 of 2 too; 777 peers with 3 and is a customer of 4, itself a
    customer of 2. 6's best route is [3 777] (shorter than [2 4 777]). A plain leak offers 2 [6 3 777],
    which loses to 2's own customer route [4 777]: nobody goes to 6. Leaking what 2 sends it (`via =
    2`), 6 offers 3 [6 2 4 777], a customer's route, which 3 prefers to its peering with 777: 3 and its
    customer 8 go to 6. With `prefix`, 2 sends 6 alone the /25 (as a BGP optimizer does) and 6 leaks it:
    the only route to the /25, so the same ASes take it; 4 never hears it."""
    from bgpsim.cli import main

    (tmp_path / "t.toml").write_text('name = "leaky"\n' + "".join(
        f"[[as]]\nasn = {a}\ncustomers = {cs}\n" + (f"peers = {ps}\n" if ps else "")
        for a, cs, ps in ((2, [4, 6], []), (3, [6, 8], [777]), (4, [777], []), (6, [], []), (8, [], []),
                          (777, [], [3]))))
    base = ('name = "{name}"\ntopology = "t.toml"\n[victim]\nasn = 777\nprefixes = ["10.0.0.0/24"]\n'
            '[attack]\nkind = "leak"\nattacker = 6\n')

    def outcomes(name, extra):
        (tmp_path / f"{name}.toml").write_text(base.format(name=name) + extra)
        assert main(["run", str(tmp_path / f"{name}.toml"), "--engine", engine, "--out", str(tmp_path / name),
                     "--quiet", "--no-figures"]) == 0
        rows = (tmp_path / name / "ases.csv").read_text().splitlines()[1:]
        return {r.split(",")[0]: r.split(",")[3] for r in rows if r.split(",")[0] in ("3", "4", "8")}

    assert outcomes("plain", "") == {"3": "victim", "4": "victim", "8": "victim"}
    assert outcomes("via", "via = 2\n") == {"3": "attacker", "4": "victim", "8": "attacker"}
    assert outcomes("optimized", 'via = 2\nprefix = "10.0.0.0/25"\n') == {"3": "attacker", "4": "victim", "8": "attacker"}


def on_graph(tmp_path, graph: str, engine: str, kind: str, defence: Defence | None):
    """The attack of `kind` by AS666 on AS777's 1.2.0.0/16 on a small CAIDA graph, on either engine."""
    from bgpsim.sim.converged import converged

    (tmp_path / "g.txt").write_text(graph)
    scn = Scenario(name=kind, topology=str(tmp_path / "g.txt"), victim=777, prefixes=[ipaddress.ip_network("1.2.0.0/16")],
                   attack=attack(kind, attacker=666), defence=defence)
    return (simulate if engine == "timed" else converged)(resolve(scn))


# ---- the superprefix attacks, worked by hand on both engines -----------------------------------------
# 100 is the provider of the attacker 666, the victim 777, 200 and 400; 200 (the only ROV adopter) of
# 201 and 300; 400 of 300 too. 100 takes the attacker's /16 over the victim's (same length, the lower
# neighbour ASN), so 200 has no valid /16 to take when it drops the invalid one. BGPy 13.0.13 gives
# the same outcomes on this graph (docs/research/bgpy-13-policies.md, section 8).
G1 = "100|666|-1\n100|777|-1\n100|200|-1\n100|400|-1\n200|300|-1\n200|201|-1\n400|300|-1\n"
SUPER = {  # kind -> {AS: (outcome, prefix of its route, path)}
    "superprefix-prefix": {  # 200 drops the /16 and follows the /8 that no ROA covers
        200: ("attacker", "1.0.0.0/8", "200 100 666"), 201: ("attacker", "1.0.0.0/8", "201 200 100 666"),
        300: ("attacker", "1.2.0.0/16", "300 400 100 666"), 400: ("attacker", "1.2.0.0/16", "400 100 666")},
    "non-routed-superprefix": {  # nothing but the /8: not found, so ROV keeps it
        200: ("attacker", "1.0.0.0/8", "200 100 666"), 201: ("attacker", "1.0.0.0/8", "201 200 100 666"),
        300: ("attacker", "1.0.0.0/8", "300 200 100 666")},
    "non-routed-superprefix-prefix": {  # the /16 under the AS0 ROA dropped at 200; 300 has it from 400
        200: ("attacker", "1.0.0.0/8", "200 100 666"), 201: ("attacker", "1.0.0.0/8", "201 200 100 666"),
        300: ("attacker", "1.2.0.0/16", "300 400 100 666")},
    "squat": {  # BGPy's NonRoutedPrefixHijack: 200 drops the only route, and so does its customer 201
        200: ("disconnected", "", ""), 201: ("disconnected", "", ""),
        300: ("attacker", "1.2.0.0/16", "300 400 100 666")},
}


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("kind", list(SUPER))
def test_superprefix_and_non_routed_attacks_by_hand(tmp_path, kind, engine):
    res = on_graph(tmp_path, G1, engine, kind, Defence("rov", adopters=[200]))
    rows = {r.asn: (r.outcome, r.prefix, r.path) for r in res.ases}
    assert {asn: rows[asn] for asn in SUPER[kind]} == SUPER[kind]
    announced = {"non-routed-superprefix": ["1.0.0.0/8"], "squat": ["1.2.0.0/16"]}.get(kind, ["1.2.0.0/16", "1.0.0.0/8"])
    assert res.scenario.attack.prefixes == announced


# 100 is the provider of the attacker 666 and of 200, above 250 and the victim 777: the victim's route
# reaches 100 three ASes long, a forged origin (666, 777) two.
G2 = "100|666|-1\n100|200|-1\n200|250|-1\n250|777|-1\n"


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("kind, policy, want", [
    ("forged-origin", "none", "attacker"),  # (666, 777) is shorter than (200, 250, 777)
    ("forged-origin", "edge-filter", "victim"),  # 666 is a stub: its path holds another AS, 100 drops it
    ("prefix", "edge-filter", "attacker"),  # (666,) is 666 alone: it passes
    ("prefix", "rov-edge-filter", "victim"),  # and ROV beside it drops the invalid origin
])
def test_edge_filters_by_hand(tmp_path, engine, kind, policy, want):
    """Where AS100's traffic goes, the adopter; 200 and 250 keep their customer route to the victim."""
    res = on_graph(tmp_path, G2, engine, kind, None if policy == "none" else Defence(policy, adopters=[100]))
    assert {r.asn: r.outcome for r in res.ases if r.asn not in (666, 777)} == {100: want, 200: "victim", 250: "victim"}


# The attacker 666 is the only provider of 300; the victim 777 buys from 100, as 666 does. 666 sends
# 300 the forged origin (666, 777), two ASes long: from a provider, ASPA's downstream check passes
# any path of two (each ramp is one AS at least). The victim adopts, so its records say 666 is
# neither its provider nor its neighbour: ASRA finds the fake link past the up-ramp, ASPAwN at once.
G3 = "100|777|-1\n100|666|-1\n666|300|-1\n"


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("policy, want", [("aspa", "attacker"), ("asra", "disconnected"), ("aspa-wn", "disconnected")])
def test_neighbour_records_catch_the_forged_origin_aspa_lets_down(tmp_path, engine, policy, want):
    res = on_graph(tmp_path, G3, engine, "forged-origin", Defence(policy, adopters=[300, 777]))
    assert {r.asn: r.outcome for r in res.ases if r.asn not in (666, 777)} == {100: "victim", 300: want}


# 300 is the attacker's provider and peers with 100, the victim's provider: it hears the forged
# origin (666, 777) from its customer and (100, 777) from its peer, and a customer route wins. The
# victim's provider cone is {100}; 300, an adopter, is outside it, so provider-cone ID drops the
# forged route; ROV alone passes it (the origin is the victim's).
G4 = "100|777|-1\n300|666|-1\n100|300|0\n"


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("policy, want", [("rov", "attacker"), ("provider-cone-id", "victim")])
def test_provider_cone_id_drops_a_forged_origin_from_outside_the_cone(tmp_path, engine, policy, want):
    res = on_graph(tmp_path, G4, engine, "forged-origin", Defence(policy, adopters=[300]))
    assert {r.asn: r.outcome for r in res.ases if r.asn not in (666, 777)} == {100: "victim", 300: want}


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("policy, adopters, want", [
    ("bgp-isec-transitive", [300, 777], "victim"),  # the victim adopts and signed nothing for 666
    ("bgp-isec-transitive", [300], "attacker"),  # it does not: nobody on the path had to sign
    ("bgp-isec-otc", [300, 777], "victim"),
    ("bgp-isec-pcid", [300], "victim"),  # the cone check, as provider-cone-id's above
    ("bgp-isec", [300, 777], "victim"),
])
def test_bgp_isec_by_hand(tmp_path, engine, policy, adopters, want):
    """The forged origin of G4 at AS300 under each BGP-iSec variant."""
    res = on_graph(tmp_path, G4, engine, "forged-origin", Defence(policy, adopters=adopters))
    assert {r.asn: r.outcome for r in res.ases if r.asn not in (666, 777)} == {100: "victim", 300: want}


# ---- ROV++, worked by hand on both engines ----------------------------------------------------------
# On G1 with ROV++ at 200 (BGPy 13.0.13 gives the same, docs/research/bgpy-13-policies.md section 8):
# 200's route to the /16 (or the /8) comes from 100, which also sends it the attacker's invalid
# more-specific, so 200 holds a blackhole for it; v1 keeps it, v2 announces it to its customers 201
# and 300, and 300 takes it over 400's route to the attacker (the same length, the lower neighbour).
# Squatting: 200 blackholes the AS0 ROA's /16 as its own. Superprefix-prefix: the /16 hijack is a
# wrong origin, not a sub-prefix, so v2i (blackholes of sub-prefixes and AS0 space) keeps it.
D, A = "disconnected", "attacker"
ROVPP = {  # (kind, policy) -> outcomes of 200, 201, 300
    ("subprefix", "rovpp-v1"): (D, D, A), ("subprefix", "rovpp-v2"): (D, D, D), ("subprefix", "rovpp-v2i"): (D, D, D),
    ("squat", "rovpp-v1"): (D, D, A), ("squat", "rovpp-v2"): (D, D, D), ("squat", "rovpp-v2i"): (D, D, D),
    ("non-routed-superprefix", "rovpp-v1"): (D, D, D),  # 300 follows the /8 to 200, whose /16 blackhole wins
    ("non-routed-superprefix-prefix", "rovpp-v1"): (D, D, A), ("non-routed-superprefix-prefix", "rovpp-v2"): (D, D, D),
    ("superprefix-prefix", "rovpp-v1"): (D, D, A), ("superprefix-prefix", "rovpp-v2"): (D, D, D),
    ("superprefix-prefix", "rovpp-v2i"): (D, D, A),
}


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("kind, policy", list(ROVPP))
def test_rovpp_blackholes_by_hand(tmp_path, engine, kind, policy):
    res = on_graph(tmp_path, G1, engine, kind, Defence(policy, adopters=[200]))
    rows = {r.asn: r.outcome for r in res.ases}
    assert (rows[200], rows[201], rows[300]) == ROVPP[(kind, policy)]
    # plain ROV at 200 lets the covering route carry 200's traffic to the attacker
    assert on_graph(tmp_path, G1, engine, kind, Defence("rov", adopters=[200])).ases[
        [r.asn for r in res.ases].index(200)].outcome == (D if kind == "squat" else A)


# 300 is the provider of the attacker and the victim; 200 (the adopter) and 400 are 300's providers and
# 201's. 200 learns the /16 and the attacker's /24 from its customer 300: v2 announces no blackhole
# learned from a customer; v2i does, and 201 takes it over 400's route (the lower neighbour).
G5 = "300|666|-1\n300|777|-1\n200|300|-1\n200|201|-1\n400|300|-1\n400|201|-1\n"


@pytest.mark.parametrize("engine", ["timed", "steady"])
@pytest.mark.parametrize("policy, at_201", [("rov", ("attacker", "201 400 300 666")),
                                             ("rovpp-v2", ("attacker", "201 400 300 666")),
                                             ("rovpp-v2i", ("disconnected", "201 200 300 666"))])
def test_rovpp_v2i_announces_a_blackhole_from_a_customer(tmp_path, engine, policy, at_201):
    res = on_graph(tmp_path, G5, engine, "subprefix", Defence(policy, adopters=[200]))
    rows = {r.asn: (r.outcome, r.path) for r in res.ases}
    assert rows[200] == ("attacker", "200 300 777") if policy == "rov" else ("disconnected", "200 300 666")
    assert rows[201] == at_201


def test_rovpp_blackholes_go_when_the_hijack_is_withdrawn(tmp_path):
    """Timed, with MRAI: the blackholes follow the attacker's announcement out."""
    (tmp_path / "g.txt").write_text(G1)
    scn = Scenario(name="rovpp", topology=str(tmp_path / "g.txt"), victim=777,
                   prefixes=[ipaddress.ip_network("1.2.0.0/16")],
                   attack=attack("subprefix", attacker=666, start=10, stop=200), defence=Defence("rovpp-v2", adopters=[200]))
    res = simulate(resolve(scn))
    during = [row for row in res.timeline if 10 < row[0] < 200]
    assert max(row[3] for row in during) == pytest.approx(3 / 5)  # 200, 201 and 300 of the five others
    assert {r.asn: r.outcome for r in res.ases if r.asn not in (666, 777)} == dict.fromkeys((100, 200, 201, 300, 400), "victim")
