"""The `bgpsim` command."""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib.resources import files
from pathlib import Path

from .errors import InputError

DEFAULT_SCENARIO = "teaching-subprefix.toml"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _asn(text: str) -> int:
    t = text.upper().removeprefix("AS")
    if not t.isdigit() or not 0 < int(t) < 2**32:
        raise argparse.ArgumentTypeError(f"want an ASN such as 64500 or AS64500, got {text!r}")
    return int(t)


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"want a number of seconds >= 0, got {text!r}")
    return v


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"want a non-negative integer, got {text!r}")
    return int(text)


RUN_EPILOG = """\
examples:
  bgpsim run
      the bundled teaching scenario: a sub-prefix hijack on a 30-AS Internet, mitigated by the victim
  bgpsim run scenarios/teaching-leak.toml --out /tmp/leak
      a scenario file (see the README for its keys)
  bgpsim run --topology ../shared/data/caida/20250901.as-rel2.txt.bz2 --attack subprefix \\
             --attacker 17557 --victim 43515
      Pakistan Telecom's 2008 YouTube hijack, replayed on the 2025 Internet graph (78,643 ASes)

the model: one BGP speaker per AS; routes from customers preferred over peers over providers, then
shorter AS paths, then the lowest next-hop ASN; Gao-Rexford export; per-session MRAI (30 s, jitter
0.75-1.0); link delays uniform 10-50 ms; processing 1-10 ms per message. The victim's routes start
converged (warm start); the attack starts at t = 0 unless the scenario says otherwise.

outputs (in --out, default ./bgpsim-out/<scenario name>): result.json, ases.csv (one row per AS:
where its traffic goes at the end and its best route), timeline.csv, timeline.png, traffic.png,
topology.png (graphs of at most 60 ASes) and report.html (one self-contained page).
exit status: 0 done, 2 bad input (one line on stderr naming the file and line, or the option).
"""


