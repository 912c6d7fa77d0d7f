"""The fields of validated payloads, each read strictly: prefixes, AS numbers, maxLengths, trust
anchor names, times, Subject Key Identifiers, public keys and provider lists.

Shared by the readers of every format and by rpki.slurm (RFC 8416). Each parser returns the value
or raises InputError(message, source, where), `where` being the JSON path or line it is given.
"""

from __future__ import annotations

import base64
import binascii
import re
import socket
from datetime import datetime, timezone
from ipaddress import IPv4Network, IPv6Network

from bgpsim.base.errors import InputError

from .payloads import MAX_ASN, MAX_TA_LENGTH, TIME_FORMAT, Prefix
from .strictjson import kind_of

_PREFIX_RE = re.compile(r"[0-9A-Fa-f:.]{2,45}/(?:0|[1-9][0-9]{0,2})")
_ASN_RE = re.compile(r"AS(0|[1-9][0-9]{0,9})")
DIGITS_RE = re.compile(r"0|[1-9][0-9]{0,9}")  # a decimal number without leading zeros, at most 10 digits
_HEX_SKI_RE = re.compile(r"[0-9A-Fa-f]{40}")
_B64URL_RE = re.compile(r"[A-Za-z0-9_-]*")


def parse_prefix(value: object, source: str | None, where) -> Prefix:
    """An IPv4 or IPv6 prefix in slash notation, host bits zero ('192.0.2.0/24', '2001:db8::/32').
    The address is read by inet_pton (no zone, no leading zeros in IPv4 octets), which is faster
    than ipaddress's own parser (docs/vrps.md)."""
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


def parse_asn_json(value: object, source, where) -> int:
    """An ASN as rpki-client (a number; "AS64496" before 7.1) or Routinator ("AS64496") write it."""
    if isinstance(value, str):
        m = _ASN_RE.fullmatch(value)
        if m and int(m.group(1)) <= MAX_ASN:
            return int(m.group(1))
        raise InputError(f"want an AS number such as 64496 or \"AS64496\", got {value!r}", source, where)
    return parse_asn_number(value, source, where)


def parse_asn_text(value: str, bare_ok: bool, source, where) -> int:
    """'AS64496' (csv, csvext, rpki-client); csvcompat also allows '64496' (Routinator's manual
    says it writes that, its code and test outputs write 'AS64496', as the RIPE NCC validator did)."""
    m = _ASN_RE.fullmatch(value)
    number = m.group(1) if m else value if bare_ok and DIGITS_RE.fullmatch(value) else None
    if number is None or int(number) > MAX_ASN:
        raise InputError(f"want an AS number like AS64496, got {value!r}", source, where)
    return int(number)


def parse_max_length(value: object, prefix: Prefix, source, where) -> int:
    if not is_int(value) or not prefix.prefixlen <= value <= prefix.max_prefixlen:
        raise InputError(f"want a maxLength from {prefix.prefixlen} to {prefix.max_prefixlen} for {prefix}, "
                         f"got {value!r}", source, where)
    return value


_TA_SEEN: set[str] = set()  # names already found good (there are a handful)


def parse_ta(value: object, source, where) -> str:
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


def parse_expires(value: object, source, where) -> int:
    if not is_int(value) or not 0 <= value < 2**63:
        raise InputError(f"want 'expires' as a Unix time (a non-negative integer), got {value!r}", source, where)
    return value


def parse_time(value: object, source, where) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.strptime(value, TIME_FORMAT).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    raise InputError(f"want a UTC time like 2023-07-27T18:56:02Z, got {value!r}", source, where)


def parse_ski_hex(value: object, source, where) -> bytes:
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


def decode_base64(value: object, what: str, source, where) -> bytes:
    """RFC 4648 section 4 with '=' padding, as rpki-client writes public keys."""
    if isinstance(value, str) and value and len(value) % 4 == 0:
        try:
            data = base64.b64decode(value, validate=True)
            if base64.b64encode(data).decode("ascii") == value:
                return data
        except binascii.Error:
            pass
    raise InputError(f"want {what} in padded base64 (RFC 4648 section 4), got {value!r}", source, where)


def parse_providers(values: object, customer: int, source, where, parse=parse_asn_number) -> tuple[int, ...]:
    """Provider ASNs: a non-empty list without repeats and without the customer itself
    (draft-ietf-sidrops-aspa-profile: the customer is never its own provider). Sorted."""
    if not isinstance(values, list) or not values:
        got = "an empty list" if isinstance(values, list) else kind_of(values)
        raise InputError(f"want a non-empty list of provider AS numbers, got {got}", source, where)
    out = [parse(v, source, f"{where}[{i}]") for i, v in enumerate(values)]
    if len(set(out)) != len(out):
        raise InputError(f"provider AS{next(a for a in out if out.count(a) > 1)} is listed twice", source, where)
    if customer in out:
        raise InputError(f"customer AS{customer} is listed among its own providers", source, where)
    return tuple(sorted(out))
