"""The AS graph: ASes, provider-customer and peer links.

ASes are indexed 0..n-1 in ascending ASN order, so comparing indices compares ASNs (the routing
model's final tie-break is the lowest next-hop ASN). Links are kept as arrays (for solvers and
analysis) and, built on first use, as per-AS Python lists (for the event engine's inner loop, where
list iteration beats numpy indexing).

Readers: CAIDA AS-relationship files, serial-1 (`a|b|rel`) and serial-2 (`a|b|rel|source`), plain,
gzip or bzip2 (`read_caida`); the project's TOML topology with names and roles (`read_toml`).
Both refuse self-links, conflicting duplicate links and provider-customer cycles, naming the lines.
"""

from __future__ import annotations

import lzma
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from bgpsim.base.errors import InputError

MAX_ASN = 2**32 - 1

# Relationship of a neighbour, as seen from the AS that holds the route. The order is the routing
# model's preference: routes from customers before peers before providers.
CUSTOMER, PEER, PROVIDER = 1, 2, 3


@dataclass(eq=False)
class Topology:
    asns: np.ndarray  # int64, ascending
    p2c: np.ndarray  # (m, 2) int32 indices: provider, customer
    p2p: np.ndarray  # (k, 2) int32 indices, each peering once
    source: str = ""
    name: str = ""
    names: dict[int, str] = field(default_factory=dict)  # ASN -> display name
    roles: dict[int, str] = field(default_factory=dict)  # ASN -> role (tier-1, transit, stub...)
    clique: list[int] = field(default_factory=list)  # CAIDA header "input clique"
    ixps: list[int] = field(default_factory=list)  # CAIDA header "IXP ASes"

    def __eq__(self, other) -> bool:
        """The same ASes and the same links (names, roles and headers aside)."""
        if not isinstance(other, Topology):
            return NotImplemented
        canon = lambda pp: np.unique(np.sort(pp, axis=1), axis=0) if len(pp) else pp.reshape(0, 2)
        return (np.array_equal(self.asns, other.asns) and np.array_equal(np.unique(self.p2c, axis=0), np.unique(other.p2c, axis=0))
                and np.array_equal(canon(self.p2p), canon(other.p2p)))

    @property
    def n(self) -> int:
        return len(self.asns)

    @property
    def links(self) -> int:
        return len(self.p2c) + len(self.p2p)

    @cached_property
    def bogon_ases(self) -> np.ndarray:
        """Which ASes have special-purpose numbers (bgpsim.base.bogons), for the bogon filter."""
        from bgpsim.base.bogons import asn_kinds

        return asn_kinds(self.asns) > 0

    @cached_property
    def index(self) -> dict[int, int]:
        return {int(a): i for i, a in enumerate(self.asns)}

    def idx(self, asn: int, what: str = "AS") -> int:
        """Index of an ASN, or an InputError saying it is not in the graph."""
        try:
            return self.index[asn]
        except KeyError:
            raise InputError(f"{what} {asn} is not in the topology ({self.source or self.name})") from None

    def _lists(self, pairs: np.ndarray, col_from: int) -> list[list[int]]:
        """Each AS's neighbours of one kind, sorted: one sort of the pairs, then a slice per AS (a
        Python append per link took a second on the 2025 graph)."""
        src, dst = pairs[:, col_from], pairs[:, 1 - col_from]
        flat = dst[np.lexsort((dst, src))].tolist()
        ends = np.cumsum(np.bincount(src, minlength=self.n)).tolist()
        return [flat[a:b] for a, b in zip([0, *ends[:-1]], ends)]

    @cached_property
    def customers(self) -> list[list[int]]:
        return self._lists(self.p2c, 0)

    @cached_property
    def providers(self) -> list[list[int]]:
        return self._lists(self.p2c, 1)

    @cached_property
    def peers(self) -> list[list[int]]:
        both = np.concatenate([self.p2p, self.p2p[:, ::-1]]) if len(self.p2p) else self.p2p
        return self._lists(both, 0)

    def neighbours(self, i: int) -> list[int]:
        """AS i's neighbours: its customers, peers and providers."""
        return self.customers[i] + self.peers[i] + self.providers[i]

    def degree(self, i: int) -> int:
        return len(self.customers[i]) + len(self.peers[i]) + len(self.providers[i])

    def relationship(self, i: int, j: int) -> int | None:
        """What j is to i: CUSTOMER, PEER, PROVIDER, or None when not linked."""
        for rel, lst in ((CUSTOMER, self.customers[i]), (PEER, self.peers[i]), (PROVIDER, self.providers[i])):
            if j in lst:
                return rel
        return None

    @cached_property
    def _link_keys(self) -> np.ndarray:
        pairs = np.concatenate([self.p2c, self.p2p]).astype(np.int64)
        return np.sort(np.concatenate([pairs[:, 0] * self.n + pairs[:, 1], pairs[:, 1] * self.n + pairs[:, 0]]))

    def linked(self, a, b):
        """Whether a and b (indices; arrays or scalars; -1 is no AS) share a link."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        key = a * self.n + b
        keys = self._link_keys
        pos = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
        return (a >= 0) & (b >= 0) & (len(keys) > 0) & (keys[pos] == key)

    @cached_property
    def edge_ases(self) -> np.ndarray:
        """Which ASes are at the edge, as BGPy's EdgeFilter judges: one neighbour (a stub), or no
        customers and more than one neighbour (multihomed)."""
        n = self.n
        cust = np.bincount(self.p2c[:, 0].astype(np.int64), minlength=n)
        deg = cust + np.bincount(self.p2c[:, 1].astype(np.int64), minlength=n) + np.bincount(
            self.p2p.ravel().astype(np.int64), minlength=n)
        return (deg == 1) | ((cust == 0) & (deg > 1))

    def stubs(self) -> list[int]:
        """Indices of ASes with no customers."""
        return np.flatnonzero(np.bincount(self.p2c[:, 0], minlength=self.n) == 0).tolist()

    def largest_cones(self, k: int, exclude=()) -> list[int]:
        """The ASNs of the `k` ASes with the largest customer cones (ties: the lower ASN), leaving
        out the ASNs in `exclude`."""
        asns, cones = self.asns.tolist(), self.cone_sizes.tolist()
        order = sorted(range(self.n), key=lambda i: (-cones[i], asns[i]))
        return [asns[i] for i in order if asns[i] not in exclude][:k]

    @cached_property
    def ranks(self) -> np.ndarray:
        """Customer-to-provider rank: 0 for ASes without customers, else 1 + the highest customer rank."""
        return _ranks(self.n, self.p2c)

    @cached_property
    def cone_sizes(self) -> np.ndarray:
        """Customer-cone size of every AS (itself included), as CAIDA defines it: bitsets built
        bottom-up in the core (core/cones.c)."""
        from bgpsim import _core

        customers = Adjacency(self.n, self.p2c[:, 0], self.p2c[:, 1])
        sizes = np.ones(self.n, dtype=np.int64)
        order = np.argsort(self.ranks, kind="stable").astype(np.int64, copy=False)
        _core.customer_cones(customers.start.astype(np.int64, copy=False), customers.to, order, sizes)
        return sizes

    def label(self, asn: int) -> str:
        return f"AS{asn} {self.names[asn]}" if asn in self.names else f"AS{asn}"


class Adjacency:
    """Neighbour lists as arrays (CSR): the neighbours of AS i are `to[start[i]:start[i + 1]]`."""

    def __init__(self, n: int, src: np.ndarray, dst: np.ndarray):
        order = np.argsort(src, kind="stable")
        self.to = np.asarray(dst, dtype=np.int64)[order]
        self.start = np.searchsorted(np.asarray(src)[order], np.arange(n + 1))

    def of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (row, neighbour) pair of the ASes `rows`, as two arrays."""
        lo, hi = self.start[rows], self.start[rows + 1]
        cnt = hi - lo
        return np.repeat(rows, cnt), self.to[np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(cnt.sum())]


