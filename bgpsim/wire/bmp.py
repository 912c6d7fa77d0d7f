"""BGP Monitoring Protocol messages (RFC 7854), as a monitoring station reads them.

Common Header (section 4.1): Version (1 octet, 3), Message Length (4, the whole message), Message Type
(1): 0 Route Monitoring, 1 Statistics Report, 2 Peer Down Notification, 3 Peer Up Notification,
4 Initiation, 5 Termination, 6 Route Mirroring.
Per-Peer Header (section 4.2, 42 octets, before every message but Initiation and Termination): Peer
Type (1: 0 Global Instance, 1 RD Instance, 2 Local Instance; 3 Loc-RIB, RFC 9069 section 4.1), Peer
Flags (1: V 0x80 an IPv6 peer, L 0x40 post-policy, A 0x20 a 2-octet AS_PATH; O 0x10 Adj-RIB-Out, RFC
8671 section 4), Peer Distinguisher (8), Peer Address (16, IPv4 in the last 4), Peer AS (4), Peer
BGP ID (4), Timestamp (4 seconds, 4 microseconds).
Route Monitoring (section 4.6): one whole BGP UPDATE. Statistics Report (4.8): Stats Count (4) and
that many TLVs (type 2, length 2). Peer Down (4.9): Reason (1) and its data. Peer Up (4.10): Local
Address (16), Local Port (2), Remote Port (2), the OPEN sent and the OPEN received, Information TLVs.
Initiation (4.3) and Termination (4.5): Information TLVs (type 2, length 2; 0 String, 1 sysDescr,
2 sysName; Termination's 1 is its Reason).
"""

from __future__ import annotations

import ipaddress
from typing import NamedTuple

from . import WireError

ROUTE_MONITORING, STATISTICS, PEER_DOWN, PEER_UP, INITIATION, TERMINATION, ROUTE_MIRRORING = range(7)
NAMES = ("Route Monitoring", "Statistics Report", "Peer Down Notification", "Peer Up Notification", "Initiation",
         "Termination", "Route Mirroring")
COMMON, PER_PEER = 6, 42
MAX_MESSAGE = 1 << 20  # bgpsim's bound: a BGP message is at most 65,535 octets (RFC 8654), a Peer Up two of them
FLAG_V, FLAG_L, FLAG_A, FLAG_O = 0x80, 0x40, 0x20, 0x10


def message_length(head: bytes) -> int:
    """The length of the message whose Common Header is `head` (6 octets), checked."""
    if head[0] != 3:
        raise WireError(f"BMP Common Header (RFC 7854 section 4.1): want version 3, got {head[0]}", 0)
    length = int.from_bytes(head[1:5], "big")
    if not COMMON <= length <= MAX_MESSAGE:
        raise WireError(f"BMP Common Header (RFC 7854 section 4.1): want a Message Length of {COMMON} to "
                        f"{MAX_MESSAGE}, got {length}", 1)
    if head[5] > ROUTE_MIRRORING:
        raise WireError(f"BMP Common Header (RFC 7854 section 4.1): want a Message Type of 0 to 6, got {head[5]}", 5)
    return length


class Peer(NamedTuple):
    """A Per-Peer Header (RFC 7854 section 4.2)."""

    kind: int
    flags: int
    distinguisher: bytes
    address: str
    asn: int
    bgp_id: str
    seconds: int
    usec: int

    @property
    def post_policy(self) -> bool:
        return bool(self.flags & FLAG_L)

    @property
    def asn_size(self) -> int:
        """The octets of an AS in its UPDATEs' AS_PATH: 2 with the A flag (section 4.2), else 4."""
        return 2 if self.flags & FLAG_A else 4


class Message(NamedTuple):
    """One BMP message: its type, Per-Peer Header (None for Initiation and Termination) and what follows."""

    kind: int
    peer: Peer | None
    body: bytes  # after the headers: the UPDATE of a Route Monitoring, the TLVs of an Initiation, ...


def _peer(msg: bytes) -> Peer:
    if len(msg) < COMMON + PER_PEER:
        raise WireError(f"BMP Per-Peer Header (RFC 7854 section 4.2): want {PER_PEER} octets, got {len(msg) - COMMON}",
                        COMMON)
    p = msg[COMMON:COMMON + PER_PEER]
    flags = p[1]
    raw = p[10:26]
    addr = ipaddress.IPv6Address(raw) if flags & FLAG_V else ipaddress.IPv4Address(raw[12:])
    return Peer(p[0], flags, bytes(p[2:10]), str(addr), int.from_bytes(p[26:30], "big"),
                str(ipaddress.IPv4Address(p[30:34])), int.from_bytes(p[34:38], "big"), int.from_bytes(p[38:42], "big"))


def parse(msg: bytes) -> Message:
    """A whole BMP message (its Common Header checked by message_length)."""
    kind = msg[5]
    if kind in (INITIATION, TERMINATION):
        return Message(kind, None, msg[COMMON:])
    peer = _peer(msg)
    body = msg[COMMON + PER_PEER:]
    if kind == ROUTE_MONITORING and (len(body) < 19 or int.from_bytes(body[16:18], "big") != len(body)
                                     or body[18] != 2):
        raise WireError("BMP Route Monitoring (RFC 7854 section 4.6): want one whole BGP UPDATE after the Per-Peer "
                        "Header", COMMON + PER_PEER)
    return Message(kind, peer, body)


def tlvs(body: bytes, at: int = 0) -> list[tuple[int, bytes]]:
    """Information TLVs (RFC 7854 section 4.4): (type, value) pairs."""
    out = []
    while at < len(body):
        if at + 4 > len(body):
            raise WireError("BMP Information TLV (RFC 7854 section 4.4): want a 4-octet type and length", at)
        n = int.from_bytes(body[at + 2:at + 4], "big")
        if at + 4 + n > len(body):
            raise WireError(f"BMP Information TLV (RFC 7854 section 4.4): wants {n} octets, got {len(body) - at - 4}", at)
        out.append((int.from_bytes(body[at:at + 2], "big"), body[at + 4:at + 4 + n]))
        at += 4 + n
    return out


def peer_up_local(body: bytes, ipv6: bool) -> str:
    """The local address of a Peer Up Notification (section 4.10)."""
    if len(body) < 20:
        raise WireError(f"BMP Peer Up (RFC 7854 section 4.10): want 20 octets of addresses and ports, got {len(body)}", 0)
    return str(ipaddress.IPv6Address(body[:16]) if ipv6 else ipaddress.IPv4Address(body[12:16]))
