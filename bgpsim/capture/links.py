"""Link-layer headers of captured frames, down to the IP packet.

Link types are the tcpdump.org LINKTYPE_ values (pcap file header, pcapng Interface Description Block):
  0 NULL (BSD loopback: a 4-byte address family in host order)   1 ETHERNET (IEEE 802.3; 802.1Q/802.1ad
  tags skipped)   9 PPP (RFC 1661 section 2, with or without the RFC 1662 section 3.1 address/control
  bytes ff 03, protocol field compressed or not; Cisco HDLC frames, which some systems write under this
  link type, are recognised by their address byte 0x0f or 0x8f, as Wireshark does)   50 PPP_HDLC (RFC 1662)   104 C_HDLC (Cisco HDLC:
  address, control, 2-byte EtherType)   12, 14, 101 RAW (the IP header first)   113 LINUX_SLL
  (16 bytes, protocol at 14)   228 IPV4   229 IPV6   276 LINUX_SLL2 (20 bytes, protocol at 0)
  178 JUNIPER_ETHER (Juniper's header: "MGC", a flags byte, with flag 0x80 a 2-byte length of extension
  TLVs and the TLVs; then an Ethernet frame, or with flag 0x02 no layer 2 but a 4-byte little-endian
  payload type: 2 IPv4, 6 IPv6, 3 and 7 the same after MPLS, 4, 5 and 8 an MPLS stack; as Wireshark
  reads it).
MPLS label stacks (RFC 3032 section 2.1; EtherType 0x8847/0x8848, PPP protocol 0x0281/0x0283) are
popped to the bottom-of-stack label; the payload's IP version is read from its first nibble.
scapy dissects only some of these link types into IP (PPP and Cisco HDLC not at all), so the
headers are taken off here and scapy is given the IP packet.
"""

from __future__ import annotations

ETH_IPV4, ETH_IPV6, ETH_MPLS, ETH_MPLS_MC = 0x0800, 0x86DD, 0x8847, 0x8848
_VLAN = (0x8100, 0x88A8, 0x9100)
_PPP = {0x0021: ETH_IPV4, 0x0057: ETH_IPV6, 0x0281: ETH_MPLS, 0x0283: ETH_MPLS_MC}
_CHDLC = (b"\x0f\x00", b"\x8f\x00")  # Cisco HDLC unicast and multicast address, control 0
_BSD_INET6 = (24, 28, 30)  # AF_INET6 on NetBSD/OpenBSD, FreeBSD, macOS
LINK_TYPES = {0, 1, 9, 12, 14, 50, 101, 104, 113, 178, 228, 229, 276}
_JUNIPER = {2: ETH_IPV4, 3: ETH_IPV4, 6: ETH_IPV6, 7: ETH_IPV6, 4: ETH_MPLS, 5: ETH_MPLS, 8: ETH_MPLS}


def _by_version(data: bytes, off: int) -> tuple[int, int] | None:
    if off >= len(data):
        return None
    v = data[off] >> 4
    return ((ETH_IPV4 if v == 4 else ETH_IPV6), off) if v in (4, 6) else None


def ip_start(linktype: int, data: bytes) -> tuple[int, int] | None:
    """(EtherType of the network packet, its offset in `data`), or None when the frame carries no IP."""
    n = len(data)
    if linktype == 1:
        if n < 14:
            return None
        etype, off = (data[12] << 8) | data[13], 14
        while etype in _VLAN and off + 4 <= n:
            etype, off = (data[off + 2] << 8) | data[off + 3], off + 4
    elif linktype in (9, 50) and data[:2] in _CHDLC:  # Cisco HDLC frames under a PPP link type
        return ip_start(104, data)
    elif linktype in (9, 50):
        off = 2 if data[:2] == b"\xff\x03" else 0
        if off >= n:
            return None
        if data[off] & 1:  # RFC 1661 section 6.5: a compressed (1-byte) protocol field is odd
            proto, off = data[off], off + 1
        elif off + 2 <= n:
            proto, off = (data[off] << 8) | data[off + 1], off + 2
        else:
            return None
        etype = _PPP.get(proto)
        if etype is None:
            return None
    elif linktype == 104:
        if n < 4:
            return None
        etype, off = (data[2] << 8) | data[3], 4
    elif linktype == 178:
        if n < 4 or data[:3] != b"MGC":
            return None
        flags, off = data[3], 4
        if flags & 0x80:  # extension TLVs, after their total length
            if n < 6:
                return None
            off = 6 + ((data[4] << 8) | data[5])
        if not flags & 0x02:  # an Ethernet frame follows
            inner = ip_start(1, data[off:])
            return None if inner is None else (inner[0], inner[1] + off)
        if off + 4 > n:
            return None
        etype, off = _JUNIPER.get(int.from_bytes(data[off:off + 4], "little")), off + 4
        if etype is None:
            return None
    elif linktype in (12, 14, 101):
        return _by_version(data, 0)
    elif linktype == 228:
        return (ETH_IPV4, 0)
    elif linktype == 229:
        return (ETH_IPV6, 0)
    elif linktype == 113:
        if n < 16:
            return None
        etype, off = (data[14] << 8) | data[15], 16
    elif linktype == 276:
        if n < 20:
            return None
        etype, off = (data[0] << 8) | data[1], 20
    elif linktype == 0:
        if n < 4:
            return None
        family = int.from_bytes(data[:4], "little")
        if family > 0xFFFF:  # written on a big-endian host
            family = int.from_bytes(data[:4], "big")
        etype = ETH_IPV4 if family == 2 else ETH_IPV6 if family in _BSD_INET6 else None
        if etype is None:
            return None
        off = 4
    else:
        return None
    if etype in (ETH_MPLS, ETH_MPLS_MC):
        while off + 4 <= n:
            bottom = data[off + 2] & 1
            off += 4
            if bottom:
                return _by_version(data, off)
        return None
    if etype in (ETH_IPV4, ETH_IPV6):
        return etype, off
    return None
