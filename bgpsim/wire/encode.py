"""The messages a BGP speaker sends, encoded: the header (RFC 4271 section 4.1), OPEN with the
capabilities a BGPsec speaker advertises (section 4.2; RFC 5492), KEEPALIVE (section 4.4), ROUTE-REFRESH (RFC 2918), UPDATEs
with an AS_PATH (section 4.3; 4-octet ASes, RFC 6793) or a BGPsec_PATH (RFC 8205 section 3), and
withdrawals (MP_UNREACH_NLRI for IPv6, RFC 4760 section 4), NOTIFICATION (section 4.5). The decoders are beside them
(bgpsim.wire.update, .open, .attributes).

A BGPsec UPDATE carries its prefix in MP_REACH_NLRI for IPv4 as for IPv6 (RFC 4760 section 3), one
prefix per UPDATE, because each signature covers exactly one prefix (RFC 8205 section 4.1); there is
no AS_PATH, the BGPsec_PATH stands for it. Attributes in type order: ORIGIN, MP_REACH_NLRI,
BGPsec_PATH.
"""

from __future__ import annotations

import ipaddress
from struct import pack

from bgpsim.rpki.bgpsec.capability import RECEIVE, SEND, Capability
from bgpsim.rpki.bgpsec.octets import AFI, SAFI_UNICAST, Prefix, prefix_bytes
from bgpsim.rpki.bgpsec.path import BgpsecPath

from .aspath import AS_TRANS
from .update import HEADER, NOTIFICATION, OPEN, ROUTE_REFRESH, UPDATE
from .update import KEEPALIVE as KEEPALIVE_TYPE

MARKER = b"\xff" * 16
MAX_MESSAGE = 4096  # RFC 4271 section 4.1 (RFC 8654 raises it to 65535 after an Extended Message capability)
ORIGIN_IGP = 0


def message(kind: int, body: bytes) -> bytes:
    """A BGP message: marker, length, type (RFC 4271 section 4.1), then `body`."""
    return MARKER + pack(">HB", HEADER + len(body), kind) + body


def attribute(flags: int, code: int, value: bytes) -> bytes:
    """A path attribute (RFC 4271 section 4.3): Extended Length when the value needs it."""
    if len(value) > 255:
        return pack(">BBH", flags | 0x10, code, len(value)) + value
    return pack(">BBB", flags, code, len(value)) + value


def _reach_head(afi: int, next_hop: bytes) -> bytes:
    """MP_REACH_NLRI's value up to its NLRI (RFC 4760 section 3): AFI, SAFI, the next hop, the reserved octet."""
    return pack(">HBB", afi, SAFI_UNICAST, len(next_hop)) + next_hop + b"\x00"


