"""A seeded mutation fuzzer for the readers of outside route data: MRT (`bgpsim.mrt.read_routes` and
`read_batches`), pcap/pcapng (`bgpsim.capture.read_capture_routes`), `bgpdump -m` text
(`bgpsim.mrt.text.read_text_routes`, strict and lenient), BGPsec_PATH attribute values
(`bgpsim.rpki.bgpsec.path.decode`, then validation with `Verifier.verify_value`) and VRP files of
every CSV flavour and both tools' JSON (`bgpsim.rpki.vrps.read_vrp_columns` and `read_payloads`), and
RTR PDU streams (`bgpsim.rtr.pdu.decode`, and the load-test framing `bgpsim._core.rtr_frames`), and
RIS Live messages (`bgpsim.live.rislive.Reader`).

    python3 bench/fuzz_readers.py [--reader mrt|pcap|text|bgpsec|vrps|bzip2|rtr|rislive|all] [--count 100000] [--seed 1]
                                  [--case N] [--save DIR] [--no-damage-check]

Seeds are real files from ../shared/data (mrt/, pcap/, the bgpdump reference text) cut to a few dozen
records, plus captures built here. Each case takes one seed and applies 1-5 mutations: bit flips,
byte sets, insertions, deletions, duplications, truncations, splices of whole records (MRT records,
pcap packets, text lines, also across seeds), and corruption of the length and type fields the
readers trust: MRT record headers, BGP message headers, UPDATE and path-attribute lengths, RIB entry
counts, pcap/pcapng block lengths, IPv4/IPv6 and TCP header lengths; text fields swapped for hostile
tokens. A few cases are compressed (gzip/bzip2) after mutation, some damaged after compression.

BGPsec_PATH seeds: the two RFC 8208 example attributes and paths of 1 to 6 hops (IPv4 and IPv6, with
prepending, some with a second Signature_Block of another suite) signed here with the example keys;
the fields mutated are the lengths, pCounts, flags, ASes, suite IDs and signature lengths. A value
that decodes must encode back to the same bytes, and its validation must give a verdict.

RTR: a cache's answers in versions 0, 1 and 2 (prefixes, router keys, ASPAs, End of Data), queries and
Error Reports, encoded here (synthetic); the fields mutated are the versions, types, 16-bit fields and
lengths of the headers, the flags and lengths of prefixes and the provider lists of ASPAs. A stream
read PDU by PDU must end in a PduError or be whole, be framed by rtr_frames where the reader framed
it, and each PDU read must encode to a PDU that reads the same.

RIS Live: lines of messages (the dump's UPDATEs enveloped and bare, the other types, one in capitals);
JSON tokens swapped for hostile ones, values cut, doubled or recased. A line orjson reads must not be
refused as JSON, and one orjson refuses (but for its UTF-8, which we do not decode) must be.

bzip2: streams of several blocks (real dumps compressed again) damaged, cut and spliced, often at a
block magic; the threads' decompression (bgpsim.mrt.bzip2) must give what the sequential decoder gives.

Every route is consumed in full (prefix, AS path, origin, communities, next hop, ... and the
`bgpdump -m` line). MRT cases are also checked as `bgpsim validate` checks them (bgpsim.validate.check,
in one process, against a few VRPs that give every RFC 6811 status): the core's AS path fields, rows
and conflicts. A case ends in: nothing raised, `InputError` (the project's error) or anything
else (a bug: printed with its case number, reproduce with `--case N`; `--save` writes the input).
A case running past 20 s counts as a bug too. Each case is generated from (seed, reader, case) alone,
so `--case N` gives the same input as the full run.

The damage check (run after the fuzzing unless --no-damage-check) damages one byte inside one record
of real MRT files and checks that a warning names that byte's offset, that the routes of every
other record are read as from the undamaged file, and that the record gives either a prefix of its
routes (skipped at the fault) or, for an attribute fault RFC 7606 answers so, all of them withdrawn.

Exit status 1 when any case raised something other than InputError (or the damage check failed).
"""

from __future__ import annotations

import argparse
import bz2
import functools
import gzip
import ipaddress
import itertools
import json
import logging
import os
import random
import re
import signal
import struct
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bgpsim.base.errors import InputError  # noqa: E402
from bgpsim.mrt import read_batches, read_routes  # noqa: E402
from bgpsim.mrt.bgpdump import line  # noqa: E402
from bgpsim.mrt.record import STATE  # noqa: E402
from bgpsim.mrt.text import read_text_routes  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
MRT = DATA / "mrt"
PCAP = DATA / "pcap"
TIMEOUT = 20
MARKER = b"\xff" * 16
PLACE = re.compile(r"(byte|line|packet) \d+")  # where a warning says the damage is


class CaseTimeout(Exception):
    pass


def _alarm(*_):
    raise CaseTimeout(f"case ran past {TIMEOUT} s")


def _open_any(path: Path) -> bytes:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    if raw[:3] == b"BZh":
        d = bz2.BZ2Decompressor()
        return d.decompress(raw)  # the pyasn files are cut mid-stream: take what decompresses
    return raw


# --- MRT structure -------------------------------------------------------------------------------------

