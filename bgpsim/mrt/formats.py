"""JSON-lines and CSV output of routes (the bgpdump format is in `bgpdump`).

A route whose UPDATE carried a BGPsec_PATH (RFC 8205 section 3) has one more JSON key, "bgpsec": its
Secure_Path segments, most recent AS first ({"asn", "pcount", "confed"}), and its Signature_Blocks
({"suite", "skis": the signers' Subject Key Identifiers in hex, most recent first}). The "as_path"
key (and the CSV's as_path column) hold the path the Secure_Path stands for (section 4.4).
"""

from __future__ import annotations

import csv
import json
from typing import Iterable, TextIO

from bgpsim.wire.communities import community_text, large_community_text
from .record import Route

FIELDS = ("record", "time", "kind", "peer_ip", "peer_as", "prefix", "path_id", "as_path", "origin", "next_hop",
          "local_pref", "med", "communities", "large_communities", "atomic_aggregate", "aggregator",
          "old_state", "new_state")


def as_dict(r: Route) -> dict:
    a = r.attrs
    agg = r.aggregator
    d = {
        "record": r.record, "time": r.timestamp if r.usec is not None else r.time, "kind": r.kind,
        "peer_ip": r.peer_ip, "peer_as": r.peer_as, "prefix": r.prefix, "path_id": r.path_id,
        "as_path": r.as_path_text if a else None, "origin": r.origin, "next_hop": r.next_hop or None,
        "local_pref": r.local_pref, "med": r.med,
        "communities": [community_text(c) for c in r.communities],
        "large_communities": [large_community_text(c) for c in r.large_communities],
        "atomic_aggregate": r.atomic_aggregate, "aggregator": f"{agg[0]} {agg[1]}" if agg else None,
        "old_state": r.old_state, "new_state": r.new_state,
    }
    if a is not None and a.bgpsec is not None:
        d["bgpsec"] = bgpsec_dict(a.bgpsec)
    return d


def bgpsec_dict(bp) -> dict:
    """The JSON form of a BGPsec_PATH (bgpsim.rpki.bgpsec.path.BgpsecPath)."""
    return {"segments": [{"asn": s.asn, "pcount": s.pcount, "confed": s.confed} for s in bp.segments],
            "blocks": [{"suite": b.suite, "skis": [sig.ski.hex().upper() for sig in b.signatures]}
                       for b in bp.blocks]}


def write_json(routes: Iterable[Route], out: TextIO) -> int:
    n = 0
    dumps = json.dumps
    for r in routes:
        out.write(dumps(as_dict(r), separators=(",", ":")) + "\n")
        n += 1
    return n


def write_csv(routes: Iterable[Route], out: TextIO) -> int:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(FIELDS)
    n = 0
    for r in routes:
        d = as_dict(r)
        d["communities"] = " ".join(d["communities"])
        d["large_communities"] = " ".join(d["large_communities"])
        w.writerow("" if d[k] is None else d[k] for k in FIELDS)
        n += 1
    return n
