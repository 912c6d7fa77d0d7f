"""A reader of `bgpdump -m` text (the one-line format of `bgpsim.mrt.bgpdump`) back into `Route` records.

The format is bgpdump 1.6's (see `bgpdump` for the field lists); each line is one route:

    TABLE_DUMP2|1277971199|B|202.249.2.169|2497|1.9.0.0/16|2497 2914 4788|IGP|202.249.2.169|0|0||NAG||
    BGP4MP|1027377522|W|193.203.0.81|20751|200.31.199.0/24
    BGP4MP_ET|1445565678.509481|STATE|206.220.231.55|3856|1|2

Values are checked against the protocol they came from: addresses and prefixes (RFC 4291 section 2.2
text for IPv6), ASNs and LOCAL_PREF/MED as 32-bit numbers (RFC 6793, RFC 4271 section 4.3), AS paths
as bgpdump writes the segments of RFC 4271 section 4.3 and RFC 5065 section 3 ("a b", "{a,b}", "(a b)",
"[a,b]"), communities as RFC 1997 "asn:value" halves or bgpdump's names of the well-known ones.

What the text cannot say is filled in as bgpdump's defaults print it: an empty AS path field reads as
no AS_PATH, "INCOMPLETE" as ORIGIN 2, a next hop of 255.255.255.255 as none, LOCAL_PREF and MED of 0
as 0. So `bgpdump.line(route)` gives the line back byte for byte.

Errors. The reader is strict by default: the first malformed line raises `InputError` naming the file
and line number, so a bad file never yields a silently shortened route list. With `strict=False` a
malformed line is a warning naming the file and line, and reading goes on with the next line (for long
files with a damaged line or two). Either way a line longer than MAX_LINE bytes is a fault of that line
(memory stays bounded), and a file that is not text at all is an `InputError`.
"""

from __future__ import annotations

import re
import socket
from typing import Callable, Iterator

from bgpsim.base.errors import InputError, stderr_warning
from bgpsim.wire.aspath import AS_CONFED_SEQUENCE, AS_CONFED_SET, AS_SEQUENCE, AS_SET
from bgpsim.wire.attributes import Attrs
from bgpsim.wire.communities import NO_ADVERTISE, NO_EXPORT, NO_EXPORT_SUBCONFED, community_text
from .bgpdump import NO_NEXT_HOP
from .record import ANNOUNCE, RIB, STATE, WITHDRAW, Route
from .stream import Chunks

MAX_LINE = 1 << 20  # far above a 65535-byte UPDATE's worth of communities (about 180 kB of text)
CACHE = 1 << 16  # attribute texts remembered per file

# bgpdump's record names (bgpdump.line); the kind letter each may carry
_RIB_RECORDS = {"TABLE_DUMP", "TABLE_DUMP2", "TABLE_DUMP2_AP"}
_MSG_RECORDS = {f"BGP4MP{et}{local}{ap}" for et in ("", "_ET") for local in ("", "_LOCAL") for ap in ("", "_AP")}
RECORDS = _RIB_RECORDS | _MSG_RECORDS
# the start of a line of this format, for input detection
LINE_START = re.compile(rb"(TABLE_DUMP2?(_AP)?|BGP4MP(_ET)?(_LOCAL)?(_AP)?)\|[0-9]")
_ORIGINS = {"IGP": 0, "EGP": 1, "INCOMPLETE": 2}
_NAMED = {community_text(v): v for v in (NO_EXPORT, NO_ADVERTISE, NO_EXPORT_SUBCONFED)}
_SEGMENT = re.compile(r"\{([0-9,]+)\}|\(([0-9 ]+)\)|\[([0-9,]+)\]|([0-9]+)")
_U32 = 0xFFFFFFFF


class _Bad(Exception):
    """A malformed field; the reader adds the file and line."""


def _u32(text: str, what: str) -> int:
    if not text.isdigit() or not text.isascii() or len(text) > 10:
        raise _Bad(f"{what}: want a number 0 to 4294967295, got {text!r}")
    v = int(text)
    if v > _U32:
        raise _Bad(f"{what}: want a number 0 to 4294967295, got {text}")
    return v


def _address(text: str, what: str) -> str:
    """Validate an address; IPv6 as RFC 4291 section 2.2 text."""
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in text else socket.AF_INET, text)
    except (OSError, ValueError):
        raise _Bad(f"{what}: want an IPv4 or IPv6 address, got {text!r}") from None
    return text


