"""RIB dump records: TABLE_DUMP (type 12, RFC 6396 section 4.2) and TABLE_DUMP_V2 (type 13, section
4.3) with the ADD-PATH subtypes of RFC 8050 section 4.

- TABLE_DUMP, subtypes AFI_IPv4 (1) and AFI_IPv6 (2): one prefix from one peer per record; 2-byte
  ASNs in the attributes.
- TABLE_DUMP_V2: PEER_INDEX_TABLE (1, section 4.3.1) names the peers once; RIB_IPV4_UNICAST,
  RIB_IPV4_MULTICAST, RIB_IPV6_UNICAST and RIB_IPV6_MULTICAST (2-5, section 4.3.2) hold one prefix
  and its RIB entries (section 4.3.4), each a peer index and the attributes (4-byte ASNs; an
  MP_REACH_NLRI without AFI, SAFI and NLRI, section 4.3.4); the _ADDPATH variants (8-11) add a
  path id to each entry. RIB_GENERIC (6) and GEO_PEER_TABLE (7) carry no routes modelled here.

Each decoder takes the file's Decoder (bgpsim.mrt.decoder: caches, the peer table) and a record's
message, and gives its groups; a fault inside the message raises `Damage` with what was wanted.
A RIB record before any PEER_INDEX_TABLE is an `InputError`: no entry of the file can be read.
"""

from __future__ import annotations

from struct import unpack_from

from bgpsim.base.errors import InputError
from bgpsim.wire.nlri import MASK4, MASK6, address_text
from .framing import Damage
from .record import FROM_ATTRS, RIB


def table_dump(dec, ts: int, rtype: int, sub: int, body: bytes) -> list:
    """RFC 6396 section 4.2: view, sequence, prefix, length, status, originated time, peer address
    and AS, attributes."""
    if sub == 1:
        alen, fmt = 4, ">HH4sBBI4sHH"
    elif sub == 2:
        alen, fmt = 16, ">HH16sBBI16sHH"
    else:
        raise Damage(f"TABLE_DUMP (RFC 6396 section 4.2): want subtype 1 (AFI_IPv4) or 2 (AFI_IPv6), got {sub}", 0)
    fixed = 2 + 2 + alen + 1 + 1 + 4 + alen + 2 + 2
    if len(body) < fixed:
        raise Damage(f"TABLE_DUMP (RFC 6396 section 4.2): want at least {fixed} bytes, got {len(body)}", 0)
    _view, _seq, pfx, plen, _status, _orig, peer, peer_as, attr_len = unpack_from(fmt, body, 0)
    if plen > alen * 8:
        raise Damage(f"TABLE_DUMP (RFC 6396 section 4.2): want a prefix length <= {alen * 8}, got {plen}", 2 + 2 + alen)
    if fixed + attr_len > len(body):
        raise Damage(f"TABLE_DUMP (RFC 6396 section 4.2): attribute length {attr_len} wants {attr_len} bytes, "
                     f"got {len(body) - fixed}", fixed - 2)
    attrs = dec.attrs(body, fixed, attr_len, 2)
    nh = FROM_ATTRS
    if attrs.mp_reach is not None and attrs.mp_reach[0] == 2:
        nh = attrs.mp_reach[3]
    net = int.from_bytes(pfx, "big") & (MASK4 if sub == 1 else MASK6)[plen]
    return [("TABLE_DUMP", ts, None, RIB, dec.ip(peer), peer_as, sub, (net,), (plen,), None, attrs, nh, None)]


