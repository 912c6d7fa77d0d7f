"""A BMP monitoring station (RFC 7854): routers connect and report their routes, which become the feed.

`bgpsim monitor --bmp-listen ADDRESS:PORT` checks each route a router reports as the MQTT feed's are
checked; `bgpsim stream publish --bmp-listen` republishes them as RIS Live messages. Each Route
Monitoring message (pre- or post-policy Adj-RIB-In, RFC 8671's Adj-RIB-Out, RFC 9069's Loc-RIB) is
an UPDATE read by the MRT reader's core, as RFC 7606 says, for the peer its Per-Peer Header names,
at the time it gives; it becomes the RIS Live message a collector would send (bgpsim.live.rislive).
Peer Up and Peer Down are one line each, Statistics Reports are counted. Each monitored UPDATE is also
recorded as a BGP4MP_ET record, so the same routes can be read by `bgpsim validate` and bgpdump.

Like every listening service here: it listens only where told (the address is taken before any
work, so a busy port is an error at once), `--allow` limits the routers, `--max-sessions` their
number; a router that sends what is not BMP is told so in one line and its session closed, the
others untouched.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
import time

from orjson import dumps as _dumps

from bgpsim.base.errors import InputError
from bgpsim.base.hostport import parse_listen, parse_networks
from bgpsim.mrt.reader import MRTReader
from bgpsim.mrt.write import message_record
from bgpsim.wire import WireError
from bgpsim.wire.bmp import (
    COMMON,
    INITIATION,
    NAMES,
    PEER_DOWN,
    PEER_UP,
    ROUTE_MONITORING,
    STATISTICS,
    TERMINATION,
    message_length,
    parse,
    peer_up_local,
    tlvs,
)

from .monitor import FLUSH_EVERY
from .rislive import update_messages

SYS_NAME = 2  # Information TLV (RFC 7854 section 4.4)


class BmpStation:
    """Routers' BMP sessions on `listen` ("ADDRESS:PORT"), from `allow` ("NET,NET,..." or None: any),
    at most `max_sessions` at once; `say` and `warn` take one line each; `record(bytes)` each
    monitored UPDATE as an MRT record (or None)."""

    def __init__(self, listen: str, allow: str | None, max_sessions: int | None, say, warn, record=None):
        self.listen = listen
        self.host, self.port = parse_listen(listen, "--bmp-listen")
        self.allow = parse_networks(allow) if allow else None
        self.max_sessions = max_sessions or 100
        self.say, self.warn, self.record = say, warn, record
        self.counts = {"messages": 0, "route_monitoring": 0, "statistics": 0, "peer_up": 0, "peer_down": 0}
        self._sock: socket.socket | None = None
        self._open: dict = {}  # the sessions' tasks -> their writers (--max-sessions counts them)
        self._run = os.urandom(4).hex()
        self._last = time.monotonic()
        self._mrt = MRTReader("<bmp>", warn)

    def __str__(self) -> str:
        return f"BMP on {self.listen}"

    def prepare(self) -> None:
        """Take the address now: a port in use is an error before any work."""
        family = socket.AF_INET6 if ipaddress.ip_address(self.host).version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(64)
        except OSError as e:
            sock.close()
            raise InputError(f"--bmp-listen {self.listen}: cannot listen: {e.strerror or e}") from None
        self._sock = sock

    async def run(self, monitor, until_idle: float | None = None, on_flush=None, stop: asyncio.Event | None = None,
                  on_connected=None) -> None:
        """Take routers' sessions, feeding `monitor` (bgpsim.live.monitor.Monitor: `feed_message` each RIS
        Live message, `flush`), until `stop` is set or (with `until_idle`) no message has come for that long."""
        if self._sock is None:
            self.prepare()
        if on_connected is not None:
            on_connected()
        self._monitor = monitor
        server = await asyncio.start_server(self._session, sock=self._sock)
        self.say(f"listening for BMP on {self.listen}")
        try:
            while not (stop is not None and stop.is_set()):
                await asyncio.sleep(FLUSH_EVERY)
                monitor.flush()
                if on_flush is not None:
                    on_flush()
                if until_idle is not None and time.monotonic() - self._last >= until_idle:
                    break
        finally:
            server.close()
            for writer in self._open.values():  # each session ends at its next read
                writer.close()
            if self._open:
                _, late = await asyncio.wait(list(self._open), timeout=2)
                for t in late:
                    t.cancel()
                await asyncio.gather(*late, return_exceptions=True)
            monitor.flush()
            if on_flush is not None:
                on_flush()

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        router = writer.get_extra_info("peername")[0]
        if self.allow is not None and not any(ipaddress.ip_address(router.split("%")[0]) in n for n in self.allow):
            self.warn(f"BMP from {router} refused: not in --allow")
            writer.close()
            return
        if len(self._open) >= self.max_sessions:
            self.warn(f"BMP from {router} refused: {self.max_sessions} sessions already (--max-sessions)")
            writer.close()
            return
        task = asyncio.current_task()
        self._open[task] = writer
        self._last = time.monotonic()
        self.say(f"BMP session from {router}")
        name, n, local = router, 0, {}
        try:
            while True:
                try:
                    head = await reader.readexactly(COMMON)
                except asyncio.IncompleteReadError as e:
                    if e.partial:
                        raise WireError("BMP Common Header (RFC 7854 section 4.1): the session ended inside it", 0)
                    break
                msg = head + await reader.readexactly(message_length(head) - COMMON)
                m = parse(msg)
                n += 1
                self._last = time.monotonic()
                self.counts["messages"] += 1
                if m.kind == ROUTE_MONITORING:
                    self.counts["route_monitoring"] += 1
                    self._routes(m, name, f"{self._run}.{id(writer):x}.{n}", local.get(m.peer[2:4]))
                elif m.kind == INITIATION:
                    name = next((v.decode("utf-8", "replace") for t, v in tlvs(m.body) if t == SYS_NAME), name)
                    self.say(f"BMP from {router}: router {name}")
                elif m.kind == PEER_UP:
                    self.counts["peer_up"] += 1
                    local[m.peer[2:4]] = peer_up_local(m.body, bool(m.peer.flags & 0x80))
                    self.say(f"BMP {name}: peer AS{m.peer.asn} {m.peer.address} up")
                elif m.kind == PEER_DOWN:
                    self.counts["peer_down"] += 1
                    self.say(f"BMP {name}: peer AS{m.peer.asn} {m.peer.address} down (reason {m.body[:1].hex() or '?'})")
                elif m.kind == STATISTICS:
                    self.counts["statistics"] += 1
                elif m.kind == TERMINATION:
                    break
        except WireError as e:
            self.warn(f"BMP from {router}, message {n + 1}: {e}; session closed")
        except asyncio.IncompleteReadError:
            self.warn(f"BMP from {router}, message {n + 1}: the session ended inside it")
        except ConnectionError as e:
            self.warn(f"BMP from {router}: the connection was lost ({type(e).__name__})")
        except asyncio.CancelledError:
            pass  # the station stopping
        finally:
            self._open.pop(task, None)
            writer.close()
            self.say(f"BMP session from {router} ended after {n:,} messages")

    def _routes(self, m, router: str, ids: str, local_ip: str | None) -> None:
        """One Route Monitoring message into the monitor (and the recording)."""
        p = m.peer
        routes, damage, notes = self._mrt.update_routes(m.body, "BGP4MP_ET", p.seconds, p.usec, p.address, p.asn,
                                                        p.asn_size)
        for note in notes + ([damage] if damage else []):
            self.warn(f"BMP {router}: Route Monitoring for {p.address}: {note}")
        if self.record is not None:
            version = ipaddress.ip_address(p.address).version
            if local_ip is None or ipaddress.ip_address(local_ip).version != version:  # none given: unspecified
                local_ip = "0.0.0.0" if version == 4 else "::"
            self.record(message_record((p.seconds, p.usec), p.asn, 0, p.address, local_ip, m.body, p.asn_size == 4))
        for data in update_messages(routes, host=router, ids=ids):
            self._monitor.feed_message(_dumps(data), f"BMP {router} {NAMES[m.kind]}")


class Relay:
    """What a BmpStation feeds, kept for `stream publish` to send on (`messages`), instead of checked."""

    def __init__(self):
        self.queue: asyncio.Queue = asyncio.Queue()

    def feed_message(self, payload: bytes, where: str) -> None:
        self.queue.put_nowait(payload)

    def flush(self) -> None:
        pass

    async def messages(self, station: BmpStation, until_idle: float | None, stop: asyncio.Event | None):
        """The RIS Live messages (as dicts) of the routers' sessions, until the station ends."""
        from orjson import loads

        running = asyncio.ensure_future(station.run(self, until_idle, stop=stop))
        while True:
            get = asyncio.ensure_future(self.queue.get())
            done, _ = await asyncio.wait({get, running}, return_when=asyncio.FIRST_COMPLETED)
            if get in done:
                yield loads(get.result())
                continue
            get.cancel()
            running.result()
            while not self.queue.empty():
                yield loads(self.queue.get_nowait())
            return