def build_parser() -> argparse.ArgumentParser:
    from .scenario import ATTACK_HELP, ATTACKS

    parser = _Parser(prog="bgpsim", description="Simulate BGP hijacks and route leaks on AS graphs and see what each defence does.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    run = sub.add_parser("run", help="run a hijack or leak scenario on the timed BGP engine",
                         description="Run a scenario on the timed BGP engine: a TOML scenario file, the bundled "
                                     "teaching scenario (no arguments), or an ad-hoc attack on a topology file.",
                         epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("scenario", nargs="?", metavar="SCENARIO.toml", help="scenario file (default: the bundled teaching scenario)")
    adhoc = run.add_argument_group("ad-hoc attack (instead of a scenario file)")
    adhoc.add_argument("--topology", metavar="FILE", help="CAIDA AS-relationship file (serial-1 or -2; plain, .gz, .bz2) or a TOML topology")
    adhoc.add_argument("--attack", choices=ATTACKS, metavar="KIND",
                       help="; ".join(f"{k}: {v}" for k, v in ATTACK_HELP.items()))
    adhoc.add_argument("--prefix", metavar="P", help="the victim's prefix (default 1.2.0.0/16, as in BGPy)")
    adhoc.add_argument("--attack-prefix", metavar="P", help="what the attacker announces (default: the victim's prefix, or for sub-prefix attacks its first /24 or /48)")
    common = run.add_argument_group("options for both forms")
    common.add_argument("--attacker", type=_asn, metavar="ASN", help="attacking (or leaking) AS; default: drawn at random among stubs")
    common.add_argument("--victim", type=_asn, metavar="ASN", help="victim AS; default: drawn at random among stubs")
    common.add_argument("--mrai", type=_seconds, metavar="SECONDS", help="MRAI per session (default 30; 0 disables it)")
    common.add_argument("--weighting", metavar="uniform|cone|space|FILE",
                        help="traffic of each source AS: uniform, customer-cone size, address space originated (needs --pfx2as), or a CSV of asn,weight")
    common.add_argument("--pfx2as", metavar="FILE", help="prefix-to-AS table for --weighting space (pyasn or CAIDA prefix2as format)")
    common.add_argument("--seed", type=_seed, metavar="N", help="seed for every random choice (default 1); the same seed gives the same result.json")
    common.add_argument("--until", type=_seconds, metavar="SECONDS", help="stop the simulation at this time even if routing has not settled")
    common.add_argument("--out", metavar="DIR", help="output directory (default ./bgpsim-out/<scenario name>)")
    common.add_argument("--quiet", action="store_true", help="print nothing but errors")
    common.add_argument("--json", action="store_true", help="print result.json on stdout instead of the summary")
    return parser


def _scenario(args):
    from .prefix import parse_prefix
    from .scenario import WEIGHTINGS, Attack, Scenario, load_scenario

    if args.topology:
        if args.scenario:
            raise InputError("give a scenario file or --topology, not both")
        if not args.attack:
            raise InputError("--topology needs --attack KIND")
        prefix = parse_prefix(args.prefix if args.prefix else "1.2.0.0/16", where="--prefix")
        scn = Scenario(name=f"{args.attack}-{Path(args.topology).name.split('.')[0]}", topology=args.topology,
                       prefixes=[prefix], attack=Attack(kind=args.attack))
        if args.attack_prefix:
            scn.attack.prefix = parse_prefix(args.attack_prefix, where="--attack-prefix")
    else:
        for flag in ("attack", "prefix", "attack_prefix"):
            if getattr(args, flag):
                raise InputError(f"--{flag.replace('_', '-')} needs --topology (a scenario file says it itself)")
        path = args.scenario or str(files("scenarios") / DEFAULT_SCENARIO)
        scn = load_scenario(path)
    if args.attacker is not None:
        if scn.attack is None:
            raise InputError("--attacker: the scenario has no attack")
        scn.attack.attacker = args.attacker
    if args.victim is not None:
        scn.victim = args.victim
    if args.mrai is not None:
        from dataclasses import replace
        scn.timing = replace(scn.timing, mrai=args.mrai)
    if args.weighting:
        scn.weighting = args.weighting
        if args.weighting not in WEIGHTINGS and not Path(args.weighting).is_file():
            raise InputError(f"--weighting: want uniform, cone, space or a CSV file; no such file {args.weighting!r}")
    if args.pfx2as:
        scn.pfx2as = args.pfx2as
    if scn.weighting == "space" and not scn.pfx2as:
        raise InputError("--weighting space needs --pfx2as FILE (a prefix-to-AS table)")
    if args.seed is not None:
        scn.seed = args.seed
    if args.until is not None:
        scn.until = args.until
    return scn


def _summary(run, out: Path, wall: float) -> str:
    r = run.result
    t = run.topo
    pct = lambda x: f"{100 * x:.1f} %"
    lines = [f"bgpsim: {r['scenario']['name']} on {t.name} ({t.n:,} ASes, {t.links:,} links), seed {r['seed']}"]
    att = r["scenario"]["attack"]
    if att:
        lines.append(f"  {att['kind']} by {t.label(r['attacker'])} against {t.label(r['victim'])}: "
                     f"{', '.join(att['prefixes'])} at t = {att['start']:g} s")
    o = r["outcome"]
    state = f"settled at t = {r['converged_at']:.1f} s" if r["converged"] else f"stopped at t = {r['converged_at']:.1f} s before settling"
    lines.append(f"  routing {state}: {r['events']:,} events, {r['messages']:,} messages ({wall:.1f} s wall)")
    if att and r["peak"]["attacker"] > o["attacker"]:
        lines.append(f"  at the peak (t = {r['peak']['at']:.1f} s) {pct(r['peak']['attacker'])} of source ASes "
                     f"sent their traffic to the attacker")
    lines.append(f"  at the end, traffic to {r['scenario']['target']}: attacker {pct(o['attacker'])}, victim {pct(o['victim'])}, "
                 f"disconnected {pct(o['disconnected'])}, loop {pct(o['loop'])} of source ASes")
    lines.append(f"  diverted traffic ({r['traffic']['weighting']}): {pct(r['traffic']['diverted'])}")
    lines.append(f"  report: {out / 'report.html'}")
    return "\n".join(lines)


class _Progress:
    """A progress line on stderr for runs that last more than two seconds (a terminal only)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.started = time.perf_counter()
        self.bar = None

    def __call__(self, events: int, now: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.started < 2.0:
                return
            from tqdm import tqdm

            self.bar = tqdm(file=sys.stderr, leave=False, initial=events, desc=f"t = {now:.1f} s simulated",
                            bar_format="simulating: {n:,} events, {desc} [{elapsed}]")
        self.bar.n = events
        self.bar.set_description_str(f"t = {now:.1f} s simulated", refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def cmd_run(args) -> int:
    from . import output
    from .run import simulate
    from .topology import load_topology

    scn = _scenario(args)
    out = Path(args.out) if args.out else Path("bgpsim-out") / scn.name
    started = time.perf_counter()
    progress = _Progress(enabled=not (args.quiet or args.json) and sys.stderr.isatty())
    topo = load_topology(scn.topology)
    try:
        run = simulate(scn, topo, progress)
    finally:
        progress.close()
    wall = time.perf_counter() - started
    output.write(run, out)
    if args.json:
        sys.stdout.write(output.result_json(run))
    elif not args.quiet:
        print(_summary(run, out, wall))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return cmd_run(args)
    except InputError as e:
        print(f"bgpsim: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bgpsim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
