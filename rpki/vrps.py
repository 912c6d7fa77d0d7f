"""Validated payload sets (VRPs, BGPsec router keys, ASPAs) and the formats relying parties write.

A relying party's output is three lists, each entry tagged with the trust anchor it came from:

- route origins: VRPs (RFC 6811: prefix, maxLength, origin ASN), as `Origin(vrp, ta, expires)`;
- BGPsec router keys (RFC 8209, RFC 8210 section 5.10): ASN, Subject Key Identifier (20 octets,
  RFC 6487 section 4.8.2) and the DER SubjectPublicKeyInfo, as `RouterKey`;
- ASPAs (draft-ietf-sidrops-aspa-profile): customer ASN and its provider ASNs, as `ASPA`.

`Payloads` holds them as read (duplicates included, as Routinator's own outputs show them) and
writes them sorted: origins by address family, prefix address, prefix length, maxLength, ASN, trust
anchor; keys by ASN, SKI, key; ASPAs by customer, providers.

Writers, byte for byte as the tools write them (each function's docstring names its source):

- `write_json`: rpki-client 8.2's JSON (output-json.c 1.29, December 2022): tab-indented
  `metadata`, `roas`, `bgpsec_keys`, and ASPAs as `provider_authorizations` split into `ipv4` and
  `ipv6` (8.2 followed aspa-profile-10, where an ASPA was per address family; an ASPA without one
  is written in both lists);
- `write_csv`, `write_bird2`, `write_openbgpd`: Routinator's `csv`, `bird2` and `openbgpd`.

Readers (`read_payloads`, which tells the format from the content): rpki-client JSON (8.2's shape
and the later `aspas` list; ASNs as numbers or "AS64496"), Routinator `json` and `jsonext`, and the
CSV flavours `csv` (Routinator), rpki-client's CSV (with `Expires`), `csvcompat` and `csvext`.
Every reader is strict and total: it returns a `Payloads` or raises `InputError` naming the file
and the JSON path (`roas[3].maxLength`) or the line. The one leniency is the JSON `metadata`, which
new releases of both tools extend: a key we do not know there is one warning ("vrps.json:
metadata.note: unknown key, ignored") and is otherwise ignored; the keys we read stay required and
checked, and an unknown key anywhere else (the top level, a ROA, a key, an ASPA) is an error.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import socket
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from ipaddress import IPv4Network, IPv6Network
from operator import itemgetter
from pathlib import Path
from typing import Callable

from bgpsim.base.errors import InputError, stderr_warning

from .rov import VRP, Networks, VRPTable

MAX_INPUT_BYTES = 512 * 2**20  # today's largest rpki-client JSON is about 100 MB
MAX_ASN = 2**32 - 1
MAX_TA_LENGTH = 256
NO_TA = "N/A"  # Routinator's word for payloads without a trust anchor (local exceptions)
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

Prefix = IPv4Network | IPv6Network


# ---------------------------------------------------------------------------------------------
# The payloads


@dataclass(frozen=True, slots=True)
class Origin:
    """A VRP with the trust anchor it was validated under and, when known, the moment (Unix time)
    its validation chain expires (rpki-client's `expires`)."""

    vrp: VRP
    ta: str = NO_TA
    expires: int | None = None

    def sort_key(self):
        p = self.vrp.prefix
        return (p.version, int(p.network_address), p.prefixlen, self.vrp.max_length, self.vrp.asn,
                self.ta, -1 if self.expires is None else self.expires)


@dataclass(frozen=True, slots=True)
class RouterKey:
    """A BGPsec router key: ASN, SKI (20 octets) and DER SubjectPublicKeyInfo."""

    asn: int
    ski: bytes
    spki: bytes
    ta: str = NO_TA
    expires: int | None = None

    @property
    def ski_hex(self) -> str:
        return self.ski.hex().upper()

    @property
    def spki_b64(self) -> str:
        return base64.b64encode(self.spki).decode("ascii")

    def sort_key(self):
        return (self.asn, self.ski, self.spki, self.ta, -1 if self.expires is None else self.expires)


@dataclass(frozen=True, slots=True)
class ASPA:
    """A validated ASPA payload: customer ASN and its provider ASNs, sorted and distinct."""

    customer: int
    providers: tuple[int, ...]
    ta: str = NO_TA
    expires: int | None = None

    def sort_key(self):
        return (self.customer, self.providers, self.ta, -1 if self.expires is None else self.expires)


@dataclass
class Payloads:
    """One relying party's output: route origins, router keys and ASPAs, and when it was made."""

    origins: list[Origin] = field(default_factory=list)
    router_keys: list[RouterKey] = field(default_factory=list)
    aspas: list[ASPA] = field(default_factory=list)
    generated: datetime | None = None  # the validation run's time, when the input says it

    def sorted(self) -> Payloads:
        return Payloads(sorted(self.origins, key=Origin.sort_key), sorted(self.router_keys, key=RouterKey.sort_key),
                        sorted(self.aspas, key=ASPA.sort_key), self.generated)

    def vrp_table(self) -> VRPTable:
        """The route origins as a table for route origin validation (rpki.rov)."""
        return VRPTable(o.vrp for o in self.origins)

    def __len__(self) -> int:
        return len(self.origins) + len(self.router_keys) + len(self.aspas)


# ---------------------------------------------------------------------------------------------
# Field parsers shared by the readers here and in rpki.slurm. Each one returns a value or raises
# InputError(message, source, where).

_PREFIX_RE = re.compile(r"[0-9A-Fa-f:.]{2,45}/(?:0|[1-9][0-9]{0,2})")
_ASN_RE = re.compile(r"AS(0|[1-9][0-9]{0,9})")
_DIGITS_RE = re.compile(r"0|[1-9][0-9]{0,9}")
_HEX_SKI_RE = re.compile(r"[0-9A-Fa-f]{40}")
_B64URL_RE = re.compile(r"[A-Za-z0-9_-]*")
_UNIX_TIME_RE = re.compile(r"0|[1-9][0-9]{0,18}")
_JSON_START_RE = re.compile(r"[ \t\r\n]*[{\[]")


def parse_prefix(value: object, source: str | None, where) -> Prefix:
    """An IPv4 or IPv6 prefix in slash notation, host bits zero ('192.0.2.0/24', '2001:db8::/32').
    The address is read by inet_pton (no zone, no leading zeros in IPv4 octets), five times faster
    than ipaddress's own parser."""
    version, a, n = parse_prefix_numbers(value, source, where)
    return IPv4Network((a, n)) if version == 4 else IPv6Network((a, n))


def parse_prefix_numbers(value: object, source: str | None, where) -> tuple[int, int, int]:
    """parse_prefix's checks, giving (IP version, network address as an int, length)."""
    if type(value) is str and _PREFIX_RE.fullmatch(value):
        addr, _, length = value.partition("/")
        n = int(length)
        family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        try:
            packed = socket.inet_pton(family, addr)
        except (OSError, ValueError):
            packed = None
        if packed is not None:
            bits = 8 * len(packed)
            if n > bits:
                raise InputError(f"bad prefix {value!r}: length {n} is longer than {bits}", source, where)
            a = int.from_bytes(packed, "big")
            if a & ((1 << (bits - n)) - 1):
                raise InputError(f"bad prefix {value!r}: host bits set", source, where)
            return (4 if bits == 32 else 6), a, n
    raise InputError(f"want a prefix like 192.0.2.0/24 or 2001:db8::/32, got {value!r}", source, where)


def is_int(value: object) -> bool:
    return type(value) is int  # not bool, not float: JSON's 1.0 and true are no integers


def parse_asn_number(value: object, source: str | None, where) -> int:
    """An ASN as a JSON number, 0 to 4294967295 (RFC 6793)."""
    if not is_int(value) or not 0 <= value <= MAX_ASN:
        raise InputError(f"want an AS number from 0 to {MAX_ASN}, got {value!r}", source, where)
    return value


def _asn_json(value: object, source, where) -> int:
    """An ASN as rpki-client (a number; "AS64496" before 7.1) or Routinator ("AS64496") write it."""
    if isinstance(value, str):
        m = _ASN_RE.fullmatch(value)
        if m and int(m.group(1)) <= MAX_ASN:
            return int(m.group(1))
        raise InputError(f"want an AS number such as 64496 or \"AS64496\", got {value!r}", source, where)
    return parse_asn_number(value, source, where)


def _asn_text(value: str, bare_ok: bool, source, where) -> int:
    """'AS64496' (csv, csvext, rpki-client); csvcompat also allows '64496' (Routinator's manual
    says it writes that, its code and test outputs write 'AS64496', as the RIPE NCC validator did)."""
    m = _ASN_RE.fullmatch(value)
    number = m.group(1) if m else value if bare_ok and _DIGITS_RE.fullmatch(value) else None
    if number is None or int(number) > MAX_ASN:
        raise InputError(f"want an AS number like AS64496, got {value!r}", source, where)
    return int(number)


def _max_length(value: object, prefix: Prefix, source, where) -> int:
    if not is_int(value) or not prefix.prefixlen <= value <= prefix.max_prefixlen:
        raise InputError(f"want a maxLength from {prefix.prefixlen} to {prefix.max_prefixlen} for {prefix}, "
                         f"got {value!r}", source, where)
    return value


_TA_SEEN: set[str] = set()  # names already found good (there are a handful)


def _ta(value: object, source, where) -> str:
    """A trust anchor name: printable, at most 256 characters, and nothing that would need quoting in
    the CSV or JSON outputs (no comma, double quote or backslash)."""
    if type(value) is str and value in _TA_SEEN:
        return value
    if (not isinstance(value, str) or not 0 < len(value) <= MAX_TA_LENGTH or not value.isprintable()
            or any(c in value for c in ',"\\')):
        raise InputError(f"want a trust anchor name (printable, no comma, quote or backslash, at most "
                         f"{MAX_TA_LENGTH} characters), got {value!r}", source, where)
    if len(_TA_SEEN) < 1024:
        _TA_SEEN.add(value)
    return value


def _expires(value: object, source, where) -> int:
    if not is_int(value) or not 0 <= value < 2**63:
        raise InputError(f"want 'expires' as a Unix time (a non-negative integer), got {value!r}", source, where)
    return value


def _time(value: object, source, where) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.strptime(value, _TIME_FORMAT).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    raise InputError(f"want a UTC time like 2023-07-27T18:56:02Z, got {value!r}", source, where)


def _ski_hex(value: object, source, where) -> bytes:
    if not isinstance(value, str) or not _HEX_SKI_RE.fullmatch(value):
        raise InputError(f"want a Subject Key Identifier as 40 hex digits (20 octets, RFC 6487 section 4.8.2), "
                         f"got {value!r}", source, where)
    return bytes.fromhex(value)


def decode_base64url(value: object, what: str, source, where) -> bytes:
    """RFC 4648 section 5 (URL-safe alphabet) without trailing '=', as RFC 8416 wants; the last
    character's unused bits must be zero, so every value has one spelling."""
    if not isinstance(value, str) or not _B64URL_RE.fullmatch(value) or len(value) % 4 == 1:
        raise InputError(f"want {what} in base64url without '=' padding (RFC 4648 section 5), got {value!r}",
                         source, where)
    data = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    if base64.urlsafe_b64encode(data).decode("ascii").rstrip("=") != value:
        raise InputError(f"{what} {value!r} is not canonical base64url (non-zero trailing bits)", source, where)
    return data


def _base64_std(value: object, what: str, source, where) -> bytes:
    """RFC 4648 section 4 with '=' padding, as rpki-client writes public keys."""
    if isinstance(value, str) and value and len(value) % 4 == 0:
        try:
            data = base64.b64decode(value, validate=True)
            if base64.b64encode(data).decode("ascii") == value:
                return data
        except binascii.Error:
            pass
    raise InputError(f"want {what} in padded base64 (RFC 4648 section 4), got {value!r}", source, where)


def _providers(values: object, customer: int, source, where, parse=parse_asn_number) -> tuple[int, ...]:
    """Provider ASNs: a non-empty list without repeats and without the customer itself
    (draft-ietf-sidrops-aspa-profile: the customer is never its own provider). Sorted."""
    if not isinstance(values, list) or not values:
        got = "an empty list" if isinstance(values, list) else _kind(values)
        raise InputError(f"want a non-empty list of provider AS numbers, got {got}", source, where)
    out = [parse(v, source, f"{where}[{i}]") for i, v in enumerate(values)]
    if len(set(out)) != len(out):
        raise InputError(f"provider AS{next(a for a in out if out.count(a) > 1)} is listed twice", source, where)
    if customer in out:
        raise InputError(f"customer AS{customer} is listed among its own providers", source, where)
    return tuple(sorted(out))


# ---------------------------------------------------------------------------------------------
# JSON with the position of every fault


class JSONObject(dict):
    """A JSON object that remembers the first key it saw twice (json keeps the last silently)."""

    __slots__ = ("duplicate",)


def _pairs(items):
    obj = JSONObject(items)
    obj.duplicate = None
    if len(obj) != len(items):
        seen = set()
        obj.duplicate = next(k for k, _ in items if k in seen or seen.add(k))
    return obj


def _bad_constant(name):
    raise ValueError(f"{name} is not JSON")


def load_json(text: str, source) -> object:
    """Parse JSON strictly: no NaN or Infinity, duplicate keys noted (see `check_object`)."""
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_bad_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"bad JSON: {e.msg}", source, f"{e.lineno}:{e.colno}") from None
    except ValueError as e:
        raise InputError(f"bad JSON: {e}", source) from None
    except RecursionError:
        raise InputError("bad JSON: nested too deeply", source) from None


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not path:
        return key
    return f"{path}{key}" if key.startswith("[") else f"{path}.{key}"


