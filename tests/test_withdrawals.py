"""Withdrawals on the timed engine: ASes that send none (bgp-full-suppress-withdrawals) leave zombie
routes behind, and Route Status Transparency (rost) finds them. On BGPy's own engine tests of
withdrawals (internal_config_002 and _007: the victim announces, then withdraws) the states below are
BGPy 13.0.13's, and a test asks BGPy again when it is installed."""

from __future__ import annotations

import json
import random
import subprocess

import pytest
from helpers import graph, path_asns, timed
from test_bgpy import ORACLE, bgpy_python

from bgpsim.sim.defences import defence
from bgpsim.sim.engine.timing import Delay
from bgpsim.graph.generate import internet_like

PREFIX = "1.2.0.0/16"
SUPPRESS = "bgp-full-suppress-withdrawals"
# internal_config_002: a chain 1 <- 2 <- 3 <- 666 <- 4 <- 777 (providers first); 666 sends no
# withdrawals; RoST at 2 and 4. 4 withdraws (4 777) and says so to the repository, so 2 drops the
# zombie (2 3 666 4 777) that 3, without RoST, keeps; 1 hears 2's withdrawal.
CHAIN = dict(edges=[(1, 2, -1), (2, 3, -1), (3, 666, -1), (666, 4, -1), (4, 777, -1)])
# internal_config_007: 3 is the provider of 8 and 666; 666 of 4; 4 of 777; 8 peers with 666 and 4.
# RoST at 1, 3 and 8, but 4 (which withdraws) has none: nothing tells the repository, and every
# AS above 666 keeps its zombie.
PEERS = dict(edges=[(8, 666, 0), (8, 4, 0), (1, 2, -1), (2, 3, -1), (3, 8, -1), (3, 666, -1), (666, 4, -1),
                    (4, 777, -1)])
CASES = {
    "002": (CHAIN, {2: "rost", 4: "rost", 666: SUPPRESS}, {3: (3, 666, 4, 777)}),
    "002-without-rost": (CHAIN, {666: SUPPRESS}, {1: (1, 2, 3, 666, 4, 777), 2: (2, 3, 666, 4, 777),
                                                  3: (3, 666, 4, 777)}),
    "007": (PEERS, {1: "rost", 3: "rost", 8: "rost", 666: SUPPRESS},
            {1: (1, 2, 3, 666, 4, 777), 2: (2, 3, 666, 4, 777), 3: (3, 666, 4, 777), 8: (8, 666, 4, 777)}),
    "no-suppressor": (CHAIN, {2: "rost"}, {}),
}


def withdrawn(edges, policies: dict[int, str], victim: int = 777, seed: int = 1, mrai: float = 30.0):
    """The victim announces, then withdraws once routing is at rest: every AS's route then (itself
    first), and the engine."""
    topo = graph(p2c=[(a, b) for a, b, r in edges if r == -1], p2p=[(a, b) for a, b, r in edges if r == 0])
    pols = {topo.index[a]: defence(name, topo, [topo.index[a]]) for a, name in policies.items()}
    import ipaddress

    eng, q = timed(topo, mrai=mrai, seed=seed, policies=pols, prefixes=[ipaddress.ip_network(PREFIX)],
                   link_delay=Delay("uniform", 0.001, 0.2), processing_delay=Delay("exponential", 0.01))
    v = topo.index[victim]
    q.at(0.0, eng.originate, v, 0)
    q.run()
    q.at(q.now + 10, eng.withdraw, v, 0)
    q.run()
    return {int(a): path_asns(topo, eng, 0, int(a)) for a in topo.asns if eng.loc[0][topo.index[int(a)]]}, eng, topo


@pytest.mark.parametrize("case", list(CASES))
def test_bgpys_withdrawal_graphs_by_hand(case):
    g, policies, want = CASES[case]
    got, _, _ = withdrawn(g["edges"], policies)
    assert got == want