def mrt_records(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each whole record."""
    out, p = [], 0
    while p + 12 <= len(data):
        length = struct.unpack_from(">I", data, p + 8)[0]
        if p + 12 + length > len(data):
            break
        out.append((p, p + 12 + length))
        p += 12 + length
    return out


def _attr_fields(data: bytes, a0: int, a1: int, out: list) -> None:
    q = a0
    while q + 3 <= a1:
        flags, code = data[q], data[q + 1]
        out.append((q, 1, ">"))
        out.append((q + 1, 1, ">"))
        if flags & 0x10:
            if q + 4 > a1:
                return
            out.append((q + 2, 2, ">"))
            alen, v = struct.unpack_from(">H", data, q + 2)[0], q + 4
        else:
            out.append((q + 2, 1, ">"))
            alen, v = data[q + 2], q + 3
        if code == 14 and v + 4 <= a1:  # MP_REACH: afi, safi, next hop length
            out += [(v, 2, ">"), (v + 2, 1, ">"), (v + 3, 1, ">")]
            if v + 4 + data[v + 3] + 1 < a1:
                out.append((v + 4 + data[v + 3] + 1, 1, ">"))  # first prefix length
        elif code == 15 and v + 3 <= a1:
            out += [(v, 2, ">"), (v + 2, 1, ">")]
            if v + 3 < a1:
                out.append((v + 3, 1, ">"))
        elif code in (2, 17) and v + 2 <= a1:  # AS_PATH / AS4_PATH: first segment's type and count
            out += [(v, 1, ">"), (v + 1, 1, ">")]
        q = v + alen


def _bgp_fields(data: bytes, lo: int, hi: int, out: list) -> None:
    m = data.find(MARKER, lo, hi)
    while m >= 0 and m + 19 <= hi:
        out += [(m + 16, 2, ">"), (m + 18, 1, ">")]
        mlen = struct.unpack_from(">H", data, m + 16)[0]
        end = min(hi, m + max(mlen, 19))
        if data[m + 18] == 2 and m + 23 <= end:
            wl = struct.unpack_from(">H", data, m + 19)[0]
            out.append((m + 19, 2, ">"))
            if m + 21 + wl + 2 <= end:
                out.append((m + 21 + wl, 2, ">"))
                al = struct.unpack_from(">H", data, m + 21 + wl)[0]
                a0 = m + 23 + wl
                _attr_fields(data, a0, min(end, a0 + al), out)
                if a0 + al < end:
                    out.append((a0 + al, 1, ">"))  # first NLRI prefix length
            if wl and m + 21 < end:
                out.append((m + 21, 1, ">"))
        m = data.find(MARKER, end, hi)


def mrt_fields(data: bytes) -> list[tuple[int, int, str]]:
    out: list = []
    for s, e in mrt_records(data):
        out += [(s + 4, 2, ">"), (s + 6, 2, ">"), (s + 8, 4, ">")]
        rtype, sub = struct.unpack_from(">HH", data, s + 4)
        b = s + 12
        try:
            if rtype == 13 and sub == 1 and b + 8 <= e:
                vlen = struct.unpack_from(">H", data, b + 4)[0]
                out.append((b + 4, 2, ">"))
                if b + 8 + vlen <= e:
                    out.append((b + 6 + vlen, 2, ">"))
                    p = b + 8 + vlen
                    if p < e:
                        out.append((p, 1, ">"))
            elif rtype == 13 and (2 <= sub <= 5 or 8 <= sub <= 11) and b + 5 <= e:
                plen = data[b + 4]
                out.append((b + 4, 1, ">"))
                p = b + 5 + ((plen + 7) >> 3)
                if p + 2 > e:
                    continue
                out.append((p, 2, ">"))
                count = struct.unpack_from(">H", data, p)[0]
                p += 2
                hdr = 10 if sub >= 8 else 6
                for _ in range(count):
                    if p + hdr + 2 > e:
                        break
                    out += [(p, 2, ">"), (p + hdr, 2, ">")]
                    alen = struct.unpack_from(">H", data, p + hdr)[0]
                    _attr_fields(data, p + hdr + 2, min(e, p + hdr + 2 + alen), out)
                    p += hdr + 2 + alen
            elif rtype == 12 and sub in (1, 2):
                alen = 4 if sub == 1 else 16
                fixed = 12 + 2 * alen + 2
                if b + fixed <= e:
                    out += [(b + 4 + alen, 1, ">"), (b + fixed - 2, 2, ">")]
                    al = struct.unpack_from(">H", data, b + fixed - 2)[0]
                    _attr_fields(data, b + fixed, min(e, b + fixed + al), out)
            elif rtype in (16, 17, 5):
                if rtype in (16, 17) and sub in (1, 4, 6, 7, 8, 9, 10, 11, 0, 5):
                    asn = 4 if sub in (4, 5, 7, 9, 11) else 2
                    af = b + (4 if rtype == 17 else 0) + 2 * asn + 2
                    if af + 2 <= e:
                        out.append((af, 2, ">"))
                _bgp_fields(data, b, e, out)
        except (struct.error, IndexError):
            continue
    return out


# --- pcap structure ------------------------------------------------------------------------------------

def _ip_fields(data: bytes, lo: int, hi: int, out: list) -> None:
    """Find the IP header of one packet's bytes (after a link header of unknown length)."""
    n = hi - lo
    for off in (0, 1, 2, 4, 8, 14, 16, 18, 20, 22):
        if off + 20 > n:
            break
        p = lo + off
        v = data[p] >> 4
        if v == 4 and data[p] & 15 >= 5 and struct.unpack_from(">H", data, p + 2)[0] <= n - off and data[p + 9] == 6:
            out += [(p, 1, ">"), (p + 2, 2, ">"), (p + 6, 2, ">"), (p + 9, 1, ">")]
            t = p + (data[p] & 15) * 4
        elif v == 6 and off + 40 <= n and struct.unpack_from(">H", data, p + 4)[0] == n - off - 40:
            out += [(p + 4, 2, ">"), (p + 6, 1, ">")]
            t = p + 40
        else:
            continue
        if t + 20 <= hi:
            out += [(t, 2, ">"), (t + 2, 2, ">"), (t + 4, 4, ">"), (t + 12, 1, ">"), (t + 13, 1, ">")]
            _bgp_fields(data, t + 20, hi, out)
        return


def pcap_packets(data: bytes) -> tuple[str, list[tuple[int, int, int]]]:
    """("pcap"|"pcapng"|"", [(block start, packet data start, block end)])."""
    out = []
    if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        p = 24
        while p + 16 <= len(data):
            incl = struct.unpack_from("<I", data, p + 8)[0]
            if p + 16 + incl > len(data):
                break
            out.append((p, p + 16, p + 16 + incl))
            p += 16 + incl
        return "pcap", out
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        p = 0
        while p + 12 <= len(data):
            btype, blen = struct.unpack_from("<II", data, p)
            if blen < 12 or p + blen > len(data):
                break
            start = p + 28 if btype == 6 else p + 12 if btype == 3 else p + 8
            out.append((p, start, p + blen))
            p += blen
        return "pcapng", out
    return "", out


def pcap_fields(data: bytes) -> list[tuple[int, int, str]]:
    kind, blocks = pcap_packets(data)
    out: list = []
    if kind == "pcap":
        out += [(16, 4, "<"), (20, 4, "<"), (4, 2, "<")]
        for s, d, e in blocks:
            out += [(s + 8, 4, "<"), (s + 12, 4, "<")]
            _ip_fields(data, d, e, out)
    elif kind == "pcapng":
        for s, d, e in blocks:
            btype = struct.unpack_from("<I", data, s)[0]
            out += [(s, 4, "<"), (s + 4, 4, "<"), (e - 4, 4, "<")]
            if btype == 6 and s + 28 <= e:
                out += [(s + 20, 4, "<"), (s + 24, 4, "<")]
                cap = struct.unpack_from("<I", data, s + 20)[0]
                _ip_fields(data, d, min(e - 4, d + cap), out)
            elif btype == 1 and s + 16 <= e:
                out += [(s + 8, 2, "<"), (s + 12, 4, "<")]
                if s + 20 <= e - 4:
                    out += [(s + 16, 2, "<"), (s + 18, 2, "<")]  # first option: code, length (if_tsresol)
            elif btype == 0x0A0D0D0A and s + 24 <= e:
                out += [(s + 8, 4, "<"), (s + 16, 8, "<")]
    return out


# --- mutations -----------------------------------------------------------------------------------------

INTERESTING = (0, 1, 2, 3, 4, 7, 8, 12, 16, 18, 19, 20, 23, 24, 29, 32, 33, 40, 64, 127, 128, 129, 255, 256,
               4095, 4096, 32767, 32768, 65534, 65535, 65536, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF)


def _new_value(rng: random.Random, old: int, width: int) -> int:
    top = (1 << (8 * width)) - 1
    r = rng.random()
    if r < 0.35:
        v = old + rng.choice((-1, 1, -2, 2, -4, 4, -8, 8, -16, 16, rng.randint(-300, 300)))
    elif r < 0.7:
        v = rng.choice(INTERESTING)
    elif r < 0.8:
        v = old * 2 if rng.random() < 0.5 else old >> 1
    elif r < 0.9:
        v = top - rng.randint(0, 3)
    else:
        v = rng.randint(0, top)
    return v & top


def corrupt_field(rng: random.Random, data: bytearray, fields: list) -> bool:
    if not fields:
        return False
    off, width, order = rng.choice(fields)
    if off + width > len(data):
        return False
    fmt = order + {1: "B", 2: "H", 4: "I", 8: "Q"}[width]
    old = struct.unpack_from(fmt, data, off)[0]
    struct.pack_into(fmt, data, off, _new_value(rng, old, width))
    return True


def byte_op(rng: random.Random, data: bytearray, donors: list[bytes]) -> None:
    n = len(data)
    op = rng.choice(("flip", "flip", "set", "insert", "delete", "dup", "truncate", "word", "splice_bytes"))
    i = rng.randint(0, n)
    if op == "flip" and n:
        i = min(i, n - 1)
        data[i] ^= 1 << rng.randint(0, 7)
    elif op == "set" and n:
        i = min(i, n - 1)
        data[i] = rng.choice((0, 0xFF, 0x7F, 0x80, rng.randint(0, 255)))
    elif op == "insert":
        k = rng.choice((1, 1, 2, 4, rng.randint(1, 64)))
        data[i:i] = bytes(rng.getrandbits(8) for _ in range(k)) if rng.random() < 0.7 else bytes(k)
    elif op == "delete":
        del data[i:i + rng.choice((1, 1, 2, 4, rng.randint(1, 128)))]
    elif op == "dup":
        k = rng.randint(1, 256)
        data[i:i] = data[i:i + k]
    elif op == "truncate":
        del data[rng.randint(0, n):]
    elif op == "word" and n >= 4:
        i = min(i, n - 4)
        width = rng.choice((2, 4))
        v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
        data[i:i + width] = v.to_bytes(width, rng.choice(("big", "little")))
    elif op == "splice_bytes" and donors:
        d = rng.choice(donors)
        a = rng.randint(0, len(d))
        data[i:i] = d[a:a + rng.randint(1, 512)]


def record_op(rng: random.Random, data: bytearray, spans: list, donors_spans: list) -> None:
    """Drop, duplicate, swap, move or import whole records (MRT records, pcap blocks, text lines)."""
    if not spans:
        return
    op = rng.choice(("drop", "dup", "swap", "import", "import", "cut_inside"))
    s, e = rng.choice(spans)
    if op == "drop":
        del data[s:e]
    elif op == "dup":
        data[e:e] = data[s:e]
    elif op == "swap" and len(spans) > 1:
        a, b = sorted(rng.sample(spans, 2))
        data[:] = data[:a[0]] + data[b[0]:b[1]] + data[a[1]:b[0]] + data[a[0]:a[1]] + data[b[1]:]
    elif op == "import" and donors_spans:
        donor, dspans = rng.choice(donors_spans)
        if dspans:
            ds, de = rng.choice(dspans)
            at = rng.choice((s, e))
            data[at:at] = donor[ds:de]
    elif op == "cut_inside" and e - s > 1:  # a record cut short (its length field left as it was)
        del data[rng.randint(s + 1, e - 1):e]


def finish(rng: random.Random, data: bytes, gz_ok: bool = True) -> bytes:
    """Now and then compress the mutated bytes, and now and then damage the compressed stream."""
    r = rng.random()
    if r < 0.03 and gz_ok:
        data = gzip.compress(data, 1)
    elif r < 0.05:
        data = bz2.compress(data, 1)
    else:
        return data
    if rng.random() < 0.5:
        b = bytearray(data)
        byte_op(rng, b, [])
        data = bytes(b)
    return data


# --- seeds ---------------------------------------------------------------------------------------------

def _first_records(data: bytes, count: int) -> bytes:
    recs = mrt_records(data)
    return data[:recs[min(count, len(recs)) - 1][1]] if recs else data


def mrt_seeds() -> list[tuple[str, bytes]]:
    seeds = []
    for p in sorted((MRT / "mrtparse_samples").iterdir()):
        if p.suffix != ".rst":
            seeds.append((p.name, p.read_bytes()))
    for rel, n in [("libbgpstream_test/ris.rrc06.updates.1427846400.gz", 30),
                   ("libbgpstream_test/routeviews.route-views.jinx.updates.1427846400.bz2", 30),
                   ("ripe_bgpdump_testdata/updates.20020722.2238.gz", 30),
                   ("ripe_bgpdump_testdata/updates.20160811.1600.gz", 30),
                   ("ripe_bgpdump_testdata/updates.et-header.2015.gz", 20),
                   ("ripe_bgpdump_testdata/updates.long_withdrawal.gz", 10),
                   ("ripe_bgpdump_testdata/updates.nlri_mask_trailing_bits.gz", 10),
                   ("ripe_bgpdump_testdata/bview.ipv4_unicast_add_path.gz", 20),
                   ("ripe_bgpdump_testdata/bview.ipv6_unicast_add_path.gz", 20),
                   ("ripe_bgpdump_testdata/bview.20020722.2337.gz", 20),
                   ("bgpkit_fixtures/examples_local_only_updates.bz2", 30),
                   ("bgpkit_fixtures/ripe_rrc00_1999.09_updates.19990903.1041.gz", 30),
                   ("bgpkit_fixtures/ripe_rrc01_2000.11_updates.20001104.0124.gz", 30),
                   ("pyasn_data/rib.20140523.0600_firstMB.bz2", 12),
                   ("pyasn_data/rib6.20151101.0600_firstMB.bz2", 12),
                   ("pyasn_data/rib.20080501.0644_firstMB.bz2", 12)]:
        p = MRT / rel
        if p.exists():
            seeds.append((p.name, _first_records(_open_any(p), n)))
    return seeds


def text_seeds() -> list[tuple[str, bytes]]:
    exp = MRT / "ripe_bgpdump_testdata" / "expected_bgpdump_output"
    seeds = []
    for name in ("updates.20020722.2238.gz.bgp.gz", "updates.20160811.1600.gz.bgp.gz", "updates.et-header.2015.gz.bgp.gz",
                 "bview.ipv4_unicast_add_path.gz.bgp.gz", "bview.ipv6_unicast_add_path.gz.bgp.gz",
                 "bview.20100701.0759.gz.bgp.gz", "updates.long_withdrawal.gz.bgp.gz", "updates.20070211.0141.gz.bgp.gz"):
        p = exp / name
        if p.exists():
            with gzip.open(p, "rb") as f:
                lines = [f.readline() for _ in range(400)]
            lines = [x for x in lines if x]
            # a few runs of lines each, so seeds mix kinds (A, W, STATE, B, _AP, _ET)
            rng = random.Random(name)
            for _ in range(3):
                i = rng.randint(0, max(0, len(lines) - 12))
                seeds.append((name, b"".join(lines[i:i + 12])))
    seeds.append(("state", b"BGP4MP_ET|1445565678.509481|STATE|206.220.231.55|3856|1|2\n"
                           b"BGP4MP|1027377522|W|193.203.0.81|20751|200.31.199.0/24\n"))
    return seeds


def _ip4(src, dst, payload, ident=1):
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, 64, 6, 0,
                       bytes(map(int, src.split("."))), bytes(map(int, dst.split(".")))) + payload


