"""Reading an MRT update dump: `bgpsim dump --format bgpdump FILE > /dev/null` (the whole command,
Python's start-up included) and bgpsim's reader in-process (Route objects, numpy batches, the
Python `bgpdump -m` formatter of Route objects) beside `bgpdump -m FILE > /dev/null` (Debian
package `bgpdump`), measured in the same run.

    python3 bench/bench_dump.py [FILE]

Prints wall time, CPU time and peak RSS of each, and the ratio to bgpdump's wall time. Figures only:
the machine may be shared, so compare figures of one run.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from measure import compiled

DEFAULT = Path(__file__).resolve().parents[2] / "shared/data/mrt/ripe_bgpdump_testdata/updates.et-header.2015.gz"

CASES = {
    "routes": "n = sum(1 for _ in read_routes(f))",
    "batches": "n = sum(len(b) for b in read_batches(f))",
    "batches+origins": "n = sum(int((b.origin >= 0).sum()) for b in read_batches(f))",
    "bgpdump formatter": "n = write(read_routes(f), open(os.devnull, 'w'))",
}
CHILD = """
import os, resource, sys, time
from bgpsim.mrt import read_batches, read_routes
from bgpsim.mrt.bgpdump import write
f = sys.argv[1]
t, c = time.perf_counter(), time.process_time()
{code}
print(n, time.perf_counter() - t, time.process_time() - c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else str(DEFAULT)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    compiled()  # as an installed package has it
    rows = []
    if shutil.which("bgpdump"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(["bgpdump", "-m", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        rows.append(("bgpdump -m > /dev/null", None, wall, cpu, after.ru_maxrss))
    else:
        print("bgpdump not installed (Debian package `bgpdump`): no reference figures")
    with open(os.devnull, "wb") as null:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "bgpsim", "dump", "--format", "bgpdump", path], stdout=null,
                                env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        rows.append(("bgpsim dump (the command)", None if status else 0, time.perf_counter() - t,
                     usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
    for name, code in CASES.items():
        out = subprocess.run([sys.executable, "-c", CHILD.format(code=code), path], capture_output=True, text=True,
                             env=env, check=True).stdout.split()
        rows.append((f"bgpsim {name}", int(out[0]), float(out[1]), float(out[2]), int(out[3])))
    ref = rows[0][2] if rows and rows[0][1] is None else None
    print(f"{path}\n{'':28}{'count':>9}{'wall s':>9}{'cpu s':>8}{'peak RSS MiB':>14}{'x bgpdump':>11}")
    for name, n, wall, cpu, rss in rows:
        ratio = f"{wall / ref:.2f}" if ref else "-"
        print(f"{name:28}{'' if not n else n:>9}{wall:9.2f}{cpu:8.2f}{rss / 1024:14.1f}{ratio:>11}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
