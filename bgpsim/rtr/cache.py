"""What an RTR cache serves: the payload set under a session ID and serial number, the deltas that
led to it, and each answer encoded once for every session that asks.

- The set (RFC 8210 section 5.6, 5.10; draft-ietf-sidrops-8210bis section 5.12): VRPs as (family,
  address, prefix length, max length, AS), router keys as (SKI, AS, SubjectPublicKeyInfo), ASPAs
  as customer -> providers. Each VRP and each key is a record of its own; an ASPA is the customer's
  whole provider set, so a change of providers is a new announcement that replaces the old one.
- Serials are RFC 1982 arithmetic on 32 bits (RFC 8210 section 4): they wrap from 2^32 - 1 to 0.
- A Serial Query from a serial in the history gets the net change since then (an item announced
  and withdrawn in between is not mentioned); from one older than the history, a Cache Reset.
- An answer's octets (Cache Response, the payload PDUs, End of Data) are made once per protocol
  version and serial and shared by every session: serving a thousand routers is a thousand writes of
  the same buffer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from bgpsim.rpki.vrps.payloads import Payloads

from . import pdu

HISTORY = 64  # deltas kept: a router that was away longer gets a Cache Reset
SERIAL_BITS = 32

PFX4 = struct.Struct("!BBHIBBBBII")  # IPv4 Prefix PDU: header, flags, lengths, zero, address, AS
PFX6 = struct.Struct("!BBHIBBBB16sI")


def serial_add(s: int, n: int) -> int:
    return (s + n) % (1 << SERIAL_BITS)


def serial_newer(a: int, b: int) -> bool:
    """RFC 1982 section 3.2: a > b."""
    half = 1 << (SERIAL_BITS - 1)
    return a != b and ((a > b and a - b < half) or (a < b and b - a > half))


@dataclass(frozen=True)
class State:
    """A payload set: VRP records, router-key records, ASPAs by customer."""

    vrps: frozenset = frozenset()
    keys: frozenset = frozenset()
    aspas: dict = field(default_factory=dict)

    @classmethod
    def of(cls, p: Payloads) -> State:
        vrps = frozenset((o.vrp.prefix.version, int(o.vrp.prefix.network_address), o.vrp.prefix.prefixlen,
                          o.vrp.max_length, o.vrp.asn) for o in p.origins)
        keys = frozenset((k.ski, k.asn, k.spki) for k in p.router_keys)
        aspas: dict[int, tuple[int, ...]] = {}
        for a in p.aspas:  # one record per customer (RFC 8210bis section 5.12): several ASPAs, their union
            aspas[a.customer] = tuple(sorted(set(aspas.get(a.customer, ())) | set(a.providers)))
        return cls(vrps, keys, aspas)

    def __len__(self) -> int:
        return len(self.vrps) + len(self.keys) + len(self.aspas)


@dataclass
class Delta:
    """What changed between two serials: records announced and withdrawn; for ASPAs, each customer's
    provider set before and after (None: no record)."""

    announced: set = field(default_factory=set)
    withdrawn: set = field(default_factory=set)
    keys_announced: set = field(default_factory=set)
    keys_withdrawn: set = field(default_factory=set)
    aspas: dict = field(default_factory=dict)  # customer -> (before, after)

    @classmethod
    def between(cls, old: State, new: State) -> Delta:
        aspas = {c: (old.aspas.get(c), new.aspas.get(c)) for c in old.aspas.keys() | new.aspas.keys()
                 if old.aspas.get(c) != new.aspas.get(c)}
        return cls(set(new.vrps - old.vrps), set(old.vrps - new.vrps), set(new.keys - old.keys),
                   set(old.keys - new.keys), aspas)

    def then(self, later: Delta) -> Delta:
        """This change followed by `later`, as one net change."""
        out = Delta(set(self.announced), set(self.withdrawn), set(self.keys_announced), set(self.keys_withdrawn),
                    dict(self.aspas))
        for ann, wd, a2, w2 in ((out.announced, out.withdrawn, later.announced, later.withdrawn),
                                (out.keys_announced, out.keys_withdrawn, later.keys_announced, later.keys_withdrawn)):
            for x in w2:
                if x in ann:
                    ann.discard(x)
                else:
                    wd.add(x)
            for x in a2:
                if x in wd:
                    wd.discard(x)
                else:
                    ann.add(x)
        for c, (_, after) in later.aspas.items():
            before = out.aspas[c][0] if c in out.aspas else later.aspas[c][0]
            if before == after:
                out.aspas.pop(c, None)
            else:
                out.aspas[c] = (before, after)
        return out

    def __len__(self) -> int:
        return (len(self.announced) + len(self.withdrawn) + len(self.keys_announced) + len(self.keys_withdrawn)
                + len(self.aspas))


def payload_pdus(version: int, delta: Delta) -> bytes:
    """The payload PDUs of a change in the order draft-ietf-sidrops-8210bis-27 section 11.2 makes
    total (a MUST for version 2, a SHOULD before it): by PDU type (IPv4 Prefix, IPv6 Prefix, Router
    Key, ASPA), announcements before withdrawals; prefix announcements by descending address, max
    length, prefix length and AS, their withdrawals ascending; router keys by SKI, SPKI length, SPKI
    and AS; ASPAs by customer. Version 0 carries no router keys, versions 0 and 1 no ASPAs."""
    out = []
    for family, pack, kind in ((4, _pfx4, pdu.IPV4_PREFIX), (6, _pfx6, pdu.IPV6_PREFIX)):
        ann = sorted((r for r in delta.announced if r[0] == family), key=lambda r: (-r[1], -r[3], -r[2], -r[4]))
        out += [pack(version, kind, 1, r) for r in ann]
        wd = sorted((r for r in delta.withdrawn if r[0] == family), key=lambda r: (r[1], r[3], r[2], r[4]))
        out += [pack(version, kind, 0, r) for r in wd]
    if version >= 1:
        key = lambda r: (r[0], len(r[2]), r[2], r[1])  # (SKI, AS, SPKI) records
        for flag, records in ((1, delta.keys_announced), (0, delta.keys_withdrawn)):
            out += [pdu.HEADER.pack(version, pdu.ROUTER_KEY, flag << 8, 32 + len(spki)) + ski + asn.to_bytes(4, "big")
                    + spki for ski, asn, spki in sorted(records, key=key)]
    if version >= 2:
        out += [pdu.encode(pdu.Aspa(version, True, c, after)) for c, (_, after) in sorted(delta.aspas.items())
                if after is not None]
        out += [pdu.encode(pdu.Aspa(version, False, c)) for c, (_, after) in sorted(delta.aspas.items()) if after is None]
    return b"".join(out)


def _pfx4(version: int, kind: int, flag: int, r) -> bytes:
    return PFX4.pack(version, kind, 0, 20, flag, r[2], r[3], 0, r[1], r[4])


def _pfx6(version: int, kind: int, flag: int, r) -> bytes:
    return PFX6.pack(version, kind, 0, 32, flag, r[2], r[3], 0, r[1].to_bytes(16, "big"), r[4])


class Cache:
    """The data a cache serves: one session ID for the run, the current serial and state, the
    deltas of the last HISTORY serials, and the answers already encoded."""

    def __init__(self, session: int, timers: tuple[int, int, int] = (pdu.REFRESH, pdu.RETRY, pdu.EXPIRE),
                 history: int = HISTORY):
        self.session = session & 0xFFFF
        self.timers = timers
        self.history = history
        self.state: State | None = None  # None until the first load: every query gets "No Data Available"
        self.serial = 0
        self.deltas: dict[int, Delta] = {}  # serial s -> the change from s to s + 1
        self._answers: dict[tuple[int, int | None], bytes] = {}

    def load(self, payloads: Payloads) -> Delta | None:
        """Take a new payload set: the change it makes (None for the first; an empty change keeps the serial)."""
        new = State.of(payloads)
        if self.state is None:
            self.state = new
            return None
        delta = Delta.between(self.state, new)
        if not len(delta):
            return delta
        self.deltas[self.serial] = delta
        self.deltas.pop(serial_add(self.serial, -self.history), None)
        self.serial = serial_add(self.serial, 1)
        self.state = new
        self._answers.clear()
        return delta

    def end_of_data(self, version: int) -> bytes:
        return pdu.encode(pdu.EndOfData(version, self.session, self.serial, *self.timers))

    def full(self, version: int) -> bytes:
        """The answer to a Reset Query."""
        key = (version, None)
        if key not in self._answers:
            s = self.state
            everything = Delta(set(s.vrps), set(), set(s.keys), set(), {c: (None, p) for c, p in s.aspas.items()})
            self._answers[key] = pdu.encode(pdu.CacheResponse(version, self.session)) \
                + payload_pdus(version, everything) + self.end_of_data(version)
        return self._answers[key]

    def since(self, version: int, serial: int) -> bytes | None:
        """The answer to a Serial Query from `serial`: the net change since then; None when the
        history does not reach back that far (a Cache Reset is the answer)."""
        if serial == self.serial:
            return pdu.encode(pdu.CacheResponse(version, self.session)) + self.end_of_data(version)
        if serial not in self.deltas:
            return None
        key = (version, serial)
        if key not in self._answers:
            net, s = self.deltas[serial], serial_add(serial, 1)
            while s != self.serial:
                net, s = net.then(self.deltas[s]), serial_add(s, 1)
            self._answers[key] = pdu.encode(pdu.CacheResponse(version, self.session)) \
                + payload_pdus(version, net) + self.end_of_data(version)
        return self._answers[key]