def _ip6(src, dst, payload):
    import socket
    return struct.pack(">IHBB", 0x60000000, len(payload), 6, 64) + socket.inet_pton(socket.AF_INET6, src) + \
        socket.inet_pton(socket.AF_INET6, dst) + payload


def _tcp(sport, dport, seq, flags=0x18, payload=b""):
    return struct.pack(">HHIIBBHHH", sport, dport, seq, 1, 5 << 4, flags, 65535, 0, 0) + payload


def _msg(mtype, body=b""):
    return MARKER + struct.pack(">HB", 19 + len(body), mtype) + body


def _attr(code, value, flags=0x40):
    return bytes((flags, code, len(value))) + value


def _open(asn, as4=True, addpath=False):
    caps = b"\x02\x06\x01\x04\x00\x01\x00\x01"
    if as4:
        caps += b"\x02\x06\x41\x04" + struct.pack(">I", asn)
    if addpath:
        caps += b"\x02\x06\x45\x04\x00\x01\x01\x03"
    return _msg(1, struct.pack(">BHHIB", 4, asn if asn < 65536 else 23456, 90, 0x01020304, len(caps)) + caps)


def _update(path, nlri=b"", withdrawn=b"", asn_size=4, extra=b""):
    seg = bytes((2, len(path))) + b"".join(a.to_bytes(asn_size, "big") for a in path)
    attrs = _attr(1, b"\x00") + _attr(2, seg) + (_attr(3, bytes((192, 0, 2, 1))) if nlri else b"") + \
        _attr(8, b"\xfd\xe9\x00\x64\xff\xff\xff\x01", 0xC0) + extra
    return _msg(2, struct.pack(">H", len(withdrawn)) + withdrawn + struct.pack(">H", len(attrs)) + attrs + nlri)


