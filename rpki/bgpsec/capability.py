"""The BGPsec capability of the OPEN message (RFC 8205 section 2.1; IANA capability code 7).

    Version (4 bits, 0) | Direction (1 bit: 0 receive, 1 send) | Reserved (3 bits) | AFI (2 octets)

A speaker advertises one capability per address family and direction (section 2.2); it may send
BGPsec_PATH to a peer that said it receives them for that family, and both must have the 4-octet AS
capability (RFC 6793).
"""

from __future__ import annotations

from struct import pack
from typing import NamedTuple

from .path import BgpsecError

CAPABILITY_CODE = 7
VERSION = 0
RECEIVE, SEND = 0, 1


class Capability(NamedTuple):
    direction: int  # RECEIVE or SEND
    afi: int
    version: int = VERSION

    def encode(self) -> bytes:
        """The whole capability: code, length, value."""
        return pack(">BBBH", CAPABILITY_CODE, 3, (self.version << 4) | (self.direction << 3), self.afi)


def decode_capability(value: bytes) -> Capability:
    """The capability's value (3 octets)."""
    if len(value) != 3:
        raise BgpsecError(f"BGPsec capability: want 3 bytes, got {len(value)}", offset=0, rfc="RFC 8205 section 2.1")
    return Capability((value[0] >> 3) & 1, (value[1] << 8) | value[2], value[0] >> 4)
