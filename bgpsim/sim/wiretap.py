"""The BGP sessions of chosen ASes, recorded as the timed engine runs and written as a packet capture
(`bgpsim run --pcap FILE`): Wireshark and tshark open it, and `bgpsim dump` and `bgpsim bgpsec verify`
read it back.

Every UPDATE sent over a session with a chosen AS at one end is recorded at the simulated time it is
sent; a warm start's routes at time 0, as if sent then. An announcement carries the AS path as AS_PATH,
or, under crypto between two adopters, the BGPsec_PATH the sender signed (RFC 8205 section 3); an
aggregate's, ATOMIC_AGGREGATE and AGGREGATOR; an origin's tagged route, its community. A withdrawal
lists the prefix. The OPENs advertise the BGPsec capability where both ends adopt.
Addresses are made up, one per AS: 100.64.0.0/10 (RFC 6598) for IPv4 sessions and next hops,
2001:db8::/32 (RFC 3849) for IPv6 next hops.
"""

from __future__ import annotations

import ipaddress

from bgpsim.capture.session import Session, capture_bytes
from bgpsim.wire.communities import BLACKHOLE, NO_ADVERTISE, NO_EXPORT
from bgpsim.wire.encode import bgpsec_update, unsigned_update, withdrawal

# RFC 7999 section 3.2: a blackholed route also carries NO_EXPORT, so that it stays with the receiver
COMMUNITY_VALUES = {"no-export": (NO_EXPORT,), "no-advertise": (NO_ADVERTISE,), "blackhole": (BLACKHOLE, NO_EXPORT)}

_V4 = int(ipaddress.IPv4Address("100.64.0.0"))
_V6 = int(ipaddress.IPv6Address("2001:db8::"))


def address(i: int, version: int = 4) -> str:
    """AS index i's made-up address: 100.64.0.0/10 + 1 + i, or 2001:db8::/32 + 1 + i for IPv6 next hops
    (`run --pcap` captures and `run --publish` feeds name the same router the same way)."""
    return str(ipaddress.IPv4Address(_V4 + 1 + i) if version == 4 else ipaddress.IPv6Address(_V6 + 1 + i))


class Wiretap:
    """What `watched` ASes (indices) send and receive, session by session."""

    def __init__(self, topo, prefixes, watched, bgpsec=None, tagged=None, aggregates=None):
        self.asns = topo.asns
        self.prefixes = prefixes
        self.watched = frozenset(watched)
        self.bgpsec = bgpsec  # index -> speaks BGPsec (adopts, under crypto); None: nobody does
        self.tagged = {} if tagged is None else tagged  # the engine's: (p, origin) -> community
        self.aggregates = {} if aggregates is None else aggregates  # the engine's: (p, aggregator) -> ...
        self.sessions: dict[tuple[int, int], Session] = {}
        self.updates = 0

    def sent(self, t: float, r: int, j: int, p: int, path, signed) -> None:
        """r sends j an UPDATE for prefix p at time t: `path` (r first) announced, or None withdrawn."""
        if r not in self.watched and j not in self.watched:
            return
        a, b = (r, j) if r < j else (j, r)
        s = self.sessions.get((a, b))
        if s is None:
            both = self.bgpsec is not None and bool(self.bgpsec[a]) and bool(self.bgpsec[b])
            s = self.sessions[(a, b)] = Session(int(self.asns[a]), int(self.asns[b]), address(a),
                                                address(b), bgpsec=both)
        prefix = self.prefixes[p]
        if path is None:
            msg = withdrawal(prefix)
        elif signed is not None:
            msg = bgpsec_update(signed, prefix, ipaddress.ip_address(address(r, prefix.version)))
        else:
            origin = path[-1]
            tag = self.tagged.get((p, origin)) if origin == r else None
            aggregator = (int(self.asns[origin]), address(origin)) if (p, origin) in self.aggregates else None
            msg = unsigned_update(prefix, [int(self.asns[x]) for x in path], address(r, prefix.version),
                                  aggregator, COMMUNITY_VALUES[tag] if tag else ())
        s.messages.append((t, r == a, msg))
        self.updates += 1

    def capture(self) -> bytes:
        return capture_bytes([self.sessions[k] for k in sorted(self.sessions)])
