"""The messages a speaker sends (bgpsim.wire.encode) read back by the decoders beside them: every field
as written, so what the speaker says is what a reader of the wire hears (tshark reads the BGPsec
UPDATEs in tests/test_bgpsec_tshark.py)."""

from __future__ import annotations

import ipaddress

import pytest

from bgpsim.wire.attributes import parse_attributes
from bgpsim.wire.encode import (
    KEEPALIVE,
    MAX_MESSAGE,
    open_message,
    unsigned_update,
    withdrawal,
)
from bgpsim.wire.nlri import parse_prefixes
from bgpsim.wire.open import parse_open
from bgpsim.wire.update import HEADER, OPEN, UPDATE, parse_header, split_update
from bgpsim.wire.update import KEEPALIVE as KEEPALIVE_TYPE


def body(msg: bytes, want: int) -> tuple[int, int]:
    kind, end = parse_header(msg, 0, len(msg))
    assert (kind, end) == (want, len(msg)) and len(msg) <= MAX_MESSAGE
    return HEADER, end


def test_open_and_keepalive():
    assert body(KEEPALIVE, KEEPALIVE_TYPE) == (HEADER, HEADER)
    for asn in (64496, 4_200_000_000):  # a 2-octet AS, and one that travels as AS_TRANS beside its capability
        msg = open_message(asn, "192.0.2.1", hold=30)
        o = parse_open(msg, *body(msg, OPEN))
        assert (o.my_as, o.as4) == (asn, True)
        assert o.bgpsec == {(d, afi) for d in (0, 1) for afi in (1, 2)}
    o = parse_open(msg := open_message(64496, "192.0.2.1", bgpsec=False), *body(msg, OPEN))
    assert o.bgpsec == frozenset()


@pytest.mark.parametrize("prefix, next_hop", [("198.51.100.0/24", "192.0.2.1"), ("2001:db8:1::/48", "2001:db8::1")])
def test_an_update_and_its_withdrawal(prefix, next_hop):
    net = ipaddress.ip_network(prefix)
    path = [64496, 4_200_000_000] + [64511] * 300  # a second AS_SEQUENCE segment past 255 ASes
    msg = unsigned_update(net, path, next_hop, aggregator=(64511, "192.0.2.9"), communities=(64496 << 16 | 7,))
    u = split_update(msg, *body(msg, UPDATE))
    a = parse_attributes(msg[u.attributes[0]:u.attributes[1]])
    assert [x for _, seg in a.as_path for x in seg] == path and len(a.as_path) == 2
    assert (a.origin, a.communities, a.atomic_aggregate) == (0, (64496 << 16 | 7,), True)
    assert (a.next_hop if net.version == 4 else a.mp_reach[3]) == next_hop  # IPv6's in MP_REACH_NLRI
    assert a.aggregator == (64511, "192.0.2.9")
    if net.version == 4:
        assert parse_prefixes(msg, *u.nlri, 1) == [(prefix, None)]
    else:
        afi, _safi, _nhlen, _nh, start, end = a.mp_reach
        assert parse_prefixes(msg[u.attributes[0]:u.attributes[1]], start, end, afi) == [(prefix, None)]
    msg = withdrawal(net)
    u = split_update(msg, *body(msg, UPDATE))
    if net.version == 4:
        assert parse_prefixes(msg, *u.withdrawn, 1) == [(prefix, None)] and u.attributes[0] == u.attributes[1]
    else:
        a = parse_attributes(msg[u.attributes[0]:u.attributes[1]])
        afi, _safi, start, end = a.mp_unreach
        assert parse_prefixes(msg[u.attributes[0]:u.attributes[1]], start, end, afi) == [(prefix, None)]