def _session(v6=False, as4=True, addpath=False):
    a, b = ("2001:db8::1", "2001:db8::2") if v6 else ("192.0.2.1", "192.0.2.2")
    ip = _ip6 if v6 else _ip4
    size = 4 if as4 else 2
    pid = b"\x00\x00\x00\x07" if addpath else b""
    u1 = _update((65001, 4200000000 if as4 else 65002), nlri=pid + b"\x18\x0a\x00\x01" + pid + b"\x10\x0a\x02", asn_size=size)
    mp = _attr(14, b"\x00\x02\x01\x10" + bytes(15) + b"\x01\x00" + pid + b"\x30\x20\x01\x0d\xb8\x00\x01", 0x80)
    u2 = _update((65001,), withdrawn=pid + b"\x08\x0b", asn_size=size, extra=mp + _attr(15, b"\x00\x02\x01" + pid + b"\x20\x20\x01\x0d\xb8", 0x80))
    oa, ob = _open(65001, as4, addpath), _open(4200000001 if as4 else 65002, as4, addpath)
    s, r = 1000, 5000
    frames = [ip(a, b, _tcp(40000, 179, s - 1, 0x02)), ip(b, a, _tcp(179, 40000, r - 1, 0x12)),
              ip(a, b, _tcp(40000, 179, s, 0x18, oa)), ip(b, a, _tcp(179, 40000, r, 0x18, ob + _msg(4))),
              ip(a, b, _tcp(40000, 179, s + len(oa), 0x18, _msg(4) + u1))]
    s += len(oa) + 19 + len(u1)
    frames += [ip(a, b, _tcp(40000, 179, s, 0x18, u2[:10])), ip(a, b, _tcp(40000, 179, s + 30, 0x18, u2[30:])),
               ip(a, b, _tcp(40000, 179, s + 10, 0x18, u2[10:30]))]
    return frames


def _pcap(frames, linktype=1, link=bytes(12) + b"\x08\x00"):
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)
    for i, pkt in enumerate(frames):
        data = link + pkt
        out += struct.pack("<IIII", 1000 + i, i, len(data), len(data)) + data
    return out


def _pcapng(frames, linktype=1, link=bytes(12) + b"\x86\xdd"):
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", linktype, 0, 0) + struct.pack("<HHB3x", 9, 1, 9) + b"\0\0\0\0")
    for i, pkt in enumerate(frames):
        data = link + pkt
        ts = (1000 + i) * 10**9 + 123456789
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(data), len(data)) + data)
    return out


def pcap_seeds() -> list[tuple[str, bytes]]:
    seeds = [("built-v4.pcap", _pcap(_session())),
             ("built-v4-as2.pcap", _pcap(_session(as4=False), 101, b"")),
             ("built-v4-addpath.pcap", _pcap(_session(addpath=True), 113, bytes(14) + b"\x08\x00")),
             ("built-v6.pcapng", _pcapng(_session(v6=True))),
             ("built-v4-hdlc.pcapng", _pcapng(_session(), 104, b"\x0f\x00\x08\x00"))]
    for name in ("ndpi_BGP_Cisco_hdlc_slarp.pcap", "ndpi_BGP_redist.pcap", "eveng_bgp.pcapng",
                 "packetlife_bgp_orf_prefix_advertisement.pcapng"):
        p = PCAP / name
        if p.exists():
            seeds.append((name, p.read_bytes()))
    p = PCAP / "mrp_bgp.pcap"
    if p.exists():  # randpkt's malformed packets: the first 30
        raw = p.read_bytes()
        _kind, blocks = pcap_packets(raw)
        if blocks:
            seeds.append(("mrp_bgp.pcap[:30]", raw[:blocks[min(30, len(blocks)) - 1][2]]))
    return seeds


def text_lines(data: bytes) -> list[tuple[int, int]]:
    out, p = [], 0
    while p < len(data):
        nl = data.find(b"\n", p)
        e = len(data) if nl < 0 else nl + 1
        out.append((p, e))
        p = e
    return out


TOKENS = [b"", b"0", b"-1", b"4294967295", b"4294967296", b"99999999999999999999", b"1.2.3.4", b"1.2.3.4/33",
          b"::/129", b"::/0", b"0.0.0.0/0", b"::ffff:1.2.3.4", b"2001:db8::/32", b"1.2.3", b"1..2.3", b"a:b",
          b"65535:65535", b"65536:1", b"no-export", b"NO_EXPORT", b"{1,2}", b"{1,", b"(1 2)", b"[1,2]", b"{}", b"()",
          b"1  2", b" 1", b"1 ", b"AG", b"NAG", b"IGP", b"EGP", b"INCOMPLETE", b"STATE", b"A", b"B", b"W",
          b"TABLE_DUMP2_AP", b"BGP4MP_ET_LOCAL_AP", b"BGP", b"1.000000", b"1.1", b"1445565678.5", b"\x00",
          "\u00e9".encode(), b"\xff\xfe", b"1\xd9\xa3", "\u0661".encode(), "\u00b2".encode(), b"\r", b"1e5", b"0x10",
          b"255.255.255.255", b"65001 1.2.3.4", b"65001", b"1 2 {3,4} (5 6) [7,8]"]


def text_op(rng: random.Random, data: bytearray, donors: list[bytes]) -> None:
    spans = text_lines(bytes(data))
    if not spans:
        return
    s, e = rng.choice(spans)
    body = bytes(data[s:e])
    nl = body.endswith(b"\n")
    fields = body.rstrip(b"\n").split(b"|")
    op = rng.choice(("token", "token", "token", "field_from", "del_field", "add_field", "swap_fields"))
    i = rng.randrange(len(fields))
    if op == "token":
        fields[i] = rng.choice(TOKENS) if rng.random() < 0.8 else fields[i] + rng.choice(TOKENS)
    elif op == "field_from" and donors:
        other = rng.choice(donors).split(b"\n")[0].split(b"|")
        fields[i] = rng.choice(other)
    elif op == "del_field" and len(fields) > 1:
        del fields[i]
    elif op == "add_field":
        fields.insert(i, rng.choice(TOKENS))
    elif op == "swap_fields" and len(fields) > 1:
        j = rng.randrange(len(fields))
        fields[i], fields[j] = fields[j], fields[i]
    data[s:e] = b"|".join(fields) + (b"\n" if nl else b"")


def mutate(rng: random.Random, reader: str, seeds: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    name, seed = rng.choice(seeds)
    data = bytearray(seed)
    donors = [s for _n, s in seeds]
    if reader == "bzip2":
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
            bzip2_op(rng, data, donors)
        return name, bytes(data)
    if reader == "rislive":
        for _ in range(rng.choice((1, 1, 2, 3, 5, 8))):
            (rislive_op if rng.random() < 0.7 else byte_op)(rng, data, donors)
        return name, bytes(data)
    if reader in ("bgpsec", "rtr"):
        fields = bgpsec_fields if reader == "bgpsec" else rtr_fields
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 5))):
            if rng.random() < 0.6 and corrupt_field(rng, data, fields(bytes(data))):
                continue
            byte_op(rng, data, donors)
        return name, bytes(data)
    spans_of = {"mrt": mrt_records,
                "pcap": lambda d: [(s, e) for s, _d, e in pcap_packets(d)[1]],
                "text": text_lines, "vrps": text_lines}[reader]
    fields_of = {"mrt": mrt_fields, "pcap": pcap_fields, "text": lambda d: [], "vrps": lambda d: []}[reader]
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4, 5))):
        r = rng.random()
        if r < 0.4 and reader not in ("text", "vrps"):
            if not corrupt_field(rng, data, fields_of(bytes(data))):
                byte_op(rng, data, donors)
        elif r < 0.4:
            text_op(rng, data, donors)
        elif r < 0.55:
            other = rng.choice(seeds)[1]
            record_op(rng, data, spans_of(bytes(data)), [(other, spans_of(other))])
        else:
            byte_op(rng, data, donors)
    return name, bytes(data) if reader == "vrps" else finish(rng, bytes(data))


