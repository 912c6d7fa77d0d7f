"""The test suite's wall and CPU time, with a record of how fast a core ran meanwhile.

The two-core machines this runs on change speed by a factor of two or more from hour to hour (a
neighbour's load), which moves the suite's time more than most changes to it do. A pure-Python loop of
5 million additions is timed before the run, every 30 s during it (in a thread of this process, about
1 % of the CPU) and after it. It is a record, not a yardstick: on 2026-12-03 the loop read fastest
during the runs whose tests took the most CPU (docs/speed.md), so compare two versions of the suite
only by runs taken in turn in one sitting.

    python bench/bench_suite.py                    # -n auto (the README's command)
    python bench/bench_suite.py --workers 3,4,6    # one run each
    python bench/bench_suite.py -- tests/test_mrt.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from measure import ROOT

EVERY = 30.0  # seconds between loops during the run


def loop_seconds() -> float:
    """CPU seconds of this thread for 5 million additions in a Python loop: a core's speed now."""
    t = time.thread_time()
    s = 0
    for i in range(5_000_000):
        s += i
    return time.thread_time() - t


def suite(n: str, more: list[str]) -> tuple[float, float, list[float]]:
    """(wall s, CPU s of pytest and every process it waited for, the loop's times meanwhile) of one
    run; a failing suite ends the script with pytest's last lines (a failure is not a timing)."""
    loops: list[float] = []
    done = threading.Event()

    def sample():
        while not done.wait(EVERY):
            loops.append(loop_seconds())

    sampler = threading.Thread(target=sample, daemon=True)
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", n, *more],
                                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        done.set()
        sampler.join()
        if status != 0:
            out.seek(0)
            raise SystemExit(f"the suite failed (-n {n}):\n" + out.read().decode(errors="replace")[-3000:])
    return wall, usage.ru_utime + usage.ru_stime, loops


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="auto", help="pytest-xdist's -n, comma-separated (default auto)")
    ap.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = ap.parse_args()
    print(f"{'-n':>5} {'wall s':>8} {'CPU s':>8} {'CPUs busy':>9} {'loop before':>11} {'during (median, range)':>24} "
          f"{'after':>6}")
    for n in args.workers.split(","):
        before = loop_seconds()
        wall, cpu, loops = suite(n, args.pytest_args)
        after = loop_seconds()
        during = f"{statistics.median(loops):.2f} ({min(loops):.2f}-{max(loops):.2f})" if loops else "-"
        print(f"{n:>5} {wall:8.1f} {cpu:8.1f} {cpu / wall:9.2f} {before:11.2f} {during:>24} {after:6.2f}", flush=True)


if __name__ == "__main__":
    main()
