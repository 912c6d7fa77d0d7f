"""Adoption sweeps: determinism across process counts and Dask, resuming, the command line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from bgpsim.graph.generate import internet_like, write_caida
from bgpsim.sim.sweep import COLUMNS, Sweep, run_sweep


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    """A synthetic 300-AS Internet-like graph (bgpsim.generate), as a CAIDA file."""
    return write_caida(internet_like(300, 5), tmp_path_factory.mktemp("g") / "synthetic-300.as-rel2.txt")


def sweep_of(path, **kw):
    args = dict(attacks=("subprefix", "forged-origin"), policies=("none", "rov", "aspa"), adoption=(0, 50, 100),
                trials=4, seed=3)
    args.update(kw)
    return Sweep(str(path), **args)


def without_seconds(path):
    rows = list(csv.reader(open(path)))
    assert rows[0] == list(COLUMNS)
    return [r[:-1] for r in rows]


def test_results_have_one_row_per_trial_and_a_summary(graph_file, tmp_path):
    from bgpsim.graph.topology import read_caida

    sw = sweep_of(graph_file)
    summary = run_sweep(read_caida(graph_file), sw, tmp_path)
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert len(rows) == 2 * 3 * 3 * 4
    for r in rows:
        fr = [float(r[c]) for c in ("attacker_frac", "victim_frac", "disconnected_frac", "loop_frac")]
        assert abs(sum(fr) - 1) < 1e-5
        assert r["attacker"] != r["victim"]
    # No defence: adoption changes nothing. Full ROV: a sub-prefix hijack reaches nobody but itself.
    cells = {(c["attack"], c["policy"], c["adoption"]): c for c in summary["cells"]}
    assert cells[("subprefix", "none", 0)]["attacker_frac"] == cells[("subprefix", "none", 100)]["attacker_frac"]
    assert cells[("subprefix", "rov", 100)]["attacker_frac"]["mean"] == 0.0
    assert cells[("subprefix", "rov", 0)]["attacker_frac"]["mean"] > 0.5
    lo, hi = cells[("forged-origin", "aspa", 50)]["attacker_frac"]["ci90"]
    assert lo <= cells[("forged-origin", "aspa", 50)]["attacker_frac"]["mean"] <= hi
    assert (tmp_path / "success.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "summary.json").read_text())["trials"] == len(rows)


def test_same_seed_same_results_on_one_and_two_processes(graph_file, tmp_path):
    from bgpsim.graph.topology import read_caida

    topo = read_caida(graph_file)
    sw = sweep_of(graph_file)
    run_sweep(topo, sw, tmp_path / "one", figures=False)
    run_sweep(read_caida(graph_file), sw, tmp_path / "two", workers=2, figures=False)
    assert without_seconds(tmp_path / "one" / "results.csv") == without_seconds(tmp_path / "two" / "results.csv")
    other = sweep_of(graph_file, seed=4)
    run_sweep(topo, other, tmp_path / "seed4", figures=False)
    assert without_seconds(tmp_path / "one" / "results.csv") != without_seconds(tmp_path / "seed4" / "results.csv")


def test_an_interrupted_sweep_resumes_without_redoing_trials(graph_file, tmp_path):
    from bgpsim.graph.topology import read_caida

    topo = read_caida(graph_file)
    sw = sweep_of(graph_file)
    run_sweep(topo, sw, tmp_path / "full", figures=False)
    full = (tmp_path / "full" / "results.csv").read_text().splitlines()
    # Interrupted: 20 rows done, the 21st cut off mid-line.
    out = tmp_path / "cut"
    run_sweep(topo, sweep_of(graph_file), out, figures=False)
    lines = (out / "results.csv").read_text().splitlines(keepends=True)
    (out / "results.csv").write_text("".join(lines[:21]) + lines[21][:15])
    run_sweep(topo, sw, out, figures=False)
    again = (out / "results.csv").read_text().splitlines()
    assert again[:21] == [x.rstrip("\n") for x in lines[:21]]  # kept rows, their seconds too: not redone
    assert [r.rsplit(",", 1)[0] for r in again] == [r.rsplit(",", 1)[0] for r in full]


def test_resume_refuses_other_parameters(graph_file, tmp_path):
    from bgpsim.base.errors import InputError
    from bgpsim.graph.topology import read_caida

    topo = read_caida(graph_file)
    run_sweep(topo, sweep_of(graph_file, trials=1), tmp_path, figures=False)
    with pytest.raises(InputError, match="other parameters"):
        run_sweep(topo, sweep_of(graph_file, trials=1, seed=9), tmp_path)


def test_dask_local_cluster_gives_the_same_results(graph_file, tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs the pip package distributed (Dask)")
    from bgpsim.graph.topology import read_caida

    sw = sweep_of(graph_file, policies=("rov", "bgpsec"))
    run_sweep(read_caida(graph_file), sw, tmp_path / "one", figures=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            run_sweep(read_caida(graph_file), sw, tmp_path / "dask", client=client, figures=False)
    assert without_seconds(tmp_path / "one" / "results.csv") == without_seconds(tmp_path / "dask" / "results.csv")


def bgpsim(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "bgpsim", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_cli_sweep_runs_and_prints_a_table(graph_file, tmp_path):
    r = bgpsim("sweep", "--topology", str(graph_file), "--policy", "rov,path-end", "--adoption", "0,100%", "--trials", "2",
               "--out", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    assert "subprefix" in r.stdout and "path-end" in r.stdout
    r = bgpsim("sweep", "--topology", str(graph_file), "--policy", "rov,path-end", "--adoption", "0,100%", "--trials", "2",
               "--out", str(tmp_path / "s"), "--format", "json")
    assert json.loads(r.stdout)["trials"] == 1 * 2 * 2 * 2 and r.stderr == ""
    # the same points written otherwise: shares, and the old bare percentages and --json with a note each
    for adoption, notes in (("0,1", 0), ("0%,1.0", 0), ("0,100", 1)):
        r = bgpsim("sweep", "--topology", str(graph_file), "--policy", "rov,path-end", "--adoption", adoption, "--trials",
                   "2", "--out", str(tmp_path / "s"), "--json", "--no-figures")
        assert json.loads(r.stdout)["trials"] == 8, r.stderr
        assert r.stderr.count("bgpsim: note: ") == 1 + notes and "--json is deprecated; use --format" in r.stderr


def test_no_figures_the_same_data_files(graph_file, tmp_path):
    """--no-figures: no success.png, the table does not name one, and the data files are the same."""
    args = ["sweep", "--topology", str(graph_file), "--adoption", "0,100%", "--trials", "2"]
    assert bgpsim(*args, "--out", str(tmp_path / "drawn"), "--quiet").returncode == 0
    r = bgpsim(*args, "--out", str(tmp_path / "plain"), "--no-figures")
    assert r.returncode == 0, r.stderr
    drawn, plain = tmp_path / "drawn", tmp_path / "plain"
    assert (drawn / "success.png").exists() and not (plain / "success.png").exists() and "success.png" not in r.stdout
    assert without_seconds(drawn / "results.csv") == without_seconds(plain / "results.csv")
    assert (drawn / "summary.json").read_text() == (plain / "summary.json").read_text()


@pytest.mark.parametrize("args, message", [
    (["--policy", "rov,magic"], "unknown policy 'magic'; want one of none, rov, rov-deprefer"),
    (["--attack", "teleport"], "unknown attack 'teleport'; want one of prefix, subprefix"),
    (["--adoption", "0,101"], "want a share: 0 to 1, or 0% to 100%, got '101'"),
    (["--adoption", "-5"], "want a share: 0 to 1, or 0% to 100%, got '-5'"),
    (["--adoption", "12.5%"], "want whole percents, got '12.5%'"),
    (["--adopt", "everyone"], "invalid choice"),
    (["--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler answers there"),
])
def test_cli_sweep_bad_input(graph_file, tmp_path, args, message):
    r = bgpsim("sweep", "--topology", str(graph_file), "--out", str(tmp_path / "x"), *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_cli_steady_run_with_adopters_file(graph_file, tmp_path):
    from bgpsim.graph.topology import read_caida

    topo = read_caida(graph_file)
    stubs = [int(topo.asns[i]) for i in topo.stubs()]
    adopters = tmp_path / "adopters.txt"
    big = [a for a in topo.asns.tolist() if a not in stubs[:2]][:50]
    adopters.write_text("# the big ones\n" + ", ".join(str(a) for a in big) + "\n")
    r = bgpsim("run", "--engine", "steady", "--topology", str(graph_file), "--attack", "subprefix", "--attacker",
               str(stubs[0]), "--victim", str(stubs[1]), "--policy", "rov", "--adopters", f"@{adopters}",
               "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(tmp_path / "o" / "ases.csv")))
    assert len(rows) == topo.n and {"asn", "outcome"} <= set(rows[0])
    result = json.loads((tmp_path / "o" / "result.json").read_text())
    assert result["engine"] == "steady" and result["scenario"]["defence"] == {"policy": "rov", "adopters": 50, "settings": ""}
    assert (tmp_path / "o" / "report.html").exists() and (tmp_path / "o" / "outcome.png").exists()
    adopters.write_text("# the big ones\n5 99999999\n")
    r = bgpsim("run", "--engine", "steady", "--topology", str(graph_file), "--attack", "subprefix", "--policy", "rov",
               "--adopters", f"@{adopters}", "--out", str(tmp_path / "o2"))
    assert r.returncode == 2 and f"{adopters}:2:" in r.stderr and "99999999" in r.stderr
    assert not (tmp_path / "o2").exists()


def test_adopter_choices(graph_file):
    from bgpsim.sim.sweep import _adopters, _pair
    from bgpsim.graph.topology import read_caida

    topo = read_caida(graph_file)
    a, v = _pair(topo, 3, 0, "subprefix")
    assert a != v and not topo.customers[a] and not topo.customers[v]
    big = Sweep(str(graph_file), ("subprefix",), ("rov",), (20,), 1, 3, "top-cone")
    chosen = set(_adopters(topo, big, 20, 0, a, v).tolist())
    assert v in chosen and a not in chosen and len(chosen) == round(0.2 * (topo.n - 2)) + 1
    cones = topo.cone_sizes
    others = [i for i in range(topo.n) if i not in (a, v)]
    assert min(cones[i] for i in chosen - {v}) >= max(cones[i] for i in set(others) - chosen)
    t1 = Sweep(str(graph_file), ("subprefix",), ("rov",), (50,), 1, 3, "tier1")
    clique = {topo.index[x] for x in topo.clique}
    chosen = set(_adopters(topo, t1, 50, 0, a, v).tolist())
    assert chosen - {v} <= clique and len(chosen - {v}) == round(0.5 * len(clique))
    rnd = Sweep(str(graph_file), ("subprefix",), ("rov",), (30,), 2, 3)
    assert not np.array_equal(_adopters(topo, rnd, 30, 0, a, v), _adopters(topo, rnd, 30, 1, a, v))
    assert np.array_equal(_adopters(topo, rnd, 30, 0, a, v), _adopters(topo, rnd, 30, 0, a, v))


# 1 and 2, the input clique, peer; 3 and 4 below them; the edge ASes 5, 6 (under 3) and 7, 8 (under
# 4); 9, an IXP, under 1.
SUBCATEGORY_GRAPH = ("# input clique: 1 2\n# IXP ASes: 9\n1|2|0\n1|3|-1\n2|4|-1\n3|5|-1\n3|6|-1\n4|7|-1\n4|8|-1\n"
                     "1|9|-1\n")


@pytest.mark.parametrize("share, want", [(10, {"edge": 1, "clique": 1, "rest": 1}), (50, {"edge": 1, "clique": 1, "rest": 1}),
                                         (100, {"edge": 2, "clique": 2, "rest": 2})])
def test_subcategory_adoption_is_bgpys(tmp_path, share, want):
    """`--adopt subcategories`: the share of each subcategory, rounded up, attacker and victim aside,
    the victim adopting; the IXP never (BGPy's Scenario._get_randomized_adopting_asns)."""
    from bgpsim.graph.topology import read_caida
    from bgpsim.sim import sweep as sweeps

    (tmp_path / "g.txt").write_text(SUBCATEGORY_GRAPH)
    topo = read_caida(tmp_path / "g.txt")
    sw = sweeps.Sweep(str(tmp_path / "g.txt"), ("subprefix",), ("rov",), (share,), 1, adopt="subcategories")
    a, v = topo.index[5], topo.index[7]
    chosen = {int(topo.asns[i]) for i in sweeps._adopters(topo, sw, share, 0, a, v)}
    groups = {"edge": {6, 8}, "clique": {1, 2}, "rest": {3, 4}}
    assert 7 in chosen and 5 not in chosen and 9 not in chosen
    assert {g: len(chosen & m) for g, m in groups.items()} == want


@pytest.mark.parametrize("policy, share, want", [
    ("none", 0, ("", "", 1.0, 0.0)),  # nobody adopts: the edge ASes 6 and 8 follow the /24 to 5
    ("rov", 100, (0.0, 0.0, "", "")),  # every edge AS adopts (the IXP is not one), and none reaches 5
])
def test_the_edge_shares_of_a_trial(tmp_path, policy, share, want):
    from bgpsim.graph.topology import read_caida
    from bgpsim.sim import sweep as sweeps
    from bgpsim.sim import trial

    (tmp_path / "g.txt").write_text(SUBCATEGORY_GRAPH)
    topo = read_caida(tmp_path / "g.txt")
    sw = sweeps.Sweep(str(tmp_path / "g.txt"), ("subprefix",), (policy,), (share,), 1, adopt="subcategories")
    a, v = topo.index[5], topo.index[7]
    res = trial.run(topo, "subprefix", a, v, policy, sweeps._adopters(topo, sw, share, 0, a, v) if policy != "none" else ())
    got = sweeps._edge_shares(topo, res, sweeps._adopters(topo, sw, share, 0, a, v) if policy != "none" else ())
    assert tuple(got[c] for c in sweeps.EDGE_COLUMNS) == want
