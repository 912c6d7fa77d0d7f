"""`bgpsim bgpsec`: sign BGPsec UPDATEs with router keys, and verify the BGPsec UPDATEs of captures,
MRT dumps and hex messages (RFC 8205, algorithm suite 1 of RFC 8608)."""

from __future__ import annotations

import argparse
import sys

from . import address, asn, prefix, renamed

EPILOG = """\
examples:
  bgpsim rpki ca example > spec.toml && bgpsim rpki ca build spec.toml --out repo
      a repository whose router certificate (RFC 8209) carries AS64496's key; private keys in repo/.keys
  bgpsim rpki validate --tal repo/ta.tal --repo repo --out vrps.json
      the relying party: VRPs, ASPAs and the router keys that verify
  bgpsim bgpsec sign --prefix 192.0.2.0/24 --path 64496 --target-as 65537 --signing-keys repo/.keys
      AS64496 originates 192.0.2.0/24 and signs toward AS65537; prints the signed UPDATE as hex
  bgpsim bgpsec sign --prefix 192.0.2.0/24 --path 64496 --target-as 65537 --signing-keys repo/.keys --out signed.pcap
      the same UPDATE inside a BGP session (OPENs with the BGPsec capability) that Wireshark opens
  bgpsim bgpsec verify signed.pcap --router-keys vrps.json
      one verdict per UPDATE: valid, or not valid and why

--signing-keys: private router keys (a CA's .keys folder, PEM or DER files).
--router-keys: public router keys, a relying party's JSON (`rpki validate`, rpki-client, Routinator: their BGPsec router keys),
BGPsec router certificates, or PEM/DER key files; a directory is read file by file. A key file names
its AS in its file name (AS64496, bird_64496.) or through a ski-list.txt beside it (NIST BGP-SRx).
"""

SIGN_EPILOG = """\
--path lists the ASes as an AS path does: the most recent first, the origin last; an AS written twice
in a row is one Secure_Path Segment with pCount 2 (prepending). Each AS signs toward the next one, the
most recent toward --target-as. One UPDATE per --prefix (a signature covers one prefix, RFC 8205 4.1).
Signatures are deterministic (RFC 6979): the same keys and path give the same bytes.
--out FILE writes a pcap (an existing capture is replaced, atomically; any other file is refused);
without it, hex goes to stdout.
"""

VERIFY_EPILOG = """\
input: pcap/pcapng captures of BGP sessions, MRT dumps (BGP4MP and TABLE_DUMP_V2), or text with one
UPDATE message in hex per line (whitespace ignored, '#' starts a comment). The target AS of the most
recent signature is the receiving router's AS: from the session's OPEN in a capture, from the BGP4MP
header in MRT; give --target-as for RIB dumps and hex messages.

verdicts (RFC 8205 section 5), with the reason where not valid:
  valid        every signature verifies with a router key bound to its AS
  not-valid    no-key (no key with the SKI for that AS), bad-signature
  withdraw     checks before the signatures fail; a router treats the UPDATE as a withdrawal
               (RFC 7606): malformed, peer-as-mismatch, pcount-zero, confed-segment
  unsigned     no BGPsec_PATH (listed with --unsigned), or unsupported-suite (no block of suite 1)
  unknown      the receiving AS is not known: give --target-as
exit status: 0 no UPDATE not-valid or withdrawn, 1 some, 2 bad input (one line on stderr).
"""


def _as_path(text: str) -> list[int]:
    try:
        return [asn(t.strip()) for t in text.split(",") if t.strip()] or [asn("")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"want ASes separated by commas, origin last, got {text!r}") from None


