"""Timed BGP: one speaker per AS, one session per link, on the event core.

Per prefix, each AS keeps an Adj-RIB-In per neighbour, a Loc-RIB (its best route) and an Adj-RIB-Out
(what it last sent to each neighbour). A route entry is `(key, rel, path)`: the preference key
(smaller is better, see `bgpsim.policy`), the relationship it was learned over, and the AS path with
the neighbour first. Keys are unique per AS (the next hop ends the key), so entries never tie.

Timing (RFC 4271 section 9.2.1.1 for MRAI):
* a message sent at t over a link with propagation delay d is handled by the receiver at
  max(t + d, when the receiver is next idle) + a processing delay: each router serves its messages one
  at a time, in the order they were sent, which also keeps every session FIFO;
* announcements to a neighbour are rate-limited by a per-session MRAI timer (default 30 s, each start
  jittered by a factor drawn from 0.75-1.0); changes made while it runs are sent, if still different
  from what the neighbour last heard, when it expires; withdrawals go at once and leave the timer
  alone, unless `mrai_withdrawals` is set, when they are held and restart it like announcements;
* a sender does not advertise a route back to the neighbour it learned it from (the receiver would
  drop it as a loop anyway); any other loop is dropped on import.

What operators set per session (opt-in; the standard model is the default): the LOCAL_PREF of the
routes learned from a neighbour, which replaces the relationship's rank (RFC 4271 section 9.1.1), and
AS path prepending toward a neighbour. A prepended path is longer in the decision process (section
9.1.2.2 a), but the defences see its AS hops, each once. Communities (RFC 1997, RFC 7999) are set by
the origin: its neighbours keep a NO_EXPORT, NO_ADVERTISE or BLACKHOLE route to themselves (an AS is
one node here, so NO_EXPORT and NO_ADVERTISE do the same), and the receiver of a BLACKHOLE route drops
the traffic to it (bgpsim.sim.dataplane). An aggregate (section 9.2.2.2) is announced by the aggregating AS as its
own, with ATOMIC_AGGREGATE and AGGREGATOR and no AS_SET (RFC 9774); with `summary_only` the AS stops
advertising the more-specifics it covers.
"""

from __future__ import annotations

import random

import numpy as np

from bgpsim._core import Speakers
from bgpsim.base.errors import InputError
from ..policy import ORIGIN, ORIGIN_KEY, Leaker, Policy
from . import blackholes
from .events import EventQueue
from .rost import Repository
from .timing import Timing

FLAGS = Speakers.FLAGS  # per-AS switches of the compiled speakers: SUPPRESS, ROVPP, HEARS, ROST


def lp_rank(local_pref: int) -> float:
    """The Loc-RIB rank (smaller is better) of a route with this LOCAL_PREF (RFC 4271 section 9.1.1:
    higher is better). The relationship classes stand for the usual LOCAL_PREFs: customer 300 (rank 1),
    peer 200 (2), provider 100 (3); no learned route outranks the AS's own (rank 0)."""
    return max(0.5, 4 - local_pref / 100)