def _ranks(n: int, p2c: np.ndarray, asns: np.ndarray | None = None, lines: np.ndarray | None = None,
           source: str = "") -> np.ndarray:
    """Kahn's algorithm bottom-up, a whole level at a time: an AS's rank is the level at which its
    last customer is done. A provider-customer cycle is an InputError naming its links."""
    prov, cust = p2c[:, 0].astype(np.int64), p2c[:, 1].astype(np.int64)
    providers = Adjacency(n, cust, prov)
    left = np.bincount(prov, minlength=n)
    rank = np.zeros(n, dtype=np.int64)
    level = np.flatnonzero(left == 0)
    done, r = 0, 0
    while level.size:
        rank[level] = r
        done += level.size
        dec = np.bincount(providers.of(level)[1], minlength=n)
        left -= dec
        level = np.flatnonzero((dec > 0) & (left == 0))
        r += 1
    if done < n:
        raise _cycle_error(p2c, left, asns, lines, source)
    return rank


def _cycle_error(p2c, left, asns, lines, source: str) -> InputError:
    """Name one cycle among the ASes Kahn's algorithm could not finish (networkx finds it)."""
    import networkx as nx

    stuck = left > 0
    g = nx.DiGraph()
    for k, (p, c) in enumerate(p2c.tolist()):
        if stuck[p] and stuck[c]:
            g.add_edge(p, c, k=k)
    cycle = nx.find_cycle(g)
    name = (lambda i: f"AS{asns[i]}") if asns is not None else (lambda i: f"AS#{i}")
    text = " -> ".join(name(u) for u, _ in cycle) + f" -> {name(cycle[0][0])}"
    if lines is not None and len(lines):
        text += " (lines " + ", ".join(str(int(lines[g.edges[e]["k"]])) for e in cycle) + ")"
    return InputError(f"provider-customer cycle: {text}", source)


