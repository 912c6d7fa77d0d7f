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

The lines are read by the compiled core (bgpsim._core.read_bgpdump_text, core/bgptext*.c) into
columns, with every field checked; here they become Route records, the attributes of each distinct
attribute text made once.

Errors. The reader is strict by default: the first malformed line raises `InputError` naming the file
and line number, so a bad file never yields a silently shortened route list. With `strict=False` a
malformed line is a warning naming the file and line, and reading goes on with the next line (for long
files with a damaged line or two). Either way a line longer than MAX_LINE bytes is a fault of that line
(memory stays bounded), and a file that is not text at all is an `InputError`.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from bgpsim import _core
from bgpsim.base.errors import InputError, stderr_warning
from bgpsim.wire.aspath import path_of_words
from bgpsim.wire.attributes import Attrs
from bgpsim.wire.communities import NO_ADVERTISE, NO_EXPORT, NO_EXPORT_SUBCONFED, community_text
from .bgpdump import NO_NEXT_HOP
from .record import ANNOUNCE, RIB, STATE, WITHDRAW, Route, wire_route
from .stream import Chunks

MAX_LINE = 1 << 20  # core/bgptext.h: far above a 65535-byte UPDATE's worth of communities (about 180 kB of text)
CACHE = 1 << 16  # attribute texts remembered per file

# the start of a line of this format, for input detection
LINE_START = re.compile(rb"(TABLE_DUMP2?(_AP)?|BGP4MP(_ET)?(_LOCAL)?(_AP)?)\|[0-9]")
KINDS = (ANNOUNCE, WITHDRAW, RIB, STATE)  # the core's kind codes
_ORIGINS = {"IGP": 0, "EGP": 1, "INCOMPLETE": 2}
_NAMED = {community_text(v): v for v in (NO_EXPORT, NO_ADVERTISE, NO_EXPORT_SUBCONFED)}
_GROUPS = {"record": "u1", "time": "<i8", "usec": "<i4", "kind": "u1", "peer": "<i4", "first": "<i8", "count": "<i4",
           "path": "<i4", "origin": "<i8", "old_state": "<u2", "new_state": "<u2", "attr_start": "<i8",
           "attr_end": "<i8", "line": "<i8"}
_ROUTES = {"hi": "<u8", "lo": "<u8", "plen": "u1", "path_id": "<i8", "afi": "u1"}


def _attrs(text: str, path: tuple, origin_as: int) -> tuple[Attrs, str]:
    """The Attrs of an attribute text (from the AS path field to the end of the line, checked by the
    core), and its next hop field ("" in the six-field form, which has none)."""
    f = text.split("|")
    a = Attrs()
    if len(f) == 9:
        ptext, origin, nh, lp, med, comm, ag, agg, _ = f
        a.local_pref, a.med = int(lp), int(med)
        if "." in nh and ":" not in nh and nh != NO_NEXT_HOP:
            a.next_hop = nh
    else:  # an MP next hop of an odd length (see bgpdump.py)
        ptext, origin, comm, ag, agg, _ = f
        nh = ""
    if ptext:
        a.as_path, a.has_as_path, a.origin_as = path, True, origin_as
    a.origin = _ORIGINS[origin]
    if comm:
        a.communities = tuple(_NAMED.get(c) or int(c.partition(":")[0]) << 16 | int(c.partition(":")[2])
                              for c in comm.split(" "))
    a.atomic_aggregate = ag == "AG"
    if agg:
        asn, _, ip = agg.partition(" ")
        a.aggregator = (int(asn), ip)
    return a, nh


