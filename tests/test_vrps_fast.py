"""The VRP CSV reader over chunks of lines (rpki.vrps.fast_csv: separators found in one pass
a chunk, numbers eight or two to a word, IPv4 addresses by their dots) against the line-by-line
reader it stands in for, on unusual and broken input, whatever the chunks; the address column
(rpki.rov.Networks); the VRP index built from those columns against the one built from VRP
objects; rpki.rov.nest by levels against its scan."""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from ipaddress import IPv4Network, IPv6Network

import numpy as np
import pytest

from bgpsim.base.errors import InputError
from bgpsim.rpki import vrps
from bgpsim.rpki.vrps import fast_csv, fast_json, input_csv
from bgpsim.rpki.rov import VRP, Networks, VRPTable, _nest_by_arrays, _nest_by_scan

HEADER = "ASN,IP Prefix,Max Length,Trust Anchor\n"
HEADER_EXPIRES = "ASN,IP Prefix,Max Length,Trust Anchor,Expires\n"


def slow_columns(text):
    out = [[], [], [], [], []]
    for asn, v, a, n, m, _, _ in input_csv.csv_rows(text, None):
        for col, x in zip(out, (v, a, n, m, asn)):
            col.append(x)
    return out


def slow_or_error(text):
    try:
        return slow_columns(text)
    except InputError as e:
        return str(e)


