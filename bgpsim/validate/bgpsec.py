"""BGPsec verdicts for route records (RFC 8205 section 5): one per BGPsec UPDATE of a capture, an MRT
dump, or a file of hex UPDATE messages (`bgpsim bgpsec verify`), and one per route of
`bgpsim validate --router-keys` (RouteVerdicts, BgpsecTally).

A BGPsec UPDATE carries one prefix (RFC 8205 section 4.1), so a route record is an UPDATE here. Its
most recent signature was made for the receiving router's AS (the target): the capture's OPEN or the
BGP4MP header says which; for RIB dumps and hex messages the caller gives it.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections import Counter
from hashlib import blake2b
from dataclasses import dataclass

import numpy as np

from bgpsim.base.errors import InputError
from bgpsim.mrt.record import ANNOUNCE, RIB, Route
from bgpsim.rpki.bgpsec.verify import Verdict, Verifier
from bgpsim.wire import WireError
from bgpsim.wire.attributes import scan_attributes
from bgpsim.wire.nlri import parse_prefixes
from bgpsim.wire.update import UPDATE, parse_header, split_update

MAX_HEX_FILE = 64 << 20
_HEX = re.compile(rb"[0-9A-Fa-f\s]*")


@dataclass(frozen=True, slots=True)
class Row:
    """One UPDATE's verdict: where it was read, what it announced, and what the signatures say."""

    source: str
    index: int  # the route's number in its file, from 1
    prefix: str
    peer_as: int | None
    target_as: int | None
    as_path: str
    state: str  # valid, not-valid, withdraw, unsigned, unknown
    reason: str = ""
    detail: str = ""
    hop: int | None = None


def is_hex_file(path: str) -> bool:
    """Whether the file is text of hex digits (and comments): UPDATE messages written as hex."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise InputError(e.strerror or str(e), path) from None
    text = b"\n".join(line.split(b"#", 1)[0] for line in head.splitlines())
    return bool(text.strip()) and _HEX.fullmatch(text) is not None


def hex_routes(path: str, peer_as: int | None, target_as: int | None):
    """Routes of a file with one UPDATE message (header included) in hex per line. An UPDATE whose path
    attributes are damaged (a malformed BGPsec_PATH among them) comes as the InputError saying so, not
    raised: RFC 7606 treats it as a withdrawal, and the next line is read on."""
    with open(path, "rb") as f:
        data = f.read(MAX_HEX_FILE + 1)
    if len(data) > MAX_HEX_FILE:
        raise InputError(f"want a hex file of at most {MAX_HEX_FILE} bytes", path)
    for n, line in enumerate(data.splitlines(), 1):
        text = line.split(b"#", 1)[0].split()
        if not text:
            continue
        try:
            msg = bytes.fromhex(b"".join(text).decode("ascii"))
        except ValueError:
            raise InputError("want an UPDATE message in hex digits (an even number of them)", path, n) from None
        try:
            kind, end = parse_header(msg, 0, len(msg))
            if kind != UPDATE:
                raise WireError(f"want an UPDATE (type 2), got message type {kind}", 18)
            if end != len(msg):
                raise WireError(f"the header says {end} bytes, the line holds {len(msg)}", 16)
            parts = split_update(msg, 19, end)
        except WireError as e:
            raise InputError(f"byte {e.offset}: {e.message}", path, n) from None
        block = msg[parts.attributes[0]:parts.attributes[1]]
        try:
            attrs = scan_attributes(block)
            prefixes = [p for p, _ in parse_prefixes(msg, *parts.nlri, 1)]
            if attrs.mp_reach is not None:
                afi, _safi, _nhlen, _nh, p, e = attrs.mp_reach
                prefixes += [p for p, _ in parse_prefixes(block, p, e, afi)]
        except WireError as e:
            yield InputError(f"byte {parts.attributes[0] + e.offset}: {e.message}", path, n)
            continue
        for prefix in prefixes:
            r = Route("UPDATE", 0, None, ANNOUNCE, "", peer_as or 0, prefix, attrs=attrs)
            r.local_as = target_as
            yield r


def routes_of(files, peer_as: int | None, target_as: int | None):
    """(file name, routes) for each input file: hex UPDATEs, or whatever bgpsim reads (pcap, MRT, text)."""
    from bgpsim.base.datafiles import check_input
    from bgpsim.routedata import reader_for

    for f in files:
        check_input(f)
        yield str(f), (hex_routes(f, peer_as, target_as) if is_hex_file(f) else reader_for(f)(f))  # <stdin> so named


def verdict_of(route: Route, verifier: Verifier, target_as: int | None,
               checks: list | None = None) -> tuple[str, Verdict | None, int | None]:
    """(state, verdict, target AS) of one announced route: unsigned without BGPsec_PATH, unknown when
    no target AS is known, else the verdict's state; `checks` as Verifier.verify takes it."""
    path = route.attrs.bgpsec
    target = route.local_as if route.local_as is not None else target_as
    if path is None:
        return "unsigned", None, target
    if target is None:
        return "unknown", None, None
    peer = route.peer_as if route.kind != RIB and route.peer_as else None
    v = verifier.verify(path, target, ipaddress.ip_network(route.prefix), peer, checks)
    return v.state, v, target