def table_dump_v2(dec, ts: int, rtype: int, sub: int, body: bytes) -> list | tuple:
    """RFC 6396 section 4.3 (and RFC 8050 section 4): a PEER_INDEX_TABLE is kept in `dec.peers`;
    a RIB record gives one group per entry."""
    if sub == 1:
        dec.peers = peer_index(body)
        return ()
    if 2 <= sub <= 5 or 8 <= sub <= 11:
        afi = 1 if sub in (2, 3, 8, 9) else 2
        addpath = sub >= 8
    else:
        return ()  # RIB_GENERIC (6), GEO_PEER_TABLE (7): no routes we model
    if dec.peers is None:
        raise InputError("TABLE_DUMP_V2 RIB record (RFC 6396 section 4.3.2) before any PEER_INDEX_TABLE "
                         "(section 4.3.1): want the peer table first", dec.path, f"byte {dec.at}")
    # section 4.3.2: sequence number (4), prefix length, prefix, entry count (2)
    n = len(body)
    if n < 5:
        raise Damage(f"RIB record (RFC 6396 section 4.3.2): want at least 5 bytes, got {n}", 0)
    plen = body[4]
    if plen > (32 if afi == 1 else 128):
        raise Damage(f"RIB record (RFC 6396 section 4.3.2): want a prefix length <= {32 if afi == 1 else 128}, got {plen}", 4)
    pb = (plen + 7) >> 3
    p = 5 + pb
    if p + 2 > n:
        raise Damage(f"RIB record (RFC 6396 section 4.3.2): /{plen} and the entry count want {pb + 2} bytes, got {n - 5}", 5)
    width = 4 if afi == 1 else 16
    net = ((int.from_bytes(body[5:p], "big") << (8 * (width - pb))) & (MASK4 if afi == 1 else MASK6)[plen],)
    plens = (plen,)
    count = (body[p] << 8) | body[p + 1]
    p += 2
    record = "TABLE_DUMP2_AP" if addpath else "TABLE_DUMP2"
    peers = dec.peers
    npeers = len(peers)
    attrs_of = dec.attrs
    out = []
    # section 4.3.4: peer index (2), originated time (4), [RFC 8050 section 4: path id (4)], attributes
    hdr = 10 if addpath else 6
    for _ in range(count):
        if p + hdr + 2 > n:
            raise Damage(f"RIB entry (RFC 6396 section 4.3.4): want {hdr + 2} header bytes, got {n - p}", p)
        idx = (body[p] << 8) | body[p + 1]
        pid = unpack_from(">I", body, p + 6) if addpath else None
        alen = (body[p + hdr] << 8) | body[p + hdr + 1]
        a = p + hdr + 2
        if a + alen > n:
            raise Damage(f"RIB entry (RFC 6396 section 4.3.4): attribute length {alen} wants {alen} bytes, got {n - a}", p + hdr)
        if idx >= npeers:
            raise Damage(f"RIB entry (RFC 6396 section 4.3.4): want a peer index < {npeers}, got {idx}", p)
        attrs = attrs_of(body, a, alen, 4, afi)
        mp = attrs.mp_reach
        peer_ip, peer_as = peers[idx]
        out.append((record, ts, None, RIB, peer_ip, peer_as, afi, net, plens, pid, attrs,
                    mp[3] if mp is not None else FROM_ATTRS, None))
        p = a + alen
    return out


def peer_index(body: bytes) -> list[tuple[str, int]]:
    """The (address, AS) pairs of a PEER_INDEX_TABLE (RFC 6396 section 4.3.1): collector BGP ID (4),
    view name length (2) and name, peer count (2), then each peer's type, BGP ID (4), address (4 or
    16 bytes: type bit 0) and AS (2 or 4 bytes: type bit 1)."""
    n = len(body)
    if n < 8:
        raise Damage(f"PEER_INDEX_TABLE (RFC 6396 section 4.3.1): want at least 8 bytes, got {n}", 0)
    vlen = (body[4] << 8) | body[5]
    p = 6 + vlen
    if p + 2 > n:
        raise Damage(f"PEER_INDEX_TABLE (RFC 6396 section 4.3.1): view name of {vlen} bytes and the peer count "
                     f"want {vlen + 2} bytes, got {n - 6}", 4)
    count = (body[p] << 8) | body[p + 1]
    p += 2
    peers = []
    for _ in range(count):
        if p + 1 > n:
            raise Damage("PEER_INDEX_TABLE (RFC 6396 section 4.3.1): want a peer entry, got the end", p)
        ptype = body[p]
        ilen = 16 if ptype & 1 else 4
        aslen = 4 if ptype & 2 else 2
        need = 1 + 4 + ilen + aslen
        if p + need > n:
            raise Damage(f"PEER_INDEX_TABLE (RFC 6396 section 4.3.1): peer entry of type {ptype} wants {need} bytes, "
                         f"got {n - p}", p)
        ip = address_text(body[p + 5:p + 5 + ilen])
        asn = unpack_from(">I" if aslen == 4 else ">H", body, p + 5 + ilen)[0]
        peers.append((ip, asn))
        p += need
    return peers
