"""BGP4MP UPDATE records read as arrays: the common case of update dumps, many records at once.

An update dump is mostly BGP4MP / BGP4MP_ET MESSAGE and MESSAGE_AS4 records (RFC 6396 sections 4.4.2
and 4.4.3) holding one well-formed UPDATE each. `updates` reads a buffer of whole records with numpy:
the record and BGP4MP headers by gathers, the path attributes (RFC 4271 section 4.3) by walking every
record's attribute block in step, and the prefixes (section 4.3 and RFC 4760) by walking every NLRI
field in step, a prefix per step. Only the AS_PATH is decoded in Python, once per distinct value
(bgpsim.wire.attributes, cached by its bytes).

It takes only what it can read exactly as the record-by-record decoders (bgpsim.mrt.decoder) do and
leaves the rest to them (the `slow` mask): other record types and subtypes, ADD-PATH, a damaged
header, any attribute their scan would reject (a wrong fixed length, a repeated AS_PATH or MP
attribute, framing past the block), AS4_PATH (merged by them), BGPsec_PATH (RFC 8205: its Secure_Path
is the AS path), unusual MP families, a damaged prefix. So both give the same routes, and every warning still comes from one place.
"""

from __future__ import annotations

import numpy as np

from bgpsim.wire import WireError
from bgpsim.wire.attributes import _SEQ2, _SEQ4, NO_PATH, _path

BGP4MP, BGP4MP_ET = 16, 17
UPDATE = 2
WITHDRAW_CODE, ANNOUNCE_CODE = 1, 0  # batch.KIND_CODES
NH_NONE, NH_ATTRS, NH_MP = 0, 1, 2  # where a route's next hop comes from (see RouteBatch.route)
_TAIL = 16  # sections still open when the walk hands them to Python (a few long UPDATEs)
_PAD = bytes(32)
_SEQ = {2: _SEQ2, 4: _SEQ4}  # unpackers of n ASNs of 2 or 4 bytes

# attribute type codes and the lengths scan_attributes insists on
_ORIGIN, _AS_PATH, _NEXT_HOP, _MED, _LOCAL_PREF, _ATOMIC, _AGGREGATOR, _COMMUNITIES = 1, 2, 3, 4, 5, 6, 7, 8
_MP_REACH, _MP_UNREACH, _AS4_PATH, _AS4_AGGREGATOR, _LARGE, _BGPSEC_PATH = 14, 15, 17, 18, 32, 33
_LEN = np.full(256, -1, dtype=np.int64)  # a fixed length, or -1
_LEN[[_ORIGIN]] = 1
_LEN[[_NEXT_HOP, _MED, _LOCAL_PREF]] = 4
_LEN[_ATOMIC] = 0
_LEN[_AS4_AGGREGATOR] = 8
_LEN[_BGPSEC_PATH] = 1 << 16  # no attribute is this long: a BGPsec UPDATE is always the parser's
_MULT = np.ones(256, dtype=np.int64)  # the length must be a multiple of this
_MULT[_COMMUNITIES] = 4
_MULT[_LARGE] = 12
_TRACK = np.full(256, -1, dtype=np.int64)  # attributes whose place is kept: column in `found`
_TRACK[[_AS_PATH, _MP_REACH, _MP_UNREACH, _AS4_PATH]] = np.arange(4)


class Updates:
    """What `updates` read: `slow` marks the records left to the parser; the rest gave these groups
    (one per non-empty prefix field, in record order, then withdrawn, MP_UNREACH, NLRI, MP_REACH, as
    the parser orders them) and routes. Group columns: `rec` (record number in the buffer), `kind`,
    `afi`, `count` (routes), `path` (index into `paths`, -1 without attributes), `origin`, `a0`, `a1`
    (the attribute block in the buffer), `asn` (ASN size), `nh` (NH_*), `peer` (index into
    `peer_keys`), `time`, `usec` (-1 for BGP4MP), `et`, `hdr` (where the BGP4MP header's peer AS,
    then local AS, are in the buffer). Route columns: `hi`, `lo`, `plen`."""

    __slots__ = ("slow", "rec", "kind", "afi", "count", "path", "origin", "a0", "a1", "asn", "nh", "peer", "time",
                 "usec", "et", "hdr", "hi", "lo", "plen", "paths", "peer_keys")