def verdicts(files, verifier: Verifier, target_as: int | None, peer_as: int | None, unsigned: bool):
    """A Row per announced route of the files (unsigned ones only when `unsigned`)."""
    for name, routes in routes_of(files, peer_as, target_as):
        index = 0
        for r in routes:
            if isinstance(r, InputError):  # a damaged UPDATE in hex: treat-as-withdraw
                index += 1
                yield Row(name, index, "-", peer_as, target_as, "-", "withdraw", "malformed", r.message)
                continue
            if r.kind != ANNOUNCE and r.kind != RIB:
                continue
            index += 1
            state, v, target = verdict_of(r, verifier, target_as)
            if state == "unsigned" and not unsigned:
                continue
            yield Row(name, index, r.prefix, r.peer_as or None, target, r.attrs.as_path_text, state,
                      v.reason if v else "", v.detail if v else ("give --target-as" if state == "unknown" else ""),
                      v.hop if v else None)


def write_table(rows, out) -> dict[str, int]:
    """Aligned columns; the count of each verdict."""
    rows = list(rows)
    head = ("FILE", "#", "PREFIX", "PEER", "TARGET", "AS_PATH", "VERDICT", "REASON")
    cells = [head] + [(r.source, str(r.index), r.prefix, str(r.peer_as or "-"), str(r.target_as or "-"),
                       r.as_path or "-", r.state, f"{r.reason}: {r.detail}" if r.reason else r.detail) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
    for c in cells:
        out.write("  ".join(x.ljust(w) for x, w in zip(c, widths)) + "  " + c[-1] + "\n")
    return _tally(rows)


def write_json(rows, out) -> dict[str, int]:
    """One JSON object per UPDATE per line; the count of each verdict."""
    rows = list(rows)
    for r in rows:
        out.write(json.dumps({"file": r.source, "index": r.index, "prefix": r.prefix, "peer_as": r.peer_as,
                              "target_as": r.target_as, "as_path": r.as_path, "state": r.state,
                              "reason": r.reason or None, "detail": r.detail or None, "hop": r.hop}) + "\n")
    return _tally(rows)


def _tally(rows) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.state] = counts.get(r.state, 0) + 1
    return counts


# ---- `bgpsim validate --router-keys`: a verdict for every route ---------------------------------------------
# Every announced route gets one: those with a BGPsec_PATH are verified (RouteVerdicts.field), every other is
# `unsigned`, written by bgpsim.validate.check with the other fields of its group. The counts and the
# findings travel in the pass's Tally (BgpsecTally).

NOT_VALID = "bgpsec-not-valid"  # the finding kind of a route not valid, or treated as withdrawn
STATE_ORDER = ("valid", "not-valid", "withdraw", "unsigned", "unknown")
UNSIGNED_FIELDS = b",unsigned,"  # the bgpsec and bgpsec_reason fields of a route without BGPsec_PATH
_VALID_WHY = "every signature verifies with a router key bound to its AS"
_NO_TARGET = "the receiving AS is not known (a RIB entry): give --target-as"
_COMPACT = 1 << 16  # check keys gathered before they are made distinct


