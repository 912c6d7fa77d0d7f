"""The CSV reader: Routinator's `csv`, `csvcompat` and `csvext`, and rpki-client's CSV (output-csv.c,
with `Expires`), each told by its header line.

Fields never contain commas (prefixes, ASNs, trust anchor names, rsync URIs), so a line is split on
commas; csvcompat's fields must all be quoted. A blank line is an error. Strict and total: a
`Payloads`, or InputError naming the file and the line.
"""

from __future__ import annotations

import re
from datetime import datetime
from ipaddress import IPv4Network, IPv6Network

from bgpsim.base.errors import InputError

from ..rov import VRP
from .fields import DIGITS_RE, parse_asn_text, parse_prefix_numbers, parse_ta
from .payloads import NO_TA, Origin, Payloads

_UNIX_TIME_RE = re.compile(r"0|[1-9][0-9]{0,18}")

CSV_HEADERS = {
    "ASN,IP Prefix,Max Length,Trust Anchor": "csv",  # Routinator csv
    "ASN,IP Prefix,Max Length,Trust Anchor,Expires": "rpki-client-csv",
    '"ASN","IP Prefix","Max Length","Trust Anchor"': "csvcompat",  # Routinator; RIPE NCC validator
    "URI,ASN,IP Prefix,Max Length,Not Before,Not After": "csvext",  # Routinator; RIPE NCC validator 1.x
}


def _csv_time(value: str, source, line) -> None:
    if value != "N/A":
        try:
            datetime.strptime(value, "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise InputError(f"want a time like 2017-08-25 13:12:19 or N/A, got {value!r}", source, line) from None


def read_csv(text: str, source: str | None = None) -> Payloads:
    """The route origins of a CSV file of any flavour (CSV_HEADERS)."""
    out = Payloads()
    for asn, version, a, n, maxlen, ta, expires in csv_rows(text, source):
        prefix = IPv4Network((a, n)) if version == 4 else IPv6Network((a, n))
        out.origins.append(Origin(VRP(prefix, maxlen, asn), ta, expires))
    return out


def csv_rows(text: str, source: str | None):
    """(asn, IP version, network, length, maxLength, trust anchor, expires) of each CSV line,
    checked; read_csv makes the payloads of them, read_vrp_columns takes the numbers alone."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    flavour = CSV_HEADERS.get(lines[0].rstrip("\r") if lines else "")
    if flavour is None:
        raise InputError("want a CSV header such as 'ASN,IP Prefix,Max Length,Trust Anchor'", source, 1)
    width = len(lines[0].rstrip("\r").split(","))
    for n, raw in enumerate(lines[1:], start=2):
        line = raw[:-1] if raw.endswith("\r") else raw
        fields = line.split(",")
        if len(fields) != width:
            raise InputError(f"want {width} comma-separated fields, got {len(fields)}: {line[:80]!r}", source, n)
        if flavour == "csvcompat":
            if not all(len(f) >= 2 and f[0] == f[-1] == '"' and '"' not in f[1:-1] for f in fields):
                raise InputError(f"want every field in double quotes: {line[:80]!r}", source, n)
            fields = [f[1:-1] for f in fields]
        expires = None
        if flavour == "csvext":
            uri, asn, prefix, maxlen, not_before, not_after = fields
            if not uri or not uri.isprintable():
                raise InputError(f"want a URI or N/A, got {uri!r}", source, n)
            _csv_time(not_before, source, n)
            _csv_time(not_after, source, n)
            ta = NO_TA
        else:
            asn, prefix, maxlen, ta = fields[:4]
            ta = parse_ta(ta, source, n)
            if flavour == "rpki-client-csv":
                if not _UNIX_TIME_RE.fullmatch(fields[4]) or int(fields[4]) >= 2**63:
                    raise InputError(f"want Expires as a Unix time, got {fields[4]!r}", source, n)
                expires = int(fields[4])
        version, a, plen = parse_prefix_numbers(prefix, source, n)
        width_bits = 32 if version == 4 else 128
        if not DIGITS_RE.fullmatch(maxlen):
            raise InputError(f"want a Max Length from {plen} to {width_bits}, got {maxlen!r}", source, n)
        if not plen <= int(maxlen) <= width_bits:
            raise InputError(f"want a maxLength from {plen} to {width_bits} for {prefix}, got {int(maxlen)}",
                             source, n)
        yield parse_asn_text(asn, flavour == "csvcompat", source, n), version, a, plen, int(maxlen), ta, expires
