"""BGP sessions written as a packet capture that Wireshark and tshark open (and our reader reads).

Each session is one TCP connection on port 179 between two routers: the three-way handshake, an OPEN
from each side (RFC 4271 section 4.2) with the capabilities a BGPsec speaker advertises — multiprotocol
IPv4 and IPv6 unicast (RFC 4760 section 8), 4-octet AS (RFC 6793 section 3), and BGPsec send and
receive for both families (RFC 8205 section 2.1) — a KEEPALIVE from each side, then the given
messages from the first router to the second, each acknowledged. Packets are built with scapy;
timestamps are fixed (a start time plus a millisecond per packet), so the same sessions give the same
bytes.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from struct import pack

from bgpsim.rpki.bgpsec.capability import RECEIVE, SEND, Capability

AS_TRANS = 23456
MARKER = b"\xff" * 16
START = 1_700_000_000.0  # the first packet's time (2023-11-14); fixed, for reproducible bytes


def _message(kind: int, body: bytes) -> bytes:
    return MARKER + pack(">HB", 19 + len(body), kind) + body


def open_message(asn: int, router_id: str, hold: int = 90, bgpsec: bool = True) -> bytes:
    """An OPEN (RFC 4271 section 4.2) with the capabilities above (RFC 5492 section 4)."""
    caps = b"".join(pack(">BBHBB", 1, 4, afi, 0, 1) for afi in (1, 2))  # multiprotocol, RFC 4760 section 8
    caps += pack(">BBI", 65, 4, asn)  # 4-octet AS, RFC 6793 section 3
    if bgpsec:
        caps += b"".join(Capability(d, afi).encode() for afi in (1, 2) for d in (SEND, RECEIVE))
    params = pack(">BB", 2, len(caps)) + caps
    my_as = asn if asn < 1 << 16 else AS_TRANS
    return _message(1, pack(">BHH4sB", 4, my_as, hold, ipaddress.IPv4Address(router_id).packed, len(params)) + params)


KEEPALIVE = _message(4, b"")


@dataclass
class Session:
    """Messages (whole BGP messages, header included) sent by `local` to `remote` over one session."""

    local_as: int
    remote_as: int
    local_ip: str
    remote_ip: str
    messages: list[bytes] = field(default_factory=list)
    bgpsec: bool = True


def _packets(s: Session, sport: int):
    from scapy.layers.inet import IP, TCP

    from scapy.layers.l2 import Ether

    mac_a, mac_b = "02:00:00:00:00:01", "02:00:00:00:00:02"
    a = Ether(src=mac_a, dst=mac_b) / IP(src=s.local_ip, dst=s.remote_ip)
    b = Ether(src=mac_b, dst=mac_a) / IP(src=s.remote_ip, dst=s.local_ip)
    seq_a, seq_b = 1000, 5000
    yield a / TCP(sport=sport, dport=179, flags="S", seq=seq_a - 1)
    yield b / TCP(sport=179, dport=sport, flags="SA", seq=seq_b - 1, ack=seq_a)
    yield a / TCP(sport=sport, dport=179, flags="A", seq=seq_a, ack=seq_b)
    sends = [(True, open_message(s.local_as, s.local_ip, bgpsec=s.bgpsec)),
             (False, open_message(s.remote_as, s.remote_ip, bgpsec=s.bgpsec)),
             (True, KEEPALIVE), (False, KEEPALIVE)] + [(True, m) for m in s.messages]
    for from_local, payload in sends:
        if from_local:
            yield a / TCP(sport=sport, dport=179, flags="PA", seq=seq_a, ack=seq_b) / payload
            seq_a += len(payload)
            yield b / TCP(sport=179, dport=sport, flags="A", seq=seq_b, ack=seq_a)
        else:
            yield b / TCP(sport=179, dport=sport, flags="PA", seq=seq_b, ack=seq_a) / payload
            seq_b += len(payload)
            yield a / TCP(sport=sport, dport=179, flags="A", seq=seq_a, ack=seq_b)


def capture_bytes(sessions: list[Session]) -> bytes:
    """The pcap file (Ethernet link type) holding the sessions one after the other."""
    import io

    from scapy.utils import PcapWriter

    buf = io.BytesIO()
    writer = PcapWriter(buf, linktype=1, sync=True)
    t = START
    for i, s in enumerate(sessions):
        for frame in _packets(s, 40000 + i % 20000):
            frame.time = t
            writer.write(frame)
            t += 0.001
    writer.flush()
    return buf.getvalue()
