"""Synthetic RPKI data for tests and benchmarks, labelled so.

`synthetic_spec(roas=50_000, cas=100)`: a CA spec with made-up resources, the benchmark repository
of bench/bench_rpki.py.
`pfx2as_vrps(paths)`: a realistic VRP set made from real prefix-to-origin tables
(../shared/data/pfx2as): every announced (prefix, origin) becomes a VRP, most with maxLength equal
to the prefix length, a seeded share longer, and a seeded share of covering VRPs for another AS or
for AS0. Used by bench/bench_rov.py and bench/bench_validate.py.

The spec:

The CA tree is three levels deep below the trust anchor whenever there are at least 5 CAs: a few
RIR-like CAs, LIR-like CAs under them, and customer CAs under some LIRs. Each CA holds disjoint
IPv4 and IPv6 blocks and an AS range inside its parent's. ROAs are spread round-robin over the CAs
below the trust anchor: IPv4 /24s and IPv6 /48s from the top of the issuing CA's blocks (its child
CAs hold the bottom), every third one with a
maxLength, some with two prefixes, and one AS0 ROA (RFC 7607). The same arguments give the same
text.
"""

from __future__ import annotations

import gzip
import ipaddress
import random

V4, V6 = ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("2000::/3")
# prefix lengths of the blocks held at each level (TA, RIR, LIR, customer): sized so a CA has room for
# 1,024 IPv4 /24s and far more IPv6 /48s
V4_LEN, V6_LEN = (0, 4, 10, 14), (3, 8, 16, 20)
AS_BASE = (1, 100_000, 1_000, 10)  # the span of AS numbers of one CA at each level below the TA


