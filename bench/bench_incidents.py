"""Benchmark: `bgpsim incident NAME` for each bundled incident, end to end, as a user runs it.

Each incident runs as a command in a child process (the 2025 CAIDA graph from ../shared/data/caida,
through $BGPSIM_DATA); this prints its wall time, CPU time and peak RSS (the largest process, from
wait4). With --root, the code of another checkout runs (a `git worktree` of an earlier commit, its
core built in place), so before and after are measured in the same sitting:

    git worktree add /tmp/base HEAD~3 && (cd /tmp/base && python setup.py -q build_ext --inplace)
    python bench/bench_incidents.py --root /tmp/base youtube-2008 as7007-1997
    python bench/bench_incidents.py youtube-2008 as7007-1997

Figures only; nothing is asserted.
Usage: python bench/bench_incidents.py [--root DIR] [--repeat N] [--workers N] [NAME ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
DATA = HERE.parent / "shared" / "data" / "caida"


def run(root: Path, name: str, out: Path, extra: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one `bgpsim incident NAME`."""
    env = {**os.environ, "PYTHONPATH": str(root), "BGPSIM_DATA": str(DATA)}
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "bgpsim", "incident", name, "--out", str(out), "--quiet", *extra],
                         cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{name}: exit status {os.waitstatus_to_exitcode(status)}: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help="incidents (default: every bundled one)")
    ap.add_argument("--root", type=Path, default=HERE, help="the checkout whose code runs (default: this one)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each; the fastest is printed with the others")
    ap.add_argument("--workers", help="passed to the command (the checkout must know the option)")
    args = ap.parse_args()
    root = args.root.resolve()
    names = args.names or subprocess.run([sys.executable, "-m", "bgpsim", "incident", "--list"], cwd=root, check=True,
                                         env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True,
                                         text=True).stdout.split("\n")
    names = [n.split()[0] for n in names if n.strip()]
    extra = ["--workers", args.workers] if args.workers else []
    print(f"code: {root}; graph: {DATA / '20250901.as-rel2.txt.bz2'}; {os.cpu_count()} CPUs")
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            runs = [run(root, name, Path(tmp) / f"{name}-{k}", extra) for k in range(args.repeat)]
            wall, cpu, rss = min(runs)
            total += wall
            others = ", ".join(f"{w:.1f}" for w, _, _ in runs)
            print(f"  {name:<20} {wall:6.1f} s wall ({others}), {cpu:6.1f} s CPU, peak RSS {rss:5.0f} MB", flush=True)
    print(f"all {len(names)}: {total:.1f} s wall")


if __name__ == "__main__":
    main()