_KEYSETS: dict = {}


def check_object(value: object, path: str, source, required=(), optional=(), what="an object") -> JSONObject:
    """`value` must be a JSON object with every key of `required`, and no key outside
    `required` and `optional`; each fault names its JSON path."""
    sets = _KEYSETS.get((required, optional))
    if sets is None:
        sets = _KEYSETS[(required, optional)] = (frozenset(required), frozenset(required) | frozenset(optional))
    if type(value) is JSONObject and value.duplicate is None and sets[0] <= value.keys() <= sets[1]:
        return value
    where = path or None
    if not isinstance(value, JSONObject):
        raise InputError(f"want {what}, got {_kind(value)}", source, where)
    if value.duplicate is not None:
        raise InputError(f"key {value.duplicate!r} appears twice", source, join(path, value.duplicate))
    for k in required:
        if k not in value:
            raise InputError(f"missing key {k!r}", source, join(path, k))
    for k in value:
        if k not in sets[1]:
            raise InputError(f"unknown key {k!r}; want {', '.join(sorted(sets[1]))}", source, join(path, k))
    return value


def each(items: object, path: str, source, parse) -> list:
    """parse(element) for each element of the JSON list `items`; parse raises InputError with
    `where` relative to the element (None, 'prefix', 'providers[1]'), to which the element's own
    path is put in front here. (Paths are made only for faults: a million entries read faster.)"""
    out = []
    for i, e in enumerate(check_list(items, path, source)):
        try:
            out.append(parse(e))
        except InputError as err:
            err.where = f"{path}[{i}]" if err.where is None else join(f"{path}[{i}]", err.where)
            raise
    return out


