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
from bgpsim.rpki.bgpsec.octets import prefix_bytes
from bgpsim.rpki.bgpsec.update import attribute, message, mp_reach

AS_TRANS = 23456
START = 1_700_000_000.0  # the first packet's time (2023-11-14); fixed, for reproducible bytes


def open_message(asn: int, router_id: str, hold: int = 90, bgpsec: bool = True) -> bytes:
    """An OPEN (RFC 4271 section 4.2) with the capabilities above (RFC 5492 section 4)."""
    caps = b"".join(pack(">BBHBB", 1, 4, afi, 0, 1) for afi in (1, 2))  # multiprotocol, RFC 4760 section 8
    caps += pack(">BBI", 65, 4, asn)  # 4-octet AS, RFC 6793 section 3
    if bgpsec:
        caps += b"".join(Capability(d, afi).encode() for afi in (1, 2) for d in (SEND, RECEIVE))
    params = pack(">BB", 2, len(caps)) + caps
    my_as = asn if asn < 1 << 16 else AS_TRANS
    return message(1, pack(">BHH4sB", 4, my_as, hold, ipaddress.IPv4Address(router_id).packed, len(params)) + params)


KEEPALIVE = message(4, b"")


def unsigned_update(prefix, asns, next_hop, aggregator: tuple[int, str] | None = None,
                    communities: tuple[int, ...] = ()) -> bytes:
    """An UPDATE with AS_PATH (4-octet ASes, RFC 6793; AS_SEQUENCE segments of at most 255, RFC 4271
    section 4.3 b): IPv4 in the NLRI field with NEXT_HOP, IPv6 in MP_REACH_NLRI (RFC 4760 section 3).
    `aggregator` (AS, router address): an aggregate's ATOMIC_AGGREGATE and AGGREGATOR (section 5.1.6,
    5.1.7; 4-octet AS, RFC 6793 section 3); `communities`: a COMMUNITIES attribute (RFC 1997)."""
    segs = b"".join(pack(">BB", 2, len(asns[k:k + 255])) + b"".join(pack(">I", a) for a in asns[k:k + 255])
                    for k in range(0, len(asns), 255))
    attrs = attribute(0x40, 1, b"\x00") + attribute(0x40, 2, segs)
    if prefix.version == 4:
        attrs += attribute(0x40, 3, ipaddress.IPv4Address(next_hop).packed)
    if aggregator is not None:
        attrs += attribute(0x40, 6, b"") + attribute(0xC0, 7, pack(">I", aggregator[0]) +
                                                      ipaddress.IPv4Address(aggregator[1]).packed)
    if communities:
        attrs += attribute(0xC0, 8, b"".join(pack(">I", c) for c in communities))
    if prefix.version == 4:
        return message(2, pack(">HH", 0, len(attrs)) + attrs + prefix_bytes(prefix))
    attrs += mp_reach(prefix, ipaddress.IPv6Address(next_hop))
    return message(2, pack(">HH", 0, len(attrs)) + attrs)


def withdrawal(prefix) -> bytes:
    """An UPDATE withdrawing `prefix`: in Withdrawn Routes for IPv4, MP_UNREACH_NLRI for IPv6."""
    nlri = prefix_bytes(prefix)
    if prefix.version == 4:
        return message(2, pack(">H", len(nlri)) + nlri + pack(">H", 0))
    attrs = attribute(0x80, 15, pack(">HB", 2, 1) + nlri)
    return message(2, pack(">HH", 0, len(attrs)) + attrs)


@dataclass
class Session:
    """One BGP session between `local` (which opens the TCP connection) and `remote`: its messages
    (whole BGP messages, header included) as (seconds after the session opened, sent by local?, bytes)."""

    local_as: int
    remote_as: int
    local_ip: str
    remote_ip: str
    messages: list[tuple[float, bool, bytes]] = field(default_factory=list)
    bgpsec: bool = True


def _packets(s: Session, sport: int):
    """(seconds, frame) of the session: the handshake, OPENs and KEEPALIVEs in its first milliseconds,
    then each message and its acknowledgement."""
    from scapy.layers.inet import IP, TCP
    from scapy.layers.l2 import Ether

    mac_a, mac_b = "02:00:00:00:00:01", "02:00:00:00:00:02"
    a = Ether(src=mac_a, dst=mac_b) / IP(src=s.local_ip, dst=s.remote_ip)
    b = Ether(src=mac_b, dst=mac_a) / IP(src=s.remote_ip, dst=s.local_ip)
    seq_a, seq_b = 1000, 5000
    yield -0.009, a / TCP(sport=sport, dport=179, flags="S", seq=seq_a - 1)
    yield -0.008, b / TCP(sport=179, dport=sport, flags="SA", seq=seq_b - 1, ack=seq_a)
    yield -0.007, a / TCP(sport=sport, dport=179, flags="A", seq=seq_a, ack=seq_b)
    sends = [(-0.006, True, open_message(s.local_as, s.local_ip, bgpsec=s.bgpsec)),
             (-0.005, False, open_message(s.remote_as, s.remote_ip, bgpsec=s.bgpsec)),
             (-0.004, True, KEEPALIVE), (-0.003, False, KEEPALIVE)] + list(s.messages)
    for t, from_local, payload in sends:
        if from_local:
            yield t, a / TCP(sport=sport, dport=179, flags="PA", seq=seq_a, ack=seq_b) / payload
            seq_a += len(payload)
            yield t + 0.0001, b / TCP(sport=179, dport=sport, flags="A", seq=seq_b, ack=seq_a)
        else:
            yield t, b / TCP(sport=179, dport=sport, flags="PA", seq=seq_b, ack=seq_a) / payload
            seq_b += len(payload)
            yield t + 0.0001, a / TCP(sport=sport, dport=179, flags="A", seq=seq_a, ack=seq_b)


def capture_bytes(sessions: list[Session]) -> bytes:
    """The pcap file (Ethernet link type) holding the sessions, their packets in time order (each
    session opens 10 ms before its time 0, which is START)."""
    import io

    from scapy.utils import PcapWriter

    frames = []
    for i, s in enumerate(sessions):
        for n, (t, frame) in enumerate(_packets(s, 40000 + i % 20000)):
            frames.append((t, i, n, frame))
    frames.sort(key=lambda x: x[:3])
    buf = io.BytesIO()
    writer = PcapWriter(buf, linktype=1, sync=True)
    for t, _i, _n, frame in frames:
        frame.time = START + 0.01 + t
        writer.write(frame)
    writer.flush()
    return buf.getvalue()
