"""Writing VRPs as Routinator's `openbgpd` (routinator src/output.rs): an OpenBGPD `roa-set`
(bgpd.conf(5))."""

from __future__ import annotations

from .payloads import Payloads, format_prefix


def write_openbgpd(p: Payloads) -> str:
    """Routinator's `openbgpd`: a `roa-set { }` block, 'maxlen N' only where it exceeds the prefix length."""
    out = ["roa-set {\n"]
    for o in p.sorted().origins:
        v = o.vrp
        maxlen = f" maxlen {v.max_length}" if v.max_length > v.prefix.prefixlen else ""
        out.append(f"    {format_prefix(v.prefix)}{maxlen} source-as {v.asn}\n")
    out.append("}\n")
    return "".join(out)
