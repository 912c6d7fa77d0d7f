"""The `bgpsim` command."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from importlib.resources import files
from pathlib import Path
from typing import NoReturn

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


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"want a positive integer, got {text!r}")
    return int(text)


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


SWEEP_EPILOG = """\
examples:
  bgpsim sweep --trials 20
      ROV against sub-prefix hijacks on the teaching topology, 0 to 100 % adoption
  bgpsim sweep --topology ../shared/data/caida/20250901.as-rel2.txt.bz2 --attack subprefix,forged-origin \\
               --policy rov,aspa,bgpsec,path-end --trials 100 --workers 2 --out sweep-2025
      the 78,643-AS Internet: 2 x 4 x 11 x 100 = 8,800 trials
  bgpsim sweep ... --scheduler tcp://10.0.0.5:8786
      the same trials on a Dask cluster (dask-scheduler; dask-worker tcp://10.0.0.5:8786 on each machine)

each trial draws an attacker and a victim among the stubs (a leaker among multihomed stubs) and, per
adoption level, the adopters; the victim adopts, the attacker does not (BGPy's convention). "none"
as a policy is the baseline without a defence.

outputs (in --out): results.csv (one row per trial: policy, attack, adoption, trial, attacker, victim,
attacker_frac, victim_frac, disconnected_frac, loop_frac, diverted (traffic share weighted by
customer cone), seconds), summary.json (means and 90 % confidence intervals), success.png.
The same seed gives the same results.csv (seconds aside) on 1 process, W processes or Dask; an
interrupted sweep resumes where it stopped when run again with the same options.
exit status: 0 done, 2 bad input.
"""


DESCRIPTION = "Simulate BGP hijacks and route leaks on AS graphs and see what each defence does."


def _top_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(prog="bgpsim", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"bgpsim {__version__}")
    return parser


def _light_parser(command: str) -> argparse.ArgumentParser:
    """The parser `build_parser` gives, for `bgpsim rpki|dump|validate ...` alone: it does not
    import what the simulator's commands need (the defences, the scenario model; a tenth of a
    second on a command that may itself take one)."""
    if command == "rpki":
        from rpki.cli import register
    elif command == "dump":
        from .mrt.cli import register
    else:
        from .validate.cli import register

    parser = _top_parser()
    register(parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser), _Parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    from .defences import DEFENCES
    from .scenario import ATTACK_HELP, ATTACKS

    parser = _top_parser()
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
    common.add_argument("--engine", choices=("timed", "steady"), default="timed",
                        help="timed: BGP messages, MRAI and convergence over time (default); steady: the converged "
                             "state only, computed on whole arrays (milliseconds on the 78,643-AS Internet graph)")
    common.add_argument("--policy", metavar="NAME", help="defence deployed by the adopters: " + ", ".join(DEFENCES))
    common.add_argument("--adopters", metavar="ASN,ASN,...|@FILE",
                        help="who deploys --policy: ASNs, or @FILE with ASNs separated by spaces, commas or newlines "
                             "('#' starts a comment)")
    common.add_argument("--attacker", type=_asn, metavar="ASN", help="attacking (or leaking) AS; default: drawn at random among stubs")
    common.add_argument("--victim", type=_asn, metavar="ASN", help="victim AS; default: drawn at random among stubs")
    common.add_argument("--mrai", type=_seconds, metavar="SECONDS", help="MRAI per session (default 30; 0 disables it)")
    common.add_argument("--weighting", metavar="uniform|cone|space|FILE",
                        help="traffic of each source AS: uniform, customer-cone size, address space originated (needs --pfx2as), or a CSV of asn,weight")
    common.add_argument("--pfx2as", metavar="FILE", help="prefix-to-AS table for --weighting space (pyasn or CAIDA prefix2as format)")
    common.add_argument("--seed", type=_seed, metavar="N", help="seed for every random choice (default 1); the same seed gives the same result.json")
    common.add_argument("--until", type=_seconds, metavar="SECONDS", help="stop the simulation at this time even if routing has not settled")
    common.add_argument("--out", metavar="DIR", help="output directory (default ./bgpsim-out/<scenario name>): new, empty, or an earlier "
                        "output of bgpsim, which is replaced; anything else is refused")
    common.add_argument("--quiet", action="store_true", help="print nothing but errors")
    common.add_argument("--json", action="store_true", help="print result.json on stdout instead of the summary")

    from .sweep import ADOPT, POLICIES

    sw = sub.add_parser("sweep", help="attack success against defence adoption, many trials, on the converged-state engine",
                        description="Adoption sweep: for every attack, policy and adoption level, run --trials trials on "
                                    "the converged-state engine and report how often the attacker wins.",
                        epilog=SWEEP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sw.add_argument("--topology", metavar="FILE", help="CAIDA AS-relationship file or TOML topology (default: the bundled 30-AS teaching topology)")
    sw.add_argument("--attack", default="subprefix", metavar="KIND[,KIND]", help=f"attacks (default subprefix): {', '.join(ATTACKS)}")
    sw.add_argument("--policy", default="rov", metavar="NAME[,NAME]", help=f"defences (default rov): {', '.join(POLICIES)}")
    sw.add_argument("--adoption", default="0,10,20,30,40,50,60,70,80,90,100", metavar="PCT,PCT,...",
                    help="adoption levels in percent (default 0,10,...,100)")
    sw.add_argument("--trials", type=_count, default=10, metavar="N", help="trials per point (default 10)")
    sw.add_argument("--seed", type=_seed, default=1, metavar="N", help="seed for attackers, victims and adopters (default 1)")
    sw.add_argument("--adopt", choices=ADOPT, default="random",
                    help="who adopts: a random share of all ASes (default), the largest customer cones first, or a share of the tier-1 clique")
    where = sw.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_count, default=1, metavar="W", help="local processes (default 1)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the trials on a Dask distributed cluster")
    sw.add_argument("--out", metavar="DIR", default="bgpsim-sweep", help="output directory (default ./bgpsim-sweep): new, empty, or an earlier "
                    "sweep, resumed when run again with the same parameters; anything else is refused")
    sw.add_argument("--quiet", action="store_true", help="print nothing but errors")
    sw.add_argument("--json", action="store_true", help="print summary.json on stdout instead of the table")

    ro = sub.add_parser("routes", help="every AS's converged route toward every other AS",
                        description="All-destinations routing: for every origin AS, every AS's converged route "
                                    "toward it (one origin at a time, no policy), with path-length and "
                                    "transit-centrality summaries.")
    ro.add_argument("--topology", metavar="FILE", help="CAIDA AS-relationship file or TOML topology (default: the bundled teaching topology)")
    ro.add_argument("--out", metavar="DIR", default="bgpsim-routes", help="output directory (default ./bgpsim-routes): new, empty, or an earlier output "
                    "of bgpsim, which is replaced; anything else is refused")
    ro.add_argument("--workers", type=_count, default=max(1, os.cpu_count() or 1), metavar="W", help="local processes (default: one per core)")
    ro.add_argument("--quiet", action="store_true", help="print nothing but errors")

    from rpki.cli import register

    register(sub, _Parser)
    from .mrt.cli import register as register_dump
    from .validate.cli import register as register_validate

    register_dump(sub, _Parser)
    register_validate(sub, _Parser)
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
    if args.adopters and not args.policy:
        raise InputError("--adopters needs --policy NAME")
    if args.policy:
        from .defences import DEFENCES
        from .scenario import Defence

        if args.policy not in DEFENCES:
            raise InputError(f"--policy: unknown policy {args.policy!r}; want one of {', '.join(DEFENCES)}")
        if not args.adopters:
            raise InputError("--policy needs --adopters ASN,ASN,... or @FILE")
        listed = parse_asns(args.adopters, "--adopters")
        scn.defence = Defence(policy=args.policy, adopters=[asn for asn, _ in listed])
        args.adopters_where = dict(listed)
    if args.seed is not None:
        scn.seed = args.seed
    if args.until is not None:
        scn.until = args.until
    return scn


def parse_asns(text: str, what: str) -> list[tuple[int, str]]:
    """ASNs from "64500,AS64501" or from @FILE (spaces, commas, newlines; '#' comments), each with
    where it was written (for errors)."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{what}: cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        where = lambda n: f"{path}:{n}"
    else:
        lines = [text]
        where = lambda n: what
    out = []
    for n, line in enumerate(lines, start=1):
        for tok in line.split("#", 1)[0].replace(",", " ").split():
            try:
                out.append((_asn(tok), where(n)))
            except argparse.ArgumentTypeError as e:
                raise InputError(f"{where(n)}: {e}") from None
    return out


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
    if r.get("engine") == "steady":
        lines.append(f"  converged state ({wall:.2f} s wall, loading the graph included)")
    else:
        lines.append(f"  routing {state}: {r['events']:,} events, {r['messages']:,} messages ({wall:.1f} s wall)")
    if att and r["peak"]["attacker"] > o["attacker"]:
        lines.append(f"  at the peak (t = {r['peak']['at']:.1f} s) {pct(r['peak']['attacker'])} of source ASes "
                     f"sent their traffic to the attacker")
    lines.append(f"  at the end, traffic to {r['scenario']['target']}: attacker {pct(o['attacker'])}, victim {pct(o['victim'])}, "
                 f"disconnected {pct(o['disconnected'])}, loop {pct(o['loop'])} of source ASes")
    lines.append(f"  diverted traffic ({r['traffic']['weighting']}): {pct(r['traffic']['diverted'])}")
    lines.append(f"  report: {out / 'report.html'}")
    return "\n".join(lines)


class _Bar:
    """A progress bar on stderr (a terminal only), shown once the work has lasted `delay` seconds."""

    def __init__(self, enabled: bool, unit: str, delay: float = 0.0):
        self.enabled, self.unit, self.delay = enabled, unit, delay
        self.started = time.perf_counter()
        self.bar = None

    def _due(self) -> bool:
        return self.enabled and (self.bar is not None or time.perf_counter() - self.started >= self.delay)

    def __call__(self, done: int, total: int) -> None:
        if not self._due():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit=self.unit, file=sys.stderr, leave=False, smoothing=0.05)
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Progress(_Bar):
    """The timed engine's progress line: events handled and simulated time (no total is known),
    for runs that last more than two seconds."""

    def __init__(self, enabled: bool):
        super().__init__(enabled, "event", delay=2.0)

    def __call__(self, events: int, now: float) -> None:
        if not self._due():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(file=sys.stderr, leave=False, initial=events, desc=f"t = {now:.1f} s simulated",
                            bar_format="simulating: {n:,} events, {desc} [{elapsed}]")
        self.bar.n = events
        self.bar.set_description_str(f"t = {now:.1f} s simulated", refresh=False)
        self.bar.refresh()


