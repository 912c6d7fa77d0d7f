"""`bgpsim rtr serve` and `bgpsim rtr client`: the RPKI-to-Router protocol, cache and router side."""

from __future__ import annotations

import argparse
import sys

from . import count, seconds

SERVE_EPILOG = """\
examples:
  bgpsim rtr serve --listen 127.0.0.1:8323 --vrps vrps.json
      serve rpki-client's (or Routinator's) JSON, or any VRP CSV we read, to routers on 127.0.0.1
  bgpsim rtr serve --listen [::]:8323 --allow 192.0.2.0/24,2001:db8::/32 --vrps vrps.json --slurm local.json
  bgpsim rtr serve --listen 127.0.0.1:8323 --tal repo/ta.tal --repo repo --revalidate 300
      our relying party validates the repository every 5 minutes; "No Data Available" until the first is done

protocol: RTR versions 0 (RFC 6810), 1 (RFC 8210: router keys, timers in End of Data) and 2
(draft-ietf-sidrops-8210bis: ASPAs), as the router's first query asks. One session ID per run;
serials in RFC 1982 arithmetic; a Serial Query gets only what changed since its serial (the last 64
changes are kept), else a Cache Reset.
reloads: the files are read again when one of them changes (a new file renamed into place is seen) and
on SIGHUP; every router served then gets a Serial Notify. A file that fails to load keeps the last
good data, with one warning; until the first good load every query gets "No Data Available".
safety: it listens only where --listen says; --allow limits the clients, --max-sessions their number;
a client that sends no query within 60 s, or sends a malformed PDU, is closed with one log line and
(for the PDU) the Error Report the RFC asks for. SIGTERM or Ctrl-C stop it.
exit status: 2 bad input or an address it cannot listen on (one line on stderr), 0 when stopped.
"""