# --- consuming the readers ----------------------------------------------------------------------------

def touch(r) -> int:
    n = len(line(r))
    if r.kind != STATE:
        n += len(r.prefix or "") + (r.plen or 0) + (r.afi or 0) + (r.network or 0) % 7
        n += len(r.as_path) + len(r.as_path_text) + len(r.communities) + len(r.large_communities)
        n += len(r.origin or "") + len(r.next_hop or "") + (r.med or 0) % 7 + (r.local_pref or 0) % 7
        n += r.origin_as % 7 + int(r.atomic_aggregate) + len(str(r.aggregator)) + int(r.timestamp) % 7
    return n


def run_mrt(path: str, warn) -> None:
    lines = [line(r) for r in read_routes(path, warn) if touch(r) >= 0]
    batch_lines = []
    for b in read_batches(path, 7, lambda m: None):
        assert len(b.plen) == len(b.kind) == len(b.hi) == len(b.origin) == len(b.group)
        b.networks()
        batch_lines += [line(r) for r in b.routes()]
        for i in range(len(b)):
            b.route(i)
    # read_batches leaves out state changes; otherwise the same routes as read_routes
    want = [x for x in lines if "|STATE|" not in x]
    if batch_lines != want:
        raise AssertionError(f"read_batches gave {len(batch_lines)} routes, read_routes {len(want)}")
    validate_batches(path)


@functools.cache
def _vrps():
    """A few VRPs that give every RFC 6811 status: halves of each address space, some within."""
    from ipaddress import ip_network

    from bgpsim.rpki.rov import VRP, VRPTable

    return VRPTable([VRP(ip_network(p), m, a) for p, m, a in [
        ("0.0.0.0/1", 24, 3356), ("128.0.0.0/1", 8, 174), ("10.0.0.0/8", 32, 0), ("::/1", 48, 6939),
        ("2001:db8::/32", 128, 64496)]])


def validate_batches(path: str) -> None:
    """The routes of an MRT case through validate's checks, every line and finding made."""
    from bgpsim.mrt.reader import MRTReader
    from bgpsim.validate.check import Checker

    lines = []
    checker = Checker(_vrps(), lambda text, unit: lines.append(text))
    for b in MRTReader(path, lambda m: None).batches(64):
        checker.feed_batch(b)
    found = checker.finish()
    assert sum(text.count(b"\n") for text in lines) == checker.tally.routes
    list(found)


STRICT_ERRORS = [0]  # text inputs whose strict read ended in InputError (the lenient read follows)


def run_text(path: str, warn) -> None:
    try:
        for r in read_text_routes(path, warn):
            touch(r)
    except InputError:
        STRICT_ERRORS[0] += 1
    for r in read_text_routes(path, warn, strict=False):  # lenient: warnings only (or not text at all)
        touch(r)


def run_pcap(path: str, warn) -> None:
    from bgpsim.capture import read_capture_routes

    logging.getLogger("scapy").setLevel(logging.CRITICAL)  # scapy's own log lines about damaged blocks
    for r in read_capture_routes(path, warn):
        touch(r)


# --- BGPsec_PATH values ----------------------------------------------------------------------------------

BGPSEC = DATA / "bgpsec"
BGPSEC_TARGET = 65537


def bgpsec_fields(data: bytes) -> list[tuple[int, int, str]]:
    """The length, count and identifier fields of a BGPsec_PATH value, as far as they can be found."""
    out = [(0, 2, ">")]
    if len(data) < 2:
        return out
    sp = struct.unpack_from(">H", data)[0]
    for q in range(2, min(sp, len(data)) - 5, 6):
        out += [(q, 1, ">"), (q + 1, 1, ">"), (q + 2, 4, ">")]
    q = sp
    while q + 3 <= len(data):
        out += [(q, 2, ">"), (q + 2, 1, ">")]
        stop = q + struct.unpack_from(">H", data, q)[0]
        p = q + 3
        while p + 22 <= min(stop, len(data)):
            out.append((p + 20, 2, ">"))
            p += 22 + struct.unpack_from(">H", data, p + 20)[0]
        if stop <= q:
            break
        q = stop
    return out


def _bgpsec_keys():
    from bgpsim.rpki.bgpsec.keys import RouterKeys, signing_keys

    keys = BGPSEC / "nist-bgp-srx_rfc8208_keys"
    return signing_keys([keys]), RouterKeys.load([keys], warn=lambda m: None)


def bgpsec_seeds() -> list[tuple[str, bytes]]:
    import ipaddress
    import json

    from bgpsim.rpki.bgpsec.path import BgpsecPath, SignatureBlock
    from bgpsim.rpki.bgpsec.sign import forward

    vectors = json.loads((BGPSEC / "rfc8208_vectors.json").read_text())
    seeds = []
    for name, u in vectors["updates"].items():
        msg = bytes.fromhex(u["hex"])
        at = msg.index(bytes([0x90, 30]))
        seeds.append((f"RFC 8208 {name}", msg[at + 4:at + 4 + struct.unpack_from(">H", msg, at + 2)[0]]))
    private, _ = _bgpsec_keys()
    ases = sorted(private)
    rng = random.Random(0)
    for hops in range(1, 7):
        for prefix in ("192.0.2.0/24", "2001:db8::/32"):
            net = ipaddress.ip_network(prefix)
            chain = [rng.choice(ases) for _ in range(hops)]
            path = None
            for i, a in enumerate(chain):
                toward = chain[i + 1] if i + 1 < hops else BGPSEC_TARGET
                path = forward(path, private[a], net, toward, pcount=rng.choice((1, 1, 2)))
            seeds.append((f"{hops} hops {prefix}", path.encode()))
            other = SignatureBlock(2, path.blocks[0].signatures)  # a second block of an unknown suite
            seeds.append((f"{hops} hops {prefix}, two blocks", BgpsecPath(path.segments, path.blocks + (other,)).encode()))
    return seeds


_VERIFIER: list = []


def run_bgpsec(path: str, warn) -> None:
    import ipaddress

    from bgpsim.rpki.bgpsec.path import decode
    from bgpsim.rpki.bgpsec.verify import Verifier

    if not _VERIFIER:
        _VERIFIER.append(Verifier(_bgpsec_keys()[1], reuse=False))
    with open(path, "rb") as f:
        value = f.read()
    try:
        parsed = decode(value, path)
    except InputError:
        parsed = None
    if parsed is not None:
        if parsed.encode() != value:
            raise AssertionError("a decoded BGPsec_PATH does not encode back to its bytes")
        parsed.as_path()
    for prefix in ("192.0.2.0/24", "2001:db8::/32"):
        verdict = _VERIFIER[0].verify_value(value, BGPSEC_TARGET, ipaddress.ip_network(prefix))
        if verdict.valid is (verdict.reason != ""):
            raise AssertionError(f"a verdict without a reason: {verdict}")
    if parsed is None:
        raise InputError("malformed", path)


# --- VRP files ------------------------------------------------------------------------------------------

