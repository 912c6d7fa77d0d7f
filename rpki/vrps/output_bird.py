"""Writing VRPs as Routinator's `bird2` (routinator src/output.rs), the routes of a BIRD 2 ROA
table (roa4/roa6) for a static protocol."""

from __future__ import annotations

from .payloads import Payloads, format_prefix


def write_bird2(p: Payloads) -> str:
    """Routinator's `bird2`: 'route PREFIX max MAXLEN as ASN;' per VRP, nothing else (the lines go
    inside a BIRD 2 static protocol for a roa4/roa6 table)."""
    return "".join(f"route {format_prefix(o.vrp.prefix)} max {o.vrp.max_length} as {o.vrp.asn};\n"
                   for o in p.sorted().origins)
