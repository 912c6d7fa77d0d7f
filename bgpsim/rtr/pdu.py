"""RPKI-to-Router protocol data units: version 0 (RFC 6810 section 5), version 1 (RFC 8210 section 5:
Router Key, timers in End of Data) and version 2 (draft-ietf-sidrops-8210bis-27 section 5: the ASPA
PDU, a 64 KiB limit, error codes 9 to 13).

Every PDU starts with the same eight octets (section 5.1): version, type, a 16-bit field (the session
ID, the error code, or flags and a zero octet), and the length of the whole PDU. `decode` reads one
PDU from the start of a buffer and is total: a short buffer is "need more", and anything else that is
not a well-formed PDU of a known type, with the lengths and values its version allows, raises
PduError carrying the Error Report code the draft asks for and the offending octets. What carries no
meaning is taken as it comes (section 5: reserved "zero" fields and the flags' reserved bits "MUST be
ignored on receipt").
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

VERSIONS = (0, 1, 2)
HEADER = struct.Struct("!BBHI")  # version, type, session ID / error code / flags+zero, length
MAX_PDU = 65535  # draft-ietf-sidrops-8210bis section 5.1: no PDU is longer; a longer length is corrupt
SKI_LENGTH = 20  # RFC 8210 section 5.10: a SHA-1 Subject Key Identifier

# PDU types (RFC 8210 section 5; draft-ietf-sidrops-8210bis section 5.12 adds ASPA)
SERIAL_NOTIFY, SERIAL_QUERY, RESET_QUERY, CACHE_RESPONSE, IPV4_PREFIX = 0, 1, 2, 3, 4
IPV6_PREFIX, END_OF_DATA, CACHE_RESET, ROUTER_KEY, ERROR_REPORT, ASPA = 6, 7, 8, 9, 10, 11
TYPE_NAMES = {SERIAL_NOTIFY: "Serial Notify", SERIAL_QUERY: "Serial Query", RESET_QUERY: "Reset Query",
              CACHE_RESPONSE: "Cache Response", IPV4_PREFIX: "IPv4 Prefix", IPV6_PREFIX: "IPv6 Prefix",
              END_OF_DATA: "End of Data", CACHE_RESET: "Cache Reset", ROUTER_KEY: "Router Key",
              ERROR_REPORT: "Error Report", ASPA: "ASPA"}
FIRST_VERSION = {ROUTER_KEY: 1, ASPA: 2}  # the others exist from version 0

# Error codes (RFC 8210 section 12; draft-ietf-sidrops-8210bis section 13)
CORRUPT_DATA, INTERNAL_ERROR, NO_DATA, INVALID_REQUEST, UNSUPPORTED_VERSION = 0, 1, 2, 3, 4
UNSUPPORTED_PDU, UNKNOWN_WITHDRAWAL, DUPLICATE_ANNOUNCEMENT, UNEXPECTED_VERSION = 5, 6, 7, 8
ASPA_PROVIDER_LIST_ERROR, TRANSPORT_ERROR, ORDERING_ERROR, CACHE_RESTART, CACHE_SHUTDOWN = 9, 10, 11, 12, 13
FATAL = frozenset(range(14)) - {NO_DATA, CACHE_RESTART}  # section 12: the others drop the session
ERROR_NAMES = {CORRUPT_DATA: "Corrupt Data", INTERNAL_ERROR: "Internal Error", NO_DATA: "No Data Available",
               INVALID_REQUEST: "Invalid Request", UNSUPPORTED_VERSION: "Unsupported Protocol Version",
               UNSUPPORTED_PDU: "Unsupported PDU Type", UNKNOWN_WITHDRAWAL: "Withdrawal of Unknown Record",
               DUPLICATE_ANNOUNCEMENT: "Duplicate Announcement Received",
               UNEXPECTED_VERSION: "Unexpected Protocol Version",
               ASPA_PROVIDER_LIST_ERROR: "ASPA Provider List Error", TRANSPORT_ERROR: "Transport Error",
               ORDERING_ERROR: "Ordering Error", CACHE_RESTART: "Cache Restart", CACHE_SHUTDOWN: "Cache Shutdown"}

ANNOUNCE = 1  # flags bit 0 (RFC 8210 section 5.6): 1 announcement, 0 withdrawal

# End of Data's timers (RFC 8210 section 6): defaults and the allowed ranges, in seconds
REFRESH, RETRY, EXPIRE = 3600, 600, 7200
TIMER_RANGES = {"refresh": (1, 86400), "retry": (1, 7200), "expire": (600, 172800)}


class PduError(Exception):
    """A PDU that cannot be taken: the Error Report `code` to send, what was wrong, and the PDU's
    octets as far as they were read (to return in the report)."""

    def __init__(self, code: int, text: str, pdu: bytes = b""):
        super().__init__(text)
        self.code, self.text, self.pdu = code, text, pdu

    def __str__(self) -> str:
        return f"{ERROR_NAMES.get(self.code, f'error {self.code}')}: {self.text}"

    @property
    def reportable(self) -> bool:
        """Whether an Error Report may answer it: never one for an Error Report (RFC 8210 section 5.11)."""
        return self.pdu[1:2] != bytes((ERROR_REPORT,))


@dataclass(frozen=True)
class SerialNotify:
    version: int
    session: int
    serial: int


@dataclass(frozen=True)
class SerialQuery:
    version: int
    session: int
    serial: int


@dataclass(frozen=True)
class ResetQuery:
    version: int


@dataclass(frozen=True)
class CacheResponse:
    version: int
    session: int


@dataclass(frozen=True)
class Prefix:
    """An IPv4 or IPv6 Prefix PDU: a VRP announced or withdrawn."""

    version: int
    announce: bool
    prefix: ipaddress.IPv4Network | ipaddress.IPv6Network
    max_length: int
    asn: int


@dataclass(frozen=True)
class EndOfData:
    version: int
    session: int
    serial: int
    refresh: int = REFRESH  # the timers: version 1 and later
    retry: int = RETRY
    expire: int = EXPIRE


@dataclass(frozen=True)
class CacheReset:
    version: int


@dataclass(frozen=True)
class RouterKey:
    version: int
    announce: bool
    ski: bytes
    asn: int
    spki: bytes


@dataclass(frozen=True)
class Aspa:
    """An ASPA PDU: the customer's whole provider set announced (replacing any earlier one), or the
    customer withdrawn (no providers)."""

    version: int
    announce: bool
    customer: int
    providers: tuple[int, ...] = ()


@dataclass(frozen=True)
class ErrorReport:
    version: int
    code: int
    pdu: bytes  # the erroneous PDU, or as much of it as is known (may be empty)
    text: str

    def __str__(self) -> str:
        return f"{ERROR_NAMES.get(self.code, f'error {self.code}')}" + (f": {self.text}" if self.text else "")


Pdu = (SerialNotify | SerialQuery | ResetQuery | CacheResponse | Prefix | EndOfData | CacheReset | RouterKey
       | Aspa | ErrorReport)


def name(p: Pdu) -> str:
    """The PDU's type as the RFCs name it (for messages: the PDU is encoded to read its type)."""
    return TYPE_NAMES[encode(p)[1]]


