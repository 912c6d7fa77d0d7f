"""`bgpsim routes`: every AS's converged route toward every other AS (all-destinations routing)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from bgpsim.base.console import Bar

from . import count, topology


def register(sub, parser_class) -> None:
    ro = sub.add_parser("routes", help="every AS's converged route toward every other AS",
                        description="All-destinations routing: for every origin AS, every AS's converged route "
                                    "toward it (one origin at a time, no policy), with path-length and "
                                    "transit-centrality summaries.")
    ro.add_argument("--topology", metavar="FILE", help="CAIDA AS-relationship file or TOML topology (default: the bundled teaching topology)")
    ro.add_argument("--out", metavar="DIR", default="bgpsim-out/routes", help="output directory (default ./bgpsim-out/routes): new, empty, or an earlier output "
                    "of bgpsim, which is replaced; anything else is refused")
    where = ro.add_mutually_exclusive_group()
    where.add_argument("--workers", type=count, metavar="N", help="local processes (default: one per CPU)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="solve on a Dask cluster instead: its workers send each chunk of routes back to be written "
                            "here (they need no shared file system); the files are the same as on one machine")
    ro.add_argument("--quiet", action="store_true", help="print nothing but errors")
    ro.set_defaults(handler=cmd_routes)


def cmd_routes(args) -> int:
    from bgpsim.base import outdir
    from bgpsim.base.pool import auto_workers, connect
    from bgpsim.sim.destinations import compute_routes

    outdir.check(args.out, "routes")
    client = connect(args.scheduler) if args.scheduler else None  # before any work: an unreachable one is one line
    bar = Bar(not args.quiet and sys.stderr.isatty(), "origin")
    started = time.perf_counter()
    try:
        topo = topology(args.topology)
        summary = compute_routes(topo, Path(args.out), workers=args.workers or auto_workers(), progress=bar,
                                 client=client)
    finally:
        bar.close()
        if client is not None:
            client.close()
    if not args.quiet:
        print(f"bgpsim routes on {topo.name} ({topo.n:,} ASes): {summary.get('origins_done', topo.n):,} origins in "
              f"{time.perf_counter() - started:.1f} s; results in {args.out}")
    return 0
