"""Tests of the AS graph: CAIDA and TOML readers, derived data, the teaching topology, the generator."""

from __future__ import annotations

import bz2
import gzip
import re
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgpsim.base.errors import InputError
from bgpsim.graph.generate import default_tier1, internet_like, stub_count, write_caida
from bgpsim.graph.topology import CUSTOMER, PEER, PROVIDER, Topology, load_topology, read_caida, read_toml

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CAIDA_2025 = DATA / "caida" / "20250901.as-rel2.txt.bz2"
CAIDA_2016 = DATA / "caida" / "20161101.as-rel.txt.bz2"
TEACHING = ROOT / "scenarios" / "topologies" / "teaching.toml"

DOC_ASNS = set(range(64496, 64512)) | set(range(65536, 65552))  # RFC 5398


# ---------------------------------------------------------------------------------------------------
# helpers


def graph_key(t: Topology) -> tuple:
    """The graph as comparable values: ASNs, provider-customer pairs, peer pairs (lower ASN first)."""
    asns = t.asns.tolist()
    p2c = sorted((asns[p], asns[c]) for p, c in t.p2c.tolist())
    p2p = sorted((min(asns[a], asns[b]), max(asns[a], asns[b])) for a, b in t.p2p.tolist())
    return asns, p2c, p2p


def undirected(t: Topology) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(t.n))
    g.add_edges_from(t.p2c.tolist())
    g.add_edges_from(t.p2p.tolist())
    return g


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def caida_error(tmp_path: Path, text: str, name: str = "rel.txt") -> InputError:
    path = write(tmp_path / name, text)
    with pytest.raises(InputError) as info:
        read_caida(path)
    assert str(path) in str(info.value), f"error does not name the file: {info.value}"
    return info.value


def toml_error(tmp_path: Path, text: str) -> InputError:
    path = write(tmp_path / "topo.toml", text)
    with pytest.raises(InputError) as info:
        read_toml(path)
    assert str(path) in str(info.value), f"error does not name the file: {info.value}"
    return info.value


def at_line(err: InputError, path_name: str, line: int) -> None:
    assert err.where == line, f"want line {line}, got {err.where}: {err}"
    assert re.search(rf"{re.escape(path_name)}:{line}: ", str(err)), str(err)


# ---------------------------------------------------------------------------------------------------
# real CAIDA data (loaded once per module)

need_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data directory {DATA} is absent")


@pytest.fixture(scope="module")
def caida2025() -> Topology:
    if not CAIDA_2025.is_file():
        pytest.skip(f"{CAIDA_2025} is absent")
    return read_caida(CAIDA_2025)


@pytest.fixture(scope="module")
def caida2016() -> Topology:
    if not CAIDA_2016.is_file():
        pytest.skip(f"{CAIDA_2016} is absent")
    return read_caida(CAIDA_2016)


@need_data
def test_caida_2025_counts(caida2025):
    t = caida2025
    assert t.n == 78_643
    assert len(t.p2c) == 161_166
    assert len(t.p2p) == 409_530
    assert t.links == 570_696


@need_data
def test_caida_2025_headers(caida2025):
    t = caida2025
    # The 2025-09-01 header lists 19 clique ASes (the 2016 file lists 17; 3491 and 6830 were added).
    assert t.clique == [174, 209, 286, 701, 1239, 1299, 2828, 2914, 3257, 3320, 3356, 3491, 5511, 6453,
                        6461, 6762, 6830, 7018, 12956]
    assert {174, 3356, 1299} <= set(t.clique)
    assert len(t.ixps) == 28
    assert all(a in t.index for a in t.clique)


@need_data
def test_caida_2025_derived(caida2025):
    t = caida2025
    assert t.asns.dtype == np.int64 and np.all(np.diff(t.asns) > 0)
    # Every provider ranks above each of its customers.
    assert np.all(t.ranks[t.p2c[:, 0]] > t.ranks[t.p2c[:, 1]])
    # Cogent (AS174) has the most direct customers; Lumen (AS3356) the biggest customer cone, then
    # Arelion (AS1299) and Cogent, as in CAIDA's AS Rank.
    cust = np.bincount(t.p2c[:, 0], minlength=t.n)
    assert int(t.asns[np.argmax(cust)]) == 174
    cones = t.cone_sizes
    top3 = t.asns[np.argsort(-cones, kind="stable")[:3]].tolist()
    assert top3 == [3356, 1299, 174]
    assert cones.min() == 1 and np.all(cones[t.stubs()] == 1)
    assert cones[t.idx(3356)] > 0.9 * t.n


