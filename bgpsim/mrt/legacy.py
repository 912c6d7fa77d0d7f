"""The deprecated BGP record type (5) of the 1999-2000 RIS dumps (RFC 6396 appendix B), read as
bgpdump reads it.

- BGP_UPDATE (1): peer AS (2 bytes) and address (4), local AS and address, then an UPDATE without
  its 19-byte header (2-byte ASNs, IPv4 only: no multiprotocol extensions are read); the local AS
  is the routes' `local_as`;
- BGP_STATE_CHANGE (3): peer AS and address, old and new state.
Other subtypes (OPEN, NOTIFY, KEEPALIVE and the like) carry no routes.
"""

from __future__ import annotations

from struct import unpack_from

from .framing import Damage
from .record import STATE
from .update import update_groups


def bgp(dec, ts: int, rtype: int, sub: int, body: bytes):
    """The groups of one BGP record; `dec` is the file's Decoder."""
    n = len(body)
    if sub == 3:
        if n < 10:
            raise Damage(f"BGP_STATE_CHANGE (RFC 6396 appendix B): want 10 bytes, got {n}", 0)
        peer_as, old, new = unpack_from(">H4xHH", body, 0)
        return [("BGP", ts, None, STATE, dec.ip(body[2:6]), peer_as, 0, (), (), None, None, None, None, old, new)]
    if sub != 1:
        return ()
    if n < 12:
        raise Damage(f"BGP_UPDATE (RFC 6396 appendix B): want 12 bytes of peer and local AS and address, "
                     f"got {n}", 0)
    return update_groups(dec, body, 12, n, "BGP", ts, None, dec.ip(body[2:6]), (body[0] << 8) | body[1], 2, False,
                         (body[6] << 8) | body[7])