def _open_text(path: Path) -> bytes:
    """Whole file, decompressed by its magic number (gzip, bzip2, xz) or plain. gzip and bzip2 go
    through bgpsim.mrt.stream, which decompresses bzip2 on several threads: the 2025 graph's 0.6 s
    of bzip2 is most of what loading it takes."""
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except FileNotFoundError:
        raise InputError("no such file", str(path)) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", str(path)) from None
    if head.startswith(b"\xfd7zXZ"):
        try:
            with lzma.open(path, "rb") as f:
                return f.read()
        except (OSError, EOFError, lzma.LZMAError) as e:
            raise InputError(f"cannot decompress: {e}", str(path)) from None
    from bgpsim.mrt.stream import Chunks

    chunks = Chunks(str(path))
    try:
        data = b"".join(chunks)
    except InputError as e:
        raise InputError(f"cannot decompress: {e.message}", str(path)) from None
    finally:
        chunks.close()
    if chunks.truncated:
        raise InputError(f"cannot decompress: {chunks.truncated}", str(path))
    return data


def _parse_asn(text: bytes) -> int:
    if not text.isdigit():
        raise ValueError
    asn = int(text)
    if not 0 < asn <= MAX_ASN:
        raise ValueError
    return asn


_SOURCES = (b"|bgp,mlp\n", b"|bgp\n", b"|mlp\n")  # serial-2's fourth field, as CAIDA writes it
_NUMERIC = b"0123456789|-\n"


def _read_fast(data: bytes, src: str, name: str) -> Topology | None:
    """The common case in whole-array operations: comments only at the top, then well-formed lines
    with no self-links or duplicates. None when anything is unusual: the line-by-line reader then
    reads the file and names the line at fault."""
    head = 0
    while data.startswith(b"#", head):
        head = data.find(b"\n", head) + 1
        if head == 0:
            return None
    body = data[head:]
    if body and not body.endswith(b"\n"):
        body += b"\n"
    for source in _SOURCES:  # (another source, anywhere, leaves a letter: the line-by-line reader then)
        body = body.replace(source, b"\n")
    if body.translate(None, _NUMERIC):  # anything but digits, '|', '-' and newlines
        return None
    lines = body.count(b"\n")
    if lines == 0 or body.count(b"|") != 2 * lines or b"\n\n" in body or body.startswith(b"\n"):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            v = np.fromstring(body.replace(b"|", b" ").decode("ascii"), dtype=np.int64, sep=" ")
    except ValueError:
        return None
    if v.size != 3 * lines:
        return None
    v = v.reshape(-1, 3)
    a, b, rel = v[:, 0], v[:, 1], v[:, 2]
    if a.min() < 1 or b.min() < 1 or max(a.max(), b.max()) > MAX_ASN or (a == b).any() or ((rel != 0) & (rel != -1)).any():
        return None
    key = np.sort(np.minimum(a, b) << 32 | np.maximum(a, b))
    if (key[1:] == key[:-1]).any():
        return None
    clique: list[int] = []
    ixps: list[int] = []
    for number, line in enumerate(data[:head].split(b"\n"), 1):
        _header(line, number, src, clique, ixps)
    is_pc = rel == -1
    first_line = data[:head].count(b"\n") + 1
    return _build(v[is_pc, :2], v[~is_pc, :2], src, first_line + np.flatnonzero(is_pc), clique=clique, ixps=ixps, name=name)


