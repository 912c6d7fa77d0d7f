"""Figures (matplotlib) and the self-contained HTML report."""

from bgpsim.base.outdir import write_atomic

__all__ = ["write_atomic"]
