"""`bgpsim incident`: a real incident replayed, with what each defence would have done."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import count, renamed

EPILOG = """\
examples:
  bgpsim incident --list
      the bundled incidents: name, date, title
  bgpsim incident youtube-2008 --out yt
      Pakistan Telecom's hijack of YouTube on the 2025 Internet graph, with what each defence would have done
  bgpsim incident route53-2018 --topology 20250901.as-rel2.txt.bz2
      with the graph given (else it is looked for in the folders of $BGPSIM_DATA)
  bgpsim incident as7007-1997 --scheduler tcp://10.0.0.5:8786
      the counterfactual trials on a Dask cluster (pip install '.[cluster]'), the replay here

Each incident is a scenario file (scenarios/incidents/NAME.toml) citing its sources; `bgpsim run` runs it
too. Here it is replayed on the timed engine as the file tells it (the victim's and attacker's
announcements at their real times, in seconds from the attack's start); meanwhile, in --workers
processes (default: one per CPU) or on a Dask cluster, the same attack is computed on the
converged-state engine without a defence and under each defence (rov, rov+aspa,
aspa-alone, rov+bgpsec, bgpsec-alone, rov+path-end, path-end-alone, otc, peerlock-lite, maxlen,
prefix-list, max-prefix), deployed by a seeded random half of the ASes and by all of them. ASPA,
BGPsec and path-end check the path, not the origin: the rov+ rows add ROV, as BGPy's policies and
`--policy aspa` do; the -alone rows are the mechanism without it. A mass incident averages the
counterfactuals over its sample of victims.

The graph: the incidents name CAIDA's AS-relationship file of 2025-09-01 (78,643 ASes), today's
Internet and not the incident's. Download it from
https://publicdata.caida.org/datasets/as-relationships/serial-2/ into a folder and name the folder in
$BGPSIM_DATA, or give --topology.

outputs (in --out, default ./bgpsim-out/NAME): what `bgpsim run` writes (result.json, ases.csv,
timeline.csv, the figures, report.html with the incident's facts and the counterfactual table) and
counterfactuals.csv (defence, deployment share, trials, shares of ASes reaching the attacker and
disconnected, traffic diverted).

exit status: 0 done, 2 bad input (one line on stderr).
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("incident", help="replay a real incident and what each defence would have done",
                       description="Replay a real BGP incident (YouTube 2008, Route 53 2018, ...) on the Internet "
                                   "graph, with a table of what each defence would have done.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", metavar="NAME", help="a bundled incident (see --list) or an incident file")
    p.add_argument("--list", action="store_true", help="print the bundled incidents, one per line: name, date, title")
    p.add_argument("--topology", metavar="FILE", help="the graph to replay on (default: the file the incident names)")
    p.add_argument("--out", metavar="DIR", help="output directory (default ./bgpsim-out/NAME)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=count, metavar="N",
                       help="local processes for the counterfactual trials (default: one per CPU)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the counterfactual trials on a Dask cluster")
    p.add_argument("--no-figures", action="store_true",
                   help="write no PNG figures (the report says so): for scripts that read result.json and the CSV files")
    p.add_argument("--quiet", action="store_true", help="no progress, no summary; warnings and errors only")
    fmt = p.add_argument("--format", choices=("table", "json"), default="table",
                         help="what goes to stdout: table (default), or json: with --list one JSON object per "
                              "incident, else the counterfactual rows")
    renamed(p, "--json", fmt, const="json")
    p.set_defaults(handler=cmd_incident)


def cmd_incident(args) -> int:
    from bgpsim.base.errors import InputError
    from bgpsim.sim import incident as inc

    if args.list:
        for name in inc.names():
            i = inc.load_incident(inc.find(name), graph=False)
            if args.format == "json":
                print(json.dumps({"name": i.name, "date": i.date, "title": i.title, "sources": i.sources}))
            else:
                print(i.line())
        return 0
    if not args.name:
        raise InputError("give an incident's NAME (bgpsim incident --list shows them), or --list")
    return _replay(args, inc.load_incident(inc.find(args.name), args.topology))


def _replay(args, incident) -> int:
    from bgpsim.base.pool import auto_workers, connect
    from bgpsim.sim.incident import Counterfactual, Replay

    out = Path(args.out) if args.out else Path("bgpsim-out") / incident.name
    client = connect(args.scheduler) if args.scheduler else None
    try:
        replay = Replay(incident, out, talk=not (args.quiet or args.format == "json"),
                        workers=args.workers or auto_workers(needs_fork=True), client=client,
                        figures=not args.no_figures)
        run, rows = replay.run()
    finally:
        if client is not None:
            client.close()
    if args.format == "json":
        print(json.dumps([dict(zip(Counterfactual.COLUMNS, r.row())) for r in rows], indent=1))
    elif not args.quiet:
        print(replay.summary(run, rows))
    return 0