def vrp_seeds() -> list[tuple[str, bytes]]:
    """The shared relying-party outputs (CSV and JSON of rpki-client, Routinator, StayRTR), each cut
    to its first 60 lines, and small files of every flavour written here (synthetic)."""
    from bgpsim.rpki import vrps

    out = []
    for path in sorted((DATA / "rpki" / "vrp_format_examples").rglob("*")):
        if path.is_file() and path.stat().st_size < 2**24:
            text = path.read_bytes()
            out.append((path.name, text if text[:1] in b"{[ \n" else b"".join(text.splitlines(True)[:60])))
    origins = [vrps.Origin(vrps.payloads.VRP(vrps.payloads.IPv4Network(f"10.{i}.0.0/16"), 24, 64496 + i), "ripe", 1700000000)
               for i in range(5)]
    origins.append(vrps.Origin(vrps.payloads.VRP(vrps.payloads.IPv6Network("2001:db8::/32"), 48, 1), "arin"))
    p = vrps.Payloads(origins, [vrps.RouterKey(64496, bytes(range(20)), bytes(range(64)), "ripe", 1700000000)],
                      [vrps.ASPA(64496, (1, 2, 3), vrps.NO_TA, 1700000000)])
    out.append(("synthetic.json", vrps.write_json(p).encode()))
    out.append(("synthetic.csv", vrps.write_csv(p).encode()))
    out.append(("synthetic-expires.csv", b"ASN,IP Prefix,Max Length,Trust Anchor,Expires\n"
                + b"".join(f"AS{o.vrp.asn},{o.vrp.prefix},{o.vrp.max_length},{o.ta},1700000000\n".encode() for o in origins)))
    out.append(("synthetic-compat.csv", b'"ASN","IP Prefix","Max Length","Trust Anchor"\n"AS1","10.0.0.0/8","8","a"\n'))
    out.append(("synthetic-ext.csv", b"URI,ASN,IP Prefix,Max Length,Not Before,Not After\n"
                b"rsync://a/b.roa,AS1,10.0.0.0/8,8,2017-08-25 13:12:19,N/A\n"))
    return out


def run_vrps(path: str, warn) -> None:
    from bgpsim.rpki import vrps

    data = Path(path).read_bytes()
    try:
        vrps.read_vrp_columns(data, path, warn)
    finally:  # the same file as payloads: the same core, and the Python that reads the rest
        vrps.read_payloads(vrps.decode_text(data, path), path, warn)


# --- RTR PDU streams ------------------------------------------------------------------------------------------

def rtr_seeds() -> list[tuple[str, bytes]]:
    """A cache's answers of each version (synthetic): prefixes, router keys, ASPAs, End of Data; queries,
    notifies, resets and Error Reports."""
    import ipaddress

    from bgpsim.rtr import pdu

    out = []
    for v in (0, 1, 2):
        body = [pdu.CacheResponse(v, 7)]
        body += [pdu.Prefix(v, i % 3 > 0, ipaddress.ip_network(f"10.{i}.0.0/16"), 16 + i % 9, 64496 + i) for i in range(6)]
        body += [pdu.Prefix(v, True, ipaddress.ip_network(f"2001:db8:{i:x}::/48"), 48 + i, 64500 + i) for i in range(3)]
        if v >= 1:
            body += [pdu.RouterKey(v, i % 2 == 0, bytes(range(i, i + 20)), 64496 + i, b"\x30\x59" + bytes(89)) for i in range(2)]
        if v >= 2:
            body += [pdu.Aspa(v, True, 64496, (64497, 64498, 64510)), pdu.Aspa(v, False, 64499), pdu.Aspa(v, True, 64500, (0,))]
        body += [pdu.EndOfData(v, 7, 42)]
        out.append((f"answer-v{v}", b"".join(pdu.encode(x) for x in body)))
        out.append((f"queries-v{v}", b"".join(pdu.encode(x) for x in (
            pdu.ResetQuery(v), pdu.SerialQuery(v, 7, 41), pdu.SerialNotify(v, 7, 42), pdu.CacheReset(v),
            pdu.ErrorReport(v, pdu.CORRUPT_DATA, pdu.encode(pdu.ResetQuery(v)), "bad")))))
    return out


def rtr_fields(data: bytes) -> list:
    """The header fields of each PDU (version, type, 16 bits, length), prefix flags and lengths, and
    an ASPA's customer and first provider."""
    out, at = [], 0
    while at + 8 <= len(data):
        length = int.from_bytes(data[at + 4:at + 8], "big")
        out += [(at, 1, ">"), (at + 1, 1, ">"), (at + 2, 2, ">"), (at + 2, 1, ">"), (at + 4, 4, ">")]
        if data[at + 1] in (4, 6) and at + 12 <= len(data):
            out += [(at + 8, 1, ">"), (at + 9, 1, ">"), (at + 10, 1, ">")]
        if data[at + 1] == 11 and at + 16 <= len(data):
            out += [(at + 8, 4, ">"), (at + 12, 4, ">")]
        if length < 8:
            break
        at += length
    return out


def run_rtr(path: str, warn) -> None:
    from bgpsim import _core
    from bgpsim.rtr import pdu

    data = Path(path).read_bytes()
    at, count, fault = 0, 0, None
    try:
        while (got := pdu.decode(data, at)) is not None:
            p, n = got
            again = pdu.decode(pdu.encode(p))[0]
            if again != p:
                raise AssertionError(f"PDU {count} reads back as {again}, not {p}")
            at, count = at + n, count + 1
    except pdu.PduError as e:
        fault = e
    try:
        framed = _core.rtr_frames(data, 0)
    except ValueError:
        framed = None
    if fault is None:
        if framed is None or framed[:2] != (at, count):
            raise AssertionError(f"rtr_frames {framed} where the reader framed ({at}, {count})")
        return
    if fault.code not in pdu.ERROR_NAMES or not str(fault):
        raise AssertionError(f"a PduError without a known code: {fault.code}")
    raise InputError(str(fault))


# --- RIS Live messages (bgpsim.live.rislive.Reader, core/rislive*.c) ------------------------------------

RIS_TOKENS = [b'"eor"', b"null", b"true", b"[]", b"{}", b'"64496"', b"-1", b"4294967296", b"1e400", b"-0", b"0.5",
              b'"192.0.2.01"', b'"::ffff:1.2.3.4/128"', b'"1.2.3.4/33"', b'"2001:db8::1,fe80::1"', b'"Igp"',
              b'"STATE"', b'"RIS_PEER_STATE"', b'"down"', b'"ris_error"', b'"pong"', b'"\\u0041"', b"[[1,2]]",
              b'"Peer_ASN"', b'"ANNOUNCEMENTS"', b'"\xff"', b"[" * 600]


def rislive_seeds() -> list[tuple[str, bytes]]:
    """The dump's first UPDATEs as RIS Live messages (enveloped and bare, one spelled in capitals),
    with the server's other messages and the other data types (synthetic, written from the manual)."""
    from bgpsim.live.rislive import update_messages
    from bgpsim.mrt import read_routes

    ups = list(itertools.islice(update_messages(read_routes(str(MRT / "ripe_bgpdump_testdata" /
                                                                 "updates.20160811.1600.gz")), host="rrc00"), 400))
    others = [{"type": "pong", "data": None}, {"type": "ris_error", "data": {"message": "bad"}},
              {"type": "ris_message", "data": {"timestamp": 1.5, "peer": "192.0.2.1", "peer_asn": "64496",
                                               "type": "STATE", "state": "down"}},
              {"type": "ris_message", "data": {"timestamp": 1, "peer": "2001:db8::1", "peer_asn": 64496,
                                               "type": "OPEN", "capabilities": {"1": {}}}}]
    out = []
    for k in range(0, len(ups), 40):
        lines = [json.dumps({"type": "ris_message", "data": d}) for d in ups[k:k + 20]]
        lines += [json.dumps(d) for d in ups[k + 20:k + 38]] + [json.dumps(o) for o in others]
        lines.append(json.dumps({"Type": "ris_message", "Data": {key.upper(): v for key, v in ups[k + 39].items()}}))
        out.append((f"ris-{k}", "\n".join(lines).encode()))
    return out


