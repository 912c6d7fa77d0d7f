"""`bgpsim monitor`: a live feed validated as it arrives, by the code `bgpsim validate` runs.

Each RIS Live message (one per UPDATE, or an array of them on the batched topic) becomes route records
that `bgpsim.validate.check.Checker` checks as it checks a dump, so routes.csv has the columns and the
statuses `validate` gives. The monitor subscribes at QoS 1 in a persistent session (`client_id`): what
is published while it or the broker is away is kept by the broker and delivered when it is back; it
reconnects by itself, waiting longer each time (0.5 s doubling to 10 s). A message seen twice (a QoS 1
redelivery: the same `id`) is checked once. A message that cannot be read is counted and warned about
(the first ten, then one in a thousand), and the monitor goes on. At most MAX_QUEUED messages wait to
be checked (`Inbox`); a SIGKILL loses those (aiomqtt acknowledges a QoS 1 message as it reads it).

Outputs (bgpsim.live.output): routes.csv grows as routes are checked, a batch of whole lines at a
time; summary.json is written, by a rename, at the end.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field

from orjson import dumps as _dumps
from orjson import loads as _loads

from bgpsim.base.errors import InputError
from bgpsim.mrt.record import WITHDRAW
from bgpsim.validate.check import BATCH

from .broker import BACKOFF, IN_FLIGHT, BrokerAddress, client, connect_error
from .rislive import ESTABLISHED, Reader, message_time
from .topics import Topics, status

MAX_SEEN = 50_000  # message ids remembered to drop QoS 1 redeliveries (which come within seconds)
FLUSH_EVERY = 0.05  # seconds between checks of what was fed (and a flush of routes.csv): short waits for alerts
MAX_QUEUED = 10_000  # messages received and not yet checked; beyond this or MAX_QUEUED_BYTES they are dropped
MAX_QUEUED_BYTES = 64 << 20


@dataclass
class Counts:
    messages: int = 0
    updates: int = 0
    routes: int = 0
    repeats: int = 0  # QoS 1 redeliveries (the same id), checked once
    unreadable: int = 0
    reconnects: int = 0
    lost_at_stop: int = 0  # messages that came while a stopping monitor disconnected
    dropped: int = 0  # messages received while MAX_QUEUED were waiting to be checked
    most_waiting: int = 0  # the most messages received and not yet checked at once: does the monitor keep up?
    late: int = 0  # messages that came after a later-numbered one from the same publisher
    missing: int = 0  # gaps in a publisher's numbered ids: messages the broker dropped (or never got)
    types: Counter = field(default_factory=Counter)  # ris_message data read, by type (UPDATE, OPEN, ...)
    server: Counter = field(default_factory=Counter)  # the server's other messages, by type (pong, ris_error, ...)
    first_at: float | None = None  # wall time of the first and the last message that came
    last_at: float | None = None


class Monitor:
    """Checks what arrives; `feed(topic, payload)` for each message, `flush()` now and then."""

    def __init__(self, checker, topics: Topics, warn, watcher=None, on_alert=None):
        self.checker = checker
        self.topics = topics
        self.warn = warn
        self.watcher = watcher  # bgpsim.live.watch.Watcher, with --watch
        self.on_alert = on_alert  # called with each new alert (alerts.jsonl)
        self.outbox: list[dict] = []  # new alerts, to publish
        self.counts = Counts()
        self.reader = Reader(warn)
        if watcher is not None:  # the routes the watcher may raise an alert for: found as the core reads
            self.reader.watch([w.prefix for w in watcher.watch.prefixes], [a.asn for a in watcher.watch.ases])
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._next: dict[str, int] = {}  # a publisher's id prefix -> the number its next message should have
        self._gaps = 0

    def feed(self, topic: str, payload: bytes) -> None:
        """One MQTT message: a RIS Live message, or on the batch topic a JSON array of them."""
        c = self._arrived()
        where = f"{topic} message {c.messages}"
        if topic != self.topics.batch:
            self._read(payload, where)
            return
        try:
            doc = _loads(payload) if len(payload) < 64 << 20 else None
        except ValueError as e:
            doc = e
        if not isinstance(doc, list):
            self._unreadable(InputError("want a JSON array of RIS Live objects (or at most 64 MiB)", where))
            return
        for i, d in enumerate(doc):  # each one read as it would come alone
            self._read(_dumps(d), f"{where}[{i}]")

    def feed_message(self, payload: bytes | str, where: str) -> str:
        """One RIS Live message as a WebSocket or a replay brings it; its envelope's type ("" when
        unreadable)."""
        self._arrived()
        return self._read(payload if isinstance(payload, bytes) else payload.encode(), where)

    def _arrived(self) -> Counts:
        c = self.counts
        c.messages += 1
        c.last_at = time.time()
        if c.first_at is None:
            c.first_at = c.last_at
        return c

    def _unreadable(self, e: Exception) -> None:
        c = self.counts
        c.unreadable += 1
        if c.unreadable <= 10 or c.unreadable % 1000 == 0:
            self.warn(f"{e}" + (f" ({c.unreadable:,} unreadable messages so far)" if c.unreadable > 10 else ""))

    def _read(self, payload: bytes, where: str) -> str:
        """One message into the batch; the envelope's type ("" when unreadable)."""
        try:
            kind, dtype, key, rows, hits, extra = self.reader.read(payload, where)
        except InputError as e:
            self._unreadable(e)
            return ""
        c = self.counts
        if kind != "ris_message":
            c.server[kind] += 1
            if kind == "ris_error":
                self.warn(f"{where}: the server says: {_said(extra)[:200]}")
            return kind
        if isinstance(key, str):
            if key in self._seen:
                self.reader.undo()
                c.repeats += 1
                return kind
            self._seen[key] = None
            if len(self._seen) > MAX_SEEN:
                self._seen.popitem(last=False)
            self._gap(key)
        c.types[dtype] += 1
        if dtype == "UPDATE":
            c.updates += 1
            c.routes += rows
            if hits:
                when, routes = self.reader.watched()
                w = self.watcher
                for r in routes:
                    self._alerted(w.check(r, when) if r.kind != WITHDRAW else w.withdraw(r, when))
            if self.reader.rows >= BATCH:
                self._check()
        elif dtype == "RIS_PEER_STATE":
            r = self.reader.peer_state(extra)
            self.checker.feed(r)
            if self.watcher is not None and r.new_state != ESTABLISHED:
                self._alerted(self.watcher.peer_down(r, message_time(r.time, r.usec)))
        return kind

    def _check(self) -> None:
        b = self.reader.take()
        if b is not None:
            self.checker.feed_batch(b)

    def _alerted(self, alerts: list[dict]) -> None:
        for alert in alerts:
            if self.topics is not None:  # the MQTT feed's loop publishes them
                self.outbox.append(alert)
            if self.on_alert is not None:
                self.on_alert(alert)

    def _gap(self, key: str) -> None:
        """Count the messages missing before `key` when it is "PREFIX-N" and N skips ahead (bgpsim's
        publishers number their messages; a broker that drops QoS 1 messages for a subscriber that
        falls behind, as mosquitto does beyond max_queued_messages, leaves such gaps)."""
        head, sep, tail = key.rpartition("-")
        if not sep or not tail.isdigit():
            return
        n = int(tail)
        want = self._next.get(head)
        if want is not None and n > want:
            before = self.counts.missing
            self.counts.missing += n - want
            self._gaps += 1
            if self._gaps <= 10 or before // 1000 != self.counts.missing // 1000:
                self.warn(f"{n - want:,} messages missing before {key} ({self.counts.missing:,} so far): the broker "
                          "dropped them? (mosquitto: raise max_queued_messages)")
        if want is None or n >= want:
            self._next[head] = n + 1
        elif self.counts.missing:  # late, not lost: one of those counted missing (a repeat was dropped above)
            self.counts.missing -= 1
            self.counts.late += 1
        if len(self._next) > MAX_SEEN:
            self._next.clear()

    def flush(self) -> None:
        self._check()
        self.checker.drain()


