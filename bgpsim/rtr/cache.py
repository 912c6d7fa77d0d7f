"""What an RTR cache serves: the payload set under a session ID and serial number, the deltas that
led to it, and each answer encoded once for every session that asks.

- The set (RFC 8210 section 5.6, 5.10; draft-ietf-sidrops-8210bis section 5.12): VRPs as fixed-width
  keys in a sorted array (a set of half a million is diffed and encoded as arrays, in tens of
  milliseconds), router keys as (SKI, AS, SubjectPublicKeyInfo), ASPAs as customer -> providers.
  Each VRP and each key is a record of its own; an ASPA is the customer's whole provider set, so a
  change of providers is a new announcement that replaces the old one.
- Serials are RFC 1982 arithmetic on 32 bits (RFC 8210 section 4): they wrap from 2^32 - 1 to 0.
- A Serial Query from a serial in the history gets the net change since then (an item announced
  and withdrawn in between is not mentioned); from one older than the history, a Cache Reset.
- An answer's octets (Cache Response, the payload PDUs, End of Data) are made once per protocol
  version and serial and shared by every session: serving a thousand routers is a thousand writes of
  the same buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bgpsim.rpki.vrps.payloads import Payloads

from . import pdu

HISTORY = 64  # deltas kept: a router that was away longer gets a Cache Reset
SERIAL_BITS = 32

# A VRP as one fixed-width key whose octets sort as section 11.2 orders prefixes: family, address,
# max length, prefix length, AS (an IPv4 address in the low 32 bits of `lo`, as the VRP readers keep it)
KEY = np.dtype([("v", "u1"), ("hi", ">u8"), ("lo", ">u8"), ("maxlen", "u1"), ("plen", "u1"), ("asn", ">u4")])
KEYS = f"S{KEY.itemsize}"
NONE = np.empty(0, KEYS)
PFX4 = np.dtype([("ver", "u1"), ("type", "u1"), ("zero", ">u2"), ("len", ">u4"), ("flags", "u1"), ("plen", "u1"),
                 ("maxlen", "u1"), ("z", "u1"), ("addr", ">u4"), ("asn", ">u4")])  # IPv4 Prefix PDU, 20 octets
PFX6 = np.dtype([("ver", "u1"), ("type", "u1"), ("zero", ">u2"), ("len", ">u4"), ("flags", "u1"), ("plen", "u1"),
                 ("maxlen", "u1"), ("z", "u1"), ("hi", ">u8"), ("lo", ">u8"), ("asn", ">u4")])  # IPv6, 32 octets


def serial_add(s: int, n: int) -> int:
    return (s + n) % (1 << SERIAL_BITS)


def serial_newer(a: int, b: int) -> bool:
    """RFC 1982 section 3.2: a > b."""
    half = 1 << (SERIAL_BITS - 1)
    return a != b and ((a > b and a - b < half) or (a < b and b - a > half))


def vrp_keys(version, hi, lo, plen, maxlen, asn) -> np.ndarray:
    """VRP columns (as the VRP readers give them) as sorted, distinct keys."""
    rec = np.empty(len(asn), KEY)
    rec["v"], rec["hi"], rec["lo"], rec["maxlen"], rec["plen"], rec["asn"] = version, hi, lo, maxlen, plen, asn
    return np.unique(rec.view(KEYS))


@dataclass(frozen=True)
class State:
    """A payload set: VRP keys (sorted, distinct), router-key records (SKI, AS, SPKI), ASPAs by customer."""

    vrps: np.ndarray = field(default_factory=lambda: NONE)
    keys: frozenset = frozenset()
    aspas: dict = field(default_factory=dict)

    @classmethod
    def of(cls, p: Payloads, columns: list[dict] = ()) -> State:
        """The payloads' (and the VRP readers' `columns'`) VRPs, keys and ASPAs; several ASPAs of one
        customer become one record (draft-ietf-sidrops-8210bis-27 section 5.12: their union)."""
        nets = [o.vrp.prefix for o in p.origins]
        addr = [int(n.network_address) for n in nets]
        parts = [(np.array([n.version for n in nets], "u1"), np.array([a >> 64 for a in addr], "u8"),
                  np.array([a & (2**64 - 1) for a in addr], "u8"), np.array([n.prefixlen for n in nets], "u1"),
                  np.array([o.vrp.max_length for o in p.origins], "u1"), np.array([o.vrp.asn for o in p.origins], "u4"))]
        parts += [(c["version"], c["hi"], c["lo"], c["plen"], c["maxlen"], c["asn"]) for c in columns]
        vrps = vrp_keys(*(np.concatenate([x[i] for x in parts]) for i in range(6)))
        keys = frozenset((k.ski, k.asn, k.spki) for k in p.router_keys)
        aspas: dict[int, tuple[int, ...]] = {}
        for a in p.aspas:
            aspas[a.customer] = tuple(sorted(set(aspas.get(a.customer, ())) | set(a.providers)))
        return cls(vrps, keys, aspas)

    def families(self) -> tuple[int, int]:
        """How many IPv4 and IPv6 VRPs."""
        v4 = int(np.count_nonzero(self.vrps.view("u1")[::KEY.itemsize] == 4)) if len(self.vrps) else 0
        return v4, len(self.vrps) - v4

    def __len__(self) -> int:
        return len(self.vrps) + len(self.keys) + len(self.aspas)


@dataclass
class Delta:
    """What changed between two serials: VRP keys announced and withdrawn, router-key records
    announced and withdrawn, and each changed customer's provider set before and after (None: no
    record)."""

    announced: np.ndarray = field(default_factory=lambda: NONE)
    withdrawn: np.ndarray = field(default_factory=lambda: NONE)
    keys_announced: set = field(default_factory=set)
    keys_withdrawn: set = field(default_factory=set)
    aspas: dict = field(default_factory=dict)  # customer -> (before, after)

    @classmethod
    def between(cls, old: State, new: State) -> Delta:
        aspas = {c: (old.aspas.get(c), new.aspas.get(c)) for c in old.aspas.keys() | new.aspas.keys()
                 if old.aspas.get(c) != new.aspas.get(c)}
        return cls(np.setdiff1d(new.vrps, old.vrps, assume_unique=True),
                   np.setdiff1d(old.vrps, new.vrps, assume_unique=True), set(new.keys - old.keys),
                   set(old.keys - new.keys), aspas)

    def then(self, later: Delta) -> Delta:
        """This change followed by `later`, as one net change: what `later` withdraws of what this
        announced is no news, and what it announces again of what this withdrew neither."""
        ann = np.setdiff1d(self.announced, later.withdrawn, assume_unique=True)
        wd = np.union1d(self.withdrawn, np.setdiff1d(later.withdrawn, self.announced, assume_unique=True))
        ann = np.union1d(ann, np.setdiff1d(later.announced, wd, assume_unique=True))
        wd = np.setdiff1d(wd, later.announced, assume_unique=True)
        kann = self.keys_announced - later.keys_withdrawn  # the router keys, as the VRPs above
        kwd = self.keys_withdrawn | (later.keys_withdrawn - self.keys_announced)
        kann |= later.keys_announced - kwd
        kwd -= later.keys_announced
        aspas = dict(self.aspas)
        for c, (_, after) in later.aspas.items():
            before = aspas[c][0] if c in aspas else later.aspas[c][0]
            if before == after:
                aspas.pop(c, None)
            else:
                aspas[c] = (before, after)
        return Delta(ann, wd, kann, kwd, aspas)

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
    ann = np.frombuffer(delta.announced.tobytes(), KEY)[::-1]  # keys sort ascending: announcements go down
    wd = np.frombuffer(delta.withdrawn.tobytes(), KEY)
    for family, dtype, kind in ((4, PFX4, pdu.IPV4_PREFIX), (6, PFX6, pdu.IPV6_PREFIX)):
        for flag, rec in ((1, ann), (0, wd)):
            rec = rec[rec["v"] == family]
            pdus = np.zeros(len(rec), dtype)
            pdus["ver"], pdus["type"], pdus["len"], pdus["flags"] = version, kind, dtype.itemsize, flag
            pdus["plen"], pdus["maxlen"], pdus["asn"] = rec["plen"], rec["maxlen"], rec["asn"]
            if family == 4:
                pdus["addr"] = rec["lo"] & 0xFFFFFFFF
            else:
                pdus["hi"], pdus["lo"] = rec["hi"], rec["lo"]
            out.append(pdus.tobytes())
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

    def load(self, new: State | Payloads) -> Delta | None:
        """Take a new payload set: the change it makes (None for the first; an empty change keeps the serial)."""
        new = new if isinstance(new, State) else State.of(new)
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
            everything = Delta(s.vrps, NONE, set(s.keys), set(), {c: (None, p) for c, p in s.aspas.items()})
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