class TextReader:
    """Routes of a `bgpdump -m` text file (plain, gzip or bzip2). See the module docstring for errors."""

    def __init__(self, path: str, warn: Callable[[str], None] | None = None, strict: bool = True):
        self.path = path  # a str, or routedata.Stdin (opened by its fspath, named <stdin>)
        self.warn = warn or stderr_warning
        self.strict = strict
        self._cache: dict = {}

    def routes(self) -> Iterator[Route]:
        chunks = Chunks(self.path)
        try:
            rest, line, skip = b"", 1, False
            for data in chunks:  # whole lines to the core; the rest of a chunk goes with the next
                buf = rest + data
                res = yield from self._read(buf, line, False, skip)
                rest = buf[res["consumed"]:]
                line += res["lines"]
                skip = res["skip"]
            if chunks.truncated:
                self.warn(f"{self.path}: truncated: {chunks.truncated} (read {line - 1} lines)")
            if rest:
                yield from self._read(rest, line, True, skip)
        finally:
            chunks.close()

    def _read(self, buf: bytes, line: int, final: bool, skip: bool):
        """The routes of the lines of `buf` (from line number `line`); gives the core's result."""
        try:
            res = _core.read_bgpdump_text(buf, line, self.strict, final, skip)
        except ValueError as e:  # strict: the routes before the faulty line, then the fault
            message, number, offset = e.args
            yield from self._routes(_core.read_bgpdump_text(buf[:offset], line, True, True, skip), buf)
            raise InputError(f"bgpdump -m line: {message}", self.path, f"line {number}") from None
        yield from self._routes(res, buf)
        return res

    def _routes(self, res: dict, buf: bytes) -> Iterator[Route]:
        import numpy as np  # here, not above: reader_for looks at LINE_START for every file

        g = {k: np.frombuffer(v, _GROUPS[k]).tolist() for k, v in res["groups"].items()}
        r = {k: np.frombuffer(v, _ROUTES[k]).tolist() for k, v in res["routes"].items()}
        names, peers, paths, texts = res["names"], res["peers"], res["paths"], res["prefix_texts"]
        warnings, wlines = res["warnings"], np.frombuffer(res["warning_lines"], "<i8").tolist()
        w = 0  # the warnings go out in line order between the groups (a group is a run of good lines)
        cache = self._cache
        for i in range(len(g["record"])):
            while w < len(wlines) and wlines[w] < g["line"][i]:
                self.warn(f"{self.path}: {warnings[w]}")
                w += 1
            record, usec, kind = names[g["record"][i]], g["usec"][i], KINDS[g["kind"][i]]
            usec = None if usec < 0 else usec
            peer_ip, peer_as = peers[g["peer"][i]]
            if kind is STATE:
                yield Route(record, g["time"][i], usec, STATE, peer_ip, peer_as, None, None, None, None,
                            g["old_state"][i], g["new_state"][i])
                continue
            attrs = nh = None
            if kind is not WITHDRAW:
                key = buf[g["attr_start"][i]:g["attr_end"][i]]
                hit = cache.get(key)
                if hit is None:
                    path = path_of_words(paths[g["path"][i]]) if g["path"][i] >= 0 else ()
                    attrs, nh = _attrs(key.decode("ascii"), path, g["origin"][i])
                    hit = (attrs, None if nh == NO_NEXT_HOP else nh)
                    if len(cache) >= CACHE:
                        cache.clear()
                    cache[key] = hit
                attrs, nh = hit
            for j in range(g["first"][i], g["first"][i] + g["count"][i]):
                afi = r["afi"][j]
                x = wire_route(record, g["time"][i], usec, kind, peer_ip, peer_as, afi,
                               r["lo"][j] if afi == 1 else r["hi"][j] << 64 | r["lo"][j], r["plen"][j],
                               None if r["path_id"][j] < 0 else r["path_id"][j], attrs, nh)
                if texts and j in texts:  # the prefix as the line wrote it (host bits, upper case)
                    x._prefix = texts[j]
                yield x
        for text in warnings[w:]:
            self.warn(f"{self.path}: {text}")


def read_text_routes(path: str, warn: Callable[[str], None] | None = None, strict: bool = True) -> Iterator[Route]:
    """Routes of the `bgpdump -m` text file at `path`, in file order."""
    return TextReader(path, warn, strict).routes()
