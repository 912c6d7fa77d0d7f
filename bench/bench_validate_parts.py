"""What each of `bgpsim validate`'s speed measures buys, measured: the command as shipped beside the
same command with one measure taken away (monkeypatched in the child process, nothing else changed):

- the dumps read on a thread of their own (bgpsim.base.ahead) -> in the thread that checks;
- a big VRP file read on a thread while the dumps are read (bgpsim.validate.load.Loading) -> first;
- bzip2 decompressed by several threads (bgpsim.mrt.bzip2) -> by one;
- the process ended at once (bgpsim.base.console.end_now) -> the interpreter's own ending.

Run it under `taskset -c 0` too, as on a machine of one CPU.

The dump and VRPs are bench_validate.py's (the 2015 update dump, 902,604 synthetic VRPs as CSV);
each variant runs --repeat times, interleaved, and the median wall and CPU time are printed.

Usage: python bench/bench_validate_parts.py [--repeat K] [--dump FILE]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import compiled, timed  # (wall, CPU, peak RSS) of a child, from wait4

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"

VARIANTS = {
    "as shipped": "",
    "dumps read where checked": "from bgpsim.base import ahead; ahead.ahead = lambda items, depth=2, name='': iter(items)",
    "VRPs read first": "from bgpsim.validate import load; load.big = lambda path: False",
    "bzip2 by one thread": "from bgpsim.mrt import stream; init = stream.Chunks.__init__; "
                           "stream.Chunks.__init__ = lambda self, path, threads=True: init(self, path, threads=False)",
    "interpreter's own ending": "from bgpsim.base import console; console.end_now = sys.exit",
}
CHILD = "import sys; {patch}; from bgpsim import cli; sys.argv = ['bgpsim'] + sys.argv[1:]; cli.run()"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dump", type=Path, default=DATA / "mrt" / "ripe_bgpdump_testdata" / "updates.et-header.2015.gz")
    args = ap.parse_args()
    compiled()  # as an installed package has it
    work = Path(tempfile.mkdtemp(prefix="bgpsim-bench-parts-"))
    try:
        subprocess.run([sys.executable, str(ROOT / "bench" / "bench_validate.py"), "--write-vrps", str(work)], check=True)
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in VARIANTS}
        for _ in range(args.repeat):
            for name, patch in VARIANTS.items():
                shutil.rmtree(work / "out", ignore_errors=True)
                times[name].append(timed([sys.executable, "-c", CHILD.format(patch=patch or "pass"), "validate",
                                          str(args.dump), "--vrps", str(work / "vrps.csv"), "--out", str(work / "out"),
                                          "--quiet"])[:2])  # wall and CPU
        if shutil.which("bgpdump"):
            ref = statistics.median(timed(["bgpdump", "-m", str(args.dump)])[0] for _ in range(args.repeat))
            print(f"bgpdump -m: {ref:.2f} s wall (median of {args.repeat})")
        for name, runs in times.items():
            print(f"{name:32s} {statistics.median(w for w, _ in runs):5.2f} s wall, "
                  f"{statistics.median(c for _, c in runs):5.2f} s CPU (median of {len(runs)})")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
