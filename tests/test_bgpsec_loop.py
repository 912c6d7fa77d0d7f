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
from bgpsim.sim.plan import resolve
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
    abstract = simulate(resolve(_scenario(topo, seed, kind, adoption, False, warm), topo))
    real = simulate(resolve(_scenario(topo, seed, kind, adoption, True, warm), topo))
    assert _routes(real) == _routes(abstract)
    assert real.outcome == abstract.outcome
    assert real.crypto is not None and abstract.crypto is None


def test_every_as_adopting_signs_and_verifies_and_reuses():
    topo = internet_like(60, 7)
    res = simulate(resolve(_scenario(topo, 7, "forged-origin", 1.0, True, True), topo))
    c = res.crypto
    assert c.signatures > 0 and c.updates_signed > 0 and c.updates_verified > 0
    assert c.verified > 0 and c.reused > 0  # older signatures are checked once, then reused
    # each UPDATE brings one new signature to check; the rest of its chain was checked upstream
    assert c.verified <= c.updates_verified + c.signatures


def test_the_attackers_forgeries_fail_verification():
    from bgpsim.rpki.bgpsec.sign import forward
    from bgpsim.sim.crypto import CryptoLoop
    from bgpsim.sim.engine.events import EventQueue
    from bgpsim.sim.engine.timed import TimedEngine
    from bgpsim.sim.engine.timing import Timing
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
    one = simulate(resolve(_scenario(topo, 11, "subprefix", 0.5, True, False), topo)).to_json()
    two = simulate(resolve(_scenario(topo, 11, "subprefix", 0.5, True, False), topo)).to_json()
    for doc in (one, two):
        doc["crypto"] = {k: v for k, v in doc["crypto"].items() if not k.endswith("seconds")}
    assert json.dumps(one) == json.dumps(two)


def test_the_command_line_takes_crypto_and_adoption(tmp_path, capsys):
    status = main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                   "--victim", "64510", "--policy", "bgpsec", "--adoption", "1", "--crypto", "--format", "json", "--quiet", "--no-figures",
                   "--out", str(tmp_path / "out")])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["crypto"]["signatures"] > 0 and doc["scenario"]["defence"]["policy"] == "bgpsec"
    assert json.loads((tmp_path / "out" / "result.json").read_text())["crypto"] == doc["crypto"]


@pytest.mark.parametrize("args, expect", [
    (["--crypto"], "--crypto needs --policy bgpsec"),
    (["--policy", "rov", "--adoption", "0.5", "--crypto"], "--crypto needs --policy bgpsec"),
    (["--policy", "bgpsec", "--adoption", "1.5"], "--adoption: want a share: 0 to 1, or 0% to 100%"),
    (["--policy", "bgpsec", "--adoption", "0.5", "--adopters", "64510"], "give --adopters or --adoption, not both"),
    (["--policy", "bgpsec", "--adoption", "1", "--crypto", "--engine", "steady"], "needs the timed engine"),
])
def test_bad_crypto_options_are_one_line(tmp_path, capsys, args, expect):
    try:
        status = main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                       "--victim", "64510", "--quiet", "--no-figures", "--out", str(tmp_path / "out"), *args])
    except SystemExit as e:  # a usage error, from argparse
        status = e.code
    err = capsys.readouterr().err
    assert status == 2 and expect in err and err.count("\n") == 1, err


def _teaching():
    from importlib.resources import files

    return files("bgpsim.scenarios") / "topologies" / "teaching.toml"



