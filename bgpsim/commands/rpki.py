"""`bgpsim rpki ...`: the RPKI commands. Each subcommand sets `handler` on the parsed arguments."""

from __future__ import annotations

import argparse
import sys

from bgpsim.base import outdir
from bgpsim.base.console import Bar, write_stdout
from bgpsim.base.errors import InputError
from bgpsim.base.errors import stderr_warning as warn

from . import asn, count, renamed

VRPS_EPILOG = """\
examples:
  bgpsim rpki vrps --vrps rpki-client.json --format csv
      rpki-client's JSON as Routinator's CSV, on standard output
  bgpsim rpki vrps --vrps routinator.json --slurm exceptions.json --out vrps.json
      Routinator's JSON with local exceptions (SLURM, RFC 8416) applied, written as rpki-client
      JSON to vrps.json (atomically: readers see the old file or the new one, never half of one)
  bgpsim rpki vrps --vrps vrps.csv --format openbgpd --out /etc/bgpd/roa-set.conf
      a roa-set for OpenBGPD's bgpd.conf
  curl -s https://console.rpki-client.org/vrps.json | bgpsim rpki vrps --vrps - --format bird2
      '-' reads standard input
  bgpsim rpki vrps --vrps vrps.json --slurm ours.json --slurm theirs.json --format csv
      several SLURM files; RFC 8416 section 4.2 forbids two of them to touch the same prefixes,
      the same ASN's BGPsec keys (or, here, the same ASPA customer)

input (--vrps), told from the content:
  rpki-client JSON     metadata.buildtime, roas, bgpsec_keys, provider_authorizations (8.x) or aspas (9.x)
  Routinator JSON      json and jsonext: metadata.generated, roas, routerKeys, aspas
  CSV                  by its header: Routinator csv 'ASN,IP Prefix,Max Length,Trust Anchor',
                       rpki-client's (the same, then ',Expires'), csvcompat ('"ASN","IP Prefix",...'),
                       csvext ('URI,ASN,IP Prefix,Max Length,Not Before,Not After'; no trust anchor: N/A)

--slurm FILE: RFC 8416 (slurmVersion 1), or version 2 with ASPA filters and assertions
(draft-ietf-sidrops-aspa-slurm). Filters remove what they match, then assertions are added with
trust anchor N/A. Any schema fault is an error naming the JSON path, e.g.
locallyAddedAssertions.prefixAssertions[0].maxPrefixLength.

output (--format):
  json       rpki-client 8.2's layout: metadata (buildtime: the input's time if it gives one, else
             now; counts), roas, bgpsec_keys, provider_authorizations {ipv4, ipv6}; 'expires' where
             the input gave it
  csv        Routinator's csv (route origins only)
  bird2      Routinator's bird2: 'route 192.0.2.0/24 max 24 as 64496;' per VRP
  openbgpd   Routinator's openbgpd: a 'roa-set { ... }' block
Entries are sorted by address family, prefix, maxLength and ASN; duplicates in the input are kept.

exit status: 0 done; 2 bad input, with one line on stderr naming the file and the JSON path or
line, and what was wanted.
"""


