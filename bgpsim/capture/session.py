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

from dataclasses import dataclass, field

from bgpsim.wire.encode import KEEPALIVE, open_message

START = 1_700_000_000.0  # the first packet's time (2023-11-14); fixed, for reproducible bytes


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