def _header(line: bytes, number: int, src: str, clique: list[int], ixps: list[int]) -> None:
    """The ASNs of a '# input clique:' or '# IXP ASes:' comment line, added to `clique` or `ixps`."""
    for header, dest in ((b"# input clique:", clique), (b"# IXP ASes:", ixps)):
        if line.startswith(header):
            try:
                dest.extend(_parse_asn(t) for t in line[len(header):].split())
            except ValueError:
                raise InputError(f"bad ASN in header {header.decode()!r}", src, number) from None


def read_caida(path: str | Path) -> Topology:
    """Read a CAIDA AS-relationship file (serial-1 or serial-2; plain, .gz or .bz2).

    Lines are `a|b|-1` (a is the provider of b) or `a|b|0` (peers); serial-2 adds `|source`.
    Comment lines start with '#'; the headers '# input clique:' and '# IXP ASes:' are kept.
    """
    path = Path(path)
    src = str(path)
    data = _open_text(path)
    fast = _read_fast(data, src, path.name)
    if fast is not None:
        return fast
    clique: list[int] = []
    ixps: list[int] = []
    seen: dict[int, tuple[int, int]] = {}  # pair key -> (line, signed rel)
    p2c: list[tuple[int, int]] = []
    p2c_lines: list[int] = []
    p2p: list[tuple[int, int]] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        line = raw.rstrip(b"\r")
        if not line:
            continue
        if line[0] == 0x23:  # '#'
            _header(line, number, src, clique, ixps)
            continue
        parts = line.split(b"|")
        if len(parts) not in (3, 4):
            raise InputError(f"want 'AS|AS|rel' or 'AS|AS|rel|source', got {line[:60].decode(errors='replace')!r}", src, number)
        try:
            a = _parse_asn(parts[0])
            b = _parse_asn(parts[1])
        except ValueError:
            raise InputError(f"want two ASNs in 1..{MAX_ASN}, got {line[:60].decode(errors='replace')!r}", src, number) from None
        if parts[2] == b"-1":
            rel = -1
        elif parts[2] == b"0":
            rel = 0
        else:
            raise InputError(f"want relationship -1 (provider|customer) or 0 (peers), got {parts[2].decode(errors='replace')!r}", src, number)
        if a == b:
            raise InputError(f"self-link AS{a}|AS{b}", src, number)
        # One key per unordered pair; the sign records the direction of a provider-customer link.
        key = (a << 32) | b if a < b else (b << 32) | a
        signed = 0 if rel == 0 else (1 if a < b else -1)
        if key in seen:
            first, prev = seen[key]
            if prev == signed:
                continue  # the same link twice: harmless
            raise InputError(f"conflicting duplicate link AS{a}-AS{b} (first given on line {first})", src, number)
        seen[key] = (number, signed)
        if rel == -1:
            p2c.append((a, b))
            p2c_lines.append(number)
        else:
            p2p.append((a, b))
    return _build(p2c, p2p, src, np.array(p2c_lines, dtype=np.int64), clique=clique, ixps=ixps, name=path.name)