@need_data
def test_caida_2016_serial1(caida2016):
    t = caida2016
    assert t.n == 55_809
    assert t.links == 239_064
    assert len(t.clique) == 17 and {174, 3356, 1299} <= set(t.clique)
    assert len(t.ixps) == 28


# ---------------------------------------------------------------------------------------------------
# formats

SMALL = [(10, 30, -1), (20, 30, -1), (20, 40, -1), (30, 50, -1), (40, 50, -1), (40, 60, -1), (50, 70, -1),
         (10, 20, 0), (50, 60, 0)]


def small_text(serial: int) -> str:
    head = "# input clique: 10 20\n# IXP ASes: 99\n"
    if serial == 1:
        return head + "".join(f"{a}|{b}|{r}\n" for a, b, r in SMALL)
    return head + "".join(f"{a}|{b}|{r}|{'bgp' if k % 2 else 'mlp'}\n" for k, (a, b, r) in enumerate(SMALL))


@pytest.mark.parametrize("serial", [1, 2])
@pytest.mark.parametrize("compress", ["plain", "gzip", "bzip2", "crlf"])
def test_formats_load_equal(tmp_path, serial, compress):
    text = small_text(serial)
    ref = read_caida(write(tmp_path / "ref.txt", small_text(1)))
    data = text.encode()
    name = f"rel{serial}.txt"
    if compress == "gzip":
        data, name = gzip.compress(data), name + ".gz"
    elif compress == "bzip2":
        data, name = bz2.compress(data), name + ".bz2"
    elif compress == "crlf":
        data = data.replace(b"\n", b"\r\n")
    path = tmp_path / name
    path.write_bytes(data)
    t = read_caida(path)
    assert graph_key(t) == graph_key(ref)
    assert t.clique == [10, 20] and t.ixps == [99]
    assert t.n == 7 and len(t.p2c) == 7 and len(t.p2p) == 2
    assert graph_key(load_topology(path)) == graph_key(ref)


def test_compression_detected_by_content_not_name(tmp_path):
    path = tmp_path / "rel.txt"  # bzip2 data under a plain name
    path.write_bytes(bz2.compress(small_text(2).encode()))
    assert graph_key(read_caida(path)) == graph_key(read_caida(write(tmp_path / "ref.txt", small_text(1))))


# ---------------------------------------------------------------------------------------------------
# bad CAIDA input


@pytest.mark.parametrize(
    "bad, what",
    [
        ("1|2", "want 'AS|AS|rel'"),
        ("1|2|-1|bgp|x", "want 'AS|AS|rel'"),
        ("1|x|-1", "want two ASNs"),
        ("-5|2|-1", "want two ASNs"),
        ("0|2|-1", "want two ASNs"),
        (f"1|{2**32}|-1", "want two ASNs"),
        ("1|2|2", "want relationship"),
        ("1|2|1", "want relationship"),
        ("1|2|", "want relationship"),
        ("7|7|0", "self-link"),
        ("7|7|-1|bgp", "self-link"),
    ],
)
def test_bad_line(tmp_path, bad, what):
    # the bad line is line 4: after a comment, a good line and an empty line
    err = caida_error(tmp_path, f"# comment\n3|4|-1\n\n{bad}\n5|6|0\n")
    at_line(err, "rel.txt", 4)
    assert what in str(err)


def test_max_asn_accepted(tmp_path):
    t = read_caida(write(tmp_path / "rel.txt", f"1|{2**32 - 1}|-1\n"))
    assert t.asns.tolist() == [1, 2**32 - 1]


@pytest.mark.parametrize(
    "first, second",
    [("1|2|-1", "1|2|0"), ("1|2|-1", "2|1|-1"), ("1|2|0", "2|1|-1"), ("2|1|-1|bgp", "1|2|0|mlp")],
)
def test_conflicting_duplicate(tmp_path, first, second):
    err = caida_error(tmp_path, f"# c\n{first}\n5|6|0\n{second}\n")
    at_line(err, "rel.txt", 4)
    assert "conflicting duplicate" in str(err)
    assert "line 2" in str(err), f"the message must name the first line too: {err}"


