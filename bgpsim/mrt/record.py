"""One route record: one prefix from one peer, as read from an MRT dump (RFC 6396)."""

from __future__ import annotations

import ipaddress

from bgpsim.wire.attributes import NO_PATH, Attrs
from bgpsim.wire.nlri import network_text

ANNOUNCE, WITHDRAW, RIB, STATE = "announce", "withdraw", "rib", "state"
FROM_ATTRS = object()  # next_hop: NEXT_HOP of `attrs` (an IPv4 NLRI prefix), read when asked for

_FIELDS = ("record", "time", "usec", "kind", "peer_ip", "peer_as", "prefix", "path_id", "attrs", "next_hop",
           "old_state", "new_state", "local_as")


class Route:
    """`record` is the MRT record's name as bgpdump prints it (TABLE_DUMP, TABLE_DUMP2, TABLE_DUMP2_AP,
    BGP, BGP4MP, BGP4MP_ET, BGP4MP_AP, ...); `usec` is set for the _ET types (RFC 6396 section 3) only.
    `attrs` is shared between routes with the same attribute bytes; `next_hop` is the one that applies
    to this prefix (NEXT_HOP for IPv4 NLRI, the MP_REACH_NLRI next hop otherwise). A state change has
    no prefix and carries `old_state` and `new_state` (RFC 6396 section 4.4.1).

    `local_as` is the AS that received the message: the BGP4MP header's local AS (its peer AS for the
    _LOCAL subtypes, which the local speaker sent), the receiving side's AS from its OPEN in a
    capture; None when unknown, for RIB entries (TABLE_DUMP, TABLE_DUMP_V2, BGP4MP_ENTRY) and for
    text dumps. For a BGPsec UPDATE it is the Target AS of the newest signature (RFC 8205 section 4.2).

    The prefix is there both as text (`prefix`) and as numbers (`afi` 1 or 2, `network` the address
    as an integer, `plen`); the MRT reader fills in the numbers and the text is made when first read."""

    __slots__ = ("record", "time", "usec", "kind", "peer_ip", "peer_as", "path_id", "attrs", "old_state",
                 "new_state", "local_as", "_prefix", "_net", "_nh")

    def __init__(self, record: str, time: int, usec: int | None, kind: str, peer_ip: str, peer_as: int,
                 prefix: str | None = None, path_id: int | None = None, attrs: Attrs | None = None,
                 next_hop: str | None = None, old_state: int | None = None, new_state: int | None = None,
                 local_as: int | None = None):
        self.record = record
        self.time = time
        self.usec = usec
        self.kind = kind
        self.peer_ip = peer_ip
        self.peer_as = peer_as
        self._prefix = prefix
        self._net = None
        self.path_id = path_id
        self.attrs = attrs
        self._nh = next_hop
        self.old_state = old_state
        self.new_state = new_state
        self.local_as = local_as

    @property
    def prefix(self) -> str | None:
        p = self._prefix
        if p is None and self._net is not None:
            p = self._prefix = network_text(*self._net)
        return p

    def _numbers(self) -> tuple[int, int, int] | None:
        n = self._net
        if n is None and self._prefix is not None:
            net = ipaddress.ip_network(self._prefix, strict=False)
            n = self._net = (1 if net.version == 4 else 2, int(net.network_address), net.prefixlen)
        return n

    @property
    def afi(self) -> int | None:
        n = self._numbers()
        return n and n[0]

    @property
    def network(self) -> int | None:
        n = self._numbers()
        return n and n[1]

    @property
    def plen(self) -> int | None:
        n = self._numbers()
        return None if n is None else n[2]

    @property
    def next_hop(self) -> str | None:
        nh = self._nh
        return self.attrs.next_hop if nh is FROM_ATTRS else nh

    @property
    def timestamp(self) -> float:
        return self.time + (self.usec or 0) / 1e6

    @property
    def as_path(self):
        """Segments (type, (asn, ...)); type 1 AS_SET, 2 AS_SEQUENCE (AS_SETs kept)."""
        return self.attrs.as_path if self.attrs else ()

    @property
    def origin_as(self) -> int:
        """The origin AS for route origin validation; see `bgpsim.wire.attributes.origin_of`."""
        return self.attrs.origin_as if self.attrs else NO_PATH

    @property
    def as_path_text(self) -> str:
        return self.attrs.as_path_text if self.attrs else ""

    @property
    def origin(self) -> str | None:
        return self.attrs.origin_text if self.attrs else None

    @property
    def med(self) -> int | None:
        return self.attrs.med if self.attrs else None

    @property
    def local_pref(self) -> int | None:
        return self.attrs.local_pref if self.attrs else None

    @property
    def communities(self) -> tuple[int, ...]:
        return self.attrs.communities if self.attrs else ()

    @property
    def large_communities(self) -> tuple[tuple[int, int, int], ...]:
        return self.attrs.large_communities if self.attrs else ()

    @property
    def aggregator(self) -> tuple[int, str] | None:
        return self.attrs.aggregator if self.attrs else None

    @property
    def atomic_aggregate(self) -> bool:
        return bool(self.attrs and self.attrs.atomic_aggregate)

    def _key(self):
        return tuple(getattr(self, f) for f in _FIELDS)

    def __eq__(self, other):
        return self._key() == other._key() if isinstance(other, Route) else NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return "Route(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in _FIELDS) + ")"


class Peers(list):
    """(address, AS) pairs of peers, numbered in the order they are first seen: `number(ip, asn)`
    gives a pair's place in the list, adding it if new (RouteBatch.peers; the validator's tally)."""

    def __init__(self):
        super().__init__()
        self._at: dict[tuple[str, int], int] = {}

    def number(self, ip: str, asn: int) -> int:
        p = self._at.get((ip, asn))
        if p is None:
            p = self._at[(ip, asn)] = len(self)
            self.append((ip, asn))
        return p


def wire_route(record, time, usec, kind, peer_ip, peer_as, afi, network, plen, path_id=None, attrs=None,
               next_hop=None, local_as=None) -> Route:
    """A Route from numbers, as the MRT reader makes them (no text until it is read)."""
    r = _new(Route)
    r.record = record
    r.time = time
    r.usec = usec
    r.kind = kind
    r.peer_ip = peer_ip
    r.peer_as = peer_as
    r._prefix = None
    r._net = (afi, network, plen)
    r.path_id = path_id
    r.attrs = attrs
    r._nh = next_hop
    r.old_state = r.new_state = None
    r.local_as = local_as
    return r


_new = object.__new__
