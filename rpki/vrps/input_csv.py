"""The CSV reader: Routinator's `csv`, `csvcompat` and `csvext`, and rpki-client's CSV (output-csv.c,
with `Expires`), each told by its header line.

Read by the compiled core (core/vrps_csv.c, through rpki.vrps.columns). Fields never contain
commas (prefixes, ASNs, trust anchor names, rsync URIs), so a line is split on commas; csvcompat's
fields must all be quoted. A blank line is an error. Strict and total: a `Payloads`, or InputError
naming the file and the line.
"""

from __future__ import annotations

from .columns import origins, read_columns
from .payloads import Payloads

CSV_HEADERS = {
    "ASN,IP Prefix,Max Length,Trust Anchor": "csv",  # Routinator csv
    "ASN,IP Prefix,Max Length,Trust Anchor,Expires": "rpki-client-csv",
    '"ASN","IP Prefix","Max Length","Trust Anchor"': "csvcompat",  # Routinator; RIPE NCC validator
    "URI,ASN,IP Prefix,Max Length,Not Before,Not After": "csvext",  # Routinator; RIPE NCC validator 1.x
}


def read_csv(text: str, source: str | None = None) -> Payloads:
    """The route origins of a CSV file of any flavour (CSV_HEADERS)."""
    return Payloads(origins=origins(read_columns(text.encode(), source)))
