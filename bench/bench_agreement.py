"""Agreement with BGPy 13.0 on the 2025 Internet graph (78,643 ASes), policy by policy: for each
defence BGPy has, each attack of the agreement test and each adoption share, --trials trials between
random stubs (adopters drawn at random, the victim adopting and the attacker not, as in BGPy), run by
both engines on the same requests; every AS's data-plane outcome compared. BGPy runs in its own venv
(.venv-bgpy or $BGPY_PYTHON), in the same run. Figures only; nothing is asserted.

Usage: python bench/bench_agreement.py [--trials N] [--adoption 0.1,0.5,1.0] [--policies rov,asra]
       [--attacks prefix,subprefix] [--bgpy-processes P]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
CAIDA = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"


def main() -> None:
    from test_bgpy import ATTACKS, POLICIES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1, help="trials per policy, attack and share (default 1)")
    ap.add_argument("--adoption", default="0.1,0.5,1.0", help="adoption shares (default 0.1,0.5,1.0)")
    ap.add_argument("--policies", default=",".join(p for p in POLICIES if p != "none"))
    ap.add_argument("--attacks", default=",".join(ATTACKS))
    ap.add_argument("--bgpy-processes", type=int, default=len(os.sched_getaffinity(0)),
                    help="BGPy processes, each building the graph (about 2.4 GB each; default: one per CPU)")
    args = ap.parse_args()
    policies, attacks = args.policies.split(","), args.attacks.split(",")
    shares = [float(x) for x in args.adoption.split(",")]

    from bgpsim.graph.topology import read_caida
    from bgpsim.sim import trial
    from bgpsim.sim.engine.steady import plan_for

    topo = read_caida(CAIDA)
    plan = plan_for(topo)
    asns = [int(a) for a in topo.asns]
    stubs = topo.stubs()
    rnd = random.Random(2025)
    cases, reqs = [], []
    for policy in policies:
        for attack in attacks:
            for share in shares:
                for _ in range(args.trials):
                    v, a = rnd.sample(stubs, 2)
                    adopters = sorted(set(rnd.sample(range(topo.n), round(share * topo.n))) - {a} | {v})
                    cases.append((policy, attack, share, a, v, adopters))
                    reqs.append({"graph": str(CAIDA), "attack": attack, "attacker": asns[a], "victim": asns[v],
                                 "policy": POLICIES[policy], "adopters": [asns[i] for i in adopters]})
    print(f"graph: {CAIDA.name}, {topo.n:,} ASes; {len(cases)} trials: {len(policies)} policies x {len(attacks)} "
          f"attacks x {len(shares)} shares x {args.trials}", flush=True)

    py = os.environ.get("BGPY_PYTHON") or str(ROOT / ".venv-bgpy" / "bin" / "python")
    with tempfile.TemporaryDirectory() as tmp:  # BGPy on --bgpy-processes processes, each with its own graph
        k = max(1, min(args.bgpy_processes, len(reqs)))
        t = time.perf_counter()
        procs = []
        for j in range(k):
            (Path(tmp) / f"reqs{j}.json").write_text(json.dumps(reqs[j::k]))
            procs.append(subprocess.Popen([py, str(ROOT / "bench" / "bgpy_trials.py"), str(Path(tmp) / f"reqs{j}.json"),
                                           str(Path(tmp) / f"out{j}.json")]))
        if any(p.wait() for p in procs):
            raise SystemExit("BGPy failed (its error is above)")
        parts = [json.loads((Path(tmp) / f"out{j}.json").read_text()) for j in range(k)]
        trials: list = [None] * len(reqs)
        for j, part in enumerate(parts):
            trials[j::k] = part["trials"]
        theirs = {"trials": trials, "load_s": max(p["load_s"] for p in parts),
                  "peak_rss_mb": max(p["peak_rss_mb"] for p in parts)}
        bgpy_wall = time.perf_counter() - t

    rows = defaultdict(lambda: [0, 0, 0, [], []])  # (policy, attack) -> trials, agreeing, ASes differing, ours s, BGPy s
    failed = defaultdict(int)  # (policy, attack) -> trials BGPy itself failed
    for (policy, attack, share, a, v, adopters), th in zip(cases, theirs["trials"]):
        if "error" in th:
            failed[(policy, attack)] += 1
            continue
        t = time.perf_counter()
        res = trial.run(topo, attack, a, v, policy, adopters, plan=plan)
        ours_s = time.perf_counter() - t
        ours = {str(asns[i]): trial.OUTCOMES[o] for i, o in enumerate(res.outcome)}
        # BGPy also makes the ASes named only in the file's '#' header lines, without links: disconnected
        # there, absent here (the README says so); they are left out
        differ = sum(1 for x, o in th["outcomes"].items() if ours.get(x, "disconnected") != o)
        r = rows[(policy, attack)]
        r[0] += 1
        r[1] += differ == 0
        r[2] += differ
        r[3].append(ours_s)
        r[4].append(th["seconds"])

    print(f"{'policy':<20} {'attack':<30} trials  equal  ASes differing  ours (median)  BGPy (median)")
    for (policy, attack), (n, equal, differ, ours_s, bgpy_s) in rows.items():
        print(f"{policy:<20} {attack:<30} {n:>6} {equal:>6} {differ:>15} {sorted(ours_s)[n // 2] * 1000:>11.1f} ms"
              f" {sorted(bgpy_s)[n // 2]:>12.2f} s")
    for (policy, attack), k in failed.items():
        print(f"{policy:<20} {attack:<30} BGPy failed {k} trials (the README's differences say why)")
    total = sum(r[0] for r in rows.values())
    equal = sum(r[1] for r in rows.values())
    print(f"every AS equal in {equal} of {total} trials; BGPy's wall time {bgpy_wall:.0f} s "
          f"(graph build {theirs['load_s']:.1f} s, peak {theirs['peak_rss_mb']:.0f} MB)")


if __name__ == "__main__":
    main()