def cmd_run(args) -> int:
    from . import outdir, output
    from .run import converged, simulate
    from .topology import load_topology

    scn = _scenario(args)
    out = Path(args.out) if args.out else Path("bgpsim-out") / scn.name
    outdir.check(out, "run")  # before the work: a refused --out costs nothing
    started = time.perf_counter()
    progress = _Progress(enabled=not (args.quiet or args.json) and sys.stderr.isatty())
    topo = load_topology(scn.topology)
    for asn, where in getattr(args, "adopters_where", {}).items():
        if asn not in topo.index:
            raise InputError(f"{where}: AS{asn} is not in the topology {topo.source}")
    try:
        run = converged(scn, topo) if args.engine == "steady" else simulate(scn, topo, progress)
    finally:
        progress.close()
    wall = time.perf_counter() - started
    output.write(run, out)
    if args.json:
        sys.stdout.write(output.result_json(run))
    elif not args.quiet:
        print(_summary(run, out, wall))
    return 0


def _topology(path: str | None):
    from .topology import load_topology

    return load_topology(path or str(files("scenarios") / "topologies" / "teaching.toml"))


def _split(text: str, what: str) -> tuple[str, ...]:
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    if not items:
        raise InputError(f"{what}: empty list")
    return items



def cmd_sweep(args) -> int:
    from . import outdir
    from .sweep import Sweep, connect, run_sweep

    outdir.check(args.out, "sweep", resume=True)

    adoption = []
    for x in _split(args.adoption, "--adoption"):
        try:
            adoption.append(int(x))
        except ValueError:
            raise InputError(f"--adoption: want whole percentages from 0 to 100, got {x!r}") from None
    sw = Sweep(args.topology or "teaching.toml", _split(args.attack, "--attack"), _split(args.policy, "--policy"),
               tuple(adoption), args.trials, args.seed, args.adopt)
    client = connect(args.scheduler) if args.scheduler else None
    topo = _topology(args.topology)
    bar = _Bar(not (args.quiet or args.json) and sys.stderr.isatty(), "trial")
    started = time.perf_counter()
    try:
        summary = run_sweep(topo, sw, Path(args.out), workers=args.workers, client=client, progress=bar)
    finally:
        bar.close()
        if client is not None:
            client.close()
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    elif not args.quiet:
        print(_sweep_table(summary, topo, time.perf_counter() - started, Path(args.out)))
    return 0


