"""`bgpsim stream publish`: replay route dumps as a live feed over MQTT (RIS Live messages)."""

from __future__ import annotations

import argparse
import sys

from . import broker_args, broker_of, count, factor, input_files, renamed, seconds

EPILOG = """\
examples:
  mosquitto -p 1883 &                     # a broker (Debian package mosquitto)
  bgpsim stream publish updates.20160811.1600.gz --broker mqtt://127.0.0.1 --pace 60
      the dump at sixty times its own pace: an hour of updates in a minute
  bgpsim stream publish rib.bz2 capture.pcapng --broker mqtts://alice@broker:8883 --cafile ca.pem --flat-out
      as fast as the broker takes them (password from BGPSIM_MQTT_PASSWORD)
  bgpsim stream publish --bmp-listen 192.0.2.10:11019 --allow 192.0.2.0/24 --broker mqtt://127.0.0.1
      routers' BMP (RFC 7854) as the feed: each route a router reports, one message per UPDATE
  mosquitto_sub -h 127.0.0.1 -t 'bgpsim/#' -v
      watch the feed

topics (under --topic, default bgpsim): updates (one RIS Live `data` object per UPDATE, QoS 1),
updates/batch (with --batch N: JSON arrays of N of them), status/publisher (retained: online, done,
or offline, the Last Will). The message format is RIS Live's, so existing parsers read it.
exit status: 0 done, 2 bad input or a broker that is not there or refuses us (one line on stderr).
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("stream", help="replay route dumps as a live MQTT feed (RIS Live messages)",
                       description="Stream BGP updates over MQTT.", epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    s = p.add_subparsers(dest="stream_command", metavar="ACTION", parser_class=parser_class, required=True)
    pub = s.add_parser("publish", help="publish the UPDATEs of route dumps", epilog=EPILOG,
                       description="Publish every UPDATE of MRT dumps, bgpdump -m text or captures as a RIS Live "
                                   "message, at the dump's pace or flat out.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    pub.add_argument("files", nargs="*", metavar="FILE", help="MRT, bgpdump -m text or pcap/pcapng; '-' standard input")
    broker_args(pub)
    pace = pub.add_mutually_exclusive_group()
    speed = pace.add_argument("--pace", type=factor, default=1.0, metavar="FACTOR",
                              help="replay at FACTOR times the dump's own pace (default 1: real time), as `run --pace`")
    renamed(pace, "--speed", speed)
    pace.add_argument("--flat-out", action="store_true", help="as fast as the broker takes the messages")
    pub.add_argument("--batch", type=count, default=1, metavar="N",
                     help="pack N updates into one message on the batched topic (default 1: one message each)")
    bmp = pub.add_argument_group("BMP from routers, instead of files (RFC 7854)")
    bmp.add_argument("--bmp-listen", metavar="ADDRESS:PORT",
                     help="take BMP sessions here and publish each route a router reports")
    bmp.add_argument("--allow", metavar="NET,NET,...", help="take BMP only from routers in these networks (default: any)")
    bmp.add_argument("--max-sessions", type=count, metavar="N", help="BMP sessions at once (default 100)")
    bmp.add_argument("--until-idle", type=seconds, metavar="SECONDS",
                     help="stop once no BMP message has come for this long (default: run until interrupted)")
    pub.add_argument("--quiet", action="store_true", help="print nothing but errors")
    pub.set_defaults(handler=cmd_publish)


def cmd_publish(args) -> int:
    import asyncio

    from bgpsim.base.console import Bar
    from bgpsim.base.errors import InputError
    from bgpsim.live.publish import publish

    if bool(args.files) == (args.bmp_listen is not None):
        raise InputError("want what to publish: FILE... (route data) or --bmp-listen ADDRESS:PORT (routers' BMP), one")
    for flag in ("--allow", "--max-sessions", "--until-idle"):
        if getattr(args, flag[2:].replace("-", "_")) is not None and args.bmp_listen is None:
            raise InputError(f"{flag}: only with --bmp-listen")
    if args.files:
        input_files(args.files)
    addr, topics = broker_of(args)
    warn = lambda m: print(f"bgpsim: warning: {m}", file=sys.stderr)
    station = None
    if args.bmp_listen is not None:
        from bgpsim.live.bmp import BmpStation

        say = (lambda line: None) if args.quiet else (lambda line: print(f"bgpsim stream: {line}", file=sys.stderr))
        station = BmpStation(args.bmp_listen, args.allow, args.max_sessions, say, warn)
        station.prepare()  # the address taken before the broker is reached
    bar = Bar(not args.quiet and sys.stderr.isatty(), "update", delay=1.0)

    async def main():
        live = None
        if station is not None:
            import signal

            from bgpsim.live.bmp import Relay

            stop = asyncio.Event()
            for sig in (signal.SIGTERM, signal.SIGINT):
                asyncio.get_running_loop().add_signal_handler(sig, stop.set)
            live = Relay().messages(station, args.until_idle, stop)
        return await publish(args.files, addr, topics, None if args.flat_out else args.pace, args.batch,
                             progress=lambda n: bar(n, None) if n % 1000 == 0 else None, warn=warn, live=live)

    try:
        done = asyncio.run(main())
    finally:
        bar.close()
    if not args.quiet:
        rate = done.updates / done.seconds if done.seconds else 0.0
        again = f", reconnected {done.reconnects} times" if done.reconnects else ""
        print(f"bgpsim: {done.updates:,} updates in {done.messages:,} messages to {addr} ({topics.prefix}/...) "
              f"in {done.seconds:.1f} s ({rate:,.0f} updates/s){again}", file=sys.stderr)
    return 0
