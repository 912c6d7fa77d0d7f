"""All-destinations routing (bgpsim.routes): paths, classes, histogram and transit centrality worked
out by hand on a small graph; on random graphs, every stored path against the solver's Loc-RIB
path, brute-force summaries, and the same bytes with 1 or 2 workers."""

from __future__ import annotations

import csv
import filecmp
import json

import numpy as np
import pytest
from helpers import graph

from bgpsim.sim.engine.steady import Seed, propagate
from bgpsim.base.errors import InputError
from bgpsim.graph.generate import internet_like
from bgpsim.sim.policy import CUSTOMER, ORIGIN, PEER, PROVIDER
from bgpsim.sim.destinations import compute_routes, load_origin, load_route, single_homed

#          1 ======= 2            === peers; a line down: provider above customer
#         / \        |
#        3   4       5
#       / \ / \      |
#      9   6   7 === 8 === 10
# 3 and 4 are both providers of 6; 9 has one link only (single-homed to 3); 10 peers with 8 only.
P2C = [(1, 3), (1, 4), (2, 5), (3, 6), (4, 6), (4, 7), (5, 8), (3, 9)]
P2P = [(1, 2), (7, 8), (8, 10)]

# (origin, source): the source's Loc-RIB path, next hop first (worked out by hand).
HAND = {
    (6, 6): [], (6, 1): [3, 6], (6, 2): [1, 3, 6], (6, 3): [6], (6, 4): [6], (6, 5): [2, 1, 3, 6],
    (6, 7): [4, 6], (6, 8): [5, 2, 1, 3, 6], (6, 9): [3, 6], (6, 10): None,
    (7, 1): [4, 7], (7, 2): [1, 4, 7], (7, 3): [1, 4, 7], (7, 4): [7], (7, 5): [2, 1, 4, 7],
    (7, 6): [4, 7], (7, 8): [7], (7, 9): [3, 1, 4, 7], (7, 10): None,
    (8, 1): [2, 5, 8], (8, 2): [5, 8], (8, 3): [1, 2, 5, 8], (8, 4): [1, 2, 5, 8], (8, 5): [8],
    (8, 6): [3, 1, 2, 5, 8], (8, 7): [8], (8, 9): [3, 1, 2, 5, 8], (8, 10): [8],
    # toward 9, derived from 3's routes: 9's only link is to its provider 3
    (9, 3): [9], (9, 1): [3, 9], (9, 6): [3, 9], (9, 4): [1, 3, 9], (9, 2): [1, 3, 9],
    (9, 7): [4, 1, 3, 9], (9, 5): [2, 1, 3, 9], (9, 8): [5, 2, 1, 3, 9], (9, 10): None,
}


@pytest.fixture(scope="module")
def hand():
    return graph(p2c=P2C, p2p=P2P, name="routes")


@pytest.fixture(scope="module")
def hand_out(hand, tmp_path_factory):
    out = tmp_path_factory.mktemp("hand") / "routes"
    compute_routes(hand, out, chunk_size=4)
    return out


def test_hand_paths(hand_out):
    for (origin, source), want in HAND.items():
        assert load_route(hand_out, origin, source) == want, (origin, source)


def test_hand_classes(hand_out):
    r = load_origin(hand_out, 8)
    rel = dict(zip(r.asns.tolist(), r.rel.tolist()))
    assert rel == {1: PEER, 2: CUSTOMER, 3: PROVIDER, 4: PROVIDER, 5: CUSTOMER, 6: PROVIDER, 7: PEER,
                   8: ORIGIN, 9: PROVIDER, 10: PEER}
    assert dict(zip(r.asns.tolist(), r.nh.tolist()))[6] == 3  # 3 and 4 tie: the lower ASN wins
    r9 = load_origin(hand_out, 9)
    assert r9.rel[r9.asns.tolist().index(3)] == CUSTOMER and r9.rel[r9.asns.tolist().index(9)] == ORIGIN
    assert r9.rel[r9.asns.tolist().index(10)] == 9 and r9.nh[r9.asns.tolist().index(10)] == 0