def _gather(a: np.ndarray, idx: np.ndarray, width: int) -> np.ndarray:
    """Big-endian unsigned integers of `width` bytes at the offsets `idx` of the byte array `a`."""
    out = a[idx].astype(np.int64)
    for k in range(1, width):
        out = (out << 8) | a[idx + k]
    return out


def updates(buf: bytes, starts: list[int], paths: list, path_index: tuple[dict, dict]) -> Updates:
    """The records of `buf` beginning at `starts` (each whole; RFC 6396 section 2 headers). AS_PATHs
    are appended to `paths` (segments, as Attrs.as_path) once each, `path_index` mapping their bytes
    (per ASN size 2, 4) to (index, origin AS)."""
    a = np.frombuffer(buf + _PAD, dtype=np.uint8)
    s = np.asarray(starts, dtype=np.int64)
    u = Updates()
    rtype = _gather(a, s + 4, 2)
    sub = _gather(a, s + 6, 2)
    bend = s + 12 + _gather(a, s + 8, 4)
    et = rtype == BGP4MP_ET
    ok = ((rtype == BGP4MP) | et) & ((sub == 1) | (sub == 4))
    asn = np.where(sub == 4, 4, 2)
    p = s + 12 + 4 * et
    p = np.where(ok & (p + 2 * asn + 4 <= bend), p, s)  # s: a harmless place to read from
    ok &= p != s
    afi = _gather(a, p + 2 * asn + 2, 2)
    alen = np.where(afi == 1, 4, 16)
    ok &= (afi == 1) | (afi == 2)
    m = p + 2 * asn + 4 + 2 * alen  # the BGP message (RFC 4271 section 4.1)
    ok &= m + 19 <= bend
    m = np.where(ok, m, s)
    mend = m + _gather(a, m + 16, 2)
    ok &= (mend >= m + 19) & (mend <= bend)
    slow = ~ok
    upd = np.flatnonzero(ok & (a[m + 18] == UPDATE))  # other messages: no routes
    # RFC 4271 section 4.3: withdrawn routes, attributes, NLRI
    m, mend = m[upd], mend[upd]
    w0 = m + 21
    w1 = w0 + _gather(a, m + 19, 2)
    good = (mend - m >= 23) & (w1 + 2 <= mend)
    w1 = np.where(good, w1, m)
    a0 = w1 + 2
    a1 = a0 + _gather(a, w1, 2)
    good &= a1 <= mend
    found, good = _attributes(a, np.where(good, a0, a1), np.where(good, a1, a1), good)
    # scan_attributes would parse an AS4_PATH (and merge it for 2-byte sessions): the parser's
    good &= found[:, 3, 0] < 0
    rasn = asn[upd]
    # MP_REACH (RFC 4760 section 3) and MP_UNREACH (section 4): families the parser reads, or it
    rv, re_ = found[:, 1, 0], found[:, 1, 1]
    has_r = rv >= 0
    rv0 = np.where(has_r, rv, m)
    r_afi, r_safi, nhlen = _gather(a, rv0, 2), a[rv0 + 2], a[rv0 + 3].astype(np.int64)
    r_nlri = rv0 + 5 + nhlen
    good &= ~has_r | ((re_ - rv >= 5) & (r_nlri <= re_) & ((r_afi == 1) | (r_afi == 2)) & (r_safi >= 1) & (r_safi <= 3))
    uv, ue = found[:, 2, 0], found[:, 2, 1]
    has_u = uv >= 0
    uv0 = np.where(has_u, uv, m)
    u_afi, u_safi = _gather(a, uv0, 2), a[uv0 + 2]
    good &= ~has_u | ((ue - uv >= 3) & ((u_afi == 1) | (u_afi == 2)) & (u_safi >= 1) & (u_safi <= 3))
    # the AS_PATH of each record, decoded once per distinct value
    pv, pe = found[:, 0, 0], found[:, 0, 1]
    path = np.full(len(upd), -1, dtype=np.int64)
    origin = np.full(len(upd), NO_PATH, dtype=np.int64)
    todo = np.flatnonzero(good & (a1 > a0))
    hits = []
    for i, v, e, size in zip(todo.tolist(), pv[todo].tolist(), pe[todo].tolist(), rasn[todo].tolist()):
        index = path_index[size == 4]
        raw = buf[v:e] if v >= 0 else None  # None: attributes without an AS_PATH
        hit = index.get(raw)
        if hit is None:
            segs, org = (), NO_PATH
            count = buf[v + 1] if raw is not None else 0
            if count and buf[v] == 2 and v + 2 + count * size == e:  # one AS_SEQUENCE: most paths
                asns = _SEQ[size][count](buf, v + 2)
                segs, org = ((2, asns),), asns[-1]
            elif raw is not None:
                try:
                    segs, org = _path(buf, v, e, size)
                except WireError:
                    good[i] = False
                    hits.append((-1, NO_PATH))
                    continue
            hit = index[raw] = (len(paths), org)
            paths.append(segs)
        hits.append(hit)
    if hits:
        path[todo], origin[todo] = np.array(hits, dtype=np.int64).T
    # the prefix fields, in the parser's order: withdrawn, MP_UNREACH, NLRI, MP_REACH
    sec_start = np.column_stack([w0, uv0 + 3, a1, r_nlri]).ravel()
    sec_end = np.column_stack([w1, np.where(has_u, ue, uv0 + 3), mend, np.where(has_r, re_, r_nlri)]).ravel()
    sec_afi = np.column_stack([np.ones(len(upd), np.int64), u_afi, np.ones(len(upd), np.int64), r_afi]).ravel()
    sec_rec = np.repeat(np.arange(len(upd)), 4)
    live = np.flatnonzero(np.repeat(good, 4) & (sec_end > sec_start))
    sec_rec, sec_start, sec_end, sec_afi = sec_rec[live], sec_start[live], sec_end[live], sec_afi[live]
    sec_kind = (live & 3).astype(np.int64)  # 0 withdrawn, 1 MP_UNREACH, 2 NLRI, 3 MP_REACH
    pfx_sec, hi, lo, plen, bad = _prefixes(buf, a, sec_start, sec_end, sec_afi)
    if len(bad):  # a damaged prefix: the parser reads the record (and says where)
        good[sec_rec[bad]] = False
        keep = good[sec_rec]
        renum = np.cumsum(keep) - 1
        kp = keep[pfx_sec]
        pfx_sec, hi, lo, plen = renum[pfx_sec[kp]], hi[kp], lo[kp], plen[kp]
        sec_rec, sec_kind, sec_afi = sec_rec[keep], sec_kind[keep], sec_afi[keep]
    slow[upd[~good]] = True
    rec = upd[sec_rec]
    u.slow = slow
    u.rec = rec
    u.kind = np.where(sec_kind >= 2, ANNOUNCE_CODE, WITHDRAW_CODE).astype(np.uint8)
    u.afi = sec_afi.astype(np.uint8)
    u.count = np.bincount(pfx_sec, minlength=len(sec_rec))
    announce = sec_kind >= 2
    with_attrs = announce & (a1[sec_rec] > a0[sec_rec])
    u.path = np.where(with_attrs, path[sec_rec], -1)
    u.origin = np.where(with_attrs, origin[sec_rec], NO_PATH)
    u.a0, u.a1 = a0[sec_rec], a1[sec_rec]
    u.asn = asn[rec].astype(np.uint8)
    u.nh = np.where(~with_attrs, NH_NONE, np.where(sec_kind == 2, NH_ATTRS, NH_MP)).astype(np.uint8)
    u.time = _gather(a, s[rec], 4)
    u.et = et[rec]
    u.usec = np.where(u.et, _gather(a, s[rec] + 12, 4), -1)
    # the peer (RFC 6396 section 4.4.2): AS, then after the local AS, interface and AFI its address
    pr = u.hdr = p[rec]
    peer_as = np.where(u.asn == 4, _gather(a, pr, 4), _gather(a, pr, 2))
    addr = pr + 2 * u.asn.astype(np.int64) + 4
    raw_afi = afi[rec]
    key = np.zeros((len(rec), 21), dtype=np.uint8)
    key[:, 0] = raw_afi
    key[:, 1:5] = peer_as.astype(">u4").view(np.uint8).reshape(-1, 4)
    width = np.where(raw_afi == 1, 4, 16)
    for k in range(16):
        key[:, 5 + k] = np.where(k < width, a[addr + k], 0)
    uniq, inverse = np.unique(key.view(np.dtype((np.void, 21))).ravel(), return_inverse=True)
    u.peer = inverse.reshape(-1).astype(np.int64)
    u.peer_keys = [(bytes(k[5:5 + (4 if k[0] == 1 else 16)]), int.from_bytes(k[1:5], "big"))
                   for k in (bytes(x) for x in uniq)]
    u.hi, u.lo, u.plen = hi, lo, plen
    u.paths = paths
    return u