class RouteVerdicts:
    """The BGPsec verdicts of `bgpsim validate`: `verifier` checks each route carrying a BGPsec_PATH for
    its receiving AS (Route.local_as, else `target_as`)."""

    def __init__(self, verifier: Verifier, target_as: int | None = None):
        self.verifier = verifier
        self.target_as = target_as

    def field(self, route: Route, tally: BgpsecTally) -> bytes:
        """The route's bgpsec and bgpsec_reason CSV fields and the line's end; counted in `tally`, and a
        finding when it is not valid or withdrawn."""
        made: list = []
        state, v, target = verdict_of(route, self.verifier, self.target_as, made)
        if v is None:  # no target AS
            reason, detail, hop = "no-target", _NO_TARGET, None
        else:
            reason, detail, hop = v.reason, v.detail, v.hop
        # each check the Verifier made, as 64 bits: the distinct ones are counted over the pass
        checks = [int.from_bytes(blake2b(d + ski + asn.to_bytes(4, "big") + sig, digest_size=8).digest(), "big")
                  for d, ski, asn, sig in made]
        tally.add(route, state, reason, detail, hop, target, checks)
        why = (f"{reason}: {detail}" if reason else _VALID_WHY).replace('"', '""')
        return f',{state},"{why}"\n'.encode()


class BgpsecTally:
    """The BGPsec counts of a pass: `signed` routes (with a BGPsec_PATH), their `states` and `reasons`,
    the signature checks (`checks`, and the distinct ones, `verified`; the others were answered again,
    `reused`), and the findings of the routes not valid or withdrawn, one per (prefix, path, receiving
    AS, state, reason), with the first route as the example. A check counts as verified once over
    the whole pass."""

    def __init__(self):
        self.signed = 0
        self.states: Counter = Counter()
        self.reasons: Counter = Counter()
        self.checks = 0
        self._keys = np.zeros(0, dtype=np.uint64)  # the distinct checks
        self._new: list[int] = []
        self.found: dict[tuple, dict] = {}

    def add(self, route: Route, state: str, reason: str, detail: str, hop: int | None, target: int | None,
            checks) -> None:
        self.signed += 1
        self.states[state] += 1
        if reason:
            self.reasons[reason] += 1
        if checks:
            self.checks += len(checks)
            self._new += checks
            if len(self._new) >= _COMPACT:
                self._distinct()
        if state != "not-valid" and state != "withdraw":
            return
        text = route.attrs.as_path_text
        key = (route.afi, route.network, route.plen, text, target or 0, state, reason, detail)
        f = self.found.get(key)
        if f is None:
            f = self.found[key] = {"kind": NOT_VALID, "prefix": route.prefix, "as_path": text, "target_as": target,
                                   "state": state, "reason": reason, "detail": detail, "hop": hop, "routes": 0,
                                   "example": {"peer": route.peer_ip, "peer_as": route.peer_as, "time": route.time}}
        f["routes"] += 1

    def _distinct(self) -> np.ndarray:
        if self._new:
            self._keys = np.union1d(self._keys, np.array(self._new, dtype=np.uint64))
            self._new = []
        return self._keys

    @property
    def verified(self) -> int:
        return len(self._distinct())

    @property
    def reused(self) -> int:
        return self.checks - self.verified

    def findings(self) -> list[dict]:
        """The findings in address order (then path, receiving AS, state, reason)."""
        return [self.found[k] for k in sorted(self.found)]

    def summary(self, routes: int, keys: int, target_as: int | None) -> dict:
        """summary.json's `bgpsec` object (`routes`: every announced route of the pass)."""
        states = {s: self.states[s] for s in STATE_ORDER}
        states["unsigned"] += routes - self.signed
        return {"router_keys": keys, "target_as": target_as, "signed": self.signed, "states": states,
                "reasons": dict(sorted(self.reasons.items())), "verified": self.verified, "reused": self.reused}