def check_list(value: object, path: str, source) -> list:
    if not isinstance(value, list):
        raise InputError(f"want a list, got {_kind(value)}", source, path)
    return value


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value[:60]!r}"
    if value is None:
        return "null"
    return f"{json.dumps(value)}"


def read_bytes(path: str | Path, limit: int = MAX_INPUT_BYTES, what: str = "") -> bytes:
    """A file (or '-' for standard input) as bytes, at most `limit` of them."""
    name = str(path)
    label = f"{what}: " if what else ""
    try:
        if name == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(name, "rb") as f:
                data = f.read(limit + 1)
    except OSError as e:
        raise InputError(f"{label}cannot read {name}: {e.strerror or e}") from None
    if len(data) > limit:
        raise InputError(f"larger than {limit // 2**20} MiB; not a file of this kind", name)
    return data


def decode_text(data: bytes, source: str | None) -> str:
    """UTF-8 bytes as text; an InputError naming the line of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"not UTF-8 (byte {e.start})", source, line) from None


def read_text(path: str | Path, limit: int = MAX_INPUT_BYTES, what: str = "") -> str:
    """A file (or '-' for standard input) as UTF-8 text, at most `limit` bytes."""
    return decode_text(read_bytes(path, limit, what), str(path))


# ---------------------------------------------------------------------------------------------
# Readers

# rpki-client's top-level keys over its versions; the ones we do not read are named here so an
# unknown key (a format we have not seen) is still an error.
_RPKI_CLIENT_KEYS = ("metadata", "roas", "bgpsec_keys", "provider_authorizations", "aspas")
_RPKI_CLIENT_IGNORED = ("nonfunc_cas", "signedprefixlists")
_ROUTINATOR_KEYS = ("metadata", "roas", "routerKeys", "aspas")
# The metadata keys each tool has written (rpki-client: output-json.c 1.13 of 2020 to 1.57 of 2025, and
# StayRTR's rtrdump, which writes the same shape; Routinator: json and jsonext). Only the time is read;
# another key is a warning, not an error: new releases add counters there.
_RPKI_CLIENT_METADATA = frozenset((
    "buildmachine", "buildtime", "elapsedtime", "usertime", "systemtime",
    "ccr_mfts_hash", "ccr_vrps_hash", "ccr_vaps_hash", "ccr_brks_hash", "ccr_tas_hash",
    "roas", "failedroas", "invalidroas", "spls", "failedspls", "invalidspls", "aspas", "failedaspas", "invalidaspas",
    "bgpsec_router_keys", "invalidbgpsec_router_keys", "bgpsec_pubkeys",
    "certificates", "failcertificates", "invalidcertificates", "nonfunctionalcas", "taks", "tals", "invalidtals",
    "talfiles", "manifests", "failedmanifests", "stalemanifests", "crls", "gbrs", "repositories",
    "vrps", "uniquevrps", "vsps", "uniquevsps", "vaps", "uniquevaps",
    "cachedir_new_files", "cachedir_del_files", "cachedir_del_dirs", "cachedir_superfluous_files",
    "cachedir_del_superfluous_files",
    "generated", "sessionid", "serial",  # StayRTR
))
_ROUTINATOR_METADATA = frozenset(("generated", "generatedTime"))

Warn = Callable[[str], None]


def detect_format(text: str) -> str | None:
    """'json' (rpki-client or Routinator: read_json tells them apart by their metadata) or a CSV
    flavour ('csv', 'rpki-client-csv', 'csvcompat', 'csvext') by its header line; None if unknown."""
    if _JSON_START_RE.match(text):
        return "json"  # which JSON: read_json decides from the metadata
    end = text.find("\n")
    return _CSV_HEADERS.get(text[:end if end >= 0 else len(text)].rstrip("\r"))


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
                     f"{', '.join(repr(h) for h in _CSV_HEADERS)}; the first line is {first!r}", source, 1)


def read_file(path: str | Path, warn: Warn | None = None) -> Payloads:
    return read_payloads(read_text(path), str(path), warn)


def read_json(text: str, source: str | None = None, warn: Warn | None = None) -> Payloads:
    doc = load_json(text, source)
    if not isinstance(doc, JSONObject):
        raise InputError(f"want a JSON object at the top, got {_kind(doc)}", source)
    if "slurmVersion" in doc:
        raise InputError("this is a SLURM file (RFC 8416); give it with --slurm", source)
    meta = doc.get("metadata")
    if isinstance(meta, JSONObject) and "buildtime" in meta:
        return _read_rpki_client(doc, source, warn or stderr_warning)
    if isinstance(meta, JSONObject) and "generated" in meta:
        return _read_routinator(doc, source, warn or stderr_warning)
    raise InputError("unknown JSON: want rpki-client's (metadata.buildtime) or Routinator's (metadata.generated) "
                     f"VRP output; the top-level keys are {', '.join(map(repr, doc)) or 'none'}", source)


def _check_metadata(value: object, source, required: tuple, known: frozenset, warn: Warn) -> JSONObject:
    """The `metadata` object: each key of `required` there (the caller checks their values), no key
    twice; a key outside `known` is one warning naming the file and its JSON path, and is ignored."""
    if not isinstance(value, JSONObject) or value.duplicate is not None:
        check_object(value, "metadata", source)  # raises: not an object, or a key twice
    for k in required:
        if k not in value:
            raise InputError(f"missing key {k!r}", source, join("metadata", k))
    if not value.keys() <= known:
        for k in value:
            if k not in known:
                where = join("metadata", k) if k.isprintable() and k[:1] != "[" else f"metadata[{k!r}]"
                warn(f"{source}: {where}: unknown key, ignored" if source else f"{where}: unknown key, ignored")
    return value


def _read_rpki_client(doc: JSONObject, source, warn: Warn) -> Payloads:
    check_object(doc, "", source, optional=_RPKI_CLIENT_KEYS + _RPKI_CLIENT_IGNORED, what="rpki-client JSON")
    meta = _check_metadata(doc["metadata"], source, ("buildtime",), _RPKI_CLIENT_METADATA, warn)
    out = Payloads(generated=_time(meta["buildtime"], source, "metadata.buildtime"))

    def roa(e):
        check_object(e, "", source, required=("asn", "prefix", "maxLength"), optional=("ta", "expires"))
        prefix = parse_prefix(e["prefix"], source, "prefix")
        vrp = VRP(prefix, _max_length(e["maxLength"], prefix, source, "maxLength"), _asn_json(e["asn"], source, "asn"))
        return Origin(vrp, _ta(e.get("ta", NO_TA), source, "ta"),
                      _expires(e["expires"], source, "expires") if "expires" in e else None)

    def key(e):
        check_object(e, "", source, required=("asn", "ski", "pubkey"), optional=("ta", "expires"))
        return RouterKey(_asn_json(e["asn"], source, "asn"), _ski_hex(e["ski"], source, "ski"),
                         _base64_std(e["pubkey"], "a public key", source, "pubkey"), _ta(e.get("ta", NO_TA), source, "ta"),
                         _expires(e["expires"], source, "expires") if "expires" in e else None)

    out.origins = each(doc.get("roas", []), "roas", source, roa)
    out.router_keys = each(doc.get("bgpsec_keys", []), "bgpsec_keys", source, key)
    if "provider_authorizations" in doc and "aspas" in doc:
        raise InputError("both 'provider_authorizations' (rpki-client 8.0-8.4) and 'aspas' (later); want one",
                         source, "aspas")
    if "aspas" in doc:
        out.aspas = each(doc["aspas"], "aspas", source, lambda e: _rpki_client_aspa(e, source))
    elif "provider_authorizations" in doc:
        out.aspas = _merge_families(doc["provider_authorizations"], source)
    return out


def _rpki_client_aspa(e, source) -> ASPA:
    check_object(e, "", source, required=("customer_asid", "providers"), optional=("expires",))
    customer = _asn_json(e["customer_asid"], source, "customer_asid")
    return ASPA(customer, _providers(e["providers"], customer, source, "providers", _asn_json), NO_TA,
                _expires(e["expires"], source, "expires") if "expires" in e else None)


def _merge_families(pa, source) -> list[ASPA]:
    """rpki-client 8.0-8.4 list ASPAs per address family (aspa-profile-10 had an AFI). We hold
    ASPAs without one, so the two lists must describe the same ASPAs; they are merged, keeping the
    earlier expiry of the two."""
    check_object(pa, "provider_authorizations", source, optional=("ipv4", "ipv6"))
    fams = {}
    for fam in ("ipv4", "ipv6"):
        path = f"provider_authorizations.{fam}"
        seen = {}
        for i, a in enumerate(each(pa.get(fam, []), path, source, lambda e: _rpki_client_aspa(e, source))):
            if a.customer in seen:
                raise InputError(f"customer AS{a.customer} appears twice in {fam} (first at [{seen[a.customer][0]}])",
                                 source, f"{path}[{i}]")
            seen[a.customer] = (i, a)
        fams[fam] = seen
    out = []
    v4, v6 = fams["ipv4"], fams["ipv6"]
    for customer in sorted(set(v4) | set(v6)):
        if customer not in v4 or customer not in v6 or v4[customer][1].providers != v6[customer][1].providers:
            fam, (i, _) = ("ipv4", v4[customer]) if customer in v4 else ("ipv6", v6[customer])
            raise InputError(f"AS{customer}'s providers differ between ipv4 and ipv6; per-family ASPAs "
                             "(aspa-profile-10's AFI) cannot be represented, only ASPAs for both families",
                             source, f"provider_authorizations.{fam}[{i}]")
        a, b = v4[customer][1], v6[customer][1]
        exp = [x for x in (a.expires, b.expires) if x is not None]
        out.append(ASPA(customer, a.providers, a.ta, min(exp) if exp else None))
    return out


_SOURCE_KEYS = {"roa": ("type", "uri", "tal", "validity", "chainValidity", "stale"),
                "cer": ("type", "uri", "tal", "validity", "chainValidity", "stale"),
                "aspa": ("type", "uri", "tal", "validity", "chainValidity", "stale"),
                "exception": ("type", "path", "comment")}


def _read_routinator(doc: JSONObject, source, warn: Warn) -> Payloads:
    check_object(doc, "", source, required=("metadata",), optional=_ROUTINATOR_KEYS, what="Routinator JSON")
    meta = _check_metadata(doc["metadata"], source, ("generated", "generatedTime"), _ROUTINATOR_METADATA, warn)
    generated = _time(meta["generatedTime"], source, "metadata.generatedTime")
    if not is_int(meta["generated"]) or meta["generated"] != int(generated.timestamp()):
        raise InputError(f"want the Unix time of generatedTime ({int(generated.timestamp())}), got "
                         f"{meta['generated']!r}", source, "metadata.generated")
    out = Payloads(generated=generated)

    def source_tal(s):
        t = s.get("type") if isinstance(s, JSONObject) else None
        if t not in _SOURCE_KEYS:
            raise InputError(f"want a source of type {', '.join(_SOURCE_KEYS)}, got {t!r}", source, None)
        check_object(s, "", source, required=("type",), optional=_SOURCE_KEYS[t])
        return _ta(s["tal"], source, "tal") if "tal" in s else None

    def tagged(e, keys):
        """json has 'ta'; jsonext has 'source', a list whose first 'tal' names the trust anchor."""
        if "source" in e:
            check_object(e, "", source, required=keys + ("source",))
            tals = [t for t in each(e["source"], "source", source, source_tal) if t is not None]
            return tals[0] if tals else NO_TA
        check_object(e, "", source, required=keys + ("ta",))
        return _ta(e["ta"], source, "ta")

    def roa(e):
        ta = tagged(e, ("asn", "prefix", "maxLength"))
        prefix = parse_prefix(e["prefix"], source, "prefix")
        return Origin(VRP(prefix, _max_length(e["maxLength"], prefix, source, "maxLength"),
                          _asn_json(e["asn"], source, "asn")), ta)

    def key(e):
        ta = tagged(e, ("asn", "SKI", "routerPublicKey"))
        spki = decode_base64url(e["routerPublicKey"], "a public key", source, "routerPublicKey")
        if not spki:
            raise InputError("empty public key", source, "routerPublicKey")
        return RouterKey(_asn_json(e["asn"], source, "asn"), _ski_hex(e["SKI"], source, "SKI"), spki, ta)

    def aspa(e):
        ta = tagged(e, ("customer", "providers"))
        customer = _asn_json(e["customer"], source, "customer")
        return ASPA(customer, _providers(e["providers"], customer, source, "providers", _asn_json), ta)

    out.origins = each(doc.get("roas", []), "roas", source, roa)
    out.router_keys = each(doc.get("routerKeys", []), "routerKeys", source, key)
    out.aspas = each(doc.get("aspas", []), "aspas", source, aspa)
    return out


_CSV_HEADERS = {
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
    """The CSV flavours of Routinator and rpki-client. Fields never contain commas (prefixes, ASNs,
    trust anchor names, rsync URIs), so a line is split on commas; csvcompat's fields must all be
    quoted. A blank line is an error."""
    out = Payloads()
    for asn, version, a, n, maxlen, ta, expires in _csv_rows(text, source):
        prefix = IPv4Network((a, n)) if version == 4 else IPv6Network((a, n))
        out.origins.append(Origin(VRP(prefix, maxlen, asn), ta, expires))
    return out


def _csv_rows(text: str, source: str | None):
    """(asn, IP version, network, length, maxLength, trust anchor, expires) of each CSV line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    flavour = _CSV_HEADERS.get(lines[0].rstrip("\r") if lines else "")
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
            ta = _ta(ta, source, n)
            if flavour == "rpki-client-csv":
                if not _UNIX_TIME_RE.fullmatch(fields[4]) or int(fields[4]) >= 2**63:
                    raise InputError(f"want Expires as a Unix time, got {fields[4]!r}", source, n)
                expires = int(fields[4])
        version, a, plen = parse_prefix_numbers(prefix, source, n)
        width_bits = 32 if version == 4 else 128
        if not _DIGITS_RE.fullmatch(maxlen):
            raise InputError(f"want a Max Length from {plen} to {width_bits}, got {maxlen!r}", source, n)
        if not plen <= int(maxlen) <= width_bits:
            raise InputError(f"want a maxLength from {plen} to {width_bits} for {prefix}, got {int(maxlen)}",
                             source, n)
        yield _asn_text(asn, flavour == "csvcompat", source, n), version, a, plen, int(maxlen), ta, expires