def _said(data: bytes) -> str:
    """What a ris_error's data says: its message, or the data as it is."""
    try:
        doc = _loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")
    return str(doc.get("message", doc) if isinstance(doc, dict) else doc)


async def run(monitor: Monitor, addr: BrokerAddress, client_id: str, until_idle: float | None, on_flush=None,
              stop: asyncio.Event | None = None, on_connected=None) -> None:
    """Subscribe and feed `monitor` until nothing has come for `until_idle` seconds (None: until
    `stop` is set). The first connection must succeed, and `on_connected` is called once it has, before
    the first message is read (outputs are touched only then); later losses are retried with backoff. When
    `stop` is set (SIGTERM, Ctrl-C) what the client has already received is checked before it
    disconnects: the broker acknowledged those messages to it, and keeps the rest for the session."""
    import aiomqtt

    topics = monitor.topics
    first = True
    delay = BACKOFF[0]
    last = time.monotonic()
    while True:
        will = aiomqtt.Will(topics.status("monitor"), status("offline"), qos=1, retain=True)
        try:
            async with client(addr, identifier=client_id, persistent=True, will=will, inflight=IN_FLIGHT) as c:
                await c.subscribe([(topics.updates, 1), (topics.batch, 1)])
                await c.publish(topics.status("monitor"), status("online"), qos=1, retain=True)
                if first and on_connected is not None:
                    on_connected()
                first, delay = False, BACKOFF[0]
                # One task moves what arrives into `inbox` and is never cancelled while a message is in
                # hand: a timeout on aiomqtt's own iterator may take a message from its queue and drop it.
                inbox = Inbox(monitor)
                pump = asyncio.create_task(inbox.pump(c))
                sending: deque = deque()  # alerts being published, oldest first
                flushed = time.monotonic()
                try:
                    while True:
                        if stop is not None and stop.is_set():
                            # stopping: check what the client already holds (the broker counts it delivered),
                            # then go; the broker keeps what comes next for the session
                            while len(c.messages) or not inbox.empty():
                                if inbox.empty():
                                    await asyncio.sleep(0)  # the pump's turn
                                    continue
                                m = inbox.get_nowait()
                                monitor.feed(str(m.topic), bytes(m.payload) if m.payload is not None else b"")
                            await _send_alerts(c, monitor, sending, 0)
                            monitor.flush()
                            if on_flush is not None:
                                on_flush()
                            await c.publish(topics.status("monitor"), status("stopped", **_plain(monitor.counts)),
                                            qos=1, retain=True)
                            left = c.messages
                            break
                        if pump.done():  # the connection went: its error, to reconnect
                            pump.result()
                        timeout = FLUSH_EVERY
                        if until_idle is not None:
                            timeout = min(timeout, max(0.0, until_idle - (time.monotonic() - last)))
                        try:
                            async with asyncio.timeout(timeout):  # safe on an asyncio.Queue, no task per message
                                m = await inbox.get()
                        except TimeoutError:
                            m = None
                        now = time.monotonic()
                        if m is not None:
                            monitor.feed(str(m.topic), bytes(m.payload) if m.payload is not None else b"")
                            last = now
                            if monitor.outbox:
                                await _send_alerts(c, monitor, sending, IN_FLIGHT)
                        if now - flushed >= FLUSH_EVERY or m is None:
                            monitor.flush()
                            if on_flush is not None:
                                on_flush()
                            flushed = now
                        if until_idle is not None and now - last >= until_idle:
                            await _send_alerts(c, monitor, sending, 0)
                            await c.publish(topics.status("monitor"), status("done", **_plain(monitor.counts)),
                                            qos=1, retain=True)
                            return
                finally:
                    pump.cancel()
            if len(left):  # came between the last check and the disconnection: acknowledged, not checked
                monitor.counts.lost_at_stop = len(left)
                monitor.warn(f"{len(left):,} messages came while disconnecting and were not checked")
            return
        except aiomqtt.MqttError as e:
            if first:
                raise connect_error(e, addr) from None
            monitor.counts.reconnects += 1
            monitor.warn(f"lost the broker {addr} ({e}); reconnecting in {delay:g} s")
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF[1])
            if until_idle is not None and time.monotonic() - last >= until_idle + 60:
                raise InputError(f"the broker {addr} has been gone for over a minute past --until-idle") from None