def test_pcap_of_a_crypto_run_verifies_with_the_runs_keys(tmp_path, capsys):
    pcap = tmp_path / "sessions.pcap"
    assert main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                 "--victim", "64510", "--policy", "bgpsec", "--adoption", "1", "--crypto", "--quiet", "--no-figures",
                 "--out", str(tmp_path / "out"), "--pcap", str(pcap)]) == 0
    keys = json.loads((tmp_path / "out" / "router-keys.json").read_text())["bgpsec_keys"]
    assert 64510 in {k["asn"] for k in keys} and 64511 not in {k["asn"] for k in keys}  # the attacker adopts not
    capsys.readouterr()
    status = main(["bgpsec", "verify", str(pcap), "--router-keys", str(tmp_path / "out" / "router-keys.json"),
                   "--format", "json", "--unsigned"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1  # the attacker's announcement
    signed = [r for r in rows if r["state"] != "unsigned"]
    assert {r["state"] for r in signed if r["as_path"].endswith("64510") and r["peer_as"] != 64511} == {"valid"}
    forged = [r for r in signed if r["peer_as"] == 64511]
    assert forged and {(r["state"], r["reason"]) for r in forged} == {("not-valid", "no-key")}
    assert any(r["state"] == "unsigned" for r in rows)  # toward the attacker, which speaks no BGPsec


def test_pcap_without_crypto_holds_as_paths_tshark_reads(tmp_path):
    import shutil
    import subprocess

    pcap = tmp_path / "sessions.pcap"
    assert main(["run", "--topology", str(_teaching()), "--attack", "subprefix", "--attacker", "64511",
                 "--victim", "64510", "--quiet", "--no-figures", "--out", str(tmp_path / "out"), "--pcap", str(pcap),
                 "--pcap-ases", "64510"]) == 0
    from bgpsim.capture import read_capture_routes

    routes = list(read_capture_routes(str(pcap)))
    assert routes and all(r.attrs is None or r.attrs.bgpsec is None for r in routes)
    assert {r.peer_as for r in routes if r.kind == "announce"} >= {64510}
    if shutil.which("tshark") is None:
        pytest.skip("tshark not installed (Debian package `tshark`)")
    out = subprocess.run(["tshark", "-r", str(pcap), "-Y", "bgp.type == 2", "-T", "fields",
                          "-e", "bgp.update.path_attribute.as_path_segment.as4"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == [",".join(r.attrs.as_path_text.split()) for r in routes if r.kind == "announce"]


def test_pcap_needs_the_timed_engine(tmp_path, capsys):
    status = main(["run", "--topology", str(_teaching()), "--attack", "subprefix", "--attacker", "64511",
                   "--victim", "64510", "--engine", "steady", "--quiet", "--no-figures", "--out", str(tmp_path / "o"),
                   "--pcap", str(tmp_path / "x.pcap")])
    assert status == 2 and "--pcap needs the timed engine" in capsys.readouterr().err
    assert not (tmp_path / "x.pcap").exists()


def test_the_report_says_what_the_signatures_said(tmp_path):
    import csv

    assert main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                 "--victim", "64510", "--policy", "bgpsec", "--adoption", "1", "--crypto", "--quiet", "--no-figures",
                 "--out", str(tmp_path / "c")]) == 0
    html = (tmp_path / "c" / "report.html").read_text()
    assert "BGPsec: what the signatures said" in html
    assert "The attacker&#39;s announcement reached" in html and "the verdict was no-key" in html
    assert '<span class="hop bad"' in html and '<span class="hop ok"' in html
    rows = list(csv.DictReader(open(tmp_path / "c" / "bgpsec.csv")))
    assert len(rows) == len(list(csv.DictReader(open(tmp_path / "c" / "ases.csv"))))
    through = [r for r in rows if "64511" in r["signed_path"].split()]
    assert through and {(r["state"], r["reason"], r["failed_hop"]) for r in through} == {("not-valid", "no-key", "2")}
    # without real signatures: no BGPsec section, no bgpsec.csv, no router keys
    assert main(["run", "--topology", str(_teaching()), "--attack", "forged-origin", "--attacker", "64511",
                 "--victim", "64510", "--policy", "bgpsec", "--adoption", "1", "--quiet", "--no-figures", "--out", str(tmp_path / "a")]) == 0
    assert "BGPsec: what the signatures said" not in (tmp_path / "a" / "report.html").read_text()
    assert not (tmp_path / "a" / "bgpsec.csv").exists() and not (tmp_path / "a" / "router-keys.json").exists()
