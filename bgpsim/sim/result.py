"""What a run produced, whichever engine made it: one typed result that result.json, ases.csv,
timeline.csv, the figures and the report are written from.

The numbers are those of result.json (fractions and times rounded to 6 decimals); `timeline`
keeps the unrounded rows timeline.csv and the figures are drawn from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ..graph.topology import CUSTOMER, PEER, PROVIDER
from .policy import ORIGIN

if TYPE_CHECKING:
    from ..graph.topology import Topology

MAX_DRAWN_ASES = 60  # graphs this small get a topology drawing, and so a snapshot of the peak
REL_NAMES = {ORIGIN: "origin", CUSTOMER: "customer", PEER: "peer", PROVIDER: "provider"}


@dataclass(frozen=True)
class AttackInfo:
    kind: str
    prefixes: list[str]  # what the attacker announced
    start: float
    stop: float | None


@dataclass(frozen=True)
class MitigationInfo:
    start: float
    prefixes: list[str]  # the more-specifics the victim announced
    community: str | None = None  # no-export, no-advertise or blackhole: what they carried


@dataclass(frozen=True)
class DefenceInfo:
    policy: str  # a defence, or several joined by "+"
    adopters: int  # how many ASes deployed it
    settings: str = ""  # the filters' limits in words, when the policy has any


@dataclass(frozen=True)
class CryptoInfo:
    """BGPsec with real signatures: how many were made and checked, and the seconds each took."""

    signatures: int  # made by senders
    verified: int  # checks computed by receivers
    reused: int  # checks answered from an identical earlier one (same octets, key and signature)
    updates_signed: int
    updates_verified: int
    sign_seconds: float
    verify_seconds: float


@dataclass(frozen=True)
class SignedRoute:
    """Under crypto: the route an AS chose, as BGPsec saw it. `state`: valid, not-valid, withdraw,
    unsigned (an adopter's route that came unsigned), "origin" (its own), "" (no route, or it does not
    adopt); `hop`: where the check failed, counted from the origin; `signed`: the Secure_Path's ASes,
    most recent first."""

    asn: int
    adopts: bool
    state: str
    reason: str
    detail: str
    hop: int | None
    signed: tuple[int, ...]

    COLUMNS = ("asn", "adopts", "state", "reason", "failed_hop", "signed_path", "detail")

    def row(self) -> tuple:
        return (self.asn, int(self.adopts), self.state, self.reason, "" if self.hop is None else self.hop,
                " ".join(map(str, self.signed)), self.detail)


@dataclass(frozen=True)
class RoaChangeInfo:
    """A ROA published or revoked during the run, and when the adopters' routers had it."""

    at: float
    change: str  # in words
    first: float | None  # when the first adopter's routers had it (None: no adopter)
    last: float | None  # ... every adopter's: the end of the window in which it does not yet act everywhere
    routers: dict[int, float]  # adopter ASN -> when its routers had it


@dataclass(frozen=True)
class RouterSchedule:
    """When one adopter's relying party runs and its routers poll their RTR cache (seconds)."""

    fetch_every: float
    first_fetch: float
    notify: bool  # its routers hear Serial Notify: they have what the relying party found at once
    poll_every: float
    first_poll: float


@dataclass(frozen=True)
class RpkiInfo:
    """RPKI's delays (bgpsim.sim.rpki_delays): the model's intervals, each adopter's schedule and
    each ROA change."""

    fetch_interval: str  # of each adopter's relying party
    refresh_interval: str  # of its routers' RTR polls, without Serial Notify
    notify: float  # share of adopters whose routers hear Serial Notify
    schedules: dict[int, RouterSchedule]  # adopter ASN -> its schedule
    changes: list[RoaChangeInfo]


@dataclass(frozen=True)
class TimingInfo:
    mrai: float
    mrai_jitter: list[float]
    mrai_withdrawals: bool
    link_delay: str
    processing_delay: str
    warm_start: bool


@dataclass(frozen=True)
class ScenarioInfo:
    name: str
    description: str
    source: str
    attack: AttackInfo | None
    mitigation: MitigationInfo | None
    defence: DefenceInfo | None
    timing: TimingInfo | None  # None on the converged-state engine, which has no time
    victim_prefixes: list[str]
    target: str  # the address whose traffic is followed
    attributes: list[str] = field(default_factory=list)  # what operators set: sessions, aggregates (timed engine)


@dataclass(frozen=True)
class TopologyInfo:
    name: str
    source: str
    ases: int
    links: int


@dataclass(frozen=True)
class Shares:
    """Where the traffic of the source ASes (attacker and victim aside) ends, as fractions."""

    attacker: float
    victim: float
    disconnected: float
    loop: float


@dataclass(frozen=True)
class Traffic:
    weighting: str  # how each source AS's traffic is weighed
    diverted: float  # share of that traffic reaching the attacker


@dataclass(frozen=True)
class Peak:
    attacker: float  # the largest share of source ASes reaching the attacker
    at: float  # when (simulated seconds)
    diverted: float