CLIENT_EPILOG = """\
examples:
  bgpsim rtr client 127.0.0.1:8323 --format csv
      the cache's VRPs as CSV on stdout (router keys and ASPAs go in --format json)
  bgpsim rtr client rpki.example.net:8323 --rtr-version 1 --out vrps.json
  bgpsim rtr client 127.0.0.1:8323 --follow
      stay on: each change the cache sends, one line per record (+ announced, - withdrawn)
  bgpsim rtr client 127.0.0.1:8323 --diff 127.0.0.1:8282
      compare two caches (ours and stayrtr, say): - only in the first, + only in the second

It asks in --rtr-version (default 2) and takes the version the cache answers with if that is lower.
exit status: 0 done (with --diff: the same payloads), 1 with --diff when the caches differ, 2 bad input,
a cache that cannot be reached or that breaks the protocol (one line).
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("rtr", help="RPKI to routers (RTR): serve VRPs, router keys and ASPAs, or read a cache",
                       description="The RPKI-to-Router protocol: a cache that serves routers, and a client "
                                   "that reads any cache.")
    s = p.add_subparsers(dest="rtr_command", metavar="ACTION", parser_class=parser_class, required=True)
    serve = s.add_parser("serve", help="serve VRP files to routers over RTR", epilog=SERVE_EPILOG,
                         description="Serve validated payloads (VRPs, router keys, ASPAs) to routers over RTR.",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--listen", required=True, metavar="ADDRESS:PORT",
                       help="where to listen: an address and port (127.0.0.1:8323; [::]:8323 for every IPv6 and "
                            "IPv4 address); no default, so it is always said")
    serve.add_argument("--vrps", action="append", metavar="FILE",
                       help="validated payloads: rpki-client or Routinator JSON, or their CSV; repeatable (the union)")
    serve.add_argument("--tal", metavar="FILE", help="instead of --vrps: validate here, from this trust anchor locator ...")
    serve.add_argument("--repo", metavar="DIR", help="... the repository on disk (rsync layout), as `rpki validate` does")
    serve.add_argument("--revalidate", type=seconds, metavar="SECONDS",
                       help="with --tal and --repo: seconds between validations (default 600); SIGHUP: now")
    serve.add_argument("--slurm", action="append", metavar="FILE", help="local exceptions (RFC 8416); repeatable")
    serve.add_argument("--refresh-interval", type=seconds, metavar="SECONDS",
                       help="End of Data: how often a router should ask (default 3600; 1 to 86400)")
    serve.add_argument("--retry-interval", type=seconds, metavar="SECONDS",
                       help="End of Data: how soon a router tries again after a failure (default 600; 1 to 7200)")
    serve.add_argument("--expire-interval", type=seconds, metavar="SECONDS",
                       help="End of Data: how long a router keeps data it cannot refresh (default 7200; 600 to 172800)")
    serve.add_argument("--allow", metavar="NET,NET,...",
                       help="serve only clients in these networks (default: any that reaches --listen)")
    serve.add_argument("--max-sessions", type=count, metavar="N",
                       help="sessions at once (default 1000); one more is refused with a log line")
    serve.add_argument("--tls-cert", metavar="PEM", help="serve RTR over TLS (RFC 8210 section 9) with this certificate")
    serve.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    serve.add_argument("--metrics", metavar="ADDRESS:PORT",
                       help="Prometheus metrics at http://ADDRESS:PORT/metrics: sessions, serial, VRPs, reloads, "
                            "answers and errors")
    serve.add_argument("--quiet", action="store_true", help="warnings and errors only (no line per session)")
    serve.set_defaults(handler=cmd_serve)

    client = s.add_parser("client", help="read a cache's payloads over RTR", epilog=CLIENT_EPILOG,
                          description="Read what an RTR cache serves and write it as VRPs (router keys and ASPAs too).",
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    client.add_argument("cache", metavar="HOST:PORT", help="the cache (127.0.0.1:8323, [::1]:8323, a name)")
    client.add_argument("--rtr-version", type=int, choices=(0, 1, 2), default=2, metavar="N",
                        help="the highest protocol version to ask in (default 2)")
    client.add_argument("--format", choices=("json", "csv", "bird2", "openbgpd"), default="json",
                        help="json (rpki-client's layout, default), csv, bird2 or openbgpd")
    client.add_argument("--out", metavar="FILE", help="write here (new, empty or VRPs) instead of stdout")
    client.add_argument("--follow", action="store_true",
                        help="stay on after the first set and print each change (+ announced, - withdrawn)")
    client.add_argument("--diff", metavar="HOST:PORT",
                        help="compare with a second cache, read at the same time: one line per record that differs "
                             "(- only in the first, + only in the second) and a count of each on stderr")
    client.add_argument("--tls", action="store_true", help="RTR over TLS (RFC 8210 section 9), the cache's "
                                                           "certificate checked against the system's CAs or --cafile")
    client.add_argument("--cafile", metavar="PEM", help="with --tls: the CA certificate of a cache's private CA")
    client.add_argument("--timeout", type=seconds, default=30.0, metavar="SECONDS",
                        help="how long to wait for the cache (default 30)")
    client.add_argument("--quiet", action="store_true", help="warnings and errors only")
    client.set_defaults(handler=cmd_client)


def cmd_serve(args) -> int:
    import asyncio

    from bgpsim.rtr.service import Service

    say = lambda line: print(f"bgpsim rtr: {line}", file=sys.stderr, flush=True)
    service = Service(args, (lambda line: None) if args.quiet else say, lambda line: say(f"warning: {line}"))
    asyncio.run(service.run())
    return 0


def cmd_client(args) -> int:
    import asyncio

    from bgpsim.base import outdir
    from bgpsim.base.console import write_stdout
    from bgpsim.base.errors import InputError
    from bgpsim.rpki.vrps import WRITERS
    from bgpsim.rtr.client import CacheError, Client, parse_cache
    from bgpsim.rtr.tls import client_context

    if args.out:
        outdir.check_file(args.out, "vrps", "--out")
    if args.follow and args.out:
        raise InputError("--follow prints each change on stdout; give it without --out")
    if args.diff and (args.follow or args.out):
        raise InputError(f"--diff prints the differences on stdout; give it without {'--follow' if args.follow else '--out'}")
    ssl = client_context(args.tls, args.cafile)
    clients = [Client(*parse_cache(where), args.rtr_version, args.timeout or None, ssl)
               for where in (args.cache, *([args.diff] if args.diff else []))]
    client = clients[0]
    differ = False

    def changed(before, table) -> None:
        write_stdout(f"serial {client.serial}\n" + "".join(line + "\n" for line in before.diff(table)))

    def said(c) -> None:
        if not args.quiet:
            t = c.table
            print(f"bgpsim rtr: {c.where}: version {c.version}, session {c.session}, serial {c.serial}: "
                  f"{len(t.vrps):,} VRPs, {len(t.keys):,} router keys, {len(t.aspas):,} ASPAs", file=sys.stderr, flush=True)

    async def main() -> None:
        nonlocal differ
        try:
            await asyncio.gather(*(c.reset() for c in clients))
            for c in clients:
                said(c)
            if args.diff:
                lines = clients[0].table.diff(clients[1].table)
                differ = bool(lines)
                write_stdout("".join(line + "\n" for line in lines))
                print(f"bgpsim rtr: {sum(x[0] == '-' for x in lines):,} only in {clients[0].where}, "
                      f"{sum(x[0] == '+' for x in lines):,} only in {clients[1].where}", file=sys.stderr, flush=True)
                return
            text = WRITERS[args.format](client.table.payloads())
            if args.out:
                outdir.write_file(args.out, text, "vrps")
            else:
                write_stdout(text)
            if args.follow:
                await client.follow(changed, warn=lambda text: print(f"bgpsim rtr: warning: {text}", file=sys.stderr,
                                                                     flush=True))
        except CacheError as e:
            raise InputError(str(e)) from None
        finally:
            for c in clients:
                await c.close()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 1 if differ else 0
