"""BGP UPDATEs as RIS Live messages (the JSON of RIPE NCC's RIS Live, which operators already parse).

One message per UPDATE, the `data` object of a RIS Live `ris_message`:

    {"timestamp": 1438415400.0, "peer": "192.0.2.1", "peer_asn": "64496", "id": "...", "host": "...",
     "type": "UPDATE", "path": [64496, 64511, [64500, 64501]], "community": [[64496, 1]],
     "origin": "IGP", "med": 0, "announcements": [{"next_hop": "192.0.2.1", "prefixes": ["10.0.0.0/8"]}],
     "withdrawals": ["10.1.0.0/16"]}

An AS_SET is a list inside `path`, as RIS Live writes it. `peer_asn` is a string there; we write a
string and read either. RIS Live writes ORIGIN in capitals (in lower case before about 2022): we write
capitals and read either. Keys RIS Live has and we do not need are read past; what carries meaning
(timestamp, peer, peer_asn, type, path, origin, announcements, withdrawals) is checked, and a fault is
an InputError naming the key. One extension, `bgpsec`, carries a BGPsec UPDATE's BGPsec_PATH value in
hex and the AS that received it (`bgpsec_target`), so a BGPsec verdict survives the trip.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from bgpsim import _core
from bgpsim.base.errors import InputError
from bgpsim.mrt.record import ANNOUNCE, RIB, STATE, WITHDRAW, Peers, Route, wire_route
from bgpsim.wire.aspath import AS_SET, segments_of_words
from bgpsim.wire.attributes import ORIGINS, Attrs
from bgpsim.wire.nlri import address_text

MAX_MESSAGE = 1 << 20  # bytes: a RIS Live message holds one UPDATE (at most 64 KiB on the wire); core/rislive.c


def _path_json(segments) -> list:
    out: list = []
    for kind, asns in segments:
        if kind == AS_SET:
            out.append(sorted(asns))
        else:
            out.extend(asns)
    return out


def update_messages(routes: Iterable[Route], host: str = "bgpsim", ids: str | None = None) -> Iterator[dict]:
    """RIS Live `data` objects, one per UPDATE: the routes of one record come in a row (its withdrawals,
    then its announcements, which share one attribute block), so a route continues the message while the
    time, the peer and the record type stay and it is a withdrawal before any announcement or an
    announcement with the same attributes. A RIB entry is a message of its own; state changes are left out.
    Each message's `id` is `ids` (default `host`) and its number."""
    group: list[Route] = []
    attrs = None  # the attributes of the group's announcements, once it has one
    n = 0
    for r in routes:
        if r.kind not in (ANNOUNCE, RIB, WITHDRAW):
            continue
        if group:
            g = group[0]
            same = (r.kind != RIB and g.kind != RIB and r.time == g.time and r.usec == g.usec
                    and r.peer_ip == g.peer_ip and r.record == g.record
                    and (attrs is None if r.kind == WITHDRAW else (attrs is None or r.attrs is attrs)))
            if not same:
                n += 1
                yield _message(group, host, f"{ids or host}-{n}")
                group, attrs = [], None
        group.append(r)
        if r.kind != WITHDRAW:
            attrs = r.attrs
    if group:
        yield _message(group, host, f"{ids or host}-{n + 1}")


def _message(routes: list[Route], host: str, ident: str) -> dict:
    first = routes[0]
    # an integer when the record has whole seconds only (BGP4MP), a float when it has microseconds
    # (BGP4MP_ET): the reader tells them apart, so routes.csv writes the time as `validate` does
    ts = first.time if first.usec is None else first.time + first.usec / 1e6
    msg: dict = {"timestamp": ts, "peer": first.peer_ip, "peer_asn": str(first.peer_as), "id": ident,
                 "host": host, "type": "UPDATE"}
    announced = [r for r in routes if r.kind != WITHDRAW]
    if announced:
        a = announced[0].attrs
        if a is not None:
            msg["path"] = _path_json(a.as_path)
            if a.communities:
                msg["community"] = [[c >> 16, c & 0xFFFF] for c in a.communities]
            if a.origin is not None and a.origin < 3:
                msg["origin"] = ORIGINS[a.origin]
            if a.med is not None:
                msg["med"] = a.med
            if a.bgpsec is not None:
                msg["bgpsec"] = a.bgpsec.encode().hex()
                if first.local_as is not None:
                    msg["bgpsec_target"] = first.local_as
        hops: dict[str, list[str]] = {}
        for r in announced:
            hops.setdefault(r.next_hop or "", []).append(r.prefix)
        msg["announcements"] = [{"next_hop": nh, "prefixes": ps} for nh, ps in hops.items()]
    withdrawn = [r.prefix for r in routes if r.kind == WITHDRAW]
    if withdrawn:
        msg["withdrawals"] = withdrawn
    return msg


