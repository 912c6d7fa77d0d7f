"""The compiled VRP reader (bgpsim._core.read_vrps, through rpki.vrps.read_vrp_columns and
read_payloads) against an oracle written here from the definitions: each CSV line split on commas
and its fields read by regular expressions, socket.inet_pton and ipaddress (rpki.vrps.fields'
rules); each JSON document by json.loads. Good and broken lines of every kind, random damage,
documents of both tools, and the shared examples: the same columns, or the same message at the
same line or JSON path. Then the VRP index built from the columns (rpki.rov)."""

from __future__ import annotations

import json
import pickle
import random
import re
import socket
from collections import Counter
from ipaddress import IPv4Network, IPv6Network

import numpy as np
import pytest

from bgpsim.base.errors import InputError
from bgpsim.rpki import vrps
from bgpsim.rpki.rov import VRP, Networks, VRPTable

HEADER = "ASN,IP Prefix,Max Length,Trust Anchor\n"
HEADER_EXPIRES = "ASN,IP Prefix,Max Length,Trust Anchor,Expires\n"

# ---------------------------------------------------------------------------------------------
# the oracle

_PREFIX = re.compile(r"[0-9A-Fa-f:.]{2,45}/(?:0|[1-9][0-9]{0,2})")
_ASN = re.compile(r"AS(0|[1-9][0-9]{0,9})")
_DIGITS = re.compile(r"0|[1-9][0-9]{0,9}")
_TA_BAD = re.compile(r'[,"\\]')


class Bad(Exception):
    """A fault the oracle finds, in the words the reader uses."""


def o_prefix(value):
    if type(value) is str and _PREFIX.fullmatch(value):
        addr, _, n = value.partition("/")
        try:
            packed = socket.inet_pton(socket.AF_INET6 if ":" in addr else socket.AF_INET, addr)
        except OSError:
            packed = None
        if packed is not None:
            bits, n, a = 8 * len(packed), int(n), int.from_bytes(packed, "big")
            if n > bits:
                raise Bad(f"bad prefix {value!r}: length {n} is longer than {bits}")
            if a & ((1 << (bits - n)) - 1):
                raise Bad(f"bad prefix {value!r}: host bits set")
            return (4 if bits == 32 else 6), a, n
    raise Bad(f"want a prefix like 192.0.2.0/24 or 2001:db8::/32, got {value!r}")


def o_ta(value):
    if not isinstance(value, str) or not 0 < len(value) <= 256 or not value.isprintable() or _TA_BAD.search(value):
        raise Bad("want a trust anchor name (printable, no comma, quote or backslash, at most 256 characters), "
                  f"got {value!r}")
    return value


def o_csv(text):
    """(columns, or 'line: message')"""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    header = lines[0].rstrip("\r") if lines else ""
    if header not in (HEADER[:-1], HEADER_EXPIRES[:-1]):
        return "1: want a CSV header such as 'ASN,IP Prefix,Max Length,Trust Anchor'"
    width = header.count(",") + 1
    cols = [[], [], [], [], []]
    for n, line in enumerate(lines[1:], start=2):
        line = line[:-1] if line.endswith("\r") else line
        f = line.split(",")
        try:
            if len(f) != width:
                raise Bad(f"want {width} comma-separated fields, got {len(f)}: {line[:80]!r}")
            o_ta(f[3])
            if width == 5 and (not re.fullmatch(r"0|[1-9][0-9]{0,18}", f[4]) or int(f[4]) >= 2**63):
                raise Bad(f"want Expires as a Unix time, got {f[4]!r}")
            v, a, plen = o_prefix(f[1])
            bits = 32 if v == 4 else 128
            if not _DIGITS.fullmatch(f[2]):
                raise Bad(f"want a Max Length from {plen} to {bits}, got {f[2]!r}")
            if not plen <= int(f[2]) <= bits:
                raise Bad(f"want a maxLength from {plen} to {bits} for {f[1]}, got {int(f[2])}")
            m = _ASN.fullmatch(f[0])
            if not m or int(m.group(1)) > 2**32 - 1:
                raise Bad(f"want an AS number like AS64496, got {f[0]!r}")
        except Bad as e:
            return f"{n}: {e}"
        for col, x in zip(cols, (v, a, plen, int(f[2]), int(m.group(1)))):
            col.append(x)
    return cols