@pytest.mark.parametrize("text", ["1|2|-1\n1|2|-1\n", "1|2|0\n2|1|0\n", "1|2|-1|bgp\n1|2|-1|mlp\n"])
def test_exact_duplicate_accepted(tmp_path, text):
    t = read_caida(write(tmp_path / "rel.txt", text + "2|3|-1\n"))
    assert t.n == 3 and t.links == 2


def test_cycle(tmp_path):
    err = caida_error(tmp_path, "# cycle below\n8|9|0\n1|2|-1\n2|3|-1\n3|1|-1\n3|4|-1\n")
    text = str(err)
    assert "provider-customer cycle" in text
    assert {"AS1", "AS2", "AS3"} <= set(re.findall(r"AS\d+", text)), text
    assert "AS4" not in text and "AS8" not in text
    m = re.search(r"\(lines ([\d, ]+)\)", text)
    assert m, f"the cycle message must name the lines: {text}"
    assert sorted(int(x) for x in m.group(1).split(",")) == [3, 4, 5]


def test_cycle_above_acyclic_part(tmp_path):
    # a cycle among providers of a healthy subtree is still found and named
    err = caida_error(tmp_path, "10|20|-1\n20|30|-1\n30|10|-1\n10|1|-1\n1|2|-1\n")
    assert re.search(r"AS10 -> AS20 -> AS30 -> AS10|AS20 -> AS30 -> AS10 -> AS20|AS30 -> AS10 -> AS20 -> AS30",
                     str(err)), str(err)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.txt.bz2"
    with pytest.raises(InputError) as info:
        read_caida(path)
    assert str(path) in str(info.value) and "no such file" in str(info.value)


@pytest.mark.parametrize("compress, suffix", [(bz2.compress, ".bz2"), (gzip.compress, ".gz")])
def test_truncated_compressed(tmp_path, compress, suffix):
    data = compress("".join(f"{i}|{i + 1}|-1\n" for i in range(1, 3000)).encode())
    path = tmp_path / ("rel.txt" + suffix)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError) as info:
        read_caida(path)
    assert str(path) in str(info.value) and "decompress" in str(info.value)


def test_corrupt_gzip_is_input_error(tmp_path):
    data = bytearray(gzip.compress("".join(f"{i}|{i + 1}|-1\n" for i in range(1, 3000)).encode()))
    for k in range(30, 60):
        data[k] ^= 0xFF
    path = tmp_path / "rel.txt.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError):
        read_caida(path)


def test_empty_file(tmp_path):
    err = caida_error(tmp_path, "# only a comment\n")
    assert "no links" in str(err)


def test_bad_header_asn(tmp_path):
    err = caida_error(tmp_path, "1|2|-1\n# input clique: 1 two\n")
    at_line(err, "rel.txt", 2)


# ---------------------------------------------------------------------------------------------------
# TOML topology


def test_toml_small(tmp_path):
    path = write(tmp_path / "t.toml", """\
name = "tiny"
[[as]]
asn = 1
name = "Top"
role = "tier-1"
customers = [2]
[[as]]
asn = 2
providers = [1]   # both ends, agreeing
peers = [3]
[[as]]
asn = 3
[[as]]
asn = 4
""")
    t = read_toml(path)
    assert t.name == "tiny"
    assert t.asns.tolist() == [1, 2, 3, 4]  # AS4 has no links but is declared
    assert graph_key(t)[1:] == ([(1, 2)], [(2, 3)])
    assert t.names == {1: "Top"} and t.roles == {1: "tier-1"}
    assert t.label(1) == "AS1 Top" and t.label(2) == "AS2"


def test_toml_bad_key(tmp_path):
    err = toml_error(tmp_path, '[[as]]\nasn = 1\nproviders = [2]\n\n[[as]]\nasn = 2\nnmae = "typo"\n')
    at_line(err, "topo.toml", 7)
    assert "nmae" in str(err) and "unknown key" in str(err)


def test_toml_bad_top_key(tmp_path):
    err = toml_error(tmp_path, 'name = "x"\nautonomous = 3\n[[as]]\nasn = 1\n')
    at_line(err, "topo.toml", 2)
    assert "autonomous" in str(err)


def test_toml_self_link(tmp_path):
    err = toml_error(tmp_path, "[[as]]\nasn = 5\n\npeers = [6, 5]\n[[as]]\nasn = 6\n")
    at_line(err, "topo.toml", 4)
    assert "self-link" in str(err)


