"""The timed engine's warm start: a converged Loc-RIB installed in every speaker as if every UPDATE
that led to it had been sent, so a run starts from routing at rest."""

from __future__ import annotations

from .timed import TimedEngine


def warm_start(engine: TimedEngine, p: int, loc: list) -> None:
    """Warm start: take a converged Loc-RIB for prefix p (one entry per AS, from the
    converged-state solver) and fill the Adj-RIBs-In and -Out as if every update had been sent (in
    the compiled speakers, `_warm`: each AS's exports judged by its neighbours as the UPDATEs would
    be; under crypto, nearer the origin first, as an AS signs what it received)."""
    disagrees = engine._warm(p, list(loc))
    if disagrees is not None:  # the solver's entries must be the very objects in the Adj-RIBs-In
        raise AssertionError(f"warm start disagrees with the Adj-RIB-In at AS{engine.topo.asns[disagrees]}")


__all__ = ["warm_start"]
