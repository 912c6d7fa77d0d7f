"""Benchmark: `bgpsim incident NAME` for each bundled incident, end to end, as a user runs it.

Each incident runs as a command in a child process (the 2025 CAIDA graph from ../shared/data/caida,
through $BGPSIM_DATA); this prints its wall time, CPU time and peak RSS (the largest process, from
wait4). With --before, the code of an earlier checkout (a `git worktree` of an earlier commit, its
core built in place) runs each incident too, just before this one's, so that before and after are
measured side by side on a machine whose speed drifts:

    git worktree add /tmp/base HEAD~3 && (cd /tmp/base && python setup.py -q build_ext --inplace)
    python bench/bench_incidents.py --before /tmp/base youtube-2008 as7007-1997

With --trials, each incident's counterfactual trials alone, in one process (the graph loaded first,
not timed): their CPU time in all and per defence, and a digest of every trial's shares, which
before and after must share (the same rows, whatever ran them).

Figures only; nothing is asserted.
Usage: python bench/bench_incidents.py [--before DIR] [--repeat N] [--workers N] [--trials] [NAME ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import compiled, timed  # (wall, CPU, peak RSS) of a child, from wait4

HERE = Path(__file__).resolve().parent.parent
DATA = HERE.parent / "shared" / "data" / "caida"


# the --trials child: ROOT's code, one incident's trials job by job, CPU per defence, a digest of the shares
TRIALS = """
import collections, hashlib, sys, time
from bgpsim.graph.topology import load_topology
from bgpsim.sim.incident import Trials, find, load_incident
inc = load_incident(find(sys.argv[1]))
trials = Trials(inc, load_topology(inc.scenario.topology))
per, got = collections.Counter(), []
for k, c in trials.jobs():
    t = time.process_time()
    got += trials.run([(k, c)])
    per[trials.configs[c][0] or "none"] += time.process_time() - t
top = ", ".join(f"{d} {s:.2f}" for d, s in per.most_common(6))
print(f"{len(got)} trials, {sum(per.values()):.2f} s CPU (the most: {top}); digest "
      f"{hashlib.sha256(repr(sorted(got)).encode()).hexdigest()[:16]}")
"""


# whether the incident has an attack, and so counterfactual trials
ATTACKED = ("import sys; from bgpsim.sim.incident import find, load_incident; "
            "print(load_incident(find(sys.argv[1]), graph=False).scenario.attack is not None)")


def _env(root: Path) -> dict:
    """ROOT's code, the CAIDA graphs of ../shared/data."""
    return {**os.environ, "PYTHONPATH": str(root), "BGPSIM_DATA": str(DATA)}


def child(root: Path, code: str, name: str) -> str:
    """What Python `code` prints for incident `name`, run on ROOT's code."""
    return subprocess.run([sys.executable, "-c", code, name], env=_env(root), cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


def run(root: Path, name: str, out: Path, extra: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one `bgpsim incident NAME`."""
    return timed([sys.executable, "-m", "bgpsim", "incident", name, "--out", str(out), "--quiet", *extra], _env(root),
                 root)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help="incidents (default: every bundled one)")
    ap.add_argument("--before", type=Path, help="an earlier checkout, run beside this one")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each; the fastest is printed with the others")
    ap.add_argument("--workers", help="passed to this checkout's command")
    ap.add_argument("--trials", action="store_true", help="the counterfactual trials alone, in one process")
    args = ap.parse_args()
    names = args.names or subprocess.run([sys.executable, "-m", "bgpsim", "incident", "--list"], cwd=HERE, check=True,
                                         env={**os.environ, "PYTHONPATH": str(HERE)}, capture_output=True,
                                         text=True).stdout.split("\n")
    names = [n.split()[0] for n in names if n.strip()]
    roots = ([("before", args.before.resolve(), [])] if args.before else []) + \
        [("after" if args.before else "this", HERE, ["--workers", args.workers] if args.workers else [])]
    for _, root, _ in roots:
        compiled(root)  # as an installed package has it
    print(f"graph: {DATA / '20250901.as-rel2.txt.bz2'}; {os.cpu_count()} CPUs; "
          + "; ".join(f"{label}: {root}" for label, root, _ in roots))
    if args.trials:
        for name in names:
            for label, root, _ in roots:
                attacked = child(root, ATTACKED, name) == "True"
                print(f"  {name:<20} {label:<6} {child(root, TRIALS, name) if attacked else 'no attack: no trials'}",
                      flush=True)
        return
    total = {label: 0.0 for label, _, _ in roots}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            walls = {}
            for label, root, extra in roots:
                runs = [run(root, name, Path(tmp) / f"{name}-{label}-{k}", extra) for k in range(args.repeat)]
                wall, cpu, rss = min(runs)
                walls[label] = wall
                total[label] += wall
                others = ", ".join(f"{w:.1f}" for w, _, _ in runs)
                print(f"  {name:<20} {label:<6} {wall:6.1f} s wall ({others}), {cpu:6.1f} s CPU, peak RSS {rss:5.0f} MB",
                      flush=True)
            if args.before:
                print(f"  {name:<20} after/before {walls['after'] / walls['before']:.2f}", flush=True)
    print("all: " + ", ".join(f"{label} {t:.1f} s wall" for label, t in total.items()))


if __name__ == "__main__":
    main()