_V6_ADDRESSES_RE = re.compile(rb"[0-9A-Fa-f:.]{2,}(?:,[0-9A-Fa-f:.]{2,})*")  # _PREFIX_RE's address part, joined


_ZEROS = 0x3030303030303030  # eight '0' characters in a word
_HIGH_NIBBLES = 0xF0F0F0F0F0F0F0F0


def _words(data: bytes):
    """The 8-byte little-endian word at each byte offset of `data` (an unaligned, overlapping view)."""
    import numpy as np

    return np.ndarray((max(len(data) - 7, 0),), dtype="<u8", buffer=data, strides=(1,))


_BEFORE = [(2**64 - 1) >> (8 * k) if k < 8 else 0 for k in range(9)]  # the bytes before a word's last k
_LEAST = [0, 0] + [10 ** (k - 1) for k in range(2, 21)]  # the least k-digit number without a leading zero


def _digits_at(words, a, b, width: int):
    """The unsigned decimal numbers text[a[i]:b[i]] (1 to `width` digits each, at most 19, no leading
    zero) as a uint64 array, or None if one is empty, too long, has a leading zero or a non-digit.
    `words`: the text's words (see _words); the caller makes sure `width` bytes precede every b[i].
    The last eight digits of all fields at once (_eight_digits), then those before them of the
    fields that have more (few: AS numbers above 99,999,999)."""
    import numpy as np

    n = b - a
    if not len(n):
        return np.zeros(0, dtype=np.uint64)
    if n.min() < 1 or n.max() > width:
        return None
    value, bad = _eight_digits(words[b - 8], np.minimum(n, 8))
    if bad.any():
        return None
    if width > 8:
        rows = np.flatnonzero(n > 8)
        if len(rows):
            more = _digits_at(words, a[rows], b[rows] - 8, width - 8)
            if more is None:
                return None
            value[rows] += more * np.uint64(10**8)
    if (value < np.take(np.array(_LEAST, dtype=np.uint64), n)).any():
        return None  # a leading zero
    return value


