"""Reading payloads whatever the format, told from the content: rpki-client or Routinator JSON
(rpki.vrps.input_json) or one of the CSV flavours (rpki.vrps.input_csv); `read_vrp_columns`, the
VRPs alone as columns, by the fast readers where they can (rpki.vrps.fast_csv, fast_json).
"""

from __future__ import annotations

from pathlib import Path

from bgpsim.base.errors import InputError

from .fast_csv import csv_columns
from .fast_json import json_columns
from .files import decode_text, read_text
from .input_csv import CSV_HEADERS, csv_rows, read_csv
from .input_json import Warn, read_json
from .payloads import Payloads
from .strictjson import JSON_START_RE


def detect_format(text: str) -> str | None:
    """'json' (rpki-client or Routinator: read_json tells them apart by their metadata) or a CSV
    flavour ('csv', 'rpki-client-csv', 'csvcompat', 'csvext') by its header line; None if unknown."""
    if JSON_START_RE.match(text):
        return "json"  # which JSON: read_json decides from the metadata
    end = text.find("\n")
    return CSV_HEADERS.get(text[:end if end >= 0 else len(text)].rstrip("\r"))


def read_payloads(text: str, source: str | None = None, warn: Warn | None = None) -> Payloads:
    """Payloads from rpki-client or Routinator JSON, or from CSV; the format is told from the content.
    Warnings (unknown JSON metadata keys) go to `warn` (default: standard error)."""
    kind = detect_format(text)
    if kind == "json":
        return read_json(text, source, warn)
    if kind is not None:
        return read_csv(text, source)
    first = text.lstrip().split("\n", 1)[0].rstrip("\r")[:80]
    hint = ""
    if first.startswith("roa-set") or first.startswith("route ") or first.startswith("roa "):
        hint = " (this looks like an OpenBGPD or BIRD configuration, which carries no trust anchors; read the JSON or CSV instead)"
    elif first.startswith("URI,") or first.startswith("ASN,") or first.startswith('"ASN"'):
        hint = " (a CSV header, but not one we know)"
    raise InputError(f"unknown format{hint}: want rpki-client or Routinator JSON, or CSV with the header "
                     f"{', '.join(repr(h) for h in CSV_HEADERS)}; the first line is {first!r}", source, 1)


def read_file(path: str | Path, warn: Warn | None = None) -> Payloads:
    return read_payloads(read_text(path), str(path), warn)


def read_vrp_columns(data: bytes, source: str | None = None, warn: Warn | None = None) -> tuple:
    """The VRPs of rpki-client or Routinator output (a file's bytes, as read_bytes gives them) as
    columns (lists or numpy arrays) for rov.VRPTable.from_columns: IP versions, network addresses
    (Python ints), lengths, maxLengths, ASNs. Read without making an object per VRP where the
    file is written plainly, with the same checks as read_csv and read_json: Routinator `csv` and
    rpki-client CSV from the bytes, by passes over chunks of lines (`csv_columns`),
    rpki-client JSON by json.loads and a pass per field (`json_columns`); anything else,
    and any fault, by the strict readers. The bytes are decoded (decode_text: read_text's error
    for a file that is not UTF-8) only when the CSV fast path declines. Warnings (unknown JSON
    metadata keys) go to `warn` (default: standard error), once whichever path reads."""
    fast = csv_columns(data)
    if fast is not None:
        return fast
    text = decode_text(data, source)
    if JSON_START_RE.match(text):
        fast = json_columns(text, source, warn)
    if fast is not None:
        return fast
    ver, net, length, maxlen, asns = [], [], [], [], []
    if detect_format(text) in CSV_HEADERS.values():
        for asn, v, a, n, m, _, _ in csv_rows(text, source):
            ver.append(v)
            net.append(a)
            length.append(n)
            maxlen.append(m)
            asns.append(asn)
    else:
        for o in read_payloads(text, source, warn).origins:
            ver.append(o.vrp.prefix.version)
            net.append(int(o.vrp.prefix.network_address))
            length.append(o.vrp.prefix.prefixlen)
            maxlen.append(o.vrp.max_length)
            asns.append(o.vrp.asn)
    return ver, net, length, maxlen, asns
