"""Benchmark: all-destinations routing (`bgpsim.routes.compute_routes`) on the 2025 Internet graph.

Prints wall time, peak memory (max RSS of this process and of the largest worker) and output size
for every AS's route toward every origin, with --workers processes (default 2). With --origins N,
about N origins are routed (whole groups of an AS and the ASes single-homed to it, spread over the
graph, so that the share of derived origins is the graph's) and the figures are extrapolated to all
of them (pessimistic: the sampled groups share few chunks, so start-up and compression weigh
more; 3,000 origins extrapolated to 8.8 min and 2.28 GB where a full run took 6.3 min, 1.76 GB,
with an earlier, slower solver).
--breakdown M times the steps (solver, centrality, copies, compression) on M consecutive
origins in this process. Figures only; nothing is asserted.

--dask N solves on a local Dask cluster of N worker processes instead (as `bgpsim routes
--scheduler` does on a real one: each chunk's file comes back to be written here); --scheduler ADDR
on a running cluster. Every run prints a digest of its files (summary.json without its seconds), so
that a run on Dask and one on local processes can be seen to write the same bytes.

Usage: python bench/bench_routes.py [--workers 2 | --dask N | --scheduler ADDR] [--origins N] [--breakdown M]
       [--out DIR] [--keep]
Full graph: python bench/bench_routes.py --workers 2   (the output, 1.8 GB, goes to a temporary
directory removed at the end unless --out or --keep)
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CAIDA = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"
sys.path.insert(0, str(ROOT))


def digest(out: Path) -> str:
    """SHA-256 over every file's name and bytes, summary.json without its wall time."""
    import hashlib
    import json

    h = hashlib.sha256()
    for p in sorted(out.iterdir()):
        data = p.read_bytes()
        if p.name == "summary.json":
            s = json.loads(data)
            s.pop("seconds")
            data = json.dumps(s, sort_keys=True).encode()
        h.update(p.name.encode() + b"\0" + data)
    return h.hexdigest()[:16]


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.iterdir() if f.is_file())