def _eight_digits(x, k):
    """The numbers written by the last k[i] (1 to 8) bytes of the words x[i] (a word holds eight
    bytes of text, the last one highest), and where a byte was no digit (a bool array): the bytes
    before the digits are set to '0', the bytes checked, and pairs, quads and octets of digits
    converted by multiplications (the SWAR method of simdjson and fast_float). Overwrites x."""
    import numpy as np

    u = np.uint64
    x, bad = _digit_halves(x, np.take(np.array(_BEFORE, dtype=u), k))
    x *= u(42949672960001)
    x >>= u(32)
    return x, bad


def _digit_halves(x, before):
    """_eight_digits' first steps: the words x[i] with the bytes marked in before[i] set to '0',
    then the number of each 4-byte half (the first byte highest, as in the text) in its low 16
    bits, and where a byte was no digit (a bool array). Overwrites x and before."""
    import numpy as np

    u = np.uint64
    before &= x ^ u(_ZEROS)
    x ^= before  # the bytes before the digits are '0' now
    check = x + u(0x0606060606060606)  # (ASCII: no carry from byte to byte)
    check &= x
    check &= u(_HIGH_NIBBLES)
    bad = check != u(_ZEROS)  # not '3' above, before and after adding 6: a byte outside '0'..'9'
    x &= u(0x0F0F0F0F0F0F0F0F)
    x *= u(2561)
    x >>= u(8)
    x &= u(0x00FF00FF00FF00FF)
    x *= u(6553601)
    x >>= u(16)
    x &= u(0x0000FFFF0000FFFF)
    return x, bad


_DOTS: list = []  # _dotted_quads' table, made on first use


def _dot_table():
    """For each 16-bit mask of the dots among the 16 bytes before a '/': where the three dots of
    an IPv4 address are (p0 | p1 << 4 | p2 << 8), if there are three with one to three bytes
    between them and after the last; else -1."""
    import numpy as np

    if not _DOTS:
        from itertools import combinations

        table = np.full(2**16, -1, dtype=np.int16)
        for p0, p1, p2 in combinations(range(16), 3):
            if 1 <= p1 - p0 - 1 <= 3 and 1 <= p2 - p1 - 1 <= 3 and 1 <= 15 - p2 <= 3:
                table[1 << p0 | 1 << p1 | 1 << p2] = p0 | p1 << 4 | p2 << 8
        _DOTS.append(table)
    return _DOTS[0]


# For two numbers of one to three digits, one at the end of each 4-byte half of a word (k0 and k1
# digits, index k0 + 4 * k1): the bytes before them in each half, and their first bytes where they
# have two or three (the high bit: a leading zero there is no number)
_HALVES_BEFORE = [(2**(32 - 8 * k0) - 1) | (2**(32 - 8 * k1) - 1) << 32 for k1 in range(4) for k0 in range(4)]
_HALVES_LEAD = [(0x80 << (32 - 8 * k0) if k0 > 1 else 0) | (0x80 << (64 - 8 * k1) if k1 > 1 else 0)
                for k1 in range(4) for k0 in range(4)]


