"""Benchmark: the timed engine on the 2025 Internet graph (78,643 ASes), end to end.

Runs the real command in a child process, as a user would:
    bgpsim run --topology ../shared/data/caida/20250901.as-rel2.txt.bz2 --attack subprefix \
               --attacker 17557 --victim 43515
and prints wall time, events per second and the child's peak memory (max RSS), plus an in-process
breakdown (graph load, warm start + simulation, outputs). Figures only; nothing is asserted.
Usage: python bench/bench_timed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import compiled

ROOT = Path(__file__).resolve().parent.parent
CAIDA = ROOT.parent / "shared" / "data" / "caida" / "20250901.as-rel2.txt.bz2"
ARGS = ["--topology", str(CAIDA), "--attack", "subprefix", "--attacker", "17557", "--victim", "43515"]


def end_to_end(out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "bgpsim", "run", *ARGS, "--out", str(out), "--json"],
                       capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = json.loads(p.stdout)
    return {"wall_s": wall, "cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
            "peak_rss_mb": after.ru_maxrss / 1024, "events": r["events"], "messages": r["messages"],
            "converged_at": r["converged_at"], "attacker_share": r["outcome"]["attacker"]}


def breakdown(out: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from bgpsim.cli import build_parser
    from bgpsim.graph.topology import load_topology
    from bgpsim.sim import output
    from bgpsim.sim.plan import resolve
    from bgpsim.sim.choices import scenario_from
    from bgpsim.sim.run import simulate

    scn, _ = scenario_from(build_parser("run").parse_args(["run", *ARGS]))
    t0 = time.perf_counter()
    topo = load_topology(scn.topology)
    t1 = time.perf_counter()
    run = simulate(resolve(scn, topo))
    t2 = time.perf_counter()
    output.write(run, out)
    t3 = time.perf_counter()
    return {"load_s": t1 - t0, "simulate_s": t2 - t1, "outputs_s": t3 - t2, "events": run.events}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if not CAIDA.exists():
        sys.exit(f"needs {CAIDA} (the shared data directory)")
    compiled()  # as an installed package has it
    with tempfile.TemporaryDirectory() as tmp:
        print(f"bgpsim run {' '.join(ARGS)}")
        for k in range(args.repeat):
            e = end_to_end(Path(tmp) / f"e2e{k}")
            print(f"  end to end: {e['wall_s']:.1f} s wall, {e['cpu_s']:.1f} s CPU, peak RSS {e['peak_rss_mb']:.0f} MB; "
                  f"{e['events']:,} events ({e['events'] / e['wall_s']:,.0f} events/s of wall time), "
                  f"{e['messages']:,} messages; converged at t = {e['converged_at']:.1f} s simulated; "
                  f"attacker share {100 * e['attacker_share']:.1f} %")
        b = breakdown(Path(tmp) / "breakdown")
        print(f"  in process: load {b['load_s']:.1f} s, warm start + simulation {b['simulate_s']:.1f} s "
              f"({b['events'] / b['simulate_s']:,.0f} events/s), outputs {b['outputs_s']:.1f} s")
        print("  target (issue 2): at most 30 s wall and 1 GB on one core")


if __name__ == "__main__":
    main()
