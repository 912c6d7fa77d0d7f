"""Route origin validation, RFC 6811.

A route is *covered* by a VRP when the VRP's prefix contains the route's prefix (section 2). A covered
route is *valid* when some covering VRP has the route's origin ASN and a maxLength at least the route's
length; otherwise it is *invalid*, and we say why: `invalid-asn` when no covering VRP names the origin,
`invalid-length` when one does but the route is longer than its maxLength. An uncovered route is
`not-found`. A VRP for AS0 (RFC 7607) covers but never validates.

`VRPTable.validate_many` answers for millions of routes at once. VRP prefixes nest (any two are
disjoint or one holds the other), so the prefixes that cover a route are a chain: the most specific
one, found by one binary search among the prefixes sorted by start and a climb to the first that
holds the route, and its ancestors. Each link of the chain is then asked, by one more binary search,
for the best maxLength it grants the route's origin. The walks, one route at a time, are the
compiled core's (core/rov.c), and so is the pass that builds the index (core/rov_index.c). IPv6
prefixes are compared on their first 64 bits; the rare VRP or route longer than /64 is answered one
at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network

from bgpsim import _core


class _Numpy:
    """numpy, imported on first use: a relying party run reads VRPs (rpki.roa) but validates no
    routes, and numpy takes a tenth of a second to import."""

    def __getattr__(self, name: str):
        global np
        import numpy

        np = numpy
        return getattr(numpy, name)


np = _Numpy()

VALID = "valid"
INVALID_ASN = "invalid-asn"
INVALID_LENGTH = "invalid-length"
NOT_FOUND = "not-found"
STATES = (VALID, INVALID_ASN, INVALID_LENGTH, NOT_FOUND)  # validate_many's codes index this
_VALID, _INVALID_ASN, _INVALID_LENGTH, _NOT_FOUND = range(4)
_BITS = {4: 32, 6: 64}  # bits of an address the index compares
_FEW = 8  # VRPs a table may hold and still check one route by a scan, unindexed


class Networks:
    """A column of network addresses (IPv4 or IPv6) held as two uint64 arrays, `high` and `low`:
    the address is high << 64 | low (an IPv4 address is all in `low`). It reads as a sequence of
    Python ints (len, indexing, iteration, tolist); indexing with an array or a slice gives a
    Networks. This is how VRPTable keeps its addresses: numpy arrays of Python ints (dtype object)
    are made, converted and pickled one element at a time, these at once."""

    __slots__ = ("high", "low")

    def __init__(self, high, low):
        self.high = np.asarray(high, dtype=np.uint64)
        self.low = np.asarray(low, dtype=np.uint64)

    @classmethod
    def of(cls, values) -> Networks:
        """A Networks from Python ints (a list, an array of dtype object) or a Networks."""
        if isinstance(values, Networks):
            return values
        try:
            low = np.asarray(values, dtype=np.uint64)  # every one below 2**64 (IPv4 only, say)
            if low.ndim == 1:
                return cls(np.zeros(len(low), dtype=np.uint64), low)
        except (OverflowError, TypeError, ValueError):
            pass
        values = [int(x) for x in values]
        return cls([x >> 64 for x in values], [x & (2**64 - 1) for x in values])

    def __len__(self) -> int:
        return len(self.low)

    def __getitem__(self, k):
        if isinstance(k, (int, np.integer)):
            return int(self.high[k]) << 64 | int(self.low[k])
        return Networks(self.high[k], self.low[k])

    def tolist(self) -> list[int]:
        out = self.low.tolist()
        big = np.flatnonzero(self.high)
        for i, h in zip(big.tolist(), self.high[big].tolist()):
            out[i] |= h << 64
        return out

    def __iter__(self):
        return iter(self.tolist())

    def __array__(self, dtype=None, copy=None):
        out = np.empty(len(self), dtype=object)
        out[:] = self.tolist()
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        return f"Networks({self.tolist()!r})"


@dataclass(frozen=True, order=True)
class VRP:
    """Validated ROA Payload: (prefix, maxLength, origin ASN)."""

    prefix: IPv4Network | IPv6Network
    max_length: int
    asn: int

    def __post_init__(self):
        if not self.prefix.prefixlen <= self.max_length <= self.prefix.max_prefixlen:
            raise ValueError(f"maxLength {self.max_length} outside {self.prefix.prefixlen}..{self.prefix.max_prefixlen} for {self.prefix}")

    def __reduce__(self):
        # as numbers: a network pickled as itself is its text, parsed again (a relying party's
        # worker sends each of its ROAs' VRPs); rebuilt from numbers a VRP costs a third of that
        p = self.prefix
        return _vrp, (p.version, int(p.network_address), p.prefixlen, self.max_length, self.asn)


def _vrp(version: int, network: int, length: int, max_length: int, asn: int) -> VRP:
    return VRP((IPv4Network if version == 4 else IPv6Network)((network, length)), max_length, asn)


class _Family:
    """The index of one address family: distinct VRP prefixes sorted by start then length, each
    with its nearest enclosing prefix, and (prefix, ASN) pairs with the best maxLength. Built from
    columns (one entry per VRP; `start` the address, for IPv6 its first 64 bits), sorted here, by
    one pass of the compiled core (core/rov_index.c) and the nesting (nest). Kept in
    the narrowest types that hold the values (lengths in a byte, ASNs and positions in four): a
    million VRPs take about 40 MB. The walks over it are the compiled core's (core/rov.c)."""

    def __init__(self, version: int, start: np.ndarray, length: np.ndarray, max_length: np.ndarray,
                 asn: np.ndarray, network: Networks):
        bits = _BITS[version]
        self.version = version
        n = len(start)
        if n >= 2**31:
            raise ValueError(f"{n} VRPs of IPv{version}: the index holds at most 2**31 - 1")
        network = network.low if bits == 32 else network  # an IPv4 address is all in `low`
        start, length, max_length, asn = (np.ascontiguousarray(c, dtype=t) for c, t in
                                          zip((start, length, max_length, asn), (np.uint64, np.uint8, np.uint8, np.uint32)))
        # prefix k's VRPs are rows first[k] to first[k + 1]; its (prefix << 32 | ASN) pairs, sorted, with
        # the best maxLength each ASN has there, pair_first[k] to pair_first[k + 1] (none for AS0 alone)
        try:  # the pass wants the VRPs sorted by (start, length), as relying parties write them, and says if not
            columns = _core.rov_index(start, length, max_length, asn)
        except ValueError:
            if bits == 32:  # (start, length) in one word: one stable sort
                order = np.argsort((start << np.uint64(8)) | length.astype(np.uint64), kind="stable")
            else:
                order = np.lexsort((length, start))
            start, length, max_length, asn, network = start[order], length[order], max_length[order], asn[order], network[order]
            columns = _core.rov_index(start, length, max_length, asn)
        self._rows = (network, length, max_length, asn)  # each VRP, for holding_many()
        self.first, self.start, self.length, self.pair, self.pair_max, self.pair_first = (
            np.frombuffer(c, dtype=t) for c, t in zip(columns, (np.int32, np.uint64, np.uint8, np.uint64, np.uint8, np.int32)))
        self.parent = nest(self.start, self.length, bits).astype(np.int32)

    def holding_many(self, start: np.ndarray, length: np.ndarray) -> list[list[tuple[int, int, int, int]]]:
        """(network, length, maxLength, ASN) of the VRPs whose prefix holds each route (`start`: its
        address, or for IPv6 its first 64 bits; `length` at most 32 or 64), most specific first:
        each a walk up the tree from the last prefix starting at or before the route
        (_core.rov_holding)."""
        offsets, rows = _core.rov_holding(_BITS[self.version], self.start, self.length, self.parent, self.first,
                                          np.ascontiguousarray(start, dtype=np.uint64),
                                          np.ascontiguousarray(length, dtype=np.int64))
        offsets, rows = np.frombuffer(offsets, dtype=np.int64), np.frombuffer(rows, dtype=np.int64)
        network, plen, max_length, asn = self._rows
        held = list(zip(network[rows].tolist(), plen[rows].tolist(), max_length[rows].tolist(), asn[rows].tolist()))
        return [held[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]

    def reasons(self, start: np.ndarray, length: np.ndarray, origin: np.ndarray, state: np.ndarray) -> list[bytes]:
        """The status and reason fields of invalid routes (`state`: their codes, invalid-asn or
        invalid-length), naming the VRPs that hold each (_core.rov_reasons; `start` and `length` as
        for holding_many)."""
        network, plen, max_length, asn = self._rows
        high, low = (network.high, network.low) if self.version == 6 else (network, network)
        return _core.rov_reasons(_BITS[self.version], self.start, self.length, self.parent, self.first, high, low, plen,
                                 max_length, asn, np.ascontiguousarray(start, dtype=np.uint64),
                                 np.ascontiguousarray(length, dtype=np.int64),
                                 np.ascontiguousarray(origin, dtype=np.int64), np.ascontiguousarray(state, dtype=np.uint8))

    def validate(self, start: np.ndarray, length: np.ndarray, origin: np.ndarray) -> np.ndarray:
        """The RFC 6811 state code (an index into STATES) of each route (_core.rov_validate): the
        most specific prefix holding it found by a search (a gallop from the previous route's place)
        and a climb, then the best
        maxLength it and each ancestor grant the origin, by a binary search among its pairs. The
        routes go in address order, so that the walks read the index in order, from the cache: on
        2 million routes (bench/bench_rov.py) the walks take an eighth of the time they take on the
        routes in random order, and the sort less than that saves."""
        start = np.asarray(start, dtype=np.uint64)
        n = len(start)
        if _BITS[self.version] == 32 and 0 < n < 2**31 and start.max() < 2**32:  # (start, position) packed
            shift = n.bit_length()  # in a word: sorted faster than by argsort
            # the stable sort (a merge sort) takes runs already in order as they are: a RIB's routes
            # come sorted, and so do many of an update dump's
            packed = np.sort((start << np.uint64(shift)) | np.arange(n, dtype=np.uint64), kind="stable")
            order = (packed & np.uint64((1 << shift) - 1)).astype(np.int64)
            start = packed >> np.uint64(shift)
        else:
            order = np.argsort(start, kind="stable")
            start = start[order]
        state = _core.rov_validate(_BITS[self.version], self.start, self.length, self.parent, self.pair_first, self.pair,
                                   self.pair_max, start, np.asarray(length, dtype=np.int64)[order],
                                   np.asarray(origin, dtype=np.int64)[order])
        out = np.empty(n, dtype=np.uint8)
        out[order] = np.frombuffer(state, dtype=np.uint8)
        return out


def _columns(version, network, length, max_length, asn) -> tuple:
    """A VRPTable's columns, each in the narrowest type that holds it (the index keeps them so)."""
    return (np.asarray(version, dtype=np.int8), Networks.of(network), np.asarray(length, dtype=np.uint8),
            np.asarray(max_length, dtype=np.uint8), np.asarray(asn, dtype=np.uint32))


class VRPTable:
    """VRPs, for covering lookups one route at a time or millions at once. Made from VRP objects, or
    (`from_columns`) from columns, which is how large sets are read fast (rpki.vrps.read_vrp_columns)."""

    def __init__(self, vrps=()):
        self._vrps: list[VRP] | None = list(vrps)
        self._cols: tuple | None = None
        self._index: dict[int, _Family] | None = None
        self._long: list[VRP] = []  # IPv6 VRPs longer than /64

    @classmethod
    def from_columns(cls, version, network, length, max_length, asn) -> VRPTable:
        """One entry per VRP: IP version (4 or 6), network address (Python ints, or a Networks),
        prefix length, maxLength, ASN (values already checked, e.g. by rpki.vrps.read_vrp_columns)."""
        t = cls()
        t._vrps = None
        t._cols = _columns(version, network, length, max_length, asn)
        return t

    def __getstate__(self) -> dict:
        """Once indexed, a table pickled (to another process) travels as its index alone (the columns
        can be made again from it, in index order)."""
        state = dict(self.__dict__)
        if self._index is not None:
            state["_count"], state["_cols"], state["_vrps"] = len(self), None, None
        return state

    def _columns(self) -> tuple:
        if self._cols is None and self._vrps is None:  # a table that came by pickle: from its index
            rows = [(v, *row) for v, f in self._index.items()
                    for row in zip(f._rows[0].tolist(), *(c.tolist() for c in f._rows[1:]))]
            rows += [(6, int(x.prefix.network_address), x.prefix.prefixlen, x.max_length, x.asn) for x in self._long]
            self._cols = _columns(*(zip(*rows) if rows else ((),) * 5))
        if self._cols is None:
            v = self._vrps
            self._cols = _columns([x.prefix.version for x in v], [int(x.prefix.network_address) for x in v],
                                  [x.prefix.prefixlen for x in v], [x.max_length for x in v], [x.asn for x in v])
        return self._cols

    def _list(self) -> list[VRP]:
        if self._vrps is None:
            ver, net, length, ml, asn = self._columns()
            self._vrps = [VRP((IPv4Network if a == 4 else IPv6Network)((n, k)), m, s)
                          for a, n, k, m, s in zip(ver.tolist(), net.tolist(), length.tolist(), ml.tolist(),
                                                   asn.tolist())]
        return self._vrps

    def add(self, vrp: VRP) -> None:
        self._list().append(vrp)
        self._cols = None
        self._index = None

    def __len__(self) -> int:
        if self._vrps is not None:
            return len(self._vrps)
        return len(self._cols[0]) if self._cols is not None else self._count

    def __iter__(self):
        return iter(self._list())

    def _families(self) -> dict[int, _Family]:
        if self._index is None:
            ver, net, length, ml, asn = self._columns()
            long = (ver == 6) & (length > 64)
            k = np.flatnonzero(long)
            self._long = [VRP(IPv6Network((x, n)), m, a) for x, n, m, a in
                          zip(net[k].tolist(), length[k].tolist(), ml[k].tolist(), asn[k].tolist())]
            self._index = {}
            for v in (4, 6):
                sel = np.flatnonzero((ver == v) & ~long)
                nets = net[sel]
                top = nets.high if v == 6 else nets.low  # the bits the index compares
                self._index[v] = _Family(v, top, length[sel], ml[sel], asn[sel], nets)
        return self._index

    def covering(self, prefix: IPv4Network | IPv6Network) -> list[VRP]:
        """The VRPs whose prefix holds `prefix`, most specific first."""
        cls = IPv4Network if prefix.version == 4 else IPv6Network
        return [VRP(cls((n, k)), m, a) for n, k, m, a in
                self.covering_rows(prefix.version, int(prefix.network_address), prefix.prefixlen)]

    def covering_rows(self, version: int, network: int, length: int) -> list[tuple[int, int, int, int]]:
        """covering() as (network, length, maxLength, ASN) tuples, for a route given by numbers."""
        bits = _BITS[version]
        self._families()  # which sets the VRPs longer than /64 apart, in _long
        long = []
        if length > bits:  # an IPv6 route longer than /64: VRPs longer than /64 may hold it
            route = IPv6Network((network, length))
            long = sorted(((int(v.prefix.network_address), v.prefix.prefixlen, v.max_length, v.asn)
                           for v in self._long if route.subnet_of(v.prefix)), key=lambda t: -t[1])
        shift = 128 - bits if version == 6 else 0
        return long + self.covering_rows_many(version, [network >> shift], [length])[0]

    def covering_rows_many(self, version: int, start: np.ndarray, length: np.ndarray) -> list[list[tuple]]:
        """covering_rows() of many routes of one IP version at once, given by arrays: `start` the
        address (IPv4) or its first 64 bits (IPv6), `length` at most 32 or 64."""
        return self._families()[version].holding_many(start, np.minimum(length, _BITS[version]))

    def reasons(self, version: int, start: np.ndarray, length: np.ndarray, origin: np.ndarray,
                state: np.ndarray) -> list[bytes]:
        """Why each of many invalid routes of one IP version is invalid: its status and reason fields
        as `bgpsim validate` writes them (core/rov_reasons.c), given as for covering_rows_many and
        by their origins and state codes (invalid-asn or invalid-length)."""
        return self._families()[version].reasons(start, np.minimum(length, _BITS[version]), origin, state)

    def reason(self, prefix: IPv4Network | IPv6Network, origin: int, state: int) -> bytes:
        """reasons() of one route, any length (an IPv6 route longer than /64 may be held by VRPs
        longer than /64)."""
        rows = self.covering_rows(prefix.version, int(prefix.network_address), prefix.prefixlen)
        return _core.reason_text(prefix.version, state, prefix.prefixlen, origin, rows)

    def validate(self, prefix: IPv4Network | IPv6Network, origin: int) -> str:
        """RFC 6811 state of one route. A table of a few VRPs not yet indexed (a trial's ROA, made for
        it) is read as it is: its index would take a hundred times the lookup."""
        if self._index is None and self._vrps is not None and len(self._vrps) <= _FEW:
            return _validate_slow([v for v in self._vrps if v.prefix.version == prefix.version
                                   and prefix.subnet_of(v.prefix)], prefix, origin)
        return STATES[int(self.validate_many([prefix], [origin])[0])]

    def validate_many(self, prefixes, origins) -> np.ndarray:
        """RFC 6811 state code (an index into STATES) of each route (prefix, origin ASN)."""
        fams = self._families()
        n = len(prefixes)
        out = np.full(n, _NOT_FOUND, dtype=np.uint8)
        origins = np.asarray(origins, dtype=np.int64)
        for ver, fam in fams.items():
            idx = [k for k, p in enumerate(prefixes) if p.version == ver]
            if not idx:
                continue
            bits = _BITS[ver]
            shift = 128 - bits if ver == 6 else 0
            sel = np.asarray(idx, dtype=np.int64)
            start = np.asarray([int(prefixes[k].network_address) >> shift for k in idx], dtype=np.uint64)
            length = np.asarray([min(prefixes[k].prefixlen, bits) for k in idx], dtype=np.int64)
            out[sel] = fam.validate(start, length, origins[sel])
        for k, p in enumerate(prefixes):  # exact answers where /64 is not enough (only longer routes
            if p.version == 6 and p.prefixlen > 64:  # can be covered by longer VRPs)
                out[k] = STATES.index(_validate_slow(self.covering(p), p, int(origins[k])))
        return out

    def validate_arrays(self, version: int, start: np.ndarray, length: np.ndarray, origin: np.ndarray) -> np.ndarray:
        """validate_many for routes given as arrays: `start` the network address (IPv4: the address;
        IPv6: its first 64 bits), `length` the prefix length (IPv6: at most 64). For readers that
        decode route dumps straight into arrays."""
        return self._families()[version].validate(start, length, origin)


def nest(lo: np.ndarray, length: np.ndarray, bits: int, hi: np.ndarray | None = None) -> np.ndarray:
    """For prefixes sorted by (address, length), each one's nearest enclosing prefix (-1 for none),
    by one scan (_core.nest): prefixes nest or are disjoint, so the ones before i still open at i's
    start all hold i. Addresses `bits` wide (32, 64 or 128) as hi << 64 | lo, hi None for zeros."""
    if hi is not None:
        hi = np.ascontiguousarray(hi, dtype=np.uint64)
    return np.frombuffer(_core.nest(bits, hi, np.ascontiguousarray(lo, dtype=np.uint64),
                                    np.ascontiguousarray(length, dtype=np.uint8)), dtype=np.int64)


def _validate_slow(covering: list[VRP], prefix, origin: int) -> str:
    """RFC 6811 section 2's rule, on the VRPs that cover the route (any order)."""
    if not covering:
        return NOT_FOUND
    asn_match = False
    for v in covering:
        if v.asn == origin and v.asn != 0:
            if prefix.prefixlen <= v.max_length:
                return VALID
            asn_match = True
    return INVALID_LENGTH if asn_match else INVALID_ASN
