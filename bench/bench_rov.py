"""Benchmark: batch origin validation (rpki.rov.VRPTable.validate_arrays).

VRPs: a synthetic but realistic set of at least 800,000, made from the real prefix-to-origin tables
in ../shared/data/pfx2as (RouteViews 2014 IPv4, 2015 IPv4+IPv6): every announced (prefix, origin)
becomes a VRP, with maxLength equal to the prefix length for most and longer for a seeded share,
and a seeded share of covering VRPs for other ASes and for AS0 (synthetic, labelled so). Routes: the
same prefixes, repeated to --routes, with seeded origins: the real one, another AS, or a longer
sub-prefix. Prints index build time and routes per second (median of --repeat runs) and the share
of each state. Figures only; nothing is asserted.
Usage: python bench/bench_rov.py [--routes N] [--repeat K]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PFX2AS = ROOT.parent / "shared" / "data" / "pfx2as"

from bgpsim.rpki.rov import STATES, VRPTable  # noqa: E402
from bgpsim.rpki.synthetic import pfx2as, pfx2as_vrps  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    tables = [PFX2AS / "ipasn_20140513.dat.gz", PFX2AS / "ipasn6_20151101.dat.gz"]
    rows = [r for p in tables for r in pfx2as(p)]
    vrps = pfx2as_vrps(tables)
    t = time.perf_counter()
    vt = VRPTable(vrps)
    vt._families()
    build = time.perf_counter() - t
    v4 = [(p, a) for p, a in rows if p.version == 4]
    base_start = np.asarray([int(p.network_address) for p, _ in v4], dtype=np.uint64)
    base_len = np.asarray([p.prefixlen for p, _ in v4], dtype=np.int64)
    base_origin = np.asarray([a for _, a in v4], dtype=np.int64)
    pick = rng.integers(0, len(v4), args.routes)
    start, length, origin = base_start[pick], base_len[pick].copy(), base_origin[pick].copy()
    kind = rng.random(args.routes)
    origin[kind < 0.05] += 7  # another origin
    longer = (kind > 0.95) & (length < 32)
    length[longer] += 1  # a more specific
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        codes = vt.validate_arrays(4, start, length, origin)
        times.append(time.perf_counter() - t)
    med = float(np.median(times))
    counts = np.bincount(codes, minlength=4)
    print(f"VRPs: {len(vrps):,} (synthetic, from the pfx2as tables' {len(rows):,} announcements; "
          f"{sum(v.prefix.version == 6 for v in vrps):,} IPv6); index built in {build:.2f} s")
    print(f"routes: {args.routes:,} IPv4; validated in {med:.3f} s median of {args.repeat} "
          f"= {args.routes / med / 1e6:.2f} million routes/s")
    print("states: " + ", ".join(f"{STATES[k]} {100 * counts[k] / args.routes:.1f} %" for k in range(4)))


if __name__ == "__main__":
    main()
