"""`bgpsim run`: one scenario, on the timed engine or the converged-state one."""

from __future__ import annotations

import argparse
import sys


from bgpsim.sim.choices import DEFAULT_PACE, DEFAULT_SCENARIO

from . import asn, factor, renamed, seconds, seed_arg, share

RUN_EPILOG = """\
examples:
  bgpsim run
      the bundled teaching scenario: a sub-prefix hijack on a 30-AS Internet, mitigated by the victim
  bgpsim run --list
      the bundled scenarios, one per line
  bgpsim run teaching-leak --out /tmp/leak
      a bundled scenario by name; or a scenario file's path (see the README for its keys)
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

live (--publish URL): the run told over MQTT as a route collector hears it, so that a class watches a
hijack unfold and `bgpsim monitor` catches it through the pipeline a real feed takes:
  bgpsim monitor --broker mqtt://127.0.0.1 --vrps roas.csv --out live --until-idle 10 &
  bgpsim run --publish mqtt://127.0.0.1 --pace 10
Each collector peer (--publish-ases) sends the collector its best route for each prefix: every change
is a RIS Live UPDATE on PREFIX/updates from the peer (address 100.64.0.0 + 1 + its index, as in --pcap;
path starting with the peer), timestamped 1700000000 (2023-11-14) + the simulated time.
PREFIX/sim/timeline gets {time, timestamp, attacker, victim, disconnected, loop, diverted} at each
change of where the target's traffic goes; PREFIX/sim/status (retained) says simulating, publishing
(scenario, peers, marks), done (outcome), stopped (why) or offline. The broker is reached first, the
run simulated (and --out written), then published: simulated second s goes out s/PACE seconds after
publishing starts, so MRAI's 30-s lulls are lulls on the feed too. Give the monitor an --until-idle
above 30/PACE and above the simulation's own wall time.

exit status: 0 done, 2 bad input or, with --publish, a broker that is not there or refuses us (one line
on stderr naming the file and line, or the option).
"""


