"""BGP4MP (type 16, RFC 6396 section 4.4) and BGP4MP_ET (type 17, section 3) records: what a BGP
speaker sent or received, and its session's state changes.

- BGP4MP_ET: a 4-byte microsecond field starts the message (section 3); the rest is as BGP4MP.
- MESSAGE (1) and MESSAGE_AS4 (4), section 4.4.2 and 4.4.3: peer AS and local AS (2 or 4 bytes),
  interface index, AFI, the two addresses, then a whole BGP message (RFC 4271 section 4.1); only an
  UPDATE carries routes (bgpsim.mrt.update). MESSAGE_LOCAL (6) and MESSAGE_AS4_LOCAL (7), sections
  4.4.5 and 4.4.6: messages the local speaker sent, so the local AS and address are the route's
  peer. The _ADDPATH variants (8-11, RFC 8050 section 3) carry ADD-PATH ids in the NLRI.
- STATE_CHANGE (0) and STATE_CHANGE_AS4 (5), sections 4.4.1 and 4.4.4: old and new state.
- BGP4MP_ENTRY (2): a RIB entry of the MRT draft before RFC 6396 (draft-ietf-grow-mrt), which
  OpenBGPD still writes and bgpdump does not read.
Other subtypes (SNAPSHOT and the like) carry no routes.

A route's `local_as` is the AS that received the message: the header's local AS, or for the _LOCAL
subtypes (sent by the local speaker, so received by the peer) the header's peer AS. BGPsec (RFC 8205
section 4.2) signs each UPDATE for its receiver: this is the Target AS of the newest signature.
"""

from __future__ import annotations

from struct import unpack_from

from bgpsim.wire.nlri import MASK4, MASK6
from bgpsim.wire.update import UPDATE, parse_header
from .framing import BGP4MP_ET, Damage
from .record import FROM_ATTRS, RIB, STATE
from .update import update_groups

ADDRESS_BYTES = {1: 4, 2: 16}  # AFI -> address length
# MESSAGE subtypes (sections 4.4.2, 4.4.3, 4.4.5, 4.4.6; RFC 8050 section 3) -> (ASN size, sent by the local
# speaker, ADD-PATH)
MESSAGE_SUBTYPES = {1: (2, False, False), 4: (4, False, False), 6: (2, True, False), 7: (4, True, False),
                    8: (2, False, True), 9: (4, False, True), 10: (2, True, True), 11: (4, True, True)}


def bgp4mp(dec, ts: int, rtype: int, sub: int, body: bytes):
    """The groups of one BGP4MP or BGP4MP_ET record; `dec` is the file's Decoder."""
    p = 0
    usec = None
    et = rtype == BGP4MP_ET
    if et:
        if len(body) < 4:
            raise Damage(f"BGP4MP_ET (RFC 6396 section 3): want a 4-byte microsecond field, got {len(body)} bytes", 0)
        usec = unpack_from(">I", body, 0)[0]
        p = 4
    record = "BGP4MP_ET" if et else "BGP4MP"
    msg = MESSAGE_SUBTYPES.get(sub)
    if msg is not None:
        asn_size, local, addpath = msg
    elif sub == 0 or sub == 5:
        return _state_change(dec, body, p, record, ts, usec, 2 if sub == 0 else 4)
    elif sub == 2:
        return _entry(dec, body, p, ts, usec)
    else:
        return ()  # SNAPSHOT and the like: no routes
    n = len(body)
    fixed = 2 * asn_size + 4
    if p + fixed > n:
        raise Damage(f"BGP4MP (RFC 6396 section 4.4): want {fixed} header bytes, got {n - p}", p)
    if asn_size == 2:
        peer_as, local_as, _ifindex, afi = unpack_from(">HHHH", body, p)
    else:
        peer_as, local_as, _ifindex, afi = unpack_from(">IIHH", body, p)
    p += fixed
    if afi == 1:
        alen = 4
    elif afi == 2:
        alen = 16
    elif afi == 0xFFFF and _ifindex == 0xFFFF:
        return ()  # Zebra wrote OPEN messages without interface, family or addresses: no routes
    else:
        raise Damage(f"BGP4MP (RFC 6396 section 4.4): want address family 1 or 2, got {afi}", p - 2)
    if p + 2 * alen > n:
        raise Damage(f"BGP4MP (RFC 6396 section 4.4): want two {alen}-byte addresses, got {n - p} bytes", p)
    if local:
        record += "_LOCAL"
        peer_ip, peer_as, local_as = body[p + alen:p + 2 * alen], local_as, peer_as
    else:
        peer_ip = body[p:p + alen]
    if addpath:
        record += "_AP"
    p += 2 * alen
    # RFC 4271 section 4.1 header; parse_header's checks, inline on this hot path
    mend = p + ((body[p + 16] << 8) | body[p + 17]) if n - p >= 19 else 0
    if mend < p + 19 or mend > n:
        parse_header(body, p, n)  # raises its error
    if body[p + 18] != UPDATE:
        return ()
    return update_groups(dec, body, p + 19, mend, record, ts, usec, dec.ip(peer_ip), peer_as, asn_size, addpath,
                         local_as)


