"""BGP-iSec ("BGP-iSec: Improved Security of Internet Routing Against Post-ROV Attacks", NDSS 2024),
as BGPy 13.0 models it. Its transitive signatures: every adopter that takes a route signs it, and a
non-adopter passes the signatures on unchanged (unlike BGPsec, RFC 8205, where one non-adopter ends
the chain). An adopter drops a route on which an adopting AS did not sign; it ranks routes as plain
BGP does. All four include ROV, as BGPy's do:

* `bgp-isec-transitive` (BGPiSecTransitive): the signatures alone;
* `bgp-isec-otc` (BGPiSecTransitiveOnlyToCustomers): with the Only-to-Customer mark (RFC 9234);
* `bgp-isec-pcid` (BGPiSecTransitiveProConID): with provider-cone identification;
* `bgp-isec` (BGPiSec): all three, the paper's full design.

The attribute `unsigned` says whether an adopter on the path did not sign: an honest route never has
one (each adopter signs as it takes it), so only an announcement that names adopters it made up does
(a forged origin names the victim, who signed nothing for the attacker). Which ASes signed, not in
what order or toward whom, is what BGPy checks, and so this.
"""

from __future__ import annotations

from ..policy import Candidate, Policy
from .otc import OnlyToCustomers
from .provider_cone import ProviderConeID


class BGPiSecTransitive(Policy):
    """Transitive signatures and ROV. BGPy: `BGPiSecTransitive`."""

    name = "bgp-isec-transitive"
    checks_roas = True
    includes_rov = True

    def start(self, prefix, origin: int) -> dict:
        return {**super().start(prefix, origin), "unsigned": False}

    def originate(self, prefix, at: int, path: tuple[int, ...]) -> dict:
        # the announcer signs for itself; the ASes it names after itself signed nothing for it
        return {**super().originate(prefix, at, path), "unsigned": bool(self.adopter[list(path[1:])].any())}

    def extend(self, c: Candidate) -> dict:
        return {**super().extend(c), "unsigned": c.a["unsigned"]}

    def accept(self, c: Candidate):
        return (c.a["invalid"] == 0) & ~c.a["unsigned"] & super().accept(c)


class BGPiSecOTC(BGPiSecTransitive, OnlyToCustomers):
    """Transitive signatures, OTC and ROV. BGPy: `BGPiSecTransitiveOnlyToCustomers`."""

    name = "bgp-isec-otc"


class BGPiSecPCID(BGPiSecTransitive, ProviderConeID):
    """Transitive signatures, provider-cone identification and ROV. BGPy: `BGPiSecTransitiveProConID`."""

    name = "bgp-isec-pcid"


class BGPiSec(BGPiSecTransitive, OnlyToCustomers, ProviderConeID):
    """Transitive signatures, OTC, provider-cone identification and ROV. BGPy: `BGPiSec`."""

    name = "bgp-isec"


__all__ = ["BGPiSec", "BGPiSecOTC", "BGPiSecPCID", "BGPiSecTransitive"]
