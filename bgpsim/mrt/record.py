"""One route record: one prefix from one peer, as read from an MRT dump."""

from __future__ import annotations

from dataclasses import dataclass

from ..wire.attributes import Attrs

ANNOUNCE, WITHDRAW, RIB, STATE = "announce", "withdraw", "rib", "state"


@dataclass(slots=True)
class Route:
    """`record` is the MRT record's name as bgpdump prints it (TABLE_DUMP, TABLE_DUMP2, TABLE_DUMP2_AP,
    BGP4MP, BGP4MP_ET, BGP4MP_AP, ...); `usec` is set for the _ET types (RFC 6396 section 3) only.
    `attrs` is shared between routes with the same attribute bytes; `next_hop` is the one that applies
    to this prefix (NEXT_HOP for IPv4 NLRI, the MP_REACH_NLRI next hop otherwise). A state change has
    no prefix and carries `old_state` and `new_state` (RFC 6396 section 4.4.1)."""

    record: str
    time: int
    usec: int | None
    kind: str
    peer_ip: str
    peer_as: int
    prefix: str | None = None
    path_id: int | None = None
    attrs: Attrs | None = None
    next_hop: str | None = None
    old_state: int | None = None
    new_state: int | None = None

    @property
    def timestamp(self) -> float:
        return self.time + (self.usec or 0) / 1e6

    @property
    def as_path(self):
        """Segments (type, (asn, ...)); type 1 AS_SET, 2 AS_SEQUENCE (AS_SETs kept)."""
        return self.attrs.as_path if self.attrs else ()

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