def test_toml_undeclared(tmp_path):
    err = toml_error(tmp_path, "[[as]]\nasn = 5\nproviders = [7]\n")
    assert "AS7" in str(err) and "no [[as]] table" in str(err)


def test_toml_conflict(tmp_path):
    err = toml_error(tmp_path, "[[as]]\nasn = 1\nproviders = [2]\n[[as]]\nasn = 2\nproviders = [1]\n")
    at_line(err, "topo.toml", 6)
    assert "conflicting duplicate" in str(err) and "line 3" in str(err)


def test_toml_cycle(tmp_path):
    err = toml_error(tmp_path, "[[as]]\nasn = 1\nproviders = [2]\n[[as]]\nasn = 2\nproviders = [3]\n"
                               "[[as]]\nasn = 3\nproviders = [1]\n")
    assert "cycle" in str(err) and {"AS1", "AS2", "AS3"} <= set(re.findall(r"AS\d+", str(err)))


@pytest.mark.parametrize("text, line", [
    ("[[as]]\nasn = 0\n", 2),
    ("[[as]]\nasn = 1\n[[as]]\nasn = 1\n", 4),
    ('[[as]]\nasn = 1\npeers = "2"\n', 3),
    ("[[as]]\nasn = 1\nname = 3\n", 3),
    ("[[as]]\nasn = 1\npeers = [2\n", None),  # not valid TOML
])
def test_toml_bad_values(tmp_path, text, line):
    err = toml_error(tmp_path, text)
    if line is not None:
        at_line(err, "topo.toml", line)


def test_toml_as_not_tables(tmp_path):
    err = toml_error(tmp_path, "as = [1, 2]\n")
    at_line(err, "topo.toml", 1)


def test_toml_missing_file(tmp_path):
    with pytest.raises(InputError) as info:
        read_toml(tmp_path / "missing.toml")
    assert "missing.toml" in str(info.value)


# ---------------------------------------------------------------------------------------------------
# derived data on a hand-made graph
#
#        10 ==== 20          (== peers, | and \ provider above customer)
#         |     /  \
#        30    /    40
#          \  /    /  \
#           50 ===+   60      50 and 60 peer
#           |
#           70


@pytest.fixture
def small(tmp_path) -> Topology:
    return read_caida(write(tmp_path / "small.txt", small_text(2)))


def test_derived_lists(small):
    t = small
    i = t.index
    assert t.asns.tolist() == [10, 20, 30, 40, 50, 60, 70]
    assert i == {10: 0, 20: 1, 30: 2, 40: 3, 50: 4, 60: 5, 70: 6}
    assert t.customers == [[2], [2, 3], [4], [4, 5], [6], [], []]
    assert t.providers == [[], [], [0, 1], [1], [2, 3], [3], [4]]
    assert t.peers == [[1], [0], [], [], [5], [4], []]
    assert t.stubs() == [5, 6]
    assert [t.degree(k) for k in range(t.n)] == [2, 3, 3, 3, 4, 2, 1]


def test_derived_ranks_and_cones(small):
    t = small
    # 70, 60 have no customers; 50 is above 70; 30 above 50; 40 above 50, 60; 10 above 30; 20 above 30, 40
    assert t.ranks.tolist() == [3, 3, 2, 2, 1, 0, 0]
    # cones: 10 -> {10,30,50,70}; 20 -> {20,30,40,50,60,70} (50, 70 counted once); 30 -> {30,50,70};
    # 40 -> {40,50,60,70}; 50 -> {50,70}; peers add nothing
    assert t.cone_sizes.tolist() == [4, 6, 3, 4, 2, 1, 1]


def test_relationship(small):
    t = small
    i = t.index
    assert t.relationship(i[30], i[10]) == PROVIDER
    assert t.relationship(i[10], i[30]) == CUSTOMER
    assert t.relationship(i[10], i[20]) == PEER
    assert t.relationship(i[60], i[50]) == PEER
    assert t.relationship(i[40], i[60]) == CUSTOMER
    assert t.relationship(i[10], i[40]) is None  # indirect, not linked
    assert t.relationship(i[70], i[30]) is None


def test_idx(small):
    assert small.idx(40) == 3
    with pytest.raises(InputError, match="AS 41 is not in the topology"):
        small.idx(41)


def test_topology_equality(tmp_path):
    a = read_caida(write(tmp_path / "a.txt", small_text(1)))
    b = read_caida(write(tmp_path / "b.txt", small_text(1)))
    c = read_caida(write(tmp_path / "c.txt", small_text(1) + "900|901|0\n"))
    assert a == b and a != c


