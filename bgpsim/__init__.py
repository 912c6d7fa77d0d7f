"""bgpsim: BGP routing security, simulated and validated."""

__version__ = "0.1.0"