def _tree(cas: int) -> list[tuple[str, str | None, int]]:
    """(name, parent, level) for `cas` CAs, the trust anchor first."""
    out = [("ta", None, 0)]
    if cas <= 1:
        return out
    rirs = min(4, max(1, (cas - 1) // 10))
    rest = cas - 1 - rirs
    custs = rest // 3
    lirs = rest - custs
    out += [(f"rir{i}", "ta", 1) for i in range(rirs)]
    out += [(f"lir{j}", f"rir{j % rirs}", 2) for j in range(lirs)]
    out += [(f"cust{k}", f"lir{k % lirs}", 3) for k in range(custs)]
    return out


def synthetic_spec(roas: int, cas: int = 5, aspas: int = 2, router_keys: int = 2, seed: int = 1,
                   base_uri: str = "rsync://rpki.example.net/repo/", aspa_profile: str = "current") -> str:
    """A CA spec (TOML) with `roas` ROAs spread over `cas` CAs (the trust anchor included)."""
    if roas < 0 or cas < 1 or (roas and cas < 2):
        raise ValueError("want at least 2 CAs (a trust anchor and one below it) when there are ROAs")
    rng = random.Random(seed)
    tree = _tree(cas)
    v4, v6, asn = {}, {}, {}
    kids: dict[str, int] = {}
    lines = [f'# synthetic (made-up resources): {roas} ROAs, {cas} CAs, seed {seed}',
             "[repository]", f'base_uri = "{base_uri}"', ""]
    for name, parent, level in tree:
        if parent is None:
            v4[name], v6[name], asn[name] = V4, V6, (1, 4_294_967_295)
        else:
            i = kids.get(parent, 0)
            kids[parent] = i + 1
            step4, step6 = V4_LEN[level] - V4_LEN[level - 1], V6_LEN[level] - V6_LEN[level - 1]
            if i >= 2 ** min(step4, step6):
                raise ValueError(f"too many CAs under {parent!r} for the synthetic address plan")
            skip = 1 if level == 1 else 0  # RIRs from 16.0.0.0/4 and 2100::/8 on (not 0/8)
            v4[name] = _nth_subnet(v4[parent], V4_LEN[level], i + skip)
            v6[name] = _nth_subnet(v6[parent], V6_LEN[level], i + skip)
            lo = asn[parent][0] + AS_BASE[level] * (i + 1) - (1 if level == 1 else 0)
            asn[name] = (lo, lo + AS_BASE[level] - 1) if level < 3 else (lo, lo + 9)
        lines += ["[[ca]]", f'name = "{name}"'] + ([f'parent = "{parent}"'] if parent else []) + [
            f'ip = ["{v4[name]}", "{v6[name]}"]', f'asn = ["{asn[name][0]}-{asn[name][1]}"]', ""]
    issuers = [n for n, p, _ in tree if p is not None]
    used: dict[str, int] = {}
    for r in range(roas):
        ca = issuers[r % len(issuers)]
        m = used[ca] = used.get(ca, -1) + 1
        origin = 0 if r == roas // 2 else rng.randint(*asn[ca])
        prefixes = []
        if m % 2 == 0:
            p = _nth_subnet(v4[ca], 24, -1 - m // 2)  # from the top: children hold the bottom
            prefixes.append(f"{p}-{rng.randint(24, 28)}" if m % 3 == 0 else str(p))
        else:
            p = _nth_subnet(v6[ca], 48, -1 - m // 2)
            prefixes.append(f"{p}-{rng.randint(48, 56)}" if m % 3 == 0 else str(p))
        if m % 7 == 3:  # a second prefix: the /48 of the same index
            prefixes.append(str(_nth_subnet(v6[ca], 48, -1_000_000 - m)))
        lines += ["[[roa]]", f'ca = "{ca}"', f"asn = {origin}",
                  "prefixes = [" + ", ".join(f'"{p}"' for p in prefixes) + "]", ""]
    for a in range(aspas if issuers else 0):
        ca = issuers[a % len(issuers)]
        customer = asn[ca][0] + a // len(issuers)
        providers = sorted(rng.sample(range(64_496, 64_511), 1 + a % 3))
        lines += ["[[aspa]]", f'ca = "{ca}"', f"customer = {customer}", f"providers = {providers}"]
        lines += ([f'profile = "{aspa_profile}"'] if aspa_profile != "current" else []) + [""]
    for k in range(router_keys if issuers else 0):
        ca = issuers[(k * 3) % len(issuers)]
        lines += ["[[router_key]]", f'ca = "{ca}"', f"asn = {asn[ca][0] + 1}", ""]
    return "\n".join(lines)


def _nth_subnet(block, length: int, n: int):
    """The n-th subnet of `block` of prefix length `length` (n < 0: counting from the end)."""
    size, count = 1 << (block.max_prefixlen - length), 1 << (length - block.prefixlen)
    n = n + count if n < 0 else n
    if not 0 <= n < count:
        raise ValueError(f"want at most {count} /{length}s in {block}")
    return ipaddress.ip_network((int(block.network_address) + n * size, length))


def pfx2as(path) -> list[tuple]:
    """(network, origin ASN) of a pyasn-style table (`prefix<TAB>asn` lines, gzip); AS sets and MOAS
    lines are left out."""
    rows = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            pfx, asn = line.split()[:2]
            if "_" in asn or "," in asn:
                continue
            rows.append((ipaddress.ip_network(pfx), int(asn)))
    return rows


def pfx2as_vrps(paths, seed: int = 1) -> list:
    """Synthetic VRPs from real pfx2as tables (see the module docstring), sorted, distinct."""
    import numpy as np

    from .rov import VRP

    rows = [r for p in paths for r in pfx2as(p)]
    rng = np.random.default_rng(seed)
    vrps = []
    for (p, asn), r in zip(rows, rng.random(len(rows))):
        ml = p.prefixlen if r < 0.8 else min(p.max_prefixlen, p.prefixlen + 2)
        vrps.append(VRP(p, ml, asn))
        if r > 0.97 and p.prefixlen > 8:  # a covering ROA of someone else, or AS0
            sup = p.supernet(new_prefix=max(8, p.prefixlen - 4))
            vrps.append(VRP(sup, sup.prefixlen, 0 if r > 0.99 else asn + 1))
    return sorted(set(vrps), key=lambda v: (v.prefix.version, v.prefix, v.max_length, v.asn))