@dataclass(frozen=True)
class Mark:
    time: float
    label: str  # "attack starts", "victim announces more-specifics", ...


@dataclass(frozen=True)
class Interception:
    route_to_victim: str | None  # the attacker's AS path toward the victim, or None
    delivered: bool  # does intercepted traffic still reach the victim?


@dataclass(frozen=True)
class AsRow:
    """One row of ases.csv: where the AS's traffic ends and its final best route for the target."""

    asn: int
    name: str
    role: str
    outcome: str
    attacker_at: float | str  # when its traffic first reached the attacker ("" if never)
    switched_at: float | str  # when its outcome last changed ("" if never)
    prefix: str
    path: str
    relationship: str  # of the neighbour the route came from: customer, peer, provider, origin, none

    COLUMNS = ("asn", "name", "role", "outcome", "attacker_at", "switched_at", "prefix", "path", "relationship")

    def row(self) -> tuple:
        return (self.asn, self.name, self.role, self.outcome, self.attacker_at, self.switched_at, self.prefix,
                self.path, self.relationship)


@dataclass
class RunResult:
    """One run of a scenario, on the timed engine ("timed") or the converged-state one ("steady")."""

    engine: str
    scenario: ScenarioInfo
    seed: int
    topology: TopologyInfo
    attacker: int | None
    victim: int
    events: int
    messages: int
    converged: bool  # false when the run stopped at timing.until with events still queued
    converged_at: float  # simulated seconds of the last Loc-RIB change
    outcome: Shares
    traffic: Traffic
    peak: Peak
    marks: list[Mark]
    timeline: list[tuple]  # (time, attacker, victim, disconnected, loop, diverted), one row per change
    ases: list[AsRow]
    topo: Topology = field(repr=False)
    interception: Interception | None = None
    peak_outcomes: dict[int, str] | None = None  # ASN -> outcome at the peak (graphs small enough to draw)
    crypto: CryptoInfo | None = None  # BGPsec with real signatures (scenario defence crypto = true)
    wiretap: object = field(default=None, repr=False)  # bgpsim.sim.wiretap.Wiretap: the recorded sessions
    router_keys: list | None = field(default=None, repr=False)  # under crypto: the adopters' RouterKeys
    signed_routes: list[SignedRoute] | None = None  # under crypto: one per AS, in ASN order (as `ases`)
    journal: object = field(default=None, repr=False)  # bgpsim.sim.journal.Journal (the timed engine)
    prefixes: list[str] = field(default_factory=list)  # the prefixes of the run, by the journal's index
    adopters: list[int] = field(default_factory=list)  # ASNs deploying the defence
    baseline: float | None = None  # with a defence: the attacker's share without it, converged
    rpki: RpkiInfo | None = None  # ROAs published or revoked during the run, and RPKI's delays

    @cached_property
    def rounded_timeline(self) -> list[list[float]]:
        """The timeline's rows rounded to 6 decimals, as result.json, timeline.csv and the report give
        them: rounded once for the three (on an incident's 80,000 rows, a tenth of a second each time)."""
        return [[round(x, 6) for x in row] for row in self.timeline]

    @property
    def outcomes(self) -> dict[int, str]:
        """ASN -> final outcome."""
        return {a.asn: a.outcome for a in self.ases}

    def to_json(self) -> dict:
        """result.json: the keys in their order (the timed engine's has no "engine" key and the
        steady one no "timing": the files bgpsim has always written)."""
        sc = self.scenario
        scenario = {"name": sc.name, "description": sc.description, "source": sc.source,
                    "attack": _plain(sc.attack), "mitigation": _plain(sc.mitigation), "defence": _plain(sc.defence)}
        if sc.timing is not None:
            scenario["timing"] = _plain(sc.timing)
        scenario |= {"victim_prefixes": sc.victim_prefixes, "target": sc.target}
        if sc.attributes:
            scenario["attributes"] = sc.attributes
        doc = {"engine": "steady"} if self.engine == "steady" else {}
        doc |= {
            "scenario": scenario, "seed": self.seed, "topology": _plain(self.topology),
            "attacker": self.attacker, "victim": self.victim, "events": self.events, "messages": self.messages,
            "converged": self.converged, "converged_at": self.converged_at, "outcome": _plain(self.outcome),
            "traffic": _plain(self.traffic), "peak": _plain(self.peak), "marks": [_plain(m) for m in self.marks],
            "timeline": [r[:3] for r in self.rounded_timeline],
        }
        if self.interception is not None:
            doc["interception"] = _plain(self.interception)
        if self.crypto is not None:
            doc["crypto"] = _plain(self.crypto)
        if self.rpki is not None:
            doc["rpki"] = _plain(self.rpki) | {"schedules": {k: _plain(x) for k, x in self.rpki.schedules.items()},
                                               "changes": [_plain(c) for c in self.rpki.changes]}
        return doc


def _plain(x) -> dict | None:
    return None if x is None else dict(x.__dict__)
