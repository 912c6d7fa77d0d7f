"""`bgpsim monitor`: validate a live feed of BGP updates as it arrives: RIS Live over WebSocket, or MQTT."""

from __future__ import annotations

import argparse
import re
import sys

from . import (
    address,
    broker_args,
    broker_of,
    count,
    factor,
    interval,
    peer_role_args,
    prefix,
    seconds,
)

EPILOG = """\
examples:
  bgpsim monitor --ris-live 'wss://ris-live.ripe.net/v1/ws/?client=me' --ris-prefix 193.0.0.0/16 --vrps vrps.json
      RIPE NCC's RIS Live: every UPDATE of 193.0.0.0/16 and its more-specifics, as the collectors hear them
  bgpsim monitor --replay updates.20160811.1600.gz --watch watch.toml --vrps vrps.json --out yesterday
      yesterday's dump through today's watch list: the alerts a live monitor would have raised
  bgpsim monitor --broker mqtt://127.0.0.1 --vrps rpki-client.json --out live --until-idle 30
      check every update of the feed under bgpsim/ until nothing has come for 30 s
  bgpsim monitor --bmp-listen 192.0.2.10:11019 --allow 192.0.2.0/24 --vrps vrps.json --out bmp
      a BMP station: routers in 192.0.2.0/24 report their routes (RFC 7854), each checked; bmp/bmp.mrt keeps them
  bgpsim stream publish updates.gz --broker mqtt://127.0.0.1 --flat-out
      (in another terminal) a dump as the feed

what each route gets: the RFC 6811 status and reason, and the ASPA verdict with --aspa or
--relationships, by the code `bgpsim validate` runs: routes.csv has its columns.
With --ris-live, every connection subscribes again; RIS Live's message types other than UPDATE are
counted by type (summary.json: feed.by_type), a RIS_PEER_STATE is a session state change, ris_error
is a warning. With --broker, the session is persistent (--client-id): what is published while the
monitor or the broker is away is delivered when both are back. Either reconnects by itself.
Unreadable messages are counted, warned about (rate-limited) and passed over.
outputs (in --out: new, empty, or an earlier monitor's output, resumed: routes.csv and alerts.jsonl
grow, summary.json adds this run's counts to the earlier ones): routes.csv, growing as routes are
checked; alerts.jsonl, one alert per line (empty without --watch; each alert is also published at
QoS 1 on PREFIX/alerts); summary.json at the end (with the feed's counts: messages, repeats,
unreadable, missing, late; `runs`: how many monitors have written this output).
SIGTERM or Ctrl-C stop it cleanly: what it has received is checked and written, the rest waits at the
broker for its session.
exit status: 0 done (idle for --until-idle, or stopped), 2 bad input or a feed that is not
there or refuses us (one line on stderr, within 10 s).
"""


_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,252})")
# RIS Live's path pattern: an optional !, an optional ^, ASNs or AS_SETs ([ASN,ASN]) joined by commas, an
# optional $ (the manual: "not a regular expression")
_PATH = re.compile(r"!?\^?(\d+|\[\d+(,\d+)*\])(,(\d+|\[\d+(,\d+)*\]))*\$?")


def ris_host(text: str) -> str:
    """A collector's name as RIS Live knows it: rrc00, or rrc00.ripe.net."""
    if not _HOST.fullmatch(text):
        raise argparse.ArgumentTypeError(f"want a collector's name such as rrc00, got {text!r}")
    return text


def ris_path(text: str) -> str:
    """A RIS Live path pattern: 64496,64511$ ^64496 !64500$ [64500,64501]$."""
    if not _PATH.fullmatch(text):
        raise argparse.ArgumentTypeError(f"want RIS Live's path pattern: ASNs joined by commas, [ASN,ASN] for an "
                                         f"AS_SET, ^ first, $ last, ! before all to invert (64496,64511$), got {text!r}")
    return text


