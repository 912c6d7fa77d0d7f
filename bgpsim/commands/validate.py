"""`bgpsim validate FILE... --vrps FILE`: the RPKI status, ASPA verdict and findings of every
announced route of route dumps."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import asn, peer_role_args, renamed

MAX_LISTED = 10  # BGPsec findings on the terminal
EPILOG = """\
examples:
  bgpsim validate updates.20160811.1600.gz --vrps rpki-client.json
      summary on the terminal; every file in bgpsim-out/validate/
  bgpsim validate rib.bz2 --vrps vrps.csv --slurm local.json --aspa rpki-client.json \\
                  --relationships ../shared/data/caida/20250901.as-rel2.txt.bz2 --out check
  bgpsim validate rib.bz2 --vrps vrps.json --format json --quiet | jq .rpki
  bgpsim rpki validate --tal repo/ta.tal --repo repo --out vrps.json && bgpsim validate updates.mrt --vrps vrps.json --router-keys vrps.json
      a BGPsec verdict for every route too, the router keys from the relying party's output

what each route gets:
  rpki      RFC 6811: valid, invalid-asn, invalid-length or not-found, with the reason
  aspa      with --aspa (validated ASPAs, e.g. rpki-client JSON), or --relationships standing in for
            them: valid, invalid or unknown (draft-ietf-sidrops-aspa-verification-28 sections 5.5,
            5.6): upstream from a customer, peer or route server, downstream from a provider (--peer-role,
            or --collector-as with --relationships); a peer whose role is not known, downstream, as a
            collector takes full tables like a customer (counted: aspa_unplaced); a first AS that is
            not the peer's, but from a route server, or an empty path: invalid
  bgpsec    with --router-keys (RFC 8205 section 5): valid, not-valid (no-key, bad-signature),
            withdraw (malformed, peer-as-mismatch, pcount-zero, confed-segment: a router would treat
            the UPDATE as withdrawn), unsigned (no BGPsec_PATH, or unsupported-suite), unknown (the
            receiving AS, the target of the newest signature, is not known: a RIB entry without
            --target-as)
  findings  moas, subprefix, bogon-prefix, bogon-asn, private-asn, loop, as-set (an AS_SET in
            the path: RFC 9774 routers treat the route as withdrawn), and leak (valley-free
            violations; needs --relationships); with --router-keys bgpsec-not-valid (a route not
            valid or withdrawn, one finding per prefix, path, receiving AS and reason)

