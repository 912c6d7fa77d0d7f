"""`bgpsim bgp speak`: a BGP session with a real router."""

from __future__ import annotations

import argparse
import sys

from . import address, asn, count, factor, renamed, seconds

SPEAK_EPILOG = """\
examples:
  bgpsim bgp speak --neighbor 192.0.2.1 --as 65001 --peer-as 65000 --out heard.mrt
      a session with the router at 192.0.2.1:179; what it sends recorded as MRT until Ctrl-C
  bgpsim bgp speak --neighbor 127.0.0.1:1179 --local 127.0.0.2 --as 65001 --peer-as 65000 --announce routes.txt \\
      --until-idle 5
      announce the routes of a dump (any format `dump` reads: bgpdump -m text, MRT, a capture), then end
      the session once the router has been quiet for 5 s
  bgpsim bgp speak --neighbor 127.0.0.1:1179 --as 65001 --peer-as 65000 --replay updates.gz --flat-out \\
      --out heard.mrt --until-idle 10
      replay a dump's UPDATEs in their order as fast as the router takes them
  bgpsim bgp speak --listen 127.0.0.1:1179 --neighbor 127.0.0.2 --as 65537 --peer-as 65536 --bgpsec --out heard.mrt
      wait for a speaker at 127.0.0.2 (another bgpsim, signing with --signing-keys) and record its BGPsec UPDATEs;
      `bgpsim bgpsec verify heard.mrt --router-keys KEYS` checks them

the session: OPEN with the 4-octet AS, IPv4 and IPv6 unicast and route refresh capabilities; KEEPALIVEs
every third of the Hold Time; a ROUTE-REFRESH answered with everything sent. Routes go as an AS exports
them: to another AS with ours prepended, MED and LOCAL_PREF left behind, the next hop ours (--next-hop).
what comes back: each UPDATE recorded whole (BGP4MP_ET, readable by `bgpsim dump` and bgpdump) and read
as RFC 7606 says: a faulty attribute discarded or the UPDATE's routes withdrawn, one warning line each;
an UPDATE that cannot be read ends the session with an UPDATE Message Error NOTIFICATION.
the recording goes to a temporary file beside --out, renamed into place when the session ends.
exit status: 0 the session ended here (--until-idle, SIGTERM, Ctrl-C) or the router ended it with a Cease;
1 it ended otherwise (another NOTIFICATION, the connection lost: one line); 2 bad input, a router that
cannot be reached or refuses the OPEN, an address that cannot be listened on.
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("bgp", help="speak BGP to a real router: announce, replay, record",
                       description="BGP sessions with real routers.")
    s = p.add_subparsers(dest="bgp_command", metavar="ACTION", parser_class=parser_class, required=True)
    sp = s.add_parser("speak", help="hold a BGP session: announce or replay routes, record what comes back",
                      description="Open a BGP session to a router, announce routes from a file or replay a dump's "
                                  "UPDATEs, and record what the router sends as MRT.",
                      epilog=SPEAK_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp.add_argument("--neighbor", required=True, metavar="ADDRESS[:PORT]",
                    help="the router: its address and port (default port 179; [2001:db8::1]:1179 for IPv6)")
    sp.add_argument("--local", type=address, metavar="ADDRESS", help="connect from this local address (default: the system's choice)")
    sp.add_argument("--listen", metavar="ADDRESS:PORT",
                    help="instead of connecting, wait here for --neighbor to connect (its port is then not used)")
    sp.add_argument("--as", dest="local_as", type=asn, required=True, metavar="ASN", help="the AS bgpsim speaks as")
    sp.add_argument("--peer-as", type=asn, required=True, metavar="ASN", help="the router's AS, as its OPEN must say")
    sp.add_argument("--router-id", type=address, metavar="ADDRESS",
                    help="our BGP Identifier, an IPv4 address (default: --local if IPv4, else 127.0.0.1)")
    sp.add_argument("--hold", type=count, default=90, metavar="N",
                    help="the Hold Time offered, seconds: 0 (none) or at least 3 (default 90; the smaller of the two "
                         "sides' counts)")
    what = sp.add_mutually_exclusive_group()
    what.add_argument("--announce", metavar="FILE",
                      help="announce these routes (each prefix's last state) once the session is up: MRT, bgpdump -m "
                           "text or a capture")
    what.add_argument("--replay", metavar="FILE", help="send this dump's UPDATEs in their order, at its pace")
    sp.add_argument("--next-hop", type=address, action="append", metavar="ADDRESS",
                    help="the next hop of the routes we send, one IPv4 and one IPv6 (default: our address on the "
                         "session, for its family)")
    pace = sp.add_mutually_exclusive_group()
    speed = pace.add_argument("--pace", type=factor, default=1.0, metavar="FACTOR",
                              help="with --replay: FACTOR times the dump's own pace (default 1: real time)")
    renamed(pace, "--speed", speed)
    pace.add_argument("--flat-out", action="store_true", help="with --replay: as fast as the router takes them")
    sp.add_argument("--signing-keys", action="append", metavar="DIR|FILE",
                    help="private BGPsec router keys (repeatable): routes whose every AS has one go signed (RFC 8205), to a peer "
                         "that takes BGPsec UPDATEs; ours must be among them")
    sp.add_argument("--bgpsec", action="store_true",
                    help="offer the BGPsec capability, to receive signed UPDATEs (--signing-keys offers it too)")
    sp.add_argument("--add-path", action="store_true",
                    help="offer to receive every path of a prefix (ADD-PATH, RFC 7911), each with its path "
                         "identifier, where the router offers to send them")
    sp.add_argument("--out", metavar="FILE.mrt", help="record every UPDATE the router sends here, as MRT (BGP4MP_ET)")
    sp.add_argument("--until-idle", type=seconds, metavar="SECONDS",
                    help="once all is sent, end the session when nothing has come for this long (default: run "
                         "until SIGTERM or Ctrl-C)")
    sp.add_argument("--quiet", action="store_true", help="warnings and errors only")
    sp.set_defaults(handler=cmd_speak)


def cmd_speak(args) -> int:
    import asyncio

    from bgpsim.speaker.speaker import Speaker

    args.local = str(args.local) if args.local else None
    args.router_id = str(args.router_id) if args.router_id else None
    args.next_hop = [str(a) for a in args.next_hop or ()]
    say = lambda line: print(f"bgpsim bgp: {line}", file=sys.stderr, flush=True)
    warn = lambda line: print(f"bgpsim: warning: {line}", file=sys.stderr, flush=True)
    speaker = Speaker(args, (lambda line: None) if args.quiet else say, warn)
    return asyncio.run(speaker.run())
