"""ASPA AS_PATH verification (rpki.aspa_path) on hand-made paths whose verdicts are worked out in the
comments from draft-ietf-sidrops-aspa-verification sections 5 and 6, and with ASPAs standing in from
relationships: valley-free paths of the teaching topology are valid, leaks invalid."""

from __future__ import annotations

import pytest
from helpers import ROOT

from bgpsim.graph.topology import load_topology
from bgpsim.rpki.aspa_path import INVALID, NO_ATTESTATION, NOT_PROVIDER, PROVIDER, UNKNOWN, VALID, AspaTable
from bgpsim.rpki.vrps import ASPA

# 10 -> 20 -> 30 -> 40 upwards: each AS's provider is the next; 50 publishes "no providers" (AS0)
CHAIN = AspaTable({10: [20], 20: [30, 31], 30: [40], 40: [0], 50: [0]})


def test_hop():
    assert CHAIN.hop(10, 20) == PROVIDER
    assert CHAIN.hop(20, 10) == NOT_PROVIDER
    assert CHAIN.hop(99, 10) == NO_ATTESTATION
    assert CHAIN.hop(50, 0) == PROVIDER and CHAIN.hop(50, 40) == NOT_PROVIDER  # AS0: no provider is real


@pytest.mark.parametrize("path,verdict", [
    ([40, 30, 20, 10], VALID),  # all the way up: every hop Provider+
    ([40, 40, 30, 20, 20, 10], VALID),  # prepending changes nothing
    ([10], VALID),  # the neighbour is the origin
    ([30, 20, 99], UNKNOWN),  # 99 published nothing: hop(99, 20) is No Attestation
    ([20, 30, 40], INVALID),  # 40 -> 30 -> 20 goes down: hop(40, 30) is Not Provider+
    ([40, 30, 50], INVALID),  # 50 says it has no providers
    ([40, {30, 31}, 20], INVALID),  # an AS_SET
    ([], INVALID),
])
def test_upstream(path, verdict):
    assert CHAIN.verify(path, from_provider=False) == verdict


@pytest.mark.parametrize("path,verdict", [
    ([20, 30, 40], VALID),  # from our provider 20: origin 40 came down 40 -> 30 -> 20 (each the next's provider)
    ([30, 20, 10], VALID),  # origin 10 went up 10 -> 20 -> 30: an up-ramp alone
    ([20, 10], VALID),  # two ASes are always valid downstream
    # up 10 -> 20 -> 31 (both Provider+), then 31 -> 30: 31 has no ASPA, so 30 may be its provider or
    # peer (the apex); hop(30, 31) is Not Provider+, the down-ramp is 30 alone: 3 + 1 = N, valid
    ([30, 31, 20, 10], VALID),
    # origin 10 up to 20, then 20 -> 99: 99 is not among 20's providers (max_up_ramp 2), and 30 does
    # not name 99 either (max_down_ramp 1): 2 + 1 < 4, invalid
    ([30, 99, 20, 10], INVALID),
])
def test_downstream(path, verdict):
    assert CHAIN.verify(path, from_provider=True) == verdict


def test_downstream_unknown_and_valley():
    # only 10 published: max_up_ramp covers the whole path (nothing is Not Provider+), but the
    # attested up-ramp is 10 -> 20 (min_up_ramp 2) and the down-ramp 40 (min_down_ramp 1): unknown
    t = AspaTable({10: [20]})
    assert t.verify([40, 30, 20, 10], from_provider=True) == UNKNOWN
    # a valley: origin 1 up to 2, down to 3, up to 4, received from 4, our provider. hop(1,2) is
    # Provider+, hop(2,3) Not Provider+ (max_up_ramp 2); hop(4,3) Not Provider+ (max_down_ramp 1):
    # 2 + 1 < 4, invalid -- 3 leaked its provider's route to another provider
    t = AspaTable({1: [2], 2: [9], 3: [2, 4], 4: [8]})
    assert t.verify([4, 3, 2, 1], from_provider=True) == INVALID
    assert t.verify([4, 3, 2, 1], from_provider=False) == INVALID
    # a peering at the apex is fine downstream: 1 up to 2, 2 peers with 3, 3 down to us
    t = AspaTable({1: [2], 2: [9], 3: [8]})
    assert t.verify([3, 2, 1], from_provider=True) == VALID


def test_from_payloads_merges_a_customer():
    t = AspaTable.from_payloads([ASPA(10, (20,), "a"), ASPA(10, (21,), "b")])
    assert t.providers[10] == {20, 21} and len(t) == 1


def test_from_relationships_matches_valley_free():
    topo = load_topology(ROOT / "scenarios" / "topologies" / "teaching.toml")
    t = AspaTable.from_relationships(topo)
    asns = topo.asns.tolist()
    assert len(t) == topo.n
    leaks = 0
    for i, provs in enumerate(topo.providers):
        if not provs:
            assert t.providers[asns[i]] == {0}
            continue
        assert t.verify([asns[provs[0]], asns[i]], from_provider=False) == VALID  # one hop up
        for c in topo.customers[i]:  # a customer's route, sent up: valley-free
            assert t.verify([asns[provs[0]], asns[i], asns[c]], from_provider=False) == VALID
        if len(provs) > 1:  # one provider's route sent to another provider: a leak by i
            assert t.verify([asns[provs[1]], asns[i], asns[provs[0]]], from_provider=False) == INVALID
            leaks += 1
    assert leaks > 0