def rislive_op(rng: random.Random, data: bytearray, donors: list[bytes]) -> None:
    """A JSON token swapped for a hostile one, or a stretch of text cut, doubled or recased."""
    at = [m.start() for m in re.finditer(rb'[\[{",:]', bytes(data))] or [0]
    i = rng.choice(at)
    j = min(len(data), i + rng.randint(1, 40))
    op = rng.choice(("token", "token", "cut", "dup", "case"))
    if op == "token":
        data[i:j] = rng.choice(RIS_TOKENS)
    elif op == "cut":
        del data[i:j]
    elif op == "dup":
        data[i:i] = data[i:j]
    else:
        data[i:j] = bytes(data[i:j]).swapcase()


def run_rislive(path: str, warn) -> None:
    """Each line a message: read, its watched rows and the batch's routes consumed; a line that orjson
    loads must not be refused as JSON, and one it refuses (but for its UTF-8) must be."""
    import orjson

    from bgpsim.live.rislive import Reader

    reader = Reader(warn)
    reader.watch([ipaddress.ip_network("0.0.0.0/1"), ipaddress.ip_network("2000::/3")], [3356, 174])
    first = None
    for n, text in enumerate(Path(path).read_bytes().split(b"\n")):
        try:
            orjson.loads(text)
            loads = True
        except orjson.JSONDecodeError as e:
            said = str(e).lower()  # UTF-8 we do not decode; a number beyond a double's range is still JSON
            loads = None if "utf-8" in said or "surrogate" in said or "infinity" in said else False
        try:
            _kind, dtype, _id, _rows, hits, extra = reader.read(text, f"line {n}")
        except InputError as e:
            refused = "want JSON" in str(e)  # orjson nests 1,024 deep, we 512
            if refused and loads and "nested too deeply" not in str(e):
                raise AssertionError(f"line {n}: orjson reads it, we say {e}") from None
            if loads is False and not refused and "a message of at most" not in str(e):
                raise AssertionError(f"line {n}: orjson refuses it, we say {e}") from None
            first = first or e
            continue
        if loads is False:
            raise AssertionError(f"line {n}: orjson refuses it, we read it")
        if hits:
            routes = reader.watched()[1]
            assert len(routes) == hits and all(touch(r) >= 0 for r in routes)
        if dtype == "RIS_PEER_STATE":
            touch(reader.peer_state(extra))
    batch = reader.take()
    if batch is not None:
        for i in range(len(batch)):
            touch(batch.route(i))
    if first is not None:
        raise first


# --- bzip2 streams, decompressed by threads ----------------------------------------------------------------

def bzip2_seeds() -> list[tuple[str, bytes]]:
    """Streams of several blocks: the first 400 kB of real dumps (decompressed) compressed again at
    level 1 (100 kB blocks), alone and two streams end to end."""
    out = []
    for rel in ("pyasn_data/rib.20140523.0600_firstMB.bz2", "ripe_bgpdump_testdata/updates.20160811.1600.gz"):
        p = MRT / rel
        if p.exists():
            out.append((p.name, bz2.compress(_open_any(p)[:400_000], 1)))
    if len(out) == 2:
        out.append(("two streams", bz2.compress(out[0][1][:150_000], 1) + out[1][1]))
    return out