# ---- encoding ------------------------------------------------------------------------------------------

def encode(p: Pdu) -> bytes:
    """The octets of one PDU, as its version lays it out."""
    v = p.version
    if isinstance(p, (SerialNotify, SerialQuery)):
        return HEADER.pack(v, SERIAL_NOTIFY if isinstance(p, SerialNotify) else SERIAL_QUERY, p.session, 12) \
            + p.serial.to_bytes(4, "big")
    if isinstance(p, ResetQuery):
        return HEADER.pack(v, RESET_QUERY, 0, 8)
    if isinstance(p, CacheResponse):
        return HEADER.pack(v, CACHE_RESPONSE, p.session, 8)
    if isinstance(p, CacheReset):
        return HEADER.pack(v, CACHE_RESET, 0, 8)
    if isinstance(p, Prefix):
        net = p.prefix
        four = net.version == 4
        return HEADER.pack(v, IPV4_PREFIX if four else IPV6_PREFIX, 0, 20 if four else 32) \
            + bytes((int(p.announce), net.prefixlen, p.max_length, 0)) + net.network_address.packed \
            + p.asn.to_bytes(4, "big")
    if isinstance(p, EndOfData):
        if v == 0:
            return HEADER.pack(v, END_OF_DATA, p.session, 12) + p.serial.to_bytes(4, "big")
        return HEADER.pack(v, END_OF_DATA, p.session, 24) + struct.pack("!IIII", p.serial, p.refresh, p.retry, p.expire)
    if isinstance(p, RouterKey):
        return HEADER.pack(v, ROUTER_KEY, int(p.announce) << 8, 32 + len(p.spki)) + p.ski + p.asn.to_bytes(4, "big") \
            + p.spki
    if isinstance(p, Aspa):
        providers = p.providers if p.announce else ()
        return HEADER.pack(v, ASPA, int(p.announce) << 8, 12 + 4 * len(providers)) + p.customer.to_bytes(4, "big") \
            + b"".join(a.to_bytes(4, "big") for a in providers)
    if isinstance(p, ErrorReport):
        text = p.text.encode("utf-8")
        return HEADER.pack(v, ERROR_REPORT, p.code, 16 + len(p.pdu) + len(text)) + len(p.pdu).to_bytes(4, "big") \
            + p.pdu + len(text).to_bytes(4, "big") + text
    raise TypeError(f"not a PDU: {p!r}")