def _prefix(text: str) -> str:
    addr, slash, plen = text.partition("/")
    if not slash or not plen.isdigit() or not plen.isascii() or len(plen) > 3:
        raise _Bad(f"prefix: want address/length, got {text!r}")
    _address(addr, "prefix")
    if int(plen) > (128 if ":" in addr else 32):
        raise _Bad(f"prefix (RFC 4271 section 4.3): want a length <= {128 if ':' in addr else 32}, got {plen}")
    return text


def _as_path(text: str) -> tuple:
    """bgpdump's text of an AS path back into segments (RFC 4271 section 4.3, RFC 5065 section 3)."""
    segs: list = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _SEGMENT.match(text, pos)
        if m is None:
            raise _Bad(f"AS path: want ASNs, {{set}}, (confed sequence) or [confed set] at character {pos + 1}, "
                       f"got {text[pos:pos + 20]!r}")
        aset, cseq, cset, asn = m.groups()
        if asn is not None:  # bgpdump writes consecutive sequences as one run of ASNs
            if segs and segs[-1][0] == AS_SEQUENCE:
                segs[-1][1].append(_u32(asn, "AS path"))
            else:
                segs.append((AS_SEQUENCE, [_u32(asn, "AS path")]))
        else:
            body, stype, sep = ((aset, AS_SET, ",") if aset is not None else
                                (cseq, AS_CONFED_SEQUENCE, " ") if cseq is not None else (cset, AS_CONFED_SET, ","))
            segs.append((stype, [_u32(a, "AS path") for a in body.split(sep)]))
        pos = m.end()
        if pos < n:
            if text[pos] != " " or pos + 1 == n:
                raise _Bad(f"AS path: want one space between segments at character {pos + 1}")
            pos += 1
    return tuple((stype, tuple(asns)) for stype, asns in segs)


def _community(text: str) -> int:
    named = _NAMED.get(text)
    if named is not None:
        return named
    hi, colon, lo = text.partition(":")
    if not colon or not hi.isdigit() or not lo.isdigit() or not hi.isascii() or not lo.isascii() \
            or len(hi) > 5 or len(lo) > 5 or int(hi) > 0xFFFF or int(lo) > 0xFFFF:
        raise _Bad(f"community (RFC 1997): want asn:value with 16-bit halves, got {text!r}")
    return (int(hi) << 16) | int(lo)


def _attrs(path: str, origin: str, nh: str | None, lp: str | None, med: str | None, comm: str, ag: str,
           agg: str) -> Attrs:
    a = Attrs()
    if path:
        a.as_path = _as_path(path)
        a.has_as_path = True
    o = _ORIGINS.get(origin)
    if o is None:
        raise _Bad(f"origin (RFC 4271 section 4.3 a): want IGP, EGP or INCOMPLETE, got {origin!r}")
    a.origin = o
    if nh is not None and "." in nh and ":" not in nh and nh != NO_NEXT_HOP:
        a.next_hop = nh
    if lp is not None:
        a.local_pref = _u32(lp, "LOCAL_PREF")
        a.med = _u32(med, "MED")
    if comm:
        a.communities = tuple(_community(c) for c in comm.split(" "))
    if ag == "AG":
        a.atomic_aggregate = True
    elif ag != "NAG":
        raise _Bad(f"atomic aggregate: want AG or NAG, got {ag!r}")
    if agg:
        asn, space, ip = agg.partition(" ")
        if not space or ":" in ip:
            raise _Bad(f"aggregator (RFC 4271 section 4.3 g): want 'ASN IPv4', got {agg!r}")
        a.aggregator = (_u32(asn, "aggregator"), _address(ip, "aggregator"))
    return a