def _two_numbers(x, k0, k1):
    """The numbers A and B of the words x[i] that end in 'A,B' or 'A.B' (k0[i] and k1[i] digits,
    one to three each: a prefix length and maxLength, two octets of an IPv4 address) as A | B << 32
    (a uint64 array), and where a byte was no digit or a number had a leading zero (a bool array).
    B stays at the end of the high half, A is moved to the end of the low half, and each half is
    read as a number (_digit_halves)."""
    import numpy as np

    u = np.uint64
    x = ((x << ((k1 + 1) * 8).astype(u)) >> u(32)) | (x & u(0xFFFFFFFF00000000))
    k = k0 + 4 * k1
    digit = x ^ u(_ZEROS)  # '0' is 0 now, every byte below 0x80 (ASCII)
    digit += u(0x7F7F7F7F7F7F7F7F)  # the high bit of each byte set but where it was '0' (no carries)
    leading_zero = (np.take(np.array(_HALVES_LEAD, dtype=u), k, mode="clip") & ~digit) != 0
    x, bad = _digit_halves(x, np.take(np.array(_HALVES_BEFORE, dtype=u), k, mode="clip"))
    bad |= leading_zero
    return x, bad


def _dotted_quads(words, a, b):
    """The IPv4 addresses text[a[i]:b[i]] (dotted quads as inet_pton reads them: four decimal octets
    up to 255, no leading zeros) as a uint64 array, and a bool array saying where the text is no
    such address. The dots are found in the two words before each b[i] (SWAR: a byte compare,
    then the eight flags of a word gathered into a byte by one multiplication) and looked up in
    a table of the masks with three dots; the octets are read two to a word (_two_numbers), from
    the word that ends at the second dot and the one that ends at b."""
    import numpy as np

    u = np.uint64
    n = b - a
    mask = np.zeros(len(a), dtype=u)
    hi = words[b - 8]
    for shift, x in ((0, words[b - 16]), (8, hi.copy())):
        x ^= u(0x2E2E2E2E2E2E2E2E)  # '.' bytes are 0 now, all others below 0x80 (ASCII)
        x += u(0x7F7F7F7F7F7F7F7F)  # the high bit of each byte set but where it was 0 (no carries)
        x = ~x
        x &= u(0x8080808080808080)
        x >>= u(7)
        x *= u(0x0102040810204080)  # byte j's flag to bit 56 + j
        x >>= u(56)
        x <<= u(shift)
        mask |= x
    n = np.clip(n, 0, 16)
    mask &= np.take(np.array([(0xFFFF << (16 - k)) & 0xFFFF for k in range(17)], dtype=u), n)  # the address only
    code = np.take(_dot_table(), mask.astype(np.intp)).astype(np.int64)
    p0, p1, p2 = code & 15, (code >> 4) & 15, code >> 8  # the dots among the 16 bytes before b
    first = p0 + n - 16  # the first octet's length (the table checked the others)
    bad = (code < 0) | (n < 7) | (n > 15) | (first < 1) | (first > 3)
    ab, wrong = _two_numbers(words[b - 24 + p1], first, p1 - p0 - 1)  # the word that ends at the second dot
    bad |= wrong
    cd, wrong = _two_numbers(hi, p2 - p1 - 1, 15 - p2)
    bad |= wrong
    bad |= ((ab | cd) & u(0x0000FF000000FF00)) != 0  # an octet above 255
    addr = ((ab << u(24)) | (ab >> u(16))) & u(0xFFFF0000)
    addr |= ((cd << u(8)) | (cd >> u(32))) & u(0xFFFF)
    return addr, bad


_CHUNK = 2**20  # bytes of lines _fast_csv_columns reads at once (0.5 to 1 MiB measured fastest)


def _fast_csv_columns(data: bytes, chunk: int = _CHUNK):
    """read_vrp_columns for Routinator `csv` and rpki-client CSV written plainly (ASCII, no CR, no
    '/' in a trust anchor name, no leading zeros anywhere), as numpy arrays. The body is read in
    chunks of whole lines, `chunk` bytes or a little more (_fast_csv_lines), so that the
    temporaries stay that small; the columns of each are copied into arrays for the whole file.
    The network column is an rov.Networks (two uint64 arrays), which VRPTable.from_columns takes
    as it is. None when anything is unusual or wrong: then the line-by-line reader runs, and
    names the faulty line."""
    import numpy as np

    end = data.find(b"\n")
    flavour = _CSV_HEADERS.get(data[:end].decode("latin-1")) if end >= 0 else None
    if flavour not in ("csv", "rpki-client-csv"):
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    # a line's separators, from the newline before it
    pattern = np.frombuffer(b"\n,/,,," if flavour == "rpki-client-csv" else b"\n,/,,", dtype=np.uint8)
    scratch = np.empty((2, 0), dtype=bool)
    # room for as many lines as the body can hold: a good line has at least 13 bytes ('AS0,::/0,0,t\n'),
    # and a chunk's columns are kept only when all its lines are good (pages never written cost nothing)
    room = (len(data) - end - 1) // 13
    out = (np.empty(room, dtype=np.int8),) + tuple(np.empty(room, dtype=np.uint64) for _ in range(5))
    done = 0
    a = end + 1
    while a < len(data):
        b = data.find(b"\n", min(a + chunk, len(data)) - 1) + 1  # the end of the line that holds byte a + chunk - 1
        if scratch.shape[1] < b - a + 1:  # made for the first chunk, with room for longer lines
            scratch = np.empty((2, b - a + 1 + 4096), dtype=bool)
        cols = _fast_csv_lines(data, a, b, pattern, scratch)
        if cols is None:
            return None
        for column, values in zip(out, cols):
            column[done:done + len(values)] = values
        done += len(cols[0])
        a = b
    ver, high, low, length, maxlen, asn = (column[:done] for column in out)
    return ver, Networks(high, low), length.view(np.int64), maxlen.view(np.int64), asn.view(np.int64)


def _separators(chunk, scratch):
    """The positions in `chunk` (bytes as a uint8 array) of the separators of a plain CSV line
    (newline, comma, slash) and of the bytes no field may hold (control characters, the double
    quote, the backslash, DEL and non-ASCII bytes), found by passes over it into `scratch` (two
    bool arrays at least as long, which serve chunk after chunk)."""
    import numpy as np

    found, eq = scratch[0, :len(chunk)], scratch[1, :len(chunk)]
    np.subtract(chunk, 32, out=eq.view(np.uint8))  # printable ASCII is 0 to 94 now
    np.greater_equal(eq.view(np.uint8), 95, out=found)
    for c in b'",/\\':
        np.equal(chunk, c, out=eq)
        found |= eq
    return np.flatnonzero(found)


