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

import ipaddress
import socket
from typing import Iterable, Iterator

from orjson import loads as _loads

from bgpsim.base.errors import InputError
from bgpsim.mrt.record import ANNOUNCE, RIB, STATE, WITHDRAW, Route
from bgpsim.wire.aspath import AS_SEQUENCE, AS_SET
from bgpsim.wire.attributes import ORIGINS, Attrs, origin_of

_inet_pton, _AF_INET, _AF_INET6 = socket.inet_pton, socket.AF_INET, socket.AF_INET6
MAX_MESSAGE = 1 << 20  # bytes: a RIS Live message holds one UPDATE (at most 64 KiB on the wire)


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
# has its own type: UPDATE, OPEN, KEEPALIVE, NOTIFICATION or RIS_PEER_STATE. Producers differ in the
# case of names and values (Peer_ASN, "update", "IGP"): a name is matched in any case, with one
# warning per spelling; what carries meaning (prefixes, AS numbers, paths) is checked strictly.

SERVER_TYPES = ("ris_message", "ris_error", "ris_subscribe_ok", "ris_rrc_list", "pong")
MESSAGE_TYPES = ("UPDATE", "OPEN", "KEEPALIVE", "NOTIFICATION", "RIS_PEER_STATE")
# the live service writes RIS_PEER_STATE (its manual's and its schema's name) as STATE
ALIASES = {"STATE": "RIS_PEER_STATE"}
# a peer state -> the BGP FSM state (RFC 4271 section 8.2.2, numbered as RFC 6396 section 4.4.1's MRT
# state changes): the service sends connected and down; libbgpstream also reads up. Either of the
# first two means the session is back: Established; down: Idle.
PEER_STATES = {"connected": 6, "up": 6, "down": 1}
EOR = "eor"  # what RIS Live writes in `prefixes` for an End-of-RIB marker (RFC 4724 section 2): no route


class Reader:
    """Reads RIS Live messages. `warn(text)` hears each spelling read past once."""

    def __init__(self, warn=None):
        self.warn = warn
        self._told: set[str] = set()

    def _once(self, key: str, text: str) -> None:
        if key not in self._told and len(self._told) < 1000:
            self._told.add(key)
            if self.warn is not None:
                self.warn(text)

    def lower(self, doc: dict, source: str) -> dict:
        """`doc` with its names in lower case (a name spelled otherwise is warned about once)."""
        for k in doc:
            if not (isinstance(k, str) and k.islower()):
                break
        else:
            return doc
        out: dict = {}
        for k, v in doc.items():
            low = k.lower() if isinstance(k, str) else k
            if low != k:
                self._once(f"name {k}", f"{source}: read {k!r} as {low!r} (RIS Live writes names in lower case)")
            out[low] = v
        return out

    def envelope(self, payload: bytes, source: str) -> tuple[str, object]:
        """(type, data) of one message: the envelope's type in lower case (SERVER_TYPES) and its data, or
        ("ris_message", the object) for a bare data object (as bgpsim's MQTT feed sends them)."""
        if len(payload) > MAX_MESSAGE:
            raise InputError(f"want a message of at most {MAX_MESSAGE} bytes, got {len(payload)}", source)
        try:
            doc = _loads(payload)
        except ValueError as e:
            raise InputError(f"want JSON: {str(e)[:80]}", source) from None
        _want(isinstance(doc, dict), "a JSON object", "$", source)
        doc = self.lower(doc, source)
        kind = doc.get("type")
        if "data" in doc and isinstance(kind, str):
            kind = kind.lower()
            if kind not in SERVER_TYPES:
                self._once(f"type {kind}", f"{source}: RIS Live message type {doc['type']!r} counted and passed over")
            return kind, doc["data"]
        return "ris_message", doc

    def data(self, doc, source: str) -> tuple[str, dict]:
        """(type in upper case, the object with its names in lower case) of a ris_message's data."""
        _want(isinstance(doc, dict), "a RIS Live object", "data", source)
        doc = self.lower(doc, source)
        kind = doc.get("type", "UPDATE")
        _want(isinstance(kind, str), "a message type", "type", source)
        up = kind.upper()
        up = ALIASES.get(up, up)
        if up not in MESSAGE_TYPES:
            self._once(f"data {up}", f"{source}: RIS Live data type {kind!r} counted and passed over")
        return up, doc

    def routes(self, data: dict, source: str) -> list[Route]:
        """The routes of one UPDATE (`data` as `data` gives it): one per announced prefix, one per
        withdrawn one."""
        time, usec, peer, peer_as = _header(data, source)
        record = "BGP4MP" if usec is None else "BGP4MP_ET"
        routes: list[Route] = []
        anns = data.get("announcements", [])
        _want(isinstance(anns, list), "a list", "announcements", source)
        if anns:
            attrs = self._attrs(data, source)
            target = data.get("bgpsec_target") if isinstance(data.get("bgpsec_target"), int) else None
            for i, a in enumerate(anns):
                key = f"announcements[{i}]"
                _want(isinstance(a, dict), "an object", key, source)
                a = self.lower(a, source)
                nh = a.get("next_hop")
                _want(nh is None or isinstance(nh, str), "a next hop string", key + ".next_hop", source)
                if nh is not None and "," in nh:  # IPv6's global address and its link-local one
                    nh = nh.partition(",")[0]
                ps = a.get("prefixes")
                _want(isinstance(ps, list), "a list of prefixes", key + ".prefixes", source)
                for j, p in enumerate(ps):
                    if p == EOR:
                        continue
                    afi, net, plen = _prefix(p, f"{key}.prefixes[{j}]", source)
                    r = Route(record, time, usec, ANNOUNCE, peer, peer_as, None, None, attrs, nh or None)
                    r._net = (afi, net, plen)
                    r.local_as = target
                    routes.append(r)
        ws = data.get("withdrawals", [])
        _want(isinstance(ws, list), "a list", "withdrawals", source)
        for j, p in enumerate(ws):
            afi, net, plen = _prefix(p, f"withdrawals[{j}]", source)
            r = Route(record, time, usec, WITHDRAW, peer, peer_as)
            r._net = (afi, net, plen)
            routes.append(r)
        return routes

    def peer_state(self, data: dict, source: str) -> Route:
        """A RIS_PEER_STATE as a state change of the peer's session (an MRT state change's record)."""
        time, usec, peer, peer_as = _header(data, source)
        state = data.get("state")
        _want(isinstance(state, str) and state.lower() in PEER_STATES, "state connected, up or down", "state", source)
        new = PEER_STATES[state.lower()]
        return Route("BGP4MP" if usec is None else "BGP4MP_ET", time, usec, STATE, peer, peer_as,
                     old_state=PEER_STATES["connected"] if new != 6 else PEER_STATES["down"], new_state=new)

    def _attrs(self, data: dict, source: str) -> Attrs:
        a = Attrs()
        path = data.get("path", [])
        _want(isinstance(path, list), "a list of AS numbers", "path", source)
        segments: list = []
        seq: list[int] = []
        for i, x in enumerate(path):
            if isinstance(x, list):
                if seq:
                    segments.append((AS_SEQUENCE, tuple(seq)))
                    seq = []
                segments.append((AS_SET, tuple(_asn(y, f"path[{i}]", source) for y in x)))
            elif type(x) is int and 0 <= x <= 0xFFFFFFFF:  # the common case, checked inline
                seq.append(x)
            else:
                seq.append(_asn(x, f"path[{i}]", source))
        if seq:
            segments.append((AS_SEQUENCE, tuple(seq)))
        a.as_path = tuple(segments)
        a.origin_as = origin_of(a.as_path)
        a.has_as_path = bool(segments)
        origin = data.get("origin")
        if origin is not None:
            _want(isinstance(origin, str) and origin.upper() in ORIGINS, "IGP, EGP or INCOMPLETE", "origin", source)
            a.origin = ORIGINS.index(origin.upper())
        comm = data.get("community", [])
        _want(isinstance(comm, list), "a list of [AS, value] pairs", "community", source)
        a.communities = tuple((_asn(c[0], "community", source) & 0xFFFF) << 16 | (int(c[1]) & 0xFFFF)
                              for c in comm if isinstance(c, list) and len(c) == 2 and isinstance(c[1], int))
        med = data.get("med")
        if isinstance(med, int) and not isinstance(med, bool):
            a.med = med
        bgpsec = data.get("bgpsec")
        if bgpsec is not None:
            from bgpsim.rpki.bgpsec.path import decode

            _want(isinstance(bgpsec, str), "the BGPsec_PATH value in hex", "bgpsec", source)
            try:
                a.bgpsec = decode(bytes.fromhex(bgpsec), source)
            except ValueError:
                raise InputError("want the BGPsec_PATH value in hex", source, "bgpsec") from None
        return a


