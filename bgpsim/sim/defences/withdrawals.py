"""Withdrawals: BGP's own (RFC 4271 sections 3.1 and 9.1.3: a route that is no longer available is
withdrawn, and the neighbour chooses again from what else it has), ASes that fail to send them, and
Route Status Transparency, which finds the withdrawals they swallowed ("Suppressing BGP Zombies with
Route Status Transparency", Anahory et al., NSDI 2025), as BGPy 13.0 models them.

Both engines keep full Adj-RIBs-In, so BGPy's BGPFull is what every AS here does already:
`bgp-full` and `bgp-full-ignore-invalid` (which only turns BGPy's own consistency checks off) are
the standard model. The converged-state engine computes routing at rest, where no withdrawal is
in flight, so the two below differ from it only on the timed engine:

* `bgp-full-suppress-withdrawals` (BGPFullSuppressWithdrawals): the adopter sends no withdrawal.
  It still takes the withdrawals it hears and still announces a new best route (which replaces the
  old one at the neighbour); a neighbour it would withdraw from keeps the route: a zombie.
* `rost` (RoSTFull): adopters share a trusted repository of withdrawals (`bgpsim.sim.engine.rost`).
  Each records the withdrawals it sends and hears, and drops a route a withdrawal recorded there
  covers: the route, or any part of it that ends at the origin, was withdrawn by the AS at its head.
  No ROV, as BGPy's.
"""

from __future__ import annotations

from ..policy import Policy


class BGPFull(Policy):
    """The standard model with withdrawals (RFC 4271 section 9.1.3). BGPy: `BGPFull`."""

    name = "bgp-full"


class BGPFullIgnoreInvalid(BGPFull):
    """The same: BGPy's class differs only in not asserting its RIBs' consistency. BGPy:
    `BGPFullIgnoreInvalid`."""

    name = "bgp-full-ignore-invalid"


class BGPFullSuppressWithdrawals(BGPFull):
    """Sends no withdrawal (zombie routes, RFC 4271 section 9.1.3 unmet). BGPy:
    `BGPFullSuppressWithdrawals`."""

    name = "bgp-full-suppress-withdrawals"
    suppresses_withdrawals = True


class RoST(BGPFull):
    """Route Status Transparency (NSDI 2025): withdrawals recorded in a shared repository; a route
    one of them covers is dropped. BGPy: `RoSTFull`."""

    name = "rost"
    rost = True


__all__ = ["BGPFull", "BGPFullIgnoreInvalid", "BGPFullSuppressWithdrawals", "RoST"]
