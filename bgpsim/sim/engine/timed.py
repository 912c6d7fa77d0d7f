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

from bgpsim.base.errors import InputError
from ..policy import CUSTOMER, ORIGIN, ORIGIN_KEY, PEER, PROVIDER, Leaker, Policy
from . import blackholes
from .events import EventQueue
from .rost import Repository
from .timing import Timing


def lp_rank(local_pref: int) -> float:
    """The Loc-RIB rank (smaller is better) of a route with this LOCAL_PREF (RFC 4271 section 9.1.1:
    higher is better). The relationship classes stand for the usual LOCAL_PREFs: customer 300 (rank 1),
    peer 200 (2), provider 100 (3); no learned route outranks the AS's own (rank 0)."""
    return max(0.5, 4 - local_pref / 100)


class TimedEngine:
    """The BGP speakers of every AS, driven by an EventQueue.

    `on_change(i, p)` is called whenever AS i's Loc-RIB for prefix p changes. `crypto` (a
    bgpsim.sim.crypto.CryptoLoop) signs what adopters send each other and verifies what they receive.
    """

    def __init__(self, topo, prefixes: list, timing: Timing, seed: int, queue: EventQueue | None = None,
                 policies: dict[int, Policy] | None = None, on_change=None, crypto=None,
                 local_pref: dict[tuple[int, int], int] | None = None,
                 prepend: dict[tuple[int, int], int] | None = None):
        self.topo = topo
        self.prefixes = prefixes
        self.timing = timing
        self.q = queue if queue is not None else EventQueue()
        n = topo.n
        self.rng = random.Random(seed)
        self.policy: list[Policy | None] = [None] * n
        for i, pol in (policies or {}).items():
            self.policy[i] = pol
        self.on_change = on_change
        self.crypto = crypto
        # (r, s) -> the rank, in place of the relationship's, of the routes r learns from s (LOCAL_PREF)
        self._rank = {k: lp_rank(v) for k, v in (local_pref or {}).items()}
        # (r, j) -> how many more times r puts its own AS on the paths it sends j
        self.prepend = {k: v for k, v in (prepend or {}).items() if v}
        self._hops = bool(self.prepend)  # paths may repeat an AS: defences get them collapsed
        self.tap = None  # bgpsim.sim.wiretap.Wiretap: records the sessions of chosen ASes
        self.journal = None  # bgpsim.sim.journal.Journal: RIB changes (every one on graphs small enough to draw)
        self._groups = self._sessions(topo, timing, seed)
        for r, s in [*self._rank, *self.prepend]:
            self.session(s, r)  # must be neighbours
        k = len(prefixes)
        self.loc: list[list] = [[None] * n for _ in range(k)]
        self.adv: list[list] = [[None] * n for _ in range(k)]  # (i,) + Loc-RIB path: what i sends
        self.rib_in: list[list] = [[None] * n for _ in range(k)]
        self.rib_out: list[list] = [[None] * n for _ in range(k)]
        self.withheld: dict[tuple[int, int], frozenset] = {}  # (p, i) -> neighbours i withholds p from
        self.tagged: dict[tuple[int, int], str] = {}  # (p, i) -> the community i announces p with
        self.aggregates: dict[tuple[int, int], bool] = {}  # (p, i): i announces p as an aggregate; summary-only?
        self._busy = [0.0] * n
        self._mrai_until: list[dict | None] = [None] * n
        self._pending: dict[tuple[int, int], list] = {}
        self.down: set[tuple[int, int]] = set()
        self.messages = 0
        self.last_change = 0.0
        self._proc = timing.processing_delay.sampler(self.rng)
        # ROV++ adopters make blackholes from what they hear (engine.blackholes)
        self.rovpp = {i for i, pol in (policies or {}).items() if getattr(pol, "blackholes", False)}
        self.top_rank = int(topo.ranks.max()) if self.rovpp else 0
        # withdrawals: ASes that send none; RoST adopters and their shared repository
        self.suppressing = {i for i, pol in (policies or {}).items() if getattr(pol, "suppresses_withdrawals", False)}
        rost = [i for i, pol in (policies or {}).items() if getattr(pol, "rost", False)]
        self.rost = Repository(self, rost) if rost else None
        # ASes that keep whole what they hear (watch_rpki, ROV++, RoST) ...
        self.revalidating: set[int] = set(self.rovpp) | set(rost)
        self.heard: dict[tuple[int, int], dict] = {}  # ... (p, r) -> {s: (path, rel, signed)}
        self.views: list[Policy] = []

    @staticmethod
    def _sessions(topo, timing: Timing, seed: int) -> list[tuple]:
        """Per AS, three groups (customers, peers, providers): neighbour list, delay list, the
        relationship the neighbour learns the route over, and what the neighbour is to us."""
        rng = np.random.default_rng([seed, 0x6C696E6B])  # link delays: their own stream
        pc, pp = topo.p2c.astype(np.int64), topo.p2p.astype(np.int64)
        d_pc = timing.link_delay.sample_array(rng, len(pc))
        d_pp = timing.link_delay.sample_array(rng, len(pp))
        n = topo.n

        def split(src, dst, delay):
            order = np.lexsort((dst, src))
            src, dst, delay = src[order], dst[order], delay[order]
            bounds = np.searchsorted(src, np.arange(n + 1)).tolist()
            d, w = dst.tolist(), delay.tolist()
            return [d[bounds[i]:bounds[i + 1]] for i in range(n)], [w[bounds[i]:bounds[i + 1]] for i in range(n)]

        cust, cust_d = split(pc[:, 0], pc[:, 1], d_pc)
        prov, prov_d = split(pc[:, 1], pc[:, 0], d_pc)
        peer, peer_d = split(np.concatenate([pp[:, 0], pp[:, 1]]), np.concatenate([pp[:, 1], pp[:, 0]]),
                             np.concatenate([d_pp, d_pp]))
        return [((cust[i], cust_d[i], PROVIDER, CUSTOMER), (peer[i], peer_d[i], PEER, PEER),
                 (prov[i], prov_d[i], CUSTOMER, PROVIDER)) for i in range(n)]

    def session(self, i: int, j: int) -> tuple[float, int, int]:
        """The session i -> j: link delay, how j learns i's routes, what j is to i."""
        for nbrs, delays, rel_at_j, j_is in self._groups[i]:
            if j in nbrs:
                return delays[nbrs.index(j)], rel_at_j, j_is
        raise InputError(f"AS{self.topo.asns[i]} and AS{self.topo.asns[j]} are not neighbours")

    # ---- receiving -------------------------------------------------------------------------

    def _deliver(self, s: int, r: int, p: int, path, rel: int, signed=None) -> None:
        """AS r handles an UPDATE from s for prefix p: `path` announced, or None (withdrawn);
        `signed`: its BGPsec_PATH under crypto."""
        if self.down and (s, r) in self.down:
            return  # the session died while the message was in flight
        if self.rost is not None and r in self.rost.adopters:
            before = self.heard.get((p, r), {}).get(s)
            self.rost.heard(r, p, path, None if before is None else before[0])
            if path is not None and self.rost.covers(p, path, r):
                path = None  # withdrawn, says the repository: what s sent before goes too
        if self.revalidating and r in self.revalidating:  # kept whole, for new VRPs (RFC 9324)
            heard = self.heard.setdefault((p, r), {})
            if path is None:
                heard.pop(s, None)
            else:
                heard[s] = (path, rel, signed)
        self._take(s, r, p, None if path is None else self._judge(s, r, p, path, rel, signed))
        if r in self.rovpp:
            blackholes.refresh(self, r, p)

    def _judge(self, s: int, r: int, p: int, path, rel: int, signed):
        """The Adj-RIB-In entry r makes of `path` from s, or None: a loop or a route r's policy rejects
        withdraws whatever s sent before."""
        if r in path:
            return None
        pol = self.policy[r]
        pref = 0
        if pol is not None:
            hops = _collapse(path) if self._hops else path
            if self.crypto is None:
                pref = pol.check(self.prefixes[p], s, r, rel, hops)
            else:
                pref = self.crypto.check(pol, p, s, r, rel, hops, signed)
            if pref is None:
                return None
        key = (rel, 0, len(path), s) if pol is None else pol.key(rel, pref, len(path), s)
        if self._rank and (r, s) in self._rank:
            key = (self._rank[(r, s)],) + key[1:]
        return (key, rel, path)

    def _take(self, s: int, r: int, p: int, entry) -> None:
        """r's Adj-RIB-In for p from s becomes `entry` (None: nothing); r chooses again."""
        ribs = self.rib_in[p]
        rib = ribs[r]
        cur = self.loc[p][r]
        if entry is None:
            if rib is None or s not in rib:
                return
            old = rib.pop(s)
            if self.journal is not None and self.journal.detailed:  # Adj-RIBs-In: graphs to draw alone
                self.journal.rib_in(self.q.now, r, s, p, None)
            if cur is not old:
                return
            new = min(rib.values()) if rib else None
        else:
            if rib is None:
                rib = ribs[r] = {}
            old = rib.get(s)
            rib[s] = entry
            if self.journal is not None and self.journal.detailed:  # Adj-RIBs-In: graphs to draw alone
                self.journal.rib_in(self.q.now, r, s, p, entry)
            if cur is None or entry < cur:
                new = entry
            elif cur is old:
                new = min(rib.values())
            else:
                return
        self._install(r, p, new)

    def watch_rpki(self, adopters, views: list[Policy]) -> None:
        """`adopters` will get new VRPs during the run (bgpsim.sim.rpki_delays): each keeps what its
        neighbours send, the routes its policy drops included, to judge it again then. `views`: the
        policy under each ROA set of the run, told of every announcement as the deployed one is."""
        self.revalidating |= set(adopters)
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

    def _install(self, r: int, p: int, new) -> None:
        if self.rost is not None and r in self.rost.adopters:
            self.rost.changed(r, p, self.loc[p][r], new)
        self.loc[p][r] = new
        if self.journal is not None:
            self.journal.loc_rib(self.q.now, r, p, new)
        self.adv[p][r] = None if new is None else (r,) + new[2]
        self.last_change = self.q.now
        if self.on_change is not None:
            self.on_change(r, p)
        self._export(r, p)
        if r in self.rovpp:
            for q in self._inside(p):
                blackholes.refresh(self, r, q)

    def _reselect(self, r: int, p: int) -> None:
        cur = self.loc[p][r]
        if cur is not None and cur[1] == ORIGIN:
            return
        rib = self.rib_in[p][r]
        new = min(rib.values()) if rib else None
        if new is not cur:
            self._install(r, p, new)

    # ---- sending ---------------------------------------------------------------------------

    def _held(self, r: int, p: int) -> bool:
        """Whether r's route for p carries a community that keeps it in r (RFC 1997, RFC 7999 section
        3.2): it came straight from an origin that tagged it, and r, another AS, advertises it to no one."""
        cur = self.loc[p][r]
        return (cur is not None and cur[1] != ORIGIN and cur[2][0] == cur[2][-1]
                and (p, cur[2][0]) in self.tagged)

    def _export(self, r: int, p: int) -> None:
        """Bring every session of r up to date with r's Loc-RIB for p."""
        out = self.adv[p][r]
        if out is not None and self.tagged and self._held(r, p):
            out = None  # withdraw what it may have sent before
        sent = self.rib_out[p][r]
        if out is None and not sent:
            return
        if sent is None:
            sent = self.rib_out[p][r] = {}
        cur = self.loc[p][r]
        first_hop = cur[2][0] if out is not None and cur[2] else -1
        pol = self.policy[r]
        excl = self.withheld.get((p, r)) if self.withheld else None
        down = self.down
        prepend = self.prepend
        for nbrs, delays, rel_at_j, j_is in self._groups[r]:
            if out is None:
                val = None
                if not sent:
                    return
            elif pol is None:
                val = out if cur[1] <= CUSTOMER or j_is == CUSTOMER else None
            elif self.rovpp and blackholes.is_hole(cur):
                val = out if blackholes.announced_to(cur, j_is) else None
            else:
                val = out if pol.exports(cur[1], j_is) else None
            for j, d in zip(nbrs, delays):
                v = None if j == first_hop or (excl and j in excl) else val
                if prepend and v is not None and (r, j) in prepend:
                    v = (r,) * prepend[(r, j)] + v
                prev = sent.get(j)
                if prev is v or prev == v or (down and (r, j) in down):
                    continue
                if v is None and self.suppressing and r in self.suppressing:
                    continue  # it sends no withdrawal
                self._offer(r, j, p, v, d, rel_at_j, j_is, sent)

    def _offer(self, r, j, p, val, delay, rel_at_j, j_is, sent) -> None:
        """Send now, or hold until the session's MRAI timer expires."""
        now = self.q.now
        mrai = self.timing.mrai
        if mrai > 0 and (val is not None or self.timing.mrai_withdrawals):
            timers = self._mrai_until[r]
            if timers is None:
                timers = self._mrai_until[r] = {}
            if timers.get(j, -1.0) > now:
                held = self._pending.get((r, j))
                if held is None:
                    self._pending[(r, j)] = [{p}, delay, rel_at_j, j_is]
                    self.q.at(timers[j], self._mrai_expired, r, j)
                else:
                    held[0].add(p)
                return
            timers[j] = now + mrai * self.rng.uniform(*self.timing.jitter)
        self._transmit(r, j, p, val, delay, rel_at_j, sent)

    def _transmit(self, r, j, p, val, delay, rel_at_j, sent) -> None:
        if val is None:
            sent.pop(j, None)
        else:
            sent[j] = val
        t = self.q.now + delay
        busy = self._busy[j]
        if busy > t:
            t = busy
        t += self._proc()
        self._busy[j] = t
        self.messages += 1
        signed = None if self.crypto is None or val is None else self.crypto.outgoing(self, p, r, j)
        if self.tap is not None:
            self.tap.sent(self.q.now, r, j, p, val, signed)
        if signed is not None:
            self.q.at(t, self._deliver, r, j, p, val, rel_at_j, signed)
        else:
            self.q.at(t, self._deliver, r, j, p, val, rel_at_j)

    def _mrai_expired(self, r: int, j: int) -> None:
        held = self._pending.pop((r, j), None)
        if held is None or (r, j) in self.down:
            return
        prefixes, delay, rel_at_j, j_is = held
        announced = False
        for p in sorted(prefixes):
            val = self._wanted(r, j, p, j_is)
            sent = self.rib_out[p][r]
            prev = sent.get(j)
            if prev is val or prev == val or (val is None and r in self.suppressing):
                continue
            self._transmit(r, j, p, val, delay, rel_at_j, sent)
            announced = announced or val is not None or self.timing.mrai_withdrawals
        if announced and self.timing.mrai > 0:
            self._mrai_until[r][j] = self.q.now + self.timing.mrai * self.rng.uniform(*self.timing.jitter)

    def _wanted(self, r: int, j: int, p: int, j_is: int):
        """What r's Adj-RIB-Out for p should hold for neighbour j now."""
        out = self.adv[p][r]
        if out is None or (self.tagged and self._held(r, p)):
            return None
        cur = self.loc[p][r]
        if (cur[2] and cur[2][0] == j) or j in self.withheld.get((p, r), ()):
            return None
        pol = self.policy[r]
        if pol is None:
            ok = cur[1] <= CUSTOMER or j_is == CUSTOMER
        elif self.rovpp and blackholes.is_hole(cur):
            ok = blackholes.announced_to(cur, j_is)
        else:
            ok = pol.exports(cur[1], j_is)
        if ok and (r, j) in self.prepend:
            return (r,) * self.prepend[(r, j)] + out
        return out if ok else None

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
            for p in range(len(self.prefixes)):
                self._export(r, p)
        if local_pref is not None or reset:
            if reset:
                self._rank.pop((r, s), None)
            else:
                self._rank[(r, s)] = lp_rank(local_pref)
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

    def link_down(self, a: int, b: int) -> None:
        self.session(a, b)  # must be neighbours
        self.down |= {(a, b), (b, a)}
        for x, y in ((a, b), (b, a)):
            self._pending.pop((x, y), None)
            if self._mrai_until[x]:
                self._mrai_until[x].pop(y, None)
        for p in range(len(self.prefixes)):
            for x, y in ((a, b), (b, a)):
                if self.rib_out[p][x]:
                    self.rib_out[p][x].pop(y, None)
                self.heard.get((p, y), {}).pop(x, None)
                rib = self.rib_in[p][y]
                if rib and x in rib:
                    old = rib.pop(x)
                    if self.loc[p][y] is old:
                        self._reselect(y, p)

    def link_up(self, a: int, b: int) -> None:
        self.down -= {(a, b), (b, a)}
        for p in range(len(self.prefixes)):
            for x, y in ((a, b), (b, a)):
                delay, rel_at_y, y_is = self.session(x, y)
                val = self._wanted(x, y, p, y_is)
                if val is not None:
                    if self.rib_out[p][x] is None:
                        self.rib_out[p][x] = {}
                    self._transmit(x, y, p, val, delay, rel_at_y, self.rib_out[p][x])


def _collapse(path: tuple) -> tuple:
    """The path with each run of one AS (prepending) as one hop."""
    return tuple(x for k, x in enumerate(path) if k == 0 or x != path[k - 1])


__all__ = ["TimedEngine", "lp_rank"]
