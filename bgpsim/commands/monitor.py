"""`bgpsim monitor`: validate a live MQTT feed of BGP updates as it arrives."""

from __future__ import annotations

import argparse

from . import broker_args, broker_of, peer_role_args, seconds

EPILOG = """\
examples:
  bgpsim monitor --broker mqtt://127.0.0.1 --vrps rpki-client.json --out live --until-idle 30
      check every update of the feed under bgpsim/ until nothing has come for 30 s
  bgpsim stream publish updates.gz --broker mqtt://127.0.0.1 --flat-out
      (in another terminal) a dump as the feed

what each route gets: the RFC 6811 status and reason, and the ASPA verdict with --aspa or
--relationships, by the code `bgpsim validate` runs: routes.csv has its columns.
The monitor's session is persistent (--client-id): what is published while it or the broker is away
is delivered when both are back; it reconnects by itself. Unreadable messages are counted, warned
about (rate-limited) and passed over.
outputs (in --out: new, empty, or an earlier monitor's output, resumed: routes.csv and alerts.jsonl
grow, summary.json adds this run's counts to the earlier ones): routes.csv, growing as routes are
checked; alerts.jsonl, one alert per line (empty without --watch; each alert is also published at
QoS 1 on PREFIX/alerts); summary.json at the end (with the feed's counts: messages, repeats,
unreadable, missing, late; `runs`: how many monitors have written this output).
SIGTERM or Ctrl-C stop it cleanly: what it has received is checked and written, the rest waits at the
broker for its session.
exit status: 0 done (idle for --until-idle, or stopped), 2 bad input or a broker that is not
there or refuses us (one line on stderr, within 10 s).
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("monitor", help="validate a live MQTT feed of BGP updates as it arrives",
                       description="Subscribe to a feed of RIS Live messages and check each route as it arrives.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    broker_args(p)
    p.add_argument("--client-id", default="bgpsim-monitor", metavar="ID",
                   help="the persistent session's name: a restarted monitor with the same ID gets what it missed")
    p.add_argument("--vrps", required=True, metavar="FILE", help="VRPs: rpki-client/Routinator JSON or CSV")
    p.add_argument("--slurm", action="append", metavar="FILE", help="RFC 8416 SLURM file (repeatable)")
    p.add_argument("--aspa", metavar="FILE", help="validated ASPAs: rpki-client JSON")
    p.add_argument("--relationships", metavar="CAIDA_FILE", help="CAIDA AS relationships: ASPA stand-in without --aspa")
    peer_role_args(p)
    p.add_argument("--router-keys", action="append", metavar="DIR|FILE",
                   help="BGPsec router keys (relying-party JSON, router certificates, key files): each BGPsec "
                        "UPDATE gets a verdict, in routes.csv's bgpsec columns as with `bgpsim validate`")
    p.add_argument("--watch", metavar="FILE",
                   help="watched prefixes (TOML: [[prefix]] prefix, description, origins, more_specifics): "
                        "hijacks, more-specifics, new origins and leaks of them are alerts")
    p.add_argument("--out", default="bgpsim-out/monitor", metavar="DIR",
                   help="output directory (default %(default)s): new, empty, or an earlier monitor's, which is resumed")
    p.add_argument("--until-idle", type=seconds, metavar="SECONDS",
                   help="stop once nothing has arrived for this long (default: run until interrupted)")
    p.add_argument("--quiet", action="store_true", help="no live summary; errors only")
    p.set_defaults(handler=cmd_monitor)


def cmd_monitor(args) -> int:
    from bgpsim.base.console import write_stdout
    from bgpsim.live.monitoring import MonitorRun

    job = MonitorRun(args, *broker_of(args))
    doc = job.run()
    if not args.quiet:
        write_stdout(job.said(doc))
    return 0
