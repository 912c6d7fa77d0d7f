"""MRT records of a BGP session, as a speaker records what it hears (RFC 6396 section 4.4).

BGP4MP_ET (type 17: the Extended Timestamp header adds microseconds, section 3): BGP4MP_MESSAGE_AS4
(subtype 4) holds one whole BGP message between two 4-octet AS speakers (BGP4MP_MESSAGE, subtype 1,
one between 2-octet ones, an AS beyond them written AS_TRANS), BGP4MP_STATE_CHANGE_AS4
(subtype 5) a change of the session's state (section 4.4.1: 1 Idle ... 6 Established). Both name the
peer (AS and address) and the local speaker, interface index 0. RFC 8050 section 3: a message whose
prefixes carry ADD-PATH's path identifiers is BGP4MP_MESSAGE_AS4_ADDPATH (subtype 9; 8 between 2-octet
AS speakers). bgpdump and `bgpsim dump` read them.
"""

from __future__ import annotations

import ipaddress
import time
from struct import pack

BGP4MP_ET = 17
MESSAGE, MESSAGE_AS4, STATE_CHANGE_AS4, MESSAGE_ADDPATH, MESSAGE_AS4_ADDPATH = 1, 4, 5, 8, 9
AS_TRANS = 23456
IDLE, CONNECT, ACTIVE, OPENSENT, OPENCONFIRM, ESTABLISHED = 1, 2, 3, 4, 5, 6


def now() -> tuple[int, int]:
    """The time as MRT's Extended Timestamp gives it: (seconds, microseconds)."""
    return divmod(time.time_ns() // 1000, 1_000_000)


def _record(when: tuple[int, int], subtype: int, peer_as: int, local_as: int, peer_ip: str, local_ip: str,
            data: bytes) -> bytes:
    peer, local = ipaddress.ip_address(peer_ip), ipaddress.ip_address(local_ip)
    if peer.version != local.version:
        raise ValueError(f"MRT BGP4MP: peer {peer} and local {local} addresses of two families")
    afi = 1 if peer.version == 4 else 2
    if subtype in (MESSAGE, MESSAGE_ADDPATH):
        ases = pack(">HH", *(a if a < 1 << 16 else AS_TRANS for a in (peer_as, local_as)))
    else:
        ases = pack(">II", peer_as, local_as)
    body = ases + pack(">HH", 0, afi) + peer.packed + local.packed + data
    return pack(">IHHII", when[0], BGP4MP_ET, subtype, len(body) + 4, when[1]) + body


def message_record(when: tuple[int, int], peer_as: int, local_as: int, peer_ip: str, local_ip: str, msg: bytes,
                   as4: bool = True, add_path: bool = False) -> bytes:
    """BGP4MP_ET MESSAGE_AS4 (MESSAGE when not `as4`; their _ADDPATH twins with `add_path`): the whole
    message `msg` (header included) the peer sent at `when` (seconds, microseconds)."""
    subtype = (MESSAGE_AS4_ADDPATH if as4 else MESSAGE_ADDPATH) if add_path else (MESSAGE_AS4 if as4 else MESSAGE)
    return _record(when, subtype, peer_as, local_as, peer_ip, local_ip, msg)


def state_record(when: tuple[int, int], peer_as: int, local_as: int, peer_ip: str, local_ip: str, old: int,
                 new: int) -> bytes:
    """BGP4MP_ET STATE_CHANGE_AS4 from state `old` to `new`."""
    return _record(when, STATE_CHANGE_AS4, peer_as, local_as, peer_ip, local_ip, pack(">HH", old, new))
