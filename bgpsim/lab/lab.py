"""`bgpsim lab SCENARIO --router bird --as ASN`: a real router plays one AS of a scenario, bgpsim plays its
neighbours, and the router's choices are set beside the model's.

1. The scenario runs on the timed engine with that AS's sessions recorded (bgpsim.sim.wiretap): what
   each neighbour sends it, and when; and the model's Loc-RIB for it (bgpsim.sim.journal).
2. The router starts with a configuration made from the scenario (bgpsim.lab.bird): the AS, one
   passive session per neighbour, LOCAL_PREF and exports by relationship, ROV from `bgpsim rtr serve`
   where the scenario deploys it at that AS, and a collector session that gets its best routes.
3. bgpsim opens each neighbour's session from its own loopback address (ordered as their ASNs, so
   the router's lowest-Identifier tie-break is the model's lowest-ASN one) and sends what the model
   says that neighbour sent, at the simulated times divided by --pace.
4. The collector records each change of the router's best route; once all is sent and the router
   has been quiet, the two are compared prefix by prefix: the same sequence of best routes, and the
   same route once settled. Timers differ between implementations (MRAI, processing), so a change
   the router made at another time, or one it skipped or added in passing, is listed, not counted,
   when the settled routes agree.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bgpsim.base.errors import InputError
from bgpsim.base.hostport import free_port
from bgpsim.base.outdir import write_atomic
from bgpsim.mrt.reader import MRTReader
from bgpsim.mrt.record import WITHDRAW
from bgpsim.wire.session import Session, SessionClosed

from . import COLLECTOR, Deployed, bird, frr, gobgp, neighbour_address

SETTLE = 1.0  # seconds of quiet from the router after the last message sent
PLAYED = ("rov", "maxlen", "max-prefix")  # the defences the routers play (BGPsec: none of them speaks it)
ROUTERS = {"bird": (bird.config, bird.Bird), "frr": (frr.config, frr.Frr), "gobgp": (gobgp.config, gobgp.GoBGP)}


@dataclasses.dataclass
class Compared:
    """One prefix: the model's and the router's best routes in order, (simulated time, path or None)."""

    prefix: str
    model: list
    router: list

    @property
    def settled_same(self) -> bool:
        return (self.model[-1][1] if self.model else None) == (self.router[-1][1] if self.router else None)

    @property
    def same_changes(self) -> bool:
        return [p for _, p in self.model] == [p for _, p in self.router]


class Lab:
    """One lab run: `opts` as `bgpsim lab` parsed them; `say` and `warn` take a line each."""

    def __init__(self, opts, say, warn):
        from bgpsim.sim.plan import resolve
        from bgpsim.sim.scenario import find_scenario, load_scenario

        self.opts, self.say, self.warn = opts, say, warn
        if opts.router not in ROUTERS:
            raise InputError(f"--router: want {' or '.join(ROUTERS)}, got {opts.router!r}")
        self.scn = load_scenario(find_scenario(opts.scenario))
        plan = resolve(self.scn)
        asns = plan.topo.asns.tolist()
        if opts.asn not in asns:
            raise InputError(f"--as: AS{opts.asn} is not in the scenario's topology ({plan.topo.name or plan.topo.source})")
        self.x = asns.index(opts.asn)
        self.asns = asns
        self.plan = dataclasses.replace(plan, tap=[self.x])
        self.policy = self.scn.defence.policy if self.scn.defence and self.x in plan.adopters else None
        if opts.policy is not None:
            self._deploy(opts.policy)
        self.parts = frozenset((self.policy or "").split("+")) - {""}
        if self.parts - set(PLAYED):
            raise InputError(f"--as: AS{opts.asn} deploys {self.policy} in this scenario; the lab's routers play "
                             f"{', '.join(PLAYED)} or no defence (none of them speaks BGPsec)")
        self.neighbours = self._neighbours()
        self.closes: set[int] = set()  # neighbours whose session the model closes (max-prefix)
        self.closed: dict[int, str] = {}  # ... and those the router closed, how
        self.roa_updates: list[tuple[float, list]] = []  # (when the AS's routers have it, the VRPs), in order

    def _deploy(self, policy: str) -> None:
        """--policy: what the router's AS deploys, in the model too, whatever the scenario says (one of
        PLAYED, with the scenario's settings and VRPs, or its victim's ROA; or none); the other adopters
        as the scenario has them."""
        from bgpsim.sim.scenario import Defence

        d, plan, x = self.scn.defence, self.plan, self.x
        if policy != "none" and d is not None and d.policy != policy:
            raise InputError(f"--policy {policy}: the scenario deploys {d.policy}; the model runs one defence at a time")
        if policy != "none" and x == plan.a:
            raise InputError(f"--policy {policy}: AS{self.opts.asn} is the attacker, which deploys nothing")
        adopters = sorted(set(plan.adopters) | {x}) if policy != "none" else [i for i in plan.adopters if i != x]
        scn = self.scn if d is not None or policy == "none" else dataclasses.replace(
            self.scn, defence=Defence(policy, adopters=[self.opts.asn]))
        self.plan = dataclasses.replace(plan, scn=scn, adopters=adopters)
        self.policy = None if policy == "none" else policy

    @property
    def sessions_same(self) -> bool:
        """The router closed the sessions the model closes, and no other."""
        return self.closes == set(self.closed)

    def _neighbours(self) -> list[tuple[int, str]]:
        """(index, relationship seen from the router) of each neighbour, in ASN order."""
        topo, x = self.plan.topo, self.x
        out = [(int(c), "customer") for p, c in topo.p2c if p == x] + [(int(p), "provider") for p, c in topo.p2c if c == x]
        out += [(int(b if a == x else a), "peer") for a, b in topo.p2p if x in (a, b)]
        return sorted(out)

    def model(self):
        """The timed run: what each neighbour sends the router (index -> [(t, message)]) and the model's
        Loc-RIB changes of the router's AS (prefix -> [(t, path or None)])."""
        from bgpsim.sim.run import simulate

        run = simulate(self.plan)
        sent: dict[int, list] = {}
        for (a, b), s in run.wiretap.sessions.items():
            other = b if a == self.x else a
            for t, by_local, msg in s.messages:
                if (a if by_local else b) == other:
                    sent.setdefault(other, []).append((t, msg))
        self._full_table(sent)
        for e, ends in self.plan.events:  # a session of the router's AS taken down, or brought back
            if e.type in ("link-down", "link-up") and self.x in ends:
                other = ends[1] if ends[0] == self.x else ends[0]
                sent.setdefault(other, []).append((e.at, e.type))
        if run.rpki is not None and "rov" in self.parts:  # ROAs published or revoked during the run
            from bgpsim.sim.rpki_delays import versions

            sets = versions(self.plan.roas, self.scn.roa_changes)
            self.roa_updates = [(c.routers[self.opts.asn], sets[k]) for k, c in enumerate(run.rpki.changes, start=1)
                                if self.opts.asn in c.routers]
        prefixes = run.prefixes
        changes: dict[str, list] = {p: [] for p in prefixes}
        j = run.journal
        for i, p, path, _rel in j.start.get("loc", []):
            if i == self.x:
                changes[prefixes[p]].append((0.0, self._path(path)))
        for t, i, p, path, _rel in j.locs:
            if i == self.x:
                changes[prefixes[p]].append((t, None if path is None else self._path(path)))
        return sent, changes

    def _full_table(self, sent: dict[int, list]) -> None:
        """max-prefix: the model closes a leaker's session where the whole table it re-exports (a prefix
        per AS) is over the limit, and sends nothing on it (bgpsim.sim.attacks.Leak.closing). The router
        must see that table to close it: the leaker sends it at the leak's start, a synthetic prefix of
        10.0.0.0/8 per AS of the graph (/24s, longer where the graph has more ASes than 10/8 has /24s)."""
        from bgpsim.sim.defences import defence
        from bgpsim.sim.wiretap import address
        from bgpsim.wire.encode import unsigned_update
        from bgpsim.rpki.rov import VRPTable

        plan, attack = self.plan, self.scn.attack
        if "max-prefix" not in self.parts or attack is None or attack.kind != "leak":
            return
        d = plan.scn.defence
        pol = defence(d.policy, plan.topo, plan.adopters, VRPTable(plan.roas), **d.settings)
        if self.x not in attack.closing(plan.topo, plan.a, pol):
            return
        self.closes.add(plan.a)
        leaker, n = self.asns[plan.a], plan.topo.n
        plen = max(24, 8 + (n - 1).bit_length())
        sent.setdefault(plan.a, []).extend(
            (attack.start, unsigned_update(ipaddress.ip_network(((10 << 24) + (k << (32 - plen)), plen)), [leaker],
                                           address(plan.a))) for k in range(n))

    def _deployed(self, rtr_port: int | None, neighbours: list) -> Deployed:
        """The router's share of the defences: ROV's cache, maxlen's limits, max-prefix's (each customer's
        and peer's usual prefixes, its customer cone's, plus the headroom: bgpsim.sim.defences.filters)."""
        from bgpsim.sim.defences.filters import HEADROOM, LONGEST

        settings = self.scn.defence.settings if self.scn.defence else {}
        longest = tuple(settings.get("longest", LONGEST)) if "maxlen" in self.parts else None
        limits = {}
        if "max-prefix" in self.parts:
            topo = self.plan.topo
            limits = {address: int(topo.cone_sizes[topo.index[asn]]) + settings.get("max_prefix", HEADROOM)
                      for address, asn, rel in neighbours if rel in ("customer", "peer")}
        return Deployed(rtr_port, longest, limits)

    def _path(self, path) -> str:
        return " ".join(str(self.asns[k]) for k in path)

    async def _play(self, port: int, sent: dict[int, list], vrps: Path, settle: float) -> dict[str, list]:
        """The neighbours' sessions and the collector's; each neighbour's messages at their times. The
        router's best routes as the collector heard them: prefix -> [(simulated time, path or None)]."""
        o = self.opts
        heard: list[tuple[float, bytes]] = []
        collector = Session(o.asn, COLLECTOR, o.asn, hold=90, on_update=lambda m: heard.append((time.monotonic(), m)))
        sessions = {}
        for k, (i, _rel) in enumerate(self.neighbours):
            sessions[i] = Session(self.asns[i], neighbour_address(k), o.asn, hold=90)
        for _ in range(600):  # the router listens a moment after it starts (a minute: thousands of sessions)
            try:
                await collector.connect("127.0.0.1", port, local=COLLECTOR)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise InputError(f"--router {o.router}: it never listened on 127.0.0.1:{port}")
        address = {i: neighbour_address(k) for k, (i, _rel) in enumerate(self.neighbours)}
        for i, s in sessions.items():
            await s.connect("127.0.0.1", port, local=address[i])
        running = [asyncio.ensure_future(s.run()) for s in (collector, *sessions.values())]
        await asyncio.sleep(0.5)  # every session up
        start = time.monotonic()
        plan = sorted([(t, i, k, m) for i, msgs in sent.items() for k, (t, m) in enumerate(msgs)]
                      + [(t, -1, k, roas) for k, (t, roas) in enumerate(self.roa_updates)])
        ended = dict(zip(sessions, running[1:]))
        for t, i, _k, m in plan:
            wait = start + t / o.pace - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if i < 0:  # the AS's routers have the new VRPs: the cache reads its file again (Serial Notify)
                _write_vrps(vrps, m)
                continue
            if m == "link-down":  # our end closes it (a Cease): the router withdraws what it had from it
                with contextlib.suppress(SessionClosed, OSError):
                    await sessions[i].close()
                continue
            if m == "link-up":
                sessions[i] = Session(self.asns[i], address[i], o.asn, hold=90)
                await sessions[i].connect("127.0.0.1", port, local=address[i])
                ended[i] = asyncio.ensure_future(sessions[i].run())
                running.append(ended[i])
                continue
            if ended[i].done():  # closed by the router (max-prefix) or by a link-down: nothing more on it
                continue
            with contextlib.suppress(OSError):
                await sessions[i].send(m)
        last_sent = time.monotonic()
        quiet = max(SETTLE, settle) if self.roa_updates else SETTLE
        while time.monotonic() - max([last_sent] + [h[0] for h in heard]) < quiet:  # until the router is quiet
            await asyncio.sleep(0.1)
        for i, task in ended.items():
            if task.done() and isinstance(task.exception(), SessionClosed) and task.exception().by_peer:
                self.closed[i] = str(task.exception())
        for s in (*sessions.values(), collector):
            with contextlib.suppress(SessionClosed, OSError):
                await s.close()
        for r in running:
            r.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        reader = MRTReader("<collector>", self.warn)
        out: dict[str, list] = {}
        for when, msg in heard:
            routes, damage, notes = reader.update_routes(msg, "BGP4MP_ET", 0, 0, COLLECTOR, o.asn, 4, local_as=o.asn)
            for note in notes + ([damage] if damage else []):
                self.warn(f"the router's UPDATE to the collector: {note}")
            for r in routes:
                path = None if r.kind == WITHDRAW else r.as_path_text
                out.setdefault(r.prefix, []).append((round((when - start) * o.pace, 3), path))
        return out

    def run(self) -> list[Compared]:
        o = self.opts
        sent, model = self.model()
        # a neighbour that sends nothing cannot change the router's choices: no session for it
        everyone, self.neighbours = len(self.neighbours), [(i, rel) for i, rel in self.neighbours if sent.get(i)]
        updates = sum(isinstance(m, bytes) for v in sent.values() for _, m in v)  # not the link events
        self.say(f"the model: AS{o.asn} hears {updates} UPDATEs from "
                 f"{len(self.neighbours)} of its {everyone} neighbours; playing them at {o.pace:g}x")
        work = Path(tempfile.mkdtemp(prefix="bgpsim-lab-"))
        port = free_port()
        cache = None
        try:
            rtr_port = None
            if "rov" in self.parts:
                rtr_port = free_port()
                _write_vrps(work / "vrps.csv", self.plan.roas)
                cache = subprocess.Popen([sys.executable, "-m", "bgpsim", "rtr", "serve", "--listen",
                                          f"127.0.0.1:{rtr_port}", "--vrps", str(work / "vrps.csv"), "--quiet"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _wait_listening(rtr_port)  # before the router dials it: GoBGP tries again only after 30 s
            neighbours = [(neighbour_address(k), self.asns[i], rel) for k, (i, rel) in enumerate(self.neighbours)]
            make_config, make_router = ROUTERS[o.router]
            router = make_router(work / o.router, make_config(o.asn, port, neighbours, self._deployed(rtr_port, neighbours)),
                                 port)
            try:
                if cache is not None:
                    deadline = time.monotonic() + 15
                    while router.roas() < len(self.plan.roas):
                        if time.monotonic() > deadline:
                            raise InputError(f"--router {o.router}: its RTR session never brought the scenario's VRPs")
                        time.sleep(0.1)
                heard = asyncio.run(self._play(port, sent, work / "vrps.csv", router.roa_settle))
            finally:
                router.stop()
        finally:
            if cache is not None:
                cache.terminate()
                cache.wait(timeout=10)
            shutil.rmtree(work, ignore_errors=True)  # ours: the configurations and the routers' logs
        return [Compared(str(p), model.get(p, []), _collapse(heard.get(str(p), []))) for p in model]


def _write_vrps(path: Path, roas: list) -> None:
    """The cache's VRPs, the file replaced whole (the cache reads it again when it changes)."""
    write_atomic(path, "ASN,IP Prefix,Max Length,Trust Anchor\n" + "".join(
        f"AS{v.asn},{v.prefix},{v.max_length},scenario\n" for v in roas))


def _wait_listening(port: int, seconds: float = 15.0) -> None:
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise InputError(f"the RTR cache (bgpsim rtr serve) never listened on 127.0.0.1:{port}")


def _collapse(changes: list) -> list:
    """Consecutive announcements of the same route once (a router may send one again)."""
    out: list = []
    for t, path in changes:
        if not out or out[-1][1] != path:
            out.append((t, path))
    return out


def report(lab: Lab, rows: list[Compared]) -> str:
    """The two side by side, prefix by prefix, and every difference named."""
    o = lab.opts
    deployed = f" with {lab.policy.replace('rov', 'ROV')}" if lab.policy else ""
    lines = [f"{lab.scn.name}: AS{o.asn} played by {ROUTERS[o.router][1].name}{deployed}, against the model "
             "(simulated seconds)"]
    for c in rows:
        lines.append(f"\n{c.prefix}")
        width = max([len(f"{t:.2f}  {p or 'none'}") for t, p in c.model] + [10])
        lines.append(f"  {'model':<{width}}  | router")
        for k in range(max(len(c.model), len(c.router))):
            m = f"{c.model[k][0]:.2f}  {c.model[k][1] or 'none'}" if k < len(c.model) else ""
            r = f"{c.router[k][0]:.2f}  {c.router[k][1] or 'none'}" if k < len(c.router) else ""
            lines.append(f"  {m:<{width}}  | {r}")
        if c.same_changes:
            lines.append("  the same changes, the same settled route")
        elif c.settled_same:
            lines.append("  the same settled route; the changes on the way differ (timing: listed, not counted)")
        else:
            lines.append("  DIFFERENT settled routes")
    if lab.closes or lab.closed:
        name = lambda i: f"AS{lab.asns[i]}"  # noqa: E731
        lines.append(f"\nsessions closed: the model closes {', '.join(map(name, sorted(lab.closes))) or 'none'}; "
                     f"the router closed {', '.join(f'{name(i)} ({why})' for i, why in sorted(lab.closed.items())) or 'none'}"
                     f"{'' if lab.sessions_same else ': DIFFERENT'}")
    agree = sum(c.settled_same for c in rows)
    lines.append(f"\n{agree} of {len(rows)} prefixes settle on the same route")
    return "\n".join(lines) + "\n"