def _fast_csv_lines(data: bytes, a: int, b: int, pattern, scratch):
    """_fast_csv_columns' work on the lines data[a:b] (`pattern`: the separators of a line, from
    the newline before it; `scratch`: see _separators) as arrays: IP versions, the network's high
    and low 64 bits, lengths, maxLengths, ASNs; None if a line is unusual or wrong. The bytes from
    the newline before a are searched once for the separators; every line must show the same
    pattern of them ('\n,/,,' then the next line's newline, or '\n,/,,,' with Expires), and each
    column is then checked and converted for all lines at once: the numbers eight digits to a
    word (_digits_at) or two to a word (_two_numbers), IPv4 addresses by their three dots
    (_dotted_quads), IPv6 addresses (the lines that hold no IPv4 address: a few percent) one by
    one by inet_pton."""
    import numpy as np

    buf, words = np.frombuffer(data, dtype=np.uint8), _words(data)
    sep = _separators(buf[a - 1:b], scratch)
    width = len(pattern)
    lines = len(sep) // width
    if len(sep) != lines * width + 1:
        return None
    sep += a - 1  # positions in buf
    rows = sep[:-1].reshape(lines, width)  # a line a row (the last newline, b - 1, is the next row's)
    if (buf[rows] != pattern).any():
        return None  # a field too many or too few, a '/' in the wrong place, an empty line, a control character
    before, comma, slash, comma2, comma3 = (rows[:, k] for k in range(5))
    nl = sep[width::width]
    ta_end = rows[:, 5] if width == 6 else nl
    # the header's 37 bytes, and the lines before, precede every field: the word gathers stay inside buf
    asn = _digits_at(words, before + 3, comma, 10)
    if asn is None or asn.max() > MAX_ASN:
        return None
    # 'AS' (the word is inside buf: a line with an ASN has eight bytes or more)
    if ((words[before + 1] & np.uint64(0xFFFF)) != np.uint64(0x5341)).any():
        return None
    # the prefix length and maxLength ('24,24') from the word that ends at comma3
    k_len, k_max = comma2 - slash - 1, comma3 - comma2 - 1
    if min(k_len.min(), k_max.min()) < 1 or max(k_len.max(), k_max.max()) > 3:
        return None
    both, bad = _two_numbers(words[comma3 - 8], k_len, k_max)
    if bad.any():
        return None
    length, maxlen = both & np.uint64(0xFFFF), both >> np.uint64(32)
    if width == 6:  # rpki-client's Expires: a Unix time, not kept
        expires = _digits_at(words, ta_end + 1, nl, 19)
        if expires is None or expires.max() >= 2**63:
            return None
    ta_length = ta_end - comma3 - 1  # the trust anchor's bytes were checked with the separators
    if ta_length.min() < 1 or ta_length.max() > MAX_TA_LENGTH:
        return None
    cols = _fast_networks(data, words, comma, slash, asn, length, maxlen)
    return None if cols is None else (cols[0], cols[1].high, cols[1].low) + cols[2:]


def _fast_networks(data: bytes, words, comma, slash, asn, length, maxlen):
    """_fast_csv_columns' second half: the addresses between `comma` and `slash` of each line."""
    import numpy as np

    lines = len(asn)
    addr, v6 = _dotted_quads(words, comma + 1, slash)
    v6 = np.flatnonzero(v6)  # the lines without an IPv4 address: IPv6, or wrong
    ver = np.full(lines, 4, dtype=np.int8)
    ver[v6] = 6
    high = np.zeros(lines, dtype=np.uint64)
    low = addr
    v4 = np.flatnonzero(ver == 4) if len(v6) else slice(None)
    n4, m4 = length[v4], maxlen[v4]
    if len(n4):
        if n4.max() > 32 or m4.max() > 32 or (m4 < n4).any():
            return None
        if (low[v4] & ((np.uint64(1) << (np.uint64(32) - n4)) - np.uint64(1))).any():
            return None  # host bits set
    if len(v6):
        starts, stops = (comma[v6] + 1).tolist(), slash[v6].tolist()
        joined = b",".join([data[s:e] for s, e in zip(starts, stops)])
        if (slash[v6] - comma[v6]).max() > 46 or not _V6_ADDRESSES_RE.fullmatch(joined):
            return None  # a character that is neither a hex digit, ':' nor '.', or more than 45 of them
        addrs = joined.decode("ascii").split(",")
        if not all(":" in s for s in addrs):
            return None  # neither IPv4 nor IPv6 (inet_pton's choice is by the ':', as parse_prefix's)
        try:
            packed = b"".join([socket.inet_pton(socket.AF_INET6, s) for s in addrs])
        except (OSError, ValueError):
            return None
        words6 = np.frombuffer(packed, dtype=">u8").astype(np.uint64)
        hi, lo = words6[0::2], words6[1::2]
        k, m = length[v6], maxlen[v6]
        if k.max() > 128 or m.max() > 128 or (m < k).any():
            return None
        # host bits: the last 128 - k bits of (hi, lo), each mask made by two shifts (one by 64 is undefined)
        hi_host = np.clip(64 - k.astype(np.int64), 0, 64).astype(np.uint64)
        lo_host = np.clip(128 - k.astype(np.int64), 0, 64).astype(np.uint64)
        ones = np.uint64(2**64 - 1)
        if ((hi & ~((ones << (hi_host >> np.uint64(1))) << (hi_host - (hi_host >> np.uint64(1))))).any()
                or (lo & ~((ones << (lo_host >> np.uint64(1))) << (lo_host - (lo_host >> np.uint64(1))))).any()):
            return None  # host bits set
        high[v6], low[v6] = hi, lo
    return ver, Networks(high, low), length.view(np.int64), maxlen.view(np.int64), asn.view(np.int64)


# the bytes of prefixes as _fast_prefixes sees them: '/' and newline, and whatever no prefix holds, as 1
_PREFIX_CLASS = bytes(0 if c in b"0123456789abcdefABCDEF:." else 1 for c in range(256))
_PAD = 31  # bytes before the first prefix, so that the word gathers stay inside the text


def _fast_prefixes(prefixes: list, maxlen):
    """(IP versions, rov.Networks, lengths) of prefix strings ('192.0.2.0/24', '2001:db8::/32'),
    checked as parse_prefix checks them, and with their maxLengths (`maxlen`, a uint64 array)
    checked against them: the lines of one text, read as _fast_csv_columns reads its prefixes.
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
    words = _words(data)
    length = _digits_at(words, slash + 1, nl, 3)
    if length is None:
        return None
    cols = _fast_networks(data, words, before, slash, length, length, maxlen)
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


def _fast_json_columns(text: str, source: str | None = None, warn: Warn | None = None):
    """read_vrp_columns for rpki-client's JSON written plainly (no backslash anywhere; maxLengths
    and expiry times as numbers), without an object per VRP: json.loads without hooks
    (half the time of load_json), then each field of the `roas` as one list, checked at once; the
    prefixes by _fast_prefixes. What load_json's hook would have seen, a key twice in an object,
    is seen by counting: without backslashes, every ':' in the text separates a member or stands
    in a key or a string, so the text has more ':' than the parsed document accounts for exactly
    when json.loads dropped a member. The rest of the document (metadata, router keys, ASPAs) is
    read by the strict reader (its warnings, for unknown metadata keys, are given to `warn` only when
    the fast path succeeds, so that a fallback does not tell them twice). None when anything is
    unusual or wrong: then read_json runs, and names the fault's place."""
    import numpy as np

    if "\\" in text or not _JSON_START_RE.match(text):
        return None
    try:
        doc = json.loads(text, parse_constant=_bad_constant)
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
            asn = [a if type(a) is int else _asn_json(a, None, None) for a in asn]
        except InputError:
            return None
    for values in (asn, maxlen, expires):
        if values and set(map(type, values)) != {int}:
            return None  # a float, true, null, a string...
    try:
        asn_a, maxlen_a, expires_a = (np.array(v, dtype=np.int64) for v in (asn, maxlen, expires))
        for ta in set(tas):
            _ta(ta, None, None)
    except (OverflowError, TypeError, InputError):
        return None
    if len(roas) and (asn_a.min() < 0 or asn_a.max() > MAX_ASN or maxlen_a.min() < 0):
        return None
    if len(expires) and expires_a.min() < 0:
        return None
    cols = _fast_prefixes(prefix, maxlen_a.astype(np.uint64))
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