def _sweep_table(summary: dict, topo, wall: float, out: Path) -> str:
    sw = summary["sweep"]
    levels = sorted({c["adoption"] for c in summary["cells"]})
    lines = [f"bgpsim sweep on {topo.name} ({topo.n:,} ASes): {summary['trials']:,} trials in {wall:.1f} s, seed {sw['seed']}",
             "  attacker success (mean share of ASes) by adoption:",
             "  " + f"{'attack':<24}{'policy':<17}" + "".join(f"{x:>6}%" for x in levels)]
    cell = {(c["attack"], c["policy"], c["adoption"]): c for c in summary["cells"]}
    for attack in sw["attacks"]:
        for policy in sw["policies"]:
            vals = "".join(f"{100 * cell[(attack, policy, x)]['attacker_frac']['mean']:>7.1f}" for x in levels)
            lines.append(f"  {attack:<24}{policy:<17}{vals}")
    lines.append(f"  results: {out / 'results.csv'}, {out / 'summary.json'}, {out / 'success.png'}")
    return "\n".join(lines)


def cmd_routes(args) -> int:
    from . import outdir
    from .routes import compute_routes

    outdir.check(args.out, "routes")
    topo = _topology(args.topology)
    bar = _Bar(not args.quiet and sys.stderr.isatty(), "origin")
    started = time.perf_counter()
    try:
        summary = compute_routes(topo, Path(args.out), workers=args.workers, progress=bar)
    finally:
        bar.close()
    if not args.quiet:
        print(f"bgpsim routes on {topo.name} ({topo.n:,} ASes): {summary.get('origins_done', topo.n):,} origins in "
              f"{time.perf_counter() - started:.1f} s; results in {args.out}")
    return 0