def register(sub, parser_class) -> None:
    from bgpsim.sim.defences import DEFENCES
    from bgpsim.sim.scenario import ATTACK_HELP, ATTACKS

    run = sub.add_parser("run", help="run a hijack or leak scenario on the timed BGP engine",
                         description="Run a scenario on the timed BGP engine: a TOML scenario file, the bundled "
                                     "teaching scenario (no arguments), or an ad-hoc attack on a topology file.",
                         epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("scenario", nargs="?", metavar="SCENARIO",
                     help=f"a bundled scenario's name (--list shows them) or a scenario file (default: {DEFAULT_SCENARIO})")
    run.add_argument("--list", action="store_true", help="print the bundled scenarios, one per line: name, what it shows")
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
    common.add_argument("--policy", metavar="NAME[+NAME...]",
                        help="defence deployed by the adopters: " + ", ".join(DEFENCES) + "; several joined by '+' "
                             "(rov+maxlen) drop what any of them drops")
    common.add_argument("--longest", metavar="V4,V6",
                        help="with maxlen: the longest IPv4 and IPv6 prefixes accepted (default 24,48)")
    common.add_argument("--max-prefix", metavar="N",
                        help="with max-prefix: how many prefixes beyond its usual (one per AS of its customer cone) "
                             "a customer or peer may send before the session goes down (default 1000)")
    common.add_argument("--adopters", metavar="ASN,ASN,...|@FILE",
                        help="who deploys --policy: ASNs, or @FILE with ASNs separated by spaces, commas or newlines "
                             "('#' starts a comment)")
    common.add_argument("--adoption", type=share, metavar="SHARE",
                        help="instead of --adopters: this share (0..1) of the ASes deploys --policy, drawn with --seed; "
                             "the victim always adopts, the attacker never")
    common.add_argument("--crypto", action="store_true",
                        help="with --policy bgpsec on the timed engine: adopters really sign every UPDATE they send "
                             "each other and verify every one they receive (ECDSA P-256, keys derived from --seed); "
                             "result.json gains a crypto object with the counts and seconds")
    keys = common.add_argument("--signing-keys", metavar="DIR|FILE",
                               help="with --crypto: the adopters' private router keys (PEM or DER; the AS in each file "
                                    "name, as `rpki ca build` writes them in DIR/.keys) instead of keys derived from --seed")
    renamed(common, "--router-keys", keys)
    common.add_argument("--pcap", metavar="FILE",
                        help="timed engine: write the BGP sessions of --pcap-ases as a packet capture Wireshark opens "
                             "(OPENs, then every UPDATE at its simulated time; BGPsec_PATH under --crypto); an "
                             "existing FILE is replaced, atomically, only if it is a capture")
    common.add_argument("--pcap-ases", metavar="ASN,ASN,...",
                        help="whose sessions --pcap records (default: the attacker's and the victim's)")
    live = run.add_argument_group("live feed over MQTT (timed engine; see 'live' below)")
    live.add_argument("--publish", metavar="URL",
                      help="publish the run as a route collector would hear it: mqtt://[USER[:PASSWORD]@]HOST[:PORT] "
                           "or mqtts://... (password also from BGPSIM_MQTT_PASSWORD); --out is written as usual")
    live.add_argument("--pace", type=factor, metavar="FACTOR",
                      help=f"simulated seconds per wall-clock second (default {DEFAULT_PACE:g}: the bundled scenarios' "
                           "100-250 simulated seconds, mostly MRAI waits, play in 10-25 s, and a 30-s MRAI round is a "
                           "3-s step a class can follow; 1: real time)")
    live.add_argument("--publish-ases", metavar="ASN,ASN,...",
                      help="the collector peers, whose best-route changes are published (default: the 5 ASes with "
                           "the largest customer cones other than the attacker and the victim, as the large transit "
                           "networks that feed RIS and RouteViews)")
    live.add_argument("--topic", metavar="PREFIX", help="topic prefix (default bgpsim): PREFIX/updates, PREFIX/sim/...")
    live.add_argument("--cafile", metavar="PEM", help="CA certificate for a broker whose TLS certificate no public CA signed")
    common.add_argument("--attacker", type=asn, metavar="ASN", help="attacking (or leaking) AS; default: drawn at random among stubs")
    common.add_argument("--victim", type=asn, metavar="ASN", help="victim AS; default: drawn at random among stubs")
    common.add_argument("--mrai", type=seconds, metavar="SECONDS", help="MRAI per session (default 30; 0 disables it)")
    common.add_argument("--weighting", metavar="uniform|cone|space|FILE",
                        help="traffic of each source AS: uniform, customer-cone size, address space originated (needs --pfx2as), or a CSV of asn,weight")
    common.add_argument("--pfx2as", metavar="FILE", help="prefix-to-AS table for --weighting space (pyasn or CAIDA prefix2as format)")
    common.add_argument("--seed", type=seed_arg, metavar="N", help="seed for every random choice (default 1); the same seed gives the same result.json")
    common.add_argument("--until", type=seconds, metavar="SECONDS", help="stop the simulation at this time even if routing has not settled")
    common.add_argument("--out", metavar="DIR", help="output directory (default ./bgpsim-out/<scenario name>): new, empty, or an earlier "
                        "output of bgpsim, which is replaced; anything else is refused")
    common.add_argument("--no-figures", action="store_true",
                        help="write no PNG figures (the report says so): for scripts that read result.json and the CSV "
                             "files; figures are most of a small graph's run time")
    common.add_argument("--quiet", action="store_true", help="no progress, no summary; warnings and errors only")
    fmt = common.add_argument("--format", choices=("table", "json"), default="table",
                              help="what goes to stdout: table, the summary (default), or json (result.json)")
    renamed(common, "--json", fmt, const="json")
    run.set_defaults(handler=cmd_run)


def _list(fmt: str) -> int:
    import json

    from bgpsim.sim.scenario import bundled_scenarios, load_scenario

    for name, path in bundled_scenarios().items():
        scn = load_scenario(path)
        print(json.dumps({"name": name, "description": scn.description}) if fmt == "json"
              else f"{name:<24} {scn.description}")
    return 0


def cmd_run(args) -> int:
    from bgpsim.sim.choices import RunJob
    from bgpsim.sim.output import result_json, summary_text

    if args.list:
        return _list(args.format)
    job = RunJob(args)  # every option checked, nothing run yet
    run = job.run()
    if args.format == "json":
        sys.stdout.write(result_json(run))
    elif not args.quiet:
        print(summary_text(run, job.out, job.wall))
    if args.at_once:  # the command ends here: the interpreter's last collection over matplotlib's and
        from bgpsim.base.console import end_now  # numpy's objects is a tenth of the class demo

        end_now(0)
    return 0
