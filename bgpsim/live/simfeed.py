"""`bgpsim run --publish`: a timed run told over MQTT, as a route collector and a dashboard would see it.

Some ASes play RIS peers: each has a BGP session with a make-believe route collector and sends it its
best route (Loc-RIB) for every prefix. Whenever a collector peer X's best route for a prefix changes,
the collector hears an UPDATE from X, announcing X's path (X first, then its route's path) or
withdrawing the prefix; that is what goes out on PREFIX/updates as a RIS Live message, so `bgpsim
monitor` (or any RIS Live reader) checks a simulated hijack through the pipeline a real feed takes.
The session is taken to be up when the run starts: a warm start's routes are sent at time 0, as the
table a new session gets. Changes go out at once (the collector session has no MRAI: the feed shows
when a route changed, not when it would have reached a collector after a timer).

Beside the routes: PREFIX/sim/timeline gets one message per change of where the target's traffic goes
(the shares of source ASes at the attacker, at the victim, disconnected, in a loop, and the diverted
traffic), and PREFIX/sim/status, retained, says "simulating", "publishing" (with the scenario, the
peers and the marks), "done" (with the outcome), "stopped" (with why) or, as the Last Will, "offline".

Times: a message's `timestamp` is EPOCH (2023-11-14, the pcap writer's start) plus its simulated
time. The engine is synchronous, so the messages are recorded as it runs and published afterwards,
each at (simulated time / pace) seconds after publishing starts. The broker connection is made first,
so a broker that is not there costs no simulation; the run happens in a worker thread meanwhile, so the
event loop keeps the connection alive however long the run takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from dataclasses import dataclass

from bgpsim.capture.session import START as EPOCH
from bgpsim.sim.wiretap import address

from .broker import BrokerAddress, client, connect_error
from .rislive import sim_message
from .topics import Topics, status

class CollectorPeers:
    """Records the best-route changes of the collector peers (AS indices) as the timed engine runs.

    `simulate(..., observer=this)` calls `attach(engine)` before the first event: it sends each peer's
    current routes (a warm start's) and chains the engine's `on_change`."""

    def __init__(self, peers: list[int]):
        self.peers = frozenset(peers)
        self.changes: list[tuple[float, int, int, tuple | None]] = []  # (time, peer, prefix index, path)
        self._last: dict[tuple[int, int], tuple | None] = {}
        self.engine = None

    def attach(self, engine) -> None:
        self.engine = engine
        before = engine.on_change

        def on_change(i: int, p: int) -> None:
            if before is not None:
                before(i, p)
            if i in self.peers:
                self._changed(i, p)

        engine.on_change = on_change
        for i in sorted(self.peers):
            for p in range(len(engine.prefixes)):
                self._changed(i, p)

    def _changed(self, i: int, p: int) -> None:
        path = self.engine.adv[p][i]  # (i,) + the Loc-RIB path; None: no route
        if self._last.get((i, p)) != path:  # a new entry with the same path is no UPDATE
            self._last[(i, p)] = path
            self.changes.append((self.engine.q.now, i, p, path))


@dataclass
class Feed:
    """What a run publishes: (simulated time, topic, payload) in time order, and the retained status
    to send when publishing starts and when it ends."""

    messages: list[tuple[float, str, bytes]]
    updates: int
    timeline: int
    started: dict
    finished: dict


def sim_topics(topics: Topics) -> tuple[str, str]:
    """PREFIX/sim/timeline and PREFIX/sim/status."""
    return f"{topics.prefix}/sim/timeline", f"{topics.prefix}/sim/status"


def build_feed(rec: CollectorPeers, run, topics: Topics, pace: float) -> Feed:
    """The messages of a finished run: the peers' UPDATEs and the timeline, merged by simulated time."""
    eng = rec.engine
    asns = eng.topo.asns.tolist()
    token = secrets.token_hex(4)  # message ids unique across runs: the monitor drops repeated ids
    host = f"bgpsim-{run.scenario.name}"
    timeline_topic, _ = sim_topics(topics)
    msgs: list[tuple[float, int, str, bytes]] = []
    for n, (t, i, p, path) in enumerate(rec.changes, start=1):
        prefix = eng.prefixes[p]
        m = sim_message(round(EPOCH + t, 6), address(i), asns[i], str(prefix),
                        None if path is None else [asns[x] for x in path], address(i, prefix.version),
                        f"{host}-{token}-{n}", host)
        msgs.append((t, 0, topics.updates, _dump(m)))
    for t, *shares, diverted in run.timeline:
        doc = {"time": round(t, 6), "timestamp": round(EPOCH + t, 6),
               **{k: round(x, 6) for k, x in zip(("attacker", "victim", "disconnected", "loop"), shares)},
               "diverted": round(max(0.0, diverted), 6)}
        msgs.append((t, 1, timeline_topic, _dump(doc)))
    msgs.sort(key=lambda m: (m[0], m[1]))  # at one time: the route changes, then the outcome they made
    s = run.scenario
    started = {"scenario": s.name, "description": s.description, "epoch": EPOCH, "pace": pace,
               "attacker": run.attacker, "victim": run.victim, "target": s.target,
               "victim_prefixes": s.victim_prefixes, "attack": None if s.attack is None else s.attack.prefixes,
               "peers": [{"asn": asns[i], "peer": address(i), "name": eng.topo.names.get(asns[i], "")}
                         for i in sorted(rec.peers)],
               "marks": [{"time": m.time, "label": m.label} for m in run.marks],
               "updates": len(rec.changes), "seconds": round(msgs[-1][0], 6) if msgs else 0.0}
    o = run.outcome
    finished = {"updates": len(rec.changes), "timeline": len(run.timeline), "converged_at": run.converged_at,
                "outcome": {"attacker": o.attacker, "victim": o.victim, "disconnected": o.disconnected,
                            "loop": o.loop}, "diverted": run.traffic.diverted}
    return Feed([(t, topic, payload) for t, _, topic, payload in msgs], len(rec.changes), len(run.timeline),
                started, finished)


def _dump(doc: dict) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def publish_run(work, rec: CollectorPeers, addr: BrokerAddress, topics: Topics, pace: float, say=None):
    """Connect, run `work()` (the simulation, returning its RunResult) in a worker thread, then publish
    its feed paced by `pace`; the RunResult. `say(text)` is told when publishing starts."""
    import aiomqtt

    try:
        return asyncio.run(_publish_run(work, rec, addr, topics, pace, say))
    except (aiomqtt.MqttError, OSError) as e:
        raise connect_error(e, addr) from None


async def _publish_run(work, rec, addr, topics, pace, say):
    import aiomqtt

    _, status_topic = sim_topics(topics)
    will = aiomqtt.Will(status_topic, status("offline"), qos=1, retain=True)
    async with client(addr, will=will) as c:
        await c.publish(status_topic, status("simulating"), qos=1, retain=True)
        try:
            run = await asyncio.to_thread(work)  # the loop stays free to keep the connection alive
            feed = build_feed(rec, run, topics, pace)
            if say is not None:
                say(f"publishing {feed.updates:,} UPDATEs from {len(rec.peers)} collector peers and {feed.timeline:,} "
                    f"timeline points to {addr} ({topics.prefix}/...): {feed.started['seconds']:.1f} simulated "
                    f"seconds in about {feed.started['seconds'] / pace:.1f} s (--pace {pace:g})")
            await c.publish(status_topic, status("publishing", **feed.started), qos=1, retain=True)
            start = time.perf_counter()
            for t, topic, payload in feed.messages:
                wait = t / pace - (time.perf_counter() - start)
                if wait > 0:
                    await asyncio.sleep(wait)
                await c.publish(topic, payload, qos=1)
        except BaseException as e:  # a bad scenario, Ctrl-C: say so rather than leave "publishing" standing
            why = str(e).strip() or type(e).__name__
            with contextlib.suppress(Exception):
                await asyncio.wait_for(c.publish(status_topic, status("stopped", error=why[:200]), qos=1,
                                                 retain=True), 2.0)
            raise
        await c.publish(status_topic, status("done", **feed.finished), qos=1, retain=True)
    return run