def read_vrp_columns(data: bytes, source: str | None = None, warn: Warn | None = None) -> tuple:
    """The VRPs of rpki-client or Routinator output (a file's bytes, as read_bytes gives them) as
    columns (lists or numpy arrays) for rov.VRPTable.from_columns: IP versions, network addresses
    (Python ints), lengths, maxLengths, ASNs. Read without making an object per VRP where the
    file is written plainly, with the same checks as read_csv and read_json: Routinator `csv` and
    rpki-client CSV from the bytes, by passes over chunks of lines (`_fast_csv_columns`),
    rpki-client JSON by json.loads and a pass per field (`_fast_json_columns`); anything else,
    and any fault, by the strict readers. The bytes are decoded (decode_text: read_text's error
    for a file that is not UTF-8) only when the CSV fast path declines. Warnings (unknown JSON
    metadata keys) go to `warn` (default: standard error), once whichever path reads."""
    fast = _fast_csv_columns(data)
    if fast is not None:
        return fast
    text = decode_text(data, source)
    if _JSON_START_RE.match(text):
        fast = _fast_json_columns(text, source, warn)
    if fast is not None:
        return fast
    ver, net, length, maxlen, asns = [], [], [], [], []
    if detect_format(text) in _CSV_HEADERS.values():
        for asn, v, a, n, m, _, _ in _csv_rows(text, source):
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


# ---------------------------------------------------------------------------------------------
# Writers


def format_address(addr) -> str:
    """An address as Routinator (Rust's Display) and rpki-client (inet_ntop) print it: RFC 5952
    for IPv6, with IPv4-mapped addresses as ::ffff:192.0.2.1 whatever Python's version does."""
    if addr.version == 6 and addr.ipv4_mapped is not None:
        return f"::ffff:{addr.ipv4_mapped}"
    return str(addr)


def format_prefix(prefix: Prefix) -> str:
    return f"{format_address(prefix.network_address)}/{prefix.prefixlen}"


def write_csv(p: Payloads) -> str:
    """Routinator's `csv` (output.rs): 'ASN,IP Prefix,Max Length,Trust Anchor' and one line per VRP."""
    out = ["ASN,IP Prefix,Max Length,Trust Anchor\n"]
    for o in p.sorted().origins:
        out.append(f"AS{o.vrp.asn},{format_prefix(o.vrp.prefix)},{o.vrp.max_length},{o.ta}\n")
    return "".join(out)


def write_bird2(p: Payloads) -> str:
    """Routinator's `bird2`: 'route PREFIX max MAXLEN as ASN;' per VRP, nothing else (the lines go
    inside a BIRD 2 static protocol for a roa4/roa6 table)."""
    return "".join(f"route {format_prefix(o.vrp.prefix)} max {o.vrp.max_length} as {o.vrp.asn};\n"
                   for o in p.sorted().origins)


def write_openbgpd(p: Payloads) -> str:
    """Routinator's `openbgpd`: a `roa-set { }` block, 'maxlen N' only where it exceeds the prefix length."""
    out = ["roa-set {\n"]
    for o in p.sorted().origins:
        v = o.vrp
        maxlen = f" maxlen {v.max_length}" if v.max_length > v.prefix.prefixlen else ""
        out.append(f"    {format_prefix(v.prefix)}{maxlen} source-as {v.asn}\n")
    out.append("}\n")
    return "".join(out)


def write_json(p: Payloads, generated: datetime | None = None) -> str:
    """rpki-client 8.2's JSON (output-json.c 1.29), byte for byte in its layout: tab indentation,
    one line per entry, the sections `roas`, `bgpsec_keys` and `provider_authorizations`.

    What we cannot know is left out rather than invented: the metadata holds `buildtime`
    (`generated`, else the input's time, else now) and the counts of what is written
    (`bgpsec_pubkeys`, `vrps`, `uniquevrps`, `vaps`, `uniquevaps`), not rpki-client's statistics
    about repositories and objects; an entry's `expires` is written when it is known (read from
    rpki-client input), and omitted otherwise (Routinator or CSV input, SLURM assertions);
    rpki-client writes no trust anchor for ASPAs, nor do we."""
    p = p.sorted()
    when = generated or p.generated or datetime.now(timezone.utc)
    when = when.astimezone(timezone.utc)

    def exp(x):
        return "" if x.expires is None else f", \"expires\": {x.expires}"

    meta = [f"\"buildtime\": \"{when.strftime(_TIME_FORMAT)}\"",
            f"\"bgpsec_pubkeys\": {len(p.router_keys)}",
            f"\"vrps\": {len(p.origins)}",
            f"\"uniquevrps\": {len({o.vrp for o in p.origins})}",
            f"\"vaps\": {len(p.aspas)}",
            f"\"uniquevaps\": {len({a.customer for a in p.aspas})}"]
    roas = [f"\t\t{{ \"asn\": {o.vrp.asn}, \"prefix\": \"{format_prefix(o.vrp.prefix)}\", "
            f"\"maxLength\": {o.vrp.max_length}, \"ta\": \"{o.ta}\"{exp(o)} }}" for o in p.origins]
    keys = [f"\t\t{{ \"asn\": {k.asn}, \"ski\": \"{k.ski_hex}\", \"pubkey\": \"{k.spki_b64}\", "
            f"\"ta\": \"{k.ta}\"{exp(k)} }}" for k in p.router_keys]
    vaps = [f"\t\t\t{{ \"customer_asid\": {a.customer}, \"providers\": [{', '.join(map(str, a.providers))}]{exp(a)} }}"
            for a in p.aspas]
    return ("{\n\t\"metadata\": {\n" + ",\n".join(f"\t\t{m}" for m in meta) + "\n\t},\n\n"
            "\t\"roas\": [\n" + ",\n".join(roas) + "\n\t],\n\n"
            "\t\"bgpsec_keys\": [\n" + ",\n".join(keys) + "\n\t],\n\n"
            "\t\"provider_authorizations\": {\n\t\t\"ipv4\": [\n" + ",\n".join(vaps) +
            "\n\t\t],\n\t\t\"ipv6\": [\n" + ",\n".join(vaps) + "\n\t\t]\n\t}\n"
            "\n}\n")


WRITERS = {"json": write_json, "csv": write_csv, "bird2": write_bird2, "openbgpd": write_openbgpd}
