"""The fast paths of `bgpsim validate` against the plain ones they replace: MOAS and sub-prefix findings by sorting against sets per
prefix, and the VRPs loaded on a thread (bgpsim.validate.load.Loading) against the same VRPs loaded first (the same
errors)."""

from __future__ import annotations

import random
from ipaddress import IPv4Network

import numpy as np
import pytest
from helpers import SHARED, parents_by_definition

from bgpsim import _core
from bgpsim.cli import main
from bgpsim.validate import load
from bgpsim.validate.check import _SPECIAL
from bgpsim.validate.findings import Findings
from bgpsim.validate.rows import Groups, Prefixes, rows
from bgpsim.wire.nlri import network_text

HEADER = "ASN,IP Prefix,Max Length,Trust Anchor\n"
DUMP = SHARED / "mrt" / "ripe_bgpdump_testdata" / "updates.20160811.1600.gz"


def reference_conflicts(routes):
    """MOAS and sub-prefix findings as the first bgpsim validate found them: a set of origins per
    prefix, each prefix's nearest enclosing one by the definition (the default route left out: it
    is nobody's covering prefix); MOAS first, each kind in address order (IPv4 first)."""
    origins, text = {}, {}
    for where, origin in routes:
        seen = origins.setdefault(where, set())
        text[where] = network_text(1 if where[0] == 4 else 2, where[1], where[2])
        if origin >= 0:
            seen.add(origin)
    out = [{"kind": "moas", "prefix": text[w], "origins": sorted(o)} for w, o in sorted(origins.items()) if len(o) > 1]
    for version, width in ((4, 32), (6, 128)):
        items = sorted((w[1], w[2], w) for w in origins if w[0] == version and w[2] > 0)
        if not items:
            continue
        start = [s for s, _, _ in items]
        end = [s + (1 << (width - n)) - 1 for s, n, _ in items]
        for i, j in enumerate(parents_by_definition(start, end)):
            if j < 0:
                continue
            where, cover = items[i][2], items[j][2]
            theirs = origins[cover]
            for o in sorted(origins[where] - theirs):
                if theirs:
                    out.append({"kind": "subprefix", "prefix": text[where], "origin": o, "covering": text[cover],
                                "covering_origins": sorted(theirs)})
    return out


def test_conflicts_by_sorting():
    rng = random.Random(11)
    kinds = set()
    for trial in range(40):
        routes = []
        for _ in range(rng.randint(0, 400)):
            if rng.random() < 0.3:
                n = rng.randint(0, 80)
                where = (6, ((rng.getrandbits(6) << 122) >> (128 - n)) << (128 - n) if n else 0, n)
            else:
                n = rng.randint(0, 32)
                where = (4, ((rng.getrandbits(8) << 24 | rng.getrandbits(2) << 8) >> (32 - n)) << (32 - n) if n else 0, n)
            routes.append((where, rng.choice([-1, 1, 2, 3, 64500, 2**32 - 1])))
        f = Findings()
        for chunk in range(0, len(routes), 37):  # in batches, merged now and then
            part = routes[chunk:chunk + 37]
            if not part:
                continue
            nets = [w[1] for w, _ in part]
            f.prefixes(np.array([w[0] for w, _ in part]), np.array([x >> 64 for x in nets], dtype=np.uint64),
                       np.array([x & (2**64 - 1) for x in nets], dtype=np.uint64),
                       np.array([w[2] for w, _ in part]), np.array([o for _, o in part]))
            if trial % 2:
                f._merge()
        found = f.finish()
        assert found == reference_conflicts(routes)
        kinds.update(x["kind"] for x in found)
    assert kinds == {"moas", "subprefix"}


def prefix_texts(version, hi, lo, length) -> list[str]:
    """The prefixes as the core writes them into routes.csv lines (core/rows.c, core/text.c)."""
    p = Prefixes(version, hi, lo, length)
    n, z = len(p.afi), np.zeros(1, dtype=np.int64)
    paths = _core.PathTable(*_SPECIAL)
    paths.add([b""])  # slot 0: ",,,"
    lines = rows(p, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint8), Groups(z, z - 1, z, z, z, [b","], paths,
                 [b"\n"]), [b""], (np.zeros(0), []), {})
    return [line[2:-3].decode() for line in lines.splitlines()]  # "0," prefix ",,,"


