"""A lab with real routers: a router plays one AS of a scenario, bgpsim its neighbours (`bgpsim lab`).

Here: what every router's configuration shares (the model's policies by relationship, the collector's
address) and its process; one module per router (bird, frr, gobgp) writes its configuration."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

LOCAL_PREF = {"customer": 200, "peer": 100, "provider": 50}  # the model prefers customers, then peers
REL_CODE = {"customer": 1, "peer": 2, "provider": 3}  # the large community (ASN, 0, code) a route is tagged with
COLLECTOR = "127.0.0.254"  # the iBGP session that gets the router's best routes


@dataclass(frozen=True)
class Deployed:
    """What the AS under test deploys, as its router's configuration has it: ROV with the VRPs of the RTR
    cache at `rtr_port`; maxlen's longest prefixes accepted (IPv4, IPv6); max-prefix's limit on the
    sessions of the neighbour addresses that have one (RFC 7454 section 8; a session over it is closed
    with a Cease, Maximum Number of Prefixes Reached, RFC 4486)."""

    rtr_port: int | None = None
    longest: tuple[int, int] | None = None
    limits: dict = field(default_factory=dict)  # neighbour address -> prefixes


def neighbour_address(k: int) -> str:
    """The k-th neighbour's loopback address (and BGP Identifier): 127.0.0.2 up, then 127.0.1.2 up, in
    the neighbours' order; never the collector's."""
    return f"127.0.{k // 250}.{2 + k % 250}"


class RouterProcess:
    """A router daemon started from `argv`, its output in `log`; `stop` ends it."""

    roa_settle = 1.0  # seconds it may take to judge its routes again after its VRPs change

    def _start(self, argv: list[str], log: Path) -> None:
        self.log = open(log, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()