def _pairs(items):
    """An object, with the first key seen twice as `twice` (json keeps the last)."""
    out, seen = dict(items), set()
    for k, _ in items:
        if k in seen:
            out.setdefault("twice", k)
        seen.add(k)
    return out


def o_json_roas(text):
    """rpki-client JSON's ROAs (columns, or 'path: message'); the document is otherwise good."""
    doc = json.loads(text, object_pairs_hook=_pairs)
    cols = [[], [], [], [], []]
    for i, e in enumerate(doc.get("roas", [])):
        try:
            if not isinstance(e, dict):
                raise Bad(("", "want an object, got " + ("a list" if isinstance(e, list) else json.dumps(e)
                                                          if not isinstance(e, str) else f"the string {e!r}")))
            if "twice" in e:
                raise Bad((f".{e['twice']}", f"key {e['twice']!r} appears twice"))
            for k in e:
                if k not in ("asn", "prefix", "maxLength", "ta", "expires"):
                    raise Bad((f".{k}", f"unknown key {k!r}; want asn, expires, maxLength, prefix, ta"))
            for k in ("asn", "prefix", "maxLength"):
                if k not in e:
                    raise Bad((f".{k}", f"missing key {k!r}"))
            try:
                v, a, plen = o_prefix(e["prefix"])
            except Bad as b:
                raise Bad((".prefix", str(b))) from None
            bits, m = (32 if v == 4 else 128), e["maxLength"]
            if type(m) is not int or not plen <= m <= bits:
                raise Bad((".maxLength", f"want a maxLength from {plen} to {bits} for {e['prefix']}, got {m!r}"))
            asn = e["asn"]
            if isinstance(asn, str):
                k = _ASN.fullmatch(asn)
                if not k or int(k.group(1)) > 2**32 - 1:
                    raise Bad((".asn", f"want an AS number such as 64496 or \"AS64496\", got {asn!r}"))
                asn = int(k.group(1))
            elif type(asn) is not int or not 0 <= asn <= 2**32 - 1:
                raise Bad((".asn", f"want an AS number from 0 to 4294967295, got {asn!r}"))
            try:
                o_ta(e.get("ta", "N/A"))
            except Bad as b:
                raise Bad((".ta", str(b))) from None
            x = e.get("expires", 0)
            if type(x) is not int or not 0 <= x < 2**63:
                raise Bad((".expires", f"want 'expires' as a Unix time (a non-negative integer), got {x!r}"))
        except Bad as b:
            where, message = b.args[0]
            return f"roas[{i}]{where}: {message}"
        for col, x in zip(cols, (v, a, plen, m, asn)):
            col.append(x)
    return cols


def core(text, source="x"):
    """read_vrp_columns' columns, or 'where: message' (without the file's name)."""
    try:
        return [list(c) for c in vrps.read_vrp_columns(text.encode(), source, lambda w: None)]
    except InputError as e:
        return str(e)[len(source) + 1:]


def check_csv(text):
    got, want = core(text), o_csv(text)
    assert got == want, text[:300]
    payloads = core_payloads(text)
    assert payloads == want, text[:300]
    return got


def core_payloads(text):
    """The same through read_payloads' objects."""
    try:
        origins = vrps.read_payloads(text, "x", lambda w: None).origins
    except InputError as e:
        return str(e)[2:]
    return [[o.vrp.prefix.version for o in origins], [int(o.vrp.prefix.network_address) for o in origins],
            [o.vrp.prefix.prefixlen for o in origins], [o.vrp.max_length for o in origins],
            [o.vrp.asn for o in origins]]