def breakdown(topo, m: int) -> None:
    """Per-origin cost of each step on m consecutive origins of the storage order, from the middle
    of the graph, in this process (the solver and the centrality are timed by wrapping them)."""
    from bgpsim.sim import destinations as routes

    s = routes._Solver(topo, routes.CHUNK)
    seq, bases = routes._plan_order(topo, np.arange(topo.n), True)
    mid = topo.n // 2
    seq, bases = seq[mid:mid + m], bases[mid:mid + m]
    spent = {"propagate": 0.0, "centrality": 0.0}
    calls = {"propagate": 0}

    def timed(name, f):
        def g(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[name] += time.perf_counter() - t
                calls[name] = calls.get(name, 0) + 1
        return g

    orig = routes.propagate, routes._descendants
    routes.propagate, routes._descendants = timed("propagate", orig[0]), timed("centrality", orig[1])
    t_chunk = t_write = 0.0
    try:
        with tempfile.TemporaryDirectory() as d:
            for c in range(0, m, routes.CHUNK):
                o, b = seq[c:c + routes.CHUNK], bases[c:c + routes.CHUNK]
                t0 = time.perf_counter()
                nh, rel, _, _ = s.chunk(o, b)
                t1 = time.perf_counter()
                routes._write_chunk(Path(d) / f"{c}.npz", s.asn_ext[o], nh, rel, routes.LEVEL)
                t2 = time.perf_counter()
                t_chunk += t1 - t0
                t_write += t2 - t1
    finally:
        routes.propagate, routes._descendants = orig
    t = {f"propagate ({calls['propagate']} runs)": spent["propagate"], "centrality": spent["centrality"],
         "copies, derivations, transpose": t_chunk - spent["propagate"] - spent["centrality"], "compress+write": t_write}
    total = sum(t.values())
    print(f"per-origin breakdown over {m} origins (one process):")
    for k, v in t.items():
        print(f"  {k:<32} {1e3 * v / m:7.2f} ms  {100 * v / total:5.1f}%")
    print(f"  {'total':<32} {1e3 * total / m:7.2f} ms  -> {total / m * topo.n / 60:.1f} min for all {topo.n:,} origins on one core")
    print(f"  propagate alone: {1e3 * spent['propagate'] / calls['propagate']:.2f} ms per run")


def sample(topo, m: int) -> np.ndarray:
    """About m origins that cost what the average origin costs: whole groups (an AS and the
    single-homed ASes whose routes are derived from its routes), every k-th group in storage order."""
    from bgpsim.sim.destinations import _plan_order

    seq, bases = _plan_order(topo, np.arange(topo.n), True)
    group = np.cumsum(np.concatenate(([0], bases[1:] != bases[:-1])))
    stride = max(1, round(topo.n / m))
    return np.sort(seq[group % stride == 0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dask", type=int, default=0, metavar="N", help="on a local Dask cluster of N worker processes")
    ap.add_argument("--scheduler", help="on the Dask cluster at this address")
    ap.add_argument("--origins", type=int, default=0, help="route toward N origins only and extrapolate (0: all)")
    ap.add_argument("--breakdown", type=int, default=0, metavar="M", help="also time the steps on M origins")
    ap.add_argument("--topology", default=str(CAIDA))
    ap.add_argument("--out", help="output directory (default: a temporary one, removed unless --keep)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    from bgpsim.sim.destinations import compute_routes
    from bgpsim.graph.topology import load_topology

    t0 = time.perf_counter()
    topo = load_topology(args.topology)
    load_s = time.perf_counter() - t0
    n = topo.n
    print(f"graph {topo.name}: {n:,} ASes, {len(topo.p2c):,} p2c + {len(topo.p2p):,} p2p links, loaded in {load_s:.1f} s")
    if args.breakdown:
        breakdown(topo, args.breakdown)

    origins = None
    if args.origins:
        origins = topo.asns[sample(topo, args.origins)].tolist()
    scratch = None
    if args.out:
        out = Path(args.out)
    else:
        scratch = Path(tempfile.mkdtemp(prefix="bench-routes."))
        out = scratch / "routes"
    last = [time.perf_counter()]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 30 or done == total:
            last[0] = now
            print(f"  {done:,}/{total:,} origins, {now - t1:.0f} s", file=sys.stderr, flush=True)

    cluster = client = None
    where = f"{args.workers} worker(s)"
    if args.dask or args.scheduler:
        import distributed

        if args.dask:
            cluster = distributed.LocalCluster(n_workers=args.dask, threads_per_worker=1, processes=True,
                                               dashboard_address=None)
        client = distributed.Client(cluster or args.scheduler)
        where = f"Dask, {len(client.scheduler_info()['workers'])} worker(s)"
    try:
        t1 = time.perf_counter()
        summary = compute_routes(topo, out, workers=args.workers, origins=origins, progress=progress, client=client)
        wall = time.perf_counter() - t1
        size = du(out)
        rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        rss_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        k = summary["origins_done"]
        print("command: python bench/bench_routes.py " + " ".join(sys.argv[1:]))
        print(f"origins routed     {k:,} of {n:,} with {where}")
        print(f"wall time          {wall:.1f} s ({1e3 * wall / k:.2f} ms per origin overall)")
        print(f"peak RSS           {rss_self:.0f} MB this process, {rss_child:.0f} MB largest worker")
        print(f"output size        {size / 1e6:.1f} MB ({size / k / 1024:.1f} KiB per origin)")
        print(f"reachable pairs    {summary['reachable_pairs']:,} of {summary['pairs']:,}; mean path {summary['mean_path_length']} AS hops")
        if k < n:
            print(f"extrapolated to all {n:,} origins: {wall * n / k / 60:.1f} min, {size * n / k / 1e9:.2f} GB")
        hist = summary["path_length_histogram"]
        print("path-length histogram (AS hops: share of pairs): "
              + ", ".join(f"{h}: {c / summary['reachable_pairs']:.3f}" for h, c in hist.items()))
        with open(out / "centrality.csv", encoding="utf-8") as f:
            top = [next(f) for _ in range(6)][1:]
        print("most central ASes (asn,transit_pairs,share): " + "; ".join(x.strip() for x in top))
        print(f"files' digest      {digest(out)}")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        if scratch is not None and not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.keep or args.out:
        print(f"output kept in {out}")


if __name__ == "__main__":
    main()