def error_report(version: int, e: PduError) -> bytes:
    """The Error Report for `e`; an encapsulated PDU is cut to keep the report within MAX_PDU."""
    text = e.text[:1000]
    room = MAX_PDU - 16 - len(text.encode("utf-8"))
    return encode(ErrorReport(version, e.code, e.pdu[:room], text))


# ---- decoding ------------------------------------------------------------------------------------------

def header(buf, at: int = 0) -> tuple[int, int, int, int] | None:
    """(version, type, the 16-bit field, length) of the PDU at `at`, or None if fewer than eight
    octets are there. The length is checked: at least 8, at most MAX_PDU."""
    if len(buf) - at < 8:
        return None
    version, kind, field, length = HEADER.unpack_from(buf, at)
    if length < 8 or length > MAX_PDU:
        raise PduError(CORRUPT_DATA, f"a PDU length of {length} octets (want 8 to {MAX_PDU})", bytes(buf[at:at + 8]))
    return version, kind, field, length


def decode(buf, at: int = 0) -> tuple[Pdu, int] | None:
    """The PDU at `at` and its length, or None until the whole PDU is in `buf`."""
    h = header(buf, at)
    if h is None:
        return None
    version, kind, field, length = h
    if len(buf) - at < length:
        return None
    raw = bytes(buf[at:at + length])
    return _decode(raw, version, kind, field, length), length


def _want(raw: bytes, length: int, want: int, what: str) -> None:
    if length != want:
        raise PduError(CORRUPT_DATA, f"a {what} PDU of {length} octets (want {want})", raw)