# ---------------------------------------------------------------------------------------------
# CSV


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
def test_many_good_lines(expires):
    rng = random.Random(17 + expires)
    text = (HEADER_EXPIRES if expires else HEADER) + "".join(random_line(rng, expires) for _ in range(4000))
    assert not isinstance(check_csv(text), str)


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
    # faults
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
def test_csv_lines(body):
    for header in (HEADER, HEADER_EXPIRES):
        check_csv(header + (body.replace(",ta", ",ta,1700000000") if header is HEADER_EXPIRES else body))


@pytest.mark.parametrize("body", [
    "", "AS1,1.2.3.0/24,24,ta\n", "AS1,1.2.3.0/24,24,ta", "AS0,0.0.0.0/0,32,ta\n",
    "AS4294967295,255.255.255.255/32,32,a b\n", "AS1,2001:db8::/32,48,ta\nAS2,10.0.0.0/8,8,x\n",
    "AS1,::ffff:1.2.3.0/120,128,ta\n", "AS1,::/0,0,ta\n",
    # faults
    "AS01,1.2.3.0/24,24,ta\n", "AS1,1.2.3.1/24,24,ta\n", "AS1,1.2.3.0/24,23,ta\n", "AS1,1.2.3.0/24,33,ta\n",
    "AS1,1.2.03.0/24,24,ta\n", "AS1,1.2.3.0.0/24,24,ta\n", "AS1,1.2.3/24,24,ta\n", "AS1,256.2.3.0/24,24,ta\n",
    "AS4294967296,1.2.3.0/24,24,ta\n", "AS1,2001:db8::1/32,48,ta\n", "AS1,2001:db8::/32,129,ta\n",
    "AS1,1.2.3.0/24,24,ta,5\n", "AS1,1.2.3.0/24,24,\n", "AS1,1.2.3.0/024,24,ta\n", "AS1,1.2.3.0/24,24,t\ta\n",
    "AS1,1.2.3.0/24,24,ta\r\n", "AS1,1.2.3.a/24,24,ta\n", "AS1,1..3.0/24,24,ta\n", "AS1,1.2.3.0/24,024,ta\n",
    "AS1,1.2.3.0/24,24,ta\n\n", "AS1,1.2.3.0/24,24,a/b\n", "AS1,1.2.3.0/24,24," + "t" * 257 + "\n",
    "AS1,01::/16,16,ta\n", "AS1,1.2.3.0/24,24,ta\nAS1,1.2.3.0/24,24\n",
])
def test_more_csv_lines(body):
    for header in (HEADER, HEADER_EXPIRES):
        check_csv(header + (body.replace(",ta", ",ta,1700000000") if header is HEADER_EXPIRES else body))


@pytest.mark.parametrize("expires", ["0", "1", "9223372036854775807", "9223372036854775808", "9999999999999999999",
                                     "10000000000000000000", "01", "", "1a", "-1", "18446744073709551616"])
def test_expires(expires):
    check_csv(HEADER_EXPIRES + f"AS1,1.2.3.0/24,24,ta,{expires}\n")


def test_random_damage():
    """Random bytes changed, dropped or doubled in good text: the same columns or the same fault."""
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
        accepted += not isinstance(check_csv("".join(text)), str)
    assert 100 < accepted < 1400


def test_not_utf8(tmp_path):
    """Bytes that are not UTF-8: read_text's error, with the line."""
    path = tmp_path / "latin1.csv"
    path.write_bytes(HEADER.encode() + b"AS1,10.0.0.0/8,8,ripe\nAS1,10.0.0.0/8,8,r\xe9seau\n")
    with pytest.raises(InputError) as want:
        vrps.read_text(path)
    with pytest.raises(InputError) as got:
        vrps.read_vrp_columns(vrps.read_bytes(path), str(path))
    assert str(got.value) == str(want.value) and str(got.value).startswith(f"{path}:3: not UTF-8")