def test_single_homed(hand):
    prov = single_homed(hand)
    assert {int(hand.asns[i]): int(hand.asns[p]) for i, p in enumerate(prov) if p >= 0} == {9: 3}


def test_hand_summary_and_centrality(hand, tmp_path):
    out = tmp_path / "r"
    s = compute_routes(hand, out, origins=[8, 6, 7])
    # paths by hand (HAND above), counted in AS hops
    assert s["path_length_histogram"] == {"1": 7, "2": 6, "3": 4, "4": 5, "5": 3}
    assert s["reachable_pairs"] == 25 and s["pairs"] == 27 and s["unreachable_pairs"] == 2
    assert s["mean_path_length"] == pytest.approx(66 / 25)
    assert s["ases"] == 10 and s["origins"] == 3 and s["origins_done"] == 3
    assert json.loads((out / "summary.json").read_text()) == s
    with open(out / "centrality.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # intermediate hops of the paths above: toward 6, 7 and 8
    want = {1: 3 + 4 + 4, 2: 2 + 1 + 5, 3: 5 + 1 + 2, 4: 1 + 6 + 0, 5: 1 + 0 + 6}
    assert [int(r["asn"]) for r in rows] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # most central first
    for r in rows:
        t = want.get(int(r["asn"]), 0)
        assert int(r["transit_pairs"]) == t
        assert float(r["share"]) == pytest.approx(t / 25, rel=1e-5)


def test_derived_origin_alone(hand, tmp_path):
    """9's routes come from 3's even when 3 is not an origin asked for."""
    s = compute_routes(hand, tmp_path / "r", origins=[9])
    assert s["solver_runs"] == 1
    for (origin, source), want in HAND.items():
        if origin == 9:
            assert load_route(tmp_path / "r", 9, source) == want
    # 3 carries the traffic of every routed AS but itself and 9: 1, 2, 4, 5, 6, 7, 8
    with open(tmp_path / "r" / "centrality.csv", newline="") as f:
        t = {int(r["asn"]): int(r["transit_pairs"]) for r in csv.DictReader(f)}
    assert t[3] == 7 and t[1] == 5 and t[2] == 2 and t[4] == 1 and t[5] == 1
    assert s["path_length_histogram"] == {"1": 1, "2": 2, "3": 2, "4": 2, "5": 1}


def test_reader_errors(hand_out, tmp_path):
    with pytest.raises(InputError):
        load_route(hand_out, 64512, 1)  # not an origin
    with pytest.raises(InputError):
        load_route(hand_out, 6, 64512)  # not an AS
    with pytest.raises(InputError):
        load_origin(tmp_path / "nothing", 6)


def _brute(topo, origins):
    """Histogram and transit counts by walking every Loc-RIB path."""
    hist, transit = {}, np.zeros(topo.n, dtype=np.int64)
    for o in origins:
        r = propagate(topo, None, [Seed(o)], None)
        for i in range(topo.n):
            p = r.path(i)
            if p and i != o:
                hist[str(len(p))] = hist.get(str(len(p)), 0) + 1
                for x in p[:-1]:
                    transit[x] += 1
    return dict(sorted(hist.items(), key=lambda kv: int(kv[0]))), transit


@pytest.mark.parametrize("n,seed", [(150, 3), (400, 11)])
def test_random_graph_against_solver(n, seed, tmp_path):
    topo = internet_like(n, seed)
    out = tmp_path / "r"
    s = compute_routes(topo, out, chunk_size=32)
    assert s["solver_runs"] < n  # some origins were single-homed: derived, not solved
    asns = topo.asns.tolist()
    for o in range(n):
        ribs = propagate(topo, None, [Seed(o)], None)
        got = load_origin(out, asns[o])
        assert got.rel.tolist() == ribs.rel.tolist()
        for i in range(n):
            p = ribs.path(i)
            assert got.path(asns[i]) == (None if p is None else [asns[x] for x in p])
    hist, transit = _brute(topo, range(n))
    assert s["path_length_histogram"] == hist
    assert s["reachable_pairs"] == sum(hist.values())
    with open(out / "centrality.csv", newline="") as f:
        got = {int(r["asn"]): int(r["transit_pairs"]) for r in csv.DictReader(f)}
    assert got == dict(zip(asns, transit.tolist()))


def _same_files(a, b, skip=("summary.json",)):
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    _, mismatch, errors = filecmp.cmpfiles(a, b, [x for x in names if x not in skip], shallow=False)
    assert not mismatch and not errors
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    for s in (sa, sb):
        s.pop("seconds")
        s.pop("solver_runs")
    assert sa == sb


def test_workers_and_derivation_give_the_same_bytes(tmp_path):
    topo = internet_like(300, 5)
    one = tmp_path / "one"
    compute_routes(topo, one, chunk_size=16)
    two = tmp_path / "two"
    calls = []
    compute_routes(topo, two, workers=2, chunk_size=16, progress=lambda d, t: calls.append((d, t)))
    _same_files(one, two)
    assert calls[-1] == (300, 300) and len(calls) == 19 and all(t == 300 for _, t in calls)
    solved = tmp_path / "solved"
    compute_routes(topo, solved, chunk_size=16, derive=False)
    _same_files(one, solved)


def test_a_dask_cluster_writes_what_one_machine_writes(tmp_path, capsys):
    """`bgpsim routes --scheduler` on a local Dask cluster: its workers send the chunks back to be
    written, and the files are those of one process, also where a worker runs two chunks at once; an
    unreachable scheduler is one line, before any work and with no output."""
    distributed = pytest.importorskip("distributed", reason="needs the pip package distributed (Dask)")
    from bgpsim.cli import main

    assert main(["routes", "--out", str(tmp_path / "one"), "--workers", "1", "--quiet"]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert main(["routes", "--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address, "--quiet"]) == 0
    _same_files(tmp_path / "one", tmp_path / "dask")
    assert main(["routes", "--out", str(tmp_path / "never"), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--scheduler tcp://127.0.0.1:9" in err[0] and not (tmp_path / "never").exists()
    big = internet_like(300, 5)  # more chunks than workers, on a graph with derived origins
    compute_routes(big, tmp_path / "big-one", chunk_size=16)
    # one worker of two threads: two chunks at once in one process, each on its own solver
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            compute_routes(big, tmp_path / "big-dask", chunk_size=16, client=client)
    _same_files(tmp_path / "big-one", tmp_path / "big-dask")


def test_spawn_workers(tmp_path):
    topo = internet_like(120, 2)
    origins = topo.asns[::3].tolist()
    compute_routes(topo, tmp_path / "a", origins=origins, chunk_size=8)
    compute_routes(topo, tmp_path / "b", origins=origins, chunk_size=8, workers=2, start_method="spawn")
    _same_files(tmp_path / "a", tmp_path / "b")


def test_interrupted_run_leaves_the_old_output(hand, tmp_path):
    out = tmp_path / "r"
    compute_routes(hand, out, origins=[6], chunk_size=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        compute_routes(hand, out, origins=[6, 7, 8], chunk_size=1, progress=stop)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["r"]  # no temporary directory left behind
    with pytest.raises(KeyboardInterrupt):
        compute_routes(hand, tmp_path / "new", progress=stop)
    assert not (tmp_path / "new").exists()


def test_rewritten_directory_is_read_afresh(hand, tmp_path):
    out = tmp_path / "r"
    compute_routes(hand, out, origins=[6])
    assert load_route(out, 6, 8) == [5, 2, 1, 3, 6]
    compute_routes(hand, out, origins=[8])
    assert load_route(out, 8, 6) == [3, 1, 2, 5, 8]
    with pytest.raises(InputError):
        load_route(out, 6, 8)
