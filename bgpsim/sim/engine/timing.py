"""The timed model's knobs: MRAI, its jitter, and the delay distributions of links and routers
(RFC 4271 section 9.2.1.1 for MRAI; the defaults are documented in the README)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bgpsim.base.errors import InputError


@dataclass(frozen=True)
class Delay:
    """A delay distribution in seconds: uniform(low, high), constant(value) or exponential(mean)."""

    kind: str = "uniform"
    a: float = 0.0
    b: float = 0.0

    KINDS = ("uniform", "constant", "exponential")

    def __post_init__(self):
        if self.kind not in self.KINDS:
            raise InputError(f"unknown delay distribution {self.kind!r} (valid: {', '.join(self.KINDS)})")
        if self.a < 0 or self.b < 0 or (self.kind == "uniform" and self.b < self.a):
            raise InputError(f"bad delay parameters for {self.kind}: {self.a}, {self.b}")

    def __str__(self) -> str:
        scale, unit = (1, "s") if max(self.a, self.b) >= 1 else (1000, "ms")  # links in ms, RPKI in seconds
        if self.kind == "uniform":
            return f"uniform {self.a * scale:g}-{self.b * scale:g} {unit}"
        if self.kind == "constant":
            return f"constant {self.a * scale:g} {unit}"
        return f"exponential, mean {self.a * scale:g} {unit}"

    def sample_array(self, rng: np.random.Generator, size: int) -> np.ndarray:
        if self.kind == "uniform":
            return rng.uniform(self.a, self.b, size)
        if self.kind == "constant":
            return np.full(size, self.a)
        return rng.exponential(self.a, size)


@dataclass(frozen=True)
class Timing:
    """The timed model's knobs; the defaults are documented in the README."""

    mrai: float = 30.0
    jitter: tuple[float, float] = (0.75, 1.0)
    mrai_withdrawals: bool = False
    link_delay: Delay = field(default_factory=lambda: Delay("uniform", 0.010, 0.050))
    processing_delay: Delay = field(default_factory=lambda: Delay("uniform", 0.001, 0.010))


__all__ = ["Delay", "Timing"]