@pytest.mark.parametrize("flavour,text,want", [
    ("csvcompat", '"ASN","IP Prefix","Max Length","Trust Anchor"\n"AS1","10.0.0.0/8","8","ta"\n"2","::/0","0","b"\n',
     [[4, 6], [10 << 24, 0], [8, 0], [8, 0], [1, 2]]),
    ("csvext", "URI,ASN,IP Prefix,Max Length,Not Before,Not After\nrsync://a/b.roa,AS1,10.0.0.0/8,8,"
     "2017-08-25 13:12:19,N/A\n", [[4], [10 << 24], [8], [8], [1]]),
    ("csvext", "URI,ASN,IP Prefix,Max Length,Not Before,Not After\nN/A,AS1,10.0.0.0/8,8,2017-02-29 00:00:00,N/A\n",
     "2: want a time like 2017-08-25 13:12:19 or N/A, got '2017-02-29 00:00:00'"),
    ("csvext", "URI,ASN,IP Prefix,Max Length,Not Before,Not After\n,AS1,10.0.0.0/8,8,N/A,N/A\n",
     "2: want a URI or N/A, got ''"),
    ("csvcompat", '"ASN","IP Prefix","Max Length","Trust Anchor"\n"AS1","10.0.0.0/8","8",ta\n',
     "2: want every field in double quotes: '\"AS1\",\"10.0.0.0/8\",\"8\",ta'"),
])
def test_other_flavours(flavour, text, want):
    assert core(text) == want and core_payloads(text) == want
    if not isinstance(want, str):
        assert vrps.detect_format(text) == flavour


# A file of a MiB or more is read by two threads, the second from the line after the newline past
# the middle (core/vrps.h, SPLIT_MIN): these files are that big.
BIG_LINES = 24_000  # some 1.2 MB