def _build(p2c_asn, p2p_asn, source, p2c_lines=None, **extra) -> Topology:
    pc = np.array(p2c_asn, dtype=np.int64).reshape(-1, 2)
    pp = np.array(p2p_asn, dtype=np.int64).reshape(-1, 2)
    every = np.concatenate([pc.ravel(), pp.ravel(), np.array(extra.pop("lonely", []), dtype=np.int64)])
    if len(every) == 0:
        raise InputError("no links", source)
    # one sort gives the ASes and every link end's index among them (np.unique hashes, and searching
    # the ends again took longer than the sort)
    order = np.argsort(every, kind="stable")
    ordered = every[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    asns = ordered[new]
    index = np.empty(len(every), dtype=np.int32)
    index[order] = np.cumsum(new, dtype=np.int32) - 1
    pci = index[:pc.size].reshape(-1, 2)
    ppi = index[pc.size:pc.size + pp.size].reshape(-1, 2)
    ranks = _ranks(len(asns), pci, asns, p2c_lines, source)
    topo = Topology(asns=asns, p2c=pci, p2p=ppi, source=source, **extra)
    topo.__dict__["ranks"] = ranks
    return topo


def read_toml(path: str | Path) -> Topology:
    """Read the project's topology format: one `[[as]]` table per AS.

    ```toml
    name = "Teaching Internet"
    [[as]]
    asn = 64500
    name = "Northwind Transit"
    role = "transit"
    providers = [64496, 64497]   # this AS is their customer
    peers = [64501]
    ```
    A link may be written on either end (or both, if they agree).
    """
    from bgpsim.base.tomlfile import TomlFile

    doc = TomlFile(path)
    src = doc.path
    doc.check_keys(doc.data, {"name", "description", "as"})
    entries = doc.data.get("as")
    if not isinstance(entries, list) or not entries:
        raise doc.error("want one or more [[as]] tables", "as")
    names: dict[int, str] = {}
    roles: dict[int, str] = {}
    p2c: list[tuple[int, int]] = []
    p2c_lines: list[int] = []
    p2p: list[tuple[int, int]] = []
    seen: dict[tuple[int, int], tuple[int, str]] = {}
    declared: list[int] = []

    def link(a: int, b: int, kind: str, line: int | None) -> None:
        # kind: "p2c" (a provider of b) or "p2p"; stored once per unordered pair
        if a == b:
            raise InputError(f"self-link AS{a}|AS{b}", src, line)
        key = (min(a, b), max(a, b))
        signed = kind if kind == "p2p" else ("down" if a < b else "up")
        if key in seen:
            first, prev = seen[key]
            if prev != signed:
                raise InputError(f"conflicting duplicate link AS{a}-AS{b} (first given on line {first})", src, line)
            return
        seen[key] = (line or 0, signed)
        if kind == "p2c":
            p2c.append((a, b))
            p2c_lines.append(line or 0)
        else:
            p2p.append((a, b))

    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise doc.error("want [[as]] tables", "as", i)
        doc.check_keys(entry, {"asn", "name", "role", "providers", "customers", "peers"}, "as", i)
        asn = entry.get("asn")
        if not isinstance(asn, int) or isinstance(asn, bool) or not 0 < asn <= MAX_ASN:
            raise doc.error(f"want an ASN in 1..{MAX_ASN}", "as", i, "asn")
        if asn in names or asn in declared:
            raise doc.error(f"AS{asn} declared twice", "as", i, "asn")
        declared.append(asn)
        for key in ("name", "role"):
            if key in entry and not isinstance(entry[key], str):
                raise doc.error("want a string", "as", i, key)
        if "name" in entry:
            names[asn] = entry["name"]
        if "role" in entry:
            roles[asn] = entry["role"]
        for key in ("providers", "customers", "peers"):
            others = entry.get(key, [])
            line = doc.line("as", i, key)
            if not isinstance(others, list) or not all(isinstance(o, int) and not isinstance(o, bool) and 0 < o <= MAX_ASN for o in others):
                raise doc.error("want a list of ASNs", "as", i, key)
            for other in others:
                if key == "providers":
                    link(other, asn, "p2c", line)
                elif key == "customers":
                    link(asn, other, "p2c", line)
                else:
                    link(asn, other, "p2p", line)
    undeclared = sorted({a for pair in p2c + p2p for a in pair} - set(declared))
    if undeclared:
        raise InputError(f"AS{undeclared[0]} is linked but has no [[as]] table", src)
    name = doc.data.get("name", Path(path).stem)
    if not isinstance(name, str):
        raise doc.error("want a string", "name")
    return _build(p2c, p2p, src, np.array(p2c_lines, dtype=np.int64), names=names, roles=roles, name=name,
                  lonely=declared)


def load_topology(path: str | Path) -> Topology:
    """A TOML topology (by its .toml suffix) or a CAIDA AS-relationship file."""
    return read_toml(path) if str(path).endswith(".toml") else read_caida(path)
