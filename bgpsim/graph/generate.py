"""Synthetic Internet-like AS graphs, for tests and benchmarks, and a CAIDA writer to feed them to the CLI.

`internet_like(n, seed)` builds a SYNTHETIC graph (no real ASes, no real relationships) with the coarse
shape of the Internet's AS graph:

* a clique of tier-1 ASes at the top, all peering with each other, with no providers;
* transit ASes below them, each buying from 1..3 providers created before it (so strictly higher up:
  a provider-customer cycle is impossible by construction);
* a majority of stubs (ASes without customers), each buying from 1..3 tier-1 or transit ASes;
* providers are chosen by preferential attachment, with probability proportional to 1 + the number
  of customers so far, which gives the heavy-tailed customer counts of the real Internet;
* peer links mostly between transit ASes of similar size (neighbours in the order of customer
  counts), and a few between stubs.

The graph is connected: every AS has a chain of providers up to the tier-1 clique.

ASNs are 1..n in a shuffled order (so ASN order says nothing about the tier), chosen by the same seed.
The same `(n, seed, options)` always gives identical arrays; nothing depends on global random state.

`write_caida(topo, path)` writes any Topology as a CAIDA serial-2 file (`a|b|rel|bgp`, with the
`# input clique:` header), which `read_caida` reads back to an equal graph.
"""

from __future__ import annotations

import bz2
import gzip
import math
import random
from pathlib import Path

from .topology import Topology, _build


def default_tier1(n: int) -> int:
    """Default size of the tier-1 clique: 3 for small graphs, then growing like log2(n) - 4.

    3 for 3 <= n < 182 (n when n < 3), 4 from 182, 6 from 725, 9 from 5,793 (so 9 at 10,000), 12 from
    46,341 (so 12 at 80,000); the real clique has 17-19. At most 20.
    """
    return min(n, max(3, min(20, round(math.log2(max(n, 2)) - 4))))


def stub_count(n: int, tier1: int, stub_share: float = 0.8) -> int:
    """How many stub-class ASes `internet_like` makes: round(stub_share * n), keeping room for the
    tier-1s and, when there are at least 4 non-tier-1 ASes, for at least one transit AS."""
    rest = n - tier1
    stubs = min(rest, round(stub_share * n))
    if rest >= 4:
        stubs = min(stubs, rest - 1)
    return max(stubs, 0)