@pytest.mark.parametrize("expires", [False, True])
def test_a_big_csv_file_read_in_two_halves(expires):
    """The oracle's columns, and each line's trust anchor, names met first in the second half too."""
    rng = random.Random(47 + expires)
    lines = [random_line(rng, expires) for _ in range(BIG_LINES)]
    for k in range(BIG_LINES * 3 // 4, BIG_LINES, 97):  # trust anchors first met in the second half
        f = lines[k].split(",")
        f[3] = f"late-{k % 3}" + ("" if expires else "\n")
        lines[k] = ",".join(f)
    text = (HEADER_EXPIRES if expires else HEADER) + "".join(lines)
    assert len(text) > 2**20
    check_csv(text)
    origins = vrps.read_payloads(text, "x", lambda w: None).origins
    assert [o.ta for o in origins] == [line.split(",")[3].strip() for line in lines]
    check_csv(text.replace("\n", "\r\n"))


@pytest.mark.parametrize("at", [0.25, 0.5, 0.75, 1.0])
def test_a_fault_in_either_half_of_a_big_file(at):
    """A fault is told with its line, whichever half it is in; the first of two, when there are two."""
    rng = random.Random(48)
    lines = [random_line(rng) for _ in range(BIG_LINES)]
    k = min(int(BIG_LINES * at), BIG_LINES - 1)
    bad = lines[:k] + ["AS1,10.0.0.1/8,8,x\n"] + lines[k:]
    assert core(HEADER + "".join(bad)) == f"{k + 2}: bad prefix '10.0.0.1/8': host bits set"
    bad[-2] = "AS1,10.0.0.0/8,7,x\n"  # a second fault near the end (the first, when k is at the end)
    first = min(k, BIG_LINES - 1)
    assert core(HEADER + "".join(bad)).startswith(f"{first + 2}: ")
    # a trust anchor's name Python judges (not printable): the line where the core first met it
    text = HEADER + "".join(lines[:k] + ["AS1,10.0.0.0/8,8,line\u2028separator\n"] + lines[k:])
    assert check_csv(text).startswith(f"{k + 2}: want a trust anchor name")


def test_a_large_sorted_file_like_the_benchmark():
    rng = random.Random(3)
    vrp_list = sorted({VRP(IPv4Network(((rng.getrandbits(n) << (32 - n)) if n else 0, n)), 24 if n <= 24 else n,
                           rng.getrandbits(20)) for n in (rng.randint(8, 24) for _ in range(20000))})
    text = HEADER + "".join(f"AS{v.asn},{v.prefix},{v.max_length},synthetic\n" for v in vrp_list)
    assert len(check_csv(text)[0]) == len(vrp_list)


# ---------------------------------------------------------------------------------------------
# JSON


def check_json(text):
    want = o_json_roas(text)
    got = core(text)
    assert got == want, text[:400]
    assert core_payloads(text) == want, text[:400]
    return got


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


def test_good_json_documents():
    rng = random.Random(41)
    for trial in range(20):
        assert not isinstance(check_json(rpki_client_json(rng, rng.randint(0, 300), keys=trial % 2 == 0)), str)
    doc = json.loads(rpki_client_json(rng, 50))
    for roa in doc["roas"]:
        roa.pop("ta", None)  # ta and expires are optional
        roa.pop("expires", None)
    assert not isinstance(check_json(json.dumps(doc)), str)
    assert check_json(json.dumps({"metadata": {"buildtime": "2023-07-27T18:56:02Z"}})) == [[]] * 5  # no roas


ROA = '{"asn": 64496, "prefix": "192.0.2.0/24", "maxLength": 24, "ta": "ripe"}'


@pytest.mark.parametrize("roa", [
    ROA, ROA.replace('"ta": "ripe"', '"ta": "a:b"'), ROA.replace("}", ', "expires": 0}'),
    ROA.replace("192.0.2.0/24", "2001:db8::/32").replace("24,", "48,"),
    ROA.replace("192.0.2.0/24", "::ffff:192.0.2.0/120").replace("24,", "128,"),
    # faults
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
def test_json_roas(roa):
    head = '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": ['
    for text in (head + roa + "]}", head + ROA + ", " + roa + "]}", head + roa + ", " + ROA + "]}"):
        if "NaN" in roa:  # json reads it, RFC 8259 (and the core) does not
            assert "NaN is not JSON" in core(text)
            continue
        check_json(text)


@pytest.mark.parametrize("special", ['\\"', "\\\\", "\\u0041", "\t", "\x7f", "é", "€", "\\n"])
def test_json_strings_scanned_a_word_at_a_time(special):
    """A string is scanned eight bytes at a time (core/json.c plain_run): whatever ends its plain run
    (an escape, a raw control character; not DEL, not UTF-8) is met at every place of the word."""
    for before in range(18):
        for after in (0, 1, 7, 8, 9):
            ta = "t" * before + special + "a" * after
            text = '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [' + ROA.replace('"ripe"', f'"{ta}"') + "]}"
            if special == "\t":  # the oracle raises; the core says where
                assert core(text) == f"1:{text.index(special) + 1}: bad JSON: a control character in a string " \
                                     "(RFC 8259 section 7: want it escaped)"
            else:
                check_json(text)


# A list of ROAs of a MiB or more is read by two threads, the second from an element's start found
# past the middle (core/vrps_json.c, SPLIT_MIN): these documents are that big.
BIG = 14_000  # ROAs: 1.2 to 1.7 MB


def test_a_big_json_document_read_in_two_halves():
    """The same columns and trust anchors as json.loads gives, whatever the names in the second half."""
    rng = random.Random(43)
    text = rpki_client_json(rng, BIG)
    assert len(text) > 2**20
    check_json(text)
    doc = json.loads(text)
    for k, roa in enumerate(doc["roas"]):  # trust anchors first met in the second half, and one in both
        roa["ta"] = "both" if k % 1000 == 7 else f"late-{k % 5}" if k > BIG * 3 // 4 else roa["ta"]
    text = json.dumps(doc)
    check_json(text)
    origins = vrps.read_payloads(text, "x", lambda w: None).origins
    assert [o.ta for o in origins] == [roa["ta"] for roa in doc["roas"]]


@pytest.mark.parametrize("at", [0.25, 0.5, 0.75, 1.0])
def test_a_fault_in_either_half_of_a_big_document(at):
    """A fault is told where it is, with its ROA's number, whichever half it is in; the first of
    two, when there are two."""
    rng = random.Random(44)
    text = rpki_client_json(rng, BIG)
    doc = json.loads(text)
    k = min(int(BIG * at), BIG - 1)
    doc["roas"][k]["asn"] = -1
    assert core(json.dumps(doc)) == f"roas[{k}].asn: want an AS number from 0 to 4294967295, got -1"
    doc["roas"][BIG - 2]["maxLength"] = 200  # a second fault, after it (or before, at the very end)
    first = min(k, BIG - 2)
    assert core(json.dumps(doc)).startswith(f"roas[{first}].")
    good = json.loads(text)["roas"]  # a ROA without its prefix past the middle, on a line of its own
    text = json.dumps(good[:BIG // 2] + [{"asn": 1}] + good[BIG // 2:])
    text = '{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": ' + text.replace("}, {", "}\n, {", 9999) + "}"
    assert core(text) == f"roas[{BIG // 2}].prefix: missing key 'prefix'"
    bad = text.index('"asn": 1}') + 8  # a syntax fault past the middle: line and column
    text = text[:bad] + " x" + text[bad:]
    line, column = text.count("\n", 0, bad + 1) + 1, bad + 1 - text.rfind("\n", 0, bad + 1)
    assert core(text) == f"{line}:{column}: bad JSON: want ',' or '}}' after a member of an object"


def test_the_first_of_the_rules_broken_in_either_half():
    """Routinator's metadata after its ROAs: the first ROA with rpki-client's `expires` is named,
    in the second half too."""
    rng = random.Random(45)
    roas = [{"asn": f"AS{r['asn']}", "prefix": r["prefix"], "maxLength": r["maxLength"], "ta": "ripe"}
            for r in json.loads(rpki_client_json(rng, BIG))["roas"]]
    for k in (BIG - 3, BIG * 3 // 4, BIG // 4):
        roas[k]["expires"] = 1
        doc = {"roas": roas, "metadata": {"generated": 0, "generatedTime": "1970-01-01T00:00:00Z"}}
        assert len(json.dumps(doc)) > 2**20 and core(json.dumps(doc)) == f"roas[{k}].expires: unknown key 'expires'; want asn, maxLength, prefix, ta"


def test_an_element_start_seen_inside_a_string():
    """The second thread's start is a guess ("}, {" past the middle) that may be inside a string:
    here every guess is one (a jsonext source's URI across the middle), and the ROAs are read right."""
    roas = [{"asn": f"AS{k}", "prefix": f"10.{k // 256 % 256}.{k % 256}.0/24", "maxLength": 24,
             "source": [{"type": "roa", "uri": f"rsync://x/{k}.roa", "tal": "ripe", "validity": {},
                         "chainValidity": {}, "stale": "x"}]} for k in range(BIG)]
    roas[BIG // 2]["source"][0]["uri"] = "rsync://x/" + "}, {" * 2**19
    doc = {"metadata": {"generated": 0, "generatedTime": "1970-01-01T00:00:00Z"}, "roas": roas}
    origins = vrps.read_payloads(json.dumps(doc), "x").origins
    assert [(str(o.vrp.prefix), o.vrp.asn, o.ta) for o in origins] == [(r["prefix"], int(r["asn"][2:]), "ripe")
                                                                       for r in roas]


def test_an_element_start_seen_after_the_roas():
    """A guess past the end of the ROAs, in a list rpki-client writes after them (read by the second
    thread as ROAs without a fault) is not taken: only the ROAs are."""
    rng = random.Random(46)
    doc = json.loads(rpki_client_json(rng, 3, keys=False))
    doc["nonfunc_cas"] = json.loads(rpki_client_json(rng, BIG, keys=False))["roas"]
    assert check_json(json.dumps(doc)) == core(json.dumps({k: doc[k] for k in ("metadata", "roas")}))


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
    ' \n{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA]}\n',
    '{"metadata": {"buildtime": "2023-07-27T18:56:02Z", "a:b": "c:d"}, "roas": [ROA]}',
])
def test_json_documents(doc):
    """Documents the oracle does not read: the faults read_payloads' strict checks find, the same
    whichever reads."""
    text = doc.replace("ROA", ROA)
    assert core(text) == core_payloads(text) or "bgpsec_keys" in doc or "aspas" in doc  # VRPs alone: not read


@pytest.mark.parametrize("text,at,message", [
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA]} x', " x", "want nothing after"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA', None, "want ',' or ']'"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [ROA,]}', ",]", "want a value"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": ["\t"]}', "\t", "control character"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [1.]}', ".]", "decimal point"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [], "x": 01}', "1}", "want ',' or '}'"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": ["\\x"]}', "\\x", "unknown escape"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"},\n"roas": [{"asn": 1 "prefix"}]}', '"prefix', "want ','"),
])
def test_json_syntax(text, at, message):
    """A fault of the JSON itself: line:column (characters, from 1) of where it was found."""
    text = text.replace("ROA", ROA)
    offset = len(text) if at is None else text.index(at) + (at[0] in ",. " and len(at) > 1)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    got = core(text)
    assert got.startswith(f"{line}:{column}: bad JSON: ") and message in got, got


