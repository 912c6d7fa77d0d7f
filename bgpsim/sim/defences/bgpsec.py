"""BGPsec in partial deployment (RFC 8205), at the level of the AS graph.

A path is *secure* for a receiver when every AS on it signed it — each adopter signs toward the next
AS (RFC 8205 section 4.2), so a hop that is no real session (a forged part) breaks the chain — and
the receiver validates (section 5). A non-adopter forwards a plain BGP UPDATE: the signatures are
stripped and everyone after it sees an unsigned path. Adopters prefer a secure path right after the
path length (before the next-hop tie-break), as BGPy's `BGPSec` does — "security third" in the
terms of Lychev, Goldberg and Schapira, "BGP Security in Partial Deployment" (SIGCOMM 2013).

BGPsec protects the path, not the origin (RFC 8205 section 1 leaves that to origin validation), and
an attacker's own origination is a one-hop path it may even sign: `bgpsec-alone` is the ranking
alone. `bgpsec` is BGPy's `BGPSec`: adopters also drop ROV-invalid routes (tables call it `rov+bgpsec`).
"""

from __future__ import annotations

import numpy as np

from ..policy import NOT_LINKED, Candidate, PathBit, Policy


class BGPsecAlone(Policy):
    """Prefer BGPsec-secure paths (RFC 8205); drop nothing."""

    name = "bgpsec-alone"
    prefer_after_length = True
    honest_inert = False  # it ranks unsigned honest routes down

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "secure": self.adopter[origin]}

    def originate(self, prefix, at: int, path: tuple[int, ...]) -> dict:
        # Only an origin signs its own announcement; nobody can sign for a path it made up.
        return {**super().originate(prefix, at, path), "secure": self.adopter[at] & (path == (at,))}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "secure": c.a["secure"] & self.adopter[c.T] & (c.rel != NOT_LINKED)}

    def prefer(self, c: Candidate):
        return 1 - c.a["secure"].astype("int64")

    def path_bit(self, prefix) -> PathBit:
        # an honest route's hops are links: secure while every AS on it adopts
        return PathBit("secure", self.adopter, np.zeros_like(self.adopter), {}, demote=self.adopter)

    def check_secure(self, prefix, s: int, r: int, rel: int, path: tuple[int, ...], secure: bool) -> int | None:
        """`check`, with `secure` from a real verification (bgpsim.sim.crypto) instead of the fold."""
        a = dict(self.attributes(prefix, path))
        a["secure"] = np.bool_(secure)
        c = Candidate(np.int64(s), np.int64(r), np.int64(rel), np.int64(len(path)), a)
        if not self.accept(c):
            return None
        return int(self.prefer(c))


class BGPsec(BGPsecAlone):
    """Prefer BGPsec-secure paths (RFC 8205), plus ROV. BGPy: `BGPSec`."""

    name = "bgpsec"
    includes_rov = True

    def accept(self, c: Candidate):
        return c.a["invalid"] == 0