def _want(cond: bool, what: str, key: str, source: str) -> None:
    if not cond:
        raise InputError(f"want {what}", source, key)


def _header(data: dict, source: str) -> tuple[int, int | None, str, int]:
    """(seconds, microseconds or None, peer address, peer AS) of a ris_message's data: microseconds
    when the timestamp has a fraction (then the route is BGP4MP_ET's, as `validate` writes its time)."""
    ts = data.get("timestamp")
    _want(isinstance(ts, (int, float)) and not isinstance(ts, bool) and 0 <= ts < 1 << 33, "a timestamp", "timestamp",
          source)
    peer = data.get("peer")
    _want(isinstance(peer, str), "the peer's address", "peer", source)
    try:
        peer = str(ipaddress.ip_address(peer))
    except ValueError:
        raise InputError(f"want the peer's address, got {peer[:60]!r}", source, "peer") from None
    peer_as = _asn(data.get("peer_asn"), "peer_asn", source)
    time = int(ts)
    usec = None
    if isinstance(ts, float):
        usec = round((ts - time) * 1e6)
        if usec >= 1_000_000:
            time, usec = time + 1, 0
    return time, usec, peer, peer_as


def _prefix(text, key: str, source: str) -> tuple[int, int, int]:
    """(AFI, network as an integer, length) of a prefix's text; host bits are cleared, as bgpdump does.
    inet_pton, not ipaddress: this runs once per announced prefix of a feed."""
    _want(isinstance(text, str), "a prefix string", key, source)
    addr, sep, plen = text.partition("/")
    v6 = ":" in addr
    bits = 128 if v6 else 32
    try:
        if not sep or not plen.isdigit() or int(plen) > bits:
            raise ValueError
        raw = _inet_pton(_AF_INET6 if v6 else _AF_INET, addr)
    except (ValueError, OSError):
        raise InputError(f"want a prefix, got {text[:60]!r}", source, key) from None
    n = int(plen)
    return 2 if v6 else 1, int.from_bytes(raw, "big") & (((1 << n) - 1) << (bits - n)), n


def _asn(v, key: str, source: str) -> int:
    if isinstance(v, str) and v.isdigit():
        v = int(v)
    _want(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 32, "an AS number", key, source)
    return v