def sim_message(timestamp: float, peer: str, peer_asn: int, prefix: str, path: list[int] | None,
                next_hop: str | None, ident: str, host: str = "bgpsim-sim") -> dict:
    """One UPDATE from a simulated collector peer (`bgpsim run --publish`): `prefix` announced with
    `path` (the peer first) and ORIGIN IGP, or, with `path` None, withdrawn. `ident` is the message's
    `id`, which the monitor uses to drop QoS 1 redeliveries: it must not repeat across runs."""
    msg: dict = {"timestamp": timestamp, "peer": peer, "peer_asn": str(peer_asn), "id": ident, "host": host,
                 "type": "UPDATE"}
    if path is None:
        msg["withdrawals"] = [prefix]
    else:
        msg.update(path=list(path), origin=ORIGINS[0],
                   announcements=[{"next_hop": next_hop or peer, "prefixes": [prefix]}])
    return msg


# ---- reading ----------------------------------------------------------------------------------------
#
# RIS Live (https://ris-live.ripe.net/manual/) wraps each message in {"type": ..., "data": ...}: the
# server sends ris_message, ris_error, ris_subscribe_ok, ris_rrc_list and pong. A ris_message's data
# has its own type: UPDATE, OPEN, KEEPALIVE, NOTIFICATION or RIS_PEER_STATE (the live service writes
# STATE). Producers differ in the case of names and values (Peer_ASN, "update", "igp"): a name is
# matched in any case, with one warning per spelling; what carries meaning (timestamp, peer, AS
# numbers, paths, prefixes, ORIGIN) is checked strictly. The compiled core reads the text
# (core/rislive.c: the checks and their messages are there); this is its Python side.

SERVER_TYPES = ("ris_message", "ris_error", "ris_subscribe_ok", "ris_rrc_list", "pong")
MESSAGE_TYPES = ("UPDATE", "OPEN", "KEEPALIVE", "NOTIFICATION", "RIS_PEER_STATE")
# a peer state -> the BGP FSM state (RFC 4271 section 8.2.2, numbered as RFC 6396 section 4.4.1's MRT
# state changes): the service sends connected and down; libbgpstream also reads up. Either of the
# first two means the session is back: Established; down: Idle.
ESTABLISHED, IDLE = 6, 1


def message_time(time: int, usec: int | None):
    """A message's timestamp as it was sent: whole seconds, or with a fraction (a float)."""
    return time if usec is None else time + usec / 1e6


def _record(usec: int | None) -> str:
    """The MRT record a route so timed would come from (its time written as `validate` writes it)."""
    return "BGP4MP" if usec is None else "BGP4MP_ET"


def _attrs(words: bytes, origin: int, bgpsec=None) -> Attrs:
    """An UPDATE's attributes as the checks and the monitors read them: the AS_PATH (the core's words),
    its origin, the BGPsec_PATH."""
    a = Attrs()
    a.as_path = segments_of_words(words)
    a.origin_as = origin
    a.has_as_path = bool(words)
    a.bgpsec = bgpsec
    return a


