"""One BGP UPDATE message as groups of routes: what BGP4MP and BGP4MP_ET MESSAGE records (RFC 6396
section 4.4), the historic BGP_UPDATE record (appendix B) and a captured BGP session (bgpsim.capture)
carry.

The message (RFC 4271 section 4.3): withdrawn routes, path attributes, NLRI; MP_UNREACH_NLRI and
MP_REACH_NLRI (RFC 4760 sections 4 and 3) carry the other families' prefixes; with ADD-PATH (RFC 7911
section 3) each prefix has a path id. The groups come in the order withdrawn, MP_UNREACH, NLRI,
MP_REACH, each a group tuple of bgpsim.mrt.decoder. The attributes are decoded once per distinct
attribute block (bgpsim.wire.attributes.scan_attributes, cached by its bytes): an update dump repeats
them.

A damaged prefix field keeps the whole prefixes before the fault, as bgpdump does: the groups read
so far travel with the `Damage`.
"""

from __future__ import annotations

from bgpsim.wire import WireError
from bgpsim.wire.attributes import scan_attributes
from bgpsim.wire.nlri import PrefixError, parse_prefix_ints
from bgpsim.wire.update import split_update
from .framing import Damage
from .record import ANNOUNCE, FROM_ATTRS, WITHDRAW

CACHE = 1 << 16  # attribute blocks remembered per file, per cache


def update_groups(dec, body: bytes, p: int, end: int, record: str, ts: int, usec: int | None, peer: str,
                  peer_as: int, asn_size: int, addpath: bool, local_as: int | None = None) -> list:
    """The groups of the UPDATE body body[p:end] (after the 19-byte header) from `peer` to `local_as`
    (the receiving AS, or None); `dec` is the file's Decoder (its cache of attribute blocks,
    `update_attrs`)."""
    # RFC 4271 section 4.3; split_update's checks, inline on this hot path
    if end - p < 4:
        split_update(body, p, end)  # raises its error
    w0 = p + 2
    w1 = w0 + ((body[p] << 8) | body[p + 1])
    if w1 + 2 > end:
        split_update(body, p, end)
    a0 = w1 + 2
    a1 = a0 + ((body[w1] << 8) | body[w1 + 1])
    if a1 > end:
        split_update(body, p, end)
    out = []
    damage = None

    def prefixes(pos, stop, afi):
        nonlocal damage
        try:
            return parse_prefix_ints(body, pos, stop, afi, addpath)
        except PrefixError as e:  # keep the whole prefixes before the fault, as bgpdump does
            damage = damage or Damage(e.message, e.offset)
            return e.parsed

    if w1 > w0:
        nets, plens, pids = prefixes(w0, w1, 1)
        if nets:
            out.append((record, ts, usec, WITHDRAW, peer, peer_as, 1, nets, plens, pids, None, None, local_as))
    attrs = None
    if a1 > a0:
        raw = body[a0:a1]
        cache = dec.update_attrs[asn_size == 4]
        attrs = cache.get(raw)
        if attrs is None:
            try:
                attrs = scan_attributes(raw, asn_size)
            except WireError as e:
                raise Damage(e.message, a0 + e.offset, out) from None
            if len(cache) >= CACHE:
                cache.clear()
            cache[raw] = attrs
        # RFC 4760 section 4; the historic BGP type's sessions had no multiprotocol extensions
        mu = attrs.mp_unreach
        if mu is not None and mu[0] in (1, 2) and mu[1] in (1, 2, 3) and record != "BGP":
            nets, plens, pids = prefixes(a0 + mu[2], a0 + mu[3], mu[0])
            if nets:
                out.append((record, ts, usec, WITHDRAW, peer, peer_as, mu[0], nets, plens, pids, None, None,
                            local_as))
    if end > a1:
        nets, plens, pids = prefixes(a1, end, 1)
        if nets:
            out.append((record, ts, usec, ANNOUNCE, peer, peer_as, 1, nets, plens, pids, attrs,
                        FROM_ATTRS if attrs is not None else None, local_as))
    if attrs is not None and attrs.mp_reach is not None and record != "BGP":  # RFC 4760 section 3
        mr = attrs.mp_reach
        if mr[0] in (1, 2) and mr[1] in (1, 2, 3):
            nets, plens, pids = prefixes(a0 + mr[4], a0 + mr[5], mr[0])
            if nets:
                # next hops of 4, 16 or 32 bytes (IPv4, IPv6, IPv6 global and link-local) are read
                out.append((record, ts, usec, ANNOUNCE, peer, peer_as, mr[0], nets, plens, pids, attrs,
                            mr[3] if mr[2] in (4, 16, 32) else "", local_as))
    if damage is not None:
        damage.partial = out
        raise damage
    return out
