"""Benchmark: `bgpsim validate` on a real BGP4MP_ET dump beside `bgpdump -m` printing the same file.

The dump: ../shared/data/mrt/ripe_bgpdump_testdata/updates.et-header.2015.gz (577,744 routes, a full
table from one RIS peer). The VRPs: synthetic but realistic, made from the real pfx2as tables
(rpki.synthetic.pfx2as_vrps: 902,604 VRPs), written as a Routinator/rpki-client CSV. Both commands
run as subprocesses in the same run; printed: wall time, CPU time and peak RSS of each, the ratios,
and the peak RSS of validating the dump once and twice over (twice the routes, the same prefixes:
memory should not grow with the length of the dump). Every run writes its output directory anew
(the previous one is removed beforehand, untimed: replacing an old output would add deleting its
90 MB to the run). Figures only; nothing is asserted.

Usage: python bench/bench_validate.py [--dump FILE] [--repeat K]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

from bgpsim.rpki.synthetic import pfx2as_vrps  # noqa: E402


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one run of `cmd`, its output discarded."""
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        if status != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed: {err.read().decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", type=Path, default=DATA / "mrt" / "ripe_bgpdump_testdata" / "updates.et-header.2015.gz")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--write-vrps", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write_vrps:
        vrps = pfx2as_vrps([DATA / "pfx2as" / "ipasn_20140513.dat.gz", DATA / "pfx2as" / "ipasn6_20151101.dat.gz"])
        with open(args.write_vrps, "w") as f:
            f.write("ASN,IP Prefix,Max Length,Trust Anchor\n")
            f.writelines(f"AS{v.asn},{v.prefix},{v.max_length},synthetic\n" for v in vrps)
        return
    # bytecode compiled beforehand, as pip does when it installs the package (with
    # PYTHONDONTWRITEBYTECODE set, each run would otherwise compile every module again)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "bgpsim"), str(ROOT / "rpki")], check=True,
                   stdout=subprocess.DEVNULL)
    work = Path(tempfile.mkdtemp(prefix="bgpsim-bench-validate-"))
    try:
        # made in a child: a forked child's peak RSS counts its parent's memory before exec
        subprocess.run([sys.executable, __file__, "--write-vrps", str(work / "vrps.csv")], check=True)
        count = sum(1 for _ in open(work / "vrps.csv")) - 1
        print(f"VRPs: {count:,} (synthetic, from the pfx2as tables)")
        ours = [sys.executable, "-m", "bgpsim.cli", "validate", str(args.dump), "--vrps", str(work / "vrps.csv"),
                "--out", str(work / "out"), "--quiet"]
        for _ in range(args.repeat):
            shutil.rmtree(work / "out", ignore_errors=True)  # each run writes a new directory, none replaced
            if shutil.which("bgpdump"):
                w, c, m = timed(["bgpdump", "-m", str(args.dump)])
                print(f"bgpdump -m:      {w:6.2f} s wall, {c:6.2f} s CPU, {m:6.0f} MB peak RSS")
            else:
                w = None
                print("bgpdump: not installed (Debian package bgpdump)")
            ow, oc, om = timed(ours)
            print(f"bgpsim validate: {ow:6.2f} s wall, {oc:6.2f} s CPU, {om:6.0f} MB peak RSS")
            if w:
                print(f"ratio bgpsim validate / bgpdump -m: {ow / w:.2f} (wall), {oc / c:.2f} (CPU)")
        twice = ours[:4] + [str(args.dump)] + ours[4:]
        shutil.rmtree(work / "out", ignore_errors=True)
        tw, _, tm = timed(twice)
        print(f"the dump twice over (twice the routes): {tw:6.2f} s wall, {tm:6.0f} MB peak RSS")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
