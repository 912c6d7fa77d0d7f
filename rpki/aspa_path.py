"""AS_PATH verification with ASPA (draft-ietf-sidrops-aspa-verification-27; -28 moves the same
steps one subsection down, sections 5.2 to 5.6), for real paths: the three-state answer `valid` /
`invalid` / `unknown` a router would give a route.

The simulator's ASPA defence (bgpsim/defences/aspa.py) folds the same procedure into its propagation
and needs only valid or not; this module answers for a path read from a route dump.

- Section 5.2, authorized(A, B): "No Attestation" when A has no ASPA, "Provider+" when B is among
  A's providers (the union of A's ASPAs), else "Not Provider+". An ASPA listing only AS0 attests
  that A has no providers: every hop from A is "Not Provider+".
- Section 5.1: the AS_PATH, neighbour first and origin last, with repeated ASes compressed, is
  AS(N) ... AS(1). An empty path, or one with an AS_SET, is `invalid` (steps 1 and 3 of 5.4 and 5.5).
- 5.4, upstream (a route from a customer, a lateral peer or a route server): `invalid` if some
  authorized(AS(i), AS(i+1)) is "Not Provider+", else `unknown` if some is "No Attestation", else
  `valid` (the ramp form of 5.3 with N = max_up_ramp says the same).
- 5.5, downstream (a route from a provider), with the ramps of 5.3: max_up_ramp (the longest run of
  hops from the origin up that are not "Not Provider+"), max_down_ramp (the same from the neighbour
  down) and their min_ counterparts (hops that are "Provider+"): `invalid` if max_up + max_down < N,
  else `unknown` if min_up + min_down < N, else `valid`. Paths of one or two ASes are `valid`.
tests/test_aspa_vectors.py holds it to 176 vectors of OpenBGPD, rtrlib and NIST-BRIO.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

VALID, INVALID, UNKNOWN = "valid", "invalid", "unknown"
NO_ATTESTATION, PROVIDER, NOT_PROVIDER = 0, 1, 2


class AspaTable:
    """Customer AS -> the set of its provider ASes, from validated ASPAs (rpki.vrps.Payloads.aspas)
    or, standing in for them, from CAIDA relationships (`from_relationships`)."""

    def __init__(self, providers: Mapping[int, Iterable[int]]):
        self.providers: dict[int, frozenset[int]] = {int(c): frozenset(int(p) for p in ps)
                                                      for c, ps in providers.items()}

    @classmethod
    def from_payloads(cls, aspas) -> AspaTable:
        """From rpki.vrps.ASPA records; one customer's records (from several CAs) are merged."""
        merged: dict[int, set[int]] = {}
        for a in aspas:
            merged.setdefault(a.customer, set()).update(a.providers)
        return cls(merged)

    @classmethod
    def from_relationships(cls, topo) -> AspaTable:
        """Every AS of a bgpsim.topology.Topology as if it published an ASPA of its providers there
        (an AS without providers: AS0, "none"). This stands in for full ASPA deployment; it makes
        paths that break the valley-free rule `invalid` and nothing `unknown` within the graph."""
        asns = topo.asns.tolist()
        return cls({asns[i]: ([asns[p] for p in provs] or [0]) for i, provs in enumerate(topo.providers)})

    def __len__(self) -> int:
        return len(self.providers)

    def hop(self, a: int, b: int) -> int:
        """Section 5.2: NO_ATTESTATION, PROVIDER ("Provider+") or NOT_PROVIDER ("Not Provider+")."""
        provs = self.providers.get(a)
        if provs is None:
            return NO_ATTESTATION
        return PROVIDER if b in provs else NOT_PROVIDER

    def verify(self, path: Sequence, *, from_provider: bool) -> str:
        """The verdict for an AS_PATH as received, neighbour first; an item that is a set, tuple or
        list is an AS_SET."""
        hops = _collapse(path)
        if hops is None:
            return INVALID
        n = len(hops)
        up = hops[::-1]  # AS(1) (the origin) ... AS(N) (the neighbour)
        if not from_provider:
            if n == 1:
                return VALID
            checks = [self.hop(up[i], up[i + 1]) for i in range(n - 1)]
            if NOT_PROVIDER in checks:
                return INVALID
            return UNKNOWN if NO_ATTESTATION in checks else VALID
        if n <= 2:
            return VALID
        ups = [self.hop(up[i], up[i + 1]) for i in range(n - 1)]  # hop(AS(i), AS(i+1))
        downs = [self.hop(up[j], up[j - 1]) for j in range(n - 1, 0, -1)]  # hop(AS(j), AS(j-1)), j = N down
        if _ramp(ups, NOT_PROVIDER) + _ramp(downs, NOT_PROVIDER) < n:
            return INVALID
        if _ramp(ups, NOT_PROVIDER, NO_ATTESTATION) + _ramp(downs, NOT_PROVIDER, NO_ATTESTATION) < n:
            return UNKNOWN
        return VALID


def _ramp(hops: list[int], *stop: int) -> int:
    """The length of a ramp in ASes: 1 + the number of leading hops not in `stop`."""
    k = 0
    while k < len(hops) and hops[k] not in stop:
        k += 1
    return k + 1


def _collapse(path: Sequence) -> list[int] | None:
    """Prepending removed; None for an empty path or one with an AS_SET."""
    out: list[int] = []
    for asn in path:
        if isinstance(asn, (set, frozenset, tuple, list)):
            return None
        if not out or out[-1] != asn:
            out.append(asn)
    return out or None