def bzip2_op(rng: random.Random, data: bytearray, donors: list[bytes]) -> None:
    """A byte changed, a cut, bytes inserted or deleted, or a piece of another stream spliced in; often
    at a block magic (found by the core), where the threads' bookkeeping is."""
    from bgpsim import _core

    marks = [bit // 8 for bit, _ in _core.bz2_marks(bytes(data), 0)] or [0]
    at = min(len(data), max(0, rng.choice(marks) + rng.randint(-12, 16))) if rng.random() < 0.5 else rng.randint(0, len(data))
    op = rng.choice(("flip", "set", "cut", "insert", "delete", "splice", "append"))
    if op == "flip" and at < len(data):
        data[at] ^= 1 << rng.randrange(8)
    elif op == "set" and at < len(data):
        data[at] = rng.choice((0, 0xFF, 0x31, 0x17, 0x42, rng.randrange(256)))
    elif op == "cut":
        del data[at:]
    elif op == "insert":
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    elif op == "delete":
        del data[at:at + rng.randint(1, 64)]
    elif op == "splice":
        donor = rng.choice(donors)
        s = rng.randrange(len(donor))
        data[at:at + rng.randint(0, 4096)] = donor[s:s + rng.randint(1, 4096)]
    else:
        data += rng.choice((b"\0" * rng.randint(1, 40), b"BZh9", b"BZh91AY&SY", rng.choice(donors)[:rng.randint(4, 2000)]))


def run_bzip2(path: str, warn) -> None:
    """The threads' decompression against the sequential decoder's (one thread): the same bytes, the
    same note of a stream cut short, the same fault; before a fault the threads may give whole blocks
    more (bgpsim.mrt.bzip2)."""
    from bgpsim.mrt import stream

    def read(threads: bool):
        c = stream.Chunks(path, threads=threads)
        out, fault = [], None
        try:
            for piece in c:
                assert 0 < len(piece) <= stream.CHUNK
                out.append(piece)
        except InputError as e:
            fault = str(e)
        finally:
            c.close()
        return b"".join(out), c.truncated, fault

    threaded, sequential = read(True), read(False)
    if threaded[1:] != sequential[1:]:
        raise AssertionError(f"threads: {threaded[1:]}; one thread: {sequential[1:]}")
    if threaded[0] != sequential[0] and (threaded[2] is None or not threaded[0].startswith(sequential[0])):
        raise AssertionError(f"threads gave {len(threaded[0])} bytes, one thread {len(sequential[0])}")
    if threaded[2] is not None:
        raise InputError(threaded[2])


RUNNERS = {"mrt": (run_mrt, mrt_seeds), "pcap": (run_pcap, pcap_seeds), "text": (run_text, text_seeds),
           "bgpsec": (run_bgpsec, bgpsec_seeds), "vrps": (run_vrps, vrp_seeds),
           "bzip2": (run_bzip2, bzip2_seeds), "rtr": (run_rtr, rtr_seeds), "rislive": (run_rislive, rislive_seeds)}


def fuzz(reader: str, count: int, seed: int, only: int | None, save: str | None, tmp: str) -> dict:
    run, make_seeds = RUNNERS[reader]
    seeds = make_seeds()
    stats = {"inputs": 0, "input_errors": 0, "warnings": 0, "warned_inputs": 0, "other": 0, "seeds": len(seeds), "unplaced": 0,
             "slowest": (0.0, None)}
    path = os.path.join(tmp, f"case.{reader}")
    shown = 0
    t0 = time.monotonic()
    cases = [only] if only is not None else range(count)
    for case in cases:
        rng = random.Random(f"{seed}:{reader}:{case}")
        name, data = mutate(rng, reader, seeds)
        with open(path, "wb") as f:
            f.write(data)
        warnings: list[str] = []
        stats["inputs"] += 1
        start = time.monotonic()
        signal.alarm(TIMEOUT)
        try:
            run(path, warnings.append)
        except InputError:
            stats["input_errors"] += 1
        except Exception as e:  # noqa: BLE001 - that is the point: anything else is a bug
            stats["other"] += 1
            if shown < 5 or only is not None:
                shown += 1
                print(f"[{reader}] case {case} (seed {seed}, from {name}, {len(data)} bytes): {type(e).__name__}: {e}\n"
                      f"  reproduce: python3 bench/fuzz_readers.py --reader {reader} --seed {seed} --case {case}",
                      file=sys.stderr)
                if only is not None:
                    traceback.print_exc()
            if save:
                Path(save).mkdir(parents=True, exist_ok=True)
                Path(save, f"{reader}-{seed}-{case}.bin").write_bytes(data)
        finally:
            signal.alarm(0)
        took = time.monotonic() - start
        if took > stats["slowest"][0]:
            stats["slowest"] = (took, case)
        stats["warnings"] += len(warnings)
        stats["warned_inputs"] += bool(warnings)
        stats["unplaced"] += sum(1 for w in warnings if not PLACE.search(w))
        if only is not None:
            for w in warnings[:20]:
                print(f"  warning: {w}")
        if case and case % 10000 == 0:
            print(f"[{reader}] {case} cases, {time.monotonic() - t0:.0f} s, {stats['other']} other exceptions",
                  file=sys.stderr, flush=True)
    stats["seconds"] = time.monotonic() - t0
    return stats


# --- the damage check ----------------------------------------------------------------------------------

def _lines_of(data: bytes, tmp: str, warnings: list | None = None) -> list[str]:
    path = os.path.join(tmp, "damage.mrt")
    with open(path, "wb") as f:
        f.write(data)
    return [line(r) for r in read_routes(path, (warnings.append if warnings is not None else lambda m: None))]


def _withdrawn(lines: list[str]) -> list[str]:
    """bgpdump -m lines with each announcement as the withdrawal of its prefix (RFC 7606 treat-as-withdraw)."""
    out = []
    for ln in lines:
        f = ln.split("|")
        out.append("|".join(f[:2] + ["W"] + f[3:6]) if f[2] == "A" else ln)
    return out


def _damage_targets(data: bytes, s: int, e: int) -> list[tuple[str, int, int]]:
    """(what, offset, new byte) damage inside record [s, e) that its framing survives."""
    out = []
    fields: list = []
    rtype = struct.unpack_from(">H", data, s + 4)[0]
    if rtype == 13:
        sub = struct.unpack_from(">H", data, s + 6)[0]
        b = s + 12
        plen = data[b + 4]
        p = b + 5 + ((plen + 7) >> 3) + 2
        hdr = 10 if sub >= 8 else 6
        _attr_fields(data, p + hdr + 2, p + hdr + 2 + struct.unpack_from(">H", data, p + hdr)[0], fields)
        out.append(("RIB prefix length", b + 4, 0xF0))
    else:
        _bgp_fields(data, s + 12, e, fields)
    for off, width, _o in fields:
        if width == 1 and data[off] in (0x40, 0x50, 0x80, 0x90, 0xC0, 0xD0):  # an attribute's flags
            out.append(("attribute flags (extended length set/cleared)", off, data[off] ^ 0x10))
            out.append(("attribute length", off + 2, 0xFF))
            break
    m = data.find(MARKER, s, e)
    if m >= 0:
        out.append(("UPDATE total attribute length", m + 21 + struct.unpack_from(">H", data, m + 19)[0], 0xFF))
    return out


def damage_check(tmp: str, rng: random.Random) -> tuple[int, int, list[str]]:
    """Damage one byte inside a record; want a warning naming a byte offset inside that record (the
    damaged byte's, or the start of the field it spoils) and every other record's routes."""
    files = [("libbgpstream_test/ris.rrc06.updates.1427846400.gz", False),
             ("ripe_bgpdump_testdata/updates.20020722.2238.gz", False),
             ("bgpkit_fixtures/examples_local_only_updates.bz2", False),
             ("ripe_bgpdump_testdata/updates.et-header.2015.gz", False),
             ("ripe_bgpdump_testdata/bview.ipv4_unicast_add_path.gz", True),
             ("pyasn_data/rib.20140523.0600_firstMB.bz2", True)]
    checks = failures = 0
    notes = []
    for rel, rib in files:
        p = MRT / rel
        if not p.exists():
            continue
        data = _first_records(_open_any(p), 300)
        recs = mrt_records(data)
        data = data[:recs[-1][1]]
        head = data[:recs[0][1]] if rib else b""  # the PEER_INDEX_TABLE the RIB records need
        body_recs = recs[1:] if rib else recs
        picks = rng.sample(range(1, len(body_recs) - 1), min(4, len(body_recs) - 2))
        for k in picks:
            s, e = body_recs[k]
            before = _lines_of(data[:s], tmp)
            after = _lines_of(head + data[e:], tmp)
            whole = _lines_of(data[s:e] if not rib else head + data[s:e], tmp)
            if not whole:
                continue
            for what, off, value in _damage_targets(data, s, e):
                bad = bytearray(data)
                bad[off] = value
                warnings: list[str] = []
                try:
                    got = _lines_of(bytes(bad), tmp, warnings)
                except InputError as ex:
                    got, warnings = None, [f"InputError: {ex}"]
                checks += 1
                named = [int(x) for w in warnings for x in re.findall(r"byte (\d+)", w)]
                mid = got[len(before):len(got) - len(after)] if got is not None else None
                # the record skipped (what came before its fault kept), or, for an attribute fault RFC 7606
                # says withdraws the UPDATE's routes, each of them withdrawn
                ok = (got is not None and len(warnings) == 1 and any(s <= x < e for x in named)
                      and got[:len(before)] == before and got[len(got) - len(after):] == after
                      and ((f"record at byte {s}" in warnings[0] and len(mid) <= len(whole)
                            and (mid == whole[:len(mid)] or rib))
                           or ("treated as withdrawn" in warnings[0] and mid == _withdrawn(whole))))
                exact = off in named
                tag = "ok" if ok else "FAIL"
                notes.append(f"{tag}: {p.name} record {k} (bytes {s}-{e}): {what} at byte {off}: "
                             f"{'names the damaged byte' if exact else 'names byte(s) ' + str(named)}; "
                             f"{len(before)} routes before, {len(after)} after, {len(mid or ())} of the record's "
                             f"{len(whole)} kept; warning: {warnings[0] if warnings else None}")
                failures += not ok
    return checks, failures, notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reader", choices=("mrt", "pcap", "text", "bgpsec", "vrps", "bzip2", "rtr", "rislive", "all"), default="all")
    ap.add_argument("--count", type=int, default=100_000, help="mutated inputs per reader")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--case", type=int, help="run this one case only (shows its traceback and warnings)")
    ap.add_argument("--save", help="write inputs that raised something else than InputError here")
    ap.add_argument("--no-damage-check", action="store_true")
    a = ap.parse_args(argv)
    signal.signal(signal.SIGALRM, _alarm)
    readers = ("mrt", "text", "pcap", "bgpsec", "vrps", "bzip2", "rtr", "rislive") if a.reader == "all" else (a.reader,)
    bad = False
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="bgpsim-fuzz-", dir=shm) as tmp:
        for reader in readers:
            st = fuzz(reader, a.count, a.seed, a.case, a.save, tmp)
            bad |= st["other"] > 0
            slow, slow_case = st["slowest"]
            if reader == "text":
                print(f"text: strict reads ending in InputError: {STRICT_ERRORS[0]} (each input is read strict, "
                      f"then lenient; the counts below are of the lenient read)")
            print(f"{reader}: {st['inputs']} inputs from {st['seeds']} seeds in {st['seconds']:.0f} s "
                  f"({st['inputs'] / max(st['seconds'], 1e-9):.0f}/s): {st['input_errors']} InputError, "
                  f"{st['warnings']} warnings (in {st['warned_inputs']} inputs; {st['unplaced']} naming no byte, line or "
                  f"packet number), {st['other']} other exceptions; "
                  f"slowest case {slow_case} ({slow:.2f} s)", flush=True)
        if a.case is None and not a.no_damage_check and "mrt" in readers:
            checks, failures, notes = damage_check(tmp, random.Random(a.seed))
            for n in notes:
                print("  damage " + n)
            print(f"damage check: {checks} damaged files, {failures} failures")
            bad |= failures > 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