# ---------------------------------------------------------------------------------------------------
# the bundled teaching topology


@pytest.fixture(scope="module")
def teaching() -> Topology:
    return load_topology(TEACHING)


def test_teaching_shape(teaching):
    t = teaching
    assert 28 <= t.n <= 32
    assert set(t.asns.tolist()) <= DOC_ASNS
    assert nx.is_connected(undirected(t))
    for a in t.asns.tolist():
        assert t.names.get(a), f"AS{a} has no name"
        assert t.roles.get(a), f"AS{a} has no role"
    assert len(set(t.names.values())) == t.n, "names must be distinct"


def test_teaching_tiers(teaching):
    t = teaching
    tier1 = [t.idx(a) for a, r in t.roles.items() if r == "tier-1"]
    assert len(tier1) == 3
    top = t.ranks.max()
    assert sorted(np.flatnonzero(t.ranks == top).tolist()) == sorted(tier1)
    for i in tier1:
        assert t.providers[i] == []
        assert set(tier1) - {i} <= set(t.peers[i])
    transit = [t.idx(a) for a, r in t.roles.items() if r == "transit"]
    assert 6 <= len(transit) <= 7
    assert all(1 <= len(t.providers[i]) <= 2 and set(t.providers[i]) <= set(tier1) for i in transit)
    regional = [t.idx(a) for a, r in t.roles.items() if r == "regional"]
    assert 3 <= len(regional) <= 4
    assert all(set(t.providers[i]) <= set(transit) for i in regional)
    stubs = set(range(t.n)) - set(tier1) - set(transit) - set(regional)
    assert stubs == set(t.stubs())


def test_teaching_scenario_roles(teaching):
    t = teaching
    victim, attacker, leaker = t.idx(64510), t.idx(64511), t.idx(65537)
    assert t.names[64510] == "VideoTube" and t.roles[64510] == "content"
    assert t.names[64511] == "Rogue Telecom" and t.roles[64511] == "access ISP"
    assert t.names[65537] == "Keystone Steel"
    assert not t.customers[victim] and not t.customers[attacker] and not t.customers[leaker]
    assert len(t.providers[leaker]) == 2  # can leak between its two providers
    assert nx.shortest_path_length(undirected(t), attacker, victim) >= 5  # far apart


# ---------------------------------------------------------------------------------------------------
# the synthetic generator


def check_generated(t: Topology, n: int, tier1: int | None = None) -> None:
    t1 = default_tier1(n) if tier1 is None else tier1
    assert t.n == n
    assert sorted(t.asns.tolist()) == list(range(1, n + 1))
    assert t.source.startswith("synthetic:internet_like(")
    # no cycles: every provider ranks above its customers (and _build would have raised)
    assert np.all(t.ranks[t.p2c[:, 0]] > t.ranks[t.p2c[:, 1]])
    assert nx.is_connected(undirected(t))
    # no pair linked twice, in any way
    pairs = [tuple(sorted(p)) for p in t.p2c.tolist() + t.p2p.tolist()]
    assert len(pairs) == len(set(pairs))
    # tier-1 clique: no providers, all peering with each other
    clique = [t.idx(a) for a in t.clique]
    assert len(clique) == t1
    assert sorted(t.clique) == sorted(a for a, r in t.roles.items() if r == "tier-1")
    for i in clique:
        assert t.providers[i] == []
        assert set(clique) - {i} <= set(t.peers[i])
    # everyone else has 1..3 providers
    others = set(range(n)) - set(clique)
    assert all(1 <= len(t.providers[i]) <= 3 for i in others)
    # stub-class ASes never have customers
    assert all(not t.customers[t.idx(a)] for a, r in t.roles.items() if r == "stub")
    assert sum(r == "stub" for r in t.roles.values()) == stub_count(n, t1)