def _attributes(a: np.ndarray, start: np.ndarray, end: np.ndarray, good: np.ndarray):
    """Walk every attribute block [start, end) in step (RFC 4271 section 4.3: flags, type, one or,
    with Extended Length, two length bytes, value). Returns `found[i, j] = (value start, value end)`
    of the AS_PATH, MP_REACH, MP_UNREACH and AS4_PATH (j 0-3) of block i (-1 when absent), and
    `good` cleared where a block breaks a rule scan_attributes checks or repeats a tracked type."""
    found = np.full((len(start), 4, 2), -1, dtype=np.int64)
    good = good.copy()
    idx = np.flatnonzero(good & (start < end))
    pos = start[idx]
    while len(idx):
        e = end[idx]
        flags, code = a[pos], a[pos + 1].astype(np.int64)
        ext = (flags & 0x10) != 0
        v = pos + 3 + ext
        ln = np.where(ext, _gather(a, pos + 2, 2), a[pos + 2])
        nxt = v + ln
        fixed = _LEN[code]
        bad = (v > e) | (nxt > e) | ((fixed >= 0) & (ln != fixed)) | (ln % _MULT[code] != 0)
        bad |= (code == _AGGREGATOR) & (ln != 6) & (ln != 8)
        col = _TRACK[code]
        t = np.flatnonzero((col >= 0) & ~bad)
        if len(t):
            seen = found[idx[t], col[t], 0] >= 0
            bad[t[seen]] = True  # a repeated attribute: the parser takes the last; let it
            t = t[~seen]
            found[idx[t], col[t], 0] = v[t]
            found[idx[t], col[t], 1] = nxt[t]
        good[idx[bad]] = False
        more = ~bad & (nxt < e)
        idx, pos = idx[more], nxt[more]
    return found, good


