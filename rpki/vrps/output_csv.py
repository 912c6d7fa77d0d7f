"""Writing VRPs as Routinator's `csv` (routinator src/output.rs): the header line
'ASN,IP Prefix,Max Length,Trust Anchor', then one line per VRP, sorted."""

from __future__ import annotations

from .payloads import Payloads, format_prefix


def write_csv(p: Payloads) -> str:
    """Routinator's `csv` (output.rs): 'ASN,IP Prefix,Max Length,Trust Anchor' and one line per VRP."""
    out = ["ASN,IP Prefix,Max Length,Trust Anchor\n"]
    for o in p.sorted().origins:
        out.append(f"AS{o.vrp.asn},{format_prefix(o.vrp.prefix)},{o.vrp.max_length},{o.ta}\n")
    return "".join(out)