def check_same(text):
    """The fast reader either declines or gives what the line-by-line reader gives, whatever its
    chunks (here also chunks of a line or two); read_vrp_columns gives that too, or the
    line-by-line reader's error."""
    fast = fast_csv.csv_columns(text.encode())
    same = fast_csv.csv_columns(text.encode(), 64 if len(text) < 5000 else len(text) // 20)
    assert (same is None) == (fast is None), text[:300]
    assert fast is None or [list(c) for c in same] == [list(c) for c in fast], text[:300]
    slow = slow_or_error(text)
    if fast is not None:
        assert not isinstance(slow, str), (text[:300], slow)
        assert [list(c) for c in fast] == slow, text[:300]
        assert isinstance(fast[1], Networks)
        assert [c.dtype for c in (fast[0], fast[2], fast[3], fast[4])] == [np.int8, np.int64, np.int64, np.int64]
    try:
        got = [list(c) for c in vrps.read_vrp_columns(text.encode())]
    except InputError as e:
        got = str(e)
    assert got == slow, text[:300]
    return fast


def random_line(rng, expires=False):
    if rng.random() < 0.25:
        n = rng.randint(0, 128)
        prefix = IPv6Network((rng.getrandbits(n) << (128 - n) if n else 0, n))
        text = rng.choice([str(prefix), prefix.exploded, str(prefix).upper()])
        m = rng.randint(n, 128)
    else:
        n = rng.randint(0, 32)
        prefix = IPv4Network(((rng.getrandbits(n) << (32 - n)) if n else 0, n))
        text = str(prefix)
        m = rng.randint(n, 32)
    asn = rng.choice([0, 1, 13335, 99999999, 100000000, 4199999999, 2**32 - 1, rng.getrandbits(32)])
    ta = rng.choice(["ripe", "arin", "apnic", "a b", "x" * 256, "ta.with.dots", "t-a", "~!@#$%^&*()_+=[]{};'<>?"])
    line = f"AS{asn},{text},{m},{ta}"
    if expires:
        line += "," + str(rng.choice([0, 1700000000, 2**63 - 1, rng.getrandbits(62)]))
    return line + "\n"


@pytest.mark.parametrize("expires", [False, True])
def test_fast_reader_on_many_good_lines(expires):
    rng = random.Random(17 + expires)
    text = (HEADER_EXPIRES if expires else HEADER) + "".join(random_line(rng, expires) for _ in range(4000))
    assert check_same(text) is not None


@pytest.mark.parametrize("body", [
    "",  # no lines
    "AS1,1.2.3.0/24,24,ta",  # no newline at the end
    "AS1,0.0.0.0/0,0,ta\nAS2,255.255.255.255/32,32,ta\n",
    "AS1,1.2.3.0/24,24,ta.example.net\n",  # dots in a trust anchor name
    "AS1,::ffff:1.2.3.0/120,128,ta\n",  # an IPv6 address with dots
    "AS1,2001:db8::/32,32,ta\nAS1,1.2.3.0/24,24,ta:b\n",  # a ':' in a trust anchor name (declined)
    "AS1,1:2:3:4:5:6:7:8/128,128,ta\n",
    "AS1,0000:0000:0000:0000:0000:0000:0000:0000/0,0,ta\n",  # the longest IPv6 text: 39 characters
    "AS1,0000:0000:0000:0000:0000:ffff:255.255.255.0/120,128,ta\n",  # 45 characters
    "AS1,2001:db8::/32,33,ta\nAS1,2001:db8:8000::/33,64,ta\nAS1,2001:db8::1:0/112,128,ta\n",
    "AS99999999,1.2.3.0/24,24,ta\nAS100000000,1.2.3.0/24,24,ta\nAS4294967295,1.2.3.0/24,24,ta\n",
    "AS0,1.2.3.0/24,24,ta\n",
    # faults: the fast reader declines, the line-by-line one names the line
    "AS4294967296,1.2.3.0/24,24,ta\n", "AS99999999999,1.2.3.0/24,24,ta\n", "AS00,1.2.3.0/24,24,ta\n",
    "AS,1.2.3.0/24,24,ta\n", "as1,1.2.3.0/24,24,ta\n", "A1,1.2.3.0/24,24,ta\n", "1,1.2.3.0/24,24,ta\n",
    "AS1 ,1.2.3.0/24,24,ta\n", "AS-1,1.2.3.0/24,24,ta\n", "AS1a,1.2.3.0/24,24,ta\n",
    "AS1,1.2.3.0/24,24,ta\nAS1,1.2.3.0/24,24,ta\n\n", "\nAS1,1.2.3.0/24,24,ta\n",
    "AS1,1.2.3.0/24,24,ta\r\n", "AS1,1.2.3.0/24,24,t\ta\n", "AS1,1.2.3.0/24,24,t\"a\n", "AS1,1.2.3.0/24,24,t\\a\n",
    "AS1,1.2.3.0/24,24,t\x7fa\n", "AS1,1.2.3.0/24,24,tä\n", "AS1,1.2.3.0/24,24,\n", "AS1,1.2.3.0/24,24," + "t" * 257 + "\n",
    "AS1,1.2.3.0/24,24,t/a\n", "AS1,1.2.3.0/24,24,ta,\n", "AS1,1.2.3.0/24,24\n", "AS1,1.2.3.0,24,ta\n",
    "AS1,1.2.3.0/24/24,24,ta\n", "AS1,1.2.3.0/24,24,ta,1\n",
    "AS1,1.2.3.0/,24,ta\n", "AS1,1.2.3.0/024,24,ta\n", "AS1,1.2.3.0/1234,24,ta\n", "AS1,1.2.3.0/33,33,ta\n",
    "AS1,1.2.3.0/24,,ta\n", "AS1,1.2.3.0/24,024,ta\n", "AS1,1.2.3.0/24,23,ta\n", "AS1,1.2.3.0/24,33,ta\n",
    "AS1,1.2.3.0/24,2a,ta\n", "AS1,1.2.3.0/2a,24,ta\n", "AS1,1.2.3.0/24,1000,ta\n",
    "AS1,1.2.3.1/24,24,ta\n", "AS1,128.0.0.0/0,0,ta\n", "AS1,1.2.3.0/31,32,ta\nAS1,1.2.3.1/32,32,ta\n",
    "AS1,1.2.03.0/24,24,ta\n", "AS1,01.2.3.0/24,24,ta\n", "AS1,1.2.3.00/32,32,ta\n", "AS1,1.2.3.256/32,32,ta\n",
    "AS1,256.2.3.0/24,24,ta\n", "AS1,1.2.3.0.0/24,24,ta\n", "AS1,1.2.3/24,24,ta\n", "AS1,1..3.0/24,24,ta\n",
    "AS1,.1.2.3/32,32,ta\n", "AS1,1.2.3./32,32,ta\n", "AS1,1.2.3.a/24,24,ta\n", "AS1,1.2.3.0 /24,24,ta\n",
    "AS1, 1.2.3.0/24,24,ta\n", "AS1,1234.2.3.0/24,24,ta\n", "AS1,1.2.3.1234/32,32,ta\n", "AS1,/24,24,ta\n",
    "AS1,1.2.3.4.5.6.7.8/32,32,ta\n", "AS1,111.111.111.111.1/32,32,ta\n", "AS1,1.1.1.1111/32,32,ta\n",
    "AS1,0x1.2.3.0/24,24,ta\n", "AS1,1.2.3.0/-1,24,ta\n", "AS1,1.2.3.0/24,+24,ta\n",
    "AS1,2001:db8::1/32,48,ta\n", "AS1,2001:db8::/32,129,ta\n", "AS1,2001:db8::/129,129,ta\n",
    "AS1,2001:db8::/32,31,ta\n", "AS1,2001:db8::/0,0,ta\n", "AS1,::1/127,128,ta\n", "AS1,8000::/0,0,ta\n",
    "AS1,2001:db8:::/32,32,ta\n", "AS1,2001:db8::g/32,32,ta\n", "AS1,2001:db8::%eth0/32,32,ta\n",
    "AS1,01::/16,16,ta\n", "AS1,:/16,16,ta\n", "AS1,1:2:3:4:5:6:7:8:9/128,128,ta\n",
    "AS1,0000:0000:0000:0000:0000:0000:0000:0000:0/0,0,ta\n",
    "AS1,0000:0000:0000:0000:0000:ffff:255.255.255.000/120,128,ta\n",  # 46 characters
    "AS1,::ffff:1.2.3.256/120,128,ta\n", "AS1,1.2.3.4:5/32,32,ta\n", "AS1,1.2.3.0/24,24,ta\nAS1,1.2.3.0/24,24\n",
])
def test_fast_reader_is_the_line_reader(body):
    for header in (HEADER, HEADER_EXPIRES):
        text = header + (body.replace(",ta", ",ta,1700000000") if header is HEADER_EXPIRES else body)
        check_same(text)


def test_fast_reader_chunk_boundaries_anywhere():
    """A chunk ends where the line that holds its last byte ends: with every chunk size up to the
    body's length, a boundary falls after each line (lines of 13 bytes up to one with a 256-byte
    trust anchor, IPv4 and IPv6), and the columns are those of one chunk; a fault in the last
    line, whatever chunk it is in, makes the reader decline."""
    rng = random.Random(11)
    lines = ["AS0,::/0,0,t\n", f"AS1,1.2.3.0/24,24,{'x' * 256}\n"]
    lines += [random_line(rng).replace("x" * 256, "ta") for _ in range(6)]
    rng.shuffle(lines)
    text = HEADER + "".join(lines)
    whole = check_same(text)
    assert whole is not None
    sizes = range(1, len(text) - len(HEADER) + 2)
    for chunk in sizes:
        assert [list(c) for c in fast_csv.csv_columns(text.encode(), chunk)] == [list(c) for c in whole]
    bad = (HEADER + "".join(lines[:-1]) + lines[-1].replace(",", ",,", 1)).encode()
    assert all(fast_csv.csv_columns(bad, chunk) is None for chunk in sizes)


def test_fast_reader_lines_of_every_length_at_chunk_boundaries():
    """Lines of every length from 13 to 268 bytes, IPv4 and IPv6, each one the last of a chunk
    (chunks of a byte: a line each) or some of them (longer chunks): the columns of one chunk."""
    rng = random.Random(13)
    lines = [f"AS0,::/0,0,{'t' * k}\n" for k in range(1, 257)]
    lines += [f"AS{rng.getrandbits(32)},{IPv4Network((rng.getrandbits(24) << 8, 24))},24,{'t' * k}\n"
              for k in range(1, 257)]
    rng.shuffle(lines)
    text = HEADER + "".join(lines)
    whole = check_same(text)
    assert whole is not None and len(whole[0]) == len(lines)
    for chunk in (1, 50, 300, 4096):
        assert [list(c) for c in fast_csv.csv_columns(text.encode(), chunk)] == [list(c) for c in whole]


def test_fast_reader_fault_in_a_later_chunk():
    """A file of three chunks of the default size, with a fault in the second or the last: the
    fast reader declines, and read_vrp_columns names the line as the line-by-line reader does."""
    rng = random.Random(12)
    lines = [f"AS{rng.getrandbits(32)},{IPv4Network((rng.getrandbits(24) << 8, 24))},24,ripe\n"
             for _ in range(5 * fast_csv.CHUNK // 2 // 36)]
    text = HEADER + "".join(lines)
    assert 2 * fast_csv.CHUNK < len(text) < 3 * fast_csv.CHUNK
    assert fast_csv.csv_columns(text.encode()) is not None
    second = "".join(lines)[:fast_csv.CHUNK + 100].count("\n")  # the line that holds the body's byte CHUNK + 100
    for fault in (second, len(lines) - 1):
        broken = lines[:fault] + [lines[fault].replace(",24,", ",24,23,")] + lines[fault + 1:]
        data = (HEADER + "".join(broken)).encode()
        assert fast_csv.csv_columns(data) is None
        with pytest.raises(InputError) as e:
            vrps.read_vrp_columns(data, "vrps.csv")
        assert str(e.value).startswith(f"vrps.csv:{fault + 2}: want 4 comma-separated fields, got 5")


def test_read_vrp_columns_not_utf8(tmp_path):
    """Bytes that are not UTF-8: read_text's error (the fast reader declines, the text is decoded)."""
    path = tmp_path / "latin1.csv"
    path.write_bytes(HEADER.encode() + b"AS1,10.0.0.0/8,8,ripe\nAS1,10.0.0.0/8,8,r\xe9seau\n")
    with pytest.raises(InputError) as want:
        vrps.read_text(path)
    with pytest.raises(InputError) as got:
        vrps.read_vrp_columns(vrps.read_bytes(path), str(path))
    assert str(got.value) == str(want.value) and str(got.value).startswith(f"{path}:3: not UTF-8")


@pytest.mark.parametrize("expires", ["0", "1", "9223372036854775807", "9223372036854775808", "9999999999999999999",
                                     "10000000000000000000", "01", "", "1a", "-1", "18446744073709551616"])
def test_fast_reader_expires(expires):
    check_same(HEADER_EXPIRES + f"AS1,1.2.3.0/24,24,ta,{expires}\n")


def test_fast_reader_on_mutated_text():
    """Random bytes changed, dropped or doubled in good text: whatever the fast reader accepts, the
    line-by-line reader accepts too, with the same columns."""
    rng = random.Random(5)
    alphabet = "0123456789abcdefAS.,:/\n \r\t\"\\ä" + chr(0x7F)
    accepted = 0
    for trial in range(1500):
        expires = trial % 3 == 0
        lines = [random_line(rng, expires) for _ in range(rng.randint(1, 6))]
        text = list((HEADER_EXPIRES if expires else HEADER) + "".join(lines))
        start = len(HEADER_EXPIRES if expires else HEADER)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(start, len(text))
            kind = rng.random()
            if kind < 0.4:
                text[i] = rng.choice(alphabet)
            elif kind < 0.7:
                del text[i]
            else:
                text.insert(i, text[i])
        accepted += check_same("".join(text)) is not None
    assert accepted > 100


def test_fast_reader_reads_a_large_sorted_file_like_the_benchmark(tmp_path):
    rng = random.Random(3)
    vrp_list = sorted({VRP(IPv4Network(((rng.getrandbits(n) << (32 - n)) if n else 0, n)), 24 if n <= 24 else n,
                           rng.getrandbits(20)) for n in (rng.randint(8, 24) for _ in range(20000))})
    text = HEADER + "".join(f"AS{v.asn},{v.prefix},{v.max_length},synthetic\n" for v in vrp_list)
    fast = check_same(text)
    assert fast is not None and len(fast[0]) == len(vrp_list)


# ---------------------------------------------------------------------------------------------
# Networks


def test_networks_column():
    values = [0, 1, 2**32 - 1, 2**64 - 1, 2**64, 2**128 - 1, 0x20010DB8 << 96]
    col = Networks.of(values)
    assert list(col) == values and col.tolist() == values and len(col) == len(values)
    assert [col[i] for i in range(len(values))] == values and col[np.int64(5)] == 2**128 - 1
    assert col[np.array([5, 0])].tolist() == [2**128 - 1, 0] and col[1:3].tolist() == [1, 2**32 - 1]
    assert np.asarray(col).dtype == object and np.asarray(col).tolist() == values
    assert pickle.loads(pickle.dumps(col)).tolist() == values
    assert Networks.of(col) is col
    assert Networks.of(np.array(values, dtype=object)).tolist() == values
    small = Networks.of([5, 2**32])
    assert small.high.tolist() == [0, 0] and small.low.tolist() == [5, 2**32]
    assert Networks.of([]).tolist() == []


# ---------------------------------------------------------------------------------------------
# The index from columns against the index from VRP objects


def random_vrps(rng, count):
    out = []
    for _ in range(count):
        if rng.random() < 0.3:
            n = rng.randint(0, 96)
            a = ((rng.getrandbits(4) << 124 | rng.getrandbits(30) << 64 | rng.getrandbits(64)) >> (128 - n)) << (128 - n) if n else 0
            out.append(VRP(IPv6Network((a, n)), rng.randint(n, 128), rng.choice([0, 1, 2, 2**32 - 1])))
        else:
            n = rng.randint(0, 32)
            a = ((10 << 24 | rng.getrandbits(12) << 12 | rng.getrandbits(12)) >> (32 - n)) << (32 - n) if n else 0
            out.append(VRP(IPv4Network((a, n)), rng.randint(n, 32), rng.choice([0, 1, 2, 3, 64500, 2**32 - 1])))
    return out


def test_index_from_csv_columns_is_the_index_from_objects():
    rng = random.Random(9)
    for trial in range(20):
        table = random_vrps(rng, rng.randint(0, 600))
        if trial % 2:
            table += table[: len(table) // 3]  # duplicates, unsorted
        text = HEADER + "".join(f"AS{v.asn},{v.prefix},{v.max_length},ta\n" for v in table)
        cols = vrps.read_vrp_columns(text.encode())
        fast, slow = VRPTable.from_columns(*cols), VRPTable(table)
        assert list(fast) == table
        for v in (4, 6):
            a, b = fast._families()[v], slow._families()[v]
            for name in ("start", "length", "end", "parent", "first", "pair", "pair_max"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert sorted(fast._long) == sorted(slow._long)
        routes = random_vrps(rng, 300)
        prefixes, origins = [r.prefix for r in routes], [r.asn if rng.random() < 0.5 else 1 for r in routes]
        assert fast.validate_many(prefixes, origins).tolist() == slow.validate_many(prefixes, origins).tolist()
        for r in routes[:40]:
            assert fast.covering(r.prefix) == slow.covering(r.prefix)
        again = pickle.loads(pickle.dumps(fast))  # the index alone: the columns are made again from it
        assert again.validate_many(prefixes, origins).tolist() == slow.validate_many(prefixes, origins).tolist()
        assert len(again) == len(table) and Counter(again) == Counter(table)


def test_nest_by_levels_is_the_scan():
    rng = np.random.default_rng(8)
    for trial in range(200):
        bits = 64 if trial % 2 else 32
        n = int(rng.integers(1, 300))
        length = rng.integers(0, bits + 1, n)
        start = rng.integers(0, 2**63, n, dtype=np.uint64) << np.uint64(1) if bits == 64 else rng.integers(0, 2**32, n, dtype=np.uint64)
        start &= np.uint64((0xFF00000000000000 if bits == 64 else 0xFF000000) if rng.random() < 0.7 else 2**bits - 1)
        k = (bits - length).astype(np.uint64)
        host = np.where(k == 64, np.uint64(2**64 - 1), (np.uint64(1) << np.minimum(k, 63)) - np.uint64(1))
        start &= ~host
        pairs = sorted(set(zip(start.tolist(), length.tolist())))
        s = np.array([p[0] for p in pairs], dtype=np.uint64)
        e = np.array([p[0] + ((1 << (bits - p[1])) - 1) for p in pairs], dtype=np.uint64)
        assert _nest_by_arrays(s, e).tolist() == _nest_by_scan(s, e).tolist()
    assert _nest_by_arrays(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64)).tolist() == []


def test_validate_arrays_against_a_scan():
    """validate_arrays (one ASN per prefix found without a search, others by one) against the
    RFC 6811 states found by scanning every VRP."""
    from bgpsim.rpki.rov import STATES, _validate_slow

    rng = random.Random(21)
    for trial in range(15):
        table = [v for v in random_vrps(rng, rng.randint(1, 800)) if v.prefix.version == 4]
        vt = VRPTable(table)
        routes = [v.prefix for v in random_vrps(rng, 1500) if v.prefix.version == 4] + [v.prefix for v in table]
        origins = [rng.choice([-1, 0, 1, 2, 3, 64500, 2**32 - 1]) for _ in routes]
        got = vt.validate_arrays(4, np.array([int(p.network_address) for p in routes], dtype=np.uint64),
                                 np.array([p.prefixlen for p in routes]), np.array(origins))
        want = [_validate_slow(sorted((v for v in table if p.subnet_of(v.prefix)), key=lambda v: -v.prefix.prefixlen),
                               p, o) for p, o in zip(routes, origins)]
        assert [STATES[c] for c in got.tolist()] == want


# ---------------------------------------------------------------------------------------------
# rpki-client JSON without an object per VRP


def strict_json_columns(text):
    """The columns read_vrp_columns gave before its JSON fast path: from read_payloads' origins,
    or its error."""
    try:
        origins = vrps.read_payloads(text, "x.json").origins
    except InputError as e:
        return str(e)
    return [[o.vrp.prefix.version for o in origins], [int(o.vrp.prefix.network_address) for o in origins],
            [o.vrp.prefix.prefixlen for o in origins], [o.vrp.max_length for o in origins],
            [o.vrp.asn for o in origins]]


def check_json(text):
    fast = fast_json.json_columns(text)
    want = strict_json_columns(text)
    if fast is not None:
        assert not isinstance(want, str), (text[:400], want)
        assert [list(c) for c in fast] == want, text[:400]
    try:
        got = [list(c) for c in vrps.read_vrp_columns(text.encode(), "x.json")]
    except InputError as e:
        got = str(e)
    assert got == want, text[:400]
    return fast


def rpki_client_json(rng, count, keys=True):
    origins = []
    for line in (random_line(rng) for _ in range(count)):
        asn, prefix, maxlen, ta = line.strip().split(",")
        p = (IPv4Network if ":" not in prefix else IPv6Network)(prefix)
        origins.append(vrps.Origin(VRP(p, int(maxlen), int(asn[2:])), ta, rng.choice([None, 1700000000])))
    payloads = vrps.Payloads(origins)
    if keys:
        payloads.router_keys = [vrps.RouterKey(64496, bytes(range(20)), bytes(range(64)), "ripe", 1700000000)]
        payloads.aspas = [vrps.ASPA(64496, (1, 2, 3), vrps.NO_TA, 1700000000)]
    return vrps.write_json(payloads)


def test_fast_json_on_good_documents():
    rng = random.Random(41)
    for trial in range(20):
        text = rpki_client_json(rng, rng.randint(0, 300), keys=trial % 2 == 0)
        assert check_json(text) is not None
    doc = json.loads(rpki_client_json(rng, 50))
    for roa in doc["roas"]:
        roa.pop("ta", None)  # ta and expires are optional
        roa.pop("expires", None)
    assert check_json(json.dumps(doc)) is not None
    assert check_json(json.dumps({"metadata": {"buildtime": "2023-07-27T18:56:02Z"}})) is not None  # no roas


ROA = '{"asn": 64496, "prefix": "192.0.2.0/24", "maxLength": 24, "ta": "ripe"}'


@pytest.mark.parametrize("roa", [
    ROA, ROA.replace('"ta": "ripe"', '"ta": "a:b"'), ROA.replace("}", ', "expires": 0}'),
    ROA.replace("192.0.2.0/24", "2001:db8::/32").replace("24,", "48,"),
    ROA.replace("192.0.2.0/24", "::ffff:192.0.2.0/120").replace("24,", "128,"),
    # faults, or what the fast path leaves to the strict reader
    ROA.replace("64496", '"AS64496"'), ROA.replace("64496", '"AS4294967296"'), ROA.replace("64496", '"AS064496"'),
    ROA.replace("64496", '"64496"'), ROA.replace("64496", '"as64496"'), ROA.replace("64496", "64496.0"), ROA.replace("64496", "true"),
    ROA.replace("64496", "-1"), ROA.replace("64496", "4294967296"), ROA.replace("64496", "99999999999999999999"),
    ROA.replace("64496", "NaN"), ROA.replace("24,", "24.0,"), ROA.replace("24,", "23,"), ROA.replace("24,", "33,"),
    ROA.replace("24,", "-24,"), ROA.replace("24,", "null,"), ROA.replace('"192.0.2.0/24"', "3"),
    ROA.replace("192.0.2.0/24", "192.0.2.1/24"), ROA.replace("192.0.2.0/24", "192.0.2.0"),
    ROA.replace("192.0.2.0/24", "192.0.02.0/24"), ROA.replace("192.0.2.0/24", " 192.0.2.0/24"),
    ROA.replace("192.0.2.0/24", "192.0.2.0/24\\n"), ROA.replace("192.0.2.0/24", "192.0.2.0/2\\u0034"),
    ROA.replace("192.0.2.0/24", "2001:db8::1/32"), ROA.replace("192.0.2.0/24", "192.0.2.0/024"),
    ROA.replace('"ta": "ripe"', '"ta": ""'), ROA.replace('"ta": "ripe"', '"ta": 1'), ROA.replace('"ta": "ripe"', '"ta": ["x"]'),
    ROA.replace('"ta": "ripe"', '"ta": "a,b"'), ROA.replace('"ta": "ripe"', '"ta": "r\\u0069pe"'),
    ROA.replace("}", ', "expires": -1}'), ROA.replace("}", ', "expires": 9223372036854775808}'),
    ROA.replace("}", ', "expires": "1"}'), ROA.replace("}", ', "extra": 1}'), ROA.replace('"ta": "ripe"', '"ta": "ripe", "ta": "arin"'),
    ROA.replace('"asn": 64496', '"asn": 64496, "asn": 64497'), ROA.replace('"asn": 64496, ', ""),
    ROA.replace('"asn"', '"\\u0061sn"'), ROA.replace('"maxLength": 24, ', ""), "[]", "1", '"x"', "{}",
])
def test_fast_json_is_the_strict_reader(roa):
    head = '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": ['
    for text in (head + roa + "]}", head + ROA + ", " + roa + "]}", head + roa + ", " + ROA + "]}"):
        check_json(text)


@pytest.mark.parametrize("doc", [
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z", "buildtime": "2023-07-27T18:56:03Z"}, "roas": [ROA]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA], "roas": []}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [], "roas": [ROA]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA], "nonfunc_cas": [{"a": 1, "a": 2}]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA], "unknown": 1}',
    '{"metadata": {"buildtime": "yesterday"}, "roas": [ROA]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA], "bgpsec_keys": [{"asn": 1}]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA], "aspas": [{"customer_asid": 1, "providers": [1]}]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": ROA}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA], "slurmVersion": 1}',
    '{"metadata": {"generated": 1700000000, "generatedTime": "2023-11-14T22:13:20Z"}, "roas": [ROA]}',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA]} x', '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA',
    ' \n{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA]}\n',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z", "a:b": "c:d"}, "roas": [ROA]}',
])
def test_fast_json_documents(doc):
    check_json(doc.replace("ROA", ROA))


def test_fast_json_unknown_metadata_key_is_one_warning(capsys):
    # issue 12: tolerant about metadata; the fast path gives the strict reader's warning, once, whichever reads
    text = '{"metadata": {"buildtime": "2023-07-27T18:56:02Z", "note": "x"}, "roas": [ROA]}'.replace("ROA", ROA)
    want = ["x.json: metadata.note: unknown key, ignored"]
    said: list[str] = []
    fast = fast_json.json_columns(text, "x.json", said.append)
    assert fast is not None and said == want  # the fast path read it
    assert [list(c) for c in fast] == strict_json_columns(text.replace(', "note": "x"', ""))
    said.clear()
    assert [list(c) for c in vrps.read_vrp_columns(text.encode(), "x.json", said.append)] == [list(c) for c in fast]
    assert said == want
    # the fast path declines (a ROA written with an escape) and the strict reader reads: still once
    said.clear()
    escaped = text.replace('"ta": "ripe"', '"ta": "r\\u0069pe"')
    assert fast_json.json_columns(escaped, "x.json", said.append) is None and said == []
    assert [list(c) for c in vrps.read_vrp_columns(escaped.encode(), "x.json", said.append)] == [list(c) for c in fast]
    assert said == want
    # the fast path declines on a fault: the strict reader's error, and the warning at most once (the
    # top-level keys are checked before the metadata, the ROAs after)
    for bad, told in ((text.replace("}]}", ', "note": 1}]}'), want),
                      (text.replace('"roas"', '"surprise": 1, "roas"'), [])):
        said.clear()
        assert fast_json.json_columns(bad, "x.json", said.append) is None and said == []
        with pytest.raises(InputError, match="unknown key 'surprise'|unknown key 'note'"):
            vrps.read_vrp_columns(bad.encode(), "x.json", said.append)
        assert said == told
    # the default: standard error
    vrps.read_vrp_columns(text.encode(), "x.json")
    assert capsys.readouterr().err == "bgpsim: warning: x.json: metadata.note: unknown key, ignored\n"


def test_fast_json_shared_examples():
    from helpers import SHARED

    found = 0
    for path in sorted((SHARED / "rpki" / "vrp_format_examples").rglob("*.json")):
        text = path.read_text()
        if vrps.detect_format(text) == "json":
            check_json(text)
            found += 1
    if not found:
        pytest.skip("the shared RPKI data set is not here")


@pytest.mark.parametrize("body", [
    "", "AS1,1.2.3.0/24,24,ta\n", "AS1,1.2.3.0/24,24,ta", "AS0,0.0.0.0/0,32,ta\n",
    "AS4294967295,255.255.255.255/32,32,a b\n", "AS1,2001:db8::/32,48,ta\nAS2,10.0.0.0/8,8,x\n",
    "AS1,::ffff:1.2.3.0/120,128,ta\n", "AS1,::/0,0,ta\n",
    # faults: the fast reader declines, the line-by-line one names the line
    "AS01,1.2.3.0/24,24,ta\n", "AS1,1.2.3.1/24,24,ta\n", "AS1,1.2.3.0/24,23,ta\n", "AS1,1.2.3.0/24,33,ta\n",
    "AS1,1.2.03.0/24,24,ta\n", "AS1,1.2.3.0.0/24,24,ta\n", "AS1,1.2.3/24,24,ta\n", "AS1,256.2.3.0/24,24,ta\n",
    "AS4294967296,1.2.3.0/24,24,ta\n", "AS1,2001:db8::1/32,48,ta\n", "AS1,2001:db8::/32,129,ta\n",
    "AS1,1.2.3.0/24,24,ta,5\n", "AS1,1.2.3.0/24,24,\n", "AS1,1.2.3.0/024,24,ta\n", "AS1,1.2.3.0/24,24,t\ta\n",
    "AS1,1.2.3.0/24,24,ta\r\n", "AS1,1.2.3.a/24,24,ta\n", "AS1,1..3.0/24,24,ta\n", "AS1,1.2.3.0/24,024,ta\n",
    "AS1,1.2.3.0/24,24,ta\n\n", "AS1,1.2.3.0/24,24,a/b\n", "AS1,1.2.3.0/24,24," + "t" * 257 + "\n",
    "AS1,01::/16,16,ta\n", "AS1,1.2.3.0/24,24,ta\nAS1,1.2.3.0/24,24\n",
])
def test_fast_csv_is_the_csv_reader_on_faults(body):
    for header in (HEADER, HEADER_EXPIRES):
        text = header + (body.replace(",ta", ",ta,1700000000") if header is HEADER_EXPIRES else body)
        fast = fast_csv.csv_columns(text.encode())
        try:
            slow = slow_columns(text)
        except InputError:
            slow = None
        if fast is None:
            continue  # the line-by-line reader decides
        assert slow is not None, text
        assert [list(c) for c in fast] == slow, text


def test_fast_csv_on_many_lines():
    rng = random.Random(7)
    lines = []
    for _ in range(3000):
        if rng.random() < 0.2:
            n = rng.randint(16, 64)
            prefix = IPv6Network((rng.getrandbits(n) << (128 - n), n))
            m = rng.randint(n, 128)
        else:
            n = rng.randint(0, 32)
            prefix = IPv4Network(((rng.getrandbits(n) << (32 - n)) if n else 0, n))
            m = rng.randint(n, 32)
        lines.append(f"AS{rng.randint(0, 2**32 - 1)},{prefix},{m},ta{rng.randint(0, 3)}\n")
    text = HEADER + "".join(lines)
    fast = fast_csv.csv_columns(text.encode())
    assert fast is not None
    assert [list(c) for c in fast] == slow_columns(text)
    assert [list(c) for c in vrps.read_vrp_columns(text.encode())] == slow_columns(text)
