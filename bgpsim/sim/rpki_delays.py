"""RPKI's delays: a ROA published (or revoked) during a run reaches each adopter's routers only after
its relying party has fetched and validated the repositories, and its RTR cache has told the routers.

The model, per adopting AS (drawn once per run from its own random stream, so the same seed gives the
same times):
* its relying party runs every `fetch_interval` seconds (one draw per AS), the first run at a time
  drawn uniformly within the first interval; a run sees every change published at or before it;
* with Serial Notify (RFC 8210 section 5.2; a share `notify` of the adopters) the cache tells the
  routers at once and they fetch the delta (a Serial Query, section 5.3) within the same second:
  counted as no delay; without it, the routers ask only at their next poll, every
  `refresh_interval` seconds (End of Data's Refresh Interval, section 6; 3,600 by default), again
  from a phase drawn within the first interval;
* when its routers have new VRPs, the AS re-evaluates what its neighbours sent it, the routes ROV
  dropped included, and chooses again (RFC 9324, which updates RFC 8481: no route refresh needed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from bgpsim.base.errors import InputError
from bgpsim.rpki.rov import VRP, VRPTable

from .defences import DEFENCES, checks_roas, defence
from .engine.timing import Delay
from .result import Mark, RoaChangeInfo, RouterSchedule, RpkiInfo

CHANGES = ("roa-publish", "roa-revoke")  # the event types of a scenario that change the ROAs


@dataclass(frozen=True)
class RpkiTiming:
    """A scenario's [rpki] table: the relying parties' interval, the routers' RTR polling interval,
    and the share of adopters whose routers hear Serial Notify."""

    fetch_interval: Delay = field(default_factory=lambda: Delay("uniform", 600.0, 3600.0))
    refresh_interval: Delay = field(default_factory=lambda: Delay("constant", 3600.0))
    notify: float = 1.0


@dataclass(frozen=True)
class RoaChange:
    """A ROA published or revoked at time `at` (a scenario's roa-publish or roa-revoke event)."""

    at: float
    type: str  # one of CHANGES
    vrp: VRP

    def __str__(self) -> str:
        v = self.vrp
        roa = f"AS{v.asn}'s ROA for {v.prefix}" if v.asn else f"the AS0 ROA for {v.prefix}"
        roa += f" up to /{v.max_length}" if v.max_length > v.prefix.prefixlen else ""
        return f"{roa} is {'published' if self.type == 'roa-publish' else 'revoked'}"


def versions(roas: list[VRP], changes: list[RoaChange]) -> list[list[VRP]]:
    """The ROA sets of a run: before any change (version 0), then after each change in time order."""
    out, now = [list(roas)], list(roas)
    for c in changes:
        now = now + [c.vrp] if c.type == "roa-publish" else [v for v in now if v != c.vrp]
        out.append(now)
    return out


class RpkiDelays:
    """For each adopter (AS index), when its routers have each ROA set of `versions` (see the module's
    docstring); `arrivals[i]` lists (time, version) in time order, the newest version per time."""

    def __init__(self, timing: RpkiTiming, changes: list[RoaChange], adopters: list[int], seed: int):
        self.timing, self.changes = timing, changes
        rng = np.random.default_rng([seed, 0x72706B69])  # "rpki": its own stream, apart from links and MRAI
        n = len(adopters)
        fetch = timing.fetch_interval.sample_array(rng, n)
        fetch_phase = rng.uniform(0.0, 1.0, n) * fetch
        refresh = timing.refresh_interval.sample_array(rng, n)
        refresh_phase = rng.uniform(0.0, 1.0, n) * refresh
        notified = rng.uniform(0.0, 1.0, n) < timing.notify
        self.arrivals: dict[int, list[tuple[float, int]]] = {}
        self.schedules: dict[int, RouterSchedule] = {}
        for k, i in enumerate(adopters):
            self.schedules[i] = RouterSchedule(*(round(float(x[k]), 6) for x in (fetch, fetch_phase)), bool(notified[k]),
                                               *(round(float(x[k]), 6) for x in (refresh, refresh_phase)))
            times = {}
            for version, c in enumerate(changes, start=1):
                seen = _next(c.at, fetch_phase[k], fetch[k])  # the relying party's first run after it
                at = seen if notified[k] else _next(seen, refresh_phase[k], refresh[k])
                times[at] = version  # a later change the same run sees wins
            self.arrivals[i] = sorted(times.items())

    def info(self, asns) -> RpkiInfo:
        """What result.json says of the delays: the model, each adopter's schedule (by ASN), and per
        change when each adopter's routers had it (that change or a later one)."""
        t = self.timing
        changes = []
        for version, c in enumerate(self.changes, start=1):
            reached = {int(asns[i]): round(next(at for at, k in got if k >= version), 6)
                       for i, got in sorted(self.arrivals.items())}
            times = list(reached.values())
            changes.append(RoaChangeInfo(c.at, str(c), min(times, default=None), max(times, default=None), reached))
        return RpkiInfo(str(t.fetch_interval), str(t.refresh_interval), t.notify,
                        {int(asns[i]): x for i, x in sorted(self.schedules.items())}, changes)


def marks(info: RpkiInfo) -> list[Mark]:
    """Each change, and the window it opens: until the first, then every, adopter's routers have it."""
    out = []
    for c in info.changes:
        out.append(Mark(c.at, c.change))
        if c.first is not None:
            what = "the ROA" if c.change.endswith("published") else "the ROA's revocation"
            out += [Mark(c.first, f"the first adopter's routers have {what}"),
                    Mark(c.last, f"every adopter's routers have {what}")]
    return out


def schedule(plan, engine, q, pol) -> RpkiDelays | None:
    """The run's ROA changes on the timed engine's queue: each adopter judges its routes again with
    each new ROA set when its routers have it. None when the scenario changes no ROA. Before the warm
    start: the adopters keep what their neighbours send from there on."""
    scn = plan.scn
    if not scn.roa_changes:
        return None
    if pol is None or not checks_roas(scn.defence.policy):
        raise InputError("the ROAs published or revoked during the run (roa-publish, roa-revoke) change what ROV "
                         "checks: give a [defence] whose policy checks ROAs ("
                         + ", ".join(name for name in DEFENCES if checks_roas(name)) + ")")
    views = [pol] + [defence(scn.defence.policy, plan.topo, plan.adopters, VRPTable(roas), **scn.defence.settings)
                     for roas in versions(plan.roas, scn.roa_changes)[1:]]
    engine.watch_rpki(plan.adopters, views)
    delays = RpkiDelays(scn.rpki, scn.roa_changes, plan.adopters, scn.seed)
    for i, got in delays.arrivals.items():
        for at, version in got:
            q.at(at, engine.revalidate, i, views[version])
    return delays


def _next(t: float, phase: float, interval: float) -> float:
    """The first time at or after t of the series phase + k * interval (k = 0, 1, ...)."""
    if interval <= 0 or t <= phase:
        return max(t, phase)
    return max(t, phase + math.ceil((t - phase) / interval) * interval)


__all__ = ["CHANGES", "marks", "schedule", "RoaChange", "RpkiDelays", "RpkiTiming", "versions"]