def register(sub, parser_class) -> None:
    p = sub.add_parser("bgpsec", help="sign BGPsec UPDATEs and verify those of captures and dumps",
                       description="BGPsec (RFC 8205): sign route announcements with router keys, and verify "
                                   "the signatures of BGPsec UPDATEs.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    s = p.add_subparsers(dest="bgpsec_command", metavar="ACTION", parser_class=parser_class, required=True)

    sg = s.add_parser("sign", help="build signed BGPsec UPDATEs", epilog=SIGN_EPILOG,
                      description="Build BGPsec UPDATEs, each AS of --path signing with its router key.",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    sg.add_argument("--prefix", type=prefix, action="append", required=True, metavar="P",
                    help="a prefix to announce (repeat for more; one UPDATE each)")
    sg.add_argument("--path", type=_as_path, required=True, metavar="ASN,ASN,...", help="ASes, most recent first, origin last: 65536,64496")
    target = sg.add_argument("--target-as", type=asn, required=True, metavar="ASN", help="the AS the UPDATE is sent to")
    renamed(sg, "--target", target)
    keys = sg.add_argument("--signing-keys", action="append", required=True, metavar="DIR|FILE",
                    help="private router keys (a CA's .keys folder, PEM or DER files); repeatable")
    renamed(sg, "--keys", keys)
    sg.add_argument("--next-hop", type=address, metavar="ADDRESS", help="MP_REACH_NLRI next hop (default 198.51.100.1, or 2001:db8::1 for IPv6)")
    sg.add_argument("--out", metavar="FILE.pcap", help="write a capture of the BGP session instead of hex; an existing FILE is "
                                                              "replaced only if it is a capture")
    sg.add_argument("--format", choices=("hex", "json"), default="hex",
                    help="without --out: hex, one UPDATE per line (default), or JSON lines with the fields")
    sg.add_argument("--quiet", action="store_true", help="nothing on stderr but errors")
    sg.set_defaults(handler=cmd_sign)

    vf = s.add_parser("verify", help="verify the BGPsec UPDATEs of captures, dumps or hex", epilog=VERIFY_EPILOG,
                      description="Verify each BGPsec UPDATE (RFC 8205 section 5) and print its verdict.",
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    vf.add_argument("files", nargs="+", metavar="FILE", help="pcap/pcapng, MRT, or hex UPDATEs, one per line; - is standard input")
    keys = vf.add_argument("--router-keys", action="append", required=True, metavar="DIR|FILE",
                           help="public router keys: relying-party JSON, router certificates, key files, or a folder; "
                                "repeatable")
    renamed(vf, "--keys", keys)
    target = vf.add_argument("--target-as", type=asn, metavar="ASN",
                             help="the receiving AS where the input does not say (RIB dumps, hex)")
    renamed(vf, "--target", target)
    peer = vf.add_argument("--peer-as", type=asn, metavar="ASN",
                           help="the sending AS for hex input (checked against the most recent AS)")
    renamed(vf, "--peer", peer)
    vf.add_argument("--format", choices=("table", "json"), default="table",
                    help="table: aligned columns (default); json: one object per UPDATE per line")
    vf.add_argument("--unsigned", action="store_true", help="also list UPDATEs without BGPsec_PATH")
    vf.add_argument("--quiet", action="store_true", help="no counts on stderr; errors only")
    vf.set_defaults(handler=cmd_verify)


def _segments(path: list[int]) -> list[tuple[int, int]]:
    """(AS, pCount) from most recent to origin: consecutive repeats become one segment."""
    out: list[list[int]] = []
    for a in path:
        if out and out[-1][0] == a and out[-1][1] < 255:
            out[-1][1] += 1
        else:
            out.append([a, 1])
    return [(a, n) for a, n in out]


def cmd_sign(args) -> int:
    import ipaddress
    import json

    from bgpsim.base.errors import InputError
    from bgpsim.base import outdir
    from bgpsim.rpki.bgpsec.keys import signing_keys
    from bgpsim.rpki.bgpsec.sign import forward
    from bgpsim.wire.encode import bgpsec_update

    if args.out:
        outdir.check_file(args.out, "pcap")  # before the work: a refused --out costs nothing
    keys = signing_keys(args.signing_keys)
    segments = _segments(args.path)
    missing = [a for a, _ in segments if a not in keys]
    if missing:
        raise InputError(f"--signing-keys: no private router key for {', '.join(f'AS{a}' for a in missing)} "
                         f"(found keys for {', '.join(f'AS{a}' for a in sorted(keys)) or 'no AS'})")
    messages = []
    for net in args.prefix:
        nh = args.next_hop or ipaddress.ip_address(
            "198.51.100.1" if net.version == 4 else "2001:db8::1")
        path = None
        # origin first: each AS signs toward the next more recent one, the most recent toward --target-as
        for i in range(len(segments) - 1, -1, -1):
            a, pcount = segments[i]
            toward = segments[i - 1][0] if i else args.target_as
            path = forward(path, keys[a], net, toward, pcount)
        try:
            messages.append((net, path, bgpsec_update(path, net, nh)))
        except ValueError as e:
            raise InputError(f"--path: {e}") from None
    if args.out:
        from bgpsim.capture.session import Session, capture_bytes

        session = Session(segments[0][0], args.target_as, "192.0.2.1", "192.0.2.2",
                          [(k * 0.001, True, m) for k, (_, _, m) in enumerate(messages)])
        outdir.write_file(args.out, capture_bytes([session]), "pcap")
        if not args.quiet:
            print(f"bgpsim: wrote {len(messages)} signed UPDATE{'' if len(messages) == 1 else 's'} to {args.out}",
                  file=sys.stderr)
        return 0
    for net, path, msg in messages:
        if args.format == "hex":
            print(msg.hex().upper())
        else:
            print(json.dumps({"prefix": str(net), "target_as": args.target_as, "as_path": list(path.as_path()),
                              "skis": [s.ski.hex().upper() for s in path.blocks[0].signatures], "update": msg.hex()}))
    return 0


def cmd_verify(args) -> int:
    from bgpsim.routedata import file_of
    from bgpsim.rpki.bgpsec.keys import RouterKeys
    from bgpsim.rpki.bgpsec.verify import Verifier
    from bgpsim.validate.bgpsec import verdicts, write_json, write_table

    from . import input_files

    input_files(args.files)
    verifier = Verifier(RouterKeys.load(args.router_keys))
    files = [file_of(f) for f in args.files]
    rows = verdicts(files, verifier, args.target_as, args.peer_as, args.unsigned)
    counts = (write_json if args.format == "json" else write_table)(rows, sys.stdout)
    if not args.quiet:
        print("bgpsim: " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no BGPsec UPDATEs"),
              file=sys.stderr)
    return 1 if counts.get("not-valid", 0) + counts.get("withdraw", 0) else 0
