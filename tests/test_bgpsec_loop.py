"""BGPsec with real signatures in the timed engine (bgpsim.sim.crypto): on random Internet-like graphs
(synthetic, from bgpsim.graph.generate) the per-AS outcomes and routes equal those of the abstract
`bgpsec` policy, for prefix, sub-prefix and forged-origin hijacks, warm-started or not; the attacker's
forged signatures fail with the reason the verifier gives; the same seed gives the same result."""

from __future__ import annotations

import ipaddress
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgpsim.cli import main
from bgpsim.graph.generate import internet_like
from bgpsim.rpki.rov import VRP
from bgpsim.sim.attacks import attack
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import Defence, Scenario

PREFIX = ipaddress.ip_network("10.0.0.0/16")


def _scenario(topo, seed: int, kind: str, adoption: float, crypto: bool, warm: bool) -> Scenario:
    rnd = random.Random(seed)
    victim, attacker = rnd.sample([int(a) for a in topo.asns], 2)
    return Scenario(name="t", topology="", seed=seed, victim=victim, prefixes=[PREFIX], warm_start=warm,
                    attack=attack(kind, attacker=attacker, start=1.0),
                    defence=Defence("bgpsec", adoption=adoption, crypto=crypto), roas=[VRP(PREFIX, 16, victim)])


def _routes(result):
    return [(a.asn, a.outcome, a.prefix, a.path, a.relationship) for a in result.ases]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 70), seed=st.integers(0, 10_000), kind=st.sampled_from(["prefix", "subprefix", "forged-origin"]),
       adoption=st.sampled_from([0.3, 0.7, 1.0]), warm=st.booleans())
def test_real_signatures_give_the_abstract_policys_outcomes(n, seed, kind, adoption, warm):
    topo = internet_like(n, seed)
    abstract = simulate(_scenario(topo, seed, kind, adoption, False, warm), topo)
    real = simulate(_scenario(topo, seed, kind, adoption, True, warm), topo)
    assert _routes(real) == _routes(abstract)
    assert real.outcome == abstract.outcome
    assert real.crypto is not None and abstract.crypto is None


def test_every_as_adopting_signs_and_verifies_and_reuses():
    topo = internet_like(60, 7)
    res = simulate(_scenario(topo, 7, "forged-origin", 1.0, True, True), topo)
    c = res.crypto
    assert c.signatures > 0 and c.updates_signed > 0 and c.updates_verified > 0
    assert c.verified > 0 and c.reused > 0  # older signatures are checked once, then reused
    # each UPDATE brings one new signature to check; the rest of its chain was checked upstream
    assert c.verified <= c.updates_verified + c.signatures


def test_the_attackers_forgeries_fail_verification():
    from bgpsim.rpki.bgpsec.sign import forward
    from bgpsim.sim.crypto import CryptoLoop
    from bgpsim.sim.engine.events import EventQueue
    from bgpsim.sim.engine.timed import TimedEngine, Timing
    from bgpsim.sim.policy import ORIGIN, ORIGIN_KEY

    topo = internet_like(30, 3)
    everyone = list(range(topo.n))
    a, v, j = 0, 1, 2
    loop = CryptoLoop(topo, [PREFIX], everyone, a, 5)
    engine = TimedEngine(topo, [PREFIX], Timing(), 5, EventQueue(), crypto=loop)
    target = int(topo.asns[j])

    def sent(r, claimed=()):
        """What r sends j when its Loc-RIB holds its own announcement claiming `claimed` after it."""
        engine.loc[0][r] = (ORIGIN_KEY, ORIGIN, claimed)
        return loop.outgoing(engine, 0, r, j)

    def verdict(path, sender):
        return loop.verifier.verify(path, target, PREFIX, int(topo.asns[sender]))

    assert verdict(sent(v), v).valid  # the victim's own origination
    forged = verdict(sent(a, (v,)), a)  # forged origin: [attacker, victim], the victim's SKI, the attacker's key
    assert (forged.state, forged.reason, forged.hop) == ("not-valid", "bad-signature", 1)
    # a replay: the victim's real signature, made toward j, under the attacker's own segment
    replayed = forward(sent(v), loop.keys.signing(a), PREFIX, target)
    assert replayed.as_path() == (int(topo.asns[a]), int(topo.asns[v]))
    got = verdict(replayed, a)
    assert (got.reason, got.hop) == ("bad-signature", 1)  # signed toward j, not toward the attacker


def test_the_same_seed_gives_the_same_result(tmp_path):
    topo = internet_like(40, 11)
    one = simulate(_scenario(topo, 11, "subprefix", 0.5, True, False), topo).to_json()
    two = simulate(_scenario(topo, 11, "subprefix", 0.5, True, False), topo).to_json()
    for doc in (one, two):
        doc["crypto"] = {k: v for k, v in doc["crypto"].items() if not k.endswith("seconds")}
    assert json.dumps(one) == json.dumps(two)


def test_the_command_line_takes_crypto_and_adoption(tmp_path, capsys):
    status = main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                   "--victim", "64510", "--policy", "bgpsec", "--adoption", "1", "--crypto", "--json", "--quiet",
                   "--out", str(tmp_path / "out")])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["crypto"]["signatures"] > 0 and doc["scenario"]["defence"]["policy"] == "bgpsec"
    assert json.loads((tmp_path / "out" / "result.json").read_text())["crypto"] == doc["crypto"]


@pytest.mark.parametrize("args, expect", [
    (["--crypto"], "--crypto needs --policy bgpsec"),
    (["--policy", "rov", "--adoption", "0.5", "--crypto"], "--crypto needs --policy bgpsec"),
    (["--policy", "bgpsec", "--adoption", "1.5"], "--adoption: want a share between 0 and 1"),
    (["--policy", "bgpsec", "--adoption", "0.5", "--adopters", "64510"], "give --adopters or --adoption, not both"),
    (["--policy", "bgpsec", "--adoption", "1", "--crypto", "--engine", "steady"], "needs the timed engine"),
])
def test_bad_crypto_options_are_one_line(tmp_path, capsys, args, expect):
    try:
        status = main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                       "--victim", "64510", "--quiet", "--out", str(tmp_path / "out"), *args])
    except SystemExit as e:  # a usage error, from argparse
        status = e.code
    err = capsys.readouterr().err
    assert status == 2 and expect in err and err.count("\n") == 1, err


def _teaching():
    from importlib.resources import files

    return files("bgpsim.scenarios") / "topologies" / "teaching.toml"