def register(sub, parser_class) -> None:
    p = sub.add_parser("monitor", help="validate a live feed of BGP updates (RIS Live, MQTT) as it arrives",
                       description="Subscribe to a feed of RIS Live messages (RIPE NCC's RIS Live over WebSocket, "
                                   "or an MQTT broker) and check each route as it arrives.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    broker_args(p, required=False)
    ris = p.add_argument_group("RIS Live over WebSocket (instead of --broker's feed)")
    ris.add_argument("--ris-live", metavar="URL",
                     help="a RIS Live server: wss://ris-live.ripe.net/v1/ws/?client=NAME (RIPE NCC's), or ws://...")
    ris.add_argument("--ris-host", type=ris_host, metavar="RRC", help="subscribe to one collector's messages (rrc00, ...)")
    ris.add_argument("--ris-prefix", type=prefix, action="append", metavar="P",
                     help="subscribe to the UPDATEs of this prefix and its more-specifics (repeatable)")
    ris.add_argument("--ris-exact", action="store_true", help="with --ris-prefix: without its more-specifics")
    ris.add_argument("--ris-less-specific", action="store_true",
                     help="with --ris-prefix: the prefixes that cover it too")
    ris.add_argument("--ris-path", type=ris_path, metavar="PATTERN",
                     help="subscribe to the paths RIS Live's pattern matches: '64496,64511$' (not a regular expression)")
    ris.add_argument("--ris-peer", type=address, metavar="ADDRESS", help="subscribe to one collector peer's messages")
    replay = p.add_argument_group("archived data through the same checks and alerts (instead of a live feed)")
    replay.add_argument("--replay", nargs="+", metavar="FILE",
                        help="route data files (MRT, bgpdump -m text, captures; - for stdin), their UPDATEs in order "
                             "as a collector's feed would bring them")
    pace = replay.add_mutually_exclusive_group()
    pace.add_argument("--pace", type=factor, metavar="FACTOR",
                      help="replay at FACTOR times the data's own pace (default: flat out)")
    pace.add_argument("--flat-out", action="store_true", help="replay as fast as the monitor checks (the default)")
    ris.add_argument("--heartbeat", type=interval, default=30.0, metavar="SECONDS",
                     help="seconds between pings; a server that answers none within half of it is left and "
                          "connected again (default %(default)g)")
    bmp = p.add_argument_group("BMP from routers (instead of another feed; RFC 7854)")
    bmp.add_argument("--bmp-listen", metavar="ADDRESS:PORT",
                     help="take BMP sessions here: each route a router reports is checked (and recorded in bmp.mrt)")
    bmp.add_argument("--allow", metavar="NET,NET,...", help="take BMP only from routers in these networks (default: any)")
    bmp.add_argument("--max-sessions", type=count, metavar="N", help="BMP sessions at once (default 100)")
    p.add_argument("--client-id", default="bgpsim-monitor", metavar="ID",
                   help="the persistent session's name: a restarted monitor with the same ID gets what it missed")
    p.add_argument("--vrps", metavar="FILE",
                   help="VRPs: rpki-client/Routinator JSON or CSV; read again when the file changes and on SIGHUP")
    p.add_argument("--rtr", metavar="HOST:PORT",
                   help="take the VRPs from an RTR cache instead (RFC 8210), kept current as it changes")
    p.add_argument("--slurm", action="append", metavar="FILE", help="RFC 8416 SLURM file (repeatable)")
    p.add_argument("--aspa", metavar="FILE", help="validated ASPAs: rpki-client JSON")
    p.add_argument("--relationships", metavar="CAIDA_FILE", help="CAIDA AS relationships: ASPA stand-in without --aspa")
    peer_role_args(p)
    p.add_argument("--router-keys", action="append", metavar="DIR|FILE",
                   help="BGPsec router keys (relying-party JSON, router certificates, key files): each BGPsec "
                        "UPDATE gets a verdict, in routes.csv's bgpsec columns as with `bgpsim validate`")
    p.add_argument("--watch", metavar="FILE",
                   help="the watch list: TOML ([[prefix]], [[asn]], [settings]; see the README) or BGPalerter's "
                        "prefixes.yml (named .yml or .yaml): hijacks, more-specifics, path rules, new neighbours, "
                        "visibility and more are alerts")
    sinks = p.add_argument_group("where alerts go, besides alerts.jsonl and --broker's PREFIX/alerts")
    sinks.add_argument("--syslog", metavar="[udp|tcp]://HOST:PORT",
                       help="each alert as an RFC 5424 syslog message (UDP unless tcp:// is given)")
    sinks.add_argument("--webhook", metavar="URL",
                       help="each alert as an HTTP POST of JSON, Slack-compatible: {\"text\": ..., \"alert\": {...}}")
    sinks.add_argument("--by-group", action="store_true",
                       help="each alert also in alerts/GROUP.jsonl, by the group the watch list gives it")
    p.add_argument("--out", default="bgpsim-out/monitor", metavar="DIR",
                   help="output directory (default %(default)s): new, empty, or an earlier monitor's, which is resumed")
    p.add_argument("--until-idle", type=seconds, metavar="SECONDS",
                   help="stop once nothing has arrived for this long (default: run until interrupted)")
    p.add_argument("--quiet", action="store_true", help="no live summary; errors only")
    p.set_defaults(handler=cmd_monitor)


def cmd_monitor(args) -> int:
    from bgpsim.base.console import write_stdout
    from bgpsim.base.errors import InputError
    from bgpsim.live.monitoring import MonitorRun

    feeds = [f for f, v in (("--ris-live", args.ris_live), ("--replay", args.replay), ("--bmp-listen", args.bmp_listen))
             if v is not None]
    if len(feeds) > 1:
        raise InputError(f"want one feed: {' or '.join(feeds)}, not both")
    if not feeds and args.broker is None:
        raise InputError("want the feed: --ris-live URL (RIS Live over WebSocket), --replay FILE... (archived data), "
                         "--bmp-listen ADDRESS:PORT (routers' BMP) or --broker URL (MQTT)")
    if (args.allow is not None or args.max_sessions is not None) and args.bmp_listen is None:
        raise InputError(f"{'--allow' if args.allow is not None else '--max-sessions'}: only with --bmp-listen")
    broker = broker_of(args) if args.broker is not None else (None, None)  # with another feed: where alerts go
    if (args.vrps is None) == (args.rtr is None):
        raise InputError("want the VRPs: --vrps FILE or --rtr HOST:PORT (an RTR cache), one of them")
    if args.rtr is not None and args.slurm:
        raise InputError("--slurm: the cache at --rtr applies its own (give --vrps to apply SLURM here)")
    if args.pace is not None and args.replay is None:
        raise InputError("--pace: only with --replay")
    if args.replay is not None:
        from bgpsim.live.replay import Replay

        job = MonitorRun(args, Replay(args.replay, args.pace), *broker)
    elif args.bmp_listen is not None:
        from bgpsim.live.bmp import BmpStation

        say = (lambda line: None) if args.quiet else (lambda line: print(f"bgpsim monitor: {line}", file=sys.stderr))
        station = BmpStation(args.bmp_listen, args.allow, args.max_sessions, say,
                             lambda line: print(f"bgpsim: warning: {line}", file=sys.stderr))
        job = MonitorRun(args, station, *broker)
    elif args.ris_live is not None:
        from bgpsim.live.ris_ws import RisLive, Subscription

        sub = Subscription(args.ris_host, [str(p) for p in args.ris_prefix or []], not args.ris_exact,
                           args.ris_less_specific, args.ris_path, str(args.ris_peer) if args.ris_peer else None)
        job = MonitorRun(args, RisLive(args.ris_live, sub, args.heartbeat, args.cafile), *broker)
    else:
        job = MonitorRun(args, None, *broker)
    doc = job.run()
    if not args.quiet:
        write_stdout(job.said(doc))
    return 0