output directory (--out, default bgpsim-out/validate): summary.json (routes and counts per status),
routes.csv (one row per route; with --router-keys two more columns, bgpsec and bgpsec_reason, and
summary.json's bgpsec object), findings.json, report.html (figures), and with --relationships
scenarios/*.toml: the first 10 MOAS and 10 sub-prefix conflicts as scenarios to replay on that graph with
`bgpsim run DIR/scenarios/subprefix-1.toml`. It appears whole or not at all.
input: MRT, `bgpdump -m` text, pcap/pcapng (plain, gzip or bzip2; told by content). VRPs: rpki-client or Routinator JSON or CSV; SLURM: RFC 8416.
speed: one process and its threads: a large --vrps file (4 MiB or more, without --slurm) is read and
indexed on one while the dumps are read on another (bzip2 blocks decompressed on every CPU), each batch
of routes is prepared on the main thread and checked on one of two more, in order; the compiled core
does the reading and most of the checks without the GIL. Nothing is cached between runs.
exit status: 0 done, 2 bad input (one line naming the file and the line, key or byte offset).
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("validate", help="RPKI, ASPA and hijack/leak findings for every route of route dumps",
                       description="Check every announced route of route dumps: its RFC 6811 status against "
                                   "VRPs, its ASPA verdict, and what looks like a hijack or a leak.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="route dump: MRT, bgpdump -m text or pcap/pcapng (plain, .gz, .bz2); - is standard input")
    p.add_argument("--vrps", required=True, metavar="FILE", help="VRPs: rpki-client/Routinator JSON or CSV")
    p.add_argument("--slurm", action="append", metavar="FILE", help="RFC 8416 SLURM file (repeatable)")
    p.add_argument("--aspa", metavar="FILE", help="validated ASPAs: rpki-client JSON (aspas or provider_authorizations)")
    p.add_argument("--relationships", metavar="CAIDA_FILE",
                   help="CAIDA AS relationships (as-rel2): leak findings, and ASPA stand-in without --aspa")
    peer_role_args(p)
    p.add_argument("--router-keys", action="append", metavar="DIR|FILE",
                   help="BGPsec router keys (relying-party JSON, router certificates, key files, or a folder; "
                        "repeatable): every route gets a BGPsec verdict")
    target = p.add_argument("--target-as", type=asn, metavar="ASN",
                            help="the receiving AS where the dump does not say (RIB entries), for --router-keys")
    renamed(p, "--bgpsec-target", target)
    p.add_argument("--out", default="bgpsim-out/validate", metavar="DIR", help="output directory (default: %(default)s): new, empty, or an earlier output of "
                        "bgpsim, which is replaced; anything else is refused")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="what goes to standard output: a table (default), summary.json, or the routes as CSV")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    p.set_defaults(handler=cmd_validate)


def cmd_validate(args) -> int:
    from bgpsim.base import outdir
    from bgpsim.base.console import Bar, end_now
    from bgpsim.routedata import file_of
    from bgpsim.validate.validation import Validation

    from bgpsim import _core
    from . import input_files

    input_files(args.files)
    outdir.check(args.out, "validate")  # before the work: a refused --out costs nothing
    files = [file_of(f) for f in args.files]  # standard input spooled, once the output place is checked
    _core.hold_freed_memory()  # each batch's blocks reused, not mapped afresh (docs/validate.md)
    v = Validation.from_args(args, later=True)  # a big VRP file: read on a thread while the dumps are read
    bar = Bar(not args.quiet and sys.stderr.isatty(), "route", delay=1.0)
    try:
        doc, findings = v.run(files, args.out, progress=lambda n: bar(n, None))
    finally:
        bar.close()
    if args.format == "csv":  # from the output in place: a reader that stops early (`| head`) leaves it whole
        sys.stdout.write((Path(args.out) / "routes.csv").read_text())
    elif args.format == "json":
        from bgpsim.validate.output import summary_json

        sys.stdout.write(summary_json(doc))
    elif args.format == "table" and not args.quiet:
        _table(doc, args.out, findings)
    if args.at_once:  # the command ends here: the table's objects are not freed one by one
        end_now(0)
    return 0


def _table(doc: dict, out: str, findings) -> None:
    n = doc["routes"] or 1
    print(f"{doc['routes']:,} announced routes ({doc['withdrawals']:,} withdrawals) against {doc['vrps']:,} VRPs")
    for s, c in doc["rpki"].items():
        print(f"  {s:<15} {c:>12,}  {c / n:7.2%}")
    if doc["aspa"]:
        print("ASPA:")
        for s, c in doc["aspa"].items():
            print(f"  {s:<15} {c:>12,}  {c / n:7.2%}")
    b = doc.get("bgpsec")
    if b is not None:
        print(f"BGPsec: {b['signed']:,} signed routes, {b['router_keys']:,} router keys, "
              f"{b['verified']:,} signatures verified, {b['reused']:,} answers reused")
        for s, c in b["states"].items():
            print(f"  {s:<15} {c:>12,}  {c / n:7.2%}")
        if b["states"]["unknown"]:
            print("  unknown: the receiving AS is not known (RIB entries): give --target-as")
        from bgpsim.validate.bgpsec import NOT_VALID

        bad = findings.by_kind[NOT_VALID]
        for f in bad[:MAX_LISTED]:
            print(f"  {f['state']}: {f['prefix']} path {f['as_path']} to AS{f['target_as']} "
                  f"({f['routes']:,} route{'s' if f['routes'] != 1 else ''}): {f['reason']}: {f['detail']}")
        if len(bad) > MAX_LISTED:
            print(f"  ... {len(bad) - MAX_LISTED:,} more in findings.json ({NOT_VALID})")
    found = ", ".join(f"{k} {c:,}" for k, c in doc["findings"].items() if c)
    print(f"findings: {found or 'none'}")
    print(f"written: {out}/summary.json, routes.csv, findings.json, report.html")
