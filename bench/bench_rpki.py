"""Benchmark: the CA and the relying party on a large synthetic repository, beside rpki-client and FORT.

The repository: rpki.synthetic's spec with --roas ROAs under --cas CAs (three levels deep; made-up
resources, labelled synthetic), ASPAs in the draft-13 profile so rpki-client 8.2 reads them. Prints
our build time (wall; keys are generated in one worker process per CPU), then the validation time
of the same tree by us (`bgpsim rpki validate`, in-process), rpki-client 8.2 (`-n`) and FORT 1.5.4
(standalone), each reading it from disk, their VRP counts (which must agree), peak memory, and the
ratio of our validation time to rpki-client's. Figures only; nothing is asserted.

Usage: python bench/bench_rpki.py [--roas 50000] [--cas 100] [--work DIR] [--reuse]
  --work DIR   build there (default: a fresh temporary directory, removed afterwards)
  --reuse      validate the repository already built in --work instead of building it again
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the reference runners the tests use

from bgpsim.rpki.ca import build_repository  # noqa: E402
from bgpsim.rpki.rp import validate  # noqa: E402
from bgpsim.rpki.synthetic import synthetic_spec  # noqa: E402
from rpki_oracles import FORT, RPKI_CLIENT, fort, rpki_client  # noqa: E402


def peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roas", type=int, default=50_000)
    ap.add_argument("--cas", type=int, default=100)
    ap.add_argument("--work", type=Path)
    ap.add_argument("--reuse", action="store_true")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bgpsim-bench-rpki-"))
    out = work / "out"
    try:
        if not args.reuse:
            shutil.rmtree(out, ignore_errors=True)
            work.mkdir(parents=True, exist_ok=True)
            spec = work / "spec.toml"
            spec.write_text(synthetic_spec(args.roas, args.cas, aspas=args.cas, router_keys=10,
                                           aspa_profile="draft-13"))
            t = time.perf_counter()
            # an hour in the past: the references validate at the real time
            result = build_repository(spec, out, datetime.now(timezone.utc) - timedelta(hours=1))
            build_s = time.perf_counter() - t
            files = sum(len(f) for f in result.published.values())
            print(f"build: {args.roas:,} ROAs under {args.cas} CAs, {files:,} files in {build_s:.1f} s "
                  f"({build_s / max(args.roas, 1) * 1000:.2f} ms per ROA; peak RSS {peak_mb(resource.RUSAGE_SELF):.0f} MB "
                  f"here, {peak_mb(resource.RUSAGE_CHILDREN):.0f} MB in a signing worker)")
        tal = out / "ta.tal"
        t = time.perf_counter()
        ours = validate(tal, out)
        ours_s = time.perf_counter() - t
        vrps = {o.vrp for o in ours.payloads.origins}
        print(f"validate, bgpsim:     {ours_s:7.2f} s  {len(vrps):,} VRPs, {len(ours.payloads.aspas):,} ASPAs, "
              f"{len(ours.payloads.router_keys)} router keys, {len(ours.rejected)} rejected "
              f"(peak RSS {peak_mb(resource.RUSAGE_SELF):.0f} MB)")
        if RPKI_CLIENT:
            rc = rpki_client(out, tal, timeout=7200)
            rc_s = rc.seconds  # its own run: copying the tree into its cache layout is not counted
            print(f"validate, rpki-client: {rc_s:6.2f} s  {len(rc.vrps):,} VRPs, {len(rc.aspas):,} ASPAs, "
                  f"{len(rc.router_keys)} router keys; same VRPs as ours: {rc.vrps == vrps}")
            print(f"ratio bgpsim / rpki-client: {ours_s / rc_s:.2f}")
        else:
            print("rpki-client: not installed (Debian package rpki-client)")
        if FORT:
            ft = fort(out, tal, timeout=7200)
            ft_s = ft.seconds
            print(f"validate, FORT:       {ft_s:7.2f} s  {len(ft.vrps):,} VRPs; same VRPs as ours: {ft.vrps == vrps}")
            print(f"ratio bgpsim / FORT: {ours_s / ft_s:.2f}")
        else:
            print("FORT: not installed (Debian package fort-validator)")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
