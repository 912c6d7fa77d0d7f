"""`bgpsim lab`: a real router plays one AS of a scenario; its choices beside the model's."""

from __future__ import annotations

import argparse
import sys

from . import asn, factor

EPILOG = """\
examples:
  bgpsim lab teaching-prefix-rov --router bird --as 64503
      BIRD plays AS64503, an ROV adopter (its VRPs from `bgpsim rtr serve`) that hears the hijack; bgpsim
      plays its neighbours and sets BIRD's best routes beside the model's
  bgpsim lab teaching-max-prefix --router gobgp --as 64500
      GoBGP plays AS64500, the leaker's provider with a max-prefix limit: sent the table the leak
      re-exports, it closes the leaker's session, as the model does
  bgpsim lab teaching-leak --router frr --as 64508 --pace 20 --format json
      FRR plays AS64508, which hears the leak; the report as JSON

The router runs with a configuration made from the scenario (LOCAL_PREF and exports by relationship;
ROV, maxlen or max-prefix where the scenario deploys it, or as --policy says), on 127.0.0.1 with a free
port; each neighbour that sends it something speaks from its own address of 127.0.0.0/8; nothing needs
root or containers. Timers differ between implementations, so changes made at other times (or skipped
in passing) are listed, not counted, where the settled routes agree.
exit status: 0 the router settles on the model's routes and closes the sessions the model closes, 1 it
does not (each difference in the report), 2 bad input or a router that is not installed.
"""


def register(sub, parser_class) -> None:
    p = sub.add_parser("lab", help="a real router plays one AS of a scenario; its choices beside the model's",
                       description="Run a scenario with a real router (BIRD, FRR or GoBGP) in the role of one AS: bgpsim plays "
                                   "its neighbours and compares the router's best routes with the model's.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenario", metavar="SCENARIO", help="a bundled scenario's name (bgpsim run --list) or a scenario file")
    p.add_argument("--router", choices=("bird", "frr", "gobgp"), default="bird",
                   help="the router under test: bird (default), frr or gobgp")
    p.add_argument("--as", dest="asn", type=asn, required=True, metavar="ASN", help="the AS the router plays")
    p.add_argument("--policy", choices=("rov", "maxlen", "max-prefix", "none"), metavar="NAME",
                   help="what the router's AS deploys, in the model too: rov (the scenario's VRPs, or its victim's "
                        "ROA), maxlen, max-prefix, or none (default: as the scenario says)")
    p.add_argument("--pace", type=factor, default=10.0, metavar="FACTOR",
                   help="simulated seconds per wall-clock second (default 10)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")
    p.add_argument("--quiet", action="store_true", help="the report only, no progress lines")
    p.set_defaults(handler=cmd_lab)


def cmd_lab(args) -> int:
    import json

    from bgpsim.lab.lab import Lab, report

    say = (lambda line: None) if args.quiet else (lambda line: print(f"bgpsim lab: {line}", file=sys.stderr))
    lab = Lab(args, say, lambda line: print(f"bgpsim: warning: {line}", file=sys.stderr))
    rows = lab.run()
    if args.format == "json":
        print(json.dumps({"scenario": lab.scn.name, "asn": args.asn, "router": args.router,
                          "policy": lab.policy or "none",
                          "prefixes": [{"prefix": c.prefix, "model": c.model, "router": c.router,
                                        "same_changes": c.same_changes, "settled_same": c.settled_same}
                                       for c in rows],
                          "sessions_closed": {"model": sorted(lab.asns[i] for i in lab.closes),
                                              "router": {str(lab.asns[i]): why for i, why in sorted(lab.closed.items())},
                                              "same": lab.sessions_same}}, indent=2))
    else:
        sys.stdout.write(report(lab, rows))
    return 0 if all(c.settled_same for c in rows) and lab.sessions_same else 1
