"""Validated payload sets (VRPs, BGPsec router keys, ASPAs) and the formats relying parties write.

A relying party's output is three lists (rpki.vrps.payloads): route origins (RFC 6811), BGPsec
router keys (RFC 8209) and ASPAs (draft-ietf-sidrops-aspa-profile), each entry tagged with its
trust anchor. They are read and written in the formats of rpki-client and Routinator, one module
per format, as rpki-client keeps one output-*.c per format:

- readers, strict and total (a `Payloads`, or InputError naming the file and the JSON path or line),
  each format read by the compiled core into columns (`columns`, core/vrps*.c): `input_json`
  (rpki-client JSON, Routinator `json` and `jsonext`), `input_csv` (Routinator `csv`,
  `csvcompat`, `csvext`, rpki-client CSV); `read` tells the format from the content
  (`read_payloads`), `read_vrp_columns` gives the VRPs alone as columns, for `bgpsim validate`, and
  `read_payload_columns` the VRPs as columns beside the other payloads, for `bgpsim rtr serve`;
- writers, byte for byte as the tools write them: `output_json` (rpki-client 8.2),
  `output_csv`, `output_bird` and `output_openbgpd` (Routinator's `csv`, `bird2`, `openbgpd`);
- shared by the readers and rpki.slurm: `fields` (each field's parser), `strictjson` (JSON with
  the path of every fault), `files` (bounded reads, UTF-8 checked).

Design notes and measurements: docs/vrps.md.
"""

from __future__ import annotations

from .files import MAX_INPUT_BYTES, decode_text, mapped_bytes, read_bytes, read_text
from .input_csv import read_csv
from .input_json import Warn, read_json
from .output_bird import write_bird2
from .output_csv import write_csv
from .output_json import write_json
from .output_openbgpd import write_openbgpd
from .payloads import ASPA, MAX_ASN, NO_TA, Origin, Payloads, Prefix, RouterKey, format_address, format_prefix
from .read import detect_format, read_file, read_payload_columns, read_payloads, read_vrp_columns

WRITERS = {"json": write_json, "csv": write_csv, "bird2": write_bird2, "openbgpd": write_openbgpd}

__all__ = ["ASPA", "MAX_ASN", "MAX_INPUT_BYTES", "NO_TA", "WRITERS", "Origin", "Payloads", "Prefix", "RouterKey",
           "Warn", "decode_text", "detect_format", "format_address", "format_prefix", "mapped_bytes", "read_bytes", "read_csv",
           "read_file", "read_json", "read_payload_columns", "read_payloads", "read_text", "read_vrp_columns", "write_bird2", "write_csv",
           "write_json", "write_openbgpd"]
