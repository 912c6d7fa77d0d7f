"""`bgpsim dump`: print the routes of MRT files, `bgpdump -m` text and pcap/pcapng captures."""

from __future__ import annotations

import argparse
import sys

DUMP_EPILOG = """\
examples:
  bgpsim dump updates.20160811.1600.gz
      one line per prefix per peer, exactly as `bgpdump -m` prints it
  bgpsim dump --format json rib.20140523.0600.bz2 | head
      one JSON object per line
  bgpsim dump --format csv bview.gz > routes.csv
  curl -s https://data.ris.ripe.net/rrc00/latest-update.gz | bgpsim dump -
      '-' reads standard input (any of the formats below)

input: MRT (RFC 6396) TABLE_DUMP, TABLE_DUMP_V2 (incl. ADD-PATH), BGP4MP and BGP4MP_ET; `bgpdump -m` text;
pcap/pcapng captures of BGP sessions (TCP port 179); plain, gzip or bzip2 (all recognised by content).
A file cut short gives its whole records and one warning; a damaged packet in a capture is a warning.
exit status: 0 done, 2 bad input (one line on stderr naming the file and byte offset or line).
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("dump", help="print the routes of MRT dumps (bgpdump -m, JSON or CSV)",
                       description="Read MRT route dumps and print one line per prefix per peer.",
                       epilog=DUMP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="MRT, bgpdump -m text or pcap/pcapng file (plain, .gz, .bz2); '-' reads standard input")
    p.add_argument("--format", choices=("bgpdump", "json", "csv"), default="bgpdump",
                   help="bgpdump: exactly `bgpdump -m` (default); json: one object per line; csv: with a header")
    p.add_argument("--quiet", action="store_true", help="warnings and errors only (the default here: the command "
                                                         "prints only the routes)")
    p.set_defaults(handler=cmd_dump)


def cmd_dump(args) -> int:
    from bgpsim.routedata import file_of, reader_for, sniffed
    from bgpsim.mrt import bgpdump, formats

    from . import input_files

    input_files(args.files)

    def routes():
        for f in map(file_of, args.files):
            yield from reader_for(f)(f)

    def bgpdump_text():  # MRT written by the compiled core; other inputs route by route
        from bgpsim.mrt.reader import MRTReader, read_routes

        for f in map(file_of, args.files):
            reader, chunks = sniffed(f)
            if reader is read_routes:
                sys.stdout.buffer.writelines(MRTReader(f, chunks=chunks).bgpdump_text())
            else:
                chunks.close()
                bgpdump.write(reader(f), out)
                out.flush()

    out = sys.stdout
    if args.format == "bgpdump":
        bgpdump_text()
    elif args.format == "json":
        formats.write_json(routes(), out)
    else:
        formats.write_csv(routes(), out)
    return 0
