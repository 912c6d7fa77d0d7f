"""A lab with real routers: a router plays one AS of a scenario, bgpsim its neighbours (`bgpsim lab`).

Here: what every router's configuration shares (the model's policies by relationship, the collector's
address) and its process; one module per router (bird, frr, gobgp) writes its configuration."""

from __future__ import annotations

import subprocess
from pathlib import Path

LOCAL_PREF = {"customer": 200, "peer": 100, "provider": 50}  # the model prefers customers, then peers
REL_CODE = {"customer": 1, "peer": 2, "provider": 3}  # the large community (ASN, 0, code) a route is tagged with
COLLECTOR = "127.0.0.254"  # the iBGP session that gets the router's best routes


class RouterProcess:
    """A router daemon started from `argv`, its output in `log`; `stop` ends it."""

    def _start(self, argv: list[str], log: Path) -> None:
        self.log = open(log, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.log.close()
