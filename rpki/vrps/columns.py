"""VRP files read by the compiled core (bgpsim._core.read_vrps, core/vrps*.c): every CSV flavour and
both tools' JSON, one reader for each, into columns without an object per VRP.

The core checks every field as rpki.vrps.fields does and reports a fault as (message format,
where, values): `read_columns` words it as the InputError the rest of the project raises, with the
line (CSV), the JSON path (a ROA's field) or line:column (bad JSON). What the core leaves to Python:
the trust anchor names' Unicode printability (str.isprintable, once per distinct name), and, in
JSON, every top-level value but the ROAs, handed back as spans of the text (rpki.vrps.input_json).
"""

from __future__ import annotations

import json
from ipaddress import IPv4Network, IPv6Network

from bgpsim import _core
from bgpsim.base.errors import InputError

from ..rov import VRP, Networks, np
from .fields import parse_ta
from .payloads import Origin
from .strictjson import kind_of

_DTYPES = {"asn": "=u4", "version": "i1", "hi": "=u8", "lo": "=u8", "plen": "u1", "maxlen": "u1", "ta": "=u2",
           "expires": "=i8"}  # the core's columns, in the machine's byte order
_CUT = "..."


def read_columns(data: bytes, source: str | None) -> dict:
    """The core's reading of `data`: numpy columns (asn, version, hi, lo, plen, maxlen, ta: an index
    into `tas`, expires: -1 for none), `tas` (the trust anchor names), `format` ('csv',
    'rpki-client-csv', 'csvcompat', 'csvext' or 'json') and, for JSON, `spans` and `roas` (see
    rpki.vrps.input_json)."""
    try:
        out = _core.read_vrps(data)
    except ValueError as e:
        fmt, where, *values = e.args
        raise InputError(fmt.format(*map(_value, values)) if values else fmt, source, where) from None
    for k, dtype in _DTYPES.items():
        out[k] = np.frombuffer(out[k], dtype=dtype)
    names = []
    for name, where in out["tas"]:
        if not name.isascii():  # the core checked ASCII names whole; str.isprintable for the rest
            parse_ta(name, source, where if out["format"] != "json" else f"roas[{where}]")
        names.append(name)
    out["tas"] = names
    return out


def _value(v):
    """A value of a fault as its message shows it: JSON text is loaded (so that repr shows what
    the reader of the JSON would), or named by its kind ('a list')."""
    if not isinstance(v, tuple):
        return v
    kind, raw = v
    try:
        value = json.loads(raw)
    except ValueError:  # cut by the core: a very long value
        value = raw.decode("utf-8", "replace") + _CUT
    return kind_of(value) if kind == "kind" else value


def vrp_columns(cols: dict) -> tuple:
    """rov.VRPTable.from_columns' arguments: versions, networks, lengths, maxLengths, ASNs."""
    return cols["version"], Networks(cols["hi"], cols["lo"]), cols["plen"], cols["maxlen"], cols["asn"]


def origins(cols: dict) -> list[Origin]:
    """The route origins of the columns, as objects."""
    tas = cols["tas"]
    out = []
    for ver, hi, lo, n, m, asn, ta, exp in zip(*(cols[k].tolist() for k in ("version", "hi", "lo", "plen", "maxlen",
                                                                               "asn", "ta", "expires"))):
        prefix = IPv4Network((lo, n)) if ver == 4 else IPv6Network((hi << 64 | lo, n))
        out.append(Origin(VRP(prefix, m, asn), tas[ta], None if exp < 0 else exp))
    return out
