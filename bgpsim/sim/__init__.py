"""The simulator: scenario -> attack plan -> engine (timed or converged-state) -> result -> outputs."""
