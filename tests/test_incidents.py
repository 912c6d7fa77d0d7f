"""The incident library (scenarios/incidents, `bgpsim incident`): every file loads, cites its sources
and names ASes of the 2025 CAIDA graph; its sample victims are real entries of the prefix-to-AS table
it names; the counterfactuals say what each kind of attack lets each defence do; and one incident runs
end to end with its report."""

from __future__ import annotations

import csv
import gzip
import json
import re

import pytest
from helpers import SHARED

from bgpsim.cli import main
from bgpsim.sim import incident as inc

CAIDA = SHARED / "caida" / "20250901.as-rel2.txt.bz2"
PFX2AS = SHARED / "pfx2as" / "ipasn_20140513.dat.gz"


def need_data():
    if not CAIDA.exists():
        pytest.skip(f"shared data not found: {CAIDA}")


@pytest.fixture(scope="module")
def topo():
    need_data()
    from bgpsim.graph.topology import load_topology

    return load_topology(CAIDA)


def test_the_list(capsys):
    assert main(["incident", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(inc.names()) >= 12
    for line in lines:
        name, date, title = re.fullmatch(r"(\S+) +(\d{4}-\d\d-\d\d)  (.+)", line).groups()
        assert name.endswith(date[:4]) and title
    assert main(["incident", "--list", "--format", "json"]) == 0
    docs = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert all(d["sources"] and all(re.search(r"https?://", s) for s in d["sources"]) for d in docs)


def test_every_incident_names_ases_of_the_graph_and_real_table_entries(topo):
    with gzip.open(PFX2AS, "rt") as f:
        table = {tuple(line.split()) for line in f if not line.startswith(";")}
    for name in inc.names():
        i = inc.load_incident(inc.find(name), topology=str(CAIDA))
        scn = i.scenario
        assert scn.victim in topo.index, name
        if scn.attack:
            assert scn.attack.attacker in topo.index, name
        for asn, prefix in i.victims[1:]:  # the samples: entries of the 2014 table, as the files say
            assert asn in topo.index and (str(prefix), str(asn)) in table, (name, asn, prefix)


ORIGIN_HIJACKS = ("youtube-2008", "route53-2018", "twitter-2022", "rostelecom-2020", "china-telecom-2010",
                  "indosat-2014", "as7007-1997", "klayswap-2022")


@pytest.mark.parametrize("name", inc.names())
def test_what_each_defence_can_do(topo, name):
    """Worked out from the kind of each attack: ROV stops an origin hijack (with the victim's ROA, and
    KlaySwap's /24 is longer than its ROA allows) but not a forged origin under a loose ROA, which
    ASPA and path-end stop; OTC, ASPA, max-prefix and ROV stop Verizon/DQE's leak of an invalid
    more-specific; a filter of prefixes longer than /24 stops nothing here (all are /24 or shorter);
    nothing applies to an owner withdrawing its routes. ASPA, BGPsec and path-end without ROV let an
    origin hijack through (ASPA and path-end as if absent: a plain origin breaks no path rule; BGPsec
    only ranks), while ASPA and path-end stop the forged origins (Celer, KlaySwap) without ROV too.
    Every defence that includes ROV, BGPy's others among them, stops an origin hijack at full
    deployment. Each of these holds victim by victim: the scenario's own victim and its first two
    samples keep the suite quick."""
    from bgpsim.sim.defences import says_rov

    i = inc.load_incident(inc.find(name), topology=str(CAIDA))
    i.victims = i.victims[:3]
    cf, _ = inc.counterfactuals(i, topo)
    r = {(x.defence, x.deployment): x.attacker for x in cf}
    if name == "facebook-2021":
        assert r == {}
        return
    base = r[(None, 0.0)]
    assert r[("maxlen", 1.0)] == base and r[("peerlock-lite", 1.0)] == base
    if name in ORIGIN_HIJACKS:
        assert base > 0.3 and r[("rov", 1.0)] < 0.02 and r[("rov", 0.5)] <= base and r[("otc", 1.0)] == base
        assert max(r[(d, 1.0)] for d in ("rov+aspa", "rov+bgpsec", "rov+path-end")) < 0.02 and r[("bgpsec-alone", 1.0)] > 0.3
        assert all(r[(d, 1.0)] < 0.02 for d in inc.COUNTERFACTUALS if says_rov(d)), name
        if name == "klayswap-2022":  # a forged origin: the path checks stop it without ROV
            assert r[("aspa-alone", 1.0)] < 0.01 and r[("path-end-alone", 1.0)] < 0.01
        else:
            assert r[("aspa-alone", 1.0)] == base and r[("path-end-alone", 1.0)] == base
    elif name == "celer-2022":
        assert base > 0.9 and r[("rov", 1.0)] == base and r[("rov+aspa", 1.0)] < 0.01 and r[("rov+path-end", 1.0)] < 0.01
        assert r[("aspa-alone", 1.0)] == r[("rov+aspa", 1.0)] and r[("path-end-alone", 1.0)] == r[("rov+path-end", 1.0)]
    elif name == "verizon-dqe-2019":
        assert base > 0.9 and max(r[(d, 1.0)] for d in ("otc", "rov+aspa", "aspa-alone", "max-prefix", "rov")) < 0.01
    else:
        assert name == "mainone-2018" and base < 0.01  # no Google peering in today's graph: said in the file


def test_the_youtube_timeline_is_ripes(tmp_path):
    """RIPE NCC's timeline on the time axis: the hijack at 0 (18:47), YouTube's /24 at 80 min, its
    /25s at 91, the prepending at 124, the end at 134. (The marks do not depend on the graph: a
    small one with the two ASes, PCCW between them, stands in for the Internet's.)"""
    from bgpsim.sim.plan import resolve
    from bgpsim.sim.run import simulate

    (tmp_path / "g.txt").write_text("3491|17557|-1\n3491|43515|-1\n")
    i = inc.load_incident(inc.find("youtube-2008"), topology=str(tmp_path / "g.txt"))
    i.scenario.until = 1.0  # the marks are scheduled at the start; the replay itself is not needed here
    marks = [(m.time, m.label) for m in simulate(resolve(i.scenario)).marks]
    assert marks == [(0.0, "attack starts"), (4800.0, "AS43515 originates 208.65.153.0/24"),
                     (5460.0, "AS43515 originates 208.65.153.0/25"), (5460.0, "AS43515 originates 208.65.153.128/25"),
                     (7440.0, "AS17557 prepends its AS 1 more time toward every neighbour"), (8040.0, "attack stops")]


def twitter_on_the_teaching_graph(tmp_path):
    """twitter-2022, an exact-prefix hijack against a ROA, moved onto the teaching graph."""
    from helpers import ROOT

    text = (inc.find("twitter-2022").read_text()
            .replace('topology = "20250901.as-rel2.txt.bz2"', f'topology = "{ROOT / "scenarios" / "topologies" / "teaching.toml"}"')
            .replace("asn = 13414", "asn = 64510").replace("attacker = 8342", "attacker = 64511"))
    (tmp_path / "mine.toml").write_text(text)
    return tmp_path / "mine.toml"


def test_an_incident_end_to_end(tmp_path, capsys):
    """An incident file of one's own, on the teaching graph (the command is the same on any graph):
    the replay's files, the counterfactual table in the report and in counterfactuals.csv."""
    twitter_on_the_teaching_graph(tmp_path)
    out = tmp_path / "mine"
    assert main(["incident", str(tmp_path / "mine.toml"), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    with open(out / "counterfactuals.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert len(table) == 1 + 2 * len(inc.COUNTERFACTUALS) and table[0]["defence"] == "none"
    by = {(r["defence"], float(r["deployment"])): float(r["attacker"]) for r in table}
    assert by[("none", 0.0)] > 0.3 and by[("rov", 1.0)] == 0.0  # an exact-prefix hijack against the ROA
    html = (out / "report.html").read_text()
    assert "The incident: RTComm hijacks Twitter&#39;s prefix, 2022-03-28" in html
    assert "What each defence would have done" in html and "https://www.kentik.com/" in html
    assert "Step through the run" in html
    result = json.loads((out / "result.json").read_text())
    assert result["attacker"] == 64511 and result["victim"] == 64510 and result["peak"]["attacker"] > 0.3


def test_the_rows_say_what_they_are(tmp_path, capsys):
    """ASPA, BGPsec and path-end check the path, not the origin: against an exact-prefix hijack the
    rows without ROV stop nothing while the rov+ rows (BGPy's policies) stop it all; every row's name,
    in counterfactuals.csv, the report and the printed summary, says whether ROV is in it."""
    from bgpsim.sim.defences import includes_rov, label, says_rov

    assert main(["incident", str(twitter_on_the_teaching_graph(tmp_path)), "--out", str(tmp_path / "mine"),
                 "--no-figures"]) == 0
    printed = capsys.readouterr().out
    assert not list((tmp_path / "mine").glob("*.png"))
    with open(tmp_path / "mine" / "counterfactuals.csv", newline="") as f:
        by = {(r["defence"], float(r["deployment"])): float(r["attacker"]) for r in csv.DictReader(f)}
    base = by[("none", 0.0)]
    assert base > 0.3
    for mechanism in ("aspa", "bgpsec", "path-end"):
        assert by[(f"rov+{mechanism}", 1.0)] == 0.0 and by[(f"{mechanism}-alone", 1.0)] == base
    html = (tmp_path / "mine" / "report.html").read_text()
    names = [d for d, _ in by if d != "none"]
    assert names[::2] == list(inc.COUNTERFACTUALS)
    for name in inc.COUNTERFACTUALS:
        parts = name.split("+")
        assert label(name) == name and says_rov(name) == (name == "rov" or any(includes_rov(p) for p in parts))
        if says_rov(name):  # every AS checks the origin: the exact-prefix hijack goes nowhere
            assert by[(name, 1.0)] == 0.0, name
        legend = re.search(rf"<li>{re.escape(name)}: (.*?)</li>", html).group(1)
        assert ("ROV" in legend.replace("without ROV", "")) == says_rov(name), name
        assert ("without ROV" in legend) == name.endswith("-alone")
        assert re.search(rf"^    {re.escape(name)} +half deploy", printed, re.M)
    assert "1 victim:" in printed and "victim(s)" not in printed


def test_the_trials_on_workers_and_on_dask_give_the_same_rows(tmp_path):
    """The counterfactual trials in this process, in forked workers while other work runs here, and
    on a local Dask cluster: the same rows, to the last bit; an unreachable scheduler is one line
    before any work."""
    distributed = pytest.importorskip("distributed", reason="needs the pip package distributed (Dask)")
    from bgpsim.graph.topology import load_topology

    i = inc.load_incident(twitter_on_the_teaching_graph(tmp_path))
    topo = load_topology(i.scenario.topology)
    one, none = inc.counterfactuals(i, topo)
    assert none is None and len(one) == 1 + 2 * len(inc.COUNTERFACTUALS)
    ticks = []
    three, here = inc.counterfactuals(i, topo, lambda done, total: ticks.append((done, total)), workers=3,
                                      meanwhile=lambda: "replayed")
    assert three == one and here == "replayed" and ticks[-1] == (len(one), len(one))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert inc.counterfactuals(i, topo, client=client)[0] == one
    assert main(["incident", str(tmp_path / "mine.toml"), "--out", str(tmp_path / "x"), "--scheduler",
                 "tcp://127.0.0.1:9"]) == 2
    assert not (tmp_path / "x").exists()


def test_the_summary_counts_victims_in_words():
    from pathlib import Path
    from types import SimpleNamespace as NS

    run = NS(topo=NS(name="g", n=2), outcome=NS(attacker=0.5), peak=NS(attacker=0.5, at=1.0))
    replay = inc.Replay(NS(name="x", title="t", date="2000-01-01"), Path("o"), talk=True)
    for n, words in ((1, "1 victim:"), (19, "19 victims:")):
        rows = [inc.Counterfactual(None, 0.0, n, 0.5, 0.0, 0.5)]
        assert f"(traffic diverted), {words}" in replay.summary(run, rows)


def test_bad_input(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(inc.DATA_ENV, raising=False)
    assert main(["incident", "no-such-thing"]) == 2
    err = capsys.readouterr().err
    assert "no incident 'no-such-thing'; want one of as7007-1997," in err and len(err.strip().splitlines()) == 1
    assert main(["incident", "twitter-2022", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "the graph 20250901.as-rel2.txt.bz2 was not found" in err and "BGPSIM_DATA" in err
    assert not (tmp_path / "x").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text((inc.find("twitter-2022")).read_text().replace('date = "2022-03-28"\n', ""))
    assert main(["incident", str(bad), "--topology", str(CAIDA)]) == 2
    assert "incident.date: want a non-empty string" in capsys.readouterr().err


def test_bgpsim_run_finds_the_graph_an_incident_names(tmp_path, monkeypatch):
    """An incident is a scenario: `bgpsim run` runs it, finding its graph in $BGPSIM_DATA as `bgpsim
    incident` does."""
    need_data()
    monkeypatch.setenv(inc.DATA_ENV, str(SHARED))
    out = tmp_path / "tw"
    assert main(["run", str(inc.find("twitter-2022")), "--engine", "steady", "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "result.json").read_text())["topology"]["ases"] == 78643