def test_generator_deterministic():
    a, b = internet_like(500, 42), internet_like(500, 42)
    for field in ("asns", "p2c", "p2p"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.clique == b.clique and a.roles == b.roles
    c = internet_like(500, 43)
    assert graph_key(a) != graph_key(c)


@pytest.mark.parametrize("n", [2, 3, 4, 10, 30, 2000])
def test_generator_invariants(n):
    check_generated(internet_like(n, 1), n)


def test_generator_stub_share_and_tail():
    n = 5000
    t = internet_like(n, 3)
    check_generated(t, n)
    assert len(t.stubs()) == stub_count(n, default_tier1(n)) == 4000  # 80 %
    cust = np.sort(np.bincount(t.p2c[:, 0], minlength=n))[::-1]
    assert cust[: n // 100].sum() > 0.25 * cust.sum()  # the top 1 % hold over a quarter of the links
    assert cust[0] > 20 * np.median(cust[cust > 0])
    transit = {t.idx(a) for a, r in t.roles.items() if r == "transit"}
    tp = sum(a in transit and b in transit for a, b in t.p2p.tolist())
    assert tp > 0.6 * (len(t.p2p) - len(t.clique) * (len(t.clique) - 1) // 2)  # peering mostly transit


def test_generator_tier1_growth():
    assert [default_tier1(n) for n in (2, 3, 10, 100, 181, 182, 1000, 10_000, 80_000)] == [2, 3, 3, 3, 3, 4, 6, 9, 12]
    t = internet_like(60, 5, tier1=5)
    check_generated(t, 60, tier1=5)
    with pytest.raises(ValueError):
        internet_like(1, 0)
    with pytest.raises(ValueError):
        internet_like(10, 0, tier1=11)


def test_generator_fast():
    start = time.perf_counter()
    t = internet_like(10_000, 0)
    elapsed = time.perf_counter() - start
    assert t.n == 10_000
    assert elapsed < 2.0, f"10,000 ASes took {elapsed:.2f} s"


@pytest.mark.parametrize("suffix", [".txt", ".txt.bz2", ".txt.gz"])
def test_write_caida_round_trip(tmp_path, suffix):
    t = internet_like(400, 9)
    path = write_caida(t, tmp_path / ("gen" + suffix))
    back = read_caida(path)
    assert graph_key(back) == graph_key(t)
    assert back.clique == t.clique
    text = path.read_bytes()
    if suffix == ".txt":
        lines = text.decode().splitlines()
        assert any(x.startswith("# input clique: ") for x in lines)
        assert all(x.endswith("|bgp") for x in lines if not x.startswith("#"))


def test_write_caida_round_trip_real_shapes(tmp_path, small):
    back = read_caida(write_caida(small, tmp_path / "small-out.txt"))
    assert graph_key(back) == graph_key(small)
    assert back.clique == small.clique and back.ixps == small.ixps


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(min_value=2, max_value=300), seed=st.integers(min_value=0, max_value=2**63))
def test_generator_property(n, seed):
    t = internet_like(n, seed)
    check_generated(t, n)
    if n >= 20:  # enough stubs to give every provider-class AS a customer
        assert len(t.stubs()) == stub_count(n, default_tier1(n))
    again = internet_like(n, seed)
    assert np.array_equal(t.p2c, again.p2c) and np.array_equal(t.asns, again.asns)


def test_whole_array_reader_equals_the_line_reader(tmp_path, monkeypatch):
    """read_caida's fast path (whole-array parsing) gives exactly what the line-by-line reader
    gives, ranks included, on real and synthetic files; on anything unusual it steps aside."""
    import bgpsim.graph.topology as T
    from bgpsim.graph.generate import internet_like, write_caida

    files = [write_caida(internet_like(400, 3), tmp_path / "g.as-rel2.txt")]
    real = Path(__file__).resolve().parents[2] / "shared" / "data" / "caida" / "20161101.as-rel.txt.bz2"
    if real.exists():
        files.append(real)
    for f in files:
        data = T._open_text(f)
        fast = T._read_fast(data, str(f), f.name)
        assert fast is not None
        monkeypatch.setattr(T, "_read_fast", lambda *a: None)
        slow = T.read_caida(f)
        monkeypatch.undo()
        assert fast == slow and np.array_equal(fast.ranks, slow.ranks) and fast.clique == slow.clique
    body = b"1|2|-1|bgp\n2|3|0|mlp\n"
    for odd in (b"1|2|-1|bgp\n# late comment\n2|3|0\n", b"1|2|-1\r\n2|3|0\n", b"1a|2|-1\n", b"1|2|-1|b|c\n",
                b"1|1|0\n", b"1|2|0\n2|1|0\n", b"1|2|5\n", b"0|2|0\n", b"1|99999999999|0\n", b"1|2|-1\n\n2|3|0\n"):
        assert T._read_fast(odd, "x", "x") is None, odd
    assert T._read_fast(body, "x", "x") is not None
