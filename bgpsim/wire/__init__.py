"""BGP wire format: the bytes of BGP messages and their parts, one module per protocol object.

Shared by every reader of BGP bytes (MRT dumps, pcap captures, BGPsec) and by the speaker. Parsers here work on `bytes`
and raise `WireError` with the offset of the fault inside the bytes they were given; a caller that
knows where those bytes sit in a file adds its own base offset and turns the error into an
`InputError` (or a warning, when it can carry on).

- `nlri`        prefixes: RFC 4271 section 4.3, RFC 4760 section 5, RFC 7911 section 3 (ADD-PATH)
- `aspath`      AS_PATH and AS4_PATH: RFC 4271 section 4.3, RFC 5065 section 3, RFC 6793 section 4.2.3
- `communities` COMMUNITIES (RFC 1997) and LARGE_COMMUNITY (RFC 8092)
- `mp`          MP_REACH_NLRI and MP_UNREACH_NLRI: RFC 4760 sections 3 and 4; RFC 6396 section 4.3.4
- `attributes`  the path attribute block: RFC 4271 sections 4.3 and 5.1
- `update`      the message header and the UPDATE message: RFC 4271 sections 4.1 and 4.3
- `open`        the OPEN message and the capabilities a reader needs: RFC 4271 section 4.2, RFC 5492
- `bgpsec`      BGPsec_PATH (type 33) as a reader sees it: RFC 8205 sections 3 and 4.4
- `encode`      the messages a speaker sends: OPEN, KEEPALIVE, UPDATEs (AS_PATH or BGPsec_PATH), withdrawals
- `session`     a speaker's session over asyncio: OPEN checks, hold timer, KEEPALIVEs, NOTIFICATIONs (RFC 4271
                sections 6 and 8)
"""

from __future__ import annotations


class WireError(Exception):
    """Malformed BGP bytes: what was wanted, and the offset of the fault in the bytes parsed."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        return f"byte {self.offset}: {self.message}"


AFI_IPV4 = 1
AFI_IPV6 = 2