def register(sub, parser_class) -> None:
    """Add `rpki` and its subcommands to the `bgpsim` command's subparsers."""
    rpki = sub.add_parser("rpki", help="RPKI: convert and filter VRPs, build a repository as a CA, "
                          "validate one as a relying party",
                          description="RPKI tools.", formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = rpki.add_subparsers(dest="rpki_command", metavar="COMMAND", parser_class=parser_class, required=True)

    from bgpsim.rpki.vrps import WRITERS

    vrps = commands.add_parser(
        "vrps", help="convert a relying party's VRPs, router keys and ASPAs between formats, applying SLURM",
        description="Read validated payloads (VRPs, BGPsec router keys, ASPAs) as rpki-client or Routinator wrote "
                    "them, apply local exceptions (SLURM), and write them for a router or another tool.",
        epilog=VRPS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = vrps.add_argument("--vrps", dest="source", required=True, metavar="FILE",
                               help="rpki-client or Routinator JSON, or their CSV ('-': standard input)")
    renamed(vrps, "--from", source)
    vrps.add_argument("--slurm", action="append", metavar="FILE",
                      help="SLURM file (RFC 8416) to apply; give it again for more files")
    vrps.add_argument("--format", choices=tuple(WRITERS), default="json",
                      help="output format (default json: rpki-client 8.2's layout)")
    vrps.add_argument("--out", metavar="FILE",
                      help="write here, atomically (default: standard output); an existing FILE is replaced only if it "
                               "holds VRPs this command writes")
    vrps.add_argument("--quiet", action="store_true", help="warnings and errors only (the default here: the command "
                                                             "prints no summary)")
    vrps.set_defaults(handler=cmd_vrps)

    wf = commands.add_parser(
        "watch-file", help="a watch file for `bgpsim monitor --watch` from an AS's VRPs",
        description="Write a watch file (TOML) for `bgpsim monitor --watch`: every prefix the ASes hold VRPs for, "
                    "with the origins the VRPs allow and more-specifics where a maxLength allows them, and the ASes "
                    "themselves (their announcements of other prefixes are alerts). BGPalerter's `generate` makes its "
                    "list from what is announced; this one from the RPKI.",
        epilog="examples:\n  bgpsim rpki watch-file --asn 3333 --vrps rpki-client.json --out watch.toml\n"
               "  bgpsim monitor --ris-live 'wss://ris-live.ripe.net/v1/ws/?client=me' --watch watch.toml "
               "--vrps rpki-client.json\n\nexit status: 0 done; 2 bad input, or no VRP for the ASes",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    wf.add_argument("--asn", type=asn, action="append", required=True, metavar="ASN",
                    help="the AS whose prefixes to watch (repeatable)")
    wf.add_argument("--vrps", required=True, metavar="FILE",
                    help="VRPs: rpki-client or Routinator JSON, or their CSV ('-': standard input)")
    wf.add_argument("--out", metavar="FILE",
                    help="write here, atomically (default: standard output); an existing FILE is replaced only if "
                         "this command wrote it")
    wf.add_argument("--quiet", action="store_true", help="warnings and errors only (the command prints no summary)")
    wf.set_defaults(handler=cmd_watch_file)

    ca = commands.add_parser("ca", help="a certification authority: build a repository from a spec",
                             description="An RPKI certification authority driven by a TOML spec.")
    ca_commands = ca.add_subparsers(dest="ca_command", metavar="COMMAND", parser_class=parser_class, required=True)
    ca_build = ca_commands.add_parser(
        "build", help="build (or update) a whole repository from SPEC.toml",
        description="Build every CA certificate, CRL, manifest, ROA, ASPA and BGPsec router certificate the "
                    "spec describes under DIR/<host>/<path of the rsync URI>, and a TAL per trust anchor at "
                    "DIR/<name>.tal. Keys and state stay in DIR/.keys (mode 0600, outside the published tree): "
                    "running again updates the repository (new CRL and manifest numbers, same keys).",
        epilog="exit status: 0 done; 2 bad spec, with one line on stderr naming the file and line.")
    ca_build.add_argument("spec", metavar="SPEC.toml", help="the CA spec")
    ca_build.add_argument("--out", required=True, metavar="DIR",
                          help="the repository directory: new, empty, or one this command built (updated whole, "
                               "through a copy swapped in at the end); anything else is refused")
    ca_build.add_argument("--now", metavar="TIME", help="ISO 8601 time to issue at (default: now)")
    ca_build.add_argument("--quiet", action="store_true", help="no progress bar, no summary line; warnings and errors only")
    ca_build.set_defaults(handler=cmd_ca_build)
    ca_example = ca_commands.add_parser(
        "example", help="print an example spec, every key explained (a start for your own)",
        description="Print a commented example spec for `rpki ca build`: a trust anchor, two CAs, ROAs (one "
                    "of AS0), an ASPA and two BGPsec router keys, on documentation addresses.",
        epilog="example:\n  bgpsim rpki ca example > spec.toml && bgpsim rpki ca build spec.toml --out repo",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ca_example.add_argument("--quiet", action="store_true", help="warnings and errors only (the default here: the "
                                                                   "command prints only the spec)")
    ca_example.set_defaults(handler=cmd_ca_example)

    validate = commands.add_parser(
        "validate", help="a relying party: validate a repository on disk from a TAL and write the payloads",
        description="Walk the repository under DIR (every object at DIR/<host>/<path of its rsync URI>) from the "
                    "TAL's trust anchor down: manifests, CRLs, CA and router certificates, ROAs and ASPAs, each "
                    "checked (signatures, revocation, resources, validity at --time, manifest hashes). Write the "
                    "VRPs, router keys and ASPAs that pass; a broken manifest or CRL drops the CA's whole subtree.",
        epilog="exit status: 0 done (rejected objects do not change it: one warning on stderr counts them, "
               "--verbose lists each and why); 2 unusable TAL or --repo, or a trust anchor that is not valid at "
               "--now (a wrong --repo, an expired certificate): one line on stderr says why, and nothing is "
               "written, so an empty VRP set never replaces a good one.")
    validate.add_argument("--tal", required=True, metavar="FILE", help="the trust anchor locator (RFC 8630)")
    validate.add_argument("--repo", required=True, metavar="DIR", help="the repository: DIR/<host>/<path>")
    now = validate.add_argument("--now", metavar="TIME", help="ISO 8601 time to validate at (default: now)")
    renamed(validate, "--time", now)
    validate.add_argument("--format", choices=tuple(WRITERS), default="json",
                          help="output format (default json: rpki-client 8.2's layout, plus metadata.rejected)")
    validate.add_argument("--out", metavar="FILE",
                          help="write here, atomically (default: standard output); an existing FILE is replaced only if it "
                               "holds VRPs this command writes")
    validate.add_argument("--verbose", action="store_true", help="list rejected objects and why on stderr")
    validate.add_argument("--workers", type=count, metavar="N",
                          help="processes checking the ROAs and ASPAs of large publication points "
                               "(default: one per CPU; 1: none besides this one); the output is the same")
    validate.add_argument("--quiet", action="store_true", help="no progress bar (shown on a terminal after a second); "
                                                                 "warnings and errors only")
    validate.set_defaults(handler=cmd_validate)


def _time_arg(flag: str, text: str | None):
    from datetime import datetime, timezone

    if not text:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"{flag}: want an ISO 8601 time, got {text!r}") from None
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when


def cmd_validate(args) -> int:
    from bgpsim.rpki.rp import validate, write_json_with_rejections
    from bgpsim.rpki.vrps import WRITERS

    if args.out:
        outdir.check_file(args.out, "vrps")  # before the work
    bar = Bar(sys.stderr.isatty() and not args.quiet, "object", delay=1.0)
    try:
        result = validate(args.tal, args.repo, _time_arg("--now", args.now), workers=args.workers, progress=bar)
    finally:
        bar.close()
    if result.ta_failed:  # no output: an empty VRP set in place of a good one would drop every ROA
        raise InputError(f"the trust anchor is not valid, nothing written: {result.ta_failed}")
    p = result.payloads
    if args.verbose:
        for r in result.rejected:
            print(f"rejected: {r.reason}", file=sys.stderr)
        print(f"{len(p.origins)} VRPs, {len(p.router_keys)} router keys, {len(p.aspas)} ASPAs from {result.cas} CAs; "
              f"{len(result.rejected)} rejected", file=sys.stderr)
    elif result.rejected:
        warn(f"{len(result.rejected)} objects rejected, the first: {result.rejected[0].reason} "
             f"(--verbose lists them all); {len(p.origins)} VRPs, {len(p.router_keys)} router keys, "
             f"{len(p.aspas)} ASPAs from {result.cas} CAs")
    text = write_json_with_rejections(result) if args.format == "json" else WRITERS[args.format](result.payloads)
    _emit(text, args.out)
    return 0


def _emit(text: str, out: str | None) -> None:
    if out:
        outdir.write_file(out, text, "vrps")
    else:
        write_stdout(text)


def cmd_ca_build(args) -> int:
    from bgpsim.rpki.ca import build_repository

    now = _time_arg("--now", args.now)
    bar = Bar(sys.stderr.isatty() and not args.quiet, "object", delay=1.0)
    try:
        result = build_repository(args.spec, args.out, now, progress=bar)
    finally:
        bar.close()
    count = sum(len(f) for f in result.published.values())
    if not args.quiet:
        print(f"{count} files for {len(result.published)} CAs in {result.out}; "
              f"TAL {', '.join(str(t) for t in result.tals)}")
    return 0


def cmd_ca_example(args) -> int:
    from importlib.resources import files

    write_stdout(files("bgpsim.rpki").joinpath("example-spec.toml").read_text(encoding="utf-8"))
    return 0


def cmd_watch_file(args) -> int:
    from bgpsim.live.watch import watch_text
    from bgpsim.rpki.vrps import read_payloads, read_text

    if args.out:
        outdir.check_file(args.out, "watch")  # before the work
    name = "<stdin>" if args.vrps == "-" else args.vrps
    payloads = read_payloads(read_text(args.vrps, what="--vrps"), name)
    vrps = [o.vrp for o in payloads.origins]
    if not any(v.asn in args.asn for v in vrps):
        raise InputError(f"--vrps {name}: no VRP for AS{', AS'.join(map(str, args.asn))}: nothing to watch")
    text = watch_text(vrps, args.asn, name)
    if args.out:
        outdir.write_file(args.out, text, "watch")
    else:
        write_stdout(text)
    return 0


def cmd_vrps(args) -> int:
    from bgpsim.rpki.slurm import apply_slurm, load_slurm
    from bgpsim.rpki.vrps import WRITERS, read_payloads, read_text

    if args.out:
        outdir.check_file(args.out, "vrps")  # before the work
    name = "<stdin>" if args.source == "-" else args.source
    payloads = read_payloads(read_text(args.source, what="--vrps"), name)
    slurms = [load_slurm(path) for path in args.slurm or ()]
    if slurms:
        payloads = apply_slurm(payloads, slurms)
    _emit(WRITERS[args.format](payloads), args.out)
    return 0