def _state_change(dec, body: bytes, p: int, record: str, ts: int, usec: int | None, asn_size: int) -> list:
    """RFC 6396 sections 4.4.1 and 4.4.4: peer AS, local AS, interface index, AFI, the two
    addresses, old state, new state."""
    n = len(body) - p
    if n == 8 and asn_size == 2:
        # Zebra once wrote state changes of 8 bytes: the two ASNs and the states, no interface,
        # family or addresses; bgpdump reads them so and prints 0.0.0.0 as the peer address
        peer_as, local_as, old, new = unpack_from(">HHHH", body, p)
        return [(record, ts, usec, STATE, "0.0.0.0", peer_as, 0, (), (), None, None, None, local_as, old, new)]
    fixed = 2 * asn_size + 4
    if n < fixed:
        raise Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want {fixed} header bytes, got {n}", p)
    peer_as, local_as = unpack_from(">HH" if asn_size == 2 else ">II", body, p)
    afi = unpack_from(">H", body, p + fixed - 2)[0]
    if afi != 1 and afi != 2:
        raise Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want address family 1 or 2, got {afi}",
                     p + fixed - 2)
    alen = 4 if afi == 1 else 16
    if n != fixed + 2 * alen + 4:  # bgpdump takes no other length
        raise Damage(f"BGP4MP_STATE_CHANGE (RFC 6396 section 4.4.1): want {fixed + 2 * alen + 4} bytes for "
                     f"address family {afi}, got {n}", p)
    q = p + fixed
    old, new = unpack_from(">HH", body, q + 2 * alen)
    return [(record, ts, usec, STATE, dec.ip(body[q:q + alen]), peer_as, 0, (), (), None, None, None, local_as,
             old, new)]


def _entry(dec, body: bytes, p: int, ts: int, usec: int | None) -> list:
    """BGP4MP_ENTRY (subtype 2): one RIB entry, from draft-ietf-grow-mrt before RFC 6396 dropped
    it; OpenBGPD still writes it and bgpdump does not read it. Peer AS, local AS, interface
    index, AFI (2 each), two addresses, view and status (2 each), time last changed (4), AFI (2),
    SAFI (1), next-hop length (1), next hop, prefix length (1), prefix, attribute length (2),
    attributes (2-byte ASNs). The draft puts the peer's address first; OpenBGPD, its one writer,
    puts its own first (the same router's TABLE_DUMP_V2 dump names the second as the peer), and
    so we read the second as the peer's."""
    n = len(body)
    if p + 8 > n:
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): want an 8-byte header, got {n - p} bytes", p)
    peer_as, _local_as, _ifindex, afi = unpack_from(">HHHH", body, p)
    alen = ADDRESS_BYTES.get(afi)
    if alen is None:
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): want address family 1 or 2, got {afi}", p + 6)
    q = p + 8 + 2 * alen + 8
    if q + 4 > n:
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): want {q + 4 - p} bytes before the next hop, got {n - p}", p)
    peer = body[p + 8 + alen:p + 8 + 2 * alen]
    afi2, _safi, nh_len = unpack_from(">HBB", body, q)
    plen_max = 8 * ADDRESS_BYTES.get(afi2, 0)
    if not plen_max:
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): want prefix address family 1 or 2, got {afi2}", q)
    q += 4
    if q + nh_len + 1 > n or nh_len not in (0, plen_max // 8, 2 * plen_max // 8):
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): want a next hop of 0, {plen_max // 8} or {plen_max // 4} "
                     f"bytes within the record, got {nh_len}", q - 1)
    nh = dec.ip(body[q:q + plen_max // 8]) if nh_len else FROM_ATTRS  # a global IPv6 one comes first
    q += nh_len
    plen = body[q]
    size = (plen + 7) // 8
    if plen > plen_max or q + 1 + size + 2 > n:
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): want a prefix length <= {plen_max} within the record, "
                     f"got {plen}", q)
    net = int.from_bytes(body[q + 1:q + 1 + size].ljust(plen_max // 8, b"\0"), "big")
    net &= (MASK4 if afi2 == 1 else MASK6)[plen]
    q += 1 + size
    attr_len = unpack_from(">H", body, q)[0]
    q += 2
    if q + attr_len > n:
        raise Damage(f"BGP4MP_ENTRY (draft-ietf-grow-mrt): attribute length {attr_len} wants {attr_len} bytes, "
                     f"got {n - q}", q - 2)
    attrs = dec.attrs(body, q, attr_len, 2)
    return [("BGP4MP_ENTRY", ts, usec, RIB, dec.ip(peer), peer_as, afi2, (net,), (plen,), None, attrs, nh, None)]