def test_prefix_texts():
    nets = [(4, 0, 0), (4, 0xC0000200, 24), (6, 0x20010DB8 << 96, 32), (4, 0xFFFFFFFF, 32), (6, 0, 0), (6, 1, 128),
            (6, 0xFFFF << 32 | 0x01020304, 128), (6, 0x01020304, 126), (6, 2, 127), (6, 0x10000, 112), (6, 1 << 112, 16),
            (6, 2**128 - 1, 128), (6, 1 << 64, 64), (6, (1 << 127) | 1, 128)]  # RFC 4291 section 2.5.5 forms, zero runs
    got = prefix_texts(np.array([v for v, _, _ in nets]), np.array([x >> 64 for _, x, _ in nets], dtype=np.uint64),
                       np.array([x & (2**64 - 1) for _, x, _ in nets], dtype=np.uint64), np.array([k for _, _, k in nets]))
    assert got == [network_text(1 if v == 4 else 2, x, k) for v, x, k in nets]


def test_prefix_texts_random():
    """The array-made texts equal network_text for random IPv4 prefixes (every octet width, every
    length) alone and mixed with IPv6 ones; one text at a time too."""
    rng = np.random.default_rng(7)
    n = 20_000
    version = np.full(n, 4)
    lo = rng.integers(0, 2**32, n, dtype=np.uint64)
    lo[:256] = np.arange(256, dtype=np.uint64) * np.uint64(0x01010101)  # a.a.a.a for each width
    length = rng.integers(0, 33, n)
    hi = np.zeros(n, dtype=np.uint64)
    want = [network_text(1, x, k) for x, k in zip(lo.tolist(), length.tolist())]
    assert prefix_texts(version, hi, lo, length) == want
    six = rng.random(n) < 0.2
    version[six] = 6
    hi[six] = rng.integers(0, 2**64, six.sum(), dtype=np.uint64) & np.uint64(0xFFFF0000FFFF0000)  # zero runs
    lo[six] = rng.integers(0, 2**64, six.sum(), dtype=np.uint64) & np.uint64(0x0000FFFF00000000)
    length[six] = rng.integers(0, 129, six.sum())
    want = [network_text(1 if v == 4 else 2, (h << 64) | x, k)
            for v, h, x, k in zip(version.tolist(), hi.tolist(), lo.tolist(), length.tolist())]
    assert prefix_texts(version, hi, lo, length) == want
    p = Prefixes(version, hi, lo, length)
    assert [p[i] for i in range(0, n, 97)] == want[::97]


@pytest.fixture
def vrp_file(tmp_path):
    lines = [HEADER, "AS28573,2804:14d::/32,40,hand\n", "AS64500,192.140.252.0/22,22,hand\n",
             "AS135310,103.213.0.0/16,20,hand\n", "AS0,10.0.0.0/8,8,hand\n", "AS3356,4.0.0.0/9,24,hand\n"]
    path = tmp_path / "vrps.csv"
    path.write_text("".join(lines))
    return path