def main(argv: list[str] | None = None, at_once: bool = False) -> int:
    """The command line; `at_once`: the process ends with the command (run()), so a command may end
    it itself once its output is written (end_now)."""
    argv = sys.argv[1:] if argv is None else argv
    light = argv[:1] in (["rpki"], ["dump"], ["validate"])
    parser = _light_parser(argv[0]) if light else build_parser()
    args = parser.parse_args(argv)
    args.at_once = at_once
    if args.command is None:
        parser.print_help()
        return 2
    try:
        handler = {"run": cmd_run, "sweep": cmd_sweep, "routes": cmd_routes}.get(args.command) or args.handler
        return handler(args)
    except InputError as e:
        print(f"bgpsim: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bgpsim: interrupted", file=sys.stderr)
        return 130


def end_now(status: int) -> NoReturn:
    """Ends the process at once (os._exit), its output flushed. The interpreter's own ending frees
    every object one by one and collects garbage a last time: after `bgpsim validate` on a full
    table, a tenth of a second spent on memory the kernel takes back anyway. Only for commands
    that leave nothing running (`dump`, `validate`) and only as the `bgpsim` command (run())."""
    try:
        sys.stdout.flush()
    finally:
        sys.stderr.flush()
        os._exit(status)


def run() -> None:
    """The `bgpsim` command: main(); `dump` and `validate` end the process at once (end_now)."""
    status = main(at_once=True)
    if sys.argv[1:2] in (["dump"], ["validate"]):
        end_now(status)
    sys.exit(status)


if __name__ == "__main__":
    run()