class Inbox:
    """What the client has received and the monitor not yet checked, bounded: a message that does not
    fit is dropped, counted and warned about (the broker took it as delivered, so nothing else would tell).
    A monitor slower than its feed does not fill it in practice: the client reads from its socket only
    when the monitor waits (one event loop), and the monitor waits only once it has checked what it
    holds, so the backlog stays at the broker (TCP holds it back), where mosquitto's max_queued_messages
    bounds it and a drop shows as numbered ids missing."""

    def __init__(self, monitor: Monitor):
        self.monitor = monitor
        self.queue: asyncio.Queue = asyncio.Queue()
        self.bytes = 0

    async def pump(self, c) -> None:
        async for m in c.messages:
            self.put(m, len(c.messages))

    def put(self, m, behind: int = 0) -> None:
        """Queue `m`; `behind`: how many more the client holds."""
        size = _size(m)
        counts = self.monitor.counts
        counts.most_waiting = max(counts.most_waiting, self.queue.qsize() + behind + 1)
        if self.queue.qsize() >= MAX_QUEUED or self.bytes + size > MAX_QUEUED_BYTES:
            counts.dropped += 1
            if counts.dropped <= 10 or counts.dropped % 1000 == 0:
                self.monitor.warn(f"dropped a message on {m.topic}: {self.queue.qsize():,} messages "
                                  f"({self.bytes:,} bytes) wait to be checked ({counts.dropped:,} dropped so far)")
            return
        self.bytes += size
        self.queue.put_nowait(m)

    def take(self, m):
        self.bytes -= _size(m)
        return m

    async def get(self):
        return self.take(await self.queue.get())

    def get_nowait(self):
        return self.take(self.queue.get_nowait())

    def empty(self) -> bool:
        return self.queue.empty()


def _size(m) -> int:
    return len(m.payload) if isinstance(m.payload, (bytes, bytearray)) else 0


async def _send_alerts(c, monitor: Monitor, sending: deque, window: int) -> None:
    """Publish the new alerts (QoS 1) without waiting for each acknowledgement in turn: at most `window`
    in flight (0: wait for all)."""
    while monitor.outbox:
        sending.append(asyncio.ensure_future(c.publish(monitor.topics.alerts, json.dumps(monitor.outbox.pop(0)),
                                                       qos=1)))
    while len(sending) > window:
        await sending.popleft()
    while sending and sending[0].done():
        sending.popleft().result()


def _plain(c: Counts) -> dict:
    return {k: v for k, v in c.__dict__.items() if not k.endswith("_at")}