def test_a_fault_in_vrps_read_on_a_thread(tmp_path, vrp_file, monkeypatch, capsys):
    if not DUMP.exists():
        pytest.skip(f"shared data not found: {DUMP}")
    vrp_file.write_text(vrp_file.read_text() + "AS1,1.2.3.4/24,24,hand\n")
    (tmp_path / "notmrt").write_text("hello, this is not a route dump\n" * 10)
    monkeypatch.setattr(load, "MIN_BYTES", 0)
    for dump in (DUMP, tmp_path / "notmrt"):  # the VRPs' fault first, as when they were read first
        assert main(["validate", str(dump), "--vrps", str(vrp_file), "--out", str(tmp_path / "out"), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{vrp_file}:7: bad prefix '1.2.3.4/24': host bits set" in err, err
        assert not (tmp_path / "out").exists()


def test_findings_json_one_per_line():
    import json

    from bgpsim.validate.output import findings_json

    found = [{"kind": "moas", "prefix": "192.0.2.0/24", "origins": [1, 2]},
             {"kind": "subprefix", "prefix": "192.0.2.0/25", "origin": 3, "covering": "192.0.2.0/24",
              "covering_origins": [1, 2]},
             {"kind": "subprefix", "prefix": "2001:db8::/48", "origin": 4294967295, "covering": "2001:db8::/32",
              "covering_origins": [0]},
             {"kind": "subprefix", "prefix": "10.0.0.0/9", "origin": 3, "covering": "10.0.0.0/8",
              "covering_origins": [7], "scenario": "scenarios/subprefix-1.toml"}]
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    assert findings_json(found) == "[\n" + ",\n".join(map(dumps, found)) + "\n]\n"
    assert findings_json([]) == "[]\n"


def test_reasons_from_the_index():
    """The reasons of invalid routes, written by the core from the VRPs its walk of the index finds
    for all routes at once (VRPTable.reasons), say what the VRPs found by a scan say; an IPv6 route
    longer than /64 (VRPTable.reason) too, VRPs longer than /64 among its."""
    from ipaddress import IPv6Network

    from bgpsim.rpki.rov import INVALID_ASN, INVALID_LENGTH, STATES, VRP, VRPTable

    rng = random.Random(5)
    table = []
    for _ in range(400):
        n = rng.randint(8, 24)
        a = ((10 << 24 | rng.getrandbits(16) << 8) >> (32 - n)) << (32 - n)
        table.append(VRP(IPv4Network((a, n)), rng.randint(n, 24), rng.choice([0, 1, 2, 3, 64500, 65000, 7, 8, 9])))
        n = rng.randint(32, 80)
        a = ((0x20010DB8 << 96 | rng.choice([0, 1, 0x10000, rng.getrandbits(24)]) << 72) >> (128 - n)) << (128 - n)
        table.append(VRP(IPv6Network((a, n)), rng.randint(n, 96), rng.choice([0, 1, 2, 3, 64500])))
    vrp_table = VRPTable(table)
    for version, width in ((4, 32), (6, 64)):
        routes = []
        for _ in range(3000):
            if version == 4:
                n = rng.randint(8, 32)
                net = IPv4Network((((10 << 24 | rng.getrandbits(24)) >> (32 - n)) << (32 - n), n))
            else:
                n = rng.randint(32, 96)
                low = rng.choice([0, 1, 0x10000, rng.getrandbits(32)]) << 64 | rng.getrandbits(64)
                net = IPv6Network((((0x20010DB8 << 96 | low) >> (128 - n)) << (128 - n), n))
            origin = rng.choice([-1, 1, 2, 3, 64500, 4])
            state = vrp_table.validate(net, origin)
            if state in (INVALID_ASN, INVALID_LENGTH):
                routes.append((net, origin, state))
        assert len(routes) > 100
        short = [r for r in routes if r[0].prefixlen <= width]
        start = np.array([int(net.network_address) >> (128 - width if version == 6 else 0) for net, _, _ in short],
                         dtype=np.uint64)
        fields = vrp_table.reasons(version, start, np.array([net.prefixlen for net, _, _ in short]),
                                   np.array([o for _, o, _ in short]), np.array([STATES.index(s) for _, _, s in short]))
        want = {r: f'{r[2]},"{_reason_by_scan(table, *r)}"' for r in routes}
        for r, field in zip(short, fields):
            assert field.decode() == want[r]
        for net, origin, state in routes:
            assert vrp_table.reason(net, origin, STATES.index(state)).decode() == want[net, origin, state]
        assert version == 4 or len(short) < len(routes)


@pytest.mark.parametrize("prefix, text", [
    ("2001:db8:0:1::/64", "2001:db8:0:1::/64"),  # one zero group is written out (RFC 5952 section 4.2.2)
    ("2001:0:0:1::/64", "2001:0:0:1::/64"),  # the longer run is the one left out (4.2.3)
    ("2001:db8:0:0:1::/112", "2001:db8:0:0:1::/112"),  # runs of two and three: the longer
    ("2001:db8:0:0:1:0:0:1/128", "2001:db8::1:0:0:1/128"),  # two runs of two: the first
    ("::ffff:0:0/96", "::ffff:0:0/96"),  # no dotted quad: section 4 (Python 3.11's ipaddress)
    ("::/0", "::/0"),
    ("2001:db8:aaaa:bbbb:cccc:dddd:eeee:ff00/120", "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ff00/120"),
])
def test_reasons_write_vrp_prefixes_as_rfc_5952(prefix, text):
    from ipaddress import IPv6Network

    from bgpsim.rpki.rov import INVALID_ASN, STATES, VRP, VRPTable

    net = IPv6Network(prefix)
    table = VRPTable([VRP(net, net.prefixlen, 64500)])
    route = IPv6Network((int(net.network_address), min(net.prefixlen + 8, 128)))
    assert table.validate(route, 64501) == INVALID_ASN
    field = table.reason(route, 64501, STATES.index(INVALID_ASN)).decode()
    assert field == f'invalid-asn,"covered by VRPs of AS64500 ({text} the most specific); none for AS64501"'
    fresh = VRPTable([VRP(net, net.prefixlen, 64500)])  # asked before anything indexed it: the same
    assert fresh.reason(route, 64501, STATES.index(INVALID_ASN)).decode() == field


def test_reasons_refuse_a_state_the_vrps_do_not_bear_out():
    from bgpsim.rpki.rov import INVALID_LENGTH, NOT_FOUND, STATES, VRP, VRPTable

    table = VRPTable([VRP(IPv4Network("192.0.2.0/24"), 24, 64500)])
    route = IPv4Network("192.0.2.0/25")
    for origin, state in ((64501, INVALID_LENGTH), (64500, NOT_FOUND)):  # no VRP of the origin; not invalid
        with pytest.raises(ValueError, match="want the state of an invalid route"):
            table.reason(route, origin, STATES.index(state))
    with pytest.raises(ValueError, match="route 1: want the state of an invalid route"):
        table.reasons(4, np.array([0xC0000200] * 2, dtype=np.uint64), np.array([25, 25]), np.array([1, 1]),
                      np.array([STATES.index(INVALID_LENGTH) - 1, STATES.index(NOT_FOUND)]))


def _reason_by_scan(table, net, origin, state):
    """The reason text from the VRPs that hold `net`, found by a linear scan, most specific first."""
    from bgpsim.rpki.rov import INVALID_LENGTH

    bits, n = net.max_prefixlen, net.prefixlen
    start = int(net.network_address)
    cover = sorted((v for v in table if v.prefix.version == net.version and v.prefix.prefixlen <= n
                    and start >> (bits - v.prefix.prefixlen) == int(v.prefix.network_address) >> (bits - v.prefix.prefixlen)),
                   key=lambda v: -v.prefix.prefixlen)
    if state == INVALID_LENGTH:
        best = max((v for v in cover if v.asn == origin), key=lambda v: v.max_length)
        return f"/{net.prefixlen} is longer than maxLength {best.max_length} of the VRP {best.prefix} AS{best.asn}"
    who = "origin NONE (an AS_SET)" if origin == -1 else f"AS{origin}"
    names = sorted({f"AS{v.asn}" for v in cover})
    shown = " ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"covered by VRPs of {shown} ({cover[0].prefix} the most specific); none for {who}"


@pytest.mark.parametrize("version, rows", [
    (4, [(0, 1 << 24, 8, 1), (0, 0, 8, 1)]),  # not sorted
    (4, [(0, 0, 8, 1), (0, 0, 8, 1)]),  # a row twice
    (4, [(0, 1 << 32, 8, 1)]),  # an IPv4 address of more than 32 bits
    (4, [(0, 0, 33, 1)]),  # longer than /32
    (6, [(0, 0, 129, 1)]),
    (4, [(0, 0, 8, 2**32 + 2)]),  # an origin + 1 beyond 2**32
    (5, []),
])
def test_conflicts_refuses_rows_it_cannot_trust(version, rows):
    """The core's pass (core/conflicts.c) relies on distinct sorted rows: others are refused."""
    from bgpsim import _core

    cols = [np.array([r[k] for r in rows], dtype=np.uint64) for k in range(4)]
    with pytest.raises(ValueError, match="want"):
        _core.conflicts(version, *cols)


def test_subprefix_findings_kept_as_text_read_as_dicts():
    """Sub-prefix findings of parts found apart (two halves, two IP versions) are one list: indexed
    across the parts, and a finding changed as a dict is written again in its line, the rest as found."""
    import json

    from bgpsim.validate.conflicts import Subprefixes, find_conflicts

    def part(rows):  # (lo, length, origin + 1) of IPv4 rows, sorted
        cols = [np.zeros(len(rows), dtype=np.uint64)] + [np.array(c, dtype=np.uint64) for c in zip(*rows)]
        return find_conflicts(4, *cols)[1]

    a = part([(10 << 24, 8, 2), (10 << 24 | 1 << 16, 16, 3), (10 << 24 | 2 << 16, 16, 4)])  # 10/8 by AS1: two
    b = part([(20 << 24, 8, 6), (20 << 24 | 5 << 16, 16, 8)])  # one
    subs = Subprefixes.join([a, Subprefixes(), b])
    assert [len(a), len(b), len(subs)] == [2, 1, 3]
    assert [(f["prefix"], f["origin"]) for f in subs] == [("10.1.0.0/16", 2), ("10.2.0.0/16", 3), ("20.5.0.0/16", 7)]
    encode = json.JSONEncoder(separators=(",", ":")).encode
    before = Subprefixes.SEPARATOR.join(Subprefixes.join([a, b]).lines(encode)).split(",\n")
    subs[2]["scenario"] = "scenarios/subprefix-1.toml"
    after = subs.lines(encode)
    assert after[:2] == before[:2] and json.loads(after[2]) == {**json.loads(before[2]), "scenario": "scenarios/subprefix-1.toml"}


def test_distinct_by_table_is_numpy_unique():
    """check._distinct (a table of the values seen, no sort) gives np.unique's values and inverse."""
    from bgpsim.validate.check import _distinct

    rng = np.random.default_rng(5)
    for top in (1, 2, 7, 300, 70_000):
        for n in (1, 5, 1000):
            values = rng.integers(0, top, n)
            got, inverse = _distinct(values, top)
            want, want_inverse = np.unique(values, return_inverse=True)
            assert got.tolist() == want.tolist() and inverse.tolist() == want_inverse.reshape(-1).tolist()
