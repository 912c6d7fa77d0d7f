"""The fast JSON reader: the VRPs of rpki-client's JSON (output-json.c) as columns, without an
object per VRP, for `bgpsim validate` (read_vrp_columns).

Only files written plainly are read here (no backslash anywhere; maxLengths and expiry times as
numbers): json.loads without hooks, then each field of the `roas` as one list, checked at once,
the prefixes as the fast CSV reader reads them. Anything unusual or wrong gives None, and the
strict reader (rpki.vrps.input_json) runs and names the fault's place.
"""

from __future__ import annotations

import json
from operator import itemgetter

from bgpsim.base.errors import InputError, stderr_warning

from ..rov import Networks
from .fast_csv import network_columns
from .fields import parse_asn_json, parse_ta
from .input_json import Warn, read_json
from .payloads import MAX_ASN
from .strictjson import JSON_START_RE, reject_constant
from .swar import digits_at, word_view

# the bytes of prefixes as prefix_columns sees them: '/' and newline, and whatever no prefix holds, as 1
_PREFIX_CLASS = bytes(0 if c in b"0123456789abcdefABCDEF:." else 1 for c in range(256))
_PAD = 31  # bytes before the first prefix, so that the word gathers stay inside the text


def prefix_columns(prefixes: list, maxlen):
    """(IP versions, rov.Networks, lengths) of prefix strings ('192.0.2.0/24', '2001:db8::/32'),
    checked as parse_prefix checks them, and with their maxLengths (`maxlen`, a uint64 array)
    checked against them: the lines of one text, read as the CSV fast path reads its prefixes.
    None if one is wrong or unusual."""
    import numpy as np

    if not prefixes:
        return np.zeros(0, dtype=np.int8), Networks.of([]), np.zeros(0, dtype=np.int64)
    try:
        text = "x" * _PAD + "\n" + "\n".join(prefixes) + "\n"
    except TypeError:
        return None  # one is no string
    if not text.isascii():
        return None
    data = text.encode("ascii")
    buf = np.frombuffer(data, dtype=np.uint8)
    sep = np.flatnonzero(np.frombuffer(data.translate(_PREFIX_CLASS), dtype=bool)[_PAD + 1:])
    if len(sep) != 2 * len(prefixes):
        return None
    sep = (sep + (_PAD + 1)).reshape(-1, 2)
    if (buf[sep] != np.frombuffer(b"/\n", dtype=np.uint8)).any():
        return None
    slash, nl = np.ascontiguousarray(sep[:, 0]), np.ascontiguousarray(sep[:, 1])
    before = np.empty(len(nl), dtype=np.int64)  # the newline before each prefix
    before[0] = _PAD
    before[1:] = nl[:-1]
    words = word_view(data)
    length = digits_at(words, slash + 1, nl, 3)
    if length is None:
        return None
    cols = network_columns(data, words, before, slash, length, length, maxlen)
    return None if cols is None else cols[:3]


def _json_shape(value) -> tuple[int, int]:
    """(object members, ':' characters in keys and strings) of a parsed JSON value."""
    if isinstance(value, dict):
        members, colons = len(value), sum(k.count(":") for k in value)
        for v in value.values():
            m, c = _json_shape(v)
            members, colons = members + m, colons + c
        return members, colons
    if isinstance(value, list):
        members = colons = 0
        for v in value:
            m, c = _json_shape(v)
            members, colons = members + m, colons + c
        return members, colons
    return 0, value.count(":") if isinstance(value, str) else 0


def json_columns(text: str, source: str | None = None, warn: Warn | None = None):
    """read_vrp_columns for rpki-client's JSON written plainly (no backslash anywhere; maxLengths
    and expiry times as numbers), without an object per VRP: json.loads without hooks
    (faster than load_json, docs/vrps.md), then each field of the `roas` as one list, checked at once; the
    prefixes by prefix_columns. What load_json's hook would have seen, a key twice in an object,
    is seen by counting: without backslashes, every ':' in the text separates a member or stands
    in a key or a string, so the text has more ':' than the parsed document accounts for exactly
    when json.loads dropped a member. The rest of the document (metadata, router keys, ASPAs) is
    read by the strict reader (its warnings, for unknown metadata keys, are given to `warn` only when
    the fast path succeeds, so that a fallback does not tell them twice). None when anything is
    unusual or wrong: then read_json runs, and names the fault's place."""
    import numpy as np

    if "\\" in text or not JSON_START_RE.match(text):
        return None
    try:
        doc = json.loads(text, parse_constant=reject_constant)
    except (ValueError, RecursionError):
        return None
    if type(doc) is not dict or "slurmVersion" in doc or type(doc.get("metadata")) is not dict:
        return None
    if "buildtime" not in doc["metadata"] or type(doc.get("roas", [])) is not list:
        return None  # not rpki-client's
    roas = doc.get("roas", [])
    if roas and set(map(type, roas)) != {dict}:
        return None
    try:
        asn, prefix, maxlen = (list(map(itemgetter(k), roas)) for k in ("asn", "prefix", "maxLength"))
    except KeyError:
        return None
    try:
        tas = list(map(itemgetter("ta"), roas))
    except KeyError:
        tas = [r["ta"] for r in roas if "ta" in r]
    try:
        expires = list(map(itemgetter("expires"), roas))
    except KeyError:
        expires = [r["expires"] for r in roas if "expires" in r]
    if sum(map(len, roas)) != 3 * len(roas) + len(tas) + len(expires):
        return None  # a key besides asn, prefix, maxLength, ta and expires
    kinds = set(map(type, asn))
    if str in kinds and kinds <= {int, str}:  # "AS64496", as rpki-client wrote ASNs before 7.1
        try:
            asn = [a if type(a) is int else parse_asn_json(a, None, None) for a in asn]
        except InputError:
            return None
    for values in (asn, maxlen, expires):
        if values and set(map(type, values)) != {int}:
            return None  # a float, true, null, a string...
    try:
        asn_a, maxlen_a, expires_a = (np.array(v, dtype=np.int64) for v in (asn, maxlen, expires))
        for ta in set(tas):
            parse_ta(ta, None, None)
    except (OverflowError, TypeError, InputError):
        return None
    if len(roas) and (asn_a.min() < 0 or asn_a.max() > MAX_ASN or maxlen_a.min() < 0):
        return None
    if len(expires) and expires_a.min() < 0:
        return None
    cols = prefix_columns(prefix, maxlen_a.astype(np.uint64))
    if cols is None:
        return None
    try:
        members, colons = _json_shape({k: v for k, v in doc.items() if k != "roas"})
    except RecursionError:
        return None
    members += sum(map(len, roas)) + ("roas" in doc)
    colons += "\n".join(prefix).count(":") + "\n".join(tas).count(":")
    if text.count(":") != members + colons:
        return None  # a key twice in an object
    rest = dict(doc)
    rest["roas"] = []
    said: list[str] = []
    try:
        read_json(json.dumps(rest), source, said.append)
    except InputError:
        return None
    for message in said:
        (warn or stderr_warning)(message)
    return cols[0], cols[1], cols[2], maxlen_a, asn_a