def mp_reach(prefix: Prefix, next_hop: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bytes:
    """MP_REACH_NLRI (RFC 4760 section 3) for one prefix."""
    return attribute(0x80, 14, _reach_head(AFI[prefix.version], next_hop.packed) + prefix_bytes(prefix))


def bgpsec_update(path: BgpsecPath, prefix: Prefix, next_hop, origin: int = ORIGIN_IGP) -> bytes:
    """The whole BGPsec UPDATE (header included) announcing `prefix` with `path`."""
    attrs = attribute(0x40, 1, bytes([origin])) + mp_reach(prefix, next_hop) + path.attribute()
    body = pack(">HH", 0, len(attrs)) + attrs
    if HEADER + len(body) > MAX_MESSAGE:
        raise ValueError(f"the UPDATE would be {HEADER + len(body)} bytes; BGP allows {MAX_MESSAGE} "
                         "(RFC 4271 section 4.1)")
    return message(UPDATE, body)


def open_message(asn: int, router_id: str, hold: int = 90, bgpsec: bool = True, add_path: bool = False) -> bytes:
    """An OPEN (RFC 4271 section 4.2) with its capabilities (RFC 5492 section 4): multiprotocol IPv4 and
    IPv6 unicast, route refresh, the 4-octet AS; with `add_path`, ADD-PATH receive for both families;
    with `bgpsec` the BGPsec capability both ways for both families."""
    caps = b"".join(pack(">BBHBB", 1, 4, afi, 0, 1) for afi in (1, 2))  # multiprotocol, RFC 4760 section 8
    caps += pack(">BB", 2, 0)  # route refresh, RFC 2918 section 2
    caps += pack(">BBI", 65, 4, asn)  # 4-octet AS, RFC 6793 section 3
    if add_path:  # RFC 7911 section 4: (AFI, SAFI, Send/Receive 1: receive) for each family
        caps += pack(">BB", 69, 8) + b"".join(pack(">HBB", afi, 1, 1) for afi in (1, 2))
    if bgpsec:
        caps += b"".join(Capability(d, afi).encode() for afi in (1, 2) for d in (SEND, RECEIVE))
    params = pack(">BB", 2, len(caps)) + caps
    my_as = asn if asn < 1 << 16 else AS_TRANS
    return message(OPEN, pack(">BHH4sB", 4, my_as, hold, ipaddress.IPv4Address(router_id).packed, len(params))
                   + params)


KEEPALIVE = message(KEEPALIVE_TYPE, b"")


def notification(code: int, subcode: int, data: bytes = b"") -> bytes:
    """A NOTIFICATION (RFC 4271 section 4.5)."""
    return message(NOTIFICATION, bytes([code, subcode]) + data)


def unsigned_update(prefix, asns, next_hop, aggregator: tuple[int, str] | None = None,
                    communities: tuple[int, ...] = ()) -> bytes:
    """An UPDATE with AS_PATH (4-octet ASes, RFC 6793; AS_SEQUENCE segments of at most 255, RFC 4271
    section 4.3 b): IPv4 in the NLRI field with NEXT_HOP, IPv6 in MP_REACH_NLRI (RFC 4760 section 3).
    `aggregator` (AS, router address): an aggregate's ATOMIC_AGGREGATE and AGGREGATOR (section 5.1.6,
    5.1.7; 4-octet AS, RFC 6793 section 3); `communities`: a COMMUNITIES attribute (RFC 1997)."""
    attrs = path_attributes(0, [(2, asns)], next_hop if prefix.version == 4 else None, atomic=aggregator is not None,
                            aggregator=aggregator, communities=communities)
    if prefix.version == 4:
        return message(UPDATE, pack(">HH", 0, len(attrs)) + attrs + prefix_bytes(prefix))
    attrs += mp_reach(prefix, ipaddress.IPv6Address(next_hop))
    return message(UPDATE, pack(">HH", 0, len(attrs)) + attrs)


def as_path(segments) -> bytes:
    """An AS_PATH value of 4-octet ASes (RFC 4271 section 4.3 b, RFC 6793): (type, ASes) segments,
    each cut into runs of at most 255."""
    out = []
    for stype, asns in segments:
        for k in range(0, len(asns), 255):
            run = asns[k:k + 255]
            out.append(pack(">BB%dI" % len(run), stype, len(run), *run))
    return b"".join(out)


def path_attributes(origin: int, segments, next_hop: str | None = None, med: int | None = None,
                    local_pref: int | None = None, atomic: bool = False, aggregator: tuple[int, str] | None = None,
                    communities: tuple[int, ...] = (), large: tuple[tuple[int, int, int], ...] = ()) -> bytes:
    """A path attribute block without MP_REACH_NLRI, in type order (RFC 4271 section 5: ORIGIN,
    AS_PATH, NEXT_HOP for IPv4 NLRI, MED, LOCAL_PREF, ATOMIC_AGGREGATE, AGGREGATOR; COMMUNITIES, RFC
    1997; LARGE_COMMUNITY, RFC 8092)."""
    out = attribute(0x40, 1, bytes([origin])) + attribute(0x40, 2, as_path(segments))
    if next_hop is not None:
        out += attribute(0x40, 3, ipaddress.IPv4Address(next_hop).packed)
    if med is not None:
        out += attribute(0x80, 4, pack(">I", med))
    if local_pref is not None:
        out += attribute(0x40, 5, pack(">I", local_pref))
    if atomic:
        out += attribute(0x40, 6, b"")
    if aggregator is not None:
        out += attribute(0xC0, 7, pack(">I", aggregator[0]) + ipaddress.IPv4Address(aggregator[1]).packed)
    if communities:
        out += attribute(0xC0, 8, pack(">%dI" % len(communities), *communities))
    if large:
        out += attribute(0xC0, 32, b"".join(pack(">III", *c) for c in large))
    return out


def _packed(fixed: int, nlri: list[bytes]):
    """Runs of NLRI that fit beside `fixed` bytes in one message (RFC 4271 section 4.1's 4096)."""
    run, size = [], fixed
    for n in nlri:
        if run and size + len(n) > MAX_MESSAGE:
            yield b"".join(run)
            run, size = [], fixed
        run.append(n)
        size += len(n)
    if run:
        yield b"".join(run)


def announcements(attrs: bytes, afi: int, nlri: list[bytes], next_hop: str | None = None):
    """UPDATEs announcing the prefixes `nlri` (each as prefix_bytes encodes it) with the attribute block
    `attrs` (path_attributes), as few as fit: IPv4 in the NLRI field (attrs carry NEXT_HOP), IPv6 in
    MP_REACH_NLRI with `next_hop` (RFC 4760 section 3), placed first as RFC 7606 section 5.1 asks."""
    if afi == 1:
        for run in _packed(HEADER + 4 + len(attrs), nlri):
            yield message(UPDATE, pack(">HH", 0, len(attrs)) + attrs + run)
        return
    head = _reach_head(2, ipaddress.IPv6Address(next_hop).packed)
    for run in _packed(HEADER + 4 + len(attrs) + 4 + len(head), nlri):
        block = attribute(0x80, 14, head + run) + attrs
        yield message(UPDATE, pack(">HH", 0, len(block)) + block)


def withdrawals(afi: int, nlri: list[bytes]):
    """UPDATEs withdrawing the prefixes `nlri`: IPv4 in Withdrawn Routes, IPv6 in MP_UNREACH_NLRI."""
    if afi == 1:
        for run in _packed(HEADER + 4, nlri):
            yield message(UPDATE, pack(">H", len(run)) + run + pack(">H", 0))
        return
    for run in _packed(HEADER + 4 + 4 + 3, nlri):
        block = attribute(0x80, 15, pack(">HB", 2, SAFI_UNICAST) + run)
        yield message(UPDATE, pack(">HH", 0, len(block)) + block)


def route_refresh(afi: int, safi: int = 1) -> bytes:
    """A ROUTE-REFRESH (RFC 2918 section 3)."""
    return message(ROUTE_REFRESH, pack(">HBB", afi, 0, safi))


def withdrawal(prefix) -> bytes:
    """An UPDATE withdrawing `prefix` (withdrawals, one prefix)."""
    return next(withdrawals(AFI[prefix.version], [prefix_bytes(prefix)]))