def _prefixes(buf: bytes, a: np.ndarray, start: np.ndarray, end: np.ndarray, afi: np.ndarray):
    """The prefixes of the fields [start, end) (RFC 4271 section 4.3: a length in bits, then just
    enough bytes), walked in step: (field of each prefix, hi, lo, length, fields with a damaged
    prefix). Routes are ordered by field, then place in it; address bits past the length cleared."""
    secs, qs, plens, steps, bad_all = [], [], [], [], []
    idx = np.arange(len(start))
    pos = start.copy()
    step = 0
    maxbits = np.where(afi == 1, 32, 128)
    tail = None
    while len(idx):
        if len(idx) <= _TAIL and step > 64:
            tail = _tail(buf, idx, pos, end, afi, step, bad_all)
            break
        e = end[idx]
        pl = a[pos]
        nxt = pos + 1 + ((pl.astype(np.int64) + 7) >> 3)
        bad = (pl > maxbits[idx]) | (nxt > e)
        if bad.any():
            bad_all.append(idx[bad])
            keep = ~bad
            idx, pos, pl, nxt, e = idx[keep], pos[keep], pl[keep], nxt[keep], e[keep]
        secs.append(idx)
        qs.append(pos + 1)
        plens.append(pl)
        steps.append(np.full(len(idx), step, dtype=np.int64))
        more = nxt < e
        idx, pos = idx[more], nxt[more]
        step += 1
    sec = np.concatenate(secs) if secs else np.zeros(0, dtype=np.int64)
    stp = np.concatenate(steps) if steps else sec
    q = np.concatenate(qs) if qs else sec
    pl = np.concatenate(plens).astype(np.int64) if plens else sec
    v4 = afi[sec] == 1
    words = np.lib.stride_tricks.sliding_window_view(a, 16)[q].view(">u8")  # 16 bytes from each address
    hi = np.where(v4, 0, words[:, 0]).astype(np.uint64)
    lo = np.where(v4, words[:, 0] >> np.uint64(32), words[:, 1]).astype(np.uint64)
    hi, lo = _mask(hi, lo, pl, v4)
    if tail is not None:
        sec, stp, hi, lo, pl = (np.concatenate([x, y]) for x, y in zip((sec, stp, hi, lo, pl), tail))
    order = np.lexsort((stp, sec))
    bad = np.unique(np.concatenate(bad_all)) if bad_all else np.zeros(0, dtype=np.int64)
    return sec[order], hi[order], lo[order], pl[order].astype(np.uint8), bad


