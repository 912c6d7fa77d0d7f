"""Decoding whole MRT records (RFC 6396 section 4): the dispatch by record type, what the decoders
of one file share, and how a fault inside a record becomes a warning.

Types read (one module each):
- BGP (5), the deprecated type of 1999-2000 RIS dumps (appendix B): bgpsim.mrt.legacy;
- TABLE_DUMP (12, section 4.2) and TABLE_DUMP_V2 (13, section 4.3; RFC 8050 section 4):
  bgpsim.mrt.tables;
- BGP4MP (16, section 4.4) and BGP4MP_ET (17, section 3; RFC 8050 section 3): bgpsim.mrt.bgp4mp,
  their UPDATEs through bgpsim.mrt.update.
Other types are skipped, with one warning per type.

A decoder turns a record's message into groups: the prefixes of one record that share everything
but the prefix (and the ADD-PATH id), each a tuple
    (record, time, usec, kind, peer_ip, peer_as, afi, nets, plens, pids, attrs, next_hop, local_as)
and, for a state change (kind STATE, no prefix), two more fields: the old and the new state.
`local_as` is the AS that received an UPDATE (bgpsim.mrt.bgp4mp), None for RIB entries.
`expand` makes a group's Route records.

Faults. Damage inside a record (`Damage`, or a WireError of bgpsim.wire) is a warning naming the
byte offset in the decompressed stream and what was wanted; the groups read before it are kept, as
bgpdump prints them. A field past the end that no check caught (IndexError) skips the record with
a warning. An `InputError` (a RIB record before any PEER_INDEX_TABLE) ends the reading.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from bgpsim.wire import WireError
from bgpsim.wire.attributes import scan_attributes
from bgpsim.wire.nlri import address_text
from . import bgp4mp, legacy, tables
from .fast import _gather
from .framing import BGP, BGP4MP, BGP4MP_ET, HEADER, TABLE_DUMP, TABLE_DUMP_V2, Buffer, Damage
from .record import Route, wire_route
from .update import CACHE, update_groups

# record type -> decoder(Decoder, time, type, subtype, message) -> groups
DECODERS = {BGP: legacy.bgp, TABLE_DUMP: tables.table_dump, TABLE_DUMP_V2: tables.table_dump_v2,
            BGP4MP: bgp4mp.bgp4mp, BGP4MP_ET: bgp4mp.bgp4mp}


class Decoder:
    """What the record decoders of one file (`path`, for messages) share: the peer table of a
    TABLE_DUMP_V2 file (`peers`), caches of decoded attribute blocks and address texts, the stream
    offset of the record being decoded (`at`). Warnings go to `warn`."""

    def __init__(self, path, warn: Callable[[str], None]):
        self.path = path
        self.warn = warn
        self.peers: list[tuple[str, int]] | None = None  # the PEER_INDEX_TABLE's (address, AS) pairs
        self.at = 0
        self._attr_cache: dict = {}
        self.update_attrs: tuple[dict, dict] = ({}, {})  # UPDATE attribute bytes -> Attrs, per ASN size
        self._ip_text: dict = {}
        self._skipped_types: set[int] = set()

    def attrs(self, body: bytes, start: int, length: int, asn_size: int, rib_afi: int | None = None):
        """The attributes at body[start:start + length] of a RIB entry (bgpsim.wire.attributes.
        scan_attributes), decoded once per distinct block: RIB dumps repeat them across prefixes.
        A fault is `Damage` at its offset in `body`."""
        buf = body[start:start + length]
        key = (buf, asn_size, rib_afi)
        a = self._attr_cache.get(key)
        if a is None:
            try:
                a = scan_attributes(buf, asn_size, rib_afi)
            except WireError as e:
                raise Damage(e.message, start + e.offset) from None
            if len(self._attr_cache) >= CACHE:
                self._attr_cache.clear()
            self._attr_cache[key] = a
        return a

    def ip(self, raw: bytes) -> str:
        """The text of an IPv4 or IPv6 address (4 or 16 bytes), made once per address."""
        t = self._ip_text.get(raw)
        if t is None:
            t = self._ip_text[raw] = address_text(raw)
        return t

    def handle(self, buf: bytes, base: int, pos: int):
        """The groups of the whole record at buf[pos:] (`base`: the stream offset of buf[0]); a
        fault is a warning."""
        ts, rtype, sub, length = HEADER(buf, pos)
        at = self.at = base + pos
        decode = DECODERS.get(rtype)
        if decode is None:
            if rtype not in self._skipped_types:
                self._skipped_types.add(rtype)
                self.warn(f"{self.path}: byte {at}: skipping MRT type {rtype} records (not read by bgpsim)")
            return []
        try:
            return decode(self, ts, rtype, sub, buf[pos + 12:pos + 12 + length])
        except (Damage, WireError) as e:
            self.warn(f"{self.path}: byte {at + 12 + e.offset}: {e.message}; record at byte {at} "
                      f"(type {rtype}, subtype {sub}){' partly read' if getattr(e, 'partial', ()) else ' skipped'}")
            return getattr(e, "partial", ())
        except IndexError:
            self.warn(f"{self.path}: byte {at}: record (type {rtype}, subtype {sub}) shorter than its fields; skipped")
            return []

    def skip(self, buffer: Buffer) -> None:
        """A buffer of records that another process decodes: what the records after it need from it
        (a PEER_INDEX_TABLE, RFC 6396 section 4.3.1) is kept, and the record types it holds that are
        not read are noted as warned about (the other process warns)."""
        buf, base, starts = buffer
        a = np.frombuffer(buf, dtype=np.uint8)
        s = np.asarray(starts, dtype=np.int64)
        rtype, sub = _gather(a, s + 4, 2), _gather(a, s + 6, 2)
        self._skipped_types.update(set(rtype.tolist()) - set(DECODERS))
        for i in np.flatnonzero((rtype == TABLE_DUMP_V2) & (sub == 1)).tolist():
            pos = starts[i]
            self.at = base + pos
            try:
                self.peers = tables.peer_index(buf[pos + 12:pos + 12 + HEADER(buf, pos)[3]])
            except Damage:
                pass  # the decoding process says so

    def update_routes(self, msg: bytes, record: str, ts: int, usec: int | None, peer: str, peer_as: int,
                      asn_size: int, addpath: bool = False,
                      local_as: int | None = None) -> tuple[list[Route], str | None]:
        """Routes of one whole UPDATE message `msg` (19-byte header included) that `local_as` (or None)
        received, for readers of other containers (pcap): (routes, None), or (the routes before a
        fault, "byte N: what was wanted")."""
        try:
            groups, damage = update_groups(self, msg, 19, len(msg), record, ts, usec, peer, peer_as, asn_size,
                                           addpath, local_as), None
        except (Damage, WireError) as e:
            groups, damage = getattr(e, "partial", ()), f"byte {e.offset}: {e.message}"
        except IndexError:
            groups, damage = (), "UPDATE shorter than its fields"
        return [r for g in groups for r in expand(g)], damage


def expand(g) -> Iterator[Route]:
    """The Route records of a group of prefixes (not a state change)."""
    record, ts, usec, kind, peer_ip, peer_as, afi, nets, plens, pids, attrs, nh, local_as = g
    if pids is None:
        for net, plen in zip(nets, plens):
            yield wire_route(record, ts, usec, kind, peer_ip, peer_as, afi, net, plen, None, attrs, nh, local_as)
    else:
        for net, plen, pid in zip(nets, plens, pids):
            yield wire_route(record, ts, usec, kind, peer_ip, peer_as, afi, net, plen, pid, attrs, nh, local_as)
