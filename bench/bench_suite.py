"""The test suite's wall and CPU time, and how fast the machine was meanwhile.

The two-core machines this runs on change speed by a factor of two to three from hour to hour (a
neighbour's load), which moves the suite's time more than most changes to it do. So a pure-Python loop
of 20 million additions is timed before and after each run, and each figure is also given at the
loop's reference time, 2.0 s (a quiet day here): the suite's CPU scales about as the loop's does.

    python bench/bench_suite.py                 # -n auto (the README's command)
    python bench/bench_suite.py --workers 3,4,6 # one run each
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from measure import ROOT

REFERENCE_LOOP = 2.0  # seconds for the loop on a quiet day here


def loop_seconds() -> float:
    """CPU seconds of 20 million additions in a Python loop: this machine's speed now."""
    t = time.process_time()
    s = 0
    for i in range(20_000_000):
        s += i
    return time.process_time() - t


def suite(n: str, more: list[str]) -> tuple[float, float]:
    """(wall s, CPU s of pytest and every process it waited for) of one run; a failing suite ends the
    script with pytest's last lines (a failure is not a timing)."""
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", n, *more],
                                stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        if status != 0:
            out.seek(0)
            raise SystemExit(f"the suite failed (-n {n}):\n" + out.read().decode(errors="replace")[-3000:])
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="auto", help="pytest-xdist's -n, comma-separated (default auto)")
    ap.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = ap.parse_args()
    print(f"{'-n':>5} {'wall s':>8} {'CPU s':>8} {'CPUs busy':>9} {'loop s':>11} {'wall at 2.0 s loop':>19}")
    for n in args.workers.split(","):
        before = loop_seconds()
        wall, cpu = suite(n, args.pytest_args)
        after = loop_seconds()
        loop = (before + after) / 2
        print(f"{n:>5} {wall:8.1f} {cpu:8.1f} {cpu / wall:9.2f} {before:5.2f}-{after:<5.2f} {wall * REFERENCE_LOOP / loop:19.1f}",
              flush=True)


if __name__ == "__main__":
    main()