class TimedEngine(Speakers):
    """The BGP speakers of every AS, driven by an EventQueue.

    The protocol (receiving, choosing, sending, MRAI) is compiled (core/timed.c); this class sets it
    up, makes the scenario's changes, and answers what the compiled speakers ask of Python: an
    adopter's verdict on a route (`_policy_key`), and the optional parts of a run (RoST, ROV++,
    communities, routes kept for new VRPs). `on_change(i, p)` is called whenever AS i's Loc-RIB for
    prefix p changes. `crypto` (a bgpsim.sim.crypto.CryptoLoop) signs what adopters send each other and
    verifies what they receive.
    """

    def __init__(self, topo, prefixes: list, timing: Timing, seed: int, queue: EventQueue | None = None,
                 policies: dict[int, Policy] | None = None, on_change=None, crypto=None,
                 local_pref: dict[tuple[int, int], int] | None = None,
                 prepend: dict[tuple[int, int], int] | None = None):
        super().__init__()
        self.topo = topo
        self.prefixes = prefixes
        self.timing = timing
        n = topo.n
        self.rng = random.Random(seed)  # MRAI jitter and processing delays, drawn by the compiled speakers
        policy: list[Policy | None] = [None] * n
        for i, pol in (policies or {}).items():
            policy[i] = pol
        proc = timing.processing_delay
        self._setup(queue if queue is not None else EventQueue(), len(prefixes), *self._sessions(topo, timing, seed),
                    policy, self.rng.random, timing.mrai, *timing.jitter, timing.mrai_withdrawals,
                    proc.KINDS.index(proc.kind), proc.a, proc.b, blackholes.HOLE_KEPT, blackholes.HOLE_TOLD)
        self.on_change = on_change
        self.crypto = crypto
        # (r, s) -> the rank, in place of the relationship's, of the routes r learns from s (LOCAL_PREF)
        self._rank = {k: lp_rank(v) for k, v in (local_pref or {}).items()}
        # (r, j) -> how many more times r puts its own AS on the paths it sends j
        self.prepend = {k: v for k, v in (prepend or {}).items() if v}
        self._hops = bool(self.prepend)  # paths may repeat an AS: defences get them collapsed
        for r, s in [*self._rank, *self.prepend]:
            self.session(s, r)  # must be neighbours
        for (r, s), rank in self._rank.items():
            self._set_rank(r, s, rank)
        for (r, j), times in self.prepend.items():
            self._set_prepend(r, j, times)
        self.tap = None  # bgpsim.sim.wiretap.Wiretap: records the sessions of chosen ASes
        self.journal = None  # bgpsim.sim.journal.Journal: RIB changes (every one on graphs small enough to draw)
        self.aggregates: dict[tuple[int, int], bool] = {}  # (p, i): i announces p as an aggregate; summary-only?
        # ROV++ adopters make blackholes from what they hear (engine.blackholes)
        self.rovpp = {i for i, pol in (policies or {}).items() if getattr(pol, "blackholes", False)}
        self.top_rank = int(topo.ranks.max()) if self.rovpp else 0
        # withdrawals: ASes that send none; RoST adopters and their shared repository
        for i, pol in (policies or {}).items():
            if getattr(pol, "suppresses_withdrawals", False):
                self.suppress(i)
        rost = [i for i, pol in (policies or {}).items() if getattr(pol, "rost", False)]
        self.rost = Repository(self, rost) if rost else None
        # ASes that keep whole what they hear (flag HEARS: ROV++, RoST, watch_rpki) ...
        self.heard: dict[tuple[int, int], dict] = {}  # ... (p, r) -> {s: (path, rel, signed)}
        self.views: list[Policy] = []
        for flag, ases in (("ROVPP", self.rovpp), ("ROST", rost), ("HEARS", self.rovpp | set(rost))):
            for i in ases:
                self._set_flag(i, FLAGS[flag])

    @staticmethod
    def _sessions(topo, timing: Timing, seed: int) -> tuple:
        """Every AS's sessions as arrays, AS by AS: its customers, then peers, then providers, each
        group in index order; the slot where each AS's peers and providers start; the link delays."""
        rng = np.random.default_rng([seed, 0x6C696E6B])  # link delays: their own stream
        pc, pp = topo.p2c.astype(np.int64), topo.p2p.astype(np.int64)
        d_pc = timing.link_delay.sample_array(rng, len(pc))
        d_pp = timing.link_delay.sample_array(rng, len(pp))
        n = topo.n
        src = np.concatenate([pc[:, 0], pp[:, 0], pp[:, 1], pc[:, 1]])
        dst = np.concatenate([pc[:, 1], pp[:, 1], pp[:, 0], pc[:, 0]])
        group = np.repeat([0, 1, 1, 2], [len(pc), len(pp), len(pp), len(pc)])  # what dst is to src: customer, peer, provider
        delay = np.concatenate([d_pc, d_pp, d_pp, d_pc])
        order = np.lexsort((dst, group, src))
        src, dst, group, delay = src[order], dst[order], group[order], delay[order]
        off = np.searchsorted(src, np.arange(n + 1)).astype(np.int32)
        key = src * 3 + group
        peers_at = np.searchsorted(key, np.arange(n) * 3 + 1).astype(np.int32)
        providers_at = np.searchsorted(key, np.arange(n) * 3 + 2).astype(np.int32)
        return (off.tobytes(), peers_at.tobytes(), providers_at.tobytes(), dst.astype(np.int32).tobytes(),
                delay.astype(np.float64).tobytes())

    def session(self, i: int, j: int) -> tuple[float, int, int]:
        """The session i -> j: link delay, how j learns i's routes, what j is to i."""
        got = self._session(i, j)
        if got is None:
            raise InputError(f"AS{self.topo.asns[i]} and AS{self.topo.asns[j]} are not neighbours")
        return got

    # ---- what the compiled speakers ask ----------------------------------------------------------

    def _policy_key(self, s: int, r: int, p: int, path, rel: int, signed):
        """Adopter r's preference key for `path` from s, or None: its policy rejects the route."""
        pol = self.policy[r]
        hops = _collapse(path) if self._hops else path
        if self.crypto is None:
            pref = pol.check(self.prefixes[p], s, r, rel, hops)
        else:
            pref = self.crypto.check(pol, p, s, r, rel, hops, signed)
        return None if pref is None else pol.key(rel, pref, len(path), s)

    def _hear(self, s: int, r: int, p: int, path, rel: int, signed):
        """What r, an AS that keeps what it hears (RoST, ROV++, new VRPs), keeps of an UPDATE from s;
        the path it goes on to judge."""
        if self.rost is not None and r in self.rost.adopters:
            before = self.heard.get((p, r), {}).get(s)
            self.rost.heard(r, p, path, None if before is None else before[0])
            if path is not None and self.rost.covers(p, path, r):
                path = None  # withdrawn, says the repository: what s sent before goes too
        heard = self.heard.setdefault((p, r), {})  # kept whole, for new VRPs (RFC 9324)
        if path is None:
            heard.pop(s, None)
        else:
            heard[s] = (path, rel, signed)
        return path

    def _keep(self, p: int, s: int, r: int, path, rel: int, signed) -> None:
        """At a warm start: r keeps what s sent it (bgpsim.sim.engine.warm)."""
        self.heard.setdefault((p, r), {})[s] = (path, rel, signed)

    def _rost_changed(self, r: int, p: int, old, new) -> None:
        self.rost.changed(r, p, old, new)

    def _refresh_hole(self, r: int, p: int) -> None:
        blackholes.refresh(self, r, p)

    def _holes_inside(self, r: int, p: int) -> None:
        for q in self._inside(p):
            blackholes.refresh(self, r, q)

    def watch_rpki(self, adopters, views: list[Policy]) -> None:
        """`adopters` will get new VRPs during the run (bgpsim.sim.rpki_delays): each keeps what its
        neighbours send, the routes its policy drops included, to judge it again then. `views`: the
        policy under each ROA set of the run, told of every announcement as the deployed one is."""
        for i in adopters:
            self._set_flag(i, FLAGS["HEARS"])
        self.views = list(views)

    def revalidate(self, r: int, policy: Policy) -> None:
        """AS r's routers have new VRPs: `policy`, its defence checking against them, judges again
        what r's neighbours sent it, the routes ROV dropped included, and r chooses again (RFC 9324:
        from a full Adj-RIB-In, with no route refresh)."""
        self.policy[r] = policy
        for p in range(len(self.prefixes)):
            rib = self.rib_in[p][r] or {}
            for s, (path, rel, signed) in list(self.heard.get((p, r), {}).items()):
                entry = self._judge(s, r, p, path, rel, signed)
                if entry != rib.get(s):
                    self._take(s, r, p, entry)

    def _held(self, r: int, p: int) -> bool:
        """Whether r's route for p carries a community that keeps it in r (RFC 1997, RFC 7999 section
        3.2): it came straight from an origin that tagged it, and r, another AS, advertises it to no one."""
        cur = self.loc[p][r]
        return (cur is not None and cur[1] != ORIGIN and cur[2][0] == cur[2][-1]
                and (p, cur[2][0]) in self.tagged)

    # ---- what scenarios do -----------------------------------------------------------------

    def originate(self, r: int, p: int, path: tuple = (), exclude=(), community: str | None = None) -> None:
        """AS r announces prefix p as its own. `path` is what it claims to have heard (a forged
        origin announces (victim,)); `exclude` lists neighbours it does not tell; `community`:
        "no-export", "no-advertise" or "blackhole", so that its neighbours keep the route to
        themselves, and with "blackhole" drop the traffic to p."""
        if exclude:
            self.withheld[(p, r)] = frozenset(exclude)
        if community is not None:
            self.tagged[(p, r)] = community
        for pol in {id(x): x for x in (*self.policy, *self.views) if x is not None}.values():
            pol.announce(self.prefixes[p], r, (r,) + tuple(path))  # what the announcer attaches
        self._install(r, p, (ORIGIN_KEY, ORIGIN, tuple(path)))

    def withdraw(self, r: int, p: int) -> None:
        cur = self.loc[p][r]
        if cur is None or cur[1] != ORIGIN:
            return
        self.withheld.pop((p, r), None)
        self.tagged.pop((p, r), None)
        if self.aggregates.pop((p, r), False):  # the more-specifics it summarised go out again
            for q in self._inside(p):
                self.withheld.pop((q, r), None)
                self._export(r, q)
        rib = self.rib_in[p][r]
        self._install(r, p, min(rib.values()) if rib else None)

    def aggregate(self, r: int, p: int, summary_only: bool = False) -> None:
        """AS r announces prefix p as an aggregate of the routes it holds (RFC 4271 section 9.2.2.2):
        as its own, with ATOMIC_AGGREGATE and AGGREGATOR r, and no AS_SET (RFC 9774), so r is its origin
        for ROV. `summary_only`: r stops advertising every more-specific of p (the data plane still
        follows them: r forwards by the longest match). Withdrawing p ends both."""
        self.aggregates[(p, r)] = summary_only
        if summary_only:
            everyone = frozenset(self.topo.neighbours(r))
            for q in self._inside(p):
                self.withheld[(q, r)] = everyone
                self._export(r, q)
        self.originate(r, p)

    def _inside(self, p: int) -> list[int]:
        """The prefixes (indices) more specific than prefix p."""
        outer = self.prefixes[p]
        return [q for q, x in enumerate(self.prefixes) if q != p and x.version == outer.version and x.subnet_of(outer)]

    def configure(self, r: int, s: int, local_pref: int | None = None, prepend: int | None = None,
                  reset: bool = False) -> None:
        """Change what r sets on its session with s: the LOCAL_PREF of the routes it learns from s
        (re-ranked and re-selected now; `reset`: back to the relationship's), or how many times it
        prepends its AS toward s (the changed paths are sent as MRAI allows)."""
        self.session(s, r)  # must be neighbours
        if prepend is not None:
            self._hops = True
            if prepend:
                self.prepend[(r, s)] = prepend
            else:
                self.prepend.pop((r, s), None)
            self._set_prepend(r, s, prepend)
            for p in range(len(self.prefixes)):
                self._export(r, p)
        if local_pref is not None or reset:
            if reset:
                self._rank.pop((r, s), None)
            else:
                self._rank[(r, s)] = lp_rank(local_pref)
            self._set_rank(r, s, self._rank.get((r, s)))
            for p in range(len(self.prefixes)):
                rib = self.rib_in[p][r]
                if rib and s in rib:
                    key, rel, path = rib[s]
                    rib[s] = ((self._rank.get((r, s), rel),) + key[1:], rel, path)
                    self._reselect(r, p)

    def set_policy(self, r: int, policy: Policy | None) -> None:
        """Change r's policy and re-advertise everything under it."""
        self.policy[r] = policy
        for p in range(len(self.prefixes)):
            self._export(r, p)

    def start_leak(self, r: int) -> None:
        self.set_policy(r, Leaker())

    def suppress(self, r: int) -> None:
        """r sends no withdrawals from now on."""
        self._set_flag(r, FLAGS["SUPPRESS"])

    def link_down(self, a: int, b: int) -> None:
        self.session(a, b)  # must be neighbours
        self._set_down(a, b, True)  # what its MRAI timers held and what was sent on it go too
        for p in range(len(self.prefixes)):
            for x, y in ((a, b), (b, a)):
                self.heard.get((p, y), {}).pop(x, None)
                rib = self.rib_in[p][y]
                if rib and x in rib:
                    old = rib.pop(x)
                    if self.loc[p][y] is old:
                        self._reselect(y, p)

    def link_up(self, a: int, b: int) -> None:
        self._set_down(a, b, False)
        for p in range(len(self.prefixes)):
            for x, y in ((a, b), (b, a)):
                val = self._wanted(x, y, p)
                if val is not None:
                    self._transmit(x, y, p, val)


def _collapse(path: tuple) -> tuple:
    """The path with each run of one AS (prepending) as one hop."""
    return tuple(x for k, x in enumerate(path) if k == 0 or x != path[k - 1])


__all__ = ["TimedEngine", "lp_rank"]