class Reader:
    """RIS Live messages read into a batch (`take`: a FeedBatch, which bgpsim.validate.check.Checker
    checks as it checks an MRT batch). `warn(text)` hears each spelling read past once. A message is
    read whole or not at all: a fault is an InputError, and the batch is as it was."""

    def __init__(self, warn=None):
        self.core = _core.RisReader()
        self.warn = warn
        self.peers = Peers()  # (address, AS), numbered as the core numbers them
        self._told: set[str] = set()
        self._signed: dict[int, tuple] = {}  # group -> (BgpsecPath, target AS or None), of the batch
        self._last_group = -1  # the group the last message signed

    def _once(self, key: str, text: str) -> None:
        if key not in self._told and len(self._told) < 1000:
            self._told.add(key)
            if self.warn is not None:
                self.warn(text)

    def watch(self, prefixes, asns: Iterable[int]) -> None:
        """What `watched` gives: the routes these prefixes (ipaddress networks) cover, and the announced
        routes with one of these ASes in the path."""
        nets = [(1 if n.version == 4 else 2, int(n.network_address) >> 64, int(n.network_address) & (1 << 64) - 1,
                 n.prefixlen) for n in prefixes]
        self.core.watch(nets, list(asns))  # sorted there

    @property
    def rows(self) -> int:
        """Rows in the batch."""
        return self.core.rows

    def read(self, payload: bytes, source: str) -> tuple:
        """One message: (kind, type, id, rows, hits, extra) as RisReader.read gives them (bgpsim._core;
        kind the envelope's type, type the data's), its rows in the batch."""
        try:
            kind, dtype, key, rows, hits, extra, names = self.core.read(payload)
        except ValueError as e:
            want, where, value = e.args
            raise InputError(want.format(value[:60]) if value is not None else want, source, where) from None
        if names is not None:
            for k in names:
                self._once(f"name {k}", f"{source}: read {k!r} as {k.lower()!r} (RIS Live writes names in lower case)")
        if kind not in SERVER_TYPES:
            self._once(f"type {kind}", f"{source}: RIS Live message type {kind!r} counted and passed over")
        elif dtype is not None and dtype not in MESSAGE_TYPES:
            self._once(f"data {dtype}", f"{source}: RIS Live data type {dtype!r} counted and passed over")
        self._last_group = -1
        if extra is not None and dtype == "UPDATE":
            self._bgpsec(*extra, source)
        return kind, dtype, key, rows, hits, extra

    def _bgpsec(self, group: int, text: str, target, source: str) -> None:
        from bgpsim.rpki.bgpsec.path import decode

        try:
            self._signed[group] = (decode(bytes.fromhex(text), source), target)
        except ValueError:
            self.core.undo()
            raise InputError("want the BGPsec_PATH value in hex", source, "bgpsec") from None
        self._last_group = group

    def undo(self) -> None:
        """The last message's rows out of the batch (a repeat)."""
        self.core.undo()
        self._signed.pop(self._last_group, None)

    def peer(self, i: int) -> tuple[str, int]:
        """(address, AS) of the core's peer i."""
        while len(self.peers) <= i:
            raw, asn = self.core.peer(len(self.peers))
            self.peers.number(address_text(raw), asn)
        return self.peers[i]

    def peer_state(self, extra: tuple) -> Route:
        """A RIS_PEER_STATE (read's extra) as a state change of the peer's session (an MRT state change)."""
        time, usec, peer, new = extra
        ip, asn = self.peer(peer)
        return Route(_record(usec), time, usec, STATE, ip, asn, old_state=ESTABLISHED if new != ESTABLISHED else IDLE,
                     new_state=new)

    def watched(self) -> tuple[float, list[Route]]:
        """(the time, the routes) of the last UPDATE's rows that `watch` asked for."""
        time, usec, peer, words, origin, rows = self.core.watched()
        ip, asn = self.peer(peer)
        attrs, record = _attrs(words, origin), _record(usec)
        routes = [wire_route(record, time, usec, WITHDRAW if kind else ANNOUNCE, ip, asn, afi, hi << 64 | lo, plen,
                             attrs=None if kind else attrs) for kind, afi, hi, lo, plen in rows]
        return message_time(time, usec), routes

    def take(self) -> FeedBatch | None:
        """The batch read so far (None when empty), and a new one begun."""
        cols = self.core.take()
        if cols is None:
            return None
        self.peer(self.core.peers - 1)
        signed, self._signed = self._signed, {}
        return FeedBatch(cols, self.peers, signed)


class FeedBatch:
    """The rows of RIS Live UPDATEs, as bgpsim.mrt.batch.RouteBatch has the routes of an MRT file (the
    columns Checker.feed_batch reads); each UPDATE is a group."""

    __slots__ = ("kind", "afi", "hi", "lo", "plen", "origin", "peer", "time", "group", "first", "gpath", "gusec",
                 "paths", "peers", "_signed")

    def __init__(self, cols: dict, peers: Peers, signed: dict):
        import numpy as np

        def col(name, dtype):
            return np.frombuffer(cols[name], dtype=dtype)

        self.kind, self.afi, self.plen = col("kind", np.uint8), col("afi", np.uint8), col("plen", np.uint8)
        self.hi, self.lo, self.group = col("hi", np.uint64), col("lo", np.uint64), col("group", np.int32)
        self.first, self.gpath, self.gusec = col("first", np.int64), col("path", np.int64), col("usec", np.int64)
        self.time = col("time", np.int64)[self.group]
        self.peer = col("peer", np.int32)[self.group]
        self.origin = col("origin", np.int64)[self.group]
        self.paths, self.peers, self._signed = cols["paths"], peers, signed

    def __len__(self) -> int:
        return len(self.plen)

    def bgpsec_groups(self) -> list[int]:
        return sorted(self._signed)

    def route(self, i: int) -> Route:
        """Row i as a Route (its attributes: the AS_PATH, and the BGPsec_PATH of a signed UPDATE)."""
        g = int(self.group[i])
        usec = int(self.gusec[g])
        usec = None if usec < 0 else usec
        ip, asn = self.peers[int(self.peer[i])]
        bgpsec, target = self._signed.get(g, (None, None))
        attrs = None if self.kind[i] else _attrs(self.paths[int(self.gpath[g])], int(self.origin[i]), bgpsec)
        return wire_route(_record(usec), int(self.time[i]), usec, WITHDRAW if self.kind[i] else ANNOUNCE, ip, asn,
                          int(self.afi[i]), int(self.hi[i]) << 64 | int(self.lo[i]), int(self.plen[i]), attrs=attrs,
                          local_as=target)