def test_jsonext_sources():
    """Routinator's jsonext: the trust anchor is the first source's `tal`."""
    roa = {"asn": "AS1", "prefix": "10.0.0.0/8", "maxLength": 8,
           "source": [{"type": "exception", "path": "x.json"}, {"type": "roa", "uri": "rsync://a", "tal": "ripe",
                                                                 "validity": {}, "chainValidity": {}, "stale": "x"}]}
    doc = {"metadata": {"generated": 0, "generatedTime": "1970-01-01T00:00:00Z"}, "roas": [roa]}
    p = vrps.read_payloads(json.dumps(doc), "x")
    assert [(o.ta, str(o.vrp.prefix)) for o in p.origins] == [("ripe", "10.0.0.0/8")]
    roa["source"][0]["tal"] = "arin"
    assert "unknown key 'tal'" in core(json.dumps(doc))
    roa["source"][0] = {"type": "gbr"}
    assert core(json.dumps(doc)) == "roas[0].source[0]: want a source of type roa, cer, aspa, exception, got 'gbr'"
    roa["source"] = []
    assert vrps.read_payloads(json.dumps(doc), "x").origins[0].ta == "N/A"
    roa["expires"] = 1
    assert core(json.dumps(doc)).startswith("roas[0].expires: unknown key 'expires'")


