"""The octets each BGPsec signer hashes (RFC 8205 section 4.2).

For the signer of Secure_Path Segment k (1 = origin, N = most recent), all big-endian:

    Target AS (4) | Signature Segment k-1 | Secure_Path Segment k | Signature Segment k-2 | ...
      | Signature Segment 1 | Secure_Path Segment 2 | Secure_Path Segment 1
      | Algorithm Suite ID (1) | AFI (2) | SAFI (1) | NLRI (prefix length in bits, then its octets)

The target AS of signer k is the AS of segment k+1, and the last four octets of that segment; so the
octets signer k hashes are a suffix of those signer k+1 hashes. As rtrlib does, `Octets` builds the
stream for the most recent signer once and hands out each signer's suffix: one buffer for N signatures.
"""

from __future__ import annotations

import ipaddress
from struct import pack

from .path import Segment, Signature

AFI = {4: 1, 6: 2}
SAFI_UNICAST = 1

Prefix = ipaddress.IPv4Network | ipaddress.IPv6Network


def prefix_bytes(prefix: Prefix) -> bytes:
    """One prefix as NLRI encodes it (RFC 4271 section 4.3, RFC 4760 section 5): the length in bits, then
    just enough octets to hold it."""
    n = prefix.prefixlen
    return bytes([n]) + prefix.network_address.packed[:(n + 7) // 8]


def nlri(prefix: Prefix) -> bytes:
    """AFI, SAFI and the NLRI of one prefix, as section 4.2 ends the stream."""
    return pack(">HB", AFI[prefix.version], SAFI_UNICAST) + prefix_bytes(prefix)


class Octets:
    """The signed octets of every signer of one path, for one algorithm suite.

    `segments` runs most recent first, as the attribute carries it; `older` holds the signatures of
    `segments[1:]` (the most recent signer's own signature is not part of any stream)."""

    __slots__ = ("stream", "starts")

    def __init__(self, target_as: int, segments: tuple[Segment, ...], older: tuple[Signature, ...],
                 suite: int, prefix: Prefix):
        n = len(segments)
        parts = [pack(">I", target_as)]
        starts = [0] * n  # where signer k's octets begin, k counted from the most recent (0)
        at = 4
        for k in range(n - 1):  # newest first: the next older signer's Signature Segment, then Segment k
            sig = older[k].encode()
            seg = segments[k].encode()
            parts += (sig, seg)
            at += len(sig) + len(seg)
            starts[k + 1] = at - 4  # the AS of segment k is the target of signer k+1
        parts += (segments[n - 1].encode(), pack(">B", suite), nlri(prefix))
        self.stream = b"".join(parts)
        self.starts = starts

    def of(self, k: int) -> bytes:
        """The octets the k-th signer (0 = the most recent) hashes."""
        return self.stream[self.starts[k]:] if k else self.stream
