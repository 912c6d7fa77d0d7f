"""Enforce-first-AS: the first AS of a path must be the neighbour that sent it (RFC 4271 section
6.3 allows the check; vendors call it enforce-first-as). The attribute `first` is the path's first AS:
the announcing AS for an honest announcement, someone else when an attacker strips its own ASN.
BGPy's `EnforceFirstAS` does not apply ROV, and neither does this.
"""

from __future__ import annotations

from ..policy import Candidate, Policy


class EnforceFirstAS(Policy):
    """Drop routes whose first AS is not the sending neighbour. BGPy: `EnforceFirstAS`."""

    name = "enforce-first-as"

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "first": origin}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "first": c.T}

    def accept(self, c: Candidate):
        return c.a["first"] == c.S
