"""Reading payloads whatever the format, told from the content: rpki-client or Routinator JSON
(rpki.vrps.input_json) or one of the CSV flavours (rpki.vrps.input_csv); `read_vrp_columns`, the
VRPs alone as columns, read by the compiled core as the payloads are (rpki.vrps.columns).
"""

from __future__ import annotations

from pathlib import Path

from bgpsim.base.errors import InputError

from .columns import read_columns, vrp_columns
from .files import decode_text, read_text
from .input_csv import CSV_HEADERS, read_csv
from .input_json import Warn, check_document, json_columns, read_json
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
    raise _unknown_format(text, source)


def _unknown_format(text: str, source) -> InputError:
    if not text.strip():  # an empty file: no VRPs at all, where VRPs were asked for
        return InputError("is empty: want rpki-client or Routinator JSON, or CSV", source)
    first = text.lstrip().split("\n", 1)[0].rstrip("\r")[:80]
    hint = ""
    if first.startswith("roa-set") or first.startswith("route ") or first.startswith("roa "):
        hint = " (this looks like an OpenBGPD or BIRD configuration, which carries no trust anchors; read the JSON or CSV instead)"
    elif first.startswith("URI,") or first.startswith("ASN,") or first.startswith('"ASN"'):
        hint = " (a CSV header, but not one we know)"
    return InputError(f"unknown format{hint}: want rpki-client or Routinator JSON, or CSV with the header "
                      f"{', '.join(repr(h) for h in CSV_HEADERS)}; the first line is {first!r}", source, 1)


def read_payload_columns(data: bytes, source: str | None = None, warn: Warn | None = None) -> tuple[dict, Payloads]:
    """As read_payloads, with the route origins left as the core's columns (rpki.vrps.columns) and
    only router keys and ASPAs as objects: what reads a large file fast (`bgpsim rtr serve`)."""
    kind = detect_format(data[:4096].decode("utf-8", "replace"))  # a good header line is far shorter
    if kind is None:
        raise _unknown_format(decode_text(bytes(data), source), source)
    if kind == "json":
        return json_columns(data, source, warn)
    return read_columns(data, source), Payloads()


def read_file(path: str | Path, warn: Warn | None = None) -> Payloads:
    return read_payloads(read_text(path), str(path), warn)


def read_vrp_columns(data: bytes, source: str | None = None, warn: Warn | None = None) -> tuple:
    """The VRPs of rpki-client or Routinator output (a file's bytes, as read_bytes or mapped_bytes give them) as
    columns for rov.VRPTable.from_columns: IP versions, network addresses (an rov.Networks),
    lengths, maxLengths, ASNs. The same reading, with the same checks and messages, as
    read_payloads', but for JSON's other top-level values (router keys, ASPAs), which are passed
    over unread: they carry nothing a VRP table holds. Warnings (unknown JSON metadata keys) go to
    `warn` (default: standard error)."""
    kind = detect_format(data[:4096].decode("utf-8", "replace"))  # a good header line is far shorter
    if kind is None:
        raise _unknown_format(decode_text(bytes(data), source), source)
    cols = read_columns(data, source)
    if kind == "json":
        check_document(data, cols, source, warn)
    return vrp_columns(cols)
