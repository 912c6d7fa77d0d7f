"""Benchmark: the class demo, the README's first command's run (`bgpsim run`: the bundled teaching
scenario, 30 ASes, with its figures and report), as a command and piece by piece.

As a command: --repeat runs of `python -m bgpsim run --out DIR` in a child process (wall time and
peak RSS from wait4). In this process: the imports, the simulation, the figures (drawn in forked
workers while the data files are written) and the report, timed where `bgpsim.sim.output.write`
calls them. With --root, another checkout's code runs the
command (before and after in one sitting, as bench/bench_incidents.py does). The same command with
--no-figures runs in turn with each run (where the checkout has the option): what the figures cost.
Figures only; nothing is asserted.
Usage: python bench/bench_demo.py [--repeat N] [--root DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from measure import compiled, timed  # (wall, CPU, peak RSS) of a child, from wait4

HERE = Path(__file__).resolve().parent.parent


def command(root: Path, out: Path, *more: str) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one `bgpsim run`."""
    wall, _, rss = timed([sys.executable, "-m", "bgpsim", "run", "--out", str(out), "--quiet", *more],
                         {**os.environ, "PYTHONPATH": str(root)}, root)
    return wall, rss


def pieces(out: Path) -> dict[str, float]:
    """Seconds of each part of one run in this process (its first: imports are not cached yet). The
    figures are drawn in forked workers while this process writes the data files and the report's
    steps: that part is timed as a whole."""
    times: dict[str, float] = {}
    t = time.perf_counter()
    import bgpsim.sim.run  # noqa: F401  what `bgpsim run` imports before it simulates
    from bgpsim.cli import main
    times["imports (command, engine)"] = time.perf_counter() - t
    t = time.perf_counter()
    import bgpsim.viz.canvas  # noqa: F401  matplotlib, imported once before the workers fork
    times["imports (figures: matplotlib)"] = time.perf_counter() - t
    import bgpsim.base.pool as pool
    import bgpsim.viz.report as report

    parts = {"run_chunks": "figures and data files (in parallel)", "write_report": "report"}
    for mod, name in ((pool, "run_chunks"), (report, "write_report")):
        def timed(*a, _f=getattr(mod, name), _name=parts[name], **k):
            t = time.perf_counter()
            try:
                return _f(*a, **k)
            finally:
                times[_name] = times.get(_name, 0.0) + time.perf_counter() - t
        setattr(mod, name, timed)
    t = time.perf_counter()
    assert main(["run", "--out", str(out), "--quiet"]) == 0
    whole = time.perf_counter() - t
    times["the rest (simulation)"] = whole - sum(times.get(k, 0.0) for k in parts.values())
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--root", type=Path, default=HERE, help="the checkout whose code runs the command")
    args = ap.parse_args()
    root = args.root.resolve()
    compiled(root)  # as an installed package has it
    with tempfile.TemporaryDirectory() as tmp:
        bare = "--no-figures" in (root / "bgpsim" / "commands" / "run.py").read_text()
        runs, plain = [], []
        for k in range(args.repeat):
            runs.append(command(root, Path(tmp) / f"run-{k}"))
            if bare:
                plain.append(command(root, Path(tmp) / f"plain-{k}", "--no-figures"))
        for what, rs in (("bgpsim run", runs), ("bgpsim run --no-figures", plain)):
            if rs:
                walls = [w for w, _ in rs]
                print(f"{what} ({root}): median {statistics.median(walls):.2f} s wall, min {min(walls):.2f}, "
                      f"max {max(walls):.2f} over {len(walls)}; peak RSS {max(r for _, r in rs):.0f} MB")
        if root == HERE:
            sys.path.insert(0, str(HERE))
            for name, secs in pieces(Path(tmp) / "pieces").items():
                print(f"  {name:<42} {secs:.3f} s")


if __name__ == "__main__":
    main()