def test_unknown_metadata_key_is_one_warning(capsys):
    text = '{"metadata": {"buildtime": "2023-07-27T18:56:02Z", "note": "x"}, "roas": [ROA]}'.replace("ROA", ROA)
    said: list[str] = []
    assert [list(c) for c in vrps.read_vrp_columns(text.encode(), "x.json", said.append)][4] == [64496]
    assert said == ["x.json: metadata.note: unknown key, ignored"]
    vrps.read_vrp_columns(text.encode(), "x.json")
    assert capsys.readouterr().err == "bgpsim: warning: x.json: metadata.note: unknown key, ignored\n"


def test_shared_examples():
    from helpers import SHARED

    found = 0
    for path in sorted((SHARED / "rpki" / "vrp_format_examples").rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        kind = vrps.detect_format(text)
        if kind == "json" and "buildtime" in text:
            check_json(text)
        elif kind in ("csv", "rpki-client-csv"):
            check_csv(text)
        elif kind is not None:
            assert core(text) == core_payloads(text)
        found += kind is not None
    if not found:
        pytest.skip("the shared RPKI data set is not here")


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
            for name in ("start", "length", "parent", "first", "pair_first", "pair", "pair_max"):
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


def test_validate_arrays_against_a_scan():
    """validate_arrays (core/rov.c's walks, prefixes with one ASN and with several) against the
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
        scan = [(v, int(v.prefix.network_address), v.prefix.prefixlen) for v in table]  # subnet_of, as integers
        want = [_validate_slow(sorted((v for v, a, n in scan if n <= p.prefixlen and (int(p.network_address) ^ a) >> (32 - n) == 0),
                                      key=lambda v: -v.prefix.prefixlen), p, o) for p, o in zip(routes, origins)]
        assert [STATES[c] for c in got.tolist()] == want