class TextReader:
    """Routes of a `bgpdump -m` text file (plain, gzip or bzip2). See the module docstring for errors."""

    def __init__(self, path: str, warn: Callable[[str], None] | None = None, strict: bool = True):
        self.path = path  # a str, or cli.Stdin (opened by its fspath, named <stdin>)
        self.warn = warn or stderr_warning
        self.strict = strict
        self._cache: dict = {}

    def routes(self) -> Iterator[Route]:
        chunks = Chunks(self.path)
        try:
            for number, raw in self._lines(chunks):
                try:
                    if len(raw) > MAX_LINE:
                        raise _Bad(f"line of {len(raw)} bytes; want at most {MAX_LINE}")
                    try:
                        text = raw.decode("ascii")
                    except UnicodeDecodeError as e:
                        raise _Bad(f"want ASCII text, got byte 0x{raw[e.start]:02x} at column {e.start + 1}") from None
                    route = self.parse(text)
                except _Bad as e:
                    if self.strict:
                        raise InputError(f"bgpdump -m line: {e}", self.path, f"line {number}") from None
                    self.warn(f"{self.path}: line {number}: bgpdump -m line: {e}; skipped")
                    continue
                yield route
        finally:
            chunks.close()

    def _lines(self, chunks: Chunks) -> Iterator[tuple[int, bytes]]:
        """(number, bytes) of each line; a line past MAX_LINE is cut there (and then refused)."""
        buf = b""
        number = 0
        skipping = False  # inside an overlong line: drop bytes until its end
        for data in chunks:
            buf += data
            start = 0
            while True:
                nl = buf.find(b"\n", start)
                if nl < 0:
                    break
                if skipping:
                    skipping = False
                else:
                    number += 1
                    yield number, buf[start:nl]
                start = nl + 1
            buf = buf[start:]
            if len(buf) > MAX_LINE:
                if not skipping:
                    number += 1
                    yield number, buf
                skipping = True
                buf = b""
        if chunks.truncated:
            self.warn(f"{self.path}: truncated: {chunks.truncated} (read {number} lines)")
        if buf and not skipping:
            number += 1
            yield number, buf

    def parse(self, text: str) -> Route:
        """One line (no newline) into a Route; raises _Bad."""
        f = text.split("|")
        n = len(f)
        if n < 6:
            raise _Bad(f"want at least 6 '|'-separated fields, got {n}")
        record, t, kind = f[0], f[1], f[2]
        if record not in RECORDS:
            raise _Bad(f"want a record name such as TABLE_DUMP2 or BGP4MP, got {record[:40]!r}")
        et = "_ET" in record
        if et:
            sec, dot, usec = t.partition(".")
            if not dot or len(usec) != 6 or not usec.isdigit():
                raise _Bad(f"time of {record} (RFC 6396 section 3): want seconds.microseconds, got {t[:40]!r}")
            time, usec = _u32(sec, "time"), int(usec)
        else:
            time, usec = _u32(t, "time"), None
        peer = _address(f[3], "peer address")
        peer_as = _u32(f[4], "peer AS")
        ap = record.endswith("_AP")
        rib = record in _RIB_RECORDS
        if kind == "STATE":
            if rib or n != 7:
                raise _Bad(f"STATE line (RFC 6396 section 4.4.1): want 7 fields of a BGP4MP record, got {n}")
            old, new = _u32(f[5], "old state"), _u32(f[6], "new state")
            if old > 0xFFFF or new > 0xFFFF:
                raise _Bad("STATE line (RFC 6396 section 4.4.1): want 16-bit states")
            return Route(record, time, usec, STATE, peer, peer_as, None, None, None, None, old, new)
        if kind not in (("B",) if rib else ("A", "W")):
            raise _Bad(f"want kind {'B' if rib else 'A, W or STATE'} for {record}, got {kind[:20]!r}")
        prefix = _prefix(f[5])
        path_id = None
        tail = 6
        if ap:
            if n < 7:
                raise _Bad("want a path id after the prefix (RFC 7911 section 3)")
            path_id = _u32(f[6], "path id")
            tail = 7
        if kind == "W":
            if n != tail:
                raise _Bad(f"withdrawal: want {tail} fields, got {n}")
            return Route(record, time, usec, WITHDRAW, peer, peer_as, prefix, path_id)
        rest = f[tail:]
        key = "|".join(rest)
        cached = self._cache.get(key)
        if cached is None:
            if len(rest) == 9 and rest[8] == "":
                path, origin, nh, lp, med, comm, ag, agg, _ = rest
                _address(nh, "next hop")
            elif len(rest) == 6 and rest[5] == "":  # an MP next hop of an odd length (see bgpdump.py)
                path, origin, comm, ag, agg, _ = rest
                nh = lp = med = None
            else:
                raise _Bad(f"announcement: want {tail + 9} fields ending in '|' (or {tail + 6} without next hop, "
                           f"LOCAL_PREF and MED), got {n}")
            cached = (_attrs(path, origin, nh, lp, med, comm, ag, agg), "" if nh is None else nh)
            if len(self._cache) >= CACHE:
                self._cache.clear()
            self._cache[key] = cached
        attrs, nh = cached
        return Route(record, time, usec, RIB if rib else ANNOUNCE, peer, peer_as, prefix, path_id, attrs,
                     None if nh == NO_NEXT_HOP else nh)


def read_text_routes(path: str, warn: Callable[[str], None] | None = None, strict: bool = True) -> Iterator[Route]:
    """Routes of the `bgpdump -m` text file at `path`, in file order."""
    return TextReader(path, warn, strict).routes()
