"""`bgpsim sweep`: attack success against defence adoption, many trials on the converged-state engine."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bgpsim.base.console import Bar
from bgpsim.base.errors import InputError

from . import count, renamed, seed_arg, share, split_list, topology

SWEEP_EPILOG = """\
examples:
  bgpsim sweep --trials 20
      ROV against sub-prefix hijacks on the teaching topology, 0 to 100 % adoption
  bgpsim sweep --topology ../shared/data/caida/20250901.as-rel2.txt.bz2 --attack subprefix,forged-origin \\
               --policy rov,aspa,bgpsec,path-end --trials 100 --workers 2 --out sweep-2025
      the 78,643-AS Internet: 2 x 4 x 11 x 100 = 8,800 trials
  bgpsim sweep --trials 100 --scheduler tcp://10.0.0.5:8786
      the trials on a Dask cluster (pip install '.[cluster]'; dask-scheduler, and dask-worker
      tcp://10.0.0.5:8786 on each machine)

each trial draws an attacker and a victim among the stubs (a leaker among multihomed stubs) and, per
adoption level, the adopters; the victim adopts, the attacker does not (BGPy's convention). "none"
as a policy is the baseline without a defence.

outputs (in --out): results.csv (one row per trial: policy, attack, adoption, trial, attacker, victim,
attacker_frac, victim_frac, disconnected_frac, loop_frac, diverted (traffic share weighted by
customer cone), the attacker's and the disconnected share among adopting and other edge ASes,
seconds), summary.json (means and 90 % confidence intervals), success.png (not with --no-figures).
The same seed gives the same results.csv (seconds aside) on 1 process, W processes or Dask; an
interrupted sweep resumes where it stopped when run again with the same options.
exit status: 0 done, 2 bad input.
"""



def register(sub, parser_class) -> None:
    from bgpsim.sim.attacks import STEADY_KINDS
    from bgpsim.sim.sweep import ADOPT, POLICIES

    sw = sub.add_parser("sweep", help="attack success against defence adoption, many trials, on the converged-state engine",
                        description="Adoption sweep: for every attack, policy and adoption level, run --trials trials on "
                                    "the converged-state engine and report how often the attacker wins.",
                        epilog=SWEEP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sw.add_argument("--topology", metavar="FILE", help="CAIDA AS-relationship file or TOML topology (default: the bundled 30-AS teaching topology)")
    sw.add_argument("--attack", default="subprefix", metavar="KIND[,KIND]", help=f"attacks (default subprefix): {', '.join(STEADY_KINDS)}")
    sw.add_argument("--policy", default="rov", metavar="NAME[,NAME]", help=f"defences (default rov): {', '.join(POLICIES)}; "
                    "several joined by '+' (rov+maxlen) drop what any of them drops")
    sw.add_argument("--adoption", default="0%,10%,20%,30%,40%,50%,60%,70%,80%,90%,100%", metavar="SHARE,SHARE,...",
                    help="adoption levels, each a share as everywhere in bgpsim: 0 to 1 (0.25) or a percentage (25%%), "
                         "in whole percents (default 0%%,10%%,...,100%%)")
    sw.add_argument("--trials", type=count, default=10, metavar="N", help="trials per point (default 10)")
    sw.add_argument("--seed", type=seed_arg, default=1, metavar="N", help="seed for attackers, victims and adopters (default 1)")
    sw.add_argument("--adopt", choices=ADOPT, default="random",
                    help="who adopts: a random share of all ASes (default), the largest customer cones first, a share of "
                         "the tier-1 clique, or that share of each of BGPy's subcategories, rounded up (edge ASes, the "
                         "clique, the rest; IXPs never)")
    where = sw.add_mutually_exclusive_group()
    where.add_argument("--workers", type=count, default=1, metavar="N", help="local processes (default 1)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the trials on a Dask distributed cluster")
    sw.add_argument("--out", metavar="DIR", default="bgpsim-out/sweep", help="output directory (default %(default)s): new, "
                    "empty, or an earlier sweep, resumed when run again with the same parameters; anything else is refused")
    sw.add_argument("--no-figures", action="store_true",
                    help="write no success.png: for scripts that read results.csv and summary.json")
    sw.add_argument("--quiet", action="store_true", help="no progress bar, no table; warnings and errors only")
    fmt = sw.add_argument("--format", choices=("table", "json"), default="table",
                          help="what goes to stdout: table (default), or json (summary.json)")
    renamed(sw, "--json", fmt, const="json")
    sw.set_defaults(handler=cmd_sweep)


def cmd_sweep(args) -> int:
    from bgpsim.base import outdir
    from bgpsim.base.pool import connect
    from bgpsim.sim.sweep import Sweep, run_sweep

    outdir.check(args.out, "sweep")

    sw = Sweep(args.topology or "teaching.toml", split_list(args.attack, "--attack"), split_list(args.policy, "--policy"),
               _percents(args.adoption), args.trials, args.seed, args.adopt)
    client = connect(args.scheduler) if args.scheduler else None
    topo = topology(args.topology)
    bar = Bar(not (args.quiet or args.format == "json") and sys.stderr.isatty(), "trial")
    started = time.perf_counter()
    try:
        summary = run_sweep(topo, sw, Path(args.out), workers=args.workers, client=client, progress=bar,
                            figures=not args.no_figures)
    finally:
        bar.close()
        if client is not None:
            client.close()
    if args.format == "json":
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    elif not args.quiet:
        print(_sweep_table(summary, topo, time.perf_counter() - started, Path(args.out), not args.no_figures))
    return 0


def _percents(text: str) -> tuple[int, ...]:
    """--adoption's shares as whole percents. A bare number above 1 was a percentage before shares were
    written alike everywhere: still read so for this release, with a note."""
    out = []
    for x in split_list(text, "--adoption"):
        try:
            v = share(x)
        except argparse.ArgumentTypeError as e:
            try:
                pct = float(x)
            except ValueError:
                raise InputError(f"--adoption: {e}") from None
            if not 1 < pct <= 100:
                raise InputError(f"--adoption: {e}") from None
            print(f"bgpsim: note: --adoption {x}: a bare number above 1 is deprecated; write {x}% (or {pct / 100:g})",
                  file=sys.stderr)
            v = pct / 100
        if abs(v * 100 - round(v * 100)) > 1e-9:
            raise InputError(f"--adoption: want whole percents, got {x!r}")
        out.append(round(v * 100))
    return tuple(out)


def _sweep_table(summary: dict, topo, wall: float, out: Path, figures: bool) -> str:
    sw = summary["sweep"]
    levels = sorted({c["adoption"] for c in summary["cells"]})
    lines = [f"bgpsim sweep on {topo.name} ({topo.n:,} ASes): {summary['trials']:,} trials in {wall:.1f} s, seed {sw['seed']}",
             "  attacker success (mean share of ASes) by adoption:",
             "  " + f"{'attack':<24}{'policy':<17}" + "".join(f"{x:>6}%" for x in levels)]
    cell = {(c["attack"], c["policy"], c["adoption"]): c for c in summary["cells"]}
    for attack in sw["attacks"]:
        for policy in sw["policies"]:
            vals = "".join(f"{100 * cell[(attack, policy, x)]['attacker_frac']['mean']:>7.1f}" for x in levels)
            lines.append(f"  {attack:<24}{cell[(attack, policy, levels[0])]['label']:<17}{vals}")
    lines.append(f"  results: {out / 'results.csv'}, {out / 'summary.json'}" + (f", {out / 'success.png'}" if figures else ""))
    return "\n".join(lines)
