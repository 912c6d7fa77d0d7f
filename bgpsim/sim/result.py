"""What a run produced, whichever engine made it: what result.json, ases.csv, the figures and the
report are written from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .policy import ORIGIN
from ..graph.topology import CUSTOMER, PEER, PROVIDER

if TYPE_CHECKING:
    from ..graph.topology import Topology
    from .scenario import Scenario

MAX_DRAWN_ASES = 60  # graphs this small get a topology drawing, and so a snapshot of the peak
REL_NAMES = {ORIGIN: "origin", CUSTOMER: "customer", PEER: "peer", PROVIDER: "provider"}


@dataclass
class Run:
    """Everything a run produced: `result` is result.json; `ases` the rows of ases.csv."""

    scenario: Scenario
    topo: Topology
    result: dict
    ases: list[dict]
    timeline: list[tuple]  # (time, attacker, victim, disconnected, loop, diverted)
    outcomes: dict[int, str]  # ASN -> final outcome
    peak_outcomes: dict[int, str] | None = None  # ASN -> outcome at the peak (graphs small enough to draw)