def internet_like(
    n: int,
    seed: int,
    *,
    tier1: int | None = None,
    stub_share: float = 0.8,
    max_providers: int = 3,
    transit_peers: float = 2.0,
    stub_peering: float = 0.05,
    name: str | None = None,
) -> Topology:
    """A synthetic Internet-like AS graph of `n` ASes (ASNs 1..n, shuffled), deterministic for `seed`.

    n              number of ASes, at least 2
    seed           seed of a private `random.Random`; the same seed gives identical arrays
    tier1          size of the tier-1 clique (default `default_tier1(n)`: 3 for small n, slowly more)
    stub_share     share of stub-class ASes (default 0.8). `stub_count(n, tier1, stub_share)` of them
                   are made; when there are enough of them to give every tier-1 and transit AS at
                   least one customer (n >= about 20 with the defaults), `topo.stubs()` is exactly those
    max_providers  each non-tier-1 AS buys from 1..max_providers providers (fewer if fewer exist);
                   about 45 % have one, 40 % two, 15 % three (with the default of 3)
    transit_peers  average number of peer links per transit AS, made with transit ASes of similar
                   customer count
    stub_peering   share of stubs that peer with one other stub

    The tier-1 ASNs are stored in `topo.clique` (like CAIDA's input clique) and `topo.roles` maps every
    ASN to "tier-1", "transit" or "stub".
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"internet_like: want n >= 2, got {n!r}")
    t = default_tier1(n) if tier1 is None else tier1
    if not 1 <= t <= n:
        raise ValueError(f"internet_like: want 1 <= tier1 <= n, got tier1={t} with n={n}")
    if not 0.0 <= stub_share <= 1.0:
        raise ValueError(f"internet_like: want 0 <= stub_share <= 1, got {stub_share}")
    if max_providers < 1:
        raise ValueError(f"internet_like: want max_providers >= 1, got {max_providers}")
    rng = random.Random(seed)

    n_stub = stub_count(n, t, stub_share)
    n_transit = n - t - n_stub
    # Nodes 0..t-1 are tier-1, then transit, then stubs: a provider always has a lower node number.
    transit_end = t + n_transit
    ncust = [0] * n
    links: set[tuple[int, int]] = set()  # unordered pairs (low, high) already linked
    p2c: list[tuple[int, int]] = []
    p2p: list[tuple[int, int]] = []

    def add_p2c(p: int, c: int) -> None:
        p2c.append((p, c))
        links.add((p, c) if p < c else (c, p))
        ncust[p] += 1
        pool.append(p)  # one more ticket for p in the preferential-attachment pool

    def how_many(available: int) -> int:
        r = rng.random()
        k = 1 if r < 0.45 else 2 if r < 0.85 else 3
        return max(1, min(k, max_providers, available))

    def pick(k: int, first: int | None = None) -> list[int]:
        """k distinct providers from the pool, weight 1 + customers so far."""
        chosen = [] if first is None else [first]
        while len(chosen) < k:
            p = pool[rng.randrange(len(pool))]
            if p not in chosen:
                chosen.append(p)
        return chosen

    # Tier-1 clique.
    for a in range(t):
        for b in range(a + 1, t):
            p2p.append((a, b))
            links.add((a, b))
    pool: list[int] = list(range(t))  # each eligible provider once, plus once per customer

    # Transit ASes: providers among the tier-1s and the transit ASes made before.
    for c in range(t, transit_end):
        for p in pick(how_many(c)):
            add_p2c(p, c)
        pool.append(c)

    # Stubs. First give every provider-class AS still without customers one stub (in random order),
    # so that the stub share is what was asked for; then preferential attachment for the rest.
    orphans = [a for a in range(transit_end) if ncust[a] == 0]
    rng.shuffle(orphans)
    for j, c in enumerate(range(transit_end, n)):
        first = orphans[j] if j < len(orphans) else None
        for p in pick(how_many(transit_end), first):
            add_p2c(p, c)

    # Peering among transit ASes of similar size: neighbours in the order of customer counts.
    if n_transit >= 2 and transit_peers > 0:
        order = sorted(range(t, transit_end), key=lambda a: (ncust[a], rng.random()))
        window = 4
        attempts = round(transit_peers / 2 * n_transit)
        for _ in range(attempts):
            i = rng.randrange(len(order))
            j = i + rng.choice((-1, 1)) * rng.randint(1, window)
            if not 0 <= j < len(order):
                continue
            a, b = order[i], order[j]
            key = (a, b) if a < b else (b, a)
            if key not in links:
                links.add(key)
                p2p.append(key)

    # A few stubs peer with another stub.
    if n_stub >= 2 and stub_peering > 0:
        for _ in range(round(stub_peering * n_stub)):
            a = rng.randrange(transit_end, n)
            b = rng.randrange(transit_end, n)
            key = (a, b) if a < b else (b, a)
            if a != b and key not in links:
                links.add(key)
                p2p.append(key)

    asn = list(range(1, n + 1))
    rng.shuffle(asn)
    roles = {asn[a]: ("tier-1" if a < t else "transit" if a < transit_end else "stub") for a in range(n)}
    source = f"synthetic:internet_like(n={n},seed={seed})"
    return _build(
        [(asn[p], asn[c]) for p, c in p2c],
        [(asn[a], asn[b]) for a, b in p2p],
        source,
        name=name or f"synthetic internet_like n={n} seed={seed}",
        roles=roles,
        clique=sorted(asn[a] for a in range(t)),
    )


def write_caida(topo: Topology, path: str | Path) -> Path:
    """Write `topo` as a CAIDA serial-2 AS-relationship file (`.gz`/`.bz2` suffix: compressed).

    Headers `# input clique:` (topo.clique) and, when there are any, `# IXP ASes:`; then one line per
    link, `provider|customer|-1|bgp` and `a|b|0|bgp` (lower ASN first), sorted.
    """
    path = Path(path)
    asns = topo.asns.tolist()
    lines = [
        f"# synthetic AS relationships written by bgpsim ({topo.source or topo.name})",
        "# input clique: " + " ".join(str(a) for a in topo.clique),
    ]
    if topo.ixps:
        lines.append("# IXP ASes: " + " ".join(str(a) for a in topo.ixps))
    lines.append("# format: AS|AS|rel|source, rel -1 = provider|customer, 0 = peers")
    body = sorted((asns[p], asns[c], -1) for p, c in topo.p2c.tolist())
    body += sorted((min(asns[a], asns[b]), max(asns[a], asns[b]), 0) for a, b in topo.p2p.tolist())
    lines.extend(f"{a}|{b}|{rel}|bgp" for a, b, rel in body)
    data = ("\n".join(lines) + "\n").encode()
    suffix = path.suffix.lower()
    if suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    elif suffix == ".bz2":
        data = bz2.compress(data)
    path.write_bytes(data)
    return path
