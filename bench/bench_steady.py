"""Benchmark: the converged-state engine on the 2025 Internet graph (78,643 ASes), side by side with
BGPy 13.0 (its own venv, .venv-bgpy or $BGPY_PYTHON) in the same run, on the same trials.

Ours: graph load; per defence (or those --policy names), the median of --trials trials of the
--attack (default: a sub-prefix hijack) with the defence at
10 % random adoption (victim adopting, attacker not), data-plane outcome included; peak RSS. BGPy:
graph build and --bgpy-trials of the ROV trials; the ratio of medians; and whether every AS's outcome
agreed. Figures only; nothing is asserted.
With --sweeps N, only the compiled sweeps of N propagations (no defence), timed alone.
Usage: python bench/bench_steady.py [--trials N] [--bgpy-trials K] [--no-bgpy] [--attack KIND]
       [--policy NAME,...] [--profile] [--sweeps N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CAIDA = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"
BGPY_NAMES = {"rov": "rov", "peer-rov": "peer-rov-as-documented", "aspa": "aspa", "path-end": "path-end",
              "bgpsec": "bgpsec", "otc": "otc", "enforce-first-as": "enforce-first-as"}


def sweeps(plan, n: int) -> None:
    """The compiled sweeps alone (core/steady.c's steady_sweeps, the standard model), each from one random
    origin: the median and fastest tenth, and a digest of the routes (the same before and after)."""
    import hashlib

    from bgpsim import _core
    from bgpsim.sim.engine.steady import NONE

    rnd, ts, digest = random.Random(2025), [], hashlib.sha256()
    for o in (rnd.randrange(plan.n) for _ in range(n)):
        rel, nh = np.full(plan.n, NONE, dtype=np.int8), np.full(plan.n, -1, dtype=np.int64)
        length, seed = np.zeros(plan.n, dtype=np.int64), np.full(plan.n, -1, dtype=np.int64)
        rel[o], length[o], seed[o] = 0, 1, 0
        t = time.perf_counter()
        _core.steady_sweeps(*plan.core, rel, nh, length, seed, np.asarray([o], dtype=np.int32), None)
        ts.append(time.perf_counter() - t)
        for a in (rel, nh, length):
            digest.update(a.tobytes())
    ts.sort()
    print(f"  sweeps of {n} propagations: median {1000 * ts[n // 2]:.3f} ms, fastest tenth {1000 * ts[n // 10]:.3f} ms; "
          f"digest {digest.hexdigest()[:16]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--bgpy-trials", type=int, default=3)
    ap.add_argument("--no-bgpy", action="store_true")
    ap.add_argument("--attack", default="subprefix", help="the attack of our trials (BGPy's stay sub-prefix hijacks)")
    ap.add_argument("--policy", help="comma-separated defences to time (default: every one; rov always)")
    ap.add_argument("--profile", action="store_true", help="then the ROV trials again under cProfile: where the time goes")
    ap.add_argument("--sweeps", type=int, metavar="N",
                    help="only the compiled sweeps of N propagations from random origins, no defence: median, a digest")
    args = ap.parse_args()

    t = time.perf_counter()
    from bgpsim.graph.topology import read_caida

    topo = read_caida(CAIDA)
    load = time.perf_counter() - t
    from bgpsim.sim import trial
    from bgpsim.sim.defences import DEFENCES
    from bgpsim.sim.engine.steady import plan_for

    t = time.perf_counter()
    plan = plan_for(topo)
    plan_s = time.perf_counter() - t
    print(f"graph: {CAIDA.name}, {topo.n:,} ASes, {topo.links:,} links")
    print(f"ours: load {load:.2f} s, solver plan {plan_s:.3f} s")
    if args.sweeps:
        return sweeps(plan, args.sweeps)
    rnd = random.Random(2025)
    stubs = topo.stubs()
    trials = []
    for _ in range(args.trials):
        v, a = rnd.sample(stubs, 2)
        adopters = sorted(set(rnd.sample(range(topo.n), round(0.1 * topo.n))) - {a} | {v})
        trials.append((a, v, np.asarray(adopters)))
    medians = {}
    results = {}
    names = ["rov", *[p for p in args.policy.split(",") if p != "rov"]] if args.policy else list(DEFENCES)
    for name in names:
        ts = []
        for a, v, ad in trials:
            t = time.perf_counter()
            res = trial.run(topo, args.attack, a, v, name, ad, plan)
            ts.append(time.perf_counter() - t)
            if name == "rov":
                results[(a, v)] = res.outcome
        medians[name] = float(np.median(ts))
        print(f"  {name:<17} {args.attack} trial, 10 % adoption: median {1000 * medians[name]:6.1f} ms "
              f"(min {1000 * min(ts):.1f}, max {1000 * max(ts):.1f}) over {len(ts)}")
    print(f"ours: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (this process)")
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        for a, v, ad in trials:
            trial.run(topo, args.attack, a, v, "rov", ad, plan)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)
    if args.no_bgpy or args.attack != "subprefix":
        if not args.no_bgpy:
            print("BGPy: compared on sub-prefix hijacks only (run without --attack)")
        return
    py = os.environ.get("BGPY_PYTHON") or str(ROOT / ".venv-bgpy" / "bin" / "python")
    if not Path(py).exists():
        print("BGPy: not measured (needs bgpy-pkg in .venv-bgpy or $BGPY_PYTHON)")
        return
    asn = lambda i: int(topo.asns[i])
    reqs = [{"graph": str(CAIDA), "attack": "subprefix", "attacker": asn(a), "victim": asn(v), "policy": "rov",
             "adopters": [asn(i) for i in ad]} for a, v, ad in trials[:args.bgpy_trials]]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "req.json").write_text(json.dumps(reqs))
        t = time.perf_counter()
        subprocess.run([py, str(ROOT / "bench" / "bgpy_trials.py"), str(Path(tmp) / "req.json"), str(Path(tmp) / "out.json")],
                       check=True)
        wall = time.perf_counter() - t
        got = json.loads((Path(tmp) / "out.json").read_text())
    bgpy_trial = float(np.median([x["seconds"] for x in got["trials"]]))
    agree, extra = 0, set()
    for (a, v, _), x in zip(trials, got["trials"]):
        ours = {str(asn(i)): trial.OUTCOMES[o] for i, o in enumerate(results[(a, v)])}
        # BGPy also makes ASes of the file's '#' header lines that have no link: disconnected.
        extra |= {k for k in x["outcomes"] if k not in ours and x["outcomes"][k] == "disconnected"}
        diff = {k: (ours.get(k), o) for k, o in x["outcomes"].items() if k not in extra and ours.get(k) != o}
        agree += not diff and set(ours) <= set(x["outcomes"])
        if diff:
            print(f"  disagreement, attacker AS{asn(a)} victim AS{asn(v)}: {len(diff)} ASes, e.g. {list(diff.items())[:5]}")
    print(f"BGPy 13.0: graph build {got['load_s']:.1f} s, sub-prefix ROV 10 % trial median {bgpy_trial:.2f} s "
          f"over {len(got['trials'])}, peak RSS {got['peak_rss_mb']:.0f} MB, {wall:.0f} s wall in all")
    print(f"ratio (BGPy / ours), ROV trial: {bgpy_trial / medians['rov']:.0f}x; graph load: {got['load_s'] / load:.0f}x")
    print(f"agreement: {agree} of {len(got['trials'])} trials with every AS's outcome equal to BGPy's "
          f"(BGPy's {len(extra)} link-less ASes from the file's header lines aside)")


if __name__ == "__main__":
    main()