def _mask(hi: np.ndarray, lo: np.ndarray, pl: np.ndarray, v4: np.ndarray):
    """Clear the address bits past the prefix length (IPv4 in the low 32 bits of `lo`)."""
    bits = np.where(v4, pl + 96, pl)  # the length as if in a 128-bit address
    hbits = np.minimum(bits, 64).astype(np.uint64)
    lbits = np.clip(bits - 64, 0, 64).astype(np.uint64)
    full = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
    hmask = np.where(hbits == 0, np.uint64(0), full << (np.uint64(64) - np.maximum(hbits, np.uint64(1))))
    lmask = np.where(lbits == 0, np.uint64(0), full << (np.uint64(64) - np.maximum(lbits, np.uint64(1))))
    lmask = np.where(v4, lmask & np.uint64(0xFFFF_FFFF), lmask)
    return hi & hmask, lo & lmask


def _tail(buf, idx, pos, end, afi, step, bad_all) -> tuple:
    """The last few long fields, prefix by prefix (bgpsim.wire.nlri.parse_prefix_ints): (field,
    step, hi, lo, length) of each prefix."""
    from bgpsim.wire.nlri import PrefixError, parse_prefix_ints

    m64 = (1 << 64) - 1
    sec, stp, his, los, pls = [], [], [], [], []
    for k, p in zip(idx.tolist(), pos.tolist()):
        try:
            nets, pl, _ = parse_prefix_ints(buf, p, int(end[k]), int(afi[k]))
        except PrefixError:
            bad_all.append(np.array([k]))
            continue
        sec += [k] * len(nets)
        stp += range(step, step + len(nets))
        his += [x >> 64 for x in nets]
        los += [x & m64 for x in nets]
        pls += pl
    return (np.array(sec, dtype=np.int64), np.array(stp, dtype=np.int64), np.array(his, dtype=np.uint64),
            np.array(los, dtype=np.uint64), np.array(pls, dtype=np.int64))