def test_the_states_above_are_bgpys(tmp_path):
    reqs = [{"edges": [list(e) for e in g["edges"]], "attack": "withdrawal", "victim": 777,
             "policies": {str(a): n for a, n in pol.items()}} for g, pol, _ in CASES.values()]
    (tmp_path / "r.json").write_text(json.dumps(reqs))
    out = subprocess.run([bgpy_python(), str(ORACLE / "run_bgpy.py"), str(tmp_path / "r.json")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    for (g, pol, want), theirs in zip(CASES.values(), json.loads(out.stdout)):
        assert {int(a): tuple(r[PREFIX]) for a, r in theirs["routes"].items()} == want


@pytest.mark.parametrize("seed", range(12))
def test_rost_adopters_keep_no_route_another_adopter_on_it_has_left(seed):
    """Random graphs (synthetic), one to three ASes sending no withdrawals, RoST at 40 % of the rest:
    once the victim's withdrawal has gone round, an adopter holds a route only if every adopter on
    it still holds the rest of that route."""
    rnd = random.Random(seed)
    topo = internet_like(rnd.choice([30, 60, 120]), seed)
    asns = [int(a) for a in topo.asns]
    edges = ([(int(topo.asns[a]), int(topo.asns[b]), -1) for a, b in topo.p2c]
             + [(int(topo.asns[a]), int(topo.asns[b]), 0) for a, b in topo.p2p])
    victim = int(topo.asns[rnd.choice(topo.stubs())])
    others = [a for a in asns if a != victim]
    suppressors = rnd.sample(others, rnd.choice([1, 2, 3]))
    rost = [a for a in others if a not in suppressors and rnd.random() < 0.4]
    policies = {**{a: "rost" for a in rost}, **{a: SUPPRESS for a in suppressors}}
    got, eng, _ = withdrawn(edges, policies, victim=victim, seed=seed)
    for a in rost:
        path = got.get(a)
        for k, x in enumerate(path or ()):
            if x in rost and k:
                assert got.get(x) == path[k:], (a, path, x, got.get(x))
    # every route left is a zombie: it passes through an AS that sends no withdrawals
    assert all(set(p) & set(suppressors) for p in got.values())


def test_without_rost_a_zombie_outlives_its_path():
    """The contrast: on 002's chain without RoST, 2 and 1 keep a route 4 and 777 have left."""
    got, _, _ = withdrawn(CHAIN["edges"], {666: SUPPRESS})
    assert got[2] == (2, 3, 666, 4, 777) and 4 not in got


@pytest.mark.parametrize("policy, want", [
    (None, {1: "attacker", 2: "attacker", 3: "attacker", 4: "disconnected"}),
    ("rost", {1: "disconnected", 2: "disconnected", 3: "attacker", 4: "disconnected"}),
])
def test_a_zombie_attack_and_rost_in_a_scenario(tmp_path, policy, want):
    """002's chain as a scenario: 666 stops sending withdrawals at 5 s, the victim withdraws at 100 s.
    Traffic of the ASes left with the zombie goes to 666; with RoST at 2 and 4, 2 and 1 drop it."""
    import ipaddress

    from bgpsim.sim.attacks import attack
    from bgpsim.sim.plan import resolve
    from bgpsim.sim.run import simulate
    from bgpsim.sim.scenario import Defence, Scenario

    (tmp_path / "g.txt").write_text("".join(f"{a}|{b}|-1\n" for a, b, _ in CHAIN["edges"]))
    scn = Scenario(name="zombie", topology=str(tmp_path / "g.txt"), victim=777,
                   prefixes=[ipaddress.ip_network(PREFIX)], attack=attack("zombie", attacker=666, start=5, stop=100),
                   defence=Defence(policy, adopters=[2, 4]) if policy else None)
    res = simulate(resolve(scn))
    assert {r.asn: r.outcome for r in res.ases if r.asn not in (666, 777)} == want
    assert [m.label for m in res.marks][:2] == ["the attacker stops sending withdrawals", "the victim withdraws its prefix"]


def test_a_zombie_needs_the_timed_engine_and_a_stop(tmp_path):
    from bgpsim.cli import main

    (tmp_path / "g.txt").write_text("".join(f"{a}|{b}|-1\n" for a, b, _ in CHAIN["edges"]))
    base = ["run", "--topology", str(tmp_path / "g.txt"), "--victim", "777", "--attack", "zombie", "--attacker", "666",
            "--quiet"]
    assert main(base + ["--out", str(tmp_path / "a")]) == 2  # no stop on the command line
    (tmp_path / "z.toml").write_text(f'name = "z"\ntopology = "{tmp_path / "g.txt"}"\n[victim]\nasn = 777\n'
                                     'prefixes = ["1.2.0.0/16"]\n[attack]\nkind = "zombie"\nattacker = 666\nstop = 100\n')
    assert main(["run", str(tmp_path / "z.toml"), "--engine", "steady", "--out", str(tmp_path / "b"), "--quiet"]) == 2
    assert main(["run", str(tmp_path / "z.toml"), "--out", str(tmp_path / "c"), "--quiet", "--no-figures"]) == 0
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