def _decode(raw: bytes, version: int, kind: int, field: int, length: int) -> Pdu:
    if version not in VERSIONS:
        raise PduError(UNSUPPORTED_VERSION, f"protocol version {version} (want one of {VERSIONS})", raw)
    name = TYPE_NAMES.get(kind)
    if name is None or version < FIRST_VERSION.get(kind, 0):
        raise PduError(UNSUPPORTED_PDU, f"PDU type {kind} in protocol version {version}", raw)
    u32 = lambda at: int.from_bytes(raw[at:at + 4], "big")
    if kind in (SERIAL_NOTIFY, SERIAL_QUERY):
        _want(raw, length, 12, name)
        return (SerialNotify if kind == SERIAL_NOTIFY else SerialQuery)(version, field, u32(8))
    if kind in (RESET_QUERY, CACHE_RESET):
        _want(raw, length, 8, name)
        return (ResetQuery if kind == RESET_QUERY else CacheReset)(version)
    if kind == CACHE_RESPONSE:
        _want(raw, length, 8, name)
        return CacheResponse(version, field)
    if kind in (IPV4_PREFIX, IPV6_PREFIX):
        four = kind == IPV4_PREFIX
        _want(raw, length, 20 if four else 32, name)
        flags, plen, maxlen = raw[8:11]
        bits = 32 if four else 128
        if not plen <= maxlen <= bits:
            raise PduError(CORRUPT_DATA, f"an {name} PDU with prefix length {plen} and max length {maxlen} "
                                         f"(want prefix length <= max length <= {bits})", raw)
        addr = raw[12:16] if four else raw[12:28]
        try:
            net = ipaddress.ip_network((ipaddress.ip_address(addr), plen))
        except ValueError:
            raise PduError(CORRUPT_DATA, f"an {name} PDU whose prefix {ipaddress.ip_address(addr)}/{plen} has host "
                                         "bits set", raw) from None
        return Prefix(version, bool(flags & ANNOUNCE), net, maxlen, u32(16 if four else 28))
    if kind == END_OF_DATA:
        if version == 0:
            _want(raw, length, 12, name)
            return EndOfData(version, field, u32(8))
        _want(raw, length, 24, name)
        return EndOfData(version, field, u32(8), u32(12), u32(16), u32(20))
    if kind == ROUTER_KEY:
        if length < 32 + 1:
            raise PduError(CORRUPT_DATA, f"a Router Key PDU of {length} octets (want more than 32: a key)", raw)
        return RouterKey(version, bool(field >> 8 & ANNOUNCE), raw[8:28], u32(28), raw[32:])
    if kind == ASPA:
        return _aspa(raw, version, field, length)
    # ERROR_REPORT: two length-prefixed parts, which must fill the PDU exactly
    if length < 16:
        raise PduError(CORRUPT_DATA, f"an Error Report PDU of {length} octets (want at least 16)", raw)
    inner = u32(8)
    if 12 + inner + 4 > length:
        raise PduError(CORRUPT_DATA, f"an Error Report whose encapsulated PDU of {inner} octets overruns it", raw)
    text_length = int.from_bytes(raw[12 + inner:16 + inner], "big")
    if 16 + inner + text_length != length:
        raise PduError(CORRUPT_DATA, f"an Error Report whose parts ({inner} and {text_length} octets) do not fill "
                                     f"its {length} octets", raw)
    return ErrorReport(version, field, raw[12:12 + inner], raw[16 + inner:].decode("utf-8", errors="replace"))


def _aspa(raw: bytes, version: int, field: int, length: int) -> Aspa:
    """draft-ietf-sidrops-8210bis-27 section 5.12: flags, a zero octet, the customer, then the
    providers "in increasing numeric order", each "unique"; a withdrawal has none ("the PDU Length
    MUST be 12"), an announcement at least one, and AS0 only alone (else "ASPA Provider List Error";
    the draft names no code for an unordered list, and this one is the list's)."""
    announce = bool(field >> 8 & ANNOUNCE)
    if length < 12 or (length - 12) % 4:
        raise PduError(CORRUPT_DATA, f"an ASPA PDU of {length} octets (want 12 + 4 per provider)", raw)
    customer = int.from_bytes(raw[8:12], "big")
    providers = tuple(int.from_bytes(raw[at:at + 4], "big") for at in range(12, length, 4))
    if not announce:
        if providers:
            raise PduError(ASPA_PROVIDER_LIST_ERROR, f"an ASPA withdrawal for AS{customer} with {len(providers)} "
                                                     "providers (want none: 12 octets)", raw)
        return Aspa(version, False, customer)
    if not providers:
        raise PduError(ASPA_PROVIDER_LIST_ERROR, f"an ASPA announcement for AS{customer} with no provider", raw)
    if any(b <= a for a, b in zip(providers, providers[1:])):
        raise PduError(ASPA_PROVIDER_LIST_ERROR, f"an ASPA for AS{customer} whose providers are not in ascending "
                                                 "order, each once", raw)
    if 0 in providers and len(providers) > 1:
        raise PduError(ASPA_PROVIDER_LIST_ERROR, f"an ASPA for AS{customer} with AS0 beside other providers", raw)
    return Aspa(version, True, customer, providers)
